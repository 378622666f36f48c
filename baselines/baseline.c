// SPDX-License-Identifier: MIT
/*
 * baseline.c - learning and scoring one binary-in-context.
 *
 * The poisoning guard lives here: once a baseline is ready, a sample is
 * learned only if it scored below alert_score on every feature and brought
 * no never-seen set member, and only within a token bucket of
 * learn_per_hour. An attacker can't teach the sensor that the attack is
 * normal by repeating it (anomalous samples are never learned), nor drown
 * the baseline in borderline samples (the rate caps how fast it can drift).
 */
#include "baseline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 4096

static const uint32_t set_max[BL_SET_MAX] = {
	[BL_SET_FAIL_PATHS] = 1024,
	[BL_SET_CHILDREN] = 512,
	[BL_SET_SYSCALLS] = 512,
	[BL_SET_ONCPU] = 512,
	[BL_SET_FILES] = 128,
	[BL_SET_OBJECTS] = 512,
	[BL_SET_PEERS] = 256,
	[BL_SET_ONCPU_FUNCS] = 1024,
};

static const char *const dist_names[PL_DIST_MAX] = {
	[PL_LIFE_CPU] = "life_cpu_ns",
	[PL_LIFE_WALL] = "life_wall_ns",
	[PL_LIFE_OFFCPU] = "life_offcpu_ns",
	[PL_LIFE_SYSCALLS] = "life_syscalls",
	[PL_LIFE_OPEN_FAIL] = "life_open_failures",
	[PL_WIN_CPU] = "win_cpu_ns_per_s",
	[PL_WIN_SYSCALLS] = "win_syscalls_per_s",
	[PL_WIN_OPEN_FAIL] = "win_open_failures_per_s",
	[PL_WIN_SC_FILE] = "win_sc_file_per_s",
	[PL_WIN_SC_NET] = "win_sc_net_per_s",
	[PL_WIN_SC_PROC] = "win_sc_proc_per_s",
	[PL_WIN_SC_MEM] = "win_sc_mem_per_s",
	[PL_WIN_SC_IPC] = "win_sc_ipc_per_s",
	[PL_WIN_SC_TIME] = "win_sc_time_per_s",
	[PL_WIN_SC_OTHER] = "win_sc_other_per_s",
};

/*
 * Noise floors: a deviation smaller than this, in the feature's unit, scores
 * 0 however unusual it is relative to a tight baseline. Without them a
 * process that never sleeps (off-CPU ~50 us) would look 100x off when it is
 * preempted once, and a binary that makes exactly 117 syscalls would alert
 * on its 118th.
 */
static const double noise_floor[PL_DIST_MAX] = {
	[PL_LIFE_CPU] = 5e6,          /* 5 ms */
	[PL_LIFE_WALL] = 20e6,        /* 20 ms */
	[PL_LIFE_OFFCPU] = 20e6,      /* 20 ms */
	[PL_LIFE_SYSCALLS] = 100,
	[PL_LIFE_OPEN_FAIL] = 10,
	[PL_WIN_CPU] = 50e6,          /* 5 % of a core */
	[PL_WIN_SYSCALLS] = 200,
	[PL_WIN_OPEN_FAIL] = 20,
	[PL_WIN_SC_FILE] = 200,
	[PL_WIN_SC_NET] = 100,
	[PL_WIN_SC_PROC] = 100,
	[PL_WIN_SC_MEM] = 100,
	[PL_WIN_SC_IPC] = 200,
	[PL_WIN_SC_TIME] = 200,
	[PL_WIN_SC_OTHER] = 100,
};

static const char *const set_names[BL_SET_MAX] = {
	[BL_SET_FAIL_PATHS] = "fail_paths",
	[BL_SET_CHILDREN] = "children",
	[BL_SET_SYSCALLS] = "syscalls",
	[BL_SET_ONCPU] = "oncpu_objects",
	[BL_SET_FILES] = "files",
	[BL_SET_OBJECTS] = "objects",
	[BL_SET_PEERS] = "peers",
	[BL_SET_ONCPU_FUNCS] = "oncpu_functions",
};

double bl_dist__noise_floor(enum pl_dist d)
{
	return d < PL_DIST_MAX ? noise_floor[d] : 0;
}

const char *bl_dist__name(enum pl_dist d)
{
	return d < PL_DIST_MAX ? dist_names[d] : NULL;
}

