/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the sensor's own record: what it did, and every loss, by cause.
 *
 * The modules keep their own counters; this one only gathers them into the
 * `stats` record (docs/records.md) and into the words of the live view and
 * the last log line. Every source may be NULL when that part is off.
 */
#ifndef PL_STATS_H
#define PL_STATS_H

#include <json-c/json.h>
#include <stdint.h>

#include "pipeline/alerts.h"
#include "process/binagg.h"
#include "probes/bpfsensor.h"
#include "process/failpaths.h"
#include "identity/identity.h"
#include "pipeline/images.h"
#include "probes/kfeatures.h"
#include "pipeline/learn.h"
#include "stacks/oncpu.h"
#include "stacks/symbols.h"
#include "process/live.h"
#include "output.h"
#include "pipeline/pipeline.h"
#include "process/proctable.h"

struct stats_sources {
	uint64_t start_ns;              /* CLOCK_MONOTONIC at start */
	uint32_t max_fail_paths;        /* the failed-path table's size */
	const struct pl_features *feat;
	struct bpfsensor *bpf;
	const struct images *images;
	const struct failpaths *fails;
	const struct pipeline *pipe;
	const struct proctable *procs;
	const struct pl_output *json;   /* the JSON output */
	const struct pl_output *syslog;
	const struct pl_output *ocsf;   /* --ocsf, NULL: none */
	const struct learner *learn;
	const struct alerts *alerts;
	const struct binagg *bin;
	const struct identity *ident;
	const struct oncpu *oncpu;      /* NULL: sampling off */
	const struct symbols *sym;
	uint32_t sample_hz;
	const struct pl_output *audit;  /* the audit log (--audit-log) */
};

/*
 * Every loss counter, by cause, named as in the stats record (docs/records.md):
 * the one table of the names, for the stats record, the loss alert and the
 * metrics. The causes before PL_LOSS_ALERTED raise the loss alert; the
 * others are counted, never alerted (a path displaced from a full table
 * still had its count kept). Truncations are not losses: a record still
 * goes out.
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
	PL_LOSS_STACK_TABLE_FULL,
	PL_LOSS_STACK_NOT_STORED,
	PL_LOSS_STACK_IMAGE_CAP,
	PL_LOSS_MAPPINGS_LOST,
	PL_LOSS_BINARIES_UNTRACKED,
	PL_LOSS_HASH_QUEUE_FULL,
	PL_LOSS_OUTPUT_DROPPED,
	PL_LOSS_SYSLOG_DROPPED,
	PL_LOSS_OCSF_DROPPED,
	PL_LOSS_AUDIT_DROPPED,
	PL_LOSS_ALERTED,
	PL_LOSS_FAIL_PATHS_DISPLACED = PL_LOSS_ALERTED,
	PL_LOSS_BINARY_PATHS_FORGOTTEN,
	PL_LOSS_STACKS_UNREADABLE,
	PL_LOSS_KEYS_DISPLACED,
	PL_LOSS_OBJECTS_REFUSED,
	PL_LOSS_MAX
};

/* The cause's name: its key in the stats record. */
const char *pl_loss__name(enum pl_loss c);

/* Every loss counter now, into ret. A source that is off counts 0. */
void stats__loss_counts(const struct stats_sources *src, uint64_t ret[PL_LOSS_MAX]);

/* The stats record's `rules` object of the counters c (new reference),
 * NULL on ENOMEM; `plumbline replay` says the same at its end. */
struct json_object *stats__rules_json(const struct alerts_counts *c);

/* The stats record (new reference), NULL on ENOMEM: its JSON made here,
 * from every module's typed counters. */
struct json_object *stats__record(const struct stats_sources *src);

/* What was lost so far, by what it was. */
struct live_losses stats__losses(const struct stats_sources *src);

#endif
