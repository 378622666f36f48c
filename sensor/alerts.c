// SPDX-License-Identifier: MIT
/*
 * alerts.c - from matched rules to alert records.
 *
 * An alert carries a unique id, the rendered output line, the exact values
 * of the fields the output names (output_fields: the structured truth,
 * where the text is for people), the process identity, and the evidence its
 * rule asked for. Repeats are deduped per (rule, binary) (dedupe.h): within
 * the rule's `throttle` window later matches are counted, not written, and
 * when the window closes an alert_summary record says how many there were
 * and which alert they repeat; the next alert also says it
 * (suppressed_before). Each output gets alerts in its form: the native
 * record, or an OCSF Detection Finding (alert_ocsf.h).
 *
 * Ids are "<instance>-<sequence>", 64 bits each in hex: the instance is
 * drawn from getrandom(2) when the rules are opened, the sequence counts
 * alerts and summaries from 1. Unique across restarts without any state on
 * disk (two instances share a prefix with probability 2^-64 per pair).
 */
#include "alerts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "alert_ocsf.h"
#include "clock.h"
#include "dedupe.h"
#include "hostctx.h"
#include "log.h"
#include "syscalls.h"
#include "ruleset.h"
#include "rulesperm.h"
#include "sample_json.h"
#include "textsafe.h"

#define OUTPUT_MAX 4096

struct alerts {
	struct alerts_opts opts;
	struct rl_ruleset *rs;
	struct rl_eval_stats stats;
	struct dedupe *dd;
	uint64_t instance, seq;              /* of the ids */
	uint64_t alerts, suppressed, summaries, reloads, reload_failures, events;
	uint64_t now_ns;                     /* of the current eval, tick or finish */
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
		size_t n = strncmp(what, "tag:", 4) == 0 ? rl_ruleset__enable_tag(rs, what + 4, en)
							  : rl_ruleset__enable_name(rs, what, en);

		if (n == 0)
			log_warn("--%s-rule %s: no rule matches", en ? "enable" : "disable", what);
	}
	*ret = rs;
	return 0;
}

/* The instance half of the ids: random, so that no two runs share it. */
static uint64_t draw_instance(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v) || !v) {
		/* no entropy yet (early boot): the clock and the pid still differ across restarts */
		log_warn("getrandom: %m; alert ids are derived from the clock and the pid");
		v = real_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	}
	return v;
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
	a->instance = o->id_instance ? o->id_instance : draw_instance();
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

unsigned alerts__kinds(const struct alerts *a)
{
	return rl_ruleset__kinds(a->rs);
}

/* The id the next alert or summary gets. */
static void next_id(const struct alerts *a, char id[ALERT_ID_LEN + 1])
{
	snprintf(id, ALERT_ID_LEN + 1, "%016llx-%016llx", (unsigned long long)a->instance,
		 (unsigned long long)(a->seq + 1));
}

/* Write rec to every output, in the output's form (to_ocsf makes it, once). */
static void write_all(struct alerts *a, struct json_object *rec, struct json_object *(*to_ocsf)(void *), void *arg)
{
	struct json_object *ocsf = NULL;
	bool tried = false;

	for (size_t i = 0; i < a->nouts; i++) {
		struct pl_output *out = a->outs[i];

		if (!out)
			continue;
		if (out->alert_form != PL_ALERT_OCSF) {
			output__write(out, rec);
			continue;
		}
		if (!tried) {
			ocsf = to_ocsf(arg);
			tried = true;
		}
		if (ocsf)
			output__write(out, ocsf);
		else
			out->dropped++; /* out of memory: counted as the output's loss */
	}
	json_object_put(ocsf);
}

static struct json_object *summary_ocsf(void *rec)
{
	return alert_ocsf__summary(rec);
}

/* A dedupe window closed holding matches back: say so, as its own record. */
static void summary_written(const struct dedupe_summary *sum, void *ctx)
{
	struct alerts *a = ctx;
	char id[ALERT_ID_LEN + 1], out[OUTPUT_MAX];
	const char *who = sum->exe ? sum->exe : sum->binary_id ? sum->binary_id : "?";
	struct json_object *o = json_object_new_object(), *name, *whoj;

	if (!o)
		return;
	next_id(a, id);
	a->seq++;
	a->summaries++;
	name = sample_json__str(sum->rule);
	whoj = sample_json__str(who);
	snprintf(out, sizeof(out), "%llu more alert%s of %s for %s held back (repeats of alert %s)",
		 (unsigned long long)sum->count, sum->count == 1 ? "" : "s", name ? json_object_get_string(name) : "?",
		 whoj ? json_object_get_string(whoj) : "?", sum->alert_id);
	json_object_put(whoj);
	json_object_object_add(o, "type", json_object_new_string("alert_summary"));
	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "time_ns", json_object_new_uint64(a->now_ns));
	json_object_object_add(o, "rule", name);
	json_object_object_add(o, "priority", json_object_new_string(rl_priority__name(sum->severity)));
	json_object_object_add(o, "severity", json_object_new_int(sum->severity));
	json_object_object_add(o, "output", json_object_new_string(out));
	json_object_object_add(o, "alert_id", json_object_new_string(sum->alert_id));
	json_object_object_add(o, "exe", sample_json__str(sum->exe));
	json_object_object_add(o, "binary_id", sample_json__str(sum->binary_id));
	json_object_object_add(o, "count", json_object_new_uint64(sum->count));
	json_object_object_add(o, "first_ns", json_object_new_uint64(sum->first_ns));
	json_object_object_add(o, "last_ns", json_object_new_uint64(sum->last_ns));
	json_object_object_add(o, "window_start_ns", json_object_new_uint64(sum->window_start_ns));
	json_object_object_add(o, "window_end_ns", json_object_new_uint64(sum->window_end_ns));
	json_object_object_add(o, "reason", json_object_new_string(dedupe_reason__name(sum->reason)));
	write_all(a, o, summary_ocsf, o);
	json_object_put(o);
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

