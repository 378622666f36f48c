/* SPDX-License-Identifier: MIT */
/*
 * alert_json.h - the native JSON record of an alert (docs/records.md,
 * `alert` and `alert_summary`), built from the typed alert (alert.h).
 *
 * One builder per key, in one table per record type: the record is the
 * table in order, and the OCSF finding (alert_ocsf.h) takes the same
 * builders for what it keeps in `unmapped`, so the two forms cannot drift.
 */
#ifndef PL_ALERT_JSON_H
#define PL_ALERT_JSON_H

#include <json-c/json.h>

#include "alert.h"

/* The record of a. A new object, or NULL on ENOMEM. */
struct json_object *alert_json__record(const struct pl_alert *a);

/* The value the record of a has under key, as a new reference; NULL when
 * that value is null (or on ENOMEM, or for a key the record lacks). */
struct json_object *alert_json__value(const struct pl_alert *a, const char *key);

#endif
