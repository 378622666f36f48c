// SPDX-License-Identifier: MIT
/*
 * test_options.c - `plumbline run` option parsing and validation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr.h"
#include "config/options.h"

#define MAX_ARGS 32

/*
 * argv must be writable and outlive the parse (json_path points into it).
 * Every parse gets buffers of its own, never reused, so that what getopt may
 * still point to from a previous parse is not silently rewritten under it.
 */
#define MAX_PARSES 128
static char arg_buf[MAX_PARSES][MAX_ARGS][64];
static char *arg_v[MAX_PARSES][MAX_ARGS + 1];
static int nparses;

/* Parse a NULL-terminated list of arguments after "run". */
static int parse_args(struct run_opts *o, const char *const *args)
{
	char (*buf)[64];
	char **v;
	int argc = 0;

	assert_true(nparses < MAX_PARSES);
	buf = arg_buf[nparses];
	v = arg_v[nparses];
	nparses++;
	snprintf(buf[argc], sizeof(buf[argc]), "run");
	v[argc] = buf[argc];
	argc++;
	for (; *args; args++) {
		assert_true(argc < MAX_ARGS);
		assert_true(strlen(*args) < sizeof(buf[argc]));
		snprintf(buf[argc], sizeof(buf[argc]), "%s", *args);
		v[argc] = buf[argc];
		argc++;
	}
	v[argc] = NULL;
	return run_opts__parse(argc, v, o);
}

#define PARSE(o, ...) parse_args((o), (const char *const[]){ __VA_ARGS__, NULL })
#define PARSE_NONE(o) parse_args((o), (const char *const[]){ NULL })

static void test_options_defaults(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE_NONE(&o), 0);
	assert_null(o.json_path);
	assert_false(o.process_records);
	assert_false(o.window_records);
	assert_true(o.duration_s == 0.0);
	assert_int_equal(o.live, LIVE_ON); /* no JSON: the live view */
	assert_int_equal(o.live_interval_s, 2);
	assert_int_equal(o.max_procs, 32768);
	assert_int_equal(o.max_fail_paths, 16384);
	assert_int_equal(o.ringbuf_kb, 4096);
	assert_int_equal(o.refresh_hz, 10);
	assert_int_equal(o.stats_interval_s, 0);
	assert_false(o.quiet);
	assert_false(o.verbose);
}

static void test_options_process_records_implies_json_stdout_and_no_live(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--process-records"), 0);
	assert_true(o.process_records);
	assert_non_null(o.json_path);
	assert_string_equal(o.json_path, "-");
	assert_int_equal(o.live, LIVE_OFF);

	assert_int_equal(PARSE(&o, "--window-records"), 0);
	assert_true(o.window_records);
	assert_string_equal(o.json_path, "-");
	assert_int_equal(o.live, LIVE_OFF);
}

static void test_options_json_file_keeps_live_on(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--process-records", "--json", "/var/log/pl.jsonl"), 0);
	assert_string_equal(o.json_path, "/var/log/pl.jsonl");
	assert_int_equal(o.live, LIVE_ON);

	assert_int_equal(PARSE(&o, "-j", "-"), 0);
	assert_string_equal(o.json_path, "-");
	assert_int_equal(o.live, LIVE_OFF);
}

static void test_options_explicit_live_wins(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--json", "-", "--live"), 0);
	assert_int_equal(o.live, LIVE_ON);
	assert_int_equal(PARSE(&o, "--no-live"), 0);
	assert_int_equal(o.live, LIVE_OFF);
}

static void test_options_numbers_are_parsed(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--duration", "1.5", "--interval", "0.5", "--max-procs", "64", "--max-fail-paths",
			       "4194304", "--ringbuf-kb", "64", "--refresh-hz", "0", "--stats-interval", "30", "-q",
			       "-v"),
			 0);
	assert_true(o.duration_s == 1.5);
	assert_int_equal(o.live_interval_s, 1); /* below one second rounds up to 1 */
	assert_int_equal(o.max_procs, 64);
	assert_int_equal(o.max_fail_paths, 4194304);
	assert_int_equal(o.ringbuf_kb, 64);
	assert_int_equal(o.refresh_hz, 0);
	assert_int_equal(o.stats_interval_s, 30);
	assert_true(o.quiet);
	assert_true(o.verbose);

	assert_int_equal(PARSE(&o, "--ringbuf-kb=1048576"), 0);
	assert_int_equal(o.ringbuf_kb, 1048576);
}


