// SPDX-License-Identifier: MIT
/*
 * options.c - parse and validate `plumbline run` options.
 */
#include "options.h"
#include "store.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "expr.h"
#include "log.h"
#include "metrics.h"

enum {
	OPT_PROCESS_RECORDS = 0x100,
	OPT_WINDOW_RECORDS,
	OPT_DURATION,
	OPT_LIVE,
	OPT_NO_LIVE,
	OPT_INTERVAL,
	OPT_MAX_PROCS,
	OPT_MAX_FAIL_PATHS,
	OPT_FAIL_SWEEP,
	OPT_RINGBUF_KB,
	OPT_REFRESH_HZ,
	OPT_SAMPLE_HZ,
	OPT_MAX_STACKS,
	OPT_STATS_INTERVAL,
	OPT_STATE_DIR,
	OPT_MODE,
	OPT_NO_BASELINES,
	OPT_MIN_SAMPLES,
	OPT_MIN_WINDOWS,
	OPT_ALERT_SCORE,
	OPT_LEARN_PER_HOUR,
	OPT_SET_QUIET,
	OPT_FLUSH_INTERVAL,
	OPT_RULES,
	OPT_NO_RULES,
	OPT_ENABLE_RULE,
	OPT_DISABLE_RULE,
	OPT_NO_SYSLOG,
	OPT_SYSLOG,
	OPT_SYSLOG_BUFFER,
	OPT_REGEX_BUDGET_MS,
	OPT_AUDIT_LOG,
	OPT_AUDIT_HEAD_INTERVAL,
	OPT_OCSF,
	OPT_KEEP_PRIVILEGES,
	OPT_METRICS,
	OPT_METRICS_ALLOW_REMOTE,
	OPT_RUNTIME_DIR,
	OPT_MAX_BASELINES,
	OPT_BASELINE_MAX_AGE,
	OPT_PRIOR_MAX_AGE,
	OPT_LOSS_ALERT_INTERVAL,
};

const char *run_opts__default_rules(void)
{
	return access(PL_RULES_SOURCE_DIR, R_OK) == 0 ? PL_RULES_SOURCE_DIR : PL_RULES_INSTALL_DIR;
}

