/* SPDX-License-Identifier: MIT */
/*
 * yaml_doc.h - a YAML file as a small tree of nodes that remember where
 * they came from (internal to rules/).
 *
 * libyaml's document API loses the scalar style and resolves aliases into
 * shared (even cyclic) nodes; rule files need neither anchors nor aliases,
 * and need the style and start mark of every scalar to point diagnostics
 * into the middle of a condition. So this builds its own bounded tree from
 * the event stream and rejects aliases.
 */
#ifndef PL_RULES_YAML_DOC_H
#define PL_RULES_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>

#define YD_MAX_DEPTH 64	      /* nesting of sequences and mappings */
#define YD_MAX_NODES 1000000u /* per file */

enum yd_type { YD_SCALAR, YD_SEQ, YD_MAP };

enum yd_style { YD_PLAIN, YD_SINGLE, YD_DOUBLE, YD_LITERAL, YD_FOLDED };

struct yd_node {
	enum yd_type type;
	enum yd_style style; /* scalars */
	int line, col;	     /* start mark, 0-based as libyaml gives it */
	char *str;	     /* scalars: the value, NUL-terminated (NULs are rejected) */
	size_t len;
	struct yd_node **kids; /* seq: items; map: key, value, key, value... */
	size_t n;
};

/* A loaded file: its bytes (kept for mapping positions inside scalars),
 * where each line starts, and its documents. */
struct yd_file {
	char *name;
	char *buf;
	size_t len;
	size_t *lines; /* byte offset of the start of each line */
	size_t nlines;
	struct yd_node *docs; /* YD_SEQ: one root node per document */
};

struct yd_error {
	int line, col; /* 0-based */
	char msg[256];
};

/*
 * Parse f->buf[0..f->len) into f->docs and the line table. Returns 0,
 * -EINVAL with *err filled (syntax error, alias, too deep, too many nodes,
 * duplicate key), or -ENOMEM.
 */
int yd_file__parse(struct yd_file *f, struct yd_error *err);

/* Frees everything f owns (name, buf, tree), not f itself. */
void yd_file__release(struct yd_file *f);

/* The value for key in a mapping (borrowed), or NULL. */
const struct yd_node *yd_map__get(const struct yd_node *map, const char *key);

/* An empty plain scalar, "~" or null. */
bool yd_node__is_null(const struct yd_node *n);

/* A scalar that isn't null. */
bool yd_node__is_str(const struct yd_node *n);

/* A sequence of scalars (or, with single_ok, also one non-null scalar). */
bool yd_node__str_seq(const struct yd_node *n, bool single_ok);

/* A plain true/false (yes/no, on/off, any of YAML 1.1's spellings): 0 and
 * *v, or -EINVAL. */
int yd_node__bool(const struct yd_node *n, bool *v);

/*
 * Where byte `offset` of scalar n's value is in the file: 1-based line and
 * column (in characters, as libyaml counts). Exact for single-line plain
 * and quoted scalars and for literal/folded blocks; approximate across the
 * line folding of multi-line flow scalars. Non-scalars give their start.
 */
void yd_file__pos(const struct yd_file *f, const struct yd_node *n, size_t offset, int *line, int *col);

#endif
