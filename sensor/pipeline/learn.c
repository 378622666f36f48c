// SPDX-License-Identifier: MIT
/*
 * learn.c - samples scored against their baselines, and learned.
 *
 * What is learned from what:
 *   an image that ended by exit or exec (not one the sensor saw only in
 *   part, nor one still running at shutdown) -> one lifetime sample;
 *   every 1-second window of a running image -> one window sample;
 *   an exec -> the child's exe in the parent image's set of children.
 * The verdict goes into the sample itself (pl_sample.bl): rules read it
 * there, and the records write it from there.
 */
#include "pipeline/learn.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "log.h"
#include "hardening/statedir.h"
#include "pipeline/fleet.h"
#include "pipeline/saver.h"
#include "store.h"
#include "syscalls.h"
#include "textsafe.h"

#include "pipeline/learn_int.h"

static void log_refusals(struct learner *l, bool at_flush);

#define SWEEP_INTERVAL_NS (3600ull * 1000000000ull) /* the lifetime sweep, at the first flush after this */


static void report_bad_file(void *ctx, const char *path, const char *problem)
{
	log_warn("baseline store: %s: %s", path, problem);
}

/* The store's removals go to the save thread, after the writes queued before them. */
static void remove_file(void *ctx, const char *path)
{
	struct learner *l = ctx;

	saver__remove(l->saver, path);
}

/*
 * A save finished (saver.h). A failure leaves the baseline dirty for the
 * next flush, counts its flush once in save_errors and is logged once per
 * streak; the first success of a later flush ends the streak.
 */
static void on_saved(void *ctx, const char *key, const char *path, uint64_t batch, int err)
{
	struct learner *l = ctx;
	struct baseline *b;

	if (!err) {
		if (l->save_failing && batch > l->failed_batch) {
			log_info("baselines saved to %s again", l->dir);
			l->save_failing = false;
		}
		return;
	}
	b = bl_store__get(l->store, key);
	if (b)
		b->dirty = true;
	if (batch != l->failed_batch) {
		l->save_errors++;
		l->failed_batch = batch;
	}
	if (!l->save_failing) {
		const char *name = strerrorname_np(-err);

		log_warn_errno(err, "Cannot save baselines to %s: %m (%s, first %s; keeping them in memory, will retry)",
			       l->dir, name ? name : "?", path);
	}
	l->save_failing = true;
}

int learner__open(const char *state_dir, const struct bl_policy *pol, struct learner **ret)
{
	struct learner *l = calloc(1, sizeof(*l));
	char dir[PATH_MAX];
	int r;

	if (!l)
		return log_error_errno(ENOMEM, "Out of memory");
	l->pol = *pol;
	for (int i = 0; i < PL_NR_SYSCALLS; i++) {
		const char *n = syscall_name(i);

		l->sc_class[i] = n ? syscall_class(n) : BL_SC_OTHER;
	}
	/* made if missing, refused if others could write it, then ours alone */
	r = statedir__check(state_dir, true);
	if (r >= 0)
		r = l->lock_fd = statedir__lock(state_dir);
	if (r < 0) {
		free(l);
		return r;
	}
	snprintf(dir, sizeof(dir), "%s/baselines", state_dir);
	l->dir = strdup(dir);
	r = bl_store__open(dir, report_bad_file, l, &l->store);
	if (r < 0 || !l->dir) {
		r = log_error_errno(r < 0 ? r : -ENOMEM, "Cannot open the baseline store '%s': %m", dir);
		close(l->lock_fd);
		free(l->dir);
		free(l);
		return r;
	}
	r = saver__new(&l->saver);
	if (r < 0) {
		r = log_error_errno(r, "Cannot set up the baseline saver: %m");
		bl_store__free(l->store);
		close(l->lock_fd);
		free(l->dir);
		free(l);
		return r;
	}
	bl_store__set_remover(l->store, remove_file, l);
	log_info("baselines: %zu loaded from %s (mode %s)", bl_store__count(l->store), dir,
		 pol->mode == BL_MODE_LEARN ? "learn" : pol->mode == BL_MODE_DETECT ? "detect" : "auto");
	bl_store__set_policy(l->store, pol);
	learner__sweep(l);
	*ret = l;
	return 0;
}

