/* SPDX-License-Identifier: MIT */
/*
 * filekind.h - name a file's type in a message ("a FIFO", "a directory"),
 * for every refusal of a path that is not what it should be (rule files,
 * baseline files, the JSON output, replay input, the state directory).
 */
#ifndef PL_FILEKIND_H
#define PL_FILEKIND_H

#include <sys/stat.h>

static inline const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "of an unknown type";
	}
}

#endif
