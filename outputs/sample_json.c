// SPDX-License-Identifier: MIT
/*
 * sample_json.c - samples to records and back (docs/records.md).
 *
 * The writer is the only place a sample becomes JSON; the parser the only
 * place a record becomes a sample. Both walk the same tables (spans,
 * verdict features, quantiles), so a field added to one is added to the
 * other. Counts are integers; rates and scores doubles; times REALTIME ns.
 */
#include "sample_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls.h"
#include "textsafe.h"

/* ---- writing ---- */

struct json_object *sample_json__str(const char *raw)
{
	char *esc;
	struct json_object *j;

	if (!raw)
		return NULL;
	esc = text_escape(raw, strlen(raw));
	j = esc ? json_object_new_string(esc) : NULL;
	free(esc);
	return j;
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	add(o, key, json_object_new_uint64(v));
}

static void add_bool(struct json_object *o, const char *key, bool v)
{
	add(o, key, json_object_new_boolean(v));
}

static void add_double(struct json_object *o, const char *key, double v)
{
	add(o, key, isfinite(v) ? json_object_new_double(v) : NULL);
}

static void add_str(struct json_object *o, const char *key, const char *raw)
{
	add(o, key, sample_json__str(raw));
}

struct sc_count {
	int nr;
	uint64_t n;
};

static int by_count_desc(const void *a, const void *b)
{
	const struct sc_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->nr - y->nr;
}

struct json_object *sample_json__syscalls(const struct pl_span *sp)
{
	struct sc_count sc[PL_SAMPLE_NR_SYSCALLS];
	struct json_object *o = json_object_new_object();
	int n = 0;

	for (int i = 0; sp->sc && i < PL_SAMPLE_NR_SYSCALLS; i++)
		if (sp->sc[i])
			sc[n++] = (struct sc_count){ .nr = i, .n = sp->sc[i] };
	qsort(sc, n, sizeof(sc[0]), by_count_desc);
	for (int i = 0; i < n; i++) {
		const char *name = syscall_name(sc[i].nr);
		char fallback[32];

		if (!name) {
			snprintf(fallback, sizeof(fallback), "sys_%d", sc[i].nr);
			name = fallback;
		}
		add_u64(o, name, sc[i].n);
	}
	return o;
}

static struct json_object *by_errno(const struct pl_span *sp)
{
	struct json_object *o = json_object_new_object();

	for (int e = 1; sp->fail_errno && e < PL_SAMPLE_NR_ERRNO; e++) {
		const char *name = e < PL_SAMPLE_NR_ERRNO - 1 ? errno_name(e) : "other";
		char fallback[16];

		if (!sp->fail_errno[e])
			continue;
		if (!name) {
			snprintf(fallback, sizeof(fallback), "E%d", e);
			name = fallback;
		}
		add_u64(o, name, sp->fail_errno[e]);
	}
	return o;
}

/* The counters of a span, as process and window records carry them. */
static void add_span(struct json_object *o, const struct pl_span *sp)
{
	add_u64(o, "cpu_ns", sp->cpu_ns);
	add_u64(o, "offcpu_ns", sp->offcpu_ns);
	add_u64(o, "runq_ns", sp->runq_ns);
	add_u64(o, "blocked_ns", sp->offcpu_ns > sp->runq_ns ? sp->offcpu_ns - sp->runq_ns : 0);
	add_u64(o, "ctx_switches", sp->ctx_switches);
	add_u64(o, "syscalls", sp->syscalls);
	add(o, "syscalls_by_name", sample_json__syscalls(sp));
	add_u64(o, "syscalls_other", sp->sc_other);
	add_u64(o, "open_failures", sp->open_fail);
	add(o, "open_fail_by_errno", by_errno(sp));
	add_u64(o, "open_fail_unrecorded", sp->open_fail_unrecorded);
}

static void add_identity(struct json_object *o, const struct pl_sample *s)
{
	char dev[32];

	add_u64(o, "pid", s->pid);
	add_u64(o, "ppid", s->ppid);
	add_u64(o, "uid", s->uid);
	add_str(o, "comm", s->comm);
	add_str(o, "exec_comm", s->exec_comm);
	add_str(o, "exe", s->exe);
	snprintf(dev, sizeof(dev), "%u:%u", s->exe_dev >> 20, s->exe_dev & 0xfffff);
	add(o, "exe_dev", json_object_new_string(dev));
	add_u64(o, "exe_ino", s->exe_ino);
	add_str(o, "build_id", s->build_id);
	add_str(o, "filename", s->filename);
	add_bool(o, "filename_truncated", s->filename_truncated);
	add_str(o, "cmdline", s->cmdline);
	add_u64(o, "cgroup_id", s->cgroup_id);
	add_str(o, "cgroup", s->cgroup);
	add(o, "image", json_object_new_string(pl_image__name(s->image)));
	add_bool(o, "partial", s->partial);
	add_str(o, "exe_kind", s->exe_kind);
	add_u64(o, "exe_mtime_ns", s->exe_mtime_ns);
	add_u64(o, "start_ns", s->start_ns);
	add_u64(o, "image_start_ns", s->image_start_ns);
	add_u64(o, "threads", s->threads);
	add_str(o, "script", s->script);
}

