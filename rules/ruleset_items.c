// SPDX-License-Identifier: MIT
/*
 * ruleset_items.c - rule-file items checked and merged into definitions.
 *
 * Every item is checked whole before it changes anything: an item with an
 * error is reported and skipped, but its name is still recorded (as broken)
 * so one typo doesn't cascade into "undefined" errors for everything that
 * appends to or uses it. Both of Falco's ways of changing an earlier item
 * are here: legacy `append: true` and `override: {field: append|replace}`.
 * The definitions borrow their strings from the files' trees, which the
 * loader keeps to the end: rs_loader__free() releases both.
 */
#include "closest.h"
#include "ruleset_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RS_MAX_ITEMS 100000u /* items over all files of one load */

/* ---- the keys of each kind of item ---- */

enum rf { RF_DESC, RF_COND, RF_OUTPUT, RF_PRIO, RF_TAGS, RF_ENABLED, RF_EXC, RF_EVID, RF_THROTTLE, RF_WHEN, RF_N };

static const char *const rule_keys[RF_N] = {"desc",    "condition",  "output",	 "priority", "tags",
					    "enabled", "exceptions", "evidence", "throttle", "when"};
/* may be appended to (the rest only replaced) */
static const unsigned rule_appendable =
    1u << RF_DESC | 1u << RF_COND | 1u << RF_OUTPUT | 1u << RF_TAGS | 1u << RF_EXC | 1u << RF_EVID | 1u << RF_WHEN;
static const unsigned rule_required = 1u << RF_DESC | 1u << RF_COND | 1u << RF_OUTPUT | 1u << RF_PRIO;

static const char *const prio_names[] = {"EMERGENCY", "ALERT",	"CRITICAL",	 "ERROR",
					 "WARNING",   "NOTICE", "INFORMATIONAL", "DEBUG"};
static const char *const evidence_names[] = {"fail_paths", "syscalls", "baseline", "ancestry", "stacks", "wait"};
static const char *const *const when_names = pl_moment_names;

/* ---- scalar checks ---- */