/* id's hex digits after its "kind:", or all of it */
static const char *id_digits(const char *id)
{
	const char *c = strchr(id, ':');

	return c ? c + 1 : id;
}

void baseline__short_id(const struct baseline *b, char buf[BL_SHORT_ID_SIZE])
{
	snprintf(buf, BL_SHORT_ID_SIZE, "%.8s@%.8s", id_digits(b->binary_id), id_digits(b->parent_id));
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
}

bool baseline__short_id_matches(const struct baseline *b, const char *what)
{
	const char *at = strchr(what, '@');
	size_t nb = at ? (size_t)(at - what) : 0, np = at ? strlen(at + 1) : 0;

	if (nb < 8 || np < 8 || strchr(what, ':'))
		return false;
	return strncmp(id_digits(b->binary_id), what, nb) == 0 && strncmp(id_digits(b->parent_id), at + 1, np) == 0;
}

const char *bl_set__name(enum bl_set s)
{
	return s < BL_SET_MAX ? set_names[s] : NULL;
}

void bl_policy__defaults(struct bl_policy *p)
{
	*p = (struct bl_policy){
		.mode = BL_MODE_AUTO,
		.min_samples = 20,
		.min_windows = 60,
		.alert_score = 4.0,
		.learn_per_hour = 60,
		.mad_floor = 0.1,
		.recur_per_hour = 2,
		.set_new_max = 0.05,
		.set_quiet_ns = 600ull * 1000000000ull,
		.max_baselines = 65536,
		.max_age_ns = 180ull * 86400ull * 1000000000ull,
		.prior_max_age_ns = 30ull * 86400ull * 1000000000ull,
	};
}

/* ---- syscall classes ---- */

struct class_rule {
	const char *name; /* exact, or a prefix when it ends with '*' */
	enum bl_sc_class cls;
};

