/* SPDX-License-Identifier: MIT */
/*
 * log.h - the one place the sensor reports to its operator.
 *
 * Libraries return negative errno; the layer that decides what the failure
 * means logs it once with log_error_errno(), which returns the error so that
 * `return log_error_errno(r, "...");` both reports and propagates.
 */
#ifndef PL_LOG_H
#define PL_LOG_H

#include <stdbool.h>

enum log_level { LOG_LVL_ERROR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);

/* Print "plumbline: <level>: <message>" to stderr. `%m` works as in printf(3)
 * with glibc, using errno = err for the *_errno variants. */
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Log and return -|err|. */
int log_msg_errno(enum log_level lvl, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* while fn is set, messages go to fn(lvl, message, ctx) instead of
 * stderr (`config check` collects the option parser's errors with it).
 * NULL restores stderr. */
typedef void (*log_sink_fn)(enum log_level lvl, const char *msg, void *ctx);
void log_set_sink(log_sink_fn fn, void *ctx);

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
#define log_error_errno(err, ...) log_msg_errno(LOG_LVL_ERROR, (err), __VA_ARGS__)
#define log_warn_errno(err, ...) log_msg_errno(LOG_LVL_WARN, (err), __VA_ARGS__)

#endif
