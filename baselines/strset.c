// SPDX-License-Identifier: MIT
/*
 * strset.c - a bounded, sorted set of counted strings.
 *
 * One sorted array rather than a hash table: the sets are small (hundreds
 * of paths or names), lookups are binary searches, insertion is one
 * memmove, and the sorted order is also the canonical serialized order, so
 * two equal sets serialize byte for byte alike. The bound is enforced on
 * every path that creates members (add, merge, from_json); refused members
 * are counted, never silently lost.
 *
 * Members are raw bytes (a path as the process gave it). In JSON they are
 * written through text_escape() and read back through text_unescape(), so a
 * file holds printable text and a member comes back byte for byte. Files
 * written before that escaped only invalid UTF-8 and backslashes, as \xNN:
 * text_unescape() reads them the same way. Since escaping changes the order
 * of some strings, the loader sorts what it read instead of requiring the
 * file's order.
 */
#include "strset.h"

#include "jsonfield.h"
#include "textsafe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void strset__init(struct strset *set, uint32_t max)
{
	memset(set, 0, sizeof(*set));
	set->max = max;
}

static void free_members(struct strset_member *m, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		free(m[k].s);
	free(m);
}

void strset__clear(struct strset *set)
{
	uint32_t max = set->max;

	free_members(set->m, set->n);
	strset__init(set, max);
}

