// SPDX-License-Identifier: MIT
/*
 * parse_list.c - the literal lists of `in (...)` and `pmatch (...)`.
 *
 * A list has its own syntax: its items are quoted strings or bare words
 * running to whitespace, ',' or ')' (x_lex__item()), so `(/usr/bin/, sh)`
 * needs no quotes. A bare word that names a list (the loader's `list:`
 * items) expands to that list's items, recursively; a list that contains
 * itself is an error, as is nesting deeper than RL_MAX_DEPTH. Every item
 * counts against X_MAX_NODES like a node: a small condition naming large
 * lists is still bounded. The items become one literal set, checked against
 * the left operand's type (numbers for a number's `in`); an `in` set is
 * then sorted and deduplicated (rl_x__set_finish()), and a `pmatch` set's
 * items lose their trailing '/'.
 */
#include "parse_int.h"

#include <errno.h>
#include <string.h>

/* One item into the set, counted as a node: a number for a number's `in`. */
static int add_item(struct x_parser *p, struct x_set *set, size_t *cap, const char *s, size_t n, size_t off)
{
	if (++p->nodes > X_MAX_NODES)
		return x_parse__fail(p, off, "condition too large: more than %u nodes after expanding macros and lists",
				     X_MAX_NODES);
	if (set->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		const char **ns = x_parse__alloc(p, p->data, ncap * sizeof(*ns));
		size_t *nl = x_parse__alloc(p, p->data, ncap * sizeof(*nl));
		double *nv = x_parse__alloc(p, p->data, ncap * sizeof(*nv));

		if (!ns || !nl || !nv)
			return x_parse__oom(p);
		if (set->n) {
			memcpy(ns, set->s, set->n * sizeof(*ns));
			memcpy(nl, set->len, set->n * sizeof(*nl));
			memcpy(nv, set->v, set->n * sizeof(*nv));
		}
		set->s = ns;
		set->len = nl;
		set->v = nv;
		*cap = ncap;
	}
	if (set->num && !x_lex__number(s, n, &set->v[set->n]))
		return x_parse__fail(p, off, "type mismatch: in needs numbers for a number, got '%.*s'",
				     (int)(n < 60 ? n : 60), s);
	set->s[set->n] = s;
	set->len[set->n++] = n;
	return 0;
}

/* A bare word or list item: a list name expands to its items (recursively),
 * anything else is itself. */
static int add_word(struct x_parser *p, struct x_set *set, size_t *cap, const char *w, size_t n, size_t off)
{
	const char *const *items;
	size_t nitems;
	char *s = x_parse__copy(p, p->data, w, n);

	if (!s)
		return x_parse__oom(p);
	if (!p->res || !p->res->list || n >= 128 || !p->res->list(p->res->ctx, s, &items, &nitems))
		return add_item(p, set, cap, s, n, off);
	for (size_t i = 0; i < p->nlchain; i++)
		if (strcmp(p->lchain[i], s) == 0)
			return x_parse__fail(p, off, "list cycle: list '%s' contains itself", s);
	if (p->nlchain >= RL_MAX_DEPTH)
		return x_parse__fail(p, off, "lists nested deeper than %d", RL_MAX_DEPTH);
	p->lchain[p->nlchain++] = s;
	for (size_t i = 0; i < nitems; i++) {
		int r;

		if (!items[i])
			continue;
		r = add_word(p, set, cap, items[i], strlen(items[i]), off);
		if (r < 0)
			return r;
	}
	p->nlchain--;
	return 0;
}

int x_parse__list(struct x_parser *p, enum x_op op, struct x_node *lhs, struct x_node **ret)
{
	const char *opname = op == X_IN ? "in" : "pmatch";
	struct x_node *n = x_parse__node(p, op, RL_T_BOOL, lhs->off, 1);
	struct x_set *set = x_parse__alloc(p, p->data, sizeof(*set));
	size_t open, cap = 0, pos;
	struct x_token t;
	int r;

	if (!n)
		return x_parse__node_rc(p);
	if (!set)
		return x_parse__oom(p);
	if (op == X_PMATCH && lhs->type != RL_T_STR)
		return x_parse__mismatch(p, "pmatch", "string", lhs);
	if (op == X_IN && lhs->type == RL_T_BOOL)
		return x_parse__mismatch(p, "in", "string, string list or number", lhs);
	n->kid[0] = lhs;
	n->set = set;
	set->num = op == X_IN && lhs->type == RL_T_NUM;
	x_parse__advance(p);
	if (p->tok.kind != T_LPAREN)
		return x_parse__fail(p, p->tok.off, "'%s' needs a parenthesized list", opname);
	open = p->tok.off;
	pos = open + 1;
	for (bool first = true;; first = false) {
		x_lex__item(p->src, p->len, pos, &t);
		if (t.kind == T_RPAREN && first)
			break;
		if (t.kind == T_STR) {
			char *s = x_parse__alloc(p, p->data, t.len);

			if (!s)
				return x_parse__oom(p);
			r = add_item(p, set, &cap, s, x_lex__string(p->src, &t, s), t.off);
		} else if (t.kind == T_WORD) {
			r = add_word(p, set, &cap, p->src + t.off, t.len, t.off);
		} else if (t.kind == T_ERROR) {
			r = x_parse__fail(p, t.err_off, "%s", t.err);
		} else if (t.kind == T_END) {
			r = x_parse__fail(p, t.off, "expected ')' to close '(' at offset %zu", open);
		} else {
			r = x_parse__fail(p, t.off, "empty item in the list of '%s'", opname);
		}
		if (r < 0)
			return r;
		x_lex__item(p->src, p->len, t.off + t.len, &t);
		pos = t.off + t.len;
		if (t.kind == T_RPAREN)
			break;
		if (t.kind == T_END)
			return x_parse__fail(p, t.off, "expected ')' to close '(' at offset %zu", open);
		if (t.kind != T_COMMA)
			return x_parse__fail(p, t.off, "expected ',' or ')' in the list of '%s'", opname);
	}
	x_lex__scan(p->src, p->len, t.off + 1, &p->tok);

	if (op == X_PMATCH) {
		for (size_t i = 0; i < set->n; i++)
			while (set->len[i] > 0 && set->s[i][set->len[i] - 1] == '/')
				((char *)set->s[i])[--set->len[i]] = '\0';
	} else {
		rl_x__set_finish(set);
	}
	*ret = n;
	return 0;
}
