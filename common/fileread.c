// SPDX-License-Identifier: MIT
/*
 * fileread.c - the bounded read of an untrusted file (fileread.h).
 *
 * Every check is made twice: on the path before the open, which only keeps
 * devices and FIFOs from being opened at all, and on the fd, which is what
 * is actually read: the path can change between the two, the fd cannot.
 */
#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"

static int refuse(int r, enum file_read_step step, const struct stat *st, struct file_read_error *err)
{
	if (err)
		*err = (struct file_read_error){ .step = step, .mode = st ? st->st_mode : 0, .size = st ? st->st_size : 0 };
	return r;
}

/* A regular file within max, or why not. */
static int check(const struct stat *st, size_t max, bool nofollow, struct file_read_error *err)
{
	if (S_ISLNK(st->st_mode) && nofollow)
		return refuse(-ELOOP, FILE_READ_KIND, st, err);
	if (!S_ISREG(st->st_mode))
		return refuse(-EINVAL, FILE_READ_KIND, st, err);
	if ((uint64_t)st->st_size > max)
		return refuse(-EFBIG, FILE_READ_SIZE, st, err);
	return 0;
}

int file_open_regular(const char *path, size_t max, unsigned flags, struct stat *ret_st,
		      struct file_read_error *ret_err)
{
	bool nofollow = flags & FILE_READ_NOFOLLOW;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if ((nofollow ? lstat(path, &st) : stat(path, &st)) < 0)
		return refuse(-errno, FILE_READ_STAT, NULL, ret_err);
	r = check(&st, max, nofollow, ret_err);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return refuse(-errno, FILE_READ_OPEN, NULL, ret_err);
	if (fstat(fd, &st) < 0)
		return refuse(-errno, FILE_READ_FSTAT, NULL, ret_err);
	r = check(&st, max, nofollow, ret_err); /* what was opened may have been swapped in since */
	if (r < 0)
		return r;
	*ret_st = st;
	return TAKE_FD(fd);
}

int file_read_fd(int fd, const struct stat *st, size_t max, char **ret, size_t *ret_len,
		 struct file_read_error *ret_err)
{
	/* room for the size fstat said and one byte more, to see a file that grew */
	size_t cap = (uint64_t)st->st_size < max ? (size_t)st->st_size + 1 : max + 1, len = 0;
	_cleanup_free_ char *buf = NULL;

	if ((uint64_t)st->st_size > max)
		return refuse(-EFBIG, FILE_READ_SIZE, st, ret_err);
	buf = malloc(cap + 1);
	if (!buf)
		return refuse(-ENOMEM, FILE_READ_READ, NULL, ret_err);
	for (;;) {
		ssize_t n;

		if (len == cap) { /* it grew while read */
			size_t more = cap > max / 2 ? max + 1 : cap * 2;
			char *bigger;

			if (len > max) {
				struct stat seen = { .st_size = (off_t)len };

				return refuse(-EFBIG, FILE_READ_SIZE, &seen, ret_err);
			}
			bigger = realloc(buf, more + 1);
			if (!bigger)
				return refuse(-ENOMEM, FILE_READ_READ, NULL, ret_err);
			buf = bigger;
			cap = more;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return refuse(-errno, FILE_READ_READ, NULL, ret_err);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int file_read_bounded(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len,
		      struct file_read_error *ret_err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = file_open_regular(path, max, flags, &st, ret_err);
	if (fd < 0)
		return fd;
	return file_read_fd(fd, &st, max, ret, ret_len, ret_err);
}
