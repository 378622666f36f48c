// SPDX-License-Identifier: MIT
/*
 * ruleset_exc.c - Falco exceptions: checked when loaded, merged by name
 * when appended, and turned into condition text when compiled.
 *
 * A rule's exceptions become `(<condition>) and not (<tuple> or ...)`,
 * each tuple `(f1 = v1 and f2 = v2)`. Values are always emitted by us as
 * escaped string literals (or plain numbers for numeric fields), so a value
 * is data and can never become syntax. Every generated piece maps back to
 * the YAML node it came from, so a compile error in it (a type mismatch, a
 * bad regex) points at the value.
 */
#include "closest.h"
#include "ruleset_int.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exc_free(struct rs_exc *e)
{
	free(e->fields);
	free(e->comps);
	free(e->values);
}

/* ---- exceptions ---- */

static const char *const comp_names[] = {"=",	      "!=",	    "<",	"<=",	">",	  ">=",	   "contains",
					 "icontains", "startswith", "endswith", "glob", "pmatch", "regex", "in"};

static int check_field(struct rs_loader *L, const struct yd_file *f, const struct yd_node *n, const char *item,
		       const char *exc)
{
	size_t len = strcspn(n->str, "[");

	if (!yd_node__is_str(n)) {
		ERR(L, f, n, item, "exception '%s': 'fields' must be a field name or a sequence of them", exc);
		return -EINVAL;
	}
	if (rl_field__lookup(n->str, len) >= 0)
		return 0;
	{
		char msg[400];

		ERR(L, f, n, item, "exception '%s': %s", exc, rl_field__unknown_msg(n->str, len, msg, sizeof(msg)));
	}
	return -EINVAL;
}

static int parse_exc(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m, const char *item,
		     struct rs_exc *e)
{
	static const char *const keys[] = {"name", "fields", "comps", "values"};
	const struct yd_node *name, *fields, *comps, *values;
	int bad = 0;

	memset(e, 0, sizeof(*e));
	if (m->type != YD_MAP) {
		ERR(L, f, m, item, "each exception must be a mapping");
		return -EINVAL;
	}
	name = yd_map__get(m, "name");
	if (!name || !yd_node__is_str(name)) {
		ERR(L, f, name ? name : m, item, "an exception needs a 'name' string");
		return -EINVAL;
	}
	e->name = name->str;
	e->at = (struct rs_loc){f, name};
	e->f = f;
	for (size_t i = 0; i < m->n; i += 2) {
		const char *k = m->kids[i]->str, *s;
		size_t j;

		for (j = 0; j < 4 && strcmp(k, keys[j]); j++)
			;
		if (j < 4)
			continue;
		s = closest_name(k, keys, 4);
		if (s)
			ERR(L, f, m->kids[i], item, "unknown key '%s' in exception '%s' (did you mean '%s'?)", k,
			    e->name, s);
		else
			ERR(L, f, m->kids[i], item, "unknown key '%s' in exception '%s'", k, e->name);
		bad = -EINVAL;
	}
	fields = yd_map__get(m, "fields");
	comps = yd_map__get(m, "comps");
	values = yd_map__get(m, "values");
	if (fields) {
		if (!yd_node__str_seq(fields, true) || (fields->type == YD_SEQ && fields->n == 0)) {
			ERR(L, f, fields, item, "exception '%s': 'fields' must be a field name or a sequence of them",
			    e->name);
			return -EINVAL;
		}
		e->single = fields->type == YD_SCALAR;
		e->nfields = e->single ? 1 : fields->n;
		e->fields = calloc(e->nfields, sizeof(*e->fields));
		e->comps = calloc(e->nfields, sizeof(*e->comps));
		if (!e->fields || !e->comps)
			return -ENOMEM;
		for (size_t i = 0; i < e->nfields; i++) {
			e->fields[i] = e->single ? fields : fields->kids[i];
			if (check_field(L, f, e->fields[i], item, e->name) < 0)
				bad = -EINVAL;
		}
	}
	if (comps) {
		size_t nc = comps->type == YD_SEQ ? comps->n : 1;

		if (!fields) {
			ERR(L, f, comps, item, "exception '%s': 'comps' without 'fields'", e->name);
			bad = -EINVAL;
		} else if (!yd_node__str_seq(comps, true) || nc != e->nfields) {
			ERR(L, f, comps, item, "exception '%s': 'comps' must have one operator per field (%zu)",
			    e->name, e->nfields);
			bad = -EINVAL;
		} else {
			for (size_t i = 0; i < nc; i++) {
				const struct yd_node *c = comps->type == YD_SEQ ? comps->kids[i] : comps;
				size_t j;

				for (j = 0; j < sizeof(comp_names) / sizeof(comp_names[0]); j++)
					if (strcmp(c->str, comp_names[j]) == 0)
						break;
				if (j == sizeof(comp_names) / sizeof(comp_names[0])) {
					ERR(L, f, c, item, "exception '%s': unknown operator '%s'", e->name, c->str);
					bad = -EINVAL;
				}
				e->comps[i] = c;
			}
		}
	}
	if (values) {
		if (values->type != YD_SEQ && !yd_node__is_null(values)) {
			ERR(L, f, values, item, "exception '%s': 'values' must be a sequence", e->name);
			return -EINVAL;
		}
		for (size_t i = 0; values->type == YD_SEQ && i < values->n; i++) {
			if (GROW(e->values, e->nvalues, e->capvalues))
				return -ENOMEM;
			e->values[e->nvalues++] = (struct rs_loc){f, values->kids[i]};
		}
	}
	return bad;
}

