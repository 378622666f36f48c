// SPDX-License-Identifier: MIT
/*
 * test_proctable.c - the user-space process table: bounded, keyed by tgid,
 * failed-path keys bounded per image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "process/proctable.h"

#define MAX 4

static int setup(void **state)
{
	struct proctable *t = NULL;

	if (proctable__new(MAX, &t) != 0 || !t)
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	proctable__free(*state);
	return 0;
}

static struct pl_fail_key key_for(uint32_t i)
{
	struct pl_fail_key k = { .image_id = 7, .tgid = 10, .err = 2 };

	snprintf(k.path, sizeof(k.path), "/missing/%u", i);
	return k;
}

static void test_proctable_new_is_empty(void **state)
{
	struct proctable *t = *state;

	assert_int_equal(proctable__count(t), 0);
	assert_null(proctable__get(t, 1));
}

static void test_proctable_reset_creates_entry_found_by_get(void **state)
{
	struct proctable *t = *state;
	struct proc_info *pi = proctable__reset(t, 100, 555);

	assert_non_null(pi);
	assert_int_equal(pi->tgid, 100);
	assert_int_equal(pi->image_id, 555);
	assert_null(pi->exe);
	assert_int_equal(pi->nfails, 0);
	assert_false(pi->have_last);
	assert_ptr_equal(proctable__get(t, 100), pi);
	assert_null(proctable__get(t, 101));
	assert_int_equal(proctable__count(t), 1);
}

static void test_proctable_reset_existing_keeps_entry_and_count(void **state)
{
	struct proctable *t = *state;
	struct proc_info *pi = proctable__reset(t, 100, 1), *again;
	struct pl_fail_key k = key_for(0);

	assert_non_null(pi);
	pi->exe = strdup("/bin/old");
	pi->build_id = strdup("aa");
	pi->cmdline = strdup("old");
	pi->filename = strdup("/bin/old");
	memcpy(pi->exec_comm, "old", 4);
	pi->flags = 4;
	pi->have_last = true;
	pi->exe_dev = 8u << 20 | 1;
	pi->exe_ino = 42;
	pi->filename_truncated = true;
	assert_true(proc_info__add_fail(pi, &k, false));
	pi->fail_other = 5;
	pi->live_interval = 7;

	again = proctable__reset(t, 100, 2);
	assert_ptr_equal(again, pi);
	assert_int_equal(proctable__count(t), 1);
	assert_int_equal(again->image_id, 2);
	assert_null(again->exe);
	assert_null(again->build_id);
	assert_null(again->cmdline);
	assert_null(again->filename);
	assert_null(again->fails);
	assert_int_equal(again->nfails, 0);
	assert_int_equal(again->fails_cap, 0);
	assert_int_equal(again->fail_other, 0);
	assert_int_equal(again->live_interval, 0);
	assert_false(again->have_last);
	assert_int_equal(again->flags, 0);
	assert_string_equal(again->exec_comm, "");
	assert_int_equal(again->exe_dev, 0);
	assert_int_equal(again->exe_ino, 0);
	assert_false(again->filename_truncated);
}

static void test_proctable_full_returns_null(void **state)
{
	struct proctable *t = *state;

	for (uint32_t i = 1; i <= MAX; i++)
		assert_non_null(proctable__reset(t, i, i));
	assert_int_equal(proctable__count(t), MAX);
	assert_null(proctable__reset(t, MAX + 1, 1));
	assert_null(proctable__get(t, MAX + 1));
	assert_int_equal(proctable__count(t), MAX);
	/* an existing entry can still be reset when full */
	assert_ptr_equal(proctable__reset(t, 2, 99), proctable__get(t, 2));
	/* removing one makes room */
	proctable__remove(t, 3);
	assert_int_equal(proctable__count(t), MAX - 1);
	assert_non_null(proctable__reset(t, MAX + 1, 1));
	assert_int_equal(proctable__count(t), MAX);
}

static void test_proctable_zero_max_never_adds(void **state)
{
	struct proctable *t = NULL;

	assert_int_equal(proctable__new(0, &t), 0);
	assert_null(proctable__reset(t, 1, 1));
	assert_int_equal(proctable__count(t), 0);
	proctable__free(t);
	proctable__free(NULL); /* NULL-safe */
}

static void test_proctable_remove_in_colliding_chain(void **state)
{
	struct proctable *t = *state;
	/* tgid and tgid + k * 16384 share a bucket (NBUCKETS is 16384) */
	uint32_t a = 5, b = 5 + 16384, c = 5 + 2 * 16384;

	assert_non_null(proctable__reset(t, a, 1));
	assert_non_null(proctable__reset(t, b, 2));
	assert_non_null(proctable__reset(t, c, 3));
	proctable__remove(t, b);
	assert_int_equal(proctable__count(t), 2);
	assert_null(proctable__get(t, b));
	assert_non_null(proctable__get(t, a));
	assert_int_equal(proctable__get(t, a)->image_id, 1);
	assert_non_null(proctable__get(t, c));
	assert_int_equal(proctable__get(t, c)->image_id, 3);
	/* removing an absent tgid changes nothing */
	proctable__remove(t, b);
	proctable__remove(t, 12345);
	assert_int_equal(proctable__count(t), 2);
	proctable__remove(t, c);
	proctable__remove(t, a);
	assert_int_equal(proctable__count(t), 0);
	assert_null(proctable__get(t, a));
}

