/* SPDX-License-Identifier: MIT */
/*
 * hostctx.h - the host's context for an alert:
 * pressure stall information (PSI, `some avg10` of cpu, memory and io) and
 * the CPU throttling of the process's cgroup (and the host's name and ids),
 * so that "this process was
 * slow" and "the machine or its cgroup was starved" can be told apart.
 *
 * Cheap by construction: PSI is read at most once per second and cached;
 * cpu.stat only when an alert is written. Where PSI is off
 * (/proc/pressure absent, or psi=0) its fields are absent, never 0.
 */
#ifndef PL_HOSTCTX_H
#define PL_HOSTCTX_H

#include <stdbool.h>
#include <stdint.h>

#include "alert.h"

struct hostctx_psi {
	bool present; /* PSI readable on this host */
	bool cpu_ok, memory_ok, io_ok;
	double cpu, memory, io; /* `some avg10`, percent */
};

struct hostctx_cgcpu {
	bool present;
	uint64_t nr_periods, nr_throttled, throttled_usec;
};

/* Whether /proc/pressure/cpu is readable (probed once, for the start-up log). */
bool hostctx__psi_available(void);

/* The host's PSI as of at most a second before now_ns (monotonic), into *ret. */
void hostctx__psi(uint64_t now_ns, struct hostctx_psi *ret);

/* The CPU throttling of cgroup path cgroup ("/a/b", as the sample holds it)
 * from cgroup v2 cpu.stat (or v1's cpu controller), into *ret. */
void hostctx__cgroup_cpu(const char *cgroup, struct hostctx_cgcpu *ret);

/* The host's name, id and boot id (identity/hostinfo.h) into ret's, the rest untouched. */
void hostctx__identity(struct pl_alert_host *ret);

/* An alert's host context now (now_ns: CLOCK_MONOTONIC): PSI, and the CPU
 * throttling of cgroup (NULL: none), into *ret. */
void hostctx__alert(uint64_t now_ns, const char *cgroup, struct pl_alert_host *ret);

#endif
