// SPDX-License-Identifier: MIT
/*
 * learn.c - samples from kernel counters, verdicts into records.
 *
 * What is learned from what:
 *   an image that ended by exit or exec (not one the sensor saw only in
 *   part, nor one still running at shutdown) -> one lifetime sample;
 *   every 1-second window of a running image -> one window sample;
 *   an exec -> the child's exe in the parent image's set of children.
 */
#include "learn.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "statedir.h"
#include "store.h"
#include "syscalls.h"
#include "textsafe.h"

/* A scored sample waiting for the rules' decision (learner__commit). */
enum pending_kind { PENDING_NONE, PENDING_PROCESS, PENDING_WINDOW };

struct pending {
	enum pending_kind kind;
	struct baseline *b;
	struct bl_process_sample ps;
	struct bl_window_sample ws;
	struct bl_verdict v;
	const char *paths[PROC_MAX_FAIL_KEYS]; /* borrowed from the process table until commit */
	const char *names[PL_NR_SYSCALLS];
};

struct learner {
	struct bl_policy pol;
	struct pending pending;
	struct bl_store *store;
	char *dir;
	int lock_fd; /* the state directory's writer lock (statedir__lock) */
	enum bl_sc_class sc_class[PL_NR_SYSCALLS];
	bool save_failing;
	uint64_t process_samples, window_samples, anomalous, no_baseline, saves, save_errors;
};

static const char *const feature_names[BL_DIST_MAX] = {
	[BL_LIFE_CPU] = "cpu_ns",
	[BL_LIFE_WALL] = "wall_ns",
	[BL_LIFE_OFFCPU] = "offcpu_ns",
	[BL_LIFE_SYSCALLS] = "syscalls",
	[BL_LIFE_OPEN_FAIL] = "open_failures",
	[BL_WIN_CPU] = "cpu_ns_per_s",
	[BL_WIN_SYSCALLS] = "syscalls_per_s",
	[BL_WIN_OPEN_FAIL] = "open_failures_per_s",
	[BL_WIN_SC_FILE] = "sc_file_per_s",
	[BL_WIN_SC_NET] = "sc_net_per_s",
	[BL_WIN_SC_PROC] = "sc_proc_per_s",
	[BL_WIN_SC_MEM] = "sc_mem_per_s",
	[BL_WIN_SC_IPC] = "sc_ipc_per_s",
	[BL_WIN_SC_TIME] = "sc_time_per_s",
	[BL_WIN_SC_OTHER] = "sc_other_per_s",
};

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void report_bad_file(void *ctx, const char *path, const char *problem)
{
	log_warn("baseline store: %s: %s", path, problem);
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
	log_info("baselines: %zu loaded from %s (mode %s)", bl_store__count(l->store), dir,
		 pol->mode == BL_MODE_LEARN ? "learn" : pol->mode == BL_MODE_DETECT ? "detect" : "auto");
	*ret = l;
	return 0;
}

void learner__free(struct learner *l)
{
	if (!l)
		return;
	learner__flush(l);
	bl_store__free(l->store);
	close(l->lock_fd); /* after the last save */
	free(l->dir);
	free(l);
}

void learner__attach(struct learner *l, struct proc_info *pi)
{
	if (!pi->binary_id) {
		l->no_baseline++;
		return;
	}
	pi->bl = bl_store__obtain(l->store, pi->binary_id, pi->parent_binary_id ? pi->parent_binary_id : "-",
				  pi->exe ? pi->exe : "", pi->parent_exe ? pi->parent_exe : "", real_ns());
	if (!pi->bl)
		l->no_baseline++;
}

void learner__child(struct learner *l, struct proc_info *parent, struct proc_info *child)
{
	if (!parent || !parent->bl || !child->exe)
		return;
	child->parent_bl_ready = baseline__ready(parent->bl, &l->pol);
	child->parent_new_child = baseline__observe_child(parent->bl, child->exe, &l->pol, real_ns()) == 1;
}

static void add_double(struct json_object *o, const char *key, double v)
{
	json_object_object_add(o, key, isfinite(v) ? json_object_new_double(v) : NULL);
}

static struct json_object *verdict_json(const struct proc_info *pi, const struct bl_verdict *v, int first, int last)
{
	static const char *const new_names[BL_SET_MAX] = {
		[BL_SET_FAIL_PATHS] = "new_fail_paths",
		[BL_SET_CHILDREN] = "new_children",
		[BL_SET_SYSCALLS] = "new_syscalls",
	};
	struct json_object *o = json_object_new_object(), *f = json_object_new_object();

