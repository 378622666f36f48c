/* SPDX-License-Identifier: MIT */
/*
 * waitstate.h - what a process that is off-CPU waits on, read from /proc
 * (and the kernel stacks from BPF where the sensor has them) while it waits.
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

struct pl_wait_rec;

/*
 * Kernel stacks from elsewhere than /proc: the sensor's BPF programs
 * (bpfsensor__wait_stacks(), bpf/waits.bpf.c), which still work after the
 * privilege drop, when /proc/PID/task/TID/stack no longer does (it needs
 * CAP_SYS_ADMIN). NULL: /proc only (tests, a kernel without them).
 *   read  their records for process tgid, raw, into buf (at most
 *         size bytes): the bytes read, or -errno
 *   name  the kernel function at ip into name (size bytes, NUL-terminated;
 *         "" when unknown)
 */
struct waitstate_kstacks {
	long (*read)(void *ctx, uint32_t tgid, void *buf, size_t size);
	void *read_ctx;
	void (*name)(void *ctx, uint64_t ip, char *name, size_t size);
	void *name_ctx;
};

/*
 * Parse len bytes of BPF output (struct pl_wait_rec, back to
 * back) into recs, at most max of them: only well-formed records of
 * process tgid are kept (version and size as this build's, tgid, nframes
 * within PL_WAIT_KFRAMES; a negative nframes, the kernel's error, is kept
 * as 0 frames). A trailing partial record (the read stopped at its bound)
 * is not one. Returns the number kept; *ret_bad (may be NULL) counts the
 * records rejected.
 */
size_t waitstate__parse_recs(const void *buf, size_t len, uint32_t tgid, struct pl_wait_rec *recs, size_t max,
			     uint32_t *ret_bad);

/* The state letter of process tgid from /proc/TGID/stat: the process as a
 * whole (its main thread). Returns 0 when it is gone or unreadable. */
char waitstate__proc_state(uint32_t tgid);

/* Read what process tgid waits on into *ret (zeroed first): per-thread
 * states (at most 256 threads looked at), the split runq / blocked /
 * stopped, and for up to PL_WAIT_THREADS threads that are not running
 * their wchan and kernel stack: from ks when it has frames for the thread,
 * else from /proc (stack_source says which). The process's state is the most telling of
 * its threads': stopped or traced, then uninterruptible, then running, then
 * the main thread's. Returns 0, or -ENOENT when the process is gone. */
int waitstate__read(uint32_t tgid, const struct waitstate_kstacks *ks, struct pl_wait *ret);

#endif
