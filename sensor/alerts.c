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
#include "record.h"
#include "record_event.h"
#include "syscalls.h"
#include "ruleset.h"

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
	struct rl_record_event re;
	struct rl_eval_stats stats;
	struct throttle thr[THROTTLE_SLOTS];
	uint64_t alerts, suppressed, reloads, reload_failures, events;
	uint64_t now_ns;                     /* of the current eval */
	struct json_object *rec;             /* of the current eval */
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

/* Whether any enabled rule reads a per-syscall field, in its condition or output. */
static bool reads_syscalls(const struct rl_ruleset *rs)
{
	enum rl_field f[256];

	for (size_t i = 0; i < rl_ruleset__count(rs); i++) {
		const struct rl_rule *r = rl_ruleset__rule(rs, i);
		size_t n = rl_expr__fields(r->cond, f, 128);

		n += rl_template__fields(r->output, f + n, NULL, 128);
		for (size_t k = 0; k < n; k++)
			if (f[k] == RL_F_PROC_SYSCALL || f[k] == RL_F_WIN_SYSCALL_PER_S)
				return true;
	}
	return false;
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
	a->re.skip_syscalls = !reads_syscalls(a->rs);
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
	rl_record_event__release(&a->re);
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
	a->re.skip_syscalls = !reads_syscalls(rs);
	a->reloads++;
	log_info("SIGHUP: %zu rules loaded", rl_ruleset__count(rs));
	return 0;
}

unsigned alerts__kinds(const struct alerts *a)
{
	return rl_ruleset__kinds(a->rs);
}

/* Whether this match may be written now; counts it when not. */
static bool throttle_pass(struct alerts *a, const struct rl_rule *r, const struct rl_event *ev, uint64_t *suppressed)
{
	const char *who = rl_event__has(ev, RL_F_PROC_BINARY_ID) ? ev->str[RL_F_PROC_BINARY_ID]
				: rl_event__has(ev, RL_F_PROC_EXE) ? ev->str[RL_F_PROC_EXE] : "";
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

static struct json_object *field_value(const struct rl_event *ev, enum rl_field f, int param)
{
	const struct rl_field_info *fi = rl_field__info(f);

	if (fi->param) {
		const uint64_t *v = f == RL_F_PROC_SYSCALL ? ev->sc : ev->win_sc;

		if (!v || param < 0 || param >= RL_SC_SLOTS)
			return NULL;
		return f == RL_F_PROC_SYSCALL ? json_object_new_uint64(v[param])
			: ev->win_seconds > 0 ? json_object_new_double(v[param] / ev->win_seconds) : NULL;
	}
	if (!rl_event__has(ev, f))
		return NULL;
	switch (fi->type) {
	case RL_T_NUM:
		/* integral values stay integers in JSON: pids, counts */
		if (ev->num[f] == (double)(int64_t)ev->num[f] && ev->num[f] > -9e15 && ev->num[f] < 9e15)
			return json_object_new_int64((int64_t)ev->num[f]);
		return json_object_new_double(ev->num[f]);
	case RL_T_BOOL:
		return json_object_new_boolean(ev->num[f] != 0);
	case RL_T_STR: /* events hold raw bytes: escaped as in every record */
		return record__str(ev->str[f]);
	case RL_T_STRLIST: {
		struct json_object *arr = json_object_new_array();

		for (uint32_t i = 0; i < ev->list[f].n; i++)
			json_object_array_add(arr, record__str(ev->list[f].v[i]));
		return arr;
	}
	}
	return NULL;
}

static struct json_object *copy_of(struct json_object *rec, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(rec, key, &v) && v ? json_object_get(v) : NULL;
}

static void on_match(const struct rl_rule *r, const struct rl_event *ev, void *ctx)
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
	json_object_object_add(o, "rule", record__str(r->name));
	json_object_object_add(o, "priority", json_object_new_string(rl_priority__name(r->priority)));
	json_object_object_add(o, "severity", json_object_new_int(r->priority));
	json_object_object_add(o, "when", json_object_new_string(ev->str[RL_F_EVT_WHEN]));
	json_object_object_add(o, "output", json_object_new_string(out));
	tags = json_object_new_array();
	for (size_t i = 0; i < r->ntags; i++)
		json_object_array_add(tags, record__str(r->tags[i]));
	json_object_object_add(o, "tags", tags);
	json_object_object_add(o, "pid", copy_of(a->rec, "pid"));
	json_object_object_add(o, "exe", copy_of(a->rec, "exe"));
	json_object_object_add(o, "binary_id", copy_of(a->rec, "binary_id"));
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
	if (r->evidence & RL_EV_FAIL_PATHS) {
		struct json_object *p = copy_of(a->rec, "open_fail_paths");
		struct json_object *total, *path, *count;

		/* a window knows its process's top path so far: the same shape, one entry */
		if (!p && json_object_object_get_ex(a->rec, "total", &total) && total &&
		    json_object_object_get_ex(total, "top_fail_path", &path) && path &&
		    json_object_object_get_ex(total, "top_fail_count", &count)) {
			struct json_object *e = json_object_new_object();

			p = json_object_new_array();
			json_object_object_add(e, "path", json_object_get(path));
			json_object_object_add(e, "count", json_object_get(count));
			json_object_array_add(p, e);
		}
		json_object_object_add(evid, "fail_paths", p);
	}
	if (r->evidence & RL_EV_SYSCALLS)
		json_object_object_add(evid, "syscalls", copy_of(a->rec, "syscalls_by_name"));
	if (r->evidence & RL_EV_BASELINE)
		json_object_object_add(evid, "baseline", copy_of(a->rec, "baseline"));
	if (r->evidence & RL_EV_ANCESTRY)
		json_object_object_add(evid, "ancestry", copy_of(a->rec, "ancestors"));
	json_object_object_add(o, "evidence", evid);
	json_object_object_add(o, "rule_file", record__str(r->file ? r->file : ""));
	json_object_object_add(o, "rule_line", json_object_new_int(r->line));
	for (size_t i = 0; i < a->nouts; i++)
		if (a->outs[i])
			output__write(a->outs[i], o);
	json_object_put(o);
}

int alerts__eval(struct alerts *a, struct json_object *rec, enum rl_kind kind, uint64_t now_ns,
		 struct pl_output *const *outs, size_t nouts)
{
	if (!(rl_ruleset__kinds(a->rs) & kind) || rl_record_event__fill(&a->re, rec, kind) < 0)
		return 0;
	a->events++;
	a->now_ns = now_ns;
	a->rec = rec;
	a->outs = outs;
	a->nouts = nouts;
	a->matched = 0;
	rl_ruleset__eval(a->rs, &a->re.ev, on_match, a, &a->stats);
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
