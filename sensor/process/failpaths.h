/* SPDX-License-Identifier: MIT */
/*
 * failpaths.h - failed-open paths, between the kernel's table and the records.
 *
 * The kernel counts failed opens per (image, pid, errno, path) in its
 * `fail_paths` table and announces each new key with a FAIL_PATH record.
 * This module keeps each image's list of the keys user space knows
 * (proc_info.fails, at most PROC_MAX_FAIL_KEYS), reads their counts when a
 * record needs them, and keeps the shared table clean, so that no image,
 * however long it lives and however many paths it fails, can fill the table
 * the rest of the machine is measured with:
 *
 *  - the keys of an ended image are deleted when its record is built
 *    (failpaths__collect(consume)), and any left behind (a record lost) by
 *    the periodic sweep;
 *  - a key of a live image that stayed idle for a whole sweep period is
 *    moved out of the table: its count is folded into the image's list, and
 *    a later failure of that key inserts it anew (the kernel re-announces
 *    it), so a long-lived image holds only the keys it is using;
 *  - a key of a live image that user space does not know (its FAIL_PATH
 *    record was lost) is deleted by the sweep once it is a few seconds old;
 *  - when an image's list is full, a new path displaces the listed path
 *    with the fewest failures; that path's count moves to the image's
 *    `fail_other`, so a new storm in a long-lived service is always named;
 *  - once the table is 3/4 full (an estimate: the last sweep's count, plus
 *    keys announced, minus keys deleted since), an image announcing a new
 *    key keeps only FAILPATHS_KEEP_WHEN_FULL of its keys in the table: the
 *    others are moved out as idle keys are (counts kept). Many long-lived
 *    images each failing paths of their own thus cannot fill the table
 *    between two sweeps, and a storm's first failure finds room.
 *
 * The kernel also caps how fast one image may insert new keys (a burst of
 * PROC_MAX_FAIL_KEYS, then 32 per second), and never tracks the sensor's
 * own failures by path. Per-path counts are exact, except for a failure
 * that lands in the microseconds between the sweep reading an idle key and
 * deleting it; an image's total (pl_stats.open_fail) is exact regardless.
 *
 * The kernel's tables are reached through struct failpaths_table, so the
 * logic runs in unit tests against a table in memory.
 */
#ifndef PL_FAILPATHS_H
#define PL_FAILPATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "plumbline.h"
#include "process/proctable.h"
#include "sample.h"

/* The kernel's side, as the sensor sees it (bpfsensor__fail_table()). */
struct failpaths_table {
	void *ctx;
	/* The value of key k: 0 and *ret, or -ENOENT (or another -errno). */
	int (*lookup)(void *ctx, const struct pl_fail_key *k, struct pl_fail_val *ret);
	/* Delete key k: 0 or -errno. */
	int (*remove)(void *ctx, const struct pl_fail_key *k);
	/* The key after prev (NULL: the first) into *ret: 0, or -ENOENT at the end. */
	int (*next_key)(void *ctx, const struct pl_fail_key *prev, struct pl_fail_key *ret);
	uint32_t max_entries; /* the table's size; 0: unknown (no trimming when nearly full) */
	/* Whether the kernel still tracks image_id as the image of tgid. */
	bool (*image_live)(void *ctx, uint32_t tgid, uint64_t image_id);
};

/* What happened to keys, for the stats record (docs/records.md). */
struct failpaths_stats {
	uint64_t unremembered;   /* FAIL_PATH records of images user space doesn't know */
	uint64_t displaced;      /* listed paths displaced by new ones (counts kept in fail_other) */
	uint64_t orphans_swept;  /* keys of ended images deleted by the sweep */
	uint64_t idle_moved;     /* idle keys of live images moved out of the table */
	uint64_t unknown_swept;  /* keys of live images that user space didn't know, deleted */
	uint64_t table_entries;  /* keys in the table at the last sweep */
	uint64_t trimmed;        /* keys of live images moved out because the table was nearly full */
};

#define FAILPATHS_KEEP_WHEN_FULL 16 /* keys an image keeps in a nearly full table */

struct failpaths;

/* tbl is copied; procs is borrowed and must outlive fp. 0 or -ENOMEM. */
int failpaths__new(const struct failpaths_table *tbl, struct proctable *procs, struct failpaths **ret);
void failpaths__free(struct failpaths *fp);

/* A FAIL_PATH record: remember the key in its image's list. */
void failpaths__on_record(struct failpaths *fp, const struct pl_ev_fail_path *ev);

/*
 * The failed paths of pi with their counts (folded + in the table), in the
 * order they were learned, or NULL when there are none (or on ENOMEM: the
 * sample then lists no paths). With consume, the image has ended: its keys
 * are deleted from the table. The caller frees the array; its paths point
 * into pi.
 */
struct pl_fail *failpaths__collect(struct failpaths *fp, struct proc_info *pi, bool consume, uint32_t *ret_n);

/* Walk the table once: delete orphans, move idle keys out, drop unknown
 * ones. now_ns is CLOCK_MONOTONIC, the clock of pl_fail_val.first_ns. */
void failpaths__sweep(struct failpaths *fp, uint64_t now_ns);

const struct failpaths_stats *failpaths__stats(const struct failpaths *fp);

#endif
