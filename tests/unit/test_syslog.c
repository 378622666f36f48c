// SPDX-License-Identifier: MIT
/*
 * test_syslog.c - the syslog backend: the --syslog TARGET parser, the
 * format syslog(3) sends to /dev/log, and the sender on a socket the test
 * binds itself: one datagram per alert, every undelivered alert counted,
 * a regular file in the socket's place said once, and delivery resuming
 * (at most one connect attempt a second) with the loss reported.
 */
#include <errno.h>
#include <poll.h>
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

static struct json_object *alert(const char *rule, const char *output, int severity)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("alert"));
	json_object_object_add(o, "rule", json_object_new_string(rule));
	json_object_object_add(o, "output", json_object_new_string(output));
	json_object_object_add(o, "severity", json_object_new_int(severity));
	return o;
}

static int write_alert(struct pl_output *o, const char *rule, const char *output, int severity)
{
	struct json_object *a = alert(rule, output, severity);
	int r = output__write(o, a);

	json_object_put(a);
	return r;
}

struct heard {
	int failing, still, recovered;
	uint64_t lost;
	char why[192];
};

static void reporter(struct pl_output *o, enum pl_output_event ev, void *ctx)
{
	struct heard *h = ctx;

	if (ev == PL_OUTPUT_FAILING) {
		h->failing++;
		snprintf(h->why, sizeof(h->why), "%s", o->why);
	} else if (ev == PL_OUTPUT_STILL_FAILING) {
		h->still++;
	} else {
		h->recovered++;
		h->lost = output__lost(o);
	}
}

