/* SPDX-License-Identifier: MIT */
/*
 * audit_int.h - what the audit log's writer (audit.c) and its verifier
 * (audit_verify.c) share: one reading of a line, so both agree on it.
 */
#ifndef PL_AUDIT_INT_H
#define PL_AUDIT_INT_H

#include "audit.h"

struct audit_line {
	uint64_t seq, time_ns;
	char event[PL_AUDIT_EVENT_MAX + 1];
	char prev[PL_AUDIT_HEX + 1], hash[PL_AUDIT_HEX + 1];
	bool hash_ok; /* its bytes hash to its hash */
	bool keyed;   /* it carries a "mac" (over its first mac_len bytes) */
	char mac[PL_AUDIT_HEX + 1];
	size_t mac_len;
	/* a `resumed` line's torn line, when it names one */
	bool names_tear;
	uint64_t torn_offset, torn_bytes;
	char torn_sha[PL_AUDIT_HEX + 1];
};

/*
 * Read one line (buf[len], without its '\n') in the audit format: the fixed
 * head up to "record", the fixed 149-byte tail (222 bytes with a "mac"),
 * one valid JSON object in all. Returns 0 and *l (l->hash_ok says whether the hash matches), -EBADMSG
 * with *why saying what does not fit, or -ENOMEM.
 */
int audit__parse_line(const char *buf, size_t len, struct audit_line *l, const char **why);

/* Whether s[n] is a valid event name: [a-z0-9_]{1,PL_AUDIT_EVENT_MAX}. */
bool audit__event_ok(const char *s, size_t n);

#endif
