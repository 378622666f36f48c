// SPDX-License-Identifier: MIT
/*
 * bundle.c - read and write bundles of baselines, bounded, one baseline at
 * a time.
 *
 * Reading: the file is read whole (it is bounded), a small scanner walks
 * its outer object and the "baselines" array, checking brackets and strings
 * but building nothing, and records where each member starts and ends.
 * Every bound is checked in that pass, before any member is parsed; then
 * each member is parsed by json-c on its own and turned into a baseline,
 * and its tree freed before the next. Writing is the same in reverse: each
 * baseline's JSON is appended to one buffer and its tree freed.
 */
#include "bundle.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "store.h"

#define BUNDLE_FORMAT "plumbline-baselines"
#define DEPTH_MAX 64 /* as the tokener that parses a baseline file */

struct scan {
	const char *buf, *p, *end;
	char *err;
	size_t errlen;
};

struct span {
	const char *p;
	size_t len;
};

static int bad(struct scan *s, const char *what)
{
	snprintf(s->err, s->errlen, "not valid JSON (%s at byte %zu)", what, (size_t)(s->p - s->buf));
	return -EINVAL;
}

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* The next character, after whitespace; -1 at the end. */
static int peek(struct scan *s)
{
	skip_ws(s);
	return s->p < s->end ? (unsigned char)*s->p : -1;
}

/* Past the string that starts at s->p (its opening quote). */
static int skip_string(struct scan *s)
{
	for (s->p++; s->p < s->end; s->p++) {
		if (*s->p == '\\') {
			s->p++;
			continue;
		}
		if (*s->p == '"') {
			s->p++;
			return 0;
		}
	}
	s->p = s->end;
	return bad(s, "truncated");
}

/*
 * Past one value, into *v. Checks nesting and strings only: what is used of
 * it is parsed by json-c later, which checks the rest.
 */
static int skip_value(struct scan *s, struct span *v)
{
	char close[DEPTH_MAX];
	size_t depth = 0;
	int c = peek(s), r;

	v->p = s->p;
	if (c == -1)
		return bad(s, "truncated");
	if (c != '"' && c != '{' && c != '[') {
		/* a scalar: up to the next delimiter */
		while (s->p < s->end && !strchr(",]} \t\r\n", *s->p))
			s->p++;
		if (s->p == v->p)
			return bad(s, "expected a value");
		v->len = (size_t)(s->p - v->p);
		return 0;
	}
	do {
		if (s->p >= s->end)
			return bad(s, "truncated");
		switch (*s->p) {
		case '"':
			r = skip_string(s);
			if (r < 0)
				return r;
			break;
		case '{':
		case '[':
			if (depth == DEPTH_MAX)
				return bad(s, "nested too deeply");
			close[depth++] = *s->p == '{' ? '}' : ']';
			s->p++;
			break;
		case '}':
		case ']':
			if (depth == 0 || close[depth - 1] != *s->p)
				return bad(s, "mismatched bracket");
			depth--;
			s->p++;
			break;
		default:
			s->p++;
		}
	} while (depth > 0);
	v->len = (size_t)(s->p - v->p);
	return 0;
}

static bool key_is(const struct span *k, const char *name)
{
	return k->len == strlen(name) + 2 && memcmp(k->p + 1, name, k->len - 2) == 0;
}

/* The outer object: where "format", "version" and "baselines" are (len 0: absent). */
static int scan_top(struct scan *s, struct span *format, struct span *version, struct span *arr)
{
	if (peek(s) != '{')
		return bad(s, "expected an object");
	s->p++;
	if (peek(s) == '}') {
		s->p++;
	} else {
		for (;;) {
			struct span k, v, *slot = NULL;
			int r;

			if (peek(s) != '"')
				return bad(s, "expected a key");
			k.p = s->p;
			r = skip_string(s);
			if (r < 0)
				return r;
			k.len = (size_t)(s->p - k.p);
			if (peek(s) != ':')
				return bad(s, "expected ':'");
			s->p++;
			r = skip_value(s, &v);
			if (r < 0)
				return r;
			if (key_is(&k, "format"))
				slot = format;
			else if (key_is(&k, "version"))
				slot = version;
			else if (key_is(&k, "baselines"))
				slot = arr;
			if (slot && slot->len)
				return bad(s, "duplicate key");
			if (slot)
				*slot = v;
			if (peek(s) == ',') {
				s->p++;
				continue;
			}
			if (peek(s) == '}') {
				s->p++;
				break;
			}
			return bad(s, s->p < s->end ? "expected ',' or '}'" : "truncated");
		}
	}
	if (peek(s) != -1)
		return bad(s, "data after the object");
	return 0;
}

/* The members of the "baselines" array, bounded in number and in size. */
static int scan_members(struct scan *s, const struct span *arr, struct span **ret, size_t *n)
{
	struct span *m = NULL;
	size_t cnt = 0, cap = 0;
	int r = 0;

	s->p = arr->p + 1;
	if (peek(s) == ']') {
		*ret = NULL;
		*n = 0;
		return 0;
	}
	for (;;) {
		struct span v;

		r = skip_value(s, &v);
		if (r < 0)
			break;
		if (cnt == BL_STORE_MAX) {
			snprintf(s->err, s->errlen, "holds more than %u baselines, more than a store keeps", BL_STORE_MAX);
			r = -EFBIG;
			break;
		}
		if (v.len > BL_FILE_MAX) {
			snprintf(s->err, s->errlen, "baseline #%zu: %zu bytes, larger than the %u MiB a baseline may be", cnt,
				 v.len, BL_FILE_MAX >> 20);
			r = -EFBIG;
			break;
		}
		if (cnt == cap) {
			struct span *nm = realloc(m, (cap ? cap * 2 : 256) * sizeof(*nm));

			if (!nm) {
				r = -ENOMEM;
				break;
			}
			m = nm;
			cap = cap ? cap * 2 : 256;
		}
		m[cnt++] = v;
		if (peek(s) == ',') {
			s->p++;
			continue;
		}
		if (peek(s) == ']')
			break;
		r = bad(s, "expected ',' or ']'");
		break;
	}
	if (r < 0) {
		free(m);
		return r;
	}
	*ret = m;
	*n = cnt;
	return 0;
}

