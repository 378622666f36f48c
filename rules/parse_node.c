// SPDX-License-Identifier: MIT
/*
 * parse_node.c - the parser's building blocks: its errors, the tree nodes
 * it makes, the bounds on them, and the pools that own them.
 *
 * A condition's source is untrusted, and macros and lists multiply it, so
 * every node is counted (X_MAX_NODES), every composite node's height is
 * bounded (X_MAX_HEIGHT: fold and eval recurse over it), and nesting is
 * bounded (RL_MAX_DEPTH: the parser recurses over it). An error is one
 * message at one byte offset, which the loader maps back to the YAML.
 * Everything a parse allocates goes into a pool: the tree into one freed
 * after compiling, literals, sets and regex subjects into the one the
 * compiled expression keeps.
 */
#include "parse_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_x__pool_add(struct x_pool *pool, void *p)
{
	if (!p)
		return -ENOMEM;
	if (pool->n == pool->cap) {
		size_t cap = pool->cap ? pool->cap * 2 : 16;
		void **np = realloc(pool->p, cap * sizeof(*np));

		if (!np) {
			free(p);
			return -ENOMEM;
		}
		pool->p = np;
		pool->cap = cap;
	}
	pool->p[pool->n++] = p;
	return 0;
}

void rl_x__pool_free(struct x_pool *pool)
{
	for (size_t i = 0; i < pool->n; i++)
		free(pool->p[i]);
	free(pool->p);
	pool->p = NULL;
	pool->n = pool->cap = 0;
}

int x_parse__fail(struct x_parser *p, size_t off, const char *fmt, ...)
{
	va_list ap;

	p->err->offset = off;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int x_parse__oom(struct x_parser *p)
{
	x_parse__fail(p, p->tok.off, "out of memory");
	p->nomem = true;
	return -ENOMEM;
}

void x_parse__tok_text(const struct x_parser *p, const struct x_token *t, char *buf, size_t size)
{
	size_t n = t->len < 40 ? t->len : 40;

	snprintf(buf, size, "%.*s%s", (int)n, p->src + t->off, t->len > n ? "..." : "");
}

int x_parse__unexpected(struct x_parser *p)
{
	char text[64];

	if (p->tok.kind == T_END)
		return x_parse__fail(p, p->tok.off, "unexpected end of condition");
	if (p->tok.kind == T_ERROR)
		return x_parse__fail(p, p->tok.err_off, "%s", p->tok.err);
	x_parse__tok_text(p, &p->tok, text, sizeof(text));
	return x_parse__fail(p, p->tok.off, "unexpected token '%s'", text);
}

int x_parse__mismatch(struct x_parser *p, const char *op, const char *need, const struct x_node *got)
{
	return x_parse__fail(p, got->off, "type mismatch: %s needs %s, got %s", op, need, rl_type__name(got->type));
}

void *x_parse__alloc(struct x_parser *p, struct x_pool *pool, size_t size)
{
	void *m = calloc(1, size);

	if (rl_x__pool_add(pool, m) < 0)
		return NULL;
	return m;
}

char *x_parse__copy(struct x_parser *p, struct x_pool *pool, const char *s, size_t n)
{
	char *m = x_parse__alloc(p, pool, n + 1);

	if (m)
		memcpy(m, s, n);
	return m;
}

struct x_node *x_parse__node(struct x_parser *p, enum x_op op, enum rl_type type, size_t off, size_t nkid)
{
	struct x_node *n;

	if (++p->nodes > X_MAX_NODES) {
		x_parse__fail(p, off, "condition too large: more than %u nodes after expanding macros and lists",
			      X_MAX_NODES);
		return NULL;
	}
	n = x_parse__alloc(p, p->ast, sizeof(*n));
	if (!n || (nkid && !(n->kid = x_parse__alloc(p, p->ast, nkid * sizeof(n->kid[0]))))) {
		x_parse__oom(p);
		return NULL;
	}
	n->op = op;
	n->type = type;
	n->off = off;
	n->nkid = nkid;
	n->param = -1;
	return n;
}

/* Arithmetic chains aren't nesting, but fold and eval recurse over them:
 * the height is what bounds their stacks. */
int x_parse__seal(struct x_parser *p, struct x_node *n)
{
	size_t h = 0;

	for (size_t i = 0; i < n->nkid; i++)
		if (n->kid[i]->height > h)
			h = n->kid[i]->height;
	n->height = h + 1;
	if (n->height > X_MAX_HEIGHT)
		return x_parse__fail(p, n->off, "condition nested too deeply (more than %u levels)", X_MAX_HEIGHT);
	return 0;
}

int x_parse__nest(struct x_parser *p, size_t off)
{
	if (++p->depth > RL_MAX_DEPTH)
		return x_parse__fail(p, off, "nesting deeper than %d (parentheses, not, minus, macros)", RL_MAX_DEPTH);
	return 0;
}
