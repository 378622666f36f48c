// SPDX-License-Identifier: MIT
/*
 * sensor_harness.c - process plumbing for the real-kernel tests. Every
 * sensor started is remembered by pid and directory (copies: a failed
 * assertion longjmps out of the test, so a sensor_proc on its stack is gone)
 * until sensor_cleanup, so that a teardown or the exit can stop what a
 * failed test left running.
 */
#include "sensor_harness.h"
#include "test_records.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PL_SENSOR_BIN
#error PL_SENSOR_BIN must be defined
#endif

bool harness_bpf_available(char *why, size_t size)
{
	if (geteuid() != 0) {
		snprintf(why, size, "not root: loading BPF needs root");
		return false;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(why, size, "no kernel BTF at /sys/kernel/btf/vmlinux");
		return false;
	}
	return true;
}

bool harness_require_bpf(void)
{
	const char *v = getenv("PLUMBLINE_REQUIRE_BPF");

	return v && strcmp(v, "1") == 0;
}

static bool have_bpf;

int harness_group_setup(void **state)
{
	char why[128];

	have_bpf = harness_bpf_available(why, sizeof(why));
	if (!have_bpf) {
		fprintf(stderr, "BPF unavailable: %s\n", why);
		return harness_require_bpf() ? -1 : 0;
	}
	return 0;
}

bool harness_have_bpf(void)
{
	return have_bpf;
}

/* ---- the sensors this process started ---- */

#define MAX_LIVE 32

static struct live {
	const struct sensor_proc *s; /* identity only: never dereferenced */
	pid_t pid;		     /* 0 once stopped */
	bool shared;
	char dir[64];
} live[MAX_LIVE];
static pid_t owner; /* the test process: a forked child that calls exit() cleans nothing */

static void live_cleanup(bool keep_shared);

static void live_at_exit(void)
{
	if (getpid() == owner)
		live_cleanup(false);
}

static struct live *live_of(const struct sensor_proc *s)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i].s == s)
			return &live[i];
	return NULL;
}

static void live_add(const struct sensor_proc *s)
{
	struct live *l = live_of(s);

	if (!owner) {
		owner = getpid();
		atexit(live_at_exit);
	}
	if (l && strcmp(l->dir, s->dir) != 0) {
		/* a failed test's sensor_proc, at the same stack address: keep its
		 * sensor for the cleanup, under a marker no sensor_proc has */
		l->s = (const struct sensor_proc *)live;
		l = NULL;
	}
	if (!l)
		l = live_of(NULL);
	if (!l)
		return; /* more than MAX_LIVE at once: PDEATHSIG still ends them */
	l->s = s;
	l->pid = s->pid;
	snprintf(l->dir, sizeof(l->dir), "%s", s->dir);
}

static void live_stopped(const struct sensor_proc *s)
{
	struct live *l = live_of(s);

	if (l)
		l->pid = 0;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	return remove(path) < 0 ? 0 : 0; /* best effort: keep going */
}

static void remove_dir(const char *dir)
{
	if (getenv("PLUMBLINE_KEEP_TEST_FILES")) {
		fprintf(stderr, "kept %s\n", dir);
		return;
	}
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Stop (SIGINT, SIGKILL past 30 s) and remove what is left. */
static void live_cleanup(bool keep_shared)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		struct live *l = &live[i];

		if (!l->s || (keep_shared && l->shared))
			continue;
		if (l->pid > 0) {
			struct sensor_proc tmp = {.pid = l->pid};

			fprintf(stderr, "a sensor left running (pid %d, %s): stopped\n", (int)l->pid, l->dir);
			snprintf(tmp.log, sizeof(tmp.log), "%s/sensor.log", l->dir);
			if (sensor_stop_within(&tmp, SIGINT, 30000) == -ETIMEDOUT)
				fprintf(stderr, "the sensor did not stop on SIGINT within 30 s: killed\n");
		}
		remove_dir(l->dir);
		memset(l, 0, sizeof(*l));
	}
}

int harness_teardown(void **state)
{
	live_cleanup(true);
	return 0;
}

