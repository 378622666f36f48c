// SPDX-License-Identifier: MIT
/*
 * stats_json.c - the names of the sensor's counters and the JSON of its
 * `stats` record (sensor_stats.h): the record's keys, order and nulls are
 * docs/records.md's, made here from the typed counters.
 */
#include "sensor_stats.h"

/* The kernel's drop counters, keyed as in the stats record's kernel_drops. */
static const char *const drop_names[PL_DROP_MAX] = {
	"ringbuf_full", "proc_map_full", "fail_path_map_full", "path_truncated",
	"args_truncated", "thread_state", "path_fault", "fail_path_image_cap",
	"stack_table_full", "stack_not_stored", "stack_image_cap",
};

/* The causes counted in user space; a kernel cause is named by its drop counter. */
static const struct {
	const char *name;
	int drop; /* PL_DROP_*, or -1 */
} causes[PL_LOSS_MAX] = {
	[PL_LOSS_RINGBUF_FULL] = { NULL, PL_DROP_RINGBUF },
	[PL_LOSS_INVALID_RECORDS] = { "invalid_records", -1 },
	[PL_LOSS_PROC_MAP_FULL] = { NULL, PL_DROP_PROC_MAP },
	[PL_LOSS_PROCTABLE_FULL] = { "proctable_full", -1 },
	[PL_LOSS_FAIL_PATH_MAP_FULL] = { NULL, PL_DROP_FAILPATH_MAP },
	[PL_LOSS_FAIL_PATH_IMAGE_CAP] = { NULL, PL_DROP_FAILPATH_IMAGE },
	[PL_LOSS_PATH_FAULT] = { NULL, PL_DROP_PATH_FAULT },
	[PL_LOSS_FAIL_KEYS_UNREMEMBERED] = { "fail_keys_unremembered", -1 },
	[PL_LOSS_THREAD_STATE] = { NULL, PL_DROP_THREAD_STATE },
	[PL_LOSS_STACK_TABLE_FULL] = { NULL, PL_DROP_STACK_MAP },
	[PL_LOSS_STACK_NOT_STORED] = { NULL, PL_DROP_STACK_ID },
	[PL_LOSS_STACK_IMAGE_CAP] = { NULL, PL_DROP_STACK_IMAGE },
	[PL_LOSS_MAPPINGS_LOST] = { "mappings_lost", -1 },
	[PL_LOSS_BINARIES_UNTRACKED] = { "binaries_untracked", -1 },
	[PL_LOSS_HASH_QUEUE_FULL] = { "hash_queue_full", -1 },
	[PL_LOSS_OUTPUT_DROPPED] = { "output_dropped", -1 },
	[PL_LOSS_SYSLOG_DROPPED] = { "syslog_dropped", -1 },
	[PL_LOSS_OCSF_DROPPED] = { "ocsf_dropped", -1 },
	[PL_LOSS_AUDIT_DROPPED] = { "audit_dropped", -1 },
	[PL_LOSS_FAIL_PATHS_DISPLACED] = { "fail_paths_displaced", -1 },
	[PL_LOSS_BINARY_PATHS_FORGOTTEN] = { "binary_paths_forgotten", -1 },
	[PL_LOSS_STACKS_UNREADABLE] = { "stacks_unreadable", -1 },
	[PL_LOSS_KEYS_DISPLACED] = { "keys_displaced", -1 },
	[PL_LOSS_OBJECTS_REFUSED] = { "objects_refused", -1 },
};

const char *pl_drop__name(int drop)
{
	return drop >= 0 && drop < PL_DROP_MAX ? drop_names[drop] : "?";
}

int pl_loss__drop(enum pl_loss c)
{
	return c >= 0 && c < PL_LOSS_MAX ? causes[c].drop : -1;
}

const char *pl_loss__name(enum pl_loss c)
{
	if (c < 0 || c >= PL_LOSS_MAX)
		return "?";
	return causes[c].drop >= 0 ? drop_names[causes[c].drop] : causes[c].name;
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static struct json_object *output_counts(const struct pl_stats_output *out)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	add_u64(o, "written", out->written);
	add_u64(o, "dropped", out->dropped);
	return o;
}

/* The syslog output's counters: the output's own, and its buffer and connection. */
static struct json_object *syslog_counts(const struct pl_sensor_stats *s)
{
	const struct pl_syslog_stats *st = &s->syslog_more;
	struct json_object *o = output_counts(&s->syslog);

