// SPDX-License-Identifier: MIT
/*
 * template.c - output templates: literal text with %field substitutions.
 *
 * Compiled once into parts (literal runs and resolved field ids), rendered
 * per alert without lookups or allocation. Rendering is where untrusted
 * strings (a process can name itself anything) meet a line-oriented
 * output (text lines, syslog), so all of it goes through the one escaping
 * of untrusted text (text_escape_buf(), common/textsafe.h): string values,
 * and the literal text too, so that not even a rule file can make an alert
 * span lines or drive a terminal. String values also have '"' escaped
 * (\x22): outputs put values in quotes, and a value must not be able to
 * end its quotes and forge what follows. The result unescapes
 * (text_unescape()) to the literal text and the values' raw bytes. Trailing
 * white space of a template (the newline a YAML block leaves) is dropped.
 */
#include "expr_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"

struct tpl_part {
	size_t off, len; /* literal: text[off..off+len); field: len == 0 */
	int field;	 /* -1 for a literal */
	int param;
};

struct rl_template {
	char *text;
	struct tpl_part *parts;
	size_t n;
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

__attribute__((format(printf, 3, 4))) static int fail(struct rl_error *err, size_t off, const char *fmt, ...)
{
	va_list ap;

	err->offset = off;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int unknown(struct rl_error *err, size_t off, const char *name, size_t len)
{
	const char *sug = rl_field__suggest(name, len), *hint = rl_field__falco_hint(name, len);
	int shown = (int)(len < 100 ? len : 100);

	if (!len)
		return fail(err, off, "'%%' must be followed by a field name, {field} or '%%' (%%%% is a literal %%)");
	if (hint)
		return fail(err, off, "unknown field '%.*s' after '%%': a Falco field; here: %s", shown, name, hint);
	if (sug)
		return fail(err, off, "unknown field '%.*s' after '%%' (did you mean '%s'?)", shown, name, sug);
	return fail(err, off, "unknown field '%.*s' after '%%'", shown, name);
}

/* The field at src[pos]: with braces the whole name, else the longest known
 * name; then its [NAME] when it takes one. Sets *end past it all. */
static int field_at(const char *src, size_t pos, bool braced, size_t pct, struct tpl_part *part, size_t *end,
		    struct rl_error *err)
{
	size_t run = pos, len;
	const struct rl_field_info *info;
	int f = -1;

	while (name_char(src[run]))
		run++;
	if (braced) {
		f = rl_field__lookup(src + pos, run - pos);
		len = run - pos;
	} else {
		for (len = run - pos; len > 0 && (f = rl_field__lookup(src + pos, len)) < 0; len--)
			;
		/* "%proc.exe_nam": the known proc.exe, then "_nam" glued to it is a
		 * typo, not text (text after a field starts with a character no
		 * name holds, or is a sentence's final dots: "pid %proc.pid.") */
		if (f >= 0 && len < run - pos) {
			size_t k = pos + len;

			while (k < run && src[k] == '.')
				k++;
			if (k < run)
				f = -1, len = run - pos;
		}
	}
	if (f < 0) {
		if (!len)
			len = run - pos;
		while (len > 1 && !braced && src[pos + len - 1] == '.')
			len--; /* the final dots are the sentence's */
		return unknown(err, pct, src + pos, len ? len : run - pos);
	}
	info = rl_field__info((enum rl_field)f);
	pos += len;
	part->field = f;
	part->param = -1;
	if (info->param_path) {
		size_t q = pos + 1;

		if (src[pos] != '[')
			return fail(err, pct, "field '%s' needs a path prefix: %%%s[PREFIX]", info->name, info->name);
		while (rl_field__path_char(src[q]))
			q++;
		if (src[q] != ']' || q == pos + 1)
			return fail(err, pos, "expected PREFIX] after '[' at offset %zu", pos);
		part->param = rl_field__path_param(src + pos + 1, q - pos - 1);
		if (part->param < 0)
			return fail(err, pos + 1, "%s[PREFIX]: %s", info->name,
				    part->param == -ENOSPC ? "too many distinct path prefixes (at most 256)"
							   : "a prefix of at most 256 bytes");
		pos = q + 1;
	} else if (info->param) {
		size_t q = pos + 1;
		char sc[64];

		if (src[pos] != '[')
			return fail(err, pct, "field '%s' needs a syscall name: %%%s[NAME]", info->name, info->name);
		while (q - pos - 1 < sizeof(sc) - 1 && name_char(src[q]) && src[q] != '.')
			q++;
		if (src[q] != ']' || q == pos + 1)
			return fail(err, pos, "expected NAME] after '[' at offset %zu", pos);
		memcpy(sc, src + pos + 1, q - pos - 1);
		sc[q - pos - 1] = '\0';
		part->param = rl_field__syscall_number(sc);
		if (part->param < 0)
			return fail(err, pos + 1, "unknown syscall '%s' in %s[%s]", sc, info->name, sc);
		pos = q + 1;
	}
	if (braced) {
		if (src[pos] != '}')
			return fail(err, pos, "expected '}' to close '{' at offset %zu", pct + 1);
		pos++;
	}
	*end = pos;
	return 0;
}

int rl_template__compile(const char *src, struct rl_template **ret, struct rl_error *err)
{
	size_t len, i = 0, lit = 0;
	struct rl_template *t;
	int r = 0;

	memset(err, 0, sizeof(*err));
	len = strnlen(src, X_MAX_SRC + 1);
	if (len > X_MAX_SRC)
		return fail(err, X_MAX_SRC, "output longer than %u bytes", X_MAX_SRC);
	while (len > 0 && (src[len - 1] == '\n' || src[len - 1] == '\r' || src[len - 1] == ' ' || src[len - 1] == '\t'))
		len--;
	t = calloc(1, sizeof(*t));
	if (t) {
		t->text = malloc(len + 1);
		/* at most one part per '%' plus one literal run after each */
		t->parts = calloc(len + 1, sizeof(*t->parts));
	}
	if (!t || !t->text || !t->parts) {
		rl_template__free(t);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	while (i < len && r == 0) {
		struct tpl_part part;
		size_t end;

		if (src[i] != '%' || src[i + 1] == '%') {
			/* extend the current literal run (one '%' for "%%") */
			if (t->n == 0 || t->parts[t->n - 1].field >= 0)
				t->parts[t->n++] = (struct tpl_part){.off = lit, .field = -1, .param = -1};
			t->text[lit++] = src[i];
			t->parts[t->n - 1].len++;
			i += src[i] == '%' ? 2 : 1;
			continue;
		}
		if (src[i + 1] == '{')
			r = field_at(src, i + 2, true, i, &part, &end, err);
		else
			r = field_at(src, i + 1, false, i, &part, &end, err);
		if (r == 0) {
			t->parts[t->n++] = part;
			i = end;
		}
	}
	if (r < 0) {
		rl_template__free(t);
		return r;
	}
	t->text[lit] = '\0';
	*ret = t;
	return 0;
}

void rl_template__free(struct rl_template *t)
{
	if (!t)
		return;
	free(t->text);
	free(t->parts);
	free(t);
}

/* The rendering so far: `len` bytes are in buf, `need` would be with room
 * enough. Once something did not fit whole, nothing more is written. */
struct out {
	char *buf;
	size_t size, len, need;
};

/* ASCII we generate (numbers, <NA>, separators): may be cut anywhere. */
static void put(struct out *o, const char *s, size_t n)
{
	if (o->len == o->need && o->len < o->size) {
		size_t room = o->size - 1 - o->len, k = n < room ? n : room;

		memcpy(o->buf + o->len, s, k);
		o->len += k;
	}
	o->need += n;
}

/* Text through the one escaping; a cut never splits an escape or a character. */
static void put_text(struct out *o, const char *s, size_t n, unsigned flags)
{
	if (o->len == o->need && o->len < o->size) {
		size_t need = text_escape_buf(o->buf + o->len, o->size - o->len, s, n, flags);

		o->len += need < o->size - o->len ? need : strlen(o->buf + o->len);
		o->need += need;
		return;
	}
	o->need += text_escape_buf(NULL, 0, s, n, flags);
}

static void put_value(struct out *o, const char *s)
{
	put_text(o, s, strlen(s), TEXT_ESC_QUOTE);
}

/* Integers as integers (no exponent), else up to 3 decimals, trimmed. */
static void put_number(struct out *o, double v)
{
	char num[512];
	int n;

	if (v == floor(v) && fabs(v) < 1e15) {
		n = snprintf(num, sizeof(num), "%.0f", v == 0 ? 0.0 : v);
	} else {
		n = snprintf(num, sizeof(num), "%.3f", v);
		if (n > 0 && (size_t)n < sizeof(num) && strchr(num, '.')) {
			while (num[n - 1] == '0')
				n--;
			if (num[n - 1] == '.')
				n--;
		}
	}
	if (n > 0)
		put(o, num, (size_t)n < sizeof(num) ? (size_t)n : sizeof(num) - 1);
}

/* The value of field p in ev; false (nothing written) when it is absent. */
static bool put_field(struct out *o, const struct tpl_part *p, const struct pl_sample *ev)
{
	const struct rl_field_info *info = rl_field__info((enum rl_field)p->field);
	double v;

	switch (info->type) {
	case RL_T_NUM:
	case RL_T_BOOL:
		if (!rl_x__field_num(ev, (unsigned)p->field, p->param, &v))
			break;
		if (info->type == RL_T_BOOL)
			put(o, v != 0 ? "true" : "false", v != 0 ? 4 : 5);
		else
			put_number(o, v);
		return true;
	case RL_T_STR: {
		const char *s = rl_x__field_str(ev, (unsigned)p->field);

		if (!s)
			break;
		put_value(o, s);
		return true;
	}
	case RL_T_STRLIST: {
		const char *items[RL_LIST_MAX];
		int n = rl_field__list(ev, (enum rl_field)p->field, items);

		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			if (i)
				put(o, ",", 1);
			if (items[i])
				put_value(o, items[i]);
		}
		return true;
	}
	}
	return false;
}

/* The length of the unit word (" ms", " s", " %") literal s of n bytes starts with, or 0. */
static size_t unit_after(const char *s, size_t n)
{
	static const char *const units[] = { " ms", " s", " %" };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i]);
		char c = n > k ? s[k] : ' ';

