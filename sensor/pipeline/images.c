// SPDX-License-Identifier: MIT
/*
 * images.c - from the kernel's records to samples (see images.h).
 *
 * One sample is filled in place per moment and handed to the pipeline; its
 * strings are borrowed from the process table and the record in hand, its
 * counts point into the kernel's counters, so building one costs a few
 * stores. Per-syscall and per-errno window deltas are computed into this
 * module's own arrays.
 */
#include "pipeline/images.h"
#include "process/exitwin.h"
#include "process/pipes.h"
#include "process/waitstate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "clock.h"
#include "cpuwin.h"
#include "identity/buildkey.h"
#include "identity/scriptkey.h"
#include "process/fileclass.h"
#include "textsafe.h"

_Static_assert(PL_SAMPLE_NR_SYSCALLS == PL_NR_SYSCALLS, "sample and kernel count the same syscalls");
_Static_assert(PL_SAMPLE_NR_ERRNO == PL_NR_ERRNO, "sample and kernel count the same errnos");

struct images {
	struct images_deps d;
	struct images_stats st;
	struct pl_sample sample;      /* the one being built */
	char comm[PL_COMM_LEN];       /* the record's comm, NUL-terminated */
	unsigned long long win_sc[PL_NR_SYSCALLS], win_errno[PL_NR_ERRNO];
	struct scriptkey_cache *scripts; /* script content hashes */
	struct exitwin *exits;        /* failed exits per (binary, user): auth.* */
	struct pipes *pipes;          /* who writes whose stdin: proc.stdin_writer */
	/* the /proc reads of this pass (budget) */
	uint64_t wait_pass_ns;
	uint32_t wait_pass_reads;
	struct pl_wait wait;
	/* shutdown (images__closing()): the images written "running", so that an
	 * end record read after the walk does not write one of them again */
	bool closing, ran_sorted;
	struct ran {
		uint32_t tgid;
		uint64_t image_id;
	} *ran;
	size_t nran, ran_cap;
};

int images__new(const struct images_deps *d, struct images **ret)
{
	struct images *im = calloc(1, sizeof(*im));

	if (!im)
		return -ENOMEM;
	im->d = *d;
	if (scriptkey_cache__new(&im->scripts) < 0) {
		free(im);
		return -ENOMEM;
	}
	if (exitwin__new(1024, &im->exits) < 0 || pipes__new(&im->pipes) < 0) {
		exitwin__free(im->exits);
		scriptkey_cache__free(im->scripts);
		free(im);
		return -ENOMEM;
	}
	*ret = im;
	return 0;
}

void images__free(struct images *im)
{
	if (im) {
		scriptkey_cache__free(im->scripts);
		exitwin__free(im->exits);
		pipes__free(im->pipes);
		free(im->ran);
	}
	free(im);
}

void images__closing(struct images *im)
{
	im->closing = true;
}

static int cmp_ran(const void *a, const void *b)
{
	const struct ran *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->image_id < y->image_id ? -1 : x->image_id > y->image_id;
}

/* Whether the shutdown's walk wrote (tgid, image_id) "running". */
static bool ran_already(struct images *im, uint32_t tgid, uint64_t image_id)
{
	struct ran key = { .tgid = tgid, .image_id = image_id };

	if (!im->nran)
		return false;
	if (!im->ran_sorted) {
		qsort(im->ran, im->nran, sizeof(im->ran[0]), cmp_ran);
		im->ran_sorted = true;
	}
	return bsearch(&key, im->ran, im->nran, sizeof(im->ran[0]), cmp_ran) != NULL;
}

const struct images_stats *images__stats(const struct images *im)
{
	return &im->st;
}

/* A span of all of st (the image so far). */
static void span_total(struct pl_span *sp, const struct pl_stats *st)
{
	*sp = (struct pl_span){
		.cpu_ns = st->cpu_ns,
		.offcpu_ns = st->offcpu_ns,
		.runq_ns = st->runq_ns,
		.ctx_switches = st->ctx_switches,
		.syscalls = st->syscalls,
		.sc_other = st->sc_other,
		.open_fail = st->open_fail,
		.open_fail_unrecorded = st->open_fail_unrecorded,
		.net_connects = st->net_connects,
		.net_connect_fail = st->net_connect_fail,
		.net_dests = st->net_dests,
		.sc = st->sc,
		.fail_errno = st->open_fail_errno,
	};
}

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

/* A span of cur - prev, its arrays in im. */
static void span_delta(struct images *im, struct pl_span *sp, const struct pl_stats *cur, const struct pl_stats *prev)
{
	for (int i = 0; i < PL_NR_SYSCALLS; i++)
		im->win_sc[i] = delta(cur->sc[i], prev->sc[i]);
	for (int i = 0; i < PL_NR_ERRNO; i++)
		im->win_errno[i] = delta(cur->open_fail_errno[i], prev->open_fail_errno[i]);
	*sp = (struct pl_span){
		.cpu_ns = delta(cur->cpu_ns, prev->cpu_ns),
		.offcpu_ns = delta(cur->offcpu_ns, prev->offcpu_ns),
		.runq_ns = delta(cur->runq_ns, prev->runq_ns),
		.ctx_switches = delta(cur->ctx_switches, prev->ctx_switches),
		.syscalls = delta(cur->syscalls, prev->syscalls),
		.sc_other = delta(cur->sc_other, prev->sc_other),
		.open_fail = delta(cur->open_fail, prev->open_fail),
		.open_fail_unrecorded = delta(cur->open_fail_unrecorded, prev->open_fail_unrecorded),
		.net_connects = delta(cur->net_connects, prev->net_connects),
		.net_connect_fail = delta(cur->net_connect_fail, prev->net_connect_fail),
		.net_dests = delta(cur->net_dests, prev->net_dests),
		.sc = im->win_sc,
		.fail_errno = im->win_errno,
	};
}

/*
 * The sample of moment m of the image id of process tgid (pi: what user
 * space knows of it, may be NULL), its times converted with m2r.
 */