struct ocsf_arg {
	struct json_object *rec;
	const struct pl_sample *s;
	const struct rl_rule *r;
};

static struct json_object *finding_ocsf(void *p)
{
	struct ocsf_arg *x = p;

	return alert_ocsf__finding(x->rec, x->s, x->r->desc);
}

/* ---- PSI and the cgroup's CPU throttling ---- */

static void add_psi(struct json_object *o, const char *name, bool ok, double v)
{
	if (ok)
		json_object_object_add(o, name, json_object_new_double(v));
}

static struct json_object *host_context(const struct pl_sample *ev)
{
	struct json_object *h = json_object_new_object(), *psi, *cg;
	struct hostctx_psi p;
	struct hostctx_cgcpu c;

	if (!h)
		return NULL;
	hostctx__psi(mono_ns(), &p);
	if (p.present && (psi = json_object_new_object())) {
		add_psi(psi, "cpu_some_avg10", p.cpu_ok, p.cpu);
		add_psi(psi, "memory_some_avg10", p.memory_ok, p.memory);
		add_psi(psi, "io_some_avg10", p.io_ok, p.io);
		json_object_object_add(h, "psi", psi);
	}
	hostctx__cgroup_cpu(ev->cgroup, &c);
	if (c.present && (cg = json_object_new_object())) {
		json_object_object_add(cg, "nr_periods", json_object_new_uint64(c.nr_periods));
		json_object_object_add(cg, "nr_throttled", json_object_new_uint64(c.nr_throttled));
		json_object_object_add(cg, "throttled_usec", json_object_new_uint64(c.throttled_usec));
		json_object_object_add(h, "cgroup_cpu", cg);
	}
	return h;
}

static void on_match(const struct rl_rule *r, const struct pl_sample *ev, void *ctx)
{
	struct alerts *a = ctx;
	struct json_object *o, *fields, *tags, *evid;
	struct dedupe_key key = { .rule = r->name, .binary_id = ev->binary_id, .exe = ev->exe, .severity = r->priority };
	enum rl_field ids[32];
	int params[32];
	char out[OUTPUT_MAX], id[ALERT_ID_LEN + 1];
	uint64_t suppressed;
	size_t n;

	a->matched++;
	if (r->priority <= RL_PRIO_WARNING)
		a->matched_warning++;
	next_id(a, id);
	if (!dedupe__match(a->dd, &key, (uint64_t)r->throttle_s * 1000000000ull, a->now_ns, id, &suppressed)) {
		a->suppressed++;
		if (rule_count(a, r))
			rule_count(a, r)->throttled++;
		return;
	}
	a->seq++;
	a->alerts++;
	if (rule_count(a, r))
		rule_count(a, r)->alerts++;
	remember(a, id, r, ev);
	rl_template__render(r->output, ev, out, sizeof(out)); /* escaped, one line */
	o = json_object_new_object();
	json_object_object_add(o, "type", json_object_new_string("alert"));
	json_object_object_add(o, "id", json_object_new_string(id));
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
	if ((r->evidence & RL_EV_WAIT) && ev->wait)
		json_object_object_add(evid, "wait", sample_json__wait(ev));
	json_object_object_add(o, "evidence", evid);
	json_object_object_add(o, "host", host_context(ev));
	json_object_object_add(o, "rule_file", sample_json__str(r->file ? r->file : ""));
	json_object_object_add(o, "rule_line", json_object_new_int(r->line));
	write_all(a, o, finding_ocsf, &(struct ocsf_arg){ .rec = o, .s = ev, .r = r });
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
	a->matched_warning = 0;
	dedupe__expire(a->dd, now_ns);
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
	a->now_ns = now_ns;
	a->outs = outs;
	a->nouts = nouts;
	dedupe__expire(a->dd, now_ns);
}

void alerts__finish(struct alerts *a, uint64_t now_ns, struct pl_output *const *outs, size_t nouts)
{
	a->now_ns = now_ns;
	a->outs = outs;
	a->nouts = nouts;
	dedupe__close_all(a->dd, now_ns);
}

void alerts__stats(const struct alerts *a, struct json_object *o)
{
	struct json_object *r = json_object_new_object();

	json_object_object_add(r, "rules", json_object_new_uint64(rl_ruleset__count(a->rs)));
	json_object_object_add(r, "events", json_object_new_uint64(a->events));
	json_object_object_add(r, "alerts", json_object_new_uint64(a->alerts));
	json_object_object_add(r, "throttled", json_object_new_uint64(a->suppressed));
	json_object_object_add(r, "summaries", json_object_new_uint64(a->summaries));
	json_object_object_add(r, "summaries_pending", json_object_new_uint64(dedupe__pending(a->dd)));
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

void alerts__counts(const struct alerts *a, struct alerts_counts *ret)
{
	size_t n = rl_ruleset__count(a->rs), enabled = 0;

	for (size_t i = 0; i < n; i++)
		enabled += rl_ruleset__rule(a->rs, i)->enabled;
	*ret = (struct alerts_counts){
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