void run_opts__usage(FILE *out)
{
	fputs("Usage: plumbline run [OPTIONS]\n"
	      "\n"
	      "Watch every process through eBPF and report what each one costs.\n"
	      "Runs in the foreground until SIGINT/SIGTERM (or --duration), then\n"
	      "flushes every record and detaches. SIGHUP reopens the JSON file.\n"
	      "\n"
	      "Output:\n"
	      "  --json PATH|-          write JSON Lines records to PATH (- = stdout); PATH must\n"
	      "                         be a regular file or not exist: no symlink, FIFO, device\n"
	      "  --process-records      a record per process image at exit/exec, and at\n"
	      "                         shutdown for those still running (default JSON: stdout)\n"
	      "  --window-records       a record per active process per 1-second window\n"
	      "  --stats-interval SEC   also write a stats record every SEC seconds\n"
	      "  --loss-alert-interval SEC\n"
	      "                         raise the \"Sensor lost events\" alert at most once every\n"
	      "                         SEC seconds while losses happen (default 60, 0 = off)\n"
	      "  --audit-log PATH       also append alerts and the sensor's own life (start, stop,\n"
	      "                         rule loads, losses) to PATH, a hash-chained log that\n"
	      "                         `plumbline audit verify` checks (docs/outputs.md)\n"
	      "  --audit-head-interval SEC\n"
	      "                         send the audit log's head (seq, hash) to syslog and the\n"
	      "                         JSON output every SEC seconds when it grew (default 60),\n"
	      "                         and at stop\n"
	      "  --live / --no-live     the live view of the busiest binaries on stdout\n"
	      "                         (default: on unless JSON goes to stdout)\n"
	      "  --interval SEC         live view refresh period (default 2)\n"
	      "  -q, --quiet            only errors on stderr\n"
	      "  -v, --verbose          debug messages, including libbpf's\n"
	      "\n"
	      "Baselines (docs/baselines.md):\n"
	      "  --state-dir DIR        where learned baselines live (default /var/lib/plumbline)\n"
	      "  --mode auto|learn|detect\n"
	      "                         auto (default): learn until ready, then score and keep\n"
	      "                         learning, guarded; learn: learn all, never score;\n"
	      "                         detect: score, never learn\n"
	      "  --min-samples N        process samples before a baseline is ready (default 20)\n"
	      "  --min-windows N        1-second windows before window scores are ready (default 60)\n"
	      "  --alert-score X        once ready, samples scoring >= X are not learned (default 4)\n"
	      "  --learn-per-hour N     once ready, samples learned per hour per baseline (default 60)\n"
	      "  --set-quiet SECONDS    a learned set is saturated only after this long with no new member (default 600)\n"
	      "  --flush-interval SEC   how often baselines are saved (default 60; and at exit)\n"
	      "  --max-baselines N      baselines held at once (default 65536, at most 1048576); when\n"
	      "                         full, the least recently seen not in use is evicted\n"
	      "  --baseline-max-age DAYS\n"
	      "                         remove baselines not seen for DAYS (default 180, 0 = never)\n"
	      "  --prior-max-age DAYS   an old binary's baseline kept as its successor's prior goes\n"
	      "                         once that is ready or after DAYS (default 30, 0 = when ready)\n"
	      "  --no-baselines         neither learn nor score; no state directory\n"
	      "\n"
	      "Rules (docs/rules.md):\n"
	      "  --rules PATH           a rule file or directory (repeatable; default: the\n"
	      "                         shipped rules/default); SIGHUP reloads them\n"
	      "  --enable-rule NAME     enable a rule by name, or every rule tagged T with tag:T\n"
	      "  --disable-rule NAME    disable a rule by name, or tag:T (repeatable)\n"
	      "  --no-rules             evaluate no rules\n"
	      "  --regex-budget-ms N    regex time allowed per second, over all rules (default 50);\n"
	      "                         beyond it a regex is skipped and counted, its rule fails closed\n"
	      "  --syslog TARGET        where alerts go to syslog, as RFC 5424: unix:PATH (a local\n"
	      "                         datagram socket; default unix:/dev/log), tcp:HOST:PORT\n"
	      "                         (octet-counted), udp:HOST:PORT, relp:HOST:PORT (acknowledged),\n"
	      "                         or off (they still go to --json); HOST a name, an IPv4\n"
	      "                         address or [IPv6]\n"
	      "  --syslog-buffer BYTES  what may wait for the syslog target while it is down\n"
	      "                         (default 4194304, and at most 10000 messages); beyond it\n"
	      "                         the newest alerts are dropped and counted\n"
	      "  --no-syslog            the same as --syslog off\n"
	      "  --ocsf PATH|-          also write alerts as OCSF 1.6 Detection Findings, JSON\n"
	      "                         Lines, to PATH (a file as for --json; - = stdout)\n"
	      "\n"
	      "Run control:\n"
	      "  --duration SEC         stop after SEC seconds (fractions allowed)\n"
	      "  --keep-privileges      for debugging: keep every capability after attach, and\n"
	      "                         install no NoNewPrivs and no seccomp filter\n"
	      "  --runtime-dir DIR      where status.json, read by `plumbline status`, is kept\n"
	      "                         (default /run/plumbline)\n"
	      "  --metrics ADDR:PORT    serve Prometheus metrics at http://ADDR:PORT/metrics\n"
	      "                         (docs/metrics.md); ADDR numeric, [IPv6] in brackets;\n"
	      "                         loopback only unless --metrics-allow-remote\n"
	      "  --metrics-allow-remote allow a --metrics address other than loopback\n"
	      "\n"
	      "Limits (every loss is counted in the stats record):\n"
	      "  --max-procs N          processes tracked at once (default 32768)\n"
	      "  --max-fail-paths N     distinct failing (process, path, errno) kept (default 16384)\n"
	      "  --fail-sweep SEC       how often that table is swept of keys of ended images,\n"
	      "                         and of keys idle since the last sweep (default 10)\n"
	      "  --ringbuf-kb N         ring buffer size in KiB, power of two (default 4096)\n"
	      "  --refresh-hz N         per-CPU CPU-time refresh rate for windows (default 10, 0 = off)\n"
	      "  --sample-hz N          on-CPU stack samples per second per CPU, the stacks alerts\n"
	      "                         carry as evidence (default 49, 0 = off)\n"
	      "  --max-stacks N         distinct stacks kept per stack table, power of two (default 8192)\n"
	      "\n"
	      "Configuration (docs/config.md):\n"
	      "  --config PATH          read the options from PATH (default\n"
	      "                         /etc/plumbline/plumbline.conf, when it exists); every\n"
	      "                         long option is a key there, the command line wins\n"
	      "  --no-config            read no config file\n"
	      "\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "See docs/cli.md, docs/config.md and docs/records.md.\n",
	      out);
}

