// SPDX-License-Identifier: MIT
/*
 * test_sensor.c - the real sensor, the real kernel, programs with known costs.
 *
 * Every figure is checked against ground truth: exact syscall and failure
 * counts that pl_helper is known to make, and CPU time against the kernel's
 * own accounting of the helper (getrusage, read by the helper itself).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sensor_harness.h"

#define HELPER_BUILD_ID	 "706c756d626c696e652d68656c7065722d303031"
#define HELPER2_BUILD_ID "706c756d626c696e652d68656c7065722d303032"
#define WAIT_MS		 (10000 * HARNESS_SLOWDOWN)

static struct sensor_proc shared;

static int group_setup(void **state)
{
	static const char *const extra[] = {"--process-records", "--stats-interval", "1", "-q", NULL};

	return harness_group_setup_shared(&shared, extra);
}

static int group_teardown(void **state)
{
	return harness_group_teardown(&shared);
}

static long long helper_cpu_ns(const char *out)
{
	const char *p = strstr(out, "\"ru_cpu_ns\":");

	return p ? strtoll(p + 12, NULL, 10) : -1;
}

/* The exec'd image of pid whose exe ends with `suffix`. Borrowed. */
static struct json_object *exec_image(struct json_object *recs, const char *suffix)
{
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *im = rec_str(r, "image"), *exe = rec_str(r, "exe");
		size_t l = exe ? strlen(exe) : 0, sl = strlen(suffix);

		if (im && strcmp(im, "exec") == 0 && l >= sl && strcmp(exe + l - sl, suffix) == 0)
			return r;
	}
	return NULL;
}

static struct json_object *exec_image_of(struct json_object *recs, pid_t pid)
{
	struct json_object *r = records_find(recs, pid, "exec");

	assert_non_null(r);
	return r;
}

static long long sum_field(struct json_object *recs, const char *key)
{
	long long s = 0;

	for (size_t i = 0; i < json_object_array_length(recs); i++)
		s += rec_int(json_object_array_get_idx(recs, i), key);
	return s;
}

/*
 * The records' CPU against the kernel's account of the process as its parent
 * reaped it (wait4: fork to exit, every image, the exit path included, the
 * span the records cover): |got - want| <= max(2 % of want, 2 ms). What the
 * helper reported of itself (getrusage before exiting, `out`) is a lower
 * bound of both.
 */
static void assert_cpu_close(long long got, long long want, const char *out)
{
	long long tol = want / 50 > 2000000 ? want / 50 : 2000000, self = helper_cpu_ns(out);

	assert_true(self >= 0);
	if (llabs(got - want) > tol || self > want)
		fail_msg("cpu_ns %lld vs kernel accounting %lld at reaping (%lld before the exit, by the "
			 "helper itself): off by %lld ns (tolerance %lld)",
			 got, want, self, got - want, tol);
}

/* Run pl_helper truth with zero work: the static binary's own startup syscalls. */
static long long baseline_syscalls(void)
{
	const char *argv[] = {PL_HELPER_BIN, "truth", "0", "0", "/nonexistent/pl-base", "0", "0", NULL};
	char out[256];
	int st;
	pid_t pid = run_capture(argv, out, sizeof(out), &st);
	struct json_object *recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	long long n;

	assert_non_null(recs);
	n = rec_int(exec_image(recs, "/pl_helper"), "syscalls");
	json_object_put(recs);
	assert_true(n > 0);
	return n;
}