int harness_group_setup_shared(struct sensor_proc *shared, const char *const *extra)
{
	struct live *l;

	if (harness_group_setup(NULL) < 0)
		return -1;
	if (!have_bpf)
		return 0;
	if (sensor_start(shared, extra) < 0) {
		fprintf(stderr, "cannot start the sensor (log: %s)\n", shared->log);
		return -1;
	}
	l = live_of(shared);
	if (l)
		l->shared = true;
	return 0;
}

int harness_group_teardown(struct sensor_proc *shared)
{
	int st = 0;

	if (have_bpf && shared && shared->dir[0]) {
		if (shared->pid > 0)
			st = sensor_stop(shared);
		sensor_cleanup(shared);
	}
	live_cleanup(false);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "sensor exit status %d\n", st);
		return -1;
	}
	return 0;
}

long long harness_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

void harness_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

int sensor_start(struct sensor_proc *s, const char *const *extra)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/plumbline-test-XXXXXX");
	if (!mkdtemp(s->dir))
		return -errno;
	snprintf(s->json, sizeof(s->json), "%s/records.jsonl", s->dir);
	snprintf(s->log, sizeof(s->log), "%s/sensor.log", s->dir);
	snprintf(s->out, sizeof(s->out), "%s/sensor.out", s->dir);
	snprintf(s->state, sizeof(s->state), "%s/state", s->dir);
	return sensor_restart(s, extra);
}

int sensor_restart(struct sensor_proc *s, const char *const *extra)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *argv[40];
	char buf[64];
	int n = 0, sock;
	long long deadline;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", s->dir);
	unlink(sa.sun_path);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;

	argv[n++] = PL_SENSOR_BIN;
	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = s->json;
	argv[n++] = "--no-live";
	argv[n++] = "--state-dir";
	argv[n++] = s->state;
#ifdef HARNESS_RINGBUF_KB
	/* before the test's own options: a --ringbuf-kb of the test wins */
	argv[n++] = "--ringbuf-kb";
	argv[n++] = HARNESS_RINGBUF_KB;
#endif
	for (int i = 0; extra && extra[i] && n < 38; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;

	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int out = open(s->out, O_WRONLY | O_CREAT | O_APPEND, 0644);

		/* a test process that dies (a ctest timeout) takes its sensor along */
		prctl(PR_SET_PDEATHSIG, SIGTERM);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		if (out >= 0)
			dup2(out, STDOUT_FILENO);
		setenv("NOTIFY_SOCKET", sa.sun_path, 1);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	live_add(s);
	deadline = harness_now_ms() + 30000 * HARNESS_SLOWDOWN;
	for (;;) {
		struct pollfd p = {.fd = sock, .events = POLLIN};
		int st;

		if (poll(&p, 1, 200) == 1) {
			ssize_t r = recv(sock, buf, sizeof(buf) - 1, 0);

			if (r > 0) {
				buf[r] = '\0';
				if (strstr(buf, "READY=1"))
					break;
			}
		}
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			fprintf(stderr, "sensor exited before READY (status %d); its log is %s\n", st, s->log);
			s->pid = 0;
			live_stopped(s);
			close(sock);
			return -ECHILD;
		}
		if (harness_now_ms() > deadline) {
			close(sock);
			return -ETIMEDOUT;
		}
	}
	close(sock);
	return 0;
}

/*
 * A sanitizer report in the sensor's log (the sanitized sensor of
 * PL_SANITIZED_TESTS, cmake/sanitized_tests.cmake) fails the test whatever the
 * test thought of the exit: the report is printed and the test aborts.
 */
static void fail_on_sanitizer_report(const struct sensor_proc *s)
{
	static const char *const marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
					    "SUMMARY: UndefinedBehaviorSanitizer"};
	static char buf[1 << 20];
	const char *hit = NULL;
	ssize_t n;
	int fd;

	fd = open(s->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && !hit; i++)
		hit = strstr(buf, marks[i]);
	if (!hit)
		return;
	/* what led to it, then the report */
	hit = hit - buf > 8192 ? hit - 8192 : buf;
	fprintf(stderr, "sanitizer report in the sensor's log %s:\n%s\n", s->log, hit);
	abort();
}