/* An entry no complete pass over the kernel's table found for 3 passes in
 * a row goes (its end record was lost); one found, or made since, stays;
 * one in a colliding chain goes without its neighbours. */
static void test_proctable_sweep_removes_entries_gone_from_the_kernel(void **state)
{
	struct proctable *t = *state;
	uint32_t live = 5, gone = 5 + 16384, late = 7;

	assert_non_null(proctable__reset(t, live, 1));
	assert_non_null(proctable__reset(t, gone, 2));
	for (int pass = 0; pass < 2; pass++) {
		proctable__begin_pass(t);
		proctable__mark(t, live);
		assert_int_equal(proctable__sweep(t, 3), 0);
	}
	assert_non_null(proctable__reset(t, late, 3)); /* made after those passes */
	proctable__begin_pass(t);
	proctable__mark(t, live);
	assert_int_equal(proctable__sweep(t, 3), 1);
	assert_null(proctable__get(t, gone));
	assert_non_null(proctable__get(t, live));
	assert_non_null(proctable__get(t, late));
	proctable__begin_pass(t);
	proctable__mark(t, live);
	assert_int_equal(proctable__sweep(t, 3), 0);
	proctable__begin_pass(t);
	proctable__mark(t, live);
	assert_int_equal(proctable__sweep(t, 3), 1); /* late, never found by a pass */
	assert_int_equal(proctable__count(t), 1);
	assert_int_equal(proctable__swept(t), 2);
}

static void count_cb(struct proc_info *pi, void *ctx)
{
	uint64_t *sum = ctx;

	sum[0]++;
	sum[1] += pi->tgid;
}

static void test_proctable_foreach_visits_every_entry_once(void **state)
{
	struct proctable *t = *state;
	uint64_t acc[2] = { 0, 0 };

	assert_non_null(proctable__reset(t, 10, 1));
	assert_non_null(proctable__reset(t, 20, 1));
	assert_non_null(proctable__reset(t, 10 + 16384, 1));
	proctable__foreach(t, count_cb, acc);
	assert_int_equal(acc[0], 3);
	assert_int_equal(acc[1], 10 + 20 + 10 + 16384);
}

static void test_proc_info_add_fail_grows_and_keeps_keys(void **state)
{
	struct proctable *t = *state;
	struct proc_info *pi = proctable__reset(t, 10, 7);

	assert_non_null(pi);
	for (uint32_t i = 0; i < 9; i++) {
		struct pl_fail_key k = key_for(i);

		assert_true(proc_info__add_fail(pi, &k, i % 2 == 1));
	}
	assert_int_equal(pi->nfails, 9);
	assert_true(pi->fails_cap >= 9);
	for (uint32_t i = 0; i < 9; i++) {
		char want[32];

		snprintf(want, sizeof(want), "/missing/%u", i);
		assert_string_equal(pi->fails[i].key.path, want);
		assert_int_equal(pi->fails[i].key.err, 2);
		assert_int_equal(pi->fails[i].truncated, i % 2 == 1);
		assert_true(pi->fails[i].in_kernel);
		assert_int_equal(pi->fails[i].folded, 0);
	}
}

static void test_proc_info_add_fail_stops_at_max(void **state)
{
	struct proctable *t = *state;
	struct proc_info *pi = proctable__reset(t, 10, 7);

	assert_non_null(pi);
	for (uint32_t i = 0; i < PROC_MAX_FAIL_KEYS; i++) {
		struct pl_fail_key k = key_for(i);

		assert_true(proc_info__add_fail(pi, &k, false));
	}
	assert_int_equal(pi->nfails, PROC_MAX_FAIL_KEYS);
	for (uint32_t i = 0; i < 3; i++) {
		struct pl_fail_key k = key_for(1000 + i);

		assert_false(proc_info__add_fail(pi, &k, false));
		assert_null(proc_info__find_fail(pi, &k));
		assert_int_equal(pi->nfails, PROC_MAX_FAIL_KEYS);
	}
	assert_string_equal(pi->fails[PROC_MAX_FAIL_KEYS - 1].key.path, "/missing/255");

	/* a new image starts over */
	pi = proctable__reset(t, 10, 8);
	assert_int_equal(pi->nfails, 0);
	{
		struct pl_fail_key k = key_for(0);

		assert_true(proc_info__add_fail(pi, &k, false));
	}
	assert_int_equal(pi->nfails, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_proctable_new_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proctable_reset_creates_entry_found_by_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proctable_reset_existing_keeps_entry_and_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proctable_full_returns_null, setup, teardown),
		cmocka_unit_test(test_proctable_zero_max_never_adds),
		cmocka_unit_test_setup_teardown(test_proctable_remove_in_colliding_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proctable_sweep_removes_entries_gone_from_the_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proctable_foreach_visits_every_entry_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_info_add_fail_grows_and_keeps_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_info_add_fail_stops_at_max, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("proctable", tests, NULL, NULL);
}
