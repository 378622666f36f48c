// SPDX-License-Identifier: MIT
/*
 * oncpu.c - on-CPU samples per image (the life of a key: oncpu.h).
 */
#include "stacks/oncpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IMG_BUCKETS 4096
#define USER_ADDR_END (1ull << 47) /* x86_64 user addresses, and so file offsets, are below */
/* An unused stack leaves the stack map this long after its last key went:
 * long enough that an announcement still in the ring buffer finds it,
 * short enough that the map holds little more than the stacks of live
 * images (a full bucket makes a new stack that hashes there unattributed). */
#define STACK_IDLE_NS 1000000000ull
#define SWEEP_MAX_KEYS (1u << 20)

struct stack_cache {
	bool valid;
	bool unknown;      /* in the kernel's map, not here, at the last full sweep */
	bool seen_unknown; /* ... and at the one before (during a sweep) */
	uint32_t refs;    /* keys of remembered images that use it */
	uint64_t last_ns; /* when refs last dropped to 0 (monotonic) */
	struct pl_frame *frames; /* outermost first */
	uint32_t n;
};

struct img {
	uint64_t image_id;
	uint32_t tgid;
	struct pl_stack_key *keys;
	uint32_t nkeys;
	struct img *next;
};

struct oncpu {
	struct oncpu_table tbl;
	struct symbols *sym;
	uint32_t max_stacks, rate_hz;
	struct stack_cache *ucache, *kcache; /* by stack id */
	struct img *buckets[IMG_BUCKETS];
	uint64_t now_ns; /* of the last sweep */
	struct oncpu_stats st;
};

int oncpu__new(const struct oncpu_table *tbl, struct symbols *sym, uint32_t max_stacks, uint32_t rate_hz,
	       struct oncpu **ret)
{
	struct oncpu *oc = calloc(1, sizeof(*oc));

	if (!oc)
		return -ENOMEM;
	oc->tbl = *tbl;
	oc->sym = sym;
	oc->max_stacks = max_stacks;
	oc->rate_hz = rate_hz;
	oc->ucache = calloc(max_stacks ? max_stacks : 1, sizeof(*oc->ucache));
	oc->kcache = calloc(max_stacks ? max_stacks : 1, sizeof(*oc->kcache));
	if (!oc->ucache || !oc->kcache) {
		oncpu__free(oc);
		return -ENOMEM;
	}
	*ret = oc;
	return 0;
}

static void free_img(struct img *im)
{
	free(im->keys);
	free(im);
}

void oncpu__free(struct oncpu *oc)
{
	if (!oc)
		return;
	for (size_t b = 0; b < IMG_BUCKETS; b++)
		for (struct img *im = oc->buckets[b], *nx; im; im = nx) {
			nx = im->next;
			free_img(im);
		}
	for (uint32_t i = 0; oc->ucache && i < oc->max_stacks; i++)
		free(oc->ucache[i].frames);
	for (uint32_t i = 0; oc->kcache && i < oc->max_stacks; i++)
		free(oc->kcache[i].frames);
	free(oc->ucache);
	free(oc->kcache);
	free(oc);
}

const struct oncpu_stats *oncpu__stats(const struct oncpu *oc)
{
	return &oc->st;
}

static struct img **img_slot(struct oncpu *oc, uint64_t image_id)
{
	struct img **pp = &oc->buckets[(image_id * 0x9e3779b97f4a7c15ull) >> 52 & (IMG_BUCKETS - 1)];

	while (*pp && (*pp)->image_id != image_id)
		pp = &(*pp)->next;
	return pp;
}

/* ---- stacks ---- */

static struct stack_cache *cache_of(struct oncpu *oc, bool kernel, int32_t id)
{
	if (id < 0 || (uint32_t)id >= oc->max_stacks)
		return NULL;
	return kernel ? &oc->kcache[id] : &oc->ucache[id];
}

/* Read and name stack id now (the process is alive: a frame the kernel
 * gave as an address is placed from its maps). */
