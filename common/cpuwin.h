/* SPDX-License-Identifier: MIT */
/*
 * cpuwin.h - a process's last seconds of CPU: the busy streak, its CPU share
 * over the last whole windows, and the CPU of its short-lived clones.
 *
 * Three evasions of a per-process "pinned for N seconds in a row" rule are
 * answered here, as plain arithmetic over the 1-second windows:
 *  - a dip: the busy streak holds (does not grow, does not end) through one
 *    window below the bar, once at least PL_CPUWIN_RUN_BEFORE_DIP busy
 *    windows came since the last forgiven one (so at most one window in
 *    four is below it); a second such window ends the streak;
 *  - throttling under the bar: the share of the last PL_CPUWIN_SLOTS whole
 *    windows in which it wanted a CPU (ran or was runnable, so a loaded
 *    machine does not hide it), judged against a baseline by the rules;
 *  - work spread over children: CPU that short-lived clones of the process
 *    (children of its own binary) wanted, charged to it at their exit and
 *    kept per window alongside its own.
 * Kernel-free; the sensor feeds it (sensor/pipeline/images.c).
 */
#ifndef PL_CPUWIN_H
#define PL_CPUWIN_H

#include <stdbool.h>
#include <stdint.h>

#define PL_CPUWIN_SLOTS 20          /* windows kept: the "recent" span, up to 20 s */
#define PL_CPUWIN_RUN_BEFORE_DIP 3  /* busy windows needed before a dip is forgiven */

struct pl_cpuwin {
	uint32_t len_us[PL_CPUWIN_SLOTS];   /* each window's length */
	uint32_t busy_us[PL_CPUWIN_SLOTS];  /* the time it ran or was runnable in it */
	uint32_t cpu_us[PL_CPUWIN_SLOTS];   /* ... of which it ran */
	uint32_t clone_us[PL_CPUWIN_SLOTS]; /* its clones' CPU (and run queue), charged when they ended */
	uint16_t clones[PL_CPUWIN_SLOTS];   /* clones that ended in it */
	uint8_t head, n;                    /* next slot; slots in use */
	uint8_t busy_run;                   /* busy windows since the streak began or last dipped */
	double busy_s;                      /* the streak, seconds */
	uint64_t pend_clone_ns;             /* charged since the last window */
	uint32_t pend_clones;
};

/* Whether a window of len_ns in which the process ran cpu_ns and waited
 * runq_ns for a CPU was busy: running or runnable >= 90 % of it, and
 * running >= 20 % (on a saturated machine a runaway waits for the CPU it
 * would burn). */
bool pl_cpuwin__busy(uint64_t cpu_ns, uint64_t runq_ns, uint64_t len_ns);

/* Add one whole window (its length len_ns > 0): the streak moves on (see
 * above), the window and the clone CPU charged since the last one take the
 * oldest slot once all are used. */
void pl_cpuwin__add(struct pl_cpuwin *w, uint64_t cpu_ns, uint64_t runq_ns, uint64_t len_ns);

/* Charge a clone's CPU (its whole life's on-CPU and run-queue time) to w:
 * it counts in the next window added. */
void pl_cpuwin__charge_clone(struct pl_cpuwin *w, uint64_t wanted_ns);

/* What the windows kept hold (any ret_ pointer may be NULL). */
struct pl_cpuwin_recent {
	double span_s;
	uint64_t busy_ns;  /* on-CPU and run queue */
	uint64_t cpu_ns;   /* on-CPU */
	uint64_t clone_ns; /* the clones' (on-CPU and run queue) */
	uint32_t clones;
};

void pl_cpuwin__recent(const struct pl_cpuwin *w, struct pl_cpuwin_recent *ret);

#endif
