/* SPDX-License-Identifier: MIT */
/*
 * procmaps.h - the executable mappings of the processes being sampled, as
 * the unwinder needs them (unwind.h: address ranges, file offsets,
 * build-ids, paths).
 *
 * Two sources: the kernel's mapping reports (PERF_RECORD_MMAP2, with
 * build-ids), kept per pid as they arrive, and /proc/PID/maps, read when a
 * process is first sampled in an image and again (at most once a second)
 * when a sample's pc or return address falls outside what is known (a
 * library loaded since, a fork child that inherited its parent's maps and
 * was never reported). A process that is gone keeps what the reports said,
 * so the last samples of a short-lived process still unwind.
 *
 * Files are opened only to read their build-id (bounded reader, regular
 * files only, without blocking), once per (device, inode, path).
 *
 * Bounded: PROCMAPS_MAX_PROCS processes (the least recently used leaves
 * first), PROCMAPS_MAX_MAPS mappings each; paths are interned and live
 * until procmaps__free().
 */
#ifndef PL_PROCMAPS_H
#define PL_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stacks/unwind.h"

#define PROCMAPS_MAX_PROCS 4096
#define PROCMAPS_MAX_MAPS 512
#define PROCMAPS_MAX_PATHS 65536

struct procmaps_stats {
	uint64_t reports;       /* mapping reports taken */
	uint64_t proc_reads;    /* /proc/PID/maps read */
	uint64_t proc_gone;     /* ... of processes already gone */
	uint64_t evicted;       /* processes forgotten to make room */
	uint64_t maps_refused;  /* mappings beyond PROCMAPS_MAX_MAPS */
	uint64_t paths_refused; /* paths beyond PROCMAPS_MAX_PATHS */
};

struct procmaps;

int procmaps__new(struct procmaps **ret);
void procmaps__free(struct procmaps *pm);

/* A mapping report (build_id: len bytes, len 0 when unknown). */
void procmaps__on_mmap(struct procmaps *pm, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		       const uint8_t *build_id, size_t bid_len, const char *path);

/*
 * The mappings of process tgid running image_id, read from /proc when this
 * image has not been read yet; with refresh, read again (at most once a
 * second: now_ns, monotonic) because an address was not found. *ret points
 * into pm until the next call. Returns false when nothing is known.
 */
bool procmaps__get(struct procmaps *pm, uint32_t tgid, uint64_t image_id, bool refresh, uint64_t now_ns,
		   struct unwind_maps *ret);

/* The process has ended (its last samples are in): forget it. */
void procmaps__forget(struct procmaps *pm, uint32_t tgid);

const struct procmaps_stats *procmaps__stats(const struct procmaps *pm);

#endif
