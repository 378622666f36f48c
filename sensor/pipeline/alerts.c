// SPDX-License-Identifier: MIT
/*
 * alerts.c - from matched rules to typed alerts.
 *
 * An alert carries a unique id, the rendered output line, the exact values
 * of the fields the output names (output_fields: the structured truth,
 * where the text is for people), the process identity, and the evidence its
 * rule asked for. Repeats are deduped per (rule, binary) (dedupe.h): within
 * the rule's `throttle` window later matches are counted, not written, and
 * when the window closes an alert_summary record says how many there were
 * and which alert they repeat; the next alert also says it
 * (suppressed_before). Each alert is a typed struct pl_alert (alert.h),
 * named by the sensor's one id generator, written to every output, and each
 * output formats it in its own form (native JSON, OCSF, syslog, text).
 */
#include "pipeline/alerts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert.h"
#include "cleanup.h"
#include "clock.h"
#include "pipeline/dedupe.h"
#include "probes/hostctx.h"
#include "identity/usercache.h"
#include "log.h"
#include "syscalls.h"
#include "ruleset.h"
#include "hardening/rulesperm.h"
#include "textsafe.h"

#define FIELDS_MAX 32

_Static_assert(RL_LIST_MAX <= PL_ALERT_LIST_MAX, "a list field fits an alert field");
_Static_assert(ALERT_ID_LEN == PL_ALERT_ID_LEN, "one id length");

struct alerts {
	struct alerts_opts opts;
	struct rl_ruleset *rs;
	struct rl_eval_stats stats;
	struct dedupe *dd;
	struct pl_alert_ids own_ids;         /* when the opener gave none */
	struct pl_alert_ids *ids;
	uint64_t alerts, suppressed, summaries, reloads, reload_failures, events;
	uint64_t now_ns;                     /* of the current eval, tick or finish (REALTIME) */
	uint64_t clock_ns;                   /* ... on the window clock (opts.window_clock) */
	const struct pl_sample *sample;      /* of the current eval */
	struct pl_output *const *outs;
	size_t nouts;
	int matched;
	int matched_warning; /* of them, rules at Warning or above */
	/* metrics and status: counts per rule (index in rs), carried
	 * by name across reloads, and the last alerts written (a ring) */
	struct alerts_rule_count *per_rule;
	struct alerts_recent recent[ALERTS_RECENT_MAX];
	size_t nrecent, recent_next;
};

/* Counts per rule of a new ruleset: a rule of the same name keeps its own. */
static struct alerts_rule_count *carry_counts(const struct alerts *a, const struct rl_ruleset *rs)
{
	size_t n = rl_ruleset__count(rs), old = a->rs ? rl_ruleset__count(a->rs) : 0;
	struct alerts_rule_count *c = calloc(n ? n : 1, sizeof(*c));

	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct rl_rule *r = rl_ruleset__rule(rs, i);

		c[i].name = r->name;
		c[i].enabled = r->enabled;
		for (size_t j = 0; j < old && a->per_rule; j++)
			if (strcmp(a->per_rule[j].name, r->name) == 0) {
				c[i].evaluations = a->per_rule[j].evaluations;
				c[i].alerts = a->per_rule[j].alerts;
				c[i].throttled = a->per_rule[j].throttled;
				break;
			}
	}
	return c;
}

static struct alerts_rule_count *rule_count(struct alerts *a, const struct rl_rule *r)
{
	const struct rl_rule *first = rl_ruleset__rule(a->rs, 0);
	size_t i = first ? (size_t)(r - first) : 0;

	return a->per_rule && first && i < rl_ruleset__count(a->rs) ? &a->per_rule[i] : NULL;
}

/* Remember an alert written, for `plumbline status`: its fields escaped as in the record. */
static void remember(struct alerts *a, const char *id, const struct rl_rule *r, const struct pl_sample *ev)
{
	struct alerts_recent *x = &a->recent[a->recent_next];

	*x = (struct alerts_recent){ .time_ns = a->now_ns, .pid = ev->pid };
	snprintf(x->id, sizeof(x->id), "%s", id);
	snprintf(x->priority, sizeof(x->priority), "%s", rl_priority__name(r->priority));
	text_escape_buf(x->rule, sizeof(x->rule), r->name, strlen(r->name), 0);
	if (ev->exe)
		text_escape_buf(x->exe, sizeof(x->exe), ev->exe, strlen(ev->exe), 0);
	a->recent_next = (a->recent_next + 1) % ALERTS_RECENT_MAX;
	if (a->nrecent < ALERTS_RECENT_MAX)
		a->nrecent++;
}

