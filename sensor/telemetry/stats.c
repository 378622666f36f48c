// SPDX-License-Identifier: MIT
/*
 * stats.c - the stats record (see stats.h).
 */
#include "telemetry/stats.h"

#include <sys/resource.h>

#include "clock.h"
#include "syslog_out.h"

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

const char *pl_loss__name(enum pl_loss c)
{
	if (c < 0 || c >= PL_LOSS_MAX)
		return "?";
	return causes[c].drop >= 0 ? drop_names[causes[c].drop] : causes[c].name;
}

static uint64_t dropped(const struct pl_output *o)
{
	return o ? o->dropped : 0;
}

void stats__loss_counts(const struct stats_sources *src, uint64_t ret[PL_LOSS_MAX])
{
	const struct images_stats *im = images__stats(src->images);
	const struct failpaths_stats *fst = failpaths__stats(src->fails);
	const struct oncpu_stats *os = src->oncpu ? oncpu__stats(src->oncpu) : NULL;
	uint64_t k[PL_DROP_MAX] = { 0 };

	bpfsensor__drops(src->bpf, k);
	for (int i = 0; i < PL_LOSS_MAX; i++)
		ret[i] = causes[i].drop >= 0 ? k[causes[i].drop] : 0;
	ret[PL_LOSS_INVALID_RECORDS] = im->invalid;
	ret[PL_LOSS_PROCTABLE_FULL] = im->proctable_full;
	ret[PL_LOSS_FAIL_KEYS_UNREMEMBERED] = fst->unremembered;
	ret[PL_LOSS_MAPPINGS_LOST] = src->oncpu ? bpfsensor__mmaps_lost(src->bpf) : 0;
	ret[PL_LOSS_BINARIES_UNTRACKED] = binagg__overflow(src->bin);
	ret[PL_LOSS_HASH_QUEUE_FULL] = src->ident ? identity__stats(src->ident)->hash_queue_full : 0;
	ret[PL_LOSS_OUTPUT_DROPPED] = dropped(src->json);
	ret[PL_LOSS_SYSLOG_DROPPED] = dropped(src->syslog);
	ret[PL_LOSS_OCSF_DROPPED] = dropped(src->ocsf);
	ret[PL_LOSS_AUDIT_DROPPED] = dropped(src->audit);
	ret[PL_LOSS_FAIL_PATHS_DISPLACED] = fst->displaced;
	ret[PL_LOSS_BINARY_PATHS_FORGOTTEN] = binagg__known_dropped(src->bin);
	ret[PL_LOSS_STACKS_UNREADABLE] = os ? os->stacks_unreadable : 0;
	ret[PL_LOSS_KEYS_DISPLACED] = os ? os->displaced : 0;
	ret[PL_LOSS_OBJECTS_REFUSED] = src->sym ? symbols__stats(src->sym)->objects_refused : 0;
}

struct live_losses stats__losses(const struct stats_sources *src)
{
	const struct images_stats *im = images__stats(src->images);
	uint64_t k[PL_DROP_MAX] = { 0 };

	bpfsensor__drops(src->bpf, k);
	return (struct live_losses){
		.records = k[PL_DROP_RINGBUF] + im->invalid,
		.processes = k[PL_DROP_PROC_MAP] + im->proctable_full,
		.output_writes = (src->json ? src->json->dropped : 0) + (src->syslog ? src->syslog->dropped : 0) +
				 (src->ocsf ? src->ocsf->dropped : 0),
		.fail_paths = k[PL_DROP_FAILPATH_MAP] + k[PL_DROP_FAILPATH_IMAGE] + k[PL_DROP_PATH_FAULT],
		.threads = k[PL_DROP_THREAD_STATE],
	};
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static struct json_object *output_counts(const struct pl_output *out)
{
	struct json_object *o;

	if (!out)
		return NULL;
	o = json_object_new_object();
	add_u64(o, "written", out->written);
	add_u64(o, "dropped", out->dropped);
	return o;
}

/* The syslog output's counters: the output's own, and its buffer and connection. */
static struct json_object *syslog_counts(const struct pl_output *out)
{
	struct json_object *o = output_counts(out);
	struct pl_syslog_stats st;

