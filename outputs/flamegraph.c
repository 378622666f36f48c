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
#include <math.h>
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
	char *detail;	 /* raw, FG_OTHER's hover line, or NULL */
	uint64_t offset; /* of the first frame merged here */
	bool offsets;	 /* frames of more than one offset were merged here */
	bool is_new;	 /* a frame merged here was new to the baseline */
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

/* "function", or "[unknown] (basename)" when the function is unknown (raw). */
static char *raw_label(const struct fg_frame *f)
{
	char *s;

	if (f->function)
		return strdup(f->function);
	if (asprintf(&s, FG_UNKNOWN " (%s)", base_name(f->object)) < 0)
		return NULL;
	return s;
}

/* One key per (kind, object, function); the unnamed code of an object is
 * one "function" of its own, whatever its offsets. */
static uint64_t frame_key(const struct fg_frame *f)
{
	uint64_t h = PL_FNV1A_INIT ^ (uint64_t)f->kind;

	h = pl_fnv1a(pl_fnv1a(h, f->object ? f->object : ""), "\x01");
	if (f->function)
		return pl_fnv1a(h, f->function) * 0x100000001b3ull;
	return h * 0x100000001b3ull + 1;
}

static bool streq_null(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool node_is(const struct fg_node *nd, uint64_t key, const struct fg_frame *f)
{
	return nd->key == key && nd->kind == f->kind && streq_null(nd->object, f->object) &&
	       streq_null(nd->function, f->function);
}

/* ---- the tree ---- */

static void node_clear(struct fg_node *nd)
{
	free(nd->object);
	free(nd->function);
	free(nd->name);
	free(nd->detail);
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
	nd->detail = f->kind == FG_OTHER && f->detail ? strdup(f->detail) : NULL;
	if (!nd->name || (f->object && !nd->object) || (f->function && !nd->function) ||
	    (f->kind == FG_OTHER && f->detail && !nd->detail)) {
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
		if (i > 0 && frames[i - 1].is_new)
			nd->is_new = true;
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
		.is_new = nd->is_new,
		.x = total > 0 ? (double)nd->left / total * plot_width : 0,
		.width = total > 0 ? (double)nd->samples / total * plot_width : 0,
	};
	return 0;
}

/* ---- text widths ---- */

/*
 * Advance widths of DejaVu Sans (Book, 2.37, as Debian's fonts-dejavu-core
 * ships it), in 1/2048 em, for ' ' (0x20) to '~' (0x7e), read from the
 * font's hmtx table. The SVG names that font first and switches kerning and
 * ligatures off, so a browser that has it lays a label out as the sum of
 * these advances; a label measured here is never wider than its box.
 */
static const uint16_t dejavu_adv[95] = {
	651,  821,  942,  1716, 1303, 1946, 1597, 563,	799,  799,  1024, 1716, 651,  739,  651,  690,
	1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,	1716, 1716, 1716, 1087,
	2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612,
	1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,	690,  799,  1716, 1024,
	1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253,
	1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716,
};
#define EM 2048u
/* Any other code point (the font's own or a fallback's): wide glyphs
 * (CJK, most symbols) are one em; the few wider are rarer than a cut. */
#define WIDE_ADV EM

/* An advance in px at font_px, rounded up to the 1/64 px a browser's
 * text layout keeps (Chromium measures DejaVu Sans's labels at the sum of
 * these, to 0.01 px): a sum of them is never less than the laid-out width. */
static double adv_px(uint32_t adv, double font_px)
{
	return ceil((double)adv * font_px * 64 / EM) / 64;
}

static double char_px(unsigned char c, double font_px)
{
	return adv_px(c >= 0x20 && c < 0x7f ? dejavu_adv[c - 0x20] : WIDE_ADV, font_px);
}

/* Bytes and width in px of the code point or escape at s: an escape
 * "\xNN" (text_escape's) is one unit, never cut; 0 at the end, or when s
 * is not escaped text after all (a truncated sequence). */
static size_t unit_at(const char *s, double font_px, double *ret_px)
{
	unsigned char c = (unsigned char)s[0];
	size_t len = c == '\\' ? 4 : c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

	if (!c || strnlen(s, len) < len)
		return 0;
	*ret_px = 0;
	if (c == '\\')
		for (size_t i = 0; i < 4; i++)
			*ret_px += char_px((unsigned char)s[i], font_px);
	else
		*ret_px = char_px(c, font_px);
	return len;
}

double fg_text_width(const char *s, size_t len, double font_px)
{
	double w = 0, u;
	size_t i = 0, n;

	while (i < len && (n = unit_at(s + i, font_px, &u)) && i + n <= len) {
		w += u;
		i += n;
	}
	for (; i < len; i++) /* what is not escaped text: wide, to be safe */
		w += adv_px(WIDE_ADV, font_px);
	return w;
}

/* Bytes of escaped text s that fit in max_px at font_px, never cutting an
 * escape or a UTF-8 sequence; *ret_all tells whether all of s fit. */
static size_t head_fit(const char *s, double max_px, double font_px, bool *ret_all)
{
	double w = 0, u;
	size_t i = 0, n;

	while ((n = unit_at(s + i, font_px, &u)) && w + u <= max_px) {
		w += u;
		i += n;
	}
	*ret_all = s[i] == '\0';
	return i;
}

/* The bytes of s drawn in max_px: all of it, or a head and "..", *ret_cut
 * telling which; 0 bytes and not cut when not even one unit and ".." fit. */
static size_t label_fit(const char *s, double max_px, double font_px, bool *ret_cut)
{
	double dots = 2 * char_px('.', font_px);
	bool all;
	size_t n = head_fit(s, max_px, font_px, &all);

	*ret_cut = false;
	if (all)
		return n;
	n = head_fit(s, max_px - dots, font_px, &all);
	*ret_cut = n > 0;
	return n;
}

/* ---- SVG ---- */

#define FRAME_H 16
#define FONT_PX 12
#define TITLE_PX 16
#define LEGEND_PX 11
#define PAD 3	  /* px between a label and its box's edges */
#define TOP 60	  /* title and subtitle */
#define BOTTOM 30 /* the legend */

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

/* Raw text as XML, cut to max_px with ".." if wider (a title line: an exe
 * path may be 4095 bytes). */
static void xml_line(FILE *f, const char *s, double max_px, double font_px)
{
	char *e = esc_text(s, strlen(s));
	bool cut;
	size_t n;

	if (!e) {
		fputs("?", f);
		return;
	}
	n = label_fit(e, max_px, font_px, &cut);
	xml_put(f, e, n);
	if (cut)
		fputs("..", f);
	free(e);
}

static void fill(FILE *f, const struct fg_node *nd)
{
	uint64_t h = pl_hash_str(nd->object);

	if (nd->is_new) /* purple, whatever the kind: what the baseline never saw */
		fprintf(f, "rgb(%u,%u,%u)", 150 + (unsigned)(h % 31), 70 + (unsigned)(h >> 8 & 0xff) % 31,
			200 + (unsigned)(h >> 16 & 0xff) % 41);
	else if (nd->kind == FG_USER) /* warm: red to yellow */
		fprintf(f, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 51), 60 + (unsigned)(h >> 8 & 0xff) % 171,
			(unsigned)(h >> 16 & 0xff) % 56);
	else if (nd->kind == FG_KERNEL) /* blue */
		fprintf(f, "rgb(%u,%u,%u)", 70 + (unsigned)(h % 41), 150 + (unsigned)(h >> 8 & 0xff) % 51,
			215 + (unsigned)(h >> 16 & 0xff) % 41);
	else
		fputs(nd->parent == NONE ? "rgb(215,215,210)" : "rgb(185,185,185)", f);
}

