// SPDX-License-Identifier: MIT
/*
 * options.c - parse and validate `plumbline run` options.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

enum {
	OPT_PROCESS_RECORDS = 0x100,
	OPT_WINDOW_RECORDS,
	OPT_DURATION,
	OPT_LIVE,
	OPT_NO_LIVE,
	OPT_INTERVAL,
	OPT_MAX_PROCS,
	OPT_MAX_FAIL_PATHS,
	OPT_RINGBUF_KB,
	OPT_REFRESH_HZ,
	OPT_STATS_INTERVAL,
};

void run_opts__usage(FILE *out)
{
	fputs("Usage: plumbline run [OPTIONS]\n"
	      "\n"
	      "Watch every process through eBPF and report what each one costs.\n"
	      "Runs in the foreground until SIGINT/SIGTERM (or --duration), then\n"
	      "flushes every record and detaches. SIGHUP reopens the JSON file.\n"
	      "\n"
	      "Output:\n"
	      "  --json PATH|-          write JSON Lines records to PATH (- = stdout)\n"
	      "  --process-records      a record per process image at exit/exec, and at\n"
	      "                         shutdown for those still running (default JSON: stdout)\n"
	      "  --window-records       a record per active process per 1-second window\n"
	      "  --stats-interval SEC   also write a stats record every SEC seconds\n"
	      "  --live / --no-live     the live view of the busiest binaries on stdout\n"
	      "                         (default: on unless JSON goes to stdout)\n"
	      "  --interval SEC         live view refresh period (default 2)\n"
	      "  -q, --quiet            only errors on stderr\n"
	      "  -v, --verbose          debug messages, including libbpf's\n"
	      "\n"
	      "Run control:\n"
	      "  --duration SEC         stop after SEC seconds (fractions allowed)\n"
	      "\n"
	      "Limits (every loss is counted in the stats record):\n"
	      "  --max-procs N          processes tracked at once (default 32768)\n"
	      "  --max-fail-paths N     distinct failing (process, path, errno) kept (default 16384)\n"
	      "  --ringbuf-kb N         ring buffer size in KiB, power of two (default 4096)\n"
	      "  --refresh-hz N         per-CPU CPU-time refresh rate for windows (default 10, 0 = off)\n"
	      "\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "See docs/cli.md and docs/records.md.\n",
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

static int parse_seconds(const char *opt, const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9) {
		log_error("invalid value '%s' for %s: expected a positive number of seconds", s, opt);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int run_opts__parse(int argc, char **argv, struct run_opts *o)
{
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
		{ "ringbuf-kb", required_argument, NULL, OPT_RINGBUF_KB },
		{ "refresh-hz", required_argument, NULL, OPT_REFRESH_HZ },
		{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	double secs;
	int c, r = 0;

	*o = (struct run_opts){
		.live = LIVE_AUTO,
		.live_interval_s = 2,
		.max_procs = 32768,
		.max_fail_paths = 16384,
		.ringbuf_kb = 4096,
		.refresh_hz = 10,
	};
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
		case OPT_STATS_INTERVAL:
			r = parse_seconds("--stats-interval", optarg, &secs);
			if (!r)
				o->stats_interval_s = secs < 1 ? 1 : (uint32_t)secs;
			break;
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
	if (o->live == LIVE_AUTO)
		o->live = (o->json_path && strcmp(o->json_path, "-") == 0) ? LIVE_OFF : LIVE_ON;
	return 0;
}