int sensor_stop(struct sensor_proc *s)
{
	int st;

	if (s->pid <= 0)
		return -ECHILD;
	kill(s->pid, SIGINT);
	if (waitpid(s->pid, &st, 0) < 0)
		return -errno;
	s->pid = 0;
	live_stopped(s);
	fail_on_sanitizer_report(s);
	return st;
}

int sensor_stop_within(struct sensor_proc *s, int sig, int timeout_ms)
{
	long long deadline = harness_now_ms() + timeout_ms;
	int st;

	if (s->pid <= 0)
		return -ECHILD;
	kill(s->pid, sig);
	for (;;) {
		pid_t r = waitpid(s->pid, &st, WNOHANG);

		if (r == s->pid)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (harness_now_ms() > deadline) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &st, 0);
			s->pid = 0;
			live_stopped(s);
			return -ETIMEDOUT;
		}
		usleep(10000);
	}
	s->pid = 0;
	live_stopped(s);
	fail_on_sanitizer_report(s);
	return st;
}

/*
 * Copy what the sensor wrote (its --json file, and any rotated copy of it:
 * regular files only, never through a symlink a test planted) into the
 * test's records directory (test_records.h), where the schema_records test
 * validates every record against docs/schema/.
 */
static void keep_records(const struct sensor_proc *s)
{
	const char *dir = test_records__dir(false);
	static unsigned seq;
	struct dirent *de;
	DIR *d;

	if (!dir || !dir[0] || !s->dir[0] || !(d = opendir(s->dir)))
		return;
	while ((de = readdir(d))) {
		char src[512], dst[1024 + 512], buf[65536];
		struct stat st;
		ssize_t n;
		int in, out;

		if (strncmp(de->d_name, "records.jsonl", 13) != 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", s->dir, de->d_name);
		if (lstat(src, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s-%d-%u.jsonl", dir, program_invocation_short_name, (int)getpid(),
			 seq++);
		in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				break;
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
	}
	closedir(d);
}

void sensor_cleanup(struct sensor_proc *s)
{
	struct live *l;

	if (s->pid > 0 && sensor_stop_within(s, SIGINT, 30000) == -ETIMEDOUT)
		fprintf(stderr, "the sensor did not stop on SIGINT within 30 s: killed\n");
	keep_records(s);
	json_object_put(s->cache);
	s->cache = NULL;
	s->read_off = 0;
	l = live_of(s);
	if (l)
		memset(l, 0, sizeof(*l));
	remove_dir(s->dir);
}

pid_t run_capture(const char *const *argv, char *out, size_t size, int *status)
{
	return run_capture_cpu(argv, out, size, status, NULL);
}

long long rusage_cpu_ns(const struct rusage *ru)
{
	return ((long long)ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000ll +
	       ((long long)ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000ll;
}

pid_t run_capture_cpu(const char *const *argv, char *out, size_t size, int *status, long long *ret_cpu_ns)
{
	struct rusage ru = {0};
	int p[2];
	size_t got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], out + got, size - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == size - 1)
			break;
	}
	out[got] = '\0';
	close(p[0]);
	wait4(pid, status, 0, &ru);
	if (ret_cpu_ns)
		*ret_cpu_ns = rusage_cpu_ns(&ru);
	return pid;
}

int run_capture_err(const char *const *argv, char *err, size_t size, int timeout_ms, int *status)
{
	long long deadline = harness_now_ms() + timeout_ms;
	size_t got = 0;
	bool killed = false;
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(p[1], STDERR_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		long long left = deadline - harness_now_ms();
		ssize_t n;

		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		if (poll(&pf, 1, (int)left) <= 0)
			continue;
		if (got < size - 1) {
			n = read(p[0], err + got, size - 1 - got);
			if (n > 0)
				got += (size_t)n;
		} else {
			char drop[4096]; /* keep the child from blocking on a full pipe */

			n = read(p[0], drop, sizeof(drop));
		}
		if (n <= 0)
			break;
	}
	err[got] = '\0';
	close(p[0]);
	waitpid(pid, status, 0);
	return killed ? -ETIMEDOUT : 0;
}

struct json_object *records_load(struct sensor_proc *s)
{
	FILE *f = fopen(s->json, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!s->cache)
		s->cache = json_object_new_array();
	if (f && fseek(f, s->read_off, SEEK_SET) == 0) {
		while ((n = getline(&line, &cap, f)) > 0) {
			struct json_object *o;

			if (line[n - 1] != '\n')
				break; /* being written: next time */
			s->read_off += n;
			o = json_tokener_parse(line);
			if (o)
				json_object_array_add(s->cache, o);
		}
	}
	free(line);
	if (f)
		fclose(f);
	return json_object_get(s->cache);
}

long long rec_int(struct json_object *r, const char *key)
{
	struct json_object *v;

	return r && json_object_object_get_ex(r, key, &v) ? json_object_get_int64(v) : 0;
}

const char *rec_str(struct json_object *r, const char *key)
{
	struct json_object *v;

	return r && json_object_object_get_ex(r, key, &v) && v ? json_object_get_string(v) : NULL;
}

long long rec_syscall(struct json_object *r, const char *name)
{
	struct json_object *by;

	return r && json_object_object_get_ex(r, "syscalls_by_name", &by) ? rec_int(by, name) : 0;
}

static bool is_process_of(struct json_object *r, pid_t pid)
{
	const char *t = rec_str(r, "type");

	return t && strcmp(t, "process") == 0 && rec_int(r, "pid") == pid;
}

struct json_object *records_find(struct json_object *recs, pid_t pid, const char *image)
{
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *im = rec_str(r, "image");

		if (is_process_of(r, pid) && im && strcmp(im, image) == 0)
			return r;
	}
	return NULL;
}