struct json_object *sample_json__fail_paths(const struct pl_sample *s)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; i < s->nfails; i++) {
		const struct pl_fail *f = &s->fails[i];
		struct json_object *e = json_object_new_object();

		add_str(e, "path", f->path);
		add(e, "errno", json_object_new_int(f->err));
		add(e, "errno_name", errno_name(f->err) ? json_object_new_string(errno_name(f->err)) : NULL);
		add_u64(e, "count", f->count);
		add_bool(e, "truncated", f->truncated);
		json_object_array_add(a, e);
	}
	return a;
}

struct json_object *sample_json__ancestors(const struct pl_sample *s)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; i < s->nancestors && i < PL_SAMPLE_ANCESTORS; i++)
		json_object_array_add(a, sample_json__str(s->ancestors[i]));
	return a;
}

/* The quantiles a rule can compare with, in its units (ms, per second). */
static const struct {
	const char *name;
	enum pl_dist d;
	double div; /* from the sample's unit: 1e6 for ns to ms */
} quantiles[] = {
	{ "cpu_ms", PL_LIFE_CPU, 1e6 },
	{ "wall_ms", PL_LIFE_WALL, 1e6 },
	{ "offcpu_ms", PL_LIFE_OFFCPU, 1e6 },
	{ "syscalls", PL_LIFE_SYSCALLS, 1 },
	{ "open_failures", PL_LIFE_OPEN_FAIL, 1 },
	{ "win_cpu_ms", PL_WIN_CPU, 1e6 },
	{ "win_syscalls", PL_WIN_SYSCALLS, 1 },
	{ "win_open_failures", PL_WIN_OPEN_FAIL, 1 },
};
static const char *const qnames[3] = { "p50", "p90", "p99" };

static struct json_object *strings(const char *const *v, uint32_t n)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; i < n && i < PL_SAMPLE_NEW_MAX; i++)
		json_object_array_add(a, sample_json__str(v[i]));
	return a;
}

static struct json_object *frame(const struct pl_frame *f)
{
	struct json_object *o = json_object_new_object();

	add_str(o, "object", f->object);
	add_str(o, "function", f->function);
	add_u64(o, "offset", f->offset);
	add_str(o, "build_id", f->build_id);
	add_bool(o, "kernel", f->kernel);
	return o;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

/* samples by object, the baseline's share beside each when known */
static struct json_object *objects(const struct pl_oncpu *oc, bool with_baseline)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; i < oc->nobjs; i++) {
		const struct pl_oncpu_obj *x = &oc->objs[i];
		struct json_object *e = json_object_new_object();

		add_str(e, "object", x->object);
		add_str(e, "build_id", x->build_id);
		add_u64(e, "samples", x->samples);
		if (with_baseline) {
			add_double(e, "share", share(x->samples, oc->samples));
			add_double(e, "baseline_share", x->baseline_share);
			add_bool(e, "new", x->is_new);
		}
		json_object_array_add(a, e);
	}
	return a;
}

struct json_object *sample_json__stacks(const struct pl_sample *s)
{
	const struct pl_oncpu *oc = s->oncpu;
	struct json_object *o, *top, *fns;

	if (!oc)
		return NULL;
	o = json_object_new_object();
	add_u64(o, "samples", oc->samples);
	add_u64(o, "rate_hz", oc->rate_hz);
	add_u64(o, "unattributed", oc->unattributed);
	top = json_object_new_array();
	for (uint32_t i = 0; i < oc->nstacks; i++) {
		const struct pl_stack *st = &oc->stacks[i];
		struct json_object *e = json_object_new_object(), *fr = json_object_new_array();

		add_u64(e, "samples", st->samples);
		for (uint32_t k = 0; k < st->nuser; k++)
			json_object_array_add(fr, frame(&st->user[k]));
		for (uint32_t k = 0; k < st->nkern; k++)
			json_object_array_add(fr, frame(&st->kern[k]));
		add(e, "frames", fr);
		json_object_array_add(top, e);
	}
	add(o, "top", top);
	add(o, "objects", objects(oc, true));
	fns = json_object_new_array();
	for (uint32_t i = 0; i < oc->nfns; i++) {
		const struct pl_oncpu_fn *x = &oc->fns[i];
		struct json_object *e = json_object_new_object();

		add_str(e, "object", x->object);
		add_str(e, "function", x->function);
		if (!x->function)
			add_u64(e, "offset", x->offset);
		add_u64(e, "samples", x->samples);
		add_double(e, "share", share(x->samples, oc->samples));
		json_object_array_add(fns, e);
	}
	add(o, "functions", fns);
	return o;
}

