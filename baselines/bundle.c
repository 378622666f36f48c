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
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "jsonfield.h"
#include "store.h"

#define BUNDLE_FORMAT "plumbline-baselines"
#define DEPTH_MAX     64 /* as the tokener that parses a baseline file */

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

/* The members of the outer object a reader looks at. */
enum top_field {
	F_FORMAT,
	F_VERSION,
	F_ROLE,
	F_HOST,
	F_CREATED,
	F_CREATED_NS,
	F_HOSTS,
	F_BASELINES,
	F_SIGNATURE,
	F_MAX
};
static const char *const top_names[F_MAX] = {"format",	   "version", "role",	   "host",     "created",
					     "created_ns", "hosts",   "baselines", "signature"};

struct top {
	struct span v[F_MAX]; /* len 0: absent */
	size_t signed_len;    /* the bytes before the comma before "signature" */
};

/* The outer object: where its members are, and where the signed bytes end. */
static int scan_top(struct scan *s, struct top *t)
{
	const char *comma = NULL; /* the last comma between members */

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
			if (t->v[F_SIGNATURE].len)
				return bad(s, "\"signature\" is not the last member");
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
			for (int f = 0; f < F_MAX && !slot; f++)
				if (key_is(&k, top_names[f]))
					slot = &t->v[f];
			if (slot && slot->len)
				return bad(s, "duplicate key");
			if (slot)
				*slot = v;
			if (slot == &t->v[F_SIGNATURE]) {
				if (!comma)
					return bad(s, "\"signature\" is the only member");
				t->signed_len = (size_t)(comma - s->buf);
			}
			if (peek(s) == ',') {
				comma = s->p++;
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
			snprintf(s->err, s->errlen, "holds more than %u baselines, more than a store keeps",
				 BL_STORE_MAX);
			r = -EFBIG;
			break;
		}
		if (v.len > BL_FILE_MAX) {
			snprintf(s->err, s->errlen,
				 "baseline #%zu: %zu bytes, larger than the %u MiB a baseline may be", cnt, v.len,
				 BL_FILE_MAX >> 20);
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

static int check_header(const struct top *t, char *err, size_t errlen)
{
	static const char want[] = "\"" BUNDLE_FORMAT "\"";
	const struct span *format = &t->v[F_FORMAT], *version = &t->v[F_VERSION], *arr = &t->v[F_BASELINES];
	char digits[24];

	if (format->len != sizeof(want) - 1 || memcmp(format->p, want, format->len) != 0) {
		snprintf(err, errlen, "not a plumbline baseline bundle (\"format\" is not \"%s\")", BUNDLE_FORMAT);
		return -EINVAL;
	}
	snprintf(digits, sizeof(digits), "%d", BL_FORMAT_VERSION);
	if (version->len != strlen(digits) || memcmp(version->p, digits, version->len) != 0) {
		snprintf(err, errlen, "unsupported bundle version (this plumbline reads version %d)",
			 BL_FORMAT_VERSION);
		return -EINVAL;
	}
	if (!arr->len || arr->p[0] != '[') {
		snprintf(err, errlen, "\"baselines\" is missing or not an array");
		return -EINVAL;
	}
	return 0;
}

static bool valid_name(const char *s, size_t max)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");

	return n > 0 && n <= max && s[n] == '\0';
}

bool bl_bundle__valid_role(const char *s)
{
	return valid_name(s, BL_ROLE_MAX);
}

bool bl_bundle__valid_host(const char *s)
{
	return valid_name(s, BL_HOST_MAX);
}

static size_t listed(const char *list)
{
	size_t n = 0;

	for (; *list; list++)
		n += *list == ',';
	return n;
}

static bool in_list(const char *list, const char *host)
{
	size_t len = strlen(host);

	for (const char *p = list; *p; p = strchr(p, ',') + 1)
		if (strncmp(p, host, len) == 0 && p[len] == ',')
			return true;
	return false;
}

static void list_add(char *list, size_t size, const char *host)
{
	size_t used = strlen(list), len = strlen(host);

	if (!*host || listed(list) >= BL_BUNDLE_HOSTS_LISTED || in_list(list, host) || used + len + 2 > size)
		return;
	memcpy(list + used, host, len);
	list[used + len] = ',';
	list[used + len + 1] = '\0';
}

void bl_bundle_meta__add_hosts(struct bl_bundle_meta *merge, const struct bl_bundle_meta *from)
{
	char one[BL_HOST_MAX + 1];

	list_add(merge->host_list, sizeof(merge->host_list), from->host);
	for (const char *p = from->host_list; *p;) {
		const char *c = strchr(p, ',');
		size_t len = (size_t)(c - p);

		if (len < sizeof(one)) {
			memcpy(one, p, len);
			one[len] = '\0';
			list_add(merge->host_list, sizeof(merge->host_list), one);
		}
		p = c + 1;
	}
}

void bl_bundle__format_time(uint64_t ns, char ret[BL_TIME_LEN])
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&sec, &tm) || !strftime(ret, 40, "%Y-%m-%dT%H:%M:%S", &tm)) {
		ret[0] = '\0';
		return;
	}
	snprintf(ret + strlen(ret), 40 - strlen(ret), ".%09uZ", (unsigned)(ns % 1000000000u));
}

