// SPDX-License-Identifier: MIT
/*
 * flamegraph.c - stacks merged by prefix, laid out and drawn as SVG.
 *
 * The tree is a flat array of nodes linked parent -> first child -> next
 * sibling, each with the hash of its key, so finding a child costs integer
 * compares before any string compare. Siblings are kept unsorted while
 * stacks come in; the drawing order (sorted siblings, depth first) and each
 * node's left edge in samples are computed once, when first asked for after
 * a change. Names are escaped when a node is made, so the layout and the
 * writer only ever handle printable text.
 */
#include "flamegraph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "textsafe.h"

#define NONE UINT32_MAX
_Static_assert(FG_MAX_NODES < NONE, "node indexes fit in 32 bits");

struct fg_node {
	uint64_t key;	 /* hash of kind, object, function or offset */
	char *object;	 /* raw, NULL for the root and FG_OTHER */
	char *function;	 /* raw, NULL when unknown */
	char *name;	 /* escaped, as drawn */
	uint64_t offset; /* of the first frame merged here */
	bool offsets;	 /* frames of more than one offset were merged here */
	enum fg_kind kind;
	unsigned depth;
	uint64_t samples;
	uint64_t left; /* samples left of this box (layout) */
	uint32_t parent, child, next;
};

struct flamegraph {
	struct fg_node *nodes;
	size_t n, cap;
	uint32_t *order; /* drawing order, valid when !dirty */
	bool dirty;
};

/* ---- names ---- */

/* text_escape() of s, with U+FFFE and U+FFFF (valid UTF-8, not XML
 * characters) written as their escapes too. NULL on ENOMEM. */
