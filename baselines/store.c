// SPDX-License-Identifier: MIT
/*
 * store.c - the state directory: load, validate, save atomically.
 *
 * Bad files are never trusted and never lost silently: each is reported
 * through the caller's callback with what was wrong, and renamed aside so a
 * person can look at it, while its baseline is relearned from scratch.
 */
#include "store.h"
#include "cleanup.h"
#include "hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_FORMAT "plumbline-baseline"

struct bl_store {
	char *dir;
	struct baseline **b;
	size_t n, cap;
	size_t *index;    /* open addressing by bl_key_hash: position + 1, 0 = empty */
	size_t *place;    /* the same, by place_hash(): where a rebuilt binary finds its prior */
	size_t index_cap; /* power of two, >= 2 * cap; of both */
	/* learning baselines by maker, counted over the store at most once a
	 * second per user and kept up meanwhile: a flood of new binaries by one
	 * user must not cost a scan of the store each (store.h, the share) */
	struct {
		uint32_t uid;
		size_t learning;
		uint64_t counted_ns; /* 0: free */
	} learn_count[BL_UID_TRACK];
	uint64_t refused;
	/* the store's lifetime (store.h, docs/baselines.md "Lifetime of the store") */
	struct bl_policy pol;
	size_t max;                  /* pol.max_baselines, or BL_STORE_MAX before bl_store__set_policy() */
	uint64_t evicted, aged_out;
	/* the per-user bound: refusals by uid, the most frequent kept (space-saving) */
	struct bl_uid_refusals uids[BL_UID_TRACK];
	uint64_t uid_refused;
	bl_remove_fn remover; /* NULL: files are unlinked here */
	void *remover_ctx;
	char save_failed[PATH_MAX]; /* the first file the last save could not write */
	bl_report_fn report;
	void *ctx;
	bool readonly;
};

uint64_t bl_key_hash(const char *s)
{
	return pl_hash_str(s);
}

