// SPDX-License-Identifier: MIT
/*
 * eval.c - evaluate a compiled condition against one event.
 *
 * The array is in preorder: a node's first operand follows it, and each
 * next operand starts `size` nodes after the previous one. `and`/`or`
 * short-circuit. A value that isn't there (an absent field, arithmetic
 * on one, a division by zero) makes the comparison reading it false, so
 * `not` of such a comparison is true. No allocation: regex match data and
 * sets were prepared at compile time.
 *
 * Booleans have a third value, undecided, for a regex the per-second
 * budget did not let run (match.c). It is not "false": an attacker who
 * spends the budget must not turn `cmdline regex X` rules off, nor, through
 * `not`, exceptions on. It follows Kleene's logic: `false and U` is false
 * and `true or U` true (the regex did not matter), `not U`, `true and U`
 * and `false or U` stay undecided, and the caller decides what an
 * undecided condition means (rl_expr__eval(): a match). Regexes are
 * evaluated last in their chains, so most conditions are decided before
 * one is even considered.
 */
#include "expr_internal.h"

#include <string.h>

static inline const struct x_enode *second(const struct x_enode *n)
{
	return n + 1 + n[1].size;
}

/* A string operand: a field or a literal; NULL when absent. */
static inline const char *str_of(const struct x_enode *n, const struct pl_sample *ev)
{
	return n->op == X_STR ? n->u.str.s : rl_x__field_str(ev, n->field);
}

bool rl_x__num(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats, double *out)
{
	double a, b;

	switch (n->op) {
	case X_NUM:
		*out = n->u.num;
		return true;
	case X_FIELD:
		return rl_x__field_num(ev, n->field, n->param, out);
	case X_NEG:
		if (!rl_x__num(n + 1, ev, stats, &a))
			return false;
		*out = -a;
		return true;
	case X_ADD:
	case X_SUB:
	case X_MUL:
	case X_DIV:
		if (!rl_x__num(n + 1, ev, stats, &a) || !rl_x__num(second(n), ev, stats, &b))
			return false;
		if (n->op == X_ADD)
			*out = a + b;
		else if (n->op == X_SUB)
			*out = a - b;
		else if (n->op == X_MUL)
			*out = a * b;
		else if (b == 0)
			return false; /* no ratio, rather than an infinity that compares */
		else
			*out = a / b;
		return true;
	default: /* X_NONE */
		return false;
	}
}

/* A boolean operand of `=`/`!=`: RL_TRUE or RL_FALSE into *out, or
 * RL_UNDECIDED; false (no value) when absent. */
static bool bool_of(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats,
		    enum rl_truth *out)
{
	double v;

	if (n->op == X_FIELD) {
		if (!rl_x__field_num(ev, n->field, n->param, &v))
			return false;
		*out = v != 0 ? RL_TRUE : RL_FALSE;
		return true;
	}
	*out = rl_x__test(n, ev, stats);
	return true;
}

/* `=`: false when an operand has no value; undecided when a boolean one is. */
static bool equal(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats,
		  enum rl_truth *out)
{
	const struct x_enode *l = n + 1, *r = second(n);

	if (n->type == RL_T_NUM) {
		double a, b;

		if (!rl_x__num(l, ev, stats, &a) || !rl_x__num(r, ev, stats, &b))
			return false;
		*out = a == b ? RL_TRUE : RL_FALSE;
	} else if (n->type == RL_T_BOOL) {
		enum rl_truth a, b;

		if (!bool_of(l, ev, stats, &a) || !bool_of(r, ev, stats, &b))
			return false;
		*out = a == RL_UNDECIDED || b == RL_UNDECIDED ? RL_UNDECIDED : a == b ? RL_TRUE : RL_FALSE;
	} else {
		const char *a = str_of(l, ev), *b = str_of(r, ev);

		if (!a || !b)
			return false;
		*out = strcmp(a, b) == 0 ? RL_TRUE : RL_FALSE;
	}
	return true;
}

static enum rl_truth not_of(enum rl_truth t)
{
	return t == RL_UNDECIDED ? RL_UNDECIDED : t == RL_TRUE ? RL_FALSE : RL_TRUE;
}

static enum rl_truth truth(bool b)
{
	return b ? RL_TRUE : RL_FALSE;
}

static bool order(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats)
{
	double a, b;

	if (!rl_x__num(n + 1, ev, stats, &a) || !rl_x__num(second(n), ev, stats, &b))
		return false;
	switch (n->op) {
	case X_LT:
		return a < b;
	case X_LE:
		return a <= b;
	case X_GT:
		return a > b;
	default:
		return a >= b;
	}
}

static enum rl_truth string_op(const struct x_enode *n, const char *s, const char *pat,
			       struct rl_eval_stats *stats)
{
	size_t ls, lp;

