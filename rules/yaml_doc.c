// SPDX-License-Identifier: MIT
/*
 * yaml_doc.c - rule files as bounded node trees with positions.
 *
 * Built from libyaml's event stream with an explicit stack (no recursion on
 * untrusted nesting), bounded in depth and node count. Mapping keys must be
 * scalars and unique. Positions inside a scalar are recovered by walking
 * the raw file text from the scalar's start mark while counting the bytes
 * of the value each piece of text produces (quotes, escapes, folding), so a
 * compiler's byte offset into a condition becomes a file line:column.
 */
#include "yaml_doc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static void set_err(struct yd_error *err, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(struct yd_error *err, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;

	err->line = m ? (int)m->line : 0;
	err->col = m ? (int)m->column : 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static void node_free(struct yd_node *n)
{
	/* Iterative would be nicer; depth is bounded by YD_MAX_DEPTH + 2. */
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

static struct yd_node *node_new(enum yd_type t, const yaml_mark_t *m)
{
	struct yd_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = t;
	n->line = (int)m->line;
	n->col = (int)m->column;
	return n;
}

static int node_add(struct yd_node *parent, struct yd_node *kid)
{
	size_t n = parent->n;

	/* capacity is implied: 4, then powers of two */
	if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
		struct yd_node **nk = realloc(parent->kids, (n ? n * 2 : 4) * sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		parent->kids = nk;
	}
	parent->kids[parent->n++] = kid;
	return 0;
}

static enum yd_style style_of(yaml_scalar_style_t s)
{
	switch (s) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		return YD_SINGLE;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		return YD_DOUBLE;
	case YAML_LITERAL_SCALAR_STYLE:
		return YD_LITERAL;
	case YAML_FOLDED_SCALAR_STYLE:
		return YD_FOLDED;
	default:
		return YD_PLAIN;
	}
}

/* Mapping keys are scalars and unique (checked when the mapping closes;
 * quadratic, but rule-file mappings have a dozen keys: bounded at 256). */
static int check_map(const struct yd_node *m, struct yd_error *err)
{
	size_t pairs = m->n / 2;

	for (size_t i = 0; i < m->n; i += 2) {
		const struct yd_node *k = m->kids[i];

		if (k->type != YD_SCALAR) {
			yaml_mark_t mk = {.line = (size_t)k->line, .column = (size_t)k->col};

			set_err(err, &mk, "mapping keys must be scalars");
			return -EINVAL;
		}
		if (pairs > 256)
			continue;
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(m->kids[j]->str, k->str) == 0) {
				yaml_mark_t mk = {.line = (size_t)k->line, .column = (size_t)k->col};

				set_err(err, &mk, "duplicate key '%.64s'", k->str);
				return -EINVAL;
			}
	}
	if (pairs > 256) {
		yaml_mark_t mk = {.line = (size_t)m->line, .column = (size_t)m->col};

		set_err(err, &mk, "mapping with more than 256 keys");
		return -EINVAL;
	}
	return 0;
}

static int build_lines(struct yd_file *f)
{
	size_t cap = 64, n = 0;
	size_t *l = malloc(cap * sizeof(*l));

	if (!l)
		return -ENOMEM;
	l[n++] = 0;
	for (size_t i = 0; i < f->len; i++) {
		char c = f->buf[i];

		if (c != '\n' && c != '\r')
			continue;
		if (c == '\r' && i + 1 < f->len && f->buf[i + 1] == '\n')
			i++;
		if (n == cap) {
			size_t *nl = realloc(l, cap * 2 * sizeof(*l));

			if (!nl) {
				free(l);
				return -ENOMEM;
			}
			l = nl;
			cap *= 2;
		}
		l[n++] = i + 1;
	}
	f->lines = l;
	f->nlines = n;
	return 0;
}

