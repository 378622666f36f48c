// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * net.bpf.h - what the network family (net.bpf.c) shares with the others:
 * its maps, and the two notes other families' programs take for it.
 *
 * Download-then-run: a connected process (one whose image attempted a TCP
 * connect; the flag is on its group leader's thread state, so any thread's
 * open finds it without a hash lookup) that opens a regular file for write
 * has the file's (dev, ino) noted in `net_written` with the time; so have
 * the regular files open for write on its lowest descriptors when it first
 * connects (`curl URL > f`: the shell opened f, not curl; `wget -O f` opens
 * f before it connects). An exec of a file noted there in the last
 * net_written_max_age_ns sets PL_PROC_EXE_NETWRITTEN. A rename keeps the
 * inode, so a renamed download is still found; a copy is a new inode and is
 * not. At sched_process_exec, bprm->file is the last interpreter (for a #!
 * script, the kernel has swapped the script for its interpreter and put the
 * script's file before the tracepoint: exec_binprm()), so scripts are
 * checked by user space (images.c looks the script's inode up in the map).
 */
#ifndef PL_NET_BPF_H
#define PL_NET_BPF_H

#include "shared.bpf.h"

#define PL_FMODE_WRITE 0x2
#define PL_S_IFMT 00170000
#define PL_S_IFREG 0100000

/* How long a written file counts as "just downloaded" for an exec (set by user space). */
PL_RODATA(__u64, net_written_max_age_ns, PL_NET_WRITTEN_MAX_AGE_S * 1000000000ull);
/* New destinations per image: a burst, then one per interval. */
PL_RODATA(__u64, net_key_burst, 256);
PL_RODATA(__u64, net_key_interval_ns, 1000000000 / 32);

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct pl_written_key);
	__type(value, struct pl_written_val);
} net_written SEC(".maps");

/* Note file f (any kind: only regular files opened for write are kept). */
static __always_inline void net_note_file(struct file *f, __u32 tgid)
{
	struct pl_written_key k = {};
	struct pl_written_val v = {};
	struct inode *ino;

	if (!f || !(BPF_CORE_READ(f, f_mode) & PL_FMODE_WRITE))
		return;
	ino = BPF_CORE_READ(f, f_inode);
	if ((BPF_CORE_READ(ino, i_mode) & PL_S_IFMT) != PL_S_IFREG)
		return;
	k.ino = BPF_CORE_READ(ino, i_ino);
	k.dev = BPF_CORE_READ(ino, i_sb, s_dev);
	v.written_ns = bpf_ktime_get_ns();
	v.tgid = tgid;
	v.gen = BPF_CORE_READ(ino, i_generation);
	bpf_map_update_elem(&net_written, &k, &v, BPF_ANY);
}

/* The file at descriptor fd of task t, or NULL. */
static __always_inline struct file *net_fd_file(struct task_struct *t, long fd)
{
	/* t is trusted: its fields are read by direct (BTF) loads, no helper
	 * call; only the slot of a variable index needs one */
	struct fdtable *fdt = t->files->fdt;
	struct file *f = 0;
	unsigned long fds;

	if (fd < 0 || fd >= fdt->max_fds)
		return 0;
	fds = (unsigned long)fdt->fd;
	bpf_probe_read_kernel(&f, sizeof(f), (void *)(fds + fd * sizeof(f)));
	return f;
}

/*
 * An open of the current task returned fd (the one call in failopen.bpf.c's
 * success path). Costs one task-storage lookup unless the process has
 * connected.
 */
static __always_inline void net_write_note(long fd)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct thread_state *lth = bpf_task_storage_get(&threads, t->group_leader, 0, 0);

	if (!lth || !lth->net_connected)
		return;
	net_note_file(net_fd_file(t, fd), t->tgid);
}

/*
 * At exec (lifecycle.bpf.c pl_sched_exec), with p's identity set: the new
 * image starts unconnected; its file, if a connected process wrote it
 * lately, sets PL_PROC_EXE_NETWRITTEN: the same inode number and the same
 * generation (a number freed and reused for another file is not that file).
 */
static __always_inline void net_exec_note(struct thread_state *th, struct pl_proc *p, struct file *f)
{
	struct pl_written_key k = {};
	struct pl_written_val *v;

	if (th)
		th->net_connected = 0; /* after de_thread the exec'ing thread is the leader */
	k.ino = p->id.exe_ino;
	k.dev = p->id.exe_dev;
	v = bpf_map_lookup_elem(&net_written, &k);
	if (v && bpf_ktime_get_ns() - v->written_ns <= net_written_max_age_ns &&
	    v->gen == BPF_CORE_READ(f, f_inode, i_generation))
		p->id.flags |= PL_PROC_EXE_NETWRITTEN;
}

#endif /* PL_NET_BPF_H */