struct json_object *records_wait_pid(struct sensor_proc *s, pid_t pid, int count, int timeout_ms)
{
	long long deadline = harness_now_ms() + timeout_ms;

	for (;;) {
		struct json_object *recs = records_load(s), *out = json_object_new_array();

		for (size_t i = 0; i < json_object_array_length(recs); i++) {
			struct json_object *r = json_object_array_get_idx(recs, i);

			if (is_process_of(r, pid))
				json_object_array_add(out, json_object_get(r));
		}
		json_object_put(recs);
		if ((int)json_object_array_length(out) >= count)
			return out;
		json_object_put(out);
		if (harness_now_ms() > deadline)
			return NULL;
		usleep(20000);
	}
}

struct json_object *records_last_stats(struct json_object *recs)
{
	struct json_object *last = NULL;

	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type");

		if (t && strcmp(t, "stats") == 0)
			last = r;
	}
	return last;
}

/* The stats records of recs, and the last one in *ret_last. */
static size_t count_stats(struct json_object *recs, struct json_object **ret_last)
{
	size_t n = 0;

	*ret_last = NULL;
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type");

		if (t && strcmp(t, "stats") == 0) {
			n++;
			*ret_last = r;
		}
	}
	return n;
}

size_t records_count_stats(struct sensor_proc *s)
{
	struct json_object *recs = records_load(s), *last;
	size_t n = count_stats(recs, &last);

	json_object_put(recs);
	return n;
}

struct json_object *records_wait_stats(struct sensor_proc *s, size_t n, int timeout_ms)
{
	long long deadline = harness_now_ms() + timeout_ms;

	for (;;) {
		struct json_object *recs = records_load(s), *last;

		if (count_stats(recs, &last) > n) {
			json_object_get(last);
			json_object_put(recs);
			return last;
		}
		json_object_put(recs);
		if (harness_now_ms() > deadline)
			return NULL;
		usleep(20000);
	}
}

bool sensor_log_has(const struct sensor_proc *s, const char *what)
{
	char line[2048];
	bool found = false;
	FILE *f = fopen(s->log, "re");

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

bool sensor_log_wait(const struct sensor_proc *s, const char *what, int timeout_ms)
{
	long long deadline = harness_now_ms() + timeout_ms;

	while (harness_now_ms() < deadline) {
		if (sensor_log_has(s, what))
			return true;
		usleep(50000);
	}
	return sensor_log_has(s, what);
}