static void report(struct bl_store *st, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void report(struct bl_store *st, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!st->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	st->report(st->ctx, path, msg);
}

static struct json_object *parse_json(const char *buf, size_t len, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o;

	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (!o || json_tokener_get_parse_end(tok) != len) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(err, errlen, "not valid JSON (%s at byte %zu)",
			 e == json_tokener_continue ? "truncated" : json_tokener_error_desc(e),
			 json_tokener_get_parse_end(tok));
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

static void move_aside(struct bl_store *st, const char *path, const char *why)
{
	char aside[PATH_MAX];

	if (st->readonly) {
		report(st, path, "%s; skipped (read-only: left in place)", why);
		return;
	}
	snprintf(aside, sizeof(aside), "%s.bad-%lld", path, (long long)time(NULL));
	if (rename(path, aside) == 0)
		report(st, path, "%s; moved aside to its .bad-* name, its baseline will be relearned", why);
	else
		report(st, path, "%s; could not move it aside either, ignoring it", why);
}

/* A fork child's image (BL_KEY_FORK): another role, never the prior of an
 * exec'd image's baseline nor the other way round. */
static bool is_fork(const char *binary_id)
{
	size_t n = strlen(binary_id), k = strlen(BL_KEY_FORK);

	return n >= k && strcmp(binary_id + n - k, BL_KEY_FORK) == 0;
}

/* The same program in the same place: its exe and its parent's, and
 * whether it is a fork image (is_fork()), hashed. */
static uint64_t place_hash(const struct baseline *b)
{
	uint64_t h = pl_fnv1a(pl_fnv1a(pl_hash_str(b->exe), "\n"), b->parent_exe);

	return pl_fnv1a(h, is_fork(b->binary_id) ? "\nf" : "\ne");
}

static void index_put(struct bl_store *st, size_t pos)
{
	size_t mask = st->index_cap - 1, h = (size_t)bl_key_hash(st->b[pos]->key) & mask;

	while (st->index[h])
		h = (h + 1) & mask;
	st->index[h] = pos + 1;
	for (h = (size_t)place_hash(st->b[pos]) & mask; st->place[h]; h = (h + 1) & mask)
		;
	st->place[h] = pos + 1;
}

/* Rebuild the index for the current array (after growth or removal). */
static int reindex(struct bl_store *st)
{
	size_t cap = 128;
	size_t *idx, *place;

	while (cap < st->cap * 2)
		cap *= 2;
	idx = calloc(cap, sizeof(*idx));
	place = calloc(cap, sizeof(*place));
	if (!idx || !place) {
		free(idx);
		free(place);
		return -ENOMEM;
	}
	free(st->index);
	free(st->place);
	st->index = idx;
	st->place = place;
	st->index_cap = cap;
	for (size_t i = 0; i < st->n; i++)
		index_put(st, i);
	return 0;
}

static int append(struct bl_store *st, struct baseline *b)
{
	if (st->n == st->cap || !st->index) {
		size_t cap = st->n == st->cap ? (st->cap ? st->cap * 2 : 64) : st->cap;
		struct baseline **nb = realloc(st->b, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		st->b = nb;
		st->cap = cap;
		if (reindex(st) < 0)
			return -ENOMEM;
	}
	st->b[st->n++] = b;
	index_put(st, st->n - 1);
	return 0;
}

static void load_one(struct bl_store *st, const char *name)
{
	char path[PATH_MAX], err[256] = "", expect[32];
	struct baseline *b = NULL;
	size_t len;
	char *buf = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/%s", st->dir, name);
	/* not followed: every file of the store is the store's own */
	r = bl_file__read(path, BL_FILE_MAX, BL_READ_NOFOLLOW, &buf, &len, err, sizeof(err));
	if (r == -EFBIG || r == -EINVAL || r == -ELOOP) {
		/* oversized, or a FIFO, device, directory or symlink under a baseline's name */
		move_aside(st, path, err);
		return;
	}
	if (r < 0) {
		report(st, path, "cannot be read (%s), skipping it", err);
		return;
	}
	r = bl_store__parse_file(buf, len, &b, err, sizeof(err));
	free(buf);
	if (r == 0) {
		snprintf(expect, sizeof(expect), "%016llx.json", (unsigned long long)bl_key_hash(b->key));
		if (strcmp(expect, name) != 0)
			snprintf(err, sizeof(err), "holds key '%.128s', which belongs in %s", b->key, expect);
		else if (bl_store__get(st, b->key))
			snprintf(err, sizeof(err), "duplicate key '%.128s'", b->key);
		else if (st->n >= BL_STORE_LIMIT)
			snprintf(err, sizeof(err), "over the %u baselines a store may hold", BL_STORE_LIMIT);
		else if (append(st, b) == 0) {
			b->dirty = false;
			b = NULL;
			err[0] = '\0';
		}
	}
	baseline__free(b);
	if (r == -ENOMEM)
		report(st, path, "%s", "out of memory while loading it, skipping it");
	else if (err[0])
		move_aside(st, path, err);
}

int bl_store__parse_file(const char *buf, size_t len, struct baseline **ret, char *err, size_t errlen)
{
	struct json_object *o, *fmt;
	int r;

	if (len > BL_FILE_MAX) {
		snprintf(err, errlen, "%zu bytes, larger than a baseline file may be", len);
		return -EFBIG;
	}
	o = parse_json(buf, len, err, errlen);
	if (!o)
		return -EINVAL;
	if (!json_object_object_get_ex(o, "format", &fmt) || !json_object_is_type(fmt, json_type_string) ||
	    strcmp(json_object_get_string(fmt), FILE_FORMAT) != 0) {
		snprintf(err, errlen, "not a plumbline baseline file (format)");
		r = -EINVAL;
	} else {
		r = baseline__from_json(o, ret, err, errlen);
	}
	json_object_put(o);
	return r;
}

static int store_open(const char *dir, bl_report_fn report_fn, void *ctx, bool readonly, struct bl_store **ret)
{
	struct bl_store *st;
	struct dirent *de;
	char why[PATH_MAX + 256];
	DIR *d;
	int r;

	if (!readonly && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	/* what others could have written is not loaded, and not written to */
	r = bl_dir__check(dir, why, sizeof(why));
	if (r == -EPERM || r == -ENOTDIR) {
		if (report_fn)
			report_fn(ctx, dir, why);
		return r;
	}
	if (r < 0)
		return r;
	st = calloc(1, sizeof(*st));
	if (!st || !(st->dir = strdup(dir))) {
		free(st);
		return -ENOMEM;
	}
	st->report = report_fn;
	st->ctx = ctx;
	st->readonly = readonly;
	bl_policy__defaults(&st->pol);
	st->max = BL_STORE_MAX;
	d = opendir(dir);
	if (!d) {
		r = -errno;
		bl_store__free(st);
		return r;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (strstr(de->d_name, ".json.tmp.")) {
			/* a save interrupted by a crash (or one in progress, read-only) */
			char p[PATH_MAX];

			if (readonly)
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			if (unlink(p) == 0)
				report(st, p, "%s", "removed a temp file left by an interrupted save");
			continue;
		}
		if (l == 21 && strcmp(de->d_name + 16, ".json") == 0)
			load_one(st, de->d_name);
	}
	closedir(d);
	*ret = st;
	return 0;
}

int bl_store__open(const char *dir, bl_report_fn report_fn, void *ctx, struct bl_store **ret)
{
	return store_open(dir, report_fn, ctx, false, ret);
}

int bl_store__open_readonly(const char *dir, bl_report_fn report_fn, void *ctx, struct bl_store **ret)
{
	return store_open(dir, report_fn, ctx, true, ret);
}

void bl_store__free(struct bl_store *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		baseline__free(st->b[i]);
	free(st->b);
	free(st->index);
	free(st->place);
	free(st->dir);
	free(st);
}

size_t bl_store__count(const struct bl_store *st)
{
	return st->n;
}

struct baseline *bl_store__at(struct bl_store *st, size_t i)
{
	return i < st->n ? st->b[i] : NULL;
}

static ssize_t position(const struct bl_store *st, const char *key);

struct baseline *bl_store__get(struct bl_store *st, const char *key)
{
	ssize_t pos = position(st, key);

	return pos < 0 ? NULL : st->b[pos];
}

uint64_t bl_store__refused(const struct bl_store *st)
{
	return st->refused;
}

/* ---- lifetime ---- */

void bl_store__set_policy(struct bl_store *st, const struct bl_policy *p)
{
	st->pol = *p;
	st->max = p->max_baselines ? p->max_baselines : BL_STORE_MAX;
	if (st->max > BL_STORE_LIMIT)
		st->max = BL_STORE_LIMIT;
}

void bl_store__touch(struct baseline *b, uint64_t now_ns)
{
	/* a clock stepped back never makes a baseline look older than it is */
	if (now_ns <= b->seen_ns)
		return;
	b->seen_ns = now_ns;
	/* persisted coarsely: a busy baseline is not rewritten at every flush for this alone */
	if (b->seen_ns - b->seen_saved_ns >= BL_SEEN_SAVE_NS)
		b->dirty = true;
}

void bl_store__touch_live(struct bl_store *st, uint64_t now_ns)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->b[i]->users)
			bl_store__touch(st->b[i], now_ns);
}

uint64_t bl_store__evicted(const struct bl_store *st)
{
	return st->evicted;
}

uint64_t bl_store__aged_out(const struct bl_store *st)
{
	return st->aged_out;
}

const char *bl_store__save_failed(const struct bl_store *st)
{
	return st->save_failed[0] ? st->save_failed : NULL;
}

/*
 * What eviction may take, in this order: a learning baseline (not ready);
 * a ready one that has aged out (max_age_ns); a ready one still current,
 * only for another ready one (absorb) or to meet a bound lowered since the
 * files were written (sweep). A new baseline is never ready, so a flood of
 * new binaries can never take the ready baseline of a long-known one.
 */
enum evict_class { EV_LEARNING, EV_AGED, EV_READY };

struct cand {
	const struct baseline *b;
	size_t pos;
	enum evict_class cls;
};

static bool aged(const struct bl_store *st, const struct baseline *b, uint64_t now_ns)
{
	/* a clock stepped back ages nothing */
	return st->pol.max_age_ns && now_ns > b->seen_ns && now_ns - b->seen_ns > st->pol.max_age_ns;
}

static enum evict_class class_of(const struct bl_store *st, const struct baseline *b, uint64_t now_ns)
{
	if (!baseline__ready(b, &st->pol))
		return EV_LEARNING;
	return aged(st, b, now_ns) ? EV_AGED : EV_READY;
}

/* By class; then least recently seen; then least observed (fewer samples);
 * then the older; then by key, so that the order never depends on the
 * directory's or the array's order. */
static int evict_first(const void *x, const void *y)
{
	const struct cand *ca = x, *cb = y;
	const struct baseline *a = ca->b, *b = cb->b;

	if (ca->cls != cb->cls)
		return ca->cls < cb->cls ? -1 : 1;
	if (a->seen_ns != b->seen_ns)
		return a->seen_ns < b->seen_ns ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples < b->samples ? -1 : 1;
	if (a->created_ns != b->created_ns)
		return a->created_ns < b->created_ns ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Remove b's file: through the caller's remover when set (so that it is
 * ordered with the saves in flight), else here. */
static void remove_file(struct bl_store *st, const struct baseline *b)
{
	char path[PATH_MAX], why[64];
	int r;

	snprintf(path, sizeof(path), "%s/%016llx.json", st->dir, (unsigned long long)bl_key_hash(b->key));
	if (st->remover) {
		st->remover(st->remover_ctx, path);
		return;
	}
	r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", strerror(-r));
		report(st, path, "could not be removed (%s); its baseline is dropped from memory", why);
	}
}

/* Remove every baseline marked `doomed` from disk and memory, in one pass
 * and one reindex. A file that cannot be unlinked is reported; its
 * baseline still goes from memory (the next load's sweep removes it). */
static int remove_marked(struct bl_store *st, const bool *doomed)
{
	size_t w = 0;

	for (size_t i = 0; i < st->n; i++) {
		struct baseline *b = st->b[i];

		if (!doomed[i]) {
			st->b[w++] = b;
			continue;
		}
		remove_file(st, b);
		baseline__free(b);
	}
	st->n = w;
	return reindex(st);
}

/*
 * Evict, in the order of evict_first(), baselines that no process is
 * attached to, other than keep, of a class below `upto`, until at most
 * target are left. 0 (the store may still hold more when the rest must be
 * kept), or -ENOMEM.
 */
static int evict_to(struct bl_store *st, size_t target, const struct baseline *keep, uint64_t now_ns,
		    enum evict_class upto)
{
	_cleanup_free_ struct cand *cand = NULL;
	_cleanup_free_ bool *doomed = NULL;
	size_t nc = 0, want;

	if (st->n <= target)
		return 0;
	cand = malloc(st->n * sizeof(*cand));
	doomed = calloc(st->n, sizeof(*doomed));
	if (!cand || !doomed)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		const struct baseline *b = st->b[i];
		enum evict_class c;

		if (b->users || b == keep || (c = class_of(st, b, now_ns)) > upto)
			continue;
		cand[nc++] = (struct cand){ .b = b, .pos = i, .cls = c };
	}
	qsort(cand, nc, sizeof(*cand), evict_first);
	want = st->n - target < nc ? st->n - target : nc;
	for (size_t j = 0; j < want; j++)
		doomed[cand[j].pos] = true;
	st->evicted += want;
	return want ? remove_marked(st, doomed) : 0;
}

/* Room for one more: below the bound by a margin (1/64 of it), so that a
 * burst of new binaries costs one sort per margin's worth, not one each. */
static int make_room(struct bl_store *st, const struct baseline *keep, uint64_t now_ns, enum evict_class upto)
{
	size_t target = st->max - st->max / 64;

	return evict_to(st, target < st->max ? target : st->max - 1, keep, now_ns, upto);
}

/* The position of the baseline of key, or -1. */
static ssize_t position(const struct bl_store *st, const char *key)
{
	size_t mask, h;

	if (!st->index)
		return -1;
	mask = st->index_cap - 1;
	for (h = (size_t)bl_key_hash(key) & mask; st->index[h]; h = (h + 1) & mask)
		if (strcmp(st->b[st->index[h] - 1]->key, key) == 0)
			return (ssize_t)st->index[h] - 1;
	return -1;
}

int bl_store__sweep(struct bl_store *st, uint64_t now_ns)
{
	_cleanup_free_ bool *doomed = NULL;
	size_t naged = 0;
	int r;

	if (st->readonly)
		return -EROFS;
	if (!st->n)
		return 0;
	doomed = calloc(st->n, sizeof(*doomed));
	if (!doomed)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		const struct baseline *b = st->b[i];

		/* not seen for longer than the age limit */
		if (!b->users && aged(st, b, now_ns))
			doomed[i] = true;
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct baseline *nb = st->b[i];
		const struct baseline *old;
		ssize_t pos;
		bool done;

		if (!nb->prior_key || (pos = position(st, nb->prior_key)) < 0 || (old = st->b[pos])->users)
			continue;
		/* seen since its successor appeared: still a baseline in its own right */
		if (old->seen_ns > nb->created_ns)
			continue;
		done = baseline__ready(nb, &st->pol) ||
		       (st->pol.prior_max_age_ns && now_ns > nb->created_ns &&
			now_ns - nb->created_ns >= st->pol.prior_max_age_ns);
		if (done)
			doomed[pos] = true;
	}
	for (size_t i = 0; i < st->n; i++)
		naged += doomed[i];
	st->aged_out += naged;
	if (naged && (r = remove_marked(st, doomed)) < 0)
		return r;
	/* a bound lowered since the files were written */
	if ((r = evict_to(st, st->max, NULL, now_ns, EV_READY)) < 0)
		return r;
	return (int)naged;
}


