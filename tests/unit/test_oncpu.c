// SPDX-License-Identifier: MIT
/*
 * test_oncpu.c - the life of an on-CPU stack key, against tables in memory
 * that stand in for the kernel's `stack_counts` and its two stack maps.
 * Frames are named by a real struct symbols: user frames point into this
 * binary (linked with the build-id TEST_BUILD_ID), kernel frames at
 * symbols of /proc/kallsyms when its addresses show.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacks/oncpu.h"
#include "self_elf.h"

#define MAX_KEYS 512
#define MAX_STACKS 256 /* entries of each stack map */
#define MAX_LIVE 16
#define SEC 1000000000ull
#define RATE_HZ 99

/* Functions of this binary for user frames: non-static, out of line, and
 * unlike each other so the compiler folds none into another. */
int oncpu_fx_alpha(int x);
int oncpu_fx_beta(int x);
int oncpu_fx_gamma(int x);
int oncpu_fx_delta(int x);
static volatile int sink;
__attribute__((noinline)) int oncpu_fx_alpha(int x) { return sink += x + 1; }
__attribute__((noinline)) int oncpu_fx_beta(int x) { return sink ^= x * 3; }
__attribute__((noinline)) int oncpu_fx_gamma(int x) { return sink -= x * 5 + 2; }
__attribute__((noinline)) int oncpu_fx_delta(int x) { return sink |= x << 3; }

/* The fake kernel. */
struct fake {
	struct pl_stack_key keys[MAX_KEYS];
	uint64_t counts[MAX_KEYS];
	bool used[MAX_KEYS];
	struct pl_ustack_frame ustack[MAX_STACKS][PL_USTACK_DEPTH];
	uint64_t kstack[MAX_STACKS][PL_KSTACK_DEPTH];
	bool uused[MAX_STACKS], kused[MAX_STACKS];
	struct {
		uint32_t tgid;
		uint64_t image_id;
	} live[MAX_LIVE];
	unsigned nlive;
	unsigned forgets[2]; /* forget_stack calls: user, kernel */
};

struct ctx {
	struct fake k;
	struct symbols *sym;
	struct oncpu *oc;
	char exe[4096];
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	struct se_kallsyms ks;
	const struct se_ksym *kfn[3]; /* kernel functions, or NULL when kallsyms is hidden */
};

static int find(struct fake *f, const struct pl_stack_key *k)
{
	for (int i = 0; i < MAX_KEYS; i++)
		if (f->used[i] && memcmp(&f->keys[i], k, sizeof(*k)) == 0)
			return i;
	return -1;
}

static int fk_count(void *ctx, const struct pl_stack_key *k, uint64_t *ret)
{
	struct fake *f = ctx;
	int i = find(f, k);

	if (i < 0)
		return -ENOENT;
	*ret = f->counts[i];
	return 0;
}

static int fk_remove(void *ctx, const struct pl_stack_key *k)
{
	struct fake *f = ctx;
	int i = find(f, k);

	if (i < 0)
		return -ENOENT;
	f->used[i] = false;
	return 0;
}

static int fk_next_key(void *ctx, const struct pl_stack_key *prev, struct pl_stack_key *ret)
{
	struct fake *f = ctx;
	int start = prev ? find(f, prev) + 1 : 0;

	for (int i = start; i < MAX_KEYS; i++)
		if (f->used[i]) {
			*ret = f->keys[i];
			return 0;
		}
	return -ENOENT;
}

static int fk_ustack(void *ctx, int32_t id, struct pl_ustack_frame *ret)
{
	struct fake *f = ctx;

	if (id < 0 || id >= MAX_STACKS || !f->uused[id])
		return -ENOENT;
	memcpy(ret, f->ustack[id], sizeof(f->ustack[id]));
	return 0;
}

static int fk_kstack(void *ctx, int32_t id, uint64_t *ret)
{
	struct fake *f = ctx;

	if (id < 0 || id >= MAX_STACKS || !f->kused[id])
		return -ENOENT;
	memcpy(ret, f->kstack[id], sizeof(f->kstack[id]));
	return 0;
}

