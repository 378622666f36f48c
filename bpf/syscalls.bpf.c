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
#include "files.bpf.h"

/* x86_64 syscall numbers of the open family. */
#define NR_open 2
#define NR_creat 85
#define NR_openat 257
#define NR_openat2 437
/* of the renames (persistence written to a temporary name, renamed into place) */
#define NR_rename 82
#define NR_renameat 264
#define NR_renameat2 316
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
 * A rename's new name, to user space, which classifies it (a watched
 * file's path classes, process/fileclass.h). Persistence is often written
 * to a temporary name and renamed into place (`sed -i`, `mv evil
 * /etc/cron.d/x`, editors, package managers): the open of the temporary
 * file is seen only when its directory is watched, so the new name of every
 * rename goes out. rename(2) is rare next to open(2), so its entry may read
 * the path; records are rate limited per image like every watched-file
 * record (files.bpf.h). Read here, in the one raw sys_enter program, not
 * from syscalls:sys_enter_rename*: a syscalls:sys_enter_* tracepoint puts
 * the syscall tracepoints' enter path on every syscall of every task.
 * Not seen: link(2)/linkat(2) and unlink(2) (a removed credential file is
 * no read of it).
 */
static __noinline int renamed(const char *newname)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 tgid = t->tgid;
	struct pl_ev_file *ev;
	struct pl_proc *p;
	long n;

	if (tgid == self_tgid)
		return 0;
	p = get_proc(t, tgid);
	if (!p)
		return 0;
	ev = file_record(p, tgid, PL_FOP_RENAME, 0, 0, 0);
	if (!ev)
		return 0;
	n = bpf_probe_read_user_str(ev->path, sizeof(ev->path), newname);
	if (n < 0) {
		ev->path[0] = 0;
		n = 0;
	} else if (n == sizeof(ev->path) && !str_ends_at(newname, sizeof(ev->path) - 1, true)) {
		n = PL_PATH_LEN + 1;
	}
	ev->path_len = n;
	if (n && ev->path[0] != '/')
		ev->flags |= PL_FILEF_RELATIVE;
	submit(ev);
	return 0;
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
	if (id == NR_rename || id == NR_renameat || id == NR_renameat2) {
		/* rename(old, new); renameat(2)(olddfd, old, newdfd, new, ...) */
		renamed((const char *)(id == NR_rename ? PT_REGS_PARM2_CORE(regs) : PT_REGS_PARM4_CORE_SYSCALL(regs)));
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
