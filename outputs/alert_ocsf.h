/* SPDX-License-Identifier: MIT */
/*
 * alert_ocsf.h - alerts as OCSF Detection Findings (class_uid 2004), so a
 * SIEM ingests them without a parser of ours (docs/outputs.md#ocsf).
 *
 * An alert is a finding created (activity 1); the alert_summary of its
 * dedupe window is the same finding updated (activity 2, same
 * finding_info.uid) with the count of repeats held back. The baseline
 * comparison goes into anomaly_analyses (OCSF 1.5+), the process into
 * evidences[].process, and what OCSF has no attribute for into `unmapped`
 * under the native record's names.
 *
 * Built from the typed alert (alert.h): the process and the baseline from
 * the sample it matched, `unmapped` from the native record's own builders
 * (alert_json.h), so both forms say the same.
 */
#ifndef PL_ALERT_OCSF_H
#define PL_ALERT_OCSF_H

#include <json-c/json.h>

#include "alert.h"

#define ALERT_OCSF_VERSION "1.6.0" /* metadata.version: the schema release these findings follow */

/* The finding of a: created for an alert (a rule's or the sensor's own),
 * updated for a summary. A new object, or NULL (out of memory, or a
 * summary that names no alert). */
struct json_object *alert_ocsf__finding(const struct pl_alert *a);

/* OCSF severity_id (1 Informational .. 6 Fatal) of a syslog severity 0..7. */
int alert_ocsf__severity_id(int syslog_severity);

#endif
