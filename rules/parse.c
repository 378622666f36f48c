// SPDX-License-Identifier: MIT
/*
 * parse.c - condition source to a typed tree, by recursive descent.
 *
 * Precedence, low to high: or, and, not, comparison (non-associative;
 * postfix `exists`, `in (..)`, `pmatch (..)`), + -, * /, unary minus,
 * primary. Names are resolved here, while the offset of every token is
 * still at hand, so each error can say exactly where and what: fields to
 * ids, syscall parameters to numbers, macros parsed from their own source
 * and inlined (an error inside one is reported in the macro's source),
 * lists expanded. Types are checked as each node is built. The resolver's
 * text is untrusted: sizes, nesting and the expanded tree are bounded.
 */
#include "expr_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

struct parser {
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

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, size_t off, const char *fmt, ...)
{
	va_list ap;

	p->err->offset = off;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int oom(struct parser *p)
{
	fail(p, p->tok.off, "out of memory");
	p->nomem = true;
	return -ENOMEM;
}

static void advance(struct parser *p)
{
	x_lex__scan(p->src, p->len, p->tok.off + p->tok.len, &p->tok);
}

/* Quote a token for a message, bounded. */
static void tok_text(const struct parser *p, const struct x_token *t, char *buf, size_t size)
{
	size_t n = t->len < 40 ? t->len : 40;

	snprintf(buf, size, "%.*s%s", (int)n, p->src + t->off, t->len > n ? "..." : "");
}

/* The current token where it can't be used: say why. */
static int unexpected(struct parser *p)
{
	char text[64];

	if (p->tok.kind == T_END)
		return fail(p, p->tok.off, "unexpected end of condition");
	if (p->tok.kind == T_ERROR)
		return fail(p, p->tok.err_off, "%s", p->tok.err);
	tok_text(p, &p->tok, text, sizeof(text));
	return fail(p, p->tok.off, "unexpected token '%s'", text);
}

static void *alloc(struct parser *p, struct x_pool *pool, size_t size)
{
	void *m = calloc(1, size);

	if (rl_x__pool_add(pool, m) < 0)
		return NULL;
	return m;
}

static char *copy(struct parser *p, struct x_pool *pool, const char *s, size_t n)
{
	char *m = alloc(p, pool, n + 1);

	if (m)
		memcpy(m, s, n);
	return m;
}

static struct x_node *node(struct parser *p, enum x_op op, enum rl_type type, size_t off, size_t nkid)
{
	struct x_node *n;

	if (++p->nodes > X_MAX_NODES) {
		fail(p, off, "condition too large: more than %u nodes after expanding macros and lists", X_MAX_NODES);
		return NULL;
	}
	n = alloc(p, p->ast, sizeof(*n));
	if (!n || (nkid && !(n->kid = alloc(p, p->ast, nkid * sizeof(n->kid[0]))))) {
		oom(p);
		return NULL;
	}
	n->op = op;
	n->type = type;
	n->off = off;
	n->nkid = nkid;
	n->param = -1;
	return n;
}

/* A node that failed to be made has set the error already. */
static int node_rc(const struct parser *p)
{
	return p->nomem ? -ENOMEM : -EINVAL;
}

/* A composite node is complete: bound the tree's height (arithmetic chains
 * aren't nesting, but fold and eval recurse over them). */
static int seal(struct parser *p, struct x_node *n)
{
	size_t h = 0;

	for (size_t i = 0; i < n->nkid; i++)
		if (n->kid[i]->height > h)
			h = n->kid[i]->height;
	n->height = h + 1;
	if (n->height > X_MAX_HEIGHT)
		return fail(p, n->off, "condition nested too deeply (more than %u levels)", X_MAX_HEIGHT);
	return 0;
}

static int nest(struct parser *p, size_t off)
{
	if (++p->depth > RL_MAX_DEPTH)
		return fail(p, off, "nesting deeper than %d (parentheses, not, minus, macros)", RL_MAX_DEPTH);
	return 0;
}

static const char *tname(enum rl_type t)
{
	return rl_type__name(t);
}

static int mismatch(struct parser *p, const char *op, const char *need, const struct x_node *got)
{
	return fail(p, got->off, "type mismatch: %s needs %s, got %s", op, need, tname(got->type));
}

static int parse_or(struct parser *p, struct x_node **ret);
static int parse_add(struct parser *p, bool operand, struct x_node **ret);
static int parse_unary(struct parser *p, bool operand, struct x_node **ret);
static int parse_not(struct parser *p, struct x_node **ret);
static int parse_cmp(struct parser *p, struct x_node **ret);

static int parse_macro(struct parser *p, const char *name, const char *msrc, size_t ref, struct x_node **ret)
{
	const char *src = p->src;
	size_t len = p->len;
	struct x_token tok = p->tok;
	struct x_node *n = NULL;
	int r;

	for (size_t i = 0; i < p->nchain; i++)
		if (strcmp(p->chain[i], name) == 0) {
			char buf[256];
			size_t used = 0;

			for (size_t k = i; k < p->nchain; k++)
				used += (size_t)snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0,
							 "%s -> ", p->chain[k]);
			if (used < sizeof(buf))
				snprintf(buf + used, sizeof(buf) - used, "%s", name);
			return fail(p, ref, "macro cycle: %s", buf);
		}
	r = nest(p, ref);
	if (r < 0)
		return r;
	p->len = strnlen(msrc, X_MAX_SRC + 1);
	if (p->len > X_MAX_SRC) {
		p->len = len;
		return fail(p, ref, "macro '%s' is longer than %u bytes", name, X_MAX_SRC);
	}
	p->src = msrc;
	p->chain[p->nchain++] = name;
	x_lex__scan(p->src, p->len, 0, &p->tok);
	r = parse_or(p, &n);
	if (r == 0 && p->tok.kind != T_END)
		r = unexpected(p);
	if (r == 0 && n->type != RL_T_BOOL)
		r = fail(p, n->off, "a macro must be a condition (boolean), got %s", tname(n->type));
	if (r < 0 && !p->located) {
		snprintf(p->err->macro, sizeof(p->err->macro), "%s", name);
		p->located = true;
	}
	p->nchain--;
	p->depth--;
	p->src = src;
	p->len = len;
	p->tok = tok;
	if (r < 0)
		return r;
	n->off = ref; /* type errors about it point at its name */
	*ret = n;
	return 0;
}

