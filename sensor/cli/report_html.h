/* SPDX-License-Identifier: MIT */
/*
 * report_html.h - one alert record as a self-contained HTML page, for
 * `plumbline report` (cmd_report.c, docs/cli.md): what happened in words,
 * the process and its ancestry, the baseline as a plot with the alert's
 * value marked, the flame graph, the host, the rest of the evidence.
 *
 * Pure: it reads the record, writes to a FILE* and nothing else (no file,
 * no clock, no network). The record is untrusted: every string is unescaped
 * once (the sensor escaped it) and escaped again for HTML, so no byte of it
 * can open an element or an attribute; numbers are printed by us, never
 * copied as text. The page loads nothing: CSS and SVG inline, no script.
 */
#ifndef PL_REPORT_HTML_H
#define PL_REPORT_HTML_H

#include <json-c/json.h>
#include <stdio.h>

/* The ids of the page's sections, in order (the tests assert them). */
#define REPORT_SECTIONS "summary", "process", "baseline", "flamegraph", "host", "evidence"

/*
 * The page for alert (a native alert record, as evidence_find_alert()
 * gives it) on f. version: the sensor version the page names. 0, or -EIO
 * when a write to f failed, -ENOMEM.
 */
int report__write_html(struct json_object *alert, const char *version, FILE *f);

#endif
