/* SPDX-License-Identifier: MIT */
/*
 * privilege.h - least privilege for the running sensor.
 *
 * Loading and attaching the BPF programs and opening the perf events need
 * CAP_BPF, CAP_PERFMON (and CAP_SYS_ADMIN to mount tracefs). Once they are
 * held as fds, the sensor needs only to read other users' files and other
 * processes' /proc entries. privilege__drop() is called once, at that point,
 * before any thread other than the caller exists: capabilities are per
 * thread, so a thread created earlier would keep them.
 *
 * SECURITY.md ("Privilege model") says what is kept and why.
 */
#ifndef PL_PRIVILEGE_H
#define PL_PRIVILEGE_H

#include <stdbool.h>

/*
 * Drop to the steady state: every capability but the kept ones from the
 * effective, permitted, inheritable, bounding and ambient sets (a kept one
 * the process does not hold stays absent), then PR_SET_NO_NEW_PRIVS, then a
 * seccomp filter on every thread (SCMP_FLTATR_CTL_TSYNC) that allows the
 * steady state's syscalls, kills the process on a few that only an attacker
 * would make (execve, ptrace, module loading, mount, BPF program loading...),
 * and refuses the rest with ENOSYS and one line on stderr per syscall.
 *
 * keep: --keep-privileges; nothing is dropped, and that is logged.
 * Logs one info line saying what is kept. Returns 0, or a negative errno
 * (logged) when a step failed: the caller must not run half-dropped.
 */
int privilege__drop(bool keep);

/* PLUMBLINE_PRIVILEGE_SELFTEST set in the environment: try one syscall the
 * filter refuses (perf_event_open) and log what happened, for the tests.
 * Does nothing otherwise. */
void privilege__selftest(void);

#endif
