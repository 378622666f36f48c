// SPDX-License-Identifier: MIT
/*
 * pl_burn - burn CPU in a known function, for the stack-evidence tests.
 *
 *   pl_burn MS            spin MS ms of CPU in pl_burn_spin (this program)
 *   pl_burn MS LIB        dlopen LIB and spin MS ms in its pl_burnlib_spin
 *
 * Built with frame pointers, so the kernel's frame-pointer walk reaches
 * main(); the spinning functions make no syscalls while they spin except
 * to read the thread's CPU clock every few million iterations.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) unsigned long pl_burn_spin(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + ms;

	do {
		for (unsigned long i = 0; i < 2000000; i++)
			x += i ^ (x >> 3);
	} while (cpu_ms() < end);
	return x;
}

__attribute__((noinline)) static unsigned long call_lib(const char *lib, double ms)
{
	unsigned long (*spin)(double);
	void *h = dlopen(lib, RTLD_NOW);

	if (!h) {
		fprintf(stderr, "pl_burn: %s\n", dlerror());
		exit(2);
	}
	*(void **)&spin = dlsym(h, "pl_burnlib_spin");
	if (!spin) {
		fprintf(stderr, "pl_burn: %s\n", dlerror());
		exit(2);
	}
	return spin(ms);
}

int main(int argc, char **argv)
{
	double ms;

	if (argc < 2 || argc > 3 || (ms = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: pl_burn MS [LIB]\n");
		return 2;
	}
	return (argc == 3 ? call_lib(argv[2], ms) : pl_burn_spin(ms)) == 42;
}
