// SPDX-License-Identifier: MIT
/*
 * options_table.c - every option of `plumbline run` once: its name, short
 * flag, argument, section, --help text, one-line summary, default, what
 * unset means, whether SIGHUP applies it, and its check and field.
 *
 * Everything else reads this table: the getopt parser and --help
 * (options.c), the config file's keys and reload rules (config.c),
 * `plumbline config show|example` and the docs' tables (options_doc.c).
 * The defaults are applied by the parser through the same setters as a
 * value given, so the default --help and the docs print is the one in use.
 * An option added here is an option, a key, a --help entry and a docs row.
 */
#include "config/options.h"
#include "store.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "config/config.h"
#include "log.h"
#include "metrics.h"

#define FIELD(f) .off = offsetof(struct run_opts, f)
#define NS_PER_S 1000000000ull

/* ---- the checks, each with the message of its option ---- */

static int parse_u32(const struct run_opt *d, const char *s, uint32_t *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < d->min || v > d->max) {
		log_error("invalid value '%s' for --%s: expected an integer in [%u, %u]", s, d->name, d->min, d->max);
		return -EINVAL;
	}
	if ((d->flags & RUN_OPT_POW2) && (v & (v - 1))) {
		log_error("invalid value '%s' for --%s: must be a power of two", s, d->name);
		return -EINVAL;
	}
	*ret = (uint32_t)v;
	return 0;
}

