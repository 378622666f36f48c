// SPDX-License-Identifier: MIT
/*
 * alert_ocsf.c - the OCSF Detection Finding form of alerts (see alert_ocsf.h).
 *
 * Derived from OCSF 1.6.0 (events/findings/detection_finding.json and the
 * objects it uses); tests/schema/ocsf-detection_finding-1.6.0.schema.json is
 * the JSON Schema the tests hold every finding to. OCSF times are
 * milliseconds; ours are nanoseconds, kept exact in `unmapped`. Strings
 * from monitored processes are escaped as in every record (records.md).
 */
#include "alert_ocsf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert_json.h"
#include "sample_json.h"

#define CLASS_UID 2004
#define CATEGORY_UID 2

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	if (v)
		json_object_object_add(o, key, v);
}

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_str(struct json_object *o, const char *key, const char *s)
{
	if (s)
		json_object_object_add(o, key, json_object_new_string(s));
}

/* The native record's value of key, for `unmapped` (the same builder as the record's). */
static void keep(struct json_object *o, const struct pl_alert *a, const char *key)
{
	json_object_object_add(o, key, alert_json__value(a, key));
}

static int64_t ms(uint64_t ns)
{
	return (int64_t)(ns / 1000000ull);
}

int alert_ocsf__severity_id(int sev)
{
	/* syslog 0 Emergency .. 7 Debug to OCSF 1 Informational .. 6 Fatal */
	static const int map[8] = { 6, 5, 5, 4, 3, 2, 1, 1 };

	return sev >= 0 && sev < 8 ? map[sev] : 0;
}

static const char *severity_name(int id)
{
	static const char *const names[] = { "Unknown", "Informational", "Low", "Medium", "High", "Critical", "Fatal" };

	return id >= 0 && id <= 6 ? names[id] : "Other";
}

/* The host the sensor runs on (OCSF device: type_id 1, "Server"). NULL when
 * neither its name nor its id is known. */
static struct json_object *device(const struct pl_alert_host *h)
{
	struct json_object *d;

	if (!h->name && !h->id)
		return NULL;
	d = json_object_new_object();
	add(d, "hostname", sample_json__str(h->name));
	add_str(d, "uid", h->id);
	add_str(d, "boot_uid", h->boot_id);
	add_int(d, "type_id", 1);
	add_str(d, "type", "Server");
	return d;
}

/* What every finding has: classification, time, metadata, the device. */
static struct json_object *base(int activity, const struct pl_alert *a)
{
	static const char *const activities[] = { "Unknown", "Create", "Update", "Close" };
	struct json_object *o = json_object_new_object(), *md, *prod;
	int sev = alert_ocsf__severity_id(a->severity);
	char type_name[64];

	if (!o)
		return NULL;
	snprintf(type_name, sizeof(type_name), "Detection Finding: %s", activities[activity]);
	add_int(o, "activity_id", activity);
	add_str(o, "activity_name", activities[activity]);
	add_int(o, "category_uid", CATEGORY_UID);
	add_str(o, "category_name", "Findings");
	add_int(o, "class_uid", CLASS_UID);
	add_str(o, "class_name", "Detection Finding");
	add_int(o, "type_uid", CLASS_UID * 100 + activity);
	add_str(o, "type_name", type_name);
	add_int(o, "severity_id", sev);
	add_str(o, "severity", severity_name(sev));
	add_int(o, "time", ms(a->time_ns));
	add_str(o, "message", a->output);
	add_int(o, "status_id", 1);
	add_str(o, "status", "New");
	md = json_object_new_object();
	prod = json_object_new_object();
	add_str(prod, "name", "plumbline");
	add_str(prod, "vendor_name", "plumbline");
	add_str(prod, "version", PL_VERSION);
	add(md, "product", prod);
	add_str(md, "version", ALERT_OCSF_VERSION);
	add_str(md, "uid", a->id);
	add_str(md, "log_name", "alerts");
	add(o, "metadata", md);
	add(o, "device", device(&a->host));
	return o;
}

static struct json_object *exe_file(const char *raw_exe)
{
	struct json_object *f;
	const char *slash;

	if (!raw_exe || !raw_exe[0])
		return NULL;
	slash = strrchr(raw_exe, '/');
	f = json_object_new_object();
	add(f, "name", sample_json__str(slash && slash[1] ? slash + 1 : raw_exe));
	add(f, "path", sample_json__str(raw_exe));
	add_int(f, "type_id", 1);
	add_str(f, "type", "Regular File");
	return f;
}

