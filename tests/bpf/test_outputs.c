// SPDX-License-Identifier: MIT
/*
 * test_outputs.c - the real sensor's outputs when delivery fails: a JSON
 * file on a full filesystem. The sensor must say it once, count every lost
 * record, and say when writing works again with how many were lost.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sensor_harness.h"

static bool have_bpf;

/* What a test started, for teardown to stop and remove even after a failed
 * assertion (a sensor left running would hold ctest's output pipe open). */
static struct sensor_proc sensor;
static char tmpfs_dir[64];

static int teardown(void **state)
{
	if (sensor.pid > 0 || sensor.dir[0])
		sensor_cleanup(&sensor);
	memset(&sensor, 0, sizeof(sensor));
	if (tmpfs_dir[0]) {
		umount2(tmpfs_dir, MNT_DETACH);
		rmdir(tmpfs_dir);
		tmpfs_dir[0] = '\0';
	}
	return 0;
}

static int group_setup(void **state)
{
	char why[128];

	have_bpf = harness_bpf_available(why, sizeof(why));
	if (!have_bpf) {
		fprintf(stderr, "BPF unavailable: %s\n", why);
		return harness_require_bpf() ? -1 : 0;
	}
	/* a private mount namespace: the test's tmpfs never shows on the host,
	 * and the sensor (our child) sees it */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "cannot make a private mount namespace: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

/* Lines of the file at path containing what (0 when unreadable). */
static int count_lines(const char *path, const char *what)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen(path, "re");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* The first line of path containing what, into line; false if none. */
static bool find_line(const char *path, const char *what, char *line, size_t size)
{
	bool found = false;
	FILE *f = fopen(path, "re");

	while (f && !found && fgets(line, (int)size, f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

static bool wait_line(const char *path, const char *what, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	while (count_lines(path, what) == 0) {
		if (now_ms() > deadline)
			return false;
		usleep(50000);
	}
	return true;
}

/* Records of type `type` in a JSON Lines file; the last one into *last (a new reference). */
static int count_records(const char *path, const char *type, struct json_object **last)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f = fopen(path, "re");

	if (last)
		*last = NULL;
	while (f && getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line);
		const char *t = rec_str(o, "type");

		if (t && strcmp(t, type) == 0) {
			n++;
			if (last) {
				json_object_put(*last);
				*last = json_object_get(o);
			}
		}
		json_object_put(o);
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

/* Take every free block of the filesystem: a file written until ENOSPC. */
static void fill(const char *path)
{
	static char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	while (write(fd, block, 1) == 1)
		;
	close(fd);
}

static void test_json_on_full_disk_says_once_and_counts_the_loss(void **state)
{
	char *dir = tmpfs_dir, json[128], filler[128], line[4096], want[128];
	const char *extra[] = { "--json", json, "--stats-interval", "1", "--no-rules", "--no-baselines", NULL };
	struct json_object *stats = NULL, *out;
	struct sensor_proc *s = &sensor;
	long long dropped;
	long long deadline;
	int st;

	if (!have_bpf)
		skip();
	snprintf(dir, sizeof(tmpfs_dir), "/tmp/pl-bpf-full-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700"), 0);
	snprintf(json, sizeof(json), "%s/records.jsonl", dir);
	snprintf(filler, sizeof(filler), "%s/filler", dir);

	/* only stats records, one a second: each is at least as long as the one
	 * before (its counters only grow), so once one does not fit, none does
	 * until space is freed, whatever a page's slack */
	assert_int_equal(sensor_start(s, extra), 0);
	deadline = now_ms() + 10000;
	while (count_records(json, "stats", NULL) < 2 && now_ms() < deadline)
		usleep(100000);
	assert_true(count_records(json, "stats", NULL) >= 2);

	fill(filler);
	assert_true(wait_line(s->log, "Cannot write records", 5000));
	sleep(3); /* a few more records lost, and nothing more said */
	assert_int_equal(unlink(filler), 0);
	assert_true(wait_line(s->log, "works again:", 5000));
	sleep(1);
	st = sensor_stop(s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* the shutdown stats record counts exactly what was lost */
	count_records(json, "stats", &stats);
	assert_non_null(stats);
	assert_true(json_object_object_get_ex(stats, "output", &out));
	dropped = rec_int(out, "dropped");
	assert_true(dropped >= 3);
	/* one warning, one recovery line, with that number */
	assert_int_equal(count_lines(s->log, "Cannot write records"), 1);
	assert_int_equal(count_lines(s->log, "works again:"), 1);
	assert_int_equal(count_lines(s->log, "Still cannot write"), 0); /* less than a minute */
	assert_true(find_line(s->log, "works again:", line, sizeof(line)));
	snprintf(want, sizeof(want), ": %lld records lost", dropped);
	if (!strstr(line, want))
		fail_msg("recovery line without '%s': %s", want, line);
	assert_non_null(find_line(s->log, "No space left on device", line, sizeof(line)) ? line : NULL);
	json_object_put(stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_json_on_full_disk_says_once_and_counts_the_loss, teardown),
	};

	return cmocka_run_group_tests_name("bpf_outputs", tests, group_setup, NULL);
}
