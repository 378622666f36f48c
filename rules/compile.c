// SPDX-License-Identifier: MIT
/*
 * compile.c - from the parse tree to the evaluation form.
 *
 * Three passes over the tree parse.c built: fold every subtree that reads
 * no field into a literal (by evaluating it once, with the same evaluator
 * the event will see, so folding can't disagree with evaluation) and
 * simplify `and`/`or` around constants; order the operands of each
 * `and`/`or` so that regexes come last and cheaper operands first (the
 * order is stable among equals, and nothing has side effects, so only the
 * cost changes); then flatten into one preorder array. Also the public
 * rl_expr__* entry points other than evaluation.
 */
#include "expr_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int flatten(const struct x_node *n, struct x_enode *out, size_t *i, size_t max);

static size_t count(const struct x_node *n)
{
	size_t c = 1;

	for (size_t i = 0; i < n->nkid; i++)
		c += count(n->kid[i]);
	return c;
}

/* Whether each subtree reads the event (n->fields). */
static void annotate(struct x_node *n)
{
	n->fields = n->op == X_FIELD;
	for (size_t i = 0; i < n->nkid; i++) {
		annotate(n->kid[i]);
		n->fields |= n->kid[i]->fields;
	}
}

static bool literal(const struct x_node *n)
{
	return n->op == X_CONST || n->op == X_NUM || n->op == X_STR || n->op == X_NONE;
}

/* Evaluate a field-free subtree once and make n that literal. */
static int fold_literal(struct x_node *n)
{
	static const struct pl_sample empty; /* no moment: every field absent */
	size_t cnt = count(n), i = 0;
	struct x_enode *tmp = calloc(cnt, sizeof(*tmp));
	double v = 0;
	int r;

	if (!tmp)
		return -ENOMEM;
	r = flatten(n, tmp, &i, cnt);
	if (r == 0) {
		if (n->type == RL_T_BOOL) {
			/* no stats, no budget: a regex on literals always runs, never undecided */
			n->num = rl_x__test(tmp, &empty, NULL) == RL_TRUE;
			n->op = X_CONST;
		} else {
			n->op = rl_x__num(tmp, &empty, NULL, &v) ? X_NUM : X_NONE;
			n->num = v;
		}
		n->nkid = 0;
		n->re = NULL;
		n->set = NULL;
	}
	free(tmp);
	return r;
}

static int fold(struct x_node *n, struct x_pool *ast)
{
	size_t k = 0, total = 0;
	bool absorb = false;
	struct x_node **kids;

	if (!n->fields && !literal(n) && n->type != RL_T_STR)
		return fold_literal(n);
	for (size_t i = 0; i < n->nkid; i++) {
		int r = fold(n->kid[i], ast);

		if (r < 0)
			return r;
	}
	if (n->op != X_AND && n->op != X_OR)
		return 0;
	/* operands that are themselves the same chain (parentheses, macros)
	 * merge into this one, so they can be ordered together */
	for (size_t i = 0; i < n->nkid; i++)
		total += n->kid[i]->op == n->op ? n->kid[i]->nkid : 1;
	kids = n->kid;
	if (total > n->nkid) {
		kids = calloc(total, sizeof(*kids));
		if (rl_x__pool_add(ast, kids) < 0)
			return -ENOMEM;
	}
	/* `and`: drop true operands, false absorbs; `or` the other way round */
	for (size_t i = n->nkid; i-- > 0;) {
		struct x_node *c = n->kid[i];
		size_t nc = c->op == n->op ? c->nkid : 1;

		for (size_t j = nc; j-- > 0;) {
			struct x_node *cc = c->op == n->op ? c->kid[j] : c;

			if (cc->op == X_CONST) {
				if ((cc->num != 0) == (n->op == X_OR))
					absorb = true;
				continue;
			}
			kids[total - ++k] = cc;
		}
	}
	/* filled from the end so an in-place merge never overwrites unread kids */
	memmove(kids, kids + total - k, k * sizeof(*kids));
	n->kid = kids;
	n->nkid = k;
	if (absorb || k == 0) {
		n->num = absorb ? n->op == X_OR : n->op == X_AND;
		n->op = X_CONST;
		n->nkid = 0;
	} else if (k == 1) {
		size_t off = n->off;

		*n = *n->kid[0];
		n->off = off;
	}
	return 0;
}

/* Cost: nodes evaluated, with sets counting by their size (scans) or
 * log2 (binary search); whether a regex is anywhere below. */
