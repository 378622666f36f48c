// SPDX-License-Identifier: MIT
/*
 * test_rules.c - rules in the running sensor: alerts from real processes,
 * and SIGHUP reloads (good -> bad -> good) that never leave it without
 * rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (10000 * HARNESS_SLOWDOWN)

/* Alerts of rule `name` for pid in the sensor's records so far. */
static int alerts_for(struct sensor_proc *s, const char *name, pid_t pid)
{
	struct json_object *recs = records_load(s);
	int n = 0;

	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type"), *rule = rec_str(r, "rule");

		if (t && strcmp(t, "alert") == 0 && rule && strcmp(rule, name) == 0 && rec_int(r, "pid") == pid)
			n++;
	}
	json_object_put(recs);
	return n;
}

static pid_t run_exit(struct sensor_proc *s, const char *code)
{
	const char *argv[] = { PL_HELPER_BIN, "exit", code, NULL };
	char out[64];
	int st;
	pid_t pid = run_capture(argv, out, sizeof(out), &st);
	struct json_object *recs;

	/* the process record is written after the rules ran on it */
	recs = records_wait_pid(s, pid, 2, WAIT_MS);
	assert_non_null(recs);
	json_object_put(recs);
	return pid;
}

static void test_sighup_reload_good_bad_good(void **state)
{
	static const char good_a[] = "- rule: exit seven\n"
				     "  desc: the helper exited with 7\n"
				     "  condition: proc.exe_name = pl_helper and proc.exit_code = 7\n"
				     "  output: \"pl_helper exited 7 (pid %proc.pid)\"\n"
				     "  priority: NOTICE\n";
	static const char bad[] = "- rule: exit seven\n"
				  "  desc: broken\n"
				  "  condition: proc.exit_cod = 7\n"
				  "  output: x\n"
				  "  priority: NOTICE\n";
	static const char good_b[] = "- rule: exit nine\n"
				     "  desc: the helper exited with 9\n"
				     "  condition: proc.exe_name = pl_helper and proc.exit_code = 9\n"
				     "  output: \"pl_helper exited 9 (pid %proc.pid)\"\n"
				     "  priority: NOTICE\n";
	char rules[256];
	const char *extra[] = { "--process-records", "--no-syslog", "--rules", rules, NULL };
	struct sensor_proc s;
	pid_t p;
	int st;

	NEED_BPF();
	/* the rules file lives in a dir of its own, written before the sensor starts */
	snprintf(rules, sizeof(rules), "/tmp/plumbline-rules-%d.yaml", (int)getpid());
	harness_write_file(rules, good_a);
	assert_int_equal(sensor_start(&s, extra), 0);

	p = run_exit(&s, "7");
	assert_int_equal(alerts_for(&s, "exit seven", p), 1);

	harness_write_file(rules, bad);
	kill(s.pid, SIGHUP);
	usleep(500000);
	assert_true(sensor_log_has(&s, "unknown field 'proc.exit_cod'"));
	assert_true(sensor_log_has(&s, "keep running"));
	p = run_exit(&s, "7"); /* the old rules still run */
	assert_int_equal(alerts_for(&s, "exit seven", p), 1);

	harness_write_file(rules, good_b);
	kill(s.pid, SIGHUP);
	usleep(500000);
	p = run_exit(&s, "7");
	assert_int_equal(alerts_for(&s, "exit seven", p), 0);
	p = run_exit(&s, "9");
	assert_int_equal(alerts_for(&s, "exit nine", p), 1);

	st = sensor_stop(&s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	sensor_cleanup(&s);
	unlink(rules);
}

static struct sensor_proc fifo_sensor;
static char fifo_dir[64];

static int fifo_teardown(void **state)
{
	if (fifo_sensor.pid > 0 && sensor_stop_within(&fifo_sensor, SIGKILL, 5000) < 0)
		fprintf(stderr, "could not reap the sensor\n");
	if (fifo_sensor.dir[0])
		sensor_cleanup(&fifo_sensor);
	memset(&fifo_sensor, 0, sizeof(fifo_sensor));
	if (fifo_dir[0]) {
		char p[128];

		snprintf(p, sizeof(p), "%s/10-exit.yaml", fifo_dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/20-dropped.yaml", fifo_dir);
		unlink(p);
		rmdir(fifo_dir);
		fifo_dir[0] = '\0';
	}
	return 0;
}

/*
 * A FIFO dropped into a rules directory used to hang the sensor at the next
 * SIGHUP: open() waited for a writer inside the event loop, so no records,
 * no stats, and SIGTERM (read from the signalfd by that same loop) was never
 * seen. Now the reload is rejected, naming the FIFO, and the sensor goes on.
 */
static void test_sighup_with_a_fifo_in_the_rules_dir_rejects_and_keeps_running(void **state)
{
	static const char rule[] = "- rule: exit seven\n"
				   "  desc: the helper exited with 7\n"
				   "  condition: proc.exe_name = pl_helper and proc.exit_code = 7\n"
				   "  output: \"pl_helper exited 7 (pid %proc.pid)\"\n"
				   "  priority: NOTICE\n";
	const char *extra[] = { "--process-records", "--no-syslog", "--rules", fifo_dir, NULL };
	char p[128];
	pid_t pid;
	int st;

	NEED_BPF();
	snprintf(fifo_dir, sizeof(fifo_dir), "/tmp/plumbline-rules-XXXXXX");
	assert_non_null(mkdtemp(fifo_dir));
	snprintf(p, sizeof(p), "%s/10-exit.yaml", fifo_dir);
	harness_write_file(p, rule);
	assert_int_equal(sensor_start(&fifo_sensor, extra), 0);
	pid = run_exit(&fifo_sensor, "7");
	assert_int_equal(alerts_for(&fifo_sensor, "exit seven", pid), 1);

	snprintf(p, sizeof(p), "%s/20-dropped.yaml", fifo_dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	kill(fifo_sensor.pid, SIGHUP);
	assert_true(sensor_log_wait(&fifo_sensor, "20-dropped.yaml:0:0: not a regular file (a FIFO)", 5000));
	assert_true(sensor_log_wait(&fifo_sensor, "the new rules were rejected; the previous 1 rules keep running", 1000));

	/* still measuring, still alerting with the old rules */
	pid = run_exit(&fifo_sensor, "7");
	assert_int_equal(alerts_for(&fifo_sensor, "exit seven", pid), 1);

	/* and SIGTERM stops it promptly, with a clean exit */
	st = sensor_stop_within(&fifo_sensor, SIGTERM, 5000);
	assert_int_not_equal(st, -ETIMEDOUT);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Without --rules, a reload reads the shipped rules' path again: it must
 * still be there (it was a pointer into a finished stack frame; ASan saw it). */
static void test_sighup_reloads_the_default_rules(void **state)
{
	static const char *const extra[] = { "--no-syslog", NULL };
	struct sensor_proc s;
	int st;

	NEED_BPF();
	assert_int_equal(sensor_start(&s, extra), 0);
	kill(s.pid, SIGHUP);
	assert_true(sensor_log_wait(&s, "SIGHUP: ", 5000));
	assert_true(sensor_log_wait(&s, " rules loaded", 1000));
	assert_false(sensor_log_has(&s, "rejected"));
	st = sensor_stop_within(&s, SIGTERM, 10000);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	sensor_cleanup(&s);
}

static void test_default_rules_catch_a_real_retry_storm(void **state)
{
	const char *path = "/etc/plumbline-test/config.d/feature-flags.json";
	const char *argv[] = { PL_HELPER_BIN, "truth", "0", "50000", path, "0", "0", NULL };
	static const char *const extra[] = { "--process-records", "--no-syslog", NULL };
	struct json_object *recs, *alert = NULL, *ev, *fp;
	struct sensor_proc s;
	char out[256];
	int st;
	pid_t pid;

	NEED_BPF();
	assert_int_equal(sensor_start(&s, extra), 0);
	pid = run_capture(argv, out, sizeof(out), &st);
	recs = records_wait_pid(&s, pid, 2, WAIT_MS);
	assert_non_null(recs);
	json_object_put(recs);
	recs = records_load(&s);
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type"), *rule = rec_str(r, "rule");

		if (t && strcmp(t, "alert") == 0 && rec_int(r, "pid") == pid && rule &&
		    strcmp(rule, "Open retry storm in a short-lived process") == 0)
			alert = r;
	}
	assert_non_null(alert);
	assert_string_equal(rec_str(alert, "priority"), "Warning");
	assert_non_null(strstr(rec_str(alert, "output"), path));
	/* the evidence carries the failing path with its exact count */
	assert_true(json_object_object_get_ex(alert, "evidence", &ev));
	assert_true(json_object_object_get_ex(ev, "fail_paths", &fp));
	assert_string_equal(rec_str(json_object_array_get_idx(fp, 0), "path"), path);
	assert_int_equal(rec_int(json_object_array_get_idx(fp, 0), "count"), 50000);
	json_object_put(recs);
	st = sensor_stop(&s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	sensor_cleanup(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_sighup_reload_good_bad_good),
		cmocka_unit_test_teardown(test_sighup_with_a_fifo_in_the_rules_dir_rejects_and_keeps_running,
					  fifo_teardown),
		HARNESS_TEST(test_sighup_reloads_the_default_rules),
		HARNESS_TEST(test_default_rules_catch_a_real_retry_storm),
	};

	return cmocka_run_group_tests_name("bpf_rules", tests, harness_group_setup, NULL);
}
