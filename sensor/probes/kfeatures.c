// SPDX-License-Identifier: MIT
/*
 * kfeatures.c - kernel feature probes.
 *
 * Program-type probes load a two-instruction program the way the real
 * programs will be loaded (same type, same attach type, same BTF target), so
 * "supported" here means "the real load will not be refused for this".
 *
 * A refusal is not a missing feature: without privileges the kernel answers
 * every bpf(2) and perf_event_open(2) call with EPERM or EACCES, whatever it
 * supports. Every probe's error goes through refused(), which names the
 * capabilities for those, and says "not supported by this kernel" only for
 * the errors an older kernel gives (EINVAL, ENOTSUPP, E2BIG, ...).
 */
#include "probes/kfeatures.h"
#include "probes/hostctx.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "not supported", which bpf(2) can return */
#endif

/* The capabilities each family of probes needs (Linux 5.8+ split CAP_BPF and
 * CAP_PERFMON out of CAP_SYS_ADMIN, which still covers both). */
#define CAPS_BPF     "CAP_BPF, or CAP_SYS_ADMIN"
#define CAPS_TRACING "CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN"
#define CAPS_PERF    "CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0"

static const struct {
	const char *id; /* stable key for JSON */
	const char *name;
	bool required;
	const char *disables; /* what its absence costs; NULL: nothing (not used) */
	const char *instead;  /* a fallback that costs nothing, or NULL */
} feature_info[PL_FEAT_MAX] = {
	[PL_FEAT_ROOT] = { "root", "privileges", true, "everything: loading BPF needs root, CAP_SYS_ADMIN, or CAP_BPF + CAP_PERFMON" },
	[PL_FEAT_BTF] = { "btf", "kernel BTF", true, "everything: CO-RE programs need /sys/kernel/btf/vmlinux" },
	[PL_FEAT_BPF_SYSCALL] = { "bpf_syscall", "bpf(2)", true, "everything" },
	[PL_FEAT_RINGBUF] = { "ringbuf", "BPF ring buffer", true, "everything: records reach user space through it" },
	[PL_FEAT_TASK_STORAGE] = { "task_storage", "BPF task storage", true, "everything: per-thread CPU accounting lives there" },
	[PL_FEAT_TP_BTF] = { "tp_btf", "tp_btf programs", true, "everything: syscall, scheduler and exec hooks are tp_btf" },
	[PL_FEAT_SYSCALL_TP] = { "syscall_tracepoints", "syscall tracepoints", false, "failed-open tracking (open_failures, open_fail_paths stay 0)" },
	[PL_FEAT_PERF_EVENT] = { "perf_event", "perf_event cpu-clock", false, "mid-slice CPU refresh: per-second windows see CPU only at context switches" },
	[PL_FEAT_CGROUP2] = { "cgroup2", "cgroup v2 mount", false, "cgroup paths in records (cgroup_id is still reported)" },
	/* probed for the operator (other tools need them); plumbline does without */
	[PL_FEAT_KPROBES] = { "kprobes", "kprobes", false, NULL },
	[PL_FEAT_FENTRY] = { "fentry", "fentry/fexit", false, NULL },
	[PL_FEAT_SCHED_SWITCH_STATE] = { "sched_switch_prev_state", "sched_switch state", false, NULL,
					 "the 3-argument sched_switch program reads prev's state from the task" },
	[PL_FEAT_TASK_ITER] = { "task_iter", "task iterator", false,
				"kernel stacks of waiting threads after the privilege drop (wchan only)" },
	[PL_FEAT_THREAD_ITER] = { "thread_iter", "thread walk", false,
				  "one process's threads read alone: each wait-stack read walks every task of the host (task_iter)" },
};

const char *features__id(enum pl_feature feat)
{
	return feature_info[feat].id;
}

const char *features__name(enum pl_feature feat)
{
	return feature_info[feat].name;
}

bool features__required(enum pl_feature feat)
{
	return feature_info[feat].required;
}

const char *features__disables(enum pl_feature feat)
{
	return feature_info[feat].disables ? feature_info[feat].disables : "nothing";
}

static void set(struct pl_features *f, enum pl_feature feat, bool have, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct pl_features *f, enum pl_feature feat, bool have, const char *fmt, ...)
{
	va_list ap;

	f->have[feat] = have;
	va_start(ap, fmt);
	vsnprintf(f->detail[feat], sizeof(f->detail[feat]), fmt, ap);
	va_end(ap);
}