/* A process record's on-CPU summary: samples by object (what replay learns from). */
static struct json_object *oncpu_summary(const struct pl_sample *s)
{
	struct json_object *o;

	if (!s->oncpu)
		return NULL;
	o = json_object_new_object();
	add_u64(o, "samples", s->oncpu->samples);
	add_u64(o, "unattributed", s->oncpu->unattributed);
	add_u64(o, "rate_hz", s->oncpu->rate_hz);
	add(o, "objects", objects(s->oncpu, false));
	return o;
}

struct json_object *sample_json__baseline(const struct pl_sample *s)
{
	const struct pl_verdict *v = &s->bl;
	struct json_object *o, *q;

	if (!v->key)
		return NULL;
	o = json_object_new_object();
	add_str(o, "key", v->key);
	add_bool(o, "ready", v->ready);
	if (v->scored)
		add_bool(o, "from_prior", v->from_prior);
	add_u64(o, "samples", v->samples);
	if (v->scored) {
		struct json_object *f = json_object_new_object();

		add_bool(o, "learned", v->learned);
		add_bool(o, "anomalous", v->anomalous);
		add_double(o, "max_score", v->max_dist >= 0 ? v->max_score : NAN);
		add(o, "max_feature", v->max_dist >= 0 ? json_object_new_string(pl_dist__feature(v->max_dist)) : NULL);
		for (int d = 0; d < PL_DIST_MAX; d++) {
			const struct pl_score *x = &v->f[d];
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
			add(f, pl_dist__feature(d), e);
		}
		add(o, "features", f);
		add(o, "new_fail_paths", strings(v->new_fail_paths, v->nnew_fail_paths));
		add(o, "new_syscalls", strings(v->new_syscalls, v->nnew_syscalls));
		if (s->moment == PL_AT_EXIT) {
			add_bool(o, "oncpu_ready", v->oncpu_ready);
			add(o, "new_oncpu_objects", strings(v->new_oncpu_objects, v->nnew_oncpu_objects));
			add_u64(o, "new_oncpu_samples", v->new_oncpu_samples);
		}
	}
	add_bool(o, "windows_ready", v->windows_ready);
	add_bool(o, "parent_ready", v->parent_ready);
	add_bool(o, "parent_new_child", v->parent_new_child);
	q = json_object_new_object();
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++) {
		struct json_object *e;

		if (!isfinite(v->q[quantiles[i].d][0]))
			continue;
		e = json_object_new_object();
		for (int k = 0; k < 3; k++)
			add_double(e, qnames[k], v->q[quantiles[i].d][k] / quantiles[i].div);
		add(q, quantiles[i].name, e);
	}
	add(o, "quantiles", q);
	return o;
}

static struct json_object *binary(const struct pl_sample *s)
{
	struct json_object *o;

	if (!s->bin.present)
		return NULL;
	o = json_object_new_object();
	add_u64(o, "procs", s->bin.procs);
	add_double(o, "open_failures_per_s", s->bin.open_failures_per_s);
	add_str(o, "top_fail_path", s->bin.top_fail_path);
	add_double(o, "top_fail_share", s->bin.top_fail_share);
	add_str(o, "storm_path", s->bin.storm_path);
	add_str(o, "storm_paths", s->bin.storm_paths);
	add_u64(o, "storm_procs", s->bin.storm_procs);
	add_double(o, "storm_failures_per_s", s->bin.storm_path ? s->bin.storm_failures_per_s : 0);
	return o;
}

/* Who the image is among the processes: what rules call its context. */
static void add_context(struct json_object *o, const struct pl_sample *s)
{
	add_str(o, "binary_id", s->binary_id);
	add_str(o, "parent_exe", s->parent_exe);
	add(o, "ancestors", sample_json__ancestors(s));
	if (s->moment != PL_AT_EXEC)
		add(o, "binary", binary(s));
}

