// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * lifecycle.bpf.c - the process lifecycle: fork, exec, exit.
 *
 * One entry per process (`procs`, keyed by tgid) holds cumulative counters
 * for the process's current image. A fork gives the child an entry that
 * inherits its parent's image; an exec ends the old image (END) and starts
 * the new one (EXEC, with its filename, arguments and working directory);
 * the exit hook counts threads in flight to their last switch, where
 * sched.bpf.c ends the process.
 */
#include "shared.bpf.h"
#include "net.bpf.h"

SEC("tp_btf/sched_process_exit")
int BPF_PROG(pl_sched_exit, struct task_struct *t)
{
	__u32 tgid = t->tgid;
	struct pl_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (p)
		__sync_fetch_and_add(&p->exiting, 1);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(pl_sched_fork, struct task_struct *parent, struct task_struct *child)
{
	struct thread_state *th;
	struct pl_proc *pp, *p;
	__u32 tgid = child->tgid, ptgid = parent->tgid;
	__u64 now;

	if (!is_user_task(child))
		return 0;
	/* A new task has run for no time yet: its snapshots start at zero. */
	th = bpf_task_storage_get(&threads, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!th) {
		count_drop(PL_DROP_THREAD_STATE);
	} else {
		/* runnable from birth: its first wait for a CPU is run-queue time */
		now = bpf_ktime_get_ns();
		th->last_out_ns = now;
		th->queued_ns = now;
	}
	if (child->pid != child->tgid) {
		p = bpf_map_lookup_elem(&procs, &tgid);
		if (p)
			__sync_fetch_and_add(&p->id.threads, 1);
		return 0;
	}

	p = new_proc(tgid);
	if (!p)
		return 0;
	now = bpf_ktime_get_ns();
	set_identity(&p->id, child);
	pp = bpf_map_lookup_elem(&procs, &ptgid);
	if (pp) {
		p->id.exe_ino = pp->id.exe_ino;
		p->id.exe_dev = pp->id.exe_dev;
		p->id.exe_size = pp->id.exe_size;
		p->id.exe_mtime_ns = pp->id.exe_mtime_ns;
		p->id.exe_ctime_ns = pp->id.exe_ctime_ns;
	} else {
		set_exe(&p->id, BPF_CORE_READ(child, mm, exe_file));
	}
	p->id.image_start_ns = now;
	p->id.image_id = __sync_fetch_and_add(&image_seq, 1) + 1;
	p->id.flags = PL_PROC_FORKED | (pp ? pp->id.flags & (PL_PROC_EXE_MEMFD | PL_PROC_EXE_DELETED | PL_PROC_EXE_NETWRITTEN) : 0);
	p->id.threads = 1;
	emit_proc(PL_EV_FORK, tgid, p, now);
	return 0;
}

/* PL_PROC_EXE_* of the file being exec'd: judged here, at exec, because a
 * binary replaced by a package upgrade while its process runs is unlinked
 * later without ever having been run from a deleted file. A memfd's dentry
 * is named "memfd:<name>" (memfd_create(2), mm/memfd.c); its inode, like an
 * O_TMPFILE's or an unlinked file's, has no links. */
static __always_inline __u32 exe_kind_flags(struct file *f)
{
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	char name[8] = {};
	__u32 flags = 0;

	if (BPF_CORE_READ(f, f_inode, __i_nlink) == 0)
		flags |= PL_PROC_EXE_DELETED;
	if (bpf_probe_read_kernel(name, 6, BPF_CORE_READ(d, d_name.name)) == 0 && name[0] == 'm' &&
	    name[1] == 'e' && name[2] == 'm' && name[3] == 'f' && name[4] == 'd' && name[5] == ':')
		flags |= PL_PROC_EXE_MEMFD;
	return flags;
}

#define PL_PIPEFS_MAGIC 0x50495045 /* linux/magic.h */
#define PL_S_IFMT 00170000
#define PL_S_IFIFO 0010000

/* The pipefs inode number of t's file descriptor fd when it is an
 * anonymous pipe, else 0. A few reads through the fd table, at exec only. */
static __always_inline __u64 fd_pipe(struct task_struct *t, unsigned int fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **fds;
	struct file *f = NULL;
	struct inode *inode;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (!fds || bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	if (!inode || (BPF_CORE_READ(inode, i_mode) & PL_S_IFMT) != PL_S_IFIFO ||
	    BPF_CORE_READ(inode, i_sb, s_magic) != PL_PIPEFS_MAGIC)
		return 0;
	return BPF_CORE_READ(inode, i_ino);
}

/* The working directory of task t into out (PL_CWD_LEN bytes), as its own
 * getcwd(2) would say it (read_dpath() in shared.bpf.h). */
static __always_inline __u32 read_cwd(struct task_struct *t, char *out)
{
	struct fs_struct *fs = BPF_CORE_READ(t, fs);

	if (!fs)
		return 0;
	return read_dpath(BPF_CORE_READ(fs, pwd.dentry), BPF_CORE_READ(fs, pwd.mnt), fs, out);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pl_sched_exec, struct task_struct *t, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = t->tgid;
	__u64 now = bpf_ktime_get_ns();
	struct thread_state *th = get_thread(t);
	struct pl_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	struct cpu_counts *cc = cpu_counts();
	struct pl_ev_exec *ev;
	__u32 *busy = busy_flag();
	__s32 exiting = 0;
	unsigned long as, ae;
	__u32 len;
	long n;

	if (!busy || !cc)
		return 0;
	fold_sc(cc, p); /* the old image's, execve included */
	if (p && th) {
		*busy = 1;
		account(t, th, p);
		*busy = 0;
		flush_fail(th, p);
		emit_end(tgid, p, now, PL_END_EXEC, 0);
		exiting = p->exiting;
	}
	if (th)
		th->last_fail_valid = 0; /* keys name the old image */
	if (p) {
		/* The other threads are gone by now (de_thread), so nothing adds to
		 * the entry: start it over in place, cheaper than a new element. */
		__u32 zero = 0;
		struct pl_proc *z = bpf_map_lookup_elem(&zero_proc, &zero);

		if (!z)
			return 0;
		bpf_probe_read_kernel(p, sizeof(*p), z);
	} else {
		p = new_proc(tgid);
		if (!p)
			return 0;
	}
	set_identity(&p->id, t);
	set_exe(&p->id, BPF_CORE_READ(bprm, file));
	p->id.image_start_ns = now;
	p->id.image_id = __sync_fetch_and_add(&image_seq, 1) + 1;
	p->id.flags = PL_PROC_EXECED | exe_kind_flags(BPF_CORE_READ(bprm, file));
	net_exec_note(th, p, BPF_CORE_READ(bprm, file));
	p->exiting = exiting;
	p->id.threads = 1;

	ev = reserve(sizeof(*ev));
	if (!ev)
		return 0;
	fill_hdr(&ev->hdr, PL_EV_EXEC, sizeof(*ev), tgid, now);
	bpf_probe_read_kernel(&ev->id, sizeof(ev->id), &p->id);
	n = bpf_probe_read_kernel_str(ev->filename, sizeof(ev->filename), BPF_CORE_READ(bprm, filename));
	ev->filename_len = n > 0 ? n : 0;
	if (n == sizeof(ev->filename) && !str_ends_at(BPF_CORE_READ(bprm, filename), sizeof(ev->filename) - 1, false)) {
		ev->filename_len = sizeof(ev->filename) + 1; /* tells user space it was cut */
		count_drop(PL_DROP_PATH_TRUNC);
	}
	as = BPF_CORE_READ(t, mm, arg_start);
	ae = BPF_CORE_READ(t, mm, arg_end);
	len = ae > as ? ae - as : 0;
	if (len > PL_ARGS_LEN) {
		len = PL_ARGS_LEN;
		count_drop(PL_DROP_ARGS_TRUNC);
	}
	ev->args_len = 0;
	if (len > 0 && len <= PL_ARGS_LEN && !bpf_probe_read_user(ev->args, len, (void *)as))
		ev->args_len = len;
	ev->cwd_len = read_cwd(t, ev->cwd);
	ev->pad = 0;
	ev->stdin_pipe = fd_pipe(t, 0);
	ev->stdout_pipe = fd_pipe(t, 1);
	submit(ev);
	return 0;
}
