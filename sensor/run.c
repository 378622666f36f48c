// SPDX-License-Identifier: MIT
/*
 * run.c - the sensor daemon: one epoll loop over the ring buffer, a
 * signalfd and timerfds.
 *
 * Ring-buffer records are untrusted input like any other: each is checked
 * for size and version before use. Records for a process are built when its
 * image ends (PL_EV_END); per-second windows are computed by reading the
 * kernel's `procs` map and differencing against the previous snapshot. The
 * loop has room for more fds (perf sampling, metrics, PSI triggers).
 */
#include "run.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "alerts.h"
#include "binagg.h"
#include "bpfsensor.h"
#include "cleanup.h"
#include "failpaths.h"
#include "filekind.h"
#include "kfeatures.h"
#include "identity.h"
#include "learn.h"
#include "live.h"
#include "log.h"
#include "output.h"
#include "proctable.h"
#include "record.h"
#include "syslog_out.h"
#include "textsafe.h"

enum { FD_RINGBUF = 1, FD_SIGNAL, FD_TICK, FD_STOP, FD_IDENTITY };

/* How an output is named in the messages of on_output(). */
struct out_label {
	const char *noun;  /* what it loses: "records", "alerts" */
	char where[160];   /* "/var/log/plumbline.jsonl", "syslog (unix:/dev/log)" */
	const char *until; /* when the loss stops */
};

struct sensor {
	const struct run_opts *opts;
	struct pl_features feat;
	struct bpfsensor *bpf;
	struct proctable *procs;
	struct identity *ident;
	struct pl_output *out;
	struct live *live;
	struct learner *learn; /* NULL: baselines off or unavailable */
	struct alerts *alerts; /* NULL: --no-rules */
	struct binagg *bin;
	struct failpaths *fails; /* failed-path keys: the kernel's table and each image's list */
	struct pl_output *syslog; /* alerts to the syslog daemon, NULL: --syslog off */
	struct pl_output *text;   /* alerts as lines on stdout with the live view */
	struct out_label out_label, syslog_label, text_label;
	uint64_t last_tick_ns;
	int epfd, sigfd, tickfd, stopfd;
	bool stop;
	uint64_t start_ns;
	uint64_t last_live_ns;
	uint64_t ticks;
	struct pl_proc scratch; /* one map value, read per process per tick */
	/* counters for the stats record */
	uint64_t events[PL_EV_FAIL_PATH + 1];
	uint64_t invalid_events;
	uint64_t process_records, window_records;
	uint64_t proctable_full;
	uint64_t consumed; /* records handled in the current consume() */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Offset from CLOCK_MONOTONIC to CLOCK_REALTIME, read fresh for each record
 * so a wall-clock step shows up in the records that follow it. */
static int64_t mono_to_real(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000000ll + ((int64_t)r.tv_nsec - m.tv_nsec);
}

/* Write a record to the JSON output (consumed). A failure is reported by
 * on_output(), once per episode; every lost record is counted. */
static void emit(struct sensor *s, struct json_object *rec)
{
	if (rec && s->out)
		output__write(s->out, rec);
	json_object_put(rec);
}

/*
 * What an output's failure episode means to the operator (outputs/output.h):
 * the first lost record is said once with the reason, a reminder at most
 * once a minute while it lasts, and its end with how many were lost. ctx is
 * the output's struct out_label.
 */
static void on_output(struct pl_output *o, enum pl_output_event ev, void *ctx)
{
	const struct out_label *l = ctx;
	unsigned long long lost = (unsigned long long)output__lost(o);

	switch (ev) {
	case PL_OUTPUT_FAILING:
		if (o->why[0])
			log_warn("%s: %s to %s are lost %s (counted in the stats record)", o->why, l->noun, l->where,
				 l->until);
		else
			log_warn_errno(o->last_err, "Cannot write %s to %s: %m (dropping and counting them %s)", l->noun,
				       l->where, l->until);
		break;
	case PL_OUTPUT_STILL_FAILING:
		if (o->why[0])
			log_warn("Still cannot write %s to %s: %llu lost so far (%s)", l->noun, l->where, lost, o->why);
		else
			log_warn_errno(o->last_err, "Still cannot write %s to %s: %llu lost so far (%m)", l->noun,
				       l->where, lost);
		break;
	case PL_OUTPUT_RECOVERED:
		log_info("Recovered: %s to %s are written again; %llu %s lost meanwhile", l->noun, l->where, lost,
			 l->noun);
		break;
	}
}

static const char *display_name(const struct proc_info *pi, const struct pl_proc *p)
{
	return pi && pi->exe ? pi->exe : p->id.comm;
}

/* Whether pi is counted for the first time in the current live interval. */
static bool live_first(struct sensor *s, struct proc_info *pi)
{
	uint64_t now = live__interval(s->live) + 1; /* 0 means never */

	if (!pi)
		return true;
	if (pi->live_interval == now)
		return false;
	pi->live_interval = now;
	return true;
}

/* ---- ring-buffer records ---- */

static struct proc_info *start_image(struct sensor *s, uint32_t tgid, const struct pl_ident *id)
{
	struct proc_info *pi = proctable__reset(s->procs, tgid, id->image_id);

