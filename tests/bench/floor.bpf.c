// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * floor.bpf.c - the benchmark's "floor": an empty BPF program on every
 * syscall entry. Whatever this costs is the minimum any sensor that looks
 * at every syscall through tp_btf/sys_enter can cost; plumbline's overhead
 * is reported against it.
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