	if (!o)
		return NULL;
	syslog_output__stats(out, &st);
	add_u64(o, "sent", st.sent);
	add_u64(o, "queued", st.queued);
	add_u64(o, "queued_bytes", st.queued_bytes);
	add_u64(o, "dropped_overflow", st.dropped_overflow);
	add_u64(o, "dropped_unsendable", st.dropped_unsendable);
	add_u64(o, "dropped_at_exit", st.dropped_at_exit);
	add_u64(o, "cut", st.cut);
	add_u64(o, "connects", st.connects);
	add_u64(o, "reconnects", st.reconnects);
	add_u64(o, "connect_failures", st.connect_failures);
	json_object_object_add(o, "state", json_object_new_string(syslog_state__name(st.state)));
	return o;
}

static struct json_object *identity_stats(const struct identity *id)
{
	const struct identity_stats *st = identity__stats(id);
	struct json_object *o = json_object_new_object();

	add_u64(o, "hashes_queued", st->hashes_queued);
	add_u64(o, "hashes_done", st->hashes_done);
	add_u64(o, "hash_failures", st->hash_failures);
	add_u64(o, "hash_queue_full", st->hash_queue_full);
	add_u64(o, "hashes_pending", st->hashes_pending);
	add_u64(o, "hash_ns", st->hash_ns);
	add_u64(o, "cache_hits", st->cache_hits);
	return o;
}

/* On-CPU sampling, null when it is off. */
static struct json_object *oncpu_stats(const struct stats_sources *src)
{
	const struct oncpu_stats *os;
	const struct symbols_stats *ss;
	struct json_object *o;

	if (!src->oncpu || !src->sym)
		return NULL;
	os = oncpu__stats(src->oncpu);
	ss = symbols__stats(src->sym);
	o = json_object_new_object();
	if (!o)
		return NULL;
	add_u64(o, "rate_hz", src->sample_hz);
	add_u64(o, "stack_keys", os->keys);
	add_u64(o, "stacks_read", os->stacks_read);
	add_u64(o, "stacks_unreadable", os->stacks_unreadable);
	add_u64(o, "keys_displaced", os->displaced);
	add_u64(o, "orphans_swept", os->orphans_swept);
	add_u64(o, "stacks_forgotten", os->stacks_forgotten);
	add_u64(o, "processes_scanned", os->processes_scanned);
	add_u64(o, "mappings", ss->mappings);
	add_u64(o, "mappings_lost", bpfsensor__mmaps_lost(src->bpf));
	add_u64(o, "objects", ss->objects);
	add_u64(o, "objects_refused", ss->objects_refused);
	add_u64(o, "objects_loaded", ss->objects_loaded);
	add_u64(o, "object_load_failures", ss->load_failures);
	add_u64(o, "kernel_symbols", ss->kernel_symbols);
	return o;
}

static struct json_object *baselines_json(const struct learner *l)
{
	struct json_object *b = json_object_new_object();
	struct learner_counts c;

	if (!b)
		return NULL;
	learner__counts(l, &c);
	add_u64(b, "baselines", c.baselines);
	add_u64(b, "process_samples_learned", c.process_samples);
	add_u64(b, "window_samples_learned", c.window_samples);
	add_u64(b, "anomalous_samples", c.anomalous);
	add_u64(b, "without_baseline", c.without_baseline);
	add_u64(b, "save_errors", c.save_errors);
	add_u64(b, "evicted", c.evicted);
	add_u64(b, "aged_out", c.aged_out);
	return b;
}

struct json_object *stats__rules_json(const struct alerts_counts *c)
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

struct json_object *stats__record(const struct stats_sources *src)
{
	static const char *const ev_names[] = { NULL, "exec", "fork", "seen", "end", "fail_path", "stack" };
	const struct images_stats *im = images__stats(src->images);
	const struct failpaths_stats *fst = failpaths__stats(src->fails);
	const struct pipeline_stats *pst = pipeline__stats(src->pipe);
	struct json_object *o = json_object_new_object(), *ev, *kd, *ud, *feat, *fp, *out;
	uint64_t k[PL_DROP_MAX] = { 0 }, now = mono_ns();
	struct rusage ru;

