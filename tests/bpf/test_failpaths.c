// SPDX-License-Identifier: MIT
/*
 * test_failpaths.c - the failed-open path table cannot be filled: not by
 * the sensor's own work, not by a long-lived image failing many paths.
 *
 * Each test starts its own sensor with a small table (--max-fail-paths) so
 * that what would fill the default table in minutes fills this one in a
 * second, and then checks, against the counts pl_helper is known to make,
 * that a process failing a known path still has that path in its record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (10000 * HARNESS_SLOWDOWN)

/* Each test's own sensor, stopped by the teardown even when the test fails. */
static struct sensor_proc sensor;

static void start(struct sensor_proc *s, const char *const *extra)
{
	if (sensor_start(s, extra) < 0)
		fail_msg("cannot start the sensor (log: %s)", s->log);
}

static void stop(struct sensor_proc *s)
{
	int st = sensor_stop(s);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("sensor exit status %d (log: %s)", st, s->log);
}

static int setup(void **state)
{
	memset(&sensor, 0, sizeof(sensor));
	*state = &sensor;
	return 0;
}

static int teardown(void **state)
{
	if (sensor.dir[0])
		sensor_cleanup(&sensor);
	return 0;
}

/* Start argv without waiting for it. */
static pid_t spawn(const char *const *argv)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	return pid;
}

/* The record of pid's exec'd image, once written. */
static struct json_object *exec_record(struct sensor_proc *s, pid_t pid, struct json_object **ret_recs)
{
	struct json_object *recs = records_wait_pid(s, pid, 2, WAIT_MS), *r;

	if (!recs)
		fail_msg("no records for pid %d (log: %s)", (int)pid, s->log);
	r = records_find(recs, pid, "exec");
	assert_non_null(r);
	*ret_recs = recs;
	return r;
}

/* The count of `path` in a record's open_fail_paths, or -1 when not listed. */
static long long path_count(struct json_object *rec, const char *path)
{
	struct json_object *paths;

	if (!json_object_object_get_ex(rec, "open_fail_paths", &paths))
		return -1;
	for (size_t i = 0; i < json_object_array_length(paths); i++) {
		struct json_object *p = json_object_array_get_idx(paths, i);
		const char *got = rec_str(p, "path");

		if (got && strcmp(got, path) == 0)
			return rec_int(p, "count");
	}
	return -1;
}

/* A process failing `times` opens of `path` has it in its record, exactly. */
static void assert_probe_recorded(struct sensor_proc *s, const char *path, int times)
{
	char n[16], out[256];
	const char *argv[] = { PL_HELPER_BIN, "truth", "0", n, path, "0", "0", NULL };
	struct json_object *recs, *r;
	int st;
	pid_t pid;

	snprintf(n, sizeof(n), "%d", times);
	pid = run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	r = exec_record(s, pid, &recs);
	assert_int_equal(rec_int(r, "open_failures"), times);
	if (path_count(r, path) != times)
		fail_msg("%s: %lld failures listed, want %d (unrecorded %lld; log %s)", path, path_count(r, path), times,
			 rec_int(r, "open_fail_unrecorded"), s->log);
	assert_int_equal(rec_int(r, "open_fail_unrecorded"), 0);
	json_object_put(recs);
}

static long long stat_of(struct sensor_proc *s, const char *object, const char *key)
{
	struct json_object *recs = records_load(s), *st = records_last_stats(recs), *o;
	long long v = -1;

	if (st && json_object_object_get_ex(st, object, &o))
		v = rec_int(o, key);
	json_object_put(recs);
	return v;
}

/*
 * The sensor reads /proc/PID/exe and /proc/PID/cmdline of each new process;
 * for a short-lived one they are gone by then, and each miss is a failed
 * open of a path of its own. Those misses must not end up in the table.
 */
static void test_a_flood_of_short_lived_processes_cannot_blind_failed_open_tracking(void **state)
{
	static const char *const extra[] = { "--process-records", "--max-fail-paths", "1024", "--no-rules", "-q",
					     NULL };
	const char *argv[] = { PL_HELPER_BIN, "exit", "0", NULL };
	struct sensor_proc *s = *state;
	struct json_object *recs, *self;
	pid_t sensor_pid;

	NEED_BPF();
	start(s, extra);
	sensor_pid = s->pid;
	for (int i = 0; i < 2000; i++) {
		int st;

		waitpid(spawn(argv), &st, 0);
	}
	assert_probe_recorded(s, "/nonexistent/pl-after-the-flood", 5);
	stop(s);

	/* the sensor's own misses: counted, never in the table */
	recs = records_load(s);
	self = records_find(recs, sensor_pid, "exec");
	if (!self)
		self = records_find(recs, sensor_pid, "preexisting");
	assert_non_null(self);
	assert_string_equal(rec_str(self, "end_reason"), "running");
	assert_true(rec_int(self, "open_failures") > 0);
	assert_int_equal(rec_int(self, "open_fail_unrecorded"), rec_int(self, "open_failures"));
	assert_int_equal(json_object_array_length(json_object_object_get(self, "open_fail_paths")), 0);
	json_object_put(recs);
}

