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
 * lists expanded (parse_list.c). Types are checked as each node is built.
 * The resolver's text is untrusted: sizes, nesting and the expanded tree
 * are bounded (parse_node.c). This file is the grammar, and the only one
 * that recurses through it.
 */
#include "parse_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_or(struct x_parser *p, struct x_node **ret);
static int parse_add(struct x_parser *p, bool operand, struct x_node **ret);
static int parse_unary(struct x_parser *p, bool operand, struct x_node **ret);
static int parse_not(struct x_parser *p, struct x_node **ret);
static int parse_cmp(struct x_parser *p, struct x_node **ret);

static int parse_macro(struct x_parser *p, const char *name, const char *msrc, size_t ref, struct x_node **ret)
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
			return x_parse__fail(p, ref, "macro cycle: %s", buf);
		}
	r = x_parse__nest(p, ref);
	if (r < 0)
		return r;
	p->len = strnlen(msrc, X_MAX_SRC + 1);
	if (p->len > X_MAX_SRC) {
		p->len = len;
		return x_parse__fail(p, ref, "macro '%s' is longer than %u bytes", name, X_MAX_SRC);
	}
	p->src = msrc;
	p->chain[p->nchain++] = name;
	x_lex__scan(p->src, p->len, 0, &p->tok);
	r = parse_or(p, &n);
	if (r == 0 && p->tok.kind != T_END)
		r = x_parse__unexpected(p);
	if (r == 0 && n->type != RL_T_BOOL)
		r = x_parse__fail(p, n->off, "a macro must be a condition (boolean), got %s", rl_type__name(n->type));
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
static bool value_position(const struct x_parser *p)
{
	struct x_token next;

	x_lex__scan(p->src, p->len, p->tok.off + p->tok.len, &next);
	return next.kind >= T_PLUS && next.kind <= T_GE ? true : next.kind >= T_IN && next.kind <= T_EXISTS;
}

static int parse_name(struct x_parser *p, bool operand, struct x_node **ret)
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
			return x_parse__fail(p, t->off, "field '%s' needs a %s: %s[%s]", info->name,
					     info->param_path ? "path prefix" : "syscall name", info->name,
					     info->param_path ? "PREFIX" : "NAME");
		if (!info->param && t->param_off)
			return x_parse__fail(p, t->param_off - 1, "field '%s' takes no [parameter]", info->name);
		if (info->param_path) {
			nr = rl_field__path_param(p->src + t->param_off, t->param_len);
			if (nr < 0)
				return x_parse__fail(p, t->param_off, "%s[PREFIX]: %s", info->name,
						     nr == -ENOSPC ? "too many distinct path prefixes (at most 256)"
								   : "a prefix of at most 256 bytes");
		} else if (info->param) {
			char sc[64];

			if (t->param_len >= sizeof(sc))
				return x_parse__fail(p, t->param_off, "unknown syscall '%.*s'", 40,
						     p->src + t->param_off);
			memcpy(sc, p->src + t->param_off, t->param_len);
			sc[t->param_len] = '\0';
			nr = rl_field__syscall_number(sc);
			if (nr < 0)
				return x_parse__fail(p, t->param_off, "unknown syscall '%s' in %s[%s]", sc, info->name,
						     sc);
		}
		n = x_parse__node(p, X_FIELD, info->type, t->off, 0);
		if (!n)
			return x_parse__node_rc(p);
		n->field = (enum rl_field)f;
		n->param = nr;
		x_parse__advance(p);
		*ret = n;
		return 0;
	}
	if (!dotted && !t->param_off && p->res && p->res->macro && t->name_len < 128) {
		char *mname = x_parse__copy(p, p->ast, name, t->name_len);
		const char *msrc;

		if (!mname)
			return x_parse__oom(p);
		msrc = p->res->macro(p->res->ctx, mname);
		if (msrc) {
			int r = parse_macro(p, mname, msrc, t->off, ret);

			if (r == 0)
				x_parse__advance(p);
			return r;
		}
	}
	if (!dotted && !operand && !value_position(p))
		return x_parse__fail(p, t->off, "undefined macro '%.*s'", (int)(t->name_len < 100 ? t->name_len : 100),
				     name);
	{
		char msg[400];

		return x_parse__fail(p, t->off, "%s", rl_field__unknown_msg(name, t->name_len, msg, sizeof(msg)));
	}
}

