// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * plumbline.bpf.c - per-process measurement, aggregated in the kernel.
 *
 * One entry per process (`procs`, keyed by tgid) holds cumulative counters
 * for the process's current image; one task-local entry per thread
 * (`threads`) holds the snapshot that turns the kernel's own cumulative CPU
 * accounting (se.sum_exec_runtime) into exact deltas, and the timestamps
 * that split off-CPU time into blocked and runnable-but-waiting. Both halves
 * of that split are taken on one clock (bpf_ktime_get_ns) so they add up.
 * Nothing is emitted per syscall: the ring buffer carries one record when an
 * image starts, one when it ends, and one per distinct failing path, so a
 * storm of a million identical failed opens costs one record.
 *
 * Hooks and why:
 *   tp_btf/sys_enter            count every syscall by number; stash open paths
 *   tp/syscalls/sys_exit_open*  failed opens only (cheap: fires on opens alone)
 *   tp_btf/sched_switch         CPU, run-queue and off-CPU deltas per thread;
 *                               the final switch of a dead thread ends the process
 *                               (two programs: the kernel's prototype picks one)
 *   tp_btf/sched_wakeup         a blocked thread becomes runnable: its run-queue
 *                               wait starts
 *   tp_btf/sched_process_fork   new processes inherit the parent's image
 *   tp_btf/sched_process_exec   end the old image, start the new one
 *   tp_btf/sched_process_exit   count threads in flight to their last switch
 *   perf_event (cpu-clock)      refresh the running thread's CPU so per-second
 *                               windows see a spinning process that never
 *                               switches out
 *   perf_event (cpu-clock)      on-CPU samples: counts per (image, user stack,
 *                               kernel stack), the stacks in stack maps
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "plumbline.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000
#define TASK_DEAD 0x00000080
#define SIGNAL_GROUP_EXIT 0x00000004

/* x86_64 syscall numbers of the open family. */
#define NR_open 2
#define NR_creat 85
#define NR_openat 257
#define NR_openat2 437

#define EFAULT 14

const volatile bool track_open_fail = true;
/* Wake user space only once this much is pending: it polls every 100 ms
 * anyway, and a wakeup per record costs more than the record (exec storms). */
const volatile __u64 wakeup_bytes = 256 << 10;
/*
 * The sensor's own process (set by user space): its failed opens are
 * counted, never tracked by path. It reads /proc of processes that are often
 * gone by then, and must not fill the table it reports from.
 */
const volatile __u32 self_tgid = 0;
/* New failed-path keys per image: a burst, then one per interval. */
const volatile __u64 fail_key_burst = 256;
const volatile __u64 fail_key_interval_ns = 1000000000 / 32;
/* New on-CPU sample keys per image: a burst, then one per interval. */
const volatile __u64 stack_key_burst = 128;
const volatile __u64 stack_key_interval_ns = 1000000000 / 4;

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
	__s64 last_fail_len;  /* bytes of its path read, NUL included */
	/*
	 * The thread's last failed open, and how many repeats of it are not in
	 * `fail_paths` yet. A retry storm repeats one key: comparing with the
	 * last one costs a few ns, hashing a 272-byte key into the table ~270.
	 * Repeats are flushed when the key changes, when the thread is switched
	 * out, and before its image ends, so counts user space reads are exact.
	 */
	__u64 last_fail_pending;
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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_counts);
} cpu_sc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768); /* set by user space: --max-procs */
	__type(key, __u32);
	__type(value, struct pl_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* set by user space: --max-fail-paths */
	__type(key, struct pl_fail_key);
	__type(value, struct pl_fail_val);
} fail_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* set by user space: --ringbuf-kb */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PL_DROP_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Never written: the all-zero source that starts a fresh pl_proc. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_proc);
} zero_proc SEC(".maps");

