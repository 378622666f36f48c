// SPDX-License-Identifier: MIT
/*
 * syslog_fmt.c - the words of a syslog message: the local format that
 * syslog(3) sends to /dev/log, so rsyslog and journald receive from the
 * sensor exactly what they received before it had a sender of its own.
 *
 * glibc 2.36 sends "<PRI>Mmm dd hh:mm:ss IDENT[PID]: MSG": the time in local
 * time with a space-padded day, English month names whatever the locale,
 * no trailing newline or NUL on a datagram socket. It passes control bytes
 * through; this formatter writes them as \xNN, so a message can never
 * become two lines in a log file. RFC 5424 would be a second formatter.
 */
#include "syslog_out.h"

#include <stdio.h>
#include <string.h>

static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

size_t syslog_format__local(char *buf, size_t size, int facility, int severity, time_t when, const char *ident,
			    long pid, const char *msg)
{
	static const char hex[] = "0123456789ABCDEF";
	struct tm tm;
	size_t n;
	int h;

	if (size == 0)
		return 0;
	if (!localtime_r(&when, &tm))
		memset(&tm, 0, sizeof(tm));
	h = snprintf(buf, size, "<%d>%s %2d %02d:%02d:%02d %s[%ld]: ", (facility & ~7) | (severity & 7),
		     months[tm.tm_mon >= 0 && tm.tm_mon < 12 ? tm.tm_mon : 0], tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, ident, pid);
	if (h < 0)
		h = 0;
	n = (size_t)h < size ? (size_t)h : size - 1;
	for (const unsigned char *p = (const unsigned char *)msg; *p && n < size - 1; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			buf[n++] = (char)*p;
			continue;
		}
		if (n + 4 > size - 1)
			break; /* cut before an escape rather than in the middle of one */
		buf[n++] = '\\';
		buf[n++] = 'x';
		buf[n++] = hex[*p >> 4];
		buf[n++] = hex[*p & 15];
	}
	buf[n] = '\0';
	return n;
}
