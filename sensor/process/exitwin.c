// SPDX-License-Identifier: MIT
/*
 * exitwin.c - failed and successful exits per (binary, user), last minute.
 * See exitwin.h.
 */
#include "process/exitwin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NSEC 1000000000ull

struct ring {
	uint64_t t[EXITWIN_KEEP]; /* monotonic ns, oldest overwritten */
	uint32_t next, n;
};

struct pair {
	char *exe;
	uint32_t uid;
	uint64_t used_ns;
	struct ring fail, ok;
	struct pair *next; /* hash chain */
};

struct exitwin {
	struct pair **buckets;
	uint32_t nbuckets, n, max;
	uint64_t evicted;
};

static uint64_t hash(const char *s, uint32_t uid)
{
	uint64_t h = 1469598103934665603ull ^ uid;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

int exitwin__new(uint32_t max, struct exitwin **ret)
{
	struct exitwin *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->max = max ? max : 1;
	w->nbuckets = 1;
	while (w->nbuckets < w->max)
		w->nbuckets <<= 1;
	w->buckets = calloc(w->nbuckets, sizeof(*w->buckets));
	if (!w->buckets) {
		free(w);
		return -ENOMEM;
	}
	*ret = w;
	return 0;
}

void exitwin__free(struct exitwin *w)
{
	if (!w)
		return;
	for (uint32_t b = 0; b < w->nbuckets; b++)
		for (struct pair *p = w->buckets[b], *next; p; p = next) {
			next = p->next;
			free(p->exe);
			free(p);
		}
	free(w->buckets);
	free(w);
}

uint64_t exitwin__evicted(const struct exitwin *w)
{
	return w->evicted;
}

/* Forget the least recently used pair (a scan: only when the table is full). */
static void evict(struct exitwin *w)
{
	struct pair **oldest = NULL;

	for (uint32_t b = 0; b < w->nbuckets; b++)
		for (struct pair **pp = &w->buckets[b]; *pp; pp = &(*pp)->next)
			if (!oldest || (*pp)->used_ns < (*oldest)->used_ns)
				oldest = pp;
	if (!oldest)
		return;
	struct pair *p = *oldest;
	*oldest = p->next;
	free(p->exe);
	free(p);
	w->n--;
	w->evicted++;
}

static struct pair *obtain(struct exitwin *w, const char *exe, uint32_t uid)
{
	uint32_t b = (uint32_t)(hash(exe, uid) & (w->nbuckets - 1));
	struct pair *p;

	for (p = w->buckets[b]; p; p = p->next)
		if (p->uid == uid && strcmp(p->exe, exe) == 0)
			return p;
	if (w->n >= w->max)
		evict(w);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->exe = strdup(exe);
	if (!p->exe) {
		free(p);
		return NULL;
	}
	p->uid = uid;
	p->next = w->buckets[b];
	w->buckets[b] = p;
	w->n++;
	return p;
}

static void push(struct ring *r, uint64_t t)
{
	r->t[r->next] = t;
	r->next = (r->next + 1) % EXITWIN_KEEP;
	if (r->n < EXITWIN_KEEP)
		r->n++;
}

/* How many of r's times are within the span before now; *first the oldest of them. */
static uint32_t recent(const struct ring *r, uint64_t now, uint64_t *first)
{
	uint64_t since = now > EXITWIN_SPAN_S * NSEC ? now - EXITWIN_SPAN_S * NSEC : 0;
	uint32_t n = 0;

	*first = now;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->t[i] >= since && r->t[i] <= now) {
			n++;
			if (r->t[i] < *first)
				*first = r->t[i];
		}
	return n;
}

void exitwin__add(struct exitwin *w, const char *exe, uint32_t uid, bool failed, uint64_t now_ns,
		  struct pl_auth *ret)
{
	struct pair *p;
	uint64_t first, unused;
	double span_s;

	memset(ret, 0, sizeof(*ret));
	if (!exe || !(p = obtain(w, exe, uid)))
		return;
	p->used_ns = now_ns;
	push(failed ? &p->fail : &p->ok, now_ns);
	ret->present = true;
	ret->failed = failed;
	ret->failures = recent(&p->fail, now_ns, &first);
	ret->successes = recent(&p->ok, now_ns, &unused);
	/* the rate over the failures' own span, at least 1 s, at most the window */
	span_s = (double)(now_ns - first) / 1e9;
	if (span_s < 1)
		span_s = 1;
	ret->failures_per_min = ret->failures ? (double)ret->failures * 60.0 / span_s : 0;
	if (ret->failures_per_min < ret->failures)
		ret->failures_per_min = ret->failures; /* never below the count in the last minute */
}