/* A positive number (seconds, or a score or rate for the baseline options). */
static int parse_positive(const struct run_opt *d, const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9) {
		log_error("invalid value '%s' for --%s: expected a positive number", s, d->name);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static void *field(const struct run_opt *d, struct run_opts *o)
{
	return (char *)o + d->off;
}

static int set_true(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	(void)arg;
	*(bool *)field(d, o) = true;
	return 0;
}

static int set_false(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	(void)arg;
	*(bool *)field(d, o) = false;
	return 0;
}

static int set_u32(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	return parse_u32(d, arg, field(d, o));
}

/* An integer count of units (seconds, days) kept as ns. */
static int set_u32_ns(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	uint32_t v = 0;
	int r = parse_u32(d, arg, &v);

	*(uint64_t *)field(d, o) = (uint64_t)v * d->scale;
	return r;
}

static int set_double(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	return parse_positive(d, arg, field(d, o));
}

/* Positive seconds, rounded down to whole ones, at least 1. */
static int set_seconds(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	double secs;
	int r = parse_positive(d, arg, &secs);

	if (!r)
		*(uint32_t *)field(d, o) = secs < 1 ? 1 : (uint32_t)secs;
	return r;
}

static int set_text(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	*(const char **)field(d, o) = arg;
	if (d->need && !arg[0]) {
		log_error("--%s needs %s", d->name, d->need);
		return -EINVAL;
	}
	return 0;
}

static int set_live(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	(void)arg;
	o->live = d->min;
	return 0;
}

static int set_mode(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	static const char *const modes[] = { [BL_MODE_AUTO] = "auto", [BL_MODE_LEARN] = "learn",
					     [BL_MODE_DETECT] = "detect" };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (strcmp(arg, modes[i]) == 0) {
			o->policy.mode = (enum bl_mode)i;
			return 0;
		}
	log_error("invalid value '%s' for --%s: expected auto, learn or detect", arg, d->name);
	return -EINVAL;
}

static int set_rules(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	if (o->nrule_paths == ARRAY_SIZE(o->rule_paths)) {
		log_error("too many --%s (at most %zu)", d->name, ARRAY_SIZE(o->rule_paths));
		return -EINVAL;
	}
	o->rule_paths[o->nrule_paths++] = arg;
	return 0;
}

static int set_local_rules(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	if (o->nlocal_rule_paths == ARRAY_SIZE(o->local_rule_paths)) {
		log_error("too many --%s (at most %zu)", d->name, ARRAY_SIZE(o->local_rule_paths));
		return -EINVAL;
	}
	o->local_rule_paths[o->nlocal_rule_paths++] = arg;
	return 0;
}

static int set_rule_switch(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	bool enable = d->name[0] == 'e';
	size_t *n = enable ? &o->nenable : &o->ndisable;

	if (*n == ARRAY_SIZE(o->enable)) {
		log_error("too many --%s (at most %zu)", d->name, ARRAY_SIZE(o->enable));
		return -EINVAL;
	}
	(enable ? o->enable : o->disable)[(*n)++] = arg;
	return 0;
}

static int set_syslog(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	char msg[128];
	int r = syslog_target__parse(arg, &o->syslog, msg, sizeof(msg));

	if (r < 0)
		log_error("invalid value '%s' for --%s: %s", arg, d->name, msg);
	return r;
}

static int set_no_syslog(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	(void)d;
	(void)arg;
	o->syslog = (struct pl_syslog_target){ .kind = PL_SYSLOG_OFF };
	return 0;
}

static int set_audit_log(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	o->audit_log = arg;
	if (!arg[0] || strcmp(arg, "-") == 0) {
		log_error("--%s needs a file (not standard output: the chain is read back at start)", d->name);
		return -EINVAL;
	}
	return 0;
}

static int set_metrics(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	struct metrics_addr ma;
	char msg[160];
	int r = metrics_addr__parse(arg, &ma, msg, sizeof(msg));

	if (r < 0)
		log_error("invalid value '%s' for --%s: %s", arg, d->name, msg);
	o->metrics = arg;
	return r;
}

/* A name of the fleet: a role, or a host name ([A-Za-z0-9._-], at most max bytes). */
static int set_name(const struct run_opt *d, const char *arg, struct run_opts *o)
{
	size_t n = strlen(arg);

	if (!n || n > d->max || strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n) {
		log_error("invalid value for --%s: expected 1 to %u of the characters A-Z a-z 0-9 . _ -", d->name,
			  d->max);
		return -EINVAL;
	}
	*(const char **)field(d, o) = arg;
	return 0;
}

/* ---- the table, in the order of --help ---- */


static const struct run_opt table[] = {
	/* Output */
	{ "json", 'j', "PATH|-", RUN_SEC_OUTPUT, "--json PATH|-",
	  "write JSON Lines records to PATH (- = stdout); PATH must\n"
	  "be a regular file or not exist: no symlink, FIFO, device",
	  "JSON Lines records to this file (`-` = stdout)", NULL, "no JSON output", "/var/log/plumbline/records.jsonl",
	  RUN_OPT_LIVE, set_text, FIELD(json_path) },
	{ "process-records", 0, NULL, RUN_SEC_OUTPUT, NULL,
	  "a record per process image at exit/exec, and at\n"
	  "shutdown for those still running (default JSON: stdout)",
	  "a record per process image at exit/exec and at shutdown", "false", NULL, NULL, 0, set_true,
	  FIELD(process_records) },
	{ "window-records", 0, NULL, RUN_SEC_OUTPUT, NULL, "a record per active process per 1-second window",
	  "a record per active process per 1-second window", "false", NULL, NULL, 0, set_true,
	  FIELD(window_records) },
	{ "map-records", 0, NULL, RUN_SEC_OUTPUT, NULL,
	  "a record per executable object each image maps\n"
	  "(libraries, preloads, PAM and NSS modules)",
	  "a record per executable object each image maps", "false", NULL, NULL, 0, set_true,
	  FIELD(map_records) },
	{ "stats-interval", 0, "SEC", RUN_SEC_OUTPUT, NULL, "also write a stats record every SEC seconds",
	  "a stats record every SEC seconds", NULL, "a stats record at shutdown only", "60", RUN_OPT_LIVE,
	  set_seconds, FIELD(stats_interval_s) },
	{ "loss-alert-interval", 0, "SEC", RUN_SEC_OUTPUT, NULL,
	  "raise the \"Sensor lost events\" alert at most once every\n"
	  "SEC seconds while losses happen (default {def}, 0 = off)",
	  "at most one \"Sensor lost events\" alert per SEC seconds (0 = none)", "60", NULL, NULL, 0, set_u32,
	  FIELD(loss_alert_interval_s), 0, 86400 },
	{ "audit-log", 0, "PATH", RUN_SEC_OUTPUT, NULL,
	  "also append alerts and the sensor's own life (start, stop,\n"
	  "rule loads, losses) to PATH, a hash-chained log that\n"
	  "`plumbline audit verify` checks (docs/outputs.md)",
	  "the hash-chained audit log (docs/outputs.md)", NULL, NULL, "/var/log/plumbline/audit.log", 0,
	  .set = set_audit_log },
	{ "audit-key", 0, "PATH", RUN_SEC_OUTPUT, NULL,
	  "seal every audit log line with the evolving key in PATH\n"
	  "(made by `plumbline audit keygen`; root-only, 0600)",
	  "the audit log's forward-secure sealing key (docs/outputs.md)", NULL, "an unkeyed chain (hash only)",
	  "/var/lib/plumbline/audit.key", 0, set_text, FIELD(audit_key), .need = "a key file" },
	{ "audit-head-interval", 0, "SEC", RUN_SEC_OUTPUT, NULL,
	  "send the audit log's head (seq, hash) to syslog and the\n"
	  "JSON output every SEC seconds when it grew (default {def}),\n"
	  "and at stop",
	  "seconds between the audit log's heads sent off-host", "60", NULL, NULL, 0, set_u32,
	  FIELD(audit_head_interval_s), 1, 86400 },
	{ "live", 0, NULL, RUN_SEC_OUTPUT, "--live / --no-live",
	  "the live view of the busiest binaries on stdout\n"
	  "(default: on unless JSON goes to stdout)",
	  "the live view on stdout (default: on unless JSON goes to stdout)", "false", NULL, NULL, 0, set_live,
	  .min = LIVE_ON },
	{ "no-live", 0, NULL, RUN_SEC_OUTPUT, NULL, NULL, "no live view", "false", NULL, NULL, 0, set_live,
	  .min = LIVE_OFF },
	{ "interval", 0, "SEC", RUN_SEC_OUTPUT, NULL, "live view refresh period (default {def})",
	  "live view refresh period, seconds", "2", NULL, NULL, 0, set_seconds, FIELD(live_interval_s) },
	{ "quiet", 'q', NULL, RUN_SEC_OUTPUT, NULL, "only errors on stderr", "only errors on stderr", "false", NULL,
	  NULL, RUN_OPT_LIVE, set_true, FIELD(quiet) },
	{ "verbose", 'v', NULL, RUN_SEC_OUTPUT, NULL, "debug messages, including libbpf's",
	  "debug messages, libbpf's included", "false", NULL, NULL, RUN_OPT_LIVE, set_true, FIELD(verbose) },

	/* Baselines */
	{ "state-dir", 0, "DIR", RUN_SEC_BASELINES, NULL, "where learned baselines live (default {def})",
	  "where learned baselines live", "/var/lib/plumbline", NULL, NULL, 0, set_text, FIELD(state_dir),
	  .need = "a directory" },
	{ "mode", 0, "auto|learn|detect", RUN_SEC_BASELINES, NULL,
	  "auto (default): learn until ready, then score and keep\n"
	  "learning, guarded; learn: learn all, never score;\n"
	  "detect: score, never learn",
	  "auto: learn until ready, then score; learn: never score; detect: never learn", "auto", NULL, NULL, 0, .set = set_mode },
	{ "min-samples", 0, "N", RUN_SEC_BASELINES, NULL, "process samples before a baseline is ready (default {def})",
	  "process samples before a baseline is ready", "20", NULL, NULL, 0, set_u32, FIELD(policy.min_samples), 1,
	  1000000 },
	{ "min-windows", 0, "N", RUN_SEC_BASELINES, NULL,
	  "1-second windows before window scores are ready (default {def})",
	  "1-second windows before window scores are ready", "60", NULL, NULL, 0, set_u32,
	  FIELD(policy.min_windows), 1, 1000000 },
	{ "alert-score", 0, "X", RUN_SEC_BASELINES, NULL,
	  "once ready, samples scoring >= X are not learned (default {def})",
	  "once ready, samples scoring at least this are not learned", "4", NULL, NULL, 0, set_double,
	  FIELD(policy.alert_score) },
	{ "learn-per-hour", 0, "N", RUN_SEC_BASELINES, NULL,
	  "once ready, samples learned per hour per baseline (default {def})",
	  "once ready, samples learned per hour per baseline", "60", NULL, NULL, 0, set_double,
	  FIELD(policy.learn_per_hour) },
	{ "set-quiet", 0, "SECONDS", RUN_SEC_BASELINES, NULL,
	  "a learned set is saturated only after this long with no new member (default {def})",
	  "seconds with no new member before a learned set is saturated", "600", NULL, NULL, 0, set_u32_ns,
	  FIELD(policy.set_quiet_ns), 0, 30u * 86400u, NS_PER_S },
	{ "flush-interval", 0, "SEC", RUN_SEC_BASELINES, NULL, "how often baselines are saved (default {def}; and at exit)",
	  "seconds between saves of the baselines (and at exit)", "60", NULL, NULL, 0, set_seconds,
	  FIELD(flush_interval_s) },
	{ "max-baselines", 0, "N", RUN_SEC_BASELINES, NULL,
	  "baselines held at once (default {def}, at most {max}); when\n"
	  "full, learning ones not in use are evicted, least recently seen first",
	  "baselines held; when full learning ones are evicted, never a current ready one (docs/baselines.md)", "65536", NULL, NULL, 0,
	  set_u32, FIELD(policy.max_baselines), 1, BL_STORE_LIMIT },
	{ "baseline-max-age", 0, "DAYS", RUN_SEC_BASELINES, NULL,
	  "remove baselines not seen for DAYS (default {def}, 0 = never)",
	  "days a baseline not seen is kept (0 = for ever)", "180", NULL, NULL, 0, set_u32_ns,
	  FIELD(policy.max_age_ns), 0, 36500, 86400ull * NS_PER_S },
	{ "prior-max-age", 0, "DAYS", RUN_SEC_BASELINES, NULL,
	  "an old binary's baseline kept as its successor's prior goes\n"
	  "once that is ready or after DAYS (default {def}, 0 = when ready)",
	  "days an upgraded binary's old baseline is kept as a prior", "30", NULL, NULL, 0, set_u32_ns,
	  FIELD(policy.prior_max_age_ns), 0, 36500, 86400ull * NS_PER_S },
	{ "no-baselines", 0, NULL, RUN_SEC_BASELINES, NULL, "neither learn nor score; no state directory",
	  "neither learn nor score; no state directory", "false", NULL, NULL, 0, set_false, FIELD(baselines) },
	{ "host-name", 0, "NAME", RUN_SEC_BASELINES, NULL,
	  "this host's name in alerts (host.name), status and\n"
	  "exports (default: the machine's name)",
	  "this host's name in alerts, status and exports", NULL, "the machine's name (gethostname)", "web-07", 0,
	  set_name, FIELD(host_name), 0, 255 },
	{ "role", 0, "NAME", RUN_SEC_BASELINES, NULL,
	  "the fleet role this host plays (ssh, builder...): the\n"
	  "role bundles of --fleet-dir it takes (docs/fleet.md)",
	  "the fleet role this host plays", NULL, "no role", "ssh", 0, set_name, FIELD(role), 0, 63 },
	{ "fleet-dir", 0, "DIR", RUN_SEC_BASELINES, NULL,
	  "where the role's signed baseline bundles arrive: the\n"
	  "newest good one is the fleet's view (needs --role)",
	  "where the role's signed bundles arrive (with `role`)", NULL, "no fleet view", "/var/lib/plumbline/fleet", 0,
	  set_text, FIELD(fleet_dir), .need = "a directory" },
	{ "fleet-keys", 0, "PATH", RUN_SEC_BASELINES, NULL,
	  "the public keys fleet bundles must be signed by: a PEM\n"
	  "file or a directory of *.pub (default " PL_FLEET_KEYS_DEFAULT ")",
	  "trusted public keys of fleet bundles: a PEM file or a directory of *.pub", NULL, PL_FLEET_KEYS_DEFAULT,
	  "/etc/plumbline/fleet-keys", 0, set_text, FIELD(fleet_keys), .need = "a key file or directory" },

	/* Rules */
	{ "rules", 0, "PATH", RUN_SEC_RULES, NULL,
	  "a rule file or directory (repeatable; default: the\n"
	  "shipped rules/default); SIGHUP reloads them",
	  "rule files or directories instead of the shipped rules; repeatable", NULL, "the shipped rules",
	  "/srv/plumbline/only-these-rules",
	  RUN_OPT_LIVE | RUN_OPT_REPEAT, .set = set_rules },
	{ "local-rules", 0, "PATH", RUN_SEC_RULES, NULL,
	  "the operator's rule file or directory, loaded after\n"
	  "--rules: adds rules, and changes shipped ones with\n"
	  "override: (repeatable; default " PL_LOCAL_RULES_DEFAULT "\n"
	  "when it is a directory)",
	  "rules loaded after `rules`, adding to them; repeatable", NULL,
	  PL_LOCAL_RULES_DEFAULT " when it is a directory", "/etc/plumbline/rules.d", RUN_OPT_LIVE | RUN_OPT_REPEAT,
	  .set = set_local_rules },
	{ "enable-rule", 0, "NAME", RUN_SEC_RULES, NULL, "enable a rule by name, or every rule tagged T with tag:T",
	  "enable a rule by name, or `tag:T`; repeatable", NULL, NULL, "tag:T", RUN_OPT_LIVE | RUN_OPT_REPEAT,
	  .set = set_rule_switch },
	{ "disable-rule", 0, "NAME", RUN_SEC_RULES, NULL, "disable a rule by name, or tag:T (repeatable)",
	  "disable a rule by name, or `tag:T`; repeatable", NULL, NULL, "NAME", RUN_OPT_LIVE | RUN_OPT_REPEAT,
	  .set = set_rule_switch },
	{ "no-rules", 0, NULL, RUN_SEC_RULES, NULL, "evaluate no rules", "evaluate no rules", "false", NULL, NULL, 0,
	  set_false, FIELD(rules) },
	{ "regex-budget-ms", 0, "N", RUN_SEC_RULES, NULL,
	  "regex time allowed per second, over all rules (default {def});\n"
	  "beyond it a regex is skipped and counted, its rule fails closed",
	  "regex time allowed per second over all rules, ms", "50", NULL, NULL, RUN_OPT_LIVE,
	  set_u32, FIELD(regex_budget_ms), 1, 1000 },
	{ "syslog", 0, "TARGET", RUN_SEC_RULES, NULL,
	  "where alerts go to syslog, as RFC 5424: unix:PATH (a local\n"
	  "datagram socket; default {def}), tcp:HOST:PORT\n"
	  "(octet-counted), udp:HOST:PORT, relp:HOST:PORT (acknowledged),\n"
	  "tls:HOST:PORT (RFC 5425), relp+tls:HOST:PORT (both need\n"
	  "--syslog-ca), or off (they still go to --json); HOST a name,\n"
	  "an IPv4 address or [IPv6]",
	  "where alerts go to syslog (`unix:PATH`, `tcp:`, `udp:`, `relp:`, `tls:`, `relp+tls:HOST:PORT`, `off`)",
	  "unix:/dev/log", NULL, NULL, 0, .set = set_syslog },
	{ "syslog-ca", 0, "FILE", RUN_SEC_RULES, NULL,
	  "tls: and relp+tls: targets: the PEM CA certificate(s) the\n"
	  "collector's certificate must be signed by (required; the\n"
	  "system's CAs are not used)",
	  "a TLS target's CA file (PEM): the collector's certificate must chain to it", NULL,
	  "none (a TLS target needs it)", "/etc/plumbline/syslog-ca.pem", 0, set_text, FIELD(syslog_tls.ca),
	  .need = "a PEM file" },
	{ "syslog-cert", 0, "FILE", RUN_SEC_RULES, NULL,
	  "the sensor's own PEM certificate (and chain), offered to a\n"
	  "TLS collector that asks for one (mutual TLS); with --syslog-key",
	  "the sensor's certificate for mutual TLS (PEM), with `syslog-key`", NULL, "no client certificate",
	  "/etc/plumbline/syslog-cert.pem", 0, set_text, FIELD(syslog_tls.cert), .need = "a PEM file" },
	{ "syslog-key", 0, "FILE", RUN_SEC_RULES, NULL,
	  "the unencrypted PEM private key of --syslog-cert (checked at\n"
	  "start: it must match)",
	  "the private key of `syslog-cert` (PEM, unencrypted)", NULL, "no client certificate",
	  "/etc/plumbline/syslog-key.pem", 0, set_text, FIELD(syslog_tls.key), .need = "a PEM file" },
	{ "syslog-peer", 0, "NAME", RUN_SEC_RULES, NULL,
	  "the name the TLS collector's certificate must carry (default:\n"
	  "the target's HOST)",
	  "the name a TLS collector's certificate must carry", NULL, "the target's HOST", "logs.example.org", 0,
	  set_text, FIELD(syslog_tls.peer), .need = "a host name or an address" },
	{ "syslog-buffer", 0, "BYTES", RUN_SEC_RULES, NULL,
	  "what may wait for the syslog target while it is down\n"
	  "(default {def}, and at most 10000 messages); beyond it\n"
	  "the newest alerts are dropped and counted",
	  "bytes of alerts that may wait for the syslog target", "4194304", NULL, NULL, RUN_OPT_DEF_SHOWN, set_u32,
	  FIELD(syslog_buffer_bytes), PL_SYSLOG_MSG_MAX, 1u << 30 },
	{ "no-syslog", 0, NULL, RUN_SEC_RULES, NULL, "the same as --syslog off", "the same as `syslog = off`", "false",
	  NULL, NULL, 0, .set = set_no_syslog },
	{ "ocsf", 0, "PATH|-", RUN_SEC_RULES, NULL,
	  "also write alerts as OCSF 1.6 Detection Findings, JSON\n"
	  "Lines, to PATH (a file as for --json; - = stdout)",
	  "alerts as OCSF Detection Findings to this file", NULL, NULL, "/var/log/plumbline/ocsf.jsonl", 0, set_text,
	  FIELD(ocsf_path), .need = "a file, or - for standard output" },

	/* Run control */
	{ "duration", 0, "SEC", RUN_SEC_CONTROL, NULL, "stop after SEC seconds (fractions allowed)",
	  "stop after SEC seconds", NULL, "until SIGINT/SIGTERM", "3600", 0, set_double, FIELD(duration_s) },
	{ "keep-privileges", 0, NULL, RUN_SEC_CONTROL, NULL,
	  "for debugging: keep every capability after attach, and\n"
	  "install no NoNewPrivs and no seccomp filter",
	  "for debugging: keep every capability, no NoNewPrivs, no seccomp", "false", NULL, NULL, 0, set_true,
	  FIELD(keep_privileges) },
	{ "runtime-dir", 0, "DIR", RUN_SEC_CONTROL, NULL,
	  "where status.json, read by `plumbline status`, is kept\n"
	  "(default {def})",
	  "where status.json, read by `plumbline status`, is kept", "/run/plumbline", NULL, NULL, 0, set_text,
	  FIELD(runtime_dir), .need = "a directory" },
	{ "metrics", 0, "ADDR:PORT", RUN_SEC_CONTROL, NULL,
	  "serve Prometheus metrics at http://ADDR:PORT/metrics\n"
	  "(docs/metrics.md); ADDR numeric, [IPv6] in brackets;\n"
	  "loopback only unless --metrics-allow-remote",
	  "serve Prometheus metrics at ADDR:PORT (docs/metrics.md)", NULL, NULL, "127.0.0.1:9781", 0, .set = set_metrics },
	{ "metrics-allow-remote", 0, NULL, RUN_SEC_CONTROL, NULL, "allow a --metrics address other than loopback",
	  "allow a `metrics` address other than loopback", "false", NULL, NULL, 0, set_true,
	  FIELD(metrics_allow_remote) },

	/* Limits */
	{ "max-procs", 0, "N", RUN_SEC_LIMITS, NULL, "processes tracked at once (default {def})",
	  "processes tracked at once", "32768", NULL, NULL, 0, set_u32, FIELD(max_procs), 64, 4194304 },
	{ "max-fail-paths", 0, "N", RUN_SEC_LIMITS, NULL, "distinct failing (process, path, errno) kept (default {def})",
	  "distinct failing (process, path, errno) kept", "16384", NULL, NULL, 0, set_u32, FIELD(max_fail_paths), 64,
	  4194304 },
	{ "fail-sweep", 0, "SEC", RUN_SEC_LIMITS, NULL,
	  "how often that table is swept of keys of ended images,\n"
	  "and of keys idle since the last sweep (default {def})",
	  "seconds between sweeps of the failed-path table", "10", NULL, NULL, 0, set_u32, FIELD(fail_sweep_s), 1,
	  3600 },
	{ "ringbuf-kb", 0, "N", RUN_SEC_LIMITS, NULL, "ring buffer size in KiB, power of two (default {def})",
	  "ring buffer size in KiB, a power of two", "4096", NULL, NULL, RUN_OPT_POW2, set_u32, FIELD(ringbuf_kb), 64,
	  1048576 },
	{ "refresh-hz", 0, "N", RUN_SEC_LIMITS, NULL, "per-CPU CPU-time refresh rate for windows (default {def}, 0 = off)",
	  "per-CPU CPU-time refresh rate for windows (0 = off)", "10", NULL, NULL, 0, set_u32, FIELD(refresh_hz), 0,
	  1000 },
	{ "sample-hz", 0, "N", RUN_SEC_LIMITS, NULL,
	  "on-CPU stack samples per second per CPU, the stacks alerts\n"
	  "carry as evidence (default {def}, 0 = off)",
	  "on-CPU stack samples per second per CPU (0 = off)", "49", NULL, NULL, 0, set_u32, FIELD(sample_hz), 0,
	  10000 },
	{ "max-stacks", 0, "N", RUN_SEC_LIMITS, NULL,
	  "distinct stacks held for running processes, all together;\n"
	  "past it a new stack's samples count as unattributed (default {def})",
	  "distinct stacks held for running processes, all together", "16384", NULL, NULL, 0, set_u32,
	  FIELD(max_stacks), 256, 1048576 },
	{ "stack-bytes", 0, "N", RUN_SEC_LIMITS, NULL,
	  "bytes of user stack copied per sample and unwound in user space\n"
	  "(default {def}, at most 28672; 0 = the sampled function only)",
	  "bytes of user stack copied per sample, unwound in user space", "16384", NULL, NULL, 0, set_u32,
	  FIELD(stack_bytes), 0, 28672 }, /* PL_STACK_DUMP_MAX */
	{ "sample-ring-kb", 0, "N", RUN_SEC_LIMITS, NULL,
	  "the samples' ring buffer in KiB, power of two (default {def})",
	  "the samples' ring buffer in KiB, a power of two", "4096", NULL, NULL, RUN_OPT_POW2, set_u32,
	  FIELD(sample_ring_kb), 64, 262144 },

	/* Configuration: config.c takes these out of argv before the parser */
	{ "config", 0, "PATH", RUN_SEC_CONFIG, NULL,
	  "read the options from PATH (default\n" PL_CONFIG_DEFAULT ", when it exists); every\n"
	  "long option is a key there, the command line wins",
	  "the config file", NULL, NULL, NULL, .flags = RUN_OPT_CLI_ONLY },
	{ "no-config", 0, NULL, RUN_SEC_CONFIG, NULL, "read no config file", "read no config file", NULL, NULL, NULL,
	  .flags = RUN_OPT_CLI_ONLY },

	{ "help", 'h', NULL, RUN_SEC_HELP, NULL, "this help", "print the options and exit", NULL, NULL, NULL,
	  .flags = RUN_OPT_CLI_ONLY },
};

const struct run_opt *run_opts__table(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(table);
	return table;
}

const struct run_opt *run_opts__find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

const char *run_opts__section_title(enum run_opt_section s)
{
	static const char *const titles[RUN_SEC_N] = {
		[RUN_SEC_OUTPUT] = "Output",
		[RUN_SEC_BASELINES] = "Baselines (docs/baselines.md)",
		[RUN_SEC_RULES] = "Rules (docs/rules.md)",
		[RUN_SEC_CONTROL] = "Run control",
		[RUN_SEC_LIMITS] = "Limits (every loss is counted in the stats record)",
		[RUN_SEC_CONFIG] = "Configuration (docs/config.md)",
		[RUN_SEC_HELP] = "",
	};

	return (unsigned)s < RUN_SEC_N ? titles[s] : "";
}

const char *run_opts__range(const struct run_opt *d, char *buf, size_t size)
{
	if (d->set == set_u32 || d->set == set_u32_ns)
		snprintf(buf, size, "%u to %u%s", d->min, d->max, d->flags & RUN_OPT_POW2 ? ", a power of two" : "");
	else if (d->set == set_double)
		snprintf(buf, size, "a positive number");
	else if (d->set == set_seconds)
		snprintf(buf, size, "positive, whole seconds (at least 1)");
	else
		snprintf(buf, size, "%s", "");
	return buf;
}
