// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_threads2 N - one process, two threads, each pinned to a CPU of its
 * own, each making N raw getppid system calls back to back; both start
 * together at a barrier. Anything a sensor keeps per process and writes on
 * every syscall (a counter in a shared entry) is written from two CPUs at
 * once and its cache line bounces between them: W1 cannot show that.
 *
 * The two CPUs are the first two of the process's affinity mask; with fewer
 * than two it exits 3 ("needs two CPUs") so the caller can say n/a.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct worker {
	pthread_t thread;
	int cpu;
	unsigned long n;
	pthread_barrier_t *start;
	int err; /* pinning failed: errno */
};

static int parse_count(const char *s, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *ret == 0 ? -1 : 0;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	/* Wait even when pinning failed, or the other side waits forever. */
	pthread_barrier_wait(w->start);
	if (w->err)
		return NULL;
	for (unsigned long i = 0; i < w->n; i++)
		syscall(SYS_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[2] = { 0 };
	pthread_barrier_t start;
	cpu_set_t set;
	unsigned long n;
	int k = 0, r, ret = 0;

	if (argc != 2 || parse_count(argv[1], &n)) {
		fprintf(stderr, "usage: bench_threads2 N (N > 0 getppid in each of two threads)\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bench_threads2: sched_getaffinity: %s\n", strerror(errno));
		return 1;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && k < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			w[k++].cpu = cpu;
	if (k < 2) {
		fprintf(stderr, "bench_threads2: needs two CPUs, has %d\n", k);
		return 3;
	}
	r = pthread_barrier_init(&start, NULL, 2);
	if (r) {
		fprintf(stderr, "bench_threads2: pthread_barrier_init: %s\n", strerror(r));
		return 1;
	}
	for (k = 0; k < 2; k++) {
		w[k].n = n;
		w[k].start = &start;
		r = pthread_create(&w[k].thread, NULL, run, &w[k]);
		if (r) {
			fprintf(stderr, "bench_threads2: pthread_create: %s\n", strerror(r));
			return 1; /* the first thread, if any, waits at the barrier */
		}
	}
	for (k = 0; k < 2; k++) {
		pthread_join(w[k].thread, NULL);
		if (w[k].err) {
			fprintf(stderr, "bench_threads2: cannot pin a thread to CPU %d: %s\n", w[k].cpu,
				strerror(w[k].err));
			ret = 1;
		}
	}
	pthread_barrier_destroy(&start);
	return ret;
}
