// SPDX-License-Identifier: MIT
/*
 * test_waitstacks.c - the kernel stacks of waiting threads, from the real
 * sensor after its privilege drop (the default), read by BPF
 * (bpf/waits.bpf.c): pl_wait_threads, which walks the process's threads
 * with the task kfuncs, and, forced with PLUMBLINE_FORCE_WAIT_ITER=task as
 * on a kernel without them, the task iterator pl_wait_stacks; and with
 * neither (PLUMBLINE_FORCE_WAIT_ITER=none), what is left: each thread's
 * wchan, the top frame of /proc's stack, and no kernel_stack.
 *
 * This program is its own subject: run as `test_waitstacks quick` it exits
 * at once (five runs teach the sensor that its life is short, so a long
 * wait makes it a wait candidate, sensor/pipeline/images.c); run as
 * `test_waitstacks wait` it starts three threads that block for good, one
 * in read() on a pipe nobody writes, one in nanosleep(), one in
 * FUTEX_WAIT, prints their tids and joins the first. The sensor's window
 * records of that process then carry each thread's kernel stack, with
 * stack_source "bpf", equal frame for frame to what /proc/PID/task/TID/stack
 * says when this test (root, CAP_SYS_ADMIN) reads it: the ground truth.
 *
 * And the other half of "survives the drop": with the capabilities the
 * running sensor holds (its CapEff, read from /proc/PID/status, has no
 * CAP_SYS_ADMIN), /proc/PID/task/TID/stack of the same thread yields no
 * frame, which is why the sensor needs the iterator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (20000 * HARNESS_SLOWDOWN)
#define LEARN_RUNS 5
#define CAP_SYS_ADMIN_BIT 21

/* ---- the subject ---- */

static int pipefd[2];
static uint32_t futex_word;

static void *reader(void *arg)
{
	char c;

	(void)arg;
	(void)!read(pipefd[0], &c, 1); /* nobody writes: the main thread holds the write end */
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ .tv_sec = 600 }, NULL);
	return NULL;
}

static void *futexer(void *arg)
{
	(void)arg;
	syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0); /* nobody wakes it */
	return NULL;
}

static pid_t tids[3];
static pthread_barrier_t started;

struct start {
	void *(*fn)(void *);
	int i;
};

static void *trampoline(void *arg)
{
	struct start *s = arg;

	tids[s->i] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	return s->fn(NULL);
}

static int subject_wait(void)
{
	static struct start st[3] = { { reader, 0 }, { sleeper, 1 }, { futexer, 2 } };
	pthread_t t[3];

	if (pipe(pipefd) < 0 || pthread_barrier_init(&started, NULL, 4))
		return 1;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, trampoline, &st[i]))
			return 1;
	pthread_barrier_wait(&started);
	printf("%d %d %d\n", tids[0], tids[1], tids[2]);
	fflush(stdout);
	pthread_join(t[0], NULL); /* never returns: the test kills the process */
	return 0;
}

/* ---- the test ---- */

static struct sensor_proc sensor;
static pid_t subject = -1;

static int teardown(void **state)
{
	(void)state;
	if (subject > 0) {
		kill(subject, SIGKILL);
		waitpid(subject, NULL, 0);
		subject = -1;
	}
	if (sensor.pid > 0 || sensor.dir[0])
		sensor_cleanup(&sensor);
	memset(&sensor, 0, sizeof(sensor));
	return 0;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The function names of path (a /proc stack file), innermost first, into
 * names (at most max of 64 bytes each): how many; -errno when unreadable. */
static int proc_stack(const char *path, char names[][64], int max)
{
	char buf[4096], *line, *save = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	if (len < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		char *name = strchr(line, ']');

		name = name ? name + 1 : line;
		while (*name == ' ')
			name++;
		snprintf(names[n], 64, "%.*s", (int)strcspn(name, "+"), name);
		n++;
	}
	return n;
}

/* The sensor's effective capabilities, from its /proc/PID/status. */
static uint64_t cap_eff(pid_t pid)
{
	char path[64], buf[4096], *p;
	int fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(len > 0);
	buf[len] = '\0';
	p = strstr(buf, "\nCapEff:");
	assert_non_null(p);
	return strtoull(p + 8, NULL, 16);
}

/* Frames read by a child holding only the capabilities caps (the sensor's):
 * what the sensor itself would get from path. */
static int stack_with_caps(const char *path, uint64_t caps)
{
	int pfd[2], n = -1;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct d[2] = {
			{ .effective = (uint32_t)caps, .permitted = (uint32_t)caps },
			{ .effective = (uint32_t)(caps >> 32), .permitted = (uint32_t)(caps >> 32) },
		};
		char names[32][64];
		int r = -EPERM;

		if (syscall(SYS_capset, &h, d) == 0)
			r = proc_stack(path, names, 32); /* opened after the drop: the open's creds count */
		(void)!write(pfd[1], &r, sizeof(r));
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &n, sizeof(n)), (ssize_t)sizeof(n));
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	return n;
}

