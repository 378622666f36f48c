// SPDX-License-Identifier: MIT
/*
 * stats_json.c - the names of the sensor's counters and the JSON of its
 * `stats` record (sensor_stats.h): the record's keys, order and nulls are
 * docs/records.md's, made here from the typed counters.
 */
#include "sensor_stats.h"

#include <stddef.h>

/* The kernel's drop counters, keyed as in the stats record's kernel_drops. */
static const char *const drop_names[PL_KDROP_MAX] = {
	"ringbuf_full", "proc_map_full", "fail_path_map_full", "path_truncated",
	"args_truncated", "thread_state", "path_fault", "fail_path_image_cap",
	"sample_ring_full", "stack_copy_failed", "kstack_unreadable", "file_image_cap", "map_image_cap", "net_dest_image_cap",
};

/*
 * Every loss cause: its name (a kernel cause is named by its drop counter)
 * and its class (sensor_stats.h; docs/records.md#lost-and-bounded-detail).
 * THE table of what raises the loss alert: a cause left out of it, or with
 * no class, is lost. Bounded detail is what the sensor drops by design to
 * stay bounded while every event is still counted.
 */
#define LOST PL_LOSS_LOST
#define DETAIL PL_LOSS_DETAIL
#define K(drop) ((drop) + 1)
static const struct {
	const char *name;
	int kdrop; /* enum pl_kdrop + 1, or 0: counted in user space (so a cause left out is one) */
	enum pl_loss_class cls;
} causes[PL_LOSS_MAX] = {
	/* records never delivered, or rejected */
	[PL_LOSS_RINGBUF_FULL] = { NULL, K(PL_KDROP_RINGBUF), LOST },
	[PL_LOSS_INVALID_RECORDS] = { "invalid_records", 0, LOST },
	/* tables full: a process, a thread, a path, a binary, a hash not had */
	[PL_LOSS_PROC_MAP_FULL] = { NULL, K(PL_KDROP_PROC_MAP), LOST },
	[PL_LOSS_PROCTABLE_FULL] = { "proctable_full", 0, LOST },
	[PL_LOSS_FAIL_PATH_MAP_FULL] = { NULL, K(PL_KDROP_FAILPATH_MAP), LOST },
	[PL_LOSS_FAIL_KEYS_UNREMEMBERED] = { "fail_keys_unremembered", 0, LOST },
	[PL_LOSS_THREAD_STATE] = { NULL, K(PL_KDROP_THREAD_STATE), LOST },
	[PL_LOSS_MAPPINGS_LOST] = { "mappings_lost", 0, LOST },
	[PL_LOSS_BINARIES_UNTRACKED] = { "binaries_untracked", 0, LOST },
	[PL_LOSS_HASH_QUEUE_FULL] = { "hash_queue_full", 0, LOST },
	/* records an output could not deliver */
	[PL_LOSS_OUTPUT_DROPPED] = { "output_dropped", 0, LOST },
	[PL_LOSS_SYSLOG_DROPPED] = { "syslog_dropped", 0, LOST },
	[PL_LOSS_OCSF_DROPPED] = { "ocsf_dropped", 0, LOST },
	[PL_LOSS_AUDIT_DROPPED] = { "audit_dropped", 0, LOST },
	[PL_LOSS_KERNEL_OTHER] = { "kernel_other", 0, LOST },
	/* bounded detail: the event counted, a bounded part of its detail not kept */
	[PL_LOSS_FAIL_PATH_IMAGE_CAP] = { NULL, K(PL_KDROP_FAILPATH_IMAGE), DETAIL },
	[PL_LOSS_PATH_FAULT] = { NULL, K(PL_KDROP_PATH_FAULT), DETAIL },
	/* a sample counted in its image whose stack (or part of it) is not had */
	[PL_LOSS_SAMPLE_RING_FULL] = { NULL, K(PL_KDROP_SAMPLE_RING), DETAIL },
	[PL_LOSS_STACK_COPY_FAILED] = { NULL, K(PL_KDROP_STACK_COPY), DETAIL },
	[PL_LOSS_KSTACK_UNREADABLE] = { NULL, K(PL_KDROP_KSTACK), DETAIL },
	[PL_LOSS_FAIL_PATHS_DISPLACED] = { "fail_paths_displaced", 0, DETAIL },
	[PL_LOSS_BINARY_PATHS_FORGOTTEN] = { "binary_paths_forgotten", 0, DETAIL },
	[PL_LOSS_STACK_TABLE_FULL] = { "stack_table_full", 0, DETAIL },
	[PL_LOSS_OBJECTS_REFUSED] = { "objects_refused", 0, DETAIL },
	[PL_LOSS_FILE_IMAGE_CAP] = { NULL, K(PL_KDROP_FILE_IMAGE), DETAIL },
	[PL_LOSS_MAP_IMAGE_CAP] = { NULL, K(PL_KDROP_MAP_IMAGE), DETAIL },
	[PL_LOSS_NET_DEST_IMAGE_CAP] = { NULL, K(PL_KDROP_NET_IMAGE), DETAIL },
};
#undef LOST
#undef DETAIL
#undef K