static void test_truth_counts_and_times_match_the_kernel(void **state)
{
	const char *path = "/nonexistent/plumbline/truth.json";
	const char *argv[] = {PL_HELPER_BIN, "truth", "20000", "777", path, "150", "300", NULL};
	struct json_object *recs, *r, *fails, *f;
	char out[256];
	int st;
	long long truth;
	pid_t pid;
	long long base, offcpu;

	NEED_BPF();
	base = baseline_syscalls();
	pid = run_capture_cpu(argv, out, sizeof(out), &st, &truth);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS); /* the test's fork child, then the helper */
	assert_non_null(recs);
	r = exec_image(recs, "/pl_helper");
	assert_non_null(r);

	assert_int_equal(rec_syscall(r, "getppid"), 20000);
	assert_int_equal(rec_syscall(r, "openat"), 777);
	assert_int_equal(rec_syscall(r, "nanosleep"), 1);
	/* the workload's syscalls plus the startup ones, exactly */
	assert_int_equal(rec_int(r, "syscalls"), base + 20000 + 777 + 1);
	assert_int_equal(rec_int(r, "open_failures"), 777);
	assert_true(json_object_object_get_ex(r, "open_fail_paths", &fails));
	assert_int_equal(json_object_array_length(fails), 1);
	f = json_object_array_get_idx(fails, 0);
	assert_string_equal(rec_str(f, "path"), path);
	assert_int_equal(rec_int(f, "errno"), 2);
	assert_string_equal(rec_str(f, "errno_name"), "ENOENT");
	assert_int_equal(rec_int(f, "count"), 777);

	/* CPU: both images of the pid (pre-exec fork child + helper) against getrusage. */
	assert_cpu_close(sum_field(recs, "cpu_ns"), truth, out);
	/* off-CPU: the 300 ms sleep (blocked) plus whatever waiting for a CPU a
	 * busy machine adds (run queue); the two add up exactly */
	offcpu = rec_int(r, "offcpu_ns");
	assert_true(offcpu >= 300000000);
	assert_int_equal(rec_int(r, "blocked_ns") + rec_int(r, "runq_ns"), offcpu);
	/* blocked: from the switch out into nanosleep to the timer's wakeup */
	if (rec_int(r, "blocked_ns") < 300000000 || rec_int(r, "blocked_ns") > 330000000)
		fail_msg("blocked_ns %lld (runq_ns %lld), expected the 300 ms sleep", rec_int(r, "blocked_ns"),
			 rec_int(r, "runq_ns"));

	assert_string_equal(rec_str(r, "build_id"), HELPER_BUILD_ID);
	assert_string_equal(rec_str(r, "end_reason"), "exit");
	assert_int_equal(rec_int(r, "exit_code"), 0);
	assert_int_equal(rec_int(r, "ppid"), getpid());
	assert_int_equal(rec_int(r, "uid"), getuid());
	assert_string_equal(rec_str(r, "comm"), "pl_helper");
	assert_true(rec_int(r, "start_ns") <= rec_int(r, "image_start_ns"));
	assert_true(rec_int(r, "image_start_ns") < rec_int(r, "end_ns"));
	assert_true(llabs(rec_int(r, "end_ns") - (long long)time(NULL) * 1000000000ll) < 60000000000ll);
	json_object_put(recs);
}

static void test_concurrent_children_are_each_recorded_exactly(void **state)
{
	const char *argv[] = {PL_HELPER_BIN, "children", "40", "1000", NULL};
	bool seen[40] = {false};
	struct json_object *recs = NULL;
	char out[64];
	int st, n = 0;
	pid_t pid;

	NEED_BPF();
	pid = run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (int tries = 0; tries < 100 && n < 40; tries++) {
		json_object_put(recs);
		usleep(100000);
		recs = records_load(&shared);
		n = 0;
		memset(seen, 0, sizeof(seen));
		for (size_t i = 0; i < json_object_array_length(recs); i++) {
			struct json_object *r = json_object_array_get_idx(recs, i);
			const char *t = rec_str(r, "type");
			long long g = rec_syscall(r, "getppid") - 1000;

			if (!t || strcmp(t, "process") || rec_int(r, "ppid") != pid)
				continue;
			assert_string_equal(rec_str(r, "image"), "fork");
			assert_string_equal(rec_str(r, "build_id"), HELPER_BUILD_ID);
			/* child i makes exactly 1000 + i getppid */
			assert_true(g >= 0 && g < 40);
			assert_false(seen[g]);
			seen[g] = true;
			n++;
		}
	}
	json_object_put(recs);
	assert_int_equal(n, 40);
}