/* Start `self wait`: its pid, the three tids from its stdout. */
static pid_t start_subject(const char *self, pid_t t[3])
{
	int pfd[2];
	char line[128] = "";
	ssize_t len;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(self, self, "wait", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	len = read(pfd[0], line, sizeof(line) - 1);
	close(pfd[0]);
	assert_true(len > 0);
	assert_int_equal(sscanf(line, "%d %d %d", &t[0], &t[1], &t[2]), 3);
	return pid;
}

/* The last window record of pid with a wait of its 4 threads, all with a
 * stack (with_stacks) or none with one, or NULL. */
static struct json_object *wait_window(struct json_object *recs, pid_t pid, bool with_stacks)
{
	struct json_object *found = NULL;

	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i), *th;
		const char *type = rec_str(r, "type");
		bool all = true;

		if (!type || strcmp(type, "window") || rec_int(r, "pid") != pid || !get(r, "wait"))
			continue;
		th = get(get(r, "wait"), "waiting_threads");
		if (!th || json_object_array_length(th) < 4)
			continue;
		for (size_t k = 0; k < json_object_array_length(th); k++) {
			struct json_object *st = get(json_object_array_get_idx(th, k), "kernel_stack");

			all &= with_stacks ? st && json_object_array_length(st) > 0 : !st;
		}
		if (all)
			found = r;
	}
	return found;
}

static struct json_object *thread_of(struct json_object *win, pid_t tid)
{
	struct json_object *th = get(get(win, "wait"), "waiting_threads");

	for (size_t k = 0; th && k < json_object_array_length(th); k++)
		if (rec_int(json_object_array_get_idx(th, k), "tid") == tid)
			return json_object_array_get_idx(th, k);
	fail_msg("thread %d not in the wait evidence", (int)tid);
	return NULL;
}

static bool has_frame(struct json_object *st, const char *name)
{
	for (size_t k = 0; k < json_object_array_length(st); k++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(st, k)), name) == 0)
			return true;
	return false;
}

/* The thread's stack in the evidence: from the iterator, and /proc's own. */
static struct json_object *check_thread(struct json_object *win, pid_t pid, pid_t tid)
{
	struct json_object *t = thread_of(win, tid), *st = get(t, "kernel_stack");
	char path[96], truth[32][64];
	int n;
	size_t len = json_object_array_length(st);

	assert_string_equal(rec_str(t, "stack_source"), "bpf");
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)tid);
	n = proc_stack(path, truth, 32);
	assert_true(n > 0);
	fprintf(stderr, "thread %d:", (int)tid);
	for (size_t k = 0; k < len; k++)
		fprintf(stderr, " %s", json_object_get_string(json_object_array_get_idx(st, k)));
	fprintf(stderr, "\n");
	assert_int_equal(len, n < 12 ? (size_t)n : 12);
	for (size_t k = 0; k < len; k++)
		assert_string_equal(json_object_get_string(json_object_array_get_idx(st, k)), truth[k]);
	return st;
}

enum source { WALK, TASK_ITER, NONE };