/*
 * A failed probe of feat, from its errno: a refusal for lack of privileges
 * names the capabilities `caps`; an error an older kernel gives says "not
 * supported by this kernel" with `kernel` (what it needs); anything else is
 * the error itself. With privileges held (the `root` probe passed), EPERM is
 * someone else's refusal: lockdown, a security module, or RLIMIT_MEMLOCK on
 * kernels that charge BPF memory to it.
 */
static void refused(struct pl_features *f, enum pl_feature feat, int err, const char *caps, const char *kernel)
{
	err = err < 0 ? -err : err;
	if ((err == EPERM || err == EACCES) && !f->have[PL_FEAT_ROOT])
		set(f, feat, false, "refused: missing privileges (needs %s)", caps);
	else if (err == EPERM || err == EACCES)
		set(f, feat, false, "refused although privileged: %s (lockdown, an LSM, or RLIMIT_MEMLOCK)",
		    strerror(err));
	else if (err == EINVAL || err == ENOTSUPP || err == EOPNOTSUPP || err == E2BIG || err == ENOSYS)
		set(f, feat, false, "not supported by this kernel (%s)", kernel);
	else
		set(f, feat, false, "failed: %s", strerror(err));
}

/* Whether bpf(2) lets us create a map at all: 0 or -errno. A map-type probe
 * that says "unsupported" means it only when this succeeds. */
static int probe_any_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A map type: libbpf's probe, with its "unsupported" (0) told apart from a
 * refusal of bpf(2) itself. */
static void probe_map(struct pl_features *f, enum pl_feature feat, enum bpf_map_type type, const char *kernel)
{
	int r = libbpf_probe_bpf_map_type(type, NULL);

	if (r == 1) {
		set(f, feat, true, "ok");
		return;
	}
	if (r == 0)
		r = probe_any_map();
	refused(f, feat, r ? r : -EINVAL, CAPS_BPF, kernel);
}

/* Load "r0 = 0; exit" as a socket filter, the simplest program there is. 0 or -errno. */
static int probe_socket_filter(void)
{
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* BPF_MOV64_IMM(r0, 0) */
		{ .code = 0x95 },                         /* BPF_EXIT */
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, ARRAY_SIZE(insns), NULL);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Load "r0 = 0; exit" as a BTF-attached tracing program. 0 or -errno. */
static int probe_tracing(struct btf *vmlinux, const char *target, int kind, enum bpf_attach_type type)
{
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* BPF_MOV64_IMM(r0, 0) */
		{ .code = 0x95 },                         /* BPF_EXIT */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	int id = btf__find_by_name_kind(vmlinux, target, kind);
	int fd;

	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, ARRAY_SIZE(insns), &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Load, as pl_wait_threads is loaded (a sleepable syscall program), a
 * program that takes a task by pid, reads its kernel stack and releases it:
 * "r0 = bpf_task_from_pid(1); if r0 { r6 = r0; bpf_get_task_stack(r6,
 * fp - 8, 8, 0); bpf_task_release(r6) } return 0". Being in the kernel
 * BTF is not being callable from a syscall program: the kfunc set of
 * bpf_task_from_pid and bpf_task_release was registered for syscall
 * programs only by a8e03b6bbb2c ("bpf: Allow invoking kfuncs from
 * BPF_PROG_TYPE_SYSCALL progs"), years after the functions, and a kernel
 * between the two refuses pl_wait_threads, which would fail the load of
 * every program. 0 or -errno.
 */
static int probe_syscall_kfuncs(int from_pid, int release)
{
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 1, .imm = 1 },         /* r1 = 1 */
		{ .code = 0x85, .src_reg = 2, .imm = from_pid },  /* call kfunc (BPF_PSEUDO_KFUNC_CALL) */
		{ .code = 0x15, .dst_reg = 0, .off = 9 },         /* if r0 == 0 goto exit0 */
		{ .code = 0xbf, .dst_reg = 6, .src_reg = 0 },     /* r6 = r0 */
		{ .code = 0xbf, .dst_reg = 1, .src_reg = 6 },     /* r1 = r6 */
		{ .code = 0xbf, .dst_reg = 2, .src_reg = 10 },    /* r2 = fp */
		{ .code = 0x07, .dst_reg = 2, .imm = -8 },        /* r2 += -8 */
		{ .code = 0xb7, .dst_reg = 3, .imm = 8 },         /* r3 = 8 */
		{ .code = 0xb7, .dst_reg = 4, .imm = 0 },         /* r4 = 0 */
		{ .code = 0x85, .imm = BPF_FUNC_get_task_stack }, /* call helper */
		{ .code = 0xbf, .dst_reg = 1, .src_reg = 6 },     /* r1 = r6 */
		{ .code = 0x85, .src_reg = 2, .imm = release },   /* call kfunc */
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },         /* exit0: r0 = 0 */
		{ .code = 0x95 },                                 /* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = BPF_F_SLEEPABLE);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, NULL, "GPL", insns, ARRAY_SIZE(insns), &opts);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * What pl_wait_threads (bpf/waits.bpf.c) needs: the syscall program type
 * (run by BPF_PROG_TEST_RUN), and the kernel functions it calls, each in
 * the kernel BTF (bpf_iter_task_*: Linux 6.7, the others 6.2) and the task
 * kfuncs callable from a syscall program (probe_syscall_kfuncs()). true,
 * or false with the first one missing in why.
 */