static void test_threads_aggregate_into_their_process(void **state)
{
	const char *argv[] = {PL_HELPER_BIN, "threads", "4", "5000", "100", NULL};
	struct json_object *recs, *r;
	char out[256];
	int st;
	long long truth;
	pid_t pid;

	NEED_BPF();
	pid = run_capture_cpu(argv, out, sizeof(out), &st, &truth);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = exec_image(recs, "/pl_helper");
	assert_non_null(r);
	assert_int_equal(rec_syscall(r, "getppid"), 4 * 5000);
	assert_int_equal(rec_int(r, "threads"), 5);
	assert_int_equal(rec_syscall(r, "clone3") + rec_syscall(r, "clone"), 4);
	assert_cpu_close(sum_field(recs, "cpu_ns"), truth, out);
	json_object_put(recs);
}

static void test_renamed_comm_keeps_the_executable_identity(void **state)
{
	const char *argv[] = {PL_HELPER_BIN, "rename", "sshd", "10", NULL};
	char real[PATH_MAX], out[256];
	struct json_object *recs, *r;
	struct stat stbuf;
	int st;
	pid_t pid;

	NEED_BPF();
	assert_non_null(realpath(PL_HELPER_BIN, real));
	assert_int_equal(stat(PL_HELPER_BIN, &stbuf), 0);
	pid = run_capture(argv, out, sizeof(out), &st);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = records_find(recs, pid, "exec");
	assert_non_null(r);
	assert_string_equal(rec_str(r, "comm"), "sshd");
	assert_string_equal(rec_str(r, "exec_comm"), "pl_helper");
	assert_string_equal(rec_str(r, "exe"), real);
	assert_int_equal(rec_int(r, "exe_ino"), stbuf.st_ino);
	assert_string_equal(rec_str(r, "build_id"), HELPER_BUILD_ID);
	assert_int_equal(rec_syscall(r, "getppid"), 10);
	json_object_put(recs);
}

static void test_exec_starts_a_new_record_with_the_new_identity(void **state)
{
	const char *argv[] = {PL_HELPER_BIN,	"exec",	 "123", PL_HELPER2_BIN,
			      "pl_helper2",	"truth", "456", "0",
			      "/nonexistent/x", "0",	 "0",	NULL};
	struct json_object *recs, *first, *second;
	char out[256];
	int st;
	long long truth;
	pid_t pid;

	NEED_BPF();
	pid = run_capture_cpu(argv, out, sizeof(out), &st, &truth);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	recs = records_wait_pid(&shared, pid, 3, WAIT_MS);
	assert_non_null(recs);
	first = exec_image(recs, "/pl_helper");
	second = exec_image(recs, "/pl_helper2");
	assert_non_null(first);
	assert_non_null(second);
	assert_string_equal(rec_str(first, "end_reason"), "exec");
	assert_int_equal(rec_syscall(first, "getppid"), 123);
	assert_int_equal(rec_syscall(first, "execve"), 1);
	assert_string_equal(rec_str(first, "build_id"), HELPER_BUILD_ID);
	assert_string_equal(rec_str(second, "end_reason"), "exit");
	assert_int_equal(rec_syscall(second, "getppid"), 456);
	assert_string_equal(rec_str(second, "build_id"), HELPER2_BUILD_ID);
	assert_string_equal(rec_str(second, "cmdline"), "pl_helper2 truth 456 0 /nonexistent/x 0 0");
	assert_true(rec_int(first, "end_ns") <= rec_int(second, "image_start_ns") + 1000000);
	/* all images of the pid together account for all its CPU */
	assert_cpu_close(sum_field(recs, "cpu_ns"), truth, out);
	json_object_put(recs);
}

