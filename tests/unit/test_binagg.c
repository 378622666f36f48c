// SPDX-License-Identifier: MIT
/*
 * test_binagg.c - per-binary activity over the last second (sensor/process/binagg.c):
 * what is added during a second is read only once the tick closes it, and
 * only until the next one; the top path is the one with the most failures
 * among a bounded set of candidates; binaries beyond the bound are counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "process/binagg.h"

static int setup(void **state)
{
	struct binagg *a = NULL;

	assert_int_equal(binagg__new(4, &a), 0);
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	binagg__free(*state);
	return 0;
}

static struct pl_bin get(struct binagg *a, const char *id)
{
	struct pl_bin b;

	memset(&b, 0xa5, sizeof(b)); /* every field is written, present or not */
	binagg__get(a, id, &b);
	return b;
}

static void assert_absent(struct pl_bin b)
{
	assert_false(b.present);
	assert_int_equal(b.procs, 0);
	assert_true(b.open_failures_per_s == 0);
	assert_null(b.top_fail_path);
	assert_true(isnan(b.top_fail_share));
}

static void test_binagg_second_is_read_after_its_tick_and_until_the_next(void **state)
{
	struct binagg *a = *state;
	struct pl_bin b;

	binagg__add(a, "build-id:aa", 0, NULL, 0);
	binagg__add(a, "build-id:aa", 0, NULL, 0);
	/* the current second is not the last one yet */
	assert_absent(get(a, "build-id:aa"));
	binagg__tick(a, 1.0);
	b = get(a, "build-id:aa");
	assert_true(b.present);
	assert_int_equal(b.procs, 2);
	assert_true(b.open_failures_per_s == 0);
	assert_null(b.top_fail_path);
	assert_true(isnan(b.top_fail_share)); /* no failure: no share */
	/* during the next second, the last one holds; adds go to the next */
	binagg__add(a, "build-id:aa", 0, NULL, 0);
	assert_int_equal(get(a, "build-id:aa").procs, 2);
	binagg__tick(a, 1.0);
	assert_int_equal(get(a, "build-id:aa").procs, 1);
	/* a second without activity: nothing */
	binagg__tick(a, 1.0);
	assert_absent(get(a, "build-id:aa"));
	/* and a binary never seen, or none */
	assert_absent(get(a, "build-id:bb"));
	assert_absent(get(a, NULL));
}

static void test_binagg_top_path_is_the_one_that_failed_most_across_processes(void **state)
{
	struct binagg *a = *state;
	struct pl_bin b;

	/* three processes: /a 10, /b 30, /a again 5 */
	binagg__add(a, "build-id:aa", 10, "/a", 10);
	binagg__add(a, "build-id:aa", 30, "/b", 30);
	binagg__add(a, "build-id:aa", 5, "/a", 5);
	/* another binary's failures are its own */
	binagg__add(a, "build-id:bb", 1000, "/a", 1000);
	binagg__tick(a, 1.0);
	b = get(a, "build-id:aa");
	assert_true(b.present);
	assert_int_equal(b.procs, 3);
	assert_true(b.open_failures_per_s == 45);
	assert_string_equal(b.top_fail_path, "/b");
	assert_true(b.top_fail_share == 30.0 / 45);
	b = get(a, "build-id:bb");
	assert_string_equal(b.top_fail_path, "/a");
	assert_true(b.top_fail_share == 1);

	/* /a overtakes /b the next second, added up over processes */
	binagg__add(a, "build-id:aa", 20, "/b", 20);
	binagg__add(a, "build-id:aa", 15, "/a", 15);
	binagg__add(a, "build-id:aa", 15, "/a", 15);
	binagg__tick(a, 1.0);
	b = get(a, "build-id:aa");
	assert_string_equal(b.top_fail_path, "/a");
	assert_true(b.top_fail_share == 30.0 / 50);
}

static void test_binagg_rate_is_over_the_length_of_the_second(void **state)
{
	struct binagg *a = *state;

	binagg__add(a, "build-id:aa", 300, "/a", 300);
	binagg__tick(a, 1.5); /* a late tick */
	assert_true(get(a, "build-id:aa").open_failures_per_s == 200);
	binagg__add(a, "build-id:aa", 300, "/a", 300);
	binagg__tick(a, 0); /* no length known: one second */
	assert_true(get(a, "build-id:aa").open_failures_per_s == 300);
	binagg__add(a, "build-id:aa", 300, "/a", 300);
	binagg__tick(a, -2);
	assert_true(get(a, "build-id:aa").open_failures_per_s == 300);
}

/* At most 8 candidate paths per binary and second: a new path takes the
 * place of the smallest, if it is bigger. */
