// SPDX-License-Identifier: MIT
/*
 * test_syslog.c - the syslog backend: the --syslog TARGET parser, the RFC
 * 5424 message byte for byte (SD escaping, SD-NAME rules, MSGID, the cut at
 * the size limit on a UTF-8 boundary), RFC 6587 octet framing over a real
 * TCP connection (a collector that does not read: partial frames stay queued
 * and are finished), and the buffer on a socket the test binds itself:
 * messages wait while the target is missing and go in order once it exists;
 * the newest are refused, counted and reported when it is full; what waits
 * at exit is counted lost; a RELP collector that never acknowledges costs a
 * write nothing, and its stall is counted and reported. The sending is a
 * thread's (syslog_sender.c), so the tests wait for its counters, with
 * generous deadlines.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "output.h"
#include "syslog_out.h"
#include "unit_helpers.h"

struct fixture {
	char dir[64];
	char path[96];
	int fd; /* our stand-in syslog daemon, -1 when none */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-unit-syslog-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/log", f->dir);
	f->fd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->fd >= 0)
		close(f->fd);
	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

static int bind_dgram(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static ssize_t recv_one(int fd, char *buf, size_t size, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	n = recv(fd, buf, size - 1, MSG_DONTWAIT);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* A typed alert as the sensor starts one (pl_alert__init()), with its
 * rule, output and severity; free() it. */
static struct pl_alert *alert(const char *rule, const char *output, int severity)
{
	static struct pl_alert_ids ids = { .instance = 1 };
	struct pl_alert *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	pl_alert__init(a, PL_ALERT_RULE, &ids, 0, rule, "Warning", severity);
	snprintf(a->output, sizeof(a->output), "%s", output);
	return a;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Flush o and read its counters into st until cond holds, failing after ms. */
#define WAIT_FOR(o, st, cond, ms)                                                                                      \
	do {                                                                                                           \
		long long deadline_ = now_ms() + (ms);                                                                 \
		for (;;) {                                                                                             \
			output__flush(o);                                                                              \
			syslog_output__stats((o), &(st));                                                              \
			if (cond)                                                                                      \
				break;                                                                                 \
			if (now_ms() > deadline_)                                                                      \
				fail_msg("timed out waiting for " #cond);                                              \
			usleep(2000);                                                                                  \
		}                                                                                                      \
	} while (0)

/* Open t and start its sender, as the sensor does. */
static struct pl_output *open_started(const struct pl_syslog_target *t, const struct pl_syslog_opts *opts)
{
	struct pl_output *o = NULL;

	assert_int_equal(syslog_output__open(t, opts, &o), 0);
	assert_int_equal(syslog_output__start(o), 0);
	return o;
}

static int write_alert(struct pl_output *o, const char *rule, const char *output, int severity)
{
	struct pl_alert *a = alert(rule, output, severity);
	int r = output__write_alert(o, a);

	free(a);
	return r;
}

static size_t fmt_alert(char *buf, size_t size, const struct pl_syslog_header *h, const struct pl_alert *a,
			bool *ret_cut)
{
	return syslog_format__5424(buf, size, h, &(struct pl_record){ .kind = PL_RECORD_ALERT, .alert = a }, ret_cut);
}

static size_t fmt_event(char *buf, size_t size, const struct pl_syslog_header *h, const char *type,
			struct json_object *body)
{
	const struct pl_event ev = { .type = type, .body = body };

	return syslog_format__5424(buf, size, h, &(struct pl_record){ .kind = PL_RECORD_EVENT, .event = &ev }, NULL);
}

/* The parameters of alert() after its rule and severity. */
#define TAIL_PARAMS                                                                                                    \
	" when=\"sensor\" pid=\"0\" suppressed_before=\"0\" regex_skipped=\"false\" rule_file=\"\" rule_line=\"0\""

struct heard {
	int failing, still, recovered, down, up;
	uint64_t lost;
	char why[sizeof(((struct pl_output *)0)->why)];
};

static void reporter(struct pl_output *o, enum pl_output_event ev, void *ctx)
{
	struct heard *h = ctx;

	if (ev == PL_OUTPUT_FAILING) {
		h->failing++;
		snprintf(h->why, sizeof(h->why), "%s", o->why);
	} else if (ev == PL_OUTPUT_STILL_FAILING) {
		h->still++;
	} else if (ev == PL_OUTPUT_DOWN) {
		h->down++;
	} else if (ev == PL_OUTPUT_UP) {
		h->up++;
	} else {
		h->recovered++;
		h->lost = output__lost(o);
	}
}

static const struct pl_syslog_header hdr = {
	.facility = LOG_DAEMON,
	.time_us = 1767582245123456, /* 2026-01-05T03:04:05.123456Z */
	.utc_off_min = 0,
	.hostname = "host1",
	.app_name = "plumbline",
	.procid = 42,
};

static const struct pl_syslog_opts opts_default = { .app_name = "plumbline", .facility = LOG_DAEMON };

static void test_syslog_target_parse(void **state)
{
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX }, keep;
	char msg[128], buf[300], longpath[200];
	static const char *const good[][2] = {
		{ "unix:/dev/log", "unix:/dev/log" },
		{ "tcp:logs.example.org:6514", "tcp:logs.example.org:6514" },
		{ "udp:192.0.2.7:514", "udp:192.0.2.7:514" },
		{ "relp:[2001:db8::1]:2514", "relp:[2001:db8::1]:2514" },
		{ "tcp:[::1]:00514", "tcp:[::1]:514" },
		{ "tls:logs.example:6514", "tls:logs.example:6514" },
		{ "relp+tls:[::1]:2514", "relp+tls:[::1]:2514" },
		{ "off", "off" },
	};
	static const char *const bad[] = {
		"tcp:logs:0",	   "tcp:logs:65536", "tcp:logs",	  "tcp::514",	    "tcp:::1:514",
		"udp:[::1]514",	   "relp:[]:514",    "tcp:lo gs:514", "tcp:logs:51x4", "tcp:logs:",
		"unix:dev/log",	   "unix:",	     "/dev/log",      "tls+relp:logs:6514", "tcp:[x]:514", "tls:logs",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(syslog_target__parse(good[i][0], &t, msg, sizeof(msg)), 0);
		syslog_target__format(&t, buf, sizeof(buf));
		assert_string_equal(buf, good[i][1]);
	}
	assert_int_equal(syslog_target__parse("relp:[2001:db8::1]:2514", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t.kind, PL_SYSLOG_RELP);
	assert_string_equal(t.host, "2001:db8::1");
	assert_string_equal(t.port, "2514");
	assert_int_equal(syslog_target__parse("udp:192.0.2.7:514", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t.kind, PL_SYSLOG_UDP);
	assert_string_equal(t.host, "192.0.2.7");

	keep = t;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		assert_int_equal(syslog_target__parse(bad[i], &t, msg, sizeof(msg)), -EINVAL);
		assert_true(msg[0] != '\0');
		assert_memory_equal(&t, &keep, sizeof(t)); /* untouched on failure */
	}
	assert_int_equal(syslog_target__parse("relp+tls:[::1]:2514", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t.kind, PL_SYSLOG_RELP_TLS);
	assert_int_equal(syslog_target__parse("tls+relp:logs:6514", &t, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "expected unix:PATH, tcp:HOST:PORT, udp:HOST:PORT, relp:HOST:PORT, tls:HOST:PORT, "
				 "relp+tls:HOST:PORT or off");
	assert_int_equal(syslog_target__parse("tcp:::1:514", &t, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "an IPv6 HOST is written in brackets: [ADDRESS]:PORT");
	snprintf(longpath, sizeof(longpath), "unix:/%0150d", 0);
	assert_int_equal(syslog_target__parse(longpath, &t, msg, sizeof(msg)), -EINVAL);
}

/* fuzz_syslog_fmt: "[86%1]" parsed, was written back unbracketed as
 * "tcp:86%1:514", which does not parse. Brackets hold an IPv6 address. */
static void test_syslog_target_in_brackets_must_be_ipv6_and_formats_back(void **state)
{
	static const char *const bad[] = { "tcp:[86%1]:514", "udp:[127.0.0.1]:514", "relp:[1.2]:2514" };
	struct pl_syslog_target t, back;
	char msg[128], buf[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		assert_int_equal(syslog_target__parse(bad[i], &t, msg, sizeof(msg)), -EINVAL);
		assert_string_equal(msg, "not an IPv6 address in brackets");
	}
	assert_int_equal(syslog_target__parse("tcp:[fe80::1%2]:514", &t, msg, sizeof(msg)), 0);
	syslog_target__format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "tcp:[fe80::1%2]:514");
	assert_int_equal(syslog_target__parse(buf, &back, msg, sizeof(msg)), 0);
	assert_string_equal(back.host, "fe80::1%2");
}

static void test_syslog_5424_exact_bytes_of_an_alert(void **state)
{
	static const char *const tags[] = { "storm" };
	struct pl_alert *a = alert("Open retry storm", "x failed 4800 opens/s", 4);
	struct pl_syslog_header h = hdr;
	char buf[PL_SYSLOG_MSG_MAX + 1];
	bool cut = true;
	size_t n;

	snprintf(a->id, sizeof(a->id), "a-1");
	a->time_ns = 1767582245123456789ull;
	a->when = "window";
	a->tags = tags;
	a->ntags = 1;
	a->pid = 77;
	a->exe = "/usr/bin/x";
	a->binary_id = "b1";
	a->suppressed_before = 2;
	a->rule_file = "/etc/plumbline/rules.d/r.yaml";
	a->rule_line = 12;
	n = fmt_alert(buf, sizeof(buf), &h, a, &cut);
	assert_string_equal(buf, "<28>1 2026-01-05T03:04:05.123456+00:00 host1 plumbline 42 alert "
				 "[plumbline@32473 id=\"a-1\" time_ns=\"1767582245123456789\" rule=\"Open retry storm\" "
				 "priority=\"Warning\" severity=\"4\" when=\"window\" pid=\"77\" exe=\"/usr/bin/x\" "
				 "binary_id=\"b1\" suppressed_before=\"2\" regex_skipped=\"false\" "
				 "rule_file=\"/etc/plumbline/rules.d/r.yaml\" rule_line=\"12\"] [WARNING] id=a-1 x failed "
				 "4800 opens/s");
	assert_int_equal(n, strlen(buf));
	assert_false(cut);

	/* an unknown exe and binary are left out, as the record's nulls are */
	a->exe = NULL;
	a->binary_id = NULL;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_non_null(strstr(buf, " pid=\"77\" suppressed_before=\"2\" "));

	/* severity 0 (Emergency) with facility local0; an offset west of UTC; no hostname, no pid */
	a->severity = 0;
	h.facility = LOG_LOCAL0;
	h.utc_off_min = -330;
	h.hostname = "bad host";
	h.procid = 0;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<128>1 2026-01-04T21:34:05.123456-05:30 - plumbline - alert [", 61);
	/* a severity out of range is Warning */
	a->severity = 9;
	h.facility = LOG_DAEMON;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<28>1 ", 6);
	free(a);
}

/* A summary: MSGID alert-summary, its output a parameter, no MSG. */
static void test_syslog_5424_summary_output_is_a_parameter(void **state)
{
	struct pl_alert a;
	struct pl_alert_ids ids = { .instance = 0xab };
	char buf[PL_SYSLOG_MSG_MAX + 1];

	pl_alert__init(&a, PL_ALERT_SUMMARY, &ids, 5, "r", "Notice", 5);
	snprintf(a.output, sizeof(a.output), "3 more alerts of r for /bin/x held back (repeats of alert x-1)");
	a.exe = "/bin/x";
	a.summary = (struct pl_alert_summary){ .alert_id = "x-1", .count = 3, .first_ns = 6, .last_ns = 7,
					       .window_start_ns = 1, .window_end_ns = 9, .reason = "window_end" };
	fmt_alert(buf, sizeof(buf), &hdr, &a, NULL);
	assert_string_equal(buf, "<29>1 2026-01-05T03:04:05.123456+00:00 host1 plumbline 42 alert-summary "
				 "[plumbline@32473 id=\"00000000000000ab-0000000000000001\" time_ns=\"5\" rule=\"r\" "
				 "priority=\"Notice\" severity=\"5\" output=\"3 more alerts of r for /bin/x held back "
				 "(repeats of alert x-1)\" alert_id=\"x-1\" exe=\"/bin/x\" count=\"3\" first_ns=\"6\" "
				 "last_ns=\"7\" window_start_ns=\"1\" window_end_ns=\"9\" reason=\"window_end\"] "
				 "[NOTICE] id=00000000000000ab-0000000000000001 3 more alerts of r for /bin/x held back "
				 "(repeats of alert x-1)");
	/* the rule's desc is a parameter, after rule_line, its folded newline dropped */
	pl_alert__init(&a, PL_ALERT_RULE, &ids, 5, "r", "Notice", 5);
	a.desc = "A \"quoted\" desc\n";
	snprintf(a.output, sizeof(a.output), "o");
	fmt_alert(buf, sizeof(buf), &hdr, &a, NULL);
	assert_non_null(strstr(buf, " rule_line=\"0\" rule_desc=\"A \\\"quoted\\\" desc\"] "
				    "[NOTICE] id=00000000000000ab-0000000000000002 o"));
	/* an empty output: MSG is the lead alone, nothing after the id */
	a.output[0] = '\0';
	fmt_alert(buf, sizeof(buf), &hdr, &a, NULL);
	assert_non_null(strstr(buf, "\"] [NOTICE] id=00000000000000ab-0000000000000002"));
	assert_int_equal(buf[strlen(buf) - 1], '2');
}

static void test_syslog_5424_sd_escaping_is_rfc5424s(void **state)
{
	struct pl_alert *a = alert("r", "m \"q\" ]\\ \x07", 4);
	struct json_object *r = json_object_new_object();
	char buf[PL_SYSLOG_MSG_MAX + 1];

	/* '"', '\' and ']' get a backslash; a control byte, a C1 control and a
	 * byte of invalid UTF-8 become \xNN; valid UTF-8 stays: a record's JSON
	 * that skipped text_escape() is made safe here too */
	json_object_object_add(r, "exe", json_object_new_string("/t/q\"b\\s]e\nE\x1b\xff\xc3\xa9\xc2\x85]"));
	fmt_event(buf, sizeof(buf), &hdr, "test", r);
	assert_string_equal(strchr(buf, '['), "[plumbline@32473 exe=\"/t/q\\\"b\\\\s\\]e\\x0AE\\x1B\\xFF\xc3\xa9\\xC2\\x85\\]\"]");
	/* an alert's raw strings are escaped as its JSON record has them
	 * (text_escape()), then as a PARAM-VALUE; its MSG is made safe too */
	a->exe = "/t/q\"b\\s]e\nE\x1b\xff\xc3\xa9\xc2\x85]";
	fmt_alert(buf, sizeof(buf), &hdr, a, NULL);
	assert_non_null(strstr(buf, " exe=\"/t/q\\\"b\\\\x5Cs\\]e\\\\x0AE\\\\x1B\\\\xFF\xc3\xa9\\\\xC2\\\\x85\\]\" "));
	assert_non_null(strstr(buf, "\"] [WARNING] id="));
	assert_non_null(strstr(buf, " m \"q\" ]\\ \\x07"));
	json_object_put(r);
	free(a);
}

/* Found by fuzz_syslog_fmt: a time near the end of int64 plus the UTC
 * offset overflowed (undefined behaviour, caught by UBSan). A time or an
 * offset no TIMESTAMP can say is the NILVALUE "-"; the years 0000-9999 are
 * written. */
static void test_syslog_5424_time_out_of_range_is_nil_not_overflow(void **state)
{
	struct pl_alert *a = alert("r", "", 4);
	struct pl_syslog_header h = hdr;
	char buf[PL_SYSLOG_MSG_MAX + 1];

	h.utc_off_min = 60;
	h.time_us = INT64_MAX;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<28>1 - host1 ", 14);
	h.time_us = INT64_MIN;
	h.utc_off_min = -60;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<28>1 - host1 ", 14);
	/* an offset of a day or more is no offset */
	h.time_us = 0;
	h.utc_off_min = 24 * 60;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<28>1 - host1 ", 14);
	/* the last microsecond of 9999, and the first of year 0 */
	h.utc_off_min = 0;
	h.time_us = 253402300799999999LL;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<28>1 9999-12-31T23:59:59.999999+00:00 host1 ", 45);
	h.time_us = -62167219200LL * 1000000;
	fmt_alert(buf, sizeof(buf), &h, a, NULL);
	assert_memory_equal(buf, "<28>1 0000-01-01T00:00:00.000000+00:00 host1 ", 45);
	free(a);
}

static void test_syslog_sd_name_rules(void **state)
{
	struct json_object *r = json_object_new_object();
	char buf[PL_SYSLOG_MSG_MAX + 1];

	assert_true(syslog_sd_name__valid("rule"));
	assert_true(syslog_sd_name__valid("binary_id"));
	assert_true(syslog_sd_name__valid("a.b-c@d!~"));
	assert_true(syslog_sd_name__valid("abcdefghijklmnopqrstuvwxyz012345")); /* 32 */
	assert_false(syslog_sd_name__valid("abcdefghijklmnopqrstuvwxyz0123456")); /* 33 */
	assert_false(syslog_sd_name__valid(""));
	assert_false(syslog_sd_name__valid("a=b"));
	assert_false(syslog_sd_name__valid("a b"));
	assert_false(syslog_sd_name__valid("a]"));
	assert_false(syslog_sd_name__valid("a\""));
	assert_false(syslog_sd_name__valid("\xc3\xa9"));
	assert_false(syslog_sd_name__valid("a\x7f"));
	assert_false(syslog_sd_name__valid("a\tb"));

	/* a record's field whose name can't be an SD-NAME is left out; the
	 * MSGID is the type with '_' as '-', and other records carry no MSG */
	json_object_object_add(r, "type", json_object_new_string("audit_head"));
	json_object_object_add(r, "seq", json_object_new_uint64(12));
	json_object_object_add(r, "bad name", json_object_new_string("x"));
	json_object_object_add(r, "a=b", json_object_new_string("x"));
	json_object_object_add(r, "hash", json_object_new_string("9f86d0"));
	json_object_object_add(r, "output", json_object_new_string("kept: not an alert"));
	json_object_object_add(r, "chain", json_object_new_object());
	fmt_event(buf, sizeof(buf), &hdr, "audit_head", r);
	assert_string_equal(buf, "<28>1 2026-01-05T03:04:05.123456+00:00 host1 plumbline 42 audit-head "
				 "[plumbline@32473 seq=\"12\" hash=\"9f86d0\" output=\"kept: not an alert\"]");
	/* no type, or one that can't be a MSGID: the NILVALUE */
	json_object_object_add(r, "type", json_object_new_string("a b"));
	fmt_event(buf, sizeof(buf), &hdr, "a b", r);
	assert_non_null(strstr(buf, " 42 - [plumbline@32473 "));
	json_object_put(r);
}

/* Is s valid UTF-8? */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = s[i] < 0x80 ? 1 : (s[i] & 0xe0) == 0xc0 ? 2 : (s[i] & 0xf0) == 0xe0 ? 3 : (s[i] & 0xf8) == 0xf0 ? 4 : 0;

		if (k == 0 || i + k > n)
			return false;
		for (size_t j = 1; j < k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
		i += k;
	}
	return true;
}

static void test_syslog_5424_cut_at_the_limit_on_a_utf8_boundary(void **state)
{
	struct pl_alert *a = alert("r", "", 4);
	char buf[PL_SYSLOG_MSG_MAX + 64], *big = malloc(9001);
	bool cut = false;
	size_t n, off = 0;

	assert_non_null(big);
	/* a long exe and an output of euro signs (3 bytes each) past the limit */
	memset(big, 'x', 5000);
	big[5000] = '\0';
	a->exe = big;
	while (off + 3 < sizeof(a->output)) {
		memcpy(a->output + off, "\xe2\x82\xac", 3);
		off += 3;
	}
	a->output[off] = '\0';
	/* MSG is cut first, at a character boundary */
	n = fmt_alert(buf, sizeof(buf), &hdr, a, &cut);
	assert_true(cut);
	assert_true(n <= PL_SYSLOG_MSG_MAX && n > PL_SYSLOG_MSG_MAX - 3);
	assert_int_equal(strlen(buf), n);
	assert_true(valid_utf8((unsigned char *)buf, n));
	assert_memory_equal(buf + n - 3, "\xe2\x82\xac", 3);
	assert_non_null(strstr(buf, " rule_line=\"0\"] [WARNING] id="));
	assert_non_null(strstr(buf, " \xe2\x82\xac\xe2\x82\xac"));

	/* an SD value too long: cut there, never inside an escape, the
	 * element still closed, and nothing after it */
	memset(big, '"', 9000);
	big[9000] = '\0';
	n = fmt_alert(buf, sizeof(buf), &hdr, a, &cut);
	assert_true(cut);
	assert_true(n <= PL_SYSLOG_MSG_MAX && n >= PL_SYSLOG_MSG_MAX - 2);
	assert_memory_equal(buf + n - 4, "\\\"\"]", 4); /* ...\"  then the closing "] */
	assert_null(strstr(buf, "suppressed_before="));
	assert_null(strstr(buf, "] "));	/* no room left for MSG */

	/* a small buffer is a limit too */
	n = fmt_alert(buf, 90, &hdr, a, &cut);
	assert_true(cut);
	assert_true(n <= 89);
	assert_int_equal(buf[n - 1], ']');
	free(big);
	free(a);
}

static void test_syslog_octet_counting_prefix(void **state)
{
	char buf[16];

	assert_int_equal(syslog_frame__octet_prefix(buf, sizeof(buf), 0), 2);
	assert_string_equal(buf, "0 ");
	assert_int_equal(syslog_frame__octet_prefix(buf, sizeof(buf), 8192), 5);
	assert_string_equal(buf, "8192 ");
}

static void test_syslog_unix_one_datagram_per_alert(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_output *o;
	struct pl_syslog_stats st;
	char buf[1024], want[256];

	f->fd = bind_dgram(f->path);
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	o = open_started(&t, &opts_default);
	WAIT_FOR(o, st, st.state == PL_SYSLOG_CONNECTED, 5000);
	assert_false(o->failing);
	assert_false(o->down);
	assert_int_equal(write_alert(o, "Open retry storm", "x failed 4800 opens/s", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 5000) > 0);
	assert_memory_equal(buf, "<28>1 ", 6);
	snprintf(want, sizeof(want), " plumbline %d alert [plumbline@32473 id=\"", (int)getpid());
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), " rule=\"Open retry storm\" priority=\"Warning\" severity=\"4\"" TAIL_PARAMS
				     "] [WARNING] id=");
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), " x failed 4800 opens/s");
	assert_non_null(strstr(buf, want));
	assert_int_equal(recv_one(f->fd, buf, sizeof(buf), 50), -1); /* exactly one */
	WAIT_FOR(o, st, st.sent == 1, 5000);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.outages, 0);
	assert_int_equal(o->written, 1);
	assert_int_equal(o->dropped, 0);
	output__free(o);
}

static void test_syslog_unix_missing_socket_queues_then_delivers_in_order(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_output *o = NULL;
	struct pl_syslog_stats st;
	struct heard h = { 0 };
	char buf[1024], want[160];

	snprintf(t.path, sizeof(t.path), "%s", f->path);
	assert_int_equal(syslog_output__open(&t, &opts_default, &o), 0);
	output__set_reporter(o, reporter, &h);
	assert_int_equal(syslog_output__start(o), 0);
	WAIT_FOR(o, st, st.connect_failures == 1, 5000);
	assert_int_equal(st.state, PL_SYSLOG_DISCONNECTED);
	snprintf(want, sizeof(want), "%s does not exist", f->path);
	assert_string_equal(st.why, want);
	/* the outage is said once, at its start, with the reason */
	assert_int_equal(h.down, 1);
	assert_string_equal(h.why, "");
	assert_string_equal(o->why, want);
	for (int i = 0; i < 5; i++) {
		snprintf(buf, sizeof(buf), "alert %d", i);
		assert_int_equal(write_alert(o, "r", buf, 4), 0);
	}
	syslog_output__stats(o, &st);
	assert_int_equal(st.queued, 5);
	assert_int_equal(st.sent, 0);
	assert_int_equal(o->dropped, 0);
	assert_int_equal(h.failing, 0); /* nothing lost: no loss to report */

	/* the daemon appears; the next attempt is a second after the first */
	f->fd = bind_dgram(f->path);
	for (int i = 0; i < 5; i++) {
		assert_true(recv_one(f->fd, buf, sizeof(buf), 5000) > 0);
		snprintf(want, sizeof(want), " alert %d", i);
		assert_non_null(strstr(buf, want));
	}
	WAIT_FOR(o, st, st.sent == 5 && h.up == 1, 5000);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.connects, 1);
	assert_int_equal(st.connect_failures, 1); /* the first attempt; none within its second */
	assert_int_equal(st.outages, 1);
	assert_int_equal(st.state, PL_SYSLOG_CONNECTED);
	assert_int_equal(h.down, 1);
	output__free(o);
}