void learner__free(struct learner *l)
{
	if (!l)
		return;
	/* every dirty baseline queued, waiting for room when the queue is full */
	learner__flush(l);
	while (learner__flush_more(l, SIZE_MAX) == -ENOBUFS)
		saver__wait(l->saver);
	/* the last saves are written before the lock is let go */
	saver__free(l->saver, on_saved, l);
	bl_store__free(l->store);
	close(l->lock_fd); /* after the last save */
	free(l->dir);
	free(l);
}

/* Cached quantiles are keyed by the baseline's address, which an evicted
 * baseline's successor may reuse. */
static void forget_evicted(struct learner *l)
{
	uint64_t n = bl_store__evicted(l->store) + bl_store__aged_out(l->store);

	if (n != l->evicted_seen) {
		memset(l->qcache, 0, sizeof(l->qcache));
		l->evicted_seen = n;
	}
}

void learner__sweep(struct learner *l)
{
	uint64_t now = real_ns(), before = bl_store__aged_out(l->store), evicted = bl_store__evicted(l->store);
	int r;

	l->swept_ns = now;
	r = bl_store__sweep(l->store, now);
	forget_evicted(l);
	if (r < 0)
		log_warn_errno(r, "baselines: the lifetime sweep of %s failed: %m", l->dir);
	else if (r > 0 || bl_store__evicted(l->store) > evicted)
		log_info("baselines: %llu aged out (not seen for %llu days, or an old binary's prior no longer "
			 "needed), %llu evicted over the bound of %u; %zu left",
			 (unsigned long long)(bl_store__aged_out(l->store) - before),
			 (unsigned long long)(l->pol.max_age_ns / (86400ull * 1000000000ull)),
			 (unsigned long long)(bl_store__evicted(l->store) - evicted), l->pol.max_baselines,
			 bl_store__count(l->store));
	l->evicted_logged = bl_store__evicted(l->store);
}

void learner__attach(struct learner *l, struct proc_info *pi)
{
	if (pi->bl) {
		/* attached again (a new image): the old one is no longer in use by pi */
		if (pi->bl->users)
			pi->bl->users--;
		pi->bl = NULL;
	}
	if (!pi->binary_id) {
		l->no_baseline++;
		return;
	}
	if (pi->script_suffix || pi->forked) {
		/* what the image runs and how it began are part of what its
		 * baseline stands for (docs/baselines.md "Keys"); the exe label names the
		 * script too, so that a changed script has the old one's history as prior */
		_cleanup_free_ char *id = NULL, *exe = NULL;

		if (asprintf(&id, "%s%s%s", pi->binary_id, pi->script_suffix ? pi->script_suffix : "",
			     pi->forked ? BL_KEY_FORK : "") < 0 ||
		    asprintf(&exe, "%s%s%s", pi->exe ? pi->exe : "", pi->script ? " " : "",
			     pi->script ? pi->script : "") < 0) {
			id = exe = NULL;
			l->no_baseline++;
			return;
		}
		pi->bl = bl_store__obtain(l->store, id, pi->parent_binary_id ? pi->parent_binary_id : "-", exe,
					  pi->parent_exe ? pi->parent_exe : "", pi->uid, real_ns());
	} else {
		pi->bl = bl_store__obtain(l->store, pi->binary_id, pi->parent_binary_id ? pi->parent_binary_id : "-",
					  pi->exe ? pi->exe : "", pi->parent_exe ? pi->parent_exe : "", pi->uid, real_ns());
	}
	if (pi->bl)
		pi->bl->users++; /* never evicted while pi runs it (proctable releases it) */
	else
		l->no_baseline++;
	if (bl_store__uid_refused(l->store) != l->uid_refused_seen)
		log_refusals(l, false); /* a user's first refusal is said now, not at the next flush */
	forget_evicted(l); /* evictions are logged once per flush interval, by learner__flush */
}

/* The identity child is a member of its parent's set of children with: NULL
 * for by path (learner__child()). */