/* Index of s, or of where it would be inserted; *found says which. */
static uint32_t search(const struct strset *set, const char *s, bool *found)
{
	uint32_t lo = 0, hi = set->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(set->m[mid].s, s);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

bool strset__contains(const struct strset *set, const char *s)
{
	bool found;

	if (!s)
		return false;
	search(set, s, &found);
	return found;
}

static void touch(struct strset_member *m, uint64_t n, uint64_t first_ns, uint64_t last_ns)
{
	m->count = sat_add(m->count, n);
	if (first_ns < m->first_ns)
		m->first_ns = first_ns;
	if (last_ns > m->last_ns)
		m->last_ns = last_ns;
}

/* Room for one more member; the capacity never exceeds the bound. */
static int reserve_one(struct strset *set)
{
	struct strset_member *m;
	uint32_t cap;

	if (set->n < set->cap)
		return 0;
	cap = set->cap ? set->cap * 2 : 8;
	if (cap > set->max || cap < set->cap)
		cap = set->max;
	m = realloc(set->m, (size_t)cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	set->m = m;
	set->cap = cap;
	return 0;
}

bool strset__has_prefix(const struct strset *set, const char *prefix)
{
	size_t len;
	uint32_t at;
	bool found;

	if (!prefix)
		return false;
	len = strlen(prefix);
	at = search(set, prefix, &found); /* the first member >= prefix */
	return found || (at < set->n && strncmp(set->m[at].s, prefix, len) == 0);
}

int strset__add(struct strset *set, const char *s, uint64_t n, uint64_t now_ns)
{
	struct strset_member *m;
	uint32_t at;
	bool found;
	size_t len;
	char *dup;

	if (!s || n == 0)
		return -EINVAL;
	len = strnlen(s, STRSET_MAX_LEN + 1);
	if (len > STRSET_MAX_LEN)
		return -EINVAL;
	at = search(set, s, &found);
	if (found) {
		touch(&set->m[at], n, now_ns, now_ns);
		return 0;
	}
	if (set->n >= set->max) {
		set->overflow = sat_add(set->overflow, 1);
		return -ENOSPC;
	}
	if (reserve_one(set))
		return -ENOMEM;
	dup = malloc(len + 1);
	if (!dup)
		return -ENOMEM;
	memcpy(dup, s, len + 1);
	m = &set->m[at];
	memmove(m + 1, m, (size_t)(set->n - at) * sizeof(*m));
	*m = (struct strset_member){ .s = dup, .count = n, .first_ns = now_ns, .last_ns = now_ns };
	set->n++;
	return 1;
}

/*
 * Build the union in a new array, then swap it in, so that dst is left
 * untouched on ENOMEM (and dst == src works). Every member of dst stays;
 * members only in src are taken in sorted order while the bound allows,
 * the rest counted in overflow.
 */
int strset__merge(struct strset *dst, const struct strset *src)
{
	uint32_t i = 0, j = 0, n = 0, room, cap, kept_new = 0;
	uint64_t refused = 0;
	struct strset_member *out;

	if (dst == src) {
		for (uint32_t k = 0; k < dst->n; k++)
			dst->m[k].count = sat_add(dst->m[k].count, dst->m[k].count);
		dst->overflow = sat_add(dst->overflow, dst->overflow);
		return 0;
	}
	room = dst->n < dst->max ? dst->max - dst->n : 0;
	cap = dst->n + (src->n < room ? src->n : room);
	out = calloc(cap ? cap : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (i < dst->n || j < src->n) {
		int c = i == dst->n ? 1 : j == src->n ? -1 : strcmp(dst->m[i].s, src->m[j].s);

		if (c <= 0) {
			out[n] = dst->m[i++];
			out[n].s = NULL; /* owned by dst until the swap */
			if (c == 0) {
				const struct strset_member *o = &src->m[j++];

				touch(&out[n], o->count, o->first_ns, o->last_ns);
			}
			n++;
		} else if (kept_new < room) {
			out[n] = src->m[j++];
			out[n].s = strdup(out[n].s);
			if (!out[n].s) {
				free_members(out, n);
				return -ENOMEM;
			}
			n++;
			kept_new++;
		} else {
			j++;
			refused++;
		}
	}
	/* all allocations done: hand dst's strings over to the new array */
	for (i = 0, j = 0; i < n; i++)
		if (!out[i].s)
			out[i].s = dst->m[j++].s;
	free(dst->m);
	dst->m = out;
	dst->n = n;
	dst->cap = cap ? cap : 1;
	dst->overflow = sat_add(sat_add(dst->overflow, src->overflow), refused);
	return 0;
}

static struct json_object *member_to_json(const struct strset_member *m)
{
	struct json_object *o = json_object_new_object();
	char *esc = text_escape_str(m->s);

	if (!o || !esc || jf_add(o, "s", json_object_new_string(esc)) ||
	    jf_add(o, "count", json_object_new_uint64(m->count)) ||
	    jf_add(o, "first_ns", json_object_new_uint64(m->first_ns)) ||
	    jf_add(o, "last_ns", json_object_new_uint64(m->last_ns))) {
		free(esc);
		json_object_put(o);
		return NULL;
	}
	free(esc);
	return o;
}

struct json_object *strset__to_json(const struct strset *set)
{
	struct json_object *o = json_object_new_object(), *arr;

	if (!o)
		return NULL;
	if (jf_add(o, "max", json_object_new_uint64(set->max)) ||
	    jf_add(o, "overflow", json_object_new_uint64(set->overflow)))
		goto fail;
	arr = json_object_new_array_ext((int)set->n);
	if (jf_add(o, "members", arr))
		goto fail;
	for (uint32_t k = 0; k < set->n; k++) {
		struct json_object *j = member_to_json(&set->m[k]);

		if (!j || json_object_array_add(arr, j)) {
			json_object_put(j);
			goto fail;
		}
	}
	return o;
fail:
	json_object_put(o);
	return NULL;
}


/* Messages read "strset: <what>: ...". */
static int check_keys(struct json_object *o, const char *const *keys, const char *what, char *err, size_t errlen)
{
	char w[64];

	snprintf(w, sizeof(w), "strset: %s", what);
	return jf_check_keys(o, keys, w, err, errlen);
}

static int get_u64(struct json_object *o, const char *key, const char *what, uint64_t *ret, char *err, size_t errlen)
{
	char w[64];

	snprintf(w, sizeof(w), "strset: %s", what);
	return jf_get_u64(o, key, w, ret, err, errlen);
}

static const char *const set_keys[] = { "max", "overflow", "members", NULL };
static const char *const member_keys[] = { "s", "count", "first_ns", "last_ns", NULL };

/* members[k] into *m (m->s allocated); checks all but the order. */
static int parse_member(struct json_object *j, size_t k, struct strset_member *m, char *err, size_t errlen)
{
	struct json_object *js;
	char what[40], *raw;
	size_t len;
	int r;

	snprintf(what, sizeof(what), "members[%zu]", k);
	if (!json_object_is_type(j, json_type_object))
		return jf_fail(err, errlen, "strset: %s is not an object", what);
	r = check_keys(j, member_keys, what, err, errlen);
	if (r)
		return r;
	if (!json_object_object_get_ex(j, "s", &js) || !json_object_is_type(js, json_type_string))
		return jf_fail(err, errlen, "strset: %s: missing or non-string \"s\"", what);
	/* the escaped form is at most 4 bytes per byte of the member */
	len = (size_t)json_object_get_string_len(js);
	if (len > 4 * STRSET_MAX_LEN)
		return jf_fail(err, errlen, "strset: %s: %zu bytes, longer than %d", what, len, 4 * STRSET_MAX_LEN);
	if (strlen(json_object_get_string(js)) != len)
		return jf_fail(err, errlen, "strset: %s: string contains a NUL byte", what);
	if ((r = get_u64(j, "count", what, &m->count, err, errlen)) ||
	    (r = get_u64(j, "first_ns", what, &m->first_ns, err, errlen)) ||
	    (r = get_u64(j, "last_ns", what, &m->last_ns, err, errlen)))
		return r;
	if (m->count == 0)
		return jf_fail(err, errlen, "strset: %s: count is 0", what);
	if (m->first_ns > m->last_ns)
		return jf_fail(err, errlen, "strset: %s: first_ns > last_ns", what);
	raw = text_unescape(json_object_get_string(js), len, &len);
	if (!raw)
		return -ENOMEM;
	if (len > STRSET_MAX_LEN || strlen(raw) != len) {
		free(raw);
		return len > STRSET_MAX_LEN
			   ? jf_fail(err, errlen, "strset: %s: %zu bytes, longer than %d", what, len, STRSET_MAX_LEN)
			   : jf_fail(err, errlen, "strset: %s: string contains a NUL byte", what);
	}
	m->s = raw;
	return 0;
}

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct strset_member *)a)->s, ((const struct strset_member *)b)->s);
}

