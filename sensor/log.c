// SPDX-License-Identifier: MIT
/*
 * log.c - operator-facing messages on stderr.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static enum log_level max_level = LOG_LVL_INFO;

static log_sink_fn sink;
static void *sink_ctx;

void log_set_sink(log_sink_fn fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

static const char *const level_names[] = { "error", "warning", "info", "debug" };

void log_set_level(enum log_level lvl)
{
	max_level = lvl;
}

enum log_level log_get_level(void)
{
	return max_level;
}

__attribute__((format(printf, 3, 0))) static void vlog(enum log_level lvl, int err, const char *fmt, va_list ap)
{
	char buf[1024];
	int saved = errno;

	if (lvl > max_level)
		return;
	errno = err;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (sink) {
		sink(lvl, buf, sink_ctx);
		errno = saved;
		return;
	}
	fprintf(stderr, "plumbline: %s: %s\n", level_names[lvl], buf);
	errno = saved;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(lvl, errno, fmt, ap);
	va_end(ap);
}

int log_msg_errno(enum log_level lvl, int err, const char *fmt, ...)
{
	va_list ap;

	err = abs(err);
	va_start(ap, fmt);
	vlog(lvl, err, fmt, ap);
	va_end(ap);
	return -err;
}
