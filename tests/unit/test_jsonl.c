// SPDX-License-Identifier: MIT
/*
 * test_jsonl.c - the JSON Lines backend: whole lines only, errors counted,
 * a full disk never leaves a partial line behind; and the failure episodes
 * every backend reports through output.c (said once, reminded at most once
 * an interval, recovery said once with the exact loss).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "output.h"
#include "unit_helpers.h"

struct fixture {
	char dir[64];
	char path[128];
	bool mounted;
	char mount_err[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-unit-jsonl-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/out.jsonl", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->mounted)
		umount2(f->dir, MNT_DETACH);
	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

/* As setup, plus a 16 KiB tmpfs on the directory (root only). Never fails:
 * the test skips when the mount could not be made. */
static int setup_tmpfs(void **state)
{
	struct fixture *f;

	if (setup(state))
		return -1;
	f = *state;
	/* A private mount namespace: nothing leaks to the host if we crash. */
	if (unshare(CLONE_NEWNS) == 0)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (mount("tmpfs", f->dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,mode=0700") == 0)
		f->mounted = true;
	else
		snprintf(f->mount_err, sizeof(f->mount_err), "mount -t tmpfs on %s failed: %s (needs root)", f->dir,
			 strerror(errno));
	return 0;
}

static struct json_object *make_rec(int n, size_t pad)
{
	struct json_object *o = json_object_new_object();
	char *p = malloc(pad + 1);

	assert_non_null(o);
	assert_non_null(p);
	memset(p, 'p', pad);
	p[pad] = '\0';
	json_object_object_add(o, "type", json_object_new_string("test"));
	json_object_object_add(o, "n", json_object_new_int(n));
	json_object_object_add(o, "pad", json_object_new_string(p));
	free(p);
	return o;
}

static int write_rec(struct pl_output *o, int n, size_t pad)
{
	struct json_object *rec = make_rec(n, pad);
	int r = output__write_event(o, "test", rec);

	json_object_put(rec);
	return r;
}

/*
 * Check that buf holds only complete JSON lines, the i-th with "n" == first_n + i.
 * Returns the number of lines.
 */
static size_t check_lines(const char *buf, size_t len, int first_n)
{
	size_t lines = 0;
	const char *p = buf, *end = buf + len;

	if (len)
		assert_int_equal(buf[len - 1], '\n'); /* no partial last line */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct json_tokener *tok = json_tokener_new();
		struct json_object *o, *n;

		assert_non_null(nl);
		assert_non_null(tok);
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		o = json_tokener_parse_ex(tok, p, (int)(nl - p));
		if (!o || json_tokener_get_parse_end(tok) != (size_t)(nl - p))
			fail_msg("line %zu is not one complete JSON object: %.*s", lines, (int)(nl - p), p);
		json_tokener_free(tok);
		assert_true(json_object_object_get_ex(o, "n", &n));
		assert_int_equal(json_object_get_int(n), first_n + (int)lines);
		json_object_put(o);
		lines++;
		p = nl + 1;
	}
	return lines;
}

static void test_jsonl_writes_one_line_per_record(void **state)
{
	struct fixture *f = *state;
	struct pl_output *o = NULL;
	struct json_object *rec;
	struct stat st;
	char *buf;
	size_t len = 0;

	umask(022);
	assert_int_equal(jsonl_output__open(f->path, &o), 0);
	assert_non_null(o);
	assert_string_equal(o->ops->name, "jsonl");
	rec = json_object_new_object();
	json_object_object_add(rec, "s", json_object_new_string("a\nb\"/c"));
	json_object_object_add(rec, "n", json_object_new_int(1));
	assert_int_equal(output__write_event(o, "test", rec), 0);
	assert_int_equal(output__write_event(o, "test", rec), 0);
	json_object_put(rec);
	assert_int_equal(write_rec(o, 7, 3), 0);
	assert_int_equal(output__flush(o), 0);
	assert_int_equal(o->written, 3);
	assert_int_equal(o->dropped, 0);
	assert_int_equal(o->last_err, 0);
	output__free(o);

	buf = ut_read_file(f->path, &len);
	assert_non_null(buf);
	assert_string_equal(buf, "{\"s\":\"a\\nb\\\"/c\",\"n\":1}\n"
				 "{\"s\":\"a\\nb\\\"/c\",\"n\":1}\n"
				 "{\"type\":\"test\",\"n\":7,\"pad\":\"ppp\"}\n");
	free(buf);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
}

static void test_jsonl_appends_to_existing_file(void **state)
{
	struct fixture *f = *state;
	struct pl_output *o = NULL;
	char *buf;
	size_t len = 0;

	for (int round = 0; round < 2; round++) {
		assert_int_equal(jsonl_output__open(f->path, &o), 0);
		assert_int_equal(write_rec(o, round * 2, 1), 0);
		assert_int_equal(write_rec(o, round * 2 + 1, 1), 0);
		output__free(o);
	}
	buf = ut_read_file(f->path, &len);
	assert_non_null(buf);
	assert_int_equal(check_lines(buf, len, 0), 4);
	free(buf);
}

static void test_jsonl_dash_means_stdout(void **state)
{
	struct fixture *f = *state;
	struct pl_output *o = NULL;
	int saved, fd;
	char *buf;
	size_t len = 0;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);

	assert_int_equal(jsonl_output__open("-", &o), 0);
	assert_int_equal(write_rec(o, 0, 2), 0);
	assert_int_equal(write_rec(o, 1, 2), 0);
	assert_int_equal(o->written, 2);
	output__free(o);
	/* stdout belongs to the process: still open after free */
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0);

	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	buf = ut_read_file(f->path, &len);
	assert_non_null(buf);
	assert_string_equal(buf, "{\"type\":\"test\",\"n\":0,\"pad\":\"pp\"}\n{\"type\":\"test\",\"n\":1,\"pad\":\"pp\"}\n");
	free(buf);
}

