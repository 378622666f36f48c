/* SPDX-License-Identifier: MIT */
/*
 * strset.h - a bounded set of strings with counts: "what this binary has
 * been seen doing" (paths that failed, children it executed, syscalls).
 *
 * Members are kept sorted, so lookups are binary searches and the
 * serialized form is canonical. A new member beyond the bound is refused and
 * counted in `overflow`, never silently dropped. Merging is a union with
 * counts added; it is associative and commutative while the union fits.
 */
#ifndef PL_STRSET_H
#define PL_STRSET_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STRSET_MAX_LEN 4096 /* longest member, bytes */

struct strset_member {
	char *s;
	uint64_t count;
	uint64_t first_ns, last_ns; /* CLOCK_REALTIME */
};

struct strset {
	struct strset_member *m;
	uint32_t n, cap;
	uint32_t max;      /* bound on members */
	uint64_t overflow; /* additions of new members refused by the bound */
};

void strset__init(struct strset *set, uint32_t max);
void strset__clear(struct strset *set);

bool strset__contains(const struct strset *set, const char *s);
/* Whether some member begins with prefix (prefix itself included). */
bool strset__has_prefix(const struct strset *set, const char *prefix);
/* 1 when s is new, 0 when it was a member, -ENOSPC when the bound refused
 * it (counted in overflow), -EINVAL when too long, -ENOMEM. */
int strset__add(struct strset *set, const char *s, uint64_t n, uint64_t now_ns);
int strset__merge(struct strset *dst, const struct strset *src);

/* The set as JSON, members escaped (text_escape()); NULL on ENOMEM. */
struct json_object *strset__to_json(const struct strset *set);
/* Unescapes the members (text_unescape()), sorts them, and validates
 * uniqueness, lengths (of the raw bytes; no NUL), counts, times and the
 * bound. 0 or -EINVAL with err (or -ENOMEM); *ret untouched on failure. */
int strset__from_json(struct json_object *o, uint32_t max, struct strset *ret, char *err, size_t errlen);

bool strset__equal(const struct strset *a, const struct strset *b);

#endif
