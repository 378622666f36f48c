// SPDX-License-Identifier: MIT
/*
 * test_audit.c - the audit log of the real sensor: an alert from a real
 * process, a SIGHUP reload and a stop land in it as one intact chain that
 * `plumbline audit verify` accepts; a restart continues the chain; and each
 * kind of tampering with the file is caught at its exact line, truncation
 * only against the heads the sensor sent (to its JSON output here).
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
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (10000 * HARNESS_SLOWDOWN)
#define MAXL	64

/* Lines of a file, each malloc'd without its '\n'. */
static size_t read_lines(const char *path, char **lines)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ssize_t len;

	assert_non_null(f);
	while (n < MAXL && (len = getline(&buf, &cap, f)) > 0) {
		if (buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		lines[n++] = strdup(buf);
	}
	free(buf);
	fclose(f);
	return n;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
}

/* Write lines[order[i]] for each i (order ends at -1); last_nl: end with '\n'. */
static void write_order(const char *path, char **lines, const int *order, bool last_nl)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	for (int i = 0; order[i] >= 0; i++)
		fprintf(f, "%s%s", lines[order[i]], order[i + 1] >= 0 || last_nl ? "\n" : "");
	fclose(f);
}

/* `plumbline audit verify path [--heads heads]`: its exit code; its stdout in out. */
static int verify(const char *path, const char *heads, char *out, size_t size)
{
	const char *argv[] = {PL_SENSOR_BIN, "audit", "verify", path, heads ? "--heads" : NULL, heads, NULL};
	int st;

	assert_true(run_capture(argv, out, size, &st) > 0);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void expect_bad(const char *path, const char *heads, const char *what)
{
	char out[4096];

	assert_int_equal(verify(path, heads, out, sizeof(out)), 1);
	if (!strstr(out, what))
		fail_msg("want '%s' in: %s", what, out);
}

static const char *event_of(const char *line, char *buf, size_t size)
{
	struct json_object *o = json_tokener_parse(line), *v;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "event", &v));
	snprintf(buf, size, "%s", json_object_get_string(v));
	json_object_put(o);
	return buf;
}

static long long seq_of(const char *line)
{
	struct json_object *o = json_tokener_parse(line), *v;
	long long seq;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "seq", &v));
	seq = json_object_get_int64(v);
	json_object_put(o);
	return seq;
}