	if (!o)
		return NULL;
	bpfsensor__drops(src->bpf, k);
	getrusage(RUSAGE_SELF, &ru);
	json_object_object_add(o, "type", json_object_new_string("stats"));
	add_u64(o, "time_ns", now + (uint64_t)mono_to_real());
	add_u64(o, "uptime_ns", now - src->start_ns);
	ev = json_object_new_object();
	for (int i = PL_EV_EXEC; i <= PL_EV_STACK; i++)
		add_u64(ev, ev_names[i], im->records[i]);
	json_object_object_add(o, "ringbuf_records", ev);
	add_u64(o, "invalid_records", im->invalid);
	add_u64(o, "exec_records", pst->exec_records);
	add_u64(o, "process_records", pst->process_records);
	add_u64(o, "window_records", pst->window_records);
	kd = json_object_new_object();
	for (int i = 0; i < PL_DROP_MAX; i++)
		add_u64(kd, drop_names[i], k[i]);
	json_object_object_add(o, "kernel_drops", kd);
	ud = json_object_new_object();
	add_u64(ud, "proctable_full", im->proctable_full);
	add_u64(ud, "fail_keys_unremembered", fst->unremembered);
	add_u64(ud, "fail_paths_displaced", fst->displaced);
	json_object_object_add(o, "userspace_drops", ud);
	{
		/* /proc reads of idle processes (images.c) */
		struct json_object *w = json_object_new_object();

		add_u64(w, "state_reads", im->wait_reads);
		add_u64(w, "skipped", im->wait_skipped);
		add_u64(w, "reports", im->wait_reports);
		json_object_object_add(o, "waiting", w);
	}
	fp = json_object_new_object();
	add_u64(fp, "table_entries", fst->table_entries);
	add_u64(fp, "table_max", src->max_fail_paths);
	add_u64(fp, "orphans_swept", fst->orphans_swept);
	add_u64(fp, "idle_moved", fst->idle_moved);
	add_u64(fp, "unknown_swept", fst->unknown_swept);
	json_object_object_add(o, "fail_paths", fp);
	json_object_object_add(o, "oncpu", oncpu_stats(src));
	out = output_counts(src->json);
	json_object_object_add(o, "output", out ? out : output_counts(&(struct pl_output){ 0 }));
	json_object_object_add(o, "syslog", syslog_counts(src->syslog));
	if (src->audit)
		json_object_object_add(o, "audit", output_counts(src->audit));
	json_object_object_add(o, "ocsf", output_counts(src->ocsf));
	add_u64(o, "tracked_processes", proctable__count(src->procs));
	add_u64(o, "sensor_cpu_ns",
		(uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
			(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull);
	add_u64(o, "sensor_maxrss_kb", (uint64_t)ru.ru_maxrss);
	feat = json_object_new_object();
	for (int i = 0; i < PL_FEAT_MAX; i++)
		json_object_object_add(feat, features__id(i), json_object_new_boolean(src->feat->have[i]));
	json_object_object_add(o, "features", feat);
	json_object_object_add(o, "baselines", src->learn ? baselines_json(src->learn) : NULL);
	if (src->alerts) {
		struct alerts_counts c;

		alerts__counts(src->alerts, &c);
		json_object_object_add(o, "rules", stats__rules_json(&c));
	} else {
		json_object_object_add(o, "rules", NULL);
	}
	add_u64(o, "binaries_untracked", binagg__overflow(src->bin));
	add_u64(o, "binary_paths_forgotten", binagg__known_dropped(src->bin));
	json_object_object_add(o, "identity", src->ident ? identity_stats(src->ident) : NULL);
	return o;
}
