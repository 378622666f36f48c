// SPDX-License-Identifier: MIT
/*
 * test_audit_heads.c - the heads parser (outputs/audit_heads.c) on the
 * forms a collector writes, and the sealing key (outputs/audit_key.h): its
 * evolution against an independent computation (Python's hashlib), its
 * file (two slots, the old key gone from it after a step, a crash between
 * the slots, root-only), and a keyed log that verifies, with every forgery
 * `verify --key` must catch.
 *
 * The collector lines are what a real rsyslogd 8 wrote for the message the
 * sensor sends (over TCP, and over a local socket where rsyslog takes it
 * for a traditional message and keeps the SD in the message).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "audit_key.h"

#define H "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

static const char *const collector_lines[] = {
	/* RSYSLOG_SyslogProtocol23Format (imtcp) */
	"<28>1 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\"1796173805123442527\" seq=\"12\" hash=\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\" file=\"/var/log/plumbline/a \\\"b\\] c.log\"] ",
	/* RSYSLOG_FileFormat (imuxsock: the SD in the message) */
	"2026-12-02T01:09:41.635514+00:00 vm 1 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\"1796173805123442527\" seq=\"12\" hash=\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\" file=\"/var/log/plumbline/a \\\"b\\] c.log\"]",
	/* RSYSLOG_TraditionalFileFormat (imuxsock) */
	"Dec  2 01:09:41 vm 1 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\"1796173805123442527\" seq=\"12\" hash=\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\" file=\"/var/log/plumbline/a \\\"b\\] c.log\"]",
	/* jsonmesg (imtcp): rawmsg and structured-data */
	"{ \"msg\": \"\", \"rawmsg\": \"<28>1 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\\\"1796173805123442527\\\" seq=\\\"12\\\" hash=\\\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\\\" file=\\\"\\/var\\/log\\/plumbline\\/a \\\\\\\"b\\\\] c.log\\\"]\", \"timereported\": \"2026-12-02T01:10:05.123456+00:00\", \"hostname\": \"web1\", \"syslogtag\": \"plumbline[4242]\", \"inputname\": \"imtcp\", \"fromhost\": \"localhost\", \"fromhost-ip\": \"127.0.0.1\", \"pri\": \"28\", \"syslogfacility\": \"3\", \"syslogseverity\": \"4\", \"timegenerated\": \"2026-12-02T01:09:41.636544+00:00\", \"programname\": \"plumbline\", \"protocol-version\": \"1\", \"structured-data\": \"[plumbline@32473 time_ns=\\\"1796173805123442527\\\" seq=\\\"12\\\" hash=\\\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\\\" file=\\\"\\/var\\/log\\/plumbline\\/a \\\\\\\"b\\\\] c.log\\\"]\", \"app-name\": \"plumbline\", \"procid\": \"4242\", \"msgid\": \"audit-head\", \"uuid\": null, \"$!\": null }",
	/* a jsonf list template: msgid and sd of their own */
	"{\"msgid\":\"audit-head\", \"sd\":\"[plumbline@32473 time_ns=\\\"1796173805123442527\\\" seq=\\\"12\\\" hash=\\\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\\\" file=\\\"\\/var\\/log\\/plumbline\\/a \\\\\\\"b\\\\] c.log\\\"]\", \"msg\":\"\"}",
	/* jsonmesg (imuxsock): the message without its VERSION */
	"{ \"msg\": \" 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\\\"1796173805123442527\\\" seq=\\\"12\\\" hash=\\\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\\\" file=\\\"\\/var\\/log\\/plumbline\\/a \\\\\\\"b\\\\] c.log\\\"]\", \"rawmsg\": \"<28>1 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\\\"1796173805123442527\\\" seq=\\\"12\\\" hash=\\\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\\\" file=\\\"\\/var\\/log\\/plumbline\\/a \\\\\\\"b\\\\] c.log\\\"]\", \"timereported\": \"2026-12-02T01:09:41.635514+00:00\", \"hostname\": \"vm\", \"syslogtag\": \"1\", \"inputname\": \"imuxsock\", \"fromhost\": \"vm\", \"fromhost-ip\": \"127.0.0.1\", \"pri\": \"28\", \"syslogfacility\": \"3\", \"syslogseverity\": \"4\", \"timegenerated\": \"2026-12-02T01:09:41.635514+00:00\", \"programname\": \"1\", \"protocol-version\": \"0\", \"structured-data\": \"-\", \"app-name\": \"1\", \"procid\": \"-\", \"msgid\": \"-\", \"uuid\": null, \"$!\": null }",
	/* journald's short output of the message received on /dev/log */
	"Dec 02 01:10:05 web1 plumbline[4242]: 1 2026-12-02T01:10:05.123456+00:00 web1 plumbline 4242 audit-head "
	"[plumbline@32473 time_ns=\"1796173805123442527\" seq=\"12\" hash=\"" H "\" file=\"/x\"]",
	/* journald's JSON output: the message in MESSAGE */
	"{\"__REALTIME_TIMESTAMP\":\"1796173805123456\",\"SYSLOG_IDENTIFIER\":\"1\",\"MESSAGE\":\"2026-12-02T01:10:05."
	"123456+00:00 web1 plumbline 4242 audit-head [plumbline@32473 time_ns=\\\"1796173805123442527\\\" seq=\\\"12\\\" "
	"hash=\\\"" H "\\\" file=\\\"/x\\\"]\"}",
};

