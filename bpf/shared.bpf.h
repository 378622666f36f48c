// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * shared.bpf.h - what the BPF programs of every probe family share: the
 * per-thread and per-CPU state, the maps more than one family uses, the
 * rodata user space sets for them, and the helpers they call (the process
 * entry, CPU accounting, syscall folds, failed-path keys, ring-buffer
 * records).
 *
 * plumbline's BPF side is one object file per probe family (shared.bpf.c,
 * syscalls.bpf.c, failopen.bpf.c, sched.bpf.c, lifecycle.bpf.c,
 * oncpu.bpf.c), linked by libbpf's static linker (`bpftool gen object`)
 * into the one object the one skeleton is generated from, so user space
 * sees one set of programs and maps. A map or variable
 * is defined once, in shared.bpf.c (which defines PL_SHARED_DEFINE before
 * including this header), and is `extern` everywhere else: the linker
 * binds each extern to that definition. Helpers are static inline: each
 * family's programs get their own copy, as they did in one file.
 * The ABI with user space stays in plumbline.h alone.
 */
#ifndef PL_SHARED_BPF_H
#define PL_SHARED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "plumbline.h"

#ifdef PL_SHARED_DEFINE
#define PL_SHARED
#define PL_RODATA(type, name, init) const volatile type name = init
#else
#define PL_SHARED extern
#define PL_RODATA(type, name, init) extern const volatile type name
#endif

#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000
#define TASK_DEAD 0x00000080
#define SIGNAL_GROUP_EXIT 0x00000004

/* Wake user space only once this much is pending: it polls every 100 ms
 * anyway, and a wakeup per record costs more than the record (exec storms). */
PL_RODATA(__u64, wakeup_bytes, 256 << 10);
/*
 * The sensor's own process (set by user space): its failed opens are
 * counted, never tracked by path. It reads /proc of processes that are often
 * gone by then, and must not fill the table it reports from.
 */
PL_RODATA(__u32, self_tgid, 0);
/* New failed-path keys per image: a burst, then one per interval. */
PL_RODATA(__u64, fail_key_burst, 256);
PL_RODATA(__u64, fail_key_interval_ns, 1000000000 / 32);

/* Distinct syscalls a thread may make between folds before a fold walks
 * every slot instead of its list. */
#define SC_DIRTY_MAX 32
/* A slot this high is folded at once (no u32 can wrap between folds). */
#define SC_FOLD_AT (1u << 30)

struct thread_state {
	__u64 last_sum_exec;  /* se.sum_exec_runtime already accounted */
	__u64 last_out_ns;    /* when it was switched out; 0 while on CPU */
	__u64 queued_ns;      /* when it became runnable while off CPU; 0 while blocked */
	__u64 pending_offcpu; /* off-CPU ns not yet folded into the process */
	__u64 pending_runq;   /* of which runnable, waiting for a CPU */
	__u64 open_fname;     /* user pointer of the open in flight */
	__u32 open_nr;        /* its syscall number */
	__u16 last_fail_valid;
	__u16 last_fail_trunc; /* its path was longer than PL_PATH_LEN - 1 */
	/* on a group leader: its image attempted a TCP connect (net.bpf.h) */
	__u32 net_connected;
	__u32 pad_net;
	__s64 last_fail_len;  /* bytes of its path read, NUL included */
	/*
	 * The thread's last failed open, and how many repeats of it are not in
	 * `fail_paths` yet. A retry storm repeats one key: comparing with the
	 * last one costs a few ns, hashing a 272-byte key into the table ~270.
	 * Repeats are flushed when the key changes, when the thread is switched
	 * out, and before its image ends, so counts user space reads are exact.
	 */
	__u64 last_fail_pending;
	/* the thread's last watched-file touch (files.bpf.h): a repeat is not re-emitted */
	__u64 last_file_ino;
	__u32 last_file_dev;
	__u32 last_file_op;
	struct pl_fail_key last_fail;
};

/*
 * Syscalls made on this CPU since its task was switched in, by number.
 * Between two context switches every syscall on a CPU is its current
 * task's, so a syscall needs no lookup of its thread or process at all: one
 * per-CPU slot (the verifier inlines the lookup to a pointer), one
 * increment, no atomic, no cache line another CPU writes. The counts are
 * folded into the task's process at its switch-out, at exec and exit, and
 * by the CPU refresher. sc_dirty lists the numbers in use, so a fold adds
 * only those; past SC_DIRTY_MAX distinct numbers (nsc_dirty > SC_DIRTY_MAX)
 * a fold walks every slot.
 */