int rs_parse_excs(struct rs_loader *L, const struct yd_file *f, const struct yd_node *n, const char *item,
		  struct rs_exc **ret, size_t *nret)
{
	struct rs_exc *v;
	int bad = 0;

	*ret = NULL;
	*nret = 0;
	if (n->type != YD_SEQ) {
		ERR(L, f, n, item, "'exceptions' must be a sequence of mappings");
		return -EINVAL;
	}
	v = calloc(n->n ? n->n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n->n; i++) {
		int r = parse_exc(L, f, n->kids[i], item, &v[i]);

		*nret = i + 1;
		if (r == -ENOMEM) {
			bad = r;
			break;
		}
		if (r < 0) {
			bad = bad ? bad : r;
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (v[j].name && strcmp(v[j].name, v[i].name) == 0) {
				ERR(L, f, v[i].at.n, item, "duplicate exception '%s'", v[i].name);
				bad = bad ? bad : -EINVAL;
			}
	}
	*ret = v;
	return bad;
}

void rs_excs_free(struct rs_exc *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		exc_free(&v[i]);
	free(v);
}

/* Merge: an exception with a new name is added; one with a known name adds
 * its values (its fields can't change). Takes src's contents. */
int rs_merge_excs(struct rs_loader *L, struct rs_rule *r, struct rs_exc *src, size_t n, const char *item)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct rs_exc *e = &src[i], *d = NULL;

		for (size_t j = 0; j < r->nexc; j++)
			if (strcmp(r->exc[j].name, e->name) == 0)
				d = &r->exc[j];
		if (d && e->nfields) {
			ERR(L, e->f, e->fields[0], item, "exception '%s' exists: appending to it adds only 'values'",
			    e->name);
			bad = -EINVAL;
			continue;
		}
		if (!d && !e->nfields) {
			ERR(L, e->at.f, e->at.n, item, "exception '%s' needs 'fields'", e->name);
			bad = -EINVAL;
			continue;
		}
		if (d) {
			for (size_t k = 0; k < e->nvalues; k++) {
				if (GROW(d->values, d->nvalues, d->capvalues))
					return -ENOMEM;
				d->values[d->nvalues++] = e->values[k];
			}
			continue;
		}
		if (GROW(r->exc, r->nexc, r->capexc))
			return -ENOMEM;
		r->exc[r->nexc++] = *e;
		memset(e, 0, sizeof(*e));
	}
	return bad;
}

/* ---- exceptions into the condition ---- */

static bool is_number(const char *s)
{
	char *end;
	double v;

	if (!*s)
		return false;
	v = strtod(s, &end);
	return *end == '\0' && isfinite(v) && s[0] != ' ';
}

/* A value as a double-quoted string literal, escaped as the lexer reads
 * it back (\" \\ \n \t \xHH): whatever the value, it stays one string. */
static int add_quoted(struct rs_text *t, const struct yd_file *f, const struct yd_node *n)
{
	size_t start = t->len;
	int r = rs_text__add(t, "\"", 1, NULL, NULL, false);

	for (size_t i = 0; r == 0 && i < n->len; i++) {
		unsigned char c = (unsigned char)n->str[i];
		char esc[8];

		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		else {
			esc[0] = (char)c;
			esc[1] = '\0';
		}
		r = rs_text__add(t, esc, strlen(esc), NULL, NULL, false);
	}
	r = r ? r : rs_text__add(t, "\"", 1, NULL, NULL, false);
	return r ? r : rs_text__mark(t, start, f, n);
}

static bool numeric_field(const char *name)
{
	int id = rl_field__lookup(name, strcspn(name, "["));
	const struct rl_field_info *fi = id >= 0 ? rl_field__info((enum rl_field)id) : NULL;

	return fi && (fi->type == RL_T_NUM || fi->type == RL_T_BOOL);
}

