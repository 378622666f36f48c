// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * files.bpf.c - renames onto watched files (tracepoint/syscalls/
 * sys_enter_rename*). Persistence is often written to a temporary name and
 * renamed into place (`sed -i`, `mv evil /etc/cron.d/x`, editors, package
 * managers): the open of the temporary file is seen only when its directory
 * is watched, so the new name of every rename goes to user space, which
 * classifies it. rename(2) is rare next to open(2), so its entry may read
 * the path; records are rate limited per image like every watched-file
 * record (files.bpf.h). Successful opens are in failopen.bpf.c's open_exit.
 * Not seen: link(2)/linkat(2) and unlink(2) (a removed credential file is
 * no read of it).
 */
#include "files.bpf.h"

/* syscalls:sys_enter_* records: `int __syscall_nr` at 8, args at 16 on. */
struct sys_enter_args {
	__u64 common;
	__s32 id;
	__u32 pad;
	unsigned long args[6];
};

static __always_inline int renamed(const char *newname)
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

SEC("tracepoint/syscalls/sys_enter_rename")
int pl_enter_rename(struct sys_enter_args *ctx) { return renamed((const char *)ctx->args[1]); }

SEC("tracepoint/syscalls/sys_enter_renameat")
int pl_enter_renameat(struct sys_enter_args *ctx) { return renamed((const char *)ctx->args[3]); }

SEC("tracepoint/syscalls/sys_enter_renameat2")
int pl_enter_renameat2(struct sys_enter_args *ctx) { return renamed((const char *)ctx->args[3]); }
