// SPDX-License-Identifier: MIT
/*
 * sample_json.c - samples to records (docs/records.md); sample_parse.c
 * reads them back.
 *
 * The writer is the only place a sample becomes JSON; the parser the only
 * place a record becomes a sample. Both walk the same tables (spans,
 * verdict features, quantiles), so a field added to one is added to the
 * other. Counts are integers; rates and scores doubles; times REALTIME ns.
 */
#include "sample_json.h"
#include "sample_json_int.h"

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
	add_u64(o, "connects", sp->net_connects);
	add_u64(o, "connect_failures", sp->net_connect_fail);
	add_u64(o, "connect_new_dests", sp->net_dests);
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
	add(o, "exe_trusted", s->exe_trusted_known ? json_object_new_boolean(s->exe_trusted) : NULL);
	add_u64(o, "exe_mtime_ns", s->exe_mtime_ns);
	add_str(o, "exe_memfd_copy_of", s->exe_memfd_copy_of);
	add_bool(o, "stdin_pipe", s->stdin_pipe);
	add_str(o, "stdin_writer", s->stdin_writer);
	add(o, "exe_net_written", s->exe_net_written_known ? json_object_new_boolean(s->exe_net_written) : NULL);
	add_bool(o, "connected", s->connected);
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

const struct sample_quantile sample_quantiles[SAMPLE_QUANTILES] = {
	{ "cpu_ms", PL_LIFE_CPU, 1e6 },
	{ "wall_ms", PL_LIFE_WALL, 1e6 },
	{ "offcpu_ms", PL_LIFE_OFFCPU, 1e6 },
	{ "syscalls", PL_LIFE_SYSCALLS, 1 },
	{ "open_failures", PL_LIFE_OPEN_FAIL, 1 },
	{ "win_cpu_ms", PL_WIN_CPU, 1e6 },
	{ "win_syscalls", PL_WIN_SYSCALLS, 1 },
	{ "win_open_failures", PL_WIN_OPEN_FAIL, 1 },
};
const char *const sample_qnames[3] = { "p50", "p90", "p99" };

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
	add_str(o, "interp", f->interp);
	if (f->is_new)
		add_bool(o, "new", true);
	return o;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

/* Why the unattributed samples have no stack: the kernel's sample ring was
 * full, or the stack was new and the stack tables full. Their sum may be less
 * than unattributed (samples of an image whose keys were never announced). */
static struct json_object *unattributed_by(const struct pl_oncpu *oc)
{
	struct json_object *o = json_object_new_object();

	add_u64(o, "sample_ring_full", oc->unatt_ring);
	add_u64(o, "stack_table_full", oc->unatt_table);
	return o;
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
	add(o, "unattributed_by", unattributed_by(oc));
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
		add_str(e, "interp", x->interp);
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
	add(o, "unattributed_by", unattributed_by(s->oncpu));
	add_u64(o, "rate_hz", s->oncpu->rate_hz);
	add(o, "objects", objects(s->oncpu, false));
	return o;
}

/* The quantiles of q that are ready, by their rule names ("cpu_ms": {"p50", "p90", "p99"}). */
static struct json_object *quantiles(const double q[PL_DIST_MAX][3])
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < SAMPLE_QUANTILES; i++) {
		struct json_object *e;

		if (!isfinite(q[sample_quantiles[i].d][0]))
			continue;
		e = json_object_new_object();
		for (int k = 0; k < 3; k++)
			add_double(e, sample_qnames[k], q[sample_quantiles[i].d][k] / sample_quantiles[i].div);
		add(o, sample_quantiles[i].name, e);
	}
	return o;
}

/* The features scored, by name: value, p50, p99, ratios and score each. */
static struct json_object *features(const struct pl_score f[PL_DIST_MAX])
{
	struct json_object *o = json_object_new_object();

	for (int d = 0; o && d < PL_DIST_MAX; d++) {
		const struct pl_score *x = &f[d];
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
		add(o, pl_dist__feature(d), e);
	}
	return o;
}