	if (!pi) {
		s->proctable_full++;
		return NULL;
	}
	pi->flags = id->flags;
	pi->ppid = id->ppid;
	pi->exe_dev = id->exe_dev;
	pi->exe_ino = id->exe_ino;
	memcpy(pi->exec_comm, id->comm, sizeof(pi->exec_comm));
	pi->exec_comm[PL_COMM_LEN - 1] = '\0';
	return pi;
}

static uint64_t real_now_ns(void)
{
	return mono_ns() + (uint64_t)mono_to_real();
}

/*
 * What a record needs beyond its own counters so that rules (live, and in
 * replay) see everything: identities of the binary, its parent and its
 * ancestors, and the binary's activity in the last second.
 */
static void decorate(struct sensor *s, struct json_object *rec, const struct proc_info *pi)
{
	struct json_object *anc = json_object_new_array();
	uint32_t ppid = pi ? pi->ppid : 0;

	json_object_object_add(rec, "binary_id", record__str(pi ? pi->binary_id : NULL));
	json_object_object_add(rec, "parent_exe", record__str(pi ? pi->parent_exe : NULL));
	for (int depth = 0; depth < 8 && ppid > 1; depth++) {
		const struct proc_info *a = proctable__get(s->procs, ppid);

		if (!a || a->ppid == ppid)
			break;
		json_object_array_add(anc, record__str(a->exe));
		ppid = a->ppid;
	}
	json_object_object_add(rec, "ancestors", anc);
	json_object_object_add(rec, "binary", pi ? binagg__json(s->bin, pi->binary_id) : NULL);
}

/* Run the rules on a record. Returns whether any rule matched. */
static bool evaluate(struct sensor *s, struct json_object *rec, enum rl_kind kind)
{
	struct pl_output *outs[] = { s->out, s->syslog, s->text };

	if (!s->alerts || !rec)
		return false;
	return alerts__eval(s->alerts, rec, kind, real_now_ns(), outs, ARRAY_SIZE(outs)) > 0;
}

/* Whether some rule, or the JSON output, wants records of this kind. */
static bool want(const struct sensor *s, enum rl_kind kind, bool records)
{
	return records || (s->alerts && (alerts__kinds(s->alerts) & kind));
}

/* Learn the pending sample unless a rule fired on it; say so in the record. */
static void commit(struct sensor *s, struct json_object *rec, bool alerted)
{
	bool learned;
	struct json_object *b;

	if (!s->learn)
		return;
	learned = learner__commit(s->learn, alerted);
	if (rec && json_object_object_get_ex(rec, "baseline", &b) && b)
		json_object_object_add(b, "learned", json_object_new_boolean(learned));
}

static char *dup_or_null(const char *x)
{
	return x ? strdup(x) : NULL;
}

/* The parent context of a new image: the parent process's image when user
 * space knows it, else what was captured when this process was forked. */
static void set_parent(struct proc_info *pi, const struct proc_info *parent, char *fork_bin, char *fork_exe)
{
	if (parent && parent->binary_id) {
		free(fork_bin);
		free(fork_exe);
		fork_bin = dup_or_null(parent->binary_id);
		fork_exe = dup_or_null(parent->exe);
	}
	pi->parent_binary_id = fork_bin;
	pi->parent_exe = fork_exe;
}

/*
 * A new image whose binary_id, or whose parent's, waits for a content hash
 * (identity.h) is attached to its baseline when the hash is known
 * (on_hashed()), not before: now it would get no baseline, or one keyed by
 * "-" for its parent, which is another context's.
 */
static void wait_for_parent(struct proc_info *pi, const struct proc_info *parent, const struct hash_wait *fork_wait)
{
	if (pi->parent_binary_id)
		return;
	if (parent && parent->hash_wait) {
		pi->parent_wait = (struct hash_wait){ .on = true, .dev = parent->exe_dev, .ino = parent->exe_ino };
		if (!pi->parent_exe)
			pi->parent_exe = dup_or_null(parent->exe);
	} else if (!parent && fork_wait) {
		pi->parent_wait = *fork_wait; /* as the parent was when it forked this process */
	}
}

static void attach_unless_waiting(struct sensor *s, struct proc_info *pi)
{
	if (s->learn && !pi->hash_wait && !pi->parent_wait.on)
		learner__attach(s->learn, pi);
}

/* What rules see at exec: identity and the baseline's state (docs/records.md, "exec").
 * Its strings are escaped like those of every record, so that the rules (which
 * unescape them) see the same bytes at exec as at window and exit. */
static struct json_object *exec_record(struct sensor *s, uint32_t tgid, struct proc_info *pi, const struct pl_ident *id)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("exec"));
	json_object_object_add(o, "pid", json_object_new_uint64(tgid));
	json_object_object_add(o, "ppid", json_object_new_uint64(id->ppid));
	json_object_object_add(o, "uid", json_object_new_uint64(id->uid));
	json_object_object_add(o, "comm", record__str(pi->exec_comm));
	json_object_object_add(o, "exe", record__str(pi->exe));
	json_object_object_add(o, "build_id", record__str(pi->build_id));
	json_object_object_add(o, "filename", record__str(pi->filename));
	json_object_object_add(o, "cmdline", record__str(pi->cmdline));
	json_object_object_add(o, "image", json_object_new_string("exec"));
	json_object_object_add(o, "partial", json_object_new_boolean(false));
	json_object_object_add(o, "time_ns", json_object_new_uint64(id->image_start_ns + mono_to_real()));
	decorate(s, o, pi);
	json_object_object_add(o, "baseline", s->learn ? learner__exec(s->learn, pi) : NULL);
	return o;
}

