/* SPDX-License-Identifier: MIT */
/*
 * kfeatures.h - what this kernel offers, probed at start-up.
 *
 * plumbline never checks kernel versions: it asks the kernel. Each probe
 * names the feature, whether it is required, and what its absence disables;
 * `plumbline features` prints the table and `plumbline run` refuses to start
 * without the required ones, naming what is missing.
 */
#ifndef PL_KFEATURES_H
#define PL_KFEATURES_H

#include <stdbool.h>
#include <stdio.h>

struct btf;

enum pl_feature {
	PL_FEAT_ROOT,         /* privileges to load BPF and open perf events */
	PL_FEAT_BTF,          /* /sys/kernel/btf/vmlinux, for CO-RE */
	PL_FEAT_BPF_SYSCALL,  /* bpf(2) usable at all */
	PL_FEAT_RINGBUF,      /* BPF_MAP_TYPE_RINGBUF */
	PL_FEAT_TASK_STORAGE, /* BPF_MAP_TYPE_TASK_STORAGE */
	PL_FEAT_TP_BTF,       /* BTF-typed tracepoints */
	PL_FEAT_SYSCALL_TP,   /* tracefs syscalls:sys_exit_open* tracepoints */
	PL_FEAT_PERF_EVENT,   /* perf_event cpu-clock per CPU */
	PL_FEAT_CGROUP2,      /* a cgroup v2 mount to resolve cgroup ids to paths */
	PL_FEAT_KPROBES,      /* not used: reported for the operator's information */
	PL_FEAT_FENTRY,       /* not used: reported for the operator's information */
	PL_FEAT_SCHED_SWITCH_STATE, /* sched_switch hands over prev_state (4 arguments) */
	PL_FEAT_TASK_ITER,    /* BPF task iterator (iter/task): wait stacks after the drop */
	PL_FEAT_THREAD_ITER,  /* syscall programs + task kfuncs: one process's threads walked alone */
	PL_FEAT_MAX,
};

struct pl_features {
	bool have[PL_FEAT_MAX];
	char detail[PL_FEAT_MAX][160]; /* why missing, or where found */
	char tracefs[64];              /* tracefs mount point, "" if none */
	char cgroup2[256];             /* cgroup v2 mount point, "" if none */
};

/*
 * The sched_switch tracepoint's prototype, read from the kernel BTF
 * (btf_trace_sched_switch: a pointer to a prototype whose first parameter
 * is the probe's data pointer): 4 for (preempt, prev, next, prev_state),
 * 3 for (preempt, prev, next), 0 for anything else (or no such type).
 */
int features__sched_switch_args(const struct btf *vmlinux);

/*
 * Ask the verifier whether a tp_btf program on tracepoint tp (its name
 * without btf_trace_) may read argument arg (0-based): loads "r0 = ctx[arg];
 * r0 = 0; exit". 0 when accepted, -ENOENT when tp is not in the BTF, or the
 * verifier's -errno (-EACCES for an argument the prototype does not have).
 */
int features__probe_tp_arg(const struct btf *vmlinux, const char *tp, unsigned int arg);

/* Probe everything. Never fails; results land in *f. With mount_tracefs,
 * mounts tracefs at /sys/kernel/tracing when it is available but unmounted. */
void features__probe(struct pl_features *f, bool mount_tracefs);

/* Stable snake_case key ("tp_btf") and human name ("tp_btf programs"). */
const char *features__id(enum pl_feature feat);
const char *features__name(enum pl_feature feat);
bool features__required(enum pl_feature feat);
/* What the sensor loses without feat (for optional features); "nothing" when unused. */
const char *features__disables(enum pl_feature feat);

/* The feature table, one line per feature. */
void features__print(const struct pl_features *f, FILE *out);

/* Log every missing required feature. Returns 0 or -ENOTSUP / -EPERM. */
int features__check_required(const struct pl_features *f);

/* Log one warning line per missing optional feature that the sensor uses. */
void features__warn_optional(const struct pl_features *f);

#endif