/* The fleet's view of the key (records.md, baseline.fleet), NULL when the loaded bundle lacks it. */
static struct json_object *fleet_view(const struct pl_sample *s)
{
	const struct pl_fleet_verdict *f = &s->bl.fleet;
	struct json_object *o;

	if (!f->present)
		return NULL;
	o = json_object_new_object();
	add_str(o, "role", f->role);
	add_u64(o, "hosts", f->hosts);
	add_bool(o, "ready", f->ready);
	add_bool(o, "windows_ready", f->windows_ready);
	add_u64(o, "samples", f->samples);
	add(o, "quantiles", quantiles(f->q));
	if (f->scored)
		add(o, "features", features(f->f));
	return o;
}

struct json_object *sample_json__baseline(const struct pl_sample *s)
{
	const struct pl_verdict *v = &s->bl;
	struct json_object *o;

	if (!v->key)
		return NULL;
	o = json_object_new_object();
	add_str(o, "key", v->key);
	add_bool(o, "ready", v->ready);
	add_str(o, "source", pl_bl_source__name(v->source));
	if (v->scored)
		add_bool(o, "from_prior", v->from_prior);
	add_u64(o, "samples", v->samples);
	if (v->scored) {
		add_bool(o, "learned", v->learned);
		add_bool(o, "anomalous", v->anomalous);
		add_double(o, "max_score", v->max_dist >= 0 ? v->max_score : NAN);
		add(o, "max_feature", v->max_dist >= 0 ? json_object_new_string(pl_dist__feature(v->max_dist)) : NULL);
		add(o, "features", features(v->f));
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
	if (s->moment == PL_AT_FILE) {
		add_bool(o, "files_ready", v->files_ready);
		add_bool(o, "file_new", v->file_new);
	}
	add_bool(o, "peers_ready", v->peers_ready);
	add_bool(o, "peers_never", v->peers_never);
	if (s->moment == PL_AT_CONNECT)
		add_bool(o, "peer_new", v->peer_new);
	add(o, "quantiles", quantiles(v->q));
	add(o, "fleet", fleet_view(s));
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
	add_bool(o, "storm_new_binary", s->bin.storm_path && s->bin.storm_new_binary);
	return o;
}

/* Who the image is among the processes: what rules call its context. */
static void add_context(struct json_object *o, const struct pl_sample *s)
{
	add_str(o, "binary_id", s->binary_id);
	add_str(o, "parent_exe", s->parent_exe);
	add(o, "ancestors", sample_json__ancestors(s));
	if (s->moment != PL_AT_EXEC && s->moment != PL_AT_MAP)
		add(o, "binary", binary(s));
}

/* A window's image so far: what its rules read as proc.* */
static struct json_object *total(const struct pl_sample *s)
{
	static const char *const keep[] = { "cpu_ns", "offcpu_ns", "runq_ns", "blocked_ns", "syscalls",
					    "open_failures", "ctx_switches", "syscalls_by_name", "connects",
					    "connect_failures", "connect_new_dests" };
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

/* The last whole windows (common/cpuwin.h), null before the first. */
static struct json_object *recent(const struct pl_sample *s)
{
	struct json_object *o;

	if (!(s->recent_s > 0))
		return NULL;
	o = json_object_new_object();
	add(o, "span_s", json_object_new_double(s->recent_s));
	add_u64(o, "busy_ns", s->recent_busy_ns);
	add_u64(o, "cpu_ns", s->recent_cpu_ns);
	add_u64(o, "clones", s->clones);
	add_u64(o, "clone_cpu_ns", s->clone_ns);
	return o;
}

static struct json_object *tristate(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v);
}

struct json_object *sample_json__map(const struct pl_sample *s)
{
	const struct pl_map_ev *m = s->map;
	struct json_object *o;