static int parse_set(struct json_object *o, uint32_t max, struct strset *set, char *err, size_t errlen)
{
	struct json_object *arr;
	uint64_t file_max;
	size_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return jf_fail(err, errlen, "strset: not a JSON object");
	if ((r = check_keys(o, set_keys, "set", err, errlen)) ||
	    (r = get_u64(o, "max", "set", &file_max, err, errlen)) ||
	    (r = get_u64(o, "overflow", "set", &set->overflow, err, errlen)))
		return r;
	if (!json_object_object_get_ex(o, "members", &arr) || !json_object_is_type(arr, json_type_array))
		return jf_fail(err, errlen, "strset: missing or non-array \"members\"");
	n = json_object_array_length(arr);
	if (n > max || n > file_max)
		return jf_fail(err, errlen, "strset: %zu members, more than the bound (%u here, %llu in the file)", n, max,
			    (unsigned long long)file_max);
	if (n) {
		set->m = calloc(n, sizeof(*set->m));
		if (!set->m)
			return -ENOMEM;
		set->cap = (uint32_t)n;
	}
	for (size_t k = 0; k < n; k++) {
		r = parse_member(json_object_array_get_idx(arr, k), k, &set->m[k], err, errlen);
		if (r)
			return r; /* m[k].s is only set on success */
		set->n++;
	}
	if (set->n > 1)
		qsort(set->m, set->n, sizeof(*set->m), cmp_member);
	for (uint32_t k = 1; k < set->n; k++)
		if (strcmp(set->m[k - 1].s, set->m[k].s) == 0)
			return jf_fail(err, errlen, "strset: a member appears twice");
	return 0;
}

int strset__from_json(struct json_object *o, uint32_t max, struct strset *ret, char *err, size_t errlen)
{
	struct strset set;
	int r;

	strset__init(&set, max);
	if (err && errlen)
		err[0] = '\0';
	if (!o)
		return jf_fail(err, errlen, "strset: null");
	r = parse_set(o, max, &set, err, errlen);
	if (r) {
		if (r == -ENOMEM)
			jf_fail(err, errlen, "strset: out of memory");
		strset__clear(&set);
		return r;
	}
	*ret = set;
	return 0;
}

bool strset__equal(const struct strset *a, const struct strset *b)
{
	if (a->n != b->n || a->max != b->max || a->overflow != b->overflow)
		return false;
	for (uint32_t k = 0; k < a->n; k++) {
		const struct strset_member *x = &a->m[k], *y = &b->m[k];

		if (strcmp(x->s, y->s) || x->count != y->count || x->first_ns != y->first_ns ||
		    x->last_ns != y->last_ns)
			return false;
	}
	return true;
}