/*
 * One process fails 3000 distinct paths and stays alive: it may hold its
 * share of the table, not the table. Its failures stay counted exactly.
 */
static void test_one_image_cannot_fill_the_failed_path_table(void **state)
{
	static const char *const extra[] = { "--process-records", "--max-fail-paths", "1024", "--no-rules",
					     "--stats-interval", "1", "-q", NULL };
	const char *hog_argv[] = { PL_HELPER_BIN, "failmany", "3000", "/nonexistent/pl-hog", "3000", NULL };
	struct json_object *recs, *hog, *paths;
	struct sensor_proc *s = *state;
	pid_t pid;
	int st;

	NEED_BPF();
	start(s, extra);
	pid = spawn(hog_argv);
	usleep(1500000); /* its failures are done; it sleeps */
	assert_probe_recorded(s, "/nonexistent/pl-beside-the-hog", 3);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	hog = exec_record(s, pid, &recs);
	assert_int_equal(rec_int(hog, "open_failures"), 3000);
	assert_true(json_object_object_get_ex(hog, "open_fail_paths", &paths));
	assert_true(json_object_array_length(paths) <= 256);
	assert_true(json_object_get_boolean(json_object_object_get(hog, "open_fail_paths_incomplete")));
	json_object_put(recs);
	usleep(1200000);
	assert_true(stat_of(s, "kernel_drops", "fail_path_image_cap") > 0);
	stop(s);
}

/*
 * A live process's key that stays idle is moved out of the table and its
 * count kept by user space; when the same thread fails the same path again
 * (its repeats are counted in the thread first), the key comes back, and
 * the record's count is the exact sum.
 */
static void test_idle_keys_leave_the_table_and_counts_stay_exact(void **state)
{
	static const char *const extra[] = { "--process-records", "--fail-sweep", "1", "--no-rules",
					     "--stats-interval", "1", "-q", NULL };
	const char *argv[] = { PL_HELPER_BIN, "failpause", "10", "/nonexistent/pl-idle", "3500", "7", NULL };
	struct json_object *recs, *r;
	struct sensor_proc *s = *state;
	char out[256];
	pid_t pid;
	int st;

	NEED_BPF();
	start(s, extra);
	pid = run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	r = exec_record(s, pid, &recs);
	assert_int_equal(rec_int(r, "open_failures"), 17);
	assert_int_equal(path_count(r, "/nonexistent/pl-idle"), 17);
	assert_int_equal(rec_int(r, "open_fail_unrecorded"), 0);
	json_object_put(recs);
	usleep(1200000);
	assert_true(stat_of(s, "fail_paths", "idle_moved") >= 1);
	stop(s);
}

/*
 * 16 long-lived processes each fail 300 paths of their own (a burst of 256
 * keys each: four times the table) and stay alive: between two sweeps the
 * table would stay full, and a storm starting then went unnamed for
 * seconds. A second after them a new process's failed path is in the table,
 * exactly, and the stats say keys were trimmed.
 */
#define HOGS 16

static void test_many_long_lived_images_cannot_fill_the_table_between_sweeps(void **state)
{
	static const char *const extra[] = { "--process-records", "--max-fail-paths", "1024", "--no-rules",
					     "--stats-interval", "1", "-q", NULL };
	struct sensor_proc *s = *state;
	char prefix[HOGS][64];
	pid_t pids[HOGS];
	int st;

	NEED_BPF();
	start(s, extra);
	for (int i = 0; i < HOGS; i++) {
		const char *argv[] = { PL_HELPER_BIN, "failmany", "300", prefix[i], "8000", NULL };

		snprintf(prefix[i], sizeof(prefix[i]), "/nonexistent/pl-longhog%d", i);
		pids[i] = spawn(argv);
	}
	usleep(1000000); /* their failures are done; they sleep, keys in the table */
	assert_probe_recorded(s, "/nonexistent/pl-storm-beside-the-hogs", 3);
	usleep(1200000);
	assert_true(stat_of(s, "fail_paths", "trimmed") > 0);
	for (int i = 0; i < HOGS; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &st, 0);
	}
	stop(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_flood_of_short_lived_processes_cannot_blind_failed_open_tracking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_image_cannot_fill_the_failed_path_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_keys_leave_the_table_and_counts_stay_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_long_lived_images_cannot_fill_the_table_between_sweeps, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, harness_group_setup, NULL);
}