static long long ringbuf_records(struct json_object *stats, const char *kind)
{
	struct json_object *rb;

	assert_non_null(stats);
	assert_true(json_object_object_get_ex(stats, "ringbuf_records", &rb));
	return rec_int(rb, kind);
}

static void test_a_million_failed_opens_are_exact_and_cost_few_records(void **state)
{
	const char *path = "/etc/plumbline-test/feature-flags.json";
	const char *argv[] = {PL_HELPER_BIN, "truth", "0", "1000000", path, "0", "0", NULL};
	struct json_object *recs, *stats, *r, *fails, *f;
	long long before, after, before_all = 0, after_all = 0;
	static const char *const kinds[] = {"exec", "fork", "seen", "end", "fail_path"};
	char out[256];
	int st;
	pid_t pid;

	NEED_BPF();
	/* a fresh stats record */
	stats = records_wait_stats(&shared, records_count_stats(&shared), WAIT_MS);
	before = ringbuf_records(stats, "fail_path");
	for (size_t k = 0; k < 5; k++)
		before_all += ringbuf_records(stats, kinds[k]);
	json_object_put(stats);

	pid = run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = exec_image(recs, "/pl_helper");
	assert_non_null(r);
	assert_int_equal(rec_int(r, "open_failures"), 1000000);
	assert_int_equal(rec_syscall(r, "openat"), 1000000);
	assert_true(json_object_object_get_ex(r, "open_fail_paths", &fails));
	assert_int_equal(json_object_array_length(fails), 1);
	f = json_object_array_get_idx(fails, 0);
	assert_string_equal(rec_str(f, "path"), path);
	assert_int_equal(rec_int(f, "count"), 1000000);
	json_object_put(recs);

	/* the next stats record covers the storm: its records came before the
	 * process's end */
	stats = records_wait_stats(&shared, records_count_stats(&shared), WAIT_MS);
	after = ringbuf_records(stats, "fail_path");
	for (size_t k = 0; k < 5; k++)
		after_all += ringbuf_records(stats, kinds[k]);
	json_object_put(stats);
	/* The storm itself costs one fail_path record: user space keeps one
	 * open_fail_paths entry per record, and there is exactly one. The
	 * bounds here leave room for whatever else the machine does meanwhile
	 * and are still 10x below what a record per failure would cost. */
	if (after - before > 100000 || after_all - before_all > 100000)
		fail_msg("a storm of 1M failed opens cost %lld fail_path and %lld ring-buffer records", after - before,
			 after_all - before_all);
}

static void test_hostile_path_cannot_forge_a_record(void **state)
{
	/* a newline, a fake record, a quote, a backslash and two invalid UTF-8 bytes */
	const char *path = "/nonexistent/evil\n{\"type\":\"process\",\"pid\":999999999}\"\\\xff\xfe";
	const char *want = "/nonexistent/evil\\x0A{\"type\":\"process\",\"pid\":999999999}\"\\x5C\\xFF\\xFE";
	const char *argv[] = {PL_HELPER_BIN, "truth", "0", "3", path, "0", "0", NULL};
	struct json_object *recs, *r, *fails;
	char out[256], *line = NULL;
	size_t cap = 0, lines = 0;
	FILE *fp;
	int st;
	pid_t pid;

	NEED_BPF();
	pid = run_capture(argv, out, sizeof(out), &st);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = exec_image(recs, "/pl_helper");
	assert_non_null(r);
	assert_true(json_object_object_get_ex(r, "open_fail_paths", &fails));
	assert_int_equal(json_object_array_length(fails), 1);
	assert_string_equal(rec_str(json_object_array_get_idx(fails, 0), "path"), want);
	json_object_put(recs);

	/* every complete line of the file is one valid record, and no forged one exists */
	fp = fopen(shared.json, "re");
	assert_non_null(fp);
	while (getline(&line, &cap, fp) > 0) {
		struct json_object *o;

		if (line[strlen(line) - 1] != '\n')
			break; /* the sensor is writing this one right now */
		o = json_tokener_parse(line);
		if (!o)
			fail_msg("line %zu is not one JSON record: %s", lines, line);
		assert_int_not_equal(rec_int(o, "pid"), 999999999);
		json_object_put(o);
		lines++;
	}
	free(line);
	fclose(fp);
	assert_true(lines > 0);
}

