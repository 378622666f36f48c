// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_openok N PATH - N openat() + close() of PATH, every open of which
 * must succeed (W7: an ordinary file; W8: a watched one, /etc/shadow).
 */
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
		fprintf(stderr, "usage: bench_openok N PATH (N > 0; PATH a readable file)\n");
		return 2;
	}
	for (unsigned long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, argv[2], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "bench_openok: %s: open %lu: %s\n", argv[2], i + 1, strerror(errno));
			return 1;
		}
		close(fd);
	}
	return 0;
}
