// SPDX-License-Identifier: MIT
/*
 * test_escape.c - output a monitored process can't forge: the real sensor
 * watching copies of the helper under hostile names (CR LF and a fake alert
 * line, ESC and OSC sequences, a quote and a backslash) with an argument
 * byte that is not UTF-8. Checks that:
 *   - process and window records carry exe, filename and cmdline escaped
 *     exactly once (text_unescape() of the JSON string gives the raw bytes);
 *   - a rule that prints %proc.exe and %proc.cmdline at exec, window and
 *     exit prints the identical string at all three;
 *   - the live view (stdout) holds no control byte and no forged line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"
#include "textsafe.h"

#define WAIT_MS (15000 * HARNESS_SLOWDOWN)
#define RULE "escape probe"

/* What a failed test must still clean up: the sensor and the helper copies. */
static struct sensor_proc sensor;
static char dir[] = "/tmp/plumbline-esc-XXXXXX";
static bool made_dir;

static const char *const names[] = {
	"x\r\nALERT Emergency forged",
	"t\x1b[2J\x1b]0;owned\x07y",
	"q\"uo\\te",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))
#define BAD_ARG "/nonexistent-plumbline/\xff"

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(close(out), 0);
}

/* A whole file, NUL-terminated (malloc'd), or NULL. */
static char *read_all(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &cap, '\0', f); /* the file holds no NUL: all of it */
	fclose(f);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*ret_len = (size_t)n;
	return buf;
}

/* The JSON string r[key], unescaped: the bytes it stands for (malloc'd). */
static char *unescaped(struct json_object *r, const char *key)
{
	const char *s = rec_str(r, key);

	if (!s)
		fail_msg("\"%s\" missing or null", key);
	return text_unescape(s, strlen(s), NULL);
}

static void assert_raw(struct json_object *r, const char *key, const char *want)
{
	char *got = unescaped(r, key);

	assert_non_null(got);
	if (strcmp(got, want) != 0)
		fail_msg("%s record: \"%s\" is \"%s\" escaped, which does not decode to the raw bytes",
			 rec_str(r, "type"), key, rec_str(r, key));
	free(got);
}

/* The alert text the rule's output must give: each value escaped once, with
 * '"' too (outputs quote values). */
static char *expected_output(const char *exe, const char *cmdline)
{
	char e[1024], c[1024], *out;

	text_escape_buf(e, sizeof(e), exe, strlen(exe), TEXT_ESC_QUOTE);
	text_escape_buf(c, sizeof(c), cmdline, strlen(cmdline), TEXT_ESC_QUOTE);
	assert_true(asprintf(&out, "exe=%s cmd=%s", e, c) > 0);
	return out;
}

/* no byte below 0x20 but newlines, no DEL, no C1 control, no U+2028/2029,
 * no bidi control */
static void assert_printable_text(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; u[i]; i++) {
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			fail_msg("control byte 0x%02x at offset %zu of the sensor's stdout", u[i], i);
		if (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			fail_msg("C1 control at offset %zu of the sensor's stdout", i);
		if (u[i] == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9 || u[i + 2] == 0xae))
			fail_msg("separator or bidi control at offset %zu of the sensor's stdout", i);
	}
}

