// SPDX-License-Identifier: MIT
/*
 * test_template.c - output templates: %field and %{field} substitution by
 * longest known name, %%, [NAME] parameters, compile errors with offsets,
 * and rendering through the one escaping (values and literal text; '"' in
 * values), <NA> for absent values, numbers without
 * exponents or noise decimals, and snprintf-like truncation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "expr.h"
#include "fields.h"
#include "syscalls.h"
#include "textsafe.h"

static struct pl_sample ev;

static int setup(void **state)
{
	(void)state;
	pl_sample__init(&ev, PL_AT_EXIT);
	ev.comm = "sshd";
	ev.pid = 4242;
	return 0;
}

/* Compile and render src; the result in a static buffer. */
static const char *render(const char *src)
{
	static char buf[1024];
	struct rl_template *t = NULL;
	struct rl_error err;
	size_t n;

	if (rl_template__compile(src, &t, &err) != 0)
		fail_msg("'%s' failed at %zu: %s", src, err.offset, err.msg);
	n = rl_template__render(t, &ev, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	rl_template__free(t);
	return buf;
}

/* The text output's rendering (rl_template__render_text()). */
static const char *render_text(const char *src)
{
	static char buf[1024];
	struct rl_template *t = NULL;
	struct rl_error err;
	size_t n;

	if (rl_template__compile(src, &t, &err) != 0)
		fail_msg("'%s' failed at %zu: %s", src, err.offset, err.msg);
	n = rl_template__render_text(t, &ev, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	rl_template__free(t);
	return buf;
}

static void check_error(const char *src, size_t off, const char *msg)
{
	struct rl_template *t = NULL;
	struct rl_error err;

	assert_int_equal(rl_template__compile(src, &t, &err), -EINVAL);
	assert_null(t);
	if (strcmp(err.msg, msg) != 0 || err.offset != off)
		fail_msg("'%s':\n got  %zu %s\n want %zu %s", src, err.offset, err.msg, off, msg);
}

static void test_template_substitutes_longest_field_name(void **state)
{
	assert_string_equal(render("%proc.name started (pid %proc.pid)"), "sshd started (pid 4242)");
	assert_string_equal(render("%proc.name."), "sshd.");
	/* text glued to a field is written with braces: a name's tail is a typo (below) */
	assert_string_equal(render("%{proc.name}s and %{proc.pid}0"), "sshds and 42420");
	assert_string_equal(render("100%% of %proc.name%%"), "100% of sshd%");
	assert_string_equal(render("%%proc.name"), "%proc.name");
	assert_string_equal(render(""), "");
	assert_string_equal(render("no fields"), "no fields");
	assert_string_equal(render("%proc.pid[x]"), "4242[x]");
}

static void test_template_reports_errors_with_offsets(void **state)
{
	check_error("pid %proc.pdi here", 4, "unknown field 'proc.pdi' after '%' (did you mean 'proc.pid'?)");
	check_error("x %zzzzzzzzzzzz", 2, "unknown field 'zzzzzzzzzzzz' after '%'");
	/* a known field with a name's tail glued on is that typo, not the field and text */
	check_error("ran %proc.exe_nam now", 4, "unknown field 'proc.exe_nam' after '%' (did you mean 'proc.exe_name'?)");
	check_error("%proc.names", 0, "unknown field 'proc.names' after '%' (did you mean 'proc.name'?)");
	check_error("by %user.name", 3, "unknown field 'user.name' after '%': a Falco field; here: proc.uid (the alert names the user)");
	check_error("%proc.pid.x", 0, "unknown field 'proc.pid.x' after '%' (did you mean 'proc.pid'?)");
	check_error("%proc.pdi.", 0, "unknown field 'proc.pdi' after '%' (did you mean 'proc.pid'?)");
	check_error("%proc.open_failures_under", 0,
		    "field 'proc.open_failures_under' needs a path prefix: %proc.open_failures_under[PREFIX]");
	check_error("%proc.open_failures_under[/etc ssh]", 25, "expected PREFIX] after '[' at offset 25");
	check_error("50% done", 2, "'%' must be followed by a field name, {field} or '%' (%% is a literal %)");
	check_error("end %", 4, "'%' must be followed by a field name, {field} or '%' (%% is a literal %)");
	check_error("%{proc.name", 11, "expected '}' to close '{' at offset 1");
	check_error("%{proc.nam}", 0, "unknown field 'proc.nam' after '%' (did you mean 'proc.name'?)");
	check_error("%proc.syscall", 0, "field 'proc.syscall' needs a syscall name: %proc.syscall[NAME]");
	check_error("%proc.syscall[nosuch]", 14, "unknown syscall 'nosuch' in proc.syscall[nosuch]");
	check_error("%proc.syscall[open", 13, "expected NAME] after '[' at offset 13");
}

static void test_template_escapes_hostile_strings(void **state)
{
	const char *out;

	ev.comm = "evil\n{\"x\":1}";
	out = render("name=\"%proc.name\"");
	assert_string_equal(out, "name=\"evil\\x0A{\\x22x\\x22:1}\"");
	assert_null(strchr(out, '\n'));
	ev.comm = "a\\b\tc\x7f\x1b[31m";
	assert_string_equal(render("%proc.name"), "a\\x5Cb\\x09c\\x7F\\x1B[31m");
	/* valid UTF-8 passes through */
	ev.comm = "caf\xc3\xa9";
	assert_string_equal(render("%proc.name"), "caf\xc3\xa9");
}

/* The same escaping as records (text_escape()), plus '"': C1 controls, line
 * separators, bidi controls and invalid UTF-8 too, and it unescapes back. */
static void test_template_uses_the_one_escaping(void **state)
{
	static const char raw[] = "x\r\nALERT Emergency forged\x1b]0;t\x07\xc2\x9b\xe2\x80\xa8\xe2\x80\xae\xff q\"uo\\te";
	char *back;
	size_t n;

	ev.exe = raw;
	assert_string_equal(render("exe=%proc.exe"), "exe=x\\x0D\\x0AALERT Emergency forged\\x1B]0;t\\x07\\xC2\\x9B"
						     "\\xE2\\x80\\xA8\\xE2\\x80\\xAE\\xFF q\\x22uo\\x5Cte");
	back = text_unescape(render("%proc.exe"), strlen(render("%proc.exe")), &n);
	assert_non_null(back);
	assert_int_equal(n, sizeof(raw) - 1);
	assert_memory_equal(back, raw, n);
	free(back);
}

/* Literal text is rule-file text: escaped too (but its quotes are kept), so
 * even a rule can't make an alert span lines; a trailing newline is dropped. */
static void test_template_escapes_literal_text_and_drops_trailing_space(void **state)
{
	assert_string_equal(render("a \"%proc.name\"\n"), "a \"sshd\"");
	assert_string_equal(render("line one\nline two %proc.pid \t\r\n\n"), "line one\\x0Aline two 4242");
	assert_string_equal(render("C:\\dir \x1b[2J"), "C:\\x5Cdir \\x1B[2J");
	assert_string_equal(render(" \n"), "");
}

/* For people, an absent value is said in words and its unit left out;
 * a present one renders as in the record's output. */
static void test_template_text_says_absent_values_in_words(void **state)
{
	(void)state;
	assert_string_equal(render("baseline p99 %baseline.cpu_ms.p99 ms per lifetime"),
			    "baseline p99 <NA> ms per lifetime");
	assert_string_equal(render_text("baseline p99 %baseline.cpu_ms.p99 ms per lifetime"),
			    "baseline p99 (none learned) per lifetime");
	assert_string_equal(
	    render_text("%proc.exe|%proc.exit_code s|%proc.pid ms|%baseline.ready %%|x %baseline.ready msec"),
	    "(unknown)|(unknown)|4242 ms|(none learned)|x (none learned) msec");
	assert_string_equal(render_text("%baseline.cpu_ms.p99 ms"), "(none learned)");
}

static void test_template_renders_absent_bools_and_lists(void **state)
{
	/* no exe, no exit code, no baseline; a list with no entries is empty, not absent */
	assert_string_equal(render("%proc.exe|%proc.exit_code|%baseline.ready|[%proc.aname]"), "<NA>|<NA>|<NA>|[]");
	ev.bl.key = "k";
	ev.bl.ready = true;
	ev.bl.scored = true;
	ev.bl.anomalous = false;
	ev.ancestors[0] = "/bin/bash";
	ev.ancestors[1] = "/usr/sbin/sshd\n";
	ev.ancestors[2] = "init";
	ev.nancestors = 3;
	assert_string_equal(render("%baseline.ready %baseline.anomalous %proc.aname"),
			    "true false bash,sshd\\x0A,init");
	ev.nancestors = 0;
	assert_string_equal(render("[%proc.aname]"), "[]");
}

/* A deviation in plain words: what the binary did (CPU, syscalls, failed opens), never how long
 * its caller made it sleep. The sleep's off-CPU score is the highest, and is not what is said. */
static void test_template_says_deviation_in_plain_words(void **state)
{
	(void)state;
	ev.moment = PL_AT_EXIT;
	ev.bl.key = "k";
	ev.bl.ready = true;
	ev.bl.scored = true;
	ev.bl.f[PL_LIFE_OFFCPU] = (struct pl_score){ .valid = true, .value = 9e9, .p50 = 1e9, .p99 = 1.1e9, .score = 9.3 };
	ev.bl.f[PL_LIFE_WALL] = (struct pl_score){ .valid = true, .value = 9e9, .p50 = 1e9, .p99 = 1.1e9, .score = 9.1 };
	ev.bl.f[PL_LIFE_CPU] = (struct pl_score){ .valid = true, .value = 812e6, .p50 = 2e6, .p99 = 5e6, .score = 8.5 };
	ev.bl.f[PL_LIFE_SYSCALLS] = (struct pl_score){ .valid = true, .value = 40, .p50 = 30, .p99 = 50, .score = 0 };
	ev.bl.max_dist = PL_LIFE_OFFCPU;
	ev.bl.max_score = 9.3;
	assert_string_equal(render("%baseline.did_feature %baseline.did_score"), "cpu_ns 8.5");
	assert_string_equal(render("%baseline.did_text"), "used 812 ms of CPU, usually 2 ms (p99 5 ms): 406x its usual");
	assert_string_equal(render("%baseline.max_feature_text"),
			    "spent 9.0 s off CPU (sleeping or waiting), usually 1.0 s (p99 1.1 s): 9x its usual");
	/* a sleep that only slept: nothing it did scored, so a rule on did_score >= 8 stays silent */
	ev.bl.f[PL_LIFE_CPU].score = 0.4;
	assert_string_equal(render("%baseline.did_score"), "0.4");
	ev.bl.f[PL_LIFE_CPU].valid = false;
	ev.bl.f[PL_LIFE_SYSCALLS].valid = false;
	assert_string_equal(render("%baseline.did_score|%baseline.did_text"), "<NA>|<NA>");
	/* failed opens where it usually fails none */
	ev.bl.f[PL_LIFE_OPEN_FAIL] = (struct pl_score){ .valid = true, .value = 500, .p50 = 0, .p99 = 0, .score = 12 };
	assert_string_equal(render("%baseline.did_text"), "failed 500 opens, usually 0 (p99 0): usually none");
	memset(&ev.bl, 0, sizeof(ev.bl));
}

static void test_template_formats_numbers(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0, "0"},
	    {-0.0, "0"},
	    {42, "42"},
	    {-7, "-7"},
	    {2.5, "2.5"},
	    {1.0 / 3, "0.333"},
	    {2.0 / 3, "0.667"},
	    {0.1, "0.1"},
	    {1.25, "1.25"},
	    {-1.5, "-1.5"},
	    {123456789012345, "123456789012345"},
	    {1e15, "1000000000000000"},
	    {1e20, "100000000000000000000"},
	    {0.0001, "0"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ev.bin.present = true;
		ev.bin.open_failures_per_s = cases[i].v;
		if (strcmp(render("%bin.open_failures_per_s"), cases[i].want) != 0)
			fail_msg("%g rendered '%s', want '%s'", cases[i].v, render("%bin.open_failures_per_s"),
				 cases[i].want);
	}
}

static void test_template_param_fields(void **state)
{
	static unsigned long long sc[RL_SC_SLOTS], win[RL_SC_SLOTS];
	int openat = syscall_number("openat");
	struct rl_template *t;
	struct rl_error err;
	enum rl_field f[4];
	int params[4];

	assert_string_equal(render("%proc.syscall[openat] %{win.syscall_per_s[openat]}"), "<NA> <NA>");
	sc[openat] = 12;
	win[openat] = 5;
	ev.moment = PL_AT_WINDOW;
	ev.life.sc = sc;
	ev.win.sc = win;
	ev.win_start_ns = 1000;
	ev.win_end_ns = ev.win_start_ns + 2000000000ull;
	assert_string_equal(render("%proc.syscall[openat] %{win.syscall_per_s[openat]}/s"), "12 2.5/s");

	assert_int_equal(rl_template__compile("%proc.name %proc.syscall[openat] %proc.pid", &t, &err), 0);
	assert_int_equal(rl_template__fields(t, f, params, 4), 3);
	assert_int_equal(f[0], RL_F_PROC_NAME);
	assert_int_equal(params[0], -1);
	assert_int_equal(f[1], RL_F_PROC_SYSCALL);
	assert_int_equal(params[1], openat);
	assert_int_equal(f[2], RL_F_PROC_PID);
	assert_int_equal(rl_template__fields(t, f, NULL, 2), 2);
	rl_template__free(t);

	/* a path prefix: the failed opens of the kept paths under it, exactly */
	{
		static const struct pl_fail fails[] = {
			{ .path = "/etc/ssh/ssh_host_rsa_key", .err = 13, .count = 3 },
			{ .path = "/etc/ssh/sshd_config.d/x.conf", .err = 2, .count = 2 },
			{ .path = "/etc/sshd", .err = 2, .count = 7 }, /* not under /etc/ssh/ */
			{ .path = "/root/.ssh/id_rsa", .err = 13, .count = 1 },
		};

		ev.fails = fails;
		ev.nfails = 4;
		ev.moment = PL_AT_EXIT; /* a lifetime's paths: its exit */
		assert_string_equal(render("%proc.open_failures_under[/etc/ssh/] %{proc.open_failures_under[/etc/ssh]} "
					   "%proc.open_failures_under[/root/.ssh/]. %proc.open_failures_under[/var/]"),
				    "5 12 1. 0");
		assert_int_equal(rl_template__compile("%proc.open_failures_under[/etc/ssh/]", &t, &err), 0);
		assert_int_equal(rl_template__fields(t, f, params, 4), 1);
		assert_int_equal(f[0], RL_F_PROC_OPEN_FAILURES_UNDER);
		assert_string_equal(rl_field__path_of(params[0]), "/etc/ssh/");
		/* the same prefix, the same parameter: a reload does not use up the table */
		assert_int_equal(rl_field__path_param("/etc/ssh/", 9), params[0]);
		rl_template__free(t);
		ev.fails = NULL;
		ev.nfails = 0;
	}
}

static void test_template_truncates_like_snprintf(void **state)
{
	struct rl_template *t;
	struct rl_error err;
	char buf[8];

	ev.comm = "a\"bcdef";
	assert_int_equal(rl_template__compile("name=%proc.name!", &t, &err), 0);
	assert_int_equal(rl_template__render(t, &ev, buf, sizeof(buf)), 5 + 10 + 1);
	assert_string_equal(buf, "name=a"); /* never half an escape */
	assert_int_equal(rl_template__render(t, &ev, buf, 1), 16);
	assert_string_equal(buf, "");
	assert_int_equal(rl_template__render(t, &ev, NULL, 0), 16);
	rl_template__free(t);
	rl_template__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_template_substitutes_longest_field_name, setup),
	    cmocka_unit_test_setup(test_template_reports_errors_with_offsets, setup),
	    cmocka_unit_test_setup(test_template_escapes_hostile_strings, setup),
	    cmocka_unit_test_setup(test_template_uses_the_one_escaping, setup),
	    cmocka_unit_test_setup(test_template_escapes_literal_text_and_drops_trailing_space, setup),
	    cmocka_unit_test_setup(test_template_text_says_absent_values_in_words, setup),
	    cmocka_unit_test_setup(test_template_renders_absent_bools_and_lists, setup),
	    cmocka_unit_test_setup(test_template_formats_numbers, setup),
	    cmocka_unit_test_setup(test_template_says_deviation_in_plain_words, setup),
	    cmocka_unit_test_setup(test_template_param_fields, setup),
	    cmocka_unit_test_setup(test_template_truncates_like_snprintf, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