size_t bl_store__uid_share(const struct bl_store *st)
{
	size_t share = st->pol.uid_share ? st->pol.uid_share : st->max / BL_UID_SHARE_DIV;

	return share ? share : 1;
}

/* One more refusal for uid: its counter, or the least counted one's slot
 * taken over with that count plus one (so a heavy hitter is never lost). */
static void count_uid_refusal(struct bl_store *st, uint32_t uid)
{
	struct bl_uid_refusals *min = &st->uids[0];

	st->uid_refused++;
	for (size_t i = 0; i < BL_UID_TRACK; i++) {
		struct bl_uid_refusals *u = &st->uids[i];

		if (u->refused && u->uid == uid) {
			u->refused++;
			return;
		}
		if (u->refused < min->refused)
			min = u;
	}
	min->uid = uid;
	min->refused++;
}

static int more_refused(const void *x, const void *y)
{
	const struct bl_uid_refusals *a = x, *b = y;

	if (a->refused != b->refused)
		return a->refused > b->refused ? -1 : 1;
	return a->uid < b->uid ? -1 : a->uid > b->uid;
}

size_t bl_store__uid_refusals(const struct bl_store *st, struct bl_uid_refusals *ret, size_t max)
{
	struct bl_uid_refusals all[BL_UID_TRACK];
	size_t n = 0;

	for (size_t i = 0; i < BL_UID_TRACK; i++)
		if (st->uids[i].refused)
			all[n++] = st->uids[i];
	qsort(all, n, sizeof(*all), more_refused);
	if (n > max)
		n = max;
	memcpy(ret, all, n * sizeof(*all));
	return n;
}

