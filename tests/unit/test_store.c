// SPDX-License-Identifier: MIT
/*
 * test_store.c - the state directory: saves that reload equal, file names
 * and modes, priors, bad files reported by name and moved aside, stale
 * temp files, forget/absorb, bundles whose merges don't depend on order,
 * saves that survive SIGKILL at any instant, and the store's lifetime
 * (eviction at the bound, the age sweep, priors aged out).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bundle.h"
#include "store.h"
#include "unit_helpers.h"

#define NOW0 1700000000000000000ull
#define SEC 1000000000ull
#define MAX_REPORTS 32
#define TEMP_REMOVED "removed a temp file left by an interrupted save"

struct report {
	char path[PATH_MAX];
	char problem[512];
};

struct ctx {
	char dir[64];
	size_t nreports;
	struct report reports[MAX_REPORTS];
};

static void capture(void *arg, const char *path, const char *problem)
{
	struct ctx *c = arg;

	if (c->nreports < MAX_REPORTS) {
		snprintf(c->reports[c->nreports].path, sizeof(c->reports[0].path), "%s", path);
		snprintf(c->reports[c->nreports].problem, sizeof(c->reports[0].problem), "%s", problem);
	}
	c->nreports++;
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	snprintf(c->dir, sizeof(c->dir), "/tmp/pl-store-XXXXXX");
	if (!mkdtemp(c->dir)) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	ut_rm_rf(c->dir);
	free(c);
	return 0;
}

static void path_in(const struct ctx *c, const char *name, char *buf, size_t len)
{
	assert_true(snprintf(buf, len, "%s/%s", c->dir, name) < (int)len);
}

static void file_of_key(const struct ctx *c, const char *key, char *buf, size_t len)
{
	assert_true(snprintf(buf, len, "%s/%016llx.json", c->dir, (unsigned long long)bl_key_hash(key)) < (int)len);
}

static struct bl_store *open_store(struct ctx *c)
{
	struct bl_store *st = NULL;

	c->nreports = 0;
	assert_int_equal(bl_store__open(c->dir, capture, c, &st), 0);
	assert_non_null(st);
	return st;
}

/* Entries of the test dir, "." and ".." aside. */
static size_t count_entries(const struct ctx *c)
{
	DIR *d = opendir(c->dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* Whether some entry is named <name>.bad-<digits>. */
static bool has_bad_copy(const struct ctx *c, const char *name)
{
	DIR *d = opendir(c->dir);
	struct dirent *de;
	size_t l = strlen(name);
	bool found = false;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, name, l) == 0 && strncmp(de->d_name + l, ".bad-", 5) == 0 &&
		    strspn(de->d_name + l + 5, "0123456789") == strlen(de->d_name + l + 5) && de->d_name[l + 5])
			found = true;
	closedir(d);
	return found;
}

