/* SPDX-License-Identifier: MIT */
/*
 * dedupe.h - repeated alerts of one rule for one binary collapse into one,
 * and what was held back is reported when the window closes.
 *
 * A (rule, binary) pair opens a window with the alert that passes: for the
 * rule's `throttle` after it, later matches of the pair are held back and
 * counted. When the window closes, a pair that held something back is
 * handed to the summary callback, once: at the first of dedupe__expire()
 * past its end (the sensor's tick), a match of the pair after its end,
 * dedupe__close_all() (shutdown, end of a replay), or its slot being taken
 * by another pair (the table is bounded). Nothing held back goes unreported.
 *
 * The binary is the binary_id, else the exe. Times are the caller's (live
 * a clock that never steps back, CLOCK_BOOTTIME; a replayed record's), so
 * the module has no clock and no output of its own: it counts, and says
 * when to report.
 */
#ifndef PL_DEDUPE_H
#define PL_DEDUPE_H

#include <stddef.h>
#include <stdint.h>

#define DEDUPE_SLOTS 4096 /* pairs with an open window at once; more evict the older (reported first) */
#define DEDUPE_ID_MAX 48  /* an alert id, with its NUL */

/* Why a window's summary was made. */
enum dedupe_reason {
	DEDUPE_WINDOW_END, /* the window ran its full length */
	DEDUPE_SHUTDOWN,   /* dedupe__close_all() before its end */
	DEDUPE_EVICTED,    /* another pair needed its slot before its end */
};

/* Who matched. Strings are raw (unescaped), borrowed for the call. */
struct dedupe_key {
	const char *rule;
	const char *binary_id; /* NULL: exe is the binary */
	const char *exe;
	const char *script;    /* an interpreter's script (sample.h), NULL: none. Part of the key: one
				* python3 miner alerted must not hold back another script's alert */
	int severity;          /* the rule's priority (0 Emergency .. 7 Debug), for the summary */
};

/* One closed window that held matches back. Strings are valid during the callback only. */
struct dedupe_summary {
	const char *rule, *binary_id, *exe;
	int severity;
	const char *alert_id;     /* the alert the held matches repeat */
	uint64_t window_start_ns; /* that alert's time */
	uint64_t window_end_ns;   /* start + the rule's throttle */
	uint64_t first_ns, last_ns; /* the first and last match held back */
	uint64_t count;           /* matches held back, >= 1 */
	enum dedupe_reason reason;
};

typedef void (*dedupe_summary_fn)(const struct dedupe_summary *s, void *ctx);

struct dedupe;

/* fn(summary, ctx) hears every closed window that held something back. 0 or -ENOMEM. */
int dedupe__new(dedupe_summary_fn fn, void *ctx, struct dedupe **ret);
/* Frees without reporting: call dedupe__close_all() first. NULL-safe. */
void dedupe__free(struct dedupe *d);

/*
 * A match of k at now_ns, for a rule whose window is window_ns (0: every
 * match passes, nothing kept). Returns 1 when it passes (the caller writes
 * an alert named alert_id, which is copied), 0 when it is held back and
 * counted. A window that closed before now_ns is reported first. When it
 * passes, *ret_held is what the pair's previous window held back (whether or
 * not a summary reported it already: the alert's `suppressed_before`).
 */
int dedupe__match(struct dedupe *d, const struct dedupe_key *k, uint64_t window_ns, uint64_t now_ns,
		  const char *alert_id, uint64_t *ret_held);

/* Report the windows that ended by now_ns. Cheap when none did (no scan). */
void dedupe__expire(struct dedupe *d, uint64_t now_ns);

/* Report every window still holding unreported matches (reason SHUTDOWN, or
 * WINDOW_END for those already past their end), and forget all windows. */
void dedupe__close_all(struct dedupe *d, uint64_t now_ns);

/* Windows holding matches not yet reported. */
size_t dedupe__pending(const struct dedupe *d);

/* "window_end", "shutdown", "evicted" */
const char *dedupe_reason__name(enum dedupe_reason r);

#endif
