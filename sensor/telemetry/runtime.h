/* SPDX-License-Identifier: MIT */
/*
 * runtime.h - what the running sensor shows of itself: the
 * metrics endpoint (--metrics) and status.json in the runtime directory
 * (--runtime-dir), both from one snapshot per tick (snapshot.h).
 *
 * status.json is replaced atomically (a temporary file, then rename(2)) at
 * start, every STATUS_INTERVAL_S seconds and at stop, so `plumbline status`
 * reads a whole file and never talks to the sensor. The metrics server runs
 * in libmicrohttpd's thread and serves the text published at the last tick.
 */
#ifndef PL_RUNTIME_H
#define PL_RUNTIME_H

#include "config/options.h"
#include "telemetry/stats.h"

#define STATUS_INTERVAL_S 2
#define STATUS_FILE	  "status.json"

struct runtime;

/*
 * Start the metrics server when opts->metrics is set (a failure is fatal:
 * -errno, logged) and make the runtime directory (a failure there is a
 * warning: the sensor runs without status.json). *ret may be used with
 * runtime__tick() once the stats sources exist.
 */
int runtime__open(const struct run_opts *opts, struct runtime **ret);

/* The tick: a new snapshot, published to the metrics server; status.json
 * rewritten when STATUS_INTERVAL_S passed since the last time, or `now`. */
void runtime__tick(struct runtime *rt, const struct stats_sources *src, bool now);

/* The last snapshot, status.json saying "stopped". */
void runtime__stop(struct runtime *rt, const struct stats_sources *src);

/* Stop the server and free. NULL-safe. */
void runtime__free(struct runtime *rt);

#endif
