// SPDX-License-Identifier: MIT
/*
 * pl_chain MS - spin MS ms of CPU at the end of a known call chain, for the
 * user-stack tests: main -> plchain_1 -> ... -> plchain_6 -> plchain_spin.
 *
 * Built without frame pointers (-fomit-frame-pointer, as Debian builds its
 * binaries), so only the unwind tables (.eh_frame) lead from a function to
 * its caller. Each link does work after its call (no tail call, no
 * inlining: noinline, noclone). The spinner reads the thread's CPU clock
 * (a system call, not the vDSO) every few million iterations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline, noclone)) unsigned long plchain_spin(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + ms;

	do {
		for (unsigned long i = 0; i < 2000000; i++)
			x += i ^ (x >> 3);
	} while (cpu_ms() < end);
	return x;
}

#define LINK(me, next)                                                            \
	__attribute__((noinline, noclone)) unsigned long me(double ms)             \
	{                                                                          \
		unsigned long r = next(ms);                                        \
		__asm__ volatile("" : "+r"(r)::"memory");                         \
		return r + 1;                                                      \
	}
LINK(plchain_6, plchain_spin)
LINK(plchain_5, plchain_6)
LINK(plchain_4, plchain_5)
LINK(plchain_3, plchain_4)
LINK(plchain_2, plchain_3)
LINK(plchain_1, plchain_2)

int main(int argc, char **argv)
{
	char *end;
	double ms = argc == 2 ? strtod(argv[1], &end) : -1;

	if (argc != 2 || *end || ms < 0) {
		fprintf(stderr, "usage: pl_chain MS\n");
		return 2;
	}
	printf("%lu\n", plchain_1(ms));
	return 0;
}
