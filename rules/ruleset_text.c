// SPDX-License-Identifier: MIT
/*
 * ruleset_text.c - the loader's two small containers: composed source
 * texts that map offsets back to YAML nodes, and a name index.
 *
 * A rule's final condition is glued together from its own condition,
 * appends from other items (maybe other files) and generated exception
 * clauses; when the compiler reports a byte offset into it, the segment
 * map says which scalar, and yaml_doc says where in the file.
 */
#include "ruleset_text.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

int rs_text__add(struct rs_text *t, const char *s, size_t len, const struct yd_file *f, const struct yd_node *n,
		 bool flat)
{
	if (t->len + len > RS_MAX_TEXT)
		return -E2BIG;
	if (t->len + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 64;
		char *ns;

		while (cap < t->len + len + 1)
			cap *= 2;
		ns = realloc(t->s, cap);
		if (!ns)
			return -ENOMEM;
		t->s = ns;
		t->cap = cap;
	}
	if (f) {
		if (t->nseg == t->capseg) {
			size_t cap = t->capseg ? t->capseg * 2 : 4;
			struct rs_seg *nseg = realloc(t->seg, cap * sizeof(*nseg));

			if (!nseg)
				return -ENOMEM;
			t->seg = nseg;
			t->capseg = cap;
		}
		t->seg[t->nseg++] = (struct rs_seg){.start = t->len, .len = len, .f = f, .n = n, .flat = flat};
	}
	memcpy(t->s + t->len, s, len);
	t->len += len;
	t->s[t->len] = '\0';
	return 0;
}

int rs_text__add_node(struct rs_text *t, const struct yd_file *f, const struct yd_node *n)
{
	return rs_text__add(t, n->str, n->len, f, n, false);
}

int rs_text__mark(struct rs_text *t, size_t start, const struct yd_file *f, const struct yd_node *n)
{
	int r = rs_text__add(t, "", 0, f, n, true);

	if (r == 0) {
		t->seg[t->nseg - 1].start = start;
		t->seg[t->nseg - 1].len = t->len - start;
	}
	return r;
}

int rs_text__add_text(struct rs_text *t, const struct rs_text *src)
{
	size_t base = t->len;
	int r;

	if (!src->len)
		return 0;
	r = rs_text__add(t, src->s, src->len, NULL, NULL, false);
	for (size_t i = 0; r == 0 && i < src->nseg; i++) {
		const struct rs_seg *s = &src->seg[i];

		/* add an empty piece and then widen it: the bytes are already there */
		r = rs_text__add(t, "", 0, s->f, s->n, s->flat);
		if (r == 0) {
			t->seg[t->nseg - 1].start = base + s->start;
			t->seg[t->nseg - 1].len = s->len;
		}
	}
	return r;
}

void rs_text__free(struct rs_text *t)
{
	free(t->s);
	free(t->seg);
	memset(t, 0, sizeof(*t));
}

bool rs_text__locate(const struct rs_text *t, size_t off, const struct yd_file **f, int *line, int *col)
{
	const struct rs_seg *best = NULL;

	/* the piece holding off; in glue, the next piece (or the last one) */
	for (size_t i = 0; i < t->nseg; i++) {
		const struct rs_seg *s = &t->seg[i];

		if (off >= s->start && off < s->start + s->len) {
			best = s;
			break;
		}
		if (s->start >= off) {
			best = s;
			off = s->start;
			break;
		}
		best = s;
	}
	if (!best)
		return false;
	*f = best->f;
	if (best->flat || off < best->start) {
		yd_file__pos(best->f, best->n, 0, line, col);
	} else {
		size_t rel = off - best->start;

		yd_file__pos(best->f, best->n, rel <= best->len ? rel : best->len, line, col);
	}
	return true;
}

/* ---- names ---- */

size_t rs_names__get(const struct rs_names *h, const char *name)
{
	if (!h->cap)
		return SIZE_MAX;
	for (size_t i = (size_t)pl_hash_str(name) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
		if (!h->name[i])
			return SIZE_MAX;
		if (strcmp(h->name[i], name) == 0)
			return h->idx[i];
	}
}

static void insert(const char **names, size_t *idx, size_t cap, const char *name, size_t v)
{
	size_t i = (size_t)pl_hash_str(name) & (cap - 1);

	while (names[i] && strcmp(names[i], name) != 0)
		i = (i + 1) & (cap - 1);
	names[i] = name;
	idx[i] = v;
}

int rs_names__put(struct rs_names *h, const char *name, size_t idx)
{
	if ((h->n + 1) * 2 > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		const char **nn = calloc(cap, sizeof(*nn));
		size_t *ni = calloc(cap, sizeof(*ni));

		if (!nn || !ni) {
			free(nn);
			free(ni);
			return -ENOMEM;
		}
		for (size_t i = 0; i < h->cap; i++)
			if (h->name[i])
				insert(nn, ni, cap, h->name[i], h->idx[i]);
		free(h->name);
		free(h->idx);
		h->name = nn;
		h->idx = ni;
		h->cap = cap;
	}
	if (rs_names__get(h, name) == SIZE_MAX)
		h->n++;
	insert(h->name, h->idx, h->cap, name, idx);
	return 0;
}

void rs_names__free(struct rs_names *h)
{
	free(h->name);
	free(h->idx);
	memset(h, 0, sizeof(*h));
}
