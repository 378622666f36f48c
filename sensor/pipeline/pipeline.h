/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - a sample's way through the sensor.
 *
 * Every sample of every moment takes the same steps, in this order:
 *   1. score: the learner puts its baseline's state and, for a window or an
 *      exit, its verdict into the sample (learn.h);
 *   2. judge: the rules that run at that moment read the sample and raise
 *      alerts (alerts.h);
 *   3. learn: the sample goes into its baseline, unless a rule fired on it
 *      or the policy says no;
 *   4. record: the sample is written as a JSON record, when records of its
 *      kind were asked for.
 * Learning after the rules keeps an attack a rule caught out of the
 * baseline even when its scores alone were not anomalous. JSON is built
 * only in step 4, and for alerts, only when something is written.
 *
 * Kernel-free: the caller (images.c) builds the samples; tests drive the
 * pipeline with samples of their own.
 */
#ifndef PL_PIPELINE_H
#define PL_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "pipeline/alerts.h"
#include "pipeline/learn.h"
#include "output.h"
#include "process/proctable.h"
#include "sample.h"

struct pipeline_opts {
	bool exec_records;    /* write exec samples */
	bool process_records; /* write exit samples (process records) */
	bool window_records;  /* write window samples */
	bool map_records;     /* write map samples (an executable object mapped) */
};

/* Which steps a sample takes (pipeline__run). */
enum pipeline_step {
	PIPE_SCORE = 1u << 0,  /* scored against its baseline (window, exit) */
	PIPE_LEARN = 1u << 1,  /* ... and may be learned */
	PIPE_JUDGE = 1u << 2,  /* the rules run on it */
	PIPE_RECORD = 1u << 3, /* it may be written */
};

struct pipeline_stats {
	uint64_t exec_records, process_records, window_records, map_records; /* built and handed to the output */
};

struct pipeline;

/* l and a may be NULL (no baselines, no rules); both are borrowed. 0 or -ENOMEM. */
int pipeline__new(const struct pipeline_opts *o, struct learner *l, struct alerts *a, struct pipeline **ret);
void pipeline__free(struct pipeline *p);

/* Where records (json) and alerts (alert_outs[n], NULL entries skipped) go;
 * borrowed, and set again when one is replaced (a SIGHUP reopen). */
void pipeline__set_outputs(struct pipeline *p, struct pl_output *json, struct pl_output *const *alert_outs, size_t n);

/* Whether a sample of moment m would be judged or written: when not, an
 * exec sample need not be built at all. */
bool pipeline__wants(const struct pipeline *p, enum pl_moment m);

/*
 * Take s (a sample of pi's image; pi may be NULL when user space doesn't
 * know the image) through `steps` (enum pipeline_step). now_ns is
 * CLOCK_REALTIME, the alerts' time. s->bl is filled on the way. Returns
 * whether a rule at Warning or above fired on it (then it is not learned).
 */
bool pipeline__run(struct pipeline *p, struct pl_sample *s, struct proc_info *pi, unsigned steps, uint64_t now_ns);

/* The alerts' dedupe windows that ended by now_ns (REALTIME) write their
 * summaries to the alert outputs (the tick); pipeline__finish() closes them
 * all (shutdown). No-ops without rules. */
void pipeline__tick(struct pipeline *p, uint64_t now_ns);
void pipeline__finish(struct pipeline *p, uint64_t now_ns);

const struct pipeline_stats *pipeline__stats(const struct pipeline *p);

/* Whether the last pipeline__run() matched a rule at Warning or above (its
 * sample must not be learned). */
bool pipeline__last_alerted(const struct pipeline *p);

#endif
