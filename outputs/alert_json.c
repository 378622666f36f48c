// SPDX-License-Identifier: MIT
/*
 * alert_json.c - the native JSON form of an alert (alert_json.h).
 *
 * Strings of a process or a rule file are escaped once here
 * (sample_json__str(): text_escape()), the rendered `output` is written as
 * the template made it. Integral values are JSON integers; a field the
 * sample does not know is null.
 */
#include "alert_json.h"

#include <stdlib.h>
#include <string.h>

#include "sample_json.h"

typedef struct json_object *(*build_fn)(const struct pl_alert *a);

struct key {
	const char *name;
	build_fn build;
};

/* A builder whose value is one expression of the alert a. */
#define BUILDER(fn, expr)                                                                                              \
	static struct json_object *fn(const struct pl_alert *a)                                                        \
	{                                                                                                              \
		return expr;                                                                                           \
	}

BUILDER(j_type, json_object_new_string(pl_alert__type(a)))
BUILDER(j_id, json_object_new_string(a->id))
BUILDER(j_time, json_object_new_uint64(a->time_ns))
/* rule-file text is escaped like process text: alert lines and syslog print it */
BUILDER(j_rule, sample_json__str(a->rule))
BUILDER(j_priority, json_object_new_string(a->priority))
BUILDER(j_severity, json_object_new_int(a->severity))
BUILDER(j_when, json_object_new_string(a->when))
BUILDER(j_output, json_object_new_string(a->output))
static struct json_object *j_tags(const struct pl_alert *a)
{
	struct json_object *t = json_object_new_array();

	for (size_t i = 0; t && i < a->ntags; i++)
		json_object_array_add(t, sample_json__str(a->tags[i]));
	return t;
}

BUILDER(j_pid, json_object_new_uint64(a->pid))
BUILDER(j_exe, sample_json__str(a->exe))
BUILDER(j_binary_id, sample_json__str(a->binary_id))
BUILDER(j_suppressed, json_object_new_uint64(a->suppressed_before))
BUILDER(j_regex_skipped, json_object_new_boolean(a->regex_skipped))
static struct json_object *field_value(const struct pl_alert_field *f)
{
	struct json_object *arr;

	switch (f->type) {
	case PL_VALUE_INT:
		return json_object_new_int64(f->i);
	case PL_VALUE_DOUBLE:
		return json_object_new_double(f->d);
	case PL_VALUE_BOOL:
		return json_object_new_boolean(f->b);
	case PL_VALUE_STR:
		return sample_json__str(f->s);
	case PL_VALUE_LIST:
		arr = json_object_new_array();
		for (uint32_t i = 0; arr && i < f->nlist && i < PL_ALERT_LIST_MAX; i++)
			json_object_array_add(arr, sample_json__str(f->list[i]));
		return arr;
	case PL_VALUE_NULL:
		break;
	}
	return NULL;
}

static struct json_object *j_fields(const struct pl_alert *a)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < a->nfields; i++)
		json_object_object_add(o, a->fields[i].name, field_value(&a->fields[i]));
	return o;
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

static void sample_evidence(struct json_object *evid, const struct pl_alert *a)
{
	const struct pl_sample *ev = a->sample;

	if (!ev)
		return;
	/* the event of an event moment is always the evidence: what was touched */
	if (ev->file)
		json_object_object_add(evid, "file", sample_json__file(ev));
	if (a->evidence & PL_EVIDENCE_FAIL_PATHS)
		json_object_object_add(evid, "fail_paths", fail_evidence(ev));
	if (a->evidence & PL_EVIDENCE_SYSCALLS)
		json_object_object_add(evid, "syscalls",
				       ev->moment == PL_AT_EXEC
					   ? NULL
					   : sample_json__syscalls(ev->moment == PL_AT_WINDOW ? &ev->win : &ev->life));
	if (a->evidence & PL_EVIDENCE_BASELINE)
		json_object_object_add(evid, "baseline", sample_json__baseline(ev));
	if (a->evidence & PL_EVIDENCE_ANCESTRY)
		json_object_object_add(evid, "ancestry", sample_json__ancestors(ev));
	if ((a->evidence & PL_EVIDENCE_STACKS) && ev->oncpu)
		json_object_object_add(evid, "stacks", sample_json__stacks(ev));
	/* a map alert's object, whatever the rule asked: it is what the alert is about */
	if (ev->moment == PL_AT_MAP && ev->map)
		json_object_object_add(evid, "object", sample_json__map(ev));
	if ((a->evidence & PL_EVIDENCE_WAIT) && ev->wait)
		json_object_object_add(evid, "wait", sample_json__wait(ev));
}

/* The loss alert's: the counts by cause since the last one, and in all. */
static void loss_evidence(struct json_object *evid, const struct pl_alert_loss *l)
{
	struct json_object *lost = json_object_new_object(), *tot = json_object_new_object();

	for (size_t i = 0; i < l->ncauses; i++) {
		if (l->causes[i].total && tot)
			json_object_object_add(tot, l->causes[i].name, json_object_new_uint64(l->causes[i].total));
		if (l->causes[i].lost && lost)
			json_object_object_add(lost, l->causes[i].name, json_object_new_uint64(l->causes[i].lost));
	}
	json_object_object_add(evid, "losses", lost);
	json_object_object_add(evid, "losses_total", tot);
	json_object_object_add(evid, "since_ns", json_object_new_uint64(l->since_ns));
	json_object_object_add(evid, "ticks_folded", json_object_new_uint64(l->ticks_folded));
}

