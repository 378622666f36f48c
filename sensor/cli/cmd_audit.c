// SPDX-License-Identifier: MIT
/*
 * cmd_audit.c - `plumbline audit verify`: the verdict of outputs/audit.h's
 * verifier, in words; `plumbline audit keygen`: a sealing key
 * (outputs/audit_key.h), its seed for off the host. The files are untrusted input: regular files or FIFOs
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
#include <openssl/crypto.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "audit_key.h"
#include "cleanup.h"
#include "filekind.h"
#include "log.h"
#include "textsafe.h"

static void usage(FILE *f)
{
	fputs("Usage: plumbline audit verify FILE [--heads HEADS_FILE] [--key SEED|SEED_FILE]\n"
	      "       plumbline audit keygen [--key-file PATH] [--seed-file OUT]\n"
	      "\n"
	      "verify: check the hash chain of an audit log written by `plumbline run --audit-log\n"
	      "FILE`. Exits 0 when it is intact; otherwise 1, naming the first bad line and what\n"
	      "is wrong with it: modified, removed, inserted, reordered, torn (the last line cut\n"
	      "off mid-write); against heads, rewritten or truncated; with a key, forged or\n"
	      "unsealed.\n"
	      "\n"
	      "keygen: make a sealing key: install its first state at PATH (0600, never over an\n"
	      "existing file; default /var/lib/plumbline/audit.key, for run --audit-key) and\n"
	      "print the verification seed, or write it to OUT: take it off this host.\n"
	      "\n"
	      "Options:\n"
	      "  --heads HEADS_FILE   chain heads the sensor sent off-host, as a collector wrote\n"
	      "                       them (RFC 5424 or traditional syslog lines, rsyslog's or\n"
	      "                       journald's JSON, or the sensor's JSON output); the file\n"
	      "                       must hold each head's seq with that hash, and at least\n"
	      "                       one head. Without heads, lines cut off the end of the\n"
	      "                       file, or a file rewritten whole, cannot be seen.\n"
	      "  --key SEED           the key's verification seed (64 hex digits, or a file\n"
	      "                       holding them): every line's MAC is checked\n"
	      "  --key-file PATH      keygen: where the host's key state goes\n"
	      "  --seed-file OUT      keygen: write the seed to OUT (created 0600) instead\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "The format, the key and what they cover: docs/outputs.md, SECURITY.md.\n",
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

/* The seed from the --key argument: 64 hex digits, or a file holding them. */
static int read_seed(const char *arg, uint8_t ret[PL_AUDIT_KEY_LEN])
{
	_cleanup_close_ int fd = -1;
	char buf[256];
	ssize_t n;

	if (audit_seed__parse(arg, ret) == 0)
		return 0;
	fd = open_input(arg);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return log_error_errno(errno, "Cannot read the seed from '%s': %m", arg);
	buf[n] = '\0';
	n = audit_seed__parse(buf, ret);
	OPENSSL_cleanse(buf, sizeof(buf));
	if (n < 0)
		return log_error_errno(EINVAL, "'%s' holds no seed (64 hex digits, as audit keygen printed it)", arg);
	return 0;
}

static int read_heads(const char *heads_file, struct audit_head **ret, size_t *ret_n)
{
	_cleanup_close_ int hfd = open_input(heads_file);
	size_t skipped = 0;
	int r;

	if (hfd < 0)
		return hfd;
	r = audit_heads__read(hfd, ret, ret_n, &skipped);
	if (r < 0)
		return log_error_errno(r, "Cannot read heads from '%s': %m", heads_file);
	return 0;
}

static void print_heads(const struct audit_report *rep, const char *heads_file)
{
	char t[32];

	if (!heads_file)
		return;
	if (rep->last_head_time_ns)
		fmt_time(rep->last_head_time_ns, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "an unknown time");
	printf("heads: %" PRIu64 " of %" PRIu64 " matched, last head seq %" PRIu64 " at %s\n", rep->heads_checked,
	       rep->heads, rep->last_head_seq, t);
}

static void print_key(const struct audit_report *rep)
{
	if (rep->key_given)
		printf("keyed: %" PRIu64 " lines sealed, every MAC verified with the key\n", rep->macs_checked);
	else if (rep->keyed)
		printf("keyed: %" PRIu64 " of %" PRIu64 " lines carry a MAC, not checked (give --key SEED)\n",
		       rep->keyed, rep->entries);
	else
		printf("unkeyed: a hash chain only (anyone who can write the file can rewrite it whole; "
		       "heads bound that)\n");
}

