// SPDX-License-Identifier: MIT
/*
 * test_fileclass.c - path classes (sensor/process/fileclass.c): the glob
 * language (`*`, `?` within a component, `**` any depth, a pattern covering
 * the entries below what it names), `~` as every home, the first class in
 * load order winning, the expansion into watch keys of a real directory
 * tree (files that exist, directories whose entries are watched, the
 * directory of a literal name watched for creations, /proc left to the
 * kernel), the classes of the shipped rules, and the learned files set of a
 * baseline (BL_SET_FILES).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "baseline.h"
#include "process/fileclass.h"
#include "ruleset.h"

static void test_glob(void **state)
{
	(void)state;
	assert_true(fileclass__glob("/etc/shadow", "/etc/shadow"));
	assert_false(fileclass__glob("/etc/shadow", "/etc/shadow-"));
	assert_false(fileclass__glob("/etc/shadow", "/etc/gshadow"));
	assert_true(fileclass__glob("/etc/cron.d", "/etc/cron.d/evil")); /* a directory: its entries */
	assert_true(fileclass__glob("/home/u/.ssh/id_*", "/home/u/.ssh/id_ed25519"));
	assert_false(fileclass__glob("/home/u/.ssh/id_*", "/home/u/.ssh/known_hosts"));
	assert_false(fileclass__glob("/home/u/.ssh/id_*", "/home/u/.ssh/x/id_rsa"));
	assert_true(fileclass__glob("/etc/ssh/ssh_host_*_key", "/etc/ssh/ssh_host_ed25519_key"));
	assert_true(fileclass__glob("/a/?b", "/a/xb"));
	assert_false(fileclass__glob("/a/?b", "/a/b"));
	assert_true(fileclass__glob("/var/spool/cron/**", "/var/spool/cron/crontabs/root"));
	assert_true(fileclass__glob("/etc/systemd/system/**/x.service", "/etc/systemd/system/x.service"));
	assert_true(fileclass__glob("/etc/systemd/system/**/x.service", "/etc/systemd/system/a/b/x.service"));
	assert_false(fileclass__glob("/etc/systemd/system/**/x.service", "/etc/systemd/system/a/y.service"));
	assert_true(fileclass__glob("/proc/*/mem", "/proc/123/mem"));
	assert_false(fileclass__glob("/proc/*/mem", "/proc/123/task/5/mem"));
	assert_false(fileclass__glob("relative", "relative"));
	assert_false(fileclass__glob("/etc/passwd", "/etc/passwd+")); /* useradd's temporary file */
}

static const char *cred_paths[] = {"/etc/shadow", "~/.ssh/id_*"};
static const char *pers_paths[] = {"~/.ssh/authorized_keys", "/etc/cron.d", "~/.ssh/id_rsa"};

static void test_match_homes_and_order(void **state)
{
	const struct rl_path_class c[] = {
		{.name = "credentials", .paths = cred_paths, .n = 2},
		{.name = "persistence", .paths = pers_paths, .n = 3},
	};
	const char *homes[] = {"/root", "/home/alice/"};
	struct fileclass *fc;

	(void)state;
	assert_int_equal(fileclass__new(c, 2, homes, 2, &fc), 0);
	assert_int_equal(fileclass__count(fc), 2);
	assert_string_equal(fileclass__match(fc, "/etc/shadow"), "credentials");
	assert_string_equal(fileclass__match(fc, "/root/.ssh/id_ed25519"), "credentials");
	assert_string_equal(fileclass__match(fc, "/home/alice/.ssh/id_rsa"), "credentials"); /* the first class wins */
	assert_string_equal(fileclass__match(fc, "/home/alice/.ssh/authorized_keys"), "persistence");
	assert_string_equal(fileclass__match(fc, "/etc/cron.d/job"), "persistence");
	assert_null(fileclass__match(fc, "/home/bob/.ssh/id_rsa")); /* not a home */
	assert_null(fileclass__match(fc, "/home/alice/.ssh/known_hosts"));
	assert_null(fileclass__match(fc, "/etc/passwd"));
	fileclass__free(fc);
}