static char *esc_text(const char *s, size_t len)
{
	char *e = text_escape(s, len), *out, *p;
	size_t n = 0;

	if (!e)
		return NULL;
	for (const char *q = e; (q = strstr(q, "\xef\xbf")); q += 2)
		n += (unsigned char)q[2] >= 0xbe;
	if (!n)
		return e;
	out = malloc(strlen(e) + n * 9 + 1); /* 3 bytes become 12 */
	if (!out) {
		free(e);
		return NULL;
	}
	p = out;
	for (const char *q = e; *q;) {
		if (q[0] == '\xef' && q[1] == '\xbf' && (unsigned char)q[2] >= 0xbe) {
			p += snprintf(p, 13, "\\xEF\\xBF\\x%02X", (unsigned char)q[2]);
			q += 3;
		} else {
			*p++ = *q++;
		}
	}
	*p = '\0';
	free(e);
	return out;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* "function", or "basename+0xOFF" when the function is unknown (raw). */
static char *raw_label(const struct fg_frame *f)
{
	char *s;

	if (f->function)
		return strdup(f->function);
	if (asprintf(&s, "%s+0x%llx", base_name(f->object), (unsigned long long)f->offset) < 0)
		return NULL;
	return s;
}

static uint64_t frame_key(const struct fg_frame *f)
{
	uint64_t h = PL_FNV1A_INIT ^ (uint64_t)f->kind;

	h = pl_fnv1a(pl_fnv1a(h, f->object ? f->object : ""), "\x01");
	if (f->function)
		return pl_fnv1a(h, f->function) * 0x100000001b3ull;
	return (h ^ f->offset) * 0x100000001b3ull + 1;
}

static bool streq_null(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool node_is(const struct fg_node *nd, uint64_t key, const struct fg_frame *f)
{
	if (nd->key != key || nd->kind != f->kind || !streq_null(nd->object, f->object) ||
	    !streq_null(nd->function, f->function))
		return false;
	return f->function || nd->offset == f->offset;
}

/* ---- the tree ---- */

static void node_clear(struct fg_node *nd)
{
	free(nd->object);
	free(nd->function);
	free(nd->name);
}

int flamegraph__new(struct flamegraph **ret)
{
	struct flamegraph *fg = calloc(1, sizeof(*fg));

	if (!fg)
		return -ENOMEM;
	fg->cap = 64;
	fg->nodes = calloc(fg->cap, sizeof(*fg->nodes));
	if (!fg->nodes || !(fg->nodes[0].name = strdup("all"))) {
		flamegraph__free(fg);
		return -ENOMEM;
	}
	fg->nodes[0].kind = FG_OTHER;
	fg->nodes[0].parent = fg->nodes[0].child = fg->nodes[0].next = NONE;
	fg->n = 1;
	fg->dirty = true;
	*ret = fg;
	return 0;
}

void flamegraph__free(struct flamegraph *fg)
{
	if (!fg)
		return;
	for (size_t i = 0; i < fg->n; i++)
		node_clear(&fg->nodes[i]);
	free(fg->nodes);
	free(fg->order);
	free(fg);
}

static int valid_frame(const struct fg_frame *f)
{
	if (f->kind == FG_OTHER)
		return f->function && !f->object ? 0 : -EINVAL;
	if (f->kind != FG_USER && f->kind != FG_KERNEL)
		return -EINVAL;
	return f->object ? 0 : -EINVAL;
}

/* A new child of parent for frame f, at the end of fg->nodes (room made). */
static int node_add(struct flamegraph *fg, uint32_t parent, uint64_t key, const struct fg_frame *f)
{
	struct fg_node *nd = &fg->nodes[fg->n];
	char *label = raw_label(f);

	memset(nd, 0, sizeof(*nd));
	nd->name = label ? esc_text(label, strlen(label)) : NULL;
	free(label);
	nd->object = f->object ? strdup(f->object) : NULL;
	nd->function = f->function ? strdup(f->function) : NULL;
	if (!nd->name || (f->object && !nd->object) || (f->function && !nd->function)) {
		node_clear(nd);
		return -ENOMEM;
	}
	nd->key = key;
	nd->kind = f->kind;
	nd->offset = f->offset;
	nd->depth = fg->nodes[parent].depth + 1;
	nd->parent = parent;
	nd->child = NONE;
	nd->next = fg->nodes[parent].child;
	fg->nodes[parent].child = (uint32_t)fg->n;
	fg->n++;
	return 0;
}

static uint32_t find_child(const struct flamegraph *fg, uint32_t parent, const struct fg_frame *f, uint64_t key)
{
	for (uint32_t c = fg->nodes[parent].child; c != NONE; c = fg->nodes[c].next)
		if (node_is(&fg->nodes[c], key, f))
			return c;
	return NONE;
}

/* Undo what a failed add made: the nodes past `mark`, newest first, are
 * each the first child of their parent. */
static void rollback(struct flamegraph *fg, size_t mark)
{
	while (fg->n > mark) {
		struct fg_node *nd = &fg->nodes[--fg->n];

		fg->nodes[nd->parent].child = nd->next;
		node_clear(nd);
	}
}

int flamegraph__add(struct flamegraph *fg, const struct fg_frame *frames, size_t n, uint64_t samples)
{
	uint32_t path[FG_MAX_DEPTH + 1], cur = 0;
	size_t mark = fg->n;
	int r;

	if (n > FG_MAX_DEPTH)
		return -E2BIG;
	if (samples > UINT64_MAX / 2 - fg->nodes[0].samples)
		return -EOVERFLOW;
	for (size_t i = 0; i < n; i++)
		if ((r = valid_frame(&frames[i])) < 0)
			return r;
	path[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t key = frame_key(&frames[i]);
		uint32_t c = find_child(fg, cur, &frames[i], key);

		if (c == NONE) {
			if (fg->n >= FG_MAX_NODES) {
				rollback(fg, mark);
				return -ENOSPC;
			}
			if (fg->n == fg->cap) {
				size_t cap = fg->cap * 2 < FG_MAX_NODES ? fg->cap * 2 : FG_MAX_NODES;
				struct fg_node *nn = realloc(fg->nodes, cap * sizeof(*nn));

				if (!nn) {
					rollback(fg, mark);
					return -ENOMEM;
				}
				fg->nodes = nn;
				fg->cap = cap;
			}
			c = (uint32_t)fg->n;
			if ((r = node_add(fg, cur, key, &frames[i])) < 0) {
				rollback(fg, mark);
				return r;
			}
		}
		path[i + 1] = cur = c;
	}
	/* nothing can fail from here on */
	for (size_t i = 0; i <= n; i++) {
		struct fg_node *nd = &fg->nodes[path[i]];

		nd->samples += samples;
		if (i > 0 && nd->offset != frames[i - 1].offset) /* a function's, at another instruction */
			nd->offsets = true;
	}
	fg->dirty = true;
	return 0;
}

uint64_t flamegraph__total(const struct flamegraph *fg)
{
	return fg->nodes[0].samples;
}

size_t flamegraph__count(const struct flamegraph *fg)
{
	return fg->n;
}

/* ---- layout ---- */

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_sibling(const void *pa, const void *pb, void *ctx)
{
	const struct fg_node *nodes = ctx, *a = &nodes[*(const uint32_t *)pa], *b = &nodes[*(const uint32_t *)pb];
	int c = strcmp(a->name, b->name);

	if (!c)
		c = cmp_str(a->object, b->object);
	if (!c)
		c = (a->kind > b->kind) - (a->kind < b->kind);
	if (!c)
		c = (a->offset > b->offset) - (a->offset < b->offset);
	return c;
}

/* The drawing order and every box's left edge: depth first with a stack of
 * our own (a stack FG_MAX_DEPTH frames deep must not recurse as deep),
 * siblings sorted, pushed last first so the first comes out next. */
static int layout(struct flamegraph *fg)
{
	uint32_t *order, *stack;
	size_t done = 0, top = 0;

	if (!fg->dirty)
		return 0;
	order = malloc(fg->n * sizeof(*order));
	stack = malloc(fg->n * sizeof(*stack));
	if (!order || !stack) {
		free(order);
		free(stack);
		return -ENOMEM;
	}
	fg->nodes[0].left = 0;
	stack[top++] = 0;
	while (top > 0) {
		uint32_t v = stack[--top], *kids = &stack[top];
		uint64_t left = fg->nodes[v].left;
		size_t nk = 0;

		order[done++] = v;
		/* the children go on the stack, where they are sorted in place */
		for (uint32_t c = fg->nodes[v].child; c != NONE; c = fg->nodes[c].next)
			kids[nk++] = c;
		qsort_r(kids, nk, sizeof(*kids), cmp_sibling, fg->nodes);
		for (size_t k = 0; k < nk; k++) {
			fg->nodes[kids[k]].left = left;
			left += fg->nodes[kids[k]].samples;
		}
		for (size_t k = 0; k < nk / 2; k++) {
			uint32_t t = kids[k];

			kids[k] = kids[nk - 1 - k];
			kids[nk - 1 - k] = t;
		}
		top += nk;
	}
	free(stack);
	free(fg->order);
	fg->order = order;
	fg->dirty = false;
	return 0;
}

int flamegraph__box(struct flamegraph *fg, size_t i, double plot_width, struct fg_box *ret)
{
	const struct fg_node *nd;
	double total = (double)fg->nodes[0].samples;
	int r;

	if (i >= fg->n)
		return -ERANGE;
	if ((r = layout(fg)) < 0)
		return r;
	nd = &fg->nodes[fg->order[i]];
	*ret = (struct fg_box){
		.name = nd->name,
		.object = nd->object,
		.kind = nd->kind,
		.depth = nd->depth,
		.samples = nd->samples,
		.x = total > 0 ? (double)nd->left / total * plot_width : 0,
		.width = total > 0 ? (double)nd->samples / total * plot_width : 0,
	};
	return 0;
}

/* ---- SVG ---- */

#define FRAME_H 16
#define FONT_PX 12
#define TITLE_PX 16
/* a monospace advance (DejaVu Sans Mono: 0.602 em; the 6 px of padding absorb the rest) */
#define CHAR_W (FONT_PX * 0.6)
#define TOP 60		       /* title and subtitle */
#define BOTTOM 30	       /* the legend */

/* Escaped text (printable UTF-8, esc_text()) as XML character data. */
static void xml_put(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			putc(s[i], f);
		}
	}
}