#define SMALL_MAX (BL_BUNDLE_HOSTS_LISTED * (4 * BL_HOST_MAX + 8) + 16) /* a header member's text */

/*
 * A small member's value through json-c (the caller puts it); NULL with err
 * set. Copied with its NUL: json-c cannot tell where a number ends without
 * the byte after it.
 */
static struct json_object *parse_small(struct json_tokener *tok, const struct span *v, const char *name, char *err,
				       size_t errlen)
{
	struct json_object *o;
	char *copy;

	if (v->len > SMALL_MAX) {
		snprintf(err, errlen, "\"%s\" is %zu bytes, longer than a bundle's header member may be", name, v->len);
		return NULL;
	}
	copy = strndup(v->p, v->len);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, copy, (int)v->len + 1);
	if (!o || json_tokener_get_parse_end(tok) < v->len) {
		snprintf(err, errlen, "\"%s\" is not valid JSON", name);
		json_object_put(o);
		o = NULL;
	}
	free(copy);
	return o;
}

/* A string member that is a name (role or host) into ret. */
static int get_name(struct json_object *o, const char *name, bool (*valid)(const char *), char *ret, size_t size,
		    char *err, size_t errlen)
{
	const char *s = json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;

	if (!s || strlen(s) != (size_t)json_object_get_string_len(o) || strlen(s) >= size || !valid(s)) {
		snprintf(err, errlen, "\"%s\" is not a %s name (1 to %zu of A-Z a-z 0-9 . _ -)", name,
			 valid == bl_bundle__valid_role ? "role" : "host", size - 1);
		return -EINVAL;
	}
	memcpy(ret, s, strlen(s) + 1);
	return 0;
}

static int get_count(struct json_object *o, const char *name, uint64_t max, uint64_t *ret, char *err, size_t errlen)
{
	if (!json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0 || json_object_get_uint64(o) > max) {
		snprintf(err, errlen, "\"%s\" is not a number from 0 to %llu", name, (unsigned long long)max);
		return -EINVAL;
	}
	*ret = json_object_get_uint64(o);
	return 0;
}