/* A JSON output on stdout made to be the device at path (--json refuses a
 * device by name; stdout may be anything the caller made it). Returns the
 * saved stdout, for put_stdout_back(). */
static int output_on_stdout_as(const char *path, struct pl_output **ret)
{
	int saved, fd;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	assert_int_equal(jsonl_output__open("-", ret), 0);
	return saved;
}

static void put_stdout_back(int saved)
{
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
}

/* stdout may be anything the caller made it; here /dev/full */
static void test_jsonl_write_to_dev_full_fails_enospc_and_counts_dropped(void **state)
{
	struct pl_output *o = NULL;
	int saved, fd;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	assert_int_equal(jsonl_output__open("-", &o), 0);
	assert_int_equal(write_rec(o, 0, 1), -ENOSPC);
	assert_int_equal(o->written, 0);
	assert_int_equal(o->dropped, 1);
	assert_int_equal(o->last_err, -ENOSPC);
	assert_int_equal(write_rec(o, 1, 1), -ENOSPC);
	assert_int_equal(o->dropped, 2);
	assert_int_equal(output__flush(o), 0); /* not a regular file: nothing to sync */
	output__free(o);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
}

/* A symlink at the path could send root's appends to any file: refused,
 * and its target left as it was. */
static void test_jsonl_refuses_a_symlink_and_leaves_its_target(void **state)
{
	struct fixture *f = *state;
	struct pl_output sentinel, *o = &sentinel;
	char target[160], *buf;
	size_t len;
	int fd;

	snprintf(target, sizeof(target), "%s/shadow", f->dir);
	fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "root:x:0:\n", 10), 10);
	close(fd);
	assert_int_equal(symlink(target, f->path), 0);
	assert_int_equal(jsonl_output__open(f->path, &o), -ELOOP);
	assert_ptr_equal(o, &sentinel);
	buf = ut_read_file(target, &len);
	assert_non_null(buf);
	assert_string_equal(buf, "root:x:0:\n");
	free(buf);
	/* a dangling one too: it is not created through */
	unlink(target);
	assert_int_equal(jsonl_output__open(f->path, &o), -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
}

/* Only a regular file: a FIFO (whose open would wait for a reader, and
 * whose reader could stall the sensor) and a device are refused at once. */
static void test_jsonl_refuses_what_is_not_a_regular_file(void **state)
{
	struct fixture *f = *state;
	struct pl_output sentinel, *o = &sentinel;

	assert_int_equal(mkfifo(f->path, 0600), 0);
	alarm(10); /* a regression fails here rather than stalling */
	assert_int_equal(jsonl_output__open(f->path, &o), -EINVAL);
	alarm(0);
	assert_ptr_equal(o, &sentinel);
	assert_int_equal(jsonl_output__open("/dev/null", &o), -EINVAL);
	assert_ptr_equal(o, &sentinel);
}

