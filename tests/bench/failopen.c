// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bench_failopen N PATH - N openat() of PATH, every one of which must fail. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

	if (argc != 3 || parse_count(argv[1], &n) || !argv[2][0]) {
		fprintf(stderr, "usage: bench_failopen N PATH (N > 0; PATH must not exist)\n");
		return 2;
	}
	for (unsigned long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, argv[2], O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			close(fd);
			fprintf(stderr, "bench_failopen: %s exists (open %lu succeeded)\n", argv[2], i + 1);
			return 1;
		}
	}
	return 0;
}