/* Scratch for building a failed-path key (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_fail_key);
} fail_scratch SEC(".maps");

/*
 * Set while a CPU is inside a CPU-accounting section, so the perf_event
 * refresher, which can interrupt a tracepoint program on the same CPU, never
 * interleaves with it and double-counts a delta.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cpu_busy SEC(".maps");

/*
 * On-CPU samples, aggregated here: a count per (image, user stack, kernel
 * stack), never a record per sample. The first sample of a key announces
 * it to user space (PL_EV_STACK), which reads the stacks while the image
 * lives and the counts when it ends. User frames are kept as build-id +
 * file offset (BPF_F_STACK_BUILD_ID), so they can be named after the
 * process is gone. Sizes are set by user space.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct pl_stack_key);
	__type(value, __u64);
} stack_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(map_flags, BPF_F_STACK_BUILD_ID);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PL_USTACK_DEPTH * sizeof(struct bpf_stack_build_id));
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PL_KSTACK_DEPTH * sizeof(__u64));
} kstacks SEC(".maps");

/* Where user space receives PERF_RECORD_MMAP2 records (with build-ids) of
 * every executable mapping: no program writes here, it holds the perf
 * event fds of its per-CPU buffers. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} mmap_events SEC(".maps");

__u64 image_seq = 0;

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

SEC("tp_btf/sys_enter")
int BPF_PROG(pl_sys_enter, struct pt_regs *regs, long id)
{
	struct cpu_counts *cc = cpu_counts();
	/* unsigned: a negative id (no syscall) fails the bound too */
	__u64 nr = (__u64)id;

	if (!cc)
		return 0;
	cc->in_enter = 1;
	asm volatile("" ::: "memory");
	if (nr < PL_NR_SYSCALLS) {
		__u32 c;

		/* opaque to clang, so the mask the verifier needs survives */
		asm volatile("" : "+r"(nr));
		nr &= PL_NR_SYSCALLS - 1;
		c = ++cc->sc[nr];
		if (c == 1) {
			__u32 n = cc->nsc_dirty;

			if (n < SC_DIRTY_MAX)
				cc->sc_dirty[n & (SC_DIRTY_MAX - 1)] = nr;
			if (n <= SC_DIRTY_MAX)
				cc->nsc_dirty = n + 1;
		} else if (c >= SC_FOLD_AT) {
			__u32 tgid = bpf_get_current_pid_tgid() >> 32;

			fold_sc(cc, bpf_map_lookup_elem(&procs, &tgid));
		}
	} else {
		cc->sc_other++;
	}
	asm volatile("" ::: "memory");
	cc->in_enter = 0;
	if (track_open_fail && (id == NR_openat || id == NR_open || id == NR_openat2 || id == NR_creat)) {
		struct task_struct *t = bpf_get_current_task_btf();
		struct thread_state *th;

		if (!is_user_task(t))
			return 0;
		/* the open's exit may run on another CPU: its path pointer is the thread's */
		th = get_thread(t);
		if (th) {
			th->open_fname = (id == NR_open || id == NR_creat) ? PT_REGS_PARM1_CORE(regs)
									    : PT_REGS_PARM2_CORE(regs);
			th->open_nr = id;
		}
	}
	return 0;
}

/* Layout of a syscalls:sys_exit_* tracepoint record. */
struct sys_exit_args {
	__u64 common;
	long id;
	long ret;
};

/*
 * Whether key k (its path len bytes long, NUL included) is the thread's last
 * failed key. Both are zero-filled past the string, so comparing the words
 * that hold the string is enough: usually 6 or 7 words, not 34.
 */
static __always_inline bool same_as_last(const struct thread_state *th, const struct pl_fail_key *k, long len)
{
	const __u64 *x = (const __u64 *)&th->last_fail, *y = (const __u64 *)k;

	if (len != th->last_fail_len || x[0] != y[0] || x[1] != y[1])
		return false;
	for (int i = 0; i < PL_PATH_LEN / 8; i++) {
		if (i * 8 >= len)
			break;
		if (x[2 + i] != y[2 + i])
			return false;
	}
	return true;
}

static __always_inline void remember_fail(struct thread_state *th, const struct pl_fail_key *k, long len, bool trunc)
{
	__builtin_memcpy(&th->last_fail, k, sizeof(*k));
	th->last_fail_len = len;
	th->last_fail_trunc = trunc;
	th->last_fail_valid = 1;
}

