// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_spawn N WORKERS PROG - a flood of short-lived processes: WORKERS
 * threads, started together, share N posix_spawn(PROG) + waitpid between
 * them, each spawning its next child as soon as the last one is reaped.
 * PROG should be bench_noop (static: no dynamic loader, a handful of
 * syscalls), so what is timed is process creation, exec and exit, and
 * whatever a sensor does for each.
 */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_WORKERS 64

struct worker {
	pthread_t thread;
	const char *prog;
	unsigned long n;
	pthread_barrier_t *start;
	char err[160]; /* the first failure, or "" */
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

	pthread_barrier_wait(w->start);
	for (unsigned long i = 0; i < w->n; i++) {
		char *args[] = { (char *)w->prog, NULL };
		int status, r;
		pid_t pid;

		r = posix_spawn(&pid, w->prog, NULL, NULL, args, environ);
		if (r) {
			snprintf(w->err, sizeof(w->err), "posix_spawn %s: %s", w->prog, strerror(r));
			return NULL;
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				snprintf(w->err, sizeof(w->err), "waitpid: %s", strerror(errno));
				return NULL;
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			snprintf(w->err, sizeof(w->err), "%s failed (status 0x%x)", w->prog, status);
			return NULL;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_WORKERS] = { 0 };
	pthread_barrier_t start;
	unsigned long n, nw;
	int r, ret = 0;

	if (argc != 4 || parse_count(argv[1], &n) || parse_count(argv[2], &nw) || nw > MAX_WORKERS || nw > n ||
	    argv[3][0] != '/') {
		fprintf(stderr,
			"usage: bench_spawn N WORKERS PROG (0 < WORKERS <= %d, WORKERS <= N; PROG an "
			"absolute path, e.g. bench_noop)\n",
			MAX_WORKERS);
		return 2;
	}
	r = pthread_barrier_init(&start, NULL, (unsigned)nw);
	if (r) {
		fprintf(stderr, "bench_spawn: pthread_barrier_init: %s\n", strerror(r));
		return 1;
	}
	for (unsigned long k = 0; k < nw; k++) {
		w[k].prog = argv[3];
		w[k].n = n / nw + (k < n % nw);
		w[k].start = &start;
		r = pthread_create(&w[k].thread, NULL, run, &w[k]);
		if (r) {
			fprintf(stderr, "bench_spawn: pthread_create: %s\n", strerror(r));
			return 1; /* those started wait at the barrier; exiting ends them */
		}
	}
	for (unsigned long k = 0; k < nw; k++) {
		pthread_join(w[k].thread, NULL);
		if (w[k].err[0]) {
			fprintf(stderr, "bench_spawn: worker %lu: %s\n", k, w[k].err);
			ret = 1;
		}
	}
	pthread_barrier_destroy(&start);
	return ret;
}