static void on_exec(struct sensor *s, const struct pl_ev_exec *ev)
{
	struct proc_info *old = proctable__get(s->procs, ev->hdr.tgid), *pi, *parent;
	char *fork_bin = old ? TAKE_PTR(old->parent_binary_id) : NULL;
	char *fork_exe = old ? TAKE_PTR(old->parent_exe) : NULL;
	struct hash_wait fork_wait = old ? old->parent_wait : (struct hash_wait){ 0 };
	struct exe_info exe;
	char filename[PL_PATH_LEN];

	pi = start_image(s, ev->hdr.tgid, &ev->id);
	if (!pi) {
		free(fork_bin);
		free(fork_exe);
		return;
	}
	memcpy(filename, ev->filename, sizeof(filename));
	filename[sizeof(filename) - 1] = '\0';
	pi->filename = strdup(filename);
	pi->filename_truncated = ev->filename_len > PL_PATH_LEN;
	pi->cmdline = text_cmdline(ev->args, ev->args_len <= PL_ARGS_LEN ? ev->args_len : PL_ARGS_LEN);
	identity__resolve_exe(s->ident, ev->hdr.tgid, ev->id.exe_dev, ev->id.exe_ino, filename, &exe);
	pi->exe = exe.path;
	pi->build_id = exe.build_id;
	pi->binary_id = exe.binary_id;
	pi->hash_wait = exe.hash_pending;
	parent = proctable__get(s->procs, ev->id.ppid);
	set_parent(pi, parent, fork_bin, fork_exe);
	wait_for_parent(pi, parent, fork_wait.on ? &fork_wait : NULL);
	attach_unless_waiting(s, pi);
	if (s->learn)
		learner__child(s->learn, parent, pi);
	if (want(s, RL_KIND_EXEC, false)) {
		struct json_object *rec = exec_record(s, ev->hdr.tgid, pi, &ev->id);

		evaluate(s, rec, RL_KIND_EXEC);
		json_object_put(rec);
	}
}

static void on_fork_or_seen(struct sensor *s, const struct pl_ev_proc *ev)
{
	const struct proc_info *parent = proctable__get(s->procs, ev->id.ppid);
	struct proc_info *pi = start_image(s, ev->hdr.tgid, &ev->id);
	struct exe_info exe;

	if (!pi)
		return;
	set_parent(pi, parent, NULL, NULL);
	wait_for_parent(pi, parent, NULL);
	if (ev->hdr.type == PL_EV_FORK && parent && parent->exe && parent->binary_id &&
	    parent->exe_dev == ev->id.exe_dev && parent->exe_ino == ev->id.exe_ino) {
		/* a fork child runs its parent's image: same identity */
		pi->exe = dup_or_null(parent->exe);
		pi->build_id = dup_or_null(parent->build_id);
		pi->binary_id = dup_or_null(parent->binary_id);
		pi->cmdline = dup_or_null(parent->cmdline);
	} else {
		identity__resolve_exe(s->ident, ev->hdr.tgid, ev->id.exe_dev, ev->id.exe_ino, NULL, &exe);
		pi->exe = exe.path;
		pi->build_id = exe.build_id;
		pi->binary_id = exe.binary_id;
		pi->hash_wait = exe.hash_pending;
		pi->cmdline = identity__proc_cmdline(ev->hdr.tgid, PL_ARGS_LEN);
	}
	attach_unless_waiting(s, pi);
}

/* The path that failed most, or NULL. */
static const struct fail_count *top_fail(const struct fail_count *fails, uint32_t n)
{
	const struct fail_count *top = NULL;

	for (uint32_t i = 0; i < n; i++)
		if (!top || fails[i].count > top->count)
			top = &fails[i];
	return top;
}

/* rec with its "baseline" verdict (consumed; null when there is none). */
static struct json_object *with_baseline(struct json_object *rec, struct json_object *verdict)
{
	if (rec)
		json_object_object_add(rec, "baseline", verdict);
	else
		json_object_put(verdict);
	return rec;
}

static void on_end(struct sensor *s, const struct pl_ev_end *ev)
{
	uint32_t tgid = ev->hdr.tgid;
	struct proc_info *pi = proctable__get(s->procs, tgid);
	struct proc_info *match = pi && pi->image_id == ev->proc.id.image_id ? pi : NULL;
	_cleanup_free_ struct fail_count *fails = NULL;
	struct record_end end = {
		.end_ns = ev->end_ns,
		.reason = ev->reason == PL_END_EXEC ? "exec" : "exit",
		.has_exit = ev->reason == PL_END_EXIT,
		.exit_status = ev->exit_code,
	};
	const struct pl_stats *prev = match && match->have_last ? &match->last : NULL;
	struct json_object *verdict = NULL;
	uint32_t nfails = 0;

	/* keys user space never learned (a lost record, a full list) are left
	 * to the periodic sweep: walking the whole table here, per process,
	 * would make a storm of such processes quadratic */
	fails = failpaths__collect(s->fails, match, true, &nfails);

	if (s->live) {
		static const struct pl_stats zero;
		const struct pl_stats *base = prev ? prev : &zero;

		live__add(s->live, display_name(match, &ev->proc), ev->proc.st.cpu_ns - base->cpu_ns,
			  ev->proc.st.offcpu_ns - base->offcpu_ns,
			  stats__syscalls(&ev->proc.st) - stats__syscalls(base), ev->proc.st.open_fail - base->open_fail,
			  live_first(s, pi), 1);
	}
	if (match) {
		/* this process's failures since its last window count for its binary's second */
		const struct fail_count *top = top_fail(fails, nfails);

		binagg__add(s->bin, match->binary_id, ev->proc.st.open_fail - (prev ? prev->open_fail : 0),
			    top ? top->ref->path : NULL, top ? top->count : 0);
	}
	/* A fork child that exec'd was only ever a step towards another binary:
	 * its few syscalls would make a second mode in its binary's lifetimes,
	 * and it is no exit for rules to judge. Half of all images are such
	 * steps, so skipping them halves the sensor's work per command. */
	bool step = ev->reason == PL_END_EXEC && (ev->proc.id.flags & PL_PROC_FORKED);

	if (s->learn && !step)
		verdict = learner__process(s->learn, pi == match ? pi : NULL, &ev->proc, fails, nfails, ev->end_ns, true);
	if (want(s, RL_KIND_EXIT, s->opts->process_records) && (!step || s->opts->process_records)) {
		const char *cg = identity__cgroup_path(s->ident, ev->proc.id.cgroup_id);
		struct json_object *rec = with_baseline(
			record__process(tgid, match, &ev->proc, cg, fails, nfails, &end, mono_to_real()), TAKE_PTR(verdict));

		if (rec)
			decorate(s, rec, match);
		commit(s, rec, !step && evaluate(s, rec, RL_KIND_EXIT));
		if (s->opts->process_records) {
			emit(s, rec);
			s->process_records++;
		} else {
			json_object_put(rec);
		}
	} else {
		commit(s, NULL, false);
	}
	json_object_put(verdict);
	if (ev->reason == PL_END_EXIT)
		proctable__remove(s->procs, tgid);
}

