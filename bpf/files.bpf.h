/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * files.bpf.h - watched files touched by a successful open (the success path
 * of open_exit() in failopen.bpf.c) and by rename (files.bpf.c).
 *
 * An ordinary open must cost what it costs today, so nothing here compares
 * a string. User space expands the path classes (rules/default/05-paths.yaml)
 * to the (dev, ino) of the files that exist and of the directories whose
 * entries are watched, and loads them into `file_watch`; the bitmap
 * `file_bits` (a global array: one load, no map lookup) has a bit set per
 * hash of each key, so an ordinary open pays the fd -> file -> inode reads,
 * two bit tests and a compare of the device's major number, and the exact
 * hash lookup runs only when a bit says "maybe". The kernel decides only
 * "maybe watched": user space classifies the record's path against the
 * classes (a directory watch sends every entry it holds).
 *
 * Other processes' /proc/PID/mem are dynamic inodes: they are
 * recognised by the superblock's magic (only on anonymous devices, major 0,
 * where procfs lives) and the dentry's name, and kept only when PID is not
 * the opener's own.
 *
 * A touch is one PL_EV_FILE record. A repeat of the thread's last touch
 * (same inode, same op) is not re-emitted; an image's records are rate
 * limited (GCRA, like failed-path keys), the rest counted in
 * PL_DROP_FILE_IMAGE.
 */
#ifndef PL_FILES_BPF_H
#define PL_FILES_BPF_H

#include "shared.bpf.h"

#define PROC_SUPER_MAGIC 0x9fa0
#define FMODE_WRITE 0x2
#define FMODE_CREATED 0x100000
#define PL_O_TRUNC 01000

/*
 * bpf_rdonly_cast(): a kernel address as a read-only pointer of a kernel
 * type, which the verifier turns into a plain move, so that what it points
 * to is read with plain loads (fault-safe) instead of a
 * bpf_probe_read_kernel() call per field: this path runs at every
 * successful open, and each helper call costs more than the rest.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define KCAST(p, type) ((type *)bpf_rdonly_cast((const void *)(p), bpf_core_type_id_kernel(type)))

/* Watched-file records per image: a burst, then one per interval. */
PL_RODATA(__u64, file_burst, 64);
PL_RODATA(__u64, file_interval_ns, 1000000000 / 16);

PL_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* set by user space */
	__type(key, struct pl_watch_key);
	__type(value, struct pl_watch_val);
} file_watch SEC(".maps");

/* One bit per hash of a watched (dev, ino), written by user space. */
#ifdef PL_SHARED_DEFINE
__u64 file_bits[PL_FILE_BITS / 64] = {};
#else
extern __u64 file_bits[PL_FILE_BITS / 64];
#endif

static __always_inline bool maybe_watched(__u64 ino, __u32 dev)
{
	__u32 h = pl_watch_hash(ino, dev);

	return file_bits[(h >> 6) & (PL_FILE_BITS / 64 - 1)] & (1ull << (h & 63));
}

/* The watch kinds of (ino, dev): 0 for nearly every file, at the cost of a bit test. */
static __always_inline __u32 watched(__u64 ino, __u32 dev)
{
	struct pl_watch_key k = {.ino = ino, .dev = dev};
	struct pl_watch_val *v;

	if (!maybe_watched(ino, dev))
		return 0;
	v = bpf_map_lookup_elem(&file_watch, &k);
	return v ? v->kind : 0;
}

/* "mem" of a /proc/PID directory other than the opener's own: returns that
 * PID, 0 otherwise. environ and maps are not watched: ps reads every
 * process's environ, sensors and profilers every maps. */
static __always_inline __u32 other_proc_file(struct dentry *d, __u32 tgid)
{
	char name[8] = {}, dir[12] = {};
	struct dentry *parent;
	__u32 pid = 0;

	if (bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(d, d_name.name)) < 0)
		return 0;
	if (!(name[0] == 'm' && name[1] == 'e' && name[2] == 'm' && !name[3]))
		return 0;
	parent = BPF_CORE_READ(d, d_parent);
	if (bpf_probe_read_kernel_str(dir, sizeof(dir), BPF_CORE_READ(parent, d_name.name)) < 0)
		return 0;
	for (int i = 0; i < 11; i++) {
		char c = dir[i];

		if (!c)
			break;
		if (c < '0' || c > '9')
			return 0; /* "self" resolves to its number; "task" entries are not followed */
		pid = pid * 10 + (c - '0');
	}
	return pid != tgid ? pid : 0;
}

