// SPDX-License-Identifier: MIT
/*
 * stats.c - the sensor's counters, gathered (see stats.h).
 */
#include "telemetry/stats.h"

#include <sys/resource.h>

#include "clock.h"
#include "syslog_out.h"

_Static_assert(PL_FEAT_MAX <= PL_STATS_FEAT_MAX, "struct pl_sensor_stats has room for every feature");
/* outputs/ names the kernel's counters by number (sensor_stats.h): the ABI's */
#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " is " #b)
SAME(PL_KDROP_RINGBUF, PL_DROP_RINGBUF);
SAME(PL_KDROP_PROC_MAP, PL_DROP_PROC_MAP);
SAME(PL_KDROP_FAILPATH_MAP, PL_DROP_FAILPATH_MAP);
SAME(PL_KDROP_PATH_TRUNC, PL_DROP_PATH_TRUNC);
SAME(PL_KDROP_ARGS_TRUNC, PL_DROP_ARGS_TRUNC);
SAME(PL_KDROP_THREAD_STATE, PL_DROP_THREAD_STATE);
SAME(PL_KDROP_PATH_FAULT, PL_DROP_PATH_FAULT);
SAME(PL_KDROP_FAILPATH_IMAGE, PL_DROP_FAILPATH_IMAGE);
SAME(PL_KDROP_SAMPLE_RING, PL_DROP_SAMPLE_RING);
SAME(PL_KDROP_STACK_COPY, PL_DROP_STACK_COPY);
SAME(PL_KDROP_KSTACK, PL_DROP_KSTACK);
SAME(PL_KDROP_FILE_IMAGE, PL_DROP_FILE_IMAGE);
SAME(PL_KDROP_MAP_IMAGE, PL_DROP_MAP_IMAGE);
SAME(PL_KDROP_NET_IMAGE, PL_DROP_NET_IMAGE);
SAME(PL_KDROP_MAX, PL_DROP_MAX);
SAME(PL_REC_KINDS, PL_EV_LAST + 1);
#undef SAME

static void output_counts(struct pl_stats_output *ret, const struct pl_output *o)
{
	if (o)
		*ret = (struct pl_stats_output){ .on = true, .written = o->written, .dropped = o->dropped, .failing = o->failing };
}

static void collect_losses(const struct stats_sources *src, struct pl_sensor_stats *s)
{
	const struct images_stats *im = images__stats(src->images);
	const struct failpaths_stats *fst = failpaths__stats(src->fails);
	const struct oncpu_stats *os = src->oncpu ? oncpu__stats(src->oncpu) : NULL;
	uint64_t *l = s->loss;

	bpfsensor__drops(src->bpf, s->kernel_drops);
	for (int i = 0; i < PL_LOSS_MAX; i++)
		l[i] = pl_loss__drop(i) >= 0 ? s->kernel_drops[pl_loss__drop(i)] : 0;
	l[PL_LOSS_INVALID_RECORDS] = im->invalid;
	l[PL_LOSS_PROCTABLE_FULL] = im->proctable_full;
	l[PL_LOSS_FAIL_KEYS_UNREMEMBERED] = fst->unremembered;
	l[PL_LOSS_MAPPINGS_LOST] = src->oncpu ? bpfsensor__mmaps_lost(src->bpf) : 0;
	l[PL_LOSS_BINARIES_UNTRACKED] = binagg__overflow(src->bin);
	l[PL_LOSS_HASH_QUEUE_FULL] = src->ident ? identity__stats(src->ident)->hash_queue_full : 0;
	l[PL_LOSS_OUTPUT_DROPPED] = s->json.dropped;
	l[PL_LOSS_SYSLOG_DROPPED] = s->syslog.dropped;
	l[PL_LOSS_OCSF_DROPPED] = s->ocsf.dropped;
	l[PL_LOSS_AUDIT_DROPPED] = s->audit.dropped;
	l[PL_LOSS_FAIL_PATHS_DISPLACED] = fst->displaced;
	l[PL_LOSS_BINARY_PATHS_FORGOTTEN] = binagg__known_dropped(src->bin);
	l[PL_LOSS_STACK_TABLE_FULL] = os ? os->table_full : 0;
	l[PL_LOSS_OBJECTS_REFUSED] = src->sym ? symbols__stats(src->sym)->objects_refused : 0;
	for (int d = 0; d < PL_KDROP_MAX; d++) {
		bool named = false;

		for (int i = 0; i < PL_LOSS_MAX; i++)
			named |= pl_loss__drop(i) == d;
		if (!named && pl_drop__class(d) == PL_LOSS_LOST)
			l[PL_LOSS_KERNEL_OTHER] += s->kernel_drops[d]; /* a new slot no cause names yet */
	}
	s->losses = (struct live_losses){
		.records = l[PL_LOSS_RINGBUF_FULL] + l[PL_LOSS_INVALID_RECORDS],
		.processes = l[PL_LOSS_PROC_MAP_FULL] + l[PL_LOSS_PROCTABLE_FULL],
		.output_writes = l[PL_LOSS_OUTPUT_DROPPED] + l[PL_LOSS_SYSLOG_DROPPED] + l[PL_LOSS_OCSF_DROPPED],
		.fail_paths = l[PL_LOSS_FAIL_PATH_MAP_FULL],
		.threads = l[PL_LOSS_THREAD_STATE],
	};
	/* every other lost cause, so that "nothing lost" is said exactly when the loss alert has nothing */
	for (int i = 0; i < PL_LOSS_MAX; i++)
		if (pl_loss__class(i) == PL_LOSS_LOST) {
			s->lost += l[i];
		} else {
			s->detail_capped += l[i];
		}
	s->losses.other = s->lost - s->losses.records - s->losses.processes - s->losses.output_writes -
			  s->losses.fail_paths - s->losses.threads;
}