int fg_xml_text(FILE *f, const char *s, size_t len)
{
	char *e = esc_text(s, len);

	if (!e)
		return -ENOMEM;
	xml_put(f, e, strlen(e));
	free(e);
	return ferror(f) ? -EIO : 0;
}

/* Raw text as XML, or "?" when memory ran out (it is only a label). */
static void xml_raw(FILE *f, const char *s)
{
	if (fg_xml_text(f, s, strlen(s)) == -ENOMEM)
		fputs("?", f);
}

static size_t head_fit(const char *s, size_t max, bool *ret_all);

/* Raw text as XML, cut to max columns with ".." if longer (a title line:
 * an exe path may be 4095 bytes). */
static void xml_line(FILE *f, const char *s, size_t max)
{
	char *e = esc_text(s, strlen(s));
	bool all;
	size_t n;

	if (!e) {
		fputs("?", f);
		return;
	}
	n = head_fit(e, max, &all);
	if (!all)
		n = head_fit(e, max > 2 ? max - 2 : 0, &all);
	xml_put(f, e, n);
	if (!all)
		fputs("..", f);
	free(e);
}

/* Bytes of escaped text s that fit in max columns (an escape is 4, any other
 * code point 1), never cutting an escape or a UTF-8 sequence; *ret_all
 * tells whether all of s fit. */
static size_t head_fit(const char *s, size_t max, bool *ret_all)
{
	size_t i = 0, cols = 0;

	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c == '\\' ? 4 : c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		size_t w = c == '\\' ? 4 : 1;

		if (cols + w > max)
			break;
		if (strnlen(s + i, len) < len) /* not escaped text after all: stop short */
			break;
		cols += w;
		i += len;
	}
	*ret_all = s[i] == '\0';
	return i;
}