const char *pl_drop__name(int drop)
{
	return drop >= 0 && drop < PL_KDROP_MAX ? drop_names[drop] : "?";
}

int pl_loss__drop(enum pl_loss c)
{
	return c >= 0 && c < PL_LOSS_MAX ? causes[c].kdrop - 1 : -1;
}

const char *pl_loss__name(enum pl_loss c)
{
	if (c < 0 || c >= PL_LOSS_MAX)
		return "?";
	if (causes[c].kdrop)
		return drop_names[causes[c].kdrop - 1];
	return causes[c].name ? causes[c].name : "?";
}

enum pl_loss_class pl_loss__class(enum pl_loss c)
{
	return c >= 0 && c < PL_LOSS_MAX ? causes[c].cls : PL_LOSS_LOST;
}

enum pl_loss_class pl_drop__class(int drop)
{
	if (drop == PL_KDROP_PATH_TRUNC || drop == PL_KDROP_ARGS_TRUNC)
		return PL_LOSS_DETAIL; /* a cut string: the record still goes out */
	for (int c = 0; c < PL_LOSS_MAX; c++)
		if (causes[c].kdrop && causes[c].kdrop - 1 == drop)
			return causes[c].cls;
	return PL_LOSS_LOST;
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


/* A counter's key and where it is in its struct. */
struct u64_key {
	const char *key;
	size_t off;
};

/* Every field a key names is a uint64_t: the array's size is -1, a compile error, otherwise. */
#define KEY(k, type, field) { k, offsetof(type, field) + 0 * sizeof(char[sizeof(((type *)0)->field) == 8 ? 1 : -1]) }
#define S(k, field) KEY(k, struct pl_sensor_stats, field)

#define NKEYS(keys) (sizeof(keys) / sizeof((keys)[0]))

/* Add the counters keys[n] of base (a struct whose fields they name) to o, in that order. */
static void add_keys(struct json_object *o, const void *base, const struct u64_key *keys, size_t n)
{
	for (size_t i = 0; o && i < n; i++)
		add_u64(o, keys[i].key, *(const uint64_t *)((const char *)base + keys[i].off));
}

/* A new object of those counters, NULL on ENOMEM. */
static struct json_object *u64_object(const void *base, const struct u64_key *keys, size_t n)
{
	struct json_object *o = json_object_new_object();