struct cpu_counts {
	__u32 in_enter; /* pl_sys_enter is updating the counts (the refresher must not fold) */
	__u32 nsc_dirty;
	__u32 sc_other;
	__u32 pad;
	__u16 sc_dirty[SC_DIRTY_MAX];
	__u32 sc[PL_NR_SYSCALLS];
};

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_counts);
} cpu_sc SEC(".maps");

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} threads SEC(".maps");

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768); /* set by user space: --max-procs */
	__type(key, __u32);
	__type(value, struct pl_proc);
} procs SEC(".maps");

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* set by user space: --max-fail-paths */
	__type(key, struct pl_fail_key);
	__type(value, struct pl_fail_val);
} fail_paths SEC(".maps");

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* set by user space: --ringbuf-kb */
} events SEC(".maps");

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PL_DROP_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Never written: the all-zero source that starts a fresh pl_proc. */
PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_proc);
} zero_proc SEC(".maps");

/*
 * Set while a CPU is inside a CPU-accounting section, so the perf_event
 * refresher, which can interrupt a tracepoint program on the same CPU, never
 * interleaves with it and double-counts a delta.
 */
PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cpu_busy SEC(".maps");

/*
 * The executable mapping in flight of one thread, from the syscall's entry
 * (pl_sys_enter, syscalls.bpf.c: mmap and mprotect asking for PROT_EXEC)
 * to its exit (maps.bpf.c). Read at the entry from the one raw sys_enter
 * program the sensor already runs: a syscalls:sys_enter_mmap tracepoint
 * would put the syscall tracepoints' enter path on every syscall of every
 * task (8 to 13 ns each, docs/performance.md "What each hook costs").
 */
PL_RODATA(bool, track_maps, true);

struct map_inflight {
	__u64 file; /* mprotect: the mapping's struct file *; mmap: 0 (the fd says) */
	__s32 fd;
	__u32 prot;
	__u32 how; /* enum pl_map_how; 0: none in flight */
	__u32 pad;
};

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct map_inflight);
} map_inflight SEC(".maps");

/* Executable mappings in flight, on all threads: while none is, an exit
 * needs no lookup at all (one load of a line written only by executable
 * mappings). A thread that never reaches its exit leaves it high: exits
 * then look up, as they would without it. */
#ifdef PL_SHARED_DEFINE
__u64 map_inflight_n = 0;
#else
extern __u64 map_inflight_n;
#endif

/* The last image_id handed out: ids are unique over the sensor's life. */
#ifdef PL_SHARED_DEFINE
__u64 image_seq = 0;
#else
extern __u64 image_seq;
#endif

static __always_inline void count_drop(__u32 why)
{
	__u64 *v = bpf_map_lookup_elem(&drops, &why);

	if (v)
		*v += 1;
}

static __always_inline bool is_user_task(struct task_struct *t)
{
	return t->pid != 0 && !(t->flags & PF_KTHREAD);
}

/*
 * The thread's state, created on first sight. A thread seen for the first
 * time may predate the sensor: its snapshots start at its current totals so
 * that only what happens from now on is counted.
 */
static __always_inline struct thread_state *get_thread(struct task_struct *t)
{
	struct thread_state *th = bpf_task_storage_get(&threads, t, 0, 0);

	if (th)
		return th;
	th = bpf_task_storage_get(&threads, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!th) {
		count_drop(PL_DROP_THREAD_STATE);
		return 0;
	}
	th->last_sum_exec = t->se.sum_exec_runtime;
	return th;
}

