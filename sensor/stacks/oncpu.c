// SPDX-License-Identifier: MIT
/*
 * oncpu.c - on-CPU samples per image (the life of a sample: oncpu.h).
 */
#include "stacks/oncpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IMG_BUCKETS 4096
#define NAMES 4096 /* user frames' names cached, a power of two */
#define MAX_FRAMES (UNWIND_MAX_FRAMES + 1 + PL_KSTACK_DEPTH) /* user, "[stack cut]", kernel */

/* One distinct stack of an image: frames outermost first (user, then kernel). */
struct ostack {
	uint64_t hash;
	uint64_t samples;
	struct pl_frame *frames;
	uint16_t nuser, nkern;
};

struct img {
	uint64_t image_id;
	uint32_t tgid;
	struct ostack *st;
	uint32_t n, cap;
	uint64_t unatt_table; /* samples of new stacks past the bounds */
	struct img *next;
};

/* A user frame's name by (build-id, file offset): a busy loop's samples
 * name the same few addresses again and again. Names point into the
 * symbols' caches, which keep every name they hand out; the cache is
 * emptied when the symbols learn new objects (a name may change then). */
struct name {
	uint8_t build_id[UNWIND_BUILD_ID_SIZE];
	uint64_t off;
	bool used;
	struct pl_frame f;
};

struct oncpu {
	struct oncpu_table tbl;
	struct name *names;
	uint64_t names_gen;
	struct symbols *sym;
	struct procmaps *maps;
	struct unwind *uw;
	uint32_t max_stacks, rate_hz;
	uint64_t held;
	struct img *buckets[IMG_BUCKETS];
	struct oncpu_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
	oc->names = calloc(NAMES, sizeof(*oc->names));
	if (!oc->names || procmaps__new(&oc->maps) < 0 || unwind__new(&oc->uw) < 0) {
		oncpu__free(oc);
		return -ENOMEM;
	}
	*ret = oc;
	return 0;
}

static void free_img(struct oncpu *oc, struct img *im)
{
	for (uint32_t i = 0; i < im->n; i++)
		free(im->st[i].frames);
	oc->held -= im->n;
	free(im->st);
	free(im);
}

void oncpu__free(struct oncpu *oc)
{
	if (!oc)
		return;
	for (size_t b = 0; b < IMG_BUCKETS; b++)
		for (struct img *im = oc->buckets[b], *nx; im; im = nx) {
			nx = im->next;
			free_img(oc, im);
		}
	procmaps__free(oc->maps);
	unwind__free(oc->uw);
	free(oc->names);
	free(oc);
}

const struct oncpu_stats *oncpu__stats(const struct oncpu *oc)
{
	static struct oncpu_stats st;

	st = oc->st;
	st.stacks_held = oc->held;
	return &st;
}

const struct unwind_stats *oncpu__unwind_stats(const struct oncpu *oc)
{
	return unwind__stats(oc->uw);
}

const struct procmaps_stats *oncpu__procmaps_stats(const struct oncpu *oc)
{
	return procmaps__stats(oc->maps);
}

static struct img **img_slot(struct oncpu *oc, uint64_t image_id)
{
	struct img **pp = &oc->buckets[(image_id * 0x9e3779b97f4a7c15ull) >> 52 & (IMG_BUCKETS - 1)];

	while (*pp && (*pp)->image_id != image_id)
		pp = &(*pp)->next;
	return pp;
}

void oncpu__on_mmap(struct oncpu *oc, uint32_t pid, uint64_t addr, uint64_t maplen, uint64_t pgoff,
		    const uint8_t *build_id, size_t len, const char *path)
{
	symbols__add_mapping(oc->sym, build_id, len, path);
	procmaps__on_mmap(oc->maps, pid, addr, maplen, pgoff, build_id, len, path);
}

/* ---- one sample ---- */

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Frames that read the same: the same function of the same object (the
 * offset inside it aside), or the same place of an unnamed object. Names
 * are the symbols' own strings, one per name: compared by address. */
