/* SPDX-License-Identifier: MIT */
/*
 * binagg.h - per-binary activity over the last second, across processes.
 *
 * A retry storm can be spread over many short-lived processes of one
 * binary, each too brief to look like a storm on its own. This module adds
 * up, per binary id, the processes active and the failed opens they made
 * during each 1-second tick, with the path that failed most. Rules read the
 * last complete second (bin.* fields).
 */
#ifndef PL_BINAGG_H
#define PL_BINAGG_H

#include <stdint.h>

#include "sample.h"

struct binagg;

/* At most max binaries are tracked per second; the rest are counted. */
int binagg__new(uint32_t max, struct binagg **ret);
void binagg__free(struct binagg *a);

/* During the current second: one process of binary_id was active, with
 * open_fail failed opens, most of them on top_path (raw bytes; may be NULL). */
void binagg__add(struct binagg *a, const char *binary_id, uint64_t open_fail, const char *top_path,
		 uint64_t top_count);

/* Close the current second (seconds: its length); it becomes "the last second". */
void binagg__tick(struct binagg *a, double seconds);

/* The last second of binary_id into *ret (present: false when it had no
 * activity then). Its top path is borrowed until the next binagg__tick(). */
void binagg__get(struct binagg *a, const char *binary_id, struct pl_bin *ret);

uint64_t binagg__overflow(const struct binagg *a);

/*
 * Storms of a new path across processes. At the end of a process
 * image: every path it failed (fails, nfails), once per process. A path is
 * new to the binary when the sensor first saw the binary fail it less than
 * BINAGG_NEW_S seconds ago, and either the binary itself has been known longer
 * than that, or (a binary new to the sensor, whose usual failures are all new
 * to it) no other binary failed that path before it: what every program fails
 * alike (locale files, library search paths) is the usual, a path of its own
 * failed by many of its processes at once is a storm. The new path that the most distinct
 * processes failed in the last second is the binary's storm path (bin.storm_*),
 * unless more than 8 new paths were failed by at least half as many processes
 * (a compiler in a new project fails many new paths alike; a storm fails one,
 * and what failing it makes the process do, such as error-message catalogs).
 * storm_paths lists those paths, most processes first; it is valid until the
 * next binagg__get().
 * What the sensor remembers is bounded (BINAGG_KNOWN entries, hashed; the
 * oldest forgotten first): binagg__known_dropped() counts what it forgot.
 */
#define BINAGG_NEW_S 10
#define BINAGG_KNOWN 65536
void binagg__add_fails(struct binagg *a, const char *binary_id, const struct pl_fail *fails, uint32_t nfails,
		       uint64_t now_ns);
uint64_t binagg__known_dropped(const struct binagg *a);

#endif