static __always_inline __u64 task_cgroup_id(struct task_struct *t)
{
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

/* Inode layouts before Linux 6.11 (commit 3aa63a569c64 "fs: switch timespec64
 * fields in inode to discrete integers"): timespec64 fields, the ctime one
 * renamed __i_ctime in 6.6 (commit 13bc24457850 "fs: rename i_ctime field
 * to __i_ctime"). CO-RE picks whichever this kernel has. */
struct inode___pre611 {
	struct timespec64 i_mtime;
	struct timespec64 __i_ctime;
} __attribute__((preserve_access_index));

struct inode___pre66 {
	struct timespec64 i_mtime;
	struct timespec64 i_ctime;
} __attribute__((preserve_access_index));

/* Since Linux 6.13 (multigrain timestamps, commit 4e40eff0b573 "fs: add
 * infrastructure for multigrain timestamps"), bit 31 of i_ctime_nsec is a
 * flag (I_CTIME_QUERIED), not time: a nanosecond count needs 30 bits. */
static __always_inline __u64 ts_ns(__s64 sec, __s64 nsec)
{
	return (__u64)sec * 1000000000ull + ((__u64)nsec & 0x3fffffff);
}

/* What user space caches a binary's identity by, besides dev and ino. */
static __always_inline void set_exe_times(struct pl_ident *id, struct inode *ino)
{
	id->exe_size = BPF_CORE_READ(ino, i_size);
	if (bpf_core_field_exists(ino->i_mtime_sec)) {
		id->exe_mtime_ns = ts_ns(BPF_CORE_READ(ino, i_mtime_sec), BPF_CORE_READ(ino, i_mtime_nsec));
		id->exe_ctime_ns = ts_ns(BPF_CORE_READ(ino, i_ctime_sec), BPF_CORE_READ(ino, i_ctime_nsec));
	} else if (bpf_core_field_exists(((struct inode___pre611 *)ino)->__i_ctime)) {
		struct inode___pre611 *o = (void *)ino;

		id->exe_mtime_ns = ts_ns(BPF_CORE_READ(o, i_mtime.tv_sec), BPF_CORE_READ(o, i_mtime.tv_nsec));
		id->exe_ctime_ns = ts_ns(BPF_CORE_READ(o, __i_ctime.tv_sec), BPF_CORE_READ(o, __i_ctime.tv_nsec));
	} else if (bpf_core_field_exists(((struct inode___pre66 *)ino)->i_ctime)) {
		struct inode___pre66 *o = (void *)ino;

		id->exe_mtime_ns = ts_ns(BPF_CORE_READ(o, i_mtime.tv_sec), BPF_CORE_READ(o, i_mtime.tv_nsec));
		id->exe_ctime_ns = ts_ns(BPF_CORE_READ(o, i_ctime.tv_sec), BPF_CORE_READ(o, i_ctime.tv_nsec));
	}
}

static __always_inline void set_exe(struct pl_ident *id, struct file *f)
{
	struct inode *ino = BPF_CORE_READ(f, f_inode);

	id->exe_ino = BPF_CORE_READ(ino, i_ino);
	id->exe_dev = BPF_CORE_READ(ino, i_sb, s_dev);
	set_exe_times(id, ino);
}

static __always_inline void set_identity(struct pl_ident *id, struct task_struct *t)
{
	struct task_struct *leader = t->group_leader;

	id->ppid = BPF_CORE_READ(t, real_parent, tgid);
	id->uid = BPF_CORE_READ(t, real_cred, uid.val);
	id->cgroup_id = task_cgroup_id(t);
	id->proc_start_ns = BPF_CORE_READ(leader, start_time);
	bpf_probe_read_kernel_str(id->comm, sizeof(id->comm), leader->comm);
}

/* Insert an all-zero entry for tgid and return it, or NULL (counted). */
static __always_inline struct pl_proc *new_proc(__u32 tgid)
{
	__u32 zero = 0;
	struct pl_proc *z = bpf_map_lookup_elem(&zero_proc, &zero);

	if (!z)
		return 0;
	if (bpf_map_update_elem(&procs, &tgid, z, BPF_ANY)) {
		count_drop(PL_DROP_PROC_MAP);
		return 0;
	}
	return bpf_map_lookup_elem(&procs, &tgid);
}

/*
 * A string read into a buffer of len + 1 bytes filled it: was it exactly len
 * bytes long (its NUL at offset len), or longer and cut?
 */
static __always_inline bool str_ends_at(const void *str, __u32 len, bool user)
{
	char c = 1;

	if (user)
		bpf_probe_read_user(&c, 1, str + len);
	else
		bpf_probe_read_kernel(&c, 1, str + len);
	return c == 0;
}

static __always_inline void *reserve(__u64 size)
{
	void *r = bpf_ringbuf_reserve(&events, size, 0);

	if (!r)
		count_drop(PL_DROP_RINGBUF);
	return r;
}

static __always_inline void submit(void *ev)
{
	__u64 pending = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(ev, pending >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline void fill_hdr(struct pl_hdr *h, __u16 type, __u32 size, __u32 tgid, __u64 now)
{
	h->type = type;
	h->version = PL_ABI_VERSION;
	h->size = size;
	h->ts_ns = now;
	h->tgid = tgid;
	h->pad = 0;
}

static __always_inline void emit_proc(__u16 type, __u32 tgid, struct pl_proc *p, __u64 now)
{
	struct pl_ev_proc *ev = reserve(sizeof(*ev));

	if (!ev)
		return;
	fill_hdr(&ev->hdr, type, sizeof(*ev), tgid, now);
	bpf_probe_read_kernel(&ev->id, sizeof(ev->id), &p->id);
	submit(ev);
}

/*
 * The process entry of task t, created for a process that predates the
 * sensor. Never created for an exiting process: a late event of a process
 * that has already been reported must not resurrect it.
 */
static __always_inline struct pl_proc *get_proc(struct task_struct *t, __u32 tgid)
{
	struct pl_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	__u64 now;

	if (p || (t->flags & PF_EXITING))
		return p;
	p = new_proc(tgid);
	if (!p)
		return 0;
	now = bpf_ktime_get_ns();
	set_identity(&p->id, t);
	set_exe(&p->id, BPF_CORE_READ(t, mm, exe_file));
	p->id.image_start_ns = now; /* measurement starts now; proc_start_ns says when it began */
	p->id.image_id = __sync_fetch_and_add(&image_seq, 1) + 1;
	p->id.flags = PL_PROC_PARTIAL;
	p->id.threads = BPF_CORE_READ(t, signal, nr_threads);
	emit_proc(PL_EV_SEEN, tgid, p, now);
	return p;
}

/* Fold the thread's CPU, run-queue and off-CPU time since the last snapshot. */
static __always_inline void account(struct task_struct *t, struct thread_state *th, struct pl_proc *p)
{
	__u64 rt = t->se.sum_exec_runtime;

	if (rt > th->last_sum_exec)
		__sync_fetch_and_add(&p->st.cpu_ns, rt - th->last_sum_exec);
	th->last_sum_exec = rt;
	if (th->pending_offcpu) {
		__sync_fetch_and_add(&p->st.offcpu_ns, th->pending_offcpu);
		__sync_fetch_and_add(&p->st.runq_ns, th->pending_runq);
		th->pending_offcpu = 0;
		th->pending_runq = 0;
	}
}

static __always_inline struct cpu_counts *cpu_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_sc, &zero);
}

/* Forget the CPU's syscalls since the last fold: they belong to a task
 * without a process entry (its loss is counted where the entry was
 * refused), or to a kernel thread. */
static __always_inline void drop_sc(struct cpu_counts *cc)
{
	__u32 n = cc->nsc_dirty;

	for (int i = 0; i < PL_NR_SYSCALLS; i++) {
		__u32 nr = i;

		if (n <= SC_DIRTY_MAX) {
			if (i >= n)
				break;
			nr = cc->sc_dirty[i & (SC_DIRTY_MAX - 1)];
		}
		nr &= PL_NR_SYSCALLS - 1;
		if (cc->sc[nr]) /* a test, or clang makes a memset the verifier refuses */
			cc->sc[nr] = 0;
	}
	cc->nsc_dirty = 0;
	cc->sc_other = 0;
}

/*
 * Add the CPU's syscalls since the last fold to the process of its current
 * task (p may be NULL when the process has no entry) and start over.
 */
static __always_inline void fold_sc(struct cpu_counts *cc, struct pl_proc *p)
{
	__u32 n = cc->nsc_dirty;
	__u64 total = 0;

	if (!n && !cc->sc_other)
		return;
	if (!p) {
		drop_sc(cc);
		return;
	}
	if (n > SC_DIRTY_MAX) {
		for (int nr = 0; nr < PL_NR_SYSCALLS; nr++) {
			__u32 c = cc->sc[nr];

			if (!c)
				continue;
			__sync_fetch_and_add(&p->st.sc[nr], c);
			total += c;
			cc->sc[nr] = 0;
		}
	} else {
		for (int i = 0; i < SC_DIRTY_MAX; i++) {
			__u32 nr, c;

			if (i >= n)
				break;
			nr = cc->sc_dirty[i] & (PL_NR_SYSCALLS - 1);
			c = cc->sc[nr];
			if (c)
				__sync_fetch_and_add(&p->st.sc[nr], c);
			total += c;
			cc->sc[nr] = 0;
		}
	}
	cc->nsc_dirty = 0;
	if (cc->sc_other) {
		__sync_fetch_and_add(&p->st.sc_other, cc->sc_other);
		total += cc->sc_other;
		cc->sc_other = 0;
	}
	/* unconditional: a test of total would make the verifier track it
	 * precisely through the 512-slot walk, and its states explode */
	__sync_fetch_and_add(&p->st.syscalls, total);
}

static __always_inline __u32 *busy_flag(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_busy, &zero);
}