	json_object_object_add(o, "key", record__str(pi->bl->key));
	json_object_object_add(o, "ready", json_object_new_boolean(v->ready));
	json_object_object_add(o, "from_prior", json_object_new_boolean(v->from_prior));
	json_object_object_add(o, "samples", json_object_new_uint64(v->samples));
	json_object_object_add(o, "learned", json_object_new_boolean(v->learned));
	json_object_object_add(o, "anomalous", json_object_new_boolean(v->anomalous));
	if (v->max_dist >= 0) {
		add_double(o, "max_score", v->max_score);
		json_object_object_add(o, "max_feature", json_object_new_string(feature_names[v->max_dist]));
	} else {
		json_object_object_add(o, "max_score", NULL);
		json_object_object_add(o, "max_feature", NULL);
	}
	for (int d = first; d <= last; d++) {
		const struct bl_feature *x = &v->f[d];
		struct json_object *e;

		if (!x->valid)
			continue;
		e = json_object_new_object();
		add_double(e, "value", x->value);
		add_double(e, "p50", x->p50);
		add_double(e, "p99", x->p99);
		add_double(e, "ratio_p50", x->ratio_p50);
		add_double(e, "ratio_p99", x->ratio_p99);
		add_double(e, "score", x->score);
		json_object_object_add(f, feature_names[d], e);
	}
	json_object_object_add(o, "features", f);
	for (int s = 0; s < BL_SET_MAX; s++) {
		struct json_object *a;

		if (s == BL_SET_CHILDREN)
			continue;
		a = json_object_new_array();
		for (uint32_t i = 0; i < v->new_members[s] && i < 8; i++)
			json_object_array_add(a, record__str(v->new_list[s][i]));
		json_object_object_add(o, new_names[s], a);
	}
	return o;
}

/* The learned quantiles a rule can compare with (ms for times, per second
 * for window rates), for the distributions that are ready. */
static struct json_object *quantiles_json(const struct learner *l, const struct baseline *b)
{
	static const struct {
		const char *name;
		enum bl_dist d;
		double scale;
		bool window;
	} qs[] = {
		{ "cpu_ms", BL_LIFE_CPU, 1e-6, false },
		{ "wall_ms", BL_LIFE_WALL, 1e-6, false },
		{ "offcpu_ms", BL_LIFE_OFFCPU, 1e-6, false },
		{ "syscalls", BL_LIFE_SYSCALLS, 1, false },
		{ "open_failures", BL_LIFE_OPEN_FAIL, 1, false },
		{ "win_cpu_ms", BL_WIN_CPU, 1e-6, true },
		{ "win_syscalls", BL_WIN_SYSCALLS, 1, true },
		{ "win_open_failures", BL_WIN_OPEN_FAIL, 1, true },
	};
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		struct json_object *q;

		if (qs[i].window ? !baseline__windows_ready(b, &l->pol) : !baseline__ready(b, &l->pol))
			continue;
		q = json_object_new_object();
		add_double(q, "p50", sketch__quantile(&b->dist[qs[i].d], 0.5) * qs[i].scale);
		add_double(q, "p90", sketch__quantile(&b->dist[qs[i].d], 0.9) * qs[i].scale);
		add_double(q, "p99", sketch__quantile(&b->dist[qs[i].d], 0.99) * qs[i].scale);
		json_object_object_add(o, qs[i].name, q);
	}
	return o;
}

/* What every verdict object says about the baseline itself. */
static void add_baseline_state(const struct learner *l, const struct proc_info *pi, struct json_object *o)
{
	json_object_object_add(o, "windows_ready", json_object_new_boolean(baseline__windows_ready(pi->bl, &l->pol)));
	json_object_object_add(o, "parent_ready", json_object_new_boolean(pi->parent_bl_ready));
	json_object_object_add(o, "parent_new_child", json_object_new_boolean(pi->parent_new_child));
	json_object_object_add(o, "quantiles", quantiles_json(l, pi->bl));
}

struct json_object *learner__exec(struct learner *l, const struct proc_info *pi)
{
	struct json_object *o;

	if (!pi || !pi->bl)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "key", record__str(pi->bl->key));
	json_object_object_add(o, "ready", json_object_new_boolean(baseline__ready(pi->bl, &l->pol)));
	json_object_object_add(o, "samples", json_object_new_uint64(pi->bl->samples));
	add_baseline_state(l, pi, o);
	return o;
}

