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
/* and of the calls that map code */
#define NR_mmap 9
#define NR_mprotect 10

#define PROT_EXEC 0x4
#define MAP_ANONYMOUS 0x20

const volatile bool track_open_fail = true;

static __always_inline bool is_open_nr(long id)
{
	return id == NR_openat || id == NR_open || id == NR_openat2 || id == NR_creat;
}

/* Remember an executable mapping in flight for maps.bpf.c's exit program. */
static __always_inline void map_stash(struct task_struct *t, __u32 how, __s32 fd, __u64 file, __u32 prot)
{
	struct map_inflight *m;

	if (!is_user_task(t) || t->tgid == self_tgid)
		return;
	m = bpf_task_storage_get(&map_inflight, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!m) {
		count_drop(PL_DROP_THREAD_STATE);
		return;
	}
	if (!m->how)
		__sync_fetch_and_add(&map_inflight_n, 1);
	m->file = file;
	m->fd = fd;
	m->prot = prot;
	m->how = how;
}

static long vma_file(struct task_struct *t, struct vm_area_struct *vma, void *ctx)
{
	*(__u64 *)ctx = (__u64)BPF_CORE_READ(vma, vm_file);
	return 0;
}

/*
 * mmap(addr, len, prot, flags, fd, off) of a file with PROT_EXEC, and
 * mprotect(start, len, prot) adding PROT_EXEC to a file mapping. Syscall
 * arguments: the fourth is in r10 (PT_REGS_PARM4_CORE_SYSCALL), not rcx.
 */
static __noinline void map_enter(struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 prot = (__u32)PT_REGS_PARM3_CORE(regs);
	__u64 file = 0;

	if (!(prot & PROT_EXEC))
		return;
	if (id == NR_mmap) {
		__s32 fd = (__s32)PT_REGS_PARM5_CORE(regs);

		if ((PT_REGS_PARM4_CORE_SYSCALL(regs) & MAP_ANONYMOUS) || fd < 0)
			return;
		map_stash(t, PL_MAP_MMAP, fd, 0, prot);
		return;
	}
	if (bpf_find_vma(t, PT_REGS_PARM1_CORE(regs), vma_file, &file, 0) || !file)
		return; /* anonymous memory (a JIT's), or no mapping */
	map_stash(t, PL_MAP_MPROTECT, -1, file, prot);
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
	if ((id == NR_mmap || id == NR_mprotect) && track_maps) {
		map_enter(regs, id);
		return 0;
	}
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
