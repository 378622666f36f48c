// SPDX-License-Identifier: MIT
/*
 * test_audit.c - the audit log (outputs/audit.h): the chain as written, a
 * restart that continues it, a torn last line, a full disk, and the
 * verifier's verdict on each kind of tampering, with the exact line.
 *
 * Hashes are checked against an independent computation (EVP over the
 * line's bytes but its last 75), not against the module itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"

struct fx {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-audit-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/audit.jsonl", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "%s/audit.jsonl", f->dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/link", f->dir);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/fifo", f->dir);
	unlink(cmd);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct json_object *alert(int n)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("alert"));
	json_object_object_add(o, "rule", json_object_new_string("exit seven"));
	json_object_object_add(o, "pid", json_object_new_int(1000 + n));
	json_object_object_add(o, "output", json_object_new_string("a \"quoted\" \\ value/with slash"));
	return o;
}

static void write_n(struct pl_output *o, int from, int n)
{
	for (int i = from; i < from + n; i++) {
		struct json_object *a = alert(i);

		assert_int_equal(output__write_event(o, "alert", a), 0);
		json_object_put(a);
	}
}

/* A new log at f->path with n alerts. */
static void make_log(struct fx *f, int n)
{
	struct pl_output *o;

	assert_int_equal(audit_log__open(f->path, NULL, &o, NULL), 0);
	write_n(o, 0, n);
	output__free(o);
}

/* The file's lines (without '\n'); *nl: whether the last ended with one. */
static size_t read_lines(const char *path, char lines[][4096], size_t max, bool *nl)
{
	FILE *fp = fopen(path, "re");
	size_t n = 0;

	assert_non_null(fp);
	*nl = true;
	while (n < max && fgets(lines[n], 4096, fp)) {
		size_t len = strlen(lines[n]);

		*nl = len && lines[n][len - 1] == '\n';
		if (*nl)
			lines[n][len - 1] = '\0';
		n++;
	}
	fclose(fp);
	return n;
}

static void write_lines(const char *path, char lines[][4096], size_t n, bool last_nl)
{
	FILE *fp = fopen(path, "we");

	assert_non_null(fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s%s", lines[i], i + 1 < n || last_nl ? "\n" : "");
	fclose(fp);
}

static void sha_hex(const char *buf, size_t len, char out[65])
{
	unsigned char md[32];
	unsigned int mdlen;

	assert_true(EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL));
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static const char *field(const char *line, const char *key, char *out, size_t size)
{
	struct json_object *o = json_tokener_parse(line), *v;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, key, &v));
	snprintf(out, size, "%s", json_object_get_string(v));
	json_object_put(o);
	return out;
}

static struct audit_report verify_file(const char *path, const struct audit_head *h, size_t n)
{
	struct audit_report rep;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(audit_verify(fd, h, n, NULL, &rep), 0);
	close(fd);
	return rep;
}

static char lines[16][4096];

static void test_audit_chain_links_each_line_to_the_one_before(void **state)
{
	struct fx *f = *state;
	char prev[65] = PL_AUDIT_GENESIS, calc[65], got[80];
	struct audit_report rep;
	bool nl;
	size_t n;

	make_log(f, 3);
	n = read_lines(f->path, lines, 16, &nl);
	assert_int_equal(n, 3);
	assert_true(nl);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(lines[i]);
		char want[48];

		snprintf(want, sizeof(want), "{\"type\":\"audit\",\"seq\":%d,", (int)i + 1);
		assert_memory_equal(lines[i], want, strlen(want));
		assert_string_equal(field(lines[i], "event", got, sizeof(got)), "alert");
		assert_string_equal(field(lines[i], "prev", got, sizeof(got)), prev);
		sha_hex(lines[i], len - 75, calc);
		assert_string_equal(field(lines[i], "hash", got, sizeof(got)), calc);
		assert_memory_equal(lines[i] + len - 75, ",\"hash\":\"", 9);
		memcpy(prev, calc, sizeof(prev));
	}
	/* the alert is the record, whole, and byte for byte as json-c prints it */
	assert_non_null(strstr(lines[0], ",\"record\":{\"type\":\"alert\",\"rule\":\"exit seven\",\"pid\":1000,"
					 "\"output\":\"a \\\"quoted\\\" \\\\ value/with slash\"},\"prev\":"));
	rep = verify_file(f->path, NULL, 0);
	assert_int_equal(rep.problem, AUDIT_OK);
	assert_int_equal(rep.entries, 3);
	assert_int_equal(rep.first_seq, 1);
	assert_int_equal(rep.last_seq, 3);
	assert_string_equal(rep.head, prev);
}

