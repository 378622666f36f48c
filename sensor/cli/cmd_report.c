// SPDX-License-Identifier: MIT
/*
 * cmd_report.c - `plumbline report ALERT_ID [--records FILE | FILE]
 * [-o OUT.html]`: the alert found as `plumbline evidence` finds it (the JSON
 * or the OCSF output, by id or a unique prefix of it), written as one HTML
 * page (report_html.c) to stdout or, atomically and never through a
 * symbolic link, to OUT.html.
 */
#include "cli/cmd_report.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cleanup.h"
#include "cli/cmd_evidence.h"
#include "cli/report_html.h"
#include "fileio.h"
#include "log.h"

static void usage(FILE *f)
{
	fputs("Usage: plumbline report ALERT_ID [--records FILE | FILE] [-o OUT.html]\n"
	      "\n"
	      "Write the alert ALERT_ID, read from FILE (the JSON output of `plumbline run`,\n"
	      "--json, or its OCSF output, --ocsf), as one self-contained HTML page: what\n"
	      "happened in words, the process and its ancestry, the baseline's distribution\n"
	      "with the alert's value marked, the flame graph of its stacks, the host and the\n"
	      "rest of the evidence. The page loads nothing and runs no script. ALERT_ID may\n"
	      "be the first characters of the id, if only one alert's id starts with them.\n"
	      "\n"
	      "  --records FILE  the file to read (or give it after ALERT_ID)\n"
	      "  -o, --output OUT.html  write the page to OUT.html (replaced atomically; a\n"
	      "                  symbolic link is refused), not to stdout\n"
	      "  -h, --help      this help\n"
	      "See docs/cli.md, \"REPORT\".\n",
	      f);
}


static int write_page(struct json_object *alert, const char *out)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int r;

	if (out && (r = evidence_check_output(out)) < 0)
		return r;
	if (!(m = open_memstream(&buf, &len)))
		return log_error_errno(ENOMEM, "Out of memory");
	r = report__write_html(alert, PL_VERSION, m);
	if (fclose(m) == EOF && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return log_error_errno(r, "Cannot write the report: %m");
	if (!out) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) == EOF)
			return log_error_errno(EIO, "Cannot write to stdout: %m");
		return 0;
	}
	if ((r = atomic_write_file(out, buf, len, 0644)) < 0)
		return log_error_errno(r, "Cannot write '%s': %m", out);
	log_info("wrote %s: %zu bytes", out, len);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {{"records", required_argument, NULL, 'r'},
						 {"output", required_argument, NULL, 'o'},
						 {"help", no_argument, NULL, 'h'},
						 {}};
	const char *file = NULL, *out = NULL, *id;
	struct json_object *alert = NULL;
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			file = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return log_error_errno(EINVAL,
					       "unknown option or missing argument '%s' (see plumbline report "
					       "--help)",
					       argv[optind - 1]);
		}
	}
	if (optind == argc - 2 && !file) {
		file = argv[optind + 1];
	} else if (optind != argc - 1) {
		usage(stderr);
		return -EINVAL;
	}
	if (!file) {
		log_error("Name the file to read the alert from: plumbline report ALERT_ID FILE "
			  "(the --json or --ocsf output of plumbline run)");
		return -EINVAL;
	}
	id = argv[optind];
	if ((r = evidence_find_alert(file, id, &alert)) < 0)
		return r;
	r = write_page(alert, out);
	json_object_put(alert);
	return r;
}
