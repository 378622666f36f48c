// SPDX-License-Identifier: MIT
/*
 * closest.c - "did you mean" (closest.h). One row of the Levenshtein table
 * on the stack: names are short, and the lists a handful to a few hundred.
 */
#include <stdint.h>
#include <string.h>

#include "closest.h"

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[CLOSEST_NAME_MAX + 2], prev;

	if (la > CLOSEST_NAME_MAX || lb > CLOSEST_NAME_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j], best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *closest_name(const char *s, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, cands[i]);

		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
	}
	return best;
}