static int teardown(void **state)
{
	char path[512];

	if (sensor.dir[0])
		sensor_cleanup(&sensor); /* stops it first if a failure left it running */
	if (made_dir) {
		for (size_t i = 0; i < NNAMES; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/rules.yaml", dir);
		unlink(path);
		rmdir(dir);
	}
	return 0;
}

static void test_hostile_names_escaped_once_everywhere(void **state)
{
	char rules[128], yaml[1024], path[NNAMES][256], cmd[NNAMES][512];
	const char *extra[] = { "--process-records", "--window-records", "--no-syslog", "--rules", rules,
				"--live", "--interval", "1", NULL };
	struct sensor_proc *s = &sensor;
	struct json_object *recs;
	pid_t pid[NNAMES];
	char *live;
	size_t len;
	int st;

	NEED_BPF();
	assert_non_null(mkdtemp(dir));
	made_dir = true;
	snprintf(rules, sizeof(rules), "%s/rules.yaml", dir);
	snprintf(yaml, sizeof(yaml),
		 "- rule: " RULE "\n"
		 "  desc: prints what a hostile process controls, at every moment\n"
		 "  condition: 'proc.exe startswith \"%s/\"'\n"
		 "  output: \"exe=%%proc.exe cmd=%%proc.cmdline\"\n"
		 "  priority: NOTICE\n"
		 "  when: [exec, window, exit]\n",
		 dir);
	harness_write_file(rules, yaml);
	for (size_t i = 0; i < NNAMES; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]);
		copy_file(PL_HELPER_BIN, path[i]);
		/* the command line the sensor reads: arguments joined by spaces */
		snprintf(cmd[i], sizeof(cmd[i]), "%s truth 0 1 " BAD_ARG " 1500 0", path[i]);
	}
	assert_int_equal(sensor_start(s, extra), 0);

	for (size_t i = 0; i < NNAMES; i++) {
		/* long enough to span a tick: a window record and a window alert */
		const char *argv[] = { path[i], "truth", "0", "1", BAD_ARG, "1500", "0", NULL };
		char out[512];

		pid[i] = run_capture(argv, out, sizeof(out), &st);
		assert_true(pid[i] > 0);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (size_t i = 0; i < NNAMES; i++) {
		/* its fork image and its exec image; alerts are written before the record */
		recs = records_wait_pid(s, pid[i], 2, WAIT_MS);
		assert_non_null(recs);
		json_object_put(recs);
	}

	recs = records_load(s);
	for (size_t i = 0; i < NNAMES; i++) {
		struct json_object *proc = records_find(recs, pid[i], "exec"), *fails;
		const char *out_at[3] = { NULL, NULL, NULL }; /* exec, window, exit */
		static const char *const moments[3] = { "exec", "window", "exit" };
		char *want = expected_output(path[i], cmd[i]);
		size_t windows = 0;

		/* the process record */
		assert_non_null(proc);
		assert_raw(proc, "exe", path[i]);
		assert_raw(proc, "filename", path[i]);
		assert_raw(proc, "cmdline", cmd[i]);
		assert_true(json_object_object_get_ex(proc, "open_fail_paths", &fails));
		assert_int_equal(json_object_array_length(fails), 1);
		assert_raw(json_object_array_get_idx(fails, 0), "path", BAD_ARG);
		/* its window records, and its alerts */
		for (size_t k = 0; k < json_object_array_length(recs); k++) {
			struct json_object *r = json_object_array_get_idx(recs, k);
			const char *t = rec_str(r, "type"), *rule = rec_str(r, "rule"), *when = rec_str(r, "when");

			if (!t || rec_int(r, "pid") != pid[i])
				continue;
			if (strcmp(t, "window") == 0 && rec_str(r, "image") && strcmp(rec_str(r, "image"), "exec") == 0) {
				assert_raw(r, "exe", path[i]);
				assert_raw(r, "filename", path[i]);
				assert_raw(r, "cmdline", cmd[i]);
				windows++;
			}
			if (strcmp(t, "alert") != 0 || !rule || strcmp(rule, RULE) != 0 || !when)
				continue;
			for (int m = 0; m < 3; m++) {
				if (strcmp(when, moments[m]) != 0)
					continue;
				if (strcmp(rec_str(r, "output"), want) != 0)
					fail_msg("alert at %s:\n got  %s\n want %s", when, rec_str(r, "output"), want);
				if (out_at[m] && strcmp(out_at[m], rec_str(r, "output")) != 0)
					fail_msg("two alerts at %s differ", when);
				out_at[m] = rec_str(r, "output");
			}
		}
		assert_true(windows >= 1);
		for (int m = 0; m < 3; m++)
			if (!out_at[m])
				fail_msg("no alert at %s for %s", moments[m], rec_str(proc, "exe"));
		/* the identical string at exec, window and exit */
		assert_string_equal(out_at[0], out_at[1]);
		assert_string_equal(out_at[1], out_at[2]);
		free(want);
	}
	json_object_put(recs);

	/* at least one live table after the last run, then stop: stdout is complete */
	usleep(2200000);
	st = sensor_stop(s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	live = read_all(s->out, &len);
	assert_non_null(live);
	assert_printable_text(live);
	for (const char *l = live; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, "ALERT Emergency", 15) == 0)
			fail_msg("a forged line in the live view: %.60s", l);
	/* the hostile binaries were shown, escaped, as one row each */
	assert_non_null(strstr(live, "\\x0D\\x0AALERT Emergency forged "));
	assert_non_null(strstr(live, "\\x1B[2J\\x1B]0;owned\\x07y "));
	/* and their alerts are lines too, with the same escaping as the records */
	assert_non_null(strstr(live, "ALERT Notice " RULE ": exe="));
	free(live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hostile_names_escaped_once_everywhere, teardown),
	};

	return cmocka_run_group_tests_name("bpf_escape", tests, harness_group_setup, NULL);
}
