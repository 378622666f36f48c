/* SPDX-License-Identifier: MIT */
/*
 * textsafe.h - make untrusted bytes safe to put in a record.
 *
 * Paths, command lines and comm names come from the monitored processes and
 * may hold any byte. JSON escaping (json-c) already makes quotes, newlines
 * and control characters harmless; what remains is invalid UTF-8, which would
 * make a strict JSON reader reject the whole line. text_sanitize() keeps
 * valid UTF-8 as it is and writes each invalid byte, and each backslash, as
 * the four characters \xNN: no byte is lost, the output is always valid
 * UTF-8, and it decodes back to the original bytes unambiguously.
 */
#ifndef PL_TEXTSAFE_H
#define PL_TEXTSAFE_H

#include <stddef.h>

/*
 * Sanitize len bytes of s (stops early at a NUL). Returns a malloc'd,
 * NUL-terminated string, or NULL on allocation failure.
 */
char *text_sanitize(const char *s, size_t len);

/*
 * Turn a NUL-separated argument block (as /proc/PID/cmdline) into one
 * line: NULs become spaces, the trailing NUL is dropped, then sanitized.
 */
char *text_cmdline(const char *args, size_t len);

#endif