static const char *child_identity(const struct proc_info *child, bool fresh)
{
	const char *id = child->binary_id;

	if (fresh || (child->exe_trusted_known && child->exe_trusted))
		return NULL;
	if (!id || strncmp(id, "file:", 5) == 0)
		return NULL; /* no content known: an inode number is no identity */
	return id;
}

void learner__child(struct learner *l, struct proc_info *parent, struct proc_info *child, bool fresh)
{
	if (!parent || !parent->bl || !child->exe)
		return;
	uint64_t now = real_ns();
	bool waits = !fresh && !(child->exe_trusted_known && child->exe_trusted) && child->hash_wait;

	/* ready means the parent's children set has saturated */
	child->parent_bl_ready = baseline__set_ready(parent->bl, BL_SET_CHILDREN, &l->pol, now);
	child->parent_seen = true;
	if (waits) {
		/* by path now, without learning it: the content decides when known */
		const struct strset *set = &parent->bl->set[BL_SET_CHILDREN];
		char with_id[STRSET_MAX_LEN + 2];
		int n = snprintf(with_id, sizeof(with_id), "%s\t", child->exe); /* any member of this path */

		child->parent_new_child = child->parent_bl_ready && n > 0 && (size_t)n < sizeof(with_id) &&
					  !strset__contains(set, child->exe) && !strset__has_prefix(set, with_id);
		child->child_wait = (struct child_wait){ .on = true, .tgid = parent->tgid, .image_id = parent->image_id };
		return;
	}
	child->parent_new_child =
		baseline__observe_child(parent->bl, child->exe, child_identity(child, fresh), &l->pol, now) == 1;
}

void learner__child_hashed(struct learner *l, struct proc_info *parent, struct proc_info *child)
{
	bool on = child->child_wait.on;

	child->child_wait.on = false;
	if (!on || !parent || parent->image_id != child->child_wait.image_id || !parent->bl || !child->exe)
		return;
	if (baseline__observe_child(parent->bl, child->exe, child_identity(child, false), &l->pol, real_ns()) == 1)
		child->parent_new_child = true;
}

int learner__file(struct learner *l, struct proc_info *pi, const char *member, bool learn, bool *ret_ready)
{
	*ret_ready = false;
	if (!l || !pi || !pi->bl)
		return 0;
	return baseline__observe_file(pi->bl, member, &l->pol, real_ns(), learn, ret_ready);
}
void learner__object_state(struct learner *l, const struct proc_info *pi, struct pl_map_ev *m)
{
	bool ready, known;

	if (!pi || !pi->bl || !m->path)
		return;
	baseline__object_state(pi->bl, m->path, &l->pol, real_ns(), &ready, &known);
	m->objects_known = true;
	m->objects_ready = ready;
	m->object_new = ready && !known;
}

void learner__object_commit(struct learner *l, struct proc_info *pi, const char *path, bool alerted)
{
	if (pi && pi->bl && path)
		(void)baseline__learn_object(pi->bl, path, &l->pol, real_ns(), alerted);
}

/* What every sample says about its baseline: key, readiness, the learned
 * quantiles of the ready distributions, the parent's view of this exec. */
/*
 * The quantiles rules read (p50, p90, p99 of the lifetime and per-second
 * distributions up to PL_WIN_OPEN_FAIL), for b as it is now. Walking a
 * sketch's buckets for each of them at every sample of a busy binary would
 * cost more than the rest of the sample; a baseline changes only when it
 * learns (its counts move), so they are kept per baseline until then, in a
 * direct-mapped cache (a collision recomputes).
 */
static const double (*quantiles_of(struct learner *l, const struct baseline *b))[3]
{
	static const double qs[3] = { 0.5, 0.9, 0.99 };
	struct qcache *c = &l->qcache[(uintptr_t)b / sizeof(*b) % QCACHE_SLOTS];

	if (c->b == b && c->samples == b->samples && c->windows == b->windows && c->updated_ns == b->updated_ns)
		return c->q;
	for (int d = 0; d <= PL_WIN_OPEN_FAIL; d++)
		for (int k = 0; k < 3; k++)
			c->q[d][k] = sketch__quantile(&b->dist[d], qs[k]);
	c->b = b;
	c->samples = b->samples;
	c->windows = b->windows;
	c->updated_ns = b->updated_ns;
	return c->q;
}

