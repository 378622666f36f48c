// SPDX-License-Identifier: MIT
/*
 * fileio.c - reading, replacing and trusting the files of baselines.
 *
 * Every check is made on what is actually opened (fstat of the fd), and the
 * check before the open only keeps devices from being opened at all: a
 * path can change between the two, the fd cannot.
 */
#include "fileio.h"
#include "fileread.h"
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

static int fail(int r, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", strerror(-r));
	return r;
}

int bl_file__read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, char *err,
		  size_t errlen)
{
	struct file_read_error why;
	char lim[32];
	int r;

	r = file_read_bounded(path, max, flags & BL_READ_NOFOLLOW ? FILE_READ_NOFOLLOW : 0, ret, ret_len, &why);
	if (r >= 0)
		return 0;
	switch (why.step) {
	case FILE_READ_KIND:
		if (S_ISLNK(why.mode))
			snprintf(err, errlen, "a symbolic link (not followed)");
		else
			snprintf(err, errlen, "not a regular file (%s)", file_kind(why.mode));
		return r;
	case FILE_READ_SIZE:
		fmt_limit(max, lim, sizeof(lim));
		snprintf(err, errlen, "%lld bytes, larger than the %s limit", (long long)why.size, lim);
		return r;
	default:
		return fail(r, err, errlen);
	}
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

/* path's temp name, and its directory. */
static int temp_of(const char *path, char tmp[PATH_MAX], char dir[PATH_MAX])
{
	const char *slash = strrchr(path, '/');

	if (snprintf(tmp, PATH_MAX, "%s.tmp.%d", path, (int)getpid()) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (slash)
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
	else
		snprintf(dir, PATH_MAX, ".");
	return 0;
}

/* data into a new temp file tmp, fsync'd when asked; 0 or -errno (tmp removed). */
static int write_temp(const char *tmp, const char *data, size_t len, unsigned mode, bool sync)
{
	int fd = open_temp(tmp, mode), r = 0;

	if (fd < 0)
		return fd;
	for (size_t off = 0; off < len && !r;) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno != EINTR)
			r = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (!r && sync && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

/* fsync the directory dir (a rename in it reaches the disk); or, with
 * whole_fs, sync its whole filesystem first. */
static int sync_dir(const char *dir, bool whole_fs)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (dfd < 0)
		return -errno;
	if ((whole_fs && syncfs(dfd) < 0) || fsync(dfd) < 0)
		r = -errno;
	close(dfd);
	return r;
}

int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int r = temp_of(path, tmp, dir);

	if (!r)
		r = write_temp(tmp, data, len, mode, true);
	if (!r && rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
	}
	/* the rename itself must reach the disk */
	return r ? r : sync_dir(dir, false);
}

void atomic_write_files(const struct atomic_file *f, size_t n, unsigned mode, int *ret_err)
{
	char tmp[PATH_MAX], dir[PATH_MAX] = ".";
	size_t written = 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		ret_err[i] = temp_of(f[i].path, tmp, dir);
		if (!ret_err[i])
			ret_err[i] = write_temp(tmp, f[i].data, f[i].len, mode, false);
		written += !ret_err[i];
	}
	if (!written)
		return;
	/* every temp file's bytes on disk before any rename: one sync for all */
	r = sync_dir(dir, true);
	for (size_t i = 0; i < n; i++) {
		if (ret_err[i])
			continue;
		temp_of(f[i].path, tmp, dir);
		if (!r && rename(tmp, f[i].path) < 0)
			ret_err[i] = -errno;
		else
			ret_err[i] = r;
		if (ret_err[i])
			unlink(tmp);
	}
	if (!r && (r = sync_dir(dir, false)) < 0)
		for (size_t i = 0; i < n; i++)
			if (!ret_err[i])
				ret_err[i] = r;
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