static int parse_u32(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		log_error("invalid value '%s' for %s: expected an integer in [%u, %u]", s, opt, min, max);
		return -EINVAL;
	}
	*ret = (uint32_t)v;
	return 0;
}

/* A positive number (seconds, or a score or rate for the baseline options). */
static int parse_seconds(const char *opt, const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9) {
		log_error("invalid value '%s' for %s: expected a positive number", s, opt);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

	/* at file scope, so that every option is also a config file key (config.c) */
	static const struct option longopts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "process-records", no_argument, NULL, OPT_PROCESS_RECORDS },
		{ "window-records", no_argument, NULL, OPT_WINDOW_RECORDS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "no-live", no_argument, NULL, OPT_NO_LIVE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "max-procs", required_argument, NULL, OPT_MAX_PROCS },
		{ "max-fail-paths", required_argument, NULL, OPT_MAX_FAIL_PATHS },
		{ "fail-sweep", required_argument, NULL, OPT_FAIL_SWEEP },
		{ "ringbuf-kb", required_argument, NULL, OPT_RINGBUF_KB },
		{ "refresh-hz", required_argument, NULL, OPT_REFRESH_HZ },
		{ "sample-hz", required_argument, NULL, OPT_SAMPLE_HZ },
		{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
		{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
		{ "loss-alert-interval", required_argument, NULL, OPT_LOSS_ALERT_INTERVAL },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "no-baselines", no_argument, NULL, OPT_NO_BASELINES },
		{ "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
		{ "min-windows", required_argument, NULL, OPT_MIN_WINDOWS },
		{ "alert-score", required_argument, NULL, OPT_ALERT_SCORE },
		{ "learn-per-hour", required_argument, NULL, OPT_LEARN_PER_HOUR },
		{ "set-quiet", required_argument, NULL, OPT_SET_QUIET },
		{ "flush-interval", required_argument, NULL, OPT_FLUSH_INTERVAL },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "no-rules", no_argument, NULL, OPT_NO_RULES },
		{ "enable-rule", required_argument, NULL, OPT_ENABLE_RULE },
		{ "disable-rule", required_argument, NULL, OPT_DISABLE_RULE },
		{ "no-syslog", no_argument, NULL, OPT_NO_SYSLOG },
		{ "syslog", required_argument, NULL, OPT_SYSLOG },
		{ "syslog-buffer", required_argument, NULL, OPT_SYSLOG_BUFFER },
		{ "regex-budget-ms", required_argument, NULL, OPT_REGEX_BUDGET_MS },
		{ "audit-log", required_argument, NULL, OPT_AUDIT_LOG },
		{ "audit-head-interval", required_argument, NULL, OPT_AUDIT_HEAD_INTERVAL },
		{ "ocsf", required_argument, NULL, OPT_OCSF },
		{ "keep-privileges", no_argument, NULL, OPT_KEEP_PRIVILEGES },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "metrics-allow-remote", no_argument, NULL, OPT_METRICS_ALLOW_REMOTE },
		{ "runtime-dir", required_argument, NULL, OPT_RUNTIME_DIR },
		{ "max-baselines", required_argument, NULL, OPT_MAX_BASELINES },
		{ "baseline-max-age", required_argument, NULL, OPT_BASELINE_MAX_AGE },
		{ "prior-max-age", required_argument, NULL, OPT_PRIOR_MAX_AGE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};