static struct json_object *j_evidence(const struct pl_alert *a)
{
	struct json_object *evid = json_object_new_object();

	if (!evid)
		return NULL;
	if (a->kind == PL_ALERT_LOSS)
		loss_evidence(evid, &a->loss);
	else
		sample_evidence(evid, a);
	return evid;
}

static void add_psi(struct json_object *o, const char *name, bool ok, double v)
{
	if (ok)
		json_object_object_add(o, name, json_object_new_double(v));
}

static struct json_object *j_host(const struct pl_alert *a)
{
	const struct pl_alert_host *h = &a->host;
	struct json_object *o = json_object_new_object(), *psi, *cg;

	if (!o)
		return NULL;
	json_object_object_add(o, "name", sample_json__str(h->name));
	json_object_object_add(o, "id", h->id ? json_object_new_string(h->id) : NULL);
	json_object_object_add(o, "boot_id", h->boot_id ? json_object_new_string(h->boot_id) : NULL);
	if (h->psi && (psi = json_object_new_object())) {
		add_psi(psi, "cpu_some_avg10", h->cpu_ok, h->cpu);
		add_psi(psi, "memory_some_avg10", h->memory_ok, h->memory);
		add_psi(psi, "io_some_avg10", h->io_ok, h->io);
		json_object_object_add(o, "psi", psi);
	}
	if (h->cgroup_cpu && (cg = json_object_new_object())) {
		json_object_object_add(cg, "nr_periods", json_object_new_uint64(h->nr_periods));
		json_object_object_add(cg, "nr_throttled", json_object_new_uint64(h->nr_throttled));
		json_object_object_add(cg, "throttled_usec", json_object_new_uint64(h->throttled_usec));
		json_object_object_add(o, "cgroup_cpu", cg);
	}
	return o;
}

static struct json_object *j_rule_desc(const struct pl_alert *a)
{
	size_t n = pl_alert__desc_len(a);
	char *d;
	struct json_object *v;

	if (!a->desc)
		return NULL;
	d = strndup(a->desc, n);
	v = d ? sample_json__str(d) : NULL;
	free(d);
	return v;
}

static struct json_object *j_user(const struct pl_alert *a)
{
	struct json_object *o;

	if (!a->has_user || !(o = json_object_new_object()))
		return NULL;
	json_object_object_add(o, "uid", json_object_new_uint64(a->uid));
	json_object_object_add(o, "name", sample_json__str(a->user));
	return o;
}

BUILDER(j_rule_file, sample_json__str(a->rule_file ? a->rule_file : ""))
BUILDER(j_rule_line, json_object_new_int(a->rule_line))
BUILDER(j_alert_id, a->summary.alert_id ? json_object_new_string(a->summary.alert_id) : NULL)
BUILDER(j_count, json_object_new_uint64(a->summary.count))
BUILDER(j_first, json_object_new_uint64(a->summary.first_ns))
BUILDER(j_last, json_object_new_uint64(a->summary.last_ns))
BUILDER(j_wstart, json_object_new_uint64(a->summary.window_start_ns))
BUILDER(j_wend, json_object_new_uint64(a->summary.window_end_ns))

BUILDER(j_reason, json_object_new_string(a->summary.reason ? a->summary.reason : ""))
/* The records' keys in order (docs/records.md; the schema holds the sensor to it). */
static const struct key alert_keys[] = {
    {"type", j_type},
    {"id", j_id},
    {"time_ns", j_time},
    {"rule", j_rule},
    {"priority", j_priority},
    {"severity", j_severity},
    {"when", j_when},
    {"output", j_output},
    {"tags", j_tags},
    {"pid", j_pid},
    {"exe", j_exe},
    {"binary_id", j_binary_id},
    {"suppressed_before", j_suppressed},
    {"regex_skipped", j_regex_skipped},
    {"output_fields", j_fields},
    {"evidence", j_evidence},
    {"host", j_host},
    {"rule_file", j_rule_file},
    {"rule_line", j_rule_line},
    {"rule_desc", j_rule_desc},
    {"user", j_user},
};

static const struct key summary_keys[] = {
    {"type", j_type},
    {"id", j_id},
    {"time_ns", j_time},
    {"rule", j_rule},
    {"priority", j_priority},
    {"severity", j_severity},
    {"output", j_output},
    {"alert_id", j_alert_id},
    {"exe", j_exe},
    {"binary_id", j_binary_id},
    {"count", j_count},
    {"first_ns", j_first},
    {"last_ns", j_last},
    {"window_start_ns", j_wstart},
    {"window_end_ns", j_wend},
    {"reason", j_reason},
    {"host", j_host},
};

static const struct key *keys_of(const struct pl_alert *a, size_t *ret_n)
{
	if (a->kind == PL_ALERT_SUMMARY) {
		*ret_n = sizeof(summary_keys) / sizeof(summary_keys[0]);
		return summary_keys;
	}
	*ret_n = sizeof(alert_keys) / sizeof(alert_keys[0]);
	return alert_keys;
}

struct json_object *alert_json__record(const struct pl_alert *a)
{
	struct json_object *o = json_object_new_object();
	size_t n;
	const struct key *k = keys_of(a, &n);

	for (size_t i = 0; o && i < n; i++)
		json_object_object_add(o, k[i].name, k[i].build(a));
	return o;
}

struct json_object *alert_json__value(const struct pl_alert *a, const char *key)
{
	size_t n;
	const struct key *k = keys_of(a, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(k[i].name, key) == 0)
			return k[i].build(a);
	return NULL;
}