	switch (n->op) {
	case X_CONTAINS:
		return truth(strstr(s, pat) != NULL);
	case X_ICONTAINS:
		return truth(rl_x__icontains(s, pat, strlen(pat)));
	case X_STARTSWITH:
		return truth(strncmp(s, pat, strlen(pat)) == 0);
	case X_ENDSWITH:
		ls = strlen(s);
		lp = strlen(pat);
		return truth(ls >= lp && memcmp(s + ls - lp, pat, lp) == 0);
	case X_GLOB:
		return truth(rl_x__glob(pat, s));
	default: /* X_REGEX */
		return rl_x__regex_match(n->u.re, s, stats);
	}
}

/* contains / icontains on a string list field: membership. */
static bool list_has(const struct pl_sample *ev, unsigned f, const char *s, bool icase)
{
	const char *v[RL_LIST_MAX];
	int nv = rl_field__list(ev, (enum rl_field)f, v);
	size_t n = strlen(s);

	for (int i = 0; i < nv; i++) {
		if (!v[i])
			continue;
		if (icase ? strlen(v[i]) == n && rl_x__icontains(v[i], s, n) : strcmp(v[i], s) == 0)
			return true;
	}
	return false;
}

static bool in_set(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats)
{
	const struct x_enode *l = n + 1;
	const struct x_set *set = n->u.set;

	if (n->type == RL_T_NUM) {
		double v;

		return rl_x__num(l, ev, stats, &v) && rl_x__set_has_num(set, v);
	}
	if (n->type == RL_T_STRLIST) {
		const char *v[RL_LIST_MAX];
		int nv = rl_field__list(ev, (enum rl_field)l->field, v);

		for (int i = 0; i < nv; i++)
			if (v[i] && rl_x__set_has_str(set, v[i]))
				return true;
		return false;
	}
	{
		const char *s = str_of(l, ev);

		return s && rl_x__set_has_str(set, s);
	}
}

enum rl_truth rl_x__test(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats)
{
	const struct x_enode *k;
	enum rl_truth t, acc;
	double v;

	switch (n->op) {
	case X_CONST:
		return truth(n->u.num != 0);
	case X_FIELD: /* a boolean field as a condition */
		return truth(rl_x__field_num(ev, n->field, n->param, &v) && v != 0);
	case X_AND:
		k = n + 1;
		acc = RL_TRUE;
		for (uint32_t i = 0; i < n->n; i++, k += k->size) {
			t = rl_x__test(k, ev, stats);
			if (t == RL_FALSE)
				return RL_FALSE;
			if (t == RL_UNDECIDED)
				acc = RL_UNDECIDED; /* unless a later operand is false */
		}
		return acc;
	case X_OR:
		k = n + 1;
		acc = RL_FALSE;
		for (uint32_t i = 0; i < n->n; i++, k += k->size) {
			t = rl_x__test(k, ev, stats);
			if (t == RL_TRUE)
				return RL_TRUE;
			if (t == RL_UNDECIDED)
				acc = RL_UNDECIDED; /* unless a later operand is true */
		}
		return acc;
	case X_NOT:
		return not_of(rl_x__test(n + 1, ev, stats));
	case X_EQ:
		return equal(n, ev, stats, &t) ? t : RL_FALSE;
	case X_NE:
		return equal(n, ev, stats, &t) ? not_of(t) : RL_FALSE;
	case X_LT:
	case X_LE:
	case X_GT:
	case X_GE:
		return truth(order(n, ev, stats));
	case X_CONTAINS:
	case X_ICONTAINS:
	case X_STARTSWITH:
	case X_ENDSWITH:
	case X_GLOB:
	case X_REGEX: {
		const char *pat = str_of(second(n), ev), *s;

		if (!pat)
			return RL_FALSE;
		if (n->type == RL_T_STRLIST)
			return truth(list_has(ev, n[1].field, pat, n->op == X_ICONTAINS));
		s = str_of(n + 1, ev);
		return s ? string_op(n, s, pat, stats) : RL_FALSE;
	}
	case X_PMATCH: {
		const char *s = str_of(n + 1, ev);

		return truth(s && rl_x__pmatch(n->u.set, s));
	}
	case X_IN:
		return truth(in_set(n, ev, stats));
	case X_EXISTS:
		return truth(rl_x__field_exists(ev, n[1].field, n[1].param));
	default:
		return RL_FALSE;
	}
}

enum rl_truth rl_expr__decide(const struct rl_expr *e, const struct pl_sample *ev, struct rl_eval_stats *stats)
{
	if (stats)
		stats->evaluations++;
	return rl_x__test(e->nodes, ev, stats);
}

bool rl_expr__eval(const struct rl_expr *e, const struct pl_sample *ev, struct rl_eval_stats *stats)
{
	return rl_expr__decide(e, ev, stats) != RL_FALSE;
}
