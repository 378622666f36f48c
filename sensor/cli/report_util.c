// SPDX-License-Identifier: MIT
/*
 * report_util.c - reading an alert record and writing its values as HTML,
 * for the report's parts (report_int.h): every record string through
 * rh_put_rec(), unescaped once and escaped again by fg_xml_text().
 */
#include "cli/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "flamegraph.h"
#include "textsafe.h"

/* ---- reading the record ---- */

struct json_object *rh_get(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *rh_str(struct json_object *o, const char *key)
{
	struct json_object *v = rh_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

bool rh_is_num(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

bool rh_num(struct json_object *o, const char *key, double *ret)
{
	struct json_object *v = rh_get(o, key);

	if (!rh_is_num(v) || !isfinite(json_object_get_double(v)))
		return false;
	*ret = json_object_get_double(v);
	return true;
}

/* ---- writing ---- */

/* A record string (escaped as the sensor writes them) as HTML text. */
void rh_put_rec(FILE *f, const char *esc)
{
	size_t len = 0;
	_cleanup_free_ char *raw = esc ? text_unescape(esc, strlen(esc), &len) : NULL;

	if (raw)
		(void)fg_xml_text(f, raw, len);
	else
		fputs("?", f);
}

/* A number as people read it: whole numbers whole, others to 3 figures. */
void rh_fmt_num(char buf[48], double v)
{
	double a = fabs(v);

	if (a < 1e15 && v == floor(v))
		snprintf(buf, 48, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, 48, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, 48, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, 48, "%.2f", v);
	else
		snprintf(buf, 48, "%.3g", v);
}

void rh_put_num(FILE *f, double v)
{
	char b[48];

	rh_fmt_num(b, v);
	fputs(b, f);
}

/* Any JSON value in words: (none) for null, yes/no, numbers ours. */
void rh_put_value(FILE *f, struct json_object *v)
{
	size_t n = 0;

	if (!v) {
		fputs("(none)", f);
		return;
	}
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		fputs(json_object_get_boolean(v) ? "yes" : "no", f);
		break;
	case json_type_int:
		fprintf(f, "%lld", (long long)json_object_get_int64(v));
		break;
	case json_type_double:
		rh_put_num(f, json_object_get_double(v));
		break;
	case json_type_string:
		rh_put_rec(f, json_object_get_string(v));
		break;
	case json_type_array:
		n = json_object_array_length(v);
		if (!n)
			fputs("(none)", f);
		for (size_t i = 0; i < n && i < LIST_MAX; i++) {
			if (i)
				fputs(", ", f);
			rh_put_value(f, json_object_array_get_idx(v, i));
		}
		break;
	case json_type_object: {
		json_object_object_foreach(v, key, val)
		{
			if (n++ >= LIST_MAX)
				break;
			if (n > 1)
				fputs(", ", f);
			rh_put_rec(f, key);
			fputs(" ", f);
			rh_put_value(f, val);
		}
		if (!n)
			fputs("(none)", f);
		break;
	}
	default:
		fputs("(none)", f);
	}
}

void rh_row_open(FILE *f, const char *label)
{
	fprintf(f, "<dt>%s</dt><dd>", label);
}

/* A row of a definition list from a record string, left out when absent. */
void rh_row_str(FILE *f, const char *label, const char *esc)
{
	if (!esc || !*esc)
		return;
	rh_row_open(f, label);
	rh_put_rec(f, esc);
	fputs("</dd>\n", f);
}

void rh_row_value(FILE *f, const char *label, struct json_object *v)
{
	if (!v)
		return;
	rh_row_open(f, label);
	rh_put_value(f, v);
	fputs("</dd>\n", f);
}

void rh_section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

const char *rh_base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && s[1] ? s + 1 : path;
}

/* time_ns as "2026-12-01 12:00:11.000 UTC", or "" */
void rh_fmt_time(char buf[64], struct json_object *o, const char *key)
{
	struct json_object *v = rh_get(o, key);
	int64_t ns = v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char s[40];

	buf[0] = '\0';
	if (ns > 0 && gmtime_r(&t, &tm) && strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, 64, "%s.%03lld UTC", s, (long long)(ns % 1000000000 / 1000000));
}

/* ---- the baseline's features ---- */

static const struct feature rh_features[] = {
    {"cpu_ns", "cpu_ms", "ms", 1e-6, "used", "of CPU", "proc.cpu_ms"},
    {"wall_ns", "wall_ms", "ms", 1e-6, "ran for", "", "proc.wall_ms"},
    {"offcpu_ns", "offcpu_ms", "ms", 1e-6, "spent", "off CPU", "proc.offcpu_ms"},
    {"syscalls", "syscalls", "syscalls", 1, "made", "", "proc.syscalls"},
    {"open_failures", "open_failures", "failed opens", 1, "had", "", "proc.open_failures"},
    {"cpu_ns_per_s", "win_cpu_ms", "ms per second", 1e-6, "used", "of CPU", NULL},
    {"syscalls_per_s", "win_syscalls", "syscalls per second", 1, "made", "", NULL},
    {"open_failures_per_s", "win_open_failures", "failed opens per second", 1, "had", "", NULL},
};

const struct feature *rh_feature_of(const char *name, bool by_dist)
{
	for (size_t i = 0; name && i < sizeof(rh_features) / sizeof(rh_features[0]); i++)
		if (strcmp(by_dist ? rh_features[i].dist : rh_features[i].name, name) == 0)
			return &rh_features[i];
	return NULL;
}

/* The feature the summary names: the baseline's max_feature, else its first. */
struct json_object *rh_main_feature(struct json_object *bl, const char **ret_name)
{
	struct json_object *fs = rh_get(bl, "features"), *v;
	const char *mf = rh_str(bl, "max_feature");

	if (mf && (v = rh_get(fs, mf)) && json_object_is_type(v, json_type_object)) {
		*ret_name = mf;
		return v;
	}
	if (fs && json_object_is_type(fs, json_type_object)) {
		json_object_object_foreach(fs, key, val)
		{
			if (val && json_object_is_type(val, json_type_object)) {
				*ret_name = key;
				return val;
			}
		}
	}
	return NULL;
}