static const struct class_rule class_rules[] = {
	{ "open*", BL_SC_FILE },      { "creat", BL_SC_FILE },         { "read*", BL_SC_FILE },
	{ "write*", BL_SC_FILE },     { "pread*", BL_SC_FILE },        { "pwrite*", BL_SC_FILE },
	{ "close*", BL_SC_FILE },     { "*stat*", BL_SC_FILE },        { "access", BL_SC_FILE },
	{ "faccessat*", BL_SC_FILE }, { "lseek", BL_SC_FILE },         { "getdents*", BL_SC_FILE },
	{ "mkdir*", BL_SC_FILE },     { "rmdir", BL_SC_FILE },         { "unlink*", BL_SC_FILE },
	{ "rename*", BL_SC_FILE },    { "link*", BL_SC_FILE },         { "symlink*", BL_SC_FILE },
	{ "chmod", BL_SC_FILE },      { "fchmod*", BL_SC_FILE },       { "chown", BL_SC_FILE },
	{ "fchown*", BL_SC_FILE },    { "lchown", BL_SC_FILE },        { "truncate", BL_SC_FILE },
	{ "ftruncate", BL_SC_FILE },  { "fsync", BL_SC_FILE },         { "fdatasync", BL_SC_FILE },
	{ "sync*", BL_SC_FILE },      { "fcntl", BL_SC_FILE },         { "ioctl", BL_SC_FILE },
	{ "dup*", BL_SC_FILE },       { "pipe*", BL_SC_FILE },         { "mknod*", BL_SC_FILE },
	{ "utime*", BL_SC_FILE },     { "fallocate", BL_SC_FILE },     { "sendfile", BL_SC_FILE },
	{ "splice", BL_SC_FILE },     { "tee", BL_SC_FILE },           { "copy_file_range", BL_SC_FILE },
	{ "inotify*", BL_SC_FILE },   { "fanotify*", BL_SC_FILE },     { "flock", BL_SC_FILE },
	{ "chdir", BL_SC_FILE },      { "fchdir", BL_SC_FILE },        { "getcwd", BL_SC_FILE },
	{ "umask", BL_SC_FILE },      { "mount*", BL_SC_FILE },        { "umount2", BL_SC_FILE },
	{ "fadvise64", BL_SC_FILE },  { "name_to_handle_at", BL_SC_FILE },
	{ "socket*", BL_SC_NET },     { "connect", BL_SC_NET },        { "accept*", BL_SC_NET },
	{ "bind", BL_SC_NET },        { "listen", BL_SC_NET },         { "send*", BL_SC_NET },
	{ "recv*", BL_SC_NET },       { "shutdown", BL_SC_NET },       { "getsockname", BL_SC_NET },
	{ "getpeername", BL_SC_NET }, { "setsockopt", BL_SC_NET },     { "getsockopt", BL_SC_NET },
	{ "clone*", BL_SC_PROC },     { "fork", BL_SC_PROC },          { "vfork", BL_SC_PROC },
	{ "execve*", BL_SC_PROC },    { "exit*", BL_SC_PROC },         { "wait*", BL_SC_PROC },
	{ "kill", BL_SC_PROC },       { "tkill", BL_SC_PROC },         { "tgkill", BL_SC_PROC },
	{ "get*id", BL_SC_PROC },     { "set*id", BL_SC_PROC },        { "get*uid", BL_SC_PROC },
	{ "prctl", BL_SC_PROC },      { "arch_prctl", BL_SC_PROC },    { "cap*", BL_SC_PROC },
	{ "ptrace", BL_SC_PROC },     { "rt_sig*", BL_SC_PROC },       { "sigaltstack", BL_SC_PROC },
	{ "pidfd_*", BL_SC_PROC },    { "sched_*", BL_SC_PROC },       { "*priority", BL_SC_PROC },
	{ "*rlimit*", BL_SC_PROC },   { "getrusage", BL_SC_PROC },     { "unshare", BL_SC_PROC },
	{ "setns", BL_SC_PROC },      { "seccomp", BL_SC_PROC },       { "set_tid_address", BL_SC_PROC },
	{ "set_robust_list", BL_SC_PROC }, { "rseq", BL_SC_PROC },     { "getpgrp", BL_SC_PROC },
	{ "mmap", BL_SC_MEM },        { "munmap", BL_SC_MEM },         { "mprotect", BL_SC_MEM },
	{ "mremap", BL_SC_MEM },      { "brk", BL_SC_MEM },            { "madvise", BL_SC_MEM },
	{ "mlock*", BL_SC_MEM },      { "munlock*", BL_SC_MEM },       { "msync", BL_SC_MEM },
	{ "mincore", BL_SC_MEM },     { "membarrier", BL_SC_MEM },     { "memfd_*", BL_SC_MEM },
	{ "pkey_*", BL_SC_MEM },      { "process_vm_*", BL_SC_MEM },   { "process_madvise", BL_SC_MEM },
	{ "futex*", BL_SC_IPC },      { "shm*", BL_SC_IPC },           { "sem*", BL_SC_IPC },
	{ "msg*", BL_SC_IPC },        { "mq_*", BL_SC_IPC },           { "eventfd*", BL_SC_IPC },
	{ "signalfd*", BL_SC_IPC },   { "epoll_*", BL_SC_IPC },        { "poll", BL_SC_IPC },
	{ "ppoll", BL_SC_IPC },       { "select", BL_SC_IPC },         { "pselect6", BL_SC_IPC },
	{ "io_*", BL_SC_IPC },
	{ "clock_*", BL_SC_TIME },    { "nanosleep", BL_SC_TIME },     { "gettimeofday", BL_SC_TIME },
	{ "time", BL_SC_TIME },       { "timer_*", BL_SC_TIME },       { "timerfd_*", BL_SC_TIME },
	{ "alarm", BL_SC_TIME },      { "getitimer", BL_SC_TIME },     { "setitimer", BL_SC_TIME },
	{ "adjtimex", BL_SC_TIME },
};

/* Glob with '*' only; enough for the table above. */
static bool match(const char *pat, const char *s)
{
	if (!*pat)
		return !*s;
	if (*pat == '*') {
		for (;; s++) {
			if (match(pat + 1, s))
				return true;
			if (!*s)
				return false;
		}
	}
	return *s == *pat && match(pat + 1, s + 1);
}

enum bl_sc_class syscall_class(const char *name)
{
	for (size_t i = 0; i < sizeof(class_rules) / sizeof(class_rules[0]); i++)
		if (match(class_rules[i].name, name))
			return class_rules[i].cls;
	return BL_SC_OTHER;
}

/* ---- lifecycle ---- */

static char *dup_label(const char *s)
{
	return s ? strndup(s, LABEL_MAX) : NULL;
}

static struct baseline *alloc_baseline(void)
{
	struct baseline *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	for (int i = 0; i < PL_DIST_MAX; i++)
		sketch__init(&b->dist[i]);
	for (int i = 0; i < BL_SET_MAX; i++)
		strset__init(&b->set[i], set_max[i]);
	return b;
}