struct seen {
	struct {
		uint64_t dev, ino;
		unsigned kinds;
	} k[64];
	size_t n;
};

static void on_watch(void *ctx, uint64_t dev, uint64_t ino, unsigned kinds)
{
	struct seen *s = ctx;

	if (s->n < 64) {
		s->k[s->n].dev = dev;
		s->k[s->n].ino = ino;
		s->k[s->n++].kinds = kinds;
	}
}

static unsigned kinds_of(const struct seen *s, const char *path)
{
	struct stat st;
	unsigned k = 0;

	if (stat(path, &st) < 0)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->k[i].dev == (uint64_t)st.st_dev && s->k[i].ino == (uint64_t)st.st_ino)
			k |= s->k[i].kinds;
	return k;
}

static void test_expand_real_tree(void **state)
{
	char root[] = "/tmp/pl-fileclass-XXXXXX", p[512], pat_key[600], pat_dir[600], pat_new[600], pat_deep[600];
	const char *paths[5];
	struct rl_path_class c = {.name = "x", .paths = paths, .n = 5};
	struct fileclass *fc;
	struct seen s = {0};
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/home", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/home/.ssh", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/home/.ssh/id_rsa", root);
	assert_non_null(f = fopen(p, "w"));
	fclose(f);
	snprintf(p, sizeof(p), "%s/cron.d", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/units", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/units/a.wants", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(pat_key, sizeof(pat_key), "%s/home/.ssh/id_*", root);
	snprintf(pat_dir, sizeof(pat_dir), "%s/cron.d", root);
	snprintf(pat_new, sizeof(pat_new), "%s/ld.so.preload", root);
	snprintf(pat_deep, sizeof(pat_deep), "%s/units/**", root);
	paths[0] = pat_key;
	paths[1] = pat_dir;
	paths[2] = pat_new;
	paths[3] = pat_deep;
	paths[4] = "/proc/*/mem";
	assert_int_equal(fileclass__new(&c, 1, NULL, 0, &fc), 0);
	assert_true(fileclass__expand(fc, 10000, on_watch, &s) >= 5);
	snprintf(p, sizeof(p), "%s/home/.ssh", root);
	assert_true(kinds_of(&s, p) & FILECLASS_WATCH_DIR); /* id_* may be created there */
	snprintf(p, sizeof(p), "%s/cron.d", root);
	assert_true(kinds_of(&s, p) & FILECLASS_WATCH_DIR);
	assert_true(kinds_of(&s, root) & FILECLASS_WATCH_NEW); /* ld.so.preload does not exist yet */
	assert_false(kinds_of(&s, root) & FILECLASS_WATCH_DIR); /* ... but the rest of root is not watched */
	snprintf(p, sizeof(p), "%s/units/a.wants", root);
	assert_true(kinds_of(&s, p) & FILECLASS_WATCH_DIR); /* ** : every level */
	assert_int_equal(kinds_of(&s, "/proc/self"), 0);
	fileclass__free(fc);
	/* a budget of entries bounds the walk */
	s.n = 0;
	assert_int_equal(fileclass__new(&c, 1, NULL, 0, &fc), 0);
	(void)fileclass__expand(fc, 0, on_watch, &s);
	fileclass__free(fc);
	{
		static const char *const rm[] = {"home/.ssh/id_rsa", "home/.ssh", "home", "cron.d", "units/a.wants", "units"};

		for (size_t i = 0; i < sizeof(rm) / sizeof(rm[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s", root, rm[i]);
			assert_int_equal(remove(p), 0);
		}
		assert_int_equal(rmdir(root), 0);
	}
}

/* The shipped classes load and name what the rules expect. */
static void test_shipped_classes(void **state)
{
	const char *dir = PL_RULES_SOURCE_DIR;
	struct rl_diags d = {0};
	struct rl_ruleset *rs = NULL;
	const struct rl_path_class *c;
	const char *homes[] = {"/root"};
	struct fileclass *fc;
	size_t n;

	(void)state;
	assert_int_equal(rl_ruleset__load(&dir, 1, &rs, &d), 0);
	n = rl_ruleset__path_classes(rs, &c);
	assert_int_equal(n, 6);
	assert_int_equal(fileclass__new(c, n, homes, 1, &fc), 0);
	assert_string_equal(fileclass__match(fc, "/etc/shadow"), "credentials");
	assert_string_equal(fileclass__match(fc, "/etc/sudoers.d/90-x"), "credentials");
	assert_string_equal(fileclass__match(fc, "/root/.ssh/id_ed25519"), "credentials");
	assert_string_equal(fileclass__match(fc, "/root/.aws/credentials"), "credentials");
	assert_string_equal(fileclass__match(fc, "/root/.bash_history"), "shell_history");
	assert_string_equal(fileclass__match(fc, "/etc/passwd"), "accounts");
	assert_string_equal(fileclass__match(fc, "/etc/ld.so.preload"), "preload");
	assert_string_equal(fileclass__match(fc, "/etc/cron.d/job"), "persistence");
	assert_string_equal(fileclass__match(fc, "/var/spool/cron/crontabs/root"), "persistence");
	assert_string_equal(fileclass__match(fc, "/etc/systemd/system/multi-user.target.wants/x.service"),
			    "persistence");
	assert_string_equal(fileclass__match(fc, "/root/.ssh/authorized_keys"), "persistence");
	assert_string_equal(fileclass__match(fc, "/root/.bashrc"), "persistence");
	assert_string_equal(fileclass__match(fc, "/proc/42/mem"), "process_memory");
	assert_null(fileclass__match(fc, "/root/.ssh/known_hosts"));
	assert_null(fileclass__match(fc, "/etc/hostname"));
	assert_null(fileclass__match(fc, "/proc/42/environ"));
	fileclass__free(fc);
	rl_ruleset__free(rs);
	rl_diags__free(&d);
}

/* BL_SET_FILES: learned before it is ready, then a new class:op is new
 * and not learned; scoring alone (learn false) never changes the set. */
static void test_files_set(void **state)
{
	struct bl_policy p;
	struct baseline *b = baseline__new("bin:a", NULL, "/usr/bin/a", NULL, 1000);
	bool ready;

	(void)state;
	bl_policy__defaults(&p);
	p.set_quiet_ns = 0;
	assert_non_null(b);
	assert_int_equal(baseline__observe_file(b, "credentials:read", &p, 2000, false, &ready), 0);
	assert_false(ready);
	assert_false(strset__contains(&b->set[BL_SET_FILES], "credentials:read"));
	assert_int_equal(baseline__observe_file(b, "credentials:read", &p, 2000, true, &ready), 0);
	assert_true(strset__contains(&b->set[BL_SET_FILES], "credentials:read"));
	b->samples = p.min_samples * 4; /* many processes, one touch: saturated */
	b->set[BL_SET_FILES].m[0].count = p.min_samples * 4;
	assert_int_equal(baseline__observe_file(b, "credentials:read", &p, 3000, true, &ready), 0);
	assert_true(ready);
	assert_int_equal(baseline__observe_file(b, "persistence:write", &p, 3000, false, &ready), 1);
	assert_int_equal(baseline__observe_file(b, "persistence:write", &p, 3000, true, &ready), 1);
	assert_false(strset__contains(&b->set[BL_SET_FILES], "persistence:write")); /* new once ready: not learned */
	assert_string_equal(bl_set__name(BL_SET_FILES), "files");
	baseline__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_match_homes_and_order),
		cmocka_unit_test(test_expand_real_tree),
		cmocka_unit_test(test_shipped_classes),
		cmocka_unit_test(test_files_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