void learner__set_fleet(struct learner *l, const struct fleet *f)
{
	l->fleet = f;
	l->fleet_gen = f ? fleet__generation(f) : 0;
	memset(l->qcache, 0, sizeof(l->qcache));
}

/* The fleet's baseline of b's key, NULL when none is loaded or it lacks
 * the key. A new view's baselines may reuse a freed one's addresses: the
 * quantile cache is cleared when the view changes. */
static const struct baseline *fleet_of(struct learner *l, const struct baseline *b, uint32_t *ret_hosts)
{
	if (!l->fleet || !b)
		return NULL;
	if (fleet__generation(l->fleet) != l->fleet_gen) {
		memset(l->qcache, 0, sizeof(l->qcache));
		l->fleet_gen = fleet__generation(l->fleet);
	}
	return fleet__get(l->fleet, b->key, ret_hosts);
}

uint32_t learner__mark_new_frames(struct learner *l, const struct baseline *b, struct pl_oncpu *oc)
{
	const struct baseline *prior = b && b->prior_key ? bl_store__get(l->store, b->prior_key) : NULL;

	/* the fleet's last: a host that joins marks the code its role never ran at once */
	return oc ? baseline__mark_new_frames(b, prior, fleet_of(l, b, NULL), &l->pol, real_ns(), oc) : 0;
}

/* The fleet's view of the key into v->fleet (fleet.* fields). */
static void fleet_state(struct learner *l, const struct baseline *fb, uint32_t hosts, struct pl_verdict *v)
{
	struct pl_fleet_verdict *fv = &v->fleet;
	const double (*q)[3];

	if (!fb)
		return;
	fv->present = true;
	fv->ready = baseline__ready(fb, &l->pol);
	fv->windows_ready = baseline__windows_ready(fb, &l->pol);
	fv->samples = fb->samples;
	fv->hosts = hosts;
	fv->role = fleet__role(l->fleet);
	if (!fv->ready && !fv->windows_ready)
		return;
	q = quantiles_of(l, fb);
	for (int d = 0; d <= PL_WIN_OPEN_FAIL; d++) {
		if (!(d >= PL_WIN_CPU ? fv->windows_ready : fv->ready))
			continue;
		for (int k = 0; k < 3; k++)
			fv->q[d][k] = q[d][k];
	}
}

/* The prior of b, when it has one in the store. */
static const struct baseline *prior_of(struct learner *l, const struct baseline *b)
{
	return b && b->prior_key ? bl_store__get(l->store, b->prior_key) : NULL;
}

void learner__state(struct learner *l, const struct proc_info *pi, struct pl_sample *s)
{
	struct pl_verdict *v = &s->bl;
	const struct baseline *b = pi ? pi->bl : NULL, *fb, *prior;
	const double (*q)[3];
	bool fleet_life = false, fleet_win = false;
	uint32_t hosts = 0;

	/* every sample with stacks, baseline or not: frames may be shared with
	 * another image's stacks, marked for that one */
	learner__mark_new_frames(l, b, s->oncpu);
	v->parent_seen = pi && pi->parent_seen;
	v->parent_ready = pi && pi->parent_bl_ready;
	v->parent_new_child = pi && pi->parent_new_child;
	if (!b)
		return; /* the parent's view stands without the image's own baseline */
	v->key = b->key;
	v->ready = baseline__ready(b, &l->pol);
	v->windows_ready = baseline__windows_ready(b, &l->pol);
	v->samples = b->samples;
	v->peers_ready = baseline__set_ready(b, BL_SET_PEERS, &l->pol, real_ns());
	v->peers_never = v->peers_ready && baseline__peers_never(b);
	v->peer_new = v->peers_ready && s->net && !baseline__peer_known(b, s->net->peer);
	v->source = PL_BL_SOURCE_HOST;
	fb = fleet_of(l, b, &hosts);
	fleet_state(l, fb, hosts, v);
	/* its own not ready and no ready prior: the fleet's stands for it (a
	 * host that joins is armed at once), until its own is ready */
	prior = fb ? prior_of(l, b) : NULL;
	if (!v->ready && v->fleet.ready && !baseline__ready(prior, &l->pol))
		v->ready = fleet_life = true;
	if (!v->windows_ready && v->fleet.windows_ready && !baseline__windows_ready(prior, &l->pol))
		v->windows_ready = fleet_win = true;
	if (s->moment == PL_AT_WINDOW ? fleet_win : fleet_life)
		v->source = PL_BL_SOURCE_FLEET;
	if (!v->ready && !v->windows_ready)
		return;
	q = quantiles_of(l, b);
	for (int d = 0; d <= PL_WIN_OPEN_FAIL; d++) {
		bool win = d >= PL_WIN_CPU;

		if (!(win ? v->windows_ready : v->ready))
			continue; /* a distribution that is not ready says nothing */
		for (int k = 0; k < 3; k++)
			v->q[d][k] = (win ? fleet_win : fleet_life) ? v->fleet.q[d][k] : q[d][k];
	}
}

