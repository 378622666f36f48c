/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the sensor's own record: what it did, and every loss, by cause.
 *
 * The modules keep their own counters; this one only gathers them, typed,
 * into one struct pl_sensor_stats (outputs/sensor_stats.h), whose JSON, the `stats`
 * record (docs/records.md), is made at the edge in outputs/stats_json.c.
 * Every source may be NULL when that part is off.
 */
#ifndef PL_STATS_H
#define PL_STATS_H

#include <stdint.h>

#include "pipeline/alerts.h"
#include "process/binagg.h"
#include "probes/bpfsensor.h"
#include "process/failpaths.h"
#include "identity/identity.h"
#include "pipeline/images.h"
#include "probes/kfeatures.h"
#include "pipeline/fleet.h"
#include "pipeline/learn.h"
#include "stacks/oncpu.h"
#include "stacks/symbols.h"
#include "output.h"
#include "pipeline/pipeline.h"
#include "process/proctable.h"
#include "sensor_stats.h"

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
	const struct fleet *fleet;      /* the fleet's view, NULL: none */
};

/*
 * Every counter of the sensor now, into *ret (sensor_stats.h): the one
 * place they are gathered from the modules, for every reader (the stats
 * record, the audit log's stop record, the loss alert, the metrics and
 * status.json, the live view). A source that is off counts 0.
 */
void stats__collect(const struct stats_sources *src, struct pl_sensor_stats *ret);

#endif
