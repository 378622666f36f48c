// SPDX-License-Identifier: MIT
/*
 * lineread.c - bounded reads of text: lines, small files (lineread.h).
 */
#include "lineread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

ssize_t line_read(FILE *f, char *buf, size_t max)
{
	bool over = false;
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n < max)
			buf[n++] = (char)c;
		else
			over = true;
	}
	buf[n] = '\0';
	if (c == EOF && n == 0 && !over)
		return ferror(f) ? -EIO : -ENODATA;
	if (c == EOF && ferror(f))
		return -EIO;
	return over ? -E2BIG : (ssize_t)n;
}

ssize_t read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}