static __always_inline void emit_end(__u32 tgid, struct pl_proc *p, __u64 now, __u32 reason, __s32 code)
{
	struct pl_ev_end *ev = reserve(sizeof(*ev));

	if (!ev)
		return;
	fill_hdr(&ev->hdr, PL_EV_END, sizeof(*ev), tgid, now);
	bpf_probe_read_kernel(&ev->proc, sizeof(ev->proc), p);
	ev->end_ns = now;
	ev->reason = reason;
	ev->exit_code = code;
	submit(ev);
}

static __always_inline __u32 errno_slot(long err)
{
	return err < PL_NR_ERRNO - 1 ? err & (PL_NR_ERRNO - 1) : PL_NR_ERRNO - 1;
}

/*
 * A rate limit with a burst (GCRA, one word of state: *tat_ns is when the
 * next unit would be on schedule): a burst of `burst` units, then one per
 * interval_ns. Whether one more is allowed now. Threads of one process may
 * race here and let a unit or two more through; the bound is what matters,
 * not its last unit. Every per-image cap (failed paths, watched files,
 * destinations) is one of these.
 */
static __always_inline bool gcra_allow(__u64 *tat_ns, __u64 now, __u64 burst, __u64 interval_ns)
{
	__u64 tat = *tat_ns;

	if (tat < now)
		tat = now;
	if (tat - now >= burst * interval_ns)
		return false;
	*tat_ns = tat + interval_ns;
	return true;
}

