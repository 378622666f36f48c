/* SPDX-License-Identifier: MIT */
/*
 * options.h - the `plumbline run` command line (docs/cli.md) and the table
 * of its options, which is also the config file's table of keys
 * (docs/config.md).
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
	bool map_records;
	double duration_s;      /* 0: until SIGINT/SIGTERM */
	enum live_mode live;
	uint32_t live_interval_s;
	uint32_t max_procs;
	uint32_t max_fail_paths;
	uint32_t fail_sweep_s;     /* seconds between sweeps of the failed-path table */
	uint32_t ringbuf_kb;
	uint32_t refresh_hz;
	uint32_t sample_hz;  /* on-CPU stack samples per second per CPU, 0: off */
	uint32_t max_stacks; /* distinct stacks held for running processes */
	uint32_t stack_bytes;    /* user stack bytes copied per sample */
	uint32_t sample_ring_kb; /* the samples' ring buffer */
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
	const char *local_rule_paths[8]; /* --local-rules: loaded after them, adding and overriding */
	size_t nlocal_rule_paths;  /* 0: PL_LOCAL_RULES_DEFAULT when it is a directory */
	/* what is loaded, in order: the rules (or the shipped ones), then the
	 * local ones; none with --no-rules (run_opts__parse() fills it) */
	const char *rule_list[32 + 8];
	size_t nrule_list;
	const char *enable[64], *disable[64];
	size_t nenable, ndisable;
	struct pl_syslog_target syslog; /* where alerts go to syslog (--syslog), kind OFF: nowhere */
	uint32_t syslog_buffer_bytes;   /* --syslog-buffer: the bound of what waits for it (0: the default) */
	struct pl_syslog_tls syslog_tls; /* --syslog-ca, -cert, -key, -peer: a tls: or relp+tls: target's */
	uint32_t regex_budget_ms;  /* PCRE2 time allowed per second, over all rules' regexes */
	const char *audit_log;     /* the hash-chained audit log (--audit-log), NULL: none */
	const char *audit_key;     /* its sealing key file (--audit-key), NULL: unkeyed */
	uint32_t audit_head_interval_s; /* how often its head goes off-host (when it grew) */
	uint32_t loss_alert_interval_s; /* the loss alert at most this often; 0: off */
	const char *ocsf_path;     /* alerts as OCSF Detection Findings, JSON Lines (--ocsf); NULL: none */
	bool keep_privileges;      /* --keep-privileges: no capability drop, no seccomp (debugging) */
	/* metrics and `plumbline status` (runtime.h) */
	const char *metrics;       /* --metrics ADDR:PORT, NULL: no endpoint */
	bool metrics_allow_remote; /* --metrics-allow-remote: a non-loopback ADDR is allowed */
	const char *runtime_dir;   /* --runtime-dir: where status.json goes */
	/* the host in its fleet (docs/fleet.md) */
	const char *host_name;     /* --host-name: alerts' host.name, status, exports; NULL: gethostname() */
	const char *role;          /* --role: the fleet role this host plays; NULL: none */
	const char *fleet_dir;     /* --fleet-dir: where the role's bundles arrive; NULL: no fleet view */
	const char *fleet_keys;    /* --fleet-keys: trusted public keys (PL_FLEET_KEYS_DEFAULT when unset) */
};

/* The sections of `run --help`, the example config and the docs tables. */
enum run_opt_section {
	RUN_SEC_OUTPUT,
	RUN_SEC_BASELINES,
	RUN_SEC_RULES,
	RUN_SEC_CONTROL,
	RUN_SEC_LIMITS,
	RUN_SEC_CONFIG,
	RUN_SEC_HELP,
	RUN_SEC_N,
};

#define RUN_OPT_LIVE 0x1u     /* SIGHUP applies a change of it (config.c) */
#define RUN_OPT_REPEAT 0x2u   /* may be given more than once */
#define RUN_OPT_CLI_ONLY 0x4u /* the command line's alone: no config key, not run_opts__parse()'s */
#define RUN_OPT_POW2 0x8u     /* an integer that must be a power of two */
#define RUN_OPT_DEF_SHOWN 0x10u /* def is the backend's own (the field stays 0): shown, not applied */

/*
 * One option of `plumbline run`, and so one key of the config file: the one
 * table (options_table.c) the getopt parser, --help, the config file's keys,
 * `plumbline config show|example` and the docs tables all come from.
 */