uint64_t bl_store__uid_refused(const struct bl_store *st)
{
	return st->uid_refused;
}

/* The most recently updated baseline of b's place (place_hash()) under
 * another binary id: the same program rebuilt. NULL: none. */
static struct baseline *find_prior(const struct bl_store *st, const struct baseline *b)
{
	size_t mask = st->index_cap - 1;
	struct baseline *prior = NULL;

	if (!st->place)
		return NULL; /* nothing stored yet */
	for (size_t h = (size_t)place_hash(b) & mask; st->place[h]; h = (h + 1) & mask) {
		struct baseline *o = st->b[st->place[h] - 1];

		if (strcmp(o->binary_id, b->binary_id) != 0 && strcmp(o->exe, b->exe) == 0 &&
		    strcmp(o->parent_exe, b->parent_exe) == 0 && is_fork(o->binary_id) == is_fork(b->binary_id) &&
		    (!prior || o->updated_ns > prior->updated_ns))
			prior = o;
	}
	return prior;
}

/* The count of uid's learning baselines, counted over the store when it is
 * older than a second (a baseline becomes ready as its samples come, or is
 * evicted: the count drifts only up meanwhile, by what obtain adds). NULL
 * for root and unknown makers, whom no share bounds. */
static size_t *learning_of(struct bl_store *st, uint32_t uid, uint64_t now_ns)
{
	size_t slot = BL_UID_TRACK, oldest = 0;

	if (uid == 0 || uid == BL_UID_NONE)
		return NULL;
	for (size_t i = 0; i < BL_UID_TRACK && slot == BL_UID_TRACK; i++) {
		if (st->learn_count[i].counted_ns && st->learn_count[i].uid == uid)
			slot = i;
		else if (st->learn_count[i].counted_ns < st->learn_count[oldest].counted_ns)
			oldest = i; /* free, or the stalest */
	}
	if (slot == BL_UID_TRACK) {
		slot = oldest;
		st->learn_count[slot].uid = uid;
		st->learn_count[slot].counted_ns = 0;
	}
	if (!st->learn_count[slot].counted_ns || now_ns < st->learn_count[slot].counted_ns ||
	    now_ns - st->learn_count[slot].counted_ns >= 1000000000ull) {
		size_t n = 0;

		for (size_t i = 0; i < st->n; i++)
			n += st->b[i]->uid == uid && !baseline__ready(st->b[i], &st->pol);
		st->learn_count[slot].learning = n;
		st->learn_count[slot].counted_ns = now_ns ? now_ns : 1;
	}
	return &st->learn_count[slot].learning;
}