static void test_audit_heads_parse_every_collector_form(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(collector_lines) / sizeof(collector_lines[0]); i++) {
		struct audit_head h = { 0 };
		const char *l = collector_lines[i];

		if (audit_head__parse(l, strlen(l), &h) != 1)
			fail_msg("no head in form %zu: %s", i, l);
		assert_int_equal(h.seq, 12);
		assert_string_equal(h.hash, H);
		assert_true(h.time_ns == 1796173805123442527ull);
	}
}

static void test_audit_heads_parse_the_sensors_json_record(void **state)
{
	static const char l[] = "{\"type\":\"audit_head\",\"time_ns\":5,\"seq\":42,\"hash\":\"" H "\",\"file\":\"/a\"}";
	struct audit_head h = { 0 };

	(void)state;
	assert_int_equal(audit_head__parse(l, strlen(l), &h), 1);
	assert_int_equal(h.seq, 42);
	assert_int_equal(h.time_ns, 5);
	assert_string_equal(h.hash, H);
}

static void test_audit_heads_ignore_lookalikes(void **state)
{
	static const char *const not_heads[] = {
		/* the MSGID as the record type, not as sent */
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit_head [plumbline@32473 seq=\"5\" hash=\"" H "\"]",
		/* another SD-ID */
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [other@1 seq=\"5\" hash=\"" H "\"]",
		/* another APP-NAME */
		"<28>1 2026-12-02T01:10:05Z web1 plumbIine 42 audit-head [plumbline@32473 seq=\"5\" hash=\"" H "\"]",
		/* an alert whose MSG (a process's name) spells a head */
		"<27>1 2026-12-02T01:10:05Z web1 plumbline 42 alert [plumbline@32473 rule=\"r\" exe=\"/tmp/x\"] x 1 "
		"2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"99\" hash=\"" H "\"]",
		/* free text that mentions the words */
		"audit_head seq=\"5\" hash=\"" H "\"",
		"the audit-head [plumbline@32473 seq=\"5\" hash=\"" H "\"]",
		/* bad values */
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"05\" hash=\"" H "\"]",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"0\" hash=\"" H "\"]",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"-5\" hash=\"" H "\"]",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"5\" hash=\"9f86\"]",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"5\" hash=\"" H "0\"]",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"5\"]",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=\"5\" hash=\"" H "\"",
		"<28>1 2026-12-02T01:10:05Z web1 plumbline 42 audit-head [plumbline@32473 seq=5 hash=\"" H "\"]",
		/* JSON: the SD without the MSGID, a record of another type */
		"{\"sd\":\"[plumbline@32473 seq=\\\"5\\\" hash=\\\"" H "\\\"]\"}",
		"{\"type\":\"alert\",\"seq\":3,\"hash\":\"" H "\"}",
		"{\"type\":\"audit_head\",\"seq\":\"3\",\"hash\":\"" H "\"}",
		"",
		"{",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(not_heads) / sizeof(not_heads[0]); i++) {
		struct audit_head h = { .seq = 777 };

		if (audit_head__parse(not_heads[i], strlen(not_heads[i]), &h) != 0)
			fail_msg("a head read from: %s", not_heads[i]);
		assert_int_equal(h.seq, 777);
	}
}

static void test_audit_heads_read_a_file_of_them(void **state)
{
	char path[] = "/tmp/pl-heads-XXXXXX";
	int fd = mkstemp(path);
	struct audit_head *h = NULL;
	size_t n = 0, skipped = 0;

	(void)state;
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(collector_lines) / sizeof(collector_lines[0]); i++)
		dprintf(fd, "%s\n", collector_lines[i]);
	dprintf(fd, "Dec  2 01:00:00 web1 sshd[1]: Accepted publickey\n");
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(audit_heads__read(fd, &h, &n, &skipped), 0);
	close(fd);
	unlink(path);
	assert_int_equal(n, sizeof(collector_lines) / sizeof(collector_lines[0]));
	assert_int_equal(skipped, 1);
	free(h);
}

/* ---- the key ---- */

static void test_audit_key_evolves_as_specified(void **state)
{
	uint8_t k[PL_AUDIT_KEY_LEN];
	char hex[65];

	(void)state;
	for (int i = 0; i < PL_AUDIT_KEY_LEN; i++)
		k[i] = (uint8_t)i;
	audit_key__evolve(k);
	audit_key__evolve(k);
	/* hashlib.sha256(b"plumbline-audit-evolve" + k).digest(), twice; then hmac.new(k3, b"abc", sha256) */
	audit_key__hmac_hex(k, "abc", 3, hex);
	assert_string_equal(hex, "4194cea342d1fcca471095a7015737371486b195a89b83cfb16c6644a9fde374");
	assert_int_equal(audit_seed__parse("  000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F\n", k), 0);
	assert_int_equal(k[26], 0x1a);
	assert_int_equal(audit_seed__parse("0001", k), -EINVAL);
	assert_int_equal(audit_seed__parse("zz0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", k),
			 -EINVAL);
}

struct kfx {
	char dir[64], key[96], log[96];
};

static int ksetup(void **state)
{
	struct kfx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-akey-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->key, sizeof(f->key), "%s/audit.key", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/audit.jsonl", f->dir);
	*state = f;
	return 0;
}

static int kteardown(void **state)
{
	struct kfx *f = *state;

	unlink(f->key);
	unlink(f->log);
	rmdir(f->dir);
	free(f);
	return 0;
}

static size_t read_all(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size);
	close(fd);
	assert_true(n >= 0);
	return (size_t)n;
}