struct json_object *learner__process(struct learner *l, struct proc_info *pi, const struct pl_proc *p,
				     const struct fail_count *fails, uint32_t nfails, uint64_t end_ns, bool learn)
{
	struct pending *q = &l->pending;
	struct bl_process_sample *s = &q->ps;
	const struct baseline *prior;
	struct json_object *o;

	q->kind = PENDING_NONE;
	if (!pi || !pi->bl)
		return NULL;
	*s = (struct bl_process_sample){
		.cpu_ns = p->st.cpu_ns,
		.wall_ns = end_ns > p->id.image_start_ns ? end_ns - p->id.image_start_ns : 0,
		.offcpu_ns = p->st.offcpu_ns,
		.open_fail = p->st.open_fail,
		.fail_paths = q->paths,
		.syscall_names = q->names,
	};
	for (uint32_t i = 0; i < nfails && i < PROC_MAX_FAIL_KEYS; i++)
		q->paths[s->nfail_paths++] = fails[i].ref->path;
	for (int i = 0; i < PL_NR_SYSCALLS; i++) {
		if (!p->st.sc[i])
			continue;
		s->syscalls += p->st.sc[i];
		if (syscall_name(i))
			q->names[s->nsyscall_names++] = syscall_name(i);
	}
	s->syscalls += p->st.sc_other;
	prior = pi->bl->prior_key ? bl_store__get(l->store, pi->bl->prior_key) : NULL;
	baseline__score_process(pi->bl, prior, s, &l->pol, &q->v);
	l->anomalous += q->v.anomalous;
	/* what the sensor saw only in part, or is still running, is scored but not learned */
	if (learn && !(p->id.flags & PL_PROC_PARTIAL)) {
		q->kind = PENDING_PROCESS;
		q->b = pi->bl;
	}
	o = verdict_json(pi, &q->v, BL_LIFE_CPU, BL_LIFE_OPEN_FAIL);
	add_baseline_state(l, pi, o);
	return o;
}

struct json_object *learner__window(struct learner *l, struct proc_info *pi, const struct pl_stats *cur,
				    const struct pl_stats *prev, uint64_t duration_ns)
{
	static const struct pl_stats zero;
	struct pending *q = &l->pending;
	struct bl_window_sample *s = &q->ws;
	const struct baseline *prior;
	struct json_object *o;

	q->kind = PENDING_NONE;
	if (!pi || !pi->bl)
		return NULL;
	if (!prev)
		prev = &zero;
	*s = (struct bl_window_sample){ .duration_ns = duration_ns };
	s->cpu_ns = cur->cpu_ns - prev->cpu_ns;
	s->open_fail = cur->open_fail - prev->open_fail;
	for (int i = 0; i < PL_NR_SYSCALLS; i++) {
		uint64_t d = cur->sc[i] - prev->sc[i];

		s->syscalls += d;
		s->sc_class[l->sc_class[i]] += d;
	}
	s->syscalls += cur->sc_other - prev->sc_other;
	s->sc_class[BL_SC_OTHER] += cur->sc_other - prev->sc_other;
	prior = pi->bl->prior_key ? bl_store__get(l->store, pi->bl->prior_key) : NULL;
	baseline__score_window(pi->bl, prior, s, &l->pol, &q->v);
	l->anomalous += q->v.anomalous;
	q->kind = PENDING_WINDOW;
	q->b = pi->bl;
	o = verdict_json(pi, &q->v, BL_WIN_CPU, BL_DIST_MAX - 1);
	add_baseline_state(l, pi, o);
	return o;
}

bool learner__commit(struct learner *l, bool alerted)
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
	if (r < 0) {
		_cleanup_free_ char *key = text_escape_str(q->b->key);

		log_warn("baseline %s: out of memory while learning", key ? key : "?");
	}
	q->kind = PENDING_NONE;
	return q->v.learned;
}

int learner__flush(struct learner *l)
{
	int r = bl_store__save(l->store);

	l->saves++;
	if (r < 0) {
		l->save_errors++;
		if (!l->save_failing)
			log_warn_errno(r, "Cannot save baselines to %s: %m (keeping them in memory, will retry)", l->dir);
		l->save_failing = true;
		return r;
	}
	if (l->save_failing)
		log_info("baselines saved to %s again", l->dir);
	l->save_failing = false;
	return 0;
}

void learner__stats(const struct learner *l, struct json_object *o)
{
	struct json_object *b = json_object_new_object();

	json_object_object_add(b, "baselines", json_object_new_uint64(bl_store__count(l->store)));
	json_object_object_add(b, "process_samples_learned", json_object_new_uint64(l->process_samples));
	json_object_object_add(b, "window_samples_learned", json_object_new_uint64(l->window_samples));
	json_object_object_add(b, "anomalous_samples", json_object_new_uint64(l->anomalous));
	json_object_object_add(b, "without_baseline", json_object_new_uint64(l->no_baseline + bl_store__refused(l->store)));
	json_object_object_add(b, "save_errors", json_object_new_uint64(l->save_errors));
	json_object_object_add(o, "baselines", b);
}