static bool same_frame(const struct pl_frame *a, const struct pl_frame *b)
{
	return a->kernel == b->kernel && a->object == b->object && a->function == b->function &&
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

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* A hash that agrees with same_frame(). */
static uint64_t frames_hash(const struct pl_frame *f, uint32_t n, uint32_t nuser)
{
	uint64_t h = 1469598103934665603ull ^ nuser;

	for (uint32_t i = 0; i < n; i++) {
		h = mix(h, (uintptr_t)f[i].object ^ f[i].kernel);
		h = mix(h, f[i].function ? (uintptr_t)f[i].function : f[i].offset);
	}
	return h;
}

/* The name of a frame in the object of build-id bid at file offset off. */
static void name_user(struct oncpu *oc, const uint8_t *bid, uint64_t off, struct pl_frame *f)
{
	uint64_t h = 1469598103934665603ull, gen;
	struct name *e;

	for (size_t i = 0; i < UNWIND_BUILD_ID_SIZE; i++)
		h = mix(h, bid[i]);
	h = mix(h, off) * 0x9e3779b97f4a7c15ull;
	e = &oc->names[h >> 40 & (NAMES - 1)];
	gen = symbols__stats(oc->sym)->objects + symbols__stats(oc->sym)->objects_loaded;
	if (gen != oc->names_gen) {
		memset(oc->names, 0, NAMES * sizeof(*oc->names));
		oc->names_gen = gen;
	}
	if (e->used && e->off == off && !memcmp(e->build_id, bid, UNWIND_BUILD_ID_SIZE)) {
		*f = e->f;
		oc->st.names_cached++;
		return;
	}
	symbols__user(oc->sym, bid, off, f);
	/* naming may have loaded an object: the cache is for the next one */
	if (symbols__stats(oc->sym)->objects + symbols__stats(oc->sym)->objects_loaded != gen)
		return;
	memcpy(e->build_id, bid, UNWIND_BUILD_ID_SIZE);
	e->off = off;
	e->f = *f;
	e->used = true;
}

/* Name the user frames unwound from a sample, outermost first, into out. */
static uint32_t user_frames(struct oncpu *oc, const struct pl_ev_sample *ev, struct pl_frame *out)
{
	struct unwind_frame uf[UNWIND_MAX_FRAMES];
	struct unwind_result res;
	struct unwind_maps maps;
	uint32_t n, k = 0;
	bool known;

	if (ev->flags & PL_SAMPLE_NO_REGS)
		return 0;
	known = procmaps__get(oc->maps, ev->hdr.tgid, ev->image_id, false, mono_ns(), &maps);
	n = unwind__stack(oc->uw, &maps, (const uint64_t *)ev->regs, ev->stack, ev->stack_len, uf, UNWIND_MAX_FRAMES, &res);
	if (res.stop == UNWIND_STOP_NO_MAP) {
		/* a library loaded since the maps were read, or a fork child
		 * that was never reported: read them again (rate-limited) */
		if (procmaps__get(oc->maps, ev->hdr.tgid, ev->image_id, true, mono_ns(), &maps))
			known = true;
		n = unwind__stack(oc->uw, &maps, (const uint64_t *)ev->regs, ev->stack, ev->stack_len, uf, UNWIND_MAX_FRAMES, &res);
	}
	if (!known)
		oc->st.no_mappings++;
	if (n && res.stop != UNWIND_STOP_END) {
		/* the root of a stack the walk could not finish says so */
		out[k++] = (struct pl_frame){ .object = "[stack cut]", .function = unwind_stop__name(res.stop) };
		oc->st.stacks_cut++;
	}
	for (uint32_t i = n; i-- > 0;) {
		struct pl_frame *f = &out[k++];

		if (uf[i].map < 0 || (size_t)uf[i].map >= maps.n) {
			/* no mapping holds it: the address itself */
			*f = (struct pl_frame){ .object = "[unknown]", .offset = uf[i].pc };
			continue;
		}
		const struct unwind_map *m = &maps.maps[uf[i].map];

		if (m->has_build_id) {
			/* a mapping read from /proc/PID/maps, not reported by the kernel */
			if (!symbols__knows(oc->sym, m->build_id))
				symbols__add_mapping(oc->sym, m->build_id, UNWIND_BUILD_ID_SIZE, m->path);
			name_user(oc, m->build_id, uf[i].file_off, f);
		} else {
			symbols__user_path(oc->sym, m->path, uf[i].file_off, f);
		}
	}
	oc->st.user_frames += n;
	return k;
}

void oncpu__on_sample(struct oncpu *oc, const struct pl_ev_sample *ev, size_t size)
{
	struct pl_frame f[MAX_FRAMES];
	struct img **pp, *im;
	uint32_t nu, nk = 0, n;
	uint64_t h, t0 = mono_ns();

	oc->st.samples++;
	if (size < offsetof(struct pl_ev_sample, stack) || ev->stack_len > PL_STACK_DUMP_MAX ||
	    ev->stack_len > size - offsetof(struct pl_ev_sample, stack) || ev->nkern > PL_KSTACK_DEPTH) {
		oc->st.malformed++;
		return;
	}
	nu = user_frames(oc, ev, f);
	for (uint32_t i = ev->nkern; i-- > 0;) /* the kernel gives the leaf first */
		if (ev->kern[i])
			symbols__kernel(oc->sym, ev->kern[i], &f[nu + nk++]);
	oc->st.kernel_frames += nk;
	n = nu + nk;
	h = frames_hash(f, n, nu);
	pp = img_slot(oc, ev->image_id);
	im = *pp;
	if (!im) {
		im = calloc(1, sizeof(*im));
		if (!im)
			goto out; /* counted by the kernel, unattributed at the end */
		im->image_id = ev->image_id;
		im->tgid = ev->hdr.tgid;
		*pp = im;
	}
	for (uint32_t i = 0; i < im->n; i++)
		if (im->st[i].hash == h && im->st[i].nuser == nu && same_frames(im->st[i].frames, n, f, n)) {
			im->st[i].samples++;
			goto out;
		}
	if (im->n >= ONCPU_MAX_STACKS || oc->held >= oc->max_stacks) {
		im->unatt_table++;
		oc->st.table_full++;
		goto out;
	}
	if (im->n == im->cap) {
		uint32_t ncap = im->cap ? 2 * im->cap : 8;
		struct ostack *ns = realloc(im->st, ncap * sizeof(*ns));

		if (!ns)
			goto out;
		im->st = ns;
		im->cap = ncap;
	}
	struct ostack *o = &im->st[im->n];

	o->frames = malloc((n ? n : 1) * sizeof(*o->frames));
	if (!o->frames)
		goto out;
	if (n)
		memcpy(o->frames, f, n * sizeof(*f));
	o->hash = h;
	o->samples = 1;
	o->nuser = (uint16_t)nu;
	o->nkern = (uint16_t)nk;
	im->n++;
	oc->held++;
out:
	oc->st.unwind_ns += mono_ns() - t0;
}

/* ---- what an image's samples add up to ---- */

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

void oncpu_result__free(struct oncpu_result *r)
{
	if (!r)
		return;
	free(r->objs);
	free(r->fns);
	free(r->stacks);
	free(r->frames);
	free(r);
}

struct oncpu_result *oncpu__collect(struct oncpu *oc, uint32_t tgid, uint64_t image_id, uint64_t total,
				    uint64_t ring_lost, enum oncpu_at when)
{
	struct img **pp, *im;
	struct oncpu_result *r;
	uint64_t attributed = 0, nframes = 0;
	uint32_t n, ns = 0, no = 0, nf = 0;
	bool consume = when != ONCPU_RUNNING;

	if (consume && oc->tbl.drain)
		oc->tbl.drain(oc->tbl.ctx); /* the image's last samples first */
	pp = img_slot(oc, image_id);
	im = *pp;
	n = im ? im->n : 0;
	for (uint32_t i = 0; i < n; i++)
		nframes += im->st[i].nuser + im->st[i].nkern;
	r = calloc(1, sizeof(*r));
	if (r && n &&
	    (!(r->stacks = calloc(n, sizeof(*r->stacks))) || !(r->objs = calloc(n, sizeof(*r->objs))) ||
	     !(r->fns = calloc(n, sizeof(*r->fns))) || !(r->frames = calloc(nframes ? nframes : 1, sizeof(*r->frames))))) {
		oncpu_result__free(r);
		r = NULL;
	}
	for (uint32_t i = 0, at = 0; r && i < n; i++) {
		const struct ostack *o = &im->st[i];
		struct pl_stack *s = &r->stacks[ns++];

		memcpy(&r->frames[at], o->frames, (o->nuser + o->nkern) * sizeof(*o->frames));
		s->samples = o->samples;
		s->user = o->nuser ? &r->frames[at] : NULL;
		s->nuser = o->nuser;
		s->kern = o->nkern ? &r->frames[at + o->nuser] : NULL;
		s->nkern = o->nkern;
		at += o->nuser + o->nkern;
		attributed += o->samples;
		if (!s->nuser && !s->nkern) {
			s->user = &r->frames[0];
			continue;
		}
		/* the object: where the user code ran, or called the kernel from */
		const struct pl_frame *of = s->nuser ? &s->user[s->nuser - 1] : &s->kern[s->nkern - 1];
		const char *obj = s->nuser ? of->object : "[kernel]";
		uint32_t j;

		for (j = 0; j < no && strcmp(r->objs[j].object, obj); j++)
			;
		if (j == no)
			r->objs[no++] = (struct pl_oncpu_obj){ .object = obj, .build_id = s->nuser ? of->build_id : NULL,
							      .baseline_share = NAN };
		r->objs[j].samples += o->samples;
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
		r->fns[j].samples += o->samples;
	}
	uint64_t table = im ? im->unatt_table : 0;

	if (consume) {
		if (im) {
			*pp = im->next;
			free_img(oc, im);
		}
		/* an exec's new image was mapped (and reported) before this end
		 * arrived: only an exit takes the mappings */
		if (when == ONCPU_EXIT)
			procmaps__forget(oc->maps, tgid);
	}
	if (!r)
		return NULL;
	if (!total && !ns) {
		oncpu_result__free(r);
		return NULL;
	}
	/* qsort's base must not be NULL even for 0 elements (C11 7.22.5) */
	if (ns)
		qsort(r->stacks, ns, sizeof(*r->stacks), cmp_stack);
	if (no)
		qsort(r->objs, no, sizeof(*r->objs), cmp_obj);
	if (nf)
		qsort(r->fns, nf, sizeof(*r->fns), cmp_fn);
	total = total > attributed ? total : attributed;
	r->oc = (struct pl_oncpu){
		.samples = total,
		.unattributed = total - attributed,
		.unatt_ring = ring_lost < total - attributed ? ring_lost : total - attributed,
		.rate_hz = oc->rate_hz,
		.objs = r->objs,
		.nobjs = no,
		.fns = r->fns,
		.nfns = nf,
		.stacks = r->stacks,
		.nstacks = ns < ONCPU_TOP ? ns : ONCPU_TOP,
	};
	r->oc.unatt_table = table < r->oc.unattributed - r->oc.unatt_ring ? table : r->oc.unattributed - r->oc.unatt_ring;
	return r;
}

/* ---- the sweep ---- */

void oncpu__tick(struct oncpu *oc, uint64_t now_ns)
{
	(void)oc;
	(void)now_ns;
}

/* Images user space holds that ended without a word (an END record lost,
 * or samples that arrived after it). */
void oncpu__sweep(struct oncpu *oc, uint64_t now_ns)
{
	(void)now_ns;
	for (size_t b = 0; b < IMG_BUCKETS; b++)
		for (struct img **pp = &oc->buckets[b], *im; (im = *pp);) {
			if (oc->tbl.image_live(oc->tbl.ctx, im->tgid, im->image_id)) {
				pp = &im->next;
				continue;
			}
			*pp = im->next;
			free_img(oc, im);
			oc->st.orphans_swept++;
		}
}
