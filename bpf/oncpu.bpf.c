// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * oncpu.bpf.c - on-CPU sampling (perf_event cpu-clock) and its stacks.
 *
 * A count per (image, user stack, kernel stack), never a record per
 * sample; the first sample of a key announces it (STACK record). The
 * stack maps keep user frames as build-id + offset, so they can be named
 * after the process is gone. `mmap_events` is where user space receives
 * the executable mappings that name those build-ids.
 */
#include "shared.bpf.h"

#define EFAULT 14

/* New on-CPU sample keys per image: a burst, then one per interval. */
const volatile __u64 stack_key_burst = 128;
const volatile __u64 stack_key_interval_ns = 1000000000 / 4;

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
	__u64 one = 1, *v, now;
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
	if (!gcra_allow(&p->stack_key_tat_ns, now, stack_key_burst, stack_key_interval_ns)) {
		count_drop(PL_DROP_STACK_IMAGE);
		__sync_fetch_and_add(&p->oncpu_unattributed, 1);
		return 0;
	}
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
