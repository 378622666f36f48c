// SPDX-License-Identifier: MIT
/* libplburn.so - the library pl_burn spins in (pl_burn.c). */
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) unsigned long pl_burnlib_spin(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + ms;

	do {
		for (unsigned long i = 0; i < 2000000; i++)
			x += i ^ (x >> 5);
	} while (cpu_ms() < end);
	return x;
}
