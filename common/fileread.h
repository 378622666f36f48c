/* SPDX-License-Identifier: MIT */
/*
 * fileread.h - the one bounded read of a file someone else may have planted.
 *
 * Rule files, baseline files and the config file decide what a root daemon
 * does, and their paths are writable by people who are not root. A read
 * here takes only a regular file: its type (and size) is checked with
 * stat() before the open, so a device is never opened at all, and again on
 * the opened fd (opened O_NONBLOCK, so a FIFO swapped in between never makes
 * the reader wait for a writer). The size is bounded before the read and
 * while reading, since a file can grow. Symlinks are followed unless
 * FILE_READ_NOFOLLOW is given (lstat() before, O_NOFOLLOW at the open).
 *
 * No message is written here: a refusal says which step failed and what was
 * found (struct file_read_error), so each caller keeps its own wording.
 * Kernel-free, never logs, no fd outlives a call of file_read_bounded().
 */
#ifndef PL_FILEREAD_H
#define PL_FILEREAD_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define FILE_READ_NOFOLLOW 0x1u /* a symlink is refused rather than followed */

/* The step a read was refused at. */
enum file_read_step {
	FILE_READ_STAT,	 /* stat() (lstat()) of the path, before the open */
	FILE_READ_OPEN,	 /* open() */
	FILE_READ_FSTAT, /* fstat() of the fd */
	FILE_READ_KIND,	 /* not a regular file (before or after the open): mode */
	FILE_READ_SIZE,	 /* larger than the bound: size */
	FILE_READ_READ,	 /* read(), or no memory for the content */
};

struct file_read_error {
	enum file_read_step step;
	mode_t mode; /* FILE_READ_KIND: what the path is */
	off_t size;  /* FILE_READ_SIZE: its size (at least this much when it grew while read) */
};

/*
 * Open path for reading if it is a regular file of at most max bytes
 * (SIZE_MAX: any size; file_read_fd() bounds it again). Returns the fd
 * (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, the caller closes it) and
 * its fstat() in *ret_st. Or -EINVAL (not a regular file), -ELOOP (a
 * symlink, with FILE_READ_NOFOLLOW), -EFBIG, or the -errno of stat, open or
 * fstat, with *ret_err saying where (ret_err may be NULL); *ret_st is then
 * untouched.
 */
int file_open_regular(const char *path, size_t max, unsigned flags, struct stat *ret_st,
		      struct file_read_error *ret_err);

/*
 * Read fd, whose fstat() is st (as file_open_regular() gave it), to its end:
 * at most max bytes, -EFBIG (FILE_READ_SIZE) when st says more or it grew
 * past max while read. Returns 0 with *ret (malloc'd, NUL-terminated, the
 * caller frees it) and *ret_len; or -EFBIG, -ENOMEM or the -errno of read
 * (FILE_READ_READ), with *ret_err, and *ret and *ret_len untouched.
 */
int file_read_fd(int fd, const struct stat *st, size_t max, char **ret, size_t *ret_len,
		 struct file_read_error *ret_err);

/* file_open_regular() then file_read_fd(), the fd closed: 0 or -errno as
 * those, *ret and *ret_len untouched on failure. */
int file_read_bounded(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len,
		      struct file_read_error *ret_err);

#endif
