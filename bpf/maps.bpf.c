// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * maps.bpf.c - the code each image maps (tracepoint/syscalls/sys_exit_mmap,
 * sys_exit_mprotect; the entry is stashed by pl_sys_enter in syscalls.bpf.c:
 * a syscalls:sys_enter_* tracepoint would put the syscall tracepoints' enter
 * path on every syscall of every task, 8 to 13 ns each).
 *
 * The dynamic loader maps every library's text with one mmap(PROT_EXEC) of
 * its file; a preload, a PAM or NSS module, an implant loaded by dlopen()
 * is mapped the same way. An mmap without PROT_EXEC (data, anonymous
 * memory: nearly all of them) costs the enter program one test and the exit
 * program one load of a global count (no executable mapping in flight: no
 * lookup). An executable file
 * mapping that succeeded is reported once per (image, file) (PL_EV_MAP),
 * with the file's path, identity and owner; an image may report a burst of
 * map_key_burst new objects, then one per map_key_interval_ns (GCRA, like
 * failed paths); over that it is counted (PL_DROP_MAP_IMAGE).
 *
 * mprotect(PROT_EXEC) of a file mapping (a loader that maps a file
 * writable first, then makes it code) is seen too: the entry looks
 * the address's mapping up (bpf_find_vma), only for PROT_EXEC requests,
 * which outside a JIT are rare.
 */
#include "shared.bpf.h"

#define PROT_EXEC 0x4
#define MAP_ANONYMOUS 0x20
#define MAX_ERRNO 4095

const volatile __u64 map_key_burst = 256;
const volatile __u64 map_key_interval_ns = 1000000000 / 16;

/* (image, file) pairs already reported. An LRU: an evicted pair is
 * reported again, which user space dedupes. */
struct map_seen_key {
	__u64 image_id;
	__u64 ino;
	__u32 dev;
	__u32 tgid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct map_seen_key);
	__type(value, __u8);
} map_seen SEC(".maps");

/* Per image: when its next new object is on schedule (GCRA). */
struct map_rate {
	__u64 image_id;
	__u64 tat_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* tgid */
	__type(value, struct map_rate);
} map_rates SEC(".maps");

struct sys_exit_map_args {
	__u64 common;
	__s32 id;
	__u32 pad;
	long ret;
};

/* The open file of fd in task t, or NULL. */
static __always_inline struct file *fd_file(struct task_struct *t, __s32 fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **arr, *f = 0;

	if (!fdt || fd < 0 || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	arr = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &arr[fd]))
		return 0;
	return f;
}

/* Whether image p (of tgid) may report one more new object now. */
static __always_inline bool map_key_allowed(__u32 tgid, __u64 image_id, __u64 now)
{
	struct map_rate *r = bpf_map_lookup_elem(&map_rates, &tgid), nr;

	if (!r || r->image_id != image_id) {
		nr.image_id = image_id;
		nr.tat_ns = now + map_key_interval_ns;
		bpf_map_update_elem(&map_rates, &tgid, &nr, BPF_ANY);
		return true;
	}
	return gcra_allow(&r->tat_ns, now, map_key_burst, map_key_interval_ns);
}

static __always_inline int map_exit(struct sys_exit_map_args *ctx)
{
	struct task_struct *t;
	struct map_inflight *m;
	struct map_seen_key k;
	struct pl_ident times = {};
	struct pl_ev_map *ev;
	struct pl_proc *p;
	struct inode *ino;
	struct file *f;
	__u32 tgid, how, prot;
	__u8 one = 1;
	__u64 now;

	if (!map_inflight_n)
		return 0;
	t = bpf_get_current_task_btf();
	m = bpf_task_storage_get(&map_inflight, t, 0, 0);
	if (!m || !m->how)
		return 0;
	__sync_fetch_and_add(&map_inflight_n, -1);
	how = m->how;
	prot = m->prot;
	m->how = 0;
	/* an error is -1..-4095 as an address: a refused mapping (noexec mount) maps nothing */
	if ((unsigned long)ctx->ret >= (unsigned long)-MAX_ERRNO)
		return 0;
	f = how == PL_MAP_MMAP ? fd_file(t, m->fd) : (struct file *)m->file;
	if (!f)
		return 0;
	tgid = t->tgid;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	ino = BPF_CORE_READ(f, f_inode);
	k.image_id = p->id.image_id;
	k.ino = BPF_CORE_READ(ino, i_ino);
	k.dev = BPF_CORE_READ(ino, i_sb, s_dev);
	k.tgid = tgid;
	if (bpf_map_lookup_elem(&map_seen, &k))
		return 0;
	now = bpf_ktime_get_ns();
	if (!map_key_allowed(tgid, k.image_id, now)) {
		count_drop(PL_DROP_MAP_IMAGE);
		return 0;
	}
	bpf_map_update_elem(&map_seen, &k, &one, BPF_ANY);
	ev = reserve(sizeof(*ev));
	if (!ev)
		return 0;
	fill_hdr(&ev->hdr, PL_EV_MAP, sizeof(*ev), tgid, now);
	ev->image_id = k.image_id;
	ev->ino = k.ino;
	ev->dev = k.dev;
	set_exe_times(&times, ino);
	ev->size = times.exe_size;
	ev->mtime_ns = times.exe_mtime_ns;
	ev->ctime_ns = times.exe_ctime_ns;
	ev->uid = BPF_CORE_READ(ino, i_uid.val);
	ev->mode = BPF_CORE_READ(ino, i_mode);
	ev->nlink = BPF_CORE_READ(ino, __i_nlink);
	ev->prot = prot;
	ev->how = how;
	ev->pad = 0;
	ev->path_len = read_dpath(BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt), BPF_CORE_READ(t, fs), ev->path);
	submit(ev);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int pl_exit_mmap(struct sys_exit_map_args *ctx) { return map_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_mprotect")
int pl_exit_mprotect(struct sys_exit_map_args *ctx) { return map_exit(ctx); }