static void cost(struct x_node *n)
{
	n->cost = 1;
	n->regex = n->op == X_REGEX;
	if (n->set) {
		size_t s = n->set->n;

		if (n->set->sorted)
			for (s = 1; (1ull << s) < n->set->n; s++)
				;
		n->cost += s / 4;
	}
	for (size_t i = 0; i < n->nkid; i++) {
		cost(n->kid[i]);
		n->cost += n->kid[i]->cost;
		n->regex |= n->kid[i]->regex;
	}
}

static int cmp_operand(const void *a, const void *b)
{
	const struct x_node *x = *(struct x_node *const *)a, *y = *(struct x_node *const *)b;

	if (x->regex != y->regex)
		return x->regex ? 1 : -1;
	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void reorder(struct x_node *n)
{
	for (size_t i = 0; i < n->nkid; i++)
		reorder(n->kid[i]);
	if (n->op != X_AND && n->op != X_OR)
		return;
	for (size_t i = 0; i < n->nkid; i++)
		n->kid[i]->seq = i;
	qsort(n->kid, n->nkid, sizeof(n->kid[0]), cmp_operand);
}

static int flatten(const struct x_node *n, struct x_enode *out, size_t *i, size_t max)
{
	struct x_enode *e;
	size_t start = *i;

	if (*i >= max)
		return -EINVAL;
	e = &out[(*i)++];
	memset(e, 0, sizeof(*e));
	e->op = (uint8_t)n->op;
	e->type = (uint8_t)(n->nkid ? n->kid[0]->type : n->type);
	e->field = (uint16_t)n->field;
	e->param = n->param;
	e->n = (uint32_t)n->nkid;
	switch (n->op) {
	case X_CONST:
	case X_NUM:
		e->u.num = n->num;
		break;
	case X_STR:
		e->u.str.s = n->str;
		e->u.str.len = n->len;
		break;
	case X_IN:
	case X_PMATCH:
		e->u.set = n->set;
		break;
	case X_REGEX:
		e->u.re = n->re;
		break;
	default:
		break;
	}
	for (size_t k = 0; k < n->nkid; k++) {
		int r = flatten(n->kid[k], out, i, max);

		if (r < 0)
			return r;
	}
	out[start].size = (uint32_t)(*i - start);
	return 0;
}

static void collect_fields(struct rl_expr *e)
{
	bool seen[RL_NFIELDS] = {0};

	e->kinds = RL_ANY; /* the event moments too (a field narrows it) */
	for (size_t i = 0; i < e->nnodes; i++) {
		const struct x_enode *n = &e->nodes[i];

		if (n->op != X_FIELD || seen[n->field])
			continue;
		seen[n->field] = true;
		e->fields[e->nfields++] = (enum rl_field)n->field;
		e->kinds &= rl_field__info((enum rl_field)n->field)->kinds;
	}
}

int rl_expr__compile(const char *src, const struct rl_resolver *res, struct rl_expr **ret, struct rl_error *err)
{
	struct x_pool ast = {0};
	struct x_node *root = NULL;
	struct rl_expr *e;
	size_t i = 0;
	int r;

	memset(err, 0, sizeof(*err));
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	r = rl_x__parse(src, res, &ast, &e->data, &e->re, &e->nre, &root, err);
	if (r == 0) {
		annotate(root);
		r = fold(root, &ast);
	}
	if (r == 0) {
		cost(root);
		reorder(root);
		e->nnodes = count(root);
		e->nodes = calloc(e->nnodes, sizeof(*e->nodes));
		r = e->nodes ? flatten(root, e->nodes, &i, e->nnodes) : -ENOMEM;
	}
	rl_x__pool_free(&ast);
	if (r < 0) {
		if (r == -ENOMEM && !err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		rl_expr__free(e);
		return r;
	}
	e->constant = e->nodes[0].op == X_CONST ? e->nodes[0].u.num != 0 : -1;
	collect_fields(e);
	*ret = e;
	return 0;
}

void rl_expr__free(struct rl_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nre; i++)
		rl_x__regex_free(e->re[i]);
	free(e->re);
	rl_x__pool_free(&e->data);
	free(e->nodes);
	free(e);
}

unsigned rl_expr__kinds(const struct rl_expr *e)
{
	return e->kinds;
}

int rl_expr__constant(const struct rl_expr *e)
{
	return e->constant;
}

size_t rl_expr__fields(const struct rl_expr *e, enum rl_field *out, size_t max)
{
	size_t n = e->nfields < max ? e->nfields : max;

	memcpy(out, e->fields, n * sizeof(*out));
	return n;
}