/* The store's lifetime: defaults, days to ns, bounds. */
static void test_options_store_lifetime(void **state)
{
	struct run_opts o;

	(void)state;
	assert_int_equal(PARSE_NONE(&o), 0);
	assert_int_equal(o.policy.max_baselines, 65536);
	assert_int_equal(o.policy.max_age_ns, 180ull * 86400ull * 1000000000ull);
	assert_int_equal(o.policy.prior_max_age_ns, 30ull * 86400ull * 1000000000ull);
	assert_int_equal(PARSE(&o, "--max-baselines", "100", "--baseline-max-age", "0", "--prior-max-age", "7"), 0);
	assert_int_equal(o.policy.max_baselines, 100);
	assert_int_equal(o.policy.max_age_ns, 0);
	assert_int_equal(o.policy.prior_max_age_ns, 7ull * 86400ull * 1000000000ull);
	assert_int_equal(PARSE(&o, "--max-baselines", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, "--max-baselines", "1048577"), -EINVAL);
	assert_int_equal(PARSE(&o, "--baseline-max-age", "-1"), -EINVAL);
	assert_int_equal(PARSE(&o, "--prior-max-age", "1.5"), -EINVAL);
}

static void test_options_rejects_ringbuf_not_power_of_two(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--ringbuf-kb", "1000"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ringbuf-kb", "3072"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ringbuf-kb", "32"), -EINVAL);      /* below 64 */
	assert_int_equal(PARSE(&o, "--ringbuf-kb", "2097152"), -EINVAL); /* above 1 GiB */
}

static void test_options_rejects_bad_durations(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--duration", "-1"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", "abc"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", "5s"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", ""), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", "nan"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", "inf"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration", "2e9"), -EINVAL);
	assert_int_equal(PARSE(&o, "--interval", "abc"), -EINVAL);
	assert_int_equal(PARSE(&o, "--stats-interval", "-3"), -EINVAL);
}

static void test_options_rejects_bad_integers(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--max-procs", "63"), -EINVAL);
	assert_int_equal(PARSE(&o, "--max-procs", "-1"), -EINVAL);
	assert_int_equal(PARSE(&o, "--max-procs", "4194305"), -EINVAL);
	assert_int_equal(PARSE(&o, "--max-procs", "18446744073709551617"), -EINVAL);
	assert_int_equal(PARSE(&o, "--max-procs", "12x"), -EINVAL);
	assert_int_equal(PARSE(&o, "--refresh-hz", "1001"), -EINVAL);
}

static void test_options_rejects_unknown_option(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--bogus"), -EINVAL);
	assert_int_equal(PARSE(&o, "-x"), -EINVAL);
	assert_int_equal(PARSE(&o, "--duration"), -EINVAL); /* missing argument */
	assert_int_equal(PARSE(&o, "--quiet=1"), -EINVAL);  /* argument to a flag */
}

static void test_options_rejects_stray_argument(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "stray"), -EINVAL);
	assert_int_equal(PARSE(&o, "--quiet", "stray"), -EINVAL);
	assert_int_equal(PARSE(&o, "stray", "--quiet"), -EINVAL); /* after getopt's permutation */
}

