/* SPDX-License-Identifier: MIT */
/*
 * lossalert.h - the sensor's own alert when it loses anything.
 *
 * Every loss is already counted, by cause (stats.c); this module turns a
 * growing count into an `alert` record, rule "Sensor lost events", priority
 * Warning, whose evidence holds the counts by cause since the previous such
 * alert. It is built in rather than a rule: a flood that makes the sensor
 * lose events is itself an attack (Security), so the alert must not
 * depend on a ruleset that can be disabled, broken or missing (--no-rules).
 *
 * At most one alert each interval: losses in between are folded into the
 * next alert (suppressed_before says how many ticks with new losses were
 * folded in). sensor shutdown calls lossalert__flush(), so the sum of the
 * alerts' counts equals the last stats record's, cause by cause.
 */
#ifndef PL_LOSSALERT_H
#define PL_LOSSALERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alert.h"
#include "output.h"
#include "sensor_stats.h"

#define LOSSALERT_RULE "Sensor lost events"
#define LOSSALERT_INTERVAL_S 60 /* default: at most one loss alert a minute */

struct lossalert;

/* interval_s: at most one alert each interval_s seconds (0: the alert is off,
 * lossalert__tick() does nothing). ids: the sensor's id generator, shared
 * with the rules' alerts (kept, not copied). 0 or -ENOMEM. */
int lossalert__open(uint32_t interval_s, struct pl_alert_ids *ids, struct lossalert **ret);
void lossalert__free(struct lossalert *la);

/* Once a tick: read the loss counters (st->loss); raise the alert to every output in
 * outs (NULL entries skipped, each in its alert_form) when some grew and the
 * interval since the last alert has passed. now_mono_ns: CLOCK_MONOTONIC. */
void lossalert__tick(struct lossalert *la, const struct pl_sensor_stats *st, uint64_t now_mono_ns,
		     struct pl_output *const *outs, size_t nouts);

/* At shutdown: raise the alert for losses not yet reported, whatever the
 * interval. */
void lossalert__flush(struct lossalert *la, const struct pl_sensor_stats *st, struct pl_output *const *outs,
		      size_t nouts);

/* Alerts raised so far. */
uint64_t lossalert__raised(const struct lossalert *la);

#endif
