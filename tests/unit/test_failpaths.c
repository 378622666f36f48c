// SPDX-License-Identifier: MIT
/*
 * test_failpaths.c - the life of a failed-path key, against a table in memory
 * that stands in for the kernel's `fail_paths` and `procs` maps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process/failpaths.h"

#include "fake_failpaths.h"

#define SEC 1000000000ull

struct ctx {
	struct fake_failpaths k;
	struct proctable *procs;
	struct failpaths *fp;
};

static struct pl_fail_key key(uint32_t tgid, uint64_t image, const char *path)
{
	return fake_failpaths__key(tgid, image, 2, path);
}

/* The kernel inserting a key with `count` failures at time t, and the
 * FAIL_PATH record that announces it reaching user space. */
static struct pl_fail_key *kernel_fails(struct ctx *c, uint32_t tgid, uint64_t image, const char *path,
					uint64_t count, uint64_t t)
{
	struct pl_fail_key k = key(tgid, image, path);
	struct pl_ev_fail_path ev = { .hdr = { .tgid = tgid }, .key = k };
	bool fresh;
	int i = fake_failpaths__fail(&c->k, &k, count, t, &fresh);

	if (fresh)
		failpaths__on_record(c->fp, &ev);
	return &c->k.keys[i];
}

static unsigned table_size(struct ctx *c)
{
	return fake_failpaths__size(&c->k);
}

static uint64_t listed(struct ctx *c, struct proc_info *pi, const char *path, bool consume)
{
	uint32_t n;
	struct pl_fail *fc = failpaths__collect(c->fp, pi, consume, &n);
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		if (strcmp(fc[i].path, path) == 0)
			v = fc[i].count;
	free(fc);
	return v;
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct failpaths_table tbl;

	assert_non_null(c);
	tbl = fake_failpaths__table(&c->k);
	assert_int_equal(proctable__new(1024, &c->procs), 0);
	assert_int_equal(failpaths__new(&tbl, c->procs, &c->fp), 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	failpaths__free(c->fp);
	proctable__free(c->procs);
	free(c);
	return 0;
}

static void test_collect_sums_the_table_and_consume_deletes(void **state)
{
	struct ctx *c = *state;
	struct proc_info *pi = proctable__reset(c->procs, 10, 1);

	kernel_fails(c, 10, 1, "/a", 3, 0);
	kernel_fails(c, 10, 1, "/b", 1, 0);
	kernel_fails(c, 10, 1, "/a", 4, 0);
	assert_int_equal(pi->nfails, 2);
	assert_int_equal(listed(c, pi, "/a", false), 7);
	assert_int_equal(table_size(c), 2);
	assert_int_equal(listed(c, pi, "/b", true), 1);
	assert_int_equal(table_size(c), 0);
}

static void test_records_of_unknown_images_are_counted_not_remembered(void **state)
{
	struct ctx *c = *state;
	struct proc_info *pi = proctable__reset(c->procs, 10, 2);

	kernel_fails(c, 10, 1, "/old-image", 1, 0);
	kernel_fails(c, 11, 1, "/unknown-process", 1, 0);
	assert_int_equal(pi->nfails, 0);
	assert_int_equal(failpaths__stats(c->fp)->unremembered, 2);
}

static void test_sweep_deletes_orphans_keeps_images_the_kernel_tracks(void **state)
{
	struct ctx *c = *state;

	proctable__reset(c->procs, 10, 2);
	c->k.live_tgid = 20;
	c->k.live_image = 5;
	kernel_fails(c, 10, 1, "/ended-by-exec", 1, 0); /* tgid 10 is on image 2 now */
	kernel_fails(c, 30, 1, "/gone", 1, 0);          /* nobody tracks tgid 30 */
	kernel_fails(c, 20, 5, "/kernel-only", 1, 100 * SEC);
	failpaths__sweep(c->fp, 101 * SEC);
	assert_int_equal(table_size(c), 1);
	assert_int_equal(failpaths__stats(c->fp)->orphans_swept, 2);
	assert_int_equal(failpaths__stats(c->fp)->table_entries, 1);
	/* ... until it is old enough to be a key whose record was lost */
	failpaths__sweep(c->fp, 110 * SEC);
	assert_int_equal(table_size(c), 0);
	assert_int_equal(failpaths__stats(c->fp)->unknown_swept, 1);
}

static void test_idle_keys_move_out_and_come_back_with_exact_counts(void **state)
{
	struct ctx *c = *state;
	struct proc_info *pi = proctable__reset(c->procs, 10, 1);
	struct pl_fail_key *busy;

	kernel_fails(c, 10, 1, "/idle", 5, 0);
	busy = kernel_fails(c, 10, 1, "/busy", 1, 0);
	failpaths__sweep(c->fp, 1 * SEC); /* notes the counts */
	assert_int_equal(table_size(c), 2);
	c->k.vals[fake_failpaths__find(&c->k, busy)].count++;
	failpaths__sweep(c->fp, 2 * SEC); /* /idle unchanged since: out */
	assert_int_equal(table_size(c), 1);
	assert_int_equal(failpaths__stats(c->fp)->idle_moved, 1);
	assert_int_equal(listed(c, pi, "/idle", false), 5);
	assert_int_equal(listed(c, pi, "/busy", false), 2);

	/* the kernel inserts it anew and says so; the list keeps one entry */
	kernel_fails(c, 10, 1, "/idle", 2, 3 * SEC);
	assert_int_equal(pi->nfails, 2);
	assert_int_equal(listed(c, pi, "/idle", true), 7);
	assert_int_equal(table_size(c), 0);
}

static void test_a_full_list_makes_room_by_displacing_the_fewest(void **state)
{
	struct ctx *c = *state;
	struct proc_info *pi = proctable__reset(c->procs, 10, 1);
	char path[32];

	for (int i = 0; i < PROC_MAX_FAIL_KEYS; i++) {
		snprintf(path, sizeof(path), "/p%d", i);
		kernel_fails(c, 10, 1, path, i == 17 ? 1 : 3, 0);
	}
	assert_int_equal(pi->nfails, PROC_MAX_FAIL_KEYS);
	kernel_fails(c, 10, 1, "/storm", 1000, 0);
	assert_int_equal(pi->nfails, PROC_MAX_FAIL_KEYS);
	assert_int_equal(listed(c, pi, "/storm", false), 1000);
	assert_int_equal(listed(c, pi, "/p17", false), 0);
	assert_int_equal(pi->fail_other, 1);
	assert_int_equal(failpaths__stats(c->fp)->displaced, 1);
	/* the displaced key left the table with it */
	assert_int_equal(table_size(c), PROC_MAX_FAIL_KEYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collect_sums_the_table_and_consume_deletes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records_of_unknown_images_are_counted_not_remembered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sweep_deletes_orphans_keeps_images_the_kernel_tracks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_idle_keys_move_out_and_come_back_with_exact_counts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_full_list_makes_room_by_displacing_the_fewest, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