/* Whether the token after the current one makes the current one a value
 * (an operand of an operator) rather than a condition. */
static bool value_position(const struct parser *p)
{
	struct x_token next;

	x_lex__scan(p->src, p->len, p->tok.off + p->tok.len, &next);
	return next.kind >= T_PLUS && next.kind <= T_GE ? true : next.kind >= T_IN && next.kind <= T_EXISTS;
}

static int parse_name(struct parser *p, bool operand, struct x_node **ret)
{
	const struct x_token *t = &p->tok;
	const char *name = p->src + t->off;
	int f = rl_field__lookup(name, t->name_len);
	bool dotted = memchr(name, '.', t->name_len) != NULL;
	struct x_node *n;

	if (f >= 0) {
		const struct rl_field_info *info = rl_field__info((enum rl_field)f);
		int nr = -1;

		if (info->param && !t->param_off)
			return fail(p, t->off, "field '%s' needs a syscall name: %s[NAME]", info->name, info->name);
		if (!info->param && t->param_off)
			return fail(p, t->param_off - 1, "field '%s' takes no [parameter]", info->name);
		if (info->param) {
			char sc[64];

			if (t->param_len >= sizeof(sc))
				return fail(p, t->param_off, "unknown syscall '%.*s'", 40, p->src + t->param_off);
			memcpy(sc, p->src + t->param_off, t->param_len);
			sc[t->param_len] = '\0';
			nr = rl_field__syscall_number(sc);
			if (nr < 0)
				return fail(p, t->param_off, "unknown syscall '%s' in %s[%s]", sc, info->name, sc);
		}
		n = node(p, X_FIELD, info->type, t->off, 0);
		if (!n)
			return node_rc(p);
		n->field = (enum rl_field)f;
		n->param = nr;
		advance(p);
		*ret = n;
		return 0;
	}
	if (!dotted && !t->param_off && p->res && p->res->macro && t->name_len < 128) {
		char *mname = copy(p, p->ast, name, t->name_len);
		const char *msrc;

		if (!mname)
			return oom(p);
		msrc = p->res->macro(p->res->ctx, mname);
		if (msrc) {
			int r = parse_macro(p, mname, msrc, t->off, ret);

			if (r == 0)
				advance(p);
			return r;
		}
	}
	if (!dotted && !operand && !value_position(p))
		return fail(p, t->off, "undefined macro '%.*s'", (int)(t->name_len < 100 ? t->name_len : 100), name);
	{
		const char *sug = rl_field__suggest(name, t->name_len);
		int shown = (int)(t->name_len < 100 ? t->name_len : 100);

		if (sug)
			return fail(p, t->off, "unknown field '%.*s' (did you mean '%s'?)", shown, name, sug);
		return fail(p, t->off, "unknown field '%.*s'", shown, name);
	}
}

