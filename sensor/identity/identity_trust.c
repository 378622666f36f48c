// SPDX-License-Identifier: MIT
/*
 * identity_trust.c - whether a file's build-id may stand for the file.
 *
 * A build-id is a claim the linker writes where it is told to
 * (-Wl,--build-id=0x...): any user can put sshd's into a program of their
 * own. So the claim names a file only when no one but root could have
 * written that file or put it at its name: the file is root's and not
 * writable by group or others, and so is every directory on its path from
 * "/". A directory that others may write counts only with its sticky bit
 * (/tmp): there, no one but its owner (root) and an entry's owner may
 * rename or remove that entry, and the next component is checked to be
 * root's. The walk opens each directory O_PATH|O_NOFOLLOW from the one
 * before, so a symlink or a rename cannot lead it elsewhere, and ends with
 * the file itself: the name must still be the file the caller read.
 *
 * The same test says whether an allow-list of tool names (the CPU-heavy
 * tools the runaway rule excepts) may hold for a process: xz copied under a
 * user's directory is no longer root's, wherever it is run from.
 */
#include "identity/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"

#define GROUP_OR_OTHER_W (S_IWGRP | S_IWOTH)

static bool dir_is_roots(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0)
		return false;
	return !(st.st_mode & GROUP_OR_OTHER_W) || (st.st_mode & S_ISVTX);
}

bool identity__file_is_roots(const char *path, const struct stat *st)
{
	char comp[NAME_MAX + 1];
	_cleanup_close_ int dfd = -1;
	const char *p;
	struct stat at;

	if (st->st_uid != 0 || !S_ISREG(st->st_mode) || (st->st_mode & GROUP_OR_OTHER_W))
		return false;
	if (!path || path[0] != '/')
		return false;
	dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !dir_is_roots(dfd))
		return false;
	for (p = path;;) {
		size_t n;
		int next;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0 || n > NAME_MAX)
			return false;
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!strcmp(comp, ".."))
			return false;
		p += n;
		if (!*p)
			break;
		next = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(dfd);
		dfd = next;
		if (dfd < 0 || !dir_is_roots(dfd))
			return false;
	}
	if (fstatat(dfd, comp, &at, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	return at.st_dev == st->st_dev && at.st_ino == st->st_ino;
}

bool identity__exe_trusted(const char *path, uint32_t kdev, uint64_t ino)
{
	struct stat st;

	if (!path || path[0] != '/' || lstat(path, &st) < 0)
		return false;
	/* the kernel's dev_t is major << 20 | minor (identity__dev_from_kernel()) */
	if (st.st_dev != makedev(kdev >> 20, kdev & 0xfffff) || st.st_ino != ino)
		return false;
	return identity__file_is_roots(path, &st);
}
