/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h - the sensor's state as of one tick, for the metrics endpoint
 * and `plumbline status`.
 *
 * Filled once per tick on the event loop from the same counters as the stats
 * record (stats__collect(): struct pl_sensor_stats), never recounted, then
 * rendered twice: to Prometheus text (outputs/metrics.h), which the HTTP
 * thread serves from its own copy, and to status.json (docs/status.md).
 * Nothing here points into live sensor state once filled: every string is
 * copied, so a rendering reads only the snapshot.
 */
#ifndef PL_SNAPSHOT_H
#define PL_SNAPSHOT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "pipeline/alerts.h"
#include "probes/hostctx.h"
#include "probes/kfeatures.h"
#include "pipeline/fleet.h"
#include "pipeline/learn.h"
#include "process/live.h"
#include "metrics.h"
#include "plumbline.h"
#include "telemetry/stats.h"

enum snap_output { SNAP_OUT_JSON, SNAP_OUT_SYSLOG, SNAP_OUT_OCSF, SNAP_OUT_AUDIT, SNAP_OUT_MAX };

struct snap_output_state {
	bool on;
	uint64_t written, dropped;
	bool failing;		       /* its last record was lost */
	char state[16];		       /* "ok", "failing"; syslog: "connected", "connecting", "disconnected" */
	uint64_t queued, queued_bytes; /* syslog: what waits for the target */
};

struct snap_rule {
	char *name; /* raw bytes of the rule's name (escaped where rendered) */
	bool enabled;
	uint64_t evaluations, alerts, throttled;
};

/* One loss counter of the stats record: its key there, and its value. */
struct snap_loss {
	const char *cause; /* static */
	uint64_t n;
	bool detail; /* bounded detail (pl_loss__class()): plumbline_detail_capped_total, not a loss */
};

#define SNAP_LOSSES_MAX 40

struct snapshot {
	/* the sensor */
	uint32_t pid;
	uint64_t time_ns;	/* REALTIME, when filled */
	uint64_t start_time_ns; /* REALTIME, when the sensor started */
	uint64_t uptime_ns;
	uint64_t cpu_ns;    /* user + system, getrusage(RUSAGE_SELF) */
	uint64_t rss_bytes; /* /proc/self/statm resident pages x page size */
	uint64_t maxrss_bytes;
	bool stopped; /* the last snapshot, at stop */
	/* what it watches */
	bool have[PL_FEAT_MAX];
	uint64_t tracked_processes;
	uint32_t max_procs;
	bool baselines_on, rules_on, sampling_on;
	/* events and records */
	uint64_t ringbuf_records[PL_EV_LAST + 1]; /* by PL_EV_*; [0] unused */
	uint64_t exec_records, process_records, window_records;
	/* losses, every counter of the stats record that is one, by its key there */
	struct snap_loss loss[SNAP_LOSSES_MAX];
	size_t nloss;
	uint64_t path_truncated, args_truncated; /* kernel_drops that lose nothing (cut strings) */
	struct live_losses losses;		 /* the same, grouped as the live view says them */
	/* outputs */
	struct snap_output_state out[SNAP_OUT_MAX];
	/* rules */
	struct pl_stats_rules rules;
	struct snap_rule *rule;
	size_t nrule;
	struct alerts_recent recent[ALERTS_RECENT_MAX];
	size_t nrecent;
	/* baselines */
	struct learn_progress learn;
	/* the fleet's view (fleet.h); fleet.dir points into fleet_dir */
	struct fleet_counts fleet;
	char fleet_dir[4096];
	char host_name[256]; /* the host's name as alerts say it (--host-name or the machine's) */
	/* the host */
	struct hostctx_psi psi;
	uint64_t scrapes; /* of the metrics endpoint */
	uint64_t cut_deadline, cut_evicted; /* its connections cut with an incomplete request head */
};

/* Fill *ret (freed first with snapshot__clear) from src; start_time_ns is
 * REALTIME at start. 0 or -ENOMEM (then without counts per rule). */
int snapshot__fill(struct snapshot *ret, const struct stats_sources *src, uint64_t start_time_ns, uint32_t max_procs);
void snapshot__clear(struct snapshot *s);

/* The output's name in metrics and status.json ("json", "syslog", "ocsf", "audit"). */
const char *snap_output__name(enum snap_output o);

/* Render s as Prometheus text into e (docs/metrics.md lists every family),
 * all but the process's CPU and memory: snapshot__process_metrics(). */
int snapshot__metrics(const struct snapshot *s, struct pl_expo *e);

/* The sensor process's CPU time and resident memory as of now
 * (getrusage, /proc/self/statm): a metrics_live_fn, rendered at each scrape
 * in the server's thread (it reads nothing of the sensor's own state). */
void snapshot__process_metrics(struct pl_expo *e, void *ctx);

/* s as status.json's object (docs/status.md). NULL on ENOMEM. */
struct json_object *snapshot__status(const struct snapshot *s, const char *runtime_dir, const char *metrics_addr);

#endif