/* The process of the sample, with its parent and lineage. */
static struct json_object *user(uint32_t uid, const char *name)
{
	struct json_object *u = json_object_new_object();
	char num[16];

	snprintf(num, sizeof(num), "%u", uid);
	add_str(u, "uid", num);
	add(u, "name", sample_json__str(name));
	return u;
}

static struct json_object *process(const struct pl_sample *s, const char *user_name)
{
	struct json_object *p = json_object_new_object(), *pp, *lin;
	char uid[64];

	add_int(p, "pid", s->pid);
	add(p, "name", sample_json__str(s->comm));
	add(p, "cmd_line", sample_json__str(s->cmdline));
	add(p, "file", exe_file(s->exe));
	if (s->start_ns) {
		add_int(p, "created_time", ms(s->start_ns));
		/* unique on the host while the boot lasts: what OCSF's uid asks for */
		snprintf(uid, sizeof(uid), "%u@%llu", s->pid, (unsigned long long)s->start_ns);
		add_str(p, "uid", uid);
	}
	add(p, "user", user(s->uid, user_name));
	if (s->ppid || s->parent_exe) {
		pp = json_object_new_object();
		add_int(pp, "pid", s->ppid);
		add(pp, "file", exe_file(s->parent_exe));
		add(p, "parent_process", pp);
	}
	lin = json_object_new_array();
	for (uint32_t i = 0; i < s->nancestors && i < PL_SAMPLE_ANCESTORS; i++)
		if (s->ancestors[i])
			json_object_array_add(lin, sample_json__str(s->ancestors[i]));
	add(p, "lineage", lin);
	return p;
}

static struct json_object *observation(const char *value, uint64_t count)
{
	struct json_object *o = json_object_new_object();

	add_str(o, "value", value);
	if (count)
		add_int(o, "count", (int64_t)count);
	return o;
}

static struct json_object *observed(const char *param, const char *type, struct json_object *observations,
				    const char *pattern)
{
	struct json_object *o = json_object_new_object();

	add_str(o, "observation_parameter", param);
	add_str(o, "observation_type", type);
	add(o, "observations", observations);
	add_str(o, "observed_pattern", pattern);
	return o;
}

static struct json_object *one(struct json_object *v)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, v);
	return a;
}

/* Never-seen members (failed paths, syscalls): anomalies without a number. */
static void add_new(struct json_object *anomalies, const char *param, const char *const *v, uint32_t n)
{
	struct json_object *obs;

	if (!n)
		return;
	obs = json_object_new_array();
	for (uint32_t i = 0; i < n && i < PL_SAMPLE_NEW_MAX; i++) {
		struct json_object *e = json_object_new_object();

		add(e, "value", sample_json__str(v[i]));
		json_object_array_add(obs, e);
	}
	json_object_array_add(anomalies, observed(param, "never seen by the baseline", obs, NULL));
}

/*
 * The baseline comparison: each scored feature as an anomaly (the value
 * observed, its score) beside its baseline (p50, p99 of the learned
 * distribution), plus never-seen members. NULL when the sample has no
 * verdict with something in it.
 */
static struct json_object *anomaly_analyses(const struct pl_sample *s)
{
	const struct pl_verdict *v = &s->bl;
	const char *type = s->moment == PL_AT_WINDOW ? "per second, over a 1-second window" : "per process lifetime";
	struct json_object *an, *anomalies, *baselines, *targets, *t;
	char a[64], b[64], pat[160];

