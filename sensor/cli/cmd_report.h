/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.h - `plumbline report ALERT_ID FILE [-o OUT.html]`
 * (docs/cli.md, "REPORT"): one alert as a self-contained HTML page for a
 * ticket (report_html.c renders it). No root, no kernel.
 */
#ifndef PL_CMD_REPORT_H
#define PL_CMD_REPORT_H

/* argv[0] is "report". 0 or -errno (logged). */
int cmd_report(int argc, char **argv);

#endif