static void put_scores(struct pl_score f[PL_DIST_MAX], const struct bl_verdict *bv);

/* The verdict of the baseline into the sample. */
static void put_verdict(struct pl_sample *s, const struct bl_verdict *bv)
{
	struct pl_verdict *v = &s->bl;

	v->scored = true;
	/* ready, windows_ready, samples and the quantiles are this baseline's
	 * own at every moment (learner__state): exec, window and exit read
	 * them alike. Whether this sample was scored against a prior instead
	 * is from_prior; that it was scored at all is scored. */
	v->from_prior = bv->from_prior;
	v->anomalous = bv->anomalous;
	v->learned = false;
	v->max_dist = bv->max_dist;
	v->max_score = bv->max_dist >= 0 ? bv->max_score : NAN;
	put_scores(v->f, bv);
	v->nnew_fail_paths = bv->new_members[BL_SET_FAIL_PATHS] < PL_SAMPLE_NEW_MAX ? bv->new_members[BL_SET_FAIL_PATHS]
										  : PL_SAMPLE_NEW_MAX;
	for (uint32_t i = 0; i < v->nnew_fail_paths; i++)
		v->new_fail_paths[i] = bv->new_list[BL_SET_FAIL_PATHS][i];
	v->nnew_syscalls = bv->new_members[BL_SET_SYSCALLS] < PL_SAMPLE_NEW_MAX ? bv->new_members[BL_SET_SYSCALLS]
										: PL_SAMPLE_NEW_MAX;
	for (uint32_t i = 0; i < v->nnew_syscalls; i++)
		v->new_syscalls[i] = bv->new_list[BL_SET_SYSCALLS][i];
	v->oncpu_ready = bv->oncpu_ready;
	v->nnew_oncpu_objects = bv->new_members[BL_SET_ONCPU] < PL_SAMPLE_NEW_MAX ? bv->new_members[BL_SET_ONCPU]
										 : PL_SAMPLE_NEW_MAX;
	for (uint32_t i = 0; i < v->nnew_oncpu_objects; i++)
		v->new_oncpu_objects[i] = bv->new_list[BL_SET_ONCPU][i];
	v->new_oncpu_samples = bv->new_oncpu_samples;
}

static void put_scores(struct pl_score f[PL_DIST_MAX], const struct bl_verdict *bv)
{
	for (int d = 0; d < PL_DIST_MAX; d++)
		f[d] = (struct pl_score){
			.valid = bv->f[d].valid,
			.value = bv->f[d].value,
			.p50 = bv->f[d].p50,
			.p99 = bv->f[d].p99,
			.ratio_p50 = bv->f[d].ratio_p50,
			.ratio_p99 = bv->f[d].ratio_p99,
			.score = bv->f[d].score,
		};
}

/* The user functions of stack st (number si) into q's members, each
 * gaining the stack's samples once, while there is room. */