const struct option *run_opts__longopts(void)
{
	return longopts;
}

int run_opts__parse(int argc, char **argv, struct run_opts *o)
{
	double secs;
	int c, r = 0;

	*o = (struct run_opts){
		.live = LIVE_AUTO,
		.live_interval_s = 2,
		.max_procs = 32768,
		.max_fail_paths = 16384,
		.fail_sweep_s = 10,
		.ringbuf_kb = 4096,
		.refresh_hz = 10,
		.sample_hz = 49,
		.max_stacks = 8192,
		.baselines = true,
		.state_dir = "/var/lib/plumbline",
		.flush_interval_s = 60,
		.rules = true,
		.syslog = { .kind = PL_SYSLOG_UNIX, .path = "/dev/log" },
		.regex_budget_ms = RL_REGEX_BUDGET_NS / 1000000,
		.audit_head_interval_s = 60,
		.runtime_dir = "/run/plumbline",
		.loss_alert_interval_s = 60,
	};
	bl_policy__defaults(&o->policy);
	optind = 0; /* 0, not 1: glibc then also forgets a half-parsed option cluster */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "j:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json_path = optarg;
			break;
		case OPT_PROCESS_RECORDS:
			o->process_records = true;
			break;
		case OPT_WINDOW_RECORDS:
			o->window_records = true;
			break;
		case OPT_DURATION:
			r = parse_seconds("--duration", optarg, &o->duration_s);
			break;
		case OPT_LIVE:
			o->live = LIVE_ON;
			break;
		case OPT_NO_LIVE:
			o->live = LIVE_OFF;
			break;
		case OPT_INTERVAL:
			r = parse_seconds("--interval", optarg, &secs);
			if (!r)
				o->live_interval_s = secs < 1 ? 1 : (uint32_t)secs;
			break;
		case OPT_MAX_PROCS:
			r = parse_u32("--max-procs", optarg, 64, 4194304, &o->max_procs);
			break;
		case OPT_MAX_FAIL_PATHS:
			r = parse_u32("--max-fail-paths", optarg, 64, 4194304, &o->max_fail_paths);
			break;
		case OPT_FAIL_SWEEP:
			r = parse_u32("--fail-sweep", optarg, 1, 3600, &o->fail_sweep_s);
			break;
		case OPT_RINGBUF_KB:
			r = parse_u32("--ringbuf-kb", optarg, 64, 1048576, &o->ringbuf_kb);
			if (!r && (o->ringbuf_kb & (o->ringbuf_kb - 1))) {
				log_error("invalid value '%s' for --ringbuf-kb: must be a power of two", optarg);
				r = -EINVAL;
			}
			break;
		case OPT_REFRESH_HZ:
			r = parse_u32("--refresh-hz", optarg, 0, 1000, &o->refresh_hz);
			break;
		case OPT_SAMPLE_HZ:
			r = parse_u32("--sample-hz", optarg, 0, 10000, &o->sample_hz);
			break;
		case OPT_MAX_STACKS:
			r = parse_u32("--max-stacks", optarg, 256, 65536, &o->max_stacks);
			if (!r && (o->max_stacks & (o->max_stacks - 1))) {
				log_error("invalid value '%s' for --max-stacks: must be a power of two", optarg);
				r = -EINVAL;
			}
			break;
		case OPT_LOSS_ALERT_INTERVAL:
			r = parse_u32("--loss-alert-interval", optarg, 0, 86400, &o->loss_alert_interval_s);
			break;
		case OPT_STATS_INTERVAL:
			r = parse_seconds("--stats-interval", optarg, &secs);
			if (!r)
				o->stats_interval_s = secs < 1 ? 1 : (uint32_t)secs;
			break;
		case OPT_STATE_DIR:
			if (!optarg[0]) {
				log_error("--state-dir needs a directory");
				r = -EINVAL;
			}
			o->state_dir = optarg;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "auto") == 0)
				o->policy.mode = BL_MODE_AUTO;
			else if (strcmp(optarg, "learn") == 0)
				o->policy.mode = BL_MODE_LEARN;
			else if (strcmp(optarg, "detect") == 0)
				o->policy.mode = BL_MODE_DETECT;
			else {
				log_error("invalid value '%s' for --mode: expected auto, learn or detect", optarg);
				r = -EINVAL;
			}
			break;
		case OPT_NO_BASELINES:
			o->baselines = false;
			break;
		case OPT_MIN_SAMPLES:
			r = parse_u32("--min-samples", optarg, 1, 1000000, &o->policy.min_samples);
			break;
		case OPT_MIN_WINDOWS:
			r = parse_u32("--min-windows", optarg, 1, 1000000, &o->policy.min_windows);
			break;
		case OPT_ALERT_SCORE:
			r = parse_seconds("--alert-score", optarg, &o->policy.alert_score);
			break;
		case OPT_LEARN_PER_HOUR:
			r = parse_seconds("--learn-per-hour", optarg, &o->policy.learn_per_hour);
			break;
		case OPT_SET_QUIET: {
			uint32_t quiet_s = 0;

			r = parse_u32("--set-quiet", optarg, 0, 30u * 86400u, &quiet_s);
			o->policy.set_quiet_ns = (uint64_t)quiet_s * 1000000000ull;
			break;
		}
		case OPT_FLUSH_INTERVAL:
			r = parse_seconds("--flush-interval", optarg, &secs);
			if (!r)
				o->flush_interval_s = secs < 1 ? 1 : (uint32_t)secs;
			break;
		case OPT_RULES:
			if (o->nrule_paths == ARRAY_SIZE(o->rule_paths)) {
				log_error("too many --rules (at most %zu)", ARRAY_SIZE(o->rule_paths));
				r = -EINVAL;
			} else {
				o->rule_paths[o->nrule_paths++] = optarg;
			}
			break;
		case OPT_NO_RULES:
			o->rules = false;
			break;
		case OPT_ENABLE_RULE:
		case OPT_DISABLE_RULE:
			if ((c == OPT_ENABLE_RULE ? o->nenable : o->ndisable) == ARRAY_SIZE(o->enable)) {
				log_error("too many --%s-rule (at most %zu)", c == OPT_ENABLE_RULE ? "enable" : "disable",
					  ARRAY_SIZE(o->enable));
				r = -EINVAL;
			} else if (c == OPT_ENABLE_RULE) {
				o->enable[o->nenable++] = optarg;
			} else {
				o->disable[o->ndisable++] = optarg;
			}
			break;
		case OPT_NO_SYSLOG:
			o->syslog = (struct pl_syslog_target){ .kind = PL_SYSLOG_OFF };
			break;
		case OPT_REGEX_BUDGET_MS:
			r = parse_u32("--regex-budget-ms", optarg, 1, 1000, &o->regex_budget_ms);
			break;
		case OPT_SYSLOG_BUFFER:
			r = parse_u32("--syslog-buffer", optarg, PL_SYSLOG_MSG_MAX, 1u << 30, &o->syslog_buffer_bytes);
			break;
		case OPT_AUDIT_LOG:
			if (!optarg[0] || strcmp(optarg, "-") == 0) {
				log_error("--audit-log needs a file (not standard output: the chain is read back at start)");
				r = -EINVAL;
			}
			o->audit_log = optarg;
			break;
		case OPT_AUDIT_HEAD_INTERVAL:
			r = parse_u32("--audit-head-interval", optarg, 1, 86400, &o->audit_head_interval_s);
			break;
		case OPT_MAX_BASELINES:
			r = parse_u32("--max-baselines", optarg, 1, BL_STORE_LIMIT, &o->policy.max_baselines);
			break;
		case OPT_BASELINE_MAX_AGE:
		case OPT_PRIOR_MAX_AGE: {
			uint32_t days = 0;

			r = parse_u32(c == OPT_PRIOR_MAX_AGE ? "--prior-max-age" : "--baseline-max-age", optarg, 0, 36500,
				      &days);
			*(c == OPT_PRIOR_MAX_AGE ? &o->policy.prior_max_age_ns : &o->policy.max_age_ns) =
				(uint64_t)days * 86400ull * 1000000000ull;
			break;
		}
		case OPT_OCSF:
			if (!optarg[0]) {
				log_error("--ocsf needs a file, or - for standard output");
				r = -EINVAL;
			}
			o->ocsf_path = optarg;
			break;
		case OPT_KEEP_PRIVILEGES:
			o->keep_privileges = true;
			break;
		case OPT_METRICS: {
			struct metrics_addr ma;
			char msg[160];

			r = metrics_addr__parse(optarg, &ma, msg, sizeof(msg));
			if (r < 0)
				log_error("invalid value '%s' for --metrics: %s", optarg, msg);
			o->metrics = optarg;
			break;
		}
		case OPT_METRICS_ALLOW_REMOTE:
			o->metrics_allow_remote = true;
			break;
		case OPT_RUNTIME_DIR:
			if (!optarg[0]) {
				log_error("--runtime-dir needs a directory");
				r = -EINVAL;
			}
			o->runtime_dir = optarg;
			break;
		case OPT_SYSLOG: {
			char msg[128];

			r = syslog_target__parse(optarg, &o->syslog, msg, sizeof(msg));
			if (r < 0)
				log_error("invalid value '%s' for --syslog: %s", optarg, msg);
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			run_opts__usage(stdout);
			return 1;
		default:
			if (optopt)
				log_error("unknown or incomplete option '%s' (see plumbline run --help)",
					  argv[optind - 1]);
			else
				log_error("unknown option '%s' (see plumbline run --help)", argv[optind - 1]);
			return -EINVAL;
		}
		if (r)
			return r;
	}
	if (optind < argc) {
		log_error("unexpected argument '%s' (see plumbline run --help)", argv[optind]);
		return -EINVAL;
	}
	if ((o->process_records || o->window_records) && !o->json_path)
		o->json_path = "-";
	if (o->ocsf_path && strcmp(o->ocsf_path, "-") == 0 && o->json_path && strcmp(o->json_path, "-") == 0) {
		log_error("--json and --ocsf cannot both write to standard output");
		return -EINVAL;
	}
	if (o->metrics) {
		struct metrics_addr ma;
		char msg[160];

		/* parsed above already: only the address's kind is asked here */
		if (metrics_addr__parse(o->metrics, &ma, msg, sizeof(msg)) == 0 && !ma.loopback &&
		    !o->metrics_allow_remote) {
			log_error("--metrics %s: not a loopback address; the metrics would be served to the network "
				  "(unauthenticated, unencrypted). Give 127.0.0.1:PORT or [::1]:PORT, or add "
				  "--metrics-allow-remote to allow it",
				  o->metrics);
			return -EINVAL;
		}
	}
	if (o->ocsf_path && !o->rules) {
		log_error("--ocsf writes alerts, and --no-rules raises none");
		return -EINVAL;
	}
	if (o->live == LIVE_AUTO)
		o->live = ((o->json_path && strcmp(o->json_path, "-") == 0) ||
			   (o->ocsf_path && strcmp(o->ocsf_path, "-") == 0))
				  ? LIVE_OFF
				  : LIVE_ON;
	return 0;
}
