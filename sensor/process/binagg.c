// SPDX-License-Identifier: MIT
/*
 * binagg.c - two generations of small per-binary tables (current second,
 * last second), each an open-addressing hash keyed by binary id.
 */
#include "process/binagg.h"
#include "hash.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


#define TOP_PATHS 8 /* candidate paths kept per binary per second */
#define STORM_PATHS 16 /* new paths kept per binary per second */
#define STORM_MAX_PEERS 8 /* at most this many new paths failed by as many processes */

struct path_count {
	char *path;
	uint64_t count;
};

struct storm_count {
	char *path;
	uint32_t procs;  /* distinct processes that failed it */
	uint64_t fails;
	uint64_t last_call; /* the binagg__add_fails() call that counted a process last */
};

struct bin_entry {
	char *id;
	bool storm_new; /* its storm paths were counted while the binary was new to the sensor */
	uint64_t procs, open_fail;
	struct path_count top[TOP_PATHS];
	struct storm_count storm[STORM_PATHS];
};

/* What the sensor has seen each binary fail, by hash of (binary, path); the
 * binary itself under the empty path. Open addressing, no strings. */
struct known {
	uint64_t h; /* 0: free */
	uint64_t first_ns, last_ns;
	uint64_t by; /* a path of any binary (binary id ""): the binary that failed it first */
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
	struct known *known; /* [BINAGG_KNOWN * 2] */
	uint32_t nknown;
	uint64_t known_dropped;
	uint64_t calls;
	char storm_paths[4096]; /* bin.storm_paths of the last binagg__get() */
};