static void collect_stack(struct pending *q, const struct pl_stack *st, uint32_t si, size_t *used)
{
	struct bl_process_sample *ps = &q->ps;

	for (uint32_t i = 0; i < st->nuser; i++) {
		char *m = q->fn_arena + *used;
		uint32_t k = 0;

		if (baseline__function_member(st->user[i].object, st->user[i].function, m, LEARN_FN_ARENA - *used) < 0)
			continue; /* too long for a member, or the arena is full */
		while (k < ps->nfunctions && strcmp(q->fns[k], m) != 0)
			k++;
		if (k == ps->nfunctions) {
			if (k == LEARN_MAX_FUNCS)
				continue;
			q->fns[k] = m;
			q->fn_counts[k] = 0;
			q->fn_stack[k] = UINT32_MAX;
			ps->nfunctions++;
			*used += strlen(m) + 1;
		}
		if (q->fn_stack[k] != si) {
			q->fn_counts[k] += st->samples;
			q->fn_stack[k] = si;
		}
	}
}

/* What the functions set learns of a sample: the user functions of its
 * kept stacks, each by the samples of the stacks it is in; the draws are
 * those stacks' samples, as CPU samples are the objects set's. Kernel
 * frames are left out: interrupts and syscall paths bring new ones to any
 * process now and then, and which code of the process ran is the question. */
static void collect_functions(struct pending *q, const struct pl_oncpu *oc)
{
	size_t used = 0;

	q->ps.functions = q->fns;
	q->ps.function_counts = q->fn_counts;
	q->ps.nfunctions = 0;
	q->ps.function_samples = 0;
	for (uint32_t i = 0; oc && i < oc->nstacks; i++) {
		if (!oc->stacks[i].nuser)
			continue;
		collect_stack(q, &oc->stacks[i], i, &used);
		q->ps.function_samples += oc->stacks[i].samples;
	}
}

static void score_process(struct learner *l, struct baseline *b, const struct baseline *prior,
			  const struct baseline *fleet, struct pl_sample *s)
{
	struct pending *q = &l->pending;
	struct bl_process_sample *ps = &q->ps;

	*ps = (struct bl_process_sample){
		.cpu_ns = s->life.cpu_ns,
		.wall_ns = pl_sample__wall_ns(s),
		.offcpu_ns = s->life.offcpu_ns,
		.syscalls = s->life.syscalls,
		.open_fail = s->life.open_fail,
		.fail_paths = q->paths,
		.syscall_names = q->names,
		.peers = s->peers,
		.npeers = s->npeers,
		.connects = s->life.net_connects,
		.now_ns = real_ns(), /* set readiness is in time */
	};
	for (uint32_t i = 0; i < s->nfails && i < PROC_MAX_FAIL_KEYS; i++)
		if (s->fails[i].path)
			q->paths[ps->nfail_paths++] = s->fails[i].path;
	for (int i = 0; s->life.sc && i < PL_NR_SYSCALLS; i++)
		if (s->life.sc[i] && syscall_name(i))
			q->names[ps->nsyscall_names++] = syscall_name(i);
	ps->oncpu_objects = q->objs;
	ps->oncpu_counts = q->obj_counts;
	for (uint32_t i = 0; s->oncpu && i < s->oncpu->nobjs && ps->noncpu < LEARN_MAX_OBJECTS; i++) {
		q->objs[ps->noncpu] = s->oncpu->objs[i].object;
		q->obj_counts[ps->noncpu++] = s->oncpu->objs[i].samples;
	}
	collect_functions(q, s->oncpu);
	baseline__score_process(b, prior, ps, &l->pol, &q->v);
	if (fleet)
		baseline__score_process(fleet, NULL, ps, &l->pol, &q->fv);
	/* each object beside what the baseline expects of it */
	const struct baseline *ref = q->v.from_prior ? prior : b;

	for (uint32_t i = 0; s->oncpu && i < s->oncpu->nobjs; i++) {
		struct pl_oncpu_obj *o = &s->oncpu->objs[i];

		o->baseline_share = q->v.ready ? baseline__oncpu_share(ref, &l->pol, o->object) : NAN;
		o->is_new = q->v.oncpu_ready && o->baseline_share == 0;
	}
}