static void test_syslog_full_buffer_drops_the_newest_counts_and_reports(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_syslog_opts opts = opts_default;
	struct pl_output *o = NULL;
	struct pl_syslog_stats st;
	struct heard h = { 0 };
	char buf[1024];

	opts.buffer_msgs = 3;
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	assert_int_equal(syslog_output__open(&t, &opts, &o), 0);
	output__set_reporter(o, reporter, &h);
	assert_int_equal(syslog_output__start(o), 0);
	WAIT_FOR(o, st, st.connect_failures == 1, 5000);
	for (int i = 0; i < 5; i++) {
		snprintf(buf, sizeof(buf), "alert %d", i);
		assert_int_equal(write_alert(o, "r", buf, 4), i < 3 ? 0 : -ENOBUFS);
	}
	assert_int_equal(o->dropped, 2);
	assert_int_equal(h.failing, 1);
	assert_non_null(strstr(h.why, "the syslog buffer is full (3 messages, "));
	assert_non_null(strstr(h.why, "does not exist"));
	syslog_output__stats(o, &st);
	assert_int_equal(st.dropped_overflow, 2);
	assert_int_equal(st.queued, 3);

	f->fd = bind_dgram(f->path);
	WAIT_FOR(o, st, st.queued == 0, 5000);
	assert_int_equal(write_alert(o, "r", "alert 5", 4), 0);
	for (int i = 0; i < 6; i++) {
		char want[32];

		if (i == 3 || i == 4)
			continue; /* refused */
		assert_true(recv_one(f->fd, buf, sizeof(buf), 5000) > 0);
		snprintf(want, sizeof(want), " alert %d", i);
		assert_non_null(strstr(buf, want));
	}
	assert_int_equal(recv_one(f->fd, buf, sizeof(buf), 50), -1);
	assert_int_equal(h.recovered, 1);
	assert_int_equal(h.lost, 2);
	output__free(o);
}

