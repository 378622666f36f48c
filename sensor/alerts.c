// SPDX-License-Identifier: MIT
/*
 * alerts.c - from matched rules to alert records.
 *
 * An alert carries the rendered output line, the exact values of the fields
 * the output names (output_fields: the structured truth, where the text is
 * for people), the process identity, and the evidence its rule asked for.
 * Throttling is per (rule, binary): within the rule's throttle window later
 * matches are counted, not written, and the next alert says how many.
 */
#include "alerts.h"
#include "hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "syscalls.h"
#include "ruleset.h"
#include "sample_json.h"

#define THROTTLE_SLOTS 4096 /* power of two; an evicted entry only loses its count */
#define OUTPUT_MAX 4096

struct throttle {
	uint64_t hash;
	uint64_t last_ns;
	uint64_t suppressed;
};

struct alerts {
	struct alerts_opts opts;
	struct rl_ruleset *rs;
	struct rl_eval_stats stats;
	struct throttle thr[THROTTLE_SLOTS];
	uint64_t alerts, suppressed, reloads, reload_failures, events;
	uint64_t now_ns;                     /* of the current eval */
	const struct pl_sample *sample;      /* of the current eval */
	struct pl_output *const *outs;
	size_t nouts;
	int matched;
};

static int load(const struct alerts_opts *o, struct rl_ruleset **ret)
{
	struct rl_diags d = { 0 };
	struct rl_ruleset *rs = NULL;
	int r = rl_ruleset__load(o->paths, o->npaths, &rs, &d);

	for (size_t i = 0; i < d.n; i++)
		log_msg(d.d[i].severity == RL_DIAG_ERROR ? LOG_LVL_ERROR : LOG_LVL_WARN, "%s:%d:%d: %s%s%s", d.d[i].file,
			d.d[i].line, d.d[i].col, d.d[i].item && d.d[i].item[0] ? d.d[i].item : "",
			d.d[i].item && d.d[i].item[0] ? ": " : "", d.d[i].msg);
	if (r < 0) {
		size_t errors = d.errors;

		rl_diags__free(&d);
		return r == -EINVAL ? log_error_errno(r, "The rules have %zu errors: not loaded", errors) : r;
	}
	rl_diags__free(&d);
	for (size_t i = 0; i < o->nenable + o->ndisable; i++) {
		bool en = i < o->nenable;
		const char *what = en ? o->enable[i] : o->disable[i - o->nenable];
		size_t n = strncmp(what, "tag:", 4) == 0 ? rl_ruleset__enable_tag(rs, what + 4, en)
							  : rl_ruleset__enable_name(rs, what, en);

		if (n == 0)
			log_warn("--%s-rule %s: no rule matches", en ? "enable" : "disable", what);
	}
	*ret = rs;
	return 0;
}

int alerts__open(const struct alerts_opts *o, struct alerts **ret)
{
	struct alerts *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return log_error_errno(ENOMEM, "Out of memory");
	a->opts = *o;
	r = load(o, &a->rs);
	if (r < 0) {
		free(a);
		return r;
	}
	/* the budget lives in the stats, so it outlasts reloads of the rules */
	a->stats.budget.ns_per_s = o->regex_budget_ns;
	*ret = a;
	return 0;
}

void alerts__free(struct alerts *a)
{
	if (!a)
		return;
	rl_ruleset__free(a->rs);
	free(a);
}

int alerts__reload(struct alerts *a)
{
	struct rl_ruleset *rs;
	int r = load(&a->opts, &rs);

	if (r < 0) {
		a->reload_failures++;
		log_error("SIGHUP: the new rules were rejected; the previous %zu rules keep running",
			  rl_ruleset__count(a->rs));
		return r;
	}
	rl_ruleset__free(a->rs);
	a->rs = rs;
	a->reloads++;
	log_info("SIGHUP: %zu rules loaded", rl_ruleset__count(rs));
	return 0;
}

unsigned alerts__kinds(const struct alerts *a)
{
	return rl_ruleset__kinds(a->rs);
}