static int fk_forget_stack(void *ctx, bool kernel, int32_t id)
{
	struct fake *f = ctx;
	bool *used = kernel ? f->kused : f->uused;

	f->forgets[kernel]++;
	if (id < 0 || id >= MAX_STACKS || !used[id])
		return -ENOENT;
	used[id] = false;
	return 0;
}

static int fk_next_stack(void *ctx, bool kernel, int32_t prev, int32_t *ret)
{
	struct fake *f = ctx;
	const bool *used = kernel ? f->kused : f->uused;

	for (int32_t id = prev + 1; id < MAX_STACKS; id++)
		if (used[id]) {
			*ret = id;
			return 0;
		}
	return -ENOENT;
}

static bool fk_image_live(void *ctx, uint32_t tgid, uint64_t image_id)
{
	struct fake *f = ctx;

	for (unsigned i = 0; i < f->nlive; i++)
		if (f->live[i].tgid == tgid && f->live[i].image_id == image_id)
			return true;
	return false;
}

static void set_live(struct ctx *c, uint32_t tgid, uint64_t image_id, bool live)
{
	for (unsigned i = 0; i < c->k.nlive; i++)
		if (c->k.live[i].tgid == tgid && c->k.live[i].image_id == image_id) {
			if (!live)
				c->k.live[i] = c->k.live[--c->k.nlive];
			return;
		}
	if (live) {
		assert_true(c->k.nlive < MAX_LIVE);
		c->k.live[c->k.nlive].tgid = tgid;
		c->k.live[c->k.nlive++].image_id = image_id;
	}
}

/* ---- what the kernel stores ---- */

/* A user frame of this binary: fn's file offset plus delta. */
static struct pl_ustack_frame self_frame(struct ctx *c, int (*fn)(int), uint64_t delta)
{
	struct pl_ustack_frame u = { .status = PL_FRAME_VALID, .offset_or_ip = se_file_offset((const void *)fn) + delta };

	memcpy(u.build_id, c->bid, sizeof(u.build_id));
	return u;
}

/* Store user stack id, frames given leaf first as the kernel gives them. */
static void put_ustack(struct ctx *c, int32_t id, const struct pl_ustack_frame *leaf_first, unsigned n)
{
	assert_true(id >= 0 && id < MAX_STACKS && n <= PL_USTACK_DEPTH);
	memset(c->k.ustack[id], 0, sizeof(c->k.ustack[id]));
	memcpy(c->k.ustack[id], leaf_first, n * sizeof(*leaf_first));
	c->k.uused[id] = true;
}

static void put_kstack(struct ctx *c, int32_t id, const uint64_t *leaf_first, unsigned n)
{
	assert_true(id >= 0 && id < MAX_STACKS && n <= PL_KSTACK_DEPTH);
	memset(c->k.kstack[id], 0, sizeof(c->k.kstack[id]));
	memcpy(c->k.kstack[id], leaf_first, n * sizeof(*leaf_first));
	c->k.kused[id] = true;
}

static struct pl_stack_key key(uint32_t tgid, uint64_t image, int32_t ustack, int32_t kstack)
{
	return (struct pl_stack_key){ .image_id = image, .tgid = tgid, .ustack = ustack, .kstack = kstack };
}

/* The kernel counting samples under a key (inserting it if new), without
 * telling user space. */
static void kernel_counts(struct ctx *c, struct pl_stack_key k, uint64_t n)
{
	int i = find(&c->k, &k);

	if (i < 0) {
		for (i = 0; c->k.used[i]; i++)
			assert_true(i < MAX_KEYS - 1);
		c->k.used[i] = true;
		c->k.keys[i] = k;
		c->k.counts[i] = 0;
	}
	c->k.counts[i] += n;
}

/* ... and announcing it with a STACK record, as for every new key. */
static void kernel_samples(struct ctx *c, struct pl_stack_key k, uint64_t n)
{
	struct pl_ev_stack ev = { .hdr = { .tgid = k.tgid }, .key = k };
	bool is_new = find(&c->k, &k) < 0;

	kernel_counts(c, k, n);
	if (is_new)
		oncpu__on_record(c->oc, &ev);
}

