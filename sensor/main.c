// SPDX-License-Identifier: MIT
/*
 * main.c - command dispatch. Kept thin: every command is a function that
 * returns 0 or -errno, and only here does that become an exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "probes/bpfsensor.h"
#include "cli/cmd_audit.h"
#include "cli/cmd_baseline.h"
#include "cli/cmd_evidence.h"
#include "cli/cmd_report.h"
#include "cli/cmd_rules.h"
#include "config/config.h"
#include "cli/cmd_status.h"
#include "probes/kfeatures.h"
#include "plumbline.h"
#include "log.h"
#include "config/options.h"
#include "run.h"

static void usage(FILE *out)
{
	fputs("Usage: plumbline [COMMAND] [OPTIONS]\n"
	      "\n"
	      "A Linux security sensor: watches every process through eBPF and measures\n"
	      "what each one costs (CPU, off-CPU, syscalls, failed opens).\n"
	      "\n"
	      "Commands:\n"
	      "  run        start the sensor in the foreground (the default command)\n"
	      "  features   probe the kernel and print what is available and what is not\n"
	      "  baseline   list, show, export, import, merge or forget learned baselines\n"
	      "  rules      check rule files, list rules, list the fields rules can use\n"
	      "  replay     evaluate rules on recorded records, offline\n"
	      "  audit      verify the hash chain of an audit log (run --audit-log)\n"
	      "  evidence   an alert's stack evidence: text, folded stacks, a flame graph SVG\n"
	      "  report     an alert as one self-contained HTML page, for a ticket\n"
	      "  config     check a config file, or show the configuration `run` would use\n"
	      "  status     the running sensor: what it watches and learns, losses, last alerts\n"
	      "  version    print the version\n"
	      "  help       this help; `plumbline run --help` for the sensor's options\n"
	      "\n"
	      "With no command, `plumbline` runs the sensor with the shipped defaults and\n"
	      "prints a live view of the busiest binaries. Needs root.\n"
	      "Documentation: docs/cli.md, docs/records.md, docs/architecture.md.\n",
	      out);
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts opts;
	int r = config__parse_run(argc, argv, &opts); /* the config file, then the command line over it */

	if (r)
		return r > 0 ? 0 : r;
	if (opts.quiet)
		log_set_level(LOG_LVL_ERROR);
	if (opts.verbose)
		log_set_level(LOG_LVL_DEBUG);
	return sensor_run(&opts);
}

static int cmd_features(void)
{
	struct pl_features f;

	features__probe(&f, true); /* as `run` would: mounts tracefs if it is not */
	features__print(&f, stdout);
	return features__check_required(&f) < 0 ? -ENOTSUP : 0;
}

static int run(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run";

	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
		printf("plumbline %s (libbpf %s, BPF ABI %d)\n", PL_VERSION, bpfsensor__libbpf_version(), PL_ABI_VERSION);
		return 0;
	}
	if (strcmp(cmd, "features") == 0)
		return cmd_features();
	if (strcmp(cmd, "baseline") == 0)
		return cmd_baseline(argc - 1, argv + 1);
	if (strcmp(cmd, "rules") == 0)
		return cmd_rules(argc - 1, argv + 1);
	if (strcmp(cmd, "audit") == 0)
		return cmd_audit(argc - 1, argv + 1);
	if (strcmp(cmd, "replay") == 0)
		return cmd_replay(argc - 1, argv + 1);
	if (strcmp(cmd, "evidence") == 0)
		return cmd_evidence(argc - 1, argv + 1);
	if (strcmp(cmd, "report") == 0)
		return cmd_report(argc - 1, argv + 1);
	if (strcmp(cmd, "config") == 0)
		return cmd_config(argc - 1, argv + 1);
	if (strcmp(cmd, "status") == 0)
		return cmd_status(argc - 1, argv + 1);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc > 1 ? argc - 1 : 1, argc > 1 ? argv + 1 : (char *[]){ "run", NULL });
	if (cmd[0] == '-') /* options without a command belong to run */
		return cmd_run(argc, argv);
	log_error("unknown command '%s' (see plumbline --help)", cmd);
	return -EINVAL;
}

int main(int argc, char **argv)
{
	int r = run(argc, argv);

	/* `rules check` returns 1 for invalid rules: a result, exit 1 too */
	return r != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
