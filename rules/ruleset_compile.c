// SPDX-License-Identifier: MIT
/*
 * ruleset_compile.c - every loaded rule compiled: its condition composed
 * with its exceptions, macros and lists resolved through the loader,
 * `when:` checked against the fields, warnings for rules that can't do
 * anything useful, and macros and lists no rule uses reported. What comes
 * out is an array of rules (ruleset.h's struct rl_rule); ruleset.c makes
 * the evaluation-ready ruleset of it.
 *
 * Exceptions become `(<condition>) and not (<tuple> or <tuple> ...)`, each
 * tuple `(f1 = v1 and f2 = v2)`, with every value quoted by us: a value is
 * data and can never become syntax.
 */
#include "ruleset_int.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *res_macro(void *ctx, const char *name)
{
	struct rs_loader *L = ctx;
	size_t i = rs_names__get(&L->macro_ix, name);

	if (i == SIZE_MAX)
		return NULL;
	if (L->marking)
		L->macros[i].used = true;
	if (L->macros[i].bad)
		L->hit_bad = true;
	return L->macros[i].cond.s ? L->macros[i].cond.s : "";
}

static bool res_list(void *ctx, const char *name, const char *const **items, size_t *n)
{
	struct rs_loader *L = ctx;
	size_t i = rs_names__get(&L->list_ix, name);

	if (i == SIZE_MAX)
		return false;
	if (L->marking)
		L->lists[i].used = true;
	if (L->lists[i].bad)
		L->hit_bad = true;
	*items = L->lists[i].items;
	*n = L->lists[i].n;
	return true;
}

/* ---- compiling ---- */

static void kinds_str(unsigned k, char *buf, size_t size)
{
	const char *const *names = pl_moment_names;
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < PL_MOMENTS; i++)
		if (k & 1u << i && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", names[i]);
	if (!k)
		snprintf(buf, size, "no single moment");
}

/* A compile error at its place: in the text that failed, or in the macro
 * it came from (reported once per macro, however many rules use it). */
static void report(struct rs_loader *L, const struct rs_text *t, const struct rs_loc *fallback,
		   const struct rl_error *err, const char *item)
{
	const struct yd_file *f = fallback->f;
	int line = fallback->n->line + 1, col = fallback->n->col + 1;

	if (L->hit_bad)
		return; /* a broken macro or list, already reported */
	if (err->macro[0]) {
		size_t i = rs_names__get(&L->macro_ix, err->macro);

		if (i != SIZE_MAX) {
			struct rs_macro *m = &L->macros[i];

			if (m->reported)
				return;
			m->reported = true;
			if (!rs_text__locate(&m->cond, err->offset, &f, &line, &col)) {
				f = m->at.f;
				line = m->at.n->line + 1;
				col = m->at.n->col + 1;
			}
		}
		rs_diag_at(&L->rep, RL_DIAG_ERROR, f->name, line, col, item, "in macro '%s': %s", err->macro, err->msg);
		return;
	}
	rs_text__locate(t, err->offset, &f, &line, &col);
	rs_diag_at(&L->rep, RL_DIAG_ERROR, f->name, line, col, item, "%s", err->msg);
}

static void at_text(const struct rs_text *t, const struct rs_loc *fallback, const struct yd_file **f, int *line,
		    int *col)
{
	if (!rs_text__locate(t, 0, f, line, col)) {
		*f = fallback->f;
		*line = fallback->n->line + 1;
		*col = fallback->n->col + 1;
	}
}

/* `when:` must be a subset of where the fields have values: name a field
 * that has none at the first kind that doesn't fit. */
static void check_when(struct rs_loader *L, const struct rs_rule *rr, const struct rl_expr *e, unsigned kinds,
		       const char *item)
{
	const char *const *names = pl_moment_names;
	unsigned extra = rr->when & ~kinds;
	enum rl_field fl[64];
	size_t n;
	char has[64];
	int k;

	if (!extra)
		return;
	for (k = 0; !(extra & 1u << k); k++)
		;
	n = rl_expr__fields(e, fl, 64);
	for (size_t i = 0; i < n && i < 64; i++) {
		const struct rl_field_info *fi = rl_field__info(fl[i]);

		if (fi && !(fi->kinds & 1u << k)) {
			kinds_str(fi->kinds, has, sizeof(has));
			rs_diag(&L->rep, RL_DIAG_ERROR, rr->when_at.f, rr->when_at.n, item,
				"'when' includes %s, but %s has values only at %s", names[k], fi->name, has);
			return;
		}
	}
	kinds_str(kinds, has, sizeof(has));
	rs_diag(&L->rep, RL_DIAG_ERROR, rr->when_at.f, rr->when_at.n, item,
		"'when' includes %s, but the condition's fields have values together only at %s", names[k], has);
}

void rs_rule__release(struct rl_rule *r)
{
	free(r->name);
	free(r->desc);
	free(r->condition_src);
	free(r->output_src);
	for (size_t i = 0; i < r->ntags; i++)
		free(r->tags[i]);
	free(r->tags);
	rl_expr__free(r->cond);
	rl_template__free(r->output);
	free(r->file);
	memset(r, 0, sizeof(*r));
}

