/* SPDX-License-Identifier: MIT */
/*
 * waitstate.h - what a process that is off-CPU waits on, read from /proc
 * while it waits.
 *
 * The kernel side counts a thread's off-CPU time only when the thread is
 * switched in again, so a process blocked for good is invisible to it. The
 * sensor notices a process whose windows show neither CPU nor syscalls and,
 * for the few that are candidates (images.c), reads /proc/PID/task/TID/stat
 * (state), .../wchan and .../stack (root; already symbolized by the kernel:
 * only the symbol names are kept, the "+0x.../0x..." offsets and the
 * "[<...>]" address column are dropped).
 *
 * /proc text is untrusted input: every read is bounded, every line parsed
 * with a bound; an unreadable file leaves its part empty, never fails the
 * whole read.
 */
#ifndef PL_WAITSTATE_H
#define PL_WAITSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

/* The state letter of process tgid from /proc/TGID/stat: the process as a
 * whole (its main thread). Returns 0 when it is gone or unreadable. */
char waitstate__proc_state(uint32_t tgid);

/* Read what process tgid waits on into *ret (zeroed first): per-thread
 * states (at most 256 threads looked at), the split runq / blocked /
 * stopped, and for up to PL_WAIT_THREADS threads that are not running
 * their wchan and kernel stack. The process's state is the most telling of
 * its threads': stopped or traced, then uninterruptible, then running, then
 * the main thread's. Returns 0, or -ENOENT when the process is gone. */
int waitstate__read(uint32_t tgid, struct pl_wait *ret);

#endif