static void test_syslog_daemon_restart_loses_nothing_and_backs_off(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_output *o;
	struct pl_syslog_stats st;
	char buf[1024];
	long long t0;

	f->fd = bind_dgram(f->path);
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	o = open_started(&t, &opts_default);
	assert_int_equal(write_alert(o, "r", "one", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 5000) > 0);
	/* the daemon restarts: a new socket at the same path, the old one gone;
	 * even a connection that delivered waits the backoff (1 s) before the next */
	close(f->fd);
	f->fd = bind_dgram(f->path);
	t0 = now_ms();
	assert_int_equal(write_alert(o, "r", "two", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 5000) > 0);
	assert_true(now_ms() - t0 >= 900);
	assert_non_null(strstr(buf, "] [WARNING] id="));
	assert_non_null(strstr(buf, " two"));
	/* gone again, nobody listens: it waits, and is lost (counted) at exit */
	close(f->fd);
	f->fd = -1;
	assert_int_equal(write_alert(o, "r", "three", 4), 0);
	WAIT_FOR(o, st, st.state == PL_SYSLOG_DISCONNECTED && strstr(st.why, "nobody listens on"), 5000);
	assert_int_equal(st.queued, 1);
	assert_int_equal(st.reconnects, 1);
	assert_int_equal(syslog_output__drain(o, 300, NULL), 1);
	syslog_output__stats(o, &st);
	assert_int_equal(st.dropped_at_exit, 1);
	assert_int_equal(st.queued, 0);
	assert_int_equal(o->dropped, 1);
	/* closed: what comes after is refused and counted */
	assert_int_equal(write_alert(o, "r", "four", 4), -ESHUTDOWN);
	syslog_output__stats(o, &st);
	assert_int_equal(st.dropped_at_exit, 2);
	assert_int_equal(o->dropped, 2);
	output__free(o);
}

