// SPDX-License-Identifier: MIT
/*
 * audit_heads.c - read one chain head (an `audit_head` record) from a line
 * in whichever form a collector wrote it (audit.h, audit_head__parse()).
 *
 * The sensor sends a head as an RFC 5424 message with MSGID `audit-head`
 * and one SD element `plumbline@32473` holding seq, hash and time_ns. What
 * reaches a file depends on the collector: the message as sent (rsyslog's
 * RSYSLOG_SyslogProtocol23Format), the same text behind a traditional
 * prefix (RSYSLOG_FileFormat of a local socket, journald's short format),
 * or escaped inside JSON strings (rsyslog's jsonmesg, a JSON template,
 * journald's JSON: `"structured-data":"[plumbline@32473 seq=\"5\" ...]"`);
 * and the sensor's own JSON output has the record itself. So a line is
 * read as JSON when it is a JSON object (every string in it searched, the
 * MSGID seen as a value of its own), and otherwise searched for the
 * message's header-to-SD text. A head is recognised by its MSGID and SD-ID
 * (or its record type), never by a substring of free text: the SD element
 * is parsed by RFC 5424's grammar, its PARAM-VALUEs unescaped.
 */
#include "audit.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <json-c/json.h>

#define MSGID	     "audit-head"
#define SD_ID	     "plumbline@32473"
#define JSON_DEPTH   8
#define HEAD_APPNAME "plumbline"

struct sd_values {
	bool seq_ok, hash_ok;
	uint64_t seq, time_ns;
	char hash[PL_AUDIT_HEX + 1];
};

static bool is_hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Decimal digits only, no sign, no leading zero, within a uint64_t. */
static bool parse_u64(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return true;
}

static bool hash_ok(const char *s, size_t n)
{
	if (n != PL_AUDIT_HEX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_hex_lower(s[i]))
			return false;
	return true;
}

/* A param's value, unescaped (\" \\ \]), into v when it is one we take. */
static void take_param(struct sd_values *v, const char *name, size_t nlen, const char *val, size_t vlen)
{
	if (nlen == 3 && memcmp(name, "seq", 3) == 0) {
		v->seq_ok = parse_u64(val, vlen, &v->seq) && v->seq > 0;
	} else if (nlen == 4 && memcmp(name, "hash", 4) == 0) {
		v->hash_ok = hash_ok(val, vlen);
		if (v->hash_ok) {
			memcpy(v->hash, val, PL_AUDIT_HEX);
			v->hash[PL_AUDIT_HEX] = '\0';
		}
	} else if (nlen == 7 && memcmp(name, "time_ns", 7) == 0) {
		if (!parse_u64(val, vlen, &v->time_ns))
			v->time_ns = 0;
	}
}

/*
 * One SD-ELEMENT at p (its '['): RFC 5424 §6.3. Returns the byte after its
 * ']' and fills *v when its SD-ID is ours, or NULL when it is malformed.
 * Values we take are at most 64 bytes, so longer ones are skipped unkept.
 */
static const char *sd_element(const char *p, const char *end, bool *ours, struct sd_values *v)
{
	const char *id = ++p;

	while (p < end && *p != ' ' && *p != ']' && *p != '=' && *p != '"')
		p++;
	if (p == id || p - id > 32 || p == end)
		return NULL;
	*ours = (size_t)(p - id) == sizeof(SD_ID) - 1 && memcmp(id, SD_ID, sizeof(SD_ID) - 1) == 0;
	while (p < end && *p == ' ') {
		const char *name = ++p;
		char val[PL_AUDIT_HEX + 1];
		size_t vlen = 0;
		bool kept = true;

		while (p < end && *p > ' ' && *p < 0x7f && *p != '=' && *p != ']' && *p != '"')
			p++;
		if (p == name || p - name > 32 || end - p < 2 || p[0] != '=' || p[1] != '"')
			return NULL;
		{
			size_t nlen = (size_t)(p - name);

			for (p += 2; p < end && *p != '"'; p++) {
				char c = *p;

				if (c == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\' || p[1] == ']'))
					c = *++p;
				else if (c == ']')
					return NULL; /* an unescaped ']' inside a value */
				if (vlen < sizeof(val) - 1)
					val[vlen++] = c;
				else
					kept = false;
			}
			if (p == end)
				return NULL;
			p++; /* the closing quote */
			if (*ours && kept)
				take_param(v, name, nlen, val, vlen);
			else if (*ours && nlen == 3 && memcmp(name, "seq", 3) == 0)
				v->seq_ok = false;
		}
	}
	if (p == end || *p != ']')
		return NULL;
	return p + 1;
}

