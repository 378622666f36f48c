// SPDX-License-Identifier: MIT
/*
 * cmd_audit.c - `plumbline audit verify`: the verdict of outputs/audit.h's
 * verifier, in words. The files are untrusted input: regular files or FIFOs
 * only (a device is never opened, a FIFO never blocks the open), and every
 * line is bounded by the verifier.
 */
#include "cli/cmd_audit.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "cleanup.h"
#include "filekind.h"
#include "log.h"
#include "textsafe.h"

static void usage(FILE *f)
{
	fputs("Usage: plumbline audit verify FILE [--heads HEADS_FILE]\n"
	      "\n"
	      "Check the hash chain of an audit log written by `plumbline run --audit-log FILE`.\n"
	      "Exits 0 when it is intact; otherwise 1, naming the first bad line and what is\n"
	      "wrong with it: modified, removed, inserted, reordered, torn (the last line cut\n"
	      "off mid-write), and, against heads, rewritten or truncated.\n"
	      "\n"
	      "Options:\n"
	      "  --heads HEADS_FILE   chain heads the sensor sent off-host (its audit_head\n"
	      "                       records: JSON lines, or syslog lines holding seq=\"N\" and\n"
	      "                       hash=\"H\"); the file must hold each head's seq with that\n"
	      "                       hash. Without heads, lines cut off the end of the file,\n"
	      "                       or a file rewritten whole, cannot be seen.\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "The format and what the chain covers: docs/outputs.md, SECURITY.md.\n",
	      f);
}

/* A regular file or a FIFO, opened without blocking or following a device. */
static int open_input(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0)
		return log_error_errno(errno, "Cannot open '%s': %m", path);
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return log_error_errno(EINVAL, "Cannot read '%s': it is %s, not a regular file", path,
				       file_kind(st.st_mode));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(st.st_mode) ? O_NONBLOCK : 0));
	if (fd < 0)
		return log_error_errno(errno, "Cannot open '%s': %m", path);
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))) {
		close(fd);
		return log_error_errno(EINVAL, "Cannot read '%s': not a regular file", path);
	}
	return fd;
}

static void fmt_time(uint64_t ns, char *buf, size_t size)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "?");
}

static int verify(const char *file, const char *heads_file)
{
	_cleanup_free_ struct audit_head *heads = NULL;
	_cleanup_free_ char *name = text_escape(file, strlen(file));
	_cleanup_close_ int fd = -1;
	struct audit_report rep;
	size_t nheads = 0, skipped = 0;
	char t0[32], t1[32];
	int r;

	if (heads_file) {
		_cleanup_close_ int hfd = open_input(heads_file);

		if (hfd < 0)
			return hfd;
		r = audit_heads__read(hfd, &heads, &nheads, &skipped);
		if (r < 0)
			return log_error_errno(r, "Cannot read heads from '%s': %m", heads_file);
		if (nheads == 0)
			log_warn("'%s' holds no audit_head line: nothing to check the end of the file against",
				 heads_file);
	}
	fd = open_input(file);
	if (fd < 0)
		return fd;
	r = audit_verify(fd, heads, nheads, &rep);
	if (r < 0)
		return log_error_errno(r, "Cannot read '%s': %m", file);
	if (rep.problem != AUDIT_OK) {
		printf("%s: line %" PRIu64 ": %s: %s\n", name ? name : "?", rep.bad_line,
		       audit_problem__name(rep.problem), rep.detail);
		if (rep.entries)
			printf("%s: lines before it verified: seq %" PRIu64 "..%" PRIu64 "\n", name ? name : "?",
			       rep.first_seq, rep.last_seq);
		return 1;
	}
	if (rep.entries == 0) {
		printf("%s: intact: empty%s\n", name ? name : "?", rep.tears ? " but for a torn line" : "");
		return 0;
	}
	fmt_time(rep.first_time_ns, t0, sizeof(t0));
	fmt_time(rep.last_time_ns, t1, sizeof(t1));
	printf("%s: intact: %" PRIu64 " lines verified, seq %" PRIu64 "..%" PRIu64 ", %s .. %s\n", name ? name : "?",
	       rep.entries, rep.first_seq, rep.last_seq, t0, t1);
	printf("head: seq %" PRIu64 " hash %s\n", rep.last_seq, rep.head);
	if (rep.tears)
		printf("torn lines: %" PRIu64 " (crashes mid-write), each named by the resumed line after it\n",
		       rep.tears);
	if (heads_file)
		printf("heads: %" PRIu64 " of %zu checked against the file\n", rep.heads_checked, nheads);
	return 0;
}

int cmd_audit(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"heads", required_argument, NULL, 'H'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	const char *heads = NULL;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			heads = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return log_error_errno(EINVAL, "unknown or incomplete option '%s' (see plumbline audit --help)",
					       argv[optind - 1]);
		}
	}
	if (optind + 2 == argc && strcmp(argv[optind], "verify") == 0)
		return verify(argv[optind + 1], heads);
	usage(stderr);
	return -EINVAL;
}