static void read_stack(struct oncpu *oc, struct stack_cache *c, bool kernel, int32_t id, uint32_t tgid)
{
	struct pl_ustack_frame u[PL_USTACK_DEPTH];
	uint64_t k[PL_KSTACK_DEPTH];
	struct pl_frame f[PL_USTACK_DEPTH > PL_KSTACK_DEPTH ? PL_USTACK_DEPTH : PL_KSTACK_DEPTH];
	uint32_t n = 0;

	if (kernel ? oc->tbl.kstack(oc->tbl.ctx, id, k) : oc->tbl.ustack(oc->tbl.ctx, id, u)) {
		oc->st.stacks_unreadable++;
		return;
	}
	if (kernel) {
		for (; n < PL_KSTACK_DEPTH && k[n]; n++)
			symbols__kernel(oc->sym, k[n], &f[n]);
	} else {
		/* a file the mapping reports did not name: the process still
		 * lives, its maps say */
		for (uint32_t i = 0; i < PL_USTACK_DEPTH && u[i].status != PL_FRAME_EMPTY; i++)
			if (u[i].status == PL_FRAME_VALID && !symbols__knows(oc->sym, u[i].build_id)) {
				symbols__scan_process(oc->sym, tgid);
				oc->st.processes_scanned++;
				break;
			}
		for (uint32_t i = 0; i < PL_USTACK_DEPTH && u[i].status != PL_FRAME_EMPTY; i++) {
			/* where the frame-pointer chain runs off (a binary without
			 * frame pointers), the kernel's last "frames" are a return
			 * address of 0, or an offset below the mapping's start that
			 * wrapped around: no code, and a load address we must not show */
			if (u[i].offset_or_ip == 0 || u[i].offset_or_ip >= USER_ADDR_END)
				break;
			if (u[i].status == PL_FRAME_VALID)
				symbols__user(oc->sym, u[i].build_id, u[i].offset_or_ip, &f[n++]);
			else
				symbols__user_ip(oc->sym, tgid, u[i].offset_or_ip, &f[n++]);
		}
	}
	c->frames = malloc((n ? n : 1) * sizeof(*c->frames));
	if (!c->frames)
		return;
	for (uint32_t i = 0; i < n; i++) /* the kernel gives the leaf first */
		c->frames[i] = f[n - 1 - i];
	c->n = n;
	c->valid = true;
	oc->st.stacks_read++;
}

static void hold(struct oncpu *oc, bool kernel, int32_t id, uint32_t tgid)
{
	struct stack_cache *c = cache_of(oc, kernel, id);

	if (!c)
		return;
	if (!c->valid)
		read_stack(oc, c, kernel, id, tgid);
	c->refs++;
}

static void release(struct oncpu *oc, bool kernel, int32_t id)
{
	struct stack_cache *c = cache_of(oc, kernel, id);

	if (c && c->refs && !--c->refs)
		c->last_ns = oc->now_ns;
}

static void drop_key(struct oncpu *oc, const struct pl_stack_key *k)
{
	release(oc, false, k->ustack);
	release(oc, true, k->kstack);
}

/* ---- records ---- */

/* A full image: the key with the fewest samples leaves the table (its
 * samples become unattributed: the image's total still counts them). */
static void displace(struct oncpu *oc, struct img *im)
{
	uint64_t min = UINT64_MAX, c;
	uint32_t at = 0;

	for (uint32_t i = 0; i < im->nkeys; i++) {
		if (oc->tbl.count(oc->tbl.ctx, &im->keys[i], &c))
			c = 0;
		if (c < min) {
			min = c;
			at = i;
		}
	}
	oc->tbl.remove(oc->tbl.ctx, &im->keys[at]);
	drop_key(oc, &im->keys[at]);
	im->keys[at] = im->keys[--im->nkeys];
	oc->st.displaced++;
}

void oncpu__on_record(struct oncpu *oc, const struct pl_ev_stack *ev)
{
	const struct pl_stack_key *k = &ev->key;
	struct img **pp = img_slot(oc, k->image_id), *im = *pp;

	oc->st.keys++;
	if (!im) {
		im = calloc(1, sizeof(*im));
		if (!im)
			return; /* the sweep deletes the key once the image is gone */
		im->keys = calloc(ONCPU_MAX_KEYS, sizeof(*im->keys));
		if (!im->keys) {
			free(im);
			return;
		}
		im->image_id = k->image_id;
		im->tgid = k->tgid;
		*pp = im;
	}
	for (uint32_t i = 0; i < im->nkeys; i++)
		if (!memcmp(&im->keys[i], k, sizeof(*k)))
			return;
	if (im->nkeys == ONCPU_MAX_KEYS)
		displace(oc, im);
	im->keys[im->nkeys++] = *k;
	hold(oc, false, k->ustack, k->tgid);
	hold(oc, true, k->kstack, k->tgid);
}

/* ---- what an image's samples add up to ---- */

