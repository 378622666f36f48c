// SPDX-License-Identifier: MIT
/*
 * lineread.c - bounded line reading (lineread.h).
 */
#include "lineread.h"

#include <errno.h>
#include <stdbool.h>

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