static int verify(const char *file, const char *heads_file, const char *key)
{
	_cleanup_free_ struct audit_head *heads = NULL;
	_cleanup_free_ char *name = text_escape(file, strlen(file));
	_cleanup_close_ int fd = -1;
	uint8_t seed[PL_AUDIT_KEY_LEN];
	struct audit_report rep;
	size_t nheads = 0;
	char t0[32], t1[32];
	int r;

	if (heads_file && (r = read_heads(heads_file, &heads, &nheads)) < 0)
		return r;
	if (key && (r = read_seed(key, seed)) < 0)
		return r;
	fd = open_input(file);
	if (fd < 0)
		return fd;
	r = audit_verify(fd, heads, nheads, key ? seed : NULL, &rep);
	OPENSSL_cleanse(seed, sizeof(seed));
	if (r < 0)
		return log_error_errno(r, "Cannot read '%s': %m", file);
	if (rep.problem != AUDIT_OK) {
		printf("%s: line %" PRIu64 ": %s: %s\n", name ? name : "?", rep.bad_line,
		       audit_problem__name(rep.problem), rep.detail);
		if (rep.entries)
			printf("%s: lines before it verified: seq %" PRIu64 "..%" PRIu64 "\n", name ? name : "?",
			       rep.first_seq, rep.last_seq);
		print_heads(&rep, heads_file);
		return 1;
	}
	if (heads_file && nheads == 0) {
		printf("%s: not verified: '%s' holds no audit-head record: nothing to check the end of the file "
		       "against (a collector that got no head, or the wrong file)\n",
		       name ? name : "?", heads_file);
		print_heads(&rep, heads_file);
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
	print_heads(&rep, heads_file);
	print_key(&rep);
	return 0;
}

/* Create path (O_EXCL, 0600) holding the seed in hex. */
static int write_seed(const char *path, const uint8_t seed[PL_AUDIT_KEY_LEN])
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	char hex[2 * PL_AUDIT_KEY_LEN + 2];
	int r = 0;

	if (fd < 0)
		return log_error_errno(errno, "Cannot create the seed file '%s': %m", path);
	for (int i = 0; i < PL_AUDIT_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", seed[i]);
	hex[2 * PL_AUDIT_KEY_LEN] = '\n';
	if (write(fd, hex, sizeof(hex) - 1) != (ssize_t)sizeof(hex) - 1 || fsync(fd) < 0)
		r = log_error_errno(errno ? errno : EIO, "Cannot write the seed file '%s': %m", path);
	OPENSSL_cleanse(hex, sizeof(hex));
	return r;
}

static int keygen(const char *key_file, const char *seed_file)
{
	uint8_t seed[PL_AUDIT_KEY_LEN];
	int r;

	if (getrandom(seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		return log_error_errno(errno ? errno : EIO, "Cannot get random bytes: %m");
	if (seed_file && (r = write_seed(seed_file, seed)) < 0)
		goto out;
	r = audit_key__install(key_file, seed);
	if (r < 0) {
		log_error_errno(r, "Cannot install the key at '%s': %m%s", key_file,
				r == -EEXIST ? " (a key is there: a new key goes with a new log, see docs/outputs.md)" : "");
		if (seed_file)
			unlink(seed_file);
		goto out;
	}
	printf("audit key installed: %s (for run --audit-key; it seals a new audit log from seq 1)\n", key_file);
	if (seed_file) {
		printf("verification seed written to %s: take it off this host, then delete it here\n", seed_file);
	} else {
		printf("verification seed (keep it off this host; audit verify --key takes it): ");
		for (int i = 0; i < PL_AUDIT_KEY_LEN; i++)
			printf("%02x", seed[i]);
		printf("\n");
	}
out:
	OPENSSL_cleanse(seed, sizeof(seed));
	return r;
}

int cmd_audit(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"heads", required_argument, NULL, 'H'},
	    {"key", required_argument, NULL, 'K'},
	    {"key-file", required_argument, NULL, 'F'},
	    {"seed-file", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	const char *heads = NULL, *key = NULL, *key_file = "/var/lib/plumbline/audit.key", *seed_file = NULL;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			heads = optarg;
			break;
		case 'K':
			key = optarg;
			break;
		case 'F':
			key_file = optarg;
			break;
		case 'S':
			seed_file = optarg;
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
		return verify(argv[optind + 1], heads, key);
	if (optind + 1 == argc && strcmp(argv[optind], "keygen") == 0)
		return keygen(key_file, seed_file);
	usage(stderr);
	return -EINVAL;
}
