/* SPDX-License-Identifier: MIT */
/*
 * ruleset_text.h - the loader's two small containers (internal to rules/):
 * source texts put together from pieces of YAML scalars, which map their
 * offsets back to the nodes, and a name index.
 */
#ifndef PL_RULES_RULESET_TEXT_H
#define PL_RULES_RULESET_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "yaml_doc.h"

#define RS_MAX_TEXT (1u << 20) /* a condition, output or desc after appends */

/* A source text put together from pieces of YAML scalars (appends,
 * exceptions), with a map back to the pieces. */
struct rs_seg {
	size_t start, len;	 /* in the text */
	const struct yd_file *f; /* NULL: glue we added */
	const struct yd_node *n;
	bool flat; /* any offset inside maps to n's start */
};

struct rs_text {
	char *s; /* NUL-terminated, or NULL when empty */
	size_t len, cap;
	struct rs_seg *seg;
	size_t nseg, capseg;
};

/* Append len bytes of s. With f, they are a piece from node n of f (flat:
 * every offset in them maps to n's start); without, glue. Returns 0,
 * -ENOMEM, or -E2BIG past RS_MAX_TEXT (the text is then unchanged). */
int rs_text__add(struct rs_text *t, const char *s, size_t len, const struct yd_file *f, const struct yd_node *n,
		 bool flat);
/* Append a scalar node's text, as a piece from it. */
int rs_text__add_node(struct rs_text *t, const struct yd_file *f, const struct yd_node *n);
/* Map text[start..len) (already added as glue) to node n, flat. */
int rs_text__mark(struct rs_text *t, size_t start, const struct yd_file *f, const struct yd_node *n);
/* Append another text (its map shifted). */
int rs_text__add_text(struct rs_text *t, const struct rs_text *src);
void rs_text__free(struct rs_text *t);
/* Where offset of the text is: the file and 1-based line/col. False when
 * the text has no piece from a file. */
bool rs_text__locate(const struct rs_text *t, size_t off, const struct yd_file **f, int *line, int *col);

/* name -> index, open addressing; names are borrowed. */
struct rs_names {
	const char **name;
	size_t *idx;
	size_t cap, n;
};

/* The index of name, or SIZE_MAX when absent. */
size_t rs_names__get(const struct rs_names *h, const char *name);
/* Map name (borrowed: it must outlive h) to idx, replacing an earlier
 * mapping. Returns 0 or -ENOMEM. */
int rs_names__put(struct rs_names *h, const char *name, size_t idx);
void rs_names__free(struct rs_names *h);

#endif
