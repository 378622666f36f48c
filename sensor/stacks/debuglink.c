// SPDX-License-Identifier: MIT
/*
 * debuglink.c - finding and checking the debug file of a .gnu_debuglink.
 */
#include "stacks/debuglink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CRC_CHUNK (64u << 10)

int debuglink__parse(const void *data, size_t len, bool big_endian, char *name, size_t size, uint32_t *ret_crc)
{
	const unsigned char *p = data;
	const unsigned char *nul;
	size_t nlen, at;
	uint32_t crc;

	if (!data || len > DEBUGLINK_SECTION_MAX)
		return -EINVAL;
	nul = memchr(p, 0, len);
	if (!nul)
		return -EINVAL;
	nlen = (size_t)(nul - p);
	at = (nlen + 1 + 3) & ~(size_t)3; /* the CRC is 4-aligned after the NUL */
	if (!nlen || nlen > DEBUGLINK_NAME_MAX || nlen >= size || at + 4 > len)
		return -EINVAL;
	if (memchr(p, '/', nlen) || (nlen == 1 && p[0] == '.') || (nlen == 2 && p[0] == '.' && p[1] == '.'))
		return -EINVAL;
	memcpy(&crc, p + at, sizeof(crc));
	if (big_endian == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
		crc = __builtin_bswap32(crc);
	memcpy(name, p, nlen);
	name[nlen] = 0;
	*ret_crc = crc;
	return 0;
}

int debuglink__crc(int fd, off_t max_size, uint32_t *ret_crc)
{
	unsigned char buf[CRC_CHUNK];
	uLong crc = crc32(0, Z_NULL, 0);
	off_t at = 0;

	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -EIO;
		if (!n)
			break;
		at += n;
		if (at > max_size)
			return -EFBIG; /* grown since it was looked at */
		crc = crc32(crc, buf, (uInt)n);
	}
	*ret_crc = (uint32_t)crc;
	return 0;
}

/* The candidate at path: its fd when it is a regular file of at most
 * max_size bytes with the CRC; -ENOENT when there is none, -EBADMSG when
 * it is another file, -errno when it cannot be opened or read. */
static int candidate(const char *path, uint32_t crc, off_t max_size)
{
	struct stat st;
	uint32_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int r;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_size > max_size)
		r = -EBADMSG;
	else if ((r = debuglink__crc(fd, max_size, &got)) == 0 && got != crc)
		r = -EBADMSG;
	if (r < 0) {
		close(fd);
		return r == -EFBIG ? -EBADMSG : r; /* grown past the bound since fstat: not the file linked */
	}
	return fd;
}

int debuglink__open(const char *root, const char *obj_path, const char *name, uint32_t crc, off_t max_size)
{
	const char *slash = strrchr(obj_path, '/');
	char path[PATH_MAX];
	int r, other = -ENOENT;
	bool stale = false;
	size_t dirlen;

	if (!slash || obj_path[0] != '/' || root[0] != '/')
		return -ENOENT;
	dirlen = (size_t)(slash - obj_path); /* 0 for a file in / */
	if (dirlen >= PATH_MAX)
		return -ENAMETOOLONG;
	for (int i = 0; i < 2; i++) {
		int n = i == 0 ? snprintf(path, sizeof(path), "%s%.*s/%s", root, (int)dirlen, obj_path, name)
			       : snprintf(path, sizeof(path), "%.*s/.debug/%s", (int)dirlen, obj_path, name);

		if (n < 0 || (size_t)n >= sizeof(path)) {
			if (other == -ENOENT)
				other = -ENAMETOOLONG;
			continue;
		}
		r = candidate(path, crc, max_size);
		if (r >= 0)
			return r;
		if (r == -EBADMSG)
			stale = true;
		else if (r != -ENOENT)
			other = r;
	}
	return stale ? -EBADMSG : other;
}
