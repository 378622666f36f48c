// SPDX-License-Identifier: MIT
/*
 * failpaths.c - failed-open paths, between the kernel's table and the records
 * (see failpaths.h for the life of a key).
 */
#include "process/failpaths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* An unknown key of a live image may simply have its FAIL_PATH record still
 * in the ring buffer: it is deleted only once it is this old. */
#define UNKNOWN_GRACE_NS (3 * 1000000000ull)

struct failpaths {
	struct failpaths_table tbl;
	struct proctable *procs;
	struct failpaths_stats st;
	uint64_t entries; /* keys in the table, estimated (failpaths.h) */
};

int failpaths__new(const struct failpaths_table *tbl, struct proctable *procs, struct failpaths **ret)
{
	struct failpaths *fp = calloc(1, sizeof(*fp));

	if (!fp)
		return -ENOMEM;
	fp->tbl = *tbl;
	fp->procs = procs;
	*ret = fp;
	return 0;
}

void failpaths__free(struct failpaths *fp)
{
	free(fp);
}

const struct failpaths_stats *failpaths__stats(const struct failpaths *fp)
{
	return &fp->st;
}

/* The entry's count in the kernel's table now (0 when it has none). */
static uint64_t in_table(struct failpaths *fp, struct fail_ref *f)
{
	struct pl_fail_val v;

	if (!f->in_kernel)
		return 0;
	if (fp->tbl.lookup(fp->tbl.ctx, &f->key, &v) < 0) {
		f->in_kernel = false;
		return 0;
	}
	return v.count;
}

/* Delete key k from the table. */
static int drop(struct failpaths *fp, const struct pl_fail_key *k)
{
	int r = fp->tbl.remove(fp->tbl.ctx, k);

	if (r == 0 && fp->entries)
		fp->entries--;
	return r;
}

/* Take f's key out of the table, its count folded into f. */
static void fold_out(struct failpaths *fp, struct fail_ref *f)
{
	f->folded += in_table(fp, f);
	if (f->in_kernel)
		drop(fp, &f->key);
	f->in_kernel = false;
	f->swept = 0;
}

/* The listed path with the fewest failures so far. */
static struct fail_ref *fewest(struct failpaths *fp, struct proc_info *pi, uint64_t *ret_count)
{
	struct fail_ref *min = NULL;
	uint64_t min_n = UINT64_MAX;

	for (uint32_t i = 0; i < pi->nfails; i++) {
		uint64_t n = pi->fails[i].folded + in_table(fp, &pi->fails[i]);

		if (n < min_n) {
			min = &pi->fails[i];
			min_n = n;
		}
	}
	*ret_count = min_n;
	return min;
}

/* In a table 3/4 full, pi keeps FAILPATHS_KEEP_WHEN_FULL keys in it, the
 * one just announced (keep) among them; its oldest listed others move out. */
static void trim(struct failpaths *fp, struct proc_info *pi, const struct fail_ref *keep)
{
	uint32_t in = 0;

	if (!fp->tbl.max_entries || fp->entries * 4 < (uint64_t)fp->tbl.max_entries * 3)
		return;
	for (uint32_t i = 0; i < pi->nfails; i++)
		in += pi->fails[i].in_kernel;
	for (uint32_t i = 0; i < pi->nfails && in > FAILPATHS_KEEP_WHEN_FULL; i++) {
		struct fail_ref *f = &pi->fails[i];

		if (f == keep || !f->in_kernel)
			continue;
		fold_out(fp, f);
		fp->st.trimmed++;
		in--;
	}
}

static void on_record(struct failpaths *fp, struct proc_info *pi, const struct pl_ev_fail_path *ev);

void failpaths__on_record(struct failpaths *fp, const struct pl_ev_fail_path *ev)
{
	struct proc_info *pi = proctable__get(fp->procs, ev->hdr.tgid);

	fp->entries++; /* the kernel inserted the key it announces */
	if (!pi || pi->image_id != ev->key.image_id) {
		/* an image user space never saw: the sweep reclaims the key */
		fp->st.unremembered++;
		return;
	}
	on_record(fp, pi, ev);
	trim(fp, pi, proc_info__find_fail(pi, &ev->key));
}