static bool have_thread_walk(struct btf *vmlinux, char *why, size_t size)
{
	static const char *const kfuncs[] = { "bpf_task_from_pid", "bpf_task_release", "bpf_rcu_read_lock",
					      "bpf_rcu_read_unlock", "bpf_iter_task_new", "bpf_iter_task_next",
					      "bpf_iter_task_destroy" };
	const char *force = getenv("PLUMBLINE_FORCE_WAIT_ITER");

	if (force && strcmp(force, "task") == 0) {
		snprintf(why, size, "forced off by PLUMBLINE_FORCE_WAIT_ITER=task (for tests)");
		return false;
	}
	int ids[ARRAY_SIZE(kfuncs)], r;

	for (size_t i = 0; i < ARRAY_SIZE(kfuncs); i++) {
		ids[i] = btf__find_by_name_kind(vmlinux, kfuncs[i], BTF_KIND_FUNC);
		if (ids[i] < 0) {
			snprintf(why, size, "no %s in the kernel BTF (needs Linux 6.7+)", kfuncs[i]);
			return false;
		}
	}
	if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SYSCALL, NULL) != 1) {
		snprintf(why, size, "no syscall programs (needs Linux 5.14+)");
		return false;
	}
	r = probe_syscall_kfuncs(ids[0], ids[1]);
	if (r < 0) {
		snprintf(why, size, "a syscall program may not take a task and read its stack here (%s): needs a8e03b6bbb2c",
			 strerror(-r));
		return false;
	}
	snprintf(why, size, "ok");
	return true;
}

/* t with typedefs and qualifiers peeled off. */
static const struct btf_type *resolve(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t)))
		t = btf__type_by_id(b, t->type);
	return t;
}

int features__sched_switch_args(const struct btf *vmlinux)
{
	const struct btf_type *t, *proto;
	const struct btf_param *p;
	int id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);

	if (id < 0)
		return 0;
	t = resolve(vmlinux, id);
	if (!t || !btf_is_ptr(t))
		return 0;
	proto = btf__type_by_id(vmlinux, t->type);
	if (!proto || !btf_is_func_proto(proto))
		return 0;
	p = btf_params(proto);
	/* p[0] is the probe's data pointer; then preempt, prev, next[, prev_state] */
	if (btf_vlen(proto) < 4 || !btf_is_ptr(resolve(vmlinux, p[2].type)) || !btf_is_ptr(resolve(vmlinux, p[3].type)))
		return 0; /* e.g. fa2c3254d7cf alone: prev_state second, before the tasks */
	if (btf_vlen(proto) == 4)
		return 3;
	if (btf_vlen(proto) == 5 && btf_is_int(resolve(vmlinux, p[4].type)))
		return 4;
	return 0;
}

