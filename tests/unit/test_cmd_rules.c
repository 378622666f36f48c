// SPDX-License-Identifier: MIT
/*
 * test_cmd_rules.c - `plumbline rules list` and `plumbline replay` with
 * hostile text: rule-file text (a line separator, a bidi control, a C1
 * control in a rule name) and record strings that a process controls (CR,
 * LF, ESC in its exe), escaped once in the records. The listing and the
 * alert lines must be printable, one line per line meant, and a rule must
 * see (and print) the same string at exec and at exit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli/cmd_rules.h"
#include "unit_helpers.h"

/* YAML escapes: \L is U+2028, \N is U+0085 (C1), \u202e a bidi override */
static const char rules_yaml[] = "- rule: \"hostile\\Lname \\u202e\\N\"\n"
				 "  desc: d\n"
				 "  condition: proc.exe startswith /tmp/\n"
				 "  output: \"exe=%proc.exe cmd=%proc.cmdline\"\n"
				 "  priority: NOTICE\n"
				 "  when: [exec, exit]\n";
/* the rule name as every output prints it */
#define NAME_ESCAPED "hostile\\xE2\\x80\\xA8name \\xE2\\x80\\xAE\\xC2\\x85"

/* A process record as the sensor writes it: strings escaped once. */
static const char record[] =
	"{\"type\":\"process\",\"pid\":77,\"ppid\":1,\"comm\":\"x\",\"image\":\"exec\",\"partial\":false,"
	"\"exe\":\"/tmp/x\\\\x0D\\\\x0AALERT Emergency forged\\\\x1B[2J\\\\x1B]0;t\\\\x07q\\\"uo\\\\x5Cte\","
	"\"cmdline\":\"/tmp/x --arg \\\\xFF\",\"end_reason\":\"exit\",\"exit_code\":0,\"end_ns\":1000,"
	"\"duration_ns\":10}\n";
#define EXE_ESCAPED "/tmp/x\\x0D\\x0AALERT Emergency forged\\x1B[2J\\x1B]0;t\\x07q\\x22uo\\x5Cte"

struct fixture {
	char dir[64];
	char rules[96];
	char records[96];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/plumbline-cmdrules-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->rules, sizeof(f->rules), "%s/rules.yaml", f->dir);
	snprintf(f->records, sizeof(f->records), "%s/records.jsonl", f->dir);
	write_file(f->rules, rules_yaml);
	write_file(f->records, record);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

/* fn(argc, argv) with stdout captured (malloc'd); *ret gets its return. */
static char *capture(int (*fn)(int, char **), char **argv, int *ret)
{
	char path[] = "/tmp/plumbline-cmdout-XXXXXX", *out;
	int fd = mkstemp(path), saved, argc = 0;
	size_t len = 0;

	while (argv[argc])
		argc++;
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0 && dup2(fd, STDOUT_FILENO) >= 0);
	*ret = fn(argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	close(fd);
	out = ut_read_file(path, &len);
	assert_non_null(out);
	unlink(path);
	return out;
}

/* no byte below 0x20 but the lines' newlines, no DEL, no C1, no U+2028/9,
 * no bidi control */
static void assert_printable(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; u[i]; i++) {
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			fail_msg("control byte 0x%02x at %zu of:\n%s", u[i], i, s);
		if (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			fail_msg("C1 control at %zu", i);
		if (u[i] == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9 || u[i + 2] == 0xae))
			fail_msg("line separator or bidi control at %zu", i);
	}
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_rules_list_escapes_rule_names(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { "rules", "list", f->rules, NULL }, *jargv[] = { "rules", "list", f->rules, "--json", NULL };
	char *out;
	int r;

	out = capture(cmd_rules, argv, &r);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, " " NAME_ESCAPED "\n"));
	free(out);
	out = capture(cmd_rules, jargv, &r);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_non_null(strstr(out, "\"name\":\"hostile\\\\xE2\\\\x80\\\\xA8name \\\\xE2\\\\x80\\\\xAE\\\\xC2\\\\x85\""));
	free(out);
}

/* replay evaluates the record as its exec, then its exit: two alerts whose
 * lines are printable, identical but for their ids, carry the exe escaped
 * once, and end in the alert's id, this host's name and the user (the
 * record's uid, 0: root, as getpwuid() names it). */
