/* SPDX-License-Identifier: MIT */
/*
 * options.h - the `plumbline run` command line (docs/cli.md).
 */
#ifndef PL_OPTIONS_H
#define PL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "baseline.h"
#include "syslog_out.h"

enum live_mode { LIVE_AUTO = 0, LIVE_ON, LIVE_OFF };

struct run_opts {
	const char *json_path;  /* NULL: no JSON output */
	bool process_records;
	bool window_records;
	double duration_s;      /* 0: until SIGINT/SIGTERM */
	enum live_mode live;
	uint32_t live_interval_s;
	uint32_t max_procs;
	uint32_t max_fail_paths;
	uint32_t fail_sweep_s;     /* seconds between sweeps of the failed-path table */
	uint32_t ringbuf_kb;
	uint32_t refresh_hz;
	uint32_t sample_hz;  /* on-CPU stack samples per second per CPU, 0: off */
	uint32_t max_stacks; /* entries of each stack map (power of two) */
	uint32_t stats_interval_s; /* 0: stats record at shutdown only */
	bool quiet;
	bool verbose;
	/* baselines */
	bool baselines;            /* false: --no-baselines */
	const char *state_dir;
	struct bl_policy policy;
	uint32_t flush_interval_s;
	/* rules */
	bool rules;                /* false: --no-rules */
	const char *rule_paths[32];
	size_t nrule_paths;        /* 0: the shipped default set */
	const char *enable[64], *disable[64];
	size_t nenable, ndisable;
	struct pl_syslog_target syslog; /* where alerts go to syslog (--syslog), kind OFF: nowhere */
	uint32_t syslog_buffer_bytes;   /* --syslog-buffer: the bound of what waits for it (0: the default) */
	uint32_t regex_budget_ms;  /* PCRE2 time allowed per second, over all rules' regexes */
	const char *audit_log;     /* the hash-chained audit log (--audit-log), NULL: none */
	uint32_t audit_head_interval_s; /* how often its head goes off-host (when it grew) */
	uint32_t loss_alert_interval_s; /* the loss alert at most this often; 0: off */
	const char *ocsf_path;     /* alerts as OCSF Detection Findings, JSON Lines (--ocsf); NULL: none */
	bool keep_privileges;      /* --keep-privileges: no capability drop, no seccomp (debugging) */
	/* metrics and `plumbline status` (runtime.h) */
	const char *metrics;       /* --metrics ADDR:PORT, NULL: no endpoint */
	bool metrics_allow_remote; /* --metrics-allow-remote: a non-loopback ADDR is allowed */
	const char *runtime_dir;   /* --runtime-dir: where status.json goes */
};

/* The shipped default rules: the source tree's rules/default when present
 * (running from a build tree), else the installed copy. */
const char *run_opts__default_rules(void);

/*
 * Parse `run` options (argv[0] is "run"). Returns 0, 1 when --help was
 * printed (the caller exits 0), or -EINVAL after printing the error.
 */
int run_opts__parse(int argc, char **argv, struct run_opts *ret);
void run_opts__usage(FILE *out);

/* the long options of `run`, ended by a zeroed entry: each one
 * (but help) is also a key of the config file (sensor/config.c). */
struct option;
const struct option *run_opts__longopts(void);

#endif