static void write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* A baseline file's JSON (with the store's "format" member), as text. */
static char *file_json(const struct baseline *b, void (*mutate)(struct json_object *))
{
	struct json_object *o = baseline__to_json(b);
	char *s;

	assert_non_null(o);
	json_object_object_add(o, "format", json_object_new_string("plumbline-baseline"));
	if (mutate)
		mutate(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_non_null(s);
	json_object_put(o);
	return s;
}

static const char *const sys_names[] = { "openat", "read", "mmap" };

/* One process sample and one window, learned. No cmocka asserts: the
 * crash test's child calls it. 0 or -errno. */
static int learn_one(struct baseline *b, unsigned i, uint64_t cpu, uint64_t now_ns)
{
	struct bl_policy p;
	const char *path = i % 2 ? "/etc/a" : "/etc/b";
	struct bl_process_sample s = {
		.cpu_ns = cpu + i * 1000,
		.wall_ns = 3 * cpu,
		.offcpu_ns = 2 * cpu,
		.syscalls = 100 + i,
		.open_fail = i % 3,
		.fail_paths = &path,
		.nfail_paths = 1,
		.syscall_names = sys_names,
		.nsyscall_names = 3,
	};
	struct bl_window_sample w = { .duration_ns = SEC, .cpu_ns = cpu / 10, .syscalls = 50 + i,
				      .sc_class = { [BL_SC_FILE] = 30, [BL_SC_MEM] = 20 + i } };
	struct bl_verdict v;
	int r;

	bl_policy__defaults(&p);
	p.mode = BL_MODE_LEARN;
	r = baseline__observe_process(b, NULL, &s, &p, now_ns + i, &v);
	if (!r)
	r = baseline__observe_window(b, NULL, &w, &p, now_ns + i, &v);
	if (!r && !(v.learned && b->dist[PL_LIFE_CPU].count == b->samples))
	r = -EPROTO;
	return r;
}

static void learn(struct baseline *b, unsigned n, uint64_t cpu, uint64_t now_ns)
{
	struct bl_policy p;

	bl_policy__defaults(&p);
	p.mode = BL_MODE_LEARN;
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(learn_one(b, i, cpu, now_ns), 0);
	assert_int_equal(baseline__observe_child(b, "/bin/sh", NULL, &p, now_ns), 0);
}

static void assert_baseline_equal(const struct baseline *a, const struct baseline *b)
{
	assert_string_equal(a->key, b->key);
	assert_string_equal(a->binary_id, b->binary_id);
	assert_string_equal(a->parent_id, b->parent_id);
	assert_string_equal(a->exe, b->exe);
	assert_string_equal(a->parent_exe, b->parent_exe);
	if (a->prior_key || b->prior_key) {
		assert_non_null(a->prior_key);
		assert_non_null(b->prior_key);
		assert_string_equal(a->prior_key, b->prior_key);
	}
	assert_int_equal(a->created_ns, b->created_ns);
	assert_int_equal(a->updated_ns, b->updated_ns);
	assert_int_equal(a->seen_ns, b->seen_ns);
	assert_int_equal(a->samples, b->samples);
	assert_int_equal(a->windows, b->windows);
	assert_int_equal(a->quarantined, b->quarantined);
	assert_int_equal(a->rate_limited, b->rate_limited);
	assert_true(a->tokens == b->tokens);
	assert_int_equal(a->tokens_ns, b->tokens_ns);
	for (int i = 0; i < PL_DIST_MAX; i++)
		if (!sketch__equal(&a->dist[i], &b->dist[i]))
			fail_msg("distribution %s of %s differs", bl_dist__name(i), a->key);
	for (int i = 0; i < BL_SET_MAX; i++)
		if (!strset__equal(&a->set[i], &b->set[i]))
			fail_msg("set %s of %s differs", bl_set__name(i), a->key);
}

/* A deep copy, through the JSON form. */
static struct baseline *copy_of(const struct baseline *b)
{
	struct json_object *o = baseline__to_json(b);
	struct baseline *c = NULL;
	char err[256] = "";

	assert_non_null(o);
	if (baseline__from_json(o, &c, err, sizeof(err)) != 0)
		fail_msg("copy of %s: %s", b->key, err);
	json_object_put(o);
	return c;
}

static const char *const ids[] = { "build-id:aa01", "build-id:bb02", "sha256:cc03", "file:8:1234" };

/* ---- save, reopen ---- */

static void test_store_save_and_reopen_round_trips(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	struct baseline *copies[4];
	char path[PATH_MAX];
	struct stat sb;

	assert_int_equal(bl_store__count(st), 0);
	for (int i = 0; i < 4; i++) {
		struct baseline *b = bl_store__obtain(st, ids[i], i == 3 ? NULL : "build-id:9999", "/usr/bin/x",
						      i ? "/sbin/init" : "/usr/sbin/sshd", 0, NOW0);

		assert_non_null(b);
		learn(b, 10 + 3 * (unsigned)i, 1000000ull * (unsigned)(i + 1), NOW0 + SEC);
	}
	assert_string_equal(bl_store__at(st, 3)->key, "file:8:1234@-");
	assert_int_equal(bl_store__save(st), 0);
	for (int i = 0; i < 4; i++) {
		struct baseline *b = bl_store__at(st, (size_t)i);

		assert_false(b->dirty);
		copies[i] = copy_of(b);
		file_of_key(c, b->key, path, sizeof(path));
		assert_int_equal(lstat(path, &sb), 0);
		assert_true(S_ISREG(sb.st_mode));
		assert_int_equal(sb.st_mode & 07777, 0600);
	}
	assert_int_equal(count_entries(c), 4); /* no temp file left behind */
	bl_store__free(st);

	st = open_store(c);
	assert_int_equal(c->nreports, 0);
	assert_int_equal(bl_store__count(st), 4);
	for (int i = 0; i < 4; i++) {
		struct baseline *b = bl_store__get(st, copies[i]->key);

		assert_non_null(b);
		assert_false(b->dirty);
		assert_baseline_equal(copies[i], b);
		baseline__free(copies[i]);
	}
	/* nothing dirty: a save writes nothing */
	assert_int_equal(bl_store__save(st), 0);
	assert_int_equal(count_entries(c), 4);
	bl_store__free(st);
}

static void test_store_open_creates_missing_dir_0700(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = NULL;
	char sub[PATH_MAX];
	struct stat sb;

	path_in(c, "state", sub, sizeof(sub));
	assert_int_equal(bl_store__open(sub, capture, c, &st), 0);
	assert_int_equal(stat(sub, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(bl_store__count(st), 0);
	bl_store__free(st);
}

/* Baselines others could have written are not trusted: a directory
 * writable by group or others, or owned by another user, is refused (for
 * reading too), with the fix in the report, and nothing in it is loaded. */
static void test_store_open_refuses_a_dir_others_could_write(void **state)
{
	struct ctx *c = *state;
	struct bl_store *sentinel = (struct bl_store *)&sentinel, *st = sentinel;
	struct baseline *b;
	char want[PATH_MAX + 64];

	st = open_store(c);
	b = bl_store__obtain(st, "build-id:good", "-", "/usr/bin/good", "/sbin/init", 0, NOW0);
	assert_non_null(b);
	learn(b, 3, 5000000, NOW0);
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);

	st = sentinel;
	assert_int_equal(chmod(c->dir, 0777), 0);
	c->nreports = 0;
	assert_int_equal(bl_store__open(c->dir, capture, c, &st), -EPERM);
	assert_ptr_equal(st, sentinel);
	assert_int_equal(c->nreports, 1);
	assert_string_equal(c->reports[0].path, c->dir);
	snprintf(want, sizeof(want), "writable by group or others (mode 0777); fix: chmod 0700 %s", c->dir);
	assert_string_equal(c->reports[0].problem, want);
	assert_int_equal(bl_store__open_readonly(c->dir, capture, c, &st), -EPERM);
	assert_ptr_equal(st, sentinel);
	assert_int_equal(chmod(c->dir, 0720), 0);
	assert_int_equal(bl_store__open_readonly(c->dir, capture, c, &st), -EPERM);

	assert_int_equal(chmod(c->dir, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(c->dir, 65534, 65534), 0);
		c->nreports = 0;
		assert_int_equal(bl_store__open(c->dir, capture, c, &st), -EPERM);
		snprintf(want, sizeof(want), "owned by uid 65534, not by uid 0 that runs plumbline; fix: chown root %s",
			 c->dir);
		assert_string_equal(c->reports[0].problem, want);
		assert_int_equal(chown(c->dir, 0, 0), 0);
	}
	/* once fixed, it loads as before */
	st = open_store(c);
	assert_int_equal(bl_store__count(st), 1);
	bl_store__free(st);
}

/* ---- prior ---- */

static void test_store_obtain_sets_prior_of_rebuilt_binary(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	struct baseline *a1, *a2, *b, *other, *again;

	a1 = bl_store__obtain(st, "build-id:a1", "build-id:p", "/usr/bin/foo", "/usr/bin/bar", 0, NOW0);
	a2 = bl_store__obtain(st, "build-id:a2", "build-id:p", "/usr/bin/foo", "/usr/bin/bar", 0, NOW0);
	assert_non_null(a1);
	assert_non_null(a2);
	assert_null(a1->prior_key);
	assert_string_equal(a2->prior_key, "build-id:a1@build-id:p");
	learn(a1, 3, 1000000, NOW0 + 10 * SEC); /* a1 is now the newest */
	learn(a2, 3, 1000000, NOW0 + 5 * SEC);

	b = bl_store__obtain(st, "build-id:b", "build-id:p", "/usr/bin/foo", "/usr/bin/bar", 0, NOW0 + 20 * SEC);
	assert_non_null(b);
	assert_non_null(b->prior_key);
	assert_string_equal(b->prior_key, "build-id:a1@build-id:p");

	/* other labels: no prior */
	other = bl_store__obtain(st, "build-id:c", "build-id:p", "/usr/bin/baz", "/usr/bin/bar", 0, NOW0);
	assert_non_null(other);
	assert_null(other->prior_key);
	other = bl_store__obtain(st, "build-id:d", "build-id:p", "/usr/bin/foo", "/usr/bin/qux", 0, NOW0);
	assert_null(other->prior_key);

	/* obtaining an existing key returns it */
	again = bl_store__obtain(st, "build-id:b", "build-id:p", "/elsewhere", "/whatever", 0, NOW0);
	assert_ptr_equal(again, b);
	assert_int_equal(bl_store__count(st), 5);
	bl_store__free(st);
}

/* ---- bad files ---- */

static void set_version_2(struct json_object *o)
{
	json_object_object_add(o, "version", json_object_new_int(2));
}

static void test_store_bad_files_are_reported_moved_aside_and_others_load(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	struct baseline *good, *trunc, *ver, *misnamed, *good_copy;
	static const char garbage[] = "\x01\x02 not json {{{";
	char path[PATH_MAX], *s;
	size_t len = 0;
	int fd;
	static const struct {
		const char *name; /* "" for the truncated file, named by its key */
		const char *problem;
	} expect[] = {
		{ "00000000000000a1.json", "not valid JSON" },
		{ "", "not valid JSON (truncated" },
		{ "00000000000000a3.json", "larger than the 8 MiB" },
		{ "", "format version 2" }, /* named by its key */
		{ "0123456789abcdef.json", "which belongs in" },
		{ "00000000000000a6.json", "not a plumbline baseline file" },
	};
	char trunc_name[32];

	good = bl_store__obtain(st, "build-id:good", "-", "/usr/bin/good", "/sbin/init", 0, NOW0);
	trunc = bl_store__obtain(st, "build-id:trunc", "-", "/usr/bin/trunc", "/sbin/init", 0, NOW0);
	assert_non_null(good);
	assert_non_null(trunc);
	learn(good, 20, 5000000, NOW0 + SEC);
	learn(trunc, 20, 5000000, NOW0 + SEC);
	good_copy = copy_of(good);
	assert_int_equal(bl_store__save(st), 0);
	snprintf(trunc_name, sizeof(trunc_name), "%016llx.json", (unsigned long long)bl_key_hash(trunc->key));

	/* garbage bytes */
	path_in(c, expect[0].name, path, sizeof(path));
	write_file(path, garbage, sizeof(garbage) - 1);
	/* a valid file cut in half */
	path_in(c, trunc_name, path, sizeof(path));
	s = ut_read_file(path, &len);
	assert_non_null(s);
	assert_int_equal(truncate(path, (off_t)(len / 2)), 0);
	free(s);
	/* one byte over the limit, sparse */
	path_in(c, expect[2].name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)BL_FILE_MAX + 1), 0);
	close(fd);
	/* wrong version, under its right name */
	ver = baseline__new("build-id:ver", "-", "/usr/bin/v", "", NOW0);
	assert_non_null(ver);
	s = file_json(ver, set_version_2);
	snprintf(path, sizeof(path), "%s/%016llx.json", c->dir, (unsigned long long)bl_key_hash(ver->key));
	write_file(path, s, strlen(s));
	free(s);
	/* a valid baseline under another key's name */
	misnamed = baseline__new("build-id:mis", "-", "/usr/bin/m", "", NOW0);
	assert_non_null(misnamed);
	learn(misnamed, 2, 1000000, NOW0);
	s = file_json(misnamed, NULL);
	path_in(c, expect[4].name, path, sizeof(path));
	write_file(path, s, strlen(s));
	free(s);
	/* an array */
	path_in(c, expect[5].name, path, sizeof(path));
	write_file(path, "[1,2,3]", 7);
	bl_store__free(st);

	st = open_store(c);
	assert_int_equal(c->nreports, 6);
	assert_int_equal(bl_store__count(st), 1);
	assert_baseline_equal(good_copy, bl_store__get(st, good_copy->key));
	for (size_t i = 0; i < 6; i++) {
		char name[32], want[PATH_MAX];
		bool seen = false;

		if (i == 1)
			snprintf(name, sizeof(name), "%s", trunc_name);
		else if (i == 3)
			snprintf(name, sizeof(name), "%016llx.json", (unsigned long long)bl_key_hash(ver->key));
		else
			snprintf(name, sizeof(name), "%s", expect[i].name);
		path_in(c, name, want, sizeof(want));
		for (size_t k = 0; k < c->nreports && k < MAX_REPORTS; k++) {
			if (strcmp(c->reports[k].path, want) != 0)
				continue;
			assert_false(seen);
			seen = true;
			if (!strstr(c->reports[k].problem, expect[i].problem) ||
			    !strstr(c->reports[k].problem, "moved aside"))
				fail_msg("%s: report \"%s\" doesn't say \"%s\" and moved aside", name,
					 c->reports[k].problem, expect[i].problem);
		}
		if (!seen)
			fail_msg("no report names %s", want);
		if (!has_bad_copy(c, name))
			fail_msg("%s was not moved aside to %s.bad-*", name, name);
		assert_int_equal(access(want, F_OK), -1);
	}
	/* 1 good + 6 moved aside */
	assert_int_equal(count_entries(c), 7);
	bl_store__free(st);

	/* moved aside means never looked at again */
	st = open_store(c);
	assert_int_equal(c->nreports, 0);
	assert_int_equal(bl_store__count(st), 1);
	bl_store__free(st);
	baseline__free(ver);
	baseline__free(misnamed);
	baseline__free(good_copy);
}