static void test_audit_log_of_a_real_run_verifies_and_catches_tampering(void **state)
{
	static const char rule[] = "- rule: exit seven\n"
				   "  desc: the helper exited with 7\n"
				   "  condition: proc.exe_name = pl_helper and proc.exit_code = 7\n"
				   "  output: \"pl_helper exited 7 (pid %proc.pid)\"\n"
				   "  priority: NOTICE\n";
	char rules[128], audit[128], bad[128], out[4096], ev[64], *lines[MAXL], *l2[MAXL];
	const char *extra[] = {"--process-records",	"--no-syslog", "--rules", rules, "--audit-log", audit,
			       "--audit-head-interval", "1",	       NULL};
	const char *helper[] = {PL_HELPER_BIN, "exit", "7", NULL};
	struct sensor_proc s;
	size_t n, n2, alert = 0, reload = 0;
	pid_t pid;
	int st;

	NEED_BPF();
	snprintf(rules, sizeof(rules), "/tmp/plumbline-audit-rules-%d.yaml", (int)getpid());
	snprintf(audit, sizeof(audit), "/tmp/plumbline-audit-%d.jsonl", (int)getpid());
	snprintf(bad, sizeof(bad), "/tmp/plumbline-audit-bad-%d.jsonl", (int)getpid());
	unlink(audit);
	harness_write_file(rules, rule);
	assert_int_equal(sensor_start(&s, extra), 0);

	pid = run_capture(helper, out, sizeof(out), &st);
	json_object_put(records_wait_pid(&s, pid, 2, WAIT_MS));
	kill(s.pid, SIGHUP);
	assert_true(sensor_log_wait(&s, "SIGHUP: 1 rules loaded", 5000));
	usleep(1500000); /* a head interval: a head goes to the JSON output */
	st = sensor_stop(&s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* start, the alert, the reload, stop: one chain, in that order */
	n = read_lines(audit, lines);
	assert_true(n >= 4);
	assert_string_equal(event_of(lines[0], ev, sizeof(ev)), "start");
	assert_string_equal(event_of(lines[n - 1], ev, sizeof(ev)), "stop");
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(seq_of(lines[i]), (long long)i + 1);
		/* the sensor's own loss alert (a loaded machine) is not the helper's */
		if (strcmp(event_of(lines[i], ev, sizeof(ev)), "alert") == 0 && !strstr(lines[i], "\"when\":\"sensor\"")) {
			assert_non_null(strstr(lines[i], "\"rule\":\"exit seven\""));
			alert = i;
		}
		if (strcmp(ev, "rules") == 0)
			reload = i;
	}
	assert_true(alert > 0 && reload > alert);
	assert_non_null(strstr(lines[0], "\"ruleset\":{\"rules\":1,\"files\":1,\"sha256\":\""));
	assert_non_null(strstr(lines[reload], "\"result\":\"loaded\""));
	assert_int_equal(verify(audit, NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "intact"));
	assert_int_equal(verify(audit, s.json, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "heads: "));

	/* tampering, each caught at its line (line numbers are 1-based) */
	{
		char want[64];

		FILE *f = fopen(bad, "we"); /* one byte of the alert's line: "exit Seven" */

		assert_non_null(f);
		for (size_t i = 0; i < n; i++) {
			char *e = strdup(lines[i]);

			if (i == alert)
				strstr(e, "exit seven")[5] = 'S';
			fprintf(f, "%s\n", e);
			free(e);
		}
		fclose(f);
		snprintf(want, sizeof(want), "line %zu: modified", alert + 1);
		expect_bad(bad, NULL, want);
	}
	{
		int order[MAXL + 1], k = 0;
		char want[64];

		for (size_t i = 0; i < n; i++) /* delete the alert's line */
			if (i != alert)
				order[k++] = (int)i;
		order[k] = -1;
		write_order(bad, lines, order, true);
		snprintf(want, sizeof(want), "line %zu: removed", alert + 1);
		expect_bad(bad, NULL, want);

		k = 0; /* insert a copy of the start line after the alert */
		for (size_t i = 0; i < n; i++) {
			order[k++] = (int)i;
			if (i == alert)
				order[k++] = 0;
		}
		order[k] = -1;
		write_order(bad, lines, order, true);
		snprintf(want, sizeof(want), "line %zu: inserted", alert + 2);
		expect_bad(bad, NULL, want);

		for (size_t i = 0; i < n; i++) /* swap the alert with the line after it */
			order[i] = (int)i;
		order[alert] = (int)alert + 1;
		order[alert + 1] = (int)alert;
		order[n] = -1;
		write_order(bad, lines, order, true);
		snprintf(want, sizeof(want), "line %zu: reordered", alert + 1);
		expect_bad(bad, NULL, want);

		for (size_t i = 0; i < n; i++) /* the last 2 lines cut off */
			order[i] = (int)i;
		order[n - 2] = -1;
		write_order(bad, lines, order, true);
		assert_int_equal(verify(bad, NULL, out, sizeof(out)), 0); /* the chain alone cannot see it */
		snprintf(want, sizeof(want), "line %zu: truncated", n - 1);
		expect_bad(bad, s.json, want); /* the heads can */

		for (size_t i = 0; i < n; i++) /* the last line torn mid-write */
			order[i] = (int)i;
		order[n] = -1;
		lines[n - 1][100] = '\0';
		write_order(bad, lines, order, false);
		snprintf(want, sizeof(want), "line %zu: torn", n);
		expect_bad(bad, NULL, want);
	}

	/* a restart on the same file: the chain goes on from where it stopped */
	assert_int_equal(sensor_restart(&s, extra), 0);
	st = sensor_stop(&s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	n2 = read_lines(audit, l2);
	assert_true(n2 >= n + 2);
	assert_int_equal(seq_of(l2[n]), (long long)n + 1);
	assert_string_equal(event_of(l2[n], ev, sizeof(ev)), "start");
	assert_int_equal(verify(audit, s.json, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "intact"));

	free_lines(lines, n);
	free_lines(l2, n2);
	sensor_cleanup(&s);
	unlink(rules);
	unlink(audit);
	unlink(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    HARNESS_TEST(test_audit_log_of_a_real_run_verifies_and_catches_tampering),
	};

	return cmocka_run_group_tests(tests, harness_group_setup, NULL);
}