static void test_options_syslog_target(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE_NONE(&o), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_UNIX); /* the default */
	assert_string_equal(o.syslog.path, "/dev/log");
	assert_int_equal(PARSE(&o, "--syslog", "unix:/run/x/log"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_UNIX);
	assert_string_equal(o.syslog.path, "/run/x/log");
	assert_int_equal(PARSE(&o, "--syslog", "off"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_OFF);
	/* --no-syslog is --syslog off; the last one given wins */
	assert_int_equal(PARSE(&o, "--no-syslog"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_OFF);
	assert_int_equal(PARSE(&o, "--no-syslog", "--syslog", "unix:/dev/log"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_UNIX);
	assert_int_equal(PARSE(&o, "--syslog", "tcp:logs:514"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_TCP);
	assert_string_equal(o.syslog.host, "logs");
	assert_string_equal(o.syslog.port, "514");
	assert_int_equal(PARSE(&o, "--syslog", "relp:[::1]:2514"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_RELP);
	assert_string_equal(o.syslog.host, "::1");
	/* a TLS target parses; its files are the whole configuration's check, and it needs a CA */
	assert_int_equal(PARSE(&o, "--syslog", "relp+tls:logs:2514"), 0);
	assert_int_equal(o.syslog.kind, PL_SYSLOG_RELP_TLS);
	assert_int_equal(run_opts__check_files(&o), -EINVAL);
	assert_int_equal(PARSE(&o, "--syslog", "tls:logs:6514", "--syslog-ca", "/nonexistent/ca.pem"), 0);
	assert_string_equal(o.syslog_tls.ca, "/nonexistent/ca.pem");
	assert_int_equal(run_opts__check_files(&o), -EINVAL);
	/* TLS files for a target in clear are refused; with none, nothing is read */
	assert_int_equal(PARSE(&o, "--syslog", "tcp:logs:514", "--syslog-peer", "logs"), 0);
	assert_int_equal(run_opts__check_files(&o), -EINVAL);
	assert_int_equal(PARSE(&o, "--syslog", "tcp:logs:514"), 0);
	assert_int_equal(run_opts__check_files(&o), 0);
	assert_int_equal(PARSE(&o, "--syslog", "tls+relp:logs:514"), -EINVAL);
	assert_int_equal(PARSE(&o, "--syslog", "tcp:logs:0"), -EINVAL);
	assert_int_equal(PARSE(&o, "--syslog", "unix:log"), -EINVAL);
	/* what may wait for the target */
	assert_int_equal(PARSE_NONE(&o), 0);
	assert_int_equal(o.syslog_buffer_bytes, 0); /* the backend's default */
	assert_int_equal(PARSE(&o, "--syslog-buffer", "1048576"), 0);
	assert_int_equal(o.syslog_buffer_bytes, 1048576);
	assert_int_equal(PARSE(&o, "--syslog-buffer", "100"), -EINVAL);
	assert_int_equal(PARSE(&o, "--syslog"), -EINVAL);
}

static void test_options_regex_budget(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE_NONE(&o), 0);
	assert_int_equal(o.regex_budget_ms, 50);
	assert_int_equal(PARSE(&o, "--regex-budget-ms", "200"), 0);
	assert_int_equal(o.regex_budget_ms, 200);
	assert_int_equal(PARSE(&o, "--regex-budget-ms", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, "--regex-budget-ms", "1001"), -EINVAL);
	assert_int_equal(PARSE(&o, "--regex-budget-ms", "5ms"), -EINVAL);
}

static void test_options_ocsf_output(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE_NONE(&o), 0);
	assert_null(o.ocsf_path);
	assert_int_equal(PARSE(&o, "--ocsf", "/var/log/plumbline.ocsf.jsonl"), 0);
	assert_string_equal(o.ocsf_path, "/var/log/plumbline.ocsf.jsonl");
	assert_null(o.json_path); /* findings only: no records output implied */
	assert_int_equal(o.live, LIVE_ON);
	/* findings on stdout: no live view in between */
	assert_int_equal(PARSE(&o, "--ocsf", "-"), 0);
	assert_int_equal(o.live, LIVE_OFF);
	assert_int_equal(PARSE(&o, "--ocsf", "-", "--json", "-"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ocsf", "x.jsonl", "--no-rules"), -EINVAL);
	assert_int_equal(PARSE(&o, "--ocsf", ""), -EINVAL);
}

static void test_options_help_returns_one(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "--help"), 1);
	assert_int_equal(PARSE(&o, "-h"), 1);
	assert_int_equal(PARSE(&o, "--quiet", "--help", "--bogus"), 1);
}

static void test_options_usage_mentions_every_option(void **state)
{
	static const char *const opts[] = { "--json",	  "--process-records", "--window-records", "--stats-interval",
					    "--live",	  "--no-live",	       "--interval",	   "--quiet",
					    "--verbose",  "--duration",	       "--max-procs",	   "--max-fail-paths",
					    "--ringbuf-kb", "--refresh-hz",    "--syslog",	   "--no-syslog",
					    "--regex-budget-ms", "--ocsf", "--help" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	run_opts__usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strstr(buf, opts[i]))
			fail_msg("usage does not mention %s", opts[i]);
	free(buf);
}

/* The defaults the table shows (--help, config show, the docs) are the ones
 * in use: each given as its value parses to the options of no argument. */
static void test_options_table_defaults_are_the_ones_in_use(void **state)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);
	struct run_opts none, given;

	(void)state;
	assert_int_equal(PARSE_NONE(&none), 0);
	for (size_t i = 0; i < n; i++) {
		char flag[80];
		char *argv[] = { (char *)"run", flag, (char *)t[i].def, NULL };

		if (!t[i].set || !t[i].arg || !t[i].def)
			continue;
		snprintf(flag, sizeof(flag), "--%s", t[i].name);
		/* the argument is the table's own string, so that pointers compare too */
		assert_int_equal(run_opts__parse(3, argv, &given), 0);
		if (t[i].flags & RUN_OPT_DEF_SHOWN) {
			assert_int_equal(given.syslog_buffer_bytes, PL_SYSLOG_BUFFER_BYTES);
			given.syslog_buffer_bytes = none.syslog_buffer_bytes;
		}
		if (memcmp(&none, &given, sizeof(none)) != 0)
			fail_msg("--%s %s is not what no --%s gives", t[i].name, t[i].def, t[i].name);
	}
	assert_int_equal(none.regex_budget_ms, RL_REGEX_BUDGET_NS / 1000000);
}

/* Each entry is whole: a summary for the docs, an argument with a setter,
 * help text unless listed under another, and no name twice. */
static void test_options_table_entries_are_whole(void **state)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].summary || !t[i].summary[0])
			fail_msg("--%s has no summary", t[i].name);
		if (!t[i].set && !(t[i].flags & RUN_OPT_CLI_ONLY))
			fail_msg("--%s is a config key without a setter", t[i].name);
		if (!t[i].help && strcmp(t[i].name, "no-live") != 0)
			fail_msg("--%s is not in --help", t[i].name);
		if (t[i].help && t[i].def && strstr(t[i].help, "default ") && !strstr(t[i].help, "{def}") &&
		    t[i].arg && strcmp(t[i].name, "mode") != 0)
			fail_msg("--%s writes its default in its help, not {def}", t[i].name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(t[i].name, t[j].name) == 0)
				fail_msg("--%s is in the table twice", t[i].name);
		assert_ptr_equal(run_opts__find(t[i].name), &t[i]);
	}
}

