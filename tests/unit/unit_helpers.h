/* SPDX-License-Identifier: MIT */
/*
 * unit_helpers.h - small test-only helpers shared by the cmocka unit tests.
 * Everything is static inline so each test stays one translation unit.
 */
#ifndef PL_UNIT_HELPERS_H
#define PL_UNIT_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read a whole file into a malloc'd NUL-terminated buffer; NULL on error. */
static inline char *ut_read_file(const char *path, size_t *len_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t n;

		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf) {
		buf[len] = '\0';
		if (len_out)
			*len_out = len;
	}
	return buf;
}

/* Number of open file descriptors of this process (not counting the one
 * used to list them). */
static inline int ut_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/* rm -r of a directory tree made by a test (no symlink following). */
static inline void ut_rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char sub[4096];

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub))
			continue;
		if (de->d_type == DT_DIR)
			ut_rm_rf(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

#endif