static void score_window(struct learner *l, struct baseline *b, const struct baseline *prior,
			 const struct baseline *fleet, struct pl_sample *s)
{
	struct pending *q = &l->pending;
	struct bl_window_sample *ws = &q->ws;

	*ws = (struct bl_window_sample){
		.duration_ns = s->win_end_ns - s->win_start_ns,
		.cpu_ns = s->win.cpu_ns,
		.syscalls = s->win.syscalls,
		.open_fail = s->win.open_fail,
	};
	for (int i = 0; s->win.sc && i < PL_NR_SYSCALLS; i++)
		ws->sc_class[l->sc_class[i]] += s->win.sc[i];
	ws->sc_class[BL_SC_OTHER] += s->win.sc_other;
	baseline__score_window(b, prior, ws, &l->pol, &q->v);
	if (fleet)
		baseline__score_window(fleet, NULL, ws, &l->pol, &q->fv);
}

void learner__score(struct learner *l, struct proc_info *pi, struct pl_sample *s, bool learn)
{
	struct pending *q = &l->pending;
	const struct baseline *prior, *fleet, *other;
	bool exit_moment = s->moment == PL_AT_EXIT;
	uint32_t hosts;

	q->kind = PENDING_NONE;
	learner__state(l, pi, s);
	if (!pi || !pi->bl || (s->moment != PL_AT_EXIT && s->moment != PL_AT_WINDOW))
		return;
	bl_store__touch(pi->bl, real_ns());
	prior = prior_of(l, pi->bl);
	fleet = s->bl.fleet.present ? fleet_of(l, pi->bl, &hosts) : NULL;
	if (fleet && !(exit_moment ? s->bl.fleet.ready : s->bl.fleet.windows_ready))
		fleet = NULL; /* not ready: it scores nothing */
	/* a ready prior first (its semantics unchanged), else the fleet's */
	other = (exit_moment ? baseline__ready(prior, &l->pol) : baseline__windows_ready(prior, &l->pol)) || !fleet
			? prior
			: fleet;
	q->fv = (struct bl_verdict){ 0 };
	if (exit_moment)
		score_process(l, pi->bl, other, fleet, s);
	else
		score_window(l, pi->bl, other, fleet, s);
	put_verdict(s, &q->v);
	if (q->v.from_prior && other == fleet && fleet) {
		s->bl.from_prior = false; /* scored against the fleet's: baseline.source says so */
		s->bl.source = PL_BL_SOURCE_FLEET;
	} else {
		s->bl.source = q->v.from_prior ? PL_BL_SOURCE_PRIOR : PL_BL_SOURCE_HOST;
	}
	if (fleet && q->fv.ready) {
		s->bl.fleet.scored = true;
		put_scores(s->bl.fleet.f, &q->fv);
	}
	l->anomalous += q->v.anomalous;
	/* what the sensor saw only in part is scored but not learned */
	if (learn && !s->partial) {
		q->kind = s->moment == PL_AT_EXIT ? PENDING_PROCESS : PENDING_WINDOW;
		q->b = pi->bl;
	}
}

bool learner__commit(struct learner *l, bool alerted, struct pl_sample *s)
{
	struct pending *q = &l->pending;
	int r = 0;

	switch (q->kind) {
	case PENDING_NONE:
		return false;
	case PENDING_PROCESS:
		r = baseline__learn_process(q->b, &q->ps, &l->pol, real_ns(), alerted, &q->v);
		l->process_samples += q->v.learned;
		break;
	case PENDING_WINDOW:
		r = baseline__learn_window(q->b, &q->ws, &l->pol, real_ns(), alerted, &q->v);
		l->window_samples += q->v.learned;
		break;
	}
	if (r < 0)
		log_warn("baseline %s: out of memory while learning", q->b->key);
	q->kind = PENDING_NONE;
	if (s)
		s->bl.learned = q->v.learned;
	return q->v.learned;
}

/* The users refused over their share: an episode is logged once, when it
 * begins; it ends at a flush that saw no refusal of that user since the
 * flush before. at_flush: called by the flush. */
