// SPDX-License-Identifier: MIT
/*
 * test_kernels.c - the sched_switch fallback for kernels before 5.18.
 *
 * No older kernel is at hand, so the fallback is proven the two ways this
 * kernel allows:
 *   - the probe, on the real BTF and against the real verifier: it reads the
 *     4-argument prototype, and the verifier refuses a read of an argument a
 *     prototype does not have (the refusal that would meet the 4-argument
 *     program on a 3-argument kernel);
 *   - the real sensor forced onto the 3-argument program
 *     (PLUMBLINE_FORCE_SCHED_SWITCH=3arg) loads that program, not the other,
 *     and measures what test_sensor.c checks of the 4-argument one: exact
 *     blocked and run-queue time against the helper's ground truth.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/kfeatures.h"
#include "sensor_harness.h"

#define WAIT_MS (10000 * HARNESS_SLOWDOWN)

static struct sensor_proc shared;

static int group_setup(void **state)
{
	static const char *const extra[] = {"--process-records", "-q", NULL};

	/* the sensor inherits it: its feature probe then picks the fallback */
	setenv("PLUMBLINE_FORCE_SCHED_SWITCH", "3arg", 1);
	return harness_group_setup_shared(&shared, extra);
}

static int group_teardown(void **state)
{
	return harness_group_teardown(&shared);
}

static void test_probe_reads_the_prototype_and_the_verifier_refuses_a_missing_argument(void **state)
{
	struct btf *vmlinux;

	NEED_BPF();
	vmlinux = btf__load_vmlinux_btf();
	assert_non_null(vmlinux);
	/* this kernel (5.18+): (preempt, prev, next, prev_state) */
	assert_int_equal(features__sched_switch_args(vmlinux), 4);
	/* the verifier lets a program read arguments 0..3 of sched_switch ... */
	assert_int_equal(features__probe_tp_arg(vmlinux, "sched_switch", 0), 0);
	assert_int_equal(features__probe_tp_arg(vmlinux, "sched_switch", 3), 0);
	/* ... and refuses the one past the prototype: what prev_state (argument 3)
	 * meets on a kernel whose prototype stops at next */
	assert_int_equal(features__probe_tp_arg(vmlinux, "sched_switch", 4), -EACCES);
	/* the same answer for a prototype of one argument: sched_wakeup(p) */
	assert_int_equal(features__probe_tp_arg(vmlinux, "sched_wakeup", 0), 0);
	assert_int_equal(features__probe_tp_arg(vmlinux, "sched_wakeup", 1), -EACCES);
	assert_int_equal(features__probe_tp_arg(vmlinux, "no_such_tracepoint_pl", 0), -ENOENT);
	btf__free(vmlinux);
}

static void test_features_reports_the_forced_fallback(void **state)
{
	const char *argv[] = {PL_SENSOR_BIN, "features", NULL};
	char out[8192];
	int st;

	NEED_BPF();
	run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_non_null(
	    strstr(out, "sched_switch state     no        forced off by PLUMBLINE_FORCE_SCHED_SWITCH=3arg"));
	unsetenv("PLUMBLINE_FORCE_SCHED_SWITCH");
	run_capture(argv, out, sizeof(out), &st);
	setenv("PLUMBLINE_FORCE_SCHED_SWITCH", "3arg", 1);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_non_null(strstr(out, "sched_switch state     yes       4-argument sched_switch"));
}

/* The names of the BPF programs the sensor holds fds of (its fdinfo's prog_id). */
static void sensor_prog_names(pid_t pid, char *names, size_t size)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	names[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int)pid);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char p[384], line[128];
		unsigned int id = 0;
		FILE *f;

		snprintf(p, sizeof(p), "/proc/%d/fdinfo/%s", (int)pid, e->d_name);
		f = fopen(p, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "prog_id: %u", &id) == 1)
				break;
		if (f)
			fclose(f);
		if (id) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			int fd = bpf_prog_get_fd_by_id(id);

			if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
				size_t l = strlen(names);

				snprintf(names + l, size - l, "%s ", info.name);
			}
			if (fd >= 0)
				close(fd);
		}
	}
	closedir(d);
}

static void test_forced_sensor_loads_only_the_three_argument_program(void **state)
{
	char names[4096];

	NEED_BPF();
	sensor_prog_names(shared.pid, names, sizeof(names));
	assert_non_null(strstr(names, "pl_switch_3arg "));
	assert_null(strstr(names, "pl_sched_switch "));
	assert_non_null(strstr(names, "pl_sched_wakeup")); /* the rest as usual */
}