/* Whether this match may be written now; counts it when not. */
static bool throttle_pass(struct alerts *a, const struct rl_rule *r, const struct pl_sample *ev, uint64_t *suppressed)
{
	const char *who = ev->binary_id ? ev->binary_id : ev->exe ? ev->exe : "";
	uint64_t h = pl_fnv1a(pl_hash_str(r->name), who) | 1;
	struct throttle *t = &a->thr[h & (THROTTLE_SLOTS - 1)];

	*suppressed = 0;
	if (!r->throttle_s)
		return true;
	if (t->hash == h && a->now_ns - t->last_ns < (uint64_t)r->throttle_s * 1000000000ull) {
		t->suppressed++;
		a->suppressed++;
		return false;
	}
	if (t->hash == h)
		*suppressed = t->suppressed;
	t->hash = h;
	t->last_ns = a->now_ns;
	t->suppressed = 0;
	return true;
}

static struct json_object *field_value(const struct pl_sample *ev, enum rl_field f, int param)
{
	const struct rl_field_info *fi = rl_field__info(f);
	const char *items[RL_LIST_MAX];
	struct json_object *arr;
	double v;
	int n;

	switch (fi->type) {
	case RL_T_NUM:
		if (!rl_field__num(ev, f, param, &v))
			return NULL;
		/* integral values stay integers in JSON: pids, counts */
		if (v == (double)(int64_t)v && v > -9e15 && v < 9e15)
			return json_object_new_int64((int64_t)v);
		return json_object_new_double(v);
	case RL_T_BOOL:
		return rl_field__num(ev, f, param, &v) ? json_object_new_boolean(v != 0) : NULL;
	case RL_T_STR: /* samples hold raw bytes: escaped as in every record */
		return sample_json__str(rl_field__str(ev, f));
	case RL_T_STRLIST:
		n = rl_field__list(ev, f, items);
		if (n < 0)
			return NULL;
		arr = json_object_new_array();
		for (int i = 0; i < n; i++)
			json_object_array_add(arr, sample_json__str(items[i]));
		return arr;
	}
	return NULL;
}

/* The failed paths of the alert's sample: all of an exit's; a window's top
 * path so far (the same shape, one entry). */
static struct json_object *fail_evidence(const struct pl_sample *s)
{
	const struct pl_fail *top;
	struct pl_sample one;

	if (s->moment != PL_AT_WINDOW)
		return s->moment == PL_AT_EXIT ? sample_json__fail_paths(s) : NULL;
	top = pl_sample__top_fail(s);
	if (!top)
		return NULL;
	one = *s;
	one.fails = top;
	one.nfails = 1;
	return sample_json__fail_paths(&one);
}