static void test_syslog_target_parse(void **state)
{
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX }, keep;
	char msg[128], buf[160], longpath[200];

	assert_int_equal(syslog_target__parse("unix:/dev/log", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t.kind, PL_SYSLOG_UNIX);
	assert_string_equal(t.path, "/dev/log");
	syslog_target__format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "unix:/dev/log");
	assert_int_equal(syslog_target__parse("off", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t.kind, PL_SYSLOG_OFF);
	syslog_target__format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "off");

	keep = t;
	assert_int_equal(syslog_target__parse("tcp:logs:514", &t, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "expected unix:PATH or off");
	assert_int_equal(syslog_target__parse("unix:dev/log", &t, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "absolute"));
	assert_int_equal(syslog_target__parse("unix:", &t, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(syslog_target__parse("/dev/log", &t, msg, sizeof(msg)), -EINVAL);
	snprintf(longpath, sizeof(longpath), "unix:/%0150d", 0);
	assert_int_equal(syslog_target__parse(longpath, &t, msg, sizeof(msg)), -EINVAL);
	assert_memory_equal(&t, &keep, sizeof(t)); /* untouched on failure */
}

static void test_syslog_format_is_syslog3s(void **state)
{
	char buf[256];
	size_t n;

	setenv("TZ", "UTC", 1);
	tzset();
	/* 2026-01-05 03:04:05 UTC: a one-digit day is space-padded */
	n = syslog_format__local(buf, sizeof(buf), LOG_DAEMON, LOG_WARNING, 1767582245, "plumbline", 42,
				 "rule: output");
	assert_string_equal(buf, "<28>Jan  5 03:04:05 plumbline[42]: rule: output");
	assert_int_equal(n, strlen(buf));
	syslog_format__local(buf, sizeof(buf), LOG_DAEMON, LOG_EMERG, 1767582245 + 20 * 86400, "x", 1, "m");
	assert_string_equal(buf, "<24>Jan 25 03:04:05 x[1]: m");
	/* control bytes never reach the log: a message is one line */
	syslog_format__local(buf, sizeof(buf), LOG_DAEMON, LOG_NOTICE, 1767582245, "p", 7, "a\r\nb\x1b\x7f\"c");
	assert_string_equal(buf, "<29>Jan  5 03:04:05 p[7]: a\\x0D\\x0Ab\\x1B\\x7F\"c");
	/* cut to the buffer, never in the middle of an escape */
	n = syslog_format__local(buf, 30, LOG_DAEMON, LOG_NOTICE, 1767582245, "p", 7, "ab\ncdef");
	assert_string_equal(buf, "<29>Jan  5 03:04:05 p[7]: ab");
	assert_int_equal(n, 28);
}

static void test_syslog_one_datagram_per_alert(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_output *o = NULL;
	struct heard h = { 0 };
	char buf[1024], want[128];

	f->fd = bind_dgram(f->path);
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	assert_int_equal(syslog_output__open(&t, "plumbline", LOG_DAEMON, &o), 0);
	output__set_reporter(o, reporter, &h);
	assert_false(o->failing);
	assert_int_equal(h.failing, 0);
	assert_int_equal(write_alert(o, "Open retry storm", "x failed 4800 opens/s", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 1000) > 0);
	assert_memory_equal(buf, "<28>", 4);
	snprintf(want, sizeof(want), " plumbline[%d]: Open retry storm: x failed 4800 opens/s", (int)getpid());
	assert_string_equal(buf + 19, want);
	assert_int_equal(recv_one(f->fd, buf, sizeof(buf), 50), -1); /* exactly one */
	assert_int_equal(o->written, 1);
	assert_int_equal(o->dropped, 0);
	output__free(o);
}

static void test_syslog_regular_file_said_once_counted_and_recovered(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_output *o = NULL;
	struct heard h = { 0 };
	char buf[1024], why[256];
	FILE *file = fopen(f->path, "we");

	assert_non_null(file);
	fclose(file);
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	assert_int_equal(syslog_output__open(&t, "plumbline", LOG_DAEMON, &o), 0);
	assert_true(o->failing);
	output__set_reporter(o, reporter, &h);
	assert_int_equal(h.failing, 1); /* said at once, not at the first alert */
	snprintf(why, sizeof(why), "%s is a regular file, not a socket", f->path);
	assert_string_equal(h.why, why);

	for (int i = 0; i < 5; i++)
		assert_int_equal(write_alert(o, "r", "o", 4), -ENOTSOCK);
	assert_int_equal(o->dropped, 5);
	assert_int_equal(o->written, 0);
	assert_int_equal(h.failing, 1);

	/* the socket appears; within the second since the last try, no connect */
	f->fd = bind_dgram(f->path);
	assert_int_equal(write_alert(o, "r", "o", 4), -ENOTSOCK);
	assert_int_equal(recv_one(f->fd, buf, sizeof(buf), 50), -1);
	usleep(1100000);
	assert_int_equal(write_alert(o, "r", "back", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 1000) > 0);
	assert_non_null(strstr(buf, ": r: back"));
	assert_int_equal(h.recovered, 1);
	assert_int_equal(h.lost, 6);
	assert_int_equal(o->dropped, 6);
	assert_int_equal(o->written, 1);
	assert_int_equal(h.failing, 1);
	output__free(o);
}

static void test_syslog_daemon_restart_reconnects(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX };
	struct pl_output *o = NULL;
	struct heard h = { 0 };
	char buf[1024];

	f->fd = bind_dgram(f->path);
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	assert_int_equal(syslog_output__open(&t, "plumbline", LOG_DAEMON, &o), 0);
	output__set_reporter(o, reporter, &h);
	assert_int_equal(write_alert(o, "r", "one", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 1000) > 0);
	/* the daemon restarts: a new socket at the same path, the old one gone */
	close(f->fd);
	f->fd = bind_dgram(f->path);
	usleep(1100000); /* a second since the last connect: reconnect at once */
	assert_int_equal(write_alert(o, "r", "two", 4), 0);
	assert_true(recv_one(f->fd, buf, sizeof(buf), 1000) > 0);
	assert_non_null(strstr(buf, ": r: two"));
	assert_int_equal(o->dropped, 0);
	assert_int_equal(h.failing, 0);
	/* gone again, and nobody listens now */
	close(f->fd);
	f->fd = -1;
	assert_int_equal(write_alert(o, "r", "three", 4), -ECONNREFUSED);
	assert_int_equal(h.failing, 1);
	assert_non_null(strstr(h.why, "went away"));
	/* a second later the path is looked at again: a socket nobody reads */
	usleep(1100000);
	assert_int_equal(write_alert(o, "r", "four", 4), -ECONNREFUSED);
	assert_non_null(strstr(o->why, "nobody listens on"));
	assert_int_equal(h.failing, 1);
	assert_int_equal(o->dropped, 2);
	output__free(o);
}

static void test_syslog_missing_target_and_off(void **state)
{
	struct fixture *f = *state;
	struct pl_syslog_target t = { .kind = PL_SYSLOG_UNIX }, off = { .kind = PL_SYSLOG_OFF };
	struct pl_output *o = NULL, sentinel, *keep = &sentinel;
	char why[256];

	snprintf(t.path, sizeof(t.path), "%s", f->path);
	assert_int_equal(syslog_output__open(&t, "plumbline", LOG_DAEMON, &o), 0);
	assert_true(o->failing);
	assert_int_equal(o->last_err, -ENOENT);
	snprintf(why, sizeof(why), "%s does not exist", f->path);
	assert_string_equal(o->why, why);
	output__free(o);
	assert_int_equal(syslog_output__open(&off, "plumbline", LOG_DAEMON, &keep), -EINVAL);
	assert_ptr_equal(keep, &sentinel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syslog_target_parse),
		cmocka_unit_test(test_syslog_format_is_syslog3s),
		cmocka_unit_test_setup_teardown(test_syslog_one_datagram_per_alert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syslog_regular_file_said_once_counted_and_recovered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_syslog_daemon_restart_reconnects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syslog_missing_target_and_off, setup, teardown),
	};

	return cmocka_run_group_tests_name("syslog", tests, NULL, NULL);
}