static struct pl_sample *new_sample(struct images *im, enum pl_moment m, uint32_t tgid, const struct pl_ident *id,
				    const struct proc_info *pi, int64_t m2r)
{
	struct pl_sample *s = &im->sample;
	uint32_t ppid = pi ? pi->ppid : 0;

	pl_sample__init(s, m);
	memcpy(im->comm, id->comm, sizeof(im->comm));
	im->comm[sizeof(im->comm) - 1] = '\0';
	s->pid = tgid;
	s->ppid = id->ppid;
	s->uid = id->uid;
	s->comm = im->comm;
	s->exe_dev = id->exe_dev;
	s->exe_ino = id->exe_ino;
	s->cgroup_id = id->cgroup_id;
	s->cgroup = identity__cgroup_path(im->d.ident, id->cgroup_id);
	s->image = id->flags & PL_PROC_EXECED ? PL_IMAGE_EXEC : id->flags & PL_PROC_FORKED ? PL_IMAGE_FORK
											 : PL_IMAGE_PREEXISTING;
	s->partial = id->flags & PL_PROC_PARTIAL;
	/* the exe's kind, as the exec program saw it (forks inherit it) */
	s->exe_kind = id->flags & PL_PROC_EXE_MEMFD     ? "memfd"
		      : id->flags & PL_PROC_EXE_DELETED ? "deleted"
		      : id->flags & PL_PROC_PARTIAL     ? NULL
							: "file";
	s->exe_mtime_ns = id->exe_mtime_ns;
	s->exe_net_written_known = !(id->flags & PL_PROC_PARTIAL);
	s->exe_net_written = id->flags & PL_PROC_EXE_NETWRITTEN;
	s->connected = id->flags & PL_PROC_CONNECTED;
	s->start_ns = id->proc_start_ns + (uint64_t)m2r;
	s->image_start_ns = id->image_start_ns + (uint64_t)m2r;
	s->threads = id->threads;
	if (!pi)
		return s;
	s->exec_comm = pi->exec_comm[0] ? pi->exec_comm : NULL;
	s->exe = pi->exe;
	s->exe_trusted_known = pi->exe_trusted_known;
	s->exe_trusted = pi->exe_trusted;
	s->exe_memfd_copy_of = pi->exe_memfd_copy_of;
	s->stdin_pipe = pi->stdin_pipe;
	s->stdin_writer = pi->stdin_writer;
	s->filename = pi->filename;
	s->filename_truncated = pi->filename_truncated;
	s->cmdline = pi->cmdline;
	s->script = pi->script;
	s->build_id = pi->build_id;
	s->binary_id = pi->binary_id;
	s->parent_exe = pi->parent_exe;
	for (int depth = 0; depth < PL_SAMPLE_ANCESTORS && ppid > 1; depth++) {
		const struct proc_info *a = proctable__get(im->d.procs, ppid);

		if (!a || a->ppid == ppid)
			break;
		s->ancestors[s->nancestors++] = a->exe;
		ppid = a->ppid;
	}
	return s;
}

/* ---- live view ---- */

static const char *display_name(const struct proc_info *pi, const char *comm)
{
	return pi && pi->exe ? pi->exe : comm;
}

/* The sensor's own process id: its row of the live view stands apart. */
static uint32_t own_tgid(void)
{
	static uint32_t own;

	if (!own)
		own = (uint32_t)getpid();
	return own;
}

/* Whether pi is counted for the first time in the current live interval. */
static bool live_first(struct images *im, struct proc_info *pi)
{
	uint64_t now = live__interval(im->d.live) + 1; /* 0 means never */

	if (!pi)
		return true;
	if (pi->live_interval == now)
		return false;
	pi->live_interval = now;
	return true;
}

/* ---- start records ---- */

static struct proc_info *start_image(struct images *im, uint32_t tgid, const struct pl_ident *id)
{
	struct proc_info *pi = proctable__reset(im->d.procs, tgid, id->image_id);

	if (!pi) {
		im->st.proctable_full++;
		return NULL;
	}
	pi->flags = id->flags;
	pi->maps_past_preloads = !(id->flags & PL_PROC_EXECED);
	pi->ppid = id->ppid;
	pi->uid = id->uid;
	pi->exe_dev = id->exe_dev;
	pi->exe_ino = id->exe_ino;
	memcpy(pi->exec_comm, id->comm, sizeof(pi->exec_comm));
	pi->exec_comm[PL_COMM_LEN - 1] = '\0';
	return pi;
}

/* Whether no unprivileged user could have placed the image's executable. */
static void check_trust(struct proc_info *pi)
{
	pi->exe_trusted_known = pi->exe != NULL;
	pi->exe_trusted = identity__exe_trusted(pi->exe, pi->exe_dev, pi->exe_ino);
}

/* What the kernel said of the image's executable, as identity wants it. */
#define stamp_of(id)                                                                                          \
	((struct exe_stamp){ .kdev = (id)->exe_dev, .ino = (id)->exe_ino, .size = (id)->exe_size,            \
			     .mtime_ns = (id)->exe_mtime_ns, .ctime_ns = (id)->exe_ctime_ns })

static char *dup_or_null(const char *x)
{
	return x ? strdup(x) : NULL;
}

/* The build directory of a new image: its predecessor's (the same
 * process's previous image, or its fork parent's), so that the outermost
 * driver's stands; else, for a driver, its own from its exec record (cwd
 * NULL: a process already running, whose cwd only /proc can say). */
static char *build_dir_of(const struct proc_info *pi, char *inherited, const char *cwd, bool cwd_cut,
			  const char *args, size_t args_len)
{
	const char *exe = pi->exe ? pi->exe : pi->filename;
	char link[64], dir[PATH_MAX], *out = NULL;
	ssize_t n;

	if (inherited || !buildkey__is_driver(exe))
		return inherited;
	if (!cwd) {
		snprintf(link, sizeof(link), "/proc/%u/cwd", pi->tgid);
		n = readlink(link, dir, sizeof(dir) - 1);
		if (n <= 0)
			return NULL;
		dir[n] = '\0';
		cwd = dir;
	}
	(void)buildkey__driver_dir(exe, cwd, cwd_cut, args, args_len, &out);
	return out;
}

/* "+build:DIR" for a build tool inside a build, else NULL (also on ENOMEM). */
static char *build_suffix(const struct proc_info *pi)
{
	char *out = NULL;

	if (pi->build_dir && buildkey__is_keyed(pi->exe ? pi->exe : pi->filename))
		(void)buildkey__suffix(pi->build_dir, &out);
	return out;
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
 * (images__on_hashed()), not before: now it would get no baseline, or one
 * keyed by "-" for its parent, which is another context's.
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

static void attach_unless_waiting(struct images *im, struct proc_info *pi)
{
	if (im->d.learn && !pi->hash_wait && !pi->parent_wait.on)
		learner__attach(im->d.learn, pi);
}

struct hashed {
	struct images *im;
	uint32_t dev; /* kernel dev_t */
	uint64_t ino;
	const char *binary_id;
};

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
	if (changed && pi->child_wait.on && !pi->hash_wait && h->im->d.learn)
		learner__child_hashed(h->im->d.learn, proctable__get(h->im->d.procs, pi->child_wait.tgid), pi);
	if (changed && !pi->bl)
		attach_unless_waiting(h->im, pi);
}

void images__on_hashed(void *ctx, uint32_t kdev, uint64_t ino, const char *binary_id)
{
	struct hashed h = { .im = ctx, .dev = kdev, .ino = ino, .binary_id = binary_id };

	proctable__foreach(h.im->d.procs, hashed_one, &h);
}

