// SPDX-License-Identifier: MIT
/*
 * record_event.c - JSON record -> rl_event.
 *
 * Units change on the way: records are in ns, rules in ms; rates are made
 * per second from the window's length. A field missing from the record (or
 * null) stays absent in the event.
 *
 * Strings are unescaped into chunks that the event keeps from one fill to
 * the next, so that steady state allocates nothing; and a string without a
 * backslash (nearly all of them) has nothing to undo and is borrowed as is.
 */
#include "record_event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "textsafe.h"

#define CHUNK_MIN 4096
#define CHUNKS_KEPT (1u << 20) /* bytes of chunks kept between fills; more is freed */

struct rl_text_chunk {
	struct rl_text_chunk *next;
	size_t used, cap;
	char buf[];
};

void rl_record_event__release(struct rl_record_event *re)
{
	while (re->text) {
		struct rl_text_chunk *n = re->text->next;

		free(re->text);
		re->text = n;
	}
}

/* Forget the previous event's strings, keeping the chunks (unless a huge
 * record grew them past CHUNKS_KEPT). */
static void text_reset(struct rl_record_event *re)
{
	size_t total = 0;

	for (struct rl_text_chunk *c = re->text; c; c = c->next)
		total += c->cap;
	if (total > CHUNKS_KEPT) {
		rl_record_event__release(re);
		return;
	}
	for (struct rl_text_chunk *c = re->text; c; c = c->next)
		c->used = 0;
}

/* Room for n bytes that stays put until the next reset, or NULL. */
static char *text_alloc(struct rl_record_event *re, size_t n)
{
	struct rl_text_chunk *c;

	for (c = re->text; c; c = c->next)
		if (c->cap - c->used >= n)
			break;
	if (!c) {
		size_t cap = n > CHUNK_MIN ? n : CHUNK_MIN;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = re->text;
		re->text = c;
	}
	c->used += n;
	return c->buf + c->used - n;
}

/* obj["a"]["b"]... along a NULL-terminated path; NULL when missing or null. */
static struct json_object *at(struct json_object *o, const char *const *path)
{
	for (; o && *path; path++)
		if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, *path, &o))
			return NULL;
	return o;
}

#define AT(o, ...) at((o), (const char *const[]){ __VA_ARGS__, NULL })

