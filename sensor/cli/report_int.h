/* SPDX-License-Identifier: MIT */
/*
 * report_int.h - what the parts of the HTML report share (report_html.c
 * the page, report_util.c reading the record and writing its values,
 * report_baseline.c the #baseline plots). Not for other callers.
 */
#ifndef PL_REPORT_INT_H
#define PL_REPORT_INT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define LIST_MAX 256 /* rows of one table, entries of one list */
#define COLS_MAX 12  /* columns of a table of objects */

/* o[key]: NULL when o is no object, key is absent or null */
struct json_object *rh_get(struct json_object *o, const char *key);
/* o[key] when a string, else NULL */
const char *rh_str(struct json_object *o, const char *key);
bool rh_is_num(struct json_object *v);
/* o[key] when a finite number */
bool rh_num(struct json_object *o, const char *key, double *ret);

/* A record string (escaped as the sensor writes them) as HTML text. */
void rh_put_rec(FILE *f, const char *esc);
/* A number as people read it: whole numbers whole, others to 3 figures. */
void rh_fmt_num(char buf[48], double v);
void rh_put_num(FILE *f, double v);
/* Any JSON value in words: (none) for null, yes/no, numbers ours. */
void rh_put_value(FILE *f, struct json_object *v);
/* Rows of a <dl>: label is our literal; a row_str of an absent string is left out. */
void rh_row_open(FILE *f, const char *label);
void rh_row_str(FILE *f, const char *label, const char *esc);
void rh_row_value(FILE *f, const char *label, struct json_object *v);
/* <section id="ID"><h2>TITLE</h2>, both our literals */
void rh_section(FILE *f, const char *id, const char *title);
const char *rh_base_name(const char *path);
/* o[key] (ns since the epoch) as "2026-12-01 12:00:11.000 UTC", or "" */
void rh_fmt_time(char buf[64], struct json_object *o, const char *key);

/* A baseline feature (records.md, baseline) and its distribution. */
struct feature {
	const char *name, *dist, *unit; /* the feature, its quantiles' distribution, the unit shown */
	double scale;			/* feature value * scale = the distribution's unit */
	const char *verb, *what;	/* "used" 612 ms "of CPU" */
	const char *field;		/* the output field with the value in dist's unit, or NULL */
};
/* The feature by its name, or by its distribution's (by_dist), or NULL. */
const struct feature *rh_feature_of(const char *name, bool by_dist);
/* The feature the summary names: the baseline's max_feature, else its first. */
struct json_object *rh_main_feature(struct json_object *bl, const char **ret_name);

/* The sections report_html.c does not write itself. */
void rh_write_baseline(FILE *f, struct json_object *a);

#endif