static void fill(FILE *f, const struct fg_node *nd)
{
	uint64_t h = pl_hash_str(nd->object);

	if (nd->kind == FG_USER) /* warm: red to yellow */
		fprintf(f, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 51), 60 + (unsigned)(h >> 8 & 0xff) % 171,
			(unsigned)(h >> 16 & 0xff) % 56);
	else if (nd->kind == FG_KERNEL) /* blue */
		fprintf(f, "rgb(%u,%u,%u)", 70 + (unsigned)(h % 41), 150 + (unsigned)(h >> 8 & 0xff) % 51,
			215 + (unsigned)(h >> 16 & 0xff) % 41);
	else
		fputs(nd->parent == NONE ? "rgb(215,215,210)" : "rgb(185,185,185)", f);
}

/* The hover text: the full name, the object, samples and share. */
static void hover(FILE *f, const struct fg_node *nd, uint64_t total)
{
	double pct = total ? 100.0 * (double)nd->samples / (double)total : 0;

	fputs("<title>", f);
	if (nd->object && nd->function) {
		xml_raw(f, nd->function);
		fputs(" (", f);
		xml_raw(f, base_name(nd->object));
		if (!nd->offsets)
			fprintf(f, "+0x%llx", (unsigned long long)nd->offset);
		fputs(")", f);
	} else {
		xml_put(f, nd->name, strlen(nd->name));
	}
	if (nd->object) {
		fputs("\n", f);
		xml_raw(f, nd->object);
	}
	fprintf(f, "\n%llu sample%s, %.2f%%</title>", (unsigned long long)nd->samples, nd->samples == 1 ? "" : "s",
		pct);
}

static void box_svg(FILE *f, const struct fg_node *nd, uint64_t total, unsigned maxdepth, double plot_width)
{
	double x = FG_SVG_XPAD + (total ? (double)nd->left / (double)total * plot_width : 0);
	double w = total ? (double)nd->samples / (double)total * plot_width : 0;
	unsigned y = TOP + (maxdepth - nd->depth) * FRAME_H;
	double room = (w - 6) / CHAR_W;

	fputs("<g class=\"n\">", f);
	hover(f, nd, total);
	fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" rx=\"2\" fill=\"", x, y, w, FRAME_H - 1);
	fill(f, nd);
	fputs("\"/>", f);
	if (room >= 3) {
		bool all;
		size_t cols = (size_t)room, n = head_fit(nd->name, cols, &all);

		if (!all)
			n = head_fit(nd->name, cols - 2, &all);
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		xml_put(f, nd->name, n);
		fputs(all ? "</text>" : "..</text>", f);
	}
	fputs("</g>\n", f);
}

int flamegraph__write_svg(struct flamegraph *fg, const struct fg_svg_opts *opts, FILE *f)
{
	unsigned width = opts && opts->width ? opts->width : 1200, maxdepth = 0, height;
	double plot_width;
	uint64_t total = fg->nodes[0].samples;
	int r;

	if (width < 2 * FG_SVG_XPAD + 10)
		width = 2 * FG_SVG_XPAD + 10;
	plot_width = width - 2 * FG_SVG_XPAD;
	if ((r = layout(fg)) < 0)
		return r;
	for (size_t i = 0; i < fg->n; i++)
		if (fg->nodes[i].depth > maxdepth)
			maxdepth = fg->nodes[i].depth;
	height = TOP + (maxdepth + 1) * FRAME_H + BOTTOM;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\">\n"
		"<style>text{font-family:monospace;font-size:%dpx;fill:#000}"
		".t{font-size:%dpx;text-anchor:middle}.s{fill:#444;text-anchor:middle}.l{fill:#666;font-size:11px}"
		"g.n:hover rect{stroke:#000;stroke-width:1}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fbfbf7\"/>\n",
		width, height, width, height, FONT_PX, TITLE_PX, width, height);
	if (opts && opts->title) {
		fprintf(f, "<text class=\"t\" x=\"%u\" y=\"24\">", width / 2);
		xml_line(f, opts->title, (size_t)(plot_width / (TITLE_PX * 0.6)));
		fputs("</text>\n", f);
	}
	if (opts && opts->subtitle) {
		fprintf(f, "<text class=\"s\" x=\"%u\" y=\"44\">", width / 2);
		xml_line(f, opts->subtitle, (size_t)(plot_width / CHAR_W));
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < fg->n; i++)
		box_svg(f, &fg->nodes[fg->order[i]], total, maxdepth, plot_width);
	fprintf(f,
		"<text class=\"l\" x=\"%d\" y=\"%u\">Width: share of the samples; callers below callees. "
		"Warm: user code, a colour per object; blue: kernel; grey: other. Hover for details.</text>\n"
		"</svg>\n",
		FG_SVG_XPAD, height - 10);
	return ferror(f) ? -EIO : 0;
}