/* The members of meta, each checked; absent ones take the defaults of an old bundle. */
static int parse_meta(struct json_tokener *tok, const struct top *t, struct bl_bundle_meta *m, char *err, size_t errlen)
{
	struct json_object *o;
	uint64_t v;
	int r = 0;

	memset(m, 0, sizeof(*m));
	m->hosts = 1;
	if (t->v[F_ROLE].len) {
		if (!(o = parse_small(tok, &t->v[F_ROLE], "role", err, errlen)))
			return -EINVAL;
		r = get_name(o, "role", bl_bundle__valid_role, m->role, sizeof(m->role), err, errlen);
		json_object_put(o);
	}
	if (!r && t->v[F_HOSTS].len) {
		if (!(o = parse_small(tok, &t->v[F_HOSTS], "hosts", err, errlen)))
			return -EINVAL;
		r = get_count(o, "hosts", UINT32_MAX, &v, err, errlen);
		json_object_put(o);
		if (!r && v == 0)
			r = jf_fail(err, errlen, "\"hosts\" is 0: a bundle holds at least one host's baselines");
		m->hosts = (uint32_t)v;
	}
	if (!r && t->v[F_HOST].len) {
		if (!(o = parse_small(tok, &t->v[F_HOST], "host", err, errlen)))
			return -EINVAL;
		if (json_object_is_type(o, json_type_array)) {
			size_t n = json_object_array_length(o);

			if (n > BL_BUNDLE_HOSTS_LISTED || n > m->hosts)
				r = jf_fail(err, errlen, "\"host\" lists %zu hosts, more than %u or than \"hosts\"", n,
					    BL_BUNDLE_HOSTS_LISTED);
			for (size_t i = 0; !r && i < n; i++) {
				char one[BL_HOST_MAX + 1];

				r = get_name(json_object_array_get_idx(o, i), "host", bl_bundle__valid_host, one,
					     sizeof(one), err, errlen);
				if (!r && in_list(m->host_list, one))
					r = jf_fail(err, errlen, "\"host\" lists %s twice", one);
				if (!r)
					list_add(m->host_list, sizeof(m->host_list), one);
			}
		} else {
			r = get_name(o, "host", bl_bundle__valid_host, m->host, sizeof(m->host), err, errlen);
		}
		json_object_put(o);
	}
	if (!r && (!t->v[F_CREATED].len != !t->v[F_CREATED_NS].len))
		r = jf_fail(err, errlen, "\"created\" and \"created_ns\" come together");
	if (!r && t->v[F_CREATED_NS].len) {
		char want[BL_TIME_LEN];

		if (!(o = parse_small(tok, &t->v[F_CREATED_NS], "created_ns", err, errlen)))
			return -EINVAL;
		r = get_count(o, "created_ns", UINT64_MAX, &m->created_ns, err, errlen);
		json_object_put(o);
		if (r)
			return r;
		if (!(o = parse_small(tok, &t->v[F_CREATED], "created", err, errlen)))
			return -EINVAL;
		bl_bundle__format_time(m->created_ns, want);
		if (!json_object_is_type(o, json_type_string) || strcmp(json_object_get_string(o), want) != 0)
			r = jf_fail(err, errlen, "\"created\" is not created_ns in RFC 3339 (%s)", want);
		json_object_put(o);
	}
	return r;
}

/* The signature member: alg, key_id and the 64 bytes, nothing else. */
static int parse_signature(struct json_tokener *tok, const struct span *v, char key_id[BL_KEY_ID_LEN + 1],
			   uint8_t sig[BL_SIG_LEN], char *err, size_t errlen)
{
	static const char *const keys[] = {"alg", "key_id", "value", NULL};
	struct json_object *o = parse_small(tok, v, "signature", err, errlen), *alg, *id, *val;
	char e[160];
	int r = -EINVAL;

	if (!o)
		return -EINVAL;
	if (!json_object_is_type(o, json_type_object) || jf_check_keys(o, keys, "signature", e, sizeof(e)) < 0 ||
	    !json_object_object_get_ex(o, "alg", &alg) || !json_object_object_get_ex(o, "key_id", &id) ||
	    !json_object_object_get_ex(o, "value", &val))
		snprintf(err, errlen, "\"signature\" is not an object of \"alg\", \"key_id\" and \"value\"");
	else if (!json_object_is_type(alg, json_type_string) || strcmp(json_object_get_string(alg), "ed25519") != 0)
		snprintf(err, errlen, "\"signature\": \"alg\" is not \"ed25519\"");
	else if (!json_object_is_type(id, json_type_string) || json_object_get_string_len(id) != BL_KEY_ID_LEN ||
		 strspn(json_object_get_string(id), "0123456789abcdef") != BL_KEY_ID_LEN)
		snprintf(err, errlen, "\"signature\": \"key_id\" is not %d lowercase hex digits", BL_KEY_ID_LEN);
	else if (!json_object_is_type(val, json_type_string) ||
		 bl_sig__decode(json_object_get_string(val), (size_t)json_object_get_string_len(val), sig) < 0)
		snprintf(err, errlen, "\"signature\": \"value\" is not the base64 of %d bytes", BL_SIG_LEN);
	else {
		memcpy(key_id, json_object_get_string(id), BL_KEY_ID_LEN + 1);
		r = 0;
	}
	json_object_put(o);
	return r;
}