/* On-CPU sampling and its symbols, when both are on. */
static void collect_oncpu(const struct stats_sources *src, struct pl_sensor_stats *s)
{
	const struct oncpu_stats *os;
	const struct unwind_stats *us;
	const struct symbols_stats *ss;

	if (!src->oncpu || !src->sym)
		return;
	os = oncpu__stats(src->oncpu);
	us = oncpu__unwind_stats(src->oncpu);
	ss = symbols__stats(src->sym);
	s->oncpu_on = true;
	s->oncpu.rate_hz = src->sample_hz;
	s->oncpu.samples = os->samples;
	s->oncpu.malformed = os->malformed;
	s->oncpu.user_frames = os->user_frames;
	s->oncpu.kernel_frames = os->kernel_frames;
	s->oncpu.stops_end = us->stops[UNWIND_STOP_END];
	s->oncpu.stops_truncated = us->stops[UNWIND_STOP_TRUNCATED];
	s->oncpu.stops_no_map = us->stops[UNWIND_STOP_NO_MAP];
	s->oncpu.stops_no_cfi = us->stops[UNWIND_STOP_NO_CFI];
	s->oncpu.stops_no_file = us->stops[UNWIND_STOP_NO_FILE];
	s->oncpu.stops_bad = us->stops[UNWIND_STOP_BAD];
	s->oncpu.stops_depth = us->stops[UNWIND_STOP_DEPTH];
	s->oncpu.no_mappings = os->no_mappings;
	s->oncpu.stacks_held = os->stacks_held;
	s->oncpu.table_full = os->table_full;
	s->oncpu.orphans_swept = os->orphans_swept;
	s->oncpu.unwind_ns = os->unwind_ns;
	s->oncpu.unwind_objects = us->objects;
	s->oncpu.cfi_rows_read = us->rows_read;
	s->oncpu.cfi_rows_cached = us->rows_cached;
	s->oncpu.names_cached = os->names_cached;
	s->oncpu.maps_read = oncpu__procmaps_stats(src->oncpu)->proc_reads;
	s->oncpu.mappings = ss->mappings;
	s->oncpu.mappings_lost = bpfsensor__mmaps_lost(src->bpf);
	s->oncpu.objects = ss->objects;
	s->oncpu.objects_refused = ss->objects_refused;
	s->oncpu.objects_loaded = ss->objects_loaded;
	s->oncpu.object_load_failures = ss->load_failures;
	s->oncpu.kernel_symbols = ss->kernel_symbols;
	s->oncpu.named_symtab = ss->named[SYMBOLS_SRC_SYMTAB];
	s->oncpu.named_debug_build_id = ss->named[SYMBOLS_SRC_DEBUG_BUILD_ID];
	s->oncpu.named_debuglink = ss->named[SYMBOLS_SRC_DEBUGLINK];
	s->oncpu.named_minidebuginfo = ss->named[SYMBOLS_SRC_MINIDEBUGINFO];
	s->oncpu.named_dynsym = ss->named[SYMBOLS_SRC_DYNSYM];
	s->oncpu.named_none = ss->named[SYMBOLS_SRC_NONE];
	s->oncpu.minidebuginfo_failures = ss->minidebuginfo_failures;
	s->oncpu.debuglink_mismatches = ss->debuglink_mismatches;
}