/* A FIFO (or a symlink) under a baseline's name is neither waited on nor
 * followed: reported by name, moved aside, and the rest loads. */
static void test_store_moves_a_fifo_or_symlink_aside_without_blocking(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	char fifo[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct baseline *good;

	good = bl_store__obtain(st, "build-id:good", "-", "/usr/bin/good", "/sbin/init", 0, NOW0);
	assert_non_null(good);
	learn(good, 3, 5000000, NOW0);
	file_of_key(c, good->key, target, sizeof(target));
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);
	path_in(c, "00000000000000f1.json", fifo, sizeof(fifo));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	path_in(c, "00000000000000f2.json", link, sizeof(link));
	assert_int_equal(symlink(target, link), 0);

	alarm(10); /* a regression fails here rather than stalling */
	/* read-only: reported, left where they are */
	c->nreports = 0;
	assert_int_equal(bl_store__open_readonly(c->dir, capture, c, &st), 0);
	assert_int_equal(bl_store__count(st), 1);
	assert_int_equal(c->nreports, 2);
	bl_store__free(st);
	assert_int_equal(access(fifo, F_OK), 0);

	st = open_store(c);
	alarm(0);
	assert_int_equal(bl_store__count(st), 1);
	assert_int_equal(c->nreports, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct report *r = &c->reports[i];
		bool is_fifo = strcmp(r->path, fifo) == 0;

		assert_true(is_fifo || strcmp(r->path, link) == 0);
		if (!strstr(r->problem, is_fifo ? "not a regular file (a FIFO)" : "a symbolic link (not followed)") ||
		    !strstr(r->problem, "moved aside"))
			fail_msg("%s: %s", r->path, r->problem);
	}
	assert_true(has_bad_copy(c, "00000000000000f1.json"));
	assert_true(has_bad_copy(c, "00000000000000f2.json"));
	bl_store__free(st);
}

static void test_store_open_removes_and_reports_stale_temp_files(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	static const char *const temps[] = { "0123456789abcdef.json.tmp.4242", "fedcba9876543210.json.tmp.1" };
	char path[PATH_MAX];
	struct baseline *b;

	b = bl_store__obtain(st, "build-id:t", "-", "/usr/bin/t", "", 0, NOW0);
	learn(b, 2, 1000000, NOW0);
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);
	for (int i = 0; i < 2; i++) {
		path_in(c, temps[i], path, sizeof(path));
		write_file(path, "{\"half", 6);
	}

	st = open_store(c);
	assert_int_equal(c->nreports, 2);
	for (int i = 0; i < 2; i++) {
		bool seen = false;

		path_in(c, temps[i], path, sizeof(path));
		assert_int_equal(access(path, F_OK), -1);
		for (size_t k = 0; k < 2; k++)
			if (strcmp(c->reports[k].path, path) == 0) {
				assert_string_equal(c->reports[k].problem, TEMP_REMOVED);
				seen = true;
			}
		assert_true(seen);
	}
	assert_int_equal(bl_store__count(st), 1);
	assert_int_equal(count_entries(c), 1);
	bl_store__free(st);
}

/* ---- forget, absorb ---- */

static void test_store_forget_removes_from_memory_and_disk(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	char path[PATH_MAX];
	struct baseline *b;

	for (int i = 0; i < 3; i++) {
		b = bl_store__obtain(st, ids[i], "-", "/x", "", 0, NOW0);
		assert_non_null(b);
		learn(b, 2, 1000000, NOW0);
	}
	assert_int_equal(bl_store__save(st), 0);
	file_of_key(c, "build-id:bb02@-", path, sizeof(path));
	assert_int_equal(access(path, F_OK), 0);

	assert_int_equal(bl_store__forget(st, "build-id:bb02@-"), 0);
	assert_int_equal(bl_store__count(st), 2);
	assert_null(bl_store__get(st, "build-id:bb02@-"));
	assert_non_null(bl_store__get(st, "build-id:aa01@-"));
	assert_non_null(bl_store__get(st, "sha256:cc03@-"));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(bl_store__forget(st, "build-id:bb02@-"), -ENOENT);
	assert_int_equal(bl_store__forget(st, "build-id:nope@-"), -ENOENT);
	bl_store__free(st);

	st = open_store(c);
	assert_int_equal(c->nreports, 0);
	assert_int_equal(bl_store__count(st), 2);
	assert_null(bl_store__get(st, "build-id:bb02@-"));
	bl_store__free(st);
}

static void test_store_absorb_merges_same_key_and_adds_new(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_store(c);
	struct baseline *have, *in, *fresh, *fresh_copy;

	have = bl_store__obtain(st, ids[0], "-", "/x", "", 0, NOW0);
	learn(have, 5, 1000000, NOW0);
	assert_int_equal(bl_store__save(st), 0);

	in = baseline__new(ids[0], "-", "/x", "", NOW0 - SEC);
	assert_non_null(in);
	learn(in, 7, 2000000, NOW0);
	assert_int_equal(bl_store__absorb(st, in), 0);
	assert_int_equal(bl_store__count(st), 1);
	assert_ptr_equal(bl_store__get(st, "build-id:aa01@-"), have);
	assert_int_equal(have->samples, 12);
	assert_int_equal(have->windows, 12);
	assert_int_equal(have->dist[PL_LIFE_CPU].count, 12);
	assert_int_equal(have->created_ns, NOW0 - SEC);
	assert_true(have->dirty);

	fresh = baseline__new(ids[1], "-", "/y", "", NOW0);
	assert_non_null(fresh);
	learn(fresh, 4, 3000000, NOW0);
	fresh_copy = copy_of(fresh);
	fresh->dirty = false;
	assert_int_equal(bl_store__absorb(st, fresh), 0);
	assert_int_equal(bl_store__count(st), 2);
	assert_true(bl_store__get(st, fresh_copy->key)->dirty);
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);

	st = open_store(c);
	assert_int_equal(bl_store__count(st), 2);
	assert_int_equal(bl_store__get(st, "build-id:aa01@-")->samples, 12);
	assert_baseline_equal(fresh_copy, bl_store__get(st, fresh_copy->key));
	baseline__free(fresh_copy);
	bl_store__free(st);
}

/* ---- bundles ---- */

struct set_of {
	struct baseline **b;
	size_t n;
};

static struct baseline *bundle_member(const char *id, unsigned seed)
{
	struct baseline *b = baseline__new(id, "build-id:p", "/usr/bin/m", "/sbin/init", NOW0 + seed);

	assert_non_null(b);
	learn(b, 5 + seed, 1000000ull * (seed + 1), NOW0 + 1000 * seed);
	b->quarantined = seed;
	b->rate_limited = 2 * seed;
	return b;
}

static void write_bundle(const struct ctx *c, const char *name, struct baseline *const *bs, size_t n)
{
	char path[PATH_MAX];

	path_in(c, name, path, sizeof(path));
	assert_int_equal(bl_bundle__write(path, bs, n), 0);
}