static __always_inline bool file_rate_ok(struct pl_proc *p, __u64 now)
{
	return gcra_allow(&p->file_tat_ns, now, file_burst, file_interval_ns);
}

/* Reserve and fill the head of a PL_EV_FILE record, or NULL (rate limit:
 * counted; ring buffer full: counted). */
static __always_inline struct pl_ev_file *file_record(struct pl_proc *p, __u32 tgid, __u32 op, __u32 flags, __u64 ino,
						       __u32 dev)
{
	__u64 now = bpf_ktime_get_ns();
	struct pl_ev_file *ev;

	if (!file_rate_ok(p, now)) {
		count_drop(PL_DROP_FILE_IMAGE);
		return 0;
	}
	ev = reserve(sizeof(*ev));
	if (!ev)
		return 0;
	fill_hdr(&ev->hdr, PL_EV_FILE, sizeof(*ev), tgid, now);
	ev->image_id = p->id.image_id;
	ev->ino = ino;
	ev->dev = dev;
	ev->op = op;
	ev->flags = flags;
	ev->open_flags = 0;
	ev->target_pid = 0;
	ev->path_len = 0;
	return ev;
}

/*
 * The success path of an open that returned fd. Cost for an ordinary file:
 * the reads of the fd's file, its inode and its parent's, and two bit tests.
 */
static __always_inline void file_opened(long fd)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 tgid = t->tgid, dev, flags = 0, target = 0, op;
	struct pl_ev_file *ev;
	struct thread_state *th;
	struct list_head *slot;
	struct dentry *d;
	struct inode *ino;
	struct file *f;
	struct pl_proc *p;
	unsigned int fmode;
	__u64 i_ino;

	if (fd < 0 || tgid == self_tgid)
		return;
	/* fdt->fd[fd], the fd table's slot, read as the first word of a
	 * struct (list_head: one pointer at offset 0), the file it holds then
	 * cast to struct file: every read below is a plain load */
	slot = KCAST((struct file **)t->files->fdt->fd + (fd & 0xfffff), struct list_head);
	f = KCAST(slot->next, struct file);
	if (!f)
		return;
	ino = f->f_inode;
	i_ino = ino->i_ino;
	dev = ino->i_sb->s_dev;
	d = f->f_path.dentry;
	fmode = f->f_mode;
	if (!(watched(i_ino, dev) & PL_WATCH_FILE)) {
		__u32 dk = watched(d->d_parent->d_inode->i_ino, dev);

		if ((dk & PL_WATCH_DIR) || ((dk & PL_WATCH_NEW) && (fmode & FMODE_CREATED)))
			flags = PL_FILEF_BY_DIR;
		else if ((dev >> 20) == 0 && ino->i_sb->s_magic == PROC_SUPER_MAGIC &&
			 (target = other_proc_file(d, tgid)))
			flags = PL_FILEF_PROC;
		else
			return;
	}
	op = fmode & FMODE_CREATED ? PL_FOP_CREATE : fmode & FMODE_WRITE || f->f_flags & PL_O_TRUNC ? PL_FOP_WRITE
												       : PL_FOP_READ;
	/* a repeat of the thread's last touch says nothing new */
	th = get_thread(t);
	if (th) {
		if (th->last_file_ino == i_ino && th->last_file_dev == dev && th->last_file_op == op)
			return;
		th->last_file_ino = i_ino;
		th->last_file_dev = dev;
		th->last_file_op = op;
	}
	p = get_proc(t, tgid);
	if (!p)
		return;
	ev = file_record(p, tgid, op, flags, i_ino, dev);
	if (!ev)
		return;
	ev->open_flags = f->f_flags;
	ev->target_pid = target;
	ev->path_len = read_dpath(d, BPF_CORE_READ(f, f_path.mnt), BPF_CORE_READ(t, fs), ev->path);
	submit(ev);
}

#endif /* PL_FILES_BPF_H */
