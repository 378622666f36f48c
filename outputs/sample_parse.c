// SPDX-License-Identifier: MIT
/*
 * sample_parse.c - records back into samples (sample_json.h), for replay:
 * the only place a record becomes a sample, as sample_json.c is the only
 * place a sample becomes a record. Every field is type-checked, every
 * string unescaped once into the sample_buf that owns it; a field of the
 * wrong type reads as absent.
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
	struct pl_map_ev map;
	struct pl_file_ev file;
	struct pl_net_ev net;
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
	sp->net_connects = u64(o, "connects");
	sp->net_connect_fail = u64(o, "connect_failures");
	sp->net_dests = u64(o, "connect_new_dests");
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
	s->image = image && strcmp(image, "fork") == 0		? PL_IMAGE_FORK
		   : image && strcmp(image, "preexisting") == 0 ? PL_IMAGE_PREEXISTING
								: PL_IMAGE_EXEC;
	s->partial = boolean(o, "partial");
	s->exe_mtime_ns = u64(o, "exe_mtime_ns");
	s->exe_memfd_copy_of = str(b, o, "exe_memfd_copy_of");
	s->stdin_pipe = boolean(o, "stdin_pipe");
	s->stdin_writer = str(b, o, "stdin_writer");
	s->exe_trusted_known = json_object_is_type(at(o, "exe_trusted"), json_type_boolean);
	s->exe_trusted = s->exe_trusted_known && json_object_get_boolean(at(o, "exe_trusted"));
	s->exe_net_written_known = json_object_is_type(at(o, "exe_net_written"), json_type_boolean);
	s->exe_net_written = s->exe_net_written_known && json_object_get_boolean(at(o, "exe_net_written"));
	s->connected = boolean(o, "connected");
	{
		/* one of the static names, never the record's bytes */
		struct json_object *kj = at(o, "exe_kind");
		const char *k = kj && json_object_is_type(kj, json_type_string) ? json_object_get_string(kj) : NULL;

		s->exe_kind = !k			  ? NULL
			      : strcmp(k, "memfd") == 0	  ? "memfd"
			      : strcmp(k, "deleted") == 0 ? "deleted"
			      : strcmp(k, "file") == 0	  ? "file"
							  : NULL;
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
	s->bin.storm_new_binary = boolean(o, "storm_new_binary"); /* false in records before issue 18 */
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

