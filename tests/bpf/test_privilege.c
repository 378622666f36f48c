// SPDX-License-Identifier: MIT
/*
 * test_privilege.c - the running sensor's privileges, read from
 * /proc/PID/status of every one of its threads: after attach it keeps
 * CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE only (effective, permitted and
 * bounding; inheritable and ambient empty), NoNewPrivs is set and one seccomp
 * filter is installed. A syscall outside the filter's allowlist really fails
 * (the sensor's self-test, PLUMBLINE_PRIVILEGE_SELFTEST, tries one) and the
 * sensor lives on; and what the kept capabilities are for still works: a
 * process of another user, running a file only that user can read, gets its
 * exe and build-id. --keep-privileges keeps everything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (15000 * HARNESS_SLOWDOWN)
#define KEPT "0000000000080004" /* CAP_DAC_READ_SEARCH (2) | CAP_SYS_PTRACE (19) */
#define NOBODY 65534
#define HELPER_BUILD_ID "706c756d626c696e652d68656c7065722d303031"

/* The value of "Key:\t..." in a status file, into val. */
static bool status_field(const char *path, const char *key, char *val, size_t size)
{
	FILE *f = fopen(path, "re");
	char line[256];
	size_t kl = strlen(key);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			char *v = line + kl + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(val, size, "%s", v);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void assert_field(const char *path, const char *key, const char *want)
{
	char got[128];

	if (!status_field(path, key, got, sizeof(got)))
		fail_msg("%s: no %s", path, key);
	if (strcmp(got, want) != 0)
		fail_msg("%s: %s is %s, expected %s", path, key, got, want);
}

/* Every thread of pid: the fields as given (key, value pairs, NULL-ended).
 * Returns the number of threads checked. */
static int assert_threads(pid_t pid, const char *const *kv)
{
	char dir[64], path[128];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%.20s/status", dir, de->d_name);
		for (int i = 0; kv[i]; i += 2)
			assert_field(path, kv[i], kv[i + 1]);
		/* SIGSYS must reach every thread: blocked, seccomp's trap would
		 * kill the sensor instead of failing the call. A thread just
		 * created runs with every signal blocked until glibc's
		 * start_thread sets its mask: give it 3 s to get scheduled. */
		{
			char blk[32] = "";
			unsigned long long mask = ~0ull;

			for (int tries = 0; tries < 60 && (mask & (1ull << (SIGSYS - 1))); tries++) {
				if (tries)
					usleep(50000);
				assert_true(status_field(path, "SigBlk", blk, sizeof(blk)));
				mask = strtoull(blk, NULL, 16);
			}
			if (mask & (1ull << (SIGSYS - 1)))
				fail_msg("%s: SIGSYS is blocked (SigBlk %s)", path, blk);
		}
		n++;
	}
	closedir(d);
	return n;
}

/* Copy the helper to dir/name, owned by NOBODY, mode 0700: only nobody (and
 * CAP_DAC_READ_SEARCH) can read it. */
