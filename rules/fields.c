// SPDX-License-Identifier: MIT
/*
 * fields.c - the field table, name lookups, and what each field reads from
 * a sample.
 *
 * Units change here, once: samples hold ns and counts, rules speak ms,
 * percents and rates per second. A rate needs a window of some length; a
 * share needs a denominator; a quantile needs a ready distribution: each
 * is absent otherwise, never 0 or infinite.
 */
#include "fields.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "syscalls.h"

static const struct rl_field_info table[RL_NFIELDS] = {
#define RL_FIELD_INFO(id, n, t, k, u, d) [RL_F_##id] = { .name = n, .type = RL_T_##t, .kinds = k, .unit = u, .desc = d },
	RL_FIELDS(RL_FIELD_INFO)
#undef RL_FIELD_INFO
};

const struct rl_field_info *rl_field__info(enum rl_field f)
{
	static struct rl_field_info with_param[RL_NFIELDS];
	static bool init;

	if (f >= RL_NFIELDS)
		return NULL;
	if (!init) {
		/* the parameterized ones are named in their descriptions as NAME[...] */
		for (int i = 0; i < RL_NFIELDS; i++) {
			with_param[i] = table[i];
			with_param[i].param = i == RL_F_PROC_SYSCALL || i == RL_F_WIN_SYSCALL_PER_S ||
					      i == RL_F_PROC_OPEN_FAILURES_UNDER;
			with_param[i].param_path = i == RL_F_PROC_OPEN_FAILURES_UNDER;
		}
		init = true;
	}
	return &with_param[f];
}

int rl_field__lookup(const char *name, size_t len)
{
	for (int i = 0; i < RL_NFIELDS; i++)
		if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0)
			return i;
	return -1;
}

/* Levenshtein distance, bounded: stops counting past max. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb, size_t max)
{
	size_t prev[128], cur[128];

	if (la >= 127 || lb >= 127)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t best = cur[0] = i;

		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			if (cur[j] < best)
				best = cur[j];
		}
		if (best > max)
			return max + 1;
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *rl_field__suggest(const char *name, size_t len)
{
	const char *best = NULL;
	size_t bestd = 4;

	for (int i = 0; i < RL_NFIELDS; i++) {
		size_t d = distance(name, len, table[i].name, strlen(table[i].name), bestd - 1);

		if (d < bestd) {
			bestd = d;
			best = table[i].name;
		}
	}
	return best;
}

/* Falco's fields (falco.org/docs/reference/rules/supported-fields) with a
 * plumbline counterpart, or none: a name ending in '.' is a family. */
static const struct {
	const char *falco, *here;
} falco_hints[] = {
	{ "fd.name", "file.path (a watched file's event), map.path (an executable mapping), proc.top_fail_path or "
		     "proc.open_failures_under[PREFIX] (failed opens)" },
	{ "fd.nameraw", "file.path, map.path, proc.top_fail_path" },
	{ "fd.filename", "file.name, map.name" },
	{ "fd.directory", "map.dir, or proc.open_failures_under[DIR/] for failed opens" },
	{ "fd.sip", "net.addr (a connect's peer)" },
	{ "fd.rip", "net.addr (a connect's peer)" },
	{ "fd.cip", "net.addr (a connect's peer)" },
	{ "fd.sport", "net.port (a connect's peer)" },
	{ "fd.rport", "net.port (a connect's peer)" },
	{ "fd.cport", "net.port" },
	{ "fd.lport", "none: a connect's own port is not kept (net.port is the peer's)" },
	{ "fd.l4proto", "net.family (TCP connects only)" },
	{ "fd.typechar", "evt.when = file, map or connect" },
	{ "fd.type", "evt.when = file, map or connect" },
	{ "fd.", "file.* (watched files), map.* (executable mappings), net.* (connects), proc.top_fail_path" },
	{ "evt.type", "evt.when (exec, window, exit, connect, file, map); calls by syscall: proc.syscall[NAME]" },
	{ "evt.dir", "evt.when" },
	{ "evt.", "evt.when" },
	{ "user.name", "proc.uid (the alert names the user)" },
	{ "user.uid", "proc.uid" },
	{ "user.loginuid", "no such field yet; proc.uid" },
	{ "user.", "proc.uid" },
	{ "group.", "no such field yet" },
	{ "proc.exepath", "proc.exe" },
	{ "proc.args", "proc.cmdline" },
	{ "proc.pcmdline", "proc.pexe, proc.pname" },
	{ "proc.vpid", "proc.pid" },
	{ "proc.duration", "proc.wall_ms" },
	{ "proc.is_exe_from_memfd", "proc.exe_kind, proc.exe_memfd_copy_of" },
	{ "proc.is_exe_upper_layer", "proc.exe_kind" },
	{ "proc.tty", "no such field yet" },
	{ "proc.cwd", "no such field yet" },
	{ "proc.sname", "no such field yet; proc.aname names an ancestor" },
	{ "container.", "proc.cgroup (containers are not named yet)" },
	{ "k8s.", "proc.cgroup (pods are not named yet)" },
	{ "spawned_process", "evt.when = exec (a Falco macro)" },
};

const char *rl_field__falco_hint(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(falco_hints) / sizeof(falco_hints[0]); i++) {
		size_t n = strlen(falco_hints[i].falco);
		bool family = falco_hints[i].falco[n - 1] == '.';

		if (family ? len > n && memcmp(name, falco_hints[i].falco, n) == 0
			   : len == n && memcmp(name, falco_hints[i].falco, n) == 0)
			return falco_hints[i].here;
	}
	return NULL;
}

