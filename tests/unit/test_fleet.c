// SPDX-License-Identifier: MIT
/*
 * test_fleet.c - the fleet view (sensor/pipeline/fleet.c) over a real
 * directory of real signed bundles: the newest good one of the role is
 * loaded (on the loader thread) and found by key; every other file is
 * refused once, for its one reason; symlinks, FIFOs and dotfiles are never
 * opened; hostile names are judged like any other; a directory removed
 * and made again is watched again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bundle.h"
#include "pipeline/fleet.h"
#include "signing.h"
#include "unit_helpers.h"

#define NOW0 1796000000000000000ull

struct fx {
	char dir[64], fleet[96], key[96], pub[96], other[96], other_pub[96];
	struct fleet_report got[32]; /* the reports (strings copied) */
	char names[32][64];
	size_t n;
};

static int write_file(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, data, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -EIO;
}

static void on_report(void *ctx, const struct fleet_report *r)
{
	struct fx *f = ctx;

	assert_true(f->n < 32);
	snprintf(f->names[f->n], sizeof(f->names[0]), "%s", r->file);
	f->got[f->n] = *r;
	f->got[f->n].file = f->names[f->n];
	f->got[f->n].why = f->got[f->n].role = f->got[f->n].host = f->got[f->n].key_id = NULL;
	f->n++;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-unit-fleet-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->fleet, sizeof(f->fleet), "%s/fleet", f->dir);
	assert_int_equal(mkdir(f->fleet, 0755), 0);
	snprintf(f->key, sizeof(f->key), "%s/k", f->dir);
	snprintf(f->pub, sizeof(f->pub), "%s/k.pub", f->dir);
	snprintf(f->other, sizeof(f->other), "%s/o", f->dir);
	snprintf(f->other_pub, sizeof(f->other_pub), "%s/o.pub", f->dir);
	assert_int_equal(bl_signkey__generate(f->key, f->pub, err, sizeof(err)), 0);
	assert_int_equal(bl_signkey__generate(f->other, f->other_pub, err, sizeof(err)), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

/* n process samples learned into b. */
static void learn(struct baseline *b, unsigned n)
{
	static const char *const names[] = { "openat", "read" };
	struct bl_policy p;

	bl_policy__defaults(&p);
	p.mode = BL_MODE_LEARN;
	for (unsigned i = 0; i < n; i++) {
		struct bl_process_sample s = { .cpu_ns = 20000000 + i * 1000, .wall_ns = 60000000, .offcpu_ns = 40000000,
					       .syscalls = 100 + i, .syscall_names = names, .nsyscall_names = 2 };
		struct bl_verdict v;

		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i, &v), 0);
	}
}

/* A bundle at fleet/name of nb baselines (key build-id:aN@build-id:p), signed by key (NULL: unsigned). */
static void bundle(struct fx *f, const char *name, const char *role, uint64_t created, uint32_t hosts,
		   const char *key, size_t nb)
{
	struct baseline *bs[8];
	struct bl_bundle_meta m = { .created_ns = created, .hosts = hosts };
	struct bl_signkey *k = NULL;
	char path[256], err[256];

	assert_true(nb <= 8);
	snprintf(m.role, sizeof(m.role), "%s", role);
	for (size_t i = 0; i < nb; i++) {
		char id[32];

		snprintf(id, sizeof(id), "build-id:a%zu", i);
		bs[i] = baseline__new(id, "build-id:p", "/usr/sbin/sshd", "/usr/sbin/sshd", NOW0);
		assert_non_null(bs[i]);
		learn(bs[i], 20 + i);
		bs[i]->hosts = hosts;
	}
	if (key)
		assert_int_equal(bl_signkey__load(key, &k, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s", f->fleet, name);
	assert_int_equal(bl_bundle__write_meta(path, bs, nb, &m, k), 0);
	bl_signkey__free(k);
	for (size_t i = 0; i < nb; i++)
		baseline__free(bs[i]);
}

/* The directory's events and the looks they start, until none is under way
 * (each look's verdicts said by fleet__changed()). */
static void settle(struct fleet *fl, struct fx *f)
{
	struct pollfd p = { .fd = fleet__epoll_fd(fl), .events = POLLIN };

	for (int i = 0; i < 100 && (fleet__busy(fl) || i == 0); i++) {
		assert_true(poll(&p, 1, 100) >= 0);
		fleet__changed(fl, on_report, f);
	}
	assert_false(fleet__busy(fl));
}

static const struct fleet_report *report_of(struct fx *f, const char *name)
{
	const struct fleet_report *r = NULL;

	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->got[i].file, name) == 0) {
			if (r)
				fail_msg("%s reported twice", name);
			r = &f->got[i];
		}
	return r;
}

