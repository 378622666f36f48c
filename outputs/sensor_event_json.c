// SPDX-License-Identifier: MIT
/*
 * sensor_event_json.c - the JSON of the sensor's own life (sensor_event.h).
 */
#include "sensor_event.h"

#include "sample_json.h"

static const char *const types[] = {
    [PL_SENSOR_START] = "start", [PL_SENSOR_RULES] = "rules",		[PL_SENSOR_LOSSES] = "losses",
    [PL_SENSOR_STOP] = "stop",	 [PL_SENSOR_AUDIT_HEAD] = "audit_head", [PL_SENSOR_FLEET] = "fleet",
};

const char *pl_sensor_event__type(const struct pl_sensor_event *ev)
{
	return (unsigned)ev->kind < sizeof(types) / sizeof(types[0]) ? types[ev->kind] : NULL;
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static struct json_object *str_array(const char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, sample_json__str(v[i]));
	return a;
}

static struct json_object *ruleset_json(const struct pl_ruleset_id *r)
{
	struct json_object *o;

	if (!r || !(o = json_object_new_object()))
		return NULL;
	add_u64(o, "rules", r->rules);
	add_u64(o, "files", r->files);
	json_object_object_add(o, "sha256", json_object_new_string(r->sha256));
	return o;
}

static struct json_object *options_json(const struct pl_start_options *o)
{
	struct json_object *j = json_object_new_object();

	if (!j)
		return NULL;
	json_object_object_add(j, "rules", o->rules ? str_array(o->rules, o->nrules) : NULL);
	json_object_object_add(j, "enable_rule", str_array(o->enable, o->nenable));
	json_object_object_add(j, "disable_rule", str_array(o->disable, o->ndisable));
	json_object_object_add(j, "baselines", json_object_new_boolean(o->baselines));
	json_object_object_add(j, "state_dir", o->state_dir ? sample_json__str(o->state_dir) : NULL);
	json_object_object_add(j, "mode", json_object_new_string(o->mode));
	json_object_object_add(j, "json", o->json ? sample_json__str(o->json) : NULL);
	json_object_object_add(j, "syslog", json_object_new_string(o->syslog));
	json_object_object_add(j, "audit_log", sample_json__str(o->audit_log));
	add_u64(j, "audit_head_interval_s", o->audit_head_interval_s);
	add_u64(j, "stats_interval_s", o->stats_interval_s);
	add_u64(j, "regex_budget_ms", o->regex_budget_ms);
	return j;
}

static void add_body(struct json_object *o, const struct pl_sensor_event *ev)
{
	switch (ev->kind) {
	case PL_SENSOR_START:
		json_object_object_add(o, "version", json_object_new_string(ev->start.version));
		json_object_object_add(o, "pid", json_object_new_int64(ev->start.pid));
		json_object_object_add(o, "options", options_json(ev->start.options));
		json_object_object_add(o, "ruleset", ruleset_json(ev->start.ruleset));
		break;
	case PL_SENSOR_RULES:
		json_object_object_add(o, "reason", json_object_new_string(ev->rules.reason));
		json_object_object_add(o, "result", json_object_new_string(ev->rules.result));
		json_object_object_add(o, "ruleset", ruleset_json(ev->rules.ruleset));
		break;
	case PL_SENSOR_LOSSES:
		add_u64(o, "records", ev->losses.records);
		add_u64(o, "processes", ev->losses.processes);
		add_u64(o, "output_writes", ev->losses.output_writes);
		add_u64(o, "fail_paths", ev->losses.fail_paths);
		add_u64(o, "threads", ev->losses.threads);
		break;
	case PL_SENSOR_STOP:
		json_object_object_add(o, "reason", json_object_new_string(ev->stop.reason));
		json_object_object_add(o, "stats", stats_json__record(ev->stop.stats));
		break;
	case PL_SENSOR_AUDIT_HEAD:
		add_u64(o, "seq", ev->head.seq);
		json_object_object_add(o, "hash", json_object_new_string(ev->head.hash));
		json_object_object_add(o, "file", json_object_new_string(ev->head.file));
		break;
	case PL_SENSOR_FLEET: {
		const struct pl_fleet_event *f = &ev->fleet;

		json_object_object_add(o, "file", sample_json__str(f->file));
		json_object_object_add(o, "verdict", json_object_new_string(f->verdict));
		json_object_object_add(o, "why", sample_json__str(f->why));
		json_object_object_add(o, "role", f->role ? sample_json__str(f->role) : NULL);
		add_u64(o, "created_ns", f->created_ns);
		add_u64(o, "hosts", f->hosts);
		add_u64(o, "baselines", f->baselines);
		json_object_object_add(o, "key_id", f->key_id && f->key_id[0] ? sample_json__str(f->key_id) : NULL);
		add_u64(o, "arrival_ns", f->arrival_ns);
		add_u64(o, "load_ns", f->load_ns);
		break;
	}
	}
}

struct json_object *sensor_event_json__record(const struct pl_sensor_event *ev)
{
	const char *type = pl_sensor_event__type(ev);
	struct json_object *o;

	if (!type || !(o = json_object_new_object()))
		return NULL;
	json_object_object_add(o, "type", json_object_new_string(type));
	add_u64(o, "time_ns", ev->time_ns);
	add_body(o, ev);
	return o;
}
