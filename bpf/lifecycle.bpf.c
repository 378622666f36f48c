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

/* Components the cwd walk climbs at most (mount crossings count too): a
 * PL_CWD_LEN path has fewer unless its names are one byte long. */
#define CWD_MAX_DEPTH 64
#define CWD_MASK (PL_CWD_LEN - 1)

/* Where read_cwd() builds a path from its end (twice PL_CWD_LEN: the
 * verifier sees every masked write and the copy out stay inside). */
struct cwd_buf {
	char b[2 * PL_CWD_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cwd_buf);
} cwd_scratch SEC(".maps");

/*
 * The working directory of task t into out (PL_CWD_LEN bytes), as its own
 * getcwd(2) would say it: dentry names from pwd up to the task's root,
 * crossing mounts to their mountpoints, and stopping at the root of the
 * task's mount namespace when pwd lies outside its root. bpf_d_path() would
 * say the same but is not allowed in this tracepoint. Returns the length
 * with the NUL, PL_CWD_LEN + 1 when the path did not fit (out holds its
 * last components), 0 when it could not be read.
 */
static __always_inline __u32 read_cwd(struct task_struct *t, char *out)
{
	struct fs_struct *fs = BPF_CORE_READ(t, fs);
	struct dentry *d, *root_d, *mnt_root;
	struct vfsmount *vm, *root_vm;
	__u32 zero = 0, pos = PL_CWD_LEN - 1;
	struct cwd_buf *cb;
	bool whole = false;
	struct mount *m;

	cb = bpf_map_lookup_elem(&cwd_scratch, &zero);
	if (!cb || !fs)
		return 0;
	d = BPF_CORE_READ(fs, pwd.dentry);
	vm = BPF_CORE_READ(fs, pwd.mnt);
	root_d = BPF_CORE_READ(fs, root.dentry);
	root_vm = BPF_CORE_READ(fs, root.mnt);
	m = container_of(vm, struct mount, mnt);
	mnt_root = BPF_CORE_READ(vm, mnt_root);
	cb->b[PL_CWD_LEN - 1] = 0;
	/* each step: two reads (parent, name) and the name's bytes */
	for (int i = 0; i < CWD_MAX_DEPTH; i++) {
		struct dentry *parent;
		struct qstr name;

		if (d == root_d && vm == root_vm) {
			whole = true;
			break;
		}
		if (d == mnt_root) {
			struct mount *pm = BPF_CORE_READ(m, mnt_parent);

			if (pm == m) { /* the namespace's root mount: outside the task's root */
				whole = true;
				break;
			}
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = pm;
			vm = &pm->mnt;
			mnt_root = BPF_CORE_READ(vm, mnt_root);
			continue;
		}
		parent = BPF_CORE_READ(d, d_parent);
		if (parent == d) { /* a detached tree's top */
			whole = true;
			break;
		}
		if (BPF_CORE_READ_INTO(&name, d, d_name) || name.len + 1 > pos)
			break;
		pos -= name.len;
		bpf_probe_read_kernel(&cb->b[pos & CWD_MASK], name.len & CWD_MASK, name.name);
		pos--;
		cb->b[pos & CWD_MASK] = '/';
		d = parent;
	}
	if (pos == PL_CWD_LEN - 1) /* the root itself, or nothing fitted */
		cb->b[--pos & CWD_MASK] = '/';
	bpf_probe_read_kernel(out, PL_CWD_LEN, &cb->b[pos & CWD_MASK]);
	if (!whole) {
		count_drop(PL_DROP_PATH_TRUNC);
		return PL_CWD_LEN + 1;
	}
	return PL_CWD_LEN - pos;
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
	net_exec_note(th, p);
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
	submit(ev);
	return 0;
}
