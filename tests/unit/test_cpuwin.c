// SPDX-License-Identifier: MIT
/*
 * test_cpuwin.c - the busy streak survives one dip after a run of busy
 * windows and ends at a second; the recent share covers the last 20
 * windows only; clone CPU lands in the window after its charge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cpuwin.h"

#define SEC 1000000000ull
#define MS 1000000ull

static void add(struct pl_cpuwin *w, uint64_t cpu_ms, int n)
{
	for (int i = 0; i < n; i++)
		pl_cpuwin__add(w, cpu_ms * MS, 0, SEC);
}

static void test_cpuwin_streak_survives_one_dip(void **state)
{
	struct pl_cpuwin w = { 0 };

	(void)state;
	add(&w, 1000, 5);
	assert_true(w.busy_s == 5);
	add(&w, 850, 1); /* CPU steal: one window under 90 % */
	assert_true(w.busy_s == 5);
	add(&w, 1000, 4);
	assert_true(w.busy_s == 9);
}

static void test_cpuwin_two_dips_in_a_row_end_the_streak(void **state)
{
	struct pl_cpuwin w = { 0 };

	(void)state;
	add(&w, 1000, 5);
	add(&w, 500, 2);
	assert_true(w.busy_s == 0);
}

static void test_cpuwin_dip_needs_a_run_before_it(void **state)
{
	struct pl_cpuwin w = { 0 };

	(void)state;
	/* every other second busy is not a streak */
	for (int i = 0; i < 10; i++) {
		add(&w, 1000, 1);
		add(&w, 0, 1);
	}
	assert_true(w.busy_s == 0);
	/* three busy, one dip, repeated: at most one in four below, held */
	for (int i = 0; i < 4; i++) {
		add(&w, 1000, 3);
		add(&w, 300, 1);
	}
	assert_true(w.busy_s == 12);
}

static void test_cpuwin_runq_counts_as_busy(void **state)
{
	struct pl_cpuwin w = { 0 };

	(void)state;
	pl_cpuwin__add(&w, 300 * MS, 650 * MS, SEC); /* a saturated machine */
	assert_true(w.busy_s == 1);
	pl_cpuwin__add(&w, 100 * MS, 900 * MS, SEC); /* runs < 20 %: not busy */
	pl_cpuwin__add(&w, 100 * MS, 900 * MS, SEC);
	assert_true(w.busy_s == 0);
}

static void test_cpuwin_recent_share_is_the_last_20_windows(void **state)
{
	struct pl_cpuwin w = { 0 };
	struct pl_cpuwin_recent r;

	(void)state;
	add(&w, 0, 30);
	add(&w, 850, 20); /* throttled to 85 %: never busy, 85 % over 20 s */
	pl_cpuwin__recent(&w, &r);
	assert_true(r.span_s == 20);
	assert_int_equal(r.busy_ns, 17 * SEC);
	assert_int_equal(r.cpu_ns, 17 * SEC);
	assert_true(w.busy_s == 0);
}

static void test_cpuwin_clones_charged_to_the_next_window(void **state)
{
	struct pl_cpuwin w = { 0 };
	struct pl_cpuwin_recent r;

	(void)state;
	pl_cpuwin__charge_clone(&w, 200 * MS);
	pl_cpuwin__charge_clone(&w, 190 * MS);
	pl_cpuwin__recent(&w, &r);
	assert_int_equal(r.clones, 0);
	add(&w, 1, 1);
	pl_cpuwin__recent(&w, &r);
	assert_int_equal(r.clones, 2);
	assert_int_equal(r.clone_ns, 390 * MS);
	/* 20 windows later they are out of the span */
	add(&w, 1, PL_CPUWIN_SLOTS);
	pl_cpuwin__recent(&w, &r);
	assert_int_equal(r.clones, 0);
	assert_int_equal(r.clone_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuwin_streak_survives_one_dip),
		cmocka_unit_test(test_cpuwin_two_dips_in_a_row_end_the_streak),
		cmocka_unit_test(test_cpuwin_dip_needs_a_run_before_it),
		cmocka_unit_test(test_cpuwin_runq_counts_as_busy),
		cmocka_unit_test(test_cpuwin_recent_share_is_the_last_20_windows),
		cmocka_unit_test(test_cpuwin_clones_charged_to_the_next_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
