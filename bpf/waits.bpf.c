// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * waits.bpf.c - the kernel stacks of a waiting process's threads.
 *
 *   syscall     pl_wait_threads: run by user space (BPF_PROG_TEST_RUN) for
 *               one process: its threads, walked with the open-coded task
 *               iterator, each thread's state and kernel stack into
 *               wait_out[] (struct pl_wait_rec), read from the mmap()ed .bss
 *   iter/task   pl_wait_stacks: the same records written to the iterator's
 *               seq_file, for kernels without those kfuncs (before 6.7):
 *               one read walks every task of the host
 *
 * Why BPF: /proc/PID/task/TID/stack needs CAP_SYS_ADMIN on Linux 6.x,
 * which the sensor drops once attached (sensor/hardening/privilege.c).
 * Both programs are loaded (and the iterator's link made) at start-up;
 * BPF_PROG_TEST_RUN on a loaded program, BPF_ITER_CREATE on an existing
 * link and read(2) need no capability, so the stacks survive the drop.
 * Either runs only when user space asks, for a process already judged to be
 * waiting (a few per second at most, sensor/pipeline/images.c): nothing on
 * the scheduler's hot path, and exact for a thread blocked for good, which
 * a switch-out hook would have had to catch before anyone knew it would
 * wait. kfeatures.c decides which of the two is loaded (docs/features.md:
 * thread_iter, task_iter).
 */
#include "shared.bpf.h"

/*
 * The process to report, written by user space through the skeleton's
 * mmap()ed .bss just before it runs one of the programs (the sensor's one
 * thread reads one process at a time). 0: nothing is written.
 */
volatile __u32 wait_tgid = 0;
/* pl_wait_threads' output: wait_out[0 .. wait_nout) */
__u32 wait_nout = 0;
struct pl_wait_rec wait_out[PL_WAIT_MAX_RECS];
/* its threads, collected under RCU, walked after (the stack walk may sleep here) */
__u32 wait_tids[PL_WAIT_MAX_RECS];

/* task_struct before 2f064a59a11f ("sched: Change task_struct::state", 5.14). */
struct task_struct___pre514_w {
	long state;
} __attribute__((preserve_access_index));

/* One thread's record into r: state, and unless it runs, its stack. */
static __always_inline void fill(struct pl_wait_rec *r, struct task_struct *t)
{
	long n;

	r->version = PL_ABI_VERSION;
	r->size = sizeof(*r);
	r->tid = BPF_CORE_READ(t, pid);
	r->tgid = BPF_CORE_READ(t, tgid);
	r->nframes = 0;
	if (bpf_core_field_exists(t->__state))
		r->state = BPF_CORE_READ(t, __state);
	else
		r->state = (__u32)BPF_CORE_READ((struct task_struct___pre514_w *)t, state);
	/* a running thread's stack changes under the walk: its state says enough */
	if (r->state != 0) {
		n = bpf_get_task_stack(t, r->ips, sizeof(r->ips), 0);
		r->nframes = n < 0 ? (__s32)n : (__s32)((__u64)n / 8);
	}
}

/* ---- one process's threads (kfuncs: Linux 6.7+) ---- */

extern struct task_struct *bpf_task_from_pid(s32 pid) __weak __ksym;
extern void bpf_task_release(struct task_struct *p) __weak __ksym;
extern void bpf_rcu_read_lock(void) __weak __ksym;
extern void bpf_rcu_read_unlock(void) __weak __ksym;
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task, unsigned int flags) __weak __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __weak __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __weak __ksym;

/* bpf_loop's body: thread i of wait_tids, looked up again (it may be gone). */
static long one_thread(__u64 idx, void *ctx)
{
	struct task_struct *t;
	__u32 i = (__u32)idx;

	if (i >= PL_WAIT_MAX_RECS || wait_nout >= PL_WAIT_MAX_RECS)
		return 1;
	t = bpf_task_from_pid((s32)wait_tids[i]);
	if (!t)
		return 0; /* gone meanwhile */
	/* a tid reused meanwhile by another process: the tgid says so, user space drops it */
	fill(&wait_out[wait_nout & (PL_WAIT_MAX_RECS - 1)], t);
	wait_nout++;
	bpf_task_release(t);
	return 0;
}

SEC("syscall")
int pl_wait_threads(void *ctx)
{
	struct task_struct *leader, *t;
	struct bpf_iter_task it;
	__u32 n = 0;

	wait_nout = 0;
	leader = bpf_task_from_pid((s32)wait_tgid);
	if (!leader)
		return 0;
	/* bpf_get_task_stack() may not run under RCU in a sleepable program:
	 * the tids first, the stacks after */
	bpf_rcu_read_lock();
	bpf_iter_task_new(&it, leader, BPF_TASK_ITER_PROC_THREADS);
	while ((t = bpf_iter_task_next(&it))) {
		if (n >= PL_WAIT_MAX_RECS)
			break; /* more threads than user space reads */
		wait_tids[n & (PL_WAIT_MAX_RECS - 1)] = t->pid;
		n++;
	}
	bpf_iter_task_destroy(&it);
	bpf_rcu_read_unlock();
	bpf_task_release(leader);
	bpf_loop(n, one_thread, NULL, 0);
	return 0;
}

/* ---- every task of the host (Linux 5.8+) ---- */

SEC("iter/task")
int pl_wait_stacks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct pl_wait_rec r = {};
	__u32 want = wait_tgid;

	if (!t || !want || t->tgid != want)
		return 0;
	fill(&r, t);
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}
