// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * syscalls.bpf.c - syscall counting (tp_btf/sys_enter).
 *
 * Every syscall of every task is counted by number in the CPU's own slot
 * (struct cpu_counts: no lookup of the thread or process, no atomic); the
 * counts are folded into the running task's process at its switch-out, at
 * exec and exit, and by the CPU refresher (sched.bpf.c). Nothing is emitted
 * per syscall. For the open family it also stashes the path pointer in the
 * thread's state, for failopen.bpf.c to read at the open's exit.
 */
#include "shared.bpf.h"

/* x86_64 syscall numbers of the open family. */
#define NR_open 2
#define NR_creat 85
#define NR_openat 257
#define NR_openat2 437

const volatile bool track_open_fail = true;

static __always_inline bool is_open_nr(long id)
{
	return id == NR_openat || id == NR_open || id == NR_openat2 || id == NR_creat;
}

/*
 * The hot path is the increment and one test: a slot's first count since
 * the last fold (c == 1: the number joins the dirty list) and a slot about
 * to need a fold (c >= SC_FOLD_AT) are both c - 2 >= SC_FOLD_AT - 2 in
 * unsigned arithmetic, so an ordinary repeat takes one branch, not two. The
 * open-family test comes before the rodata flag, so other syscalls load
 * nothing more.
 */
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
		if (c - 2 >= SC_FOLD_AT - 2) {
			if (c == 1) {
				__u32 n = cc->nsc_dirty;

				if (n < SC_DIRTY_MAX)
					cc->sc_dirty[n & (SC_DIRTY_MAX - 1)] = nr;
				if (n <= SC_DIRTY_MAX)
					cc->nsc_dirty = n + 1;
			} else {
				__u32 tgid = bpf_get_current_pid_tgid() >> 32;

				fold_sc(cc, bpf_map_lookup_elem(&procs, &tgid));
			}
		}
	} else {
		cc->sc_other++;
	}
	asm volatile("" ::: "memory");
	cc->in_enter = 0;
	if (is_open_nr(id) && track_open_fail) {
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
