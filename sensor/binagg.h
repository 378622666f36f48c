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
void binagg__get(const struct binagg *a, const char *binary_id, struct pl_bin *ret);

uint64_t binagg__overflow(const struct binagg *a);

#endif
