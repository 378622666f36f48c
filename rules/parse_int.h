/* SPDX-License-Identifier: MIT */
/*
 * parse_int.h - what the parser's files share (internal to the compiler).
 *
 * parse.c is the grammar, by recursive descent, and the only file that
 * recurses through it. What doesn't recurse is below it, so the files call
 * downwards only: parse_node.c holds the parser's building blocks (errors at
 * an offset, the nodes it makes, the bounds on them, the pools they live
 * in), and parse_list.c the literal lists of `in (...)` and `pmatch (...)`,
 * whose items have their own syntax and whose list names expand to items.
 */
#ifndef PL_RULES_PARSE_INT_H
#define PL_RULES_PARSE_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "expr_internal.h"
#include "lexer.h"

/* One parse: the source being read, the current token, and what bounds the
 * expansion of macros and lists. */
struct x_parser {
	const struct rl_resolver *res;
	const char *src; /* the source being read: the condition, or a macro's */
	size_t len;
	struct x_token tok;		     /* the current token */
	const char *chain[RL_MAX_DEPTH + 1]; /* macros being expanded, outermost first */
	size_t nchain;
	const char *lchain[RL_MAX_DEPTH + 1]; /* lists being expanded */
	size_t nlchain;
	int depth;
	size_t nodes; /* nodes and list items so far, against X_MAX_NODES */
	struct x_pool *ast, *data;
	struct x_regex ***re;
	size_t *nre;
	struct rl_error *err;
	bool located; /* err->macro is final */
	bool nomem;
};

/* Step to the next token of the current source. */
static inline void x_parse__advance(struct x_parser *p)
{
	x_lex__scan(p->src, p->len, p->tok.off + p->tok.len, &p->tok);
}

/* What to return after x_parse__node() gave NULL (it set the error). */
static inline int x_parse__node_rc(const struct x_parser *p)
{
	return p->nomem ? -ENOMEM : -EINVAL;
}

/*
 * Errors (parse_node.c). Each fills *p->err and returns what the parse
 * then returns. fail: the message at byte off of the current source;
 * -EINVAL. oom: out of memory at the current token; -ENOMEM. unexpected:
 * why the current token can't be used here; -EINVAL. mismatch: "type
 * mismatch: OP needs NEED, got TYPE" at got; -EINVAL.
 */
int x_parse__fail(struct x_parser *p, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int x_parse__oom(struct x_parser *p);
int x_parse__unexpected(struct x_parser *p);
int x_parse__mismatch(struct x_parser *p, const char *op, const char *need, const struct x_node *got);

/* Token t's text for a message, cut at 40 bytes (with "..."). */
void x_parse__tok_text(const struct x_parser *p, const struct x_token *t, char *buf, size_t size);

/* size zeroed bytes, or a copy of s[0..n) NUL-terminated, owned by pool;
 * NULL when out of memory (the caller reports it with x_parse__oom()). */
void *x_parse__alloc(struct x_parser *p, struct x_pool *pool, size_t size);
char *x_parse__copy(struct x_parser *p, struct x_pool *pool, const char *s, size_t n);

/*
 * A new tree node with room for nkid children (param -1), counted against
 * X_MAX_NODES. NULL with the error set (too many nodes, or out of memory):
 * return x_parse__node_rc().
 */
struct x_node *x_parse__node(struct x_parser *p, enum x_op op, enum rl_type type, size_t off, size_t nkid);

/* A composite node is complete: its height, bounded by X_MAX_HEIGHT.
 * Returns 0 or -EINVAL. */
int x_parse__seal(struct x_parser *p, struct x_node *n);

/* One more level of nesting (parentheses, prefix operators, macros) at
 * off, bounded by RL_MAX_DEPTH; the caller decrements p->depth when the
 * level ends. Returns 0 or -EINVAL. */
int x_parse__nest(struct x_parser *p, size_t off);

/*
 * The list of `in` or `pmatch` (parse_list.c), op X_IN or X_PMATCH, with
 * lhs its left operand and the current token the keyword: the items up to
 * the closing ')', list names expanded (recursively, cycles refused), and
 * the set finished (sorted for `in`, trailing '/' removed for `pmatch`).
 * Returns 0 and *ret, -EINVAL or -ENOMEM with the error set.
 */
int x_parse__list(struct x_parser *p, enum x_op op, struct x_node *lhs, struct x_node **ret);

#endif