static bool is_num(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

static void num(struct rl_event *e, enum rl_field f, struct json_object *v, double scale)
{
	if (is_num(v))
		rl_event__num(e, f, json_object_get_double(v) * scale);
}

static void boolean(struct rl_event *e, enum rl_field f, struct json_object *v)
{
	if (v && json_object_is_type(v, json_type_boolean))
		rl_event__bool(e, f, json_object_get_boolean(v));
}

static const char *str_of(struct json_object *v)
{
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The string v holds, unescaped (NULL when v is no string, or on ENOMEM). */
static const char *text_of(struct rl_record_event *re, struct json_object *v)
{
	const char *s = str_of(v);
	size_t len;
	char *out;

	if (!s)
		return NULL;
	len = (size_t)json_object_get_string_len(v);
	if (!memchr(s, '\\', len))
		return s;
	out = text_alloc(re, len + 1); /* unescaping never grows */
	if (out)
		text_unescape_buf(out, s, len);
	return out;
}

static void str(struct rl_record_event *re, enum rl_field f, struct json_object *v)
{
	rl_event__str(&re->ev, f, text_of(re, v));
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

static void strlist(struct rl_record_event *re, enum rl_field f, struct json_object *arr, const char **store,
		    uint32_t max, bool basenames)
{
	uint32_t n = 0;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr) && n < max; i++) {
		const char *s = text_of(re, json_object_array_get_idx(arr, i));

		if (s)
			store[n++] = basenames ? base_name(s) : s;
	}
	rl_event__list(&re->ev, f, store, n);
}

static void syscalls(uint64_t *sc, struct json_object *by_name)
{
	memset(sc, 0, RL_SC_SLOTS * sizeof(*sc));
	json_object_object_foreach(by_name, name, v)
	{
		int nr = rl_field__syscall_number(name);

		if (nr >= 0 && is_num(v))
			sc[nr] = (uint64_t)json_object_get_int64(v);
	}
}

static void identity(struct rl_record_event *re, struct json_object *r)
{
	struct rl_event *e = &re->ev;
	const char *exe = text_of(re, AT(r, "exe")), *pexe = text_of(re, AT(r, "parent_exe"));

	num(e, RL_F_PROC_PID, AT(r, "pid"), 1);
	num(e, RL_F_PROC_PPID, AT(r, "ppid"), 1);
	num(e, RL_F_PROC_UID, AT(r, "uid"), 1);
	str(re, RL_F_PROC_NAME, AT(r, "comm"));
	rl_event__str(e, RL_F_PROC_EXE, exe);
	rl_event__str(e, RL_F_PROC_EXE_NAME, base_name(exe));
	str(re, RL_F_PROC_CMDLINE, AT(r, "cmdline"));
	str(re, RL_F_PROC_FILENAME, AT(r, "filename"));
	str(re, RL_F_PROC_BUILD_ID, AT(r, "build_id"));
	str(re, RL_F_PROC_BINARY_ID, AT(r, "binary_id"));
	str(re, RL_F_PROC_CGROUP, AT(r, "cgroup"));
	rl_event__str(e, RL_F_PROC_PEXE, pexe);
	rl_event__str(e, RL_F_PROC_PNAME, base_name(pexe));
	strlist(re, RL_F_PROC_ANAME, AT(r, "ancestors"), re->aname, RL_MAX_ANCESTORS, true);
	strlist(re, RL_F_PROC_APATH, AT(r, "ancestors"), re->apath, RL_MAX_ANCESTORS, false);
	str(re, RL_F_PROC_IMAGE, AT(r, "image"));
	boolean(e, RL_F_PROC_PARTIAL, AT(r, "partial"));
}

/* Lifetime measurements from `m` (the record itself, or a window's "total"). */
static void lifetime(struct rl_record_event *re, struct json_object *m, double wall_ns)
{
	struct rl_event *e = &re->ev;
	struct json_object *cpu = AT(m, "cpu_ns"), *fails = AT(m, "open_failures");

	num(e, RL_F_PROC_CPU_MS, cpu, 1e-6);
	if (wall_ns > 0) {
		rl_event__num(e, RL_F_PROC_WALL_MS, wall_ns / 1e6);
		if (is_num(cpu))
			rl_event__num(e, RL_F_PROC_CPU_PCT, json_object_get_double(cpu) / wall_ns * 100);
	}
	num(e, RL_F_PROC_OFFCPU_MS, AT(m, "offcpu_ns"), 1e-6);
	num(e, RL_F_PROC_RUNQ_MS, AT(m, "runq_ns"), 1e-6);
	num(e, RL_F_PROC_BLOCKED_MS, AT(m, "blocked_ns"), 1e-6);
	num(e, RL_F_PROC_SYSCALLS, AT(m, "syscalls"), 1);
	num(e, RL_F_PROC_OPEN_FAILURES, fails, 1);
	num(e, RL_F_PROC_CTX_SWITCHES, AT(m, "ctx_switches"), 1);
	num(e, RL_F_PROC_THREADS, AT(m, "threads"), 1);
	if (!re->skip_syscalls && AT(m, "syscalls_by_name")) {
		syscalls(re->sc, AT(m, "syscalls_by_name"));
		e->sc = re->sc;
	}
	/* the top failing path: a process record lists them all, a window's total names it */
	if (AT(m, "open_fail_paths") && json_object_is_type(AT(m, "open_fail_paths"), json_type_array)) {
		struct json_object *paths = AT(m, "open_fail_paths"), *top = NULL;
		int64_t best = -1;

		for (size_t i = 0; i < json_object_array_length(paths); i++) {
			struct json_object *p = json_object_array_get_idx(paths, i);
			int64_t c = is_num(AT(p, "count")) ? json_object_get_int64(AT(p, "count")) : 0;

			if (c > best) {
				best = c;
				top = p;
			}
		}
		rl_event__num(e, RL_F_PROC_FAIL_PATHS, (double)json_object_array_length(paths));
		if (top) {
			str(re, RL_F_PROC_TOP_FAIL_PATH, AT(top, "path"));
			rl_event__num(e, RL_F_PROC_TOP_FAIL_COUNT, (double)best);
			if (is_num(fails) && json_object_get_double(fails) > 0)
				rl_event__num(e, RL_F_PROC_TOP_FAIL_SHARE, best / json_object_get_double(fails));
		}
	} else {
		num(e, RL_F_PROC_FAIL_PATHS, AT(m, "fail_paths"), 1);
		str(re, RL_F_PROC_TOP_FAIL_PATH, AT(m, "top_fail_path"));
		num(e, RL_F_PROC_TOP_FAIL_COUNT, AT(m, "top_fail_count"), 1);
		if (is_num(AT(m, "top_fail_count")) && is_num(fails) && json_object_get_double(fails) > 0)
			rl_event__num(e, RL_F_PROC_TOP_FAIL_SHARE,
				      json_object_get_double(AT(m, "top_fail_count")) / json_object_get_double(fails));
	}
}

static void binary(struct rl_record_event *re, struct json_object *b)
{
	struct rl_event *e = &re->ev;

	num(e, RL_F_BIN_PROCS, AT(b, "procs"), 1);
	num(e, RL_F_BIN_OPEN_FAILURES_PER_S, AT(b, "open_failures_per_s"), 1);
	str(re, RL_F_BIN_TOP_FAIL_PATH, AT(b, "top_fail_path"));
	num(e, RL_F_BIN_TOP_FAIL_SHARE, AT(b, "top_fail_share"), 1);
}

struct q_map {
	enum rl_field f;
	const char *dist, *q;
	double scale;
};

static const struct q_map quantiles[] = {
	{ RL_F_BL_CPU_MS_P50, "cpu_ms", "p50", 1 },
	{ RL_F_BL_CPU_MS_P90, "cpu_ms", "p90", 1 },
	{ RL_F_BL_CPU_MS_P99, "cpu_ms", "p99", 1 },
	{ RL_F_BL_WALL_MS_P50, "wall_ms", "p50", 1 },
	{ RL_F_BL_WALL_MS_P99, "wall_ms", "p99", 1 },
	{ RL_F_BL_OFFCPU_MS_P50, "offcpu_ms", "p50", 1 },
	{ RL_F_BL_OFFCPU_MS_P99, "offcpu_ms", "p99", 1 },
	{ RL_F_BL_SYSCALLS_P50, "syscalls", "p50", 1 },
	{ RL_F_BL_SYSCALLS_P99, "syscalls", "p99", 1 },
	{ RL_F_BL_OPEN_FAILURES_P50, "open_failures", "p50", 1 },
	{ RL_F_BL_OPEN_FAILURES_P99, "open_failures", "p99", 1 },
	{ RL_F_BL_WIN_CPU_MS_P50, "win_cpu_ms", "p50", 1 },
	{ RL_F_BL_WIN_CPU_MS_P99, "win_cpu_ms", "p99", 1 },
	{ RL_F_BL_WIN_SYSCALLS_P50, "win_syscalls", "p50", 1 },
	{ RL_F_BL_WIN_SYSCALLS_P99, "win_syscalls", "p99", 1 },
	{ RL_F_BL_WIN_OPEN_FAILURES_P99, "win_open_failures", "p99", 1 },
};

struct s_map {
	enum rl_field f;
	const char *feature, *what;
};

static const struct s_map scores[] = {
	{ RL_F_BL_CPU_SCORE, "cpu_ns", "score" },
	{ RL_F_BL_CPU_RATIO, "cpu_ns", "ratio_p50" },
	{ RL_F_BL_WALL_SCORE, "wall_ns", "score" },
	{ RL_F_BL_OFFCPU_SCORE, "offcpu_ns", "score" },
	{ RL_F_BL_SYSCALLS_SCORE, "syscalls", "score" },
	{ RL_F_BL_OPEN_FAILURES_SCORE, "open_failures", "score" },
	{ RL_F_BL_WIN_CPU_SCORE, "cpu_ns_per_s", "score" },
	{ RL_F_BL_WIN_CPU_RATIO, "cpu_ns_per_s", "ratio_p50" },
	{ RL_F_BL_WIN_SYSCALLS_SCORE, "syscalls_per_s", "score" },
	{ RL_F_BL_WIN_OPEN_FAILURES_SCORE, "open_failures_per_s", "score" },
};

static void baseline(struct rl_record_event *re, struct json_object *b, enum rl_kind kind)
{
	struct rl_event *e = &re->ev;

	if (!b || !json_object_is_type(b, json_type_object))
		return;
	str(re, RL_F_BL_KEY, AT(b, "key"));
	boolean(e, RL_F_BL_READY, AT(b, "ready"));
	boolean(e, RL_F_BL_WINDOWS_READY, AT(b, "windows_ready"));
	num(e, RL_F_BL_SAMPLES, AT(b, "samples"), 1);
	boolean(e, RL_F_BL_PARENT_READY, AT(b, "parent_ready"));
	boolean(e, RL_F_BL_PARENT_NEW_CHILD, AT(b, "parent_new_child"));
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		num(e, quantiles[i].f, AT(b, "quantiles", quantiles[i].dist, quantiles[i].q), quantiles[i].scale);
	if (kind == RL_KIND_EXEC)
		return; /* a sample's scores exist only once it is complete */
	boolean(e, RL_F_BL_FROM_PRIOR, AT(b, "from_prior"));
	for (size_t i = 0; i < sizeof(scores) / sizeof(scores[0]); i++)
		num(e, scores[i].f, AT(b, "features", scores[i].feature, scores[i].what), 1);
	num(e, RL_F_BL_MAX_SCORE, AT(b, "max_score"), 1);
	str(re, RL_F_BL_MAX_FEATURE, AT(b, "max_feature"));
	boolean(e, RL_F_BL_ANOMALOUS, AT(b, "anomalous"));
	strlist(re, RL_F_BL_NEW_FAIL_PATHS, AT(b, "new_fail_paths"), re->new_paths, 8, false);
	strlist(re, RL_F_BL_NEW_SYSCALLS, AT(b, "new_syscalls"), re->new_syscalls, 8, false);
}

int rl_record_event__fill(struct rl_record_event *re, struct json_object *rec, enum rl_kind kind)
{
	const char *type = str_of(AT(rec, "type"));
	struct rl_event *e = &re->ev;
	struct json_object *b = AT(rec, "baseline");

	if (!type)
		return -EINVAL;
	if (kind == RL_KIND_EXEC && strcmp(type, "exec") != 0 && strcmp(type, "process") != 0)
		return -EINVAL;
	if (kind == RL_KIND_EXIT && strcmp(type, "process") != 0)
		return -EINVAL;
	if (kind == RL_KIND_WINDOW && strcmp(type, "window") != 0)
		return -EINVAL;
	rl_event__reset(e, kind);
	text_reset(re);
	rl_event__str(e, RL_F_EVT_WHEN, kind == RL_KIND_EXEC ? "exec" : kind == RL_KIND_WINDOW ? "window" : "exit");
	identity(re, rec);
	if (kind == RL_KIND_EXEC) {
		baseline(re, b, kind);
		return 0;
	}
	if (kind == RL_KIND_EXIT) {
		struct json_object *code = AT(rec, "exit_code"), *sig = AT(rec, "exit_signal");

		lifetime(re, rec, is_num(AT(rec, "duration_ns")) ? json_object_get_double(AT(rec, "duration_ns")) : 0);
		num(e, RL_F_PROC_EXIT_CODE, code, 1);
		num(e, RL_F_PROC_EXIT_SIGNAL, sig, 1);
		str(re, RL_F_PROC_END_REASON, AT(rec, "end_reason"));
	} else {
		double start = is_num(AT(rec, "window_start_ns")) ? json_object_get_double(AT(rec, "window_start_ns")) : 0;
		double end = is_num(AT(rec, "window_end_ns")) ? json_object_get_double(AT(rec, "window_end_ns")) : 0;
		double img = is_num(AT(rec, "image_start_ns")) ? json_object_get_double(AT(rec, "image_start_ns")) : 0;
		double secs = end > start ? (end - start) / 1e9 : 0;

		lifetime(re, AT(rec, "total"), end > img ? end - img : 0);
		if (secs > 0) {
			struct json_object *cpu = AT(rec, "cpu_ns");

			e->win_seconds = secs;
			rl_event__num(e, RL_F_WIN_SECONDS, secs);
			num(e, RL_F_WIN_CPU_MS, cpu, 1e-6);
			num(e, RL_F_WIN_CPU_PCT, cpu, 1e-7 / secs);
			num(e, RL_F_WIN_SYSCALLS_PER_S, AT(rec, "syscalls"), 1 / secs);
			num(e, RL_F_WIN_OPEN_FAILURES_PER_S, AT(rec, "open_failures"), 1 / secs);
			if (!re->skip_syscalls && AT(rec, "syscalls_by_name")) {
				syscalls(re->win_sc, AT(rec, "syscalls_by_name"));
				e->win_sc = re->win_sc;
			}
		}
		num(e, RL_F_WIN_BUSY_S, AT(rec, "busy_s"), 1);
	}
	binary(re, AT(rec, "binary"));
	baseline(re, b, kind);
	return 0;
}
