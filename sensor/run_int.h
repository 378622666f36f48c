/* SPDX-License-Identifier: MIT */
/*
 * run_int.h - the daemon's state (struct sensor), private to run.c (the
 * loop, the tick, SIGHUP, shutdown) and run_setup.c (opening and closing
 * everything the loop serves).
 */
#ifndef PL_RUN_INT_H
#define PL_RUN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "process/waitstate.h"
#include "pipeline/alerts.h"
#include "telemetry/audit_trail.h"
#include "process/binagg.h"
#include "probes/bpfsensor.h"
#include "process/failpaths.h"
#include "identity/identity.h"
#include "pipeline/images.h"
#include "probes/kfeatures.h"
#include "pipeline/fleet.h"
#include "pipeline/learn.h"
#include "process/live.h"
#include "telemetry/lossalert.h"
#include "stacks/oncpu.h"
#include "config/options.h"
#include "output.h"
#include "pipeline/pipeline.h"
#include "process/proctable.h"
#include "telemetry/runtime.h"
#include "stacks/symbols.h"

enum { FD_RINGBUF = 1, FD_SIGNAL, FD_TICK, FD_STOP, FD_IDENTITY, FD_SYSLOG, FD_SAVED, FD_FLEET };

/* How an output is named in the messages of on_output(). */
struct out_label {
	const char *noun;  /* what it loses: "records", "alerts" */
	char where[160];   /* "/var/log/plumbline.jsonl", "syslog (unix:/dev/log)" */
	const char *until; /* when the loss stops */
};

struct sensor {
	const struct run_opts *opts;
	struct pl_features feat;
	struct bpfsensor *bpf;
	struct proctable *procs;
	struct identity *ident;
	struct pkgindex *pkgs;   /* which package owns a file (dpkg) */
	struct objects *objects; /* executable objects mapped (identity/objects.h) */
	struct pl_output *out;
	struct live *live;
	struct learner *learn; /* NULL: baselines off or unavailable */
	struct fleet *fleet;   /* the fleet's view (--role, --fleet-dir), NULL: none */
	struct alerts *alerts; /* NULL: --no-rules */
	struct binagg *bin;
	struct failpaths *fails; /* failed-path keys: the kernel's table and each image's list */
	struct symbols *sym;     /* frame names; NULL: neither sampling nor wait stacks */
	struct waitstate_kstacks kstacks; /* wait stacks from the task iterator (.read NULL: none) */
	struct oncpu *oncpu;     /* on-CPU samples per image; NULL: sampling off */
	struct pl_output *syslog; /* alerts to the syslog daemon, NULL: --syslog off */
	struct pl_output *text;   /* alerts as lines on stdout with the live view */
	struct pl_output *ocsf;   /* alerts as OCSF findings (--ocsf), NULL: none */
	struct out_label out_label, syslog_label, text_label, ocsf_label;
	uint64_t last_tick_ns;
	int epfd, sigfd, tickfd, stopfd;
	bool stop;
	uint64_t start_ns;
	uint64_t last_live_ns;
	uint64_t ticks;
	uint64_t pass_ns;  /* the time of the current pass over the kernel's table */
	uint64_t consumed; /* records handled in the current consume() */
	struct images *images;
	/* watched files: the path classes of the running rules, and when the
	 * kernel's watch set was last expanded from them (monotonic ns) */
	struct fileclass *classes;
	uint64_t files_expanded_ns;
	struct pipeline *pipe;
	struct audit_trail *audit; /* NULL: no --audit-log */
	const char *stop_reason;   /* for the audit log's stop line */
	struct runtime *rt;        /* metrics, status.json */
	struct lossalert *loss;     /* the "Sensor lost events" alert */
	struct pl_alert_ids ids;    /* the one generator of alert ids: rules' alerts, summaries, losses */
	bpfsensor_record_fn on_record; /* the ring buffer's callback (run.c), set before sensor__open() */
};

#define SENSOR_ALERT_OUTPUTS 5 /* JSON, syslog, text, audit log, OCSF */

/* Open everything the loop serves, in order: outputs, signals, rules,
 * probes, sampling, the event loop, metrics. 0 or -errno, logged once;
 * what was opened is closed by sensor__close(). (run_setup.c) */
int sensor__open(struct sensor *s);

/* Close what sensor__open() opened, whatever it got to. (run_setup.c) */
void sensor__close(struct sensor *s);

/* Why jsonl_output__open(path) failed with r, in words an operator can act
 * on, in buf (returned). (run_setup.c) */
const char *sensor__json_open_why(int r, const char *path, char *buf, size_t size);

/* Where alerts go (rule alerts, summaries and the loss alert alike): the
 * outputs open now, into ret (NULL where one is off); their count. (run_setup.c) */
size_t sensor__alert_outputs(const struct sensor *s, struct pl_output *ret[SENSOR_ALERT_OUTPUTS]);

/* Where the pipeline writes records and alerts: set again when one changes. (run_setup.c) */
void sensor__set_outputs(struct sensor *s);

/* Build the path classes from the running rules and load the kernel's watch
 * set from them (run_setup.c): at start, after a reload, when a watched-file
 * record asks (a file created or replaced where a class looks), and every
 * FILES_RESCAN_NS. */
void sensor__watch_files(struct sensor *s);
#define FILES_RESCAN_NS 60000000000ull

#endif