static int string_node(struct x_parser *p, struct x_node **ret)
{
	struct x_node *n = x_parse__node(p, X_STR, RL_T_STR, p->tok.off, 0);
	char *s;

	if (!n)
		return x_parse__node_rc(p);
	s = x_parse__alloc(p, p->data, p->tok.len);
	if (!s)
		return x_parse__oom(p);
	n->len = x_lex__string(p->src, &p->tok, s);
	n->str = s;
	x_parse__advance(p);
	*ret = n;
	return 0;
}

static int parse_primary(struct x_parser *p, bool operand, struct x_node **ret)
{
	struct x_node *n;
	size_t open;
	int r;

	switch (p->tok.kind) {
	case T_NUM:
		n = x_parse__node(p, X_NUM, RL_T_NUM, p->tok.off, 0);
		if (!n)
			return x_parse__node_rc(p);
		n->num = p->tok.num;
		x_parse__advance(p);
		*ret = n;
		return 0;
	case T_STR:
		return string_node(p, ret);
	case T_TRUE:
	case T_FALSE:
		n = x_parse__node(p, X_CONST, RL_T_BOOL, p->tok.off, 0);
		if (!n)
			return x_parse__node_rc(p);
		n->num = p->tok.kind == T_TRUE;
		x_parse__advance(p);
		*ret = n;
		return 0;
	case T_IDENT:
		return parse_name(p, operand, ret);
	case T_LPAREN:
		open = p->tok.off;
		r = x_parse__nest(p, open);
		if (r < 0)
			return r;
		x_parse__advance(p);
		r = parse_or(p, ret);
		if (r < 0)
			return r;
		if (p->tok.kind != T_RPAREN) {
			if (p->tok.kind == T_ERROR)
				return x_parse__unexpected(p);
			return x_parse__fail(p, p->tok.off, "expected ')' to close '(' at offset %zu", open);
		}
		p->depth--;
		(*ret)->off = open;
		x_parse__advance(p);
		return 0;
	default:
		return x_parse__unexpected(p);
	}
}

/*
 * A prefix operator, `-` (X_NEG) on a number or `not` (X_NOT) on a
 * condition: one shape for both. The operator applies to what follows at
 * its own level (so `- - x` and `not not c`), each one is a level of
 * nesting, and its operand must have its type.
 */
static int parse_prefix(struct x_parser *p, enum x_op op, struct x_node **ret)
{
	const bool neg = op == X_NEG;
	const enum rl_type type = neg ? RL_T_NUM : RL_T_BOOL;
	size_t off = p->tok.off;
	struct x_node *n, *a;
	int r = x_parse__nest(p, off);

	if (r < 0)
		return r;
	x_parse__advance(p);
	r = neg ? parse_unary(p, true, &a) : parse_not(p, &a);
	if (r < 0)
		return r;
	p->depth--;
	if (a->type != type)
		return x_parse__mismatch(p, neg ? "-" : "not", neg ? "number" : "boolean", a);
	n = x_parse__node(p, op, type, off, 1);
	if (!n)
		return x_parse__node_rc(p);
	n->kid[0] = a;
	if (x_parse__seal(p, n) < 0)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse_unary(struct x_parser *p, bool operand, struct x_node **ret)
{
	return p->tok.kind == T_MINUS ? parse_prefix(p, X_NEG, ret) : parse_primary(p, operand, ret);
}

/* Left-associative binary arithmetic: the levels of * / and + -. */
static int parse_arith(struct x_parser *p, bool operand, bool mul, struct x_node **ret)
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
		x_parse__advance(p);
		r = mul ? parse_unary(p, true, &rhs) : parse_arith(p, true, true, &rhs);
		if (r < 0)
			return r;
		if (l->type != RL_T_NUM)
			return x_parse__mismatch(p, x_lex__kind_name(k), "number", l);
		if (rhs->type != RL_T_NUM)
			return x_parse__mismatch(p, x_lex__kind_name(k), "number", rhs);
		n = x_parse__node(p, op, RL_T_NUM, l->off, 2);
		if (!n)
			return x_parse__node_rc(p);
		n->kid[0] = l;
		n->kid[1] = rhs;
		if (x_parse__seal(p, n) < 0)
			return -EINVAL;
		l = n;
	}
	*ret = l;
	return 0;
}