/* Whether uid may make one more learning baseline: root and unknown
 * makers always; another user while it holds fewer than its share. */
static bool uid_may_learn(const struct bl_store *st, uint32_t uid, size_t learning)
{
	return uid == 0 || uid == BL_UID_NONE || learning < bl_store__uid_share(st);
}

struct baseline *bl_store__obtain(struct bl_store *st, const char *binary_id, const char *parent_id, const char *exe,
				  const char *parent_exe, uint32_t uid, uint64_t now_ns)
{
	struct baseline *b, *found, *prior;
	size_t *counted;
	char key[1024];

	/* the common case, a known binary, allocates nothing */
	if (!parent_id || !*parent_id)
		parent_id = "-";
	if (snprintf(key, sizeof(key), "%s@%s", binary_id, parent_id) < (int)sizeof(key)) {
		found = bl_store__get(st, key);
		if (found) {
			bl_store__touch(found, now_ns);
			return found;
		}
	}
	b = baseline__new(binary_id, parent_id, exe, parent_exe, now_ns);
	if (!b)
		return NULL;
	found = bl_store__get(st, b->key);
	if (found) {
		baseline__free(b);
		bl_store__touch(found, now_ns);
		return found;
	}
	b->uid = uid;
	/* the same program in the same place, rebuilt: its history is the prior */
	prior = find_prior(st, b);
	counted = learning_of(st, uid, now_ns);
	if (!uid_may_learn(st, uid, counted ? *counted : 0)) {
		count_uid_refusal(st, uid);
		baseline__free(b);
		return NULL;
	}
	if (prior && !(b->prior_key = strdup(prior->key))) {
		baseline__free(b);
		return NULL;
	}
	/* full: learning baselines go, and ready ones that aged out; never a
	 * live one, nor the prior just chosen, nor a current ready one */
	if (st->n >= st->max &&
	    (st->readonly || make_room(st, prior, now_ns, EV_AGED) < 0 || st->n >= st->max)) {
		st->refused++;
		baseline__free(b);
		return NULL;
	}
	if (append(st, b) < 0) {
		baseline__free(b);
		return NULL;
	}
	if (counted)
		(*counted)++;
	return b;
}