/* A window's image so far: what its rules read as proc.* */
static struct json_object *total(const struct pl_sample *s)
{
	static const char *const keep[] = { "cpu_ns", "offcpu_ns", "runq_ns", "blocked_ns", "syscalls",
					    "open_failures", "ctx_switches", "syscalls_by_name" };
	const struct pl_fail *top = pl_sample__top_fail(s);
	struct json_object *full = json_object_new_object(), *o = json_object_new_object(), *v;

	add_span(full, &s->life);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (json_object_object_get_ex(full, keep[i], &v))
			add(o, keep[i], json_object_get(v));
	json_object_put(full);
	add_u64(o, "threads", s->threads);
	add_u64(o, "fail_paths", s->fail_paths);
	add_str(o, "top_fail_path", top ? top->path : NULL);
	add(o, "top_fail_count", top ? json_object_new_uint64(top->count) : NULL);
	/* the rest of the entry: a window's alerts carry it as their failed path */
	add(o, "top_fail_errno", top ? json_object_new_int(top->err) : NULL);
	add(o, "top_fail_truncated", top ? json_object_new_boolean(top->truncated) : NULL);
	return o;
}

struct json_object *sample_json__record(const struct pl_sample *s)
{
	struct json_object *o = json_object_new_object();
	uint64_t listed = 0;

	if (!o)
		return NULL;
	switch (s->moment) {
	case PL_AT_EXEC:
		add(o, "type", json_object_new_string("exec"));
		add_identity(o, s);
		add_u64(o, "time_ns", s->time_ns);
		break;
	case PL_AT_WINDOW:
		add(o, "type", json_object_new_string("window"));
		add_identity(o, s);
		add_u64(o, "window_start_ns", s->win_start_ns);
		add_u64(o, "window_end_ns", s->win_end_ns);
		add_span(o, &s->win);
		break;
	default:
		add(o, "type", json_object_new_string("process"));
		add_identity(o, s);
		add_u64(o, "end_ns", s->end_ns);
		add_u64(o, "duration_ns", pl_sample__wall_ns(s));
		add_str(o, "end_reason", s->end_reason);
		add(o, "exit_code", s->has_exit_code ? json_object_new_int(s->exit_code) : NULL);
		add(o, "exit_signal", s->has_exit_signal ? json_object_new_int(s->exit_signal) : NULL);
		add_span(o, &s->life);
		add(o, "open_fail_paths", sample_json__fail_paths(s));
		for (uint32_t i = 0; i < s->nfails; i++)
			listed += s->fails[i].count;
		/* whatever the reason (the table full, paths displaced, a lost
		 * record), the paths listed don't account for every failure */
		add_bool(o, "open_fail_paths_incomplete", listed != s->life.open_fail);
		add(o, "oncpu", oncpu_summary(s));
		break;
	}
	add_context(o, s);
	if (s->moment == PL_AT_WINDOW) {
		add(o, "total", total(s));
		add(o, "busy_s", json_object_new_double(s->busy_s));
	}
	add(o, "baseline", sample_json__baseline(s));
	/* only on the windows of a process whose wait was read */
	if (s->wait)
		add(o, "wait", sample_json__wait(s));
	return o;
}

/* ---- waiting ---- */

struct json_object *sample_json__wait(const struct pl_sample *s)
{
	const struct pl_wait *w = s->wait;
	struct json_object *o, *threads;

	if (!w || !(o = json_object_new_object()))
		return NULL;
	add(o, "state", json_object_new_string(pl_wait__state_name(w->state)));
	add(o, "waiting_s", json_object_new_double(w->waiting_s));
	add_str(o, "wchan", w->nt && w->t[0].wchan[0] ? w->t[0].wchan : NULL);
	add_u64(o, "threads", w->threads);
	add_u64(o, "runq_threads", w->runq);
	add_u64(o, "blocked_threads", w->blocked);
	add_u64(o, "stopped_threads", w->stopped);
	threads = json_object_new_array();
	for (uint32_t i = 0; threads && i < w->nt; i++) {
		const struct pl_wait_thread *t = &w->t[i];
		struct json_object *to = json_object_new_object(), *st = NULL;

		if (!to)
			break;
		add_u64(to, "tid", t->tid);
		add(to, "state", json_object_new_string(pl_wait__state_name(t->state)));
		add_str(to, "wchan", t->wchan[0] ? t->wchan : NULL);
		if (t->stack_read) {
			st = json_object_new_array();
			/* escaped like every string read from /proc: a symbol name is
			 * the kernel's, but only text_escape() makes it valid UTF-8 */
			for (uint32_t k = 0; st && k < t->nframes; k++)
				json_object_array_add(st, sample_json__str(t->frames[k]));
		}
		add(to, "kernel_stack", st);
		json_object_array_add(threads, to);
	}
	add(o, "waiting_threads", threads);
	return o;
}