struct baseline *baseline__new(const char *binary_id, const char *parent_id, const char *exe, const char *parent_exe,
			       uint64_t now_ns)
{
	struct baseline *b = alloc_baseline();
	size_t klen;

	if (!b)
		return NULL;
	if (!parent_id || !*parent_id)
		parent_id = "-";
	klen = strlen(binary_id) + strlen(parent_id) + 2;
	b->key = malloc(klen);
	b->binary_id = dup_label(binary_id);
	b->parent_id = dup_label(parent_id);
	b->exe = dup_label(exe ? exe : "");
	b->parent_exe = dup_label(parent_exe ? parent_exe : "");
	if (!b->key || !b->binary_id || !b->parent_id || !b->exe || !b->parent_exe) {
		baseline__free(b);
		return NULL;
	}
	snprintf(b->key, klen, "%s@%s", binary_id, parent_id);
	b->created_ns = b->updated_ns = b->seen_ns = now_ns;
	b->uid = BL_UID_NONE;
	b->hosts = 1;
	b->tokens = -1; /* filled on first use, from the policy */
	b->recur_tokens = -1;
	b->dirty = true;
	return b;
}

void baseline__free(struct baseline *b)
{
	if (!b)
		return;
	for (int i = 0; i < PL_DIST_MAX; i++)
		sketch__clear(&b->dist[i]);
	for (int i = 0; i < BL_SET_MAX; i++)
		strset__clear(&b->set[i]);
	free(b->key);
	free(b->binary_id);
	free(b->parent_id);
	free(b->exe);
	free(b->parent_exe);
	free(b->prior_key);
	free(b);
}

double baseline__oncpu_share(const struct baseline *b, const struct bl_policy *p, const char *object)
{
	const struct strset *set;

	if (!b || b->oncpu_procs < p->min_samples || !b->oncpu_samples)
		return NAN;
	set = &b->set[BL_SET_ONCPU];
	for (uint32_t i = 0; i < set->n; i++)
		if (!strcmp(set->m[i].s, object))
			return (double)set->m[i].count / (double)b->oncpu_samples;
	return 0;
}

bool baseline__ready(const struct baseline *b, const struct bl_policy *p)
{
	return b && b->samples >= p->min_samples;
}

bool baseline__windows_ready(const struct baseline *b, const struct bl_policy *p)
{
	return b && b->windows >= p->min_windows;
}

/* ---- scoring and learning ---- */

static void score_feature(struct bl_verdict *v, const struct baseline *ref, enum pl_dist d, uint64_t value,
			  const struct bl_policy *p)
{
	struct bl_feature *f = &v->f[d];
	const struct sketch *s = &ref->dist[d];

	if (s->count == 0)
		return;
	f->valid = true;
	f->value = (double)value;
	f->p50 = sketch__quantile(s, 0.5);
	f->p99 = sketch__quantile(s, 0.99);
	f->ratio_p50 = f->p50 > 0 ? value / f->p50 : (double)value;
	f->ratio_p99 = f->p99 > 0 ? value / f->p99 : (double)value;
	(void)p;
	f->score = sketch__tail_score(s, value, noise_floor[d], &f->tail);
	if (v->max_dist < 0 || f->score > v->max_score) {
		v->max_score = f->score;
		v->max_dist = (int)d;
	}
}

static void check_members(struct bl_verdict *v, const struct baseline *ref, enum bl_set set, const char *const *m,
			  uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (strset__contains(&ref->set[set], m[i]))
			continue;
		if (v->new_members[set] < 8)
			v->new_list[set][v->new_members[set]] = m[i];
		v->new_members[set]++;
	}
}

/* One token of the learning budget, refilled at learn_per_hour. */
static bool take_token(struct baseline *b, const struct bl_policy *p, uint64_t now_ns)
{
	double cap = p->learn_per_hour > 1 ? p->learn_per_hour : 1;

	if (b->tokens < 0 || now_ns < b->tokens_ns) {
		b->tokens = cap;
	} else {
		b->tokens += (double)(now_ns - b->tokens_ns) / 3.6e12 * p->learn_per_hour;
		if (b->tokens > cap)
			b->tokens = cap;
	}
	b->tokens_ns = now_ns;
	if (b->tokens < 1)
		return false;
	b->tokens -= 1;
	return true;
}

/*
 * One token of the recurrence budget: anomalous samples that no rule at
 * Warning or above alerted on are learned at most recur_per_hour per hour
 * (a burst of at most one), so a mode that keeps recurring becomes normal
 * once it holds more than 1 % of the learned samples, and not faster.
 */