static void on_match(const struct rl_rule *r, const struct pl_sample *ev, void *ctx)
{
	struct alerts *a = ctx;
	struct json_object *o, *fields, *tags, *evid;
	enum rl_field ids[32];
	int params[32];
	char out[OUTPUT_MAX];
	uint64_t suppressed;
	size_t n;

	a->matched++;
	if (!throttle_pass(a, r, ev, &suppressed))
		return;
	a->alerts++;
	rl_template__render(r->output, ev, out, sizeof(out)); /* escaped, one line */
	o = json_object_new_object();
	json_object_object_add(o, "type", json_object_new_string("alert"));
	json_object_object_add(o, "time_ns", json_object_new_uint64(a->now_ns));
	/* rule-file text is escaped like process text: alert lines and syslog print it */
	json_object_object_add(o, "rule", sample_json__str(r->name));
	json_object_object_add(o, "priority", json_object_new_string(rl_priority__name(r->priority)));
	json_object_object_add(o, "severity", json_object_new_int(r->priority));
	json_object_object_add(o, "when", json_object_new_string(pl_moment__name(ev->moment)));
	json_object_object_add(o, "output", json_object_new_string(out));
	tags = json_object_new_array();
	for (size_t i = 0; i < r->ntags; i++)
		json_object_array_add(tags, sample_json__str(r->tags[i]));
	json_object_object_add(o, "tags", tags);
	json_object_object_add(o, "pid", json_object_new_uint64(ev->pid));
	json_object_object_add(o, "exe", sample_json__str(ev->exe));
	json_object_object_add(o, "binary_id", sample_json__str(ev->binary_id));
	json_object_object_add(o, "suppressed_before", json_object_new_uint64(suppressed));
	/* matched only because the regex budget left a regex unrun (fail closed) */
	json_object_object_add(o, "regex_skipped", json_object_new_boolean(a->stats.match_undecided));
	fields = json_object_new_object();
	n = rl_template__fields(r->output, ids, params, 32);
	for (size_t i = 0; i < n; i++) {
		char name[96];
		const struct rl_field_info *fi = rl_field__info(ids[i]);

		if (fi->param)
			snprintf(name, sizeof(name), "%s[%s]", fi->name,
				 syscall_name((unsigned)params[i]) ? syscall_name((unsigned)params[i]) : "?");
		else
			snprintf(name, sizeof(name), "%s", fi->name);
		json_object_object_add(fields, name, field_value(ev, ids[i], params[i]));
	}
	json_object_object_add(o, "output_fields", fields);
	evid = json_object_new_object();
	if (r->evidence & RL_EV_FAIL_PATHS)
		json_object_object_add(evid, "fail_paths", fail_evidence(ev));
	if (r->evidence & RL_EV_SYSCALLS)
		json_object_object_add(evid, "syscalls",
				       ev->moment == PL_AT_EXEC ? NULL
				       : sample_json__syscalls(ev->moment == PL_AT_WINDOW ? &ev->win : &ev->life));
	if (r->evidence & RL_EV_BASELINE)
		json_object_object_add(evid, "baseline", sample_json__baseline(ev));
	if (r->evidence & RL_EV_ANCESTRY)
		json_object_object_add(evid, "ancestry", sample_json__ancestors(ev));
	if ((r->evidence & RL_EV_STACKS) && ev->oncpu)
		json_object_object_add(evid, "stacks", sample_json__stacks(ev));
	json_object_object_add(o, "evidence", evid);
	json_object_object_add(o, "rule_file", sample_json__str(r->file ? r->file : ""));
	json_object_object_add(o, "rule_line", json_object_new_int(r->line));
	for (size_t i = 0; i < a->nouts; i++)
		if (a->outs[i])
			output__write(a->outs[i], o);
	json_object_put(o);
}

int alerts__eval(struct alerts *a, const struct pl_sample *s, uint64_t now_ns, struct pl_output *const *outs,
		 size_t nouts)
{
	if (!(rl_ruleset__kinds(a->rs) & (unsigned)s->moment))
		return 0;
	a->events++;
	a->now_ns = now_ns;
	a->sample = s;
	a->outs = outs;
	a->nouts = nouts;
	a->matched = 0;
	rl_ruleset__eval(a->rs, s, on_match, a, &a->stats);
	return a->matched;
}

void alerts__stats(const struct alerts *a, struct json_object *o)
{
	struct json_object *r = json_object_new_object();

	json_object_object_add(r, "rules", json_object_new_uint64(rl_ruleset__count(a->rs)));
	json_object_object_add(r, "events", json_object_new_uint64(a->events));
	json_object_object_add(r, "alerts", json_object_new_uint64(a->alerts));
	json_object_object_add(r, "throttled", json_object_new_uint64(a->suppressed));
	json_object_object_add(r, "regex_limit_hits", json_object_new_uint64(a->stats.regex_limit_hits));
	json_object_object_add(r, "regex_errors", json_object_new_uint64(a->stats.regex_errors));
	json_object_object_add(r, "regex_runs", json_object_new_uint64(a->stats.regex_runs));
	json_object_object_add(r, "regex_cache_hits", json_object_new_uint64(a->stats.regex_cache_hits));
	json_object_object_add(r, "regex_skipped", json_object_new_uint64(a->stats.regex_skipped));
	json_object_object_add(r, "regex_skipped_matches", json_object_new_uint64(a->stats.undecided));
	json_object_object_add(r, "reloads", json_object_new_uint64(a->reloads));
	json_object_object_add(r, "reload_failures", json_object_new_uint64(a->reload_failures));
	json_object_object_add(o, "rules", r);
}

void alerts__ruleset(const struct alerts *a, size_t *ret_rules, size_t *ret_files, unsigned char ret_sha256[32])
{
	*ret_rules = rl_ruleset__count(a->rs);
	rl_ruleset__digest(a->rs, ret_sha256, ret_files);
}