static void test_binagg_keeps_the_biggest_candidate_paths(void **state)
{
	struct binagg *a = *state;
	char path[16];
	struct pl_bin b;

	for (int i = 1; i <= 8; i++) {
		snprintf(path, sizeof(path), "/p%d", i);
		binagg__add(a, "build-id:aa", (uint64_t)i, path, (uint64_t)i);
	}
	binagg__add(a, "build-id:aa", 1, "/small", 1); /* not bigger than /p1: dropped */
	binagg__add(a, "build-id:aa", 9, "/big", 9);   /* takes /p1's place */
	binagg__add(a, "build-id:aa", 2, "/small", 2); /* not bigger than /p2 (the smallest now): dropped */
	binagg__add(a, "build-id:aa", 3, "/p2", 3);    /* a candidate adds up: 5 */
	binagg__add(a, "build-id:aa", 4, "/mid", 4);   /* takes /p3's place (3) */
	binagg__add(a, "build-id:aa", 7, "/p4", 7);    /* 11: the top */
	binagg__tick(a, 1.0);
	b = get(a, "build-id:aa");
	assert_int_equal(b.procs, 14);
	assert_true(b.open_failures_per_s == 36 + 1 + 9 + 2 + 3 + 4 + 7);
	assert_string_equal(b.top_fail_path, "/p4");
	assert_true(b.top_fail_share == 11.0 / 62);
	/* a tie keeps the first */
	binagg__add(a, "build-id:aa", 5, "/x", 5);
	binagg__add(a, "build-id:aa", 5, "/y", 5);
	binagg__tick(a, 1.0);
	assert_string_equal(get(a, "build-id:aa").top_fail_path, "/x");
}

/* More binaries in a second than the table holds: the rest are counted, and
 * read as absent; the next second starts afresh. */
static void test_binagg_counts_binaries_beyond_its_bound(void **state)
{
	struct binagg *a = *state;
	char id[32];

	for (int i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "build-id:%d", i);
		binagg__add(a, id, 1, "/a", 1);
		binagg__add(a, id, 1, "/a", 1);
	}
	/* 4 tracked; the 2 others refused twice each */
	assert_int_equal(binagg__overflow(a), 4);
	binagg__add(a, NULL, 1, "/a", 1); /* no binary: nothing, not an overflow */
	assert_int_equal(binagg__overflow(a), 4);
	binagg__tick(a, 1.0);
	for (int i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "build-id:%d", i);
		if (i < 4)
			assert_int_equal(get(a, id).procs, 2);
		else
			assert_absent(get(a, id));
	}
	binagg__add(a, "build-id:5", 1, "/a", 1);
	binagg__tick(a, 1.0);
	assert_int_equal(get(a, "build-id:5").procs, 1);
	assert_int_equal(binagg__overflow(a), 4);
}

/* Many binaries over many seconds: the table never fills, entries never
 * leak from one second to the next (run under ASan for the frees). */
static void test_binagg_many_seconds_of_many_binaries(void **state)
{
	struct binagg *a = NULL;
	char id[32], path[32];

	(void)state;
	assert_int_equal(binagg__new(1000, &a), 0);
	for (int sec = 0; sec < 20; sec++) {
		for (int i = 0; i < 1000; i++) {
			snprintf(id, sizeof(id), "sha256:%d", (i * 7 + sec) % 1500);
			snprintf(path, sizeof(path), "/p/%d", i % 13);
			binagg__add(a, id, (uint64_t)i % 5, path, (uint64_t)i % 5);
		}
		binagg__tick(a, 1.0);
	}
	assert_int_equal(binagg__overflow(a), 0);
	snprintf(id, sizeof(id), "sha256:%d", (0 * 7 + 19) % 1500);
	assert_true(get(a, id).present);
	binagg__free(a);
}

#define S_NS 1000000000ull

/* One process of binary id ending at now_s (seconds), failing paths, once each. */
static void proc_fails(struct binagg *a, const char *id, double now_s, const char *const *paths, int n)
{
	struct pl_fail f[32];

	for (int i = 0; i < n; i++)
		f[i] = (struct pl_fail){ .path = paths[i], .err = 2, .count = 1 };
	binagg__add(a, id, (uint64_t)n, n ? paths[0] : NULL, 1);
	binagg__add_fails(a, id, f, (uint32_t)n, (uint64_t)(now_s * S_NS));
}

