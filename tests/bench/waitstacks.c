// SPDX-License-Identifier: MIT
/*
 * waitstacks.c - what one wait-stack read costs (bpf/waits.bpf.c,
 * bpfsensor__wait_stacks()): the sensor's BPF object loaded and attached as
 * `plumbline run` does it, then N reads of the threads of process PID, timed
 * together. With thread_iter a read is one test run of pl_wait_threads,
 * which walks PID's threads alone; without it (or with
 * PLUMBLINE_FORCE_WAIT_ITER=task) a read of the task iterator, which walks
 * every task of the host, so the figure grows with the host's thread count,
 * not PID's: run it with a few extra threads parked (EXTRA, default 0) to
 * see the slope. Not a test: figures depend on the machine
 * (docs/performance.md).
 *
 *   bench_waitstacks PID [N [EXTRA]]      (root)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probes/bpfsensor.h"
#include "process/waitstate.h"
#include "plumbline.h"

#define MAX_RECS 256 /* waitstate.c's bound */

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *parked(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int count_tasks(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	int run = 0, total = 0;

	if (f) {
		if (fscanf(f, "%*s %*s %*s %d/%d", &run, &total) != 2)
			total = 0;
		fclose(f);
	}
	return total;
}

int main(int argc, char **argv)
{
	struct bpfsensor_opts o = { .max_procs = 8192, .max_fail_paths = 1024, .ringbuf_kb = 1024,
				    .fail_keys_burst = 16, .fail_keys_per_s = 16 };
	static struct pl_wait_rec buf[MAX_RECS];
	struct pl_features f;
	struct bpfsensor *s;
	int n, extra;
	long got = 0;
	pid_t pid;
	double t0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PID [N [EXTRA]]\n", argv[0]);
		return 2;
	}
	pid = (pid_t)strtol(argv[1], NULL, 10);
	n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1000;
	extra = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 0;
	for (int i = 0; i < extra; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, parked, NULL))
			return 1;
	}
	features__probe(&f, false);
	if (!f.have[PL_FEAT_TASK_ITER] || bpfsensor__open(&o, &f, on_record, NULL, &s) < 0) {
		fprintf(stderr, "no task iterator here (plumbline features)\n");
		return 1;
	}
	printf("%s\n", f.have[PL_FEAT_THREAD_ITER] ? "pl_wait_threads (thread_iter)" : "pl_wait_stacks (task_iter)");
	t0 = now_ns();
	for (int i = 0; i < n; i++) {
		got = bpfsensor__wait_stacks(s, (uint32_t)pid, buf, sizeof(buf));
		if (got < 0) {
			fprintf(stderr, "read %d of pid %d: %s\n", i, (int)pid, strerror((int)-got));
			bpfsensor__free(s);
			return 1;
		}
	}
	printf("%d reads of pid %d with %d tasks on the host: %ld bytes (%ld threads) each, %.1f us per read\n", n,
	       (int)pid, count_tasks(), got, got > 0 ? got / (long)sizeof(buf[0]) : 0,
	       (now_ns() - t0) / (n > 0 ? n : 1) / 1e3);
	bpfsensor__free(s);
	return 0;
}