static const struct pl_frame *frames(struct oncpu *oc, bool kernel, int32_t id, uint32_t *n)
{
	struct stack_cache *c = cache_of(oc, kernel, id);

	*n = c && c->valid ? c->n : 0;
	return *n ? c->frames : NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int cmp_stack(const void *a, const void *b)
{
	const struct pl_stack *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct pl_oncpu_obj *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : strcmp(x->object, y->object);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct pl_oncpu_fn *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* Frames that read the same: the same function of the same object (the
 * offset inside it aside), or the same place of an unnamed object. */
static bool same_frame(const struct pl_frame *a, const struct pl_frame *b)
{
	return a->kernel == b->kernel && same_str(a->object, b->object) && same_str(a->function, b->function) &&
	       (a->function || a->offset == b->offset);
}

static bool same_frames(const struct pl_frame *a, uint32_t na, const struct pl_frame *b, uint32_t nb)
{
	if (na != nb)
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (!same_frame(&a[i], &b[i]))
			return false;
	return true;
}

/* Stacks that differ only by offsets inside the same functions (a loop
 * sampled at several instructions) are one stack to a reader: their
 * samples are added to the first. Returns the stacks left. */
static uint32_t merge_same(struct pl_stack *st, uint32_t n)
{
	uint32_t out = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t j;

		for (j = 0; j < out; j++)
			if (same_frames(st[j].user, st[j].nuser, st[i].user, st[i].nuser) &&
			    same_frames(st[j].kern, st[j].nkern, st[i].kern, st[i].nkern))
				break;
		if (j < out)
			st[j].samples += st[i].samples;
		else
			st[out++] = st[i];
	}
	return out;
}

void oncpu_result__free(struct oncpu_result *r)
{
	if (!r)
		return;
	free(r->objs);
	free(r->fns);
	free(r->stacks);
	free(r);
}

struct oncpu_result *oncpu__collect(struct oncpu *oc, uint64_t image_id, uint64_t total, bool consume)
{
	struct img **pp = img_slot(oc, image_id), *im = *pp;
	struct oncpu_result *r = calloc(1, sizeof(*r));
	uint64_t attributed = 0;
	uint32_t n = im ? im->nkeys : 0, ns = 0, no = 0, nf = 0;

	if (!r || (n && (!(r->stacks = calloc(n, sizeof(*r->stacks))) || !(r->objs = calloc(n, sizeof(*r->objs))) ||
			!(r->fns = calloc(n, sizeof(*r->fns)))))) {
		oncpu_result__free(r);
		r = NULL;
		n = 0; /* still consume below */
	}
	for (uint32_t i = 0; im && i < im->nkeys; i++) {
		const struct pl_stack_key *k = &im->keys[i];
		uint64_t c = 0;

		if (oc->tbl.count(oc->tbl.ctx, k, &c))
			c = 0;
		if (consume)
			oc->tbl.remove(oc->tbl.ctx, k);
		if (!r || !c)
			continue;
		struct pl_stack *s = &r->stacks[ns];

		s->samples = c;
		s->user = frames(oc, false, k->ustack, &s->nuser);
		s->kern = frames(oc, true, k->kstack, &s->nkern);
		if (!s->nuser && !s->nkern)
			continue; /* neither stack is known: unattributed */
		ns++;
		attributed += c;
		/* the object: where the user code ran, or called the kernel from */
		const struct pl_frame *of = s->nuser ? &s->user[s->nuser - 1] : &s->kern[s->nkern - 1];
		const char *obj = s->nuser ? of->object : "[kernel]";
		uint32_t j;

		for (j = 0; j < no && strcmp(r->objs[j].object, obj); j++)
			;
		if (j == no)
			r->objs[no++] = (struct pl_oncpu_obj){ .object = obj, .build_id = s->nuser ? of->build_id : NULL,
							      .baseline_share = NAN };
		r->objs[j].samples += c;
		/* the function: the leaf, kernel included */
		const struct pl_frame *lf = s->nkern ? &s->kern[s->nkern - 1] : &s->user[s->nuser - 1];

		for (j = 0; j < nf; j++)
			if (same_str(r->fns[j].object, lf->object) && same_str(r->fns[j].function, lf->function) &&
			    (lf->function || r->fns[j].offset == lf->offset))
				break;
		if (j == nf)
			r->fns[nf++] = (struct pl_oncpu_fn){ .object = lf->object, .function = lf->function,
							     .offset = lf->function ? 0 : lf->offset,
							     .interp = lf->interp };
		r->fns[j].samples += c;
	}
	if (consume && im) {
		for (uint32_t i = 0; i < im->nkeys; i++)
			drop_key(oc, &im->keys[i]);
		*pp = im->next;
		free_img(im);
	}
	if (!r)
		return NULL;
	if (!total && !ns) {
		oncpu_result__free(r);
		return NULL;
	}
	ns = merge_same(r->stacks, ns);
	/* qsort's base must not be NULL even for 0 elements (C11 7.22.5) */
	if (ns)
		qsort(r->stacks, ns, sizeof(*r->stacks), cmp_stack);
	if (no)
		qsort(r->objs, no, sizeof(*r->objs), cmp_obj);
	if (nf)
		qsort(r->fns, nf, sizeof(*r->fns), cmp_fn);
	r->oc = (struct pl_oncpu){
		.samples = total > attributed ? total : attributed,
		.unattributed = total > attributed ? total - attributed : 0,
		.rate_hz = oc->rate_hz,
		.objs = r->objs,
		.nobjs = no,
		.fns = r->fns,
		.nfns = nf,
		.stacks = r->stacks,
		.nstacks = ns < ONCPU_TOP ? ns : ONCPU_TOP,
	};
	return r;
}

/* ---- the sweep ---- */

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct pl_stack_key));
}