static int bad_value(struct rs_loader *L, const struct yd_file *f, const struct yd_node *v, const struct rs_exc *e,
		     const char *item)
{
	rs_diag(&L->rep, RL_DIAG_ERROR, f, v, item, "exception '%s': values must be strings", e->name);
	return -EINVAL;
}

static int add_value(struct rs_loader *L, struct rs_text *t, const struct rs_exc *e, size_t k, const struct yd_file *f,
		     const struct yd_node *v, const char *item)
{
	const char *comp = e->comps[k] ? e->comps[k]->str : "=";
	bool set = strcmp(comp, "in") == 0 || strcmp(comp, "pmatch") == 0;
	int r = 0;

	if (set && v->type == YD_SEQ) {
		r = rs_text__add(t, "(", 1, NULL, NULL, false);
		for (size_t i = 0; r == 0 && i < v->n; i++) {
			if (v->kids[i]->type != YD_SCALAR)
				return bad_value(L, f, v->kids[i], e, item);
			if (i)
				r = rs_text__add(t, ", ", 2, NULL, NULL, false);
			r = r ? r : add_quoted(t, f, v->kids[i]);
		}
		return r ? r : rs_text__add(t, ")", 1, NULL, NULL, false);
	}
	if (v->type != YD_SCALAR)
		return bad_value(L, f, v, e, item);
	if (set) {
		/* a list's name, as Falco allows, or one value */
		r = rs_text__add(t, "(", 1, NULL, NULL, false);
		if (rs_names__get(&L->list_ix, v->str) != SIZE_MAX)
			r = r ? r : rs_text__add(t, v->str, v->len, f, v, true);
		else
			r = r ? r : add_quoted(t, f, v);
		return r ? r : rs_text__add(t, ")", 1, NULL, NULL, false);
	}
	if (numeric_field(e->fields[k]->str) && is_number(v->str) && v->style == YD_PLAIN)
		return rs_text__add(t, v->str, v->len, f, v, true);
	return add_quoted(t, f, v);
}

static int add_tuple(struct rs_loader *L, struct rs_text *t, const struct rs_exc *e, const struct rs_loc *tv,
		     const char *item)
{
	const struct yd_node *v = tv->n;
	int r;

	if (!e->single && (v->type != YD_SEQ || v->n != e->nfields)) {
		rs_diag(&L->rep, RL_DIAG_ERROR, tv->f, v, item,
			"exception '%s': each value must be a sequence of %zu (one per field)", e->name, e->nfields);
		return -EINVAL;
	}
	r = rs_text__add(t, "(", 1, NULL, NULL, false);
	for (size_t k = 0; r == 0 && k < e->nfields; k++) {
		const char *comp = e->comps[k] ? e->comps[k]->str : "=";

		if (k)
			r = rs_text__add(t, " and ", 5, NULL, NULL, false);
		r = r ? r : rs_text__add_node(t, e->f, e->fields[k]);
		r = r ? r : rs_text__add(t, " ", 1, NULL, NULL, false);
		r = r ? r : rs_text__add(t, comp, strlen(comp), e->f, e->comps[k] ? e->comps[k] : e->at.n, true);
		r = r ? r : rs_text__add(t, " ", 1, NULL, NULL, false);
		r = r ? r : add_value(L, t, e, k, tv->f, e->single ? v : v->kids[k], item);
	}
	return r ? r : rs_text__add(t, ")", 1, NULL, NULL, false);
}

/* The final condition: "(cond) and not (tuple or tuple ...)". */
int rs_compose(struct rs_loader *L, const struct rs_rule *rr, struct rs_text *t, const char *item)
{
	size_t ntuples = 0;
	int r = 0;

	for (size_t i = 0; i < rr->nexc; i++)
		ntuples += rr->exc[i].nvalues;
	if (!ntuples)
		return rs_text__add_text(t, &rr->cond);
	r = rs_text__add(t, "(", 1, NULL, NULL, false);
	r = r ? r : rs_text__add_text(t, &rr->cond);
	r = r ? r : rs_text__add(t, ") and not (", 11, NULL, NULL, false);
	ntuples = 0;
	for (size_t i = 0; r == 0 && i < rr->nexc; i++)
		for (size_t j = 0; r == 0 && j < rr->exc[i].nvalues; j++) {
			if (ntuples++)
				r = rs_text__add(t, " or ", 4, NULL, NULL, false);
			r = r ? r : add_tuple(L, t, &rr->exc[i], &rr->exc[i].values[j], item);
		}
	return r ? r : rs_text__add(t, ")", 1, NULL, NULL, false);
}
