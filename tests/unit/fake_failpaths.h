/* SPDX-License-Identifier: MIT */
/*
 * fake_failpaths.h - the kernel's `fail_paths` map in memory, for the unit
 * tests of the modules that read it through struct failpaths_table
 * (sensor/process/failpaths.h): a flat array of keys, their values, and the one
 * (tgid, image) the kernel still tracks. Static inline, so each test stays
 * one translation unit (include after <cmocka.h>).
 */
#ifndef PL_FAKE_FAILPATHS_H
#define PL_FAKE_FAILPATHS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "process/failpaths.h"

#define FAKE_FAILPATHS_MAX 1024

struct fake_failpaths {
	struct pl_fail_key keys[FAKE_FAILPATHS_MAX];
	struct pl_fail_val vals[FAKE_FAILPATHS_MAX];
	bool used[FAKE_FAILPATHS_MAX];
	uint32_t live_tgid; /* a process the kernel tracks (0: none) */
	uint64_t live_image;
	unsigned removes; /* keys deleted through the table */
};

/* The slot of key k, or -1. */
static inline int fake_failpaths__find(const struct fake_failpaths *f, const struct pl_fail_key *k)
{
	for (int i = 0; i < FAKE_FAILPATHS_MAX; i++)
		if (f->used[i] && memcmp(&f->keys[i], k, sizeof(*k)) == 0)
			return i;
	return -1;
}

static inline int fake_failpaths__lookup(void *ctx, const struct pl_fail_key *k, struct pl_fail_val *ret)
{
	const struct fake_failpaths *f = ctx;
	int i = fake_failpaths__find(f, k);

	if (i < 0)
		return -ENOENT;
	*ret = f->vals[i];
	return 0;
}

static inline int fake_failpaths__remove(void *ctx, const struct pl_fail_key *k)
{
	struct fake_failpaths *f = ctx;
	int i = fake_failpaths__find(f, k);

	if (i < 0)
		return -ENOENT;
	f->used[i] = false;
	f->removes++;
	return 0;
}

static inline int fake_failpaths__next_key(void *ctx, const struct pl_fail_key *prev, struct pl_fail_key *ret)
{
	const struct fake_failpaths *f = ctx;

	for (int i = prev ? fake_failpaths__find(f, prev) + 1 : 0; i < FAKE_FAILPATHS_MAX; i++)
		if (f->used[i]) {
			*ret = f->keys[i];
			return 0;
		}
	return -ENOENT;
}

static inline bool fake_failpaths__image_live(void *ctx, uint32_t tgid, uint64_t image_id)
{
	const struct fake_failpaths *f = ctx;

	return f->live_tgid && tgid == f->live_tgid && image_id == f->live_image;
}

/* The table the module under test reads f through. */
static inline struct failpaths_table fake_failpaths__table(struct fake_failpaths *f)
{
	return (struct failpaths_table){
		.ctx = f,
		.lookup = fake_failpaths__lookup,
		.remove = fake_failpaths__remove,
		.next_key = fake_failpaths__next_key,
		.image_live = fake_failpaths__image_live,
	};
}

/* The kernel's failure of key k, `count` more times (first seen at first_ns
 * when new). Returns the key's slot; *ret_new says whether it was new (the
 * kernel then sends a FAIL_PATH record). */
static inline int fake_failpaths__fail(struct fake_failpaths *f, const struct pl_fail_key *k, uint64_t count,
				       uint64_t first_ns, bool *ret_new)
{
	int i = fake_failpaths__find(f, k);

	*ret_new = i < 0;
	if (i >= 0) {
		f->vals[i].count += count;
		return i;
	}
	for (i = 0; f->used[i]; i++)
		assert_true(i < FAKE_FAILPATHS_MAX - 1);
	f->used[i] = true;
	f->keys[i] = *k;
	f->vals[i] = (struct pl_fail_val){ .count = count, .first_ns = first_ns };
	return i;
}

/* The key of (tgid, image, errno, path). */
static inline struct pl_fail_key fake_failpaths__key(uint32_t tgid, uint64_t image_id, int err, const char *path)
{
	struct pl_fail_key k = { .image_id = image_id, .tgid = tgid, .err = err };

	snprintf(k.path, sizeof(k.path), "%s", path);
	return k;
}

/* How many keys the table holds. */
static inline unsigned fake_failpaths__size(const struct fake_failpaths *f)
{
	unsigned n = 0;

	for (int i = 0; i < FAKE_FAILPATHS_MAX; i++)
		n += f->used[i];
	return n;
}

#endif