/* Stacks no key has used for STACK_IDLE_NS leave the stack maps, so a new
 * stack whose id collides with an old one can be stored. */
static void forget_idle(struct oncpu *oc, uint64_t now_ns)
{
	for (int kernel = 0; kernel < 2; kernel++)
		for (uint32_t id = 0; id < oc->max_stacks; id++) {
			struct stack_cache *c = kernel ? &oc->kcache[id] : &oc->ucache[id];

			if (!c->valid || c->refs || now_ns - c->last_ns < STACK_IDLE_NS)
				continue;
			oc->tbl.forget_stack(oc->tbl.ctx, kernel, (int32_t)id);
			free(c->frames);
			*c = (struct stack_cache){ 0 };
			oc->st.stacks_forgotten++;
		}
}

/* Stacks in the kernel's maps that no key announced (a key that did not fit
 * the table, a lost record) are deleted when seen so at two full sweeps in
 * a row: one in flight is announced well before the next. The maps are
 * walked by key, so only stored stacks cost a call. */
static void forget_unknown(struct oncpu *oc)
{
	for (int kernel = 0; kernel < 2; kernel++) {
		int32_t id, prev = -1, *ids = NULL;
		size_t n = 0;

		ids = malloc(oc->max_stacks * sizeof(*ids));
		if (!ids)
			return;
		/* collected first: a deletion under the cursor restarts the walk */
		while (n < oc->max_stacks && oc->tbl.next_stack(oc->tbl.ctx, kernel, prev, &id) == 0) {
			ids[n++] = id;
			prev = id;
		}
		for (uint32_t i = 0; i < oc->max_stacks; i++) {
			struct stack_cache *c = kernel ? &oc->kcache[i] : &oc->ucache[i];

			if (!c->valid) {
				c->seen_unknown = c->unknown;
				c->unknown = false;
			}
		}
		for (size_t i = 0; i < n; i++) {
			struct stack_cache *c = cache_of(oc, kernel, ids[i]);

			if (!c || c->valid)
				continue;
			if (c->seen_unknown) {
				oc->tbl.forget_stack(oc->tbl.ctx, kernel, ids[i]);
				oc->st.stacks_forgotten++;
				c->seen_unknown = false;
				continue;
			}
			c->unknown = true;
		}
		free(ids);
	}
}

void oncpu__tick(struct oncpu *oc, uint64_t now_ns)
{
	oc->now_ns = now_ns;
	forget_idle(oc, now_ns);
}

void oncpu__sweep(struct oncpu *oc, uint64_t now_ns)
{
	struct pl_stack_key key, *keys = NULL, *prev = NULL;
	size_t n = 0, cap = 0;

	oc->now_ns = now_ns;
	/* images user space holds that ended without a word (an END lost) */
	for (size_t b = 0; b < IMG_BUCKETS; b++)
		for (struct img **pp = &oc->buckets[b], *im; (im = *pp);) {
			if (oc->tbl.image_live(oc->tbl.ctx, im->tgid, im->image_id)) {
				pp = &im->next;
				continue;
			}
			for (uint32_t i = 0; i < im->nkeys; i++) {
				oc->tbl.remove(oc->tbl.ctx, &im->keys[i]);
				drop_key(oc, &im->keys[i]);
			}
			*pp = im->next;
			free_img(im);
		}
	/* keys nobody announced, of images that have ended */
	while (n < SWEEP_MAX_KEYS && oc->tbl.next_key(oc->tbl.ctx, prev, &key) == 0) {
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 1024;
			struct pl_stack_key *nk = realloc(keys, ncap * sizeof(*nk));

			if (!nk)
				break;
			keys = nk;
			cap = ncap;
		}
		keys[n++] = key;
		prev = &keys[n - 1];
	}
	if (n)
		qsort(keys, n, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < n; i++) {
		if (i && !cmp_key(&keys[i], &keys[i - 1]))
			continue;
		if (*img_slot(oc, keys[i].image_id) || oc->tbl.image_live(oc->tbl.ctx, keys[i].tgid, keys[i].image_id))
			continue;
		if (!oc->tbl.remove(oc->tbl.ctx, &keys[i]))
			oc->st.orphans_swept++;
	}
	free(keys);
	forget_idle(oc, now_ns);
	forget_unknown(oc);
}