static const uint8_t seed[PL_AUDIT_KEY_LEN] = { 0x5e, 0xed, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
						15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 };

static void test_audit_key_file_keeps_only_the_next_key(void **state)
{
	struct kfx *f = *state;
	struct audit_key *k;
	uint8_t k2[PL_AUDIT_KEY_LEN];
	char file[256];
	struct stat st;
	size_t n;

	assert_int_equal(audit_key__install(f->key, seed), 0);
	assert_int_equal(audit_key__install(f->key, seed), -EEXIST);
	assert_int_equal(stat(f->key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(audit_key__open(f->key, &k), 0);
	assert_int_equal(audit_key__epoch(k), 1);
	assert_int_equal(audit_key__step(k), 0);
	assert_int_equal(audit_key__epoch(k), 2);
	audit_key__free(k);

	/* the seed (key 1) is nowhere in the file; key 2 is */
	n = read_all(f->key, file, sizeof(file));
	assert_int_equal(n, 128);
	assert_null(memmem(file, n, seed, sizeof(seed)));
	memcpy(k2, seed, sizeof(k2));
	audit_key__evolve(k2);
	assert_non_null(memmem(file, n, k2, sizeof(k2)));

	/* a crash between the two writes of a step: both slots valid, the newest wins */
	{
		int fd = open(f->key, O_RDWR | O_CLOEXEC);
		char old[64];

		assert_int_equal(audit_key__open(f->key, &k), 0);
		assert_int_equal(pread(fd, old, 64, 0), 64); /* epoch 2's slot */
		assert_int_equal(audit_key__step(k), 0);	 /* epoch 3 in slot 1, slot 0 wiped */
		audit_key__free(k);
		assert_int_equal(pwrite(fd, old, 64, 0), 64); /* as if the wipe never happened */
		close(fd);
		assert_int_equal(audit_key__open(f->key, &k), 0);
		assert_int_equal(audit_key__epoch(k), 3);
		audit_key__free(k);
		n = read_all(f->key, file, sizeof(file));
		assert_null(memmem(file, n, k2, sizeof(k2))); /* and the open wiped it */
	}

	/* root-only */
	assert_int_equal(chmod(f->key, 0640), 0);
	assert_int_equal(audit_key__open(f->key, &k), -EPERM);
	assert_int_equal(chmod(f->key, 0600), 0);
	/* a damaged file */
	assert_int_equal(truncate(f->key, 100), 0);
	assert_int_equal(audit_key__open(f->key, &k), -EBADMSG);
}

static void write_alerts(struct pl_output *o, int n)
{
	for (int i = 0; i < n; i++) {
		struct json_object *a = json_object_new_object();

		json_object_object_add(a, "type", json_object_new_string("alert"));
		json_object_object_add(a, "pid", json_object_new_int(100 + i));
		assert_int_equal(output__write_event(o, "alert", a), 0);
		json_object_put(a);
	}
}

static struct audit_report verify_with(const char *path, const uint8_t *key)
{
	struct audit_report rep;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(audit_verify(fd, NULL, 0, key, &rep), 0);
	close(fd);
	return rep;
}

/* Append a line to path: seq after its last, chained to it, hash recomputed;
 * mac: the text of the "mac" member, or NULL for none. */
static void append_forged(const char *path, const char *mac)
{
	char buf[8192], line[1024], body[900], *last, hash[65], prev[65];
	size_t n = read_all(path, buf, sizeof(buf) - 1);
	long long seq;
	FILE *fp;
	int len;

	buf[n] = '\0';
	buf[n - 1] = '\0';
	last = strrchr(buf, '\n');
	last = last ? last + 1 : buf;
	assert_int_equal(sscanf(last, "{\"type\":\"audit\",\"seq\":%lld", &seq), 1);
	memcpy(prev, strstr(last, "\"hash\":\"") + 8, 64);
	prev[64] = '\0';
	snprintf(body, sizeof(body),
		 "{\"type\":\"audit\",\"seq\":%lld,\"time_ns\":1,\"event\":\"alert\",\"record\":{\"type\":\"alert\"},"
		 "\"prev\":\"%s\"%s%s%s",
		 seq + 1, prev, mac ? ",\"mac\":\"" : "", mac ? mac : "", mac ? "\"" : "");
	audit__sha256_hex(body, strlen(body), hash);
	len = snprintf(line, sizeof(line), "%s,\"hash\":\"%s\"}\n", body, hash);
	fp = fopen(path, "ae");
	assert_non_null(fp);
	assert_int_equal(fwrite(line, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
}

static void test_audit_keyed_log_verifies_and_catches_forgery(void **state)
{
	struct kfx *f = *state;
	struct pl_output *o;
	struct audit_resume res;
	struct audit_report rep;
	uint8_t wrong[PL_AUDIT_KEY_LEN];
	char copy[8192], mac[65];
	size_t n;

	assert_int_equal(audit_key__install(f->key, seed), 0);
	assert_int_equal(audit_log__open(f->log, f->key, &o, &res), 0);
	write_alerts(o, 3);
	output__free(o);
	/* a restart continues the keyed chain */
	assert_int_equal(audit_log__open(f->log, f->key, &o, &res), 0);
	assert_int_equal(res.seq, 3);
	assert_int_equal(res.key_epoch, 4);
	write_alerts(o, 2);
	output__free(o);

	rep = verify_with(f->log, seed);
	assert_int_equal(rep.problem, AUDIT_OK);
	assert_int_equal(rep.macs_checked, 5);
	rep = verify_with(f->log, NULL); /* without the seed: the chain, and that it is keyed */
	assert_int_equal(rep.problem, AUDIT_OK);
	assert_int_equal(rep.keyed, 5);
	memcpy(wrong, seed, sizeof(wrong));
	wrong[0] ^= 1;
	rep = verify_with(f->log, wrong);
	assert_int_equal(rep.problem, AUDIT_FORGED);
	assert_int_equal(rep.bad_line, 1);

	/* the keyed log refuses a writer without its key, and vice versa */
	assert_int_equal(audit_log__open(f->log, NULL, &o, &res), -ENOKEY);

	/* an appended line, its hash recomputed: with a copied MAC, or none */
	n = read_all(f->log, copy, sizeof(copy));
	memcpy(mac, strstr(copy, "\"mac\":\"") + 7, 64);
	mac[64] = '\0';
	append_forged(f->log, mac);
	assert_int_equal(verify_with(f->log, NULL).problem, AUDIT_OK); /* the chain alone can't tell */
	rep = verify_with(f->log, seed);
	assert_int_equal(rep.problem, AUDIT_FORGED);
	assert_int_equal(rep.bad_line, 6);
	assert_int_equal(truncate(f->log, (off_t)n), 0);
	append_forged(f->log, NULL);
	rep = verify_with(f->log, seed);
	assert_int_equal(rep.problem, AUDIT_UNSEALED);
	assert_int_equal(rep.bad_line, 6);
	assert_int_equal(truncate(f->log, (off_t)n), 0);

	/* the key is ahead of a log cut by its last 2 lines: the chain goes on with a gap */
	assert_int_equal(truncate(f->log, (off_t)(strstr(strstr(strstr(copy, "\n") + 1, "\n") + 1, "\n") + 1 - copy)),
			 0);
	assert_int_equal(audit_log__open(f->log, f->key, &o, &res), 0);
	assert_int_equal(res.seq_gap, 2);
	write_alerts(o, 1);
	output__free(o);
	rep = verify_with(f->log, seed);
	assert_int_equal(rep.problem, AUDIT_REMOVED);
	assert_int_equal(rep.bad_line, 4);
}

static void test_audit_key_refuses_an_unkeyed_log(void **state)
{
	struct kfx *f = *state;
	struct pl_output *o;
	struct audit_resume res;

	assert_int_equal(audit_log__open(f->log, NULL, &o, NULL), 0);
	write_alerts(o, 1);
	output__free(o);
	assert_int_equal(audit_key__install(f->key, seed), 0);
	assert_int_equal(audit_log__open(f->log, f->key, &o, &res), -EKEYREJECTED);
	assert_int_equal(verify_with(f->log, seed).problem, AUDIT_UNSEALED);
	assert_int_equal(verify_with(f->log, NULL).keyed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_heads_parse_every_collector_form),
		cmocka_unit_test(test_audit_heads_parse_the_sensors_json_record),
		cmocka_unit_test(test_audit_heads_ignore_lookalikes),
		cmocka_unit_test(test_audit_heads_read_a_file_of_them),
		cmocka_unit_test(test_audit_key_evolves_as_specified),
		cmocka_unit_test_setup_teardown(test_audit_key_file_keeps_only_the_next_key, ksetup, kteardown),
		cmocka_unit_test_setup_teardown(test_audit_keyed_log_verifies_and_catches_forgery, ksetup, kteardown),
		cmocka_unit_test_setup_teardown(test_audit_key_refuses_an_unkeyed_log, ksetup, kteardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