static struct set_of read_bundle(const struct ctx *c, const char *name)
{
	struct set_of s = { 0 };
	char path[PATH_MAX], err[256] = "";

	path_in(c, name, path, sizeof(path));
	if (bl_bundle__read(path, &s.b, &s.n, err, sizeof(err)) != 0)
		fail_msg("reading %s: %s", name, err);
	return s;
}

static void free_set(struct set_of *s)
{
	for (size_t i = 0; i < s->n; i++)
		baseline__free(s->b[i]);
	free(s->b);
	s->b = NULL;
	s->n = 0;
}

/* acc += every baseline of src, merged by key; src is consumed. */
static void merge_sets(struct set_of *acc, struct set_of *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct baseline *have = NULL;

		for (size_t k = 0; k < acc->n; k++)
			if (strcmp(acc->b[k]->key, src->b[i]->key) == 0)
				have = acc->b[k];
		if (have) {
			assert_int_equal(baseline__merge(have, src->b[i]), 0);
			baseline__free(src->b[i]);
		} else {
			struct baseline **nb = realloc(acc->b, (acc->n + 1) * sizeof(*nb));

			assert_non_null(nb);
			acc->b = nb;
			acc->b[acc->n++] = src->b[i];
		}
	}
	free(src->b);
	src->b = NULL;
	src->n = 0;
}

/* Read bundles x, y, z (names), merge as (x + y) + z or x + (y + z). */
static struct set_of merge_bundles(const struct ctx *c, const char *x, const char *y, const char *z, bool right)
{
	struct set_of a = read_bundle(c, x), b = read_bundle(c, y), r;

	if (right) {
		struct set_of bc, again;

		r = read_bundle(c, z);
		merge_sets(&b, &r);
		/* through a bundle file, as `baseline merge` would */
		write_bundle(c, "yz.json", b.b, b.n);
		free_set(&b);
		bc = read_bundle(c, "yz.json");
		merge_sets(&a, &bc);
		again = a;
		return again;
	}
	merge_sets(&a, &b);
	r = read_bundle(c, z);
	merge_sets(&a, &r);
	return a;
}

static void assert_sets_equal(const struct set_of *x, const struct set_of *y)
{
	assert_int_equal(x->n, y->n);
	for (size_t i = 0; i < x->n; i++) {
		const struct baseline *other = NULL;

		for (size_t k = 0; k < y->n; k++)
			if (strcmp(x->b[i]->key, y->b[k]->key) == 0)
				other = y->b[k];
		if (!other)
			fail_msg("%s missing from a merge", x->b[i]->key);
		assert_baseline_equal(x->b[i], other);
	}
}

static void test_bundle_write_read_round_trips(void **state)
{
	struct ctx *c = *state;
	struct baseline *bs[3] = { bundle_member(ids[0], 1), bundle_member(ids[1], 2), bundle_member(ids[2], 3) };
	struct set_of back;
	char path[PATH_MAX];
	struct stat sb;

	bs[1]->prior_key = strdup("build-id:aa01@build-id:p");
	write_bundle(c, "all.json", bs, 3);
	path_in(c, "all.json", path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	back = read_bundle(c, "all.json");
	assert_int_equal(back.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_baseline_equal(bs[i], back.b[i]);
		assert_false(back.b[i]->dirty);
		baseline__free(bs[i]);
	}
	free_set(&back);

	/* an empty bundle is fine too */
	write_bundle(c, "none.json", bs, 0);
	back = read_bundle(c, "none.json");
	assert_int_equal(back.n, 0);
	free_set(&back);
}

static void test_bundle_merges_are_associative_and_commutative(void **state)
{
	struct ctx *c = *state;
	/* overlapping keys: A {0,1}, B {1,2}, C {0,2,3} */
	struct baseline *a[2] = { bundle_member(ids[0], 1), bundle_member(ids[1], 2) };
	struct baseline *b[2] = { bundle_member(ids[1], 3), bundle_member(ids[2], 4) };
	struct baseline *cc[3] = { bundle_member(ids[0], 5), bundle_member(ids[2], 6), bundle_member(ids[3], 7) };
	static const char *const orders[][3] = {
		{ "a.json", "b.json", "c.json" }, { "a.json", "c.json", "b.json" }, { "b.json", "a.json", "c.json" },
		{ "b.json", "c.json", "a.json" }, { "c.json", "a.json", "b.json" }, { "c.json", "b.json", "a.json" },
	};
	struct set_of ref;

	(void)state;
	a[1]->prior_key = strdup("build-id:old@build-id:p");
	write_bundle(c, "a.json", a, 2);
	write_bundle(c, "b.json", b, 2);
	write_bundle(c, "c.json", cc, 3);
	ref = merge_bundles(c, "a.json", "b.json", "c.json", false);
	assert_int_equal(ref.n, 4);
	for (size_t i = 0; i < ref.n; i++) {
		const struct baseline *m = ref.b[i];

		if (strcmp(m->key, "build-id:bb02@build-id:p") == 0) {
			assert_int_equal(m->samples, a[1]->samples + b[0]->samples);
			assert_int_equal(m->quarantined, 2 + 3);
			assert_int_equal(m->dist[PL_LIFE_CPU].count, m->samples);
			assert_string_equal(m->prior_key, "build-id:old@build-id:p");
		}
		if (strcmp(m->key, "build-id:aa01@build-id:p") == 0)
			assert_int_equal(m->samples, a[0]->samples + cc[0]->samples);
		if (strcmp(m->key, "file:8:1234@build-id:p") == 0)
			assert_int_equal(m->samples, cc[2]->samples);
	}
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		for (int right = 0; right < 2; right++) {
			struct set_of m = merge_bundles(c, orders[i][0], orders[i][1], orders[i][2], right);

			assert_sets_equal(&ref, &m);
			free_set(&m);
		}
	}
	free_set(&ref);
	for (int i = 0; i < 2; i++) {
		baseline__free(a[i]);
		baseline__free(b[i]);
	}
	for (int i = 0; i < 3; i++)
		baseline__free(cc[i]);
}

static void expect_bundle_rejected(const struct ctx *c, const char *text, const char *why)
{
	struct baseline **sentinel = (struct baseline **)&sentinel, **got = sentinel;
	char path[PATH_MAX], err[256] = "";
	size_t n = 12345;

	path_in(c, "bad-bundle.json", path, sizeof(path));
	write_file(path, text, strlen(text));
	assert_int_equal(bl_bundle__read(path, &got, &n, err, sizeof(err)), -EINVAL);
	assert_ptr_equal(got, sentinel);
	assert_int_equal(n, 12345);
	if (!strstr(err, why))
		fail_msg("bundle error \"%s\" doesn't say \"%s\"", err, why);
}

static void test_bundle_read_refuses_a_fifo_without_blocking(void **state)
{
	struct ctx *c = *state;
	struct baseline **sentinel = (struct baseline **)&sentinel, **got = sentinel;
	char path[PATH_MAX], err[256] = "";
	size_t n = 12345;

	path_in(c, "bundle.json", path, sizeof(path));
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(bl_bundle__read(path, &got, &n, err, sizeof(err)), -EINVAL);
	alarm(0);
	assert_string_equal(err, "not a regular file (a FIFO)");
	assert_ptr_equal(got, sentinel);
	assert_int_equal(n, 12345);
}

static void test_bundle_read_rejects_bad_bundles(void **state)
{
	struct ctx *c = *state;
	struct baseline *b = bundle_member(ids[0], 1);
	char *good, *bad, *text;
	size_t len;

	expect_bundle_rejected(c, "{\"format\":\"plumbline-baseline\",\"version\":1,\"baselines\":[]}", "format");
	expect_bundle_rejected(c, "{\"version\":1,\"baselines\":[]}", "format");
	expect_bundle_rejected(c, "{\"format\":\"plumbline-baselines\",\"version\":2,\"baselines\":[]}", "version");
	expect_bundle_rejected(c, "{\"format\":\"plumbline-baselines\",\"version\":\"1\",\"baselines\":[]}", "version");
	expect_bundle_rejected(c, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":{}}",
			       "not an array");
	expect_bundle_rejected(c, "{\"format\":\"plumbline-baselines\",\"version\":1}", "not an array");
	expect_bundle_rejected(c, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[]", "not valid JSON");

	/* a bad baseline at index 2, after two good ones */
	good = file_json(b, NULL);
	bad = file_json(b, set_version_2);
	len = strlen(good) * 2 + strlen(bad) + 128;
	text = malloc(len);
	assert_non_null(text);
	snprintf(text, len, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[%s,%s,%s]}", good, good,
		 bad);
	expect_bundle_rejected(c, text, "baseline #2: format version 2");
	snprintf(text, len, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[%s,7]}", good);
	expect_bundle_rejected(c, text, "baseline #1: ");
	free(text);
	free(good);
	free(bad);
	baseline__free(b);
}