static void test_replay_alert_lines_are_printable_and_the_same_at_exec_and_exit(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { "replay", f->records, "--rules", f->rules, NULL };
	const char *want = "ALERT Notice " NAME_ESCAPED ": exe=" EXE_ESCAPED " cmd=/tmp/x --arg \\xFF (id ";
	char host[256] = "", tail[512];
	struct passwd *pw = getpwuid(0);
	char *out, *line2;
	size_t len1;
	int r;

	assert_non_null(pw);
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	snprintf(tail, sizeof(tail), ", host %s, user %s uid 0)\n", host, pw->pw_name);
	out = capture(cmd_replay, argv, &r);
	assert_int_equal(r, 0);
	assert_printable(out);
	assert_int_equal(count_lines(out), 2);
	line2 = strchr(out, '\n') + 1;
	len1 = (size_t)(line2 - out);
	/* "<16 hex>-<16 hex>": 33 characters of id between the two */
	assert_int_equal(len1, strlen(want) + 33 + strlen(tail));
	assert_int_equal(strlen(line2), len1);
	assert_memory_equal(out, want, strlen(want));
	assert_memory_equal(line2, want, strlen(want));
	assert_memory_equal(out + len1 - strlen(tail), tail, strlen(tail));
	assert_memory_equal(line2 + len1 - strlen(tail), tail, strlen(tail));
	free(out);
}

/* A file of what replay writes (alerts, stats, OCSF findings) holds nothing
 * the rules judge: replay says so, names what it held and what it needs, and
 * fails; beside samples, such records are named and skipped. */
static void test_replay_says_why_it_found_nothing(void **state)
{
	struct fixture *f = *state;
	char path[128], epath[] = "/tmp/plumbline-cmderr-XXXXXX", *err, *out;
	char *argv[] = { "replay", path, "--rules", f->rules, NULL };
	int efd = mkstemp(epath), saved, r;

	assert_true(efd >= 0);
	snprintf(path, sizeof(path), "%s/alerts.jsonl", f->dir);
	write_file(path, "{\"type\":\"alert\",\"rule\":\"x\"}\n{\"type\":\"stats\"}\n{\"type\":\"alert\"}\n"
			 "{\"class_uid\":2004,\"finding_info\":{}}\n");
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0 && dup2(efd, STDERR_FILENO) >= 0);
	out = capture(cmd_replay, argv, &r);
	free(out);
	/* and a file with samples too: they are judged, the rest named */
	{
		char *text = ut_read_file(f->records, NULL);
		FILE *w;

		assert_non_null(text);
		w = fopen(path, "ae");
		assert_non_null(w);
		fputs(text, w);
		fclose(w);
		free(text);
	}
	{
		int r2;

		out = capture(cmd_replay, argv, &r2);
		assert_int_equal(r2, 0);
		assert_int_equal(count_lines(out), 2); /* the record's two alerts */
		free(out);
	}
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(efd);
	assert_int_equal(r, -ENODATA);
	err = ut_read_file(epath, NULL);
	assert_non_null(err);
	assert_non_null(strstr(err, "alerts.jsonl holds no record the rules judge (2 alert, 1 stats, 1 OCSF finding): "
				    "they judge the samples `plumbline run --json FILE` writes with --process-records"));
	assert_non_null(strstr(err, "replay: 4 records not judged, as they are no samples: 2 alert, 1 stats, 1 OCSF finding"));
	free(err);
	unlink(epath);
	unlink(path);
}

/* In JSON, the alert's strings are escaped like the record's: output_fields
 * holds the record's exe exactly as the record has it. */
static void test_replay_json_alert_fields_match_the_record(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { "replay", f->records, "--rules", f->rules, "--json", NULL };
	struct json_object *rec = json_tokener_parse(record), *a, *v, *fields;
	char *out, *line;
	int r, n = 0;

	assert_non_null(rec);
	out = capture(cmd_replay, argv, &r);
	assert_int_equal(r, 0);
	for (line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		a = json_tokener_parse(line);
		assert_non_null(a);
		n++;
		assert_true(json_object_object_get_ex(a, "rule", &v));
		assert_string_equal(json_object_get_string(v), NAME_ESCAPED);
		assert_true(json_object_object_get_ex(a, "output_fields", &fields));
		assert_true(json_object_object_get_ex(fields, "proc.exe", &v));
		assert_string_equal(json_object_get_string(v), "/tmp/x\\x0D\\x0AALERT Emergency forged\\x1B[2J\\x1B]0;t\\x07q\"uo\\x5Cte");
		assert_true(json_object_object_get_ex(fields, "proc.cmdline", &v));
		assert_string_equal(json_object_get_string(v), "/tmp/x --arg \\xFF");
		json_object_put(a);
	}
	assert_int_equal(n, 2);
	json_object_put(rec);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rules_list_escapes_rule_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_alert_lines_are_printable_and_the_same_at_exec_and_exit,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_json_alert_fields_match_the_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_says_why_it_found_nothing, setup, teardown),
	};

	return cmocka_run_group_tests_name("cmd_rules", tests, NULL, NULL);
}