/* STRUCTURED-DATA at p: our element's values. 1: found, 0: not ours or malformed. */
static int sd_find(const char *p, const char *end, struct audit_head *ret)
{
	while (p < end && *p == '[') {
		struct sd_values v = { 0 };
		bool ours = false;

		p = sd_element(p, end, &ours, &v);
		if (!p)
			return 0;
		if (ours) {
			if (!v.seq_ok || !v.hash_ok)
				return 0;
			ret->seq = v.seq;
			ret->time_ns = v.time_ns;
			memcpy(ret->hash, v.hash, sizeof(ret->hash));
			return 1;
		}
	}
	return 0;
}

/* Whether s[0..n) (a header token) is `1` or `<PRI>1`: RFC 5424's VERSION. */
static bool version_token(const char *s, size_t n)
{
	if (n == 1)
		return s[0] == '1';
	if (n < 4 || n > 6 || s[0] != '<' || s[n - 1] != '1' || s[n - 2] != '>')
		return false;
	for (size_t i = 1; i < n - 2; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/*
 * Whether the tokens before the MSGID at s + at are an RFC 5424 header of
 * ours: [VERSION] TIMESTAMP HOSTNAME APP-NAME(plumbline) PROCID, one space
 * between each. VERSION may be missing only at the start of s: a collector
 * that took the message for a traditional one made its "1" the tag and
 * kept the rest as the message.
 */
static bool header_before(const char *s, size_t at)
{
	size_t end = at, start;

	for (int field = 0; field < 5; field++) {
		if (field == 4) {
			size_t i = 0;

			while (i < end && s[i] == ' ')
				i++;
			if (i == end)
				return true;
		}
		if (end == 0 || s[end - 1] != ' ')
			return false;
		end--; /* the space */
		start = end;
		while (start > 0 && s[start - 1] != ' ')
			start--;
		if (field == 4)
			return version_token(s + start, end - start);
		if (start == end)
			return false;
		if (field == 1 && (end - start != sizeof(HEAD_APPNAME) - 1 ||
				   memcmp(s + start, HEAD_APPNAME, sizeof(HEAD_APPNAME) - 1) != 0))
			return false;
		if (field == 3 && !(end - start == 1 && s[start] == '-') &&
		    !(end - start >= 10 && s[start] >= '0' && s[start] <= '9' && s[start + 4] == '-'))
			return false;
		end = start;
	}
	return false;
}

/*
 * A head in text: `... 1 TS HOST plumbline PID audit-head [plumbline@32473 ...]`.
 * Only the first element of our SD-ID in s is looked at: the header and SD
 * come before MSG, so what an alert's MSG says (a process's name) is never
 * taken for a head.
 */
static int text_head(const char *s, size_t n, struct audit_head *ret)
{
	static const char id[] = "[" SD_ID, msgid[] = " " MSGID " ";
	const char *p = memmem(s, n, id, sizeof(id) - 1);
	size_t at;

	if (!p || (size_t)(p - s) < sizeof(msgid) - 1 || (size_t)(s + n - p) <= sizeof(id) - 1 ||
	    (p[sizeof(id) - 1] != ' ' && p[sizeof(id) - 1] != ']'))
		return 0;
	at = (size_t)(p - s) - (sizeof(msgid) - 1);
	if (memcmp(s + at, msgid, sizeof(msgid) - 1) != 0 || !header_before(s, at + 1))
		return 0;
	return sd_find(p, s + n, ret);
}

/* The sensor's own record: {"type":"audit_head","seq":N,"hash":"H","time_ns":T,...}. */
static int record_head(struct json_object *o, struct audit_head *ret)
{
	struct json_object *v;
	int64_t seq;

	if (!json_object_object_get_ex(o, "type", &v) || !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "audit_head") != 0)
		return 0;
	if (!json_object_object_get_ex(o, "seq", &v) || !json_object_is_type(v, json_type_int) ||
	    (seq = json_object_get_int64(v)) <= 0)
		return 0;
	ret->seq = (uint64_t)seq;
	if (!json_object_object_get_ex(o, "hash", &v) || !json_object_is_type(v, json_type_string) ||
	    !hash_ok(json_object_get_string(v), (size_t)json_object_get_string_len(v)))
		return 0;
	memcpy(ret->hash, json_object_get_string(v), PL_AUDIT_HEX + 1);
	ret->time_ns = 0;
	if (json_object_object_get_ex(o, "time_ns", &v) && json_object_is_type(v, json_type_int))
		ret->time_ns = json_object_get_uint64(v);
	return 1;
}

struct json_search {
	bool msgid_seen;	   /* some string value is exactly the MSGID */
	struct json_object *sd[4]; /* string values that start with our SD element */
	size_t nsd;
};

/* Every string in o: a whole message in one (rawmsg, MESSAGE), or the MSGID
 * and the SD as values of their own (msgid, structured-data). */
static int json_walk(struct json_object *o, int depth, struct json_search *js, struct audit_head *ret)
{
	if (depth > JSON_DEPTH)
		return 0;
	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *s = json_object_get_string(o);
		size_t n = (size_t)json_object_get_string_len(o);

		if (n == sizeof(MSGID) - 1 && memcmp(s, MSGID, n) == 0)
			js->msgid_seen = true;
		else if (n > sizeof(SD_ID) && s[0] == '[' && memcmp(s + 1, SD_ID, sizeof(SD_ID) - 1) == 0 &&
			 js->nsd < sizeof(js->sd) / sizeof(js->sd[0]))
			js->sd[js->nsd++] = o;
		return text_head(s, n, ret);
	}
	case json_type_object: {
		int r = record_head(o, ret);

		if (r)
			return r;
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			if ((r = json_walk(v, depth + 1, js, ret)))
				return r;
		}
		return 0;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			int r = json_walk(json_object_array_get_idx(o, i), depth + 1, js, ret);

			if (r)
				return r;
		}
		return 0;
	default:
		return 0;
	}
}

static int json_head(const char *s, size_t n, struct audit_head *ret)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH + 2);
	struct json_object *o;
	struct json_search js = { 0 };
	int r = 0;

	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, s, (int)n);
	if (o && json_tokener_get_parse_end(tok) == n && json_object_is_type(o, json_type_object)) {
		r = json_walk(o, 0, &js, ret);
		for (size_t i = 0; !r && js.msgid_seen && i < js.nsd; i++) {
			const char *sd = json_object_get_string(js.sd[i]);

			r = sd_find(sd, sd + json_object_get_string_len(js.sd[i]), ret);
		}
	}
	json_object_put(o);
	json_tokener_free(tok);
	return r;
}

int audit_head__parse(const char *s, size_t n, struct audit_head *ret)
{
	struct audit_head h = { 0 };
	size_t i = 0;
	int r = 0;

	if (n > PL_AUDIT_HEAD_LINE_MAX || n > INT32_MAX)
		return 0;
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	while (i < n && s[i] == ' ')
		i++;
	if (i < n && s[i] == '{')
		r = json_head(s + i, n - i, &h);
	if (r == 0)
		r = text_head(s, n, &h);
	if (r > 0)
		*ret = h;
	return r;
}