	if (!o)
		return NULL;
	add_u64(o, "sent", st->sent);
	add_u64(o, "queued", st->queued);
	add_u64(o, "queued_bytes", st->queued_bytes);
	add_u64(o, "dropped_overflow", st->dropped_overflow);
	add_u64(o, "dropped_unsendable", st->dropped_unsendable);
	add_u64(o, "dropped_at_exit", st->dropped_at_exit);
	add_u64(o, "cut", st->cut);
	add_u64(o, "connects", st->connects);
	add_u64(o, "reconnects", st->reconnects);
	add_u64(o, "connect_failures", st->connect_failures);
	json_object_object_add(o, "state", json_object_new_string(syslog_state__name(st->state)));
	return o;
}

static struct json_object *identity_json(const struct pl_sensor_stats *s)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	add_u64(o, "hashes_queued", s->identity.hashes_queued);
	add_u64(o, "hashes_done", s->identity.hashes_done);
	add_u64(o, "hash_failures", s->identity.hash_failures);
	add_u64(o, "hash_queue_full", s->identity.hash_queue_full);
	add_u64(o, "hashes_pending", s->identity.hashes_pending);
	add_u64(o, "hash_ns", s->identity.hash_ns);
	add_u64(o, "cache_hits", s->identity.cache_hits);
	return o;
}

static struct json_object *oncpu_json(const struct pl_sensor_stats *s)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	add_u64(o, "rate_hz", s->oncpu.rate_hz);
	add_u64(o, "stack_keys", s->oncpu.stack_keys);
	add_u64(o, "stacks_read", s->oncpu.stacks_read);
	add_u64(o, "stacks_unreadable", s->oncpu.stacks_unreadable);
	add_u64(o, "keys_displaced", s->oncpu.keys_displaced);
	add_u64(o, "orphans_swept", s->oncpu.orphans_swept);
	add_u64(o, "stacks_forgotten", s->oncpu.stacks_forgotten);
	add_u64(o, "processes_scanned", s->oncpu.processes_scanned);
	add_u64(o, "mappings", s->oncpu.mappings);
	add_u64(o, "mappings_lost", s->oncpu.mappings_lost);
	add_u64(o, "objects", s->oncpu.objects);
	add_u64(o, "objects_refused", s->oncpu.objects_refused);
	add_u64(o, "objects_loaded", s->oncpu.objects_loaded);
	add_u64(o, "object_load_failures", s->oncpu.object_load_failures);
	add_u64(o, "kernel_symbols", s->oncpu.kernel_symbols);
	return o;
}

static struct json_object *baselines_json(const struct pl_sensor_stats *s)
{
	struct json_object *b = json_object_new_object();

	if (!b)
		return NULL;
	add_u64(b, "baselines", s->baselines.baselines);
	add_u64(b, "process_samples_learned", s->baselines.process_samples_learned);
	add_u64(b, "window_samples_learned", s->baselines.window_samples_learned);
	add_u64(b, "anomalous_samples", s->baselines.anomalous_samples);
	add_u64(b, "without_baseline", s->baselines.without_baseline);
	add_u64(b, "save_errors", s->baselines.save_errors);
	add_u64(b, "evicted", s->baselines.evicted);
	add_u64(b, "aged_out", s->baselines.aged_out);
	return b;
}

struct json_object *stats_json__rules(const struct pl_stats_rules *c)
{
	struct json_object *r = json_object_new_object();

	if (!r)
		return NULL;
	add_u64(r, "rules", c->rules);
	add_u64(r, "events", c->events);
	add_u64(r, "alerts", c->alerts);
	add_u64(r, "throttled", c->throttled);
	add_u64(r, "summaries", c->summaries);
	add_u64(r, "summaries_pending", c->summaries_pending);
	add_u64(r, "regex_limit_hits", c->regex_limit_hits);
	add_u64(r, "regex_errors", c->regex_errors);
	add_u64(r, "regex_runs", c->regex_runs);
	add_u64(r, "regex_cache_hits", c->regex_cache_hits);
	add_u64(r, "regex_skipped", c->regex_skipped);
	add_u64(r, "regex_skipped_matches", c->regex_skipped_matches);
	add_u64(r, "reloads", c->reloads);
	add_u64(r, "reload_failures", c->reload_failures);
	return r;
}

