/* SPDX-License-Identifier: MIT */
/*
 * oncpu.h - on-CPU samples, from the kernel's tables to an image's evidence.
 *
 * The kernel counts samples per (image, user stack, kernel stack) in its
 * `stack_counts` table and announces each new key with a STACK record; the
 * stacks themselves sit in two stack maps, by id. This module:
 *
 *  - reads each new stack once, while the process still lives, and names
 *    its frames (symbols.h): user frames arrive as build-id + file offset,
 *    so they can be named after the process is gone; a frame the kernel
 *    could only give as an address is placed from /proc/PID/maps now;
 *  - keeps each image's keys (at most ONCPU_MAX_KEYS: a new stack of a full
 *    image displaces the one with the fewest samples, its count kept in
 *    the image's total) and, when the image ends, reads and deletes them
 *    and sums them up: samples per object, per function, the top stacks;
 *  - keeps the shared tables clean: a stack leaves its map a second after
 *    the last image that used it ended (stack ids are hash buckets: a
 *    bucket held by an old stack would make a new stack that hashes there
 *    unattributed), and keys of ended images that were never announced (a
 *    record lost) and stacks nobody announced are deleted by the periodic
 *    sweep, so the tables never fill for good.
 *
 * Every sample is counted in its image (pl_proc.oncpu_samples): what the
 * stacks do not account for is reported as unattributed, never dropped.
 */
#ifndef PL_ONCPU_H
#define PL_ONCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "plumbline.h"
#include "sample.h"
#include "stacks/symbols.h"

#define ONCPU_MAX_KEYS 128 /* stack keys remembered per image */
#define ONCPU_TOP 16       /* stacks an image's evidence lists */
#define ONCPU_SWEEP_S 10   /* seconds between sweeps */

/* The kernel's side (bpfsensor__oncpu_table()). Each call: 0 or -errno. */
struct oncpu_table {
	void *ctx;
	int (*count)(void *ctx, const struct pl_stack_key *k, uint64_t *ret);
	int (*remove)(void *ctx, const struct pl_stack_key *k);
	int (*next_key)(void *ctx, const struct pl_stack_key *prev, struct pl_stack_key *ret);
	int (*ustack)(void *ctx, int32_t id, struct pl_ustack_frame *ret); /* PL_USTACK_DEPTH entries */
	int (*kstack)(void *ctx, int32_t id, uint64_t *ret);                  /* PL_KSTACK_DEPTH entries */
	int (*forget_stack)(void *ctx, bool kernel, int32_t id);
	/* The stack id after prev (-1: the first) in a stack map into *ret: 0, or -ENOENT at the end. */
	int (*next_stack)(void *ctx, bool kernel, int32_t prev, int32_t *ret);
	bool (*image_live)(void *ctx, uint32_t tgid, uint64_t image_id);
};

struct oncpu_stats {
	uint64_t keys;            /* STACK records */
	uint64_t stacks_read;     /* distinct stacks read and named */
	uint64_t stacks_unreadable; /* announced stacks already gone from the stack map */
	uint64_t displaced;       /* keys of full images displaced (counts kept in the total) */
	uint64_t orphans_swept;   /* keys of ended images deleted by the sweep */
	uint64_t stacks_forgotten; /* stacks deleted from the stack maps, unused */
	uint64_t processes_scanned; /* maps read for a file no mapping report named */
};

/* What one image's samples add up to: the sample's oncpu fields point in
 * here. Free with oncpu_result__free(); the frames and names point into
 * this module's and the symbols' caches and stay valid until the next
 * oncpu__tick() or oncpu__sweep(). Stacks that differ only by offsets
 * inside the same functions are merged into one. */
struct oncpu_result {
	struct pl_oncpu oc;
	struct pl_oncpu_obj *objs;
	struct pl_oncpu_fn *fns;
	struct pl_stack *stacks;
};

struct oncpu;

/* tbl is copied; sym is borrowed and must outlive oc. max_stacks: entries
 * of each stack map (ids are below it); rate_hz: the sampling frequency.
 * 0 or -ENOMEM. */
int oncpu__new(const struct oncpu_table *tbl, struct symbols *sym, uint32_t max_stacks, uint32_t rate_hz,
	       struct oncpu **ret);
void oncpu__free(struct oncpu *oc);

/* A STACK record. */
void oncpu__on_record(struct oncpu *oc, const struct pl_ev_stack *ev);

/*
 * The samples of image_id, of which the kernel counted `total` in all: the
 * result, or NULL when there are none (or on ENOMEM). With consume, the
 * image has ended: its keys are deleted from the kernel's table and
 * forgotten.
 */
struct oncpu_result *oncpu__collect(struct oncpu *oc, uint64_t image_id, uint64_t total, bool consume);
void oncpu_result__free(struct oncpu_result *r);
static inline void oncpu_result_freep(struct oncpu_result **r)
{
	oncpu_result__free(*r);
}

/* A window sample carries the stacks so far when its second was this busy. */
#define ONCPU_WINDOW_MIN_CPU_NS 100000000ull

/* Every second (now: CLOCK_MONOTONIC ns): unused stacks leave the maps. */
void oncpu__tick(struct oncpu *oc, uint64_t now_ns);
/* Every ONCPU_SWEEP_S: the whole sweep described above. */
void oncpu__sweep(struct oncpu *oc, uint64_t now_ns);

const struct oncpu_stats *oncpu__stats(const struct oncpu *oc);

#endif