static bool in_table(struct ctx *c, struct pl_stack_key k)
{
	return find(&c->k, &k) >= 0;
}

static unsigned table_size(struct ctx *c)
{
	unsigned n = 0;

	for (int i = 0; i < MAX_KEYS; i++)
		n += c->k.used[i];
	return n;
}

/* ---- fixture ---- */

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct oncpu_table tbl = {
		.count = fk_count,
		.remove = fk_remove,
		.next_key = fk_next_key,
		.ustack = fk_ustack,
		.kstack = fk_kstack,
		.forget_stack = fk_forget_stack,
		.next_stack = fk_next_stack,
		.image_live = fk_image_live,
	};

	assert_non_null(c);
	tbl.ctx = &c->k;
	se_exe_path(c->exe, sizeof(c->exe));
	se_hex_to_bytes(TEST_BUILD_ID, c->bid, sizeof(c->bid));
	assert_int_equal(symbols__new(&c->sym), 0);
	symbols__add_mapping(c->sym, c->bid, sizeof(c->bid), c->exe);
	assert_int_equal(oncpu__new(&tbl, c->sym, MAX_STACKS, RATE_HZ, &c->oc), 0);
	se_kallsyms_read(&c->ks);
	for (unsigned i = 0; i < 3 && c->ks.n; i++)
		c->kfn[i] = se_kallsyms_unique(&c->ks, 50 * i);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	oncpu__free(c->oc);
	symbols__free(c->sym);
	free(c->ks.s);
	free(c);
	return 0;
}

/* A kernel address inside kernel function i (or one no name covers, when
 * kallsyms hides its addresses: the frame is still [kernel]). */
static uint64_t kaddr(struct ctx *c, unsigned i)
{
	return c->kfn[i] ? c->kfn[i]->addr + 4 : 0xffffffff81000000ull + 0x1000 * (i + 1);
}

static void assert_frame(const struct pl_frame *f, const char *object, const char *function, uint64_t offset)
{
	assert_non_null(f->object);
	assert_string_equal(f->object, object);
	if (function) {
		assert_non_null(f->function);
		assert_string_equal(f->function, function);
	} else {
		assert_null(f->function);
	}
	assert_int_equal(f->offset, offset);
}

static void assert_kframe(struct ctx *c, const struct pl_frame *f, unsigned i)
{
	assert_true(f->kernel);
	assert_frame(f, "[kernel]", c->kfn[i] ? c->kfn[i]->name : NULL, c->kfn[i] ? 4 : 0);
}

/* ---- tests ---- */

/*
 * One image, five keys:
 *   A  user gamma > beta > alpha, no kernel stack          51 samples
 *   B  the same user stack, kernel k1 > k0                 30
 *   C  no user stack, kernel k2 > k1                       20
 *   D  user delta (an address only) > an unknown object     7
 *   E  a user stack already gone from the map               5
 * and 8 samples the table never kept: 121 in all, 108 attributed.
 */
static const uint8_t unknown_bid[SYMBOLS_BUILD_ID_SIZE] = { 0xfe, 0xed, 0xfa, 0xce, 0x01 };

static void five_keys(struct ctx *c, uint32_t tgid, uint64_t image)
{
	const struct pl_ustack_frame u1[] = { self_frame(c, oncpu_fx_alpha, 0), self_frame(c, oncpu_fx_beta, 1),
					      self_frame(c, oncpu_fx_gamma, 2) };
	struct pl_ustack_frame u2[2] = { { .status = PL_FRAME_VALID, .offset_or_ip = 0x1234 },
					 { .status = PL_FRAME_IP, .offset_or_ip = (uintptr_t)oncpu_fx_delta + 6 } };
	const uint64_t k1[] = { kaddr(c, 0), kaddr(c, 1) }, k2[] = { kaddr(c, 1), kaddr(c, 2) };

	memcpy(u2[0].build_id, unknown_bid, sizeof(u2[0].build_id));
	put_ustack(c, 1, u1, 3);
	put_ustack(c, 2, u2, 2);
	put_kstack(c, 1, k1, 2);
	put_kstack(c, 2, k2, 2);
	kernel_samples(c, key(tgid, image, 1, -1), 51);
	kernel_samples(c, key(tgid, image, 1, 1), 30);
	kernel_samples(c, key(tgid, image, -1, 2), 20);
	kernel_samples(c, key(tgid, image, 2, -1), 7);
	kernel_samples(c, key(tgid, image, 9, -1), 5);
}