/* The hover text: the full name, the object, samples and share, and
 * whether the baseline knew the function. */
static void hover(FILE *f, const struct fg_node *nd, uint64_t total)
{
	double pct = total ? 100.0 * (double)nd->samples / (double)total : 0;

	fputs("<title>", f);
	if (nd->object) {
		xml_raw(f, nd->function ? nd->function : FG_UNKNOWN);
		fputs(" (", f);
		xml_raw(f, base_name(nd->object));
		if (!nd->offsets)
			fprintf(f, "+0x%llx", (unsigned long long)nd->offset);
		fputs(")", f);
	} else {
		xml_put(f, nd->name, strlen(nd->name));
	}
	if (nd->detail) {
		fputs("\n", f);
		xml_raw(f, nd->detail);
	}
	if (nd->object) {
		fputs("\n", f);
		xml_raw(f, nd->object);
	}
	fprintf(f, "\n%llu sample%s, %.2f%%", (unsigned long long)nd->samples, nd->samples == 1 ? "" : "s", pct);
	fputs(nd->is_new ? "\nnew: the baseline never saw this function on CPU</title>" : "</title>", f);
}

static void box_svg(FILE *f, const struct fg_node *nd, uint64_t total, unsigned maxdepth, double plot_width)
{
	double x = FG_SVG_XPAD + (total ? (double)nd->left / (double)total * plot_width : 0);
	double w = total ? (double)nd->samples / (double)total * plot_width : 0;
	unsigned y = TOP + (maxdepth - nd->depth) * FRAME_H;
	bool cut;
	size_t n;

	fputs("<g class=\"n\">", f);
	hover(f, nd, total);
	fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" rx=\"2\" fill=\"", x, y, w, FRAME_H - 1);
	fill(f, nd);
	fputs("\"/>", f);
	n = label_fit(nd->name, w - 2 * PAD, FONT_PX, &cut);
	if (n) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + PAD, y + FRAME_H - 4.5);
		xml_put(f, nd->name, n);
		fputs(cut ? "..</text>" : "</text>", f);
	}
	fputs("</g>\n", f);
}

