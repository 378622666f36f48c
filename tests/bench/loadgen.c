// SPDX-License-Identifier: MIT
/*
 * loadgen.c - a paced load for the sensor (tests/bench/load.sh, tests/faults).
 *
 *   loadgen pace SYSCALLS_PER_S EXECS_PER_S SECONDS PROG
 *       one thread makes getppid(2) at SYSCALLS_PER_S, another starts PROG
 *       (a static no-op) with posix_spawn at EXECS_PER_S and reaps it; both
 *       paced in 10 ms slices against CLOCK_MONOTONIC, so a slow slice is
 *       caught up rather than lost. Prints what it achieved as one JSON line.
 *   loadgen hold N SECONDS
 *       N children that sleep (pause) at once, held SECONDS, then ended;
 *       prints {"children":N,"pids":[first,last]...} once all are started.
 *   loadgen flood SECONDS PROG
 *       spawns of PROG, one after the other, as fast as they go for SECONDS
 *       (each a fork, an exec and an exit record); prints how many.
 *
 * Reports on stdout; exits 0 when it did what it was asked.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

struct pacer {
	uint64_t rate, secs, done;
	const char *prog;
	uint64_t spawn_failures;
};

#define SLICE_NS 10000000ull

/* Do `rate` per second for secs: each slice catches up to where it should be. */
static void *syscalls(void *arg)
{
	struct pacer *p = arg;
	uint64_t t0 = now_ns(), end = t0 + p->secs * 1000000000ull, t;

	while ((t = now_ns()) < end) {
		uint64_t due = (t - t0) * p->rate / 1000000000ull + p->rate * SLICE_NS / 1000000000ull;

		while (p->done < due) {
			getppid();
			if (++p->done % 4096 == 0 && now_ns() >= end)
				break;
		}
		t = now_ns();
		if (t < end) {
			uint64_t next = t0 + ((t - t0) / SLICE_NS + 1) * SLICE_NS;
			struct timespec ts = { .tv_sec = (time_t)(next / 1000000000ull),
					       .tv_nsec = (long)(next % 1000000000ull) };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	return NULL;
}

static int spawn_one(const char *prog, pid_t *ret)
{
	char *argv[] = { (char *)prog, NULL };

	return posix_spawn(ret, prog, NULL, NULL, argv, environ);
}

static void *execs(void *arg)
{
	struct pacer *p = arg;
	uint64_t t0 = now_ns(), end = t0 + p->secs * 1000000000ull, t;

	while ((t = now_ns()) < end) {
		uint64_t due = (t - t0) * p->rate / 1000000000ull + 1;

		/* behind (spawns slower than the rate): catch up only until the end */
		while (p->done < due && now_ns() < end) {
			pid_t pid;

			if (spawn_one(p->prog, &pid) != 0) {
				p->spawn_failures++;
				break;
			}
			waitpid(pid, NULL, 0);
			p->done++;
		}
		t = now_ns();
		if (t < end) {
			struct timespec ts = { .tv_nsec = 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static int pace(char **argv)
{
	struct pacer sc = { 0 }, ex = { 0 };
	pthread_t a, b;
	uint64_t t0, dt;

	if (parse_u64(argv[0], &sc.rate) || parse_u64(argv[1], &ex.rate) || parse_u64(argv[2], &sc.secs))
		return 2;
	ex.secs = sc.secs;
	ex.prog = argv[3];
	t0 = now_ns();
	if (pthread_create(&a, NULL, syscalls, &sc) || pthread_create(&b, NULL, execs, &ex))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	dt = now_ns() - t0;
	printf("{\"seconds\":%.3f,\"syscalls\":%llu,\"syscalls_per_s\":%.0f,\"execs\":%llu,\"execs_per_s\":%.1f,"
	       "\"spawn_failures\":%llu}\n",
	       dt / 1e9, (unsigned long long)sc.done, sc.done / (dt / 1e9), (unsigned long long)ex.done,
	       ex.done / (dt / 1e9), (unsigned long long)ex.spawn_failures);
	return ex.spawn_failures ? 1 : 0;
}

static int hold(char **argv)
{
	uint64_t n, secs, started = 0;
	pid_t *pids, first = 0, last = 0;
	int rc = 0;

	if (parse_u64(argv[0], &n) || parse_u64(argv[1], &secs) || n == 0 || n > 1000000)
		return 2;
	pids = calloc(n, sizeof(*pids));
	if (!pids)
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "fork %llu: %s\n", (unsigned long long)i, strerror(errno));
			rc = 1;
			break;
		}
		if (pid == 0) {
			pause();
			_exit(0);
		}
		pids[started++] = pid;
		if (!first)
			first = pid;
		last = pid;
	}
	printf("{\"children\":%llu,\"first\":%d,\"last\":%d,\"parent\":%d}\n", (unsigned long long)started, first, last,
	       getpid());
	fflush(stdout);
	if (!rc)
		sleep((unsigned)secs);
	for (uint64_t i = 0; i < started; i++)
		kill(pids[i], SIGKILL);
	for (uint64_t i = 0; i < started; i++)
		waitpid(pids[i], NULL, 0);
	free(pids);
	return rc;
}

static int flood(char **argv)
{
	uint64_t secs, done = 0, end;
	int rc = 0;

	if (parse_u64(argv[0], &secs))
		return 2;
	end = now_ns() + secs * 1000000000ull;
	while (now_ns() < end) {
		pid_t pid;

		if (spawn_one(argv[1], &pid) != 0) {
			rc = 1;
			break;
		}
		waitpid(pid, NULL, 0);
		done++;
	}
	printf("{\"spawned\":%llu,\"parent\":%d}\n", (unsigned long long)done, getpid());
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "pace") == 0)
		return pace(argv + 2);
	if (argc == 4 && strcmp(argv[1], "hold") == 0)
		return hold(argv + 2);
	if (argc == 4 && strcmp(argv[1], "flood") == 0)
		return flood(argv + 2);
	fprintf(stderr, "usage: loadgen pace SYSCALLS_PER_S EXECS_PER_S SECONDS PROG | hold N SECONDS | flood SECONDS PROG\n");
	return 2;
}