static int fill(const struct rs_rule *rr, struct rl_rule *out)
{
	out->name = strdup(rr->name);
	out->desc = strdup(rr->desc.s ? rr->desc.s : "");
	out->condition_src = strdup(rr->cond.s ? rr->cond.s : "");
	out->output_src = strdup(rr->output.s ? rr->output.s : "");
	out->file = strdup(rr->at.f->name);
	out->tags = calloc(rr->ntags ? rr->ntags : 1, sizeof(*out->tags));
	if (!out->name || !out->desc || !out->condition_src || !out->output_src || !out->file || !out->tags)
		return -ENOMEM;
	for (size_t i = 0; i < rr->ntags; i++) {
		if (!(out->tags[i] = strdup(rr->tags[i])))
			return -ENOMEM;
		out->ntags = i + 1;
	}
	out->line = rr->at.n->line + 1;
	out->priority = rr->prio;
	out->enabled = rr->enabled;
	out->evidence = rr->evidence;
	out->throttle_s = rr->throttle_s;
	return 0;
}

/* Returns 0 (out filled), -EINVAL (reported) or -ENOMEM. */
static int compile_rule(struct rs_loader *L, const struct rs_rule *rr, struct rl_rule *out)
{
	const struct rl_resolver res = {.ctx = L, .macro = res_macro, .list = res_list};
	struct rs_text t = {0};
	struct rl_error err;
	char item[RS_MAX_NAME + 16];
	const struct yd_file *f;
	int line, col, r, c;
	unsigned kinds;

	snprintf(item, sizeof(item), "rule '%s'", rr->name);
	memset(out, 0, sizeof(*out));
	r = rs_compose(L, rr, &t, item);
	if (r == -E2BIG)
		rs_diag(&L->rep, RL_DIAG_ERROR, rr->at.f, rr->at.n, item,
			"the condition is longer than %u bytes with its exceptions", RS_MAX_TEXT);
	if (r < 0)
		goto out;
	memset(&err, 0, sizeof(err));
	L->marking = true;
	L->hit_bad = false;
	r = rl_expr__compile(t.s ? t.s : "", &res, &out->cond, &err);
	L->marking = false;
	if (r < 0) {
		if (r != -ENOMEM)
			report(L, &t, &rr->at, &err, item);
		goto out;
	}
	kinds = rl_expr__kinds(out->cond);
	at_text(&rr->cond, &rr->at, &f, &line, &col);
	if (rr->when) {
		check_when(L, rr, out->cond, kinds, item);
	} else if (!(kinds & RL_KIND_ALL)) {
		rs_diag_at(&L->rep, RL_DIAG_WARNING, f->name, line, col, item,
			   "the rule can never run: its fields don't all have values at exec, at window or at exit");
	}
	/* without `when`, a rule runs at the classic moments only: the event
	 * moments (file, map, connect) are asked for by name */
	out->kinds = rr->when ? rr->when : kinds & RL_KIND_ALL;
	c = rl_expr__constant(out->cond);
	if (c >= 0)
		rs_diag_at(&L->rep, RL_DIAG_WARNING, f->name, line, col, item, "the condition is always %s",
			   c ? "true" : "false");
	memset(&err, 0, sizeof(err));
	r = rl_template__compile(rr->output.s ? rr->output.s : "", &out->output, &err);
	if (r < 0) {
		if (r != -ENOMEM) {
			L->hit_bad = false;
			report(L, &rr->output, &rr->at, &err, item);
		}
		goto out;
	}
	r = fill(rr, out);
out:
	rs_text__free(&t);
	if (r < 0)
		rs_rule__release(out);
	return r == -ENOMEM ? r : r < 0 ? -EINVAL : 0;
}

/* A macro no rule uses is still compiled, for its errors. */
static int check_unused(struct rs_loader *L)
{
	const struct rl_resolver res = {.ctx = L, .macro = res_macro, .list = res_list};
	char item[RS_MAX_NAME + 16];

	for (size_t i = 0; i < L->nmacros; i++) {
		struct rs_macro *m = &L->macros[i];
		struct rl_expr *e = NULL;
		struct rl_error err;
		int r;

		if (m->used || m->bad || m->reported)
			continue;
		snprintf(item, sizeof(item), "macro '%s'", m->name);
		memset(&err, 0, sizeof(err));
		L->hit_bad = false;
		r = rl_expr__compile(m->cond.s ? m->cond.s : "", &res, &e, &err);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			m->reported = true;
			report(L, &m->cond, &m->at, &err, item);
		}
		rl_expr__free(e);
		rs_diag(&L->rep, RL_DIAG_WARNING, m->at.f, m->at.n, item, "never used");
	}
	for (size_t i = 0; i < L->nlists; i++) {
		const struct rs_list *l = &L->lists[i];
		char li[RS_MAX_NAME + 16];

		if (l->used || l->bad)
			continue;
		snprintf(li, sizeof(li), "list '%s'", l->name);
		rs_diag(&L->rep, RL_DIAG_WARNING, l->at.f, l->at.n, li, "never used");
	}
	return L->rep.oom;
}

int rs_loader__compile(struct rs_loader *L, struct rl_rule **ret, size_t *ret_n)
{
	struct rl_rule *rules = calloc(L->nrules ? L->nrules : 1, sizeof(*rules));
	size_t n = 0;
	int r = 0;

	if (!rules)
		return -ENOMEM;
	for (size_t i = 0; i < L->nrules; i++) {
		if (L->rules[i].bad)
			continue;
		r = compile_rule(L, &L->rules[i], &rules[n]);
		if (r == -ENOMEM)
			goto fail;
		if (r == 0)
			n++;
	}
	r = check_unused(L) < 0 || L->rep.oom ? -ENOMEM : 0;
	if (r == 0 && L->rep.diags->errors > L->errors0)
		r = -EINVAL;
	if (r < 0)
		goto fail;
	*ret = rules;
	*ret_n = n;
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		rs_rule__release(&rules[i]);
	free(rules);
	return r;
}