/* ---- parsing ---- */

struct sample_buf {
	unsigned long long life_sc[PL_SAMPLE_NR_SYSCALLS], win_sc[PL_SAMPLE_NR_SYSCALLS];
	unsigned long long life_errno[PL_SAMPLE_NR_ERRNO], win_errno[PL_SAMPLE_NR_ERRNO];
	struct pl_fail *fails;
	uint32_t fails_cap;
	struct pl_oncpu oncpu;
	struct pl_oncpu_obj *objs;
	uint32_t objs_cap;
	char **strs; /* unescaped strings of the current sample */
	size_t nstrs, strs_cap;
	bool oom;
	struct pl_wait wait;
};

int sample_buf__new(struct sample_buf **ret)
{
	struct sample_buf *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	*ret = b;
	return 0;
}

static void forget_strings(struct sample_buf *b)
{
	for (size_t i = 0; i < b->nstrs; i++)
		free(b->strs[i]);
	b->nstrs = 0;
}

void sample_buf__free(struct sample_buf *b)
{
	if (!b)
		return;
	forget_strings(b);
	free(b->strs);
	free(b->fails);
	free(b->objs);
	free(b);
}

static struct json_object *at(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool is_int(struct json_object *v)
{
	return v && json_object_is_type(v, json_type_int);
}

static bool is_num(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

static uint64_t u64(struct json_object *o, const char *key)
{
	struct json_object *v = at(o, key);

	return is_int(v) ? json_object_get_uint64(v) : 0;
}

/* A 32-bit field: a number it can't hold is unknown (0), not wrapped into another one. */
static uint32_t u32(struct json_object *o, const char *key)
{
	uint64_t v = u64(o, key);

	return v <= UINT32_MAX ? (uint32_t)v : 0;
}

static int32_t errno_of(struct json_object *o, const char *key)
{
	uint64_t v = u64(o, key);

	return v <= INT32_MAX ? (int32_t)v : 0;
}

static double dbl(struct json_object *o, const char *key)
{
	struct json_object *v = at(o, key);

	return is_num(v) ? json_object_get_double(v) : NAN;
}

static bool boolean(struct json_object *o, const char *key)
{
	struct json_object *v = at(o, key);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* The raw bytes of a string value, kept in b; NULL when not a string. */
static const char *raw_of(struct sample_buf *b, struct json_object *v)
{
	char *raw;

	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	if (b->nstrs == b->strs_cap) {
		size_t cap = b->strs_cap ? b->strs_cap * 2 : 64;
		char **n = realloc(b->strs, cap * sizeof(*n));

		if (!n) {
			b->oom = true;
			return NULL;
		}
		b->strs = n;
		b->strs_cap = cap;
	}
	raw = text_unescape(json_object_get_string(v), (size_t)json_object_get_string_len(v), NULL);
	if (!raw) {
		b->oom = true;
		return NULL;
	}
	b->strs[b->nstrs++] = raw;
	return raw;
}

static const char *str(struct sample_buf *b, struct json_object *o, const char *key)
{
	return raw_of(b, at(o, key));
}

/* "syscalls_by_name" back to counts by number (unknown names: sys_N, or
 * counted nowhere). */
static const unsigned long long *syscalls_of(struct json_object *by_name, unsigned long long *sc)
{
	if (!by_name || !json_object_is_type(by_name, json_type_object))
		return NULL;
	memset(sc, 0, PL_SAMPLE_NR_SYSCALLS * sizeof(*sc));
	json_object_object_foreach(by_name, name, v)
	{
		int nr = syscall_number(name);

		if (nr < 0 && strncmp(name, "sys_", 4) == 0) { /* a number the build's headers had no name for */
			char *end;
			long n = strtol(name + 4, &end, 10);

			nr = end != name + 4 && !*end && n >= 0 && n < PL_SAMPLE_NR_SYSCALLS ? (int)n : -1;
		}
		if (nr >= 0 && nr < PL_SAMPLE_NR_SYSCALLS && is_int(v))
			sc[nr] = json_object_get_uint64(v);
	}
	return sc;
}

static const unsigned long long *errnos_of(struct json_object *by_errno, unsigned long long *e)
{
	if (!by_errno || !json_object_is_type(by_errno, json_type_object))
		return NULL;
	memset(e, 0, PL_SAMPLE_NR_ERRNO * sizeof(*e));
	for (int i = 1; i < PL_SAMPLE_NR_ERRNO; i++) {
		const char *name = i < PL_SAMPLE_NR_ERRNO - 1 ? errno_name(i) : "other";
		char fallback[16];

		if (!name) { /* as by_errno() writes it */
			snprintf(fallback, sizeof(fallback), "E%d", i);
			name = fallback;
		}
		e[i] = u64(by_errno, name);
	}
	return e;
}

static void parse_span(struct json_object *o, struct pl_span *sp, unsigned long long *sc, unsigned long long *errnos)
{
	sp->cpu_ns = u64(o, "cpu_ns");
	sp->offcpu_ns = u64(o, "offcpu_ns");
	sp->runq_ns = u64(o, "runq_ns");
	sp->ctx_switches = u64(o, "ctx_switches");
	sp->syscalls = u64(o, "syscalls");
	sp->sc_other = u64(o, "syscalls_other");
	sp->open_fail = u64(o, "open_failures");
	sp->open_fail_unrecorded = u64(o, "open_fail_unrecorded");
	sp->sc = syscalls_of(at(o, "syscalls_by_name"), sc);
	sp->fail_errno = errnos_of(at(o, "open_fail_by_errno"), errnos);
}

static void parse_fails(struct sample_buf *b, struct json_object *arr, struct pl_sample *s)
{
	size_t n;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return;
	n = json_object_array_length(arr);
	if (n > b->fails_cap) {
		struct pl_fail *f = realloc(b->fails, n * sizeof(*f));

		if (!f) {
			b->oom = true;
			return;
		}
		b->fails = f;
		b->fails_cap = (uint32_t)n;
	}
	s->fails = b->fails;
	s->nfails = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		b->fails[s->nfails++] = (struct pl_fail){
			.path = str(b, e, "path"),
			.err = errno_of(e, "errno"),
			.count = u64(e, "count"),
			.truncated = boolean(e, "truncated"),
		};
	}
}

/* A window's image so far: how many paths failed, and the top one. */
static void parse_top_fail(struct sample_buf *b, struct json_object *tot, struct pl_sample *s)
{
	const char *path = str(b, tot, "top_fail_path");

	s->fail_paths = u32(tot, "fail_paths");
	if (!path)
		return;
	if (!b->fails_cap) {
		struct pl_fail *f = realloc(b->fails, sizeof(*f));

		if (!f) {
			b->oom = true;
			return;
		}
		b->fails = f;
		b->fails_cap = 1;
	}
	b->fails[0] = (struct pl_fail){
		.path = path,
		.count = u64(tot, "top_fail_count"),
		.err = errno_of(tot, "top_fail_errno"),
		.truncated = boolean(tot, "top_fail_truncated"),
	};
	s->fails = b->fails;
	s->nfails = 1;
}

static void parse_identity(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	const char *image = json_object_get_string(at(o, "image"));
	unsigned maj = 0, min = 0;
	struct json_object *anc = at(o, "ancestors");

	s->pid = u32(o, "pid");
	s->ppid = u32(o, "ppid");
	s->uid = u32(o, "uid");
	s->comm = str(b, o, "comm");
	s->exec_comm = str(b, o, "exec_comm");
	s->exe = str(b, o, "exe");
	if (at(o, "exe_dev") && sscanf(json_object_get_string(at(o, "exe_dev")), "%u:%u", &maj, &min) == 2)
		s->exe_dev = maj << 20 | (min & 0xfffff);
	s->exe_ino = u64(o, "exe_ino");
	s->build_id = str(b, o, "build_id");
	s->filename = str(b, o, "filename");
	s->filename_truncated = boolean(o, "filename_truncated");
	s->cmdline = str(b, o, "cmdline");
	s->cgroup_id = u64(o, "cgroup_id");
	s->cgroup = str(b, o, "cgroup");
	s->image = image && strcmp(image, "fork") == 0	      ? PL_IMAGE_FORK
		   : image && strcmp(image, "preexisting") == 0 ? PL_IMAGE_PREEXISTING
								  : PL_IMAGE_EXEC;
	s->partial = boolean(o, "partial");
	s->exe_mtime_ns = u64(o, "exe_mtime_ns");
	{
		/* one of the static names, never the record's bytes */
		struct json_object *kj = at(o, "exe_kind");
		const char *k = kj && json_object_is_type(kj, json_type_string) ? json_object_get_string(kj) : NULL;

		s->exe_kind = !k ? NULL : strcmp(k, "memfd") == 0 ? "memfd" : strcmp(k, "deleted") == 0 ? "deleted"
					 : strcmp(k, "file") == 0 ? "file" : NULL;
	}
	s->start_ns = u64(o, "start_ns");
	s->image_start_ns = u64(o, "image_start_ns");
	s->threads = u32(o, "threads");
	s->script = str(b, o, "script");
	s->binary_id = str(b, o, "binary_id");
	s->parent_exe = str(b, o, "parent_exe");
	if (anc && json_object_is_type(anc, json_type_array))
		for (size_t i = 0; i < json_object_array_length(anc) && s->nancestors < PL_SAMPLE_ANCESTORS; i++)
			s->ancestors[s->nancestors++] = raw_of(b, json_object_array_get_idx(anc, i));
}

static void parse_binary(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	s->bin.present = true;
	s->bin.procs = u32(o, "procs");
	s->bin.open_failures_per_s = dbl(o, "open_failures_per_s");
	s->bin.top_fail_path = str(b, o, "top_fail_path");
	s->bin.top_fail_share = dbl(o, "top_fail_share");
	s->bin.storm_path = str(b, o, "storm_path");
	s->bin.storm_paths = str(b, o, "storm_paths");
	s->bin.storm_procs = u32(o, "storm_procs");
	s->bin.storm_failures_per_s = dbl(o, "storm_failures_per_s");
}

static int dist_of_feature(const char *name)
{
	for (int d = 0; name && d < PL_DIST_MAX; d++)
		if (strcmp(pl_dist__feature(d), name) == 0)
			return d;
	return -1;
}

static uint32_t parse_strings(struct sample_buf *b, struct json_object *arr, const char **out)
{
	uint32_t n = 0;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(arr) && n < PL_SAMPLE_NEW_MAX; i++)
		out[n++] = raw_of(b, json_object_array_get_idx(arr, i));
	return n;
}

static void parse_baseline(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	struct pl_verdict *v = &s->bl;
	struct json_object *q = at(o, "quantiles"), *f = at(o, "features");

	if (!o || !json_object_is_type(o, json_type_object) || !(v->key = str(b, o, "key")))
		return;
	v->ready = boolean(o, "ready");
	v->windows_ready = boolean(o, "windows_ready");
	v->samples = u64(o, "samples");
	v->parent_ready = boolean(o, "parent_ready");
	v->parent_new_child = boolean(o, "parent_new_child");
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		for (int k = 0; k < 3; k++)
			v->q[quantiles[i].d][k] = dbl(at(q, quantiles[i].name), qnames[k]) * quantiles[i].div;
	if (s->moment == PL_AT_EXEC || !at(o, "anomalous"))
		return;
	v->scored = true;
	v->from_prior = boolean(o, "from_prior");
	v->learned = boolean(o, "learned");
	v->anomalous = boolean(o, "anomalous");
	v->max_dist = dist_of_feature(json_object_get_string(at(o, "max_feature")));
	v->max_score = v->max_dist >= 0 ? dbl(o, "max_score") : NAN;
	if (f && json_object_is_type(f, json_type_object)) {
		json_object_object_foreach(f, name, e)
		{
			int d = dist_of_feature(name);

			if (d < 0 || !json_object_is_type(e, json_type_object))
				continue;
			v->f[d] = (struct pl_score){
				.valid = true,
				.value = dbl(e, "value"),
				.p50 = dbl(e, "p50"),
				.p99 = dbl(e, "p99"),
				.ratio_p50 = dbl(e, "ratio_p50"),
				.ratio_p99 = dbl(e, "ratio_p99"),
				.score = dbl(e, "score"),
			};
		}
	}
	v->nnew_fail_paths = parse_strings(b, at(o, "new_fail_paths"), v->new_fail_paths);
	v->nnew_syscalls = parse_strings(b, at(o, "new_syscalls"), v->new_syscalls);
	v->oncpu_ready = boolean(o, "oncpu_ready");
	v->nnew_oncpu_objects = parse_strings(b, at(o, "new_oncpu_objects"), v->new_oncpu_objects);
	v->new_oncpu_samples = u64(o, "new_oncpu_samples");
}

/* A process record's on-CPU summary (objects only: stacks are evidence, not input). */
static void parse_oncpu(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	struct json_object *arr = at(o, "objects");
	size_t n;

	if (!o || !json_object_is_type(o, json_type_object))
		return;
	n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
	if (n > b->objs_cap) {
		struct pl_oncpu_obj *x = realloc(b->objs, n * sizeof(*x));

		if (!x) {
			b->oom = true;
			return;
		}
		b->objs = x;
		b->objs_cap = (uint32_t)n;
	}
	b->oncpu = (struct pl_oncpu){
		.samples = u64(o, "samples"),
		.unattributed = u64(o, "unattributed"),
		.rate_hz = u32(o, "rate_hz"),
		.objs = b->objs,
	};
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *obj = str(b, e, "object");

		if (!obj)
			continue;
		b->objs[b->oncpu.nobjs++] = (struct pl_oncpu_obj){
			.object = obj,
			.build_id = str(b, e, "build_id"),
			.samples = u64(e, "samples"),
			.baseline_share = NAN,
		};
	}
	s->oncpu = &b->oncpu;
}

