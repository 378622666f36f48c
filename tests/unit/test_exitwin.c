// SPDX-License-Identifier: MIT
/*
 * test_exitwin.c - failed and successful exits per (binary, user) over the
 * last minute (sensor/process/exitwin.c): counted per pair, this exit
 * included; what is older than 60 s no longer counts; a burst's rate reads
 * per minute over its own span; pairs beyond the bound evict the least
 * recently used, counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "process/exitwin.h"

#define SEC 1000000000ull
#define T0 (1000 * SEC)

static void test_exitwin_counts_per_binary_and_user(void **state)
{
	struct exitwin *w = NULL;
	struct pl_auth a;

	(void)state;
	assert_int_equal(exitwin__new(16, &w), 0);
	/* two typos by uid 1000, a success */
	exitwin__add(w, "/usr/bin/sudo", 1000, true, T0, &a);
	assert_true(a.present && a.failed);
	assert_int_equal(a.failures, 1);
	exitwin__add(w, "/usr/bin/sudo", 1000, true, T0 + 4 * SEC, &a);
	assert_int_equal(a.failures, 2);
	exitwin__add(w, "/usr/bin/sudo", 1000, false, T0 + 5 * SEC, &a);
	assert_false(a.failed);
	assert_int_equal(a.failures, 2);
	assert_int_equal(a.successes, 1);
	/* another user, another binary: their own counts */
	exitwin__add(w, "/usr/bin/sudo", 1001, true, T0 + 5 * SEC, &a);
	assert_int_equal(a.failures, 1);
	assert_int_equal(a.successes, 0);
	exitwin__add(w, "/usr/bin/su", 1000, true, T0 + 5 * SEC, &a);
	assert_int_equal(a.failures, 1);
	/* 61 s after the first: it has left the window, the second has not */
	exitwin__add(w, "/usr/bin/sudo", 1000, true, T0 + 61 * SEC, &a);
	assert_int_equal(a.failures, 2);
	assert_int_equal(a.successes, 1);
	/* NULL exe: nothing */
	exitwin__add(w, NULL, 1000, true, T0, &a);
	assert_false(a.present);
	exitwin__free(w);
}

static void test_exitwin_burst_rate_is_per_minute_over_its_span(void **state)
{
	struct exitwin *w = NULL;
	struct pl_auth a;

	(void)state;
	assert_int_equal(exitwin__new(4, &w), 0);
	for (int i = 0; i < 6; i++)
		exitwin__add(w, "/usr/bin/su", 1000, true, T0 + (uint64_t)i * SEC / 2, &a);
	assert_int_equal(a.failures, 6);
	/* 6 in 2.5 s: 144 per minute */
	assert_true(a.failures_per_min > 143.9 && a.failures_per_min < 144.1);
	/* all within one second: the span counts as 1 s */
	exitwin__add(w, "/usr/bin/sudo", 0, true, T0, &a);
	assert_true(a.failures_per_min > 59.9 && a.failures_per_min < 60.1);
	/* never below the count: 2 over 50 s reads 2, not 2.4 per 60... */
	exitwin__add(w, "/bin/x", 5, true, T0, &a);
	exitwin__add(w, "/bin/x", 5, true, T0 + 50 * SEC, &a);
	assert_true(a.failures_per_min >= 2.0);
	/* more than EXITWIN_KEEP in a minute count as EXITWIN_KEEP */
	for (int i = 0; i < EXITWIN_KEEP + 10; i++)
		exitwin__add(w, "/usr/bin/sudo", 7, true, T0 + (uint64_t)i * (SEC / 10), &a);
	assert_int_equal(a.failures, EXITWIN_KEEP);
	exitwin__free(w);
}

static void test_exitwin_evicts_the_least_recently_used_pair(void **state)
{
	struct exitwin *w = NULL;
	struct pl_auth a;

	(void)state;
	assert_int_equal(exitwin__new(2, &w), 0);
	exitwin__add(w, "/a", 1, true, T0, &a);
	exitwin__add(w, "/b", 1, true, T0 + SEC, &a);
	exitwin__add(w, "/a", 1, true, T0 + 2 * SEC, &a); /* /a used last */
	exitwin__add(w, "/c", 1, true, T0 + 3 * SEC, &a); /* evicts /b */
	assert_int_equal(exitwin__evicted(w), 1);
	exitwin__add(w, "/a", 1, true, T0 + 4 * SEC, &a);
	assert_int_equal(a.failures, 3);
	exitwin__add(w, "/b", 1, true, T0 + 5 * SEC, &a); /* forgotten: starts again (evicts /c) */
	assert_int_equal(a.failures, 1);
	assert_int_equal(exitwin__evicted(w), 2);
	exitwin__free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exitwin_counts_per_binary_and_user),
	    cmocka_unit_test(test_exitwin_burst_rate_is_per_minute_over_its_span),
	    cmocka_unit_test(test_exitwin_evicts_the_least_recently_used_pair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
