// SPDX-License-Identifier: MIT
/*
 * test_features.c - the feature probes name the real reason a probe failed.
 *
 * Without privileges every bpf(2) call is refused with EPERM, whatever the
 * kernel supports; a diagnostic that then says "needs Linux 5.8+" sends the
 * operator to upgrade a kernel that is fine. The real binary runs here as an
 * unprivileged user (nobody) and as root with every capability dropped, both
 * through setpriv(1) from util-linux: `features` and `run` must say that
 * privileges are missing and never blame the kernel's version.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"

#define SETPRIV "/usr/bin/setpriv"

/* Run argv with stdout and stderr captured together into out. Returns the
 * wait(2) status, or -1. */
static int run_merged(const char *const *argv, char *out, size_t size)
{
	int p[2], st;
	size_t got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], out + got, size - 1 - got);

		if (n <= 0 || (got += (size_t)n) == size - 1)
			break;
	}
	out[got] = '\0';
	close(p[0]);
	return waitpid(pid, &st, 0) == pid ? st : -1;
}

/* The first line of text containing what, copied into line; false if none. */
static bool line_with(const char *text, const char *what, char *line, size_t size)
{
	const char *hit = strstr(text, what), *start, *end;

	if (!hit)
		return false;
	for (start = hit; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	if (!end)
		end = hit + strlen(hit);
	snprintf(line, size, "%.*s", (int)(end - start), start);
	return true;
}

/* Whether the sensor can be run as `who` here: "nobody" needs root and
 * setpriv, or is what a non-root test already is; "nocaps" needs both. */
static bool can_run_as(const char *who)
{
	if (geteuid() != 0)
		return strcmp(who, "nobody") == 0;
	return access(SETPRIV, X_OK) == 0;
}

/* argv prefix that runs the sensor as `who`: "nobody" (an unprivileged
 * user) or "nocaps" (root with every capability dropped). */
static void as_user(const char *who, const char **argv, int *n)
{
	if (geteuid() != 0) { /* already unprivileged */
		argv[(*n)++] = PL_SENSOR_BIN;
		return;
	}
	argv[(*n)++] = SETPRIV;
	if (strcmp(who, "nobody") == 0) {
		argv[(*n)++] = "--reuid=65534";
		argv[(*n)++] = "--regid=65534";
		argv[(*n)++] = "--clear-groups";
	} else {
		argv[(*n)++] = "--inh-caps=-all";
		argv[(*n)++] = "--bounding-set=-all";
	}
	argv[(*n)++] = "--";
	argv[(*n)++] = PL_SENSOR_BIN;
}

static void check_says_privileges(const char *who, const char *out)
{
	char line[1024];

	/* the kernel is not to blame: no version advice for any probe */
	if (strstr(out, "Linux 5."))
		fail_msg("%s: a probe blames the kernel version:\n%s", who, out);
	/* each bpf(2) probe names the privileges it lacks */
	assert_true(line_with(out, "BPF ring buffer", line, sizeof(line)));
	if (!strstr(line, "missing privileges") || !strstr(line, "CAP_BPF"))
		fail_msg("%s: the ring buffer line does not name the privileges: %s", who, line);
	assert_true(line_with(out, "BPF task storage", line, sizeof(line)));
	if (!strstr(line, "missing privileges"))
		fail_msg("%s: the task storage line does not name the privileges: %s", who, line);
	assert_true(line_with(out, "tp_btf programs", line, sizeof(line)));
	if (!strstr(line, "missing privileges") || !strstr(line, "CAP_PERFMON"))
		fail_msg("%s: the tp_btf line does not name the privileges: %s", who, line);
}

static void features_as(const char *who)
{
	const char *argv[16];
	static char out[16384];
	char line[1024];
	int n = 0, st;

	if (!can_run_as(who)) {
		print_message("running as %s needs root and %s\n", who, SETPRIV);
		skip();
	}
	as_user(who, argv, &n);
	argv[n++] = "features";
	argv[n] = NULL;
	st = run_merged(argv, out, sizeof(out));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	check_says_privileges(who, out);
	/* the privileges line itself is MISSING, for root without capabilities too */
	assert_true(line_with(out, "privileges  ", line, sizeof(line)));
	if (!strstr(line, "MISSING"))
		fail_msg("%s: privileges reported present: %s", who, line);
}

static void run_as(const char *who)
{
	const char *argv[24];
	static char out[16384];
	int n = 0, st;

	if (!can_run_as(who)) {
		print_message("running as %s needs root and %s\n", who, SETPRIV);
		skip();
	}
	as_user(who, argv, &n);
	argv[n++] = "run";
	argv[n++] = "--no-baselines";
	argv[n++] = "--no-rules";
	argv[n++] = "--no-live";
	argv[n++] = "--duration";
	argv[n++] = "1";
	argv[n] = NULL;
	st = run_merged(argv, out, sizeof(out));
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 0);
	check_says_privileges(who, out);
	assert_non_null(strstr(out, "plumbline: error: missing privileges"));
}

static void test_features_as_nobody_names_privileges_not_kernel(void **state)
{
	features_as("nobody");
}

static void test_features_as_root_without_caps_names_privileges(void **state)
{
	features_as("nocaps");
}

static void test_run_as_nobody_fails_naming_privileges(void **state)
{
	run_as("nobody");
}

static void test_run_as_root_without_caps_fails_naming_privileges(void **state)
{
	run_as("nocaps");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features_as_nobody_names_privileges_not_kernel),
		cmocka_unit_test(test_features_as_root_without_caps_names_privileges),
		cmocka_unit_test(test_run_as_nobody_fails_naming_privileges),
		cmocka_unit_test(test_run_as_root_without_caps_fails_naming_privileges),
	};

	return cmocka_run_group_tests_name("bpf_features", tests, NULL, NULL);
}