/* Refused with -EFBIG, err saying why; *ret and *n untouched. */
static void expect_bundle_too_big(const char *path, const char *why)
{
	struct baseline **sentinel = (struct baseline **)&sentinel, **got = sentinel;
	char err[256] = "";
	size_t n = 12345;
	int r = bl_bundle__read(path, &got, &n, err, sizeof(err));

	if (r != -EFBIG || !strstr(err, why))
		fail_msg("bundle read gave %d \"%s\", not -EFBIG \"%s\"", r, err, why);
	assert_ptr_equal(got, sentinel);
	assert_int_equal(n, 12345);
}

/* A bundle over BL_BUNDLE_MAX is refused by its size: nothing is read. */
static void test_bundle_read_refuses_an_oversized_bundle_unread(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX];
	int fd;

	path_in(c, "big.json", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(512u << 20) + 1), 0); /* sparse */
	close(fd);
	expect_bundle_too_big(path, "536870913 bytes, larger than the 512 MiB limit");
}

/* More baselines than a store keeps, or one larger than a baseline file may
 * be: refused in the scan, before any baseline is parsed. */
static void test_bundle_read_refuses_too_many_or_too_large_baselines(void **state)
{
	static const char head[] = "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[";
	struct ctx *c = *state;
	struct baseline *b = bundle_member(ids[0], 1);
	char path[PATH_MAX], *good = file_json(b, NULL), *text;
	size_t len = 0, cap = sizeof(head) + 3 * (BL_STORE_MAX + 1) + BL_FILE_MAX + strlen(good) + 64;

	text = malloc(cap);
	assert_non_null(text);
	path_in(c, "many.json", path, sizeof(path));
	len = (size_t)snprintf(text, cap, "%s", head);
	for (size_t i = 0; i <= BL_STORE_MAX; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s{}", i ? "," : "");
	len += (size_t)snprintf(text + len, cap - len, "]}");
	write_file(path, text, len);
	expect_bundle_too_big(path, "holds more than 65536 baselines");

	/* a good baseline, then one of 8 MiB + 1 byte */
	len = (size_t)snprintf(text, cap, "%s%s,{\"pad\":\"", head, good);
	memset(text + len, 'x', BL_FILE_MAX + 1 - 10); /* with {"pad":"...."}, 8 MiB + 1 */
	len += BL_FILE_MAX + 1 - 10;
	len += (size_t)snprintf(text + len, cap - len, "\"}]}");
	path_in(c, "large.json", path, sizeof(path));
	write_file(path, text, len);
	expect_bundle_too_big(path, "baseline #1: 8388609 bytes, larger than the 8 MiB a baseline may be");
	free(text);
	free(good);
	baseline__free(b);
}

/* Resident memory of this process, KiB (VmRSS). */
static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/*
 * Reading a bundle costs about its text plus the baselines, not json-c's
 * tree of all of it (15 to 20 times the text). Measured in a child, whose
 * peak RSS above its RSS at the start is what the read cost.
 */
static void test_bundle_read_memory_is_a_small_multiple_of_the_file(void **state)
{
	struct ctx *c = *state;
	enum { N = 8192 };
	struct baseline **bs;
	char path[PATH_MAX], id[64];
	struct stat sb;
	struct rusage ru;
	int st;
	pid_t pid;

#ifdef __SANITIZE_ADDRESS__
	skip(); /* ASan's quarantine keeps freed memory resident: RSS says nothing here */
#endif
	bs = calloc(N, sizeof(*bs));
	assert_non_null(bs);
	for (size_t i = 0; i < N; i++) {
		snprintf(id, sizeof(id), "build-id:%040zx", i);
		bs[i] = i ? copy_of(bs[0]) : bundle_member(id, 3);
		free(bs[i]->key);
		free(bs[i]->binary_id);
		bs[i]->binary_id = strdup(id);
		assert_true(asprintf(&bs[i]->key, "%s@%s", id, bs[i]->parent_id) > 0);
	}
	write_bundle(c, "fleet.json", bs, N);
	for (size_t i = 0; i < N; i++)
		baseline__free(bs[i]);
	free(bs);
	path_in(c, "fleet.json", path, sizeof(path));
	assert_int_equal(stat(path, &sb), 0);

	pid = fork();
	if (pid == 0) {
		struct baseline **got;
		char err[256];
		size_t n;
		long before = rss_kb();
		struct rusage self;

		if (bl_bundle__read(path, &got, &n, err, sizeof(err)) != 0 || n != N)
			_exit(2);
		getrusage(RUSAGE_SELF, &self);
		/* report the cost in KiB through the exit status, in MiB */
		_exit((int)((self.ru_maxrss - before) / 1024 > 250 ? 250 : (self.ru_maxrss - before) / 1024));
	}
	assert_true(pid > 0);
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 2);
	if (WEXITSTATUS(st) > 4 * (sb.st_size >> 20) + 8)
		fail_msg("reading a %lld-byte bundle cost %d MiB", (long long)sb.st_size, WEXITSTATUS(st));
}

/* ---- crash safety ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* The child: learn and save forever; one byte on fd after the first save. */
static void __attribute__((noreturn)) saver(const char *dir, int fd)
{
	struct bl_store *st;
	struct baseline *b;
	bool told = false;

	if (bl_store__open(dir, NULL, NULL, &st) < 0)
		_exit(2);
	for (uint64_t i = 0;; i++) {
		b = bl_store__obtain(st, "build-id:crash", "build-id:p", "/usr/bin/crash", "/sbin/init", 0, NOW0);
		if (!b)
			_exit(3);
		if (learn_one(b, (unsigned)i, 1000000 + (i % 997) * 1000, NOW0 + i) < 0)
			_exit(6);
		/* a second baseline, so a save writes more than one file */
		b = bl_store__obtain(st, "build-id:crash2", "-", "/usr/bin/crash2", "", 0, NOW0);
		if (!b)
			_exit(3);
		if (learn_one(b, (unsigned)i, 2000000 + (i % 991) * 1000, NOW0 + i) < 0)
			_exit(6);
		if (bl_store__save(st) < 0)
			_exit(4);
		if (!told) {
			if (write(fd, "x", 1) != 1)
				_exit(5);
			close(fd);
			told = true;
		}
	}
}

static void test_store_survives_sigkill_during_saves(void **state)
{
	struct ctx *c = *state;
	struct timespec t0, t1;
	char path[PATH_MAX];

	file_of_key(c, "build-id:crash@build-id:p", path, sizeof(path));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int it = 0; it < 100; it++) {
		struct pollfd pfd;
		struct bl_store *st;
		struct baseline *b;
		struct json_object *o;
		int fds[2], status;
		char byte, *text;
		pid_t pid;
		struct timespec nap = { 0, (long)(rng_next() % 20000001) }; /* 0..20 ms */

		assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(fds[0]);
			saver(c->dir, fds[1]);
		}
		close(fds[1]);
		pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
		if (poll(&pfd, 1, 10000) != 1 || read(fds[0], &byte, 1) != 1) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("iteration %d: the child never finished its first save (status %d)", it, status);
		}
		close(fds[0]);
		nanosleep(&nap, NULL);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

		c->nreports = 0;
		assert_int_equal(bl_store__open(c->dir, capture, c, &st), 0);
		for (size_t k = 0; k < c->nreports && k < MAX_REPORTS; k++)
			if (strcmp(c->reports[k].problem, TEMP_REMOVED) != 0)
				fail_msg("iteration %d: %s: %s", it, c->reports[k].path, c->reports[k].problem);
		b = bl_store__get(st, "build-id:crash@build-id:p");
		if (!b)
			fail_msg("iteration %d: the baseline is gone", it);
		assert_true(b->samples >= 1);
		assert_int_equal(bl_store__count(st), 2);
		bl_store__free(st);
		text = ut_read_file(path, NULL);
		assert_non_null(text);
		o = json_tokener_parse(text);
		if (!o || !json_object_is_type(o, json_type_object))
			fail_msg("iteration %d: %s is not a JSON object", it, path);
		json_object_put(o);
		free(text);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* kept short on purpose; a slow disk's fsyncs shouldn't take 20 s */
	assert_true(t1.tv_sec - t0.tv_sec < 30);
}

