/* SPDX-License-Identifier: MIT */
/*
 * lineread.h - one line of an untrusted text file, or a small file, in bounded memory.
 *
 * For the commands that read JSON Lines someone handed them (`evidence`,
 * `replay`): a line longer than the bound is
 * read to its end and dropped, never stored whole, so what one line costs is
 * the caller's buffer, whatever the file holds.
 */
#ifndef PL_LINEREAD_H
#define PL_LINEREAD_H

#include <stdio.h>
#include <sys/types.h>

/*
 * Read one line of at most max bytes, without its newline, into buf (max + 1
 * bytes), NUL-terminated. Returns its length; -ENODATA at the end of the
 * input; -E2BIG for a longer line, whose rest is read and dropped (buf then
 * holds its first max bytes); or -EIO. A NUL byte in the line is kept (the
 * length counts it), so a C-string reader sees the line cut there.
 */
ssize_t line_read(FILE *f, char *buf, size_t max);

/*
 * Up to size-1 bytes of a small file (a /proc or /sys file) into buf,
 * NUL-terminated. Returns the length, or -1 with errno when it cannot be
 * opened.
 */
ssize_t read_small_file(const char *path, char *buf, size_t size);

#endif
