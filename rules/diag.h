/* SPDX-License-Identifier: MIT */
/*
 * diag.h - collecting rule-file diagnostics (internal to rules/).
 *
 * The loader never prints: it appends diagnostics to the caller's
 * struct rl_diags (ruleset.h) and one layer above decides what to show.
 */
#ifndef PL_RULES_DIAG_H
#define PL_RULES_DIAG_H

#include "ruleset.h"

struct yd_file;
struct yd_node;

/* At most this many diagnostics are kept; past it they are only counted
 * (errors still make the load fail), so a hostile file can't make the
 * report itself unbounded. */
#define RL_DIAGS_MAX 1000

/*
 * Append a diagnostic. file and item are copied (item may be NULL for "");
 * line and col are 1-based, line 0 meaning "the whole file". Returns 0, or
 * -ENOMEM (the error is still counted).
 */
int rl_diags__add(struct rl_diags *d, enum rl_severity sev, const char *file, int line, int col, const char *item,
		  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/*
 * Where the loader's diagnostics go: the caller's list, and whether one of
 * them was lost for want of memory. A lost diagnostic must not let a load
 * pass with an error missing, so the loader fails with oom.
 */
struct rs_report {
	struct rl_diags *diags;
	int oom; /* 0, or -ENOMEM once a diagnostic could not be kept */
};

/*
 * A loader diagnostic at a position in a rule file (rs_diag_at: line and
 * col 1-based, line 0 for the whole file) or at a YAML node (rs_diag: n may
 * be NULL, meaning the file's start). The message is cut at 1 KiB. Never
 * fails: an allocation failure sets rep->oom.
 */
void rs_diag_at(struct rs_report *rep, enum rl_severity sev, const char *file, int line, int col, const char *item,
		const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void rs_diag(struct rs_report *rep, enum rl_severity sev, const struct yd_file *f, const struct yd_node *n,
	     const char *item, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