/* The cat: 16 usual failures, then one more, new, in every process. */
static void test_binagg_storm_of_a_new_path_beside_usual_failures(void **state)
{
	struct binagg *a = *state;
	const char *paths[17];
	char buf[16][32];
	struct pl_bin b;

	for (int i = 0; i < 16; i++) {
		snprintf(buf[i], sizeof(buf[i]), "/usr/lib/locale/%d", i);
		paths[i] = buf[i];
	}
	paths[16] = "/etc/app/flags.json";
	/* first seen at 100 s: its usual failures; nothing is new yet */
	for (int p = 0; p < 30; p++)
		proc_fails(a, "cat", 100.0 + p * 0.01, paths, 16);
	binagg__tick(a, 1.0);
	b = get(a, "cat");
	assert_null(b.storm_path);
	/* 20 s later, 40 processes each fail the usual paths and the new one */
	for (int p = 0; p < 40; p++)
		proc_fails(a, "cat", 120.0 + p * 0.01, paths, 17);
	binagg__tick(a, 1.0);
	b = get(a, "cat");
	assert_non_null(b.storm_path);
	assert_string_equal(b.storm_path, "/etc/app/flags.json");
	assert_int_equal(b.storm_procs, 40);
	assert_true(fabs(b.storm_failures_per_s - 40.0) < 1e-9);
	assert_string_equal(b.storm_paths, "/etc/app/flags.json");
	assert_false(b.storm_new_binary);
	/* 15 s after it was first failed, the path is no longer new */
	for (int p = 0; p < 40; p++)
		proc_fails(a, "cat", 135.0 + p * 0.01, paths, 17);
	binagg__tick(a, 1.0);
	assert_null(get(a, "cat").storm_path);
}

/*
 * A binary first seen at its storm (issue 18: 4,700 cats in 8 s, starting 8 s after the
 * sensor): its usual failures, which other programs failed first, are not new; the path of
 * its own that every process fails is the storm.
 */
static void test_binagg_storm_from_a_binary_first_seen_at_the_storm(void **state)
{
	struct binagg *a = *state;
	const char *paths[17];
	char buf[16][32];
	struct pl_bin b;

	for (int i = 0; i < 16; i++) {
		snprintf(buf[i], sizeof(buf[i]), "/usr/lib/locale/%d", i);
		paths[i] = buf[i];
	}
	paths[16] = "/etc/app/flags.json";
	/* ordinary work before: ls fails the locale files */
	proc_fails(a, "ls", 2.0, paths, 16);
	binagg__tick(a, 1.0);
	/* at 8 s the first cats: each fails the locale files and the missing file */
	for (int p = 0; p < 40; p++)
		proc_fails(a, "fresh-cat", 8.0 + p * 0.01, paths, 17);
	binagg__tick(a, 1.0);
	b = get(a, "fresh-cat");
	assert_non_null(b.storm_path);
	assert_string_equal(b.storm_path, "/etc/app/flags.json");
	assert_int_equal(b.storm_procs, 40);
	assert_string_equal(b.storm_paths, "/etc/app/flags.json");
	assert_true(b.storm_new_binary);
}

/* A binary first seen with failures no other program had: its usual, many alike, not a storm. */
static void test_binagg_no_storm_from_a_new_binary_failing_its_usual_alone(void **state)
{
	struct binagg *a = *state;
	const char *paths[17];
	char buf[17][32];

	for (int i = 0; i < 17; i++) {
		snprintf(buf[i], sizeof(buf[i]), "/usr/lib/locale/%d", i);
		paths[i] = buf[i];
	}
	/* nothing else ran: its 17 usual failures are all its own, and alike */
	for (int p = 0; p < 50; p++)
		proc_fails(a, "fresh", 5.0 + p * 0.01, paths, 17);
	binagg__tick(a, 1.0);
	assert_null(get(a, "fresh").storm_path);
}

/* A compiler in a new project fails many new paths alike: not a storm. */
static void test_binagg_many_new_paths_alike_are_not_a_storm(void **state)
{
	struct binagg *a = *state;
	const char *usual[] = { "/usr/local/include/stdio.h" };
	const char *paths[12];
	char buf[12][48];

	proc_fails(a, "cc1", 10.0, usual, 1);
	binagg__tick(a, 1.0);
	for (int i = 0; i < 12; i++) {
		snprintf(buf[i], sizeof(buf[i]), "/src/newproj/include/h%d.h", i);
		paths[i] = buf[i];
	}
	for (int p = 0; p < 30; p++)
		proc_fails(a, "cc1", 30.0 + p * 0.01, paths, 12);
	binagg__tick(a, 1.0);
	assert_null(get(a, "cc1").storm_path);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_binagg_second_is_read_after_its_tick_and_until_the_next),
	    T(test_binagg_top_path_is_the_one_that_failed_most_across_processes),
	    T(test_binagg_rate_is_over_the_length_of_the_second),
	    T(test_binagg_keeps_the_biggest_candidate_paths),
	    T(test_binagg_counts_binaries_beyond_its_bound),
	    T(test_binagg_many_seconds_of_many_binaries),
	    T(test_binagg_storm_of_a_new_path_beside_usual_failures),
	    T(test_binagg_storm_from_a_binary_first_seen_at_the_storm),
	    T(test_binagg_no_storm_from_a_new_binary_failing_its_usual_alone),
	    T(test_binagg_many_new_paths_alike_are_not_a_storm),
	};
#undef T

	return cmocka_run_group_tests_name("binagg", tests, NULL, NULL);
}