const char *rl_field__unknown_msg(const char *name, size_t len, char *buf, size_t size)
{
	const char *hint = rl_field__falco_hint(name, len), *sug = hint ? NULL : rl_field__suggest(name, len);
	int shown = (int)(len < 100 ? len : 100);

	if (hint)
		snprintf(buf, size, "unknown field '%.*s': a Falco field; here: %s", shown, name, hint);
	else if (sug)
		snprintf(buf, size, "unknown field '%.*s' (did you mean '%s'?)", shown, name, sug);
	else
		snprintf(buf, size, "unknown field '%.*s'", shown, name);
	return buf;
}

int rl_field__syscall_number(const char *name)
{
	int nr = syscall_number(name);

	return nr >= 0 && nr < 512 ? nr : -1;
}

static char path_params[RL_PATH_PARAMS][RL_PATH_PARAM_LEN + 1];
static int npath_params;

int rl_field__path_param(const char *prefix, size_t len)
{
	if (len > RL_PATH_PARAM_LEN)
		return -ENAMETOOLONG;
	for (int i = 0; i < npath_params; i++)
		if (strlen(path_params[i]) == len && memcmp(path_params[i], prefix, len) == 0)
			return i;
	if (npath_params == RL_PATH_PARAMS)
		return -ENOSPC;
	memcpy(path_params[npath_params], prefix, len);
	path_params[npath_params][len] = '\0';
	return npath_params++;
}

const char *rl_field__path_of(int param)
{
	return param >= 0 && param < npath_params ? path_params[param] : NULL;
}

bool rl_field__path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("/._-+@:~", c);
}

/* Failed opens of s's kept paths that start with prefix. */
static uint64_t failures_under(const struct pl_sample *s, const char *prefix)
{
	size_t n = strlen(prefix);
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->nfails; i++)
		if (s->fails[i].path && strncmp(s->fails[i].path, prefix, n) == 0)
			sum += s->fails[i].count;
	return sum;
}

const char *rl_type__name(enum rl_type t)
{
	switch (t) {
	case RL_T_NUM:
		return "number";
	case RL_T_BOOL:
		return "boolean";
	case RL_T_STR:
		return "string";
	case RL_T_STRLIST:
		return "string list";
	}
	return "?";
}

/* Whether f can have a value at s's moment. */
static bool at_moment(const struct pl_sample *s, enum rl_field f)
{
	return f < RL_NFIELDS && (table[f].kinds & (unsigned)s->moment);
}

static bool val(double v, double *ret)
{
	if (!isfinite(v))
		return false;
	*ret = v;
	return true;
}

static const char *base_name(const char *path)
{
	const char *sl = path ? strrchr(path, '/') : NULL;

	return sl ? sl + 1 : path;
}

/* A learned quantile k (0: p50, 1: p90, 2: p99) of d, when ready, in the
 * rule's unit (div: 1e6 for ns to ms; dividing keeps round numbers exact). */
static bool quantile(const struct pl_sample *s, enum pl_dist d, int k, double div, double *ret)
{
	return s->bl.key && val(s->bl.q[d][k] / div, ret);
}

/* A score of this sample's feature d, when it was scored. */
static bool score(const struct pl_sample *s, enum pl_dist d, bool ratio, double *ret)
{
	const struct pl_score *f = &s->bl.f[d];

	return s->bl.key && s->bl.scored && f->valid && val(ratio ? f->ratio_p50 : f->score, ret);
}

/* The fleet's view of the key is known (it comes with the host's own baseline's key). */
static bool fleet_on(const struct pl_sample *s)
{
	return s->bl.key && s->bl.fleet.present;
}

/* The fleet's quantile k of d (fleet.*), when the loaded bundle holds the key and it is ready. */
static bool fleet_quantile(const struct pl_sample *s, enum pl_dist d, int k, double div, double *ret)
{
	return fleet_on(s) && val(s->bl.fleet.q[d][k] / div, ret);
}

/* A score of feature d against the fleet's baseline, when it was scored against it. */
static bool fleet_score(const struct pl_sample *s, enum pl_dist d, bool ratio, double *ret)
{
	const struct pl_score *f = &s->bl.fleet.f[d];

	return fleet_on(s) && s->bl.fleet.scored && f->valid && val(ratio ? f->ratio_p50 : f->score, ret);
}

/*
 * What the binary did, as opposed to what its caller asked for: a sleep's
 * lifetime and off-CPU time are its argument, its CPU, syscalls and failed
 * opens are its own (docs/rules.md#deviation-in-plain-words).
 */
static bool did(enum pl_dist d)
{
	return d != PL_LIFE_WALL && d != PL_LIFE_OFFCPU;
}

/* The scored feature of what the binary did with the highest score; -1: none. */
static int did_max(const struct pl_sample *s)
{
	int best = -1;

	if (!s->bl.key || !s->bl.scored)
		return -1;
	for (int d = 0; d < PL_DIST_MAX; d++)
		if (did(d) && s->bl.f[d].valid && !isnan(s->bl.f[d].score) &&
		    (best < 0 || s->bl.f[d].score > s->bl.f[best].score))
			best = d;
	return best;
}

/* A duration in words: "0.40 ms", "812 ms", "12.3 s". */
static void duration(char *buf, size_t size, double ns)
{
	if (ns < 1e6)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else if (ns < 1e9)
		snprintf(buf, size, "%.0f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.1f s", ns / 1e9);
}

static void count(char *buf, size_t size, double n)
{
	snprintf(buf, size, n < 10 && n != floor(n) ? "%.1f" : "%.0f", n);
}