/* The function list, order-free where samples tie (none do here). */
static const struct pl_oncpu_fn *fn_at(const struct oncpu_result *r, uint32_t i)
{
	assert_true(i < r->oc.nfns);
	return &r->oc.fns[i];
}

static void assert_five_keys_result(struct ctx *c, const struct oncpu_result *r)
{
	const struct pl_stack *s;

	assert_non_null(r);
	assert_int_equal(r->oc.samples, 121);
	assert_int_equal(r->oc.unattributed, 121 - 108);
	assert_int_equal(r->oc.rate_hz, RATE_HZ);

	/* by object: the user leaf's object, [kernel] only without user frames */
	assert_int_equal(r->oc.nobjs, 3);
	assert_string_equal(r->oc.objs[0].object, c->exe);
	assert_string_equal(r->oc.objs[0].build_id, TEST_BUILD_ID);
	assert_int_equal(r->oc.objs[0].samples, 81);
	assert_true(isnan(r->oc.objs[0].baseline_share));
	assert_string_equal(r->oc.objs[1].object, "[kernel]");
	assert_null(r->oc.objs[1].build_id);
	assert_int_equal(r->oc.objs[1].samples, 20);
	assert_string_equal(r->oc.objs[2].object, "[unknown]");
	assert_string_equal(r->oc.objs[2].build_id, "feedface01");
	assert_int_equal(r->oc.objs[2].samples, 7);

	/* by function: the leaf, kernel included */
	if (c->kfn[0]) {
		assert_int_equal(r->oc.nfns, 4);
		assert_string_equal(fn_at(r, 0)->function, "oncpu_fx_alpha");
		assert_string_equal(fn_at(r, 0)->object, c->exe);
		assert_int_equal(fn_at(r, 0)->samples, 51);
		assert_string_equal(fn_at(r, 1)->function, c->kfn[0]->name);
		assert_string_equal(fn_at(r, 1)->object, "[kernel]");
		assert_int_equal(fn_at(r, 1)->samples, 30);
		assert_string_equal(fn_at(r, 2)->function, c->kfn[1]->name);
		assert_int_equal(fn_at(r, 2)->samples, 20);
		assert_null(fn_at(r, 3)->function);
		assert_string_equal(fn_at(r, 3)->object, "[unknown]");
		assert_int_equal(fn_at(r, 3)->offset, 0x1234);
		assert_int_equal(fn_at(r, 3)->samples, 7);
	} else {
		/* kallsyms hides its addresses: the kernel leaves are one unnamed function */
		assert_int_equal(r->oc.nfns, 3);
		assert_string_equal(fn_at(r, 0)->function, "oncpu_fx_alpha");
		assert_int_equal(fn_at(r, 0)->samples, 51);
		assert_string_equal(fn_at(r, 1)->object, "[kernel]");
		assert_null(fn_at(r, 1)->function);
		assert_int_equal(fn_at(r, 1)->offset, 0);
		assert_int_equal(fn_at(r, 1)->samples, 50);
		assert_null(fn_at(r, 2)->function);
		assert_string_equal(fn_at(r, 2)->object, "[unknown]");
		assert_int_equal(fn_at(r, 2)->offset, 0x1234);
		assert_int_equal(fn_at(r, 2)->samples, 7);
	}

	/* the stacks, heaviest first, outermost frame first */
	assert_int_equal(r->oc.nstacks, 4);
	s = &r->oc.stacks[0];
	assert_int_equal(s->samples, 51);
	assert_int_equal(s->nuser, 3);
	assert_int_equal(s->nkern, 0);
	assert_frame(&s->user[0], c->exe, "oncpu_fx_gamma", 2);
	assert_frame(&s->user[1], c->exe, "oncpu_fx_beta", 1);
	assert_frame(&s->user[2], c->exe, "oncpu_fx_alpha", 0);
	assert_string_equal(s->user[2].build_id, TEST_BUILD_ID);
	assert_false(s->user[2].kernel);
	s = &r->oc.stacks[1];
	assert_int_equal(s->samples, 30);
	assert_int_equal(s->nuser, 3);
	assert_frame(&s->user[2], c->exe, "oncpu_fx_alpha", 0);
	assert_int_equal(s->nkern, 2);
	assert_kframe(c, &s->kern[0], 1);
	assert_kframe(c, &s->kern[1], 0);
	s = &r->oc.stacks[2];
	assert_int_equal(s->samples, 20);
	assert_int_equal(s->nuser, 0);
	assert_int_equal(s->nkern, 2);
	assert_kframe(c, &s->kern[0], 2);
	assert_kframe(c, &s->kern[1], 1);
	s = &r->oc.stacks[3];
	assert_int_equal(s->samples, 7);
	assert_int_equal(s->nuser, 2);
	assert_int_equal(s->nkern, 0);
	assert_frame(&s->user[0], c->exe, "oncpu_fx_delta", 6); /* placed from the live process's maps */
	assert_frame(&s->user[1], "[unknown]", NULL, 0x1234);
}