	if (s->moment != PL_AT_MAP || !m || !(o = json_object_new_object()))
		return NULL;
	add_str(o, "path", m->path);
	add_bool(o, "path_cut", m->path_cut);
	add_str(o, "build_id", m->build_id);
	add_str(o, "binary_id", m->binary_id);
	add(o, "trusted", tristate(m->trusted));
	add(o, "packaged", tristate(m->packaged));
	add_str(o, "package", m->package);
	add_str(o, "location", m->location);
	add_u64(o, "owner_uid", m->owner_uid);
	add_u64(o, "mode", m->mode);
	add_bool(o, "deleted", m->deleted);
	add_str(o, "how", m->how);
	add_bool(o, "preload", m->preload);
	add(o, "objects_ready", m->objects_known ? json_object_new_boolean(m->objects_ready) : NULL);
	add(o, "object_new", m->objects_known ? json_object_new_boolean(m->object_new) : NULL);
	return o;
}
/* The watched file of a file moment (docs/records.md, "file"). */
struct json_object *sample_json__file(const struct pl_sample *s)
{
	const struct pl_file_ev *f = s->file;
	struct json_object *o;

	if (!f || !(o = json_object_new_object()))
		return NULL;
	add_str(o, "class", f->cls);
	add_str(o, "op", f->op);
	add_str(o, "path", f->path);
	add_str(o, "name", f->name);
	add_bool(o, "path_cut", f->path_cut);
	add_u64(o, "open_flags", f->open_flags);
	add(o, "target_pid", f->target_pid ? json_object_new_uint64(f->target_pid) : NULL);
	add_str(o, "target_exe", f->target_exe);
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
	case PL_AT_MAP:
		add(o, "type", json_object_new_string("map"));
		add_identity(o, s);
		add_u64(o, "time_ns", s->time_ns);
		add(o, "object", sample_json__map(s));
		break;
	case PL_AT_FILE:
		add(o, "type", json_object_new_string("file"));
		add_identity(o, s);
		add_u64(o, "time_ns", s->time_ns);
		add(o, "file", sample_json__file(s));
		break;
	case PL_AT_CONNECT:
		add(o, "type", json_object_new_string("connect"));
		add_identity(o, s);
		add_u64(o, "time_ns", s->time_ns);
		if (s->net) {
			struct json_object *n = json_object_new_object();

			add_str(n, "addr", s->net->addr);
			add_u64(n, "port", s->net->port);
			add_u64(n, "family", s->net->family);
			add_str(n, "class", s->net->cls);
			add_str(n, "peer", s->net->peer);
			add_str(n, "outcome", s->net->outcome);
			add_u64(n, "attempt_ns", s->net->attempt_ns);
			add(o, "net", n);
		}
		break;
	default:
		add(o, "type", json_object_new_string("process"));
		add_identity(o, s);
		add_u64(o, "end_ns", s->end_ns);
		add_u64(o, "duration_ns", pl_sample__wall_ns(s));
		add_str(o, "end_reason", s->end_reason);
		add(o, "exit_code", s->has_exit_code ? json_object_new_int(s->exit_code) : NULL);
		add(o, "exit_signal", s->has_exit_signal ? json_object_new_int(s->exit_signal) : NULL);
		if (s->auth.present) {
			struct json_object *a = json_object_new_object();

			add_bool(a, "failed", s->auth.failed);
			add_u64(a, "failures", s->auth.failures);
			add_double(a, "failures_per_min", s->auth.failures_per_min);
			add_u64(a, "successes", s->auth.successes);
			add(o, "auth", a);
		}
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
	if (s->moment == PL_AT_WINDOW || s->moment == PL_AT_CONNECT)
		add(o, "total", total(s));
	if (s->moment == PL_AT_WINDOW) {
		add(o, "busy_s", json_object_new_double(s->busy_s));
		add(o, "recent", recent(s));
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
		/* the task iterator's (it survives the privilege drop) or /proc's */
		add_str(to, "stack_source",
			!st ? NULL : t->stack_source == PL_WAIT_STACK_BPF ? "bpf" : "proc");
		json_object_array_add(threads, to);
	}
	add(o, "waiting_threads", threads);
	return o;
}
