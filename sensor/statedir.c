// SPDX-License-Identifier: MIT
/*
 * statedir.c - the state directory: made when missing, refused when others
 * could write it.
 *
 * The rule for what may hold baselines is the store's (bl_dir__check());
 * this is where it becomes a refusal an operator reads.
 */
#include "statedir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
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
