// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * waits.bpf.c - the kernel stacks of a waiting process's threads.
 *
 *   iter/task   for each thread of the process user space names, its state
 *               and its kernel stack (struct pl_wait_rec)
 *
 * Why an iterator: /proc/PID/task/TID/stack needs CAP_SYS_ADMIN on Linux
 * 6.x, which the sensor drops once attached (sensor/hardening/privilege.c).
 * The iterator's link is created at start-up, with the other programs;
 * BPF_ITER_CREATE on that link and read(2) on the fd it returns need no
 * capability, so the stacks survive the drop. It runs only when user space
 * reads it, for a process already judged to be waiting (a few per second at
 * most, sensor/pipeline/images.c): nothing on the scheduler's hot path, and
 * exact for a thread blocked for good, which a switch-out hook would have
 * had to catch before anyone knew it would wait.
 *
 * The kernel walks every thread of the system for one read; the ones of
 * other processes cost a compare each.
 */
#include "shared.bpf.h"

/*
 * The process to report, written by user space through the skeleton's
 * mmap()ed .bss just before it creates an iterator fd (the sensor's one
 * thread reads one process at a time). 0: nothing is written.
 */
volatile __u32 wait_tgid = 0;

/* task_struct before 2f064a59a11f ("sched: Change task_struct::state", 5.14). */
struct task_struct___pre514_w {
	long state;
} __attribute__((preserve_access_index));

SEC("iter/task")
int pl_wait_stacks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct pl_wait_rec r = {};
	__u32 want = wait_tgid;
	long n;

	if (!t || !want || t->tgid != want)
		return 0;
	r.version = PL_ABI_VERSION;
	r.size = sizeof(r);
	r.tid = t->pid;
	r.tgid = t->tgid;
	if (bpf_core_field_exists(t->__state))
		r.state = BPF_CORE_READ(t, __state);
	else
		r.state = (__u32)BPF_CORE_READ((struct task_struct___pre514_w *)t, state);
	/* a running thread's stack changes under the walk: its state says enough */
	if (r.state != 0) {
		n = bpf_get_task_stack(t, r.ips, sizeof(r.ips), 0);
		r.nframes = n < 0 ? (__s32)n : (__s32)((__u64)n / 8);
	}
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}
