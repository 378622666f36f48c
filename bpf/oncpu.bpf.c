// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * oncpu.bpf.c - on-CPU sampling (perf_event cpu-clock) and its stacks.
 *
 * One record per sample, with the registers and a copy of the top of the
 * user stack, unwound in user space (sensor/stacks/unwind.h): Debian's
 * binaries have no frame pointers, so the kernel's own user stack walk
 * stops after a frame or two. `mmap_events` is where user space receives
 * the executable mappings (with build-ids) the frames fall in.
 */
#include "shared.bpf.h"

#define EFAULT 14

/* Bytes of user stack copied per sample (--stack-bytes), a multiple of 8. */
const volatile __u32 stack_dump_bytes = PL_STACK_DUMP_DEFAULT;

/* Samples have their own ring buffer: a burst of samples never crowds out
 * the process records, and user space drains it before it handles an
 * image's end. Sized by user space (--sample-ring-kb). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} samples SEC(".maps");

/* The record is built here (it is larger than a BPF stack) and copied out
 * at its real length. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_ev_sample);
} sample_scratch SEC(".maps");

/* Where user space receives PERF_RECORD_MMAP2 records (with build-ids) of
 * every executable mapping: no program writes here, it holds the perf
 * event fds of its per-CPU buffers. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} mmap_events SEC(".maps");

#define PAGE 4096
#define DUMP_PAGES (PL_STACK_DUMP_MAX / PAGE + 1)

/*
 * Copy the user stack from sp up: at once when all of it is mapped, else
 * page by page until the first page that is not (the stack's top end is
 * usually a few KB above a shallow thread's sp). Returns the bytes copied.
 */
static __always_inline __u32 copy_stack(struct pl_ev_sample *ev, __u64 sp, __u32 want)
{
	__u32 len = 0;

	if (want > PL_STACK_DUMP_MAX)
		want = PL_STACK_DUMP_MAX;
	if (!want)
		return 0;
	if (bpf_probe_read_user(ev->stack, want, (const void *)sp) == 0)
		return want;
	for (int i = 0; i < DUMP_PAGES; i++) {
		__u32 chunk = i == 0 ? PAGE - (sp & (PAGE - 1)) : PAGE;

		if (len >= want)
			break;
		if (chunk > want - len)
			chunk = want - len;
		if (len > PL_STACK_DUMP_MAX - 1 || chunk == 0 || chunk > PAGE)
			break;
		if (len + chunk > PL_STACK_DUMP_MAX)
			break;
		if (bpf_probe_read_user(ev->stack + len, chunk, (const void *)(sp + len)))
			break;
		len += chunk;
	}
	return len;
}

/*
 * On-CPU sampling (perf cpu-clock, --sample-hz per CPU): the sample is
 * counted in the running process's image, and its record carries what user
 * space needs to rebuild the whole stack: the user registers (of the
 * interrupted user code, or where the thread entered the kernel), the
 * kernel stack, and the top of the user stack. Nothing is kept here: no
 * stack map whose buckets collide, no table to fill. A record the ring
 * cannot take is counted in the image as unattributed. Kernel threads and
 * idle are not sampled.
 */
SEC("perf_event")
int pl_oncpu_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pl_ev_sample *ev;
	struct pt_regs *regs;
	struct pl_proc *p;
	__u32 tgid, zero = 0, len = 0;
	long n;

	if (!is_user_task(t))
		return 0;
	tgid = t->tgid;
	if (tgid == self_tgid) /* the sensor does not sample itself into its own tables */
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	__sync_fetch_and_add(&p->oncpu_samples, 1);
	ev = bpf_map_lookup_elem(&sample_scratch, &zero);
	if (!ev)
		return 0;
	ev->image_id = p->id.image_id;
	ev->tid = t->pid;
	ev->flags = 0;
	ev->nkern = 0;
	/* a sample in user mode has no kernel stack (0 frames, or -EFAULT) */
	n = bpf_get_stack(ctx, ev->kern, sizeof(ev->kern), 0);
	if (n > 0) {
		ev->nkern = n / sizeof(__u64);
		ev->flags |= PL_SAMPLE_IN_KERNEL;
	} else if (n < 0 && n != -EFAULT) {
		count_drop(PL_DROP_KSTACK);
	}
	/* the user registers: saved at the kernel's entry from user mode */
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (regs) {
		ev->regs[0] = BPF_CORE_READ(regs, ax);
		ev->regs[1] = BPF_CORE_READ(regs, dx);
		ev->regs[2] = BPF_CORE_READ(regs, cx);
		ev->regs[3] = BPF_CORE_READ(regs, bx);
		ev->regs[4] = BPF_CORE_READ(regs, si);
		ev->regs[5] = BPF_CORE_READ(regs, di);
		ev->regs[6] = BPF_CORE_READ(regs, bp);
		ev->regs[7] = BPF_CORE_READ(regs, sp);
		ev->regs[8] = BPF_CORE_READ(regs, r8);
		ev->regs[9] = BPF_CORE_READ(regs, r9);
		ev->regs[10] = BPF_CORE_READ(regs, r10);
		ev->regs[11] = BPF_CORE_READ(regs, r11);
		ev->regs[12] = BPF_CORE_READ(regs, r12);
		ev->regs[13] = BPF_CORE_READ(regs, r13);
		ev->regs[14] = BPF_CORE_READ(regs, r14);
		ev->regs[15] = BPF_CORE_READ(regs, r15);
		ev->regs[16] = BPF_CORE_READ(regs, ip);
		len = copy_stack(ev, ev->regs[7], stack_dump_bytes);
		if (!len && stack_dump_bytes)
			count_drop(PL_DROP_STACK_COPY);
	} else {
		ev->flags |= PL_SAMPLE_NO_REGS;
	}
	ev->stack_len = len;
	fill_hdr(&ev->hdr, PL_EV_SAMPLE, offsetof(struct pl_ev_sample, stack) + len, tgid, bpf_ktime_get_ns());
	len = ev->hdr.size;
	if (len > sizeof(*ev))
		return 0;
	/* no wakeup: the loop drains this ring at least every 100 ms, and
	 * before it handles an image's end */
	if (bpf_ringbuf_output(&samples, ev, len, BPF_RB_NO_WAKEUP)) {
		count_drop(PL_DROP_SAMPLE_RING);
		__sync_fetch_and_add(&p->oncpu_unattributed, 1);
	}
	return 0;
}