static void gen_clear(struct gen *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct bin_entry *e = &g->e[g->used[i]];

		free(e->id);
		for (int k = 0; k < TOP_PATHS; k++)
			free(e->top[k].path);
		for (int k = 0; k < STORM_PATHS; k++)
			free(e->storm[k].path);
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
	a->known = calloc(BINAGG_KNOWN * 2, sizeof(*a->known));
	if (!a->cur.e || !a->last.e || !a->cur.used || !a->last.used || !a->known) {
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
	free(a->known);
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

void binagg__get(struct binagg *a, const char *binary_id, struct pl_bin *ret)
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
	{
		const struct storm_count *best = NULL;
		uint32_t peers = 0;
		size_t len = 0;

		for (int k = 0; k < STORM_PATHS; k++) {
			const struct storm_count *c = &e->storm[k];

			if (c->path && (!best || c->procs > best->procs || (c->procs == best->procs && c->fails > best->fails)))
				best = c;
		}
		/* a storm fails one path (and what failing it makes a process do:
		 * error-message catalogs); a compiler in a new project fails many
		 * new paths alike (every header in every new include directory) */
		for (int k = 0; best && k < STORM_PATHS; k++)
			peers += e->storm[k].path && e->storm[k].procs * 2 >= best->procs;
		if (best && peers <= STORM_MAX_PEERS) {
			char *out = a->storm_paths;

			ret->storm_path = best->path;
			ret->storm_procs = best->procs;
			ret->storm_new_binary = e->storm_new;
			ret->storm_failures_per_s = best->fails / a->last.seconds;
			/* the paths failed alike, most processes first: the storm is one of them */
			out[0] = 0;
			for (uint32_t want = best->procs + 1; want-- > (best->procs + 1) / 2;)
				for (int k = 0; k < STORM_PATHS; k++) {
					const struct storm_count *c = &e->storm[k];
					size_t n;

					if (!c->path || c->procs != want)
						continue;
					n = strlen(c->path);
					if (len + n + 3 >= sizeof(a->storm_paths))
						break;
					if (len) {
						memcpy(out + len, ", ", 2);
						len += 2;
					}
					memcpy(out + len, c->path, n + 1);
					len += n;
				}
			ret->storm_paths = out;
		}
	}
}

/* ---- new paths across processes ---- */

static uint64_t known_hash(const char *binary_id, const char *path)
{
	uint64_t h = pl_fnv1a(pl_fnv1a(0xcbf29ce484222325ull, binary_id), "\x01");

	h = pl_fnv1a(h, path);
	return h ? h : 1;
}

/* The slot of h: its entry, or the free slot where it would go. */
static struct known *known_slot(struct binagg *a, uint64_t h)
{
	uint32_t mask = BINAGG_KNOWN * 2 - 1;

	for (uint32_t i = (uint32_t)(h ^ (h >> 32)) & mask;; i = (i + 1) & mask)
		if (!a->known[i].h || a->known[i].h == h)
			return &a->known[i];
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Full: keep the most recently seen half (rebuilt through a new table). */
static void known_shrink(struct binagg *a)
{
	struct known *old = a->known, *n = calloc(BINAGG_KNOWN * 2, sizeof(*n));
	uint64_t *last, cut;
	uint32_t m = 0;

	last = n ? malloc(sizeof(*last) * (a->nknown ? a->nknown : 1)) : NULL;
	if (!last) {
		free(n);
		return; /* stays full: new entries are dropped and counted */
	}
	for (uint32_t i = 0; i < BINAGG_KNOWN * 2; i++)
		if (old[i].h && m < a->nknown)
			last[m++] = old[i].last_ns;
	qsort(last, m, sizeof(*last), cmp_u64);
	cut = m ? last[m / 2] : 0;
	free(last);
	a->known = n;
	a->nknown = 0;
	for (uint32_t i = 0; i < BINAGG_KNOWN * 2; i++) {
		if (!old[i].h)
			continue;
		if (old[i].last_ns < cut) {
			a->known_dropped++;
			continue;
		}
		*known_slot(a, old[i].h) = old[i];
		a->nknown++;
	}
	free(old);
}

/* When the binary was first seen failing path (now when new); 0 when it
 * cannot be remembered. */
static uint64_t known_touch(struct binagg *a, const char *binary_id, const char *path, uint64_t now_ns)
{
	uint64_t h = known_hash(binary_id, path);
	struct known *k = known_slot(a, h);

	if (!k->h) {
		if (a->nknown >= BINAGG_KNOWN) {
			known_shrink(a);
			k = known_slot(a, h);
			if (a->nknown >= BINAGG_KNOWN) {
				a->known_dropped++;
				return 0;
			}
		}
		*k = (struct known){ .h = h, .first_ns = now_ns };
		a->nknown++;
	}
	k->last_ns = now_ns;
	return k->first_ns;
}

/*
 * Whether this binary (bin, its hash) was the first of all binaries the sensor
 * saw fail path: a path of its own (a config file), not one of what every
 * program fails alike (locale files, library search paths). false when it
 * cannot be remembered.
 */
static bool first_failer(struct binagg *a, uint64_t bin, const char *path, uint64_t now_ns)
{
	struct known *k;

	if (!known_touch(a, "", path, now_ns))
		return false;
	k = known_slot(a, known_hash("", path));
	if (!k->h)
		return false;
	if (!k->by)
		k->by = bin;
	return k->by == bin;
}

void binagg__add_fails(struct binagg *a, const char *binary_id, const struct pl_fail *fails, uint32_t nfails,
		       uint64_t now_ns)
{
	const uint64_t new_ns = BINAGG_NEW_S * 1000000000ull;
	uint64_t bin_first, bin = known_hash(binary_id ? binary_id : "", "");
	bool bin_new;
	struct bin_entry *e;

	if (!binary_id || !nfails)
		return;
	a->calls++;
	bin_first = known_touch(a, binary_id, "", now_ns);
	bin_new = bin_first && now_ns - bin_first < new_ns;
	e = find(&a->cur, binary_id);
	for (uint32_t i = 0; i < nfails; i++) {
		uint64_t first = known_touch(a, binary_id, fails[i].path, now_ns);
		bool own = first_failer(a, bin, fails[i].path, now_ns);
		int slot = -1;

		/* new: first failed recently, by a binary known for longer; or, by
		 * a binary new to the sensor, a path no other binary failed first
		 * (its usual failures, the ones every program shares, are not) */
		if (!first || !bin_first || now_ns - first >= new_ns || !e->id)
			continue;
		/* a new binary's storm is of a missing file of its own: not a terminal it lacks
		 * (/dev/tty, ENXIO, in every subshell of a script run without one), not a device */
		if (bin_new && (!own || fails[i].err != ENOENT))
			continue;
		e->storm_new |= bin_new;
		for (int k = 0; k < STORM_PATHS; k++) {
			struct storm_count *c = &e->storm[k];

			if (c->path && strcmp(c->path, fails[i].path) == 0) {
				slot = k;
				break;
			}
			if (slot < 0 || (e->storm[slot].path && (!c->path || c->procs < e->storm[slot].procs)))
				slot = k;
		}
		if (!e->storm[slot].path || strcmp(e->storm[slot].path, fails[i].path) != 0) {
			char *p;

			if (e->storm[slot].path && e->storm[slot].procs > 1)
				continue; /* the table holds paths more processes failed */
			p = strdup(fails[i].path);
			if (!p)
				continue;
			free(e->storm[slot].path);
			e->storm[slot] = (struct storm_count){ .path = p };
		}
		if (e->storm[slot].last_call != a->calls) {
			e->storm[slot].procs++;
			e->storm[slot].last_call = a->calls;
		}
		e->storm[slot].fails += fails[i].count;
	}
}

uint64_t binagg__known_dropped(const struct binagg *a)
{
	return a->known_dropped;
}

uint64_t binagg__overflow(const struct binagg *a)
{
	return a->overflow;
}
