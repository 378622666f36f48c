/* SPDX-License-Identifier: MIT */
/*
 * syslog_out.h - alerts to a syslog daemon: where (the target), in which
 * words (the format), and over what (the transport), kept apart.
 *
 * The target is parsed in one place, syslog_target__parse(), from the
 * --syslog TARGET text. Today that is `unix:PATH` (a local datagram socket,
 * /dev/log by default) or `off`; other schemes (tcp:, udp:, relp:) and
 * other formats (RFC 5424) are new transports and formatters behind the
 * same backend, not new parsers. The backend sends what syslog(3) would
 * have sent, but unlike syslog(3) it knows when a message was not
 * delivered: every such alert is counted in `dropped`, and the failure is
 * reported through output.h's episodes.
 */
#ifndef PL_SYSLOG_OUT_H
#define PL_SYSLOG_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "output.h"

#define PL_SYSLOG_PATH_MAX 108 /* sizeof(sockaddr_un.sun_path), NUL included */
#define PL_SYSLOG_MSG_MAX  8192 /* bytes of one message, header included; longer ones are cut */

enum pl_syslog_kind {
	PL_SYSLOG_OFF = 0, /* no syslog output */
	PL_SYSLOG_UNIX,	   /* datagrams to a local socket (unix:PATH) */
};

struct pl_syslog_target {
	enum pl_syslog_kind kind;
	char path[PL_SYSLOG_PATH_MAX]; /* PL_SYSLOG_UNIX: an absolute path */
};

/*
 * Parse a --syslog TARGET: "unix:PATH" (PATH absolute, shorter than
 * PL_SYSLOG_PATH_MAX) or "off". Returns 0 and *ret, or -EINVAL with what is
 * wrong in msg (*ret untouched).
 */
int syslog_target__parse(const char *spec, struct pl_syslog_target *ret, char *msg, size_t msgsize);

/* The target as --syslog takes it ("unix:/dev/log", "off"), into buf. */
void syslog_target__format(const struct pl_syslog_target *t, char *buf, size_t size);

/*
 * The local syslog format, byte for byte what glibc's syslog(3) sends to
 * /dev/log: "<PRI>Mmm dd hh:mm:ss IDENT[PID]: MSG", PRI = facility |
 * severity, the time in local time, no trailing newline. Unlike syslog(3),
 * control bytes (below 0x20, and 0x7f) in MSG are written as \xNN, so one
 * message is one line whatever it holds. Cut to size - 1 bytes; always
 * NUL-terminated. Returns the length written.
 */
size_t syslog_format__local(char *buf, size_t size, int facility, int severity, time_t when, const char *ident,
			    long pid, const char *msg);

/*
 * Alerts (records with rule, output and severity) to the syslog target t,
 * as "RULE: OUTPUT" at the rule's severity, with ident and facility (a
 * <syslog.h> LOG_* facility value). Returns 0 and *ret, -EINVAL for an `off`
 * target, or -ENOMEM (*ret untouched). A target that cannot take messages
 * now is not an error: the backend is returned marked failing
 * (output__fail_at_open(), with what is wrong in why), counts every alert it
 * cannot deliver, and tries to connect again at most once a second.
 */
int syslog_output__open(const struct pl_syslog_target *t, const char *ident, int facility, struct pl_output **ret);

#endif
