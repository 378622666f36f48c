/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.h - stacks merged into a flame graph, and the graph as a
 * self-contained SVG (`plumbline evidence --svg`, docs/outputs.md).
 *
 * The caller adds stacks (frames outermost caller first, with a sample
 * count); stacks are merged by common prefix into a tree whose root, "all",
 * holds every sample. A frame is one node per (kind, object, function)
 * under its parent: two samples in one function at different instructions
 * are the same box, as in every flame graph, and the unnamed code of one
 * object (function unknown) is one box "[unknown] (libfoo.so)" whatever its
 * offsets, the first of which its hover text gives when there is only one.
 * A frame new to the baseline makes its box purple. Siblings are drawn in the order of their names (then object,
 * kind, offset), never by weight, so the same stacks always give the same
 * picture; each box is as wide as its share of the root's samples.
 *
 * Strings come in raw (the bytes a process gave: a record's strings once
 * unescaped) and leave escaped twice, once as every edge of plumbline
 * escapes text (text_escape(), so no control byte or invalid UTF-8 reaches
 * the file) and once for XML. No caller text ever goes into an attribute,
 * and nothing the caller gives can add an element: the SVG has no script
 * and loads nothing.
 *
 * Bounded: at most FG_MAX_DEPTH frames a stack and FG_MAX_NODES boxes in
 * all, so a hostile alert costs at most a few MB. Kernel-free, never prints,
 * depends only on common/.
 */
#ifndef PL_FLAMEGRAPH_H
#define PL_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FG_MAX_DEPTH 512   /* frames in one stack: the kernel's 127 user + 127 kernel, with room */
#define FG_MAX_NODES 16384 /* boxes in one graph, the root included */

enum fg_kind {
	FG_USER,   /* a frame of user code: warm colours, one hue per object */
	FG_KERNEL, /* a kernel frame: blue */
	FG_OTHER,  /* a box the caller makes up ("[other stacks]"): grey, no object */
};

struct fg_frame {
	enum fg_kind kind;
	const char *object;   /* the file (raw bytes); NULL for FG_OTHER */
	const char *function; /* the symbol (raw bytes), or NULL when unknown */
	uint64_t offset;      /* from the function's start, or the file's when function is NULL (hover text) */
	bool is_new;          /* the baseline never saw this function on CPU: drawn purple */
	const char *detail;   /* FG_OTHER only: a line of hover text saying what the box is (raw), or NULL */
};

#define FG_UNKNOWN "[unknown]" /* the function of a box of unnamed code */

struct flamegraph;

/* A new, empty graph (its root alone). 0 and *ret, or -ENOMEM. */
int flamegraph__new(struct flamegraph **ret);

/* NULL-safe. */
void flamegraph__free(struct flamegraph *fg);

/*
 * Add `samples` samples of the stack frames[0..n) (outermost caller first):
 * each node on its path gains them. n may be 0 (samples of the root alone).
 * Returns 0; -E2BIG when n > FG_MAX_DEPTH; -ENOSPC when the graph would
 * pass FG_MAX_NODES; -EOVERFLOW when the root's total would pass
 * UINT64_MAX / 2; -EINVAL for a frame without an object that is not
 * FG_OTHER, or without a function that is FG_OTHER; -ENOMEM. On failure the
 * graph is as it was.
 */
int flamegraph__add(struct flamegraph *fg, const struct fg_frame *frames, size_t n, uint64_t samples);

/* Samples of the root: all that was added. */
uint64_t flamegraph__total(const struct flamegraph *fg);

/* Boxes in the graph, the root included (at least 1). */
size_t flamegraph__count(const struct flamegraph *fg);

/* One box, laid out on a plot `plot_width` units wide (the SVG's is its
 * width less 2 * FG_SVG_XPAD). */
struct fg_box {
	const char *name;   /* as drawn, escaped: "burn_cpu", "libburn.so.1+0x24", "all" */
	const char *object; /* raw, NULL for the root and FG_OTHER */
	enum fg_kind kind;  /* the root is FG_OTHER */
	unsigned depth;     /* 0 for the root */
	uint64_t samples;
	bool is_new;
	double x, width; /* x from 0 at the left; width = samples / total * plot_width */
};

/*
 * Box i (0 <= i < flamegraph__count()) in drawing order: depth first from
 * the root, siblings by name. The strings live as long as fg and until the
 * next flamegraph__add(). 0 and *ret, or -ERANGE (*ret untouched).
 */
int flamegraph__box(struct flamegraph *fg, size_t i, double plot_width, struct fg_box *ret);

#define FG_SVG_XPAD 10 /* left and right margin, in px */

/* The labels' font: the first is the one whose advances fg_text_width()
 * knows (Debian's fonts-dejavu-core); the others stand in where it is
 * missing, and may draw a label wider than measured. */
#define FG_FONT_FAMILY "'DejaVu Sans',Verdana,sans-serif"

/*
 * The width in px of len bytes of escaped text s (esc_text()'s: printable
 * UTF-8 and "\xNN" escapes) at font_px in FG_FONT_FAMILY without kerning
 * or ligatures: the sum of DejaVu Sans's advances for ASCII, one em for any
 * other code point (or byte that is not escaped text). Pure.
 */
double fg_text_width(const char *s, size_t len, double font_px);

struct fg_svg_opts {
	unsigned width;	      /* px; 0: 1200 */
	const char *title;    /* the first line above the graph (raw), or NULL */
	const char *subtitle; /* the second line (raw), or NULL */
};

/*
 * The graph as one SVG document on f: a box per node with its label in full
 * when fg_text_width() says it fits between the box's edges, less 3 px each
 * side, cut to fit with ".." when it does not ("burn_c.."), none when not
 * even one character and ".." fit; and a <title> (the hover text) with the full name, the
 * object, the samples and the percentage of the root. 0, or -EIO when a
 * write to f failed, or -ENOMEM.
 */
int flamegraph__write_svg(struct flamegraph *fg, const struct fg_svg_opts *opts, FILE *f);

/*
 * Write len bytes of s to f as XML character data: text_escape()d, then
 * & < > " ' as entities, and U+FFFE / U+FFFF (valid UTF-8 that XML does not
 * allow) as escapes too. For the tests and any other XML writer. 0, -EIO or
 * -ENOMEM.
 */
int fg_xml_text(FILE *f, const char *s, size_t len);

#endif