		if (n >= k && memcmp(s, units[i], k) == 0 && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z'))
			return k;
	}
	return 0;
}

static size_t render(const struct rl_template *t, const struct pl_sample *ev, char *buf, size_t size, bool words)
{
	struct out o = {.buf = buf, .size = size};
	size_t skip = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct tpl_part *p = &t->parts[i];
		const char *name;

		if (p->field < 0) {
			put_text(&o, t->text + p->off + skip, p->len - skip, 0);
			skip = 0;
			continue;
		}
		if (put_field(&o, p, ev))
			continue;
		if (!words) {
			put(&o, "<NA>", 4);
			continue;
		}
		name = rl_field__info((enum rl_field)p->field)->name;
		if (strncmp(name, "baseline.", 9) == 0)
			put(&o, "(none learned)", 14);
		else
			put(&o, "(unknown)", 9);
		if (i + 1 < t->n && t->parts[i + 1].field < 0)
			skip = unit_after(t->text + t->parts[i + 1].off, t->parts[i + 1].len);
	}
	if (size)
		buf[o.len] = '\0';
	return o.need;
}

size_t rl_template__render(const struct rl_template *t, const struct pl_sample *ev, char *buf, size_t size)
{
	return render(t, ev, buf, size, false);
}

size_t rl_template__render_text(const struct rl_template *t, const struct pl_sample *ev, char *buf, size_t size)
{
	return render(t, ev, buf, size, true);
}

size_t rl_template__fields(const struct rl_template *t, enum rl_field *out, int *params, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n && n < max; i++) {
		if (t->parts[i].field < 0)
			continue;
		if (out)
			out[n] = (enum rl_field)t->parts[i].field;
		if (params)
			params[n] = t->parts[i].param;
		n++;
	}
	return n;
}