void bl_store__set_remover(struct bl_store *st, bl_remove_fn fn, void *ctx)
{
	st->remover = fn;
	st->remover_ctx = ctx;
}

int bl_store__encode(const struct bl_store *st, const struct baseline *b, char **ret_path, char **ret_data,
		     size_t *ret_len)
{
	struct json_object *o = baseline__to_json(b);
	_cleanup_free_ char *path = NULL, *data = NULL;
	const char *s;
	size_t len;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "format", json_object_new_string(FILE_FORMAT));
	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	data = s ? malloc(len ? len : 1) : NULL;
	if (data)
		memcpy(data, s, len);
	json_object_put(o);
	if (!data || asprintf(&path, "%s/%016llx.json", st->dir, (unsigned long long)bl_key_hash(b->key)) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	*ret_path = TAKE_PTR(path);
	*ret_data = TAKE_PTR(data);
	*ret_len = len;
	return 0;
}

static int save_one(struct bl_store *st, struct baseline *b)
{
	_cleanup_free_ char *path = NULL, *data = NULL;
	size_t len;
	int r = bl_store__encode(st, b, &path, &data, &len);

	if (!r)
		r = atomic_write_file(path, data, len, 0600);
	if (!r) {
		b->dirty = false;
		b->seen_saved_ns = b->seen_ns;
	} else if (!st->save_failed[0]) {
		snprintf(st->save_failed, sizeof(st->save_failed), "%s/%016llx.json", st->dir,
			 (unsigned long long)bl_key_hash(b->key));
	}
	return r;
}