int bl_bundle__read_meta(const char *path, const struct bl_keyring *trust, struct bl_bundle_meta *ret_meta,
			 enum bl_sig *ret_sig, char *ret_key_id, struct baseline ***ret, size_t *ret_n, char *err,
			 size_t errlen)
{
	struct top t = {0};
	struct span *m = NULL;
	struct json_tokener *tok = NULL;
	struct baseline **bs = NULL;
	struct bl_bundle_meta *meta = calloc(1, sizeof(*meta));
	char key_id[BL_KEY_ID_LEN + 1] = "";
	uint8_t sig[BL_SIG_LEN];
	enum bl_sig verdict = BL_SIG_NONE;
	size_t len, cnt = 0, done = 0;
	bool want;
	struct scan s;
	char *buf = NULL;
	int r;

	/* refused by its size before a byte of it is read */
	r = meta ? bl_file__read(path, BL_BUNDLE_MAX, 0, &buf, &len, err, errlen) : -ENOMEM;
	if (r < 0)
		goto out;
	s = (struct scan){.buf = buf, .p = buf, .end = buf + len, .err = err, .errlen = errlen};
	tok = json_tokener_new_ex(DEPTH_MAX);
	r = tok ? scan_top(&s, &t) : -ENOMEM;
	if (!r)
		r = check_header(&t, err, errlen);
	if (!r)
		r = parse_meta(tok, &t, meta, err, errlen);
	if (!r)
		r = scan_members(&s, &t.v[F_BASELINES], &m, &cnt);
	if (!r && t.v[F_SIGNATURE].len) {
		r = parse_signature(tok, &t.v[F_SIGNATURE], key_id, sig, err, errlen);
		verdict = r ? BL_SIG_NONE : bl_keyring__verify(trust, key_id, buf, t.signed_len, sig);
	}
	meta->nbaselines = cnt;
	/* with a keyring, only what a trusted key signed is parsed */
	want = ret && (!trust || verdict == BL_SIG_GOOD);
	if (!r && want && !(bs = calloc(cnt ? cnt : 1, sizeof(*bs))))
		r = -ENOMEM;
	for (; !r && want && done < cnt; done++)
		r = parse_member(tok, &m[done], done, &bs[done], err, errlen);
out:
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (tok)
		json_tokener_free(tok);
	free(m);
	free(buf);
	if (r < 0) {
		for (size_t i = 0; bs && i < done; i++)
			baseline__free(bs[i]);
		free(bs);
		free(meta);
		return r;
	}
	if (ret_meta)
		*ret_meta = *meta;
	free(meta);
	if (ret_sig)
		*ret_sig = verdict;
	if (ret_key_id)
		memcpy(ret_key_id, key_id, sizeof(key_id));
	if (ret) {
		*ret = bs;
		*ret_n = bs ? cnt : 0;
	}
	return 0;
}