static void test_collect_consumes_an_ended_image_with_exact_figures(void **state)
{
	struct ctx *c = *state;
	const uint32_t tgid = (uint32_t)getpid();
	struct oncpu_result *r;
	const struct oncpu_stats *st = oncpu__stats(c->oc);

	oncpu__tick(c->oc, 5 * SEC);
	five_keys(c, tgid, 1000);
	kernel_samples(c, key(tgid, 2000, 1, -1), 3); /* another image's key shares user stack 1 */
	assert_int_equal(st->keys, 6);
	assert_int_equal(st->stacks_read, 4); /* u1 u2 k1 k2, each once */
	assert_int_equal(st->stacks_unreadable, 1);
	assert_int_equal(st->processes_scanned, 1); /* u2's unknown build-id */
	assert_int_equal(table_size(c), 6);

	r = oncpu__collect(c->oc, 1000, 121, true);
	assert_five_keys_result(c, r);
	/* the image's keys left the table; the other image's did not */
	assert_int_equal(table_size(c), 1);
	assert_true(in_table(c, key(tgid, 2000, 1, -1)));
	/* read from the result before the stacks can go (the next tick) */
	oncpu_result__free(r);
	/* consumed: nothing left to collect (and no samples: no result) */
	assert_null(oncpu__collect(c->oc, 1000, 0, true));

	/* the stacks it alone used leave the maps a second after; u1 stays */
	oncpu__tick(c->oc, 5 * SEC + SEC / 2);
	assert_int_equal(st->stacks_forgotten, 0);
	assert_int_equal(c->k.forgets[0] + c->k.forgets[1], 0);
	oncpu__tick(c->oc, 6 * SEC + 1);
	assert_int_equal(st->stacks_forgotten, 3); /* u2, k1, k2 */
	assert_int_equal(c->k.forgets[0], 1);
	assert_int_equal(c->k.forgets[1], 2);
	assert_true(c->k.uused[1]);
	assert_false(c->k.uused[2]);
	assert_false(c->k.kused[1]);
	assert_false(c->k.kused[2]);
	/* the other image ends: now u1 goes too */
	r = oncpu__collect(c->oc, 2000, 3, true);
	assert_non_null(r);
	assert_int_equal(r->oc.samples, 3);
	assert_int_equal(r->oc.unattributed, 0);
	assert_int_equal(r->oc.nstacks, 1);
	assert_frame(&r->oc.stacks[0].user[0], c->exe, "oncpu_fx_gamma", 2);
	oncpu_result__free(r);
	assert_int_equal(table_size(c), 0);
	oncpu__tick(c->oc, 7 * SEC);
	assert_true(c->k.uused[1]);
	oncpu__tick(c->oc, 8 * SEC + 1);
	assert_false(c->k.uused[1]);
	assert_int_equal(st->stacks_forgotten, 4);
}

