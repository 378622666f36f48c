// SPDX-License-Identifier: MIT
/*
 * statedir.c - the state directory: made when missing, refused when others
 * could write it, one writer at a time.
 *
 * The rule for what may hold baselines is the store's (bl_dir__check());
 * this is where it becomes a refusal an operator reads, and where the
 * writer's lock is held, since only sensor/ keeps fds.
 */
#include "hardening/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "filekind.h"
#include "log.h"

/* mkdir -p; the last component private (0700): it holds what the sensor learned. */
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

static int check_one(const char *dir)
{
	char why[PATH_MAX * 2 + 256];
	int r = bl_dir__check(dir, why, sizeof(why));

	if (r == -EPERM || r == -ENOTDIR)
		return log_error_errno(r, "refusing state directory %s: %s", dir, why);
	if (r < 0)
		return log_error_errno(r, "Cannot use the state directory %s: %m", dir);
	return 0;
}

int statedir__check(const char *dir, bool create)
{
	char sub[PATH_MAX];
	int r;

	if (snprintf(sub, sizeof(sub), "%s/baselines", dir) >= (int)sizeof(sub))
		return log_error_errno(ENAMETOOLONG, "The state directory's name is too long: %s", dir);
	if (create) {
		r = mkdir_p(dir);
		if (r < 0)
			return log_error_errno(r, "Cannot create the state directory %s: %m", dir);
	}
	/* the directory first: nothing is made inside one that others could write */
	r = check_one(dir);
	if (r < 0)
		return r;
	if (create && mkdir(sub, 0700) < 0 && errno != EEXIST)
		return log_error_errno(errno, "Cannot create %s: %m", sub);
	return check_one(sub);
}

/* The pid written in the lock by its holder, or 0. It may not be written
 * yet when the holder has only just taken the lock: try for a moment. */
static long holder_pid(int fd)
{
	for (int tries = 0; tries < 10; tries++) {
		char buf[32], *end;
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		long pid;

		if (n > 0) {
			buf[n] = '\0';
			errno = 0;
			pid = strtol(buf, &end, 10);
			if (!errno && end != buf && (*end == '\n' || *end == '\0') && pid > 0)
				return pid;
		}
		usleep(20000);
	}
	return 0;
}

int statedir__lock(const char *dir)
{
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX], pid[32];
	struct stat st;
	int len;

	if (snprintf(path, sizeof(path), "%s/lock", dir) >= (int)sizeof(path))
		return log_error_errno(ENAMETOOLONG, "The state directory's name is too long: %s", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return log_error_errno(errno, "Cannot open the lock %s: %m", path);
	if (fstat(fd, &st) < 0)
		return log_error_errno(errno, "Cannot open the lock %s: %m", path);
	if (!S_ISREG(st.st_mode))
		return log_error_errno(EINVAL, "The lock %s is %s, not a regular file: remove it", path,
				       file_kind(st.st_mode));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		long holder;

		if (errno != EWOULDBLOCK)
			return log_error_errno(errno, "Cannot lock %s: %m", path);
		holder = holder_pid(fd);
		if (holder > 0)
			return log_error_errno(EBUSY, "state directory %s is in use by plumbline pid %ld; stop it, or use "
						      "--state-dir", dir, holder);
		return log_error_errno(EBUSY, "state directory %s is in use by another plumbline; stop it, or use "
					      "--state-dir", dir);
	}
	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len)
		log_warn_errno(errno, "Cannot write our pid into %s: %m (the lock is held all the same)", path);
	return TAKE_FD(fd);
}