static void test_fleet_loads_the_newest_good_bundle_and_refuses_the_rest_once(void **state)
{
	struct fx *f = *state;
	struct fleet *fl;
	struct fleet_counts c;
	uint32_t hosts = 0;
	char path[256], link[256];
	static const char hostile[] = "new\nline \x1b[31m\"q\".bundle";

	bundle(f, "ssh-1.bundle", "ssh", NOW0 + 10, 3, f->key, 3);
	assert_int_equal(fleet__open(f->fleet, f->pub, "ssh", &fl), 0);
	fleet__scan(fl);
	assert_true(fleet__busy(fl));
	assert_int_equal(f->n, 0); /* judged and loaded on the loader thread, said after */
	settle(fl, f);
	assert_int_equal(f->n, 1);
	assert_int_equal(f->got[0].result, FLEET_LOADED);
	assert_int_equal(f->got[0].hosts, 3);
	assert_int_equal(f->got[0].baselines, 3);
	assert_int_equal(fleet__generation(fl), 1);
	assert_non_null(fleet__get(fl, "build-id:a2@build-id:p", &hosts));
	assert_int_equal(hosts, 3);
	assert_int_equal(fleet__get(fl, "build-id:a2@build-id:p", NULL)->samples, 22);
	assert_null(fleet__get(fl, "build-id:a9@build-id:p", NULL));
	assert_string_equal(fleet__role(fl), "ssh");

	/* every way to be refused, and what is never opened */
	bundle(f, "web.bundle", "web", NOW0 + 20, 3, f->key, 1);
	bundle(f, "old.bundle", "ssh", NOW0 + 5, 3, f->key, 1);
	bundle(f, "same-time.bundle", "ssh", NOW0 + 10, 3, f->key, 1);
	bundle(f, "unsigned.bundle", "ssh", NOW0 + 20, 3, NULL, 1);
	bundle(f, "stranger.bundle", "ssh", NOW0 + 20, 3, f->other, 1);
	bundle(f, "flipped.bundle", "ssh", NOW0 + 20, 3, f->key, 2);
	{
		FILE *fp;
		char *buf;
		long n;

		snprintf(path, sizeof(path), "%s/flipped.bundle", f->fleet);
		fp = fopen(path, "r+");
		assert_non_null(fp);
		fseek(fp, 0, SEEK_END);
		n = ftell(fp);
		buf = malloc((size_t)n);
		rewind(fp);
		assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
		char *at = strstr(strstr(buf, "\"baselines\""), "\"samples\":") + strlen("\"samples\":");
		*at = *at == '1' ? '2' : '1'; /* a digit for a digit: still a bundle, not the signed bytes */
		rewind(fp);
		assert_int_equal(fwrite(buf, 1, (size_t)n, fp), (size_t)n);
		fclose(fp);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/%s", f->fleet, hostile);
	assert_int_equal(write_file(path, "{\"format\":\"plumbline-baselines\",", 32), 0);
	snprintf(path, sizeof(path), "%s/fifo", f->fleet);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/link.bundle", f->fleet);
	snprintf(link, sizeof(link), "%s/ssh-1.bundle", f->fleet);
	assert_int_equal(symlink(link, path), 0);
	snprintf(path, sizeof(path), "%s/.rsync-tmp.bundle", f->fleet);
	assert_int_equal(write_file(path, "junk", 4), 0);
	snprintf(path, sizeof(path), "%s/ssh-9.bundle.tmp.4242", f->fleet); /* an atomic write under way */
	assert_int_equal(write_file(path, "{\"format\"", 10), 0);

	f->n = 0;
	fleet__scan(fl);
	assert_int_equal(f->n, 0); /* nothing judged on the event loop */
	settle(fl, f);
	assert_int_equal(f->n, 7);
	assert_int_equal(report_of(f, "web.bundle")->result, FLEET_OTHER_ROLE);
	assert_int_equal(report_of(f, "old.bundle")->result, FLEET_NOT_NEWER);
	assert_int_equal(report_of(f, "same-time.bundle")->result, FLEET_NOT_NEWER);
	assert_int_equal(report_of(f, "unsigned.bundle")->result, FLEET_UNSIGNED);
	assert_int_equal(report_of(f, "stranger.bundle")->result, FLEET_UNKNOWN_KEY);
	assert_int_equal(report_of(f, "flipped.bundle")->result, FLEET_BAD_SIGNATURE);
	assert_int_equal(report_of(f, hostile)->result, FLEET_INVALID);
	assert_false(report_of(f, hostile)->has_meta);
	assert_null(report_of(f, "fifo"));
	assert_null(report_of(f, "link.bundle"));
	assert_null(report_of(f, ".rsync-tmp.bundle"));
	assert_null(report_of(f, "ssh-9.bundle.tmp.4242"));
	assert_int_equal(fleet__generation(fl), 1); /* the view in use stays */

	/* unchanged files are not judged again */
	f->n = 0;
	fleet__scan(fl);
	settle(fl, f);
	assert_int_equal(f->n, 0);

	/* a newer good one replaces the view */
	bundle(f, "ssh-2.bundle", "ssh", NOW0 + 30, 5, f->key, 2);
	settle(fl, f); /* the watch saw it */
	assert_int_equal(f->n, 1);
	assert_string_equal(f->got[0].file, "ssh-2.bundle");
	assert_int_equal(f->got[0].result, FLEET_LOADED);
	assert_int_equal(fleet__generation(fl), 2);
	assert_null(fleet__get(fl, "build-id:a2@build-id:p", NULL));
	assert_non_null(fleet__get(fl, "build-id:a1@build-id:p", &hosts));
	assert_int_equal(hosts, 5);

	/* copied in place: judged once it is closed, not while it is written */
	{
		char staged[160], *data;
		size_t len;
		FILE *in, *out;

		bundle(f, "../staged.bundle", "ssh", NOW0 + 40, 5, f->key, 1);
		snprintf(staged, sizeof(staged), "%s/staged.bundle", f->dir);
		snprintf(path, sizeof(path), "%s/ssh-3.bundle", f->fleet);
		in = fopen(staged, "r");
		assert_non_null(in);
		data = malloc(1 << 20);
		len = fread(data, 1, 1 << 20, in);
		fclose(in);
		assert_true(len > 100 && len < (1 << 20));
		f->n = 0;
		out = fopen(path, "w");
		assert_non_null(out);
		assert_int_equal(fwrite(data, 1, len / 2, out), len / 2);
		fflush(out);
		settle(fl, f);
		assert_int_equal(f->n, 0);
		assert_int_equal(fwrite(data + len / 2, 1, len - len / 2, out), len - len / 2);
		fclose(out);
		free(data);
		settle(fl, f);
		assert_int_equal(f->n, 1);
		assert_int_equal(f->got[0].result, FLEET_LOADED);
		assert_string_equal(f->got[0].file, "ssh-3.bundle");
	}

	fleet__counts(fl, &c);
	assert_true(c.on && c.loaded);
	assert_string_equal(c.bundle.file, "ssh-3.bundle");
	assert_int_equal(c.bundle.hosts, 5);
	assert_int_equal(c.results[FLEET_LOADED], 3);
	assert_int_equal(c.results[FLEET_NOT_NEWER], 2);
	assert_int_equal(c.results[FLEET_BAD_SIGNATURE], 1);
	assert_int_equal(c.results[FLEET_UNKNOWN_KEY], 1);
	assert_int_equal(c.results[FLEET_UNSIGNED], 1);
	assert_int_equal(c.results[FLEET_OTHER_ROLE], 1);
	assert_int_equal(c.results[FLEET_INVALID], 1);
	assert_int_equal(c.keys, 1);
	fleet__free(fl);
}

/* A fleet directory removed, or moved away, and made again (configuration
 * management replacing it whole): the view in use stays, the directory is
 * looked for each tick, watched again when it is back, and what arrives in
 * it is loaded; what is written into the old one moved away is not. */
static void test_fleet_watches_a_directory_made_again(void **state)
{
	struct fx *f = *state;
	struct fleet *fl;
	struct fleet_counts c;
	char moved[sizeof(f->fleet) + 8];

	bundle(f, "ssh-1.bundle", "ssh", NOW0 + 10, 3, f->key, 1);
	assert_int_equal(fleet__open(f->fleet, f->pub, "ssh", &fl), 0);
	fleet__scan(fl);
	settle(fl, f);
	assert_int_equal(f->n, 1);

	ut_rm_rf(f->fleet);
	settle(fl, f);
	fleet__counts(fl, &c);
	assert_false(c.watching);
	assert_true(c.loaded); /* the view in use stays */
	fleet__tick(fl);       /* not back yet */
	fleet__counts(fl, &c);
	assert_false(c.watching);

	assert_int_equal(mkdir(f->fleet, 0755), 0);
	bundle(f, "ssh-1.bundle", "ssh", NOW0 + 10, 3, f->key, 1); /* the bundle in use, synced again: not news */
	fleet__tick(fl);
	fleet__counts(fl, &c);
	assert_true(c.watching);
	settle(fl, f);
	assert_int_equal(f->n, 1);
	assert_int_equal(fleet__generation(fl), 1);
	bundle(f, "ssh-2.bundle", "ssh", NOW0 + 20, 4, f->key, 2);
	settle(fl, f);
	assert_int_equal(f->n, 2);
	assert_string_equal(f->got[1].file, "ssh-2.bundle");
	assert_int_equal(f->got[1].result, FLEET_LOADED);
	assert_int_equal(fleet__generation(fl), 2);

	/* moved away: its watch is not ours any more */
	snprintf(moved, sizeof(moved), "%s.old", f->fleet);
	assert_int_equal(rename(f->fleet, moved), 0);
	settle(fl, f);
	fleet__counts(fl, &c);
	assert_false(c.watching);
	{
		char save[sizeof(f->fleet)];

		memcpy(save, f->fleet, sizeof(save));
		memcpy(f->fleet + strlen(f->fleet), ".old", 5); /* moved, as f->fleet has room */
		bundle(f, "ssh-3.bundle", "ssh", NOW0 + 30, 5, f->key, 1);
		memcpy(f->fleet, save, sizeof(save));
	}
	settle(fl, f);
	assert_int_equal(f->n, 2);
	assert_int_equal(mkdir(f->fleet, 0755), 0);
	bundle(f, "ssh-4.bundle", "ssh", NOW0 + 40, 6, f->key, 1);
	fleet__tick(fl);
	settle(fl, f);
	assert_int_equal(f->n, 3);
	assert_string_equal(f->got[2].file, "ssh-4.bundle");
	assert_int_equal(fleet__generation(fl), 3);
	fleet__free(fl);
	ut_rm_rf(moved);
}

static void test_fleet_refuses_keys_it_cannot_load_and_a_missing_directory(void **state)
{
	struct fx *f = *state;
	struct fleet *fl = NULL;
	char path[256];

	snprintf(path, sizeof(path), "%s/none.pub", f->dir);
	assert_true(fleet__open(f->fleet, path, "ssh", &fl) < 0);
	snprintf(path, sizeof(path), "%s/no-such-dir", f->dir);
	assert_true(fleet__open(path, f->pub, "ssh", &fl) < 0);
	assert_null(fl);
	fleet__counts(NULL, &(struct fleet_counts){ 0 });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fleet_loads_the_newest_good_bundle_and_refuses_the_rest_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fleet_watches_a_directory_made_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fleet_refuses_keys_it_cannot_load_and_a_missing_directory, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("fleet", tests, NULL, NULL);
}