	add_keys(o, base, keys, n);
	return o;
}

#define U64_OBJECT(base, keys) u64_object((base), (keys), NKEYS(keys))

static const struct u64_key waiting_keys[] = {
	S("state_reads", waiting.state_reads),
	S("skipped", waiting.skipped),
	S("reports", waiting.reports),
};

static const struct u64_key fail_paths_keys[] = {
	S("table_entries", fail_paths.table_entries), S("table_max", fail_paths.table_max),
	S("orphans_swept", fail_paths.orphans_swept), S("idle_moved", fail_paths.idle_moved),
	S("unknown_swept", fail_paths.unknown_swept), S("trimmed", fail_paths.trimmed),
};

#define Q(k, field) KEY(k, struct pl_syslog_stats, field)

static const struct u64_key syslog_keys[] = {
	Q("sent", sent),
	Q("queued", queued),
	Q("queued_bytes", queued_bytes),
	Q("dropped_overflow", dropped_overflow),
	Q("dropped_unsendable", dropped_unsendable),
	Q("dropped_at_exit", dropped_at_exit),
	Q("cut", cut),
	Q("connects", connects),
	Q("reconnects", reconnects),
	Q("connect_failures", connect_failures),
	Q("stalls", stalls),
	Q("outages", outages),
};

static const struct u64_key identity_keys[] = {
	S("hashes_queued", identity.hashes_queued),   S("hashes_done", identity.hashes_done),
	S("hash_failures", identity.hash_failures),   S("hash_queue_full", identity.hash_queue_full),
	S("hashes_pending", identity.hashes_pending), S("hash_ns", identity.hash_ns),
	S("cache_hits", identity.cache_hits),
};

static const struct u64_key oncpu_keys[] = {
	S("rate_hz", oncpu.rate_hz),
	S("samples", oncpu.samples),
	S("malformed", oncpu.malformed),
	S("user_frames", oncpu.user_frames),
	S("kernel_frames", oncpu.kernel_frames),
	S("stacks_complete", oncpu.stops_end),
	S("cut_truncated", oncpu.stops_truncated),
	S("cut_no_mapping", oncpu.stops_no_map),
	S("cut_no_cfi", oncpu.stops_no_cfi),
	S("cut_no_file", oncpu.stops_no_file),
	S("cut_bad_cfi", oncpu.stops_bad),
	S("cut_depth", oncpu.stops_depth),
	S("no_mappings", oncpu.no_mappings),
	S("stacks_held", oncpu.stacks_held),
	S("stack_table_full", oncpu.table_full),
	S("orphans_swept", oncpu.orphans_swept),
	S("unwind_ns", oncpu.unwind_ns),
	S("unwind_objects", oncpu.unwind_objects),
	S("cfi_rows_read", oncpu.cfi_rows_read),
	S("cfi_rows_cached", oncpu.cfi_rows_cached),
	S("names_cached", oncpu.names_cached),
	S("maps_read", oncpu.maps_read),
	S("mappings", oncpu.mappings),
	S("mappings_lost", oncpu.mappings_lost),
	S("objects", oncpu.objects),
	S("objects_refused", oncpu.objects_refused),
	S("objects_loaded", oncpu.objects_loaded),
	S("object_load_failures", oncpu.object_load_failures),
	S("kernel_symbols", oncpu.kernel_symbols),
	S("named_symtab", oncpu.named_symtab),
	S("named_debug_build_id", oncpu.named_debug_build_id),
	S("named_debuglink", oncpu.named_debuglink),
	S("named_minidebuginfo", oncpu.named_minidebuginfo),
	S("named_dynsym", oncpu.named_dynsym),
	S("named_none", oncpu.named_none),
	S("minidebuginfo_failures", oncpu.minidebuginfo_failures),
	S("debuglink_mismatches", oncpu.debuglink_mismatches),
};

static const struct u64_key baselines_keys[] = {
	S("baselines", baselines.baselines),
	S("process_samples_learned", baselines.process_samples_learned),
	S("window_samples_learned", baselines.window_samples_learned),
	S("anomalous_samples", baselines.anomalous_samples),
	S("without_baseline", baselines.without_baseline),
	S("save_errors", baselines.save_errors),
	S("evicted", baselines.evicted),
	S("aged_out", baselines.aged_out),
	S("refused_full", baselines.refused_full),
	S("refused_user", baselines.refused_user),
	S("saves_queued", baselines.saves_queued),
	S("saves_dropped", baselines.saves_dropped),
};

/* The learner's counters, and the users most refused over their share. */
static struct json_object *baselines_counts(const struct pl_sensor_stats *s)
{
	struct json_object *o = U64_OBJECT(s, baselines_keys), *top = json_object_new_array();

