// SPDX-License-Identifier: MIT
/*
 * conffile.c - parse the `key = value` lines of plumbline.conf.
 *
 * Why a line format and not YAML: every setting is one `plumbline run`
 * option, so the file is a flat list of options, some repeated (rules). A
 * line format says that exactly, has one way to write each thing, and
 * its errors point at a byte an editor can jump to. It is small enough to
 * read here in full: bounded input, a single pass, no recursion.
 */
#include "conffile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"

int conffile__error(struct conffile *cf, int line, int col, const char *fmt, ...)
{
	struct cf_error *x;
	va_list ap;

	cf->errors++;
	if (cf->nerr >= CF_ERRORS_MAX)
		return 0;
	if (cf->nerr == cf->err_cap) { /* grown as needed: most files have none */
		size_t cap = cf->err_cap ? cf->err_cap * 4 : 4;
		struct cf_error *n = realloc(cf->err, (cap > CF_ERRORS_MAX ? CF_ERRORS_MAX : cap) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		cf->err = n;
		cf->err_cap = cap > CF_ERRORS_MAX ? CF_ERRORS_MAX : cap;
	}
	x = &cf->err[cf->nerr++];
	x->line = line;
	x->col = col;
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
	return 0;
}

void conffile__free(struct conffile *cf)
{
	if (!cf)
		return;
	for (size_t i = 0; i < cf->n; i++) {
		free(cf->e[i].key);
		free(cf->e[i].value);
	}
	free(cf->e);
	free(cf->err);
	memset(cf, 0, sizeof(*cf));
}

static int is_key_char(unsigned char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (!first && c == '-');
}

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* A byte a line may not hold: a control character other than a tab (NUL included). */
static int is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static int add_entry(struct conffile *cf, const char *key, size_t klen, char *value, int line, int col, int vcol,
		     int quoted)
{
	struct cf_entry *x;

	if (cf->n == cf->cap) {
		size_t cap = cf->cap ? cf->cap * 2 : 16;
		struct cf_entry *n = realloc(cf->e, (cap > CF_ENTRIES_MAX ? CF_ENTRIES_MAX : cap) * sizeof(*n));

		if (!n) {
			free(value);
			return -ENOMEM;
		}
		cf->e = n;
		cf->cap = cap > CF_ENTRIES_MAX ? CF_ENTRIES_MAX : cap;
	}
	x = &cf->e[cf->n];
	x->key = strndup(key, klen);
	if (!x->key) {
		free(value);
		return -ENOMEM;
	}
	x->value = value;
	x->line = line;
	x->col = col;
	x->vcol = vcol;
	x->quoted = quoted;
	cf->n++;
	return 0;
}

/*
 * One line (s, len: without its newline) at line number ln. Syntax errors
 * are recorded; returns 0 or -ENOMEM.
 */
static int parse_line(struct conffile *cf, const char *s, size_t len, int ln)
{
	size_t i = 0, k0, klen, v0;
	char *value;
	int quoted = 0;

	for (size_t j = 0; j < len;) {
		/* a value is handed on as text (to rule paths, syslog, records):
		 * bytes that are not UTF-8 would be a second meaning of it */
		size_t n = text_utf8_decode(s + j, len - j, NULL);

		if (n == 0)
			return conffile__error(cf, ln, (int)j + 1, "byte 0x%02x is not valid UTF-8",
					       (unsigned char)s[j]);
		if (is_control((unsigned char)s[j]))
			return conffile__error(cf, ln, (int)j + 1, "control character 0x%02x in the line",
					       (unsigned char)s[j]);
		j += n;
	}
	while (i < len && is_blank((unsigned char)s[i]))
		i++;
	if (i == len || s[i] == '#')
		return 0;
	k0 = i;
	if (!is_key_char((unsigned char)s[i], 1))
		return conffile__error(
		    cf, ln, (int)i + 1,
		    "expected a key (lower-case letters, digits and '-', as the option's long name)");
	while (i < len && is_key_char((unsigned char)s[i], 0))
		i++;
	klen = i - k0;
	if (klen > CF_KEY_MAX)
		return conffile__error(cf, ln, (int)k0 + 1, "key longer than %d bytes", CF_KEY_MAX);
	while (i < len && is_blank((unsigned char)s[i]))
		i++;
	if (i == len || s[i] != '=') {
		if (i < len && (s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z')))
			return conffile__error(
			    cf, ln, (int)i + 1,
			    "a key is lower-case letters, digits and '-' (as the option's long name)");
		return conffile__error(cf, ln, (int)i + 1, "expected '=' after '%.*s'", (int)klen, s + k0);
	}
	i++;
	while (i < len && is_blank((unsigned char)s[i]))
		i++;
	v0 = i;
	if (i < len && s[i] == '"') {
		size_t o = 0;

		quoted = 1;
		value = malloc(len - i);
		if (!value)
			return -ENOMEM;
		for (i++;; i++) {
			if (i == len) {
				free(value);
				return conffile__error(cf, ln, (int)v0 + 1,
						       "unterminated quoted value: no closing '\"'");
			}
			if (s[i] == '"')
				break;
			if (s[i] == '\\') {
				if (i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\')) {
					value[o++] = s[++i];
					continue;
				}
				free(value);
				return conffile__error(
				    cf, ln, (int)i + 1,
				    "unknown escape in a quoted value: only \\\" and \\\\ are escapes");
			}
			value[o++] = s[i];
		}
		value[o] = '\0';
		for (i++; i < len && is_blank((unsigned char)s[i]); i++)
			;
		if (i < len && s[i] != '#') {
			free(value);
			return conffile__error(cf, ln, (int)i + 1, "unexpected text after the quoted value");
		}
	} else {
		size_t end = i;

		while (end < len && s[end] != '#')
			end++;
		while (end > v0 && is_blank((unsigned char)s[end - 1]))
			end--;
		if (end == v0)
			return conffile__error(cf, ln, (int)v0 + 1, "'%.*s' has no value (write \"\" for an empty one)",
					       (int)klen, s + k0);
		if (memchr(s + v0, '"', end - v0))
			return conffile__error(cf, ln,
					       (int)(v0 + ((const char *)memchr(s + v0, '"', end - v0) - (s + v0))) + 1,
					       "a '\"' inside a bare value: quote the whole value");
		value = strndup(s + v0, end - v0);
		if (!value)
			return -ENOMEM;
	}
	if (cf->n >= CF_ENTRIES_MAX) {
		free(value);
		return conffile__error(cf, ln, (int)k0 + 1, "more than %d settings in the file", CF_ENTRIES_MAX);
	}
	return add_entry(cf, s + k0, klen, value, ln, (int)k0 + 1, (int)v0 + 1, quoted);
}

int conffile__parse(const char *buf, size_t len, struct conffile *ret)
{
	size_t off = 0;
	int ln = 0, r;

	memset(ret, 0, sizeof(*ret));
	if (len > CF_FILE_MAX)
		return -EFBIG;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (buf + off)) : len - off;

		ln++;
		if (l > 0 && buf[off + l - 1] == '\r')
			l--;
		if (l > CF_LINE_MAX)
			r = conffile__error(ret, ln, CF_LINE_MAX + 1, "line longer than %d bytes", CF_LINE_MAX);
		else
			r = parse_line(ret, buf + off, l, ln);
		if (r < 0)
			return r;
		off += nl ? (size_t)(nl - (buf + off)) + 1 : l;
		if (!nl)
			break;
	}
	return ret->errors ? -EINVAL : 0;
}

int conffile__needs_quotes(const char *v)
{
	size_t n = strlen(v);

	return n == 0 || is_blank((unsigned char)v[0]) || is_blank((unsigned char)v[n - 1]) || strchr(v, '#') ||
	       strchr(v, '"');
}
