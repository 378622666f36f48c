// SPDX-License-Identifier: MIT
/*
 * fileio.c - reading, replacing and trusting the files of baselines.
 *
 * Every check is made on what is actually opened (fstat of the fd), and the
 * check before the open only keeps devices from being opened at all: a
 * path can change between the two, the fd cannot.
 */
#include "fileio.h"
#include "filekind.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "8 MiB" for whole MiB, else the byte count. */
static void fmt_limit(size_t max, char *buf, size_t size)
{
	if (max >= (1u << 20) && max % (1u << 20) == 0)
		snprintf(buf, size, "%zu MiB", max >> 20);
	else
		snprintf(buf, size, "%zu bytes", max);
}

static int not_regular(mode_t mode, char *err, size_t errlen)
{
	if (S_ISLNK(mode)) {
		snprintf(err, errlen, "a symbolic link (not followed)");
		return -ELOOP;
	}
	snprintf(err, errlen, "not a regular file (%s)", file_kind(mode));
	return -EINVAL;
}

static int fail(int r, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", strerror(-r));
	return r;
}

static int check_size(const struct stat *sb, size_t max, char *err, size_t errlen)
{
	char lim[32];

	if ((uint64_t)sb->st_size <= max)
		return 0;
	fmt_limit(max, lim, sizeof(lim));
	snprintf(err, errlen, "%lld bytes, larger than the %s limit", (long long)sb->st_size, lim);
	return -EFBIG;
}

int bl_file__read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, char *err,
		  size_t errlen)
{
	bool nofollow = flags & BL_READ_NOFOLLOW;
	struct stat sb;
	size_t got = 0;
	char *buf;
	int fd, r = 0;

	/* before the open: a device is never opened, a FIFO never waited on */
	if ((nofollow ? lstat(path, &sb) : stat(path, &sb)) < 0)
		return fail(-errno, err, errlen);
	if (!S_ISREG(sb.st_mode))
		return not_regular(sb.st_mode, err, errlen);
	r = check_size(&sb, max, err, errlen);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return fail(-errno, err, errlen);
	/* and what was opened, which may have been swapped in since */
	if (fstat(fd, &sb) < 0)
		r = fail(-errno, err, errlen);
	else if (!S_ISREG(sb.st_mode))
		r = not_regular(sb.st_mode, err, errlen);
	else
		r = check_size(&sb, max, err, errlen);
	if (r < 0) {
		close(fd);
		return r;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		close(fd);
		return fail(-ENOMEM, err, errlen);
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO; /* truncated while read */
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (r) {
		free(buf);
		return fail(r, err, errlen);
	}
	buf[got] = '\0';
	*ret = buf;
	*ret_len = got;
	return 0;
}

/* A new temp file next to path: O_EXCL, so an existing file, FIFO or
 * symlink of that name is never opened; one left by a crash is removed. */
static int open_temp(const char *tmp, unsigned mode)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
	int fd = open(tmp, flags, mode);

	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, flags, mode);
	return fd < 0 ? -errno : fd;
}

int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, dfd, r = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
	else
		snprintf(dir, sizeof(dir), ".");
	fd = open_temp(tmp, mode);
	if (fd < 0)
		return fd;
	for (size_t off = 0; off < len && !r;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno != EINTR)
			r = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r) {
		unlink(tmp);
		return r;
	}
	/* the rename itself must reach the disk */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fsync(dfd) < 0)
		r = -errno;
	close(dfd);
	return r;
}

int bl_dir__check(const char *dir, char *err, size_t errlen)
{
	uid_t me = geteuid();
	struct stat sb;
	char who[32];
	bool owner_ok, mode_ok;

	if (stat(dir, &sb) < 0)
		return fail(-errno, err, errlen);
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "not a directory (%s)", file_kind(sb.st_mode));
		return -ENOTDIR;
	}
	/* root may own it too: whoever is root could change it anyway */
	owner_ok = sb.st_uid == me || sb.st_uid == 0;
	mode_ok = !(sb.st_mode & (S_IWGRP | S_IWOTH));
	if (owner_ok && mode_ok)
		return 0;
	if (me == 0)
		snprintf(who, sizeof(who), "root");
	else
		snprintf(who, sizeof(who), "%u", (unsigned)me);
	if (!owner_ok && !mode_ok)
		snprintf(err, errlen,
			 "owned by uid %u, not by uid %u that runs plumbline, and writable by group or others "
			 "(mode %04o); fix: chown %s %s && chmod 0700 %s",
			 (unsigned)sb.st_uid, (unsigned)me, (unsigned)(sb.st_mode & 07777), who, dir, dir);
	else if (!owner_ok)
		snprintf(err, errlen, "owned by uid %u, not by uid %u that runs plumbline; fix: chown %s %s",
			 (unsigned)sb.st_uid, (unsigned)me, who, dir);
	else
		snprintf(err, errlen, "writable by group or others (mode %04o); fix: chmod 0700 %s",
			 (unsigned)(sb.st_mode & 07777), dir);
	return -EPERM;
}
