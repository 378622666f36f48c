// SPDX-License-Identifier: MIT
/*
 * store.c - the state directory: load, validate, save atomically.
 *
 * Bad files are never trusted and never lost silently: each is reported
 * through the caller's callback with what was wrong, and renamed aside so a
 * person can look at it, while its baseline is relearned from scratch.
 */
#include "store.h"
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
	size_t index_cap; /* power of two, >= 2 * cap */
	uint64_t refused;
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

static void index_put(struct bl_store *st, size_t pos)
{
	size_t mask = st->index_cap - 1, h = (size_t)bl_key_hash(st->b[pos]->key) & mask;

	while (st->index[h])
		h = (h + 1) & mask;
	st->index[h] = pos + 1;
}

/* Rebuild the index for the current array (after growth or removal). */
static int reindex(struct bl_store *st)
{
	size_t cap = 128;
	size_t *idx;

	while (cap < st->cap * 2)
		cap *= 2;
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	free(st->index);
	st->index = idx;
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
	struct json_object *o = NULL, *fmt;
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
	o = parse_json(buf, len, err, sizeof(err));
	free(buf);
	if (o && (!json_object_object_get_ex(o, "format", &fmt) || !json_object_is_type(fmt, json_type_string) ||
		  strcmp(json_object_get_string(fmt), FILE_FORMAT) != 0))
		snprintf(err, sizeof(err), "not a plumbline baseline file (format)");
	else if (o && baseline__from_json(o, &b, err, sizeof(err)) == 0) {
		snprintf(expect, sizeof(expect), "%016llx.json", (unsigned long long)bl_key_hash(b->key));
		if (strcmp(expect, name) != 0)
			snprintf(err, sizeof(err), "holds key '%.128s', which belongs in %s", b->key, expect);
		else if (bl_store__get(st, b->key))
			snprintf(err, sizeof(err), "duplicate key '%.128s'", b->key);
		else if (st->n >= BL_STORE_MAX)
			snprintf(err, sizeof(err), "over the %u baselines the store keeps", BL_STORE_MAX);
		else if (append(st, b) == 0) {
			b->dirty = false;
			b = NULL;
			err[0] = '\0';
		}
	}
	json_object_put(o);
	baseline__free(b);
	if (err[0])
		move_aside(st, path, err);
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

struct baseline *bl_store__get(struct bl_store *st, const char *key)
{
	size_t mask, h;

	if (!st->index)
		return NULL;
	mask = st->index_cap - 1;
	for (h = (size_t)bl_key_hash(key) & mask; st->index[h]; h = (h + 1) & mask)
		if (strcmp(st->b[st->index[h] - 1]->key, key) == 0)
			return st->b[st->index[h] - 1];
	return NULL;
}

uint64_t bl_store__refused(const struct bl_store *st)
{
	return st->refused;
}

/* A fork child's image (BL_KEY_FORK): another role, never the prior of an
 * exec'd image's baseline nor the other way round. */
static bool is_fork(const char *binary_id)
{
	size_t n = strlen(binary_id), k = strlen(BL_KEY_FORK);

	return n >= k && strcmp(binary_id + n - k, BL_KEY_FORK) == 0;
}

struct baseline *bl_store__obtain(struct bl_store *st, const char *binary_id, const char *parent_id, const char *exe,
				  const char *parent_exe, uint64_t now_ns)
{
	struct baseline *b, *found, *prior = NULL;
	char key[1024];

	/* the common case, a known binary, allocates nothing */
	if (!parent_id || !*parent_id)
		parent_id = "-";
	if (snprintf(key, sizeof(key), "%s@%s", binary_id, parent_id) < (int)sizeof(key)) {
		found = bl_store__get(st, key);
		if (found)
			return found;
	}
	b = baseline__new(binary_id, parent_id, exe, parent_exe, now_ns);
	if (!b)
		return NULL;
	found = bl_store__get(st, b->key);
	if (found) {
		baseline__free(b);
		return found;
	}
	if (st->n >= BL_STORE_MAX) {
		st->refused++;
		baseline__free(b);
		return NULL;
	}
	/* the same program in the same place, rebuilt: its history is the prior */
	for (size_t i = 0; i < st->n; i++) {
		struct baseline *o = st->b[i];

		if (strcmp(o->binary_id, b->binary_id) != 0 && strcmp(o->exe, b->exe) == 0 &&
		    strcmp(o->parent_exe, b->parent_exe) == 0 && is_fork(o->binary_id) == is_fork(b->binary_id) &&
		    (!prior || o->updated_ns > prior->updated_ns))
			prior = o;
	}
	if (prior && !(b->prior_key = strdup(prior->key))) {
		baseline__free(b);
		return NULL;
	}
	if (append(st, b) < 0) {
		baseline__free(b);
		return NULL;
	}
	return b;
}

static int save_one(struct bl_store *st, struct baseline *b)
{
	char path[PATH_MAX];
	struct json_object *o = baseline__to_json(b);
	const char *s;
	size_t len;
	int r;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "format", json_object_new_string(FILE_FORMAT));
	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	snprintf(path, sizeof(path), "%s/%016llx.json", st->dir, (unsigned long long)bl_key_hash(b->key));
	r = s ? atomic_write_file(path, s, len, 0600) : -ENOMEM;
	json_object_put(o);
	if (!r)
		b->dirty = false;
	return r;
}

int bl_store__save(struct bl_store *st)
{
	int first = 0;

	if (st->readonly)
		return -EROFS;
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
		if (unlink(path) < 0 && errno != ENOENT)
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
	if (st->n >= BL_STORE_MAX) {
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