static bool take_recur_token(struct baseline *b, const struct bl_policy *p, uint64_t now_ns)
{
	if (!(p->recur_per_hour > 0))
		return false;
	if (b->recur_tokens < 0 || now_ns < b->recur_tokens_ns) {
		b->recur_tokens = 1;
	} else {
		b->recur_tokens += (double)(now_ns - b->recur_tokens_ns) / 3.6e12 * p->recur_per_hour;
		if (b->recur_tokens > 1)
			b->recur_tokens = 1;
	}
	b->recur_tokens_ns = now_ns;
	if (b->recur_tokens < 1)
		return false;
	b->recur_tokens -= 1;
	return true;
}

/* Whether the verdict's sample may be learned; counts why not. */
static bool may_learn(struct baseline *b, bool ready, struct bl_verdict *v, bool alerted,
		      const struct bl_policy *p, uint64_t now_ns)
{
	if (p->mode == BL_MODE_DETECT)
		return false;
	if (p->mode == BL_MODE_LEARN)
		return true;
	/* a sample a rule at Warning or above alerted on is never learned, ready
	 * or not: repeating an attack while the baseline learns must not make it
	 * normal (the 60-minute soak's storm, learned six times before ready) */
	if (alerted) {
		b->quarantined++;
		return false;
	}
	if (!ready)
		return true;
	if (v->anomalous && !take_recur_token(b, p, now_ns)) {
		b->quarantined++;
		return false;
	}
	if (v->anomalous) {
		b->recurred++;
		v->recurred = true;
		return true; /* its own budget: not from learn_per_hour */
	}
	if (!take_token(b, p, now_ns)) {
		b->rate_limited++;
		return false;
	}
	return true;
}

static void verdict_init(struct bl_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->max_dist = -1;
}

static void process_values(const struct bl_process_sample *s, uint64_t vals[5])
{
	vals[0] = s->cpu_ns;
	vals[1] = s->wall_ns;
	vals[2] = s->offcpu_ns;
	vals[3] = s->syscalls;
	vals[4] = s->open_fail;
}

void baseline__score_process(const struct baseline *b, const struct baseline *prior,
			     const struct bl_process_sample *s, const struct bl_policy *p, struct bl_verdict *ret)
{
	const struct baseline *ref = baseline__ready(b, p) ? b : (baseline__ready(prior, p) ? prior : NULL);
	uint64_t vals[5];

	verdict_init(ret);
	if (!ref || p->mode == BL_MODE_LEARN)
		return;
	process_values(s, vals);
	ret->ready = true;
	ret->from_prior = ref != b;
	ret->samples = ref->samples;
	for (int d = PL_LIFE_CPU; d <= PL_LIFE_OPEN_FAIL; d++)
		score_feature(ret, ref, d, vals[d - PL_LIFE_CPU], p);
	for (int k = 0; k < BL_SET_MAX; k++)
		ret->set_ready[k] = baseline__set_ready(ref, k, p, s->now_ns);
	/* a never-seen member counts only once its set has stopped growing */
	if (ret->set_ready[BL_SET_FAIL_PATHS])
		check_members(ret, ref, BL_SET_FAIL_PATHS, s->fail_paths, s->nfail_paths);
	if (ret->set_ready[BL_SET_SYSCALLS])
		check_members(ret, ref, BL_SET_SYSCALLS, s->syscall_names, s->nsyscall_names);
	ret->oncpu_ready = ret->set_ready[BL_SET_ONCPU];
	if (ret->oncpu_ready) {
		check_members(ret, ref, BL_SET_ONCPU, s->oncpu_objects, s->noncpu);
		for (uint32_t i = 0; i < s->noncpu; i++)
			if (!strset__contains(&ref->set[BL_SET_ONCPU], s->oncpu_objects[i]))
				ret->new_oncpu_samples += s->oncpu_counts[i];
	}
	/* new peers are judged at the connect (rules on baseline.peer_new), not
	 * here: counting them in `anomalous` would raise the deviation rule too */
	if (ret->set_ready[BL_SET_PEERS])
		check_members(ret, ref, BL_SET_PEERS, s->peers, s->npeers);
	/* new functions, like new objects, are evidence (the frames' new), not anomalous */
	if (ret->set_ready[BL_SET_ONCPU_FUNCS])
		check_members(ret, ref, BL_SET_ONCPU_FUNCS, s->functions, s->nfunctions);
	ret->anomalous = (ret->max_dist >= 0 && ret->max_score >= p->alert_score) ||
			 ret->new_members[BL_SET_FAIL_PATHS] || ret->new_members[BL_SET_SYSCALLS];
}