/* Whether image p may insert one more failed-path key now. */
static __always_inline bool fail_key_allowed(struct pl_proc *p, __u64 now)
{
	return gcra_allow(&p->fail_key_tat_ns, now, fail_key_burst, fail_key_interval_ns);
}

/*
 * Add `count` failures of key k (of image p, process tgid) to the table:
 * to its entry when there is one, else to a new entry announced to user
 * space by a FAIL_PATH record. Returns whether they are in the table; when
 * they are not (the sensor's own failures, the image over its share, the
 * table full), they are counted in p's open_fail_unrecorded, so the image's
 * totals stay exact either way.
 */
static __always_inline bool record_key(struct pl_fail_key *k, __u64 count, struct pl_proc *p, __u32 tgid, bool trunc)
{
	struct pl_fail_val *v = bpf_map_lookup_elem(&fail_paths, k), nv;
	struct pl_ev_fail_path *ev;

	if (v) {
		__sync_fetch_and_add(&v->count, count);
		return true;
	}
	if (tgid == self_tgid) {
		__sync_fetch_and_add(&p->st.open_fail_unrecorded, count);
		return false;
	}
	nv.count = count;
	nv.first_ns = bpf_ktime_get_ns();
	if (!fail_key_allowed(p, nv.first_ns)) {
		count_drop(PL_DROP_FAILPATH_IMAGE);
		__sync_fetch_and_add(&p->st.open_fail_unrecorded, count);
		return false;
	}
	if (bpf_map_update_elem(&fail_paths, k, &nv, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&fail_paths, k);
		if (v) {
			/* another thread inserted it first */
			__sync_fetch_and_add(&v->count, count);
			return true;
		}
		count_drop(PL_DROP_FAILPATH_MAP);
		__sync_fetch_and_add(&p->st.open_fail_unrecorded, count);
		return false;
	}
	if (trunc)
		count_drop(PL_DROP_PATH_TRUNC);
	ev = reserve(sizeof(*ev));
	if (!ev)
		return true;
	fill_hdr(&ev->hdr, PL_EV_FAIL_PATH, sizeof(*ev), tgid, nv.first_ns);
	bpf_probe_read_kernel(&ev->key, sizeof(ev->key), k);
	ev->truncated = trunc;
	ev->pad = 0;
	submit(ev);
	return true;
}

/*
 * Add the thread's pending repeats of its last failed open to the table
 * and to the process's failure counters (a repeat touches neither: it
 * needs no hash lookup at all). p may be NULL when the process is gone.
 * User space may have moved the key out of the table meanwhile (an idle
 * key of a live image, see the sweep in run.c): it is then recorded anew.
 */
