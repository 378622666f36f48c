// SPDX-License-Identifier: MIT
/*
 * exetrust.c - is an executable one only root could have placed
 * (exetrust.h). Self-contained: a stat of the file and of each directory
 * above it, nothing cached (an exec costs a few stats; a chmod takes effect
 * at the next exec).
 */
#include "identity/exetrust.h"

#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Root-owned, and neither group nor others may write it. */
static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

bool exetrust__check(const char *path, uint32_t kdev, uint64_t ino)
{
	char dir[PATH_MAX];
	struct stat st;
	size_t len;

	if (!path || path[0] != '/')
		return false;
	len = strlen(path);
	if (len >= sizeof(dir) || lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (st.st_dev != makedev(kdev >> 20, kdev & 0xfffff) || st.st_ino != ino || !root_only(&st))
		return false;
	memcpy(dir, path, len + 1);
	/* each parent up to "/": cut at the last slash, stat what is left */
	for (;;) {
		char *sl = strrchr(dir, '/');

		if (!sl)
			return false;
		if (sl == dir) {
			dir[1] = '\0';
			return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && root_only(&st);
		}
		*sl = '\0';
		/* lstat: a symlinked directory in a kernel-resolved path is not expected */
		if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !root_only(&st))
			return false;
	}
}
