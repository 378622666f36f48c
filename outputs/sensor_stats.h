/* SPDX-License-Identifier: MIT */
/*
 * sensor_stats.h - the sensor's counters, typed: one struct for every reader.
 *
 * The sensor fills a struct pl_sensor_stats in one place (sensor/telemetry/stats.c) from
 * each module's own counters; the stats record, the audit log's stop
 * record, the loss alert, the metrics and status.json all read that one
 * struct, so a counter has one value and one name everywhere. Its JSON
 * (the `stats` record, docs/records.md) is made here at the edge
 * (stats_json.c), never by the modules that count.
 */
#ifndef PL_SENSOR_STATS_H
#define PL_SENSOR_STATS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "syslog_out.h"

/*
 * Every loss counter, by cause, named as in the stats record (docs/records.md):
 * the one table of the names, for the stats record, the loss alert and the
 * metrics. Each cause is of one class (pl_loss__class(), the table in
 * stats_json.c, docs/records.md#what-is-lost-and-what-is-bounded-detail):
 *   lost: an event, record, process, thread or output write the sensor
 *         should have had and has not (a ring buffer, a table, an output
 *         full). These raise the loss alert, count in plumbline_losses_total
 *         and in the exit line.
 *   detail: bounded detail by design: every event is still counted, a
 *         bounded part of its detail is not kept (a stack not stored, an
 *         image over its share of a table, a path displaced). Counted in the
 *         stats record and plumbline_detail_capped_total, never alerted.
 * A cause the table does not classify is lost: a new one cannot be silently
 * ignored. Truncations are neither: a record still goes out whole but for a
 * cut string.
 */
enum pl_loss {
	PL_LOSS_RINGBUF_FULL,
	PL_LOSS_INVALID_RECORDS,
	PL_LOSS_PROC_MAP_FULL,
	PL_LOSS_PROCTABLE_FULL,
	PL_LOSS_FAIL_PATH_MAP_FULL,
	PL_LOSS_FAIL_PATH_IMAGE_CAP,
	PL_LOSS_PATH_FAULT,
	PL_LOSS_FAIL_KEYS_UNREMEMBERED,
	PL_LOSS_THREAD_STATE,
	PL_LOSS_SAMPLE_RING_FULL,
	PL_LOSS_STACK_COPY_FAILED,
	PL_LOSS_KSTACK_UNREADABLE,
	PL_LOSS_MAPPINGS_LOST,
	PL_LOSS_BINARIES_UNTRACKED,
	PL_LOSS_HASH_QUEUE_FULL,
	PL_LOSS_OUTPUT_DROPPED,
	PL_LOSS_SYSLOG_DROPPED,
	PL_LOSS_OCSF_DROPPED,
	PL_LOSS_AUDIT_DROPPED,
	PL_LOSS_FAIL_PATHS_DISPLACED,
	PL_LOSS_BINARY_PATHS_FORGOTTEN,
	PL_LOSS_STACK_TABLE_FULL,
	PL_LOSS_OBJECTS_REFUSED,
	PL_LOSS_FILE_IMAGE_CAP,
	PL_LOSS_MAP_IMAGE_CAP,
	PL_LOSS_NET_DEST_IMAGE_CAP,
	PL_LOSS_KERNEL_OTHER, /* kernel drop counters of class lost that no cause above names */
	PL_LOSS_MAX
};

/* What a loss cause is: 0, the default of an unclassified one, is lost. */
enum pl_loss_class {
	PL_LOSS_LOST = 0,
	PL_LOSS_DETAIL,
};

/*
 * The kernel's drop counters, as the stats record's kernel_drops names them,
 * and the kinds of ring-buffer records (1 to PL_REC_KINDS - 1). This library
 * knows nothing of the BPF side: these are the ABI's PL_DROP_* and PL_EV_*
 * (bpf/plumbline.h) by number, and sensor/telemetry/stats.c, which copies the
 * kernel's counters in, asserts that each agrees.
 */
enum pl_kdrop {
	PL_KDROP_RINGBUF,
	PL_KDROP_PROC_MAP,
	PL_KDROP_FAILPATH_MAP,
	PL_KDROP_PATH_TRUNC,
	PL_KDROP_ARGS_TRUNC,
	PL_KDROP_THREAD_STATE,
	PL_KDROP_PATH_FAULT,
	PL_KDROP_FAILPATH_IMAGE,
	PL_KDROP_SAMPLE_RING,
	PL_KDROP_STACK_COPY,
	PL_KDROP_KSTACK,
	PL_KDROP_FILE_IMAGE,
	PL_KDROP_MAP_IMAGE,
	PL_KDROP_NET_IMAGE,
	PL_KDROP_MAX
};
#define PL_REC_KINDS 10 /* exec, fork, seen, end, fail_path, stack, file, map, net, from 1 */

/* The cause's name: its key in the stats record ("?" out of range). */
const char *pl_loss__name(enum pl_loss c);

/* The kernel drop counter (enum pl_kdrop) that counts cause c, or -1 when user space counts it. */
int pl_loss__drop(enum pl_loss c);

/* The cause's class (lost for one out of range: never silently ignored). */
enum pl_loss_class pl_loss__class(enum pl_loss c);

