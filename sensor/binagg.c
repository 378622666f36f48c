// SPDX-License-Identifier: MIT
/*
 * binagg.c - two generations of small per-binary tables (current second,
 * last second), each an open-addressing hash keyed by binary id.
 */
#include "binagg.h"
#include "hash.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


#define TOP_PATHS 8 /* candidate paths kept per binary per second */

struct path_count {
	char *path;
	uint64_t count;
};

struct bin_entry {
	char *id;
	uint64_t procs, open_fail;
	struct path_count top[TOP_PATHS];
};

struct gen {
	struct bin_entry *e;
	uint32_t *used; /* the slots in use, so a clear touches only those */
	uint32_t cap;   /* power of two */
	uint32_t n;
	double seconds;
};

struct binagg {
	struct gen cur, last;
	uint32_t max;
	uint64_t overflow;
};

static void gen_clear(struct gen *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct bin_entry *e = &g->e[g->used[i]];

		free(e->id);
		for (int k = 0; k < TOP_PATHS; k++)
			free(e->top[k].path);
		memset(e, 0, sizeof(*e));
	}
	g->n = 0;
}

int binagg__new(uint32_t max, struct binagg **ret)
{
	struct binagg *a = calloc(1, sizeof(*a));
	uint32_t cap = 64;

	if (!a)
		return -ENOMEM;
	while (cap < max * 2)
		cap *= 2;
	a->max = max;
	a->cur.cap = a->last.cap = cap;
	a->cur.e = calloc(cap, sizeof(*a->cur.e));
	a->last.e = calloc(cap, sizeof(*a->last.e));
	a->cur.used = calloc(max ? max : 1, sizeof(*a->cur.used));
	a->last.used = calloc(max ? max : 1, sizeof(*a->last.used));
	if (!a->cur.e || !a->last.e || !a->cur.used || !a->last.used) {
		binagg__free(a);
		return -ENOMEM;
	}
	*ret = a;
	return 0;
}

void binagg__free(struct binagg *a)
{
	if (!a)
		return;
	if (a->cur.e)
		gen_clear(&a->cur);
	if (a->last.e)
		gen_clear(&a->last);
	free(a->cur.e);
	free(a->last.e);
	free(a->cur.used);
	free(a->last.used);
	free(a);
}

static struct bin_entry *find(const struct gen *g, const char *id)
{
	uint32_t mask = g->cap - 1;

	for (uint32_t h = (uint32_t)pl_hash_str(id) & mask;; h = (h + 1) & mask) {
		if (!g->e[h].id)
			return &g->e[h];
		if (strcmp(g->e[h].id, id) == 0)
			return &g->e[h];
	}
}

void binagg__add(struct binagg *a, const char *binary_id, uint64_t open_fail, const char *top_path,
		 uint64_t top_count)
{
	struct bin_entry *e;
	int slot = -1;

	if (!binary_id)
		return;
	e = find(&a->cur, binary_id);
	if (!e->id) {
		if (a->cur.n >= a->max || !(e->id = strdup(binary_id))) {
			a->overflow++;
			return;
		}
		a->cur.used[a->cur.n++] = (uint32_t)(e - a->cur.e);
	}
	e->procs++;
	e->open_fail += open_fail;
	if (!top_path || !top_count)
		return;
	for (int k = 0; k < TOP_PATHS; k++) {
		if (e->top[k].path && strcmp(e->top[k].path, top_path) == 0) {
			e->top[k].count += top_count;
			return;
		}
		/* else remember a free slot, or the smallest */
		if (slot < 0 || (e->top[slot].path && (!e->top[k].path || e->top[k].count < e->top[slot].count)))
			slot = k;
	}
	/* a new path takes a free slot, or replaces the smallest if it is bigger */
	if (!e->top[slot].path || e->top[slot].count < top_count) {
		char *p = strdup(top_path);

		if (!p)
			return;
		free(e->top[slot].path);
		e->top[slot].path = p;
		e->top[slot].count = top_count;
	}
}

void binagg__tick(struct binagg *a, double seconds)
{
	struct gen t = a->last;

	gen_clear(&t);
	a->last = a->cur;
	a->last.seconds = seconds > 0 ? seconds : 1;
	a->cur = t;
}

void binagg__get(const struct binagg *a, const char *binary_id, struct pl_bin *ret)
{
	const struct bin_entry *e;
	const struct path_count *top = NULL;

	*ret = (struct pl_bin){ .top_fail_share = NAN };
	if (!binary_id)
		return;
	e = find(&a->last, binary_id);
	if (!e->id)
		return;
	for (int k = 0; k < TOP_PATHS; k++)
		if (e->top[k].path && (!top || e->top[k].count > top->count))
			top = &e->top[k];
	ret->present = true;
	ret->procs = e->procs;
	ret->open_failures_per_s = e->open_fail / a->last.seconds;
	ret->top_fail_path = top ? top->path : NULL;
	if (top && e->open_fail)
		ret->top_fail_share = (double)top->count / e->open_fail;
}

uint64_t binagg__overflow(const struct binagg *a)
{
	return a->overflow;
}