static void test_collect_without_consume_leaves_everything_in_place(void **state)
{
	struct ctx *c = *state;
	const uint32_t tgid = (uint32_t)getpid();
	const struct oncpu_stats *st = oncpu__stats(c->oc);
	struct oncpu_result *r;

	five_keys(c, tgid, 1000);
	for (int round = 0; round < 2; round++) {
		r = oncpu__collect(c->oc, 1000, 121, false);
		assert_five_keys_result(c, r);
		oncpu_result__free(r);
		assert_int_equal(table_size(c), 5);
	}
	/* the stacks are still held: long after, none leaves */
	oncpu__tick(c->oc, 100 * SEC);
	assert_int_equal(st->stacks_forgotten, 0);
	/* the kernel counts on; the window sample sees the new count */
	kernel_samples(c, key(tgid, 1000, 1, -1), 10);
	r = oncpu__collect(c->oc, 1000, 131, false);
	assert_int_equal(r->oc.stacks[0].samples, 61);
	assert_int_equal(r->oc.objs[0].samples, 91);
	assert_int_equal(r->oc.unattributed, 13);
	oncpu_result__free(r);
	assert_int_equal(st->keys, 5);
}

static void test_image_without_keys_reports_all_samples_unattributed(void **state)
{
	struct ctx *c = *state;
	struct oncpu_result *r = oncpu__collect(c->oc, 4242, 17, true);

	assert_non_null(r);
	assert_int_equal(r->oc.samples, 17);
	assert_int_equal(r->oc.unattributed, 17);
	assert_int_equal(r->oc.nobjs, 0);
	assert_int_equal(r->oc.nfns, 0);
	assert_int_equal(r->oc.nstacks, 0);
	oncpu_result__free(r);
	assert_null(oncpu__collect(c->oc, 4242, 0, true));
}

static void test_a_full_image_displaces_the_key_with_the_fewest_samples(void **state)
{
	struct ctx *c = *state;
	const uint32_t tgid = 777;
	const uint64_t image = 55;
	const struct oncpu_stats *st = oncpu__stats(c->oc);
	uint64_t total = 0;
	struct oncpu_result *r;

	/* ONCPU_MAX_KEYS stacks of one frame each, 100+i samples, but key 40: 1 */
	for (int32_t i = 0; i <= ONCPU_MAX_KEYS + 1; i++) {
		struct pl_ustack_frame u = self_frame(c, oncpu_fx_beta, 0);

		put_ustack(c, i, &u, 1);
	}
	for (int32_t i = 0; i < ONCPU_MAX_KEYS; i++) {
		uint64_t n = i == 40 ? 1 : 100 + (uint64_t)i;

		kernel_samples(c, key(tgid, image, i, -1), n);
		total += n;
	}
	assert_int_equal(st->displaced, 0);
	assert_int_equal(table_size(c), ONCPU_MAX_KEYS);

	/* one more: key 40 goes, the new one (2 samples) stays */
	kernel_samples(c, key(tgid, image, ONCPU_MAX_KEYS, -1), 2);
	total += 2;
	assert_int_equal(st->displaced, 1);
	assert_false(in_table(c, key(tgid, image, 40, -1)));
	assert_true(in_table(c, key(tgid, image, ONCPU_MAX_KEYS, -1)));
	assert_int_equal(table_size(c), ONCPU_MAX_KEYS);
	/* and again: now the fewest is the newcomer with 2 */
	kernel_samples(c, key(tgid, image, ONCPU_MAX_KEYS + 1, -1), 5);
	total += 5;
	assert_int_equal(st->displaced, 2);
	assert_false(in_table(c, key(tgid, image, ONCPU_MAX_KEYS, -1)));
	assert_true(in_table(c, key(tgid, image, ONCPU_MAX_KEYS + 1, -1)));
	assert_true(in_table(c, key(tgid, image, 39, -1)));

	/* the displaced samples are unattributed, never lost */
	r = oncpu__collect(c->oc, image, total, true);
	assert_non_null(r);
	assert_int_equal(r->oc.samples, total);
	assert_int_equal(r->oc.unattributed, 1 + 2);
	assert_int_equal(r->oc.nobjs, 1);
	assert_int_equal(r->oc.objs[0].samples, total - 3);
	assert_int_equal(r->oc.nfns, 1);
	assert_string_equal(r->oc.fns[0].function, "oncpu_fx_beta");
	/* every key is one frame in the same function at another offset: to
	 * a reader one stack, holding all they sampled */
	assert_int_equal(r->oc.nstacks, 1);
	assert_int_equal(r->oc.stacks[0].samples, total - 3);
	oncpu_result__free(r);
	assert_int_equal(table_size(c), 0);
	/* the displaced stacks were released at once: they go with the rest */
	oncpu__tick(c->oc, 2 * SEC);
	assert_int_equal(st->stacks_forgotten, ONCPU_MAX_KEYS + 2);
}

