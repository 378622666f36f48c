/* SPDX-License-Identifier: MIT */
/*
 * audit_trail.h - what the sensor puts in its audit log (outputs/audit.h),
 * and when: its start (version, options, the ruleset's hash), every alert
 * (the log is one of the alert outputs), rule reloads, new losses at most
 * once per stats interval, its stop (reason, final stats); and the chain's
 * head, sent off-host (syslog) and to the JSON output every head interval
 * in which something was appended, and at stop.
 *
 * The one layer that logs for the audit log: it says at open where the
 * chain continues and whether a torn line was found.
 */
#ifndef PL_AUDIT_TRAIL_H
#define PL_AUDIT_TRAIL_H

#include <stdint.h>

#include "pipeline/alerts.h"
#include "config/options.h"
#include "output.h"
#include "telemetry/stats.h"

struct audit_trail;

/* Open o->audit_log (logged on failure). 0, or -errno. */
int audit_trail__open(const struct run_opts *o, struct audit_trail **ret);
void audit_trail__free(struct audit_trail *t);

/* The log as an output (alerts go there); NULL-safe. */
struct pl_output *audit_trail__output(struct audit_trail *t);

/* The `start` line: after set-up, before the sensor reports ready. a may be NULL (--no-rules). */
void audit_trail__start(struct audit_trail *t, const struct alerts *a);

/* A `rules` line after a SIGHUP reload whose result was r (0 or -errno). */
void audit_trail__rules(struct audit_trail *t, const struct alerts *a, int r);

/*
 * Once a second: a `losses` line when lost (struct pl_sensor_stats' losses) grew since the last
 * one (checked once per stats interval), and the head to heads[n] (NULL
 * entries skipped) when something was appended and the head interval has
 * passed. now_ns: CLOCK_MONOTONIC.
 */
void audit_trail__tick(struct audit_trail *t, const struct live_losses *lost, uint64_t now_ns,
		       struct pl_output *const *heads, size_t n);

/* The `stop` line with reason and the final counters st (as the stats record), then the head to heads[n]. */
void audit_trail__stop(struct audit_trail *t, const char *reason, const struct pl_sensor_stats *st,
		       struct pl_output *const *heads, size_t n);

/*
 * For commands that change what the sensor trusts (`baseline import`,
 * `forget`): open path before the change (refused with -EBUSY while a
 * sensor holds it: the change would go unrecorded), then append one record
 * of the given type (rec: its JSON, "type" included).
 * Both log their failures.
 */
int audit_trail__cli_open(const char *path, const char *key, struct pl_output **ret);
int audit_trail__cli_append(struct pl_output *o, const char *path, const char *type, struct json_object *rec);

/* SHA-256 of a file's content as lowercase hex (a bundle an import reads, so
 * at most BL_BUNDLE_MAX bytes: -EFBIG past it). 0 or -errno (ret untouched). */
int audit_trail__file_sha256(const char *path, char ret[65]);

static inline void output_freep(struct pl_output **o)
{
	output__free(*o);
}

#endif