	for (size_t i = 0; top && i < s->baselines.ntop_users; i++) {
		struct json_object *u = json_object_new_object();

		if (!u)
			break;
		add_u64(u, "uid", s->baselines.top_users[i].uid);
		add_u64(u, "refused", s->baselines.top_users[i].refused);
		json_object_array_add(top, u);
	}
	if (o)
		json_object_object_add(o, "refused_users", top);
	else
		json_object_put(top);
	if (o && s->baselines.nfamilies) {
		struct json_object *fam = json_object_new_object();

		for (size_t i = 0; fam && i < s->baselines.nfamilies; i++) {
			struct json_object *f = json_object_new_object();

			if (!f)
				break;
			add_u64(f, "ready", s->baselines.families[i].ready);
			add_u64(f, "learning", s->baselines.families[i].learning);
			json_object_object_add(f, "armed", json_object_new_boolean(s->baselines.families[i].armed));
			json_object_object_add(fam, s->baselines.families[i].name, f);
		}
		json_object_object_add(o, "families", fam);
	}
	return o;
}

#define R(k, field) KEY(k, struct pl_stats_rules, field)

static const struct u64_key rules_keys[] = {
	R("rules", rules),
	R("events", events),
	R("alerts", alerts),
	R("throttled", throttled),
	R("summaries", summaries),
	R("summaries_pending", summaries_pending),
	R("regex_limit_hits", regex_limit_hits),
	R("regex_errors", regex_errors),
	R("regex_runs", regex_runs),
	R("regex_cache_hits", regex_cache_hits),
	R("regex_skipped", regex_skipped),
	R("regex_skipped_matches", regex_skipped_matches),
	R("reloads", reloads),
	R("reload_failures", reload_failures),
};

struct json_object *stats_json__rules(const struct pl_stats_rules *c)
{
	return U64_OBJECT(c, rules_keys);
}

/* The syslog output's counters: the output's own, and its buffer and connection. */
static struct json_object *syslog_counts(const struct pl_sensor_stats *s)
{
	struct json_object *o = output_counts(&s->syslog);

	if (!o)
		return NULL;
	add_keys(o, &s->syslog_more, syslog_keys, NKEYS(syslog_keys));
	json_object_object_add(o, "state", json_object_new_string(syslog_state__name(s->syslog_more.state)));
	return o;
}

/* The counters of the kernel, by drop counter, and the sensor's own losses. */
static void add_drops(struct json_object *o, const struct pl_sensor_stats *s)
{
	struct json_object *kd = json_object_new_object(), *ud = json_object_new_object();

	for (int i = 0; kd && i < PL_KDROP_MAX; i++)
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
	json_object_object_add(o, "waiting", U64_OBJECT(s, waiting_keys)); /* /proc reads of idle processes */
	json_object_object_add(o, "fail_paths", U64_OBJECT(s, fail_paths_keys));
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
	static const char *const ev_names[] = { NULL, "exec", "fork", "seen", "end", "fail_path", "sample", "file", "map", "net" };
	struct json_object *o = json_object_new_object(), *ev, *feat;

	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string("stats"));
	add_u64(o, "time_ns", s->time_ns);
	add_u64(o, "uptime_ns", s->uptime_ns);
	ev = json_object_new_object();
	for (int i = 1; ev && i < PL_REC_KINDS; i++)
		if (ev_names[i])
			add_u64(ev, ev_names[i], s->ringbuf_records[i]);
	json_object_object_add(o, "ringbuf_records", ev);
	add_u64(o, "invalid_records", s->loss[PL_LOSS_INVALID_RECORDS]);
	add_u64(o, "exec_records", s->exec_records);
	add_u64(o, "process_records", s->process_records);
	add_u64(o, "window_records", s->window_records);
	add_drops(o, s);
	add_tables(o, s);
	json_object_object_add(o, "oncpu", s->oncpu_on ? U64_OBJECT(s, oncpu_keys) : NULL);
	add_outputs(o, s);
	add_u64(o, "tracked_processes", s->tracked_processes);
	add_u64(o, "processes_swept", s->processes_swept);
	add_u64(o, "sensor_cpu_ns", s->cpu_ns);
	add_u64(o, "sensor_maxrss_kb", s->maxrss_kb);
	feat = json_object_new_object();
	for (size_t i = 0; feat && i < s->nfeature; i++)
		json_object_object_add(feat, s->feature[i].name, json_object_new_boolean(s->feature[i].have));
	json_object_object_add(o, "features", feat);
	json_object_object_add(o, "baselines", s->baselines_on ? baselines_counts(s) : NULL);
	json_object_object_add(o, "rules", s->rules_on ? stats_json__rules(&s->rules) : NULL);
	add_u64(o, "binaries_untracked", s->loss[PL_LOSS_BINARIES_UNTRACKED]);
	add_u64(o, "binary_paths_forgotten", s->loss[PL_LOSS_BINARY_PATHS_FORGOTTEN]);
	json_object_object_add(o, "identity", s->identity_on ? U64_OBJECT(s, identity_keys) : NULL);
	return o;
}