bool baseline__peer_known(const struct baseline *b, const char *peer)
{
	return b && peer && strset__contains(&b->set[BL_SET_PEERS], peer);
}

bool baseline__peers_never(const struct baseline *b)
{
	const struct strset *set = b ? &b->set[BL_SET_PEERS] : NULL;

	return set && set->n == 1 && !set->overflow && !strcmp(set->m[0].s, BL_PEER_NONE);
}

/* Learn one member, unless v was learned by recurrence and the member is new
 * to a saturated set. Whether it was counted. */
static bool add_member(struct baseline *b, enum bl_set set, const struct bl_verdict *v, const char *m, uint64_t n,
		       uint64_t now_ns)
{
	if (v->recurred && v->set_ready[set] && !strset__contains(&b->set[set], m))
		return false;
	strset__add(&b->set[set], m, n, now_ns); /* overflow is counted in the set */
	return true;
}

int baseline__learn_process(struct baseline *b, const struct bl_process_sample *s, const struct bl_policy *p,
			    uint64_t now_ns, bool alerted, struct bl_verdict *v)
{
	uint64_t vals[5];
	int r = 0;

	v->learned = false;
	if (!may_learn(b, baseline__ready(b, p), v, alerted, p, now_ns))
		return 0;
	process_values(s, vals);
	/* life_cpu_ns first: its count is the sample count the file format checks */
	for (int d = PL_LIFE_CPU; d <= PL_LIFE_OPEN_FAIL && !r; d++)
		r = sketch__add(&b->dist[d], vals[d - PL_LIFE_CPU]);
	if (r && b->dist[PL_LIFE_CPU].count == b->samples)
		return r;
	/* a sample learned by recurrence adds no member to a saturated set: a
	 * new member stays new (an operator accepts it: docs/baselines.md) */
	for (uint32_t i = 0; i < s->nfail_paths; i++)
		add_member(b, BL_SET_FAIL_PATHS, v, s->fail_paths[i], 1, now_ns);
	for (uint32_t i = 0; i < s->nsyscall_names; i++)
		add_member(b, BL_SET_SYSCALLS, v, s->syscall_names[i], 1, now_ns);
	for (uint32_t i = 0; i < s->noncpu; i++) {
		if (add_member(b, BL_SET_ONCPU, v, s->oncpu_objects[i], s->oncpu_counts[i], now_ns))
			b->oncpu_samples += s->oncpu_counts[i];
	}
	if (s->noncpu)
		b->oncpu_procs++;
	for (uint32_t i = 0; i < s->nfunctions; i++)
		add_member(b, BL_SET_ONCPU_FUNCS, v, s->functions[i], s->function_counts[i], now_ns);
	if (s->nfunctions) {
		b->oncpu_fn_samples += s->function_samples;
		b->oncpu_fn_procs++;
	}
	if (!s->npeers && !s->connects)
		add_member(b, BL_SET_PEERS, v, BL_PEER_NONE, 1, now_ns);
	for (uint32_t i = 0; i < s->npeers; i++)
		add_member(b, BL_SET_PEERS, v, s->peers[i], 1, now_ns);
	b->samples++;
	if (now_ns > b->updated_ns) /* the wall clock can step back */
		b->updated_ns = now_ns;
	b->dirty = true;
	v->learned = true;
	return r;
}

int baseline__observe_process(struct baseline *b, const struct baseline *prior, const struct bl_process_sample *s,
			      const struct bl_policy *p, uint64_t now_ns, struct bl_verdict *ret)
{
	baseline__score_process(b, prior, s, p, ret);
	return baseline__learn_process(b, s, p, now_ns, false, ret);
}

/* count over duration, as a per-second rate */
static uint64_t per_second(uint64_t count, uint64_t duration_ns)
{
	return duration_ns ? (uint64_t)((double)count * 1e9 / (double)duration_ns + 0.5) : count;
}

