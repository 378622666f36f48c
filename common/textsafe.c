// SPDX-License-Identifier: MIT
/*
 * textsafe.c - the one escaping (and unescaping) of untrusted text.
 *
 * One pass over the bytes: runs of printable ASCII are copied as they are
 * (the common case: paths, names, arguments), anything else is decoded as
 * UTF-8 and either kept, or written byte by byte as \xNN. The escaping
 * counts its output like snprintf, so the same code serves the allocating
 * form, bounded buffers (templates) and length queries.
 */
#include "textsafe.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char hex[] = "0123456789ABCDEF";

size_t text_utf8_decode(const void *at, size_t n, uint32_t *ret_cp)
{
	const unsigned char *s = at;
	uint32_t c;
	size_t len;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		if (ret_cp)
			*ret_cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (ret_cp)
		*ret_cp = c;
	return len;
}

/* Code points that could break a line, drive a terminal or reorder text. */
static bool must_escape(uint32_t cp, unsigned flags)
{
	return cp < 0x20 || cp == '\\' || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	       (cp == '"' && (flags & TEXT_ESC_QUOTE)) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static bool plain_ascii(unsigned char c, unsigned flags)
{
	return c >= 0x20 && c < 0x7f && c != '\\' && !(c == '"' && (flags & TEXT_ESC_QUOTE));
}

size_t text_escape_buf(char *buf, size_t size, const char *s, size_t len, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t need = 0, w = 0;
	bool full = size == 0; /* a unit did not fit: write nothing after it */

	for (size_t i = 0; i < len;) {
		size_t run = 0, l;
		uint32_t cp;

		while (i + run < len && plain_ascii(u[i + run], flags))
			run++;
		if (run) {
			if (!full && w + run < size) {
				memcpy(buf + w, u + i, run);
				w += run;
			} else if (!full) {
				/* ASCII can be cut anywhere */
				memcpy(buf + w, u + i, size - 1 - w);
				w = size - 1;
				full = true;
			}
			need += run;
			i += run;
			continue;
		}
		l = text_utf8_decode(u + i, len - i, &cp);
		if (l && !must_escape(cp, flags)) {
			if (!full && w + l < size) {
				memcpy(buf + w, u + i, l);
				w += l;
			} else {
				full = true;
			}
			need += l;
			i += l;
			continue;
		}
		/* every byte of an escaped code point, or one invalid byte */
		for (size_t k = 0; k < (l ? l : 1); k++) {
			if (!full && w + 4 < size) {
				buf[w++] = '\\';
				buf[w++] = 'x';
				buf[w++] = hex[u[i + k] >> 4];
				buf[w++] = hex[u[i + k] & 15];
			} else {
				full = true;
			}
			need += 4;
		}
		i += l ? l : 1;
	}
	if (size)
		buf[w] = '\0';
	return need;
}

char *text_escape(const char *s, size_t len)
{
	size_t need;
	char *out;

	if (len > (SIZE_MAX - 1) / 4)
		return NULL;
	need = text_escape_buf(NULL, 0, s, len, 0);
	out = malloc(need + 1);
	if (out)
		text_escape_buf(out, need + 1, s, len, 0);
	return out;
}

char *text_escape_str(const char *s)
{
	return s ? text_escape(s, strlen(s)) : NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t text_unescape_buf(char *buf, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		int hi, lo;

		if (s[i] == '\\' && len - i >= 4 && s[i + 1] == 'x' && (hi = hexval(s[i + 2])) >= 0 &&
		    (lo = hexval(s[i + 3])) >= 0) {
			buf[o++] = (char)(hi << 4 | lo);
			i += 4;
			continue;
		}
		buf[o++] = s[i++];
	}
	buf[o] = '\0';
	return o;
}

char *text_unescape(const char *s, size_t len, size_t *ret_len)
{
	char *out;
	size_t n;

	if (len == SIZE_MAX)
		return NULL;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	n = text_unescape_buf(out, s, len);
	if (ret_len)
		*ret_len = n;
	return out;
}

/* Bytes and columns of the display unit at esc[i]: an escape, or one code point. */
static size_t unit_at(const char *esc, size_t i, size_t *cols)
{
	const unsigned char *u = (const unsigned char *)esc;
	uint32_t cp;
	size_t l;

	if (esc[i] == '\\' && esc[i + 1] == 'x' && hexval(esc[i + 2]) >= 0 && hexval(esc[i + 3]) >= 0) {
		*cols = 4;
		return 4;
	}
	*cols = 1;
	l = text_utf8_decode(u + i, strnlen(esc + i, 4), &cp);
	return l ? l : 1;
}

size_t text_tail(const char *esc, size_t max_cols, size_t *ret_cols)
{
	size_t total = 0, i = 0, cols;

	while (esc[i]) {
		i += unit_at(esc, i, &cols);
		total += cols;
	}
	for (i = 0; total > max_cols;) {
		i += unit_at(esc, i, &cols);
		total -= cols;
	}
	if (ret_cols)
		*ret_cols = total;
	return i;
}

char *text_cmdline(const char *args, size_t len)
{
	char *out;

	while (len > 0 && args[len - 1] == '\0')
		len--;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++)
		out[i] = args[i] ? args[i] : ' ';
	out[len] = '\0';
	return out;
}
