/* SPDX-License-Identifier: MIT */
/*
 * live.h - the human view: the busiest binaries of the last interval.
 */
#ifndef PL_LIVE_H
#define PL_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct live;

int live__new(struct live **ret);
void live__free(struct live *l);

/* Account activity of binary `name` (exe path or comm, raw bytes: escaped
 * when printed): new_proc says this process was not counted yet in this
 * interval, ended that it exited. */
void live__add(struct live *l, const char *name, uint64_t cpu_ns, uint64_t offcpu_ns, uint64_t syscalls,
	       uint64_t open_fail, bool new_proc, bool ended);

/* Number of intervals printed so far: identifies the current interval. */
uint64_t live__interval(const struct live *l);

/* Print the top entries for the last interval_ns and start a new interval. */
void live__print(struct live *l, FILE *out, uint64_t interval_ns, uint32_t tracked, uint64_t drops);

#endif