static void on_record(struct failpaths *fp, struct proc_info *pi, const struct pl_ev_fail_path *ev)
{
	struct fail_ref *f;
	uint64_t n;

	f = proc_info__find_fail(pi, &ev->key);
	if (f) {
		/* a key moved out while idle, failing again: a new entry in the table */
		f->in_kernel = true;
		f->swept = 0;
		return;
	}
	if (proc_info__add_fail(pi, &ev->key, ev->truncated))
		return;
	f = fewest(fp, pi, &n);
	if (!f) {
		drop(fp, &ev->key);
		fp->st.unremembered++;
		return;
	}
	fold_out(fp, f);
	pi->fail_other += f->folded;
	fp->st.displaced++;
	if (proc_info__replace_fail(pi, f, &ev->key, ev->truncated) < 0) {
		drop(fp, &ev->key);
		fp->st.unremembered++;
	}
}

struct pl_fail *failpaths__collect(struct failpaths *fp, struct proc_info *pi, bool consume, uint32_t *ret_n)
{
	struct pl_fail *fails;
	uint32_t n = 0;

	*ret_n = 0;
	if (!pi || !pi->nfails)
		return NULL;
	fails = calloc(pi->nfails, sizeof(*fails));
	for (uint32_t i = 0; i < pi->nfails; i++) {
		struct fail_ref *f = &pi->fails[i];
		uint64_t count = f->folded + in_table(fp, f);

		if (consume && f->in_kernel) {
			drop(fp, &f->key);
			f->in_kernel = false;
		}
		if (fails && count)
			fails[n++] = (struct pl_fail){
				.path = f->path, .err = f->key.err, .truncated = f->truncated, .count = count
			};
	}
	*ret_n = n;
	return fails;
}

enum verdict { KEEP, DELETE_ORPHAN, DELETE_UNKNOWN, MOVE_IDLE };

/* What the sweep does with key k, whose value is v. */
static enum verdict judge(struct failpaths *fp, const struct pl_fail_key *k, const struct pl_fail_val *v,
			  uint64_t now_ns, struct fail_ref **ret_ref)
{
	struct proc_info *pi = proctable__get(fp->procs, k->tgid);
	struct fail_ref *f;

	*ret_ref = NULL;
	if (pi ? pi->image_id != k->image_id : !fp->tbl.image_live(fp->tbl.ctx, k->tgid, k->image_id))
		return DELETE_ORPHAN;
	f = pi ? proc_info__find_fail(pi, k) : NULL;
	if (!f || !f->in_kernel)
		return now_ns > v->first_ns && now_ns - v->first_ns > UNKNOWN_GRACE_NS ? DELETE_UNKNOWN : KEEP;
	*ret_ref = f;
	if (v->count == f->swept)
		return MOVE_IDLE;
	f->swept = v->count;
	return KEEP;
}

struct doomed {
	struct pl_fail_key key;
	struct fail_ref *ref; /* MOVE_IDLE: its entry in the image's list */
	enum verdict why;
};

void failpaths__sweep(struct failpaths *fp, uint64_t now_ns)
{
	struct pl_fail_key key, next;
	struct doomed *d = NULL;
	size_t n = 0, cap = 0;
	uint64_t entries = 0;
	const struct pl_fail_key *prev = NULL;

	/* Decide during the walk, delete after it: a deletion under the cursor
	 * would restart the kernel's walk. */
	while (fp->tbl.next_key(fp->tbl.ctx, prev, &next) == 0) {
		struct pl_fail_val v;
		struct fail_ref *f;
		enum verdict why;

		key = next;
		prev = &key;
		entries++;
		if (fp->tbl.lookup(fp->tbl.ctx, &key, &v) < 0)
			continue;
		why = judge(fp, &key, &v, now_ns, &f);
		if (why == KEEP)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct doomed *nd = realloc(d, ncap * sizeof(*nd));

			if (!nd)
				break; /* the next sweep gets the rest */
			d = nd;
			cap = ncap;
		}
		d[n].key = key;
		d[n].ref = f;
		d[n].why = why;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		if (d[i].why == MOVE_IDLE) {
			/* the count is read again right before the deletion */
			fold_out(fp, d[i].ref);
			fp->st.idle_moved++;
			entries--;
			continue;
		}
		if (fp->tbl.remove(fp->tbl.ctx, &d[i].key) < 0)
			continue;
		entries--;
		if (d[i].why == DELETE_ORPHAN)
			fp->st.orphans_swept++;
		else
			fp->st.unknown_swept++;
	}
	fp->st.table_entries = fp->entries = entries;
	free(d);
}