static void test_sweep_forgets_ended_images_and_orphans_keeps_live_ones(void **state)
{
	struct ctx *c = *state;
	const struct oncpu_stats *st = oncpu__stats(c->oc);
	const struct pl_ustack_frame a = self_frame(c, oncpu_fx_alpha, 0), b = self_frame(c, oncpu_fx_beta, 0);

	put_ustack(c, 1, &a, 1);
	put_ustack(c, 2, &b, 1);
	put_ustack(c, 5, &a, 1); /* a stack no key announces */
	/* image 1: live, held; image 2: held, ends without a word (END lost) */
	set_live(c, 100, 1, true);
	set_live(c, 200, 2, true);
	kernel_samples(c, key(100, 1, 1, -1), 5);
	kernel_samples(c, key(200, 2, 1, -1), 6);
	kernel_samples(c, key(200, 2, 2, -1), 7);
	/* keys nobody announced (records lost): of an ended image, of a live one */
	kernel_counts(c, key(300, 3, 1, -1), 1);
	kernel_counts(c, key(300, 3, -1, -1), 1);
	set_live(c, 400, 4, true);
	kernel_counts(c, key(400, 4, 2, -1), 1);
	set_live(c, 200, 2, false);
	assert_int_equal(table_size(c), 6);

	oncpu__tick(c->oc, 9 * SEC);
	oncpu__sweep(c->oc, 10 * SEC);
	assert_int_equal(st->orphans_swept, 2);
	assert_false(in_table(c, key(300, 3, 1, -1)));
	assert_false(in_table(c, key(300, 3, -1, -1)));
	assert_true(in_table(c, key(400, 4, 2, -1)));
	/* image 2 forgotten, its keys deleted (not counted as orphans) */
	assert_false(in_table(c, key(200, 2, 1, -1)));
	assert_false(in_table(c, key(200, 2, 2, -1)));
	assert_true(in_table(c, key(100, 1, 1, -1)));
	assert_int_equal(table_size(c), 2);
	assert_null(oncpu__collect(c->oc, 2, 0, false));
	/* nothing left the stack maps yet: u2 was released just now, u5 seen
	 * unannounced once */
	assert_int_equal(st->stacks_forgotten, 0);
	assert_true(c->k.uused[2] && c->k.uused[5]);

	/* u2 idle for less than a second: kept; then gone */
	oncpu__tick(c->oc, 10 * SEC + SEC - 1);
	assert_true(c->k.uused[2]);
	oncpu__tick(c->oc, 11 * SEC + 1);
	assert_false(c->k.uused[2]);
	assert_int_equal(st->stacks_forgotten, 1);
	assert_int_equal(c->k.forgets[0], 1);

	/* the second sweep: u5, unannounced twice in a row, goes; u1 is held */
	oncpu__sweep(c->oc, 20 * SEC);
	assert_false(c->k.uused[5]);
	assert_true(c->k.uused[1]);
	assert_int_equal(st->stacks_forgotten, 2);
	assert_int_equal(st->orphans_swept, 2);
	assert_true(in_table(c, key(400, 4, 2, -1)));
	assert_true(in_table(c, key(100, 1, 1, -1)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collect_consumes_an_ended_image_with_exact_figures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collect_without_consume_leaves_everything_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_without_keys_reports_all_samples_unattributed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_full_image_displaces_the_key_with_the_fewest_samples, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sweep_forgets_ended_images_and_orphans_keeps_live_ones, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