int features__probe_tp_arg(const struct btf *vmlinux, const char *tp, unsigned int arg)
{
	const struct bpf_insn insns[] = {
		/* BPF_LDX_MEM(BPF_DW, r0, r1, arg * 8) */
		{ .code = 0x79, .dst_reg = 0, .src_reg = 1, .off = (int16_t)(arg * 8) },
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* BPF_MOV64_IMM(r0, 0) */
		{ .code = 0x95 },                         /* BPF_EXIT */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	char name[96];
	int id, fd;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, ARRAY_SIZE(insns), &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Which sched_switch program can load: the prototype from the BTF, then the
 * verifier's own answer for the argument that program reads (so a kernel
 * whose BTF and verifier disagree loads what the verifier accepts).
 * PLUMBLINE_FORCE_SCHED_SWITCH=3arg takes the fallback on any kernel: for
 * the tests, which prove it measures what the 4-argument program does.
 */
static void probe_sched_switch(struct pl_features *f, struct btf *vmlinux)
{
	const char *force = getenv("PLUMBLINE_FORCE_SCHED_SWITCH");
	int args = features__sched_switch_args(vmlinux), r;

	if (args == 0) {
		set(f, PL_FEAT_SCHED_SWITCH_STATE, false, "sched_switch prototype not recognized");
		set(f, PL_FEAT_TP_BTF, false, "btf_trace_sched_switch is neither (preempt, prev, next) nor "
					      "(preempt, prev, next, prev_state)");
		return;
	}
	if (force && strcmp(force, "3arg") == 0) {
		set(f, PL_FEAT_SCHED_SWITCH_STATE, false, "forced off by PLUMBLINE_FORCE_SCHED_SWITCH=3arg (for tests)");
		return;
	}
	if (args == 3) {
		set(f, PL_FEAT_SCHED_SWITCH_STATE, false, "3-argument sched_switch (before Linux 5.18)");
		return;
	}
	r = features__probe_tp_arg(vmlinux, "sched_switch", 3);
	if (r == 0)
		set(f, PL_FEAT_SCHED_SWITCH_STATE, true, "4-argument sched_switch");
	else
		set(f, PL_FEAT_SCHED_SWITCH_STATE, false, "the verifier refused prev_state: %s", strerror(-r));
}

/*
 * CAP_SYS_ADMIN, or CAP_BPF + CAP_PERFMON (Linux 5.8+), in our own CapEff.
 * Root is no exception: root with its capabilities dropped (a container, a
 * bounding set) is refused like anyone else. Only when CapEff cannot be read
 * is euid 0 taken on trust.
 */
static bool have_privileges(char *why, size_t size)
{
	_cleanup_fclose_ FILE *f = NULL;
	unsigned long long eff = 0;
	bool known = false, admin, bpf_perfmon;
	char line[256];

	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			known = true;
			break;
		}
	admin = eff & (1ull << 21);
	bpf_perfmon = (eff & (1ull << 39)) && (eff & (1ull << 38));
	if (geteuid() == 0 && (!known || admin || bpf_perfmon)) {
		snprintf(why, size, "running as root");
		return true;
	}
	if (admin || bpf_perfmon) {
		snprintf(why, size, "capabilities %s", admin ? "CAP_SYS_ADMIN" : "CAP_BPF+CAP_PERFMON");
		return true;
	}
	if (geteuid() == 0)
		snprintf(why, size, "root without CAP_SYS_ADMIN or CAP_BPF+CAP_PERFMON in its effective capabilities");
	else
		snprintf(why, size, "not root (euid %u) and no CAP_SYS_ADMIN or CAP_BPF+CAP_PERFMON", (unsigned)geteuid());
	return false;
}

static void probe_tracefs(struct pl_features *f, bool mount_it)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	int first_err = 0;
	char p[128];

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(p, sizeof(p), "%s/events/syscalls/sys_exit_openat/id", roots[i]);
		if (access(p, R_OK) == 0) {
			snprintf(f->tracefs, sizeof(f->tracefs), "%s", roots[i]);
			set(f, PL_FEAT_SYSCALL_TP, true, "%s", roots[i]);
			return;
		}
		if (!first_err)
			first_err = errno;
	}
	/* tracefs is root's alone (0700): not being let in is not its absence */
	if (first_err == EACCES || first_err == EPERM) {
		refused(f, PL_FEAT_SYSCALL_TP, first_err, "root, or CAP_DAC_OVERRIDE to read tracefs", "");
		return;
	}
	if (mount_it && access("/sys/kernel/tracing/events", F_OK) != 0) {
		if (mount("nodev", "/sys/kernel/tracing", "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
			if (errno == EPERM || errno == EACCES)
				refused(f, PL_FEAT_SYSCALL_TP, errno, "CAP_SYS_ADMIN to mount tracefs", "");
			else
				set(f, PL_FEAT_SYSCALL_TP, false, "cannot mount tracefs at /sys/kernel/tracing: %s",
				    strerror(errno));
			return;
		}
		if (access("/sys/kernel/tracing/events/syscalls/sys_exit_openat/id", R_OK) == 0) {
			snprintf(f->tracefs, sizeof(f->tracefs), "/sys/kernel/tracing");
			set(f, PL_FEAT_SYSCALL_TP, true, "mounted tracefs at /sys/kernel/tracing");
			return;
		}
		set(f, PL_FEAT_SYSCALL_TP, false, "tracefs has no syscalls events (CONFIG_FTRACE_SYSCALLS)");
		return;
	}
	set(f, PL_FEAT_SYSCALL_TP, false, "tracefs not mounted at /sys/kernel/tracing");
}