static void test_jsonl_open_failure_returns_errno_and_leaves_ret(void **state)
{
	struct fixture *f = *state;
	struct pl_output sentinel, *o = &sentinel;
	char path[160];

	snprintf(path, sizeof(path), "%s/no/such/dir/out.jsonl", f->dir);
	assert_int_equal(jsonl_output__open(path, &o), -ENOENT);
	assert_ptr_equal(o, &sentinel);
	assert_int_equal(jsonl_output__open(f->dir, &o), -EISDIR);
	assert_ptr_equal(o, &sentinel);
	output__free(NULL); /* NULL-safe */
}

static void test_jsonl_disk_full_rolls_back_partial_line(void **state)
{
	struct fixture *f = *state;
	struct pl_output *o = NULL;
	char filler[128], *buf, *zero;
	int attempts = 0, failures_after_first = 0, first_fail = -1, fd, r;
	size_t len = 0;

	if (!f->mounted) {
		print_message("%s: skipping\n", f->mount_err);
		skip();
	}
	/* take half the space with a file we can free later */
	snprintf(filler, sizeof(filler), "%s/filler", f->dir);
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	zero = calloc(1, 8192);
	assert_non_null(zero);
	assert_int_equal(write(fd, zero, 8192), 8192);
	free(zero);
	close(fd);

	assert_int_equal(jsonl_output__open(f->path, &o), 0);
	/* ~330-byte lines: 8 KiB is not a multiple, so one line is cut mid-way */
	while (attempts < 200) {
		r = write_rec(o, attempts, 300);
		attempts++;
		if (r < 0) {
			assert_int_equal(r, -ENOSPC);
			if (first_fail < 0)
				first_fail = attempts - 1;
			else
				failures_after_first++;
			if (failures_after_first == 3)
				break;
		} else {
			assert_true(first_fail < 0); /* nothing fits once the disk is full */
		}
	}
	assert_true(first_fail > 0);
	assert_int_equal(o->written, (uint64_t)first_fail);
	assert_int_equal(o->dropped, 4);
	assert_int_equal(o->written + o->dropped, (uint64_t)attempts);
	assert_int_equal(o->last_err, -ENOSPC);

	buf = ut_read_file(f->path, &len);
	assert_non_null(buf);
	assert_int_equal(check_lines(buf, len, 0), o->written);
	free(buf);

	/* space again: writing resumes, and the file stays valid */
	assert_int_equal(unlink(filler), 0);
	assert_int_equal(write_rec(o, first_fail, 300), 0);
	assert_int_equal(write_rec(o, first_fail + 1, 300), 0);
	assert_int_equal(o->written, (uint64_t)first_fail + 2);
	assert_int_equal(output__flush(o), 0);
	output__free(o);
	buf = ut_read_file(f->path, &len);
	assert_non_null(buf);
	assert_int_equal(check_lines(buf, len, 0), (size_t)first_fail + 2);
	free(buf);
}

/* What the reporter heard. */
struct heard {
	int failing, still, recovered;
	uint64_t lost_at_recovery;
	int last_err;
	char why[sizeof(((struct pl_output *)0)->why)];
};

static void reporter(struct pl_output *o, enum pl_output_event ev, void *ctx)
{
	struct heard *h = ctx;

	switch (ev) {
	case PL_OUTPUT_FAILING:
		h->failing++;
		h->last_err = o->last_err;
		snprintf(h->why, sizeof(h->why), "%s", o->why);
		break;
	case PL_OUTPUT_STILL_FAILING:
		h->still++;
		break;
	case PL_OUTPUT_RECOVERED:
		h->recovered++;
		h->lost_at_recovery = output__lost(o);
		break;
	case PL_OUTPUT_DOWN: /* a file has no outage */
	case PL_OUTPUT_UP:
		break;
	}
}