/*
 * Feature d of the sample in plain words, into buf: "used 812 ms of CPU,
 * usually 2 ms (p99 5 ms): 406x its usual". NULL when it was not scored.
 */
static const char *feature_text(const struct pl_sample *s, int d, char *buf, size_t size)
{
	static const struct {
		const char *verb, *what; /* "<verb> <value><what>" */
		bool ns;
	} words[PL_DIST_MAX] = {
		[PL_LIFE_CPU] = { "used", " of CPU", true },
		[PL_LIFE_WALL] = { "ran for", "", true },
		[PL_LIFE_OFFCPU] = { "spent", " off CPU (sleeping or waiting)", true },
		[PL_LIFE_SYSCALLS] = { "made", " syscalls", false },
		[PL_LIFE_OPEN_FAIL] = { "failed", " opens", false },
		[PL_WIN_CPU] = { "used", " of CPU in one second", true },
		[PL_WIN_SYSCALLS] = { "made", " syscalls in one second", false },
		[PL_WIN_OPEN_FAIL] = { "failed", " opens in one second", false },
		[PL_WIN_SC_FILE] = { "made", " file syscalls in one second", false },
		[PL_WIN_SC_NET] = { "made", " network syscalls in one second", false },
		[PL_WIN_SC_PROC] = { "made", " process syscalls in one second", false },
		[PL_WIN_SC_MEM] = { "made", " memory syscalls in one second", false },
		[PL_WIN_SC_IPC] = { "made", " IPC syscalls in one second", false },
		[PL_WIN_SC_TIME] = { "made", " time syscalls in one second", false },
		[PL_WIN_SC_OTHER] = { "made", " other syscalls in one second", false },
	};
	const struct pl_score *f;
	char v[32], p50[32], p99[32];
	int n;

	if (d < 0 || d >= PL_DIST_MAX || !s->bl.key || !s->bl.scored || !s->bl.f[d].valid || !words[d].verb)
		return NULL;
	f = &s->bl.f[d];
	if (words[d].ns) {
		duration(v, sizeof(v), f->value);
		duration(p50, sizeof(p50), f->p50);
		duration(p99, sizeof(p99), f->p99);
	} else {
		count(v, sizeof(v), f->value);
		count(p50, sizeof(p50), f->p50);
		count(p99, sizeof(p99), f->p99);
	}
	n = snprintf(buf, size, "%s %s%s, usually %s (p99 %s)", words[d].verb, v, words[d].what, p50, p99);
	if (n > 0 && (size_t)n < size && f->p50 > 0 && f->value >= 2 * f->p50)
		snprintf(buf + n, size - (size_t)n, ": %.0fx its usual", f->value / f->p50);
	else if (n > 0 && (size_t)n < size && f->p50 <= 0 && f->value > 0)
		snprintf(buf + n, size - (size_t)n, ": usually none");
	return buf;
}

/* "usually 2 ms of CPU per lifetime (p99 5 ms), at most 40 ms per second (p99)", or why not. */
static const char *cpu_usual_text(const struct pl_sample *s, char *buf, size_t size)
{
	char p50[32], p99[32], w99[32];
	int n = 0;

	if (!s->bl.key)
		return "no baseline"; /* (its content hash pending, or the store full): said, not <NA> */
	if (!s->bl.ready && !s->bl.windows_ready) {
		snprintf(buf, size, "no ready baseline yet (%llu samples learned)", (unsigned long long)s->bl.samples);
		return buf;
	}
	buf[0] = '\0';
	if (s->bl.ready && !isnan(s->bl.q[PL_LIFE_CPU][0])) {
		duration(p50, sizeof(p50), s->bl.q[PL_LIFE_CPU][0]);
		duration(p99, sizeof(p99), s->bl.q[PL_LIFE_CPU][2]);
		n = snprintf(buf, size, "usually %s of CPU per lifetime (p99 %s)", p50, p99);
	}
	if (s->bl.windows_ready && !isnan(s->bl.q[PL_WIN_CPU][2]) && n >= 0 && (size_t)n < size) {
		duration(w99, sizeof(w99), s->bl.q[PL_WIN_CPU][2]);
		snprintf(buf + n, size - (size_t)n, "%s%s per second at p99", n ? ", " : "usually at most ", w99);
	}
	return buf[0] ? buf : "no ready baseline yet";
}

static bool flag(const struct pl_sample *s, bool v, double *ret)
{
	if (!s->bl.key)
		return false;
	*ret = v;
	return true;
}

static bool per_win_s(const struct pl_sample *s, double v, double *ret)
{
	double secs = pl_sample__win_seconds(s);

	return secs > 0 && val(v / secs, ret);
}

/*
 * A count per second of the window, over at least RL_RATE_MIN_SPAN_S
 *: a process's first window may be a few milliseconds
 * long, and one failed open in 3.5 ms is not 286 failures a second. A
 * window shorter than a second is counted as a whole second, so a rate
 * never exceeds the count it is made of; whole windows (the 1-second
 * ticks) are unaffected. Short-lived processes are judged on counts.
 */
#define RL_RATE_MIN_SPAN_S 1.0

static bool count_per_win_s(const struct pl_sample *s, double v, double *ret)
{
	double secs = pl_sample__win_seconds(s);

	return secs > 0 && val(v / (secs < RL_RATE_MIN_SPAN_S ? RL_RATE_MIN_SPAN_S : secs), ret);
}

