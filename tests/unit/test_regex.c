// SPDX-License-Identifier: MIT
/*
 * test_regex.c - what a regex may cost per event: a repeated subject runs
 * PCRE2 once (a counting seam: pcre2_match_8 is wrapped at link time, so
 * every real match is counted whatever the library does), the verdict
 * cache never answers for another string, the per-second budget skips and
 * counts, and a skipped regex leaves its condition undecided, which counts
 * as a match (fail closed) and is flagged to the match callback. Also
 * SipHash-2-4 against the paper's test vectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "expr.h"
#include "ruleset.h"
#include "siphash.h"

/* ---- the counting seam ---- */

static unsigned pcre2_calls;

int __real_pcre2_match_8(const pcre2_code_8 *code, PCRE2_SPTR8 subject, PCRE2_SIZE length, PCRE2_SIZE start,
			 uint32_t options, pcre2_match_data_8 *md, pcre2_match_context_8 *mctx);
int __wrap_pcre2_match_8(const pcre2_code_8 *code, PCRE2_SPTR8 subject, PCRE2_SIZE length, PCRE2_SIZE start,
			 uint32_t options, pcre2_match_data_8 *md, pcre2_match_context_8 *mctx);

int __wrap_pcre2_match_8(const pcre2_code_8 *code, PCRE2_SPTR8 subject, PCRE2_SIZE length, PCRE2_SIZE start,
			 uint32_t options, pcre2_match_data_8 *md, pcre2_match_context_8 *mctx)
{
	pcre2_calls++;
	return __real_pcre2_match_8(code, subject, length, start, options, md, mctx);
}

/* ---- a clock the test moves ---- */

static uint64_t fake_now, fake_step;

static uint64_t fake_clock(void)
{
	uint64_t t = fake_now;

	fake_now += fake_step;
	return t;
}

static struct pl_sample ev;

static struct rl_expr *compile_ok(const char *src)
{
	struct rl_expr *e = NULL;
	struct rl_error err;

	if (rl_expr__compile(src, NULL, &e, &err) != 0)
		fail_msg("'%s': %s", src, err.msg);
	return e;
}

static void subject(const char *cmdline)
{
	pl_sample__init(&ev, PL_AT_EXEC);
	ev.pid = 42;
	ev.cmdline = cmdline;
}

/* 251 bytes that make '(a+)+$' try every split before the limit stops it */
static void hostile(char *buf, size_t size, char last)
{
	memset(buf, 'a', 250);
	buf[250] = last;
	buf[251] = '\0';
	assert_true(size > 251);
}

static void test_regex_repeated_hostile_subject_runs_pcre2_once(void **state)
{
	struct rl_expr *e = compile_ok("proc.cmdline regex '(a+)+$'");
	struct rl_eval_stats st = { 0 };
	char arg[300];

	hostile(arg, sizeof(arg), '!');
	subject(arg);
	pcre2_calls = 0;
	for (int i = 0; i < 100; i++)
		assert_false(rl_expr__eval(e, &ev, &st));
	/* the first exec pays; the 99 repeats are cache hits */
	assert_int_equal(pcre2_calls, 1);
	assert_int_equal(st.regex_limit_hits, 100); /* each evaluation gave up, one of them for real */
	assert_int_equal(st.regex_runs, 1);
	assert_int_equal(st.regex_cache_hits, 99);
	assert_int_equal(st.regex_skipped, 0);

	/* another subject is another verdict: one more run, a match this time */
	hostile(arg, sizeof(arg), 'a');
	subject(arg);
	assert_true(rl_expr__eval(e, &ev, &st));
	assert_true(rl_expr__eval(e, &ev, &st));
	assert_int_equal(pcre2_calls, 2);
	rl_expr__free(e);
}

/* Verdicts from the cache equal PCRE2's, for many subjects: more than the
 * slots, and long enough to wrap the ring of copies several times. */
