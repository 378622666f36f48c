// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_hooks [N [ROUNDS]] - what each hook the sensor uses costs every
 * syscall, whatever the syscall: the empty programs of floor.bpf.c attached
 * one hook set at a time, each measured against tp_btf/sys_enter alone in
 * the same process, seconds apart.
 *
 * Each round times N getppid (default 200000) under the base set (the empty
 * sys_enter program) and under the base set plus each other hook, in CPU
 * time of this thread (CLOCK_THREAD_CPUTIME_ID: what other processes take of
 * the CPU does not count), the sets' order rotating from round to round;
 * it prints, per hook, the median over ROUNDS (default 21) of the
 * difference, in ns per getppid. A syscall tracepoint of one syscall
 * (syscalls:sys_exit_openat) turns on the kernel's sys_exit (or sys_enter)
 * tracepoint for every syscall, where the syscall's number is then tested:
 * that test is what a getppid pays for it. Attaching and detaching is done
 * with links, so nothing is reloaded between rounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor_bpf.skel.h"

#define MAX_ROUNDS 101

struct hookset {
	const char *name;
	struct bpf_program *progs[4];
};

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double per_call(unsigned long n)
{
	long long t0 = thread_ns();

	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (double)(thread_ns() - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	unsigned long n = 200000, rounds = 21;
	struct floor_bpf *skel;
	struct bpf_link *base, *links[4];
	static double d[8][MAX_ROUNDS], abs_base[MAX_ROUNDS], abs_none[MAX_ROUNDS];
	int nsets, ret = 1;

	if (argc > 1)
		n = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		rounds = strtoul(argv[2], NULL, 10);
	if (argc > 3 || n == 0 || rounds == 0 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: bench_hooks [N [ROUNDS]] (N > 0, 0 < ROUNDS <= %d)\n", MAX_ROUNDS);
		return 2;
	}
	libbpf_set_print(print_libbpf);
	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "bench_hooks: cannot load floor.bpf.c: %s (needs root)\n", strerror(errno));
		return 1;
	}
	struct hookset sets[] = {
		{ "syscalls:sys_exit_open{,at,at2},creat (the open family's results)",
		  { skel->progs.floor_exit_openat, skel->progs.floor_exit_open, skel->progs.floor_exit_openat2,
		    skel->progs.floor_exit_creat } },
		{ "syscalls:sys_enter_mmap", { skel->progs.floor_enter_mmap } },
		{ "syscalls:sys_exit_mmap", { skel->progs.floor_exit_mmap } },
		{ "sock:inet_sock_set_state", { skel->progs.floor_sock_state } },
	};
	nsets = sizeof(sets) / sizeof(sets[0]);
	per_call(n); /* warm-up */
	for (unsigned long r = 0; r < rounds; r++) {
		abs_none[r] = per_call(n);
		base = bpf_program__attach(skel->progs.floor_sys_enter);
		if (!base) {
			fprintf(stderr, "bench_hooks: attach sys_enter: %s\n", strerror(errno));
			goto out;
		}
		for (int k = 0; k < nsets; k++) {
			int s = (int)((k + r) % nsets), m = 0;
			double b0, with, b1;

			b0 = per_call(n);
			for (; m < 4 && sets[s].progs[m]; m++) {
				links[m] = bpf_program__attach(sets[s].progs[m]);
				if (!links[m]) {
					fprintf(stderr, "bench_hooks: attach %s: %s\n", sets[s].name, strerror(errno));
					goto out;
				}
			}
			with = per_call(n);
			while (m-- > 0)
				bpf_link__destroy(links[m]);
			b1 = per_call(n);
			/* against the base runs just before and just after */
			d[s][r] = with - (b0 + b1) / 2;
			if (k == 0)
				abs_base[r] = b0;
		}
		bpf_link__destroy(base);
	}
	qsort(abs_none, rounds, sizeof(double), cmp_double);
	qsort(abs_base, rounds, sizeof(double), cmp_double);
	printf("bench_hooks: %lu getppid x %lu rounds, CPU time of this thread, medians\n", n, rounds);
	printf("| hook | ns per getppid |\n|---|---:|\n");
	printf("| none (getppid alone) | %.1f |\n", abs_none[rounds / 2]);
	printf("| tp_btf/sys_enter, empty (the base) | %.1f (+%.1f) |\n", abs_base[rounds / 2],
	       abs_base[rounds / 2] - abs_none[rounds / 2]);
	for (int s = 0; s < nsets; s++) {
		qsort(d[s], rounds, sizeof(double), cmp_double);
		printf("| + %s | %+.1f |\n", sets[s].name, d[s][rounds / 2]);
	}
	ret = 0;
out:
	floor_bpf__destroy(skel);
	return ret;
}
