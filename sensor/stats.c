// SPDX-License-Identifier: MIT
/*
 * stats.c - the stats record (see stats.h).
 */
#include "stats.h"

#include <sys/resource.h>

#include "clock.h"
#include "syslog_out.h"

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

struct json_object *stats__record(const struct stats_sources *src)
{
	static const char *const ev_names[] = { NULL, "exec", "fork", "seen", "end", "fail_path", "stack" };
	static const char *const drop_names[PL_DROP_MAX] = {
		"ringbuf_full", "proc_map_full", "fail_path_map_full", "path_truncated",
		"args_truncated", "thread_state", "path_fault", "fail_path_image_cap",
		"stack_table_full", "stack_not_stored", "stack_image_cap",
	};
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
	if (src->learn)
		learner__stats(src->learn, o);
	else
		json_object_object_add(o, "baselines", NULL);
	if (src->alerts)
		alerts__stats(src->alerts, o);
	else
		json_object_object_add(o, "rules", NULL);
	add_u64(o, "binaries_untracked", binagg__overflow(src->bin));
	add_u64(o, "binary_paths_forgotten", binagg__known_dropped(src->bin));
	json_object_object_add(o, "identity", src->ident ? identity_stats(src->ident) : NULL);
	return o;
}