static void test_exit_code_and_killing_signal_are_reported(void **state)
{
	const char *exit3[] = {PL_HELPER_BIN, "exit", "3", NULL};
	struct json_object *recs, *r;
	char out[64];
	int st;
	pid_t pid;

	NEED_BPF();
	pid = run_capture(exit3, out, sizeof(out), &st);
	assert_int_equal(WEXITSTATUS(st), 3);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = exec_image(recs, "/pl_helper");
	assert_int_equal(rec_int(r, "exit_code"), 3);
	assert_null(rec_str(r, "exit_signal"));
	json_object_put(recs);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(PL_HELPER_BIN, PL_HELPER_BIN, "spin", "30", (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = exec_image(recs, "/pl_helper");
	assert_non_null(r);
	assert_int_equal(rec_int(r, "exit_signal"), SIGKILL);
	assert_null(rec_str(r, "exit_code"));
	json_object_put(recs);
}

static void test_cpu_contention_shows_as_run_queue_wait(void **state)
{
	/* two CPU-bound processes pinned to one CPU for 1 s: each runs about
	 * half the time and waits for the CPU the other half */
	const char *argv[] = {PL_HELPER_BIN, "spin", "1", "0", NULL};
	char out[2][256];
	pid_t pid[2];
	int st, fd[2];
	long long truth[2];
	struct rusage ru;

	NEED_BPF();
	for (int i = 0; i < 2; i++) {
		int p[2];

		assert_int_equal(pipe(p), 0);
		pid[i] = fork();
		if (pid[i] == 0) {
			dup2(p[1], STDOUT_FILENO);
			execv(argv[0], (char **)argv);
			_exit(127);
		}
		close(p[1]);
		fd[i] = p[0];
	}
	for (int i = 0; i < 2; i++) {
		ssize_t n = read(fd[i], out[i], sizeof(out[i]) - 1);

		out[i][n > 0 ? n : 0] = '\0';
		close(fd[i]);
		wait4(pid[i], &st, 0, &ru);
		truth[i] = rusage_cpu_ns(&ru);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (int i = 0; i < 2; i++) {
		struct json_object *recs = records_wait_pid(&shared, pid[i], 2, WAIT_MS);
		struct json_object *r;
		long long cpu, runq, life;

		assert_non_null(recs);
		r = exec_image(recs, "/pl_helper");
		assert_non_null(r);
		cpu = rec_int(r, "cpu_ns");
		runq = rec_int(r, "runq_ns");
		life = rec_int(r, "end_ns") - rec_int(r, "image_start_ns");
		assert_cpu_close(sum_field(recs, "cpu_ns"), truth[i], out[i]);
		/* never blocked: every moment of its life is on-CPU or waiting for it */
		if (llabs(cpu + runq - life) > life / 50 || runq < life / 4)
			fail_msg("pid %d: cpu %lld + runq %lld vs lifetime %lld", pid[i], cpu, runq, life);
		assert_true(rec_int(r, "blocked_ns") < life / 50);
		json_object_put(recs);
	}
}

/* A second sensor: per-second windows and the shutdown flush. */
static void test_windows_see_a_spinning_process_and_shutdown_flushes(void **state)
{
	static const char *const extra[] = {"--window-records", "--process-records", "-q", NULL};
	struct sensor_proc s;
	struct json_object *recs;
	long long window_cpu = 0, total;
	int st, good = 0;
	pid_t spin, run;

	NEED_BPF();
	assert_int_equal(sensor_start(&s, extra), 0);
	spin = fork();
	if (spin == 0) {
		execl(PL_HELPER_BIN, PL_HELPER_BIN, "spin", "4", (char *)NULL);
		_exit(127);
	}
	run = fork();
	if (run == 0) {
		execl(PL_HELPER_BIN, PL_HELPER_BIN, "truth", "5", "0", "/nonexistent/x", "0", "60000", (char *)NULL);
		_exit(127);
	}
	waitpid(spin, &st, 0);
	st = sensor_stop(&s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	kill(run, SIGKILL);
	waitpid(run, &st, 0);

	recs = records_load(&s);
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type");
		long long len, cpu;

		if (!t || strcmp(t, "window") || rec_int(r, "pid") != spin || strcmp(rec_str(r, "image"), "exec"))
			continue;
		len = rec_int(r, "window_end_ns") - rec_int(r, "window_start_ns");
		cpu = rec_int(r, "cpu_ns");
		window_cpu += cpu;
		assert_true(cpu <= len + len / 20);
		/* a CPU-bound process is on-CPU for most of each whole window,
		 * even without switching out (the perf_event refresher) */
		if (len > 900000000 && len < 1100000000 && cpu > len / 2)
			good++;
	}
	if (good < 2)
		fail_msg("expected >= 2 one-second windows mostly on-CPU for the spinning pid %d, got %d", spin, good);
	/* windows are deltas of the lifetime counter: they add up to it, less the last partial window */
	if (!records_find(recs, spin, "exec")) {
		/* seen once in CI (stop 29): say what the sensor said, to tell a lost end from a lost record */
		FILE *lf = fopen(s.log, "r");
		char line[512];

		while (lf && fgets(line, sizeof(line), lf))
			fprintf(stderr, "sensor: %s", line);
		if (lf)
			fclose(lf);
		fail_msg("no process record of the spinning pid %d's exec image (%d windows of it were mostly on-CPU)",
			 spin, good);
	}
	total = rec_int(exec_image_of(recs, spin), "cpu_ns");
	if (window_cpu > total || total - window_cpu > 1050000000)
		fail_msg("windows sum to %lld ns of CPU, the process record says %lld", window_cpu, total);
	/* the process still running at shutdown gets its record */
	{
		struct json_object *r = records_find(recs, run, "exec");

		assert_non_null(r);
		assert_string_equal(rec_str(r, "end_reason"), "running");
		assert_null(rec_str(r, "exit_code"));
		assert_int_equal(rec_syscall(r, "getppid"), 5);
		assert_int_equal(rec_syscall(r, "nanosleep"), 1);
	}
	json_object_put(recs);
	sensor_cleanup(&s);
}

static void test_sensor_refuses_to_run_without_privileges(void **state)
{
	int p[2], st;
	char buf[4096];
	ssize_t n, got = 0;
	pid_t pid;

	if (geteuid() != 0)
		skip(); /* needs root to drop to nobody */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDERR_FILENO);
		if (setgid(65534) || setuid(65534))
			_exit(126);
		execl(PL_SENSOR_BIN, PL_SENSOR_BIN, "run", "--duration", "1", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	assert_non_null(strstr(buf, "missing privileges"));
}

static struct sensor_proc own;
static char json_dir[64];

static int own_teardown(void **state)
{
	if (own.dir[0])
		sensor_cleanup(&own);
	memset(&own, 0, sizeof(own));
	if (json_dir[0]) {
		const char *argv[] = {"/bin/rm", "-rf", "--", json_dir, NULL};
		char out[64];
		int st;

		run_capture(argv, out, sizeof(out), &st);
		json_dir[0] = '\0';
	}
	return 0;
}

static bool log_contains(const struct sensor_proc *s, const char *a, const char *b)
{
	char line[2048];
	bool found = false;
	FILE *f = fopen(s->log, "re");

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, a) && (!b || strstr(line, b));
	if (f)
		fclose(f);
	return found;
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file_is(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "re");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, text);
}

/*
 * --json PATH appended as root to wherever a symlink at PATH pointed, at
 * start-up and again at each SIGHUP reopen (log rotation). Now a symlink is
 * refused in both places, with the reason, and its target is untouched.
 */
static void test_json_output_symlink_is_refused_at_start_and_at_sighup(void **state)
{
	char link[128], victim[128], rotated[192];
	const char *extra[] = {"--json", link, "--no-baselines", NULL};
	const char *plain[] = {"--process-records", "--no-baselines", NULL};
	const char *argv[] = {PL_HELPER_BIN, "exit", "3", NULL};
	char out[64];
	pid_t pid;
	int st;

	NEED_BPF();
	snprintf(json_dir, sizeof(json_dir), "/tmp/plumbline-json-XXXXXX");
	assert_non_null(mkdtemp(json_dir));
	snprintf(victim, sizeof(victim), "%s/victim", json_dir);
	snprintf(link, sizeof(link), "%s/records.jsonl", json_dir);
	write_text(victim, "keep\n");
	assert_int_equal(symlink(victim, link), 0);

	/* at start-up: refused, the sensor does not start */
	assert_int_equal(sensor_start(&own, extra), -ECHILD);
	assert_true(log_contains(&own, link, "it is a symbolic link, refused"));
	assert_true(log_contains(&own, "- for standard output", NULL));
	assert_file_is(victim, "keep\n");
	sensor_cleanup(&own);

	/* at SIGHUP: the file rotated away and a symlink put in its place */
	assert_int_equal(sensor_start(&own, plain), 0);
	snprintf(rotated, sizeof(rotated), "%s.1", own.json);
	assert_int_equal(rename(own.json, rotated), 0);
	assert_int_equal(symlink(victim, own.json), 0);
	kill(own.pid, SIGHUP);
	for (int i = 0; i < 100 && !log_contains(&own, "SIGHUP: cannot reopen", NULL); i++)
		usleep(50000);
	assert_true(log_contains(&own, "SIGHUP: cannot reopen", "it is a symbolic link, refused"));
	/* it keeps writing where it did: the rotated file */
	pid = run_capture(argv, out, sizeof(out), &st);
	st = sensor_stop_within(&own, SIGTERM, 10000);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_file_is(victim, "keep\n");
	snprintf(out, sizeof(out), "\"pid\":%d,", (int)pid);
	{
		char line[8192];
		bool found = false;
		FILE *f = fopen(rotated, "re");

		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			found |= strstr(line, out) != NULL;
		fclose(f);
		assert_true(found);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    HARNESS_TEST(test_truth_counts_and_times_match_the_kernel),
	    HARNESS_TEST(test_concurrent_children_are_each_recorded_exactly),
	    HARNESS_TEST(test_threads_aggregate_into_their_process),
	    HARNESS_TEST(test_renamed_comm_keeps_the_executable_identity),
	    HARNESS_TEST(test_exec_starts_a_new_record_with_the_new_identity),
	    HARNESS_TEST(test_a_million_failed_opens_are_exact_and_cost_few_records),
	    HARNESS_TEST(test_hostile_path_cannot_forge_a_record),
	    HARNESS_TEST(test_exit_code_and_killing_signal_are_reported),
	    HARNESS_TEST(test_cpu_contention_shows_as_run_queue_wait),
	    HARNESS_TEST(test_windows_see_a_spinning_process_and_shutdown_flushes),
	    HARNESS_TEST(test_sensor_refuses_to_run_without_privileges),
	    cmocka_unit_test_teardown(test_json_output_symlink_is_refused_at_start_and_at_sighup, own_teardown),
	};

	return cmocka_run_group_tests_name("bpf_sensor", tests, group_setup, group_teardown);
}
