/* SPDX-License-Identifier: MIT */
/*
 * output.h - where records go: one small vtable per backend.
 *
 * A backend takes complete records (json-c objects) and must never block the
 * sensor for long or lose a record silently: a record it cannot deliver is
 * counted in `dropped` and the error is returned to the caller, which decides
 * how loudly to report it. This library knows nothing of the kernel.
 */
#ifndef PL_OUTPUT_H
#define PL_OUTPUT_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

struct pl_output;

struct pl_output_ops {
	const char *name;
	/* Deliver one record. 0 or -errno; the record is not kept on failure. */
	int (*write)(struct pl_output *o, struct json_object *rec);
	int (*flush)(struct pl_output *o);
	void (*free)(struct pl_output *o);
};

struct pl_output {
	const struct pl_output_ops *ops;
	uint64_t written; /* records delivered */
	uint64_t dropped; /* records lost to errors */
	int last_err;     /* negative errno of the last failure, 0 if none */
};

/* Write rec (not consumed). Counts written/dropped. Returns 0 or -errno. */
int output__write(struct pl_output *o, struct json_object *rec);
int output__flush(struct pl_output *o);
/* NULL-safe. */
void output__free(struct pl_output *o);

/*
 * JSON Lines backend: one record per line, to `path` ("-" is stdout),
 * appended, created 0640. path must be a regular file or not exist: a
 * symlink is refused with -ELOOP (not followed, even when dangling), a
 * directory with -EISDIR, anything else (a FIFO, a device, a socket) with
 * -EINVAL, and the open never blocks. Lines are written whole: after a
 * failed write to a regular file (disk full) the partial line is truncated
 * away, so the file stays valid JSONL. Returns 0 and *ret, or -errno (*ret
 * untouched).
 */
int jsonl_output__open(const char *path, struct pl_output **ret);

/* Alerts as one line each on f (not owned). 0 or -ENOMEM. */
int text_output__open(FILE *f, struct pl_output **ret);

/*
 * syslog(3) backend for alert records (rule, output, severity fields).
 * Always returns a usable backend in *ret; the return value is 0, or
 * -ENOENT when /dev/log is not there (messages will be lost until a
 * syslog daemon listens), -ENOMEM (then *ret is untouched).
 */
int syslog_output__open(const char *ident, int facility, struct pl_output **ret);

#endif