/* A TCP collector that does not read: frames queue, partial writes are
 * finished later, and every frame arrives whole, in order, octet-counted. */
static void test_syslog_tcp_octet_frames_survive_a_slow_collector(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t slen = sizeof(sa);
	struct pl_syslog_target t = { .kind = PL_SYSLOG_TCP };
	struct pl_output *o = NULL;
	struct pl_syslog_stats st;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), cfd, n = 0, rcvbuf = 4096;
	char *text = malloc(2000), *got = NULL;
	size_t glen = 0, gcap = 0;

	assert_true(lfd >= 0);
	assert_non_null(text);
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &slen), 0);
	snprintf(t.host, sizeof(t.host), "127.0.0.1");
	snprintf(t.port, sizeof(t.port), "%u", ntohs(sa.sin_port));
	o = open_started(&t, &opts_default);
	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(cfd >= 0);
	/* write until the connection is full and messages wait (the sender
	 * connects meanwhile: until then everything waits) */
	do {
		snprintf(text, 2000, "alert %05d %01800d", n, 0);
		assert_int_equal(write_alert(o, "r", text, 4), 0);
		syslog_output__stats(o, &st);
		n++;
		if (st.queued >= 20)
			usleep(1000); /* the sender's turn */
	} while (!(st.queued >= 20 && st.state == PL_SYSLOG_CONNECTED && st.sent > 0) && n < 20000);
	assert_true(st.queued >= 20);
	assert_int_equal(st.state, PL_SYSLOG_CONNECTED);
	/* the collector reads now; flushes finish what waits (then what is
	 * still in the kernels' buffers is read until 300 ms of silence) */
	for (int idle = 0; idle < 300;) {
		char chunk[65536];
		ssize_t r;

		output__flush(o);
		r = recv(cfd, chunk, sizeof(chunk), MSG_DONTWAIT);
		if (r > 0) {
			if (glen + (size_t)r > gcap) {
				gcap = (glen + (size_t)r) * 2;
				got = realloc(got, gcap);
				assert_non_null(got);
			}
			memcpy(got + glen, chunk, (size_t)r);
			glen += (size_t)r;
			idle = 0;
			continue;
		}
		syslog_output__stats(o, &st);
		if (st.queued == 0)
			idle++;
		usleep(1000);
	}
	syslog_output__stats(o, &st);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.sent, n);
	/* parse the frames: LEN SP MSG, every one whole and in order */
	{
		size_t off = 0;
		int i = 0;

		while (off < glen) {
			char *end, want[32];
			unsigned long len = strtoul(got + off, &end, 10);

			assert_true(end > got + off && *end == ' ');
			off = (size_t)(end - got) + 1;
			assert_true(off + len <= glen);
			assert_memory_equal(got + off, "<28>1 ", 6);
			snprintf(want, sizeof(want), " alert %05d ", i);
			assert_non_null(memmem(got + off, len, want, strlen(want)));
			off += len;
			i++;
		}
		assert_int_equal(i, n);
	}
	output__free(o);
	close(cfd);
	close(lfd);
	free(text);
	free(got);
}