static int load(const struct alerts_opts *o, struct rl_ruleset **ret)
{
	struct rl_diags d = { 0 };
	struct rl_ruleset *rs = NULL;
	char why[PATH_MAX + 256];
	int r = rules_perm__check(o->paths, o->npaths, why, sizeof(why));

	if (r < 0)
		return log_error_errno(r, "%s", why);
	r = rl_ruleset__load(o->paths, o->npaths, &rs, &d);

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
		if (rl_ruleset__switch(rs, what, en) == 0)
			log_warn("--%s-rule %s: no rule matches", en ? "enable" : "disable", what);
	}
	*ret = rs;
	return 0;
}

static void summary_written(const struct dedupe_summary *sum, void *ctx);

int alerts__open(const struct alerts_opts *o, struct alerts **ret)
{
	struct alerts *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return log_error_errno(ENOMEM, "Out of memory");
	a->opts = *o;
	if (dedupe__new(summary_written, a, &a->dd) < 0) {
		free(a);
		return log_error_errno(ENOMEM, "Out of memory");
	}
	r = load(o, &a->rs);
	if (r < 0) {
		dedupe__free(a->dd);
		free(a);
		return r;
	}
	a->per_rule = carry_counts(a, a->rs);
	a->ids = o->ids;
	if (!a->ids) {
		a->ids = &a->own_ids;
		if (!pl_alert_ids__init(a->ids, o->id_instance))
			log_warn("getrandom: %m; alert ids are derived from the clock and the pid");
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
	dedupe__free(a->dd);
	free(a->per_rule);
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
	{
		struct alerts_rule_count *c = carry_counts(a, rs);

		free(a->per_rule);
		a->per_rule = c; /* NULL (out of memory): no counts per rule, the rules still run */
	}
	rl_ruleset__free(a->rs);
	a->rs = rs;
	a->reloads++;
	log_info("SIGHUP: %zu rules loaded", rl_ruleset__count(rs));
	return 0;
}

const struct rl_ruleset *alerts__rules(const struct alerts *a)
{
	return a ? a->rs : NULL;
}

unsigned alerts__kinds(const struct alerts *a)
{
	return rl_ruleset__kinds(a->rs);
}

/* Write al to every output of the current eval, tick or finish. */
static void write_alert(struct alerts *a, const struct pl_alert *al)
{
	output__write_all(a->outs, a->nouts, &(struct pl_record){ .kind = PL_RECORD_ALERT, .alert = al });
}

/* A dedupe window closed holding matches back: say so, as its own record. */
static void summary_written(const struct dedupe_summary *sum, void *ctx)
{
	struct alerts *a = ctx;
	/* the window's times are on the window clock: given in REALTIME as of
	 * now, as every record's kernel times are (mono_to_real()) */
	uint64_t off = a->now_ns - a->clock_ns;
	struct pl_alert al;
	const char *who = sum->exe ? sum->exe : sum->binary_id ? sum->binary_id : "?";
	_cleanup_free_ char *name = text_escape_str(sum->rule), *whoe = text_escape_str(who);

	a->summaries++;
	pl_alert__init(&al, PL_ALERT_SUMMARY, a->ids, a->now_ns, sum->rule, rl_priority__name(sum->severity),
		       sum->severity);
	snprintf(al.output, sizeof(al.output), "%llu more alert%s of %s for %s held back (repeats of alert %s)",
		 (unsigned long long)sum->count, sum->count == 1 ? "" : "s", name ? name : "?", whoe ? whoe : "?",
		 sum->alert_id);
	al.exe = sum->exe;
	al.binary_id = sum->binary_id;
	hostctx__identity(&al.host);
	al.summary = (struct pl_alert_summary){
		.alert_id = sum->alert_id,
		.count = sum->count,
		.first_ns = sum->first_ns + off,
		.last_ns = sum->last_ns + off,
		.window_start_ns = sum->window_start_ns + off,
		.window_end_ns = sum->window_end_ns + off,
		.reason = dedupe_reason__name(sum->reason),
	};
	write_alert(a, &al);
}

/* The exact value of field f (param) of ev, into *ret (named already). */
static void field_value(const struct pl_sample *ev, enum rl_field f, int param, struct pl_alert_field *ret)
{
	const struct rl_field_info *fi = rl_field__info(f);
	double v;
	int n;

	ret->type = PL_VALUE_NULL;
	switch (fi->type) {
	case RL_T_NUM:
		if (!rl_field__num(ev, f, param, &v))
			return;
		/* integral values stay integers in JSON: pids, counts */
		if (v == (double)(int64_t)v && v > -9e15 && v < 9e15) {
			ret->type = PL_VALUE_INT;
			ret->i = (int64_t)v;
		} else {
			ret->type = PL_VALUE_DOUBLE;
			ret->d = v;
		}
		return;
	case RL_T_BOOL:
		if (rl_field__num(ev, f, param, &v)) {
			ret->type = PL_VALUE_BOOL;
			ret->b = v != 0;
		}
		return;
	case RL_T_STR:
		ret->s = rl_field__str(ev, f);
		ret->type = ret->s ? PL_VALUE_STR : PL_VALUE_NULL;
		return;
	case RL_T_STRLIST:
		n = rl_field__list(ev, f, ret->list);
		if (n >= 0) {
			ret->type = PL_VALUE_LIST;
			ret->nlist = (uint32_t)n;
		}
		return;
	}
}

/* The fields r's output names, with their values in ev (output_fields). */
static size_t output_fields(const struct rl_rule *r, const struct pl_sample *ev, struct pl_alert_field *ret,
			    size_t max)
{
	enum rl_field ids[FIELDS_MAX];
	int params[FIELDS_MAX];
	size_t n = rl_template__fields(r->output, ids, params, max < FIELDS_MAX ? max : FIELDS_MAX);

	for (size_t i = 0; i < n; i++) {
		const struct rl_field_info *fi = rl_field__info(ids[i]);
		const char *sc = fi->param ? syscall_name((unsigned)params[i]) : NULL;

		if (fi->param)
			snprintf(ret[i].name, sizeof(ret[i].name), "%s[%s]", fi->name, sc ? sc : "?");
		else
			snprintf(ret[i].name, sizeof(ret[i].name), "%s", fi->name);
		field_value(ev, ids[i], params[i], &ret[i]);
	}
	return n;
}

/* The evidence bits of the alert, from the rule's. */
static unsigned evidence_of(const struct rl_rule *r)
{
	static const struct {
		unsigned rl, pl;
	} map[] = {
		{ RL_EV_FAIL_PATHS, PL_EVIDENCE_FAIL_PATHS }, { RL_EV_SYSCALLS, PL_EVIDENCE_SYSCALLS },
		{ RL_EV_BASELINE, PL_EVIDENCE_BASELINE },     { RL_EV_ANCESTRY, PL_EVIDENCE_ANCESTRY },
		{ RL_EV_STACKS, PL_EVIDENCE_STACKS },	      { RL_EV_WAIT, PL_EVIDENCE_WAIT },
	};
	unsigned e = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (r->evidence & map[i].rl)
			e |= map[i].pl;
	return e;
}

static void on_match(const struct rl_rule *r, const struct pl_sample *ev, void *ctx)
{
	struct alerts *a = ctx;
	struct dedupe_key key = { .rule = r->name, .binary_id = ev->binary_id, .exe = ev->exe,
				  .script = ev->script, .severity = r->priority };

	/* an object is throttled for itself, whatever maps it: one preloaded
	 * by /etc/ld.so.preload is in every process, one alert says it */
	if (ev->moment == PL_AT_MAP && ev->map) {
		key.binary_id = NULL;
		key.exe = ev->map->path;
		key.script = NULL;
	}
	struct pl_alert_field fields[FIELDS_MAX];
	struct pl_alert al;
	char id[ALERT_ID_LEN + 1], user[USERCACHE_NAME_MAX], text[PL_ALERT_OUTPUT_MAX];
	uint64_t suppressed;

	a->matched++;
	if (r->priority <= RL_PRIO_WARNING)
		a->matched_warning++;
	pl_alert_ids__peek(a->ids, id);
	if (!dedupe__match(a->dd, &key, (uint64_t)r->throttle_s * 1000000000ull, a->clock_ns, id, &suppressed)) {
		a->suppressed++;
		if (rule_count(a, r))
			rule_count(a, r)->throttled++;
		return;
	}
	a->alerts++;
	if (rule_count(a, r))
		rule_count(a, r)->alerts++;
	remember(a, id, r, ev);
	pl_alert__init(&al, PL_ALERT_RULE, a->ids, a->now_ns, r->name, rl_priority__name(r->priority), r->priority);
	al.desc = r->desc;
	al.when = pl_moment__name(ev->moment);
	rl_template__render(r->output, ev, al.output, sizeof(al.output)); /* escaped, one line */
	rl_template__render_text(r->output, ev, text, sizeof(text));
	al.output_text = text;
	al.tags = (const char *const *)r->tags;
	al.ntags = r->ntags;
	al.pid = ev->pid;
	al.exe = ev->exe;
	al.binary_id = ev->binary_id;
	al.has_user = true;
	al.uid = ev->uid;
	al.user = usercache__name(ev->uid, mono_ns(), user, sizeof(user)) ? user : NULL;
	al.suppressed_before = suppressed;
	/* matched only because the regex budget left a regex unrun (fail closed) */
	al.regex_skipped = a->stats.match_undecided;
	al.fields = fields;
	al.nfields = output_fields(r, ev, fields, FIELDS_MAX);
	al.evidence = evidence_of(r);
	al.sample = ev;
	hostctx__alert(mono_ns(), ev->cgroup, &al.host);
	al.rule_file = r->file ? r->file : "";
	al.rule_line = r->line;
	write_alert(a, &al);
}

/* The times of the current eval, tick or finish. */
static void set_now(struct alerts *a, uint64_t now_ns, struct pl_output *const *outs, size_t nouts)
{
	a->now_ns = now_ns;
	a->clock_ns = a->opts.window_clock ? a->opts.window_clock(a->opts.window_clock_ctx) : now_ns;
	a->outs = outs;
	a->nouts = nouts;
}

int alerts__eval(struct alerts *a, const struct pl_sample *s, uint64_t now_ns, struct pl_output *const *outs,
		 size_t nouts)
{
	if (!(rl_ruleset__kinds(a->rs) & (unsigned)s->moment))
		return 0;
	a->events++;
	set_now(a, now_ns, outs, nouts);
	a->sample = s;
	a->matched = 0;
	a->matched_warning = 0;
	dedupe__expire(a->dd, a->clock_ns);
	/* every enabled rule that runs at this moment is evaluated (rl_ruleset__eval) */
	for (size_t i = 0; a->per_rule && i < rl_ruleset__count(a->rs); i++) {
		const struct rl_rule *r = rl_ruleset__rule(a->rs, i);

		if (r->enabled && (r->kinds & (unsigned)s->moment))
			a->per_rule[i].evaluations++;
	}
	rl_ruleset__eval(a->rs, s, on_match, a, &a->stats);
	return a->matched;
}

int alerts__matched_warning(const struct alerts *a)
{
	return a->matched_warning;
}

void alerts__tick(struct alerts *a, uint64_t now_ns, struct pl_output *const *outs, size_t nouts)
{
	set_now(a, now_ns, outs, nouts);
	dedupe__expire(a->dd, a->clock_ns);
}

void alerts__finish(struct alerts *a, uint64_t now_ns, struct pl_output *const *outs, size_t nouts)
{
	set_now(a, now_ns, outs, nouts);
	dedupe__close_all(a->dd, a->clock_ns);
}

void alerts__ruleset(const struct alerts *a, size_t *ret_rules, size_t *ret_files, unsigned char ret_sha256[32])
{
	*ret_rules = rl_ruleset__count(a->rs);
	rl_ruleset__digest(a->rs, ret_sha256, ret_files);
}

int alerts__reconfigure(struct alerts *a, const struct alerts_opts *o)
{
	struct alerts_opts old = a->opts;
	int r;

	a->stats.budget.ns_per_s = o->regex_budget_ns;
	a->opts.paths = o->paths;
	a->opts.npaths = o->npaths;
	a->opts.enable = o->enable;
	a->opts.nenable = o->nenable;
	a->opts.disable = o->disable;
	a->opts.ndisable = o->ndisable;
	r = alerts__reload(a);
	if (r < 0)
		a->opts = old;
	return r;
}

/* ---- metrics and `plumbline status` ---- */

void alerts__counts(const struct alerts *a, struct pl_stats_rules *ret)
{
	size_t n = rl_ruleset__count(a->rs), enabled = 0;

	for (size_t i = 0; i < n; i++)
		enabled += rl_ruleset__rule(a->rs, i)->enabled;
	*ret = (struct pl_stats_rules){
		.rules = n,
		.enabled = enabled,
		.events = a->events,
		.alerts = a->alerts,
		.throttled = a->suppressed,
		.summaries = a->summaries,
		.summaries_pending = dedupe__pending(a->dd),
		.reloads = a->reloads,
		.reload_failures = a->reload_failures,
		.regex_limit_hits = a->stats.regex_limit_hits,
		.regex_errors = a->stats.regex_errors,
		.regex_runs = a->stats.regex_runs,
		.regex_cache_hits = a->stats.regex_cache_hits,
		.regex_skipped = a->stats.regex_skipped,
		.regex_skipped_matches = a->stats.undecided,
	};
}

const struct alerts_rule_count *alerts__rule_counts(const struct alerts *a, size_t *ret_n)
{
	*ret_n = a->per_rule ? rl_ruleset__count(a->rs) : 0;
	return a->per_rule;
}

size_t alerts__recent(const struct alerts *a, struct alerts_recent *ret, size_t max)
{
	size_t n = a->nrecent < max ? a->nrecent : max;

	for (size_t i = 0; i < n; i++)
		ret[i] = a->recent[(a->recent_next + ALERTS_RECENT_MAX - 1 - i) % ALERTS_RECENT_MAX];
	return n;
}