/* Records handled per consume call: past it the loop comes back to epoll, so
 * signals and ticks are served during a sustained storm of records. */
#define CONSUME_BUDGET 4096

static int on_record(void *ctx, void *data, size_t size)
{
	struct sensor *s = ctx;
	const struct pl_hdr *h = data;
	static const size_t want[] = {
		[PL_EV_EXEC] = sizeof(struct pl_ev_exec),
		[PL_EV_FORK] = sizeof(struct pl_ev_proc),
		[PL_EV_SEEN] = sizeof(struct pl_ev_proc),
		[PL_EV_END] = sizeof(struct pl_ev_end),
		[PL_EV_FAIL_PATH] = sizeof(struct pl_ev_fail_path),
	};

	if (size < sizeof(*h) || h->version != PL_ABI_VERSION || h->type < PL_EV_EXEC || h->type > PL_EV_FAIL_PATH ||
	    size < want[h->type] || h->size != want[h->type]) {
		s->invalid_events++;
		return 0;
	}
	s->events[h->type]++;
	s->consumed++;
	switch (h->type) {
	case PL_EV_EXEC:
		on_exec(s, data);
		break;
	case PL_EV_FORK:
	case PL_EV_SEEN:
		on_fork_or_seen(s, data);
		break;
	case PL_EV_END:
		on_end(s, data);
		break;
	case PL_EV_FAIL_PATH:
		failpaths__on_record(s->fails, data);
		break;
	}
	/* the record is consumed either way; a negative return only stops the batch */
	return s->consumed >= CONSUME_BUDGET ? -EAGAIN : 0;
}

/* Consume at most CONSUME_BUDGET records. */
static void consume(struct sensor *s)
{
	s->consumed = 0;
	bpfsensor__consume(s->bpf);
}

/* Consume what is pending (before a tick reads the process table, and at
 * shutdown), bounded so that producers faster than us can't hold us here. */
static void drain(struct sensor *s)
{
	int batches = 0;

	do
		consume(s);
	while (s->consumed >= CONSUME_BUDGET && ++batches < 64);
}

/* ---- content hashes finished off the loop (identity.h) ---- */

struct hashed {
	struct sensor *s;
	uint32_t dev; /* kernel dev_t */
	uint64_t ino;
	const char *binary_id;
};

/* The file (h->dev, h->ino) is identified: every image of it still without a
 * binary_id gets it (those that waited, and those the full queue left
 * without), every image whose parent context waited for it gets that, and
 * each such image is attached to its baseline once nothing is left to wait for. */
static void hashed_one(struct proc_info *pi, void *ctx)
{
	const struct hashed *h = ctx;
	bool changed = false;

	if (!pi->binary_id && pi->exe_dev == h->dev && pi->exe_ino == h->ino) {
		pi->binary_id = strdup(h->binary_id);
		pi->hash_wait = false;
		changed = true;
	}
	if (pi->parent_wait.on && pi->parent_wait.dev == h->dev && pi->parent_wait.ino == h->ino) {
		if (!pi->parent_binary_id)
			pi->parent_binary_id = strdup(h->binary_id);
		pi->parent_wait.on = false;
		changed = true;
	}
	if (changed && !pi->bl)
		attach_unless_waiting(h->s, pi);
}

static void on_hashed(void *ctx, uint32_t kdev, uint64_t ino, const char *binary_id)
{
	struct hashed h = { .s = ctx, .dev = kdev, .ino = ino, .binary_id = binary_id };

	proctable__foreach(h.s->procs, hashed_one, &h);
}

static void on_identity(struct sensor *s)
{
	identity__completed(s->ident, on_hashed, s);
}

static struct json_object *identity_stats_json(const struct identity *id)
{
	const struct identity_stats *st = identity__stats(id);
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "hashes_queued", json_object_new_uint64(st->hashes_queued));
	json_object_object_add(o, "hashes_done", json_object_new_uint64(st->hashes_done));
	json_object_object_add(o, "hash_failures", json_object_new_uint64(st->hash_failures));
	json_object_object_add(o, "hash_queue_full", json_object_new_uint64(st->hash_queue_full));
	json_object_object_add(o, "hashes_pending", json_object_new_uint64(st->hashes_pending));
	json_object_object_add(o, "hash_ns", json_object_new_uint64(st->hash_ns));
	return o;
}

/* ---- periodic work ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Visit every process in the kernel table once, with its current counters.
 * The keys are collected first: when an entry is deleted under the cursor
 * (a process exits meanwhile) the kernel restarts the walk, which would
 * otherwise visit processes twice.
 */