/* A non-negative decimal integer, with an optional unit suffix. */
static int get_uint(const char *s, unsigned long long max, unsigned long long *v, const char *units, char *unit)
{
	unsigned long long x = 0;
	size_t i = 0;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	for (; isdigit((unsigned char)s[i]); i++) {
		if (x > (max - (unsigned long long)(s[i] - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (unsigned long long)(s[i] - '0');
	}
	*unit = 0;
	if (s[i] && units && strchr(units, s[i]) && !s[i + 1])
		*unit = s[i++];
	if (s[i])
		return -EINVAL;
	*v = x;
	return 0;
}

static bool valid_name(const char *s, bool dots)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && !(dots && *s == '.'))
			return false;
	return true;
}

/* Picks from a fixed set of names into a bit mask (or an index). */
static int pick(struct rs_loader *L, const struct yd_file *f, const struct yd_node *n, const char *item,
		const char *key, const char *const *names, size_t nnames, unsigned *mask)
{
	const struct yd_node *one[1] = {n};
	const struct yd_node *const *v = n->type == YD_SEQ ? (const struct yd_node *const *)n->kids : one;
	size_t cnt = n->type == YD_SEQ ? n->n : 1;
	int r = 0;

	*mask = 0;
	for (size_t i = 0; i < cnt; i++) {
		size_t k;

		for (k = 0; k < nnames; k++)
			if (strcmp(v[i]->str, names[k]) == 0)
				break;
		if (k < nnames) {
			*mask |= 1u << k;
			continue;
		}
		{
			const char *s = closest_name(v[i]->str, names, nnames);
			char list[128] = "";
			size_t len = 0;

			for (k = 0; k < nnames && len < sizeof(list); k++)
				len +=
				    (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", k ? ", " : "", names[k]);
			if (s)
				ERR(L, f, v[i], item, "unknown %s '%s' (did you mean '%s'?)", key, v[i]->str, s);
			else
				ERR(L, f, v[i], item, "unknown %s '%s' (one of %s)", key, v[i]->str, list);
		}
		r = -EINVAL;
	}
	return r;
}

/* ---- definitions ---- */

static int add_str(const char ***v, size_t *n, size_t *cap, const char *s)
{
	if (GROW(*v, *n, *cap))
		return -ENOMEM;
	(*v)[(*n)++] = s;
	return 0;
}

/* ---- rules ---- */

struct rule_item {
	const struct yd_node *v[RF_N];
	unsigned present;
	enum rl_priority prio;
	bool enabled;
	unsigned evidence, when;
	uint32_t throttle_s;
	struct rs_exc *exc;
	size_t nexc;
};

static int parse_priority(const char *s, enum rl_priority *p)
{
	for (size_t i = 0; i < sizeof(prio_names) / sizeof(prio_names[0]); i++)
		if (strcasecmp(s, prio_names[i]) == 0) {
			*p = (enum rl_priority)i;
			return 0;
		}
	if (strcasecmp(s, "INFO") == 0) {
		*p = RL_PRIO_INFORMATIONAL;
		return 0;
	}
	return -EINVAL;
}

static int parse_throttle(const char *s, uint32_t *v)
{
	unsigned long long x, mul = 1;
	char unit;

	if (get_uint(s, UINT32_MAX, &x, "smh", &unit) < 0)
		return -EINVAL;
	if (unit == 'm')
		mul = 60;
	else if (unit == 'h')
		mul = 3600;
	if (x > UINT32_MAX / mul)
		return -ERANGE;
	*v = (uint32_t)(x * mul);
	return 0;
}

static int parse_rule_fields(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m, const char *item,
			     struct rule_item *it)
{
	int bad = 0;

	/* in the order of the file, so the diagnostics are too */
	for (size_t kv = 0; kv + 1 < m->n; kv += 2) {
		const struct yd_node *v = m->kids[kv + 1];
		int i, r = 0;

		for (i = 0; i < RF_N && strcmp(m->kids[kv]->str, rule_keys[i]); i++)
			;
		if (i == RF_N)
			continue;
		it->v[i] = v;
		it->present |= 1u << i;
		switch (i) {
		case RF_DESC:
		case RF_COND:
		case RF_OUTPUT:
			if (v->type != YD_SCALAR || (i != RF_DESC && !yd_node__is_str(v))) {
				ERR(L, f, v, item, "'%s' must be a string", rule_keys[i]);
				r = -EINVAL;
			}
			break;
		case RF_PRIO:
			if (v->type != YD_SCALAR || parse_priority(v->str, &it->prio) < 0) {
				ERR(L, f, v, item,
				    "unknown priority '%s' (one of EMERGENCY, ALERT, CRITICAL, ERROR, WARNING, NOTICE, "
				    "INFORMATIONAL or INFO, DEBUG)",
				    v->type == YD_SCALAR ? v->str : "");
				r = -EINVAL;
			}
			break;
		case RF_TAGS:
			if (!yd_node__str_seq(v, false)) {
				ERR(L, f, v, item, "'tags' must be a sequence of strings");
				r = -EINVAL;
			}
			break;
		case RF_ENABLED:
			if (yd_node__bool(v, &it->enabled) < 0) {
				ERR(L, f, v, item, "'enabled' must be true or false");
				r = -EINVAL;
			}
			break;
		case RF_EXC:
			r = rs_parse_excs(L, f, v, item, &it->exc, &it->nexc);
			break;
		case RF_EVID:
			if (!yd_node__str_seq(v, false)) {
				ERR(L, f, v, item, "'evidence' must be a sequence of strings");
				r = -EINVAL;
			} else {
				r = pick(L, f, v, item, "evidence", evidence_names, 6, &it->evidence);
			}
			break;
		case RF_THROTTLE:
			if (!yd_node__is_str(v) || parse_throttle(v->str, &it->throttle_s) < 0) {
				ERR(L, f, v, item, "'throttle' must be seconds or a duration like 30s, 5m or 1h");
				r = -EINVAL;
			}
			break;
		case RF_WHEN:
			if (!yd_node__str_seq(v, true) || (v->type == YD_SEQ && v->n == 0)) {
				ERR(L, f, v, item,
				    "'when' must be exec, window, exit, file, map, connect or a sequence of them");
				r = -EINVAL;
			} else {
				r = pick(L, f, v, item, "'when'", when_names, PL_MOMENTS, &it->when);
			}
			break;
		}
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			bad = -EINVAL;
	}
	return bad;
}

/* Unknown keys of an item: an error each, with the closest known key. */
static int check_keys(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m, const char *item,
		      const char *kind, const char *name, const char *const *keys, size_t nkeys)
{
	int bad = 0;

	for (size_t i = 0; i < m->n; i += 2) {
		const char *k = m->kids[i]->str, *s;
		size_t j;

		for (j = 0; j < nkeys && strcmp(k, keys[j]); j++)
			;
		if (j < nkeys)
			continue;
		s = closest_name(k, keys, nkeys);
		if (s)
			ERR(L, f, m->kids[i], item, "unknown key '%s' in %s '%s' (did you mean '%s'?)", k, kind, name,
			    s);
		else
			ERR(L, f, m->kids[i], item, "unknown key '%s' in %s '%s'", k, kind, name);
		bad = -EINVAL;
	}
	return bad;
}

/* `override:` field -> append | replace. */
static int parse_override(struct rs_loader *L, const struct yd_file *f, const struct yd_node *ov, const char *item,
			  const char *const *fields, size_t nfields, unsigned appendable, unsigned *app, unsigned *rep)
{
	int bad = 0;

	*app = *rep = 0;
	if (ov->type != YD_MAP) {
		ERR(L, f, ov, item, "'override' must be a mapping of field to append or replace");
		return -EINVAL;
	}
	for (size_t i = 0; i < ov->n; i += 2) {
		const struct yd_node *k = ov->kids[i], *v = ov->kids[i + 1];
		size_t j;

		for (j = 0; j < nfields && strcmp(k->str, fields[j]); j++)
			;
		if (j == nfields) {
			ERR(L, f, k, item, "'override' of unknown field '%s'", k->str);
			bad = -EINVAL;
		} else if (v->type == YD_SCALAR && strcmp(v->str, "append") == 0) {
			if (!(appendable & 1u << j)) {
				ERR(L, f, v, item, "'%s' can only be replaced, not appended to", k->str);
				bad = -EINVAL;
			}
			*app |= 1u << j;
		} else if (v->type == YD_SCALAR && strcmp(v->str, "replace") == 0) {
			*rep |= 1u << j;
		} else {
			ERR(L, f, v, item, "override of '%s' must be 'append' or 'replace'", k->str);
			bad = -EINVAL;
		}
	}
	return bad;
}

/* The fields an overriding item sets are exactly those it overrides. */
static int check_override_fields(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m,
				 const struct yd_node *ov, const char *item, const char *const *fields, size_t nfields,
				 unsigned present, unsigned overridden)
{
	int bad = 0;

	for (size_t j = 0; j < nfields; j++) {
		if ((overridden & 1u << j) && !(present & 1u << j)) {
			ERR(L, f, ov, item, "'override' names '%s', which this item doesn't set", fields[j]);
			bad = -EINVAL;
		} else if ((present & 1u << j) && !(overridden & 1u << j)) {
			for (size_t i = 0; i < m->n; i += 2)
				if (strcmp(m->kids[i]->str, fields[j]) == 0)
					ERR(L, f, m->kids[i], item, "'%s' is not named in 'override'", fields[j]);
			bad = -EINVAL;
		}
	}
	return bad;
}

static int text_set(struct rs_text *t, bool append, const struct yd_file *f, const struct yd_node *n)
{
	int r = 0;

	if (!append) {
		t->len = 0;
		t->nseg = 0;
		if (t->s)
			t->s[0] = '\0';
	} else if (t->len) {
		r = rs_text__add(t, " ", 1, NULL, NULL, false);
	}
	return r ? r : rs_text__add_node(t, f, n);
}

/* One field of an item into the rule: replace, or append. */
static int rule_set(struct rs_loader *L, struct rs_rule *r, struct rule_item *it, int i, bool append,
		    const struct yd_file *f, const char *item)
{
	const struct yd_node *v = it->v[i];
	int e = 0;

	switch (i) {
	case RF_DESC:
		e = text_set(&r->desc, append, f, v);
		break;
	case RF_COND:
		e = text_set(&r->cond, append, f, v);
		break;
	case RF_OUTPUT:
		e = text_set(&r->output, append, f, v);
		break;
	case RF_PRIO:
		r->prio = it->prio;
		break;
	case RF_TAGS:
		if (!append)
			r->ntags = 0;
		for (size_t k = 0; k < v->n && !e; k++) {
			bool dup = false;

			for (size_t j = 0; j < r->ntags; j++)
				dup |= strcmp(r->tags[j], v->kids[k]->str) == 0;
			if (!dup)
				e = add_str(&r->tags, &r->ntags, &r->captags, v->kids[k]->str);
		}
		break;
	case RF_ENABLED:
		r->enabled = it->enabled;
		break;
	case RF_EXC:
		if (!append) {
			rs_excs_free(r->exc, r->nexc);
			r->exc = NULL;
			r->nexc = r->capexc = 0;
		}
		e = rs_merge_excs(L, r, it->exc, it->nexc, item);
		break;
	case RF_EVID:
		r->evidence = append ? r->evidence | it->evidence : it->evidence;
		break;
	case RF_THROTTLE:
		r->throttle_s = it->throttle_s;
		break;
	case RF_WHEN:
		r->when = append ? r->when | it->when : it->when;
		r->when_at = (struct rs_loc){f, v};
		break;
	}
	if (e == -E2BIG) {
		ERR(L, f, v, item, "'%s' is longer than %u bytes after appends", rule_keys[i], RS_MAX_TEXT);
		e = 0;
	}
	return e == -ENOMEM ? e : 0;
}

static void where(const struct rs_loc *at, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%d", at->f->name, at->n->line + 1);
}

static int new_rule(struct rs_loader *L, const char *name, const struct yd_file *f, const struct yd_node *n,
		    struct rs_rule **ret)
{
	struct rs_rule *r;

	if (GROW(L->rules, L->nrules, L->caprules) || rs_names__put(&L->rule_ix, name, L->nrules) < 0)
		return -ENOMEM;
	r = &L->rules[L->nrules++];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->at = (struct rs_loc){f, n};
	r->enabled = true;
	*ret = r;
	return 0;
}

static int do_rule(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m, const struct yd_node *nn)
{
	static const char *const keys[] = {"rule",     "append",   "override", "desc",	  "condition",
					   "output",   "priority", "tags",     "enabled", "exceptions",
					   "evidence", "throttle", "when"};
	const struct yd_node *appn = yd_map__get(m, "append"), *ovn = yd_map__get(m, "override");
	struct rule_item it = {0};
	struct rs_rule *r = NULL;
	char item[RS_MAX_NAME + 16], at[300];
	bool append = false;
	unsigned app = 0, rep = 0;
	size_t idx;
	int bad = 0, e = 0;

	if (!yd_node__is_str(nn) || nn->len > RS_MAX_NAME) {
		ERR(L, f, nn, "", "a rule name must be a string of 1 to %d bytes", RS_MAX_NAME);
		return 0;
	}
	for (size_t i = 0; i < nn->len; i++)
		if (iscntrl((unsigned char)nn->str[i])) {
			ERR(L, f, nn, "", "a rule name can't contain control characters");
			return 0;
		}
	snprintf(item, sizeof(item), "rule '%s'", nn->str);
	bad |= check_keys(L, f, m, item, "rule", nn->str, keys, sizeof(keys) / sizeof(keys[0]));
	if (appn && yd_node__bool(appn, &append) < 0) {
		ERR(L, f, appn, item, "'append' must be true or false");
		bad = -EINVAL;
	}
	if (ovn && parse_override(L, f, ovn, item, rule_keys, RF_N, rule_appendable, &app, &rep) < 0)
		bad = -EINVAL;
	e = parse_rule_fields(L, f, m, item, &it);
	if (e == -ENOMEM)
		goto out;
	bad |= e;
	e = 0;
	if (append && ovn) {
		ERR(L, f, appn, item, "'append' and 'override' can't be used together");
		bad = -EINVAL;
	}
	if (ovn && !bad)
		bad = check_override_fields(L, f, m, ovn, item, rule_keys, RF_N, it.present, app | rep);
	if (append && !bad && (it.present & ~(1u << RF_COND | 1u << RF_EXC))) {
		for (int i = 0; i < RF_N; i++)
			if ((it.present & ~(1u << RF_COND | 1u << RF_EXC)) & 1u << i)
				ERR(L, f, it.v[i], item, "'%s' can't be changed with 'append: true' (use 'override')",
				    rule_keys[i]);
		bad = -EINVAL;
	}
	idx = rs_names__get(&L->rule_ix, nn->str);
	if (idx != SIZE_MAX)
		r = &L->rules[idx];
	if (bad) {
		if (!r && !append && !ovn && (e = new_rule(L, nn->str, f, m, &r)) == 0)
			r->bad = true;
		goto out;
	}
	if (ovn || append) {
		if (!r) {
			ERR(L, f, nn, item, "cannot %s undefined rule '%s'", ovn ? "override" : "append to", nn->str);
			goto out;
		}
		for (int i = 0; i < RF_N && !e; i++)
			if (it.present & 1u << i)
				e = rule_set(L, r, &it, i, append || (app & 1u << i), f, item);
		goto out;
	}
	if (it.present == 1u << RF_ENABLED) {
		/* Falco's form for switching an existing rule on or off */
		if (!r)
			ERR(L, f, nn, item, "cannot %s undefined rule '%s'", it.enabled ? "enable" : "disable",
			    nn->str);
		else
			r->enabled = it.enabled;
		goto out;
	}
	if (r) {
		where(&r->at, at, sizeof(at));
		ERR(L, f, nn, item,
		    "duplicate rule '%s' (first defined at %s); to change it, give override: (docs/rules.md)", nn->str,
		    at);
		goto out;
	}
	if ((e = new_rule(L, nn->str, f, m, &r)) < 0)
		goto out;
	for (int i = 0; i < RF_N; i++)
		if ((rule_required & 1u << i) && !(it.present & 1u << i)) {
			ERR(L, f, m, item, "missing required key '%s'", rule_keys[i]);
			r->bad = true;
		}
	for (int i = 0; i < RF_N && !e; i++)
		if (it.present & 1u << i)
			e = rule_set(L, r, &it, i, false, f, item);
out:
	rs_excs_free(it.exc, it.nexc);
	return e == -ENOMEM ? e : 0;
}

/* ---- macros and lists ---- */

static int do_macro(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m, const struct yd_node *nn)
{
	static const char *const keys[] = {"macro", "condition", "append", "override"};
	static const char *const fields[] = {"condition"};
	const struct yd_node *appn = yd_map__get(m, "append"), *ovn = yd_map__get(m, "override");
	const struct yd_node *cond = yd_map__get(m, "condition");
	char item[RS_MAX_NAME + 16], at[300];
	unsigned app = 0, rep = 0;
	bool append = false;
	struct rs_macro *mc = NULL;
	size_t idx;
	int bad = 0, e = 0;

	if (!yd_node__is_str(nn) || nn->len > RS_MAX_NAME || !valid_name(nn->str, false)) {
		ERR(L, f, nn, "", "a macro name must be 1 to %d letters, digits, '_' or '-'", RS_MAX_NAME);
		return 0;
	}
	snprintf(item, sizeof(item), "macro '%s'", nn->str);
	bad |= check_keys(L, f, m, item, "macro", nn->str, keys, 4);
	if (appn && yd_node__bool(appn, &append) < 0) {
		ERR(L, f, appn, item, "'append' must be true or false");
		bad = -EINVAL;
	}
	if (ovn && parse_override(L, f, ovn, item, fields, 1, 1, &app, &rep) < 0)
		bad = -EINVAL;
	if (cond && !yd_node__is_str(cond)) {
		ERR(L, f, cond, item, "'condition' must be a string");
		bad = -EINVAL;
	}
	if (append && ovn) {
		ERR(L, f, appn, item, "'append' and 'override' can't be used together");
		bad = -EINVAL;
	}
	if (ovn && !bad)
		bad = check_override_fields(L, f, m, ovn, item, fields, 1, cond ? 1 : 0, app | rep);
	idx = rs_names__get(&L->macro_ix, nn->str);
	if (idx != SIZE_MAX)
		mc = &L->macros[idx];
	if (!bad && !cond) {
		ERR(L, f, m, item, "missing required key 'condition'");
		bad = -EINVAL;
	}
	if (!bad && (append || ovn) && !mc) {
		ERR(L, f, nn, item, "cannot %s undefined macro '%s'", ovn ? "override" : "append to", nn->str);
		return 0;
	}
	if (!bad && !(append || ovn) && mc) {
		where(&mc->at, at, sizeof(at));
		ERR(L, f, nn, item, "duplicate macro '%s' (first defined at %s)", nn->str, at);
		return 0;
	}
	if (!mc && !append && !ovn) {
		if (GROW(L->macros, L->nmacros, L->capmacros) || rs_names__put(&L->macro_ix, nn->str, L->nmacros) < 0)
			return -ENOMEM;
		mc = &L->macros[L->nmacros++];
		memset(mc, 0, sizeof(*mc));
		mc->name = nn->str;
		mc->at = (struct rs_loc){f, m};
		mc->bad = bad != 0;
	}
	if (bad || !mc)
		return 0;
	e = text_set(&mc->cond, append || app, f, cond);
	if (e == -E2BIG)
		ERR(L, f, cond, item, "'condition' is longer than %u bytes after appends", RS_MAX_TEXT);
	return e == -ENOMEM ? e : 0;
}

static int do_list(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m, const struct yd_node *nn)
{
	static const char *const keys[] = {"list", "items", "append", "override"};
	static const char *const fields[] = {"items"};
	const struct yd_node *appn = yd_map__get(m, "append"), *ovn = yd_map__get(m, "override");
	const struct yd_node *items = yd_map__get(m, "items");
	char item[RS_MAX_NAME + 16], at[300];
	unsigned app = 0, rep = 0;
	bool append = false;
	struct rs_list *l = NULL;
	size_t idx;
	int bad = 0;

	if (!yd_node__is_str(nn) || nn->len > RS_MAX_NAME || !valid_name(nn->str, true)) {
		ERR(L, f, nn, "", "a list name must be 1 to %d letters, digits, '_', '-' or '.'", RS_MAX_NAME);
		return 0;
	}
	snprintf(item, sizeof(item), "list '%s'", nn->str);
	bad |= check_keys(L, f, m, item, "list", nn->str, keys, 4);
	if (appn && yd_node__bool(appn, &append) < 0) {
		ERR(L, f, appn, item, "'append' must be true or false");
		bad = -EINVAL;
	}
	if (ovn && parse_override(L, f, ovn, item, fields, 1, 1, &app, &rep) < 0)
		bad = -EINVAL;
	if (items && !yd_node__str_seq(items, false)) {
		ERR(L, f, items, item, "'items' must be a sequence of strings");
		bad = -EINVAL;
	}
	if (append && ovn) {
		ERR(L, f, appn, item, "'append' and 'override' can't be used together");
		bad = -EINVAL;
	}
	if (ovn && !bad)
		bad = check_override_fields(L, f, m, ovn, item, fields, 1, items ? 1 : 0, app | rep);
	idx = rs_names__get(&L->list_ix, nn->str);
	if (idx != SIZE_MAX)
		l = &L->lists[idx];
	if (!bad && !items) {
		ERR(L, f, m, item, "missing required key 'items'");
		bad = -EINVAL;
	}
	if (!bad && (append || ovn) && !l) {
		ERR(L, f, nn, item, "cannot %s undefined list '%s'", ovn ? "override" : "append to", nn->str);
		return 0;
	}
	if (!bad && !(append || ovn) && l) {
		where(&l->at, at, sizeof(at));
		ERR(L, f, nn, item, "duplicate list '%s' (first defined at %s)", nn->str, at);
		return 0;
	}
	if (!l && !append && !ovn) {
		if (GROW(L->lists, L->nlists, L->caplists) || rs_names__put(&L->list_ix, nn->str, L->nlists) < 0)
			return -ENOMEM;
		l = &L->lists[L->nlists++];
		memset(l, 0, sizeof(*l));
		l->name = nn->str;
		l->at = (struct rs_loc){f, m};
		l->bad = bad != 0;
	}
	if (bad || !l)
		return 0;
	if (!(append || app))
		l->n = 0;
	for (size_t i = 0; i < items->n; i++)
		if (add_str(&l->items, &l->n, &l->cap, items->kids[i]->str) < 0)
			return -ENOMEM;
	return 0;
}

static void do_engine_version(struct rs_loader *L, const struct yd_file *f, const struct yd_node *m,
			      const struct yd_node *v)
{
	static const char *const keys[] = {"required_engine_version"};
	unsigned long long n;
	char unit;

	check_keys(L, f, m, "", "item", "required_engine_version", keys, 1);
	if (v->type != YD_SCALAR || v->style != YD_PLAIN || get_uint(v->str, UINT32_MAX, &n, NULL, &unit) < 0) {
		ERR(L, f, v, "", "'required_engine_version' must be a non-negative integer");
		return;
	}
	if (n > RL_ENGINE_VERSION)
		ERR(L, f, v, "", "requires engine version %llu, this plumbline has %d", n, RL_ENGINE_VERSION);
}

/* ---- files ---- */

int rs_loader__add_file(struct rs_loader *L, struct yd_file *f)
{
	static const char *const kinds[] = {"rule", "macro", "list", "required_engine_version"};

	if (GROW(L->files, L->nfiles, L->capfiles)) {
		yd_file__release(f);
		free(f);
		return -ENOMEM;
	}
	L->files[L->nfiles++] = f;
	for (size_t d = 0; d < f->docs->n; d++) {
		const struct yd_node *root = f->docs->kids[d];

		if (yd_node__is_null(root))
			continue;
		if (root->type != YD_SEQ) {
			ERR(L, f, root, "", "a rule file must be a sequence of items");
			continue;
		}
		for (size_t i = 0; i < root->n; i++) {
			const struct yd_node *m = root->kids[i], *id = NULL;
			int which = -1, r = 0;

			if (++L->items > RS_MAX_ITEMS) {
				if (L->items == RS_MAX_ITEMS + 1)
					ERR(L, f, m, "", "more than %u items", RS_MAX_ITEMS);
				return L->rep.oom;
			}
			if (m->type == YD_MAP)
				for (int k = 0; k < 4; k++) {
					const struct yd_node *v = yd_map__get(m, kinds[k]);

					if (!v)
						continue;
					if (id) {
						ERR(L, f, m, "", "an item can't be both a '%s' and a '%s'",
						    kinds[which], kinds[k]);
						which = -2;
						break;
					}
					id = v;
					which = k;
				}
			if (which == -1)
				ERR(L, f, m, "",
				    "each item must be a mapping with one of 'rule', 'macro', 'list' or "
				    "'required_engine_version'");
			else if (which == 0)
				r = do_rule(L, f, m, id);
			else if (which == 1)
				r = do_macro(L, f, m, id);
			else if (which == 2)
				r = do_list(L, f, m, id);
			else if (which == 3)
				do_engine_version(L, f, m, id);
			if (r < 0)
				return r;
			if (L->rep.oom)
				return L->rep.oom;
		}
	}
	return L->rep.oom;
}

void rs_loader__free(struct rs_loader *L)
{
	for (size_t i = 0; i < L->nrules; i++) {
		struct rs_rule *r = &L->rules[i];

		rs_text__free(&r->desc);
		rs_text__free(&r->cond);
		rs_text__free(&r->output);
		free(r->tags);
		rs_excs_free(r->exc, r->nexc);
	}
	for (size_t i = 0; i < L->nmacros; i++)
		rs_text__free(&L->macros[i].cond);
	for (size_t i = 0; i < L->nlists; i++)
		free(L->lists[i].items);
	free(L->rules);
	free(L->macros);
	free(L->lists);
	rs_names__free(&L->rule_ix);
	rs_names__free(&L->macro_ix);
	rs_names__free(&L->list_ix);
	for (size_t i = 0; i < L->nfiles; i++) {
		yd_file__release(L->files[i]);
		free(L->files[i]);
	}
	free(L->files);
	memset(L, 0, sizeof(*L));
}