bool rl_field__num(const struct pl_sample *s, enum rl_field f, int param, double *ret)
{
	const struct pl_fail *top;
	double wall;

	if (!at_moment(s, f))
		return false;
	switch (f) {
	case RL_F_PROC_PID:
		return val(s->pid, ret);
	case RL_F_PROC_PPID:
		return val(s->ppid, ret);
	case RL_F_PROC_UID:
		return val(s->uid, ret);
	case RL_F_PROC_PARTIAL:
		return val(s->partial, ret);
	case RL_F_PROC_STDIN_PIPE:
		return s->image == PL_IMAGE_EXEC && val(s->stdin_pipe, ret);
	case RL_F_AUTH_FAILED:
		return s->auth.present && val(s->auth.failed, ret);
	case RL_F_AUTH_FAILURES:
		return s->auth.present && val(s->auth.failures, ret);
	case RL_F_AUTH_FAILURES_PER_MIN:
		return s->auth.present && val(s->auth.failures_per_min, ret);
	case RL_F_AUTH_SUCCESSES:
		return s->auth.present && val(s->auth.successes, ret);
	case RL_F_PROC_EXE_TRUSTED:
		return s->exe_trusted_known && val(s->exe_trusted, ret);
	case RL_F_FILE_PATH_CUT:
		return s->file && val(s->file->path_cut, ret);
	case RL_F_FILE_TARGET_PID:
		return s->file && s->file->target_pid && val(s->file->target_pid, ret);
	case RL_F_BL_FILES_READY:
		return s->file && s->bl.key && val(s->bl.files_ready, ret);
	case RL_F_BL_FILE_NEW:
		return s->file && s->bl.key && s->bl.files_ready && val(s->bl.file_new, ret);
	case RL_F_PROC_EXE_NET_WRITTEN:
		return s->exe_net_written_known && val(s->exe_net_written, ret);
	case RL_F_PROC_CONNECTED:
		return val(s->connected, ret);
	case RL_F_PROC_CONNECTS:
		return val(s->life.net_connects, ret);
	case RL_F_PROC_CONNECT_FAILURES:
		return val(s->life.net_connect_fail, ret);
	case RL_F_PROC_CONNECT_DESTS:
		return val(s->life.net_dests, ret);
	case RL_F_NET_PORT:
		return s->net && val(s->net->port, ret);
	case RL_F_NET_FAMILY:
		return s->net && val(s->net->family, ret);
	case RL_F_WIN_CONNECTS_PER_S:
		return count_per_win_s(s, (double)s->win.net_connects, ret);
	case RL_F_WIN_CONNECT_FAILURES_PER_S:
		return count_per_win_s(s, (double)s->win.net_connect_fail, ret);
	case RL_F_WIN_CONNECT_PORTS:
		return s->moment == PL_AT_WINDOW && val(s->win.net_dests, ret);
	case RL_F_PROC_EXE_AGE_S:
		return s->exe_mtime_ns && s->image_start_ns && val(((double)s->image_start_ns - (double)s->exe_mtime_ns) / 1e9, ret);
	case RL_F_PROC_CPU_MS:
		return val(s->life.cpu_ns / 1e6, ret);
	case RL_F_PROC_WALL_MS:
		wall = (double)pl_sample__wall_ns(s);
		return wall > 0 && val(wall / 1e6, ret);
	case RL_F_PROC_CPU_PCT:
		wall = (double)pl_sample__wall_ns(s);
		return wall > 0 && val(s->life.cpu_ns / wall * 100, ret);
	case RL_F_PROC_OFFCPU_MS:
		return val(s->life.offcpu_ns / 1e6, ret);
	case RL_F_PROC_RUNQ_MS:
		return val(s->life.runq_ns / 1e6, ret);
	case RL_F_PROC_BLOCKED_MS:
		return val((s->life.offcpu_ns > s->life.runq_ns ? s->life.offcpu_ns - s->life.runq_ns : 0) / 1e6, ret);
	case RL_F_PROC_SYSCALLS:
		return val(s->life.syscalls, ret);
	case RL_F_PROC_SYSCALL:
		return param >= 0 && param < PL_SAMPLE_NR_SYSCALLS && s->life.sc && val(s->life.sc[param], ret);
	case RL_F_PROC_OPEN_FAILURES:
		return val(s->life.open_fail, ret);
	case RL_F_PROC_OPEN_FAILURES_UNDER:
		return rl_field__path_of(param) && val((double)failures_under(s, rl_field__path_of(param)), ret);
	case RL_F_PROC_FAIL_PATHS:
		return val(s->fail_paths, ret);
	case RL_F_PROC_TOP_FAIL_COUNT:
		top = pl_sample__top_fail(s);
		return top && val(top->count, ret);
	case RL_F_PROC_TOP_FAIL_SHARE:
		top = pl_sample__top_fail(s);
		return top && s->life.open_fail && val((double)top->count / s->life.open_fail, ret);
	case RL_F_PROC_CTX_SWITCHES:
		return val(s->life.ctx_switches, ret);
	case RL_F_PROC_THREADS:
		return val(s->threads, ret);
	case RL_F_PROC_EXIT_CODE:
		return s->has_exit_code && val(s->exit_code, ret);
	case RL_F_PROC_EXIT_SIGNAL:
		return s->has_exit_signal && val(s->exit_signal, ret);
	case RL_F_WIN_SECONDS:
		wall = pl_sample__win_seconds(s);
		return wall > 0 && val(wall, ret);
	case RL_F_WIN_CPU_MS:
		return pl_sample__win_seconds(s) > 0 && val(s->win.cpu_ns / 1e6, ret);
	case RL_F_WIN_CPU_PCT:
		return per_win_s(s, s->win.cpu_ns / 1e7, ret);
	case RL_F_WIN_BUSY_S:
		return val(s->busy_s, ret);
	case RL_F_WIN_RECENT_S:
		return s->recent_s > 0 && val(s->recent_s, ret);
	case RL_F_WIN_RECENT_BUSY_PCT:
		return s->recent_s > 0 && val(s->recent_busy_ns / 1e7 / s->recent_s, ret);
	case RL_F_WIN_RECENT_CPU_PCT:
		return s->recent_s > 0 && val(s->recent_cpu_ns / 1e7 / s->recent_s, ret);
	case RL_F_WIN_CLONES:
		return s->recent_s > 0 && val(s->clones, ret);
	case RL_F_WIN_CLONE_CPU_PCT:
		return s->recent_s > 0 && val(s->clone_ns / 1e7 / s->recent_s, ret);
	case RL_F_WIN_SYSCALLS_PER_S:
		return count_per_win_s(s, (double)s->win.syscalls, ret);
	case RL_F_WIN_SYSCALL_PER_S:
		return param >= 0 && param < PL_SAMPLE_NR_SYSCALLS && s->win.sc && count_per_win_s(s, (double)s->win.sc[param], ret);
	case RL_F_WIN_OPEN_FAILURES_PER_S:
		return count_per_win_s(s, (double)s->win.open_fail, ret);
	case RL_F_BIN_PROCS:
		return s->bin.present && val(s->bin.procs, ret);
	case RL_F_BIN_OPEN_FAILURES_PER_S:
		return s->bin.present && val(s->bin.open_failures_per_s, ret);
	case RL_F_BIN_TOP_FAIL_SHARE:
		return s->bin.present && val(s->bin.top_fail_share, ret);
	case RL_F_PROC_FAILS_BIN_TOP_PATH: {
		/* the process's own most-failed path: what a window record keeps too */
		const struct pl_fail *own = pl_sample__top_fail(s);

		if (!s->bin.present || !s->bin.top_fail_path || !own || !own->path)
			return false;
		return val(strcmp(own->path, s->bin.top_fail_path) == 0, ret);
	}
	case RL_F_BIN_STORM_PROCS:
		return s->bin.present && s->bin.storm_path && val(s->bin.storm_procs, ret);
	case RL_F_BIN_STORM_FAILURES_PER_S:
		return s->bin.present && s->bin.storm_path && val(s->bin.storm_failures_per_s, ret);
	case RL_F_BIN_STORM_NEW_BINARY:
		if (!s->bin.present || !s->bin.storm_path)
			return false;
		*ret = s->bin.storm_new_binary;
		return true;
	case RL_F_PROC_CPU_SAMPLES:
		return s->oncpu && val((double)s->oncpu->samples, ret);
	case RL_F_BL_ONCPU_READY:
		return s->bl.scored && flag(s, s->bl.oncpu_ready, ret);
	case RL_F_BL_NEW_ONCPU_SAMPLES:
		return s->bl.scored && s->bl.oncpu_ready && s->oncpu && val((double)s->bl.new_oncpu_samples, ret);
	/* waiting */
	case RL_F_PROC_WAITING_S:
		return s->wait && val(s->wait->waiting_s, ret);
	case RL_F_BL_READY:
		return flag(s, s->bl.ready, ret);
	case RL_F_BL_WINDOWS_READY:
		return flag(s, s->bl.windows_ready, ret);
	case RL_F_BL_SAMPLES:
		return s->bl.key && val(s->bl.samples, ret);
	case RL_F_BL_FROM_PRIOR:
		return s->bl.scored && flag(s, s->bl.from_prior, ret);
	case RL_F_BL_PEERS_READY:
		return flag(s, s->bl.peers_ready, ret);
	case RL_F_BL_PEERS_NEVER:
		return flag(s, s->bl.peers_never, ret);
	case RL_F_BL_PEER_NEW:
		return s->net && flag(s, s->bl.peer_new, ret);
	case RL_F_BL_PARENT_READY:
		return (s->bl.parent_seen || s->bl.key) && val(s->bl.parent_ready, ret);
	case RL_F_BL_PARENT_NEW_CHILD:
		return (s->bl.parent_seen || s->bl.key) && val(s->bl.parent_new_child, ret);
	case RL_F_BL_CPU_MS_P50:
		return quantile(s, PL_LIFE_CPU, 0, 1e6, ret);
	case RL_F_BL_CPU_MS_P90:
		return quantile(s, PL_LIFE_CPU, 1, 1e6, ret);
	case RL_F_BL_CPU_MS_P99:
		return quantile(s, PL_LIFE_CPU, 2, 1e6, ret);
	case RL_F_BL_WALL_MS_P50:
		return quantile(s, PL_LIFE_WALL, 0, 1e6, ret);
	case RL_F_BL_WALL_MS_P99:
		return quantile(s, PL_LIFE_WALL, 2, 1e6, ret);
	case RL_F_BL_OFFCPU_MS_P50:
		return quantile(s, PL_LIFE_OFFCPU, 0, 1e6, ret);
	case RL_F_BL_OFFCPU_MS_P99:
		return quantile(s, PL_LIFE_OFFCPU, 2, 1e6, ret);
	case RL_F_BL_SYSCALLS_P50:
		return quantile(s, PL_LIFE_SYSCALLS, 0, 1, ret);
	case RL_F_BL_SYSCALLS_P99:
		return quantile(s, PL_LIFE_SYSCALLS, 2, 1, ret);
	case RL_F_BL_OPEN_FAILURES_P50:
		return quantile(s, PL_LIFE_OPEN_FAIL, 0, 1, ret);
	case RL_F_BL_OPEN_FAILURES_P99:
		return quantile(s, PL_LIFE_OPEN_FAIL, 2, 1, ret);
	case RL_F_BL_WIN_CPU_MS_P50:
		return quantile(s, PL_WIN_CPU, 0, 1e6, ret);
	case RL_F_BL_WIN_CPU_MS_P99:
		return quantile(s, PL_WIN_CPU, 2, 1e6, ret);
	case RL_F_BL_WIN_SYSCALLS_P50:
		return quantile(s, PL_WIN_SYSCALLS, 0, 1, ret);
	case RL_F_BL_WIN_SYSCALLS_P99:
		return quantile(s, PL_WIN_SYSCALLS, 2, 1, ret);
	case RL_F_BL_WIN_OPEN_FAILURES_P99:
		return quantile(s, PL_WIN_OPEN_FAIL, 2, 1, ret);
	case RL_F_BL_CPU_SCORE:
		return score(s, PL_LIFE_CPU, false, ret);
	case RL_F_BL_CPU_RATIO:
		return score(s, PL_LIFE_CPU, true, ret);
	case RL_F_BL_WALL_SCORE:
		return score(s, PL_LIFE_WALL, false, ret);
	case RL_F_BL_OFFCPU_SCORE:
		return score(s, PL_LIFE_OFFCPU, false, ret);
	case RL_F_BL_SYSCALLS_SCORE:
		return score(s, PL_LIFE_SYSCALLS, false, ret);
	case RL_F_BL_OPEN_FAILURES_SCORE:
		return score(s, PL_LIFE_OPEN_FAIL, false, ret);
	case RL_F_BL_WIN_CPU_SCORE:
		return score(s, PL_WIN_CPU, false, ret);
	case RL_F_BL_WIN_CPU_RATIO:
		return score(s, PL_WIN_CPU, true, ret);
	case RL_F_BL_WIN_SYSCALLS_SCORE:
		return score(s, PL_WIN_SYSCALLS, false, ret);
	case RL_F_BL_WIN_OPEN_FAILURES_SCORE:
		return score(s, PL_WIN_OPEN_FAIL, false, ret);
	case RL_F_BL_MAX_SCORE:
		return s->bl.key && s->bl.scored && val(s->bl.max_score, ret);
	case RL_F_BL_DID_SCORE: {
		int d = did_max(s);

		return d >= 0 && val(s->bl.f[d].score, ret);
	}
	case RL_F_BL_ANOMALOUS:
		return s->bl.scored && flag(s, s->bl.anomalous, ret);
	/* map */
	case RL_F_MAP_TRUSTED:
		return s->map && s->map->trusted >= 0 && val(s->map->trusted, ret);
	case RL_F_MAP_PACKAGED:
		return s->map && s->map->packaged >= 0 && val(s->map->packaged, ret);
	case RL_F_MAP_OWNER_UID:
		return s->map && val(s->map->owner_uid, ret);
	case RL_F_MAP_DELETED:
		return s->map && val(s->map->deleted, ret);
	case RL_F_MAP_PRELOAD:
		return s->map && val(s->map->preload, ret);
	case RL_F_BL_OBJECTS_READY:
		return s->map && s->map->objects_known && val(s->map->objects_ready, ret);
	case RL_F_BL_OBJECT_NEW:
		return s->map && s->map->objects_known && val(s->map->object_new, ret);
	/* the fleet's view (struct pl_fleet_verdict), absent when the loaded bundle lacks the key */
	case RL_F_FL_READY:
		return fleet_on(s) && val(s->bl.fleet.ready, ret);
	case RL_F_FL_WINDOWS_READY:
		return fleet_on(s) && val(s->bl.fleet.windows_ready, ret);
	case RL_F_FL_SAMPLES:
		return fleet_on(s) && val((double)s->bl.fleet.samples, ret);
	case RL_F_FL_HOSTS:
		return fleet_on(s) && val(s->bl.fleet.hosts, ret);
	case RL_F_FL_CPU_MS_P50:
		return fleet_quantile(s, PL_LIFE_CPU, 0, 1e6, ret);
	case RL_F_FL_CPU_MS_P90:
		return fleet_quantile(s, PL_LIFE_CPU, 1, 1e6, ret);
	case RL_F_FL_CPU_MS_P99:
		return fleet_quantile(s, PL_LIFE_CPU, 2, 1e6, ret);
	case RL_F_FL_WALL_MS_P50:
		return fleet_quantile(s, PL_LIFE_WALL, 0, 1e6, ret);
	case RL_F_FL_WALL_MS_P99:
		return fleet_quantile(s, PL_LIFE_WALL, 2, 1e6, ret);
	case RL_F_FL_OFFCPU_MS_P50:
		return fleet_quantile(s, PL_LIFE_OFFCPU, 0, 1e6, ret);
	case RL_F_FL_OFFCPU_MS_P99:
		return fleet_quantile(s, PL_LIFE_OFFCPU, 2, 1e6, ret);
	case RL_F_FL_SYSCALLS_P50:
		return fleet_quantile(s, PL_LIFE_SYSCALLS, 0, 1, ret);
	case RL_F_FL_SYSCALLS_P99:
		return fleet_quantile(s, PL_LIFE_SYSCALLS, 2, 1, ret);
	case RL_F_FL_OPEN_FAILURES_P50:
		return fleet_quantile(s, PL_LIFE_OPEN_FAIL, 0, 1, ret);
	case RL_F_FL_OPEN_FAILURES_P99:
		return fleet_quantile(s, PL_LIFE_OPEN_FAIL, 2, 1, ret);
	case RL_F_FL_WIN_CPU_MS_P50:
		return fleet_quantile(s, PL_WIN_CPU, 0, 1e6, ret);
	case RL_F_FL_WIN_CPU_MS_P99:
		return fleet_quantile(s, PL_WIN_CPU, 2, 1e6, ret);
	case RL_F_FL_WIN_SYSCALLS_P50:
		return fleet_quantile(s, PL_WIN_SYSCALLS, 0, 1, ret);
	case RL_F_FL_WIN_SYSCALLS_P99:
		return fleet_quantile(s, PL_WIN_SYSCALLS, 2, 1, ret);
	case RL_F_FL_WIN_OPEN_FAILURES_P99:
		return fleet_quantile(s, PL_WIN_OPEN_FAIL, 2, 1, ret);
	case RL_F_FL_CPU_SCORE:
		return fleet_score(s, PL_LIFE_CPU, false, ret);
	case RL_F_FL_CPU_RATIO:
		return fleet_score(s, PL_LIFE_CPU, true, ret);
	case RL_F_FL_WALL_SCORE:
		return fleet_score(s, PL_LIFE_WALL, false, ret);
	case RL_F_FL_OFFCPU_SCORE:
		return fleet_score(s, PL_LIFE_OFFCPU, false, ret);
	case RL_F_FL_SYSCALLS_SCORE:
		return fleet_score(s, PL_LIFE_SYSCALLS, false, ret);
	case RL_F_FL_OPEN_FAILURES_SCORE:
		return fleet_score(s, PL_LIFE_OPEN_FAIL, false, ret);
	case RL_F_FL_WIN_CPU_SCORE:
		return fleet_score(s, PL_WIN_CPU, false, ret);
	case RL_F_FL_WIN_CPU_RATIO:
		return fleet_score(s, PL_WIN_CPU, true, ret);
	case RL_F_FL_WIN_SYSCALLS_SCORE:
		return fleet_score(s, PL_WIN_SYSCALLS, false, ret);
	case RL_F_FL_WIN_OPEN_FAILURES_SCORE:
		return fleet_score(s, PL_WIN_OPEN_FAIL, false, ret);
	default:
		return false;
	}
}