static void test_audit_reopen_continues_seq_and_hash(void **state)
{
	struct fx *f = *state;
	struct audit_resume res;
	struct pl_output *o;
	char h2[80], got[80];
	uint64_t seq;
	bool nl;

	make_log(f, 2);
	read_lines(f->path, lines, 16, &nl);
	field(lines[1], "hash", h2, sizeof(h2));
	assert_int_equal(audit_log__open(f->path, NULL, &o, &res), 0);
	assert_int_equal(res.seq, 2);
	assert_string_equal(res.hash, h2);
	assert_int_equal(res.torn_bytes, 0);
	assert_int_equal(audit_log__head(o, &seq, got), 0);
	assert_int_equal(seq, 2);
	write_n(o, 2, 1);
	output__free(o);
	assert_int_equal(read_lines(f->path, lines, 16, &nl), 3);
	assert_string_equal(field(lines[2], "prev", got, sizeof(got)), h2);
	assert_string_equal(field(lines[2], "seq", got, sizeof(got)), "3");
	assert_int_equal(verify_file(f->path, NULL, 0).problem, AUDIT_OK);
}

static void test_audit_torn_tail_is_kept_and_named_by_a_resumed_line(void **state)
{
	static const char torn[] = "{\"type\":\"audit\",\"seq\":3,\"time_ns\":17";
	struct fx *f = *state;
	struct audit_resume res;
	struct audit_report rep;
	struct pl_output *o;
	struct stat st;
	char sha[65], got[80], h2[80];
	bool nl;
	int fd;

	make_log(f, 2);
	assert_int_equal(stat(f->path, &st), 0);
	fd = open(f->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_int_equal(write(fd, torn, strlen(torn)), (ssize_t)strlen(torn));
	close(fd);

	/* before a restart: verify calls the tear what it is, on line 3 */
	rep = verify_file(f->path, NULL, 0);
	assert_int_equal(rep.problem, AUDIT_TORN);
	assert_int_equal(rep.bad_line, 3);
	assert_int_equal(rep.entries, 2);

	assert_int_equal(audit_log__open(f->path, NULL, &o, &res), 0);
	assert_int_equal(res.seq, 2);
	assert_int_equal(res.torn_offset, (uint64_t)st.st_size);
	assert_int_equal(res.torn_bytes, strlen(torn));
	write_n(o, 2, 1);
	output__free(o);

	assert_int_equal(read_lines(f->path, lines, 16, &nl), 5);
	assert_string_equal(lines[2], torn); /* left as it was, closed by a newline */
	assert_string_equal(field(lines[3], "event", got, sizeof(got)), "resumed");
	assert_string_equal(field(lines[3], "seq", got, sizeof(got)), "3");
	read_lines(f->path, lines, 16, &nl);
	field(lines[1], "hash", h2, sizeof(h2));
	assert_string_equal(field(lines[3], "prev", got, sizeof(got)), h2);
	sha_hex(torn, strlen(torn), sha);
	assert_non_null(strstr(lines[3], sha));
	assert_string_equal(field(lines[4], "seq", got, sizeof(got)), "4");

	rep = verify_file(f->path, NULL, 0);
	assert_int_equal(rep.problem, AUDIT_OK);
	assert_int_equal(rep.tears, 1);
	assert_int_equal(rep.entries, 4);

	/* the same torn line, but edited after the resume named it: not a tear any more */
	lines[2][10] ^= 1;
	write_lines(f->path, lines, 5, true);
	rep = verify_file(f->path, NULL, 0);
	assert_int_equal(rep.problem, AUDIT_MODIFIED);
	assert_int_equal(rep.bad_line, 3);
}

static void test_audit_open_refuses_what_is_not_an_audit_log(void **state)
{
	struct fx *f = *state;
	struct pl_output *o = NULL, *o2 = NULL;
	char p[160];
	int fd;

	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_int_equal(write(fd, "hello\n", 6), 6);
	close(fd);
	assert_int_equal(audit_log__open(f->path, NULL, &o, NULL), -EBADMSG);
	assert_null(o);
	unlink(f->path);

	snprintf(p, sizeof(p), "%s/link", f->dir);
	assert_int_equal(symlink(f->path, p), 0);
	assert_int_equal(audit_log__open(p, NULL, &o, NULL), -ELOOP);
	snprintf(p, sizeof(p), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(audit_log__open(p, NULL, &o, NULL), -EINVAL);
	assert_int_equal(audit_log__open(f->dir, NULL, &o, NULL), -EISDIR);

	/* one writer at a time: a second open (another sensor) is refused */
	assert_int_equal(audit_log__open(f->path, NULL, &o, NULL), 0);
	assert_int_equal(audit_log__open(f->path, NULL, &o2, NULL), -EBUSY);
	assert_null(o2);
	output__free(o);
}

/*
 * A full disk, without root: RLIMIT_FSIZE just above the file's size, with
 * SIGXFSZ ignored, so the write fails with EFBIG after a partial write.
 */
static void test_audit_full_disk_rolls_back_counts_and_says_so(void **state)
{
	struct fx *f = *state;
	struct rlimit old, lim;
	struct pl_output *o;
	struct stat st;
	struct json_object *big = alert(99);
	char pad[8192], got[80];
	bool nl;

	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	json_object_object_add(big, "pad", json_object_new_string(pad));
	assert_int_equal(audit_log__open(f->path, NULL, &o, NULL), 0);
	write_n(o, 0, 2);
	assert_int_equal(stat(f->path, &st), 0);

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)st.st_size + 200; /* less than any line: each is cut mid-way */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(output__write_event(o, "alert", big), -EFBIG);
	assert_int_equal(output__write_event(o, "alert", big), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	json_object_put(big);

	{
		struct stat now;

		assert_int_equal(stat(f->path, &now), 0);
		assert_int_equal(now.st_size, st.st_size); /* nothing half-written */
	}
	assert_int_equal(o->dropped, 2);
	write_n(o, 2, 1);
	output__free(o);
	assert_int_equal(read_lines(f->path, lines, 16, &nl), 4);
	assert_string_equal(field(lines[2], "event", got, sizeof(got)), "audit_lost");
	assert_non_null(strstr(lines[2], "\"lines\":2,\"error\":\"EFBIG\""));
	assert_string_equal(field(lines[3], "event", got, sizeof(got)), "alert");
	assert_int_equal(verify_file(f->path, NULL, 0).problem, AUDIT_OK);
}

/* Tampering with a 6-line log, each kind caught at its exact line. */
static void expect(struct fx *f, size_t n, bool last_nl, enum audit_problem p, uint64_t line)
{
	struct audit_report rep;

	write_lines(f->path, lines, n, last_nl);
	rep = verify_file(f->path, NULL, 0);
	if (rep.problem != p || rep.bad_line != line)
		fail_msg("want %s at line %llu, got %s at line %llu (%s)", audit_problem__name(p),
			 (unsigned long long)line, audit_problem__name(rep.problem), (unsigned long long)rep.bad_line,
			 rep.detail);
}

static void test_audit_verify_names_the_first_bad_line(void **state)
{
	struct fx *f = *state;
	char orig[6][4096], *p;
	bool nl;

	make_log(f, 6);
	assert_int_equal(read_lines(f->path, lines, 16, &nl), 6);
	memcpy(orig, lines, sizeof(orig));

	p = strstr(lines[3], "\"pid\":1003"); /* edit one byte of line 4 */
	p[7] = '4';
	expect(f, 6, true, AUDIT_MODIFIED, 4);
	memcpy(lines, orig, sizeof(orig));
	lines[1][strlen(lines[1]) - 5] ^= 1; /* in the hash itself */
	expect(f, 6, true, AUDIT_MODIFIED, 2);

	memcpy(lines, orig, sizeof(orig)); /* delete line 3 */
	memmove(lines[2], lines[3], 3 * sizeof(lines[0]));
	expect(f, 5, true, AUDIT_REMOVED, 3);
	memcpy(lines, orig, sizeof(orig)); /* delete line 1 */
	memmove(lines[0], lines[1], 5 * sizeof(lines[0]));
	expect(f, 5, true, AUDIT_REMOVED, 1);

	memcpy(lines, orig, sizeof(orig)); /* insert a copy of line 2 after line 4 */
	memmove(lines[5], lines[4], 2 * sizeof(lines[0]));
	memcpy(lines[4], orig[1], sizeof(lines[0]));
	expect(f, 7, true, AUDIT_INSERTED, 5);

	memcpy(lines, orig, sizeof(orig)); /* swap lines 2 and 3 */
	memcpy(lines[1], orig[2], sizeof(lines[0]));
	memcpy(lines[2], orig[1], sizeof(lines[0]));
	expect(f, 6, true, AUDIT_REORDERED, 2);
	memcpy(lines, orig, sizeof(orig)); /* move line 5 before line 2 */
	memcpy(lines[1], orig[4], sizeof(lines[0]));
	memcpy(lines[2], orig[1], sizeof(lines[0]));
	memcpy(lines[3], orig[2], sizeof(lines[0]));
	memcpy(lines[4], orig[3], sizeof(lines[0]));
	expect(f, 6, true, AUDIT_REORDERED, 2);

	memcpy(lines, orig, sizeof(orig)); /* the last line cut mid-way */
	lines[5][40] = '\0';
	expect(f, 6, false, AUDIT_TORN, 6);

	memcpy(lines, orig, sizeof(orig)); /* cut after line 4: the chain alone can't tell */
	expect(f, 4, true, AUDIT_OK, 0);
}

static void test_audit_heads_catch_truncation_and_rewrites(void **state)
{
	struct fx *f = *state;
	struct audit_head h[2] = {{.seq = 2}, {.seq = 5}};
	struct audit_report rep;
	char orig[6][4096];
	bool nl;

	make_log(f, 6);
	read_lines(f->path, lines, 16, &nl);
	memcpy(orig, lines, sizeof(orig));
	field(lines[1], "hash", h[0].hash, sizeof(h[0].hash));
	field(lines[4], "hash", h[1].hash, sizeof(h[1].hash));

	rep = verify_file(f->path, h, 2);
	assert_int_equal(rep.problem, AUDIT_OK);
	assert_int_equal(rep.heads_checked, 2);

	write_lines(f->path, lines, 3, true); /* the last 3 lines cut off */
	rep = verify_file(f->path, h, 2);
	assert_int_equal(rep.problem, AUDIT_TRUNCATED);
	assert_int_equal(rep.bad_line, 4);
	assert_int_equal(verify_file(f->path, NULL, 0).problem, AUDIT_OK);

	/* rewritten whole by someone who can: a fresh chain of 6 other lines */
	unlink(f->path);
	{
		struct pl_output *o;

		assert_int_equal(audit_log__open(f->path, NULL, &o, NULL), 0);
		write_n(o, 50, 6);
		output__free(o);
	}
	assert_int_equal(verify_file(f->path, NULL, 0).problem, AUDIT_OK);
	rep = verify_file(f->path, h, 2);
	assert_int_equal(rep.problem, AUDIT_REWRITTEN);
	assert_int_equal(rep.bad_line, 2);
}

static void test_audit_heads_read_from_json_and_syslog_lines(void **state)
{
	static const char text[] =
	    "{\"type\":\"audit_head\",\"time_ns\":1,\"seq\":12,\"hash\":\"" PL_AUDIT_GENESIS "\",\"file\":\"/x\"}\n"
	    "<30>1 2025-01-01T00:00:00Z host plumbline 77 audit-head [plumbline@32473 seq=\"40\" "
	    "hash=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" file=\"/x\"]\n"
	    "Jan  1 00:00:00 host 1 2025-01-01T00:00:00Z host plumbline 77 audit-head [plumbline@32473 "
	    "seq=\"41\" prev_seq=\"9\" hash=\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"]\n"
	    "{\"type\":\"alert\",\"seq\":3,\"hash\":\"" PL_AUDIT_GENESIS "\"}\n"
	    "audit_head seq=\"7\" hash=\"short\"\n";
	struct fx *f = *state;
	struct audit_head *h = NULL;
	size_t n = 0, skipped = 0;
	int fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(audit_heads__read(fd, &h, &n, &skipped), 0);
	close(fd);
	assert_int_equal(n, 3);
	assert_int_equal(skipped, 2);
	assert_int_equal(h[0].seq, 12);
	assert_string_equal(h[0].hash, PL_AUDIT_GENESIS);
	assert_int_equal(h[1].seq, 40);
	assert_int_equal(h[1].hash[0], 'a');
	assert_int_equal(h[2].seq, 41);
	assert_int_equal(h[2].hash[63], 'b');
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_audit_chain_links_each_line_to_the_one_before, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_reopen_continues_seq_and_hash, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_torn_tail_is_kept_and_named_by_a_resumed_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_open_refuses_what_is_not_an_audit_log, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_full_disk_rolls_back_counts_and_says_so, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_verify_names_the_first_bad_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_heads_catch_truncation_and_rewrites, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_audit_heads_read_from_json_and_syslog_lines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
