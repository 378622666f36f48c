// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * floor.bpf.c - the benchmark's "floor": an empty BPF program on every hook
 * the sensor's per-event paths use. Whatever these cost is the minimum any
 * sensor watching the same events through the same hooks can cost;
 * plumbline's overhead is reported against it.
 *
 *   tp_btf/sys_enter                    every syscall (W1, W5: syscall counts)
 *   syscalls:sys_exit_open{,at,at2}, creat   the open family's results (W2, W7, W8)
 *   syscalls:sys_exit_mmap, sys_exit_mprotect   code mapped (W10); floor_enter_mmap
 *     (sys_enter_mmap, which the sensor does not use) only for bench_hooks
 *   sock:inet_sock_set_state            TCP state changes (W9)
 *
 * A syscall tracepoint is not free for other syscalls either: attaching any
 * syscalls:sys_exit_* event turns on the kernel's sys_exit tracepoint for
 * every syscall (the event's number is tested there), so it belongs in the
 * floor of W1 too. bench_floor --enter-only loads sys_enter alone (the floor
 * before issue 18).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int floor_exit_openat(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_open")
int floor_exit_open(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int floor_exit_openat2(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_creat")
int floor_exit_creat(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int floor_enter_mmap(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int floor_exit_mmap(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mprotect")
int floor_exit_mprotect(void *ctx)
{
	return 0;
}

SEC("tracepoint/sock/inet_sock_set_state")
int floor_sock_state(void *ctx)
{
	return 0;
}

/* The on-CPU sampler's hook, a cpu-clock perf event per CPU: loaded only by
 * bench_floor --sample-hz, which opens the events. */
SEC("perf_event")
int floor_sample(void *ctx)
{
	return 0;
}
