// SPDX-License-Identifier: MIT
/*
 * jsonl.c - JSON Lines to a file or stdout.
 *
 * Each record is formatted in memory and handed to one write(2) loop, so a
 * line is either delivered whole or, for a regular file, rolled back with
 * ftruncate() to where it started: a full disk costs records (counted), never
 * the validity of the file.
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct jsonl_output {
	struct pl_output base;
	int fd;
	bool own_fd;
	bool regular;
	bool broken_line; /* a partial line could not be rolled back */
};

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int jsonl_write(struct pl_output *o, struct json_object *rec)
{
	struct jsonl_output *j = (struct jsonl_output *)o;
	const char *s;
	size_t len;
	off_t start = -1;
	char *line;
	int r;

	s = json_object_to_json_string_length(rec, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (!s)
		return -ENOMEM;
	line = malloc(len + 2);
	if (!line)
		return -ENOMEM;
	/* A line that could not be rolled back is closed before the next one. */
	size_t off = 0;
	if (j->broken_line)
		line[off++] = '\n';
	memcpy(line + off, s, len);
	off += len;
	line[off++] = '\n';
	if (j->regular)
		start = lseek(j->fd, 0, SEEK_END);
	r = write_all(j->fd, line, off);
	free(line);
	if (r < 0) {
		if (start >= 0 && ftruncate(j->fd, start) == 0)
			return r;
		j->broken_line = true;
		return r;
	}
	j->broken_line = false;
	return 0;
}

static int jsonl_flush(struct pl_output *o)
{
	struct jsonl_output *j = (struct jsonl_output *)o;

	if (j->regular && fdatasync(j->fd) < 0)
		return -errno;
	return 0;
}

static void jsonl_free(struct pl_output *o)
{
	struct jsonl_output *j = (struct jsonl_output *)o;

	if (j->own_fd)
		close(j->fd);
	free(j);
}

static const struct pl_output_ops jsonl_ops = {
	.name = "jsonl",
	.write = jsonl_write,
	.flush = jsonl_flush,
	.free = jsonl_free,
};

int jsonl_output__open(const char *path, struct pl_output **ret)
{
	struct jsonl_output *j;
	struct stat st;
	int fd;

	if (strcmp(path, "-") == 0) {
		fd = STDOUT_FILENO;
	} else {
		fd = output__open_append(path, O_WRONLY, 0640);
		if (fd < 0)
			return fd;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		if (fd != STDOUT_FILENO)
			close(fd);
		return -ENOMEM;
	}
	j->base.ops = &jsonl_ops;
	j->fd = fd;
	j->own_fd = fd != STDOUT_FILENO;
	j->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	*ret = &j->base;
	return 0;
}