static void private_copy(const char *dir, const char *name, char *path, size_t size)
{
	char buf[65536];
	ssize_t n;
	int in = open(PL_HELPER_BIN, O_RDONLY | O_CLOEXEC), out;

	snprintf(path, size, "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	assert_int_equal(fchown(out, NOBODY, NOBODY), 0);
	assert_int_equal(fchmod(out, 0700), 0);
	close(in);
	close(out);
}

/* Run path as nobody, alive for sleep_ms; returns its pid (exited, reaped). */
static pid_t run_as_nobody(const char *path, const char *sleep_ms)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
			_exit(126);
		execl(path, "pl_helper", "truth", "0", "0", "/nonexistent/pl-priv", "0", sleep_ms, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return pid;
}

static void test_running_sensor_keeps_only_ptrace_and_dac_read_search_with_nonewprivs_and_seccomp(void **state)
{
	static const char *const want[] = {
		"CapInh", "0000000000000000", "CapPrm", KEPT, "CapEff", KEPT, "CapBnd", KEPT,
		"CapAmb", "0000000000000000", "NoNewPrivs", "1", "Seccomp", "2", "Seccomp_filters", "1", NULL,
	};
	/* a syslog target (the discard port), so that its sender thread is there */
	const char *extra[] = { "--process-records", "--syslog", "udp:127.0.0.1:9", NULL };
	struct sensor_proc s = { 0 };
	char dir[] = "/tmp/pl-priv-XXXXXX", path[256], bid[128] = "";
	struct json_object *recs, *r = NULL;
	pid_t pid;
	int threads;

	(void)state;
	NEED_BPF();
	setenv("PLUMBLINE_PRIVILEGE_SELFTEST", "1", 1);
	assert_int_equal(sensor_start(&s, extra), 0);
	unsetenv("PLUMBLINE_PRIVILEGE_SELFTEST");

	/* the main thread, the hash worker and the syslog sender alike */
	threads = assert_threads(s.pid, want);
	assert_true(threads >= 3);
	if (!sensor_log_has(&s, "privileges dropped after attach: keeping sys_ptrace"))
		fail_msg("no line saying what is kept in %s", s.log);

	/* a syscall outside the allowlist fails, said once, and the sensor lives */
	if (!sensor_log_has(&s, "privilege self-test: perf_event_open refused: Function not implemented"))
		fail_msg("the self-test's perf_event_open was not refused with ENOSYS (see %s)", s.log);
	if (!sensor_log_has(&s, "seccomp refused syscall 298 (ENOSYS)"))
		fail_msg("the refused syscall was not reported (see %s)", s.log);
	assert_int_equal(kill(s.pid, 0), 0);

	/* another user's process, running a file only that user may read:
	 * /proc/PID/exe needs CAP_SYS_PTRACE, the build-id CAP_DAC_READ_SEARCH */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	private_copy(dir, "pl_helper_nobody", path, sizeof(path));
	/* nobody's file: its build-id is read, but it is only a claim; the file
	 * is known by its content hash, read with the same capability. A run that
	 * ended before its hash was known has binary_id null: the next run finds
	 * the hash cached. */
	for (int run = 0; run < 5 && !bid[0]; run++) {
		pid = run_as_nobody(path, "300");
		recs = records_wait_pid(&s, pid, 2, WAIT_MS);
		r = recs ? records_find(recs, pid, "exec") : NULL;
		if (!r)
			fail_msg("no exec record of nobody's pid %d (see %s)", (int)pid, s.log);
		assert_string_equal(rec_str(r, "exe"), path);
		assert_string_equal(rec_str(r, "build_id"), HELPER_BUILD_ID);
		assert_int_equal(rec_int(r, "uid"), NOBODY);
		if (rec_str(r, "binary_id"))
			snprintf(bid, sizeof(bid), "%s", rec_str(r, "binary_id"));
		json_object_put(recs);
	}
	assert_true(strncmp(bid, "sha256:", 7) == 0 && strlen(bid) == 7 + 64);
	unlink(path);
	rmdir(dir);

	/* still the same after a reload, and a clean stop */
	assert_int_equal(kill(s.pid, SIGHUP), 0);
	usleep(500000);
	assert_int_equal(assert_threads(s.pid, want), threads);
	assert_int_equal(sensor_stop(&s), 0);
	sensor_cleanup(&s);
}

static void test_keep_privileges_keeps_every_capability_and_no_filter(void **state)
{
	const char *extra[] = { "--keep-privileges", "--syslog", "off", "--no-rules", NULL };
	struct sensor_proc s = { 0 };
	char mine[64], path[64];

	(void)state;
	NEED_BPF();
	assert_true(status_field("/proc/self/status", "CapEff", mine, sizeof(mine)));
	assert_int_equal(sensor_start(&s, extra), 0);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)s.pid);
	assert_field(path, "CapEff", mine);
	assert_field(path, "NoNewPrivs", "0");
	assert_field(path, "Seccomp", "0");
	if (!sensor_log_has(&s, "--keep-privileges: keeping every capability"))
		fail_msg("--keep-privileges is not said in %s", s.log);
	assert_int_equal(sensor_stop(&s), 0);
	sensor_cleanup(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_running_sensor_keeps_only_ptrace_and_dac_read_search_with_nonewprivs_and_seccomp),
		HARNESS_TEST(test_keep_privileges_keeps_every_capability_and_no_filter),
	};

	return cmocka_run_group_tests(tests, harness_group_setup, NULL);
}