static void window_values(const struct bl_window_sample *s, uint64_t vals[PL_DIST_MAX])
{
	memset(vals, 0, PL_DIST_MAX * sizeof(vals[0]));
	vals[PL_WIN_CPU] = per_second(s->cpu_ns, s->duration_ns);
	vals[PL_WIN_SYSCALLS] = per_second(s->syscalls, s->duration_ns);
	vals[PL_WIN_OPEN_FAIL] = per_second(s->open_fail, s->duration_ns);
	for (int c = 0; c < BL_SC_MAX; c++)
		vals[PL_WIN_SC_FILE + c] = per_second(s->sc_class[c], s->duration_ns);
}

void baseline__score_window(const struct baseline *b, const struct baseline *prior, const struct bl_window_sample *s,
			    const struct bl_policy *p, struct bl_verdict *ret)
{
	const struct baseline *ref =
		baseline__windows_ready(b, p) ? b : (baseline__windows_ready(prior, p) ? prior : NULL);
	uint64_t vals[PL_DIST_MAX];

	verdict_init(ret);
	if (!ref || p->mode == BL_MODE_LEARN)
		return;
	window_values(s, vals);
	ret->ready = true;
	ret->from_prior = ref != b;
	ret->samples = ref->windows;
	for (int d = PL_WIN_CPU; d < PL_DIST_MAX; d++)
		score_feature(ret, ref, d, vals[d], p);
	ret->anomalous = ret->max_dist >= 0 && ret->max_score >= p->alert_score;
}

int baseline__learn_window(struct baseline *b, const struct bl_window_sample *s, const struct bl_policy *p,
			   uint64_t now_ns, bool alerted, struct bl_verdict *v)
{
	uint64_t vals[PL_DIST_MAX];
	int r = 0;

	v->learned = false;
	if (!may_learn(b, baseline__windows_ready(b, p), v, alerted, p, now_ns))
		return 0;
	window_values(s, vals);
	for (int d = PL_WIN_CPU; d < PL_DIST_MAX && !r; d++)
		r = sketch__add(&b->dist[d], vals[d]);
	if (r && b->dist[PL_WIN_CPU].count == b->windows)
		return r;
	b->windows++;
	if (now_ns > b->updated_ns)
		b->updated_ns = now_ns;
	b->dirty = true;
	v->learned = true;
	return r;
}

int baseline__observe_window(struct baseline *b, const struct baseline *prior, const struct bl_window_sample *s,
			     const struct bl_policy *p, uint64_t now_ns, struct bl_verdict *ret)
{
	baseline__score_window(b, prior, s, p, ret);
	return baseline__learn_window(b, s, p, now_ns, false, ret);
}