static void foreach_kernel_proc(struct sensor *s, void (*fn)(struct sensor *, uint32_t, struct pl_proc *, uint64_t))
{
	int fd = bpfsensor__procs_fd(s->bpf);
	uint64_t now = mono_ns();
	uint32_t key, next, *keys = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0 && n < s->opts->max_procs * 2u) {
		key = next;
		prev = &key;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			uint32_t *k = realloc(keys, ncap * sizeof(*k));

			if (!k)
				break;
			keys = k;
			cap = ncap;
		}
		keys[n++] = key;
	}
	if (n)
		qsort(keys, n, sizeof(*keys), cmp_u32);
	for (size_t i = 0; i < n; i++) {
		if (i && keys[i] == keys[i - 1])
			continue;
		if (bpf_map_lookup_elem(fd, &keys[i], &s->scratch) == 0)
			fn(s, keys[i], &s->scratch, now);
	}
	free(keys);
}

/* The image's lifetime-so-far counters, for rules at window time. */
static struct json_object *window_total(const struct pl_proc *p, const struct fail_count *fails, uint32_t nfails)
{
	static const struct record_end running = { .reason = "running" };
	struct json_object *full = record__process(0, NULL, p, NULL, NULL, 0, &running, 0), *o, *v;
	static const char *const keep[] = { "cpu_ns", "offcpu_ns", "runq_ns", "blocked_ns", "syscalls",
					    "open_failures", "ctx_switches", "threads", "syscalls_by_name" };
	const struct fail_count *top;

	o = json_object_new_object();
	for (size_t i = 0; full && i < ARRAY_SIZE(keep); i++)
		if (json_object_object_get_ex(full, keep[i], &v))
			json_object_object_add(o, keep[i], json_object_get(v));
	json_object_put(full);
	top = top_fail(fails, nfails);
	json_object_object_add(o, "fail_paths", json_object_new_uint64(nfails));
	json_object_object_add(o, "top_fail_path", record__str(top ? top->ref->path : NULL));
	json_object_object_add(o, "top_fail_count", top ? json_object_new_uint64(top->count) : NULL);
	return o;
}

static void window_one(struct sensor *s, uint32_t tgid, struct pl_proc *p, uint64_t now)
{
	struct proc_info *pi = proctable__get(s->procs, tgid);
	struct json_object *verdict = NULL, *rec = NULL;
	struct fail_count *fails = NULL;
	const struct pl_stats *prev;
	uint64_t start, sc, cpu, fail;
	uint32_t nfails = 0;

	if (!pi || pi->image_id != p->id.image_id)
		return; /* its start record is still in the ring buffer */
	prev = pi->have_last ? &pi->last : NULL;
	start = pi->have_last ? pi->last_ns : p->id.image_start_ns;
	sc = stats__syscalls(&p->st) - (prev ? stats__syscalls(prev) : 0);
	cpu = p->st.cpu_ns - (prev ? prev->cpu_ns : 0);
	fail = p->st.open_fail - (prev ? prev->open_fail : 0);
	/* the runaway streak: whole seconds at >= 90 % of a core */
	if (prev && now > start)
		pi->busy_s = cpu * 10 >= (now - start) * 9 ? pi->busy_s + (now - start) / 1e9 : 0;
	if (fail)
		fails = failpaths__collect(s->fails, pi, false, &nfails);
	if (sc || cpu) {
		const struct fail_count *top = top_fail(fails, nfails);

		/* a running process's failures this second are put on its top path */
		binagg__add(s->bin, pi->binary_id, fail, top ? top->ref->path : NULL, top ? fail : 0);
	}
	/* only whole windows are samples; idle ones too: idle is what a daemon normally is */
	if (s->learn && prev && now - start > 500000000ull && now - start < 1500000000ull)
		verdict = learner__window(s->learn, pi, &p->st, prev, now - start);
	if (s->live && (!prev || cpu || sc))
		live__add(s->live, display_name(pi, p), cpu, p->st.offcpu_ns - (prev ? prev->offcpu_ns : 0), sc, fail,
			  live_first(s, pi), 0);
	if ((sc || cpu) && want(s, RL_KIND_WINDOW, s->opts->window_records)) {
		const char *cg = identity__cgroup_path(s->ident, p->id.cgroup_id);

		rec = with_baseline(record__window(tgid, pi, p, cg, prev, start, now, mono_to_real()), TAKE_PTR(verdict));
		if (rec) {
			decorate(s, rec, pi);
			json_object_object_add(rec, "total", window_total(p, fails, nfails));
			json_object_object_add(rec, "busy_s", json_object_new_double(pi->busy_s));
		}
	}
	commit(s, rec, evaluate(s, rec, RL_KIND_WINDOW));
	if (rec && s->opts->window_records) {
		emit(s, rec);
		s->window_records++;
	} else {
		json_object_put(rec);
	}
	json_object_put(verdict);
	free(fails);
	pi->last = p->st;
	pi->last_ns = now;
	pi->have_last = true;
}

static void final_one(struct sensor *s, uint32_t tgid, struct pl_proc *p, uint64_t now)
{
	struct proc_info *pi = proctable__get(s->procs, tgid);
	struct proc_info *match = pi && pi->image_id == p->id.image_id ? pi : NULL;
	struct record_end end = { .end_ns = now, .reason = "running" };
	struct json_object *verdict = NULL;
	struct fail_count *fails;
	uint32_t nfails;

	fails = failpaths__collect(s->fails, match, false, &nfails);
	if (s->learn) /* scored, not learned: a running process is not a finished sample */
		verdict = learner__process(s->learn, match, p, fails, nfails, now, false);
	{
		struct json_object *rec = with_baseline(record__process(tgid, match, p,
									identity__cgroup_path(s->ident, p->id.cgroup_id),
									fails, nfails, &end, mono_to_real()),
							verdict);

		/* the same context as any record; no rules: a running process has not exited */
		if (rec)
			decorate(s, rec, match);
		emit(s, rec);
	}
	s->process_records++;
	free(fails);
}

