// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * failopen.bpf.c - failed opens (tracepoint/syscalls/sys_exit_open*).
 *
 * These fire only on returns from opens, so tracking costs nothing for
 * other syscalls. A failure reads the path syscalls.bpf.c stashed at entry
 * and counts it per (image, pid, errno, path) in `fail_paths`; the first
 * failure of a key emits one FAIL_PATH record, so a storm of a million
 * identical failed opens costs one record. A repeat of the thread's last
 * failure is counted in the thread's state and flushed later (flush_fail()
 * in shared.bpf.h, also called at switch-out and exec).
 *
 * A success goes to the success path (open_ok()): watched files
 * (files.bpf.h). Other families hook their per-open checks there too.
 */
#include "files.bpf.h"
#include "shared.bpf.h"
#include "net.bpf.h"

/* Scratch for building a failed-path key (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_fail_key);
} fail_scratch SEC(".maps");

/*
 * Layout of a syscalls:sys_exit_* tracepoint record, as its format file
 * says: `int __syscall_nr` at offset 8, `long ret` at 16. The 4 bytes
 * between are alignment padding that the kernel does not clear (6.18 leaves
 * stale bytes there), so the number is read as the int it is: read as a
 * long, it matched the open in flight only while the padding was zero.
 */
struct sys_exit_args {
	__u64 common;
	__s32 id;
	__u32 pad;
	long ret;
};

/*
 * Whether key k (its path len bytes long, NUL included) is the thread's last
 * failed key. Both are zero-filled past the string, so comparing the words
 * that hold the string is enough: usually 6 or 7 words, not 34.
 */
static __always_inline bool same_as_last(const struct thread_state *th, const struct pl_fail_key *k, long len)
{
	const __u64 *x = (const __u64 *)&th->last_fail, *y = (const __u64 *)k;

	if (len != th->last_fail_len || x[0] != y[0] || x[1] != y[1])
		return false;
	for (int i = 0; i < PL_PATH_LEN / 8; i++) {
		if (i * 8 >= len)
			break;
		if (x[2 + i] != y[2 + i])
			return false;
	}
	return true;
}

static __always_inline void remember_fail(struct thread_state *th, const struct pl_fail_key *k, long len, bool trunc)
{
	__builtin_memcpy(&th->last_fail, k, sizeof(*k));
	th->last_fail_len = len;
	th->last_fail_trunc = trunc;
	th->last_fail_valid = 1;
}


/* Repeats wait at most this many before they are counted where user space
 * reads them (they are also flushed at every switch-out and before the
 * image ends), so a storm shows in the per-second windows. */
#define FAIL_FLUSH_EVERY 1024

/* The success path of every open: one call per family, each cheap for an
 * ordinary file (filter in the kernel first). */
static __always_inline void open_ok(long fd)
{
	file_opened(fd);
}

static __always_inline int open_exit(struct sys_exit_args *ctx)
{
	struct task_struct *t;
	struct thread_state *th;
	struct pl_fail_key *k;
	struct pl_proc *p;
	__u32 zero = 0, tgid;
	long n, err = -ctx->ret;
	const char *uptr;
	bool trunc;

	if (ctx->ret >= 0) {
		open_ok(ctx->ret);
		net_write_note(ctx->ret);
		return 0;
	}
	t = bpf_get_current_task_btf();
	th = bpf_task_storage_get(&threads, t, 0, 0);
	if (!th || !th->open_fname || th->open_nr != ctx->id)
		return 0;
	uptr = (const char *)th->open_fname;
	th->open_fname = 0;
	tgid = bpf_get_current_pid_tgid() >> 32;

	k = bpf_map_lookup_elem(&fail_scratch, &zero);
	if (!k)
		return 0;
	__builtin_memset(k->path, 0, sizeof(k->path));
	/* the image can only change by exec, which forgets the last failure */
	k->image_id = th->last_fail.image_id;
	k->tgid = tgid;
	k->err = err;
	n = bpf_probe_read_user_str(k->path, sizeof(k->path), uptr);
	if (n < 0) {
		count_drop(PL_DROP_PATH_FAULT);
		k->path[0] = 0;
	}
	/* a repeat of the thread's last failure: count it here, nothing else */
	if (th->last_fail_valid && same_as_last(th, k, n)) {
		if (++th->last_fail_pending >= FAIL_FLUSH_EVERY)
			flush_fail(th, bpf_map_lookup_elem(&procs, &tgid));
		return 0;
	}

	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	k->image_id = p->id.image_id;
	__sync_fetch_and_add(&p->st.open_fail, 1);
	__sync_fetch_and_add(&p->st.open_fail_errno[errno_slot(err)], 1);
	flush_fail(th, p);
	th->last_fail_valid = 0;
	trunc = n == sizeof(k->path) && !str_ends_at(uptr, sizeof(k->path) - 1, true);
	if (record_key(k, 1, p, tgid, trunc))
		remember_fail(th, k, n, trunc);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int pl_exit_openat(struct sys_exit_args *ctx) { return open_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_open")
int pl_exit_open(struct sys_exit_args *ctx) { return open_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_openat2")
int pl_exit_openat2(struct sys_exit_args *ctx) { return open_exit(ctx); }

SEC("tracepoint/syscalls/sys_exit_creat")
int pl_exit_creat(struct sys_exit_args *ctx) { return open_exit(ctx); }