static void collect_parts(const struct stats_sources *src, struct pl_sensor_stats *s)
{
	if (src->learn) {
		struct learner_counts c;

		learner__counts(src->learn, &c);
		s->baselines_on = true;
		s->baselines.baselines = c.baselines;
		s->baselines.process_samples_learned = c.process_samples;
		s->baselines.window_samples_learned = c.window_samples;
		s->baselines.anomalous_samples = c.anomalous;
		s->baselines.without_baseline = c.without_baseline;
		s->baselines.save_errors = c.save_errors;
		s->baselines.evicted = c.evicted;
		s->baselines.aged_out = c.aged_out;
		s->baselines.refused_full = c.refused_full;
		s->baselines.refused_user = c.refused_user;
		s->baselines.saves_queued = c.saves_queued;
		s->baselines.saves_dropped = c.saves_dropped;
		_Static_assert(LEARN_TOP_USERS == PL_STATS_TOP_USERS, "one number of top users");
		for (size_t i = 0; i < c.ntop_users; i++) {
			s->baselines.top_users[i].uid = c.top_users[i].uid;
			s->baselines.top_users[i].refused = c.top_users[i].refused;
		}
		s->baselines.ntop_users = c.ntop_users;
	}
	if (src->alerts) {
		s->rules_on = true;
		alerts__counts(src->alerts, &s->rules);
	}
	if (src->ident) {
		const struct identity_stats *st = identity__stats(src->ident);

		s->identity_on = true;
		s->identity.hashes_queued = st->hashes_queued;
		s->identity.hashes_done = st->hashes_done;
		s->identity.hash_failures = st->hash_failures;
		s->identity.hash_queue_full = st->hash_queue_full;
		s->identity.hashes_pending = st->hashes_pending;
		s->identity.hash_ns = st->hash_ns;
		s->identity.cache_hits = st->cache_hits;
	}
	for (int i = 0; i < PL_FEAT_MAX; i++)
		s->feature[i] = (typeof(s->feature[i])){ .name = features__id(i), .have = src->feat->have[i] };
	s->nfeature = PL_FEAT_MAX;
}

void stats__collect(const struct stats_sources *src, struct pl_sensor_stats *ret)
{
	const struct images_stats *im = images__stats(src->images);
	const struct failpaths_stats *fst = failpaths__stats(src->fails);
	const struct pipeline_stats *pst = pipeline__stats(src->pipe);
	uint64_t now = mono_ns();
	struct pl_sensor_stats *s = ret;
	struct rusage ru;

	*s = (struct pl_sensor_stats){ .time_ns = now + (uint64_t)mono_to_real(), .uptime_ns = now - src->start_ns };
	for (int i = PL_EV_EXEC; i <= PL_EV_LAST; i++)
		s->ringbuf_records[i] = im->records[i];
	s->exec_records = pst->exec_records;
	s->process_records = pst->process_records;
	s->window_records = pst->window_records;
	s->waiting.state_reads = im->wait_reads;
	s->waiting.skipped = im->wait_skipped;
	s->waiting.reports = im->wait_reports;
	s->fail_paths.table_entries = fst->table_entries;
	s->fail_paths.table_max = src->max_fail_paths;
	s->fail_paths.orphans_swept = fst->orphans_swept;
	s->fail_paths.idle_moved = fst->idle_moved;
	s->fail_paths.trimmed = fst->trimmed;
	s->fail_paths.unknown_swept = fst->unknown_swept;
	output_counts(&s->json, src->json);
	output_counts(&s->syslog, src->syslog);
	if (src->syslog)
		syslog_output__stats(src->syslog, &s->syslog_more);
	output_counts(&s->ocsf, src->ocsf);
	output_counts(&s->audit, src->audit);
	collect_losses(src, s);
	collect_oncpu(src, s);
	s->tracked_processes = proctable__count(src->procs);
	s->processes_swept = proctable__swept(src->procs);
	getrusage(RUSAGE_SELF, &ru);
	s->cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
		    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
	s->maxrss_kb = (uint64_t)ru.ru_maxrss;
	collect_parts(src, s);
}