/* The exec'd image of the helper among recs. Borrowed. */
static struct json_object *helper_image(struct json_object *recs)
{
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *im = rec_str(r, "image"), *exe = rec_str(r, "exe");

		if (im && exe && strcmp(im, "exec") == 0 && strstr(exe, "/pl_helper"))
			return r;
	}
	return NULL;
}

static long long helper_cpu_ns(const char *out)
{
	const char *p = strstr(out, "\"ru_cpu_ns\":");

	return p ? strtoll(p + 12, NULL, 10) : -1;
}

/* test_sensor.c's test_truth_counts_and_times_match_the_kernel, off-CPU part */
static void test_fallback_splits_a_sleep_into_exact_blocked_time(void **state)
{
	const char *argv[] = {PL_HELPER_BIN, "truth", "20000", "0", "/nonexistent/pl-k", "150", "300", NULL};
	struct json_object *recs, *r;
	char out[256];
	int st;
	pid_t pid;
	long long offcpu;

	NEED_BPF();
	pid = run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = helper_image(recs);
	assert_non_null(r);
	assert_int_equal(rec_syscall(r, "getppid"), 20000);
	assert_int_equal(rec_syscall(r, "nanosleep"), 1);
	offcpu = rec_int(r, "offcpu_ns");
	assert_true(offcpu >= 300000000);
	assert_int_equal(rec_int(r, "blocked_ns") + rec_int(r, "runq_ns"), offcpu);
	if (rec_int(r, "blocked_ns") < 300000000 || rec_int(r, "blocked_ns") > 330000000)
		fail_msg("blocked_ns %lld (runq_ns %lld), expected the 300 ms sleep", rec_int(r, "blocked_ns"),
			 rec_int(r, "runq_ns"));
	/* the process still ends at its last switch (TASK_DEAD read from the task) */
	assert_string_equal(rec_str(r, "end_reason"), "exit");
	assert_int_equal(rec_int(r, "exit_code"), 0);
	json_object_put(recs);
}

/* test_sensor.c's test_cpu_contention_shows_as_run_queue_wait */
static void test_fallback_shows_cpu_contention_as_run_queue_wait(void **state)
{
	const char *argv[] = {PL_HELPER_BIN, "spin", "1", "0", NULL};
	char out[2][256];
	pid_t pid[2];
	int st, fd[2];
	long long truth[2];
	struct rusage ru;

	NEED_BPF();
	for (int i = 0; i < 2; i++) {
		int p[2];

		assert_int_equal(pipe2(p, 0), 0);
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
		wait4(pid[i], &st, 0, &ru); /* the kernel's account of it, exit included */
		truth[i] = rusage_cpu_ns(&ru);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (int i = 0; i < 2; i++) {
		struct json_object *recs = records_wait_pid(&shared, pid[i], 2, WAIT_MS);
		struct json_object *r;
		long long cpu, runq, life, want = truth[i], got = 0;

		assert_non_null(recs);
		r = helper_image(recs);
		assert_non_null(r);
		for (size_t k = 0; k < json_object_array_length(recs); k++)
			got += rec_int(json_object_array_get_idx(recs, k), "cpu_ns");
		/* against the kernel's account at reaping; the helper's own, before
		 * its exit, is a lower bound of it */
		if (llabs(got - want) > (want / 50 > 2000000 ? want / 50 : 2000000) || helper_cpu_ns(out[i]) > want)
			fail_msg("cpu_ns %lld vs kernel accounting %lld at reaping (%lld by the helper itself)", got,
				 want, helper_cpu_ns(out[i]));
		cpu = rec_int(r, "cpu_ns");
		runq = rec_int(r, "runq_ns");
		life = rec_int(r, "end_ns") - rec_int(r, "image_start_ns");
		if (llabs(cpu + runq - life) > life / 50 || runq < life / 4)
			fail_msg("pid %d: cpu %lld + runq %lld vs lifetime %lld", pid[i], cpu, runq, life);
		assert_true(rec_int(r, "blocked_ns") < life / 50);
		json_object_put(recs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    HARNESS_TEST(test_probe_reads_the_prototype_and_the_verifier_refuses_a_missing_argument),
	    HARNESS_TEST(test_features_reports_the_forced_fallback),
	    HARNESS_TEST(test_forced_sensor_loads_only_the_three_argument_program),
	    HARNESS_TEST(test_fallback_splits_a_sleep_into_exact_blocked_time),
	    HARNESS_TEST(test_fallback_shows_cpu_contention_as_run_queue_wait),
	};

	return cmocka_run_group_tests_name("bpf_kernels", tests, group_setup, group_teardown);
}