/* The counters of the kernel, by drop counter, and the sensor's own losses. */
static void add_drops(struct json_object *o, const struct pl_sensor_stats *s)
{
	struct json_object *kd = json_object_new_object(), *ud = json_object_new_object();

	for (int i = 0; kd && i < PL_DROP_MAX; i++)
		add_u64(kd, drop_names[i], s->kernel_drops[i]);
	json_object_object_add(o, "kernel_drops", kd);
	if (ud) {
		add_u64(ud, "proctable_full", s->loss[PL_LOSS_PROCTABLE_FULL]);
		add_u64(ud, "fail_keys_unremembered", s->loss[PL_LOSS_FAIL_KEYS_UNREMEMBERED]);
		add_u64(ud, "fail_paths_displaced", s->loss[PL_LOSS_FAIL_PATHS_DISPLACED]);
	}
	json_object_object_add(o, "userspace_drops", ud);
}

static void add_tables(struct json_object *o, const struct pl_sensor_stats *s)
{
	struct json_object *w = json_object_new_object(), *fp = json_object_new_object();

	if (w) {
		add_u64(w, "state_reads", s->waiting.state_reads);
		add_u64(w, "skipped", s->waiting.skipped);
		add_u64(w, "reports", s->waiting.reports);
	}
	json_object_object_add(o, "waiting", w);
	if (fp) {
		add_u64(fp, "table_entries", s->fail_paths.table_entries);
		add_u64(fp, "table_max", s->fail_paths.table_max);
		add_u64(fp, "orphans_swept", s->fail_paths.orphans_swept);
		add_u64(fp, "idle_moved", s->fail_paths.idle_moved);
		add_u64(fp, "unknown_swept", s->fail_paths.unknown_swept);
	}
	json_object_object_add(o, "fail_paths", fp);
}

static void add_outputs(struct json_object *o, const struct pl_sensor_stats *s)
{
	/* `output` is there even without a JSON output, with zeros */
	json_object_object_add(o, "output", output_counts(&s->json));
	json_object_object_add(o, "syslog", s->syslog.on ? syslog_counts(s) : NULL);
	if (s->audit.on)
		json_object_object_add(o, "audit", output_counts(&s->audit));
	json_object_object_add(o, "ocsf", s->ocsf.on ? output_counts(&s->ocsf) : NULL);
}

struct json_object *stats_json__record(const struct pl_sensor_stats *s)
{
	static const char *const ev_names[] = { NULL, "exec", "fork", "seen", "end", "fail_path", "stack" };
	struct json_object *o = json_object_new_object(), *ev, *feat;

	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string("stats"));
	add_u64(o, "time_ns", s->time_ns);
	add_u64(o, "uptime_ns", s->uptime_ns);
	ev = json_object_new_object();
	for (int i = PL_EV_EXEC; ev && i <= PL_EV_STACK; i++)
		add_u64(ev, ev_names[i], s->ringbuf_records[i]);
	json_object_object_add(o, "ringbuf_records", ev);
	add_u64(o, "invalid_records", s->loss[PL_LOSS_INVALID_RECORDS]);
	add_u64(o, "exec_records", s->exec_records);
	add_u64(o, "process_records", s->process_records);
	add_u64(o, "window_records", s->window_records);
	add_drops(o, s);
	add_tables(o, s);
	json_object_object_add(o, "oncpu", s->oncpu_on ? oncpu_json(s) : NULL);
	add_outputs(o, s);
	add_u64(o, "tracked_processes", s->tracked_processes);
	add_u64(o, "sensor_cpu_ns", s->cpu_ns);
	add_u64(o, "sensor_maxrss_kb", s->maxrss_kb);
	feat = json_object_new_object();
	for (size_t i = 0; feat && i < s->nfeature; i++)
		json_object_object_add(feat, s->feature[i].name, json_object_new_boolean(s->feature[i].have));
	json_object_object_add(o, "features", feat);
	json_object_object_add(o, "baselines", s->baselines_on ? baselines_json(s) : NULL);
	json_object_object_add(o, "rules", s->rules_on ? stats_json__rules(&s->rules) : NULL);
	add_u64(o, "binaries_untracked", s->loss[PL_LOSS_BINARIES_UNTRACKED]);
	add_u64(o, "binary_paths_forgotten", s->loss[PL_LOSS_BINARY_PATHS_FORGOTTEN]);
	json_object_object_add(o, "identity", s->identity_on ? identity_json(s) : NULL);
	return o;
}
