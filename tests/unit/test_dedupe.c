// SPDX-License-Identifier: MIT
/*
 * test_dedupe.c - dedupe windows per (rule, binary) (sensor/pipeline/dedupe.c): what
 * is held back, and that every held match is reported exactly once, whether
 * its window ends, the sensor stops, or another pair takes its slot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/dedupe.h"

#define SEC 1000000000ull
#define T0 1700000000000000000ull

struct seen {
	uint64_t summaries, held, by_reason[3];
	char last_rule[64], last_alert[DEDUPE_ID_MAX], last_binary[64];
	uint64_t last_first, last_last, last_start, last_end;
};

static void on_summary(const struct dedupe_summary *s, void *ctx)
{
	struct seen *v = ctx;

	v->summaries++;
	v->held += s->count;
	v->by_reason[s->reason]++;
	snprintf(v->last_rule, sizeof(v->last_rule), "%s", s->rule);
	snprintf(v->last_alert, sizeof(v->last_alert), "%s", s->alert_id);
	snprintf(v->last_binary, sizeof(v->last_binary), "%s", s->binary_id ? s->binary_id : "(null)");
	v->last_first = s->first_ns;
	v->last_last = s->last_ns;
	v->last_start = s->window_start_ns;
	v->last_end = s->window_end_ns;
}

static void test_dedupe_holds_within_the_window_and_reports_at_its_end(void **state)
{
	struct seen v = {0};
	struct dedupe *d;
	struct dedupe_key k = {.rule = "R", .binary_id = "build-id:aa", .exe = "/bin/x", .severity = 4};
	uint64_t held = 99;

	assert_int_equal(dedupe__new(on_summary, &v, &d), 0);
	assert_int_equal(dedupe__match(d, &k, 10 * SEC, T0, "A1", &held), 1);
	assert_int_equal(held, 0);
	assert_int_equal(dedupe__match(d, &k, 10 * SEC, T0 + 1, "A2", &held), 0);
	assert_int_equal(dedupe__match(d, &k, 10 * SEC, T0 + 10 * SEC - 1, "A2", &held), 0);
	assert_int_equal(dedupe__pending(d), 1);
	dedupe__expire(d, T0 + 10 * SEC - 1);
	assert_int_equal(v.summaries, 0);
	dedupe__expire(d, T0 + 10 * SEC);
	assert_int_equal(v.summaries, 1);
	assert_int_equal(v.held, 2);
	assert_int_equal(v.by_reason[DEDUPE_WINDOW_END], 1);
	assert_string_equal(v.last_rule, "R");
	assert_string_equal(v.last_alert, "A1");
	assert_string_equal(v.last_binary, "build-id:aa");
	assert_int_equal(v.last_first, T0 + 1);
	assert_int_equal(v.last_last, T0 + 10 * SEC - 1);
	assert_int_equal(v.last_start, T0);
	assert_int_equal(v.last_end, T0 + 10 * SEC);
	assert_int_equal(dedupe__pending(d), 0);
	/* the next match opens a new window and is told of the 2 */
	assert_int_equal(dedupe__match(d, &k, 10 * SEC, T0 + 11 * SEC, "A3", &held), 1);
	assert_int_equal(held, 2);
	dedupe__close_all(d, T0 + 12 * SEC);
	assert_int_equal(v.summaries, 1); /* nothing held since */
	dedupe__free(d);
}