/* What was lost so far, by what it was (the live view, the last log line). */
static struct live_losses losses(struct sensor *s)
{
	uint64_t k[PL_DROP_MAX] = { 0 };

	bpfsensor__drops(s->bpf, k);
	return (struct live_losses){
		.records = k[PL_DROP_RINGBUF] + s->invalid_events,
		.processes = k[PL_DROP_PROC_MAP] + s->proctable_full,
		.output_writes = (s->out ? s->out->dropped : 0) + (s->syslog ? s->syslog->dropped : 0),
		.fail_paths = k[PL_DROP_FAILPATH_MAP] + k[PL_DROP_FAILPATH_IMAGE] + k[PL_DROP_PATH_FAULT],
		.threads = k[PL_DROP_THREAD_STATE],
	};
}

static struct json_object *stats_record(struct sensor *s)
{
	static const char *const ev_names[] = { NULL, "exec", "fork", "seen", "end", "fail_path" };
	static const char *const drop_names[PL_DROP_MAX] = {
		"ringbuf_full", "proc_map_full", "fail_path_map_full", "path_truncated",
		"args_truncated", "thread_state", "path_fault", "fail_path_image_cap",
	};
	const struct failpaths_stats *fst = failpaths__stats(s->fails);
	struct json_object *o = json_object_new_object(), *ev, *kd, *ud, *out, *feat, *fp;
	uint64_t k[PL_DROP_MAX] = { 0 };
	struct rusage ru;

	bpfsensor__drops(s->bpf, k);
	getrusage(RUSAGE_SELF, &ru);
	json_object_object_add(o, "type", json_object_new_string("stats"));
	json_object_object_add(o, "time_ns", json_object_new_uint64(mono_ns() + mono_to_real()));
	json_object_object_add(o, "uptime_ns", json_object_new_uint64(mono_ns() - s->start_ns));
	ev = json_object_new_object();
	for (int i = PL_EV_EXEC; i <= PL_EV_FAIL_PATH; i++)
		json_object_object_add(ev, ev_names[i], json_object_new_uint64(s->events[i]));
	json_object_object_add(o, "ringbuf_records", ev);
	json_object_object_add(o, "invalid_records", json_object_new_uint64(s->invalid_events));
	json_object_object_add(o, "process_records", json_object_new_uint64(s->process_records));
	json_object_object_add(o, "window_records", json_object_new_uint64(s->window_records));
	kd = json_object_new_object();
	for (int i = 0; i < PL_DROP_MAX; i++)
		json_object_object_add(kd, drop_names[i], json_object_new_uint64(k[i]));
	json_object_object_add(o, "kernel_drops", kd);
	ud = json_object_new_object();
	json_object_object_add(ud, "proctable_full", json_object_new_uint64(s->proctable_full));
	json_object_object_add(ud, "fail_keys_unremembered", json_object_new_uint64(fst->unremembered));
	json_object_object_add(ud, "fail_paths_displaced", json_object_new_uint64(fst->displaced));
	json_object_object_add(o, "userspace_drops", ud);
	fp = json_object_new_object();
	json_object_object_add(fp, "table_entries", json_object_new_uint64(fst->table_entries));
	json_object_object_add(fp, "table_max", json_object_new_uint64(s->opts->max_fail_paths));
	json_object_object_add(fp, "orphans_swept", json_object_new_uint64(fst->orphans_swept));
	json_object_object_add(fp, "idle_moved", json_object_new_uint64(fst->idle_moved));
	json_object_object_add(fp, "unknown_swept", json_object_new_uint64(fst->unknown_swept));
	json_object_object_add(o, "fail_paths", fp);
	out = json_object_new_object();
	json_object_object_add(out, "written", json_object_new_uint64(s->out ? s->out->written : 0));
	json_object_object_add(out, "dropped", json_object_new_uint64(s->out ? s->out->dropped : 0));
	json_object_object_add(o, "output", out);
	if (s->syslog) {
		struct json_object *sl = json_object_new_object();

		json_object_object_add(sl, "written", json_object_new_uint64(s->syslog->written));
		json_object_object_add(sl, "dropped", json_object_new_uint64(s->syslog->dropped));
		json_object_object_add(o, "syslog", sl);
	} else {
		json_object_object_add(o, "syslog", NULL);
	}
	json_object_object_add(o, "tracked_processes", json_object_new_uint64(proctable__count(s->procs)));
	json_object_object_add(o, "sensor_cpu_ns",
			       json_object_new_uint64((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
						      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull));
	json_object_object_add(o, "sensor_maxrss_kb", json_object_new_uint64(ru.ru_maxrss));
	feat = json_object_new_object();
	for (int i = 0; i < PL_FEAT_MAX; i++)
		json_object_object_add(feat, features__id(i), json_object_new_boolean(s->feat.have[i]));
	json_object_object_add(o, "features", feat);
	if (s->learn)
		learner__stats(s->learn, o);
	else
		json_object_object_add(o, "baselines", NULL);
	if (s->alerts)
		alerts__stats(s->alerts, o);
	else
		json_object_object_add(o, "rules", NULL);
	json_object_object_add(o, "binaries_untracked", json_object_new_uint64(binagg__overflow(s->bin)));
	json_object_object_add(o, "identity", identity_stats_json(s->ident));
	return o;
}

static void on_tick(struct sensor *s)
{
	uint64_t now = mono_ns();

	s->ticks++;
	drain(s); /* starts first, so windows see every started image */
	foreach_kernel_proc(s, window_one);
	binagg__tick(s->bin, s->last_tick_ns ? (now - s->last_tick_ns) / 1e9 : 1);
	s->last_tick_ns = now;
	if (s->ticks % s->opts->fail_sweep_s == 0)
		failpaths__sweep(s->fails, now);
	if (s->live && now - s->last_live_ns >= s->opts->live_interval_s * 1000000000ull - 50000000ull) {
		struct live_losses lost = losses(s);

		live__print(s->live, stdout, now - s->last_live_ns, proctable__count(s->procs), &lost);
		s->last_live_ns = now;
	}
	if (s->opts->stats_interval_s && s->ticks % s->opts->stats_interval_s == 0)
		emit(s, stats_record(s));
	if (s->learn && s->ticks % s->opts->flush_interval_s == 0)
		learner__flush(s->learn);
}

/* Why jsonl_output__open(path) failed with r, in words an operator can act on. */
static const char *json_open_why(int r, const char *path, char *buf, size_t size)
{
	struct stat st;

	if (r == -ELOOP)
		snprintf(buf, size, "it is a symbolic link, refused: the sensor's appends would go wherever it points; "
				    "give the file's own path, or - for standard output");
	else if (r == -EINVAL && lstat(path, &st) == 0)
		snprintf(buf, size, "it is %s, not a regular file; give a regular file, or - for standard output",
			 file_kind(st.st_mode));
	else
		snprintf(buf, size, "%s", strerror(-r));
	return buf;
}

static void on_signal(struct sensor *s)
{
	struct signalfd_siginfo si;
	int r;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			struct pl_output *n;

			if (s->alerts)
				alerts__reload(s->alerts);
			if (!s->out || strcmp(s->opts->json_path, "-") == 0)
				continue;
			r = jsonl_output__open(s->opts->json_path, &n);
			if (r < 0) {
				char why[256];

				log_warn("SIGHUP: cannot reopen %s: %s (keeping the old file)", s->opts->json_path,
					 json_open_why(r, s->opts->json_path, why, sizeof(why)));
				continue;
			}
			output__carry(n, s->out);
			output__free(s->out);
			s->out = n;
			log_info("SIGHUP: reopened %s", s->opts->json_path);
			continue;
		}
		log_info("%s: stopping", strsignal((int)si.ssi_signo));
		s->stop = true;
	}
}

