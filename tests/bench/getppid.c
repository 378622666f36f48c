// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bench_getppid N - N raw getppid system calls (the cheapest syscall). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int parse_count(const char *s, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *ret == 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 2 || parse_count(argv[1], &n)) {
		fprintf(stderr, "usage: bench_getppid N (N > 0)\n");
		return 2;
	}
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
