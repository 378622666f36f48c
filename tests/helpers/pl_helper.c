// SPDX-License-Identifier: MIT
/*
 * pl_helper.c - a program whose costs are known, for ground-truth tests.
 *
 * Linked statically so that no dynamic loader adds syscalls of its own; the
 * startup syscalls of static glibc are measured by running the helper with
 * zero work. Every mode makes exactly the syscalls it says, then reports the
 * kernel's own accounting of itself (getrusage, /proc/self/schedstat) as one
 * JSON line on stdout with a single write(2).
 *
 *   pl_helper truth N M PATH BURN_MS SLEEP_MS   N getppid, M failing openat(PATH), burn, sleep
 *   pl_helper threads T N BURN_MS               T threads x (N getppid + burn)
 *   pl_helper rename NAME N                     prctl(PR_SET_NAME, NAME), N getppid
 *   pl_helper exec N PROG ARGV0 ARGS...         N getppid, then execv(PROG, [ARGV0, ARGS...])
 *   pl_helper children K N                      K concurrent children; child i makes N+i getppid
 *   pl_helper work MITER                        a fixed amount of work: MITER million loop
 *                                               iterations (the same CPU whatever the load)
 *   pl_helper spin SECONDS [CPU]                burn CPU for SECONDS of wall time [pinned to CPU]
 *   pl_helper exit CODE                         exit with CODE after one getppid
 *   pl_helper failmany N PREFIX SLEEP_MS         N failing openat, each of its own path
 *                                               PREFIX/<i>, then sleep
 *   pl_helper failpause M PATH SLEEP_MS M2       M failing openat(PATH), sleep, M2 more
 *   pl_helper run PROG ARGV0 ARGS...            run PROG as a child, [ARGV0, ARGS...], and exit as it did
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t arg_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s) {
		fprintf(stderr, "pl_helper: bad number '%s'\n", s);
		exit(64);
	}
	return v;
}

/* CLOCK_MONOTONIC is served by the vDSO: reading it makes no syscall. */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Written by burn_ms(), so the compiler can't drop the loop. */
volatile uint64_t burn_sink;

static void burn_ms(uint64_t ms)
{
	uint64_t end = mono_ns() + ms * 1000000ull;

	while (mono_ns() < end)
		for (int i = 0; i < 1000; i++)
			burn_sink += i;
}

static void getppids(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/* One write(2) with the kernel's accounting of this process so far. */
static void report(void)
{
	struct rusage ru;
	char buf[256];
	int n;

	getrusage(RUSAGE_SELF, &ru);
	n = snprintf(buf, sizeof(buf), "{\"pid\":%d,\"ru_cpu_ns\":%llu}\n", (int)getpid(),
		     (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
			     (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull);
	if (write(STDOUT_FILENO, buf, (size_t)n) != n)
		_exit(65);
}

static int mode_truth(char **a)
{
	uint64_t n = arg_u64(a[0]), m = arg_u64(a[1]), burn = arg_u64(a[3]), sleep_ms = arg_u64(a[4]);
	struct timespec ts = { .tv_sec = sleep_ms / 1000, .tv_nsec = (sleep_ms % 1000) * 1000000 };

	getppids(n);
	for (uint64_t i = 0; i < m; i++)
		if (syscall(SYS_openat, AT_FDCWD, a[2], O_RDONLY) >= 0)
			return 66; /* the path must not exist */
	burn_ms(burn);
	if (sleep_ms)
		syscall(SYS_nanosleep, &ts, NULL);
	report();
	return 0;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	if (ms)
		syscall(SYS_nanosleep, &ts, NULL);
}

static int fail_open(const char *path, uint64_t times)
{
	for (uint64_t i = 0; i < times; i++)
		if (syscall(SYS_openat, AT_FDCWD, path, O_RDONLY) >= 0)
			return 66; /* the path must not exist */
	return 0;
}

static int mode_failmany(char **a)
{
	uint64_t n = arg_u64(a[0]);
	char path[512];

	for (uint64_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%llu", a[1], (unsigned long long)i);
		if (fail_open(path, 1))
			return 66;
	}
	sleep_ms(arg_u64(a[2]));
	report();
	return 0;
}

static int mode_failpause(char **a)
{
	if (fail_open(a[1], arg_u64(a[0])))
		return 66;
	sleep_ms(arg_u64(a[2]));
	if (fail_open(a[1], arg_u64(a[3])))
		return 66;
	report();
	return 0;
}

struct thread_arg {
	uint64_t n, burn;
};

static void *thread_main(void *p)
{
	struct thread_arg *t = p;

	getppids(t->n);
	burn_ms(t->burn);
	return NULL;
}

static int mode_threads(char **a)
{
	uint64_t nt = arg_u64(a[0]);
	struct thread_arg arg = { .n = arg_u64(a[1]), .burn = arg_u64(a[2]) };
	pthread_t th[64];

	if (nt > 64)
		return 64;
	for (uint64_t i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, thread_main, &arg))
			return 67;
	for (uint64_t i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	report();
	return 0;
}

static int mode_children(char **a)
{
	uint64_t k = arg_u64(a[0]), n = arg_u64(a[1]);
	int status, failed = 0;

	for (uint64_t i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 68;
		if (pid == 0) {
			getppids(n + i);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	return failed ? 69 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "truth") == 0 && argc == 7)
		return mode_truth(argv + 2);
	if (strcmp(mode, "threads") == 0 && argc == 5)
		return mode_threads(argv + 2);
	if (strcmp(mode, "rename") == 0 && argc == 4) {
		prctl(PR_SET_NAME, argv[2]);
		getppids(arg_u64(argv[3]));
		report();
		return 0;
	}
	if (strcmp(mode, "exec") == 0 && argc >= 4) {
		getppids(arg_u64(argv[2]));
		execv(argv[3], argv + 4);
		return 70;
	}
	if (strcmp(mode, "children") == 0 && argc == 4)
		return mode_children(argv + 2);
	if (strcmp(mode, "spin") == 0 && (argc == 3 || argc == 4)) {
		if (argc == 4) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((int)arg_u64(argv[3]), &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				return 71;
		}
		burn_ms(arg_u64(argv[2]) * 1000);
		report();
		return 0;
	}
	if (strcmp(mode, "work") == 0 && argc == 3) {
		volatile uint64_t x = 0;

		for (uint64_t i = 0, n = arg_u64(argv[2]) * 1000000ull; i < n; i++)
			x += i ^ (x >> 3);
		report();
		return 0;
	}
	if (strcmp(mode, "failmany") == 0 && argc == 5)
		return mode_failmany(argv + 2);
	if (strcmp(mode, "failpause") == 0 && argc == 6)
		return mode_failpause(argv + 2);
	if (strcmp(mode, "run") == 0 && argc >= 4) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			return 72;
		if (pid == 0) {
			execv(argv[2], argv + 3);
			_exit(70);
		}
		if (waitpid(pid, &status, 0) < 0)
			return 73;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	if (strcmp(mode, "exit") == 0 && argc == 3) {
		getppids(1);
		return (int)arg_u64(argv[2]);
	}
	fprintf(stderr, "usage: see the comment at the top of pl_helper.c\n");
	return 64;
}