static __always_inline void flush_fail(struct thread_state *th, struct pl_proc *p)
{
	__u64 n = th->last_fail_pending;
	struct pl_fail_val *v;

	if (!n)
		return;
	th->last_fail_pending = 0;
	if (p) {
		__sync_fetch_and_add(&p->st.open_fail, n);
		__sync_fetch_and_add(&p->st.open_fail_errno[errno_slot(th->last_fail.err)], n);
		if (!record_key(&th->last_fail, n, p, th->last_fail.tgid, th->last_fail_trunc))
			th->last_fail_valid = 0;
		return;
	}
	v = bpf_map_lookup_elem(&fail_paths, &th->last_fail);
	if (v)
		__sync_fetch_and_add(&v->count, n);
}

/* Components the cwd walk climbs at most (mount crossings count too): a
 * PL_CWD_LEN path has fewer unless its names are one byte long. */
#define CWD_MAX_DEPTH 64
#define CWD_MASK (PL_CWD_LEN - 1)

/* Where read_dpath() builds a path from its end (twice PL_CWD_LEN: the
 * verifier sees every masked write and the copy out stay inside). */
struct cwd_buf {
	char b[2 * PL_CWD_LEN];
};

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cwd_buf);
} dpath_scratch SEC(".maps");

/*
 * The path of dentry d on mount vm into out (PL_PATH_LEN == PL_CWD_LEN
 * bytes), as the task whose fs is fs would name it (getcwd(2), d_path()):
 * dentry names up to the task's root, crossing mounts to their mountpoints,
 * and stopping at the root of the task's mount namespace when d lies
 * outside its root. bpf_d_path() would say the same but is not allowed in
 * tracepoints. Returns the length with the NUL, PL_CWD_LEN + 1 when the path
 * did not fit (out holds its last components), 0 when it could not be read.
 * Used for the cwd at exec and the paths of watched files.
 */
static __always_inline __u32 read_dpath(struct dentry *d, struct vfsmount *vm, struct fs_struct *fs, char *out)
{
	struct dentry *root_d, *mnt_root;
	struct vfsmount *root_vm;
	__u32 zero = 0, pos = PL_CWD_LEN - 1;
	struct cwd_buf *cb;
	bool whole = false;
	struct mount *m;

	cb = bpf_map_lookup_elem(&dpath_scratch, &zero);
	if (!cb || !fs || !d || !vm)
		return 0;
	root_d = BPF_CORE_READ(fs, root.dentry);
	root_vm = BPF_CORE_READ(fs, root.mnt);
	m = container_of(vm, struct mount, mnt);
	mnt_root = BPF_CORE_READ(vm, mnt_root);
	cb->b[PL_CWD_LEN - 1] = 0;
	/* each step: two reads (parent, name) and the name's bytes */
	for (int i = 0; i < CWD_MAX_DEPTH; i++) {
		struct dentry *parent;
		struct qstr name;

		if (d == root_d && vm == root_vm) {
			whole = true;
			break;
		}
		if (d == mnt_root) {
			struct mount *pm = BPF_CORE_READ(m, mnt_parent);

			if (pm == m) { /* the namespace's root mount: outside the task's root */
				whole = true;
				break;
			}
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = pm;
			vm = &pm->mnt;
			mnt_root = BPF_CORE_READ(vm, mnt_root);
			continue;
		}
		parent = BPF_CORE_READ(d, d_parent);
		if (parent == d) { /* a detached tree's top */
			whole = true;
			break;
		}
		if (BPF_CORE_READ_INTO(&name, d, d_name) || name.len + 1 > pos)
			break;
		pos -= name.len;
		bpf_probe_read_kernel(&cb->b[pos & CWD_MASK], name.len & CWD_MASK, name.name);
		pos--;
		cb->b[pos & CWD_MASK] = '/';
		d = parent;
	}
	if (pos == PL_CWD_LEN - 1) /* the root itself, or nothing fitted */
		cb->b[--pos & CWD_MASK] = '/';
	bpf_probe_read_kernel(out, PL_CWD_LEN, &cb->b[pos & CWD_MASK]);
	if (!whole) {
		count_drop(PL_DROP_PATH_TRUNC);
		return PL_CWD_LEN + 1;
	}
	return PL_CWD_LEN - pos;
}

#endif /* PL_SHARED_BPF_H */