/* One member: an object parsed alone, into a baseline. */
static int parse_member(struct json_tokener *tok, const struct span *v, size_t i, struct baseline **ret, char *err,
			size_t errlen)
{
	struct json_object *o;
	char e[200];
	int r;

	if (v->p[0] != '{') {
		snprintf(err, errlen, "baseline #%zu: not an object", i);
		return -EINVAL;
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, v->p, (int)v->len);
	if (!o || json_tokener_get_parse_end(tok) != v->len) {
		snprintf(err, errlen, "baseline #%zu: not valid JSON (%s)", i,
			 json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(o);
		return -EINVAL;
	}
	r = baseline__from_json(o, ret, e, sizeof(e));
	json_object_put(o);
	if (r < 0)
		snprintf(err, errlen, "baseline #%zu: %s", i, e);
	return r;
}

static int check_header(const struct span *format, const struct span *version, const struct span *arr, char *err,
			size_t errlen)
{
	static const char want[] = "\"" BUNDLE_FORMAT "\"";
	char digits[24];

	if (format->len != sizeof(want) - 1 || memcmp(format->p, want, format->len) != 0) {
		snprintf(err, errlen, "not a plumbline baseline bundle (\"format\" is not \"%s\")", BUNDLE_FORMAT);
		return -EINVAL;
	}
	snprintf(digits, sizeof(digits), "%d", BL_FORMAT_VERSION);
	if (version->len != strlen(digits) || memcmp(version->p, digits, version->len) != 0) {
		snprintf(err, errlen, "unsupported bundle version (this plumbline reads version %d)", BL_FORMAT_VERSION);
		return -EINVAL;
	}
	if (!arr->len || arr->p[0] != '[') {
		snprintf(err, errlen, "\"baselines\" is missing or not an array");
		return -EINVAL;
	}
	return 0;
}

int bl_bundle__read(const char *path, struct baseline ***ret, size_t *n, char *err, size_t errlen)
{
	struct span format = { 0 }, version = { 0 }, arr = { 0 }, *m = NULL;
	struct json_tokener *tok = NULL;
	struct baseline **bs = NULL;
	size_t len, cnt = 0, done = 0;
	struct scan s;
	char *buf;
	int r;

	/* refused by its size before a byte of it is read */
	r = bl_file__read(path, BL_BUNDLE_MAX, 0, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	s = (struct scan){ .buf = buf, .p = buf, .end = buf + len, .err = err, .errlen = errlen };
	r = scan_top(&s, &format, &version, &arr);
	if (!r)
		r = check_header(&format, &version, &arr, err, errlen);
	if (!r)
		r = scan_members(&s, &arr, &m, &cnt);
	if (!r) {
		bs = calloc(cnt ? cnt : 1, sizeof(*bs));
		tok = json_tokener_new_ex(DEPTH_MAX);
		if (!bs || !tok)
			r = -ENOMEM;
	}
	for (; !r && done < cnt; done++)
		r = parse_member(tok, &m[done], done, &bs[done], err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (tok)
		json_tokener_free(tok);
	free(m);
	free(buf);
	if (r < 0) {
		for (size_t i = 0; i < done; i++)
			baseline__free(bs[i]);
		free(bs);
		return r;
	}
	*ret = bs;
	*n = cnt;
	return 0;
}

struct out {
	char *buf;
	size_t len, cap;
};

static int put(struct out *o, const char *s, size_t len)
{
	if (o->len + len > BL_BUNDLE_MAX)
		return -EFBIG;
	if (o->len + len > o->cap) {
		size_t cap = o->cap ? o->cap : 1u << 16;
		char *nb;

		while (cap < o->len + len)
			cap *= 2;
		nb = realloc(o->buf, cap);
		if (!nb)
			return -ENOMEM;
		o->buf = nb;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, len);
	o->len += len;
	return 0;
}

int bl_bundle__write(const char *path, struct baseline *const *bs, size_t n)
{
	static const char head[] = "{\"format\":\"" BUNDLE_FORMAT "\",\"version\":";
	struct out o = { 0 };
	char ver[32];
	int r;

	snprintf(ver, sizeof(ver), "%d,\"baselines\":[", BL_FORMAT_VERSION);
	r = put(&o, head, sizeof(head) - 1);
	if (!r)
		r = put(&o, ver, strlen(ver));
	for (size_t i = 0; i < n && !r; i++) {
		struct json_object *j = baseline__to_json(bs[i]);
		const char *s;
		size_t len;

		s = j ? json_object_to_json_string_length(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
		      : NULL;
		r = !s ? -ENOMEM : i ? put(&o, ",", 1) : 0;
		if (!r)
			r = put(&o, s, len);
		json_object_put(j);
	}
	if (!r)
		r = put(&o, "]}", 2);
	if (!r)
		r = atomic_write_file(path, o.buf, o.len, 0600);
	free(o.buf);
	return r;
}