static void probe_cgroup2(struct pl_features *f)
{
	_cleanup_fclose_ FILE *m = fopen("/proc/self/mountinfo", "re");
	char line[1024];

	while (m && fgets(line, sizeof(line), m)) {
		char mnt[256], fstype[64];
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 || strcmp(fstype, "cgroup2") != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1)
			continue;
		snprintf(f->cgroup2, sizeof(f->cgroup2), "%s", mnt);
		set(f, PL_FEAT_CGROUP2, true, "%s", mnt);
		return;
	}
	set(f, PL_FEAT_CGROUP2, false, "no cgroup2 filesystem in /proc/self/mountinfo");
}

static void probe_perf(struct pl_features *f)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000000,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		refused(f, PL_FEAT_PERF_EVENT, errno, CAPS_PERF, "no software cpu-clock event");
		return;
	}
	close(fd);
	set(f, PL_FEAT_PERF_EVENT, true, "cpu-clock");
}

void features__probe(struct pl_features *f, bool mount_tracefs)
{
	struct btf *vmlinux;
	int r;

	memset(f, 0, sizeof(*f));
	{
		char why[128];
		bool ok = have_privileges(why, sizeof(why));

		set(f, PL_FEAT_ROOT, ok, "%s", why);
	}

	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		set(f, PL_FEAT_BTF, true, "/sys/kernel/btf/vmlinux");
	else
		set(f, PL_FEAT_BTF, false, "/sys/kernel/btf/vmlinux: %s (kernel without CONFIG_DEBUG_INFO_BTF?)",
		    strerror(errno));

	r = probe_socket_filter();
	if (r == 0)
		set(f, PL_FEAT_BPF_SYSCALL, true, "ok");
	else
		refused(f, PL_FEAT_BPF_SYSCALL, r, CAPS_BPF, "no CONFIG_BPF_SYSCALL");
	probe_map(f, PL_FEAT_RINGBUF, BPF_MAP_TYPE_RINGBUF, "needs Linux 5.8+");
	probe_map(f, PL_FEAT_TASK_STORAGE, BPF_MAP_TYPE_TASK_STORAGE, "needs Linux 5.11+, 5.13+ in tracing programs");

	vmlinux = f->have[PL_FEAT_BTF] ? btf__load_vmlinux_btf() : NULL;
	if (vmlinux) {
		r = probe_tracing(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
		if (r == 0)
			set(f, PL_FEAT_TP_BTF, true, "ok");
		else if (r == -ENOENT)
			set(f, PL_FEAT_TP_BTF, false, "no btf_trace_sched_switch in the kernel BTF");
		else
			refused(f, PL_FEAT_TP_BTF, r, CAPS_TRACING, "needs Linux 5.5+");
		if (f->have[PL_FEAT_TP_BTF])
			probe_sched_switch(f, vmlinux);
		else
			set(f, PL_FEAT_SCHED_SWITCH_STATE, false, "needs tp_btf");
		r = probe_tracing(vmlinux, "do_exit", BTF_KIND_FUNC, BPF_TRACE_FENTRY);
		if (r == 0)
			set(f, PL_FEAT_FENTRY, true, "ok");
		else if (r == -ENOENT)
			set(f, PL_FEAT_FENTRY, false, "no do_exit in the kernel BTF");
		else
			refused(f, PL_FEAT_FENTRY, r, CAPS_TRACING, "no fentry trampolines on this architecture");
		/* the iterator target is the kernel function bpf_iter_task
		 * (DEFINE_BPF_ITER_FUNC), as libbpf finds it for iter/task */
		r = probe_tracing(vmlinux, "bpf_iter_task", BTF_KIND_FUNC, BPF_TRACE_ITER);
		if (getenv("PLUMBLINE_FORCE_WAIT_ITER") && strcmp(getenv("PLUMBLINE_FORCE_WAIT_ITER"), "none") == 0)
			set(f, PL_FEAT_TASK_ITER, false, "forced off by PLUMBLINE_FORCE_WAIT_ITER=none (for tests)");
		else if (r == 0)
			set(f, PL_FEAT_TASK_ITER, true, "ok");
		else if (r == -ENOENT)
			set(f, PL_FEAT_TASK_ITER, false, "no bpf_iter_task in the kernel BTF (needs Linux 5.8+)");
		else
			refused(f, PL_FEAT_TASK_ITER, r, CAPS_TRACING, "needs Linux 5.8+");
		{
			char why[128];
			bool ok = f->have[PL_FEAT_TASK_ITER] && have_thread_walk(vmlinux, why, sizeof(why));

			set(f, PL_FEAT_THREAD_ITER, ok, "%s", f->have[PL_FEAT_TASK_ITER] ? why : "needs task_iter");
		}
		btf__free(vmlinux);
	} else {
		set(f, PL_FEAT_TP_BTF, false, "needs kernel BTF");
		set(f, PL_FEAT_FENTRY, false, "needs kernel BTF");
		set(f, PL_FEAT_SCHED_SWITCH_STATE, false, "needs kernel BTF");
		set(f, PL_FEAT_TASK_ITER, false, "needs kernel BTF");
		set(f, PL_FEAT_THREAD_ITER, false, "needs kernel BTF");
	}

	probe_tracefs(f, mount_tracefs);
	if (f->tracefs[0]) {
		char p[128];

		snprintf(p, sizeof(p), "%s/kprobe_events", f->tracefs);
		set(f, PL_FEAT_KPROBES, access(p, F_OK) == 0,
		    access(p, F_OK) == 0 ? "ok" : "no kprobe_events (CONFIG_KPROBES off)");
	} else {
		set(f, PL_FEAT_KPROBES, false, "unknown without tracefs");
	}
	probe_perf(f);
	probe_cgroup2(f);
}

void features__print(const struct pl_features *f, FILE *out)
{
	fprintf(out, "%-22s %-9s %s\n", "FEATURE", "STATUS", "DETAIL");
	for (int i = 0; i < PL_FEAT_MAX; i++) {
		const char *st = f->have[i] ? "yes" : feature_info[i].required ? "MISSING" : "no";

		fprintf(out, "%-22s %-9s %s", feature_info[i].name, st, f->detail[i]);
		if (f->have[i])
			;
		else if (feature_info[i].required)
			fprintf(out, " -- required, disables: %s", feature_info[i].disables);
		else if (feature_info[i].instead)
			fprintf(out, " -- nothing lost: %s", feature_info[i].instead);
		else if (feature_info[i].disables)
			fprintf(out, " -- disables: %s", feature_info[i].disables);
		else
			fputs(" -- not used by plumbline", out);
		fputc('\n', out);
	}
}

int features__check_required(const struct pl_features *f)
{
	int r = 0;

	for (int i = 0; i < PL_FEAT_MAX; i++) {
		if (f->have[i] || !feature_info[i].required)
			continue;
		log_error("missing %s (%s): this disables %s", feature_info[i].name, f->detail[i],
			  feature_info[i].disables);
		if (!r)
			r = i == PL_FEAT_ROOT ? -EPERM : -ENOTSUP;
	}
	return r;
}

void features__warn_optional(const struct pl_features *f)
{
	static const enum pl_feature used[] = { PL_FEAT_SYSCALL_TP, PL_FEAT_PERF_EVENT, PL_FEAT_CGROUP2,
						PL_FEAT_TASK_ITER, PL_FEAT_THREAD_ITER };

	for (size_t i = 0; i < ARRAY_SIZE(used); i++)
		if (!f->have[used[i]])
			log_warn("missing %s (%s): disables %s", feature_info[used[i]].name, f->detail[used[i]],
				 feature_info[used[i]].disables);
	/* said once; alerts then carry no host.psi (absent, never 0) */
	if (!hostctx__psi_available())
		log_warn("missing PSI (/proc/pressure/cpu unreadable: CONFIG_PSI off or psi=0): "
			 "alerts carry no host.psi");
}
