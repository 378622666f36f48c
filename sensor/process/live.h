/* SPDX-License-Identifier: MIT */
/*
 * live.h - the human view: the busiest binaries of the last interval.
 */
#ifndef PL_LIVE_H
#define PL_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sensor_stats.h" /* struct live_losses */

struct live;

int live__new(struct live **ret);
void live__free(struct live *l);

/* Account activity of binary `name` (exe path or comm, raw bytes: escaped
 * when printed): new_proc says this process was not counted yet in this
 * interval, ended that it exited. */
void live__add(struct live *l, const char *name, uint64_t cpu_ns, uint64_t offcpu_ns, uint64_t syscalls,
	       uint64_t open_fail, bool new_proc, bool ended);

/* process pid of binary `name` has been off-CPU for
 * waiting_s in state `state` (a word: sleeping, stopped, ...), waiting in
 * wchan (may be NULL). The interval's print lists up to LIVE_WAITING of them
 * below the table, longest wait first, so a stopped process is told apart
 * from a sleeping one while it waits. */
void live__waiting(struct live *l, const char *name, uint32_t pid, const char *state, double waiting_s,
		   const char *wchan);

/* Number of intervals printed so far: identifies the current interval. */
uint64_t live__interval(const struct live *l);

/*
 * What the sensor lost so far, by what was lost (the stats record has each
 * counter): records never delivered to user space or rejected as invalid,
 * processes not tracked (a table full), output writes that failed,
 * failed opens whose path was not kept (their counts are kept), and threads
 * whose times could not be measured.
 */

/* "lost: ..." in words into buf (always NUL-terminated); "nothing lost"
 * when every counter is 0. */
void live__losses_text(const struct live_losses *lost, char *buf, size_t size);

/* The sensor's own processes' activity: one row apart, "(plumbline itself)". */
void live__add_own(struct live *l, uint64_t cpu_ns, uint64_t offcpu_ns, uint64_t syscalls, uint64_t open_fail,
		   bool new_proc);

/* Where the view is drawn: a terminal of cols x rows (redrawn in place, cut
 * to its width), or not (tty false: plain lines appended). */
struct live_screen {
	bool tty;
	unsigned cols, rows;
};

/*
 * A stream whose lines (the text output's alert lines) the terminal form
 * shows below its table, the last 5 of them; owned by l (NULL on ENOMEM).
 */
FILE *live__alert_file(struct live *l);

/* Print the top entries for the last interval_ns and start a new interval.
 * sc NULL: the plain form. */
void live__print(struct live *l, FILE *out, const struct live_screen *sc, uint64_t interval_ns, uint32_t tracked,
		 const struct live_losses *lost);

#endif
