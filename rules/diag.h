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

/* The candidate closest to s by edit distance, if within 2; else NULL. For
 * "did you mean" suggestions. */
const char *rl_diag__closest(const char *s, const char *const *cands, size_t n);

#endif