/* ---- atomic_write_file ---- */

static void test_atomic_write_file_writes_content_and_mode(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX], *got;
	struct stat sb;
	size_t len;

	path_in(c, "f.txt", path, sizeof(path));
	assert_int_equal(atomic_write_file(path, "hello, world\n", 13, 0640), 0);
	got = ut_read_file(path, &len);
	assert_non_null(got);
	assert_int_equal(len, 13);
	assert_memory_equal(got, "hello, world\n", 13);
	free(got);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);

	/* replaced whole, with the new mode, no temp left */
	assert_int_equal(atomic_write_file(path, "bye", 3, 0600), 0);
	got = ut_read_file(path, &len);
	assert_non_null(got);
	assert_int_equal(len, 3);
	assert_memory_equal(got, "bye", 3);
	free(got);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(count_entries(c), 1);

	/* empty content */
	assert_int_equal(atomic_write_file(path, "", 0, 0600), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, 0);
}

/* Whatever sits at the temp name (a FIFO, a symlink) is never opened: it is
 * removed and a new file made, so a write neither blocks nor follows. */
static void test_atomic_write_file_never_opens_what_is_at_its_temp_name(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX], tmp[PATH_MAX + 32], victim[PATH_MAX], *got;
	size_t len;

	path_in(c, "f.json", path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	assert_int_equal(mkfifo(tmp, 0600), 0);
	alarm(10);
	assert_int_equal(atomic_write_file(path, "new", 3, 0600), 0);
	alarm(0);
	got = ut_read_file(path, &len);
	assert_non_null(got);
	assert_memory_equal(got, "new", 3);
	free(got);
	assert_int_equal(access(tmp, F_OK), -1);

	path_in(c, "victim", victim, sizeof(victim));
	write_file(victim, "keep", 4);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(atomic_write_file(path, "newer", 5, 0600), 0);
	got = ut_read_file(victim, &len);
	assert_non_null(got);
	assert_int_equal(len, 4);
	assert_memory_equal(got, "keep", 4);
	free(got);
}

static void test_atomic_write_file_fails_in_missing_directory(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX];

	path_in(c, "missing/f.txt", path, sizeof(path));
	assert_int_equal(atomic_write_file(path, "x", 1, 0600), -ENOENT);
	assert_int_equal(count_entries(c), 0);
}


/* ---- lifetime ---- */

#define DAY (86400ull * SEC)

static struct bl_store *open_bounded(struct ctx *c, uint32_t max, uint64_t max_age_ns, uint64_t prior_age_ns)
{
	struct bl_store *st = open_store(c);
	struct bl_policy p;

	bl_policy__defaults(&p);
	p.max_baselines = max;
	p.max_age_ns = max_age_ns;
	p.prior_max_age_ns = prior_age_ns;
	p.min_samples = 3;
	bl_store__set_policy(st, &p);
	return st;
}

static struct baseline *obtain_at(struct bl_store *st, const char *id, const char *exe, uint64_t now_ns)
{
	struct baseline *b = bl_store__obtain(st, id, "build-id:p", exe, "/usr/sbin/p", 0, now_ns);

	assert_non_null(b);
	return b;
}

static bool file_exists(const struct ctx *c, const char *key)
{
	char path[PATH_MAX];

	file_of_key(c, key, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* Bound reached: the least recently seen goes, from memory and disk; a
 * baseline seen again is younger than its creation says; the newest stays. */
static void test_store_full_evicts_the_least_recently_seen(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 4, 0, 0);

	obtain_at(st, "build-id:a", "/bin/a", NOW0 + 1 * SEC);
	obtain_at(st, "build-id:b", "/bin/b", NOW0 + 2 * SEC);
	obtain_at(st, "build-id:c", "/bin/c", NOW0 + 3 * SEC);
	obtain_at(st, "build-id:d", "/bin/d", NOW0 + 4 * SEC);
	assert_int_equal(bl_store__save(st), 0);
	/* a is seen again: b is now the least recently seen */
	assert_int_equal(obtain_at(st, "build-id:a", "/bin/a", NOW0 + 10 * SEC)->seen_ns, NOW0 + 10 * SEC);
	obtain_at(st, "build-id:e", "/bin/e", NOW0 + 20 * SEC);
	assert_int_equal(bl_store__count(st), 4);
	assert_int_equal(bl_store__evicted(st), 1);
	assert_int_equal(bl_store__refused(st), 0);
	assert_null(bl_store__get(st, "build-id:b@build-id:p"));
	assert_false(file_exists(c, "build-id:b@build-id:p"));
	assert_true(file_exists(c, "build-id:c@build-id:p"));
	/* then c, then d; the newest (e, f, g) and a stay */
	obtain_at(st, "build-id:f", "/bin/f", NOW0 + 21 * SEC);
	obtain_at(st, "build-id:g", "/bin/g", NOW0 + 22 * SEC);
	assert_int_equal(bl_store__evicted(st), 3);
	assert_null(bl_store__get(st, "build-id:c@build-id:p"));
	assert_null(bl_store__get(st, "build-id:d@build-id:p"));
	assert_false(file_exists(c, "build-id:d@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:a@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:e@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:f@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:g@build-id:p"));
	assert_int_equal(bl_store__count(st), 4);
	bl_store__free(st);
}

/* A baseline a process is attached to is never evicted: with every one in
 * use, a new baseline is refused (and counted) instead. */
static void test_store_full_never_evicts_one_in_use(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 2, 0, 0);
	struct baseline *a = obtain_at(st, "build-id:a", "/bin/a", NOW0 + 1 * SEC);
	struct baseline *b = obtain_at(st, "build-id:b", "/bin/b", NOW0 + 2 * SEC);

	a->users = b->users = 1;
	assert_null(bl_store__obtain(st, "build-id:c", "build-id:p", "/bin/c", "/usr/sbin/p", 0, NOW0 + 3 * SEC));
	assert_int_equal(bl_store__refused(st), 1);
	assert_int_equal(bl_store__evicted(st), 0);
	assert_int_equal(bl_store__count(st), 2);
	b->users = 0; /* b's process ended: b goes though a is older */
	obtain_at(st, "build-id:c", "/bin/c", NOW0 + 4 * SEC);
	assert_int_equal(bl_store__evicted(st), 1);
	assert_ptr_equal(bl_store__get(st, "build-id:a@build-id:p"), a);
	assert_null(bl_store__get(st, "build-id:b@build-id:p"));
	bl_store__free(st);
}

/* A flood of new binaries against a store full of ready baselines: none
 * of those goes (a new one is refused and counted instead, its file never
 * written); a learning one goes before any ready one, the least observed
 * first among those last seen together. */
static void test_store_full_evicts_learning_never_ready_for_new(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 4, 0, 0);
	struct baseline *ready = obtain_at(st, "build-id:ready", "/usr/sbin/sshd", NOW0);
	struct baseline *few;

	learn(ready, 3, 1000000, NOW0); /* min_samples 3: ready, and the least recently seen */
	obtain_at(st, "build-id:b", "/bin/b", NOW0 + 5 * SEC);
	few = obtain_at(st, "build-id:c", "/bin/c", NOW0 + 5 * SEC);
	learn(obtain_at(st, "build-id:d", "/bin/d", NOW0 + 5 * SEC), 2, 1000000, NOW0 + 5 * SEC);
	learn(few, 1, 1000000, NOW0 + 5 * SEC);
	assert_int_equal(bl_store__save(st), 0);
	/* b, c, d last seen together: b (no sample) goes, then c (one), then d (two) */
	obtain_at(st, "build-id:e", "/bin/e", NOW0 + 10 * SEC);
	assert_null(bl_store__get(st, "build-id:b@build-id:p"));
	assert_false(file_exists(c, "build-id:b@build-id:p"));
	obtain_at(st, "build-id:f", "/bin/f", NOW0 + 11 * SEC);
	assert_null(bl_store__get(st, "build-id:c@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:d@build-id:p"));
	assert_int_equal(bl_store__evicted(st), 2);
	/* all ready now: a new one finds nothing it may displace */
	for (const char *const *k = (const char *const[]){ "build-id:d@build-id:p", "build-id:e@build-id:p",
							    "build-id:f@build-id:p", NULL };
	     *k; k++)
		learn(bl_store__get(st, *k), 3, 1000000, NOW0 + 12 * SEC);
	for (int i = 0; i < 50; i++) {
		char id[32];

		snprintf(id, sizeof(id), "build-id:flood%d", i);
		assert_null(bl_store__obtain(st, id, "build-id:p", "/tmp/x", "/usr/sbin/p", 65534, NOW0 + 20 * SEC));
	}
	assert_int_equal(bl_store__refused(st), 50);
	assert_int_equal(bl_store__evicted(st), 2);
	assert_int_equal(bl_store__count(st), 4);
	assert_ptr_equal(bl_store__get(st, "build-id:ready@build-id:p"), ready);
	assert_true(file_exists(c, "build-id:ready@build-id:p"));
	bl_store__free(st);
}