const char *rl_field__str(const struct pl_sample *s, enum rl_field f)
{
	/* the texts made here: one per field, so two in one output do not share
	 * (rules run on the event loop only; the string lives until the next call) */
	static char max_text[192], did_text[192], cpu_text[192];
	const struct pl_fail *top;

	if (!at_moment(s, f))
		return NULL;
	switch (f) {
	case RL_F_EVT_WHEN:
		return pl_moment__name(s->moment);
	case RL_F_PROC_NAME:
		return s->comm;
	case RL_F_PROC_EXE:
		return s->exe;
	case RL_F_PROC_EXE_NAME:
		return base_name(s->exe);
	case RL_F_PROC_CMDLINE:
		return s->cmdline;
	case RL_F_PROC_FILENAME:
		return s->filename;
	case RL_F_PROC_SCRIPT:
		return s->script;
	case RL_F_PROC_BUILD_ID:
		return s->build_id;
	case RL_F_PROC_BINARY_ID:
		return s->binary_id;
	case RL_F_PROC_CGROUP:
		return s->cgroup;
	case RL_F_PROC_PEXE:
		return s->parent_exe;
	case RL_F_PROC_PNAME:
		return base_name(s->parent_exe);
	case RL_F_PROC_IMAGE:
		return pl_image__name(s->image);
	case RL_F_PROC_EXE_KIND:
		return s->exe_kind;
	case RL_F_PROC_EXE_MEMFD_COPY_OF:
		return s->exe_memfd_copy_of;
	case RL_F_PROC_STDIN_WRITER:
		return base_name(s->stdin_writer);
	case RL_F_PROC_STDIN_WRITER_EXE:
		return s->stdin_writer;
	case RL_F_NET_ADDR:
		return s->net ? s->net->addr : NULL;
	case RL_F_NET_PEER:
		return s->net ? s->net->peer : NULL;
	case RL_F_NET_CLASS:
		return s->net ? s->net->cls : NULL;
	case RL_F_NET_OUTCOME:
		return s->net ? s->net->outcome : NULL;
	case RL_F_PROC_TOP_FAIL_PATH:
		top = pl_sample__top_fail(s);
		return top ? top->path : NULL;
	case RL_F_PROC_END_REASON:
		return s->end_reason;
	case RL_F_FILE_CLASS:
		return s->file ? s->file->cls : NULL;
	case RL_F_FILE_OP:
		return s->file ? s->file->op : NULL;
	case RL_F_FILE_PATH:
		return s->file ? s->file->path : NULL;
	case RL_F_FILE_NAME:
		return s->file ? s->file->name : NULL;
	case RL_F_FILE_TARGET_EXE:
		return s->file ? s->file->target_exe : NULL;
	case RL_F_BIN_TOP_FAIL_PATH:
		return s->bin.present ? s->bin.top_fail_path : NULL;
	case RL_F_BIN_STORM_PATH:
		return s->bin.present ? s->bin.storm_path : NULL;
	case RL_F_BIN_STORM_PATHS:
		return s->bin.present ? s->bin.storm_paths : NULL;
	case RL_F_BL_KEY:
		return s->bl.key;
	case RL_F_BL_SOURCE:
		return s->bl.key ? pl_bl_source__name(s->bl.source) : NULL;
	case RL_F_FL_ROLE:
		return fleet_on(s) ? s->bl.fleet.role : NULL;
	case RL_F_BL_MAX_FEATURE:
		return s->bl.key && s->bl.scored && s->bl.max_dist >= 0 ? pl_dist__feature(s->bl.max_dist) : NULL;
	case RL_F_BL_MAX_FEATURE_TEXT:
		return s->bl.max_dist >= 0 ? feature_text(s, s->bl.max_dist, max_text, sizeof(max_text)) : NULL;
	case RL_F_BL_CPU_USUAL_TEXT:
		return cpu_usual_text(s, cpu_text, sizeof(cpu_text));
	case RL_F_BL_DID_FEATURE:
		return did_max(s) >= 0 ? pl_dist__feature(did_max(s)) : NULL;
	case RL_F_BL_DID_TEXT:
		return feature_text(s, did_max(s), did_text, sizeof(did_text));
	/* waiting */
	case RL_F_PROC_STATE:
		return s->wait ? pl_wait__state_name(s->wait->state) : NULL;
	case RL_F_PROC_WCHAN:
		return s->wait && s->wait->nt && s->wait->t[0].wchan[0] ? s->wait->t[0].wchan : NULL;
	case RL_F_PROC_WAIT_FRAME:
		if (s->wait && s->wait->nt && !s->wait->t[0].nframes) /* no kernel stack: its wchan is the top */
			return s->wait->t[0].wchan[0] ? s->wait->t[0].wchan : NULL;
		return s->wait && s->wait->nt && s->wait->t[0].nframes ? s->wait->t[0].frames[0] : NULL;
	/* map */
	case RL_F_MAP_PATH:
		return s->map ? s->map->path : NULL;
	case RL_F_MAP_NAME:
		return s->map ? s->map->name : NULL;
	case RL_F_MAP_DIR:
		return s->map ? s->map->dir : NULL;
	case RL_F_MAP_BUILD_ID:
		return s->map ? s->map->build_id : NULL;
	case RL_F_MAP_BINARY_ID:
		return s->map ? s->map->binary_id : NULL;
	case RL_F_MAP_PACKAGE:
		return s->map ? s->map->package : NULL;
	case RL_F_MAP_LOCATION:
		return s->map ? s->map->location : NULL;
	case RL_F_MAP_HOW:
		return s->map ? s->map->how : NULL;
	default:
		return NULL;
	}
}