/* A RELP collector that opens every session and acknowledges nothing. */
struct never_ack {
	int lfd;
	volatile int stop;
};

static void *never_ack_main(void *arg)
{
	static const char offer[] = "200 OK\nrelp_version=0\nrelp_software=never-acks\ncommands=syslog";
	struct never_ack *na = arg;

	while (!na->stop) {
		struct pollfd p = { .fd = na->lfd, .events = POLLIN };
		char buf[65536], rsp[128];
		bool opened = false;
		int c;

		if (poll(&p, 1, 100) != 1)
			continue;
		c = accept4(na->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		/* the client's first frame is "1 open ...": answer it, then only read */
		for (;;) {
			struct pollfd q = { .fd = c, .events = POLLIN };
			ssize_t n;

			if (na->stop)
				break;
			if (poll(&q, 1, 100) != 1)
				continue;
			n = recv(c, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			if (!opened && memmem(buf, (size_t)n, " open ", 6)) {
				int len = snprintf(rsp, sizeof(rsp), "1 rsp %zu %s\n", sizeof(offer) - 1, offer);

				if (send(c, rsp, (size_t)len, MSG_NOSIGNAL) != len)
					break;
				opened = true;
			}
		}
		close(c);
	}
	return NULL;
}

static void test_syslog_relp_collector_that_never_acks_costs_a_write_nothing(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t slen = sizeof(sa);
	struct pl_syslog_target t = { .kind = PL_SYSLOG_RELP };
	struct never_ack na = { .lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) };
	struct pl_output *o = NULL;
	struct pl_syslog_stats st;
	struct heard h = { 0 };
	long long worst = 0, t0;
	pthread_t th;

	(void)state;
	assert_true(na.lfd >= 0);
	assert_int_equal(bind(na.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(na.lfd, 8), 0);
	assert_int_equal(getsockname(na.lfd, (struct sockaddr *)&sa, &slen), 0);
	assert_int_equal(pthread_create(&th, NULL, never_ack_main, &na), 0);
	snprintf(t.host, sizeof(t.host), "127.0.0.1");
	snprintf(t.port, sizeof(t.port), "%u", ntohs(sa.sin_port));
	assert_int_equal(syslog_output__open(&t, &opts_default, &o), 0);
	output__set_reporter(o, reporter, &h);
	assert_int_equal(syslog_output__start(o), 0);
	WAIT_FOR(o, st, st.state == PL_SYSLOG_CONNECTED, 10000);
	/* past librelp's window of 128: each of these would wait 2 s on the caller */
	for (int i = 0; i < 300; i++) {
		t0 = now_ms();
		assert_int_equal(write_alert(o, "r", "an alert", 4), 0);
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
	}
	assert_true(worst < 100);
	/* the window fills, a send waits out its 2 s: a stall, counted, and an outage said with it */
	WAIT_FOR(o, st, st.stalls >= 1 && h.down == 1, 15000);
	assert_non_null(strstr(o->why, "a stall"));
	assert_true(st.sent >= 128 && st.sent < 300);
	assert_int_equal(st.queued, 300 - st.sent);
	assert_int_equal(o->dropped, 0);
	assert_int_equal(h.up, 0);
	t0 = now_ms();
	output__free(o); /* a stop with no time to drain: bounded, never hangs */
	assert_true(now_ms() - t0 < 3 * 1000 + PL_SYSLOG_STOP_GRACE_MS);
	na.stop = 1;
	pthread_join(th, NULL);
	close(na.lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syslog_target_parse),
		cmocka_unit_test(test_syslog_target_in_brackets_must_be_ipv6_and_formats_back),
		cmocka_unit_test(test_syslog_5424_exact_bytes_of_an_alert),
		cmocka_unit_test(test_syslog_5424_summary_output_is_a_parameter),
		cmocka_unit_test(test_syslog_5424_sd_escaping_is_rfc5424s),
		cmocka_unit_test(test_syslog_5424_time_out_of_range_is_nil_not_overflow),
		cmocka_unit_test(test_syslog_sd_name_rules),
		cmocka_unit_test(test_syslog_5424_cut_at_the_limit_on_a_utf8_boundary),
		cmocka_unit_test(test_syslog_octet_counting_prefix),
		cmocka_unit_test_setup_teardown(test_syslog_unix_one_datagram_per_alert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syslog_unix_missing_socket_queues_then_delivers_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_syslog_full_buffer_drops_the_newest_counts_and_reports, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_syslog_daemon_restart_loses_nothing_and_backs_off, setup, teardown),
		cmocka_unit_test(test_syslog_tcp_octet_frames_survive_a_slow_collector),
		cmocka_unit_test(test_syslog_relp_collector_that_never_acks_costs_a_write_nothing),
	};

	return cmocka_run_group_tests_name("syslog", tests, NULL, NULL);
}