/* The class of a kernel drop counter: that of the cause it counts; lost for
 * one no cause names (a new slot), detail for the truncations (nothing lost). */
enum pl_loss_class pl_drop__class(int drop);

/* The kernel drop counter's key in the stats record's kernel_drops ("?" out of range). */
const char *pl_drop__name(int drop);

/* What was lost so far, by what it was: the words of the live view, the
 * last log line and the audit log's `losses` records. */
struct live_losses {
	uint64_t records;
	uint64_t processes;
	uint64_t output_writes;
	uint64_t fail_paths;
	uint64_t threads; /* threads whose times could not be measured */
	uint64_t other;   /* every other lost cause (mappings, binaries, hashes, keys, OCSF, audit...) */
};

/* One output's counters. */
struct pl_stats_output {
	bool on; /* the output is open */
	uint64_t written, dropped;
	bool failing; /* its last record was lost (or its target was unusable at open) */
};

/* The rules' counters (the stats record's `rules`, and `plumbline replay`'s last word). */
struct pl_stats_rules {
	uint64_t rules, enabled; /* loaded, and of them enabled */
	uint64_t events, alerts, throttled, summaries, summaries_pending, reloads, reload_failures;
	uint64_t regex_limit_hits, regex_errors, regex_runs, regex_cache_hits, regex_skipped, regex_skipped_matches;
};

#define PL_STATS_FEAT_MAX 32
#define PL_STATS_TOP_USERS 4
#define PL_STATS_FAMILIES_MAX 12

struct pl_sensor_stats {
	uint64_t time_ns;			   /* CLOCK_REALTIME when taken */
	uint64_t uptime_ns;			   /* since the sensor started */
	uint64_t ringbuf_records[PL_REC_KINDS];       /* by kind (PL_EV_*) */
	uint64_t exec_records, process_records, window_records;
	uint64_t kernel_drops[PL_KDROP_MAX];
	uint64_t loss[PL_LOSS_MAX]; /* every loss, by cause (0 for a part that is off) */
	uint64_t lost;		    /* the sum of loss[] of class lost: what the loss alert says */
	uint64_t detail_capped;	    /* the sum of loss[] of class detail: never alerted */
	struct live_losses losses;
	struct {
		uint64_t state_reads, skipped, reports; /* /proc reads of idle processes */
	} waiting;
	struct {
		uint64_t table_entries, table_max, orphans_swept, idle_moved, unknown_swept, trimmed;
	} fail_paths;
	bool oncpu_on; /* on-CPU sampling (and its symbols) are on */
	struct {
		uint64_t rate_hz, samples, malformed, user_frames, kernel_frames;
		uint64_t stops_end, stops_truncated, stops_no_map, stops_no_cfi, stops_no_file, stops_bad, stops_depth;
		uint64_t no_mappings, stacks_held, table_full, orphans_swept, unwind_ns, unwind_objects, maps_read;
		uint64_t cfi_rows_read, cfi_rows_cached, names_cached;
		uint64_t mappings, mappings_lost, objects, objects_refused;
		uint64_t objects_loaded, object_load_failures, kernel_symbols;
		/* objects loaded, by where their names came from (symbols.h's order) */
		uint64_t named_symtab, named_debug_build_id, named_debuglink, named_minidebuginfo, named_dynsym,
		    named_none;
		uint64_t minidebuginfo_failures, debuglink_mismatches;
	} oncpu;
	struct pl_stats_output json, audit, ocsf;
	struct pl_stats_output syslog;
	struct pl_syslog_stats syslog_more; /* with syslog.on */
	uint64_t tracked_processes;
	uint64_t processes_swept; /* entries of processes gone without an end record (proctable.h) */
	uint64_t cpu_ns, maxrss_kb; /* the sensor's own (getrusage) */
	struct {
		const char *name; /* static */
		bool have;
	} feature[PL_STATS_FEAT_MAX];
	size_t nfeature;
	bool baselines_on;
	struct {
		uint64_t baselines, process_samples_learned, window_samples_learned, anomalous_samples;
		uint64_t without_baseline, save_errors, evicted, aged_out;
		uint64_t refused_full, refused_user, saves_queued, saves_dropped;
		struct {
			uint32_t uid;
			uint64_t refused;
		} top_users[PL_STATS_TOP_USERS]; /* the users most refused over their share, most first */
		size_t ntop_users;
		/* per rule family, armed or not (docs/baselines.md#armed): in the stats record only */
		struct {
			const char *name; /* static */
			uint64_t ready, learning; /* active baselines it judges */
			bool armed;
		} families[PL_STATS_FAMILIES_MAX];
		size_t nfamilies;
	} baselines;
	bool rules_on;
	struct pl_stats_rules rules;
	bool identity_on;
	struct {
		uint64_t hashes_queued, hashes_done, hash_failures, hash_queue_full, hashes_pending, hash_ns,
		    cache_hits;
	} identity;
};

/* The `stats` record of s (docs/records.md), a new object, or NULL on ENOMEM. */
struct json_object *stats_json__record(const struct pl_sensor_stats *s);

/* The stats record's `rules` object of r (new reference), NULL on ENOMEM. */
struct json_object *stats_json__rules(const struct pl_stats_rules *r);

#endif