int rl_field__list(const struct pl_sample *s, enum rl_field f, const char **buf)
{
	uint32_t n = 0;

	if (!at_moment(s, f))
		return -1;
	switch (f) {
	case RL_F_PROC_ANAME:
	case RL_F_PROC_APATH:
		for (; n < s->nancestors && n < RL_LIST_MAX; n++)
			buf[n] = f == RL_F_PROC_ANAME ? base_name(s->ancestors[n]) : s->ancestors[n];
		return (int)n;
	case RL_F_PROC_ONCPU_OBJECTS:
		if (!s->oncpu)
			return -1;
		for (; n < s->oncpu->nobjs && n < RL_LIST_MAX; n++)
			buf[n] = s->oncpu->objs[n].object;
		return (int)n;
	case RL_F_BL_NEW_ONCPU_OBJECTS:
		if (!s->bl.key || !s->bl.scored || !s->bl.oncpu_ready || !s->oncpu)
			return -1;
		for (; n < s->bl.nnew_oncpu_objects && n < RL_LIST_MAX; n++)
			buf[n] = s->bl.new_oncpu_objects[n];
		return (int)n;
	case RL_F_PROC_WAIT_FRAMES:
		if (!s->wait || !s->wait->nt)
			return -1;
		/* the kernel stack is unreadable without CAP_SYS_ADMIN, which the
		 * sensor drops after attach: the frame /proc/PID/wchan names (the
		 * stack's own top frame) is then the one frame known. Not only
		 * when the read failed: without it, the kernel may also hand out
		 * an empty stack (6.x reads as nothing, not EACCES). */
		if (!s->wait->t[0].nframes) {
			if (!s->wait->t[0].wchan[0])
				return -1;
			buf[0] = s->wait->t[0].wchan;
			return 1;
		}
		for (; n < s->wait->t[0].nframes && n < RL_LIST_MAX; n++)
			buf[n] = s->wait->t[0].frames[n];
		return (int)n;
	case RL_F_BL_NEW_FAIL_PATHS:
	case RL_F_BL_NEW_SYSCALLS:
		if (!s->bl.key || !s->bl.scored)
			return -1;
		if (f == RL_F_BL_NEW_FAIL_PATHS)
			for (; n < s->bl.nnew_fail_paths && n < RL_LIST_MAX; n++)
				buf[n] = s->bl.new_fail_paths[n];
		else
			for (; n < s->bl.nnew_syscalls && n < RL_LIST_MAX; n++)
				buf[n] = s->bl.new_syscalls[n];
		return (int)n;
	default:
		return -1;
	}
}

bool rl_field__exists(const struct pl_sample *s, enum rl_field f, int param)
{
	const char *buf[RL_LIST_MAX];
	double v;

	switch (table[f < RL_NFIELDS ? f : 0].type) {
	case RL_T_NUM:
	case RL_T_BOOL:
		return rl_field__num(s, f, param, &v);
	case RL_T_STR:
		return rl_field__str(s, f) != NULL;
	case RL_T_STRLIST:
		return rl_field__list(s, f, buf) >= 0;
	}
	return false;
}