/* ---- set-up ---- */

static int add_fd(struct sensor *s, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int timer_fd(uint64_t first_ns, uint64_t period_ns)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = first_ns / 1000000000ull, .tv_nsec = first_ns % 1000000000ull },
		.it_interval = { .tv_sec = period_ns / 1000000000ull, .tv_nsec = period_ns % 1000000000ull },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* sd_notify(3) READY=1 when started by a service manager (or a test). */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;
	size_t len;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	len = strlen(path);
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + len) < 0)
		log_warn("Cannot notify readiness on NOTIFY_SOCKET: %m");
}

static void sensor_close(struct sensor *s)
{
	bpfsensor__free(s->bpf);
	proctable__free(s->procs);
	identity__free(s->ident);
	if (s->out)
		output__flush(s->out);
	output__free(s->out);
	live__free(s->live);
	learner__free(s->learn); /* saves */
	alerts__free(s->alerts);
	output__free(s->syslog);
	output__free(s->text);
	binagg__free(s->bin);
	failpaths__free(s->fails);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->tickfd >= 0)
		close(s->tickfd);
	if (s->stopfd >= 0)
		close(s->stopfd);
}

static int sensor_open(struct sensor *s)
{
	struct bpfsensor_opts bo = {
		.max_procs = s->opts->max_procs,
		.max_fail_paths = s->opts->max_fail_paths,
		.ringbuf_kb = s->opts->ringbuf_kb,
		.refresh_hz = s->opts->refresh_hz,
		.fail_keys_burst = PROC_MAX_FAIL_KEYS,
		.fail_keys_per_s = 32,
	};
	sigset_t mask;
	int r;

	features__probe(&s->feat, true);
	r = features__check_required(&s->feat);
	if (r < 0)
		return r;
	features__warn_optional(&s->feat);

	if (s->opts->json_path) {
		r = jsonl_output__open(s->opts->json_path, &s->out);
		if (r < 0) {
			char why[256];

			return log_error_errno(r, "Cannot open JSON output '%s': %s", s->opts->json_path,
					       json_open_why(r, s->opts->json_path, why, sizeof(why)));
		}
		s->out_label = (struct out_label){ .noun = "records", .until = "until writing works again" };
		snprintf(s->out_label.where, sizeof(s->out_label.where), "%s",
			 strcmp(s->opts->json_path, "-") == 0 ? "stdout" : s->opts->json_path);
		output__set_reporter(s->out, on_output, &s->out_label);
	}
	if (proctable__new(s->opts->max_procs, &s->procs) < 0 ||
	    (s->opts->live == LIVE_ON && live__new(&s->live) < 0))
		return log_error_errno(ENOMEM, "Out of memory");
	r = identity__new(s->feat.cgroup2, &s->ident);
	if (r < 0)
		return log_error_errno(r, "Cannot start the identity hash worker: %m");

	/* a JSON output on a pipe whose reader went away is an output that
	 * fails (EPIPE, counted and reported), not a reason to die */
	{
		struct sigaction ign = { .sa_handler = SIG_IGN };

		if (sigaction(SIGPIPE, &ign, NULL) < 0)
			return log_error_errno(errno, "sigaction: %m");
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(errno, "sigprocmask: %m");
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0)
		return log_error_errno(errno, "signalfd: %m");

	if (s->opts->rules) {
		static const char *def; /* static: alerts keeps &def, and reads it at every SIGHUP */
		struct alerts_opts ao = {
			.paths = s->opts->nrule_paths ? s->opts->rule_paths : &def,
			.npaths = s->opts->nrule_paths ? s->opts->nrule_paths : 1,
			.enable = s->opts->enable,
			.nenable = s->opts->nenable,
			.disable = s->opts->disable,
			.ndisable = s->opts->ndisable,
			.regex_budget_ns = (uint64_t)s->opts->regex_budget_ms * 1000000ull,
		};

		def = run_opts__default_rules();
		/* bad rules at start-up stop the sensor: nobody should believe it is watching */
		r = alerts__open(&ao, &s->alerts);
		if (r < 0)
			return r;
		if (s->opts->syslog.kind != PL_SYSLOG_OFF) {
			char target[PL_SYSLOG_PATH_MAX + 8];

			r = syslog_output__open(&s->opts->syslog, "plumbline", LOG_DAEMON, &s->syslog);
			if (r < 0)
				return log_error_errno(r, "Cannot set up the syslog output: %m");
			syslog_target__format(&s->opts->syslog, target, sizeof(target));
			s->syslog_label = (struct out_label){
				.noun = "alerts",
				.until = "until a syslog daemon listens there, retried at most once a second",
			};
			snprintf(s->syslog_label.where, sizeof(s->syslog_label.where), "syslog (%s)", target);
			/* a target unusable already is said now, not at the first alert */
			output__set_reporter(s->syslog, on_output, &s->syslog_label);
		}
		if (s->opts->live == LIVE_ON && text_output__open(stdout, &s->text) < 0)
			return log_error_errno(ENOMEM, "Out of memory");
		if (s->text) {
			s->text_label = (struct out_label){ .noun = "alert lines", .where = "stdout",
							    .until = "until writing works again" };
			output__set_reporter(s->text, on_output, &s->text_label);
		}
	}
	if (binagg__new(4096, &s->bin) < 0)
		return log_error_errno(ENOMEM, "Out of memory");

	/* A state directory it cannot use (insecure, in use, uncreatable) stops the
	 * sensor, as bad rules do: nobody should believe it is learning. */
	if (s->opts->baselines) {
		r = learner__open(s->opts->state_dir, &s->opts->policy, &s->learn);
		if (r < 0) {
			log_error("not starting without the baselines it was asked for (--no-baselines runs without them)");
			return r;
		}
	}

	r = bpfsensor__open(&bo, &s->feat, on_record, s, &s->bpf);
	if (r < 0)
		return r;
	{
		struct failpaths_table tbl = bpfsensor__fail_table(s->bpf);

		if (failpaths__new(&tbl, s->procs, &s->fails) < 0)
			return log_error_errno(ENOMEM, "Out of memory");
	}

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return log_error_errno(errno, "epoll_create1: %m");
	s->tickfd = timer_fd(1000000000ull, 1000000000ull);
	if (s->tickfd < 0)
		return log_error_errno(s->tickfd, "timerfd: %m");
	if (s->opts->duration_s > 0) {
		s->stopfd = timer_fd((uint64_t)(s->opts->duration_s * 1e9), 0);
		if (s->stopfd < 0)
			return log_error_errno(s->stopfd, "timerfd: %m");
		r = add_fd(s, s->stopfd, FD_STOP);
		if (r < 0)
			return log_error_errno(r, "epoll_ctl: %m");
	}
	r = add_fd(s, bpfsensor__epoll_fd(s->bpf), FD_RINGBUF);
	if (!r)
		r = add_fd(s, s->sigfd, FD_SIGNAL);
	if (!r)
		r = add_fd(s, s->tickfd, FD_TICK);
	if (!r)
		r = add_fd(s, identity__epoll_fd(s->ident), FD_IDENTITY);
	if (r < 0)
		return log_error_errno(r, "epoll_ctl: %m");
	return 0;
}