static void test_output_failure_said_once_per_episode(void **state)
{
	struct pl_output *o = NULL;
	struct heard h = { 0 };
	int saved = output_on_stdout_as("/dev/full", &o);

	output__set_reporter(o, reporter, &h);
	assert_int_equal(h.failing, 0); /* nothing wrong yet */
	for (int i = 0; i < 590; i++)
		assert_int_equal(write_rec(o, i, 1), -ENOSPC);
	assert_int_equal(o->dropped, 590);
	assert_int_equal(h.failing, 1);
	assert_int_equal(h.last_err, -ENOSPC);
	assert_int_equal(h.still, 0); /* within the minute */
	assert_int_equal(h.recovered, 0);
	assert_int_equal(output__lost(o), 590);

	/* a reminder interval of 1 ns: every further loss is a reminder */
	o->reminder_ns = 1;
	assert_int_equal(write_rec(o, 0, 1), -ENOSPC);
	assert_int_equal(write_rec(o, 0, 1), -ENOSPC);
	assert_int_equal(h.still, 2);
	assert_int_equal(h.failing, 1);
	assert_int_equal(output__lost(o), 592);
	output__free(o);
	put_stdout_back(saved);
}

static void test_output_unusable_at_open_said_at_once(void **state)
{
	struct pl_output *o = NULL, *n = NULL;
	struct heard h = { 0 };
	int saved = output_on_stdout_as("/dev/null", &o);

	output__fail_at_open(o, -ENOTSOCK, "/dev/log is a regular file, not a socket");
	output__set_reporter(o, reporter, &h);
	assert_int_equal(h.failing, 1);
	assert_string_equal(h.why, "/dev/log is a regular file, not a socket");
	assert_int_equal(h.last_err, -ENOTSOCK);
	assert_int_equal(o->dropped, 0);
	/* a reopened output carries the episode: recovery counts from the start */
	o->dropped = 3;
	assert_int_equal(jsonl_output__open("-", &n), 0);
	output__carry(n, o);
	output__free(o);
	assert_int_equal(write_rec(n, 0, 1), 0);
	assert_int_equal(h.recovered, 1);
	assert_int_equal(h.lost_at_recovery, 3);
	assert_int_equal(n->written, 1);
	assert_int_equal(h.failing, 1);
	output__free(n);
	put_stdout_back(saved);
}

static void test_output_full_disk_reports_recovery_with_exact_loss(void **state)
{
	struct fixture *f = *state;
	struct pl_output *o = NULL;
	struct heard h = { 0 };
	char filler[128];
	int fd, n = 0; /* lines that still fit in the slack of the file's last page */
	static char block[4096];

	if (!f->mounted) {
		print_message("%s: skipping\n", f->mount_err);
		skip();
	}
	assert_int_equal(jsonl_output__open(f->path, &o), 0);
	output__set_reporter(o, reporter, &h);
	assert_int_equal(write_rec(o, 5, 300), 0);
	/* every free block to a filler; the line's page keeps some slack */
	snprintf(filler, sizeof(filler), "%s/filler", f->dir);
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	close(fd);
	/* equal-size lines: once one does not fit, none does */
	while (write_rec(o, 5, 300) == 0)
		n++;
	for (int i = 0; i < 9; i++)
		assert_int_equal(write_rec(o, 5, 300), -ENOSPC);
	assert_int_equal(o->dropped, 10);
	assert_int_equal(h.failing, 1);
	assert_int_equal(h.recovered, 0);
	assert_int_equal(unlink(filler), 0);
	assert_int_equal(write_rec(o, 5, 300), 0);
	assert_int_equal(h.recovered, 1);
	assert_int_equal(h.lost_at_recovery, 10);
	assert_int_equal(h.failing, 1);
	assert_int_equal(h.still, 0);
	assert_int_equal(o->written, (uint64_t)n + 2);
	output__free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_jsonl_writes_one_line_per_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl_appends_to_existing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl_dash_means_stdout, setup, teardown),
		cmocka_unit_test(test_jsonl_write_to_dev_full_fails_enospc_and_counts_dropped),
		cmocka_unit_test_setup_teardown(test_jsonl_refuses_a_symlink_and_leaves_its_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl_refuses_what_is_not_a_regular_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl_open_failure_returns_errno_and_leaves_ret, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl_disk_full_rolls_back_partial_line, setup_tmpfs, teardown),
		cmocka_unit_test(test_output_failure_said_once_per_episode),
		cmocka_unit_test(test_output_unusable_at_open_said_at_once),
		cmocka_unit_test_setup_teardown(test_output_full_disk_reports_recovery_with_exact_loss, setup_tmpfs,
						teardown),
	};

	return cmocka_run_group_tests_name("jsonl", tests, NULL, NULL);
}