/* A ready baseline that aged out (not seen for max_age) may go for a new
 * one; a ready bundle baseline may displace a current ready one. */
static void test_store_ready_goes_only_aged_or_for_ready(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 2, 1 * DAY, 0);
	struct baseline *imp;

	learn(obtain_at(st, "build-id:old", "/bin/old", NOW0), 3, 1000000, NOW0);
	learn(obtain_at(st, "build-id:cur", "/bin/cur", NOW0 + 2 * DAY), 3, 1000000, NOW0 + 2 * DAY);
	obtain_at(st, "build-id:new", "/bin/new", NOW0 + 2 * DAY);
	assert_null(bl_store__get(st, "build-id:old@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:cur@build-id:p"));
	learn(bl_store__get(st, "build-id:new@build-id:p"), 3, 1000000, NOW0 + 2 * DAY);
	/* a learning one from a bundle is refused; a ready one displaces the least recently seen */
	imp = baseline__new("build-id:imp", "build-id:p", "/bin/imp", "/usr/sbin/p", NOW0 + 2 * DAY);
	assert_int_equal(bl_store__absorb(st, imp), -ENOSPC);
	imp = baseline__new("build-id:imp", "build-id:p", "/bin/imp", "/usr/sbin/p", NOW0 + 3 * DAY);
	learn(imp, 3, 1000000, NOW0 + 3 * DAY);
	assert_int_equal(bl_store__absorb(st, imp), 0);
	assert_int_equal(bl_store__count(st), 2);
	assert_non_null(bl_store__get(st, "build-id:imp@build-id:p"));
	bl_store__free(st);
}

/* One non-root user holds at most its share (1/8 of the bound) of learning
 * baselines: beyond it its new ones are refused and counted by uid; root's
 * are not; a baseline of its that became ready frees a place; the uid is
 * kept in the file, and a file without one reads as unknown. */
static void test_store_uid_share_bounds_one_user(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 16, 0, 0);
	struct bl_uid_refusals top[4];
	struct baseline *first = NULL;
	char id[32];

	assert_int_equal(bl_store__uid_share(st), 2);
	for (int i = 0; i < 10; i++) {
		struct baseline *b;

		snprintf(id, sizeof(id), "build-id:u%d", i);
		b = bl_store__obtain(st, id, "build-id:p", "/tmp/u", "/usr/sbin/p", 65534, NOW0 + (uint64_t)i * SEC);
		if (i < 2)
			assert_non_null(b);
		else
			assert_null(b);
		if (!first)
			first = b;
	}
	assert_int_equal(first->uid, 65534);
	/* another user has a share of its own */
	assert_non_null(bl_store__obtain(st, "build-id:w", "build-id:p", "/tmp/w", "/usr/sbin/p", 33, NOW0));
	assert_int_equal(bl_store__uid_refused(st), 8);
	assert_int_equal(bl_store__refused(st), 0);
	assert_int_equal(bl_store__uid_refusals(st, top, 4), 1);
	assert_int_equal(top[0].uid, 65534);
	assert_int_equal(top[0].refused, 8);
	for (int i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "build-id:r%d", i);
		assert_non_null(bl_store__obtain(st, id, "build-id:p", "/usr/bin/r", "/usr/sbin/p", 0, NOW0));
	}
	learn(first, 3, 1000000, NOW0 + 20 * SEC);
	assert_non_null(bl_store__obtain(st, "build-id:u10", "build-id:p", "/tmp/u", "/usr/sbin/p", 65534, NOW0 + 21 * SEC));
	assert_int_equal(bl_store__save(st), 0);
	bl_store__free(st);
	st = open_store(c);
	assert_int_equal(bl_store__get(st, "build-id:u0@build-id:p")->uid, 65534);
	assert_int_equal(bl_store__get(st, "build-id:r0@build-id:p")->uid, 0);
	bl_store__free(st);
}

/* Ties in the last sight: the older baseline goes, then the smaller key,
 * whatever the order they were made or loaded in. */
static void test_store_eviction_ties_go_by_creation_then_key(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 3, 0, 0);
	struct baseline *t2 = obtain_at(st, "build-id:t2", "/bin/t2", NOW0);
	struct baseline *t3 = obtain_at(st, "build-id:t3", "/bin/t3", NOW0);
	struct baseline *t1 = obtain_at(st, "build-id:t1", "/bin/t1", NOW0);

	t2->seen_ns = t3->seen_ns = t1->seen_ns = NOW0 + 5 * SEC;
	t3->created_ns = NOW0 - SEC; /* the oldest of the three */
	obtain_at(st, "build-id:n1", "/bin/n1", NOW0 + 6 * SEC);
	assert_null(bl_store__get(st, "build-id:t3@build-id:p"));
	obtain_at(st, "build-id:n2", "/bin/n2", NOW0 + 7 * SEC);
	assert_null(bl_store__get(st, "build-id:t1@build-id:p")); /* t1 < t2 */
	assert_non_null(bl_store__get(st, "build-id:t2@build-id:p"));
	assert_int_equal(bl_store__evicted(st), 2);
	bl_store__free(st);
}

static void drop_seen(struct json_object *o)
{
	json_object_object_del(o, "seen_ns");
}

/* After evictions, a reload holds exactly what memory held, last sights
 * included; a file written before seen_ns existed reads its updated_ns; a
 * bound lowered since the files were written is applied by the sweep. */
static void test_store_reload_after_eviction_is_consistent(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 3, 0, 0), *again;
	struct baseline *old, *got;
	char path[PATH_MAX], *text;
	const char *keys[] = { "build-id:c@build-id:p", "build-id:d@build-id:p", "build-id:e@build-id:p" };

	for (int i = 0; i < 5; i++) {
		char id[32], exe[32];

		snprintf(id, sizeof(id), "build-id:%c", 'a' + i);
		snprintf(exe, sizeof(exe), "/bin/%c", 'a' + i);
		learn(obtain_at(st, id, exe, NOW0 + (uint64_t)i * SEC), 2, 1000000, NOW0 + (uint64_t)i * SEC);
	}
	assert_int_equal(bl_store__evicted(st), 2);
	assert_int_equal(bl_store__save(st), 0);
	again = open_bounded(c, 3, 0, 0);
	assert_int_equal(c->nreports, 0);
	assert_int_equal(bl_store__count(again), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_non_null(bl_store__get(again, keys[i]));
		assert_baseline_equal(bl_store__get(st, keys[i]), bl_store__get(again, keys[i]));
	}
	assert_int_equal(count_entries(c), 3);
	bl_store__free(again);
	bl_store__free(st);

	/* an older file: no seen_ns */
	old = baseline__new("build-id:z", "-", "/bin/z", "", NOW0);
	assert_non_null(old);
	old->updated_ns = NOW0 + 42 * SEC;
	text = file_json(old, drop_seen);
	file_of_key(c, old->key, path, sizeof(path));
	write_file(path, text, strlen(text));
	free(text);
	/* and a lower bound: the two least recently seen go at the sweep */
	st = open_bounded(c, 2, 0, 0);
	assert_int_equal(bl_store__count(st), 4);
	got = bl_store__get(st, "build-id:z@-");
	assert_non_null(got);
	assert_int_equal(got->seen_ns, NOW0 + 42 * SEC);
	assert_int_equal(bl_store__sweep(st, NOW0 + 50 * SEC), 0);
	assert_int_equal(bl_store__evicted(st), 2);
	assert_int_equal(bl_store__count(st), 2);
	assert_non_null(bl_store__get(st, "build-id:z@-"));
	assert_non_null(bl_store__get(st, keys[2]));
	bl_store__free(st);
	st = open_bounded(c, 2, 0, 0);
	assert_int_equal(bl_store__count(st), 2);
	assert_int_equal(count_entries(c), 2);
	bl_store__free(st);
	baseline__free(old);
}

