// SPDX-License-Identifier: MIT
/*
 * textsafe.c - UTF-8 validation with lossless escaping of invalid bytes.
 */
#include "textsafe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *text_sanitize(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strnlen(s, len), o = 0;
	char *out = malloc(n * 4 + 1); /* worst case: every byte escaped */

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq_len(u + i, n - i);

		/* a literal backslash is escaped too, so "\x41" in a name can't
		 * pass for an escaped byte: the output is reversible */
		if (l == 0 || u[i] == '\\') {
			snprintf(out + o, 5, "\\x%02X", u[i]);
			o += 4;
			i++;
			continue;
		}
		memcpy(out + o, u + i, l);
		o += l;
		i += l;
	}
	out[o] = '\0';
	return out;
}

char *text_cmdline(const char *args, size_t len)
{
	char *tmp, *out;

	while (len > 0 && args[len - 1] == '\0')
		len--;
	tmp = malloc(len + 1);
	if (!tmp)
		return NULL;
	for (size_t i = 0; i < len; i++)
		tmp[i] = args[i] ? args[i] : ' ';
	tmp[len] = '\0';
	out = text_sanitize(tmp, len);
	free(tmp);
	return out;
}
