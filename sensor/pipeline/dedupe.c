// SPDX-License-Identifier: MIT
/*
 * dedupe.c - dedupe windows per (rule, binary, script) (see dedupe.h).
 *
 * A direct-mapped table of DEDUPE_SLOTS windows, keyed by the hash of the
 * rule and the binary, the strings kept to compare (a collision is a
 * different pair, never a merge). The windows holding unreported matches are
 * also on a list in the order they started holding, so the tick's expiry
 * and the shutdown's report walk only those, oldest first, and a tick with
 * nothing due costs one comparison.
 */
#include "pipeline/dedupe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

struct entry {
	uint64_t hash; /* 0: free */
	char *rule, *binary_id, *exe, *script;
	int severity;
	char alert_id[DEDUPE_ID_MAX];
	uint64_t start_ns, end_ns;
	uint64_t first_ns, last_ns, held;
	bool reported; /* held was handed to the callback */
	bool pending;  /* on the list: held > 0 and not reported */
	int prev, next;
};

struct dedupe {
	dedupe_summary_fn fn;
	void *ctx;
	struct entry e[DEDUPE_SLOTS];
	int head, tail; /* the pending list, -1: empty */
	size_t npending;
	uint64_t next_end_ns; /* no pending window ends before this */
};

_Static_assert((DEDUPE_SLOTS & (DEDUPE_SLOTS - 1)) == 0, "DEDUPE_SLOTS must be a power of two");

int dedupe__new(dedupe_summary_fn fn, void *ctx, struct dedupe **ret)
{
	struct dedupe *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->fn = fn;
	d->ctx = ctx;
	d->head = d->tail = -1;
	d->next_end_ns = UINT64_MAX;
	*ret = d;
	return 0;
}

static void forget(struct entry *e)
{
	free(e->rule);
	free(e->binary_id);
	free(e->exe);
	free(e->script);
	memset(e, 0, sizeof(*e));
}

void dedupe__free(struct dedupe *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < DEDUPE_SLOTS; i++)
		forget(&d->e[i]);
	free(d);
}

const char *dedupe_reason__name(enum dedupe_reason r)
{
	switch (r) {
	case DEDUPE_WINDOW_END:
		return "window_end";
	case DEDUPE_SHUTDOWN:
		return "shutdown";
	case DEDUPE_EVICTED:
		return "evicted";
	}
	return "?";
}

static void pending_add(struct dedupe *d, struct entry *e)
{
	int i = (int)(e - d->e);

	e->pending = true;
	e->prev = d->tail;
	e->next = -1;
	if (d->tail >= 0)
		d->e[d->tail].next = i;
	else
		d->head = i;
	d->tail = i;
	d->npending++;
	if (e->end_ns < d->next_end_ns)
		d->next_end_ns = e->end_ns;
}

static void pending_del(struct dedupe *d, struct entry *e)
{
	if (!e->pending)
		return;
	if (e->prev >= 0)
		d->e[e->prev].next = e->next;
	else
		d->head = e->next;
	if (e->next >= 0)
		d->e[e->next].prev = e->prev;
	else
		d->tail = e->prev;
	e->pending = false;
	d->npending--;
	if (!d->npending)
		d->next_end_ns = UINT64_MAX;
}

/* Hand e's held matches to the callback, once. */
static void report(struct dedupe *d, struct entry *e, enum dedupe_reason why)
{
	struct dedupe_summary s;

	pending_del(d, e);
	if (!e->held || e->reported)
		return;
	e->reported = true;
	s = (struct dedupe_summary){
		.rule = e->rule,
		.binary_id = e->binary_id,
		.exe = e->exe,
		.severity = e->severity,
		.alert_id = e->alert_id,
		.window_start_ns = e->start_ns,
		.window_end_ns = e->end_ns,
		.first_ns = e->first_ns,
		.last_ns = e->last_ns,
		.count = e->held,
		.reason = why,
	};
	if (d->fn)
		d->fn(&s, d->ctx);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *who(const char *binary_id, const char *exe)
{
	return binary_id ? binary_id : exe ? exe : "";
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *c;

	if (!s)
		return NULL;
	c = strdup(s);
	*oom |= !c;
	return c;
}

int dedupe__match(struct dedupe *d, const struct dedupe_key *k, uint64_t window_ns, uint64_t now_ns,
		  const char *alert_id, uint64_t *ret_held)
{
	const char *w = who(k->binary_id, k->exe);
	uint64_t h = pl_fnv1a(pl_fnv1a(pl_fnv1a(pl_fnv1a(pl_hash_str(k->rule), "\n"), w), "\n"), k->script ? k->script : "") | 1;
	struct entry *e = &d->e[h & (DEDUPE_SLOTS - 1)];
	bool same = e->hash == h && same_str(e->rule, k->rule) && strcmp(who(e->binary_id, e->exe), w) == 0 &&
		    same_str(e->script, k->script);
	bool oom = false;
	uint64_t held = 0;

	if (!window_ns) {
		*ret_held = 0;
		return 1;
	}
	if (same && now_ns >= e->start_ns && now_ns < e->end_ns) {
		if (!e->held)
			e->first_ns = now_ns;
		e->held++;
		e->last_ns = now_ns;
		if (!e->pending && !e->reported)
			pending_add(d, e);
		return 0;
	}
	if (same)
		held = e->held;
	if (e->hash) {
		report(d, e, same || now_ns >= e->end_ns ? DEDUPE_WINDOW_END : DEDUPE_EVICTED);
		forget(e);
	}
	e->rule = dup_or_null(k->rule ? k->rule : "", &oom);
	e->binary_id = dup_or_null(k->binary_id, &oom);
	e->exe = dup_or_null(k->exe, &oom);
	e->script = dup_or_null(k->script, &oom);
	if (oom) {
		/* no window without its strings: this alert passes, and so will the next */
		forget(e);
	} else {
		e->hash = h;
		e->severity = k->severity;
		snprintf(e->alert_id, sizeof(e->alert_id), "%s", alert_id ? alert_id : "");
		e->start_ns = now_ns;
		e->end_ns = now_ns + window_ns < now_ns ? UINT64_MAX : now_ns + window_ns;
	}
	*ret_held = held;
	return 1;
}

void dedupe__expire(struct dedupe *d, uint64_t now_ns)
{
	uint64_t next = UINT64_MAX;

	if (now_ns < d->next_end_ns)
		return;
	for (int i = d->head; i >= 0;) {
		struct entry *e = &d->e[i];

		i = e->next;
		if (e->end_ns <= now_ns)
			report(d, e, DEDUPE_WINDOW_END);
		else if (e->end_ns < next)
			next = e->end_ns;
	}
	if (d->npending)
		d->next_end_ns = next;
}

void dedupe__close_all(struct dedupe *d, uint64_t now_ns)
{
	while (d->head >= 0) {
		struct entry *e = &d->e[d->head];

		report(d, e, now_ns >= e->end_ns ? DEDUPE_WINDOW_END : DEDUPE_SHUTDOWN);
	}
	/* the used slots only: replay closes all after each file (the records
	 * fuzz target after each input), and most of the table is free */
	for (size_t i = 0; i < DEDUPE_SLOTS; i++)
		if (d->e[i].hash || d->e[i].rule)
			forget(&d->e[i]);
}

size_t dedupe__pending(const struct dedupe *d)
{
	return d->npending;
}
