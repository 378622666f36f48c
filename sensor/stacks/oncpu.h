/* SPDX-License-Identifier: MIT */
/*
 * oncpu.h - on-CPU samples, from the kernel's records to an image's evidence.
 *
 * Every sample reaches user space as one record (bpf/oncpu.bpf.c: the
 * thread's user registers, its kernel stack, a copy of the top of its user
 * stack). This module, for each record:
 *
 *  - finds the process's executable mappings (procmaps.h: the kernel's
 *    mapping reports and /proc/PID/maps) and unwinds the user stack through
 *    the objects' own unwind tables (unwind.h), since Debian's binaries have
 *    no frame pointers;
 *  - names every frame (symbols.h: by build-id + file offset, so frames of a
 *    process that is gone are still named; kernel frames from kallsyms);
 *  - adds the sample to its image's stacks, merged by function: two samples
 *    whose frames are the same functions (whatever the instruction inside
 *    them) are one stack. A stack the walk could not finish is rooted under
 *    a "[stack cut]" frame that says why, so it never poses as a whole one.
 *
 * When the image ends its stacks are summed up: samples per object, per
 * function, the heaviest stacks. Every sample is counted in its image by
 * the kernel (pl_proc.oncpu_samples): what the stacks do not account for is
 * reported as unattributed, by reason, never dropped.
 *
 * Bounded: ONCPU_MAX_STACKS distinct stacks per image and max_stacks for
 * all live images together; past either, a new stack's samples count as
 * unattributed ("stack_table_full").
 */
#ifndef PL_ONCPU_H
#define PL_ONCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plumbline.h"
#include "sample.h"
#include "stacks/procmaps.h"
#include "stacks/symbols.h"
#include "stacks/unwind.h"

#define ONCPU_MAX_STACKS 512 /* distinct stacks held per image */
#define ONCPU_TOP 32         /* stacks an image's evidence lists */
#define ONCPU_SWEEP_S 10     /* seconds between sweeps */

/* The kernel's side (bpfsensor__oncpu_table()). */
struct oncpu_table {
	void *ctx;
	bool (*image_live)(void *ctx, uint32_t tgid, uint64_t image_id);
	/* deliver every mapping report and sample still in the kernel's buffers
	 * (before an image's end is summed up, so its last samples are in) */
	void (*drain)(void *ctx);
};

struct oncpu_stats {
	uint64_t samples;          /* sample records taken */
	uint64_t malformed;        /* ... refused (sizes that do not add up) */
	uint64_t user_frames;      /* user frames unwound and named */
	uint64_t kernel_frames;    /* kernel frames named */
	uint64_t stacks_cut;       /* samples whose user stack the walk could not finish */
	uint64_t no_mappings;      /* samples of a process whose mappings are unknown (the sampled pc alone) */
	uint64_t stacks_held;      /* distinct stacks held now, all images */
	uint64_t table_full;       /* samples of a new stack past ONCPU_MAX_STACKS or max_stacks */
	uint64_t orphans_swept;    /* images dropped by the sweep: ended without a word */
	uint64_t unwind_ns;        /* time spent unwinding and naming, all samples */
	uint64_t names_cached;     /* user frames named from the cache */
};

/* What one image's samples add up to: the sample's oncpu fields point in
 * here. Free with oncpu_result__free(); the frames point into this result
 * and the names into the symbols' caches (valid until symbols__free()). */
struct oncpu_result {
	struct pl_oncpu oc;
	struct pl_oncpu_obj *objs;
	struct pl_oncpu_fn *fns;
	struct pl_stack *stacks;
	struct pl_frame *frames; /* of the stacks, one block */
};

struct oncpu;

/* tbl is copied; sym is borrowed and must outlive oc. max_stacks: distinct
 * stacks held for all live images; rate_hz: the sampling frequency.
 * 0 or -ENOMEM. */
int oncpu__new(const struct oncpu_table *tbl, struct symbols *sym, uint32_t max_stacks, uint32_t rate_hz,
	       struct oncpu **ret);
void oncpu__free(struct oncpu *oc);

/* A mapping report of the kernel (build_id: len bytes, 0 when unknown). */
void oncpu__on_mmap(struct oncpu *oc, uint32_t pid, uint64_t addr, uint64_t maplen, uint64_t pgoff,
		    const uint8_t *build_id, size_t len, const char *path);

/* A sample record of size bytes. */
void oncpu__on_sample(struct oncpu *oc, const struct pl_ev_sample *ev, size_t size);

/* What oncpu__collect() is asked at. */
enum oncpu_at {
	ONCPU_RUNNING, /* the image runs on: its stacks stay */
	ONCPU_EXEC,    /* the image ended in an exec: the process's mappings stay (the new image's are reported already) */
	ONCPU_EXIT,    /* the process ended: its mappings go too */
};

/*
 * The samples of image_id, of which the kernel counted `total` in all and
 * `ring_lost` could not send: the result, or NULL when there are none (or
 * on ENOMEM). At an exec or an exit the image has ended: its last samples
 * are drained from the kernel first, and its stacks are forgotten.
 */
struct oncpu_result *oncpu__collect(struct oncpu *oc, uint32_t tgid, uint64_t image_id, uint64_t total,
				    uint64_t ring_lost, enum oncpu_at at);
void oncpu_result__free(struct oncpu_result *r);
static inline void oncpu_result_freep(struct oncpu_result **r)
{
	oncpu_result__free(*r);
}

/* A window sample carries the stacks so far when its second was this busy. */
#define ONCPU_WINDOW_MIN_CPU_NS 100000000ull

/* Every second (now: CLOCK_MONOTONIC ns). */
void oncpu__tick(struct oncpu *oc, uint64_t now_ns);
/* Every ONCPU_SWEEP_S: images that ended without a word are dropped. */
void oncpu__sweep(struct oncpu *oc, uint64_t now_ns);

const struct oncpu_stats *oncpu__stats(const struct oncpu *oc);
const struct unwind_stats *oncpu__unwind_stats(const struct oncpu *oc);
const struct procmaps_stats *oncpu__procmaps_stats(const struct oncpu *oc);

#endif