/* Each parse must start from a clean getopt state, even when the previous
 * one stopped in the middle of a cluster of short options. */
static void test_options_reparse_after_stop_mid_cluster_is_clean(void **state)
{
	struct run_opts o;

	assert_int_equal(PARSE(&o, "-hq"), 1); /* --help returns before reaching q */
	assert_int_equal(PARSE_NONE(&o), 0);
	assert_false(o.quiet); /* must not see the previous argv's "q" */

	assert_int_equal(PARSE(&o, "-xv"), -EINVAL); /* error before reaching v */
	assert_int_equal(PARSE_NONE(&o), 0);
	assert_false(o.verbose);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_defaults),
		cmocka_unit_test(test_options_process_records_implies_json_stdout_and_no_live),
		cmocka_unit_test(test_options_json_file_keeps_live_on),
		cmocka_unit_test(test_options_explicit_live_wins),
		cmocka_unit_test(test_options_numbers_are_parsed),
		cmocka_unit_test(test_options_rejects_ringbuf_not_power_of_two),
		cmocka_unit_test(test_options_rejects_bad_durations),
		cmocka_unit_test(test_options_rejects_bad_integers),
		cmocka_unit_test(test_options_rejects_unknown_option),
		cmocka_unit_test(test_options_rejects_stray_argument),
		cmocka_unit_test(test_options_syslog_target),
		cmocka_unit_test(test_options_regex_budget),
		cmocka_unit_test(test_options_ocsf_output),
		cmocka_unit_test(test_options_store_lifetime),
		cmocka_unit_test(test_options_help_returns_one),
		cmocka_unit_test(test_options_usage_mentions_every_option),
		cmocka_unit_test(test_options_table_defaults_are_the_ones_in_use),
		cmocka_unit_test(test_options_table_entries_are_whole),
		cmocka_unit_test(test_options_reparse_after_stop_mid_cluster_is_clean),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
