// SPDX-License-Identifier: MIT
/*
 * fuzz_audit_heads.c - libFuzzer target: the chain heads parser
 * (audit_head__parse(), outputs/audit_heads.c) on a line of any bytes, the
 * heads file reader over the whole input, and the audit log's verifier on
 * the input as a log (with and without a key).
 *
 * Invariants (audit.h): a line yields 0 or 1 head, the same on a second
 * read; a head's seq is above 0 and its hash 64 lowercase hex digits; the
 * head of a syslog line is the same head when the line arrives escaped in
 * a JSON string (rsyslog's jsonmesg); the reader's count is the number of
 * lines that yield one; the verifier returns 0 with a verdict, and its
 * counts never exceed the lines it read.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_head(const struct audit_head *h)
{
	if (h->seq == 0 || strlen(h->hash) != PL_AUDIT_HEX)
		abort();
	for (int i = 0; i < PL_AUDIT_HEX; i++)
		if (!((h->hash[i] >= '0' && h->hash[i] <= '9') || (h->hash[i] >= 'a' && h->hash[i] <= 'f')))
			abort();
}

/* The line as rsyslog's jsonmesg carries it: {"rawmsg":"<the line>"}. */
static void check_in_json(const char *s, size_t n, const struct audit_head *want)
{
	struct json_object *o = json_object_new_object();
	struct audit_head h = { 0 };
	const char *text;
	size_t len;

	json_object_object_add(o, "rawmsg", json_object_new_string_len(s, (int)n));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	len = strlen(text);
	if (len <= PL_AUDIT_HEAD_LINE_MAX) {
		if (audit_head__parse(text, len, &h) != 1 || h.seq != want->seq || strcmp(h.hash, want->hash) != 0 ||
		    h.time_ns != want->time_ns)
			abort();
	}
	json_object_put(o);
}

static void one_line(const char *s, size_t n)
{
	struct audit_head a = { 0 }, b = { 0 };
	int r = audit_head__parse(s, n, &a);

	if (r < 0)
		return; /* ENOMEM */
	if (r > 1 || audit_head__parse(s, n, &b) != r)
		abort();
	if (r == 0)
		return;
	check_head(&a);
	if (a.seq != b.seq || strcmp(a.hash, b.hash) != 0)
		abort();
	if (n && s[0] != '{' && s[0] != ' ' && !memchr(s, '\0', n))
		check_in_json(s, n, &a);
}

static int memfd_of(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t seed[32] = { 1, 2, 3 };
	const char *s = (const char *)data;
	struct audit_head *hs = NULL;
	struct audit_report rep;
	size_t nh = 0, skipped = 0, lines = 0, start = 0;
	int fd;

	for (size_t i = 0; i <= size; i++)
		if (i == size || data[i] == '\n') {
			if (i > start || i < size)
				lines++;
			one_line(s + start, i - start);
			start = i + 1;
		}
	fd = memfd_of(data, size);
	if (fd < 0)
		return 0;
	if (audit_heads__read(fd, &hs, &nh, &skipped) == 0) {
		if (nh + skipped > lines)
			abort();
		for (size_t i = 0; i < nh; i++)
			check_head(&hs[i]);
	}
	for (int k = 0; k < 2; k++) {
		lseek(fd, 0, SEEK_SET);
		if (audit_verify(fd, hs, nh, k ? seed : NULL, &rep) == 0 &&
		    (rep.entries > rep.lines || rep.macs_checked > rep.entries || rep.heads_checked > rep.heads))
			abort();
	}
	free(hs);
	close(fd);
	return 0;
}