int bl_store__save(struct bl_store *st)
{
	int first = 0;

	if (st->readonly)
		return -EROFS;
	st->save_failed[0] = '\0';
	for (size_t i = 0; i < st->n; i++) {
		int r;

		if (!st->b[i]->dirty)
			continue;
		r = save_one(st, st->b[i]);
		if (r < 0 && !first)
			first = r;
	}
	return first;
}

int bl_store__forget(struct bl_store *st, const char *key)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < st->n; i++) {
		if (strcmp(st->b[i]->key, key) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%016llx.json", st->dir, (unsigned long long)bl_key_hash(key));
		if (st->remover)
			st->remover(st->remover_ctx, path);
		else if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
		baseline__free(st->b[i]);
		st->b[i] = st->b[--st->n];
		return reindex(st);
	}
	return -ENOENT;
}

int bl_store__absorb(struct bl_store *st, struct baseline *b)
{
	struct baseline *have = bl_store__get(st, b->key);
	int r;

	if (have) {
		r = baseline__merge(have, b);
		baseline__free(b);
		return r;
	}
	/* a ready baseline may take a current ready one's place; a learning one may not */
	if (st->n >= st->max && (st->readonly ||
				 make_room(st, NULL, b->seen_ns, baseline__ready(b, &st->pol) ? EV_READY : EV_AGED) < 0 ||
				 st->n >= st->max)) {
		st->refused++;
		baseline__free(b);
		return -ENOSPC;
	}
	b->dirty = true;
	r = append(st, b);
	if (r < 0)
		baseline__free(b);
	return r;
}