static void log_refusals(struct learner *l, bool at_flush)
{
	struct bl_uid_refusals now[BL_UID_TRACK];
	size_t n = bl_store__uid_refusals(l->store, now, BL_UID_TRACK);

	l->uid_refused_seen = bl_store__uid_refused(l->store);
	for (size_t i = 0; i < n; i++) {
		struct uid_episode *e = NULL, *least = &l->episodes[0];

		for (size_t j = 0; j < BL_UID_TRACK && !e; j++) {
			if (l->episodes[j].uid == now[i].uid && l->episodes[j].used)
				e = &l->episodes[j];
			else if (!l->episodes[j].used || l->episodes[j].at_flush < least->at_flush)
				least = &l->episodes[j];
		}
		if (!e) {
			e = least;
			*e = (struct uid_episode){ .uid = now[i].uid, .used = true };
		}
		if (now[i].refused > e->at_flush && !e->logged) {
			log_warn("baselines: uid %u holds its share of %zu learning baselines: its new binaries get "
				 "none (%llu refused; stats baselines.refused_users, docs/baselines.md)",
				 now[i].uid, bl_store__uid_share(l->store), (unsigned long long)now[i].refused);
			e->logged = true;
		}
		if (at_flush) {
			if (now[i].refused == e->at_flush)
				e->logged = false;
			e->at_flush = now[i].refused;
		}
	}
}

int learner__flush(struct learner *l)
{
	uint64_t now = real_ns();

	bl_store__touch_live(l->store, now);
	if (now < l->swept_ns || now - l->swept_ns >= SWEEP_INTERVAL_NS)
		learner__sweep(l);
	if (bl_store__evicted(l->store) != l->evicted_logged) {
		log_info("baselines: %llu evicted since the last flush (the store holds its bound of %u; learning "
			 "baselines first, least recently seen first)",
			 (unsigned long long)(bl_store__evicted(l->store) - l->evicted_logged), l->pol.max_baselines);
		l->evicted_logged = bl_store__evicted(l->store);
	}
	log_refusals(l, true);
	l->saves++;
	l->batch++;
	l->flush_cursor = 0;
	l->flushing = true;
	return learner__flush_more(l, LEARN_SAVES_PER_TICK);
}

int learner__flush_more(struct learner *l, size_t budget)
{
	size_t n = bl_store__count(l->store);

	for (; l->flushing && l->flush_cursor < n && budget; l->flush_cursor++) {
		struct baseline *b = bl_store__at(l->store, l->flush_cursor);
		char *path, *data;
		size_t len;
		int r;

		if (!b->dirty)
			continue;
		r = bl_store__encode(l->store, b, &path, &data, &len);
		if (r < 0) {
			on_saved(l, b->key, l->dir, l->batch, r);
			return r;
		}
		r = saver__write(l->saver, b->key, path, data, len, l->batch);
		if (r < 0) {
			free(path);
			free(data);
			/* the queue is full (a disk slower than the flood): resumed at the next tick */
			l->saves_dropped++;
			return r;
		}
		/* saved as far as the store knows; a failure makes it dirty again (on_saved) */
		b->dirty = false;
		b->seen_saved_ns = b->seen_ns;
		budget--;
	}
	if (l->flush_cursor >= n)
		l->flushing = false;
	return 0;
}

int learner__start(struct learner *l)
{
	return saver__start(l->saver);
}

int learner__epoll_fd(const struct learner *l)
{
	return saver__epoll_fd(l->saver);
}

void learner__saved(struct learner *l)
{
	saver__completed(l->saver, on_saved, l);
}

void learner__counts(const struct learner *l, struct learner_counts *ret)
{
	*ret = (struct learner_counts){
		.baselines = bl_store__count(l->store),
		.process_samples = l->process_samples,
		.window_samples = l->window_samples,
		.anomalous = l->anomalous,
		.without_baseline = l->no_baseline,
		.save_errors = l->save_errors,
		.evicted = bl_store__evicted(l->store),
		.aged_out = bl_store__aged_out(l->store),
		.refused_full = bl_store__refused(l->store),
		.refused_user = bl_store__uid_refused(l->store),
		.saves_queued = saver__pending(l->saver),
		.saves_dropped = l->saves_dropped,
	};
	ret->ntop_users = bl_store__uid_refusals(l->store, ret->top_users, LEARN_TOP_USERS);
}