static int string_node(struct parser *p, struct x_node **ret)
{
	struct x_node *n = node(p, X_STR, RL_T_STR, p->tok.off, 0);
	char *s;

	if (!n)
		return node_rc(p);
	s = alloc(p, p->data, p->tok.len);
	if (!s)
		return oom(p);
	n->len = x_lex__string(p->src, &p->tok, s);
	n->str = s;
	advance(p);
	*ret = n;
	return 0;
}

static int parse_primary(struct parser *p, bool operand, struct x_node **ret)
{
	struct x_node *n;
	size_t open;
	int r;

	switch (p->tok.kind) {
	case T_NUM:
		n = node(p, X_NUM, RL_T_NUM, p->tok.off, 0);
		if (!n)
			return node_rc(p);
		n->num = p->tok.num;
		advance(p);
		*ret = n;
		return 0;
	case T_STR:
		return string_node(p, ret);
	case T_TRUE:
	case T_FALSE:
		n = node(p, X_CONST, RL_T_BOOL, p->tok.off, 0);
		if (!n)
			return node_rc(p);
		n->num = p->tok.kind == T_TRUE;
		advance(p);
		*ret = n;
		return 0;
	case T_IDENT:
		return parse_name(p, operand, ret);
	case T_LPAREN:
		open = p->tok.off;
		r = nest(p, open);
		if (r < 0)
			return r;
		advance(p);
		r = parse_or(p, ret);
		if (r < 0)
			return r;
		if (p->tok.kind != T_RPAREN) {
			if (p->tok.kind == T_ERROR)
				return unexpected(p);
			return fail(p, p->tok.off, "expected ')' to close '(' at offset %zu", open);
		}
		p->depth--;
		(*ret)->off = open;
		advance(p);
		return 0;
	default:
		return unexpected(p);
	}
}

/*
 * A prefix operator, `-` (X_NEG) on a number or `not` (X_NOT) on a
 * condition: one shape for both. The operator applies to what follows at
 * its own level (so `- - x` and `not not c`), each one is a level of
 * nesting, and its operand must have its type.
 */