int yd_file__parse(struct yd_file *f, struct yd_error *err)
{
	struct yd_node *stack[YD_MAX_DEPTH + 2];
	size_t depth = 0, nodes = 0;
	yaml_parser_t parser;
	yaml_event_t ev;
	int r = 0;
	bool done = false;

	memset(err, 0, sizeof(*err));
	if (build_lines(f) < 0)
		return -ENOMEM;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)f->buf, f->len);
	f->docs = calloc(1, sizeof(*f->docs));
	if (!f->docs) {
		yaml_parser_delete(&parser);
		return -ENOMEM;
	}
	f->docs->type = YD_SEQ;
	stack[depth++] = f->docs;

	while (!done && r == 0) {
		struct yd_node *n = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			if (parser.error == YAML_MEMORY_ERROR) {
				r = -ENOMEM;
				break;
			}
			if (parser.context)
				set_err(err, &parser.problem_mark, "%s %s",
					parser.problem ? parser.problem : "syntax error", parser.context);
			else
				set_err(err, &parser.problem_mark, "%s",
					parser.problem ? parser.problem : "syntax error");
			r = -EINVAL;
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_ALIAS_EVENT:
			set_err(err, &ev.start_mark, "aliases are not supported in rule files");
			r = -EINVAL;
			break;
		case YAML_SCALAR_EVENT:
			if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length)) {
				set_err(err, &ev.start_mark, "NUL characters are not allowed");
				r = -EINVAL;
				break;
			}
			n = node_new(YD_SCALAR, &ev.start_mark);
			if (!n || !(n->str = malloc(ev.data.scalar.length + 1))) {
				free(n);
				r = -ENOMEM;
				break;
			}
			memcpy(n->str, ev.data.scalar.value, ev.data.scalar.length);
			n->str[ev.data.scalar.length] = '\0';
			n->len = ev.data.scalar.length;
			n->style = style_of(ev.data.scalar.style);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth > YD_MAX_DEPTH) {
				set_err(err, &ev.start_mark, "nesting deeper than %d levels", YD_MAX_DEPTH);
				r = -EINVAL;
				break;
			}
			n = node_new(ev.type == YAML_SEQUENCE_START_EVENT ? YD_SEQ : YD_MAP, &ev.start_mark);
			if (!n)
				r = -ENOMEM;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			if (stack[depth]->type == YD_MAP)
				r = check_map(stack[depth], err);
			break;
		default:
			break;
		}
		if (n) {
			if (++nodes > YD_MAX_NODES) {
				set_err(err, &ev.start_mark, "more than %u YAML nodes", YD_MAX_NODES);
				node_free(n);
				r = -EINVAL;
			} else if (node_add(stack[depth - 1], n) < 0) {
				node_free(n);
				r = -ENOMEM;
			} else if (n->type != YD_SCALAR) {
				stack[depth++] = n;
			}
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return r;
}

void yd_file__release(struct yd_file *f)
{
	node_free(f->docs);
	free(f->lines);
	free(f->buf);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

const struct yd_node *yd_map__get(const struct yd_node *map, const char *key)
{
	if (!map || map->type != YD_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (strcmp(map->kids[i]->str, key) == 0)
			return map->kids[i + 1];
	return NULL;
}

bool yd_node__is_null(const struct yd_node *n)
{
	if (n->type != YD_SCALAR || n->style != YD_PLAIN)
		return false;
	return n->len == 0 || strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	       strcmp(n->str, "NULL") == 0;
}

bool yd_node__is_str(const struct yd_node *n)
{
	return n->type == YD_SCALAR && !yd_node__is_null(n);
}

int yd_node__bool(const struct yd_node *n, bool *v)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
	static const char *const f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};

	if (n->type != YD_SCALAR || n->style != YD_PLAIN)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (strcmp(n->str, t[i]) == 0) {
			*v = true;
			return 0;
		}
		if (strcmp(n->str, f[i]) == 0) {
			*v = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* A sequence of strings (or, with single_ok, one string). */
bool yd_node__str_seq(const struct yd_node *n, bool single_ok)
{
	if (single_ok && yd_node__is_str(n))
		return true;
	if (n->type != YD_SEQ)
		return false;
	for (size_t i = 0; i < n->n; i++)
		if (n->kids[i]->type != YD_SCALAR)
			return false;
	return true;
}

/* ---- positions inside scalars ---- */

static size_t utf8_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 1;
}

static size_t cp_utf8_len(unsigned long cp)
{
	return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

static bool is_nl(char c)
{
	return c == '\n' || c == '\r';
}

/* Byte position p -> 1-based line and column in characters. */
static void to_linecol(const struct yd_file *f, size_t p, int *line, int *col)
{
	size_t lo = 0, hi = f->nlines;
	int c = 1;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->lines[mid] <= p)
			lo = mid;
		else
			hi = mid;
	}
	for (size_t i = f->lines[lo]; i < p && i < f->len; i++)
		if (((unsigned char)f->buf[i] & 0xc0) != 0x80)
			c++;
	*line = (int)lo + 1;
	*col = c;
}

/* Byte position of a 0-based (line, column-in-characters) mark. */
static size_t mark_pos(const struct yd_file *f, int line, int col)
{
	size_t p;

	if (line < 0 || (size_t)line >= f->nlines)
		return f->len;
	p = f->lines[line];
	for (int c = 0; c < col && p < f->len && !is_nl(f->buf[p]); c++)
		p += utf8_len((unsigned char)f->buf[p]);
	return p < f->len ? p : f->len;
}