/* Not seen for longer than the age limit: removed by the sweep, unless in
 * use; a clock stepped back ages nothing; a limit of 0 never ages. */
static void test_store_sweep_removes_baselines_past_the_age_limit(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 100, 10 * DAY, 0);
	struct baseline *live;

	obtain_at(st, "build-id:old", "/bin/old", NOW0);
	obtain_at(st, "build-id:recent", "/bin/recent", NOW0 + 9 * DAY);
	live = obtain_at(st, "build-id:live", "/bin/live", NOW0);
	live->users = 1;
	assert_int_equal(bl_store__save(st), 0);
	assert_int_equal(bl_store__sweep(st, NOW0 - DAY), 0);  /* clock stepped back */
	assert_int_equal(bl_store__sweep(st, NOW0 + 10 * DAY), 0); /* exactly the limit: kept */
	assert_int_equal(bl_store__count(st), 3);
	assert_int_equal(bl_store__sweep(st, NOW0 + 10 * DAY + 1), 1);
	assert_int_equal(bl_store__aged_out(st), 1);
	assert_int_equal(bl_store__evicted(st), 0);
	assert_null(bl_store__get(st, "build-id:old@build-id:p"));
	assert_false(file_exists(c, "build-id:old@build-id:p"));
	assert_ptr_equal(bl_store__get(st, "build-id:live@build-id:p"), live);
	assert_non_null(bl_store__get(st, "build-id:recent@build-id:p"));
	bl_store__free(st);

	/* at load: the age limit applies to what was on disk */
	st = open_bounded(c, 100, 10 * DAY, 0);
	assert_int_equal(bl_store__count(st), 2);
	assert_int_equal(bl_store__sweep(st, NOW0 + 30 * DAY), 2);
	assert_int_equal(bl_store__count(st), 0);
	assert_int_equal(count_entries(c), 0);
	bl_store__free(st);

	st = open_bounded(c, 100, 0, 0);
	obtain_at(st, "build-id:old", "/bin/old", NOW0);
	assert_int_equal(bl_store__sweep(st, NOW0 + 3650 * DAY), 0);
	assert_int_equal(bl_store__count(st), 1);
	bl_store__free(st);
}

/* An upgraded binary's old baseline stays as the new one's prior until the
 * new one is ready, then goes; unless it was seen itself since. */
static void test_store_prior_is_kept_until_its_successor_is_ready(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 100, 0, 30 * DAY);
	struct baseline *v2, *w1;

	learn(obtain_at(st, "build-id:v1", "/usr/bin/foo", NOW0), 5, 1000000, NOW0);
	v2 = obtain_at(st, "build-id:v2", "/usr/bin/foo", NOW0 + DAY);
	assert_string_equal(v2->prior_key, "build-id:v1@build-id:p");
	/* another program, whose old binary still runs too */
	learn(obtain_at(st, "build-id:w1", "/usr/bin/bar", NOW0), 5, 1000000, NOW0);
	learn(obtain_at(st, "build-id:w2", "/usr/bin/bar", NOW0 + DAY), 3, 1000000, NOW0 + DAY);
	w1 = obtain_at(st, "build-id:w1", "/usr/bin/bar", NOW0 + DAY + SEC);
	assert_int_equal(w1->seen_ns, NOW0 + DAY + SEC);

	assert_int_equal(bl_store__sweep(st, NOW0 + DAY + 2 * SEC), 0); /* v2 not ready yet */
	assert_non_null(bl_store__get(st, "build-id:v1@build-id:p"));
	learn(v2, 3, 1000000, NOW0 + DAY + 3 * SEC); /* ready (min_samples 3) */
	assert_int_equal(bl_store__sweep(st, NOW0 + DAY + 4 * SEC), 1);
	assert_null(bl_store__get(st, "build-id:v1@build-id:p"));
	assert_false(file_exists(c, "build-id:v1@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:w1@build-id:p")); /* seen since w2 appeared */
	assert_int_equal(bl_store__aged_out(st), 1);
	/* the successor scores alone, its prior_key left as history */
	v2 = bl_store__get(st, "build-id:v2@build-id:p");
	assert_string_equal(v2->prior_key, "build-id:v1@build-id:p");
	bl_store__free(st);
}

/* A successor that never becomes ready: its prior goes prior_max_age after
 * it appeared (to the nanosecond). */
static void test_store_prior_ages_out_after_prior_max_age(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 100, 0, 30 * DAY);

	learn(obtain_at(st, "build-id:v1", "/usr/bin/foo", NOW0), 5, 1000000, NOW0);
	obtain_at(st, "build-id:v2", "/usr/bin/foo", NOW0 + DAY);
	assert_int_equal(bl_store__save(st), 0);
	assert_int_equal(bl_store__sweep(st, NOW0 + 31 * DAY - 1), 0);
	assert_non_null(bl_store__get(st, "build-id:v1@build-id:p"));
	bl_store__free(st);
	/* the same across a restart */
	st = open_bounded(c, 100, 0, 30 * DAY);
	assert_int_equal(bl_store__sweep(st, NOW0 + 31 * DAY), 1);
	assert_null(bl_store__get(st, "build-id:v1@build-id:p"));
	assert_non_null(bl_store__get(st, "build-id:v2@build-id:p"));
	assert_int_equal(count_entries(c), 1);
	bl_store__free(st);
}

/* The last sight is saved with the baseline, coarsely: touching dirties a
 * clean baseline only once BL_SEEN_SAVE_NS have passed since it was saved. */
static void test_store_touch_persists_seen_coarsely(void **state)
{
	struct ctx *c = *state;
	struct bl_store *st = open_bounded(c, 100, 0, 0), *again;
	struct baseline *a = obtain_at(st, "build-id:a", "/bin/a", NOW0);

	assert_int_equal(bl_store__save(st), 0);
	bl_store__touch(a, NOW0 + 60 * SEC);
	assert_false(a->dirty);
	bl_store__touch(a, NOW0 - SEC); /* back: ignored */
	assert_int_equal(a->seen_ns, NOW0 + 60 * SEC);
	bl_store__touch(a, NOW0 + BL_SEEN_SAVE_NS);
	assert_true(a->dirty);
	a->users = 1;
	bl_store__touch_live(st, NOW0 + BL_SEEN_SAVE_NS + SEC);
	assert_int_equal(a->seen_ns, NOW0 + BL_SEEN_SAVE_NS + SEC);
	assert_int_equal(bl_store__save(st), 0);
	again = open_bounded(c, 100, 0, 0);
	assert_int_equal(bl_store__get(again, a->key)->seen_ns, NOW0 + BL_SEEN_SAVE_NS + SEC);
	bl_store__free(again);
	bl_store__free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_save_and_reopen_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_open_creates_missing_dir_0700, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_open_refuses_a_dir_others_could_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_obtain_sets_prior_of_rebuilt_binary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_bad_files_are_reported_moved_aside_and_others_load, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_store_moves_a_fifo_or_symlink_aside_without_blocking, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_store_open_removes_and_reports_stale_temp_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_forget_removes_from_memory_and_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_absorb_merges_same_key_and_adds_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_write_read_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_merges_are_associative_and_commutative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_read_refuses_a_fifo_without_blocking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_read_rejects_bad_bundles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_read_refuses_an_oversized_bundle_unread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bundle_read_refuses_too_many_or_too_large_baselines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bundle_read_memory_is_a_small_multiple_of_the_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_store_survives_sigkill_during_saves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_file_writes_content_and_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_file_never_opens_what_is_at_its_temp_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_file_fails_in_missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_full_evicts_the_least_recently_seen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_full_never_evicts_one_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_full_evicts_learning_never_ready_for_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_ready_goes_only_aged_or_for_ready, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_uid_share_bounds_one_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_eviction_ties_go_by_creation_then_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_reload_after_eviction_is_consistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_sweep_removes_baselines_past_the_age_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_prior_is_kept_until_its_successor_is_ready, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_prior_ages_out_after_prior_max_age, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_touch_persists_seen_coarsely, setup, teardown),
	};

	/* modes below are checked exactly */
	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