int flamegraph__write_svg(struct flamegraph *fg, const struct fg_svg_opts *opts, FILE *f)
{
	unsigned width = opts && opts->width ? opts->width : 1200, maxdepth = 0, height;
	double plot_width;
	uint64_t total = fg->nodes[0].samples;
	bool any_new = false;
	int r;

	if (width < 2 * FG_SVG_XPAD + 10)
		width = 2 * FG_SVG_XPAD + 10;
	plot_width = width - 2 * FG_SVG_XPAD;
	if ((r = layout(fg)) < 0)
		return r;
	for (size_t i = 0; i < fg->n; i++) {
		if (fg->nodes[i].depth > maxdepth)
			maxdepth = fg->nodes[i].depth;
		any_new |= fg->nodes[i].is_new;
	}
	height = TOP + (maxdepth + 1) * FRAME_H + BOTTOM;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\">\n"
		"<style>text{font-family:" FG_FONT_FAMILY ";font-size:%dpx;fill:#000;"
		"font-kerning:none;font-variant-ligatures:none;white-space:pre}"
		".t{font-size:%dpx;text-anchor:middle}.s{fill:#444;text-anchor:middle}.l{fill:#666;font-size:%dpx}"
		"g.n:hover rect{stroke:#000;stroke-width:1}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fbfbf7\"/>\n",
		width, height, width, height, FONT_PX, TITLE_PX, LEGEND_PX, width, height);
	if (opts && opts->title) {
		fprintf(f, "<text class=\"t\" x=\"%u\" y=\"24\">", width / 2);
		xml_line(f, opts->title, plot_width, TITLE_PX);
		fputs("</text>\n", f);
	}
	if (opts && opts->subtitle) {
		fprintf(f, "<text class=\"s\" x=\"%u\" y=\"44\">", width / 2);
		xml_line(f, opts->subtitle, plot_width, FONT_PX);
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < fg->n; i++)
		box_svg(f, &fg->nodes[fg->order[i]], total, maxdepth, plot_width);
	/* the legend names the new frames' colour when there are any */
	fprintf(f, "<text class=\"l\" x=\"%d\" y=\"%u\">", FG_SVG_XPAD, height - 10);
	xml_line(f,
		 any_new ? "Width: share of the samples; callers below callees. Warm: user code, a colour per "
			   "object; blue: kernel; purple: new, a function the baseline never saw on CPU; grey: "
			   "other. Hover for details."
			 : "Width: share of the samples; callers below callees. Warm: user code, a colour per "
			   "object; blue: kernel; grey: other. Hover for details.",
		 plot_width, LEGEND_PX);
	fputs("</text>\n</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