/* A "features" object into f. */
static void parse_features(struct json_object *fo, struct pl_score f[PL_DIST_MAX])
{
	if (!fo || !json_object_is_type(fo, json_type_object))
		return;
	json_object_object_foreach(fo, name, e)
	{
		int d = dist_of_feature(name);

		if (d < 0 || !json_object_is_type(e, json_type_object))
			continue;
		f[d] = (struct pl_score){
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

/* A "quantiles" object into q (NaN where absent). */
static void parse_quantiles(struct json_object *q, double out[PL_DIST_MAX][3])
{
	for (size_t i = 0; i < SAMPLE_QUANTILES; i++)
		for (int k = 0; k < 3; k++)
			out[sample_quantiles[i].d][k] =
			    dbl(at(q, sample_quantiles[i].name), sample_qnames[k]) * sample_quantiles[i].div;
}

/* baseline.source and baseline.fleet (sample_json.c's fleet_view). */
static void parse_fleet(struct sample_buf *b, struct json_object *o, struct pl_verdict *v)
{
	const char *src = json_object_get_string(at(o, "source"));
	struct json_object *f = at(o, "fleet");

	v->source = src && !strcmp(src, "fleet")   ? PL_BL_SOURCE_FLEET
		    : src && !strcmp(src, "prior") ? PL_BL_SOURCE_PRIOR
						   : PL_BL_SOURCE_HOST;
	if (!f || !json_object_is_type(f, json_type_object))
		return;
	v->fleet.present = true;
	v->fleet.role = str(b, f, "role");
	v->fleet.hosts = u32(f, "hosts");
	v->fleet.ready = boolean(f, "ready");
	v->fleet.windows_ready = boolean(f, "windows_ready");
	v->fleet.samples = u64(f, "samples");
	parse_quantiles(at(f, "quantiles"), v->fleet.q);
	v->fleet.scored = at(f, "features") != NULL;
	parse_features(at(f, "features"), v->fleet.f);
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
	v->files_ready = boolean(o, "files_ready");
	v->file_new = boolean(o, "file_new");
	v->peers_ready = boolean(o, "peers_ready");
	v->peers_never = boolean(o, "peers_never");
	v->peer_new = boolean(o, "peer_new");
	parse_quantiles(q, v->q);
	parse_fleet(b, o, v);
	if (s->moment == PL_AT_EXEC || !at(o, "anomalous"))
		return;
	v->scored = true;
	v->from_prior = boolean(o, "from_prior");
	v->learned = boolean(o, "learned");
	v->anomalous = boolean(o, "anomalous");
	v->max_dist = dist_of_feature(json_object_get_string(at(o, "max_feature")));
	v->max_score = v->max_dist >= 0 ? dbl(o, "max_score") : NAN;
	parse_features(f, v->f);
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
	    .unatt_ring = u64(at(o, "unattributed_by"), "sample_ring_full"),
	    .unatt_table = u64(at(o, "unattributed_by"), "stack_table_full"),
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

/* A window's last whole windows; anything not a finite span > 0 is none. */
static void parse_recent(struct json_object *o, struct pl_sample *s)
{
	struct json_object *span = at(o, "span_s");
	double v = is_num(span) ? json_object_get_double(span) : 0;

	if (!(v > 0 && v < 1e9))
		return;
	s->recent_s = v;
	s->recent_busy_ns = u64(o, "busy_ns");
	s->recent_cpu_ns = u64(o, "cpu_ns");
	s->clones = u32(o, "clones");
	s->clone_ns = u64(o, "clone_cpu_ns");
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
		const char *src;
		struct pl_wait_thread *t = &w->t[w->nt++];
		size_t nf = st && json_object_is_type(st, json_type_array) ? json_object_array_length(st) : 0;

		t->tid = u32(e, "tid");
		t->state = state_letter(str(b, e, "state"));
		copy_name(t->wchan, str(b, e, "wchan"));
		t->stack_read = st && json_object_is_type(st, json_type_array);
		src = str(b, e, "stack_source");
		t->stack_source = !t->stack_read ? 0
				  : src && strcmp(src, "bpf") == 0 ? PL_WAIT_STACK_BPF : PL_WAIT_STACK_PROC;
		for (size_t k = 0; k < nf && t->nframes < PL_WAIT_FRAMES; k++)
			copy_name(t->frames[t->nframes++], raw_of(b, json_object_array_get_idx(st, k)));
	}
	s->wait = w;
}

/* raw (malloc'd, may be NULL) kept in b with the sample's strings. */
static const char *keep(struct sample_buf *b, char *raw)
{
	if (!raw || b->nstrs == b->strs_cap) {
		size_t cap = b->strs_cap ? b->strs_cap * 2 : 64;
		char **n = raw ? realloc(b->strs, cap * sizeof(*n)) : NULL;

		if (!n) {
			free(raw);
			b->oom = true;
			return NULL;
		}
		b->strs = n;
		b->strs_cap = cap;
	}
	b->strs[b->nstrs++] = raw;
	return raw;
}

static int tri(struct json_object *o, const char *key)
{
	struct json_object *v = at(o, key);

	return v && json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v) : -1;
}

/* A map record's "object" into b->map, and s->map to it. */
static void parse_map(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	struct pl_map_ev *m = &b->map;
	const char *sl;

	*m = (struct pl_map_ev){ 0 };
	s->map = m;
	if (!o)
		return;
	m->path = str(b, o, "path");
	sl = m->path ? strrchr(m->path, '/') : NULL;
	m->name = sl ? sl + 1 : m->path;
	if (sl) {
		char *dir = sl == m->path ? strdup("/") : strndup(m->path, (size_t)(sl - m->path));

		m->dir = keep(b, dir);
	}
	m->path_cut = boolean(o, "path_cut");
	m->build_id = str(b, o, "build_id");
	m->binary_id = str(b, o, "binary_id");
	m->trusted = tri(o, "trusted");
	m->packaged = tri(o, "packaged");
	m->package = str(b, o, "package");
	m->location = str(b, o, "location");
	m->owner_uid = u32(o, "owner_uid");
	m->mode = u32(o, "mode");
	m->deleted = boolean(o, "deleted");
	m->how = str(b, o, "how");
	m->preload = boolean(o, "preload");
	m->objects_known = tri(o, "objects_ready") >= 0;
	m->objects_ready = boolean(o, "objects_ready");
	m->object_new = boolean(o, "object_new");
}
static void parse_file(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	struct pl_file_ev *f = &b->file;

	if (!o || !json_object_is_type(o, json_type_object))
		return;
	*f = (struct pl_file_ev){
		.cls = str(b, o, "class"),
		.op = str(b, o, "op"),
		.path = str(b, o, "path"),
		.name = str(b, o, "name"),
		.path_cut = boolean(o, "path_cut"),
		.open_flags = u32(o, "open_flags"),
		.target_pid = u32(o, "target_pid"),
		.target_exe = str(b, o, "target_exe"),
	};
	s->file = f;
}
/* One of the static names, never the record's bytes (NULL when not one). */
static const char *static_name(struct json_object *o, const char *key, const char *const *names)
{
	struct json_object *v = at(o, key);
	const char *k = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

	for (; k && *names; names++)
		if (strcmp(k, *names) == 0)
			return *names;
	return NULL;
}

static void parse_net(struct sample_buf *b, struct json_object *o, struct pl_sample *s)
{
	static const char *const classes[] = {"loopback", "private", "link-local", "multicast",
					      "unspecified", "public", NULL};
	static const char *const outcomes[] = {"connected", "failed", NULL};

	if (!o || !json_object_is_type(o, json_type_object))
		return;
	b->net = (struct pl_net_ev){
		.addr = str(b, o, "addr"),
		.port = u32(o, "port"),
		.family = u32(o, "family"),
		.cls = static_name(o, "class", classes),
		.peer = str(b, o, "peer"),
		.outcome = static_name(o, "outcome", outcomes),
		.attempt_ns = u64(o, "attempt_ns"),
	};
	s->net = &b->net;
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
	else if (strcmp(type, "map") == 0)
		m = PL_AT_MAP;
	else if (strcmp(type, "file") == 0)
		m = PL_AT_FILE;
	else if (strcmp(type, "connect") == 0)
		m = PL_AT_CONNECT;
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
	case PL_AT_MAP:
		ret->time_ns = u64(rec, "time_ns");
		parse_map(b, at(rec, "object"), ret);
		break;
	case PL_AT_WINDOW:
		ret->win_start_ns = u64(rec, "window_start_ns");
		ret->win_end_ns = ret->time_ns = u64(rec, "window_end_ns");
		parse_span(rec, &ret->win, b->win_sc, b->win_errno);
		tot = at(rec, "total");
		parse_span(tot, &ret->life, b->life_sc, b->life_errno);
		parse_top_fail(b, tot, ret);
		ret->busy_s = is_num(at(rec, "busy_s")) ? json_object_get_double(at(rec, "busy_s")) : 0;
		parse_recent(at(rec, "recent"), ret);
		parse_wait(b, at(rec, "wait"), ret);
		break;
	case PL_AT_FILE:
		ret->time_ns = u64(rec, "time_ns");
		parse_file(b, at(rec, "file"), ret);
		break;
	case PL_AT_CONNECT:
		ret->time_ns = u64(rec, "time_ns");
		parse_net(b, at(rec, "net"), ret);
		tot = at(rec, "total");
		parse_span(tot, &ret->life, b->life_sc, b->life_errno);
		parse_top_fail(b, tot, ret);
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
		if (json_object_is_type(at(rec, "auth"), json_type_object)) {
			struct json_object *a = at(rec, "auth");

			ret->auth.present = true;
			ret->auth.failed = boolean(a, "failed");
			ret->auth.failures = u32(a, "failures");
			ret->auth.failures_per_min = dbl(a, "failures_per_min");
			ret->auth.successes = u32(a, "successes");
		}
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
