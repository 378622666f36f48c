// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sched.bpf.c - scheduler and CPU accounting.
 *
 * The thread's task-local state turns the kernel's own cumulative CPU
 * accounting (se.sum_exec_runtime) into exact deltas, and its timestamps
 * split off-CPU time into blocked and runnable-but-waiting, both halves on
 * one clock (bpf_ktime_get_ns) so they add up.
 *
 *   tp_btf/sched_switch   CPU, run-queue and off-CPU deltas per thread; the
 *                         final switch of a dead thread ends the process
 *                         (two programs: the kernel's prototype picks one)
 *   tp_btf/sched_wakeup   a blocked thread becomes runnable: its run-queue
 *                         wait starts
 *   perf_event cpu-clock  refresh the running thread's CPU so per-second
 *                         windows see a spinning process that never
 *                         switches out (and the same fold on demand)
 */
#include "shared.bpf.h"

/*
 * One context switch, whichever program the kernel's sched_switch prototype
 * allows (sensor/probes/kfeatures.c decides at load time which one is loaded):
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