static unsigned long hexval(const char *s, size_t n, size_t avail)
{
	unsigned long v = 0;

	for (size_t i = 0; i < n && i < avail; i++) {
		char c = s[i];

		int d = c >= '0' && c <= '9'			 ? c - '0'
			: (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
								 : 0;

		v = v * 16 + (unsigned long)d;
	}
	return v;
}

/* Plain and quoted scalars: p is the first byte of the value's text. */
static size_t walk_flow(const struct yd_file *f, size_t p, char quote, size_t off)
{
	const char *b = f->buf;
	size_t end = f->len, v = 0;

	while (p < end && v < off) {
		char c = b[p];

		if (c == ' ' || c == '\t' || is_nl(c)) {
			size_t q = p, nl = 0, produce;

			while (q < end && (b[q] == ' ' || b[q] == '\t' || is_nl(b[q]))) {
				if (b[q] == '\r' && q + 1 < end && b[q + 1] == '\n')
					q++;
				nl += is_nl(b[q]);
				q++;
			}
			if (nl == 0) {
				produce = q - p;
				if (v + produce > off)
					return p + (off - v);
			} else {
				produce = nl == 1 ? 1 : nl - 1;
				if (v + produce > off)
					return p;
			}
			v += produce;
			p = q;
			continue;
		}
		if (quote == '\'' && c == '\'' && p + 1 < end && b[p + 1] == '\'') {
			v++;
			p += 2;
			continue;
		}
		if (quote == '"' && c == '\\' && p + 1 < end) {
			char e = b[p + 1];

			if (is_nl(e)) {
				p += 2;
				if (e == '\r' && p < end && b[p] == '\n')
					p++;
				while (p < end && (b[p] == ' ' || b[p] == '\t'))
					p++;
				continue;
			}
			switch (e) {
			case 'x':
				v += cp_utf8_len(hexval(b + p + 2, 2, end - p - 2));
				p += 4;
				break;
			case 'u':
				v += cp_utf8_len(hexval(b + p + 2, 4, end - p - 2));
				p += 6;
				break;
			case 'U':
				v += cp_utf8_len(hexval(b + p + 2, 8, end - p - 2));
				p += 10;
				break;
			case 'N':
			case '_':
				v += 2;
				p += 2;
				break;
			case 'L':
			case 'P':
				v += 3;
				p += 2;
				break;
			default:
				v++;
				p += 2;
				break;
			}
			continue;
		}
		v += utf8_len((unsigned char)c);
		p += utf8_len((unsigned char)c);
	}
	return p < end ? p : end;
}

/* `|` and `>` blocks: p is at the indicator; content starts on the next
 * line, at the indentation of its first non-empty line. */
static bool blank_line(const char *b, size_t p, size_t end)
{
	while (p < end && b[p] == ' ')
		p++;
	return p >= end || is_nl(b[p]);
}

static size_t next_line(const char *b, size_t p, size_t end)
{
	while (p < end && !is_nl(b[p]))
		p++;
	if (p < end && b[p] == '\r' && p + 1 < end && b[p + 1] == '\n')
		p++;
	return p < end ? p + 1 : end;
}

static size_t walk_block(const struct yd_file *f, size_t p, bool folded, size_t off)
{
	const char *b = f->buf;
	size_t end = f->len, v = 0, indent = 0;

	p = next_line(b, p, end);
	/* indentation: that of the first line with text */
	for (size_t q = p; q < end; q = next_line(b, q, end)) {
		if (!blank_line(b, q, end)) {
			size_t s = q;

			while (b[q] == ' ')
				q++;
			indent = q - s;
			break;
		}
	}
	while (p < end) {
		size_t ls = p, ws = 0, le = p, cs, np;
		bool text = !blank_line(b, p, end);

		while (le < end && !is_nl(b[le]))
			le++;
		while (ls + ws < le && b[ls + ws] == ' ')
			ws++;
		if (text && ws < indent)
			return ls; /* less indented: the block has ended */
		cs = ls + indent <= le ? ls + indent : le;
		if (off < v + (le - cs))
			return cs + (off - v);
		v += le - cs;
		np = next_line(b, p, end);
		/* folding: the break after text before empty lines disappears */
		if (!(folded && text && np < end && blank_line(b, np, end))) {
			if (off < v + 1)
				return le;
			v++;
		}
		p = np;
	}
	return end;
}

void yd_file__pos(const struct yd_file *f, const struct yd_node *n, size_t offset, int *line, int *col)
{
	size_t p = mark_pos(f, n->line, n->col);

	if (n->type == YD_SCALAR) {
		size_t content = n->len;

		/* past the end (trailing newlines of a block): the end of the text */
		while (content > 0 && n->str[content - 1] == '\n')
			content--;
		if (offset > content)
			offset = content;
		switch (n->style) {
		case YD_PLAIN:
			p = walk_flow(f, p, 0, offset);
			break;
		case YD_SINGLE:
			p = walk_flow(f, p + 1, '\'', offset);
			break;
		case YD_DOUBLE:
			p = walk_flow(f, p + 1, '"', offset);
			break;
		case YD_LITERAL:
			p = walk_block(f, p, false, offset);
			break;
		case YD_FOLDED:
			p = walk_block(f, p, true, offset);
			break;
		}
	}
	to_linecol(f, p, line, col);
}