/* a name of the state, back to its letter */
static char state_letter(const char *name)
{
	static const char letters[] = "RSDTtZIX";

	for (const char *l = letters; name && *l; l++)
		if (strcmp(pl_wait__state_name(*l), name) == 0)
			return *l;
	return '?';
}

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, PL_WAIT_NAME, "%s", src ? src : "");
}

static void parse_wait(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	struct json_object *arr = at(o, "waiting_threads");
	struct pl_wait *w = &b->wait;
	size_t n;

	if (!o || !json_object_is_type(o, json_type_object))
		return;
	memset(w, 0, sizeof(*w));
	w->state = state_letter(str(b, o, "state"));
	w->waiting_s = is_num(at(o, "waiting_s")) ? dbl(o, "waiting_s") : 0;
	w->threads = u32(o, "threads");
	w->runq = u32(o, "runq_threads");
	w->blocked = u32(o, "blocked_threads");
	w->stopped = u32(o, "stopped_threads");
	n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
	for (size_t i = 0; i < n && w->nt < PL_WAIT_THREADS; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i), *st = at(e, "kernel_stack");
		struct pl_wait_thread *t = &w->t[w->nt++];
		size_t nf = st && json_object_is_type(st, json_type_array) ? json_object_array_length(st) : 0;

		t->tid = u32(e, "tid");
		t->state = state_letter(str(b, e, "state"));
		copy_name(t->wchan, str(b, e, "wchan"));
		t->stack_read = st && json_object_is_type(st, json_type_array);
		for (size_t k = 0; k < nf && t->nframes < PL_WAIT_FRAMES; k++)
			copy_name(t->frames[t->nframes++], raw_of(b, json_object_array_get_idx(st, k)));
	}
	s->wait = w;
}