static void sensor_shutdown(struct sensor *s)
{
	drain(s);
	on_identity(s); /* hashes finished meanwhile, for the running records */
	if (s->opts->process_records)
		foreach_kernel_proc(s, final_one);
	emit(s, stats_record(s));
}

int sensor_run(const struct run_opts *opts)
{
	struct sensor *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return log_error_errno(ENOMEM, "Out of memory");
	s->opts = opts;
	s->epfd = s->sigfd = s->tickfd = s->stopfd = -1;
	s->start_ns = s->last_live_ns = mono_ns();
	r = sensor_open(s);
	if (r < 0)
		goto out;

	log_info("attached: watching every process (%s%s)", s->opts->process_records ? "process records" : "no process records",
		 s->opts->json_path ? "" : ", no JSON output");
	notify_ready();
	while (!s->stop) {
		struct epoll_event evs[8];
		/* records don't wake us one by one (BPF_RB_NO_WAKEUP until an
		 * eighth of the ring is pending): collect them every 100 ms */
		int n = epoll_wait(s->epfd, evs, 8, 100);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = log_error_errno(errno, "epoll_wait: %m");
			break;
		}
		if (n == 0)
			consume(s);
		for (int i = 0; i < n; i++) {
			uint64_t expirations;

			switch (evs[i].data.u32) {
			case FD_RINGBUF:
				consume(s);
				break;
			case FD_SIGNAL:
				on_signal(s);
				break;
			case FD_TICK:
				if (read(s->tickfd, &expirations, sizeof(expirations)) > 0)
					on_tick(s);
				break;
			case FD_STOP:
				s->stop = true;
				break;
			case FD_IDENTITY:
				on_identity(s);
				break;
			}
		}
	}
	sensor_shutdown(s);
	{
		struct live_losses lost = losses(s);
		char text[256];

		live__losses_text(&lost, text, sizeof(text));
		log_info("detached after %.1f s: %llu process records, %s", (mono_ns() - s->start_ns) / 1e9,
			 (unsigned long long)s->process_records, text);
	}
out:
	sensor_close(s);
	free(s);
	return r;
}