/* A memfd executable that is a sealed copy of the image it replaced or of
 * its parent's binary (runc's re-exec of itself): which one. */
static void memfd_copy(struct proc_info *pi, uint32_t tgid, const char *prev_exe, const struct proc_info *parent)
{
	const char *cands[2] = { prev_exe, parent ? parent->exe : NULL };
	int i = identity__memfd_copy_of((pid_t)tgid, pi->exe_dev, pi->exe_ino, cands, 2);

	if (i >= 0)
		pi->exe_memfd_copy_of = strdup(cands[i]);
}

/* parent exec'd a child through a fork: it, and the forks of its image
 * above it (sudo's monitor between sudo and the command), ran something. */
static void mark_ran_child(struct images *im, struct proc_info *parent)
{
	for (int depth = 0; parent && depth < 4; depth++) {
		parent->ran_child = true;
		if (!parent->forked)
			break;
		parent = proctable__get(im->d.procs, parent->ppid);
	}
}

/* The pipes on the new image's stdin and stdout (pipes.h): a writer tells
 * the readers exec'd before it; a reader learns the writer exec'd before. */
static void pipeline_of(struct images *im, const struct pl_ev_exec *ev, struct proc_info *pi)
{
	const char *exe = pi->exe ? pi->exe : pi->filename;
	uint64_t now = mono_ns();

	if (!im->pipes)
		return;
	if (ev->stdout_pipe) {
		struct pipe_reader r[PIPES_READERS];
		size_t n = pipes__writer(im->pipes, ev->stdout_pipe, exe, now, r, PIPES_READERS);

		for (size_t i = 0; i < n; i++) {
			struct proc_info *q = proctable__get(im->d.procs, r[i].tgid);
			char *dup;

			if (!q || q->image_id != r[i].image_id || !(dup = strdup(exe)))
				continue;
			free(q->stdin_writer);
			q->stdin_writer = dup;
		}
	}
	if (ev->stdin_pipe) {
		const char *w = pipes__reader(im->pipes, ev->stdin_pipe, ev->hdr.tgid, pi->image_id, now);

		pi->stdin_pipe = true;
		pi->stdin_writer = w ? strdup(w) : NULL;
	}
}

/* The executable was written in the last 10 minutes (a build's product):
 * a child by path (learner__child()). Unknown mtime: not fresh. */
static bool fresh_exe(const struct pl_ident *id)
{
	uint64_t now = real_ns();

	return id->exe_mtime_ns && id->exe_mtime_ns + 600ull * 1000000000ull > now;
}
/*
 * A #! script: the kernel judged its interpreter's file at exec (bprm->file
 * is the interpreter by then), so the script itself, by the absolute path
 * its key names, is looked up here in the kernel's table of files connected
 * processes wrote. The script may have changed since the exec; its inode
 * is what the table keys.
 */
static void script_net_written(struct images *im, struct proc_info *pi, const struct pl_ident *id)
{
	struct statx st;
	uint64_t btime = 0;

	if (!im->d.net_written || !pi->script || pi->script[0] != '/' || (id->flags & PL_PROC_EXE_NETWRITTEN))
		return;
	if (statx(AT_FDCWD, pi->script, 0, STATX_BASIC_STATS | STATX_BTIME, &st) < 0 || !S_ISREG(st.stx_mode))
		return;
	if (st.stx_mask & STATX_BTIME)
		btime = (uint64_t)st.stx_btime.tv_sec * 1000000000ull + st.stx_btime.tv_nsec;
	if (im->d.net_written(im->d.net_written_ctx, (uint32_t)(st.stx_dev_major << 20 | st.stx_dev_minor),
			      (uint64_t)st.stx_ino, btime))
		pi->flags |= PL_PROC_EXE_NETWRITTEN;
}

static void on_exec(struct images *im, const struct pl_ev_exec *ev)
{
	struct proc_info *old = proctable__get(im->d.procs, ev->hdr.tgid), *pi, *parent;
	char *fork_bin = old ? TAKE_PTR(old->parent_binary_id) : NULL;
	char *fork_exe = old ? TAKE_PTR(old->parent_exe) : NULL;
	struct hash_wait fork_wait = old ? old->parent_wait : (struct hash_wait){ 0 };
	char *build_dir = old ? TAKE_PTR(old->build_dir) : NULL;
	char *prev_exe = old && ev->id.flags & PL_PROC_EXE_MEMFD ? TAKE_PTR(old->exe) : NULL;
	char filename[PL_PATH_LEN], cwd_buf[PL_CWD_LEN];
	struct exe_stamp stamp = stamp_of(&ev->id);
	bool cwd_cut, cwd_known;
	struct exe_info exe;
	size_t args_len;
	int64_t m2r;

	pi = start_image(im, ev->hdr.tgid, &ev->id);
	if (!pi) {
		free(fork_bin);
		free(fork_exe);
		free(build_dir);
		free(prev_exe);
		return;
	}
	args_len = images__exec_strings(ev, filename, &pi->filename_truncated);
	cwd_known = images__exec_cwd(ev, cwd_buf, &cwd_cut);
	/* relative names resolve against the whole cwd only: a tail is no place */
	stamp.cwd = cwd_known && !cwd_cut ? cwd_buf : NULL;
	pi->filename = strdup(filename);
	pi->cmdline = text_cmdline(ev->args, args_len);
	identity__resolve_exe(im->d.ident, ev->hdr.tgid, &stamp, filename, &exe);
	pi->exe = exe.path;
	pi->build_id = exe.build_id;
	pi->binary_id = exe.binary_id;
	pi->hash_wait = exe.hash_pending;
	check_trust(pi);
	/* an interpreter is keyed by what it runs (out of memory: by its binary only) */
	(void)scriptkey__derive(im->scripts, ev->hdr.tgid, stamp.cwd, pi->exe ? pi->exe : pi->filename, ev->args,
				args_len, &pi->script_suffix, &pi->script);
	pi->build_dir = build_dir_of(pi, build_dir, cwd_known ? cwd_buf : "", cwd_cut, ev->args, args_len);
	if (!pi->script_suffix)
		pi->script_suffix = build_suffix(pi);
	parent = proctable__get(im->d.procs, ev->id.ppid);
	set_parent(pi, parent, fork_bin, fork_exe);
	if (ev->id.flags & PL_PROC_EXE_MEMFD)
		memfd_copy(pi, ev->hdr.tgid, prev_exe, parent);
	mark_ran_child(im, parent);
	pipeline_of(im, ev, pi);
	free(prev_exe);
	wait_for_parent(pi, parent, fork_wait.on ? &fork_wait : NULL);
	attach_unless_waiting(im, pi);
	if (im->d.learn)
		learner__child(im->d.learn, parent, pi, fresh_exe(&ev->id));
	script_net_written(im, pi, &ev->id);
	if (!pipeline__wants(im->d.pipe, PL_AT_EXEC))
		return;
	m2r = mono_to_real();
	{
		struct pl_sample *s = new_sample(im, PL_AT_EXEC, ev->hdr.tgid, &ev->id, pi, m2r);

		s->time_ns = s->image_start_ns;
		s->exe_net_written |= (pi->flags & PL_PROC_EXE_NETWRITTEN) != 0;
		pipeline__run(im->d.pipe, s, pi, PIPE_JUDGE | PIPE_RECORD, mono_ns() + (uint64_t)m2r);
	}
}