int bl_bundle__read(const char *path, struct baseline ***ret, size_t *n, char *err, size_t errlen)
{
	return bl_bundle__read_meta(path, NULL, NULL, NULL, NULL, ret, n, err, errlen);
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

static int putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(struct out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -EINVAL;
	return put(o, tmp, (size_t)n);
}

/* The members after "version": role, host (or the list), created, hosts. Names are plain ASCII: no escaping. */
static int put_meta(struct out *o, const struct bl_bundle_meta *m)
{
	char when[BL_TIME_LEN];
	int r = 0;

	if (m->hosts == 0 || (m->role[0] && !bl_bundle__valid_role(m->role)) ||
	    (m->host[0] && !bl_bundle__valid_host(m->host)))
		return -EINVAL;
	if (m->role[0])
		r = putf(o, ",\"role\":\"%s\"", m->role);
	if (!r && m->host[0])
		r = putf(o, ",\"host\":\"%s\"", m->host);
	if (!r && !m->host[0] && m->host_list[0]) {
		const char *p = m->host_list;
		char one[BL_HOST_MAX + 1];

		r = put(o, ",\"host\":[", 9);
		for (size_t i = 0; !r && *p; i++) {
			const char *c = strchr(p, ',');
			size_t len = c ? (size_t)(c - p) : 0;

			if (!c || len >= sizeof(one) || i == BL_BUNDLE_HOSTS_LISTED)
				return -EINVAL;
			memcpy(one, p, len);
			one[len] = '\0';
			if (!bl_bundle__valid_host(one))
				return -EINVAL;
			r = putf(o, "%s\"%s\"", i ? "," : "", one);
			p = c + 1;
		}
		if (!r)
			r = put(o, "]", 1);
	}
	bl_bundle__format_time(m->created_ns, when);
	if (!r)
		r = putf(o, ",\"created\":\"%s\",\"created_ns\":%llu,\"hosts\":%u", when,
			 (unsigned long long)m->created_ns, m->hosts);
	return r;
}

/* The signature member over o's bytes so far, and the closing brace. */
static int put_signature(struct out *o, const struct bl_signkey *key)
{
	uint8_t sig[BL_SIG_LEN];
	char id[BL_KEY_ID_LEN + 1], b64[BL_SIG_B64_LEN + 1];
	int r = bl_signkey__sign(key, o->buf, o->len, sig);

	if (r < 0)
		return r;
	bl_signkey__id(key, id);
	bl_sig__encode(sig, b64);
	return putf(o, ",\"signature\":{\"alg\":\"ed25519\",\"key_id\":\"%s\",\"value\":\"%s\"}}", id, b64);
}

int bl_bundle__write_meta(const char *path, struct baseline *const *bs, size_t n, const struct bl_bundle_meta *meta,
			  const struct bl_signkey *key)
{
	static const char head[] = "{\"format\":\"" BUNDLE_FORMAT "\",\"version\":";
	struct out o = {0};
	int r;

	r = put(&o, head, sizeof(head) - 1);
	if (!r)
		r = putf(&o, "%d", BL_FORMAT_VERSION);
	if (!r && meta)
		r = put_meta(&o, meta);
	if (!r)
		r = put(&o, ",\"baselines\":[", 14);
	for (size_t i = 0; i < n && !r; i++) {
		struct json_object *j = baseline__to_json(bs[i]);
		const char *s;
		size_t len;

		s = j ? json_object_to_json_string_length(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
							  &len)
		      : NULL;
		r = !s ? -ENOMEM : i ? put(&o, ",", 1) : 0;
		if (!r)
			r = put(&o, s, len);
		json_object_put(j);
	}
	if (!r)
		r = put(&o, "]", 1);
	if (!r)
		r = key ? put_signature(&o, key) : put(&o, "}", 1);
	if (!r)
		r = atomic_write_file(path, o.buf, o.len, 0600);
	free(o.buf);
	return r;
}

int bl_bundle__write(const char *path, struct baseline *const *bs, size_t n)
{
	return bl_bundle__write_meta(path, bs, n, NULL, NULL);
}
