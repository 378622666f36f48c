// SPDX-License-Identifier: MIT
/*
 * kfeatures.c - kernel feature probes.
 *
 * Program-type probes load a two-instruction program the way the real
 * programs will be loaded (same type, same attach type, same BTF target), so
 * "supported" here means "the real load will not be refused for this".
 */
#include "kfeatures.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"

static const struct {
	const char *id; /* stable key for JSON */
	const char *name;
	bool required;
	const char *disables;
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
	[PL_FEAT_KPROBES] = { "kprobes", "kprobes", false, "nothing: plumbline does not use kprobes" },
	[PL_FEAT_FENTRY] = { "fentry", "fentry/fexit", false, "nothing: plumbline does not use fentry/fexit" },
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
	return feature_info[feat].disables;
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
 * Root, or the capabilities that stand in for it: CAP_SYS_ADMIN, or
 * CAP_BPF + CAP_PERFMON (Linux 5.8+), read from our own CapEff.
 */
static bool have_privileges(char *why, size_t size)
{
	_cleanup_fclose_ FILE *f = NULL;
	unsigned long long eff = 0;
	char line[256];

	if (geteuid() == 0) {
		snprintf(why, size, "running as root");
		return true;
	}
	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if ((eff & (1ull << 21)) || ((eff & (1ull << 39)) && (eff & (1ull << 38)))) {
		snprintf(why, size, "capabilities %s", (eff & (1ull << 21)) ? "CAP_SYS_ADMIN" : "CAP_BPF+CAP_PERFMON");
		return true;
	}
	snprintf(why, size, "not root (euid %u) and no CAP_SYS_ADMIN or CAP_BPF+CAP_PERFMON", (unsigned)geteuid());
	return false;
}

static void probe_tracefs(struct pl_features *f, bool mount_it)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[128];

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(p, sizeof(p), "%s/events/syscalls/sys_exit_openat/id", roots[i]);
		if (access(p, R_OK) == 0) {
			snprintf(f->tracefs, sizeof(f->tracefs), "%s", roots[i]);
			set(f, PL_FEAT_SYSCALL_TP, true, "%s", roots[i]);
			return;
		}
	}
	if (mount_it && access("/sys/kernel/tracing/events", F_OK) != 0 &&
	    mount("nodev", "/sys/kernel/tracing", "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
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
		set(f, PL_FEAT_PERF_EVENT, false, "perf_event_open: %s", strerror(errno));
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

	r = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SOCKET_FILTER, NULL);
	set(f, PL_FEAT_BPF_SYSCALL, r == 1, r == 1 ? "ok" : "bpf(2) refused: %s", strerror(r < 0 ? -r : EPERM));
	r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	set(f, PL_FEAT_RINGBUF, r == 1, r == 1 ? "ok" : "not supported (needs Linux 5.8+)");
	r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL);
	set(f, PL_FEAT_TASK_STORAGE, r == 1, r == 1 ? "ok" : "not supported (needs Linux 5.11+)");

	vmlinux = f->have[PL_FEAT_BTF] ? btf__load_vmlinux_btf() : NULL;
	if (vmlinux) {
		r = probe_tracing(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
		set(f, PL_FEAT_TP_BTF, r == 0, r == 0 ? "ok" : "load refused: %s", strerror(-r));
		r = probe_tracing(vmlinux, "do_exit", BTF_KIND_FUNC, BPF_TRACE_FENTRY);
		set(f, PL_FEAT_FENTRY, r == 0, r == 0 ? "ok" : "load refused: %s", strerror(-r));
		btf__free(vmlinux);
	} else {
		set(f, PL_FEAT_TP_BTF, false, "needs kernel BTF");
		set(f, PL_FEAT_FENTRY, false, "needs kernel BTF");
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
		fprintf(out, "%-22s %-9s %s", feature_info[i].name, f->have[i] ? "yes" : "MISSING", f->detail[i]);
		if (!f->have[i])
			fprintf(out, " -- %s: %s", feature_info[i].required ? "required, disables" : "disables",
				feature_info[i].disables);
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
	static const enum pl_feature used[] = { PL_FEAT_SYSCALL_TP, PL_FEAT_PERF_EVENT, PL_FEAT_CGROUP2 };

	for (size_t i = 0; i < ARRAY_SIZE(used); i++)
		if (!f->have[used[i]])
			log_warn("missing %s (%s): disables %s", feature_info[used[i]].name, f->detail[used[i]],
				 feature_info[used[i]].disables);
}