int baseline__child_member(const char *child_exe, const char *identity, char *buf, size_t size)
{
	int n = identity && *identity ? snprintf(buf, size, "%s\t%s", child_exe, identity)
				       : snprintf(buf, size, "%s", child_exe);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int baseline__observe_child(struct baseline *b, const char *child_exe, const char *identity, const struct bl_policy *p,
			    uint64_t now_ns)
{
	char m[STRSET_MAX_LEN + 1];
	bool ready = baseline__set_ready(b, BL_SET_CHILDREN, p, now_ns), known;
	int r = baseline__child_member(child_exe, identity, m, sizeof(m));

	if (r)
		return r;
	known = strset__contains(&b->set[BL_SET_CHILDREN], m) ||
		(identity && *identity && strset__contains(&b->set[BL_SET_CHILDREN], child_exe));
	if (p->mode == BL_MODE_DETECT || (ready && !known && p->mode == BL_MODE_AUTO))
		return ready && !known && p->mode != BL_MODE_LEARN;
	r = strset__add(&b->set[BL_SET_CHILDREN], m, 1, now_ns);
	if (r < 0 && r != -ENOSPC)
		return r;
	b->dirty = true;
	return 0;
}

int baseline__observe_file(struct baseline *b, const char *member, const struct bl_policy *p, uint64_t now_ns,
			   bool learn, bool *ret_ready)
{
	bool ready = baseline__set_ready(b, BL_SET_FILES, p, now_ns),
	     known = strset__contains(&b->set[BL_SET_FILES], member);
	int r;

	*ret_ready = ready;
	if (!learn || p->mode == BL_MODE_DETECT || (ready && !known && p->mode == BL_MODE_AUTO))
		return ready && !known && p->mode != BL_MODE_LEARN;
	r = strset__add(&b->set[BL_SET_FILES], member, 1, now_ns);
	if (r < 0 && r != -ENOSPC)
		return r;
	b->dirty = true;
	return 0;
}
void baseline__object_state(const struct baseline *b, const char *path, const struct bl_policy *p, uint64_t now_ns,
			    bool *ready, bool *known)
{
	*ready = baseline__set_ready(b, BL_SET_OBJECTS, p, now_ns);
	*known = b && path && strset__contains(&b->set[BL_SET_OBJECTS], path);
}

int baseline__learn_object(struct baseline *b, const char *path, const struct bl_policy *p, uint64_t now_ns,
			   bool alerted)
{
	bool ready, known;
	int r;

	if (!b || !path || p->mode == BL_MODE_DETECT)
		return 0;
	baseline__object_state(b, path, p, now_ns, &ready, &known);
	if (p->mode == BL_MODE_AUTO && ((ready && !known) || (alerted && !known)))
		return 0;
	r = strset__add(&b->set[BL_SET_OBJECTS], path, 1, now_ns);
	if (r < 0 && r != -ENOSPC)
		return r;
	b->dirty = true;
	return 0;
}

int baseline__function_member(const char *object, const char *function, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s\x1f%s", object ? object : "", function ? function : "");

	return n < 0 || (size_t)n >= size || n > BL_FUNC_MEMBER_MAX ? -ENAMETOOLONG : 0;
}

static void mark_frames(const struct strset *set, const struct pl_frame *frames, uint32_t n, uint32_t *marked)
{
	char m[BL_FUNC_MEMBER_MAX + 1];

	for (uint32_t i = 0; i < n; i++) {
		struct pl_frame *f = (struct pl_frame *)&frames[i]; /* the caller's (baseline.h) */

		f->is_new = set && !f->kernel && baseline__function_member(f->object, f->function, m, sizeof(m)) == 0 &&
			    !strset__contains(set, m);
		*marked += f->is_new;
	}
}

uint32_t baseline__mark_new_frames(const struct baseline *b, const struct baseline *prior, const struct baseline *fleet,
				   const struct bl_policy *p, uint64_t now_ns, struct pl_oncpu *oc)
{
	const struct baseline *refs[] = { b, prior, fleet }, *ref = NULL;
	const struct strset *set;
	uint32_t marked = 0;

	/* the first of them whose set is saturated */
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]) && !ref; i++)
		if (baseline__set_ready(refs[i], BL_SET_ONCPU_FUNCS, p, now_ns))
			ref = refs[i];
	set = ref ? &ref->set[BL_SET_ONCPU_FUNCS] : NULL;

	if (!oc || p->mode == BL_MODE_LEARN)
		set = NULL; /* learn mode judges nothing: every frame is written not new */
	for (uint32_t i = 0; oc && i < oc->nstacks; i++) {
		mark_frames(set, oc->stacks[i].user, oc->stacks[i].nuser, &marked);
		mark_frames(set, oc->stacks[i].kern, oc->stacks[i].nkern, &marked);
	}
	return marked;
}

int baseline__merge(struct baseline *dst, const struct baseline *src)
{
	int r = 0;

	if (strcmp(dst->key, src->key) != 0)
		return -EINVAL;
	for (int i = 0; i < PL_DIST_MAX && !r; i++)
		r = sketch__merge(&dst->dist[i], &src->dist[i]);
	for (int i = 0; i < BL_SET_MAX && !r; i++)
		r = strset__merge(&dst->set[i], &src->set[i]);
	if (r)
		return r;
	dst->samples += src->samples;
	dst->windows += src->windows;
	/* each set's draws add as its counts do: a share is a count over its draws */
	dst->oncpu_samples += src->oncpu_samples;
	dst->oncpu_procs += src->oncpu_procs;
	dst->oncpu_fn_samples += src->oncpu_fn_samples;
	dst->oncpu_fn_procs += src->oncpu_fn_procs;
	dst->quarantined += src->quarantined;
	dst->rate_limited += src->rate_limited;
	dst->recurred += src->recurred;
	dst->hosts = src->hosts > UINT32_MAX - dst->hosts ? UINT32_MAX : dst->hosts + src->hosts;
	if (src->created_ns < dst->created_ns)
		dst->created_ns = src->created_ns;
	if (src->updated_ns > dst->updated_ns)
		dst->updated_ns = src->updated_ns;
	if (src->seen_ns > dst->seen_ns)
		dst->seen_ns = src->seen_ns;
	if (!dst->prior_key && src->prior_key)
		dst->prior_key = strdup(src->prior_key);
	if (dst->uid == BL_UID_NONE)
		dst->uid = src->uid;
	dst->dirty = true;
	return 0;
}