static void test_regex_cache_never_answers_for_another_string(void **state)
{
	struct rl_expr *e = compile_ok("proc.cmdline regex '^x[0-9]*7$'");
	struct rl_eval_stats st = { 0 };
	static char s[2][4200];

	for (int round = 0; round < 3; round++) {
		for (unsigned i = 0; i < 2000; i++) {
			char *cur = s[i % 2], *prev = s[(i + 1) % 2];
			size_t pad = (i * 37) % 4000; /* 0 to 4 KB: the ring wraps */

			cur[0] = 'x';
			memset(cur + 1, '0' + (char)(i % 10), pad);
			snprintf(cur + 1 + pad, sizeof(s[0]) - 1 - pad, "%u", i);
			/* new, again (a hit), and the one before (a hit, or evicted by now) */
			for (int k = 0; k < 3; k++) {
				unsigned who = k < 2 ? i : i - 1;

				if (k == 2 && i == 0)
					break;
				subject(k < 2 ? cur : prev);
				if (rl_expr__eval(e, &ev, &st) != (who % 10 == 7))
					fail_msg("round %d, subject %u (%zu bytes): wrong verdict", round, who,
						 strlen(k < 2 ? cur : prev));
			}
		}
	}
	assert_int_equal(st.regex_runs + st.regex_cache_hits, 3 * (3 * 2000 - 1));
	assert_true(st.regex_cache_hits >= 3 * 2000); /* every second look at least */
	assert_true(st.regex_runs >= 3 * 2000);	      /* every new subject */
	rl_expr__free(e);
}

static void test_regex_budget_skips_and_counts(void **state)
{
	struct rl_expr *e = compile_ok("proc.cmdline regex 'b+$'");
	struct rl_eval_stats st = { .budget = { .ns_per_s = 1000, .clock_ns = fake_clock } };

	fake_now = 5000000000ull;
	fake_step = 600; /* each run costs 600 ns on this clock */
	pcre2_calls = 0;
	subject("ab");
	assert_int_equal(rl_expr__decide(e, &ev, &st), RL_TRUE); /* 600 ns spent */
	subject("ac");
	assert_int_equal(rl_expr__decide(e, &ev, &st), RL_FALSE); /* 1200 ns spent: the budget is gone */
	subject("abb");
	assert_int_equal(rl_expr__decide(e, &ev, &st), RL_UNDECIDED);
	subject("acc");
	assert_int_equal(rl_expr__decide(e, &ev, &st), RL_UNDECIDED);
	assert_true(rl_expr__eval(e, &ev, &st)); /* undecided counts as a match: fail closed */
	assert_int_equal(st.regex_skipped, 3);
	assert_int_equal(st.regex_runs, 2);
	assert_int_equal(pcre2_calls, 2);
	/* verdicts already known cost nothing: still served */
	subject("ab");
	assert_int_equal(rl_expr__decide(e, &ev, &st), RL_TRUE);
	assert_int_equal(st.regex_cache_hits, 1);
	/* the next second has a budget again */
	fake_now += 1000000000ull;
	subject("abb");
	assert_int_equal(rl_expr__decide(e, &ev, &st), RL_TRUE);
	assert_int_equal(st.regex_runs, 3);
	assert_int_equal(st.regex_skipped, 3);
	/* no budget (replay): every regex runs, whatever it costs */
	st.budget.ns_per_s = 0;
	for (int i = 0; i < 5; i++) {
		char s[16];

		snprintf(s, sizeof(s), "a%db", i);
		subject(s);
		assert_int_equal(rl_expr__decide(e, &ev, &st), RL_TRUE);
	}
	assert_int_equal(st.regex_skipped, 3);
	rl_expr__free(e);
}

/* Kleene's logic: the rest of the condition decides when it can. */
static void test_regex_skipped_is_undecided_unless_the_rest_decides(void **state)
{
	static const struct {
		const char *src;
		enum rl_truth want;
	} cases[] = {
		{ "proc.cmdline regex 'z'", RL_UNDECIDED },
		{ "not proc.cmdline regex 'z'", RL_UNDECIDED }, /* an exception can't be switched on */
		{ "proc.pid = 1 and proc.cmdline regex 'z'", RL_FALSE },
		{ "proc.pid = 42 and proc.cmdline regex 'z'", RL_UNDECIDED },
		{ "proc.pid = 42 or proc.cmdline regex 'z'", RL_TRUE },
		{ "proc.pid = 1 or proc.cmdline regex 'z'", RL_UNDECIDED },
		{ "proc.pid = 42 and not proc.cmdline regex 'z'", RL_UNDECIDED },
		{ "(proc.cmdline regex 'z') = true", RL_UNDECIDED },
		{ "(proc.cmdline regex 'z') != false", RL_UNDECIDED },
		{ "proc.cmdline regex 'z' and proc.pid = 1", RL_FALSE }, /* order does not matter */
	};
	struct rl_eval_stats st = { .budget = { .ns_per_s = 1, .clock_ns = fake_clock } };

	fake_now = 9000000000ull;
	fake_step = 10;
	subject("spend");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rl_expr *e = compile_ok(cases[i].src);

		/* spend the second's budget on another regex first */
		if (i == 0) {
			struct rl_expr *spend = compile_ok("proc.cmdline regex 'spend'");

			assert_int_equal(rl_expr__decide(spend, &ev, &st), RL_TRUE);
			rl_expr__free(spend);
			subject("a command line");
		}
		if (rl_expr__decide(e, &ev, &st) != cases[i].want)
			fail_msg("'%s': %d, expected %d", cases[i].src, rl_expr__decide(e, &ev, &st), cases[i].want);
		rl_expr__free(e);
	}
	/* and without a budget the same conditions are decided */
	st.budget.ns_per_s = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rl_expr *e = compile_ok(cases[i].src);

		assert_int_not_equal(rl_expr__decide(e, &ev, &st), RL_UNDECIDED);
		rl_expr__free(e);
	}
}