static void wait_stacks_after_drop(enum source src)
{
	const char *extra[] = { "--process-records", "--window-records", "--no-syslog", "--min-samples", "3", NULL };
	char self[512], path[96];
	struct json_object *recs = NULL, *win = NULL, *st;
	long long deadline;
	ssize_t len;
	pid_t t[3];
	uint64_t caps;
	int n;

	NEED_BPF();
	if (src == WALK)
		unsetenv("PLUMBLINE_FORCE_WAIT_ITER");
	else
		setenv("PLUMBLINE_FORCE_WAIT_ITER", src == NONE ? "none" : "task", 1);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0 && len < (ssize_t)sizeof(self) - 1);
	self[len] = '\0';
	assert_int_equal(sensor_start(&sensor, extra), 0);
	/* the default: privileges dropped once attached */
	assert_true(sensor_log_wait(&sensor, "privileges dropped after attach", WAIT_MS));
	/* which of the two programs reads the stacks: the fallback says it is one */
	assert_int_equal(sensor_log_has(&sensor, "missing thread walk"), src != WALK);
	assert_int_equal(sensor_log_has(&sensor, "missing task iterator"), src == NONE);
	caps = cap_eff(sensor.pid);
	assert_int_equal(caps & (1ull << CAP_SYS_ADMIN_BIT), 0);
	for (int i = 0; i < LEARN_RUNS; i++) {
		const char *argv[] = { self, "quick", NULL };
		char out[16];
		int status;
		pid_t pid = run_capture(argv, out, sizeof(out), &status);

		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		json_object_put(records_wait_pid(&sensor, pid, 2, WAIT_MS)); /* its exit learned */
	}
	subject = start_subject(self, t);
	deadline = harness_now_ms() + WAIT_MS;
	while (!win && harness_now_ms() < deadline) {
		usleep(200000);
		json_object_put(recs);
		recs = records_load(&sensor);
		win = wait_window(recs, subject, src != NONE);
	}
	assert_non_null(win);
	fprintf(stderr, "wait window after %lld ms\n", harness_now_ms() - (deadline - WAIT_MS));
	/* main thread first (pthread_join: a futex wait), then the three */
	assert_int_equal(rec_int(json_object_array_get_idx(get(get(win, "wait"), "waiting_threads"), 0), "tid"),
			 subject);
	if (src == NONE) {
		/* no BPF source: /proc's stack is refused after the drop, the wchan
		 * (the stack's top frame, as root reads it) is what is left */
		for (int i = 0; i < 3; i++) {
			struct json_object *th = thread_of(win, t[i]);
			char names[32][64];

			snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)subject, (int)t[i]);
			assert_true(proc_stack(path, names, 32) > 0);
			assert_null(get(th, "kernel_stack"));
			assert_null(get(th, "stack_source"));
			assert_non_null(rec_str(th, "wchan"));
			fprintf(stderr, "thread %d: wchan %s, /proc's top frame %s\n", (int)t[i], rec_str(th, "wchan"),
				names[0]);
			assert_string_equal(rec_str(th, "wchan"), names[0]);
		}
		json_object_put(recs);
		assert_int_equal(sensor_stop(&sensor), 0);
		unsetenv("PLUMBLINE_FORCE_WAIT_ITER");
		return;
	}
	st = check_thread(win, subject, t[0]);
	assert_true(has_frame(st, "vfs_read") && has_frame(st, "ksys_read"));
	assert_true(has_frame(st, "anon_pipe_read") || has_frame(st, "pipe_read"));
	st = check_thread(win, subject, t[1]);
	assert_true(has_frame(st, "hrtimer_nanosleep") || has_frame(st, "do_nanosleep"));
	st = check_thread(win, subject, t[2]);
	assert_true(has_frame(st, "futex_wait"));
	check_thread(win, subject, subject);

	/* what the sensor's capabilities get from /proc: nothing */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)subject, (int)t[0]);
	n = stack_with_caps(path, caps);
	fprintf(stderr, "/proc stack with the sensor's CapEff %#llx: %d\n", (unsigned long long)caps, n);
	assert_true(n <= 0);
	json_object_put(recs);
	assert_int_equal(sensor_stop(&sensor), 0);
	unsetenv("PLUMBLINE_FORCE_WAIT_ITER");
}

/* pl_wait_threads: the process's threads alone (kfuncs, Linux 6.7+) */
static void test_wait_stacks_thread_walk(void **state)
{
	(void)state;
	wait_stacks_after_drop(WALK);
}

/* pl_wait_stacks, the task iterator every older kernel takes */
static void test_wait_stacks_task_iter(void **state)
{
	(void)state;
	wait_stacks_after_drop(TASK_ITER);
}

/* neither: what features.md says is lost (the wchan only) */
static void test_wait_stacks_none(void **state)
{
	(void)state;
	wait_stacks_after_drop(NONE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_wait_stacks_thread_walk, teardown),
		cmocka_unit_test_teardown(test_wait_stacks_task_iter, teardown),
		cmocka_unit_test_teardown(test_wait_stacks_none, teardown),
	};

	if (argc > 1 && strcmp(argv[1], "quick") == 0)
		return 0;
	if (argc > 1 && strcmp(argv[1], "wait") == 0)
		return subject_wait();
	return cmocka_run_group_tests(tests, harness_group_setup, NULL);
}