static __always_inline __u32 errno_slot(long err)
{
	return err < PL_NR_ERRNO - 1 ? err & (PL_NR_ERRNO - 1) : PL_NR_ERRNO - 1;
}

/*
 * Whether image p may insert one more failed-path key now: a burst of
 * fail_key_burst keys, then one per fail_key_interval_ns (GCRA, one word of
 * state). Threads of one process may race here and let a key or two more
 * through; the bound is what matters, not its last unit.
 */
static __always_inline bool fail_key_allowed(struct pl_proc *p, __u64 now)
{
	__u64 tat = p->fail_key_tat_ns;

	if (tat < now)
		tat = now;
	if (tat - now >= fail_key_burst * fail_key_interval_ns)
		return false;
	p->fail_key_tat_ns = tat + fail_key_interval_ns;
	return true;
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

/* Repeats wait at most this many before they are counted where user space
 * reads them (they are also flushed at every switch-out and before the
 * image ends), so a storm shows in the per-second windows. */
#define FAIL_FLUSH_EVERY 1024

static __always_inline int open_exit(struct sys_exit_args *ctx)
{
	struct task_struct *t;
	struct thread_state *th;
	struct pl_fail_key *k;
	struct pl_proc *p;
	__u32 zero = 0, tgid;
	long n, err = -ctx->ret;
	const char *uptr;
	bool trunc;

	if (ctx->ret >= 0)
		return 0;
	t = bpf_get_current_task_btf();
	th = bpf_task_storage_get(&threads, t, 0, 0);
	if (!th || !th->open_fname || th->open_nr != ctx->id)
		return 0;
	uptr = (const char *)th->open_fname;
	th->open_fname = 0;
	tgid = bpf_get_current_pid_tgid() >> 32;

	k = bpf_map_lookup_elem(&fail_scratch, &zero);
	if (!k)
		return 0;
	__builtin_memset(k->path, 0, sizeof(k->path));
	/* the image can only change by exec, which forgets the last failure */
	k->image_id = th->last_fail.image_id;
	k->tgid = tgid;
	k->err = err;
	n = bpf_probe_read_user_str(k->path, sizeof(k->path), uptr);
	if (n < 0) {
		count_drop(PL_DROP_PATH_FAULT);
		k->path[0] = 0;
	}
	/* a repeat of the thread's last failure: count it here, nothing else */
	if (th->last_fail_valid && same_as_last(th, k, n)) {
		if (++th->last_fail_pending >= FAIL_FLUSH_EVERY)
			flush_fail(th, bpf_map_lookup_elem(&procs, &tgid));
		return 0;
	}

	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	k->image_id = p->id.image_id;
	__sync_fetch_and_add(&p->st.open_fail, 1);
	__sync_fetch_and_add(&p->st.open_fail_errno[errno_slot(err)], 1);
	flush_fail(th, p);
	th->last_fail_valid = 0;
	trunc = n == sizeof(k->path) && !str_ends_at(uptr, sizeof(k->path) - 1, true);
	if (record_key(k, 1, p, tgid, trunc))
		remember_fail(th, k, n, trunc);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int pl_exit_openat(struct sys_exit_args *ctx) { return open_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_open")
int pl_exit_open(struct sys_exit_args *ctx) { return open_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_openat2")
int pl_exit_openat2(struct sys_exit_args *ctx) { return open_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_creat")
int pl_exit_creat(struct sys_exit_args *ctx) { return open_exit(ctx); }

/*
 * One context switch, whichever program the kernel's sched_switch prototype
 * allows (sensor/kfeatures.c decides at load time which one is loaded):
 * prev_state is the state __schedule() acted on.
 */
static __always_inline int on_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
				     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_counts *cc = cpu_counts();
	struct thread_state *th;
	struct pl_proc *p;
	__u32 *busy = busy_flag();
	__u32 tgid;

	if (!busy || !cc)
		return 0;
	*busy = 1;
	if (is_user_task(prev)) {
		tgid = prev->tgid;
		th = get_thread(prev);
		p = (prev_state & TASK_DEAD) ? bpf_map_lookup_elem(&procs, &tgid) : get_proc(prev, tgid);
		/* what this CPU counted since prev was switched in is prev's */
		fold_sc(cc, p);
		if (th && p) {
			flush_fail(th, p);
			account(prev, th, p);
			__sync_fetch_and_add(&p->st.ctx_switches, 1);
			th->last_out_ns = now;
			/* preempted, or yielded while runnable: waiting for a CPU from now */
			th->queued_ns = (preempt || prev_state == 0) ? now : 0;
			if ((prev_state & TASK_DEAD) && __sync_fetch_and_add(&p->exiting, -1) <= 1 &&
			    BPF_CORE_READ(prev, signal, live.counter) == 0) {
				struct signal_struct *sig = prev->signal;
				__s32 code = (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT)
						     ? BPF_CORE_READ(sig, group_exit_code)
						     : prev->exit_code;

				bpf_probe_read_kernel_str(p->id.comm, sizeof(p->id.comm), prev->group_leader->comm);
				emit_end(tgid, p, now, PL_END_EXIT, code);
				bpf_map_delete_elem(&procs, &tgid);
			}
		}
	}
	if (is_user_task(next)) {
		th = get_thread(next);
		if (th && th->last_out_ns) {
			th->pending_offcpu += now - th->last_out_ns;
			if (th->queued_ns)
				th->pending_runq += now - (th->queued_ns > th->last_out_ns ? th->queued_ns : th->last_out_ns);
			th->last_out_ns = 0;
			th->queued_ns = 0;
		}
	}
	if (!is_user_task(prev))
		fold_sc(cc, NULL); /* a kernel thread's, if any: nobody's to report */
	*busy = 0;
	return 0;
}

/*
 * Linux 5.18+: the tracepoint hands over the state __schedule() read
 * (fa2c3254d7cf "sched/tracing: Don't re-read p->state when emitting
 * sched_switch event" added it, 9c2136be0878 "sched/tracing: Append
 * prev_state to tp args instead" moved it last, where it has stayed).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(pl_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state);
}

/* task_struct before 2f064a59a11f ("sched: Change task_struct::state", 5.14)
 * renamed `volatile long state` to `unsigned int __state`. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/*
 * Older kernels (three arguments): prev's state read from the task, which
 * is what the tracepoint itself did before fa2c3254d7cf. The one difference
 * is the race that commit closed: a task woken while it is being switched
 * out can read TASK_WAKING, not 0; it is then taken as blocked, and its
 * sched_wakeup, which the waker issues only once the switch is over, starts
 * its run-queue wait, as for any blocked task.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(pl_switch_3arg, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	unsigned int state;

	if (bpf_core_field_exists(prev->__state))
		state = BPF_CORE_READ(prev, __state);
	else
		state = (unsigned int)BPF_CORE_READ((struct task_struct___pre514 *)prev, state);
	return on_switch(preempt, prev, next, state);
}

/* A blocked thread became runnable: the rest of its off-CPU time is run-queue wait. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(pl_sched_wakeup, struct task_struct *t)
{
	struct thread_state *th;

	if (!is_user_task(t))
		return 0;
	th = bpf_task_storage_get(&threads, t, 0, 0);
	if (th && th->last_out_ns && !th->queued_ns)
		th->queued_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(pl_sched_exit, struct task_struct *t)
{
	__u32 tgid = t->tgid;
	struct pl_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (p)
		__sync_fetch_and_add(&p->exiting, 1);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(pl_sched_fork, struct task_struct *parent, struct task_struct *child)
{
	struct thread_state *th;
	struct pl_proc *pp, *p;
	__u32 tgid = child->tgid, ptgid = parent->tgid;
	__u64 now;

	if (!is_user_task(child))
		return 0;
	/* A new task has run for no time yet: its snapshots start at zero. */
	th = bpf_task_storage_get(&threads, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!th) {
		count_drop(PL_DROP_THREAD_STATE);
	} else {
		/* runnable from birth: its first wait for a CPU is run-queue time */
		now = bpf_ktime_get_ns();
		th->last_out_ns = now;
		th->queued_ns = now;
	}
	if (child->pid != child->tgid) {
		p = bpf_map_lookup_elem(&procs, &tgid);
		if (p)
			__sync_fetch_and_add(&p->id.threads, 1);
		return 0;
	}

	p = new_proc(tgid);
	if (!p)
		return 0;
	now = bpf_ktime_get_ns();
	set_identity(&p->id, child);
	pp = bpf_map_lookup_elem(&procs, &ptgid);
	if (pp) {
		p->id.exe_ino = pp->id.exe_ino;
		p->id.exe_dev = pp->id.exe_dev;
		p->id.exe_size = pp->id.exe_size;
		p->id.exe_mtime_ns = pp->id.exe_mtime_ns;
		p->id.exe_ctime_ns = pp->id.exe_ctime_ns;
	} else {
		set_exe(&p->id, BPF_CORE_READ(child, mm, exe_file));
	}
	p->id.image_start_ns = now;
	p->id.image_id = __sync_fetch_and_add(&image_seq, 1) + 1;
	p->id.flags = PL_PROC_FORKED | (pp ? pp->id.flags & (PL_PROC_EXE_MEMFD | PL_PROC_EXE_DELETED) : 0);
	p->id.threads = 1;
	emit_proc(PL_EV_FORK, tgid, p, now);
	return 0;
}

/* PL_PROC_EXE_* of the file being exec'd: judged here, at exec, because a
 * binary replaced by a package upgrade while its process runs is unlinked
 * later without ever having been run from a deleted file. A memfd's dentry
 * is named "memfd:<name>" (memfd_create(2), mm/memfd.c); its inode, like an
 * O_TMPFILE's or an unlinked file's, has no links. */
static __always_inline __u32 exe_kind_flags(struct file *f)
{
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	char name[8] = {};
	__u32 flags = 0;

	if (BPF_CORE_READ(f, f_inode, __i_nlink) == 0)
		flags |= PL_PROC_EXE_DELETED;
	if (bpf_probe_read_kernel(name, 6, BPF_CORE_READ(d, d_name.name)) == 0 && name[0] == 'm' &&
	    name[1] == 'e' && name[2] == 'm' && name[3] == 'f' && name[4] == 'd' && name[5] == ':')
		flags |= PL_PROC_EXE_MEMFD;
	return flags;
}

/* Components the cwd walk climbs at most (mount crossings count too): a
 * PL_CWD_LEN path has fewer unless its names are one byte long. */
#define CWD_MAX_DEPTH 64
#define CWD_MASK (PL_CWD_LEN - 1)

/* Where read_cwd() builds a path from its end (twice PL_CWD_LEN: the
 * verifier sees every masked write and the copy out stay inside). */
struct cwd_buf {
	char b[2 * PL_CWD_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cwd_buf);
} cwd_scratch SEC(".maps");

/*
 * The working directory of task t into out (PL_CWD_LEN bytes), as its own
 * getcwd(2) would say it: dentry names from pwd up to the task's root,
 * crossing mounts to their mountpoints, and stopping at the root of the
 * task's mount namespace when pwd lies outside its root. bpf_d_path() would
 * say the same but is not allowed in this tracepoint. Returns the length
 * with the NUL, PL_CWD_LEN + 1 when the path did not fit (out holds its
 * last components), 0 when it could not be read.
 */
static __always_inline __u32 read_cwd(struct task_struct *t, char *out)
{
	struct fs_struct *fs = BPF_CORE_READ(t, fs);
	struct dentry *d, *root_d;
	struct vfsmount *vm, *root_vm;
	struct mount *m;
	__u32 zero = 0, pos = PL_CWD_LEN - 1;
	struct cwd_buf *cb;
	bool whole = false;

	cb = bpf_map_lookup_elem(&cwd_scratch, &zero);
	if (!cb || !fs)
		return 0;
	d = BPF_CORE_READ(fs, pwd.dentry);
	vm = BPF_CORE_READ(fs, pwd.mnt);
	root_d = BPF_CORE_READ(fs, root.dentry);
	root_vm = BPF_CORE_READ(fs, root.mnt);
	m = container_of(vm, struct mount, mnt);
	cb->b[PL_CWD_LEN - 1] = 0;
	for (int i = 0; i < CWD_MAX_DEPTH; i++) {
		struct dentry *parent;
		__u32 len;

		if (d == root_d && vm == root_vm) {
			whole = true;
			break;
		}
		if (d == BPF_CORE_READ(vm, mnt_root)) {
			struct mount *pm = BPF_CORE_READ(m, mnt_parent);

			if (pm == m) { /* the namespace's root mount: outside the task's root */
				whole = true;
				break;
			}
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = pm;
			vm = &pm->mnt;
			continue;
		}
		parent = BPF_CORE_READ(d, d_parent);
		if (parent == d) { /* a detached tree's top */
			whole = true;
			break;
		}
		len = BPF_CORE_READ(d, d_name.len);
		if (len + 1 > pos)
			break;
		pos -= len;
		bpf_probe_read_kernel(&cb->b[pos & CWD_MASK], len & CWD_MASK, BPF_CORE_READ(d, d_name.name));
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

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pl_sched_exec, struct task_struct *t, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = t->tgid;
	__u64 now = bpf_ktime_get_ns();
	struct thread_state *th = get_thread(t);
	struct pl_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	struct cpu_counts *cc = cpu_counts();
	struct pl_ev_exec *ev;
	__u32 *busy = busy_flag();
	__s32 exiting = 0;
	unsigned long as, ae;
	__u32 len;
	long n;

	if (!busy || !cc)
		return 0;
	fold_sc(cc, p); /* the old image's, execve included */
	if (p && th) {
		*busy = 1;
		account(t, th, p);
		*busy = 0;
		flush_fail(th, p);
		emit_end(tgid, p, now, PL_END_EXEC, 0);
		exiting = p->exiting;
	}
	if (th)
		th->last_fail_valid = 0; /* keys name the old image */
	if (p) {
		/* The other threads are gone by now (de_thread), so nothing adds to
		 * the entry: start it over in place, cheaper than a new element. */
		__u32 zero = 0;
		struct pl_proc *z = bpf_map_lookup_elem(&zero_proc, &zero);

		if (!z)
			return 0;
		bpf_probe_read_kernel(p, sizeof(*p), z);
	} else {
		p = new_proc(tgid);
		if (!p)
			return 0;
	}
	set_identity(&p->id, t);
	set_exe(&p->id, BPF_CORE_READ(bprm, file));
	p->id.image_start_ns = now;
	p->id.image_id = __sync_fetch_and_add(&image_seq, 1) + 1;
	p->id.flags = PL_PROC_EXECED | exe_kind_flags(BPF_CORE_READ(bprm, file));
	p->exiting = exiting;
	p->id.threads = 1;

	ev = reserve(sizeof(*ev));
	if (!ev)
		return 0;
	fill_hdr(&ev->hdr, PL_EV_EXEC, sizeof(*ev), tgid, now);
	bpf_probe_read_kernel(&ev->id, sizeof(ev->id), &p->id);
	n = bpf_probe_read_kernel_str(ev->filename, sizeof(ev->filename), BPF_CORE_READ(bprm, filename));
	ev->filename_len = n > 0 ? n : 0;
	if (n == sizeof(ev->filename) && !str_ends_at(BPF_CORE_READ(bprm, filename), sizeof(ev->filename) - 1, false)) {
		ev->filename_len = sizeof(ev->filename) + 1; /* tells user space it was cut */
		count_drop(PL_DROP_PATH_TRUNC);
	}
	as = BPF_CORE_READ(t, mm, arg_start);
	ae = BPF_CORE_READ(t, mm, arg_end);
	len = ae > as ? ae - as : 0;
	if (len > PL_ARGS_LEN) {
		len = PL_ARGS_LEN;
		count_drop(PL_DROP_ARGS_TRUNC);
	}
	ev->args_len = 0;
	if (len > 0 && len <= PL_ARGS_LEN && !bpf_probe_read_user(ev->args, len, (void *)as))
		ev->args_len = len;
	ev->cwd_len = read_cwd(t, ev->cwd);
	ev->pad = 0;
	submit(ev);
	return 0;
}

/*
 * Fold the CPU time and the syscalls of whatever user thread is running on
 * this CPU into its process. It can interrupt a tracepoint program on the
 * same CPU: `cpu_busy` keeps it out of account(), the CPU's in_enter out of
 * its syscall counts.
 */
static __always_inline void refresh_current(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct cpu_counts *cc = cpu_counts();
	struct thread_state *th;
	struct pl_proc *p;
	__u32 *busy = busy_flag();
	__u32 tgid;

	if (!busy || *busy || !cc || !is_user_task(t) || (t->flags & PF_EXITING))
		return;
	tgid = t->tgid;
	p = bpf_map_lookup_elem(&procs, &tgid);
	th = bpf_task_storage_get(&threads, t, 0, 0);
	if (p && th)
		account(t, th, p);
	if (p && !cc->in_enter)
		fold_sc(cc, p);
}

/*
 * Runs on every CPU at a low frequency (--refresh-hz), so a process spinning
 * without a context switch still shows between the sensor's passes.
 */
SEC("perf_event")
int pl_cpu_refresh(void *ctx)
{
	refresh_current();
	return 0;
}

/*
 * Not attached: user space runs it on each CPU (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU, an IPI, so "current" is whatever that CPU was
 * running) just before it reads the process table, so a window's CPU is
 * what its processes used up to the window's end, not up to the last
 * refresh.
 */
SEC("raw_tp")
int pl_cpu_sync(void *ctx)
{
	refresh_current();
	return 0;
}

/*
 * On-CPU sampling (perf cpu-clock, --sample-hz per CPU): count the sample
 * in the running process's image, and under its pair of stacks. A stack
 * that cannot be stored (its bucket holds another stack: ids are hashes)
 * still counts, with id -1; a key that does not fit the table is counted
 * in the image as unattributed. Kernel threads and idle are not sampled.
 */
SEC("perf_event")
int pl_oncpu_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pl_stack_key k = {};
	struct pl_ev_stack *ev;
	struct pl_proc *p;
	__u64 one = 1, *v, now, tat;
	__u32 tgid;
	long id;

	if (!is_user_task(t))
		return 0;
	tgid = t->tgid;
	if (tgid == self_tgid) /* the sensor does not sample itself into its own tables */
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	__sync_fetch_and_add(&p->oncpu_samples, 1);
	k.image_id = p->id.image_id;
	k.tgid = tgid;
	id = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
	if (id < 0 && id != -EFAULT)
		count_drop(PL_DROP_STACK_ID);
	k.ustack = id < 0 ? -1 : id;
	/* -EFAULT: the sample hit user mode, there is no kernel stack */
	id = bpf_get_stackid(ctx, &kstacks, 0);
	if (id < 0 && id != -EFAULT)
		count_drop(PL_DROP_STACK_ID);
	k.kstack = id < 0 ? -1 : id;

	v = bpf_map_lookup_elem(&stack_counts, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return 0;
	}
	/* no image holds more than its share of the table, nor announces new
	 * stacks faster than user space reads them: a burst, then a few a second */
	now = bpf_ktime_get_ns();
	tat = p->stack_key_tat_ns < now ? now : p->stack_key_tat_ns;
	if (tat - now >= stack_key_burst * stack_key_interval_ns) {
		count_drop(PL_DROP_STACK_IMAGE);
		__sync_fetch_and_add(&p->oncpu_unattributed, 1);
		return 0;
	}
	p->stack_key_tat_ns = tat + stack_key_interval_ns;
	if (bpf_map_update_elem(&stack_counts, &k, &one, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&stack_counts, &k);
		if (v) {
			__sync_fetch_and_add(v, 1);
			return 0;
		}
		count_drop(PL_DROP_STACK_MAP);
		__sync_fetch_and_add(&p->oncpu_unattributed, 1);
		return 0;
	}
	ev = reserve(sizeof(*ev));
	if (!ev)
		return 0; /* counted; user space finds the key when the image ends */
	fill_hdr(&ev->hdr, PL_EV_STACK, sizeof(*ev), tgid, now);
	ev->key = k;
	submit(ev);
	return 0;
}