static int undecided_seen, decided_seen;

static void on_match(const struct rl_rule *r, const struct pl_sample *e, void *ctx)
{
	struct rl_eval_stats *st = ctx;

	if (st->match_undecided)
		undecided_seen++;
	else
		decided_seen++;
}

static void test_regex_undecided_rule_matches_flagged(void **state)
{
	static const char yaml[] = "- rule: encoded\n"
				   "  desc: d\n"
				   "  condition: proc.cmdline regex 'b+$'\n"
				   "  output: o\n"
				   "  priority: WARNING\n"
				   "- rule: pid\n"
				   "  desc: d\n"
				   "  condition: proc.pid = 42\n"
				   "  output: o\n"
				   "  priority: WARNING\n";
	struct rl_eval_stats st = { .budget = { .ns_per_s = 1, .clock_ns = fake_clock } };
	struct rl_diags d = { 0 };
	struct rl_ruleset *rs;

	assert_int_equal(rl_ruleset__load_buffer("t.yaml", yaml, sizeof(yaml) - 1, &rs, &d), 0);
	fake_now = 7000000000ull;
	fake_step = 10;
	undecided_seen = decided_seen = 0;
	subject("ab");
	assert_int_equal(rl_ruleset__eval(rs, &ev, on_match, &st, &st), 2); /* runs, spends the budget */
	assert_int_equal(decided_seen, 2);
	subject("ac"); /* would not match, but can't be run */
	assert_int_equal(rl_ruleset__eval(rs, &ev, on_match, &st, &st), 2);
	assert_int_equal(undecided_seen, 1);
	assert_int_equal(decided_seen, 3);
	assert_int_equal(st.undecided, 1);
	assert_int_equal(st.regex_skipped, 1);
	assert_false(st.match_undecided); /* only while the callback runs */
	rl_ruleset__free(rs);
	rl_diags__free(&d);
}

/* SipHash-2-4, key 00 01 .. 0f, message 00 01 .. (len-1): the paper's vectors. */
static void test_siphash24_vectors(void **state)
{
	static const uint64_t want[] = {
		0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull, 0x85676696d7fb7e2dull,
		0xcf2794e0277187b7ull, 0x18765564cd99a68dull, 0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull,
		0x93f5f5799a932462ull, 0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
		0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull, 0xa129ca6149be45e5ull,
		0x3f2acc7f57c29bdbull,
	};
	uint8_t key[16], msg[17];

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 17; i++)
		msg[i] = (uint8_t)i;
	for (size_t len = 0; len < sizeof(want) / sizeof(want[0]); len++)
		if (rl_siphash24(key, msg, len) != want[len])
			fail_msg("length %zu: %016llx, expected %016llx", len,
				 (unsigned long long)rl_siphash24(key, msg, len), (unsigned long long)want[len]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regex_repeated_hostile_subject_runs_pcre2_once),
		cmocka_unit_test(test_regex_cache_never_answers_for_another_string),
		cmocka_unit_test(test_regex_budget_skips_and_counts),
		cmocka_unit_test(test_regex_skipped_is_undecided_unless_the_rest_decides),
		cmocka_unit_test(test_regex_undecided_rule_matches_flagged),
		cmocka_unit_test(test_siphash24_vectors),
	};

	return cmocka_run_group_tests_name("regex", tests, NULL, NULL);
}