static int parse_prefix(struct parser *p, enum x_op op, struct x_node **ret)
{
	const bool neg = op == X_NEG;
	const enum rl_type type = neg ? RL_T_NUM : RL_T_BOOL;
	size_t off = p->tok.off;
	struct x_node *n, *a;
	int r = nest(p, off);

	if (r < 0)
		return r;
	advance(p);
	r = neg ? parse_unary(p, true, &a) : parse_not(p, &a);
	if (r < 0)
		return r;
	p->depth--;
	if (a->type != type)
		return mismatch(p, neg ? "-" : "not", neg ? "number" : "boolean", a);
	n = node(p, op, type, off, 1);
	if (!n)
		return node_rc(p);
	n->kid[0] = a;
	if (seal(p, n) < 0)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse_unary(struct parser *p, bool operand, struct x_node **ret)
{
	return p->tok.kind == T_MINUS ? parse_prefix(p, X_NEG, ret) : parse_primary(p, operand, ret);
}

/* Left-associative binary arithmetic: the levels of * / and + -. */
static int parse_arith(struct parser *p, bool operand, bool mul, struct x_node **ret)
{
	struct x_node *l;
	int r = mul ? parse_unary(p, operand, &l) : parse_arith(p, operand, true, &l);

	if (r < 0)
		return r;
	for (;;) {
		enum x_tok k = p->tok.kind;
		enum x_op op;
		struct x_node *rhs, *n;

		if (mul && (k == T_STAR || k == T_SLASH))
			op = k == T_STAR ? X_MUL : X_DIV;
		else if (!mul && (k == T_PLUS || k == T_MINUS))
			op = k == T_PLUS ? X_ADD : X_SUB;
		else
			break;
		advance(p);
		r = mul ? parse_unary(p, true, &rhs) : parse_arith(p, true, true, &rhs);
		if (r < 0)
			return r;
		if (l->type != RL_T_NUM)
			return mismatch(p, x_lex__kind_name(k), "number", l);
		if (rhs->type != RL_T_NUM)
			return mismatch(p, x_lex__kind_name(k), "number", rhs);
		n = node(p, op, RL_T_NUM, l->off, 2);
		if (!n)
			return node_rc(p);
		n->kid[0] = l;
		n->kid[1] = rhs;
		if (seal(p, n) < 0)
			return -EINVAL;
		l = n;
	}
	*ret = l;
	return 0;
}

static int parse_add(struct parser *p, bool operand, struct x_node **ret)
{
	return parse_arith(p, operand, false, ret);
}

/* The right operand of a comparison: a bare word where allowed, else an
 * ordinary operand. A bare word is what is not a field, a macro, a keyword
 * or a number, up to whitespace, ')' or ','. */
static int parse_rhs(struct parser *p, bool bare, struct x_node **ret)
{
	const struct x_token *t = &p->tok;
	size_t end;
	double v;
	struct x_node *n;
	char *s;

	if (!bare || t->kind == T_END || t->kind == T_LPAREN || p->src[t->off] == '"' || p->src[t->off] == '\'')
		return parse_add(p, true, ret);
	end = x_lex__word_end(p->src, p->len, t->off);
	if (end == t->off || x_lex__number(p->src + t->off, end - t->off, &v))
		return parse_add(p, true, ret);
	if (t->kind >= T_AND && t->len == end - t->off)
		return parse_add(p, true, ret);
	if (t->kind == T_IDENT) {
		const char *name = p->src + t->off;

		if (rl_field__lookup(name, t->name_len) >= 0)
			return parse_add(p, true, ret);
		if (!memchr(name, '.', t->name_len) && !t->param_off && p->res && p->res->macro && t->name_len < 128) {
			char buf[128];

			memcpy(buf, name, t->name_len);
			buf[t->name_len] = '\0';
			if (p->res->macro(p->res->ctx, buf))
				return parse_add(p, true, ret);
		}
	}
	n = node(p, X_STR, RL_T_STR, t->off, 0);
	if (!n)
		return node_rc(p);
	s = copy(p, p->data, p->src + t->off, end - t->off);
	if (!s)
		return oom(p);
	n->str = s;
	n->len = end - t->off;
	x_lex__scan(p->src, p->len, end, &p->tok);
	*ret = n;
	return 0;
}

static int add_item(struct parser *p, struct x_set *set, size_t *cap, const char *s, size_t n, size_t off)
{
	if (++p->nodes > X_MAX_NODES)
		return fail(p, off, "condition too large: more than %u nodes after expanding macros and lists",
			    X_MAX_NODES);
	if (set->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		const char **ns = alloc(p, p->data, ncap * sizeof(*ns));
		size_t *nl = alloc(p, p->data, ncap * sizeof(*nl));
		double *nv = alloc(p, p->data, ncap * sizeof(*nv));

		if (!ns || !nl || !nv)
			return oom(p);
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
		return fail(p, off, "type mismatch: in needs numbers for a number, got '%.*s'", (int)(n < 60 ? n : 60),
			    s);
	set->s[set->n] = s;
	set->len[set->n++] = n;
	return 0;
}

/* A bare word or list item: a list name expands to its items (recursively),
 * anything else is itself. */
static int add_word(struct parser *p, struct x_set *set, size_t *cap, const char *w, size_t n, size_t off)
{
	const char *const *items;
	size_t nitems;
	char *s = copy(p, p->data, w, n);

	if (!s)
		return oom(p);
	if (!p->res || !p->res->list || n >= 128 || !p->res->list(p->res->ctx, s, &items, &nitems))
		return add_item(p, set, cap, s, n, off);
	for (size_t i = 0; i < p->nlchain; i++)
		if (strcmp(p->lchain[i], s) == 0)
			return fail(p, off, "list cycle: list '%s' contains itself", s);
	if (p->nlchain >= RL_MAX_DEPTH)
		return fail(p, off, "lists nested deeper than %d", RL_MAX_DEPTH);
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

/* `in (...)` / `pmatch (...)`: the current token is the keyword. */
static int parse_list(struct parser *p, enum x_op op, struct x_node *lhs, struct x_node **ret)
{
	const char *opname = op == X_IN ? "in" : "pmatch";
	struct x_node *n = node(p, op, RL_T_BOOL, lhs->off, 1);
	struct x_set *set = alloc(p, p->data, sizeof(*set));
	size_t open, cap = 0, pos;
	struct x_token t;
	int r;

	if (!n)
		return node_rc(p);
	if (!set)
		return oom(p);
	if (op == X_PMATCH && lhs->type != RL_T_STR)
		return mismatch(p, "pmatch", "string", lhs);
	if (op == X_IN && lhs->type == RL_T_BOOL)
		return mismatch(p, "in", "string, string list or number", lhs);
	n->kid[0] = lhs;
	n->set = set;
	set->num = op == X_IN && lhs->type == RL_T_NUM;
	advance(p);
	if (p->tok.kind != T_LPAREN)
		return fail(p, p->tok.off, "'%s' needs a parenthesized list", opname);
	open = p->tok.off;
	pos = open + 1;
	for (bool first = true;; first = false) {
		x_lex__item(p->src, p->len, pos, &t);
		if (t.kind == T_RPAREN && first)
			break;
		if (t.kind == T_STR) {
			char *s = alloc(p, p->data, t.len);

			if (!s)
				return oom(p);
			r = add_item(p, set, &cap, s, x_lex__string(p->src, &t, s), t.off);
		} else if (t.kind == T_WORD) {
			r = add_word(p, set, &cap, p->src + t.off, t.len, t.off);
		} else if (t.kind == T_ERROR) {
			r = fail(p, t.err_off, "%s", t.err);
		} else if (t.kind == T_END) {
			r = fail(p, t.off, "expected ')' to close '(' at offset %zu", open);
		} else {
			r = fail(p, t.off, "empty item in the list of '%s'", opname);
		}
		if (r < 0)
			return r;
		x_lex__item(p->src, p->len, t.off + t.len, &t);
		pos = t.off + t.len;
		if (t.kind == T_RPAREN)
			break;
		if (t.kind == T_END)
			return fail(p, t.off, "expected ')' to close '(' at offset %zu", open);
		if (t.kind != T_COMMA)
			return fail(p, t.off, "expected ',' or ')' in the list of '%s'", opname);
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

/* The expression owns its regexes (they need PCRE2's free functions). */
static int keep_regex(struct parser *p, struct x_regex *re)
{
	struct x_regex **nr = realloc(*p->re, (*p->nre + 1) * sizeof(*nr));

	if (!nr) {
		rl_x__regex_free(re);
		return oom(p);
	}
	nr[(*p->nre)++] = re;
	*p->re = nr;
	return 0;
}

static int check_cmp(struct parser *p, enum x_tok k, struct x_node *l, struct x_node *r)
{
	const char *op = x_lex__kind_name(k);

	switch (k) {
	case T_EQ:
	case T_NE:
		if (l->type == RL_T_STRLIST)
			return mismatch(p, op, "number, boolean or string", l);
		if (l->type != r->type)
			return mismatch(p, op, tname(l->type), r);
		return 0;
	case T_LT:
	case T_LE:
	case T_GT:
	case T_GE:
		if (l->type != RL_T_NUM)
			return mismatch(p, op, "number", l);
		if (r->type != RL_T_NUM)
			return mismatch(p, op, "number", r);
		return 0;
	case T_CONTAINS:
	case T_ICONTAINS:
		if (l->type != RL_T_STR && l->type != RL_T_STRLIST)
			return mismatch(p, op, "string or string list", l);
		break;
	default:
		if (l->type != RL_T_STR)
			return mismatch(p, op, "string", l);
	}
	if (r->type != RL_T_STR)
		return mismatch(p, op, "string", r);
	if ((k == T_GLOB || k == T_REGEX) && r->op != X_STR)
		return fail(p, r->off, "type mismatch: %s needs a string literal (a pattern), got field '%s'", op,
			    rl_field__info(r->field)->name);
	return 0;
}

static int parse_cmp(struct parser *p, struct x_node **ret)
{
	static const enum x_op ops[] = {
	    [T_EQ] = X_EQ,
	    [T_NE] = X_NE,
	    [T_LT] = X_LT,
	    [T_LE] = X_LE,
	    [T_GT] = X_GT,
	    [T_GE] = X_GE,
	    [T_CONTAINS] = X_CONTAINS,
	    [T_ICONTAINS] = X_ICONTAINS,
	    [T_STARTSWITH] = X_STARTSWITH,
	    [T_ENDSWITH] = X_ENDSWITH,
	    [T_GLOB] = X_GLOB,
	    [T_REGEX] = X_REGEX,
	};
	struct x_node *l, *r = NULL, *n = NULL;
	enum x_tok k;
	int rc = parse_add(p, false, &l);

	if (rc < 0)
		return rc;
	k = p->tok.kind;
	if (k == T_EXISTS) {
		if (l->op != X_FIELD)
			return fail(p, l->off, "'exists' needs a field");
		n = node(p, X_EXISTS, RL_T_BOOL, l->off, 1);
		if (!n)
			return node_rc(p);
		n->kid[0] = l;
		advance(p);
	} else if (k == T_IN || k == T_PMATCH) {
		rc = parse_list(p, k == T_IN ? X_IN : X_PMATCH, l, &n);
		if (rc < 0)
			return rc;
	} else if ((k >= T_EQ && k <= T_GE) || (k >= T_CONTAINS && k <= T_ENDSWITH) || k == T_GLOB || k == T_REGEX) {
		bool bare = !(k >= T_EQ && k <= T_GE) || ((k == T_EQ || k == T_NE) && l->type == RL_T_STR);

		if ((k == T_EQ || k == T_NE) && l->type == RL_T_STRLIST)
			return mismatch(p, x_lex__kind_name(k), "number, boolean or string", l);
		advance(p);
		rc = parse_rhs(p, bare, &r);
		if (rc < 0)
			return rc;
		rc = check_cmp(p, k, l, r);
		if (rc < 0)
			return rc;
		n = node(p, ops[k], RL_T_BOOL, l->off, 2);
		if (!n)
			return node_rc(p);
		n->kid[0] = l;
		n->kid[1] = r;
		n->type = RL_T_BOOL;
		if (k == T_REGEX) {
			char msg[300];

			rc = rl_x__regex_compile(r->str, r->len, &n->re, msg, sizeof(msg));
			if (rc == -EINVAL)
				return fail(p, r->off, "%s", msg);
			if (rc < 0)
				return oom(p);
			rc = keep_regex(p, n->re);
			if (rc < 0)
				return rc;
		}
	} else {
		*ret = l;
		return 0;
	}
	k = p->tok.kind;
	if ((k >= T_EQ && k <= T_GE) || (k >= T_IN && k <= T_EXISTS)) {
		char text[64];

		tok_text(p, &p->tok, text, sizeof(text));
		return fail(p, p->tok.off, "comparisons don't chain: unexpected '%s' (use 'and')", text);
	}
	if (seal(p, n) < 0)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse_not(struct parser *p, struct x_node **ret)
{
	return p->tok.kind == T_NOT ? parse_prefix(p, X_NOT, ret) : parse_cmp(p, ret);
}

/* One n-ary level: `and` over not-expressions, or `or` over and-chains. */
static int parse_chain(struct parser *p, bool is_or, struct x_node **ret)
{
	enum x_tok k = is_or ? T_OR : T_AND;
	struct x_node *first, **kids = NULL, *n;
	size_t nk = 0, cap = 0;
	int r = is_or ? parse_chain(p, false, &first) : parse_not(p, &first);

	if (r < 0 || p->tok.kind != k) {
		*ret = first;
		return r;
	}
	for (struct x_node *cur = first;;) {
		if (cur->type != RL_T_BOOL)
			return mismatch(p, is_or ? "or" : "and", "boolean", cur);
		if (nk == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			struct x_node **nkids = alloc(p, p->ast, ncap * sizeof(*nkids));

			if (!nkids)
				return oom(p);
			if (nk)
				memcpy(nkids, kids, nk * sizeof(*kids));
			kids = nkids;
			cap = ncap;
		}
		kids[nk++] = cur;
		if (p->tok.kind != k)
			break;
		advance(p);
		r = is_or ? parse_chain(p, false, &cur) : parse_not(p, &cur);
		if (r < 0)
			return r;
	}
	n = node(p, is_or ? X_OR : X_AND, RL_T_BOOL, first->off, 0);
	if (!n)
		return node_rc(p);
	n->kid = kids;
	n->nkid = nk;
	if (seal(p, n) < 0)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse_or(struct parser *p, struct x_node **ret)
{
	return parse_chain(p, true, ret);
}

int rl_x__parse(const char *src, const struct rl_resolver *res, struct x_pool *ast, struct x_pool *data,
		struct x_regex ***re, size_t *nre, struct x_node **ret, struct rl_error *err)
{
	struct parser p = {.res = res, .src = src, .ast = ast, .data = data, .re = re, .nre = nre, .err = err};
	struct x_node *n = NULL;
	int r;

	p.len = strnlen(src, X_MAX_SRC + 1);
	if (p.len > X_MAX_SRC)
		return fail(&p, X_MAX_SRC, "condition longer than %u bytes", X_MAX_SRC);
	x_lex__scan(src, p.len, 0, &p.tok);
	r = parse_or(&p, &n);
	if (r == 0 && p.tok.kind != T_END)
		r = unexpected(&p);
	if (r == 0 && n->type != RL_T_BOOL)
		r = fail(&p, n->off, "the condition must be boolean, got %s", tname(n->type));
	if (r == 0)
		*ret = n;
	return r;
}