struct run_opt {
	const char *name;	  /* the long option without "--", and the config key */
	char short_name;	  /* its short option, 0: none */
	const char *arg;	  /* the argument's name in --help ("SEC"); NULL: a flag */
	enum run_opt_section section;
	const char *usage;	  /* --help's left column when not "[-x, ]--name [ARG]" */
	const char *help;	  /* --help's text, '\n' between its lines, "{def}" and "{max}"
				   * replaced by the default and the upper bound; NULL: not listed */
	const char *summary;	  /* one line: the docs' key table and the example config */
	const char *def;	  /* the default as a config value ("false" for a flag); NULL: not set */
	const char *unset;	  /* what leaving it unset means ("no JSON output"), or NULL */
	const char *example;	  /* a value for the example config when def is NULL */
	unsigned flags;		  /* RUN_OPT_* */
	/* the value's check and where it goes: 0 or -EINVAL (logged) */
	int (*set)(const struct run_opt *d, const char *arg, struct run_opts *o);
	size_t off;		  /* the field of struct run_opts the generic setters write */
	uint32_t min, max;	  /* an integer's bounds */
	uint64_t scale;		  /* ns per unit of an integer kept as a duration (set-quiet, days) */
	const char *need;	  /* a text option's message when empty ("a directory") */
};

/* The table, in the order of --help, and its length in *ret_n. */
const struct run_opt *run_opts__table(size_t *ret_n);

/* The entry of a long option name (exact), or NULL. */
const struct run_opt *run_opts__find(const char *name);

/* The section titles of --help ("Output:" without the colon), "" for none. */
const char *run_opts__section_title(enum run_opt_section s);

/* The accepted values of d in words ("64 to 4194304, a power of two", a
 * positive number...), into buf; "" when they are not a range. */
const char *run_opts__range(const struct run_opt *d, char *buf, size_t size);

/* `plumbline config example`: the example config file, every key commented
 * out at its default (sensor/dist/plumbline.conf is this output). */
void run_opts__example_config(FILE *out);

/* The docs' tables (`plumbline config doc-table config|cli`): the keys of
 * docs/config.md, the options of docs/cli.md. -EINVAL for another name. */
int run_opts__doc_table(const char *which, FILE *out);

/* The shipped default rules: the source tree's rules/default when present
 * (running from a build tree), else the installed copy. */
const char *run_opts__default_rules(void);

/*
 * The local rules directory read when no --local-rules is given, if it is a
 * directory: the operator's rules beside the shipped ones (docs/rules.md).
 * SYSCONFDIR/plumbline/rules.d from CMake, beside the config file.
 */
#ifndef PL_LOCAL_RULES_DEFAULT
#define PL_LOCAL_RULES_DEFAULT "/etc/plumbline/rules.d"
#endif

/* The trusted fleet keys read when no --fleet-keys is given: a PEM public
 * key, or a directory of *.pub (docs/fleet.md). From CMake, beside the config. */
#ifndef PL_FLEET_KEYS_DEFAULT
#define PL_FLEET_KEYS_DEFAULT "/etc/plumbline/fleet-keys"
#endif

/* Fill o->rule_list from o's rules and local rules (run_opts__parse() does). */
void run_opts__resolve_rules(struct run_opts *o);

/*
 * Parse `run` options (argv[0] is "run"). Returns 0, 1 when --help was
 * printed (the caller exits 0), or -EINVAL after printing the error.
 */
int run_opts__parse(int argc, char **argv, struct run_opts *ret);

/*
 * What the files named by the options of the whole configuration (file and
 * command line merged, after run_opts__parse()) must be: the syslog TLS
 * target's CA, certificate and key (syslog_tls__check()). Not part of
 * run_opts__parse(), which also checks a config file's settings one by one
 * and the file without its command line. 0, or -EINVAL (logged).
 */
int run_opts__check_files(const struct run_opts *o);

/* The same for one setting of a config file checked alone (config.c): the
 * checks that need another key (--fleet-dir needs --role) are the whole
 * file's. */
int run_opts__parse_setting(int argc, char **argv, struct run_opts *ret);
void run_opts__usage(FILE *out);

/* the long options of `run` for getopt_long(), made of the table, ended by
 * a zeroed entry: each one (but help) is also a key of the config file. */
struct option;
const struct option *run_opts__longopts(void);

#endif