static int parse_add(struct x_parser *p, bool operand, struct x_node **ret)
{
	return parse_arith(p, operand, false, ret);
}

/* The right operand of a comparison: a bare word where allowed, else an
 * ordinary operand. A bare word is what is not a field, a macro, a keyword
 * or a number, up to whitespace, ')' or ','. */
static int parse_rhs(struct x_parser *p, bool bare, struct x_node **ret)
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
	n = x_parse__node(p, X_STR, RL_T_STR, t->off, 0);
	if (!n)
		return x_parse__node_rc(p);
	s = x_parse__copy(p, p->data, p->src + t->off, end - t->off);
	if (!s)
		return x_parse__oom(p);
	n->str = s;
	n->len = end - t->off;
	x_lex__scan(p->src, p->len, end, &p->tok);
	*ret = n;
	return 0;
}

/* The expression owns its regexes (they need PCRE2's free functions). */
static int keep_regex(struct x_parser *p, struct x_regex *re)
{
	struct x_regex **nr = realloc(*p->re, (*p->nre + 1) * sizeof(*nr));

	if (!nr) {
		rl_x__regex_free(re);
		return x_parse__oom(p);
	}
	nr[(*p->nre)++] = re;
	*p->re = nr;
	return 0;
}

static int check_cmp(struct x_parser *p, enum x_tok k, struct x_node *l, struct x_node *r)
{
	const char *op = x_lex__kind_name(k);

	switch (k) {
	case T_EQ:
	case T_NE:
		if (l->type == RL_T_STRLIST)
			return x_parse__mismatch(p, op, "number, boolean or string", l);
		if (l->type != r->type)
			return x_parse__mismatch(p, op, rl_type__name(l->type), r);
		return 0;
	case T_LT:
	case T_LE:
	case T_GT:
	case T_GE:
		if (l->type != RL_T_NUM)
			return x_parse__mismatch(p, op, "number", l);
		if (r->type != RL_T_NUM)
			return x_parse__mismatch(p, op, "number", r);
		return 0;
	case T_CONTAINS:
	case T_ICONTAINS:
		if (l->type != RL_T_STR && l->type != RL_T_STRLIST)
			return x_parse__mismatch(p, op, "string or string list", l);
		break;
	default:
		if (l->type != RL_T_STR)
			return x_parse__mismatch(p, op, "string", l);
	}
	if (r->type != RL_T_STR)
		return x_parse__mismatch(p, op, "string", r);
	if ((k == T_GLOB || k == T_REGEX) && r->op != X_STR)
		return x_parse__fail(p, r->off, "type mismatch: %s needs a string literal (a pattern), got field '%s'",
				     op, rl_field__info(r->field)->name);
	return 0;
}

