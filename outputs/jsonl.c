// SPDX-License-Identifier: MIT
/*
 * jsonl.c - JSON Lines to a file or stdout: every record, alerts in the
 * output's form (native or OCSF).
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

#include "cleanup.h"
#include "fdwrite.h"

struct jsonl_output {
	struct pl_output base;
	int fd;
	bool own_fd;
	bool regular;
	bool broken_line; /* a partial line could not be rolled back */
};

static int jsonl_write(struct pl_output *o, const struct pl_record *rec)
{
	struct jsonl_output *j = (struct jsonl_output *)o;
	_cleanup_free_ char *s = NULL;
	size_t len;
	off_t start = -1;
	char *line;
	int r;

	r = pl_record__text(rec, o->alert_form, &s, &len);
	if (r < 0)
		return r;
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
	r = fd_write_all(j->fd, line, off);
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