int sample_json__parse(struct json_object *rec, struct sample_buf *b, struct pl_sample *ret)
{
	const char *type = json_object_get_string(at(rec, "type"));
	struct json_object *code, *sig, *tot;
	enum pl_moment m;

	if (!type || !at(rec, "type") || !json_object_is_type(at(rec, "type"), json_type_string))
		return -EINVAL;
	if (strcmp(type, "exec") == 0)
		m = PL_AT_EXEC;
	else if (strcmp(type, "window") == 0)
		m = PL_AT_WINDOW;
	else if (strcmp(type, "process") == 0)
		m = PL_AT_EXIT;
	else
		return -EINVAL;
	forget_strings(b);
	b->oom = false;
	pl_sample__init(ret, m);
	parse_identity(b, rec, ret);
	switch (m) {
	case PL_AT_EXEC:
		ret->time_ns = u64(rec, "time_ns");
		break;
	case PL_AT_WINDOW:
		ret->win_start_ns = u64(rec, "window_start_ns");
		ret->win_end_ns = ret->time_ns = u64(rec, "window_end_ns");
		parse_span(rec, &ret->win, b->win_sc, b->win_errno);
		tot = at(rec, "total");
		parse_span(tot, &ret->life, b->life_sc, b->life_errno);
		parse_top_fail(b, tot, ret);
		ret->busy_s = is_num(at(rec, "busy_s")) ? json_object_get_double(at(rec, "busy_s")) : 0;
		parse_wait(b, at(rec, "wait"), ret);
		break;
	default:
		ret->end_ns = ret->time_ns = u64(rec, "end_ns");
		ret->end_reason = str(b, rec, "end_reason");
		code = at(rec, "exit_code");
		sig = at(rec, "exit_signal");
		ret->has_exit_code = is_int(code);
		ret->exit_code = ret->has_exit_code ? json_object_get_int(code) : 0;
		ret->has_exit_signal = is_int(sig);
		ret->exit_signal = ret->has_exit_signal ? json_object_get_int(sig) : 0;
		parse_span(rec, &ret->life, b->life_sc, b->life_errno);
		parse_fails(b, at(rec, "open_fail_paths"), ret);
		ret->fail_paths = ret->nfails;
		parse_oncpu(b, at(rec, "oncpu"), ret);
		break;
	}
	parse_binary(b, at(rec, "binary"), ret);
	parse_baseline(b, at(rec, "baseline"), ret);
	return b->oom ? -ENOMEM : 0;
}