	if (!v->key)
		return NULL;
	anomalies = json_object_new_array();
	baselines = json_object_new_array();
	for (int d = 0; v->scored && d < PL_DIST_MAX; d++) {
		const struct pl_score *x = &v->f[d];
		struct json_object *obs;

		if (!x->valid)
			continue;
		snprintf(a, sizeof(a), "%.17g", x->value);
		snprintf(pat, sizeof(pat), "score %.3g, %.3gx the baseline's p50, %.3gx its p99",
			 isfinite(x->score) ? x->score : 0.0, x->ratio_p50, x->ratio_p99);
		json_object_array_add(anomalies, observed(pl_dist__feature(d), type, one(observation(a, 0)), pat));
		obs = json_object_new_array();
		snprintf(a, sizeof(a), "p50=%.17g", x->p50);
		snprintf(b, sizeof(b), "p99=%.17g", x->p99);
		json_object_array_add(obs, observation(a, v->samples));
		json_object_array_add(obs, observation(b, v->samples));
		snprintf(pat, sizeof(pat), "p50 %.6g, p99 %.6g over %llu samples", x->p50, x->p99,
			 (unsigned long long)v->samples);
		json_object_array_add(baselines, observed(pl_dist__feature(d), type, obs, pat));
	}
	if (v->scored) {
		add_new(anomalies, "new_fail_paths", v->new_fail_paths, v->nnew_fail_paths);
		add_new(anomalies, "new_syscalls", v->new_syscalls, v->nnew_syscalls);
	}
	if (v->parent_new_child && s->exe) {
		struct json_object *e = json_object_new_object();

		add(e, "value", sample_json__str(s->exe));
		json_object_array_add(anomalies, observed("parent_new_child", "a child the parent's baseline never ran",
							  one(e), NULL));
	}
	if (json_object_array_length(anomalies) == 0) {
		json_object_put(anomalies);
		json_object_put(baselines);
		return NULL;
	}
	an = json_object_new_object();
	targets = json_object_new_array();
	t = json_object_new_object();
	add(t, "name", sample_json__str(v->key));
	add_str(t, "type", "baseline (binary@parent binary)");
	json_object_array_add(targets, t);
	add(an, "analysis_targets", targets);
	add(an, "anomalies", anomalies);
	if (json_object_array_length(baselines))
		add(an, "baselines", baselines);
	else
		json_object_put(baselines);
	return one(an);
}

static struct json_object *finding(const struct pl_alert *a)
{
	static const char *const unmapped_keys[] = { "time_ns",	    "priority",	  "severity",	   "when",
						     "pid",	    "exe",	  "binary_id",	   "suppressed_before",
						     "regex_skipped", "output_fields", "evidence", "rule_file",
						     "rule_line",     "host" };
	struct json_object *o, *fi, *an, *ev, *um;
	static const struct pl_sample none;

	o = base(1, a);
	if (!o)
		return NULL;
	fi = json_object_new_object();
	add_str(fi, "uid", a->id);
	add(fi, "title", sample_json__str(a->rule));
	/* the rule's desc (without the newline a folded YAML desc ends in) */
	add(fi, "desc", alert_json__value(a, "rule_desc"));
	add(fi, "types", alert_json__value(a, "tags"));
	add_int(fi, "created_time", ms(a->time_ns));
	an = json_object_new_object();
	add(an, "name", sample_json__str(a->rule));
	add_int(an, "type_id", 1);
	add_str(an, "type", "Rule");
	add(fi, "analytic", an);
	add(o, "finding_info", fi);
	add(o, "anomaly_analyses", anomaly_analyses(a->sample ? a->sample : &none));
	ev = json_object_new_object();
	if (a->has_user) {
		struct json_object *actor = json_object_new_object();

		add(actor, "user", user(a->uid, a->user));
		add(ev, "actor", actor);
	}
	add(ev, "process", process(a->sample ? a->sample : &none, a->has_user ? a->user : NULL));
	add(o, "evidences", one(ev));
	um = json_object_new_object();
	for (size_t i = 0; i < sizeof(unmapped_keys) / sizeof(unmapped_keys[0]); i++)
		keep(um, a, unmapped_keys[i]);
	add(o, "unmapped", um);
	return o;
}

static struct json_object *summary(const struct pl_alert *a)
{
	static const char *const unmapped_keys[] = { "id",	 "time_ns",	     "priority",      "severity",
						     "exe",	 "binary_id",	     "first_ns",      "last_ns",
						     "window_start_ns", "window_end_ns", "reason" };
	const struct pl_alert_summary *sum = &a->summary;
	struct json_object *o, *fi, *um;

	if (!sum->alert_id)
		return NULL;
	o = base(2, a);
	if (!o)
		return NULL;
	add_int(o, "count", (int64_t)sum->count);
	add_int(o, "start_time", ms(sum->first_ns));
	add_int(o, "end_time", ms(sum->last_ns));
	fi = json_object_new_object();
	add_str(fi, "uid", sum->alert_id);
	add(fi, "title", sample_json__str(a->rule));
	add_int(fi, "first_seen_time", ms(sum->first_ns));
	add_int(fi, "last_seen_time", ms(sum->last_ns));
	add_int(fi, "modified_time", ms(a->time_ns));
	add(o, "finding_info", fi);
	um = json_object_new_object();
	for (size_t i = 0; i < sizeof(unmapped_keys) / sizeof(unmapped_keys[0]); i++)
		keep(um, a, unmapped_keys[i]);
	add(o, "unmapped", um);
	return o;
}

struct json_object *alert_ocsf__finding(const struct pl_alert *a)
{
	return a->kind == PL_ALERT_SUMMARY ? summary(a) : finding(a);
}