/* A rule without a window: every match passes, nothing is kept. */
static void test_dedupe_without_a_window_passes_everything(void **state)
{
	struct seen v = {0};
	struct dedupe *d;
	struct dedupe_key k = {.rule = "R", .exe = "/bin/x"};
	uint64_t held;

	assert_int_equal(dedupe__new(on_summary, &v, &d), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(dedupe__match(d, &k, 0, T0, "A", &held), 1);
	dedupe__close_all(d, T0);
	assert_int_equal(v.summaries, 0);
	assert_int_equal(dedupe__pending(d), 0);
	dedupe__free(d);
}

/* Rule and binary are the key, compared as strings: a binary without an id
 * is its exe, and "R"+"x" is not "Rx"+"". */
static void test_dedupe_key_is_rule_and_binary(void **state)
{
	struct seen v = {0};
	struct dedupe *d;
	struct dedupe_key a = {.rule = "R", .binary_id = "x"}, b = {.rule = "Rx", .binary_id = ""},
			  c = {.rule = "R", .exe = "x"}, e = {.rule = "Q", .binary_id = "x"};
	uint64_t held;

	assert_int_equal(dedupe__new(on_summary, &v, &d), 0);
	assert_int_equal(dedupe__match(d, &a, SEC, T0, "1", &held), 1);
	assert_int_equal(dedupe__match(d, &b, SEC, T0, "2", &held), 1);
	assert_int_equal(dedupe__match(d, &e, SEC, T0, "3", &held), 1);
	/* no binary id, exe "x": the same binary as a's id "x" (as the throttle always keyed it) */
	assert_int_equal(dedupe__match(d, &c, SEC, T0 + 1, "4", &held), 0);
	dedupe__close_all(d, T0 + 2);
	assert_int_equal(v.summaries, 1);
	assert_string_equal(v.last_alert, "1");
	assert_int_equal(v.by_reason[DEDUPE_SHUTDOWN], 1);
	dedupe__free(d);
}

/* An interpreter's scripts are apart: a python3 miner alerted holds back
 * neither another script's alert nor the interpreter's own. */
static void test_dedupe_key_includes_the_script(void **state)
{
	struct seen v = {0};
	struct dedupe *d;
	struct dedupe_key a = {.rule = "R", .binary_id = "py", .script = "/tmp/a.py"},
			  b = {.rule = "R", .binary_id = "py", .script = "/tmp/b.py"},
			  c = {.rule = "R", .binary_id = "py"};
	uint64_t held;

	(void)state;
	assert_int_equal(dedupe__new(on_summary, &v, &d), 0);
	assert_int_equal(dedupe__match(d, &a, 300 * SEC, T0, "1", &held), 1);
	assert_int_equal(dedupe__match(d, &b, 300 * SEC, T0 + 1, "2", &held), 1);
	assert_int_equal(dedupe__match(d, &c, 300 * SEC, T0 + 2, "3", &held), 1);
	assert_int_equal(dedupe__match(d, &a, 300 * SEC, T0 + 3, "4", &held), 0);
	dedupe__close_all(d, T0 + 4);
	assert_int_equal(v.summaries, 1);
	assert_string_equal(v.last_alert, "1");
	dedupe__free(d);
}

/* More pairs than slots: the pairs evicted report early, the rest at
 * shutdown, and every held match is counted exactly once. */
static void test_dedupe_eviction_never_loses_a_held_match(void **state)
{
	enum { PAIRS = 3 * DEDUPE_SLOTS };
	struct seen v = {0};
	struct dedupe *d;
	uint64_t held;

	assert_int_equal(dedupe__new(on_summary, &v, &d), 0);
	for (int i = 0; i < PAIRS; i++) {
		char bin[32];
		struct dedupe_key k = {.rule = "R", .binary_id = bin};

		snprintf(bin, sizeof(bin), "build-id:%x", i);
		assert_int_equal(dedupe__match(d, &k, 60 * SEC, T0 + (uint64_t)i, "A", &held), 1);
		assert_int_equal(dedupe__match(d, &k, 60 * SEC, T0 + (uint64_t)i + 1, "A", &held), 0);
		assert_int_equal(dedupe__match(d, &k, 60 * SEC, T0 + (uint64_t)i + 2, "A", &held), 0);
	}
	assert_true(v.by_reason[DEDUPE_EVICTED] > 0);
	assert_int_equal(v.summaries + dedupe__pending(d), PAIRS);
	dedupe__close_all(d, T0 + SEC);
	assert_int_equal(v.summaries, PAIRS);
	assert_int_equal(v.held, 2 * PAIRS);
	assert_int_equal(v.by_reason[DEDUPE_EVICTED] + v.by_reason[DEDUPE_SHUTDOWN], PAIRS);
	assert_int_equal(v.by_reason[DEDUPE_WINDOW_END], 0);
	dedupe__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dedupe_holds_within_the_window_and_reports_at_its_end),
	    cmocka_unit_test(test_dedupe_without_a_window_passes_everything),
	    cmocka_unit_test(test_dedupe_key_is_rule_and_binary),
	    cmocka_unit_test(test_dedupe_key_includes_the_script),
	    cmocka_unit_test(test_dedupe_eviction_never_loses_a_held_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
