/* SPDX-License-Identifier: MIT */
/*
 * closest.h - "did you mean": the nearest of a few known names to a
 * misspelled one, for the rule loader's and the config file's diagnostics.
 */
#ifndef PL_CLOSEST_H
#define PL_CLOSEST_H

#include <stddef.h>

#define CLOSEST_NAME_MAX 63 /* longer names are never suggested (the distance is bounded work) */

/* The candidate nearest to s by edit distance (insert, delete, substitute),
 * if at most 2 edits away; the first such on a tie. NULL when none is. */
const char *closest_name(const char *s, const char *const *cands, size_t n);

#endif