static void on_fork_or_seen(struct images *im, const struct pl_ev_proc *ev)
{
	const struct proc_info *parent = proctable__get(im->d.procs, ev->id.ppid);
	struct proc_info *pi = start_image(im, ev->hdr.tgid, &ev->id);
	struct exe_info exe;

	if (!pi)
		return;
	set_parent(pi, parent, NULL, NULL);
	wait_for_parent(pi, parent, NULL);
	/* a FORK record is handled after every record of its parent until
	 * then (one ordered ring buffer): the parent's entry is as it was */
	pi->build_dir = parent ? dup_or_null(parent->build_dir) : NULL;
	if (ev->hdr.type == PL_EV_FORK && parent && parent->exe && parent->binary_id &&
	    parent->exe_dev == ev->id.exe_dev && parent->exe_ino == ev->id.exe_ino) {
		/* a fork child runs its parent's image: same identity */
		pi->exe = dup_or_null(parent->exe);
		pi->build_id = dup_or_null(parent->build_id);
		pi->binary_id = dup_or_null(parent->binary_id);
		pi->cmdline = dup_or_null(parent->cmdline);
		/* another role than the exec'd image's, same script */
		pi->forked = true;
		pi->exe_trusted_known = parent->exe_trusted_known;
		pi->exe_trusted = parent->exe_trusted;
		pi->exe_memfd_copy_of = dup_or_null(parent->exe_memfd_copy_of);
		pi->script_suffix = dup_or_null(parent->script_suffix);
		pi->script = dup_or_null(parent->script);
	} else {
		identity__resolve_exe(im->d.ident, ev->hdr.tgid, &stamp_of(&ev->id), NULL, &exe);
		pi->exe = exe.path;
		pi->build_id = exe.build_id;
		pi->binary_id = exe.binary_id;
		pi->hash_wait = exe.hash_pending;
		pi->cmdline = identity__proc_cmdline(ev->hdr.tgid, PL_ARGS_LEN);
		pi->forked = ev->hdr.type == PL_EV_FORK; /* a fork image even when its parent is unknown */
		check_trust(pi);
	}
	/* a driver already running when the sensor started: only /proc knows its cwd */
	if (ev->hdr.type == PL_EV_SEEN)
		pi->build_dir = build_dir_of(pi, pi->build_dir, NULL, false, NULL, 0);
	attach_unless_waiting(im, pi);
}

/* ---- ends ---- */

static void set_exit(struct pl_sample *s, uint32_t reason, int32_t status)
{
	s->end_reason = reason == PL_END_EXEC ? "exec" : "exit";
	if (reason != PL_END_EXIT)
		return;
	if (!(status & 0x7f)) {
		s->has_exit_code = true;
		s->exit_code = (status >> 8) & 0xff;
	} else {
		s->has_exit_signal = true;
		s->exit_signal = status & 0x7f;
	}
}

void images__end_counts(const struct pl_ev_end *ev, struct pl_sample *s)
{
	span_total(&s->life, &ev->proc.st);
	set_exit(s, ev->reason, ev->exit_code);
}


/* How many of fails (a process's failed opens since its last look) count on
 * its top failed path for its binary's second: no more than that path's own
 * count. All of them on the top path made nine compilers (each failing
 * hundreds of include paths once, locale-archive first) a "storm" on
 * locale-archive; and the whole life's count of a retried path, added at
 * exit beside one second's failures, a share above 1. */
static uint64_t on_top_path(uint64_t fails, const struct pl_fail *top)
{
	if (!top)
		return 0;
	return fails < top->count ? fails : top->count;
}
static void on_end(struct images *im, const struct pl_ev_end *ev)
{
	uint32_t tgid = ev->hdr.tgid;
	const struct pl_stats *st = &ev->proc.st;
	struct proc_info *pi = proctable__get(im->d.procs, tgid);
	struct proc_info *match = pi && pi->image_id == ev->proc.id.image_id ? pi : NULL;
	struct pl_stats last;
	const struct pl_stats *prev = NULL;
	_cleanup_free_ struct pl_fail *fails = NULL;
	/* A fork child that exec'd was only ever a step towards another binary:
	 * its few syscalls would make a second mode in its binary's lifetimes,
	 * and it is no exit for rules to judge. Half of all images are such
	 * steps, so skipping them halves the sensor's work per command. */
	bool step = ev->reason == PL_END_EXEC && (ev->proc.id.flags & PL_PROC_FORKED);
	_cleanup_(oncpu_result_freep) struct oncpu_result *oncpu = NULL;
	int64_t m2r = mono_to_real();
	const char *peers[PROC_MAX_PEERS];
	struct pl_sample *s;
	uint32_t nfails = 0;

	if (im->closing && ran_already(im, tgid, ev->proc.id.image_id)) {
		im->st.ended_after_running++; /* written "running" by the shutdown's walk: once is enough */
		return;
	}

	if (match && match->have_last) {
		stats_pack__get(match->last, &last);
		prev = &last;
	}
	/* keys user space never learned (a lost record) are left to the
	 * periodic sweep: walking the whole table here, per process, would make
	 * a storm of such processes quadratic */
	fails = failpaths__collect(im->d.fails, match, true, &nfails);
	if (im->d.oncpu)
		oncpu = oncpu__collect(im->d.oncpu, tgid, ev->proc.id.image_id, ev->proc.oncpu_samples,
				      ev->proc.oncpu_unattributed, ev->reason == PL_END_EXEC ? ONCPU_EXEC : ONCPU_EXIT);
	s = new_sample(im, PL_AT_EXIT, tgid, &ev->proc.id, match, m2r);
	s->oncpu = oncpu ? &oncpu->oc : NULL;
	images__end_counts(ev, s);
	s->fails = fails;
	s->nfails = s->fail_paths = nfails;
	s->end_ns = s->time_ns = ev->end_ns + (uint64_t)m2r;
	if (match && match->peers_image == match->image_id) {
		for (uint32_t i = 0; i < match->npeers; i++)
			peers[i] = match->peers[i];
		s->peers = peers;
		s->npeers = match->npeers;
	}
	if (im->d.live) {
		static const struct pl_stats zero;
		const struct pl_stats *base = prev ? prev : &zero;

		if (tgid == own_tgid())
			live__add_own(im->d.live, st->cpu_ns - base->cpu_ns, st->offcpu_ns - base->offcpu_ns,
				      s->life.syscalls - (prev ? prev->syscalls : 0), st->open_fail - base->open_fail,
				      live_first(im, pi));
		else
			live__add(im->d.live, display_name(match, im->comm), st->cpu_ns - base->cpu_ns,
				  st->offcpu_ns - base->offcpu_ns, s->life.syscalls - (prev ? prev->syscalls : 0),
				  st->open_fail - base->open_fail, live_first(im, pi), 1);
	}
	if (match) {
		/* this process's failures since its last window count for its binary's second */
		const struct pl_fail *top = pl_sample__top_fail(s);
		uint64_t nfail = st->open_fail - (prev ? prev->open_fail : 0);

		binagg__add(im->d.bin, match->binary_id, nfail, top ? top->path : NULL, on_top_path(nfail, top));
		/* every path it failed, once for this process */
		binagg__add_fails(im->d.bin, match->binary_id, s->fails, s->nfails, mono_ns());
		binagg__get(im->d.bin, match->binary_id, &s->bin);
	}
	if (match && !(ev->proc.id.flags & PL_PROC_FORKED) && im->exits &&
	    (ev->reason == PL_END_EXEC || s->has_exit_code))
		exitwin__add(im->exits, match->exe, match->uid,
			     ev->reason == PL_END_EXIT && s->exit_code != 0 && !match->ran_child, mono_ns(), &s->auth);
	if (match && ev->reason == PL_END_EXIT)
		proctable__charge_clone(im->d.procs, match, pl_sample__wall_ns(s), s->life.cpu_ns + s->life.runq_ns);
	pipeline__run(im->d.pipe, s, match, step ? PIPE_RECORD : PIPE_SCORE | PIPE_LEARN | PIPE_JUDGE | PIPE_RECORD,
		      mono_ns() + (uint64_t)m2r);
	if (ev->reason == PL_END_EXIT)
		proctable__remove(im->d.procs, tgid);
}