static int parse_cmp(struct x_parser *p, struct x_node **ret)
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
			return x_parse__fail(p, l->off, "'exists' needs a field");
		n = x_parse__node(p, X_EXISTS, RL_T_BOOL, l->off, 1);
		if (!n)
			return x_parse__node_rc(p);
		n->kid[0] = l;
		x_parse__advance(p);
	} else if (k == T_IN || k == T_PMATCH) {
		rc = x_parse__list(p, k == T_IN ? X_IN : X_PMATCH, l, &n);
		if (rc < 0)
			return rc;
	} else if ((k >= T_EQ && k <= T_GE) || (k >= T_CONTAINS && k <= T_ENDSWITH) || k == T_GLOB || k == T_REGEX) {
		bool bare = !(k >= T_EQ && k <= T_GE) || ((k == T_EQ || k == T_NE) && l->type == RL_T_STR);

		if ((k == T_EQ || k == T_NE) && l->type == RL_T_STRLIST)
			return x_parse__mismatch(p, x_lex__kind_name(k), "number, boolean or string", l);
		x_parse__advance(p);
		rc = parse_rhs(p, bare, &r);
		if (rc < 0)
			return rc;
		rc = check_cmp(p, k, l, r);
		if (rc < 0)
			return rc;
		n = x_parse__node(p, ops[k], RL_T_BOOL, l->off, 2);
		if (!n)
			return x_parse__node_rc(p);
		n->kid[0] = l;
		n->kid[1] = r;
		n->type = RL_T_BOOL;
		if (k == T_REGEX) {
			char msg[300];

			rc = rl_x__regex_compile(r->str, r->len, &n->re, msg, sizeof(msg));
			if (rc == -EINVAL)
				return x_parse__fail(p, r->off, "%s", msg);
			if (rc < 0)
				return x_parse__oom(p);
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

		x_parse__tok_text(p, &p->tok, text, sizeof(text));
		return x_parse__fail(p, p->tok.off, "comparisons don't chain: unexpected '%s' (use 'and')", text);
	}
	if (x_parse__seal(p, n) < 0)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse_not(struct x_parser *p, struct x_node **ret)
{
	return p->tok.kind == T_NOT ? parse_prefix(p, X_NOT, ret) : parse_cmp(p, ret);
}

/* One n-ary level: `and` over not-expressions, or `or` over and-chains. */
static int parse_chain(struct x_parser *p, bool is_or, struct x_node **ret)
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
			return x_parse__mismatch(p, is_or ? "or" : "and", "boolean", cur);
		if (nk == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			struct x_node **nkids = x_parse__alloc(p, p->ast, ncap * sizeof(*nkids));

			if (!nkids)
				return x_parse__oom(p);
			if (nk)
				memcpy(nkids, kids, nk * sizeof(*kids));
			kids = nkids;
			cap = ncap;
		}
		kids[nk++] = cur;
		if (p->tok.kind != k)
			break;
		x_parse__advance(p);
		r = is_or ? parse_chain(p, false, &cur) : parse_not(p, &cur);
		if (r < 0)
			return r;
	}
	n = x_parse__node(p, is_or ? X_OR : X_AND, RL_T_BOOL, first->off, 0);
	if (!n)
		return x_parse__node_rc(p);
	n->kid = kids;
	n->nkid = nk;
	if (x_parse__seal(p, n) < 0)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse_or(struct x_parser *p, struct x_node **ret)
{
	return parse_chain(p, true, ret);
}

int rl_x__parse(const char *src, const struct rl_resolver *res, struct x_pool *ast, struct x_pool *data,
		struct x_regex ***re, size_t *nre, struct x_node **ret, struct rl_error *err)
{
	struct x_parser p = {.res = res, .src = src, .ast = ast, .data = data, .re = re, .nre = nre, .err = err};
	struct x_node *n = NULL;
	int r;

	p.len = strnlen(src, X_MAX_SRC + 1);
	if (p.len > X_MAX_SRC)
		return x_parse__fail(&p, X_MAX_SRC, "condition longer than %u bytes", X_MAX_SRC);
	x_lex__scan(src, p.len, 0, &p.tok);
	r = parse_or(&p, &n);
	if (r == 0 && p.tok.kind != T_END)
		r = x_parse__unexpected(&p);
	if (r == 0 && n->type != RL_T_BOOL)
		r = x_parse__fail(&p, n->off, "the condition must be boolean, got %s", rl_type__name(n->type));
	if (r == 0)
		*ret = n;
	return r;
}