/* ---- watched files ---- */

static const char *const fop_names[] = {NULL, "read", "write", "create", "rename"};

/* A rename's relative new name, made absolute with the process's cwd
 * (read now: it may have moved since, so best effort); false when unknown. */
static bool absolute_of(uint32_t tgid, const char *rel, char *out, size_t size)
{
	char link[64], cwd[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%u/cwd", tgid);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n <= 0)
		return false;
	cwd[n] = '\0';
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	return (size_t)snprintf(out, size, "%s/%s", strcmp(cwd, "/") ? cwd : "", rel) < size;
}

static void on_file(struct images *im, const struct pl_ev_file *ev)
{
	struct proc_info *pi = proctable__get(im->d.procs, ev->hdr.tgid);
	const struct fileclass *fc = im->d.classes ? *im->d.classes : NULL;
	char raw[PL_PATH_LEN], abs[PATH_MAX + PL_PATH_LEN];
	const char *path = raw, *name, *cls;
	struct pl_ident id = {0};
	struct pl_file_ev fe;
	struct pl_sample *s;
	bool ready = false;
	int64_t m2r;
	int isnew;

	memcpy(raw, ev->path, sizeof(raw));
	raw[sizeof(raw) - 1] = '\0';
	if ((ev->flags & PL_FILEF_RELATIVE) && ev->path_len <= PL_PATH_LEN) {
		if (!absolute_of(ev->hdr.tgid, raw, abs, sizeof(abs))) {
			im->st.files_unclassified++;
			return;
		}
		path = abs;
	}
	cls = fileclass__match(fc, path);
	if (ev->op == PL_FOP_CREATE || ev->op == PL_FOP_RENAME || (cls && ev->op == PL_FOP_WRITE))
		im->st.files_rescan |= cls != NULL; /* new inode where a class looks, or a home (passwd) */
	if (!cls) {
		im->st.files_unclassified++;
		return;
	}
	im->st.files_judged++;
	name = strrchr(path, '/');
	name = name ? name + 1 : path;
	fe = (struct pl_file_ev){
		.cls = cls,
		.op = ev->op < sizeof(fop_names) / sizeof(fop_names[0]) && fop_names[ev->op] ? fop_names[ev->op] : "?",
		.path = path,
		.name = name,
		.path_cut = ev->path_len > PL_PATH_LEN,
		.open_flags = ev->open_flags,
		.target_pid = ev->target_pid,
	};
	if (ev->target_pid) {
		const struct proc_info *t = proctable__get(im->d.procs, ev->target_pid);

		fe.target_exe = t ? t->exe : NULL;
	}
	if (pi) {
		memcpy(id.comm, pi->exec_comm, sizeof(id.comm));
		id.ppid = pi->ppid;
		id.uid = pi->uid;
		id.flags = pi->flags;
		id.exe_dev = pi->exe_dev;
		id.exe_ino = pi->exe_ino;
	}
	id.image_id = ev->image_id;
	m2r = mono_to_real();
	s = new_sample(im, PL_AT_FILE, ev->hdr.tgid, &id, pi, m2r);
	s->time_ns = ev->hdr.ts_ns + (uint64_t)m2r;
	s->file = &fe;
	if (im->d.learn && pi) {
		char member[128];

		snprintf(member, sizeof(member), "%s:%s", fe.cls, fe.op);
		isnew = learner__file(im->d.learn, pi, member, false, &ready);
		s->bl.files_ready = ready;
		s->bl.file_new = isnew == 1;
		pipeline__run(im->d.pipe, s, pi, PIPE_JUDGE | PIPE_RECORD, mono_ns() + (uint64_t)m2r);
		/* learned unless a rule at Warning or above matched */
		if (!pipeline__last_alerted(im->d.pipe))
			(void)learner__file(im->d.learn, pi, member, true, &ready);
		return;
	}
	pipeline__run(im->d.pipe, s, pi, PIPE_JUDGE | PIPE_RECORD, mono_ns() + (uint64_t)m2r);
}

bool images__files_rescan(struct images *im)
{
	bool r = im->st.files_rescan;

	im->st.files_rescan = false;
	return r;
}

/* ---- executable objects ---- */

/*
 * Whether the object an exec'd image maps now is a preload. The dynamic
 * loader maps LD_PRELOAD's objects, then /etc/ld.so.preload's, then the
 * executable's DT_NEEDED libraries in their order, then theirs (ld.so(8)),
 * and a dlopen() comes after all of them. So an image that has mapped no
 * library its executable names yet, mapping one it does not name, is
 * mapping a preload; from the first named one on, nothing is. A test
 * program linked against a library in its build tree names it: no preload.
 * A static executable, or a fork's or preexisting image, has no preloads.
 */
static bool is_preload(struct images *im, struct proc_info *pi, struct obj_info *oi, uint64_t now)
{
	struct obj_stamp exe = { .kdev = pi->exe_dev, .ino = pi->exe_ino };
	char soname[256], name[256];
	bool dynamic, named;

	if (pi->maps_past_preloads)
		return false;
	objects__elf(im->d.objects, oi);
	/* copies: looking the executable up may displace oi from the cache */
	snprintf(soname, sizeof(soname), "%s", oi->soname ? oi->soname : "");
	snprintf(name, sizeof(name), "%s", oi->name);
	named = objects__exe_needs(im->d.objects, &exe, pi->exe, soname[0] ? soname : name, &dynamic, now);
	if (!named && soname[0])
		named = objects__exe_needs(im->d.objects, &exe, pi->exe, name, &dynamic, now);
	if (named || !dynamic) {
		pi->maps_past_preloads = true;
		return false;
	}
	return true;
}

static void on_map(struct images *im, const struct pl_ev_map *ev)
{
	struct proc_info *pi = proctable__get(im->d.procs, ev->hdr.tgid);
	struct proc_info *match = pi && pi->image_id == ev->image_id ? pi : NULL;
	struct obj_stamp k = { .kdev = ev->dev, .ino = ev->ino, .size = ev->size, .mtime_ns = ev->mtime_ns,
			       .ctime_ns = ev->ctime_ns };
	char path[PL_PATH_LEN];
	struct pl_map_ev m = { 0 };
	const struct obj_info *oi;
	struct obj_info *w;
	struct pl_ident id = { 0 };
	uint64_t now = mono_ns();
	int64_t m2r;
	struct pl_sample *s;
	bool alerted, preload;

	if (!im->d.objects || !match)
		return;
	memcpy(path, ev->path, sizeof(path));
	path[sizeof(path) - 1] = '\0';
	/* the preload test first: it may look the executable up in the cache */
	oi = objects__get(im->d.objects, &k, ev->path_len ? path : NULL, now);
	if (!oi)
		return;
	w = (struct obj_info *)oi;
	preload = is_preload(im, match, w, now);
	oi = objects__get(im->d.objects, &k, ev->path_len ? path : NULL, now); /* it may have been displaced */
	if (!oi)
		return;
	m.path = oi->path;
	m.name = oi->name;
	m.dir = oi->dir;
	m.path_cut = ev->path_len > PL_PATH_LEN;
	m.build_id = oi->build_id;
	m.binary_id = oi->binary_id;
	m.trusted = oi->trusted_known ? oi->trusted : -1;
	m.packaged = oi->packaged;
	m.package = oi->package;
	m.location = oi->location;
	m.owner_uid = ev->uid;
	m.mode = ev->mode;
	m.deleted = ev->nlink == 0;
	m.how = ev->how == PL_MAP_MPROTECT ? "mprotect" : "mmap";
	m.preload = preload;
	if (im->d.learn)
		learner__object_state(im->d.learn, match, &m);
	if (!pipeline__wants(im->d.pipe, PL_AT_MAP)) {
		if (im->d.learn)
			learner__object_commit(im->d.learn, match, m.path, false);
		return;
	}
	/* the sample's identity: the image's, as its start record gave it */
	id.ppid = match->ppid;
	id.uid = match->uid;
	id.exe_dev = match->exe_dev;
	id.exe_ino = match->exe_ino;
	id.flags = match->flags;
	memcpy(id.comm, match->exec_comm, sizeof(id.comm));
	m2r = mono_to_real();
	s = new_sample(im, PL_AT_MAP, ev->hdr.tgid, &id, match, m2r);
	s->start_ns = s->image_start_ns = 0;
	s->time_ns = ev->hdr.ts_ns + (uint64_t)m2r;
	s->map = &m;
	alerted = pipeline__run(im->d.pipe, s, match, PIPE_JUDGE | PIPE_RECORD, now + (uint64_t)m2r);
	if (im->d.learn)
		learner__object_commit(im->d.learn, match, m.path, alerted);
}
/* ---- connects ---- */

/* Peer member m for pi's image (once). */
static void remember_peer(struct proc_info *pi, const char *m)
{
	if (pi->peers_image != pi->image_id) {
		pi->peers_image = pi->image_id;
		pi->npeers = 0;
	}
	for (uint32_t i = 0; i < pi->npeers; i++)
		if (!strcmp(pi->peers[i], m))
			return;
	if (pi->npeers < PROC_MAX_PEERS)
		snprintf(pi->peers[pi->npeers++], sizeof(pi->peers[0]), "%s", m);
}

/*
 * The outcome of an image's first connect to one destination: a connect
 * sample, judged and recorded. Its life is the image so far as the record
 * says (the counts of the attempt's second are not in yet: rules on rates
 * run at windows).
 */
static void on_net(struct images *im, const struct pl_ev_net *ev)
{
	uint32_t tgid = ev->hdr.tgid;
	struct proc_info *pi = proctable__get(im->d.procs, tgid);
	struct proc_info *match = pi && pi->image_id == ev->id.image_id ? pi : NULL;
	int64_t m2r = mono_to_real();
	int fam = ev->key.family == AF_INET6 ? 6 : 4;
	char addr[INET6_ADDRSTRLEN], peer[32];
	struct pl_stats last; /* the sample's life points into it until the pipeline has run */
	struct pl_net_ev net;
	struct pl_sample *s;

	if (!inet_ntop(fam == 6 ? AF_INET6 : AF_INET, ev->key.addr, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "?");
	pl_net__peer(peer, sizeof(peer), pl_net__class(ev->key.addr, fam), ev->key.port);
	net = (struct pl_net_ev){
		.peer = peer,
		.addr = addr,
		.port = ev->key.port,
		.family = (uint32_t)fam,
		.cls = pl_net__class(ev->key.addr, fam),
		.outcome = ev->outcome == PL_NET_CONNECTED ? "connected" : "failed",
		.attempt_ns = ev->attempt_ns + (uint64_t)m2r,
	};
	s = new_sample(im, PL_AT_CONNECT, tgid, &ev->id, match, m2r);
	s->net = &net;
	s->time_ns = ev->hdr.ts_ns + (uint64_t)m2r;
	if (match) {
		if (match->have_last) {
			stats_pack__get(match->last, &last);
			span_total(&s->life, &last);
		}
		binagg__get(im->d.bin, match->binary_id, &s->bin);
		remember_peer(match, peer);
	}
	pipeline__run(im->d.pipe, s, match, PIPE_JUDGE | PIPE_RECORD, mono_ns() + (uint64_t)m2r);
}

int images__record_type(const void *data, size_t size)
{
	const struct pl_hdr *h = data;
	static const size_t want[] = {
		[PL_EV_EXEC] = sizeof(struct pl_ev_exec),
		[PL_EV_FORK] = sizeof(struct pl_ev_proc),
		[PL_EV_SEEN] = sizeof(struct pl_ev_proc),
		[PL_EV_END] = sizeof(struct pl_ev_end),
		[PL_EV_FAIL_PATH] = sizeof(struct pl_ev_fail_path),
		[PL_EV_SAMPLE] = offsetof(struct pl_ev_sample, stack),
		[PL_EV_FILE] = sizeof(struct pl_ev_file),
		[PL_EV_MAP] = sizeof(struct pl_ev_map),
		[PL_EV_NET] = sizeof(struct pl_ev_net),
	};

	if (!data || size < sizeof(*h) || h->version != PL_ABI_VERSION || h->type < PL_EV_EXEC ||
	    h->type > PL_EV_LAST || !want[h->type] || size < want[h->type])
		return -EINVAL;
	/* a sample is as long as the user stack it carries */
	if (h->type == PL_EV_SAMPLE ? h->size > size || h->size > sizeof(struct pl_ev_sample) ||
					      h->size - want[h->type] !=
						      ((const struct pl_ev_sample *)data)->stack_len
				    : h->size != want[h->type])
		return -EINVAL;
	return h->type;
}

size_t images__exec_strings(const struct pl_ev_exec *ev, char filename[PL_PATH_LEN], bool *ret_truncated)
{
	memcpy(filename, ev->filename, PL_PATH_LEN);
	filename[PL_PATH_LEN - 1] = '\0';
	*ret_truncated = ev->filename_len > PL_PATH_LEN;
	return ev->args_len <= PL_ARGS_LEN ? ev->args_len : PL_ARGS_LEN;
}

bool images__exec_cwd(const struct pl_ev_exec *ev, char cwd[PL_CWD_LEN], bool *ret_cut)
{
	memcpy(cwd, ev->cwd, PL_CWD_LEN);
	cwd[PL_CWD_LEN - 1] = '\0';
	*ret_cut = ev->cwd_len > PL_CWD_LEN;
	if (ev->cwd_len == 0 || cwd[0] != '/') {
		cwd[0] = '\0';
		*ret_cut = false;
		return false;
	}
	return true;
}

void images__on_record(struct images *im, const void *data, size_t size)
{
	const struct pl_hdr *h = data;

	if (images__record_type(data, size) < 0) {
		im->st.invalid++;
		return;
	}
	im->st.records[h->type]++;
	switch (h->type) {
	case PL_EV_EXEC:
		on_exec(im, data);
		break;
	case PL_EV_FORK:
	case PL_EV_SEEN:
		on_fork_or_seen(im, data);
		break;
	case PL_EV_END:
		on_end(im, data);
		break;
	case PL_EV_FAIL_PATH:
		failpaths__on_record(im->d.fails, data);
		break;
	case PL_EV_SAMPLE:
		if (im->d.oncpu)
			oncpu__on_sample(im->d.oncpu, data, size);
		break;
	case PL_EV_MAP:
		on_map(im, data);
		break;
	case PL_EV_FILE:
		on_file(im, data);
		break;
	case PL_EV_NET:
		on_net(im, data);
		break;
	}
}

/* ---- running or waiting ----
 *
 * A process whose windows show neither CPU nor syscalls is waiting; the
 * kernel counts that time only once a thread runs again, so while it waits
 * only /proc can say on what. Reading /proc costs, so only candidates are
 * read, at most WAIT_READS_PER_PASS a pass (the rest are counted and
 * tried at a later pass):
 *   - idle for >= WAIT_MIN_NS, and
 *   - beyond what its baseline says a whole life lasts (waiting more than
 *     WAIT_BASELINE_FACTOR x the lifetime wall p99), or in a state that is
 *     never a normal way to wait (stopped, traced, uninterruptible).
 * The state of an idle process without such a baseline (a daemon that
 * sleeps) is looked at once every WAIT_RECHECK_NS, only to find a stopped
 * or uninterruptible one. A candidate's window is judged and recorded with
 * its wait every second at first, then less often (report_every()). */
#define WAIT_MIN_NS 2000000000ull
#define WAIT_RECHECK_NS 5000000000ull
#define WAIT_REPORT_MAX_NS 60000000000ull
#define WAIT_READS_PER_PASS 32
#define WAIT_BASELINE_FACTOR 2 /* the rule asks for more; this only bounds the reads */

static uint64_t report_every(uint64_t idle)
{
	uint64_t every = idle / 4;

	return every < 900000000ull ? 900000000ull : every > WAIT_REPORT_MAX_NS ? WAIT_REPORT_MAX_NS : every;
}

static bool wait_budget(struct images *im, uint64_t now)
{
	if (im->wait_pass_ns != now) {
		im->wait_pass_ns = now;
		im->wait_pass_reads = 0;
	}
	if (im->wait_pass_reads >= WAIT_READS_PER_PASS) {
		im->st.wait_skipped++;
		return false;
	}
	im->wait_pass_reads++;
	im->st.wait_reads++;
	return true;
}

/* The wait of process pi if it is a candidate now, else NULL. */
static const struct pl_wait *waiting(struct images *im, struct proc_info *pi, struct pl_sample *s, uint64_t now)
{
	uint64_t idle = now > pi->active_ns ? now - pi->active_ns : 0;
	bool beyond = false;
	double p99_ns;
	char st;

	if (idle < WAIT_MIN_NS)
		return NULL;
	/* reported every second at first (a rule's threshold is met at its
	 * second), then less often the longer it waits: idle/4, up to a minute */
	if (pi->wait_reported_ns && now - pi->wait_reported_ns < report_every(idle))
		return NULL;
	if (im->d.learn)
		learner__state(im->d.learn, pi, s);
	p99_ns = s->bl.q[PL_LIFE_WALL][2];
	beyond = s->bl.ready && p99_ns == p99_ns && (double)idle > WAIT_BASELINE_FACTOR * p99_ns;
	if (!beyond) {
		/* no baseline says it should have ended: only an abnormal state makes it one */
		if (pi->wait_checked_ns && now - pi->wait_checked_ns < WAIT_RECHECK_NS)
			return NULL;
		if (!wait_budget(im, now))
			return NULL;
		pi->wait_checked_ns = now;
		st = waitstate__proc_state(pi->tgid);
		if (st != 'T' && st != 't' && st != 'D')
			return NULL;
	} else if (!wait_budget(im, now)) {
		return NULL;
	}
	if (waitstate__read(pi->tgid, im->d.kstacks, &im->wait) < 0)
		return NULL;
	im->wait.waiting_s = idle / 1e9;
	pi->wait_reported_ns = now;
	im->st.wait_reports++;
	return &im->wait;
}

/* ---- the table, once a second and at shutdown ---- */

void images__window(struct images *im, uint32_t tgid, const struct pl_proc *p, uint64_t now)
{
	struct proc_info *pi = proctable__get(im->d.procs, tgid);
	static const struct pl_stats zero;
	struct pl_stats last;
	const struct pl_stats *prev;
	_cleanup_free_ struct pl_fail *fails = NULL;
	_cleanup_(oncpu_result_freep) struct oncpu_result *oncpu = NULL;
	uint64_t start, len;
	uint32_t nfails = 0;
	struct pl_sample *s;
	unsigned steps = 0;
	bool active;
	int64_t m2r;

	if (!pi || pi->image_id != p->id.image_id)
		return; /* its start record is still in the ring buffer */
	if (pi->have_last)
		stats_pack__get(pi->last, &last);
	prev = pi->have_last ? &last : &zero;
	start = pi->have_last ? pi->last_ns : p->id.image_start_ns;
	len = now > start ? now - start : 0;
	m2r = mono_to_real();
	s = new_sample(im, PL_AT_WINDOW, tgid, &p->id, pi, m2r);
	span_delta(im, &s->win, &p->st, prev);
	span_total(&s->life, &p->st);
	s->win_start_ns = start + (uint64_t)m2r;
	s->win_end_ns = s->time_ns = now + (uint64_t)m2r;
	/* the runaway streak and the last windows (a first window starts neither) */
	if (pi->have_last && len && proc_info__cpuwin(pi))
		pl_cpuwin__add(pi->cw, s->win.cpu_ns, s->win.runq_ns, len);
	if (pi->cw) {
		s->busy_s = pi->cw->busy_s;
		struct pl_cpuwin_recent r;

		pl_cpuwin__recent(pi->cw, &r);
		s->recent_s = r.span_s;
		s->recent_busy_ns = r.busy_ns;
		s->recent_cpu_ns = r.cpu_ns;
		s->clone_ns = r.clone_ns;
		s->clones = r.clones;
	}
	active = s->win.syscalls || s->win.cpu_ns;
	/* waiting */
	if (active || !pi->active_ns) {
		pi->active_ns = active ? now : p->id.image_start_ns;
		pi->wait_reported_ns = 0;
	}
	if (!active && (im->d.live || pipeline__wants(im->d.pipe, PL_AT_WINDOW)))
		s->wait = waiting(im, pi, s, now);
	if (s->wait && im->d.live)
		live__waiting(im->d.live, display_name(pi, im->comm), tgid, pl_wait__state_name(s->wait->state),
			      s->wait->waiting_s, s->wait->nt && s->wait->t[0].wchan[0] ? s->wait->t[0].wchan : NULL);
	/* the image's paths so far: for this second's failures, or for rules
	 * and records that read the image's top path */
	if (s->win.open_fail || (active && p->st.open_fail && pipeline__wants(im->d.pipe, PL_AT_WINDOW)))
		fails = failpaths__collect(im->d.fails, pi, false, &nfails);
	s->fails = fails;
	s->nfails = s->fail_paths = nfails;
	/* a busy second: the stacks so far, for a rule that judges it */
	if (im->d.oncpu && s->win.cpu_ns >= ONCPU_WINDOW_MIN_CPU_NS && pipeline__wants(im->d.pipe, PL_AT_WINDOW)) {
		oncpu = oncpu__collect(im->d.oncpu, tgid, p->id.image_id, p->oncpu_samples, p->oncpu_unattributed, ONCPU_RUNNING);
		s->oncpu = oncpu ? &oncpu->oc : NULL;
	}
	if (active) {
		const struct pl_fail *top = pl_sample__top_fail(s);

		/* a running process's failures this second, on its top path */
		binagg__add(im->d.bin, pi->binary_id, s->win.open_fail, top ? top->path : NULL,
			    on_top_path(s->win.open_fail, top));
	}
	binagg__get(im->d.bin, pi->binary_id, &s->bin);
	if (im->d.live && (!pi->have_last || active) && pi->tgid == own_tgid())
		live__add_own(im->d.live, s->win.cpu_ns, s->win.offcpu_ns, s->win.syscalls, s->win.open_fail,
			      live_first(im, pi));
	else if (im->d.live && (!pi->have_last || active))
		live__add(im->d.live, display_name(pi, im->comm), s->win.cpu_ns, s->win.offcpu_ns, s->win.syscalls,
			  s->win.open_fail, live_first(im, pi), 0);
	/* only whole windows are samples; idle ones too: idle is what a daemon normally is */
	if (pi->have_last && len > 500000000ull && len < 1500000000ull)
		steps |= PIPE_SCORE | PIPE_LEARN;
	/* an idle parent whose clones burn is judged for them */
	if (active || s->wait || s->clones)
		steps |= PIPE_JUDGE | PIPE_RECORD;
	if (steps)
		pipeline__run(im->d.pipe, s, pi, steps, now + (uint64_t)m2r);
	/* out of memory: no snapshot, and the next window starts afresh */
	pi->have_last = stats_pack__set(&pi->last, &p->st) == 0;
	pi->last_ns = now;
}

void images__running(struct images *im, uint32_t tgid, const struct pl_proc *p, uint64_t now)
{
	struct proc_info *pi = proctable__get(im->d.procs, tgid);
	struct proc_info *match = pi && pi->image_id == p->id.image_id ? pi : NULL;
	_cleanup_free_ struct pl_fail *fails = NULL;
	_cleanup_(oncpu_result_freep) struct oncpu_result *oncpu = NULL;
	int64_t m2r = mono_to_real();
	struct pl_sample *s;
	uint32_t nfails = 0;

	fails = failpaths__collect(im->d.fails, match, false, &nfails);
	if (im->d.oncpu)
		oncpu = oncpu__collect(im->d.oncpu, tgid, p->id.image_id, p->oncpu_samples, p->oncpu_unattributed, ONCPU_RUNNING);
	s = new_sample(im, PL_AT_EXIT, tgid, &p->id, match, m2r);
	s->oncpu = oncpu ? &oncpu->oc : NULL;
	span_total(&s->life, &p->st);
	s->fails = fails;
	s->nfails = s->fail_paths = nfails;
	s->end_ns = s->time_ns = now + (uint64_t)m2r;
	s->end_reason = "running";
	if (im->closing) {
		if (im->nran == im->ran_cap) {
			size_t cap = im->ran_cap ? 2 * im->ran_cap : 256;
			struct ran *r = realloc(im->ran, cap * sizeof(*r));

			if (r) {
				im->ran = r;
				im->ran_cap = cap;
			}
		}
		if (im->nran < im->ran_cap) /* else its end, if read, writes it again: counted as any record */
			im->ran[im->nran++] = (struct ran){ .tgid = tgid, .image_id = p->id.image_id };
		im->ran_sorted = false;
	}
	if (match)
		binagg__get(im->d.bin, match->binary_id, &s->bin);
	/* scored, not learned: a running process is not a finished sample; and
	 * no rules: it has not exited */
	pipeline__run(im->d.pipe, s, match, PIPE_SCORE | PIPE_RECORD, now + (uint64_t)m2r);
}
