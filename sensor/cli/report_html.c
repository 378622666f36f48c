// SPDX-License-Identifier: MIT
/*
 * report_html.c - an alert record as one self-contained HTML page
 * (report_html.h says what it holds and how strings are kept harmless).
 *
 * Every string of the record goes through put_rec(): unescaped once, as
 * every reader of our records does, then text_escape()d and XML-escaped by
 * fg_xml_text(), the flame graph's own writer. No record text is ever put
 * in an attribute: attributes hold our literals and numbers we print.
 * A value the record lacks is left out, or said in words; the page never
 * reads "null" or "<NA>".
 */
#include "cli/report_html.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "cli/cmd_evidence.h"
#include "evidence.h"
#include "flamegraph.h"
#include "textsafe.h"

#define LIST_MAX 256 /* rows of one table, entries of one list */
#define COLS_MAX 12  /* columns of a table of objects */

/* ---- reading the record ---- */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool is_num(struct json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}

static bool num(struct json_object *o, const char *key, double *ret)
{
	struct json_object *v = get(o, key);

	if (!is_num(v) || !isfinite(json_object_get_double(v)))
		return false;
	*ret = json_object_get_double(v);
	return true;
}

/* ---- writing ---- */

/* A record string (escaped as the sensor writes them) as HTML text. */
static void put_rec(FILE *f, const char *esc)
{
	size_t len = 0;
	_cleanup_free_ char *raw = esc ? text_unescape(esc, strlen(esc), &len) : NULL;

	if (raw)
		(void)fg_xml_text(f, raw, len);
	else
		fputs("?", f);
}

/* A number as people read it: whole numbers whole, others to 3 figures. */
static void fmt_num(char buf[48], double v)
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

static void put_num(FILE *f, double v)
{
	char b[48];

	fmt_num(b, v);
	fputs(b, f);
}

/* Any JSON value in words: (none) for null, yes/no, numbers ours. */
static void put_value(FILE *f, struct json_object *v)
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
		put_num(f, json_object_get_double(v));
		break;
	case json_type_string:
		put_rec(f, json_object_get_string(v));
		break;
	case json_type_array:
		n = json_object_array_length(v);
		if (!n)
			fputs("(none)", f);
		for (size_t i = 0; i < n && i < LIST_MAX; i++) {
			if (i)
				fputs(", ", f);
			put_value(f, json_object_array_get_idx(v, i));
		}
		break;
	case json_type_object: {
		json_object_object_foreach(v, key, val)
		{
			if (n++ >= LIST_MAX)
				break;
			if (n > 1)
				fputs(", ", f);
			put_rec(f, key);
			fputs(" ", f);
			put_value(f, val);
		}
		if (!n)
			fputs("(none)", f);
		break;
	}
	default:
		fputs("(none)", f);
	}
}

static void row_open(FILE *f, const char *label)
{
	fprintf(f, "<dt>%s</dt><dd>", label);
}

/* A row of a definition list from a record string, left out when absent. */
static void row_str(FILE *f, const char *label, const char *esc)
{
	if (!esc || !*esc)
		return;
	row_open(f, label);
	put_rec(f, esc);
	fputs("</dd>\n", f);
}

static void row_value(FILE *f, const char *label, struct json_object *v)
{
	if (!v)
		return;
	row_open(f, label);
	put_value(f, v);
	fputs("</dd>\n", f);
}

static void section(FILE *f, const char *id, const char *title)
{
	fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && s[1] ? s + 1 : path;
}

/* time_ns as "2026-12-01 12:00:11.000 UTC", or "" */
static void fmt_time(char buf[64], struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	int64_t ns = v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char s[40];

	buf[0] = '\0';
	if (ns > 0 && gmtime_r(&t, &tm) && strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, 64, "%s.%03lld UTC", s, (long long)(ns % 1000000000 / 1000000));
}

/* ---- the baseline's features ---- */

struct feature {
	const char *name, *dist, *unit; /* the feature, its quantiles' distribution, the unit shown */
	double scale;			/* feature value * scale = the distribution's unit */
	const char *verb, *what;	/* "used" 612 ms "of CPU" */
	const char *field;		/* the output field with the value in dist's unit, or NULL */
};

static const struct feature features[] = {
	{ "cpu_ns", "cpu_ms", "ms", 1e-6, "used", "of CPU", "proc.cpu_ms" },
	{ "wall_ns", "wall_ms", "ms", 1e-6, "ran for", "", "proc.wall_ms" },
	{ "offcpu_ns", "offcpu_ms", "ms", 1e-6, "spent", "off CPU", "proc.offcpu_ms" },
	{ "syscalls", "syscalls", "syscalls", 1, "made", "", "proc.syscalls" },
	{ "open_failures", "open_failures", "failed opens", 1, "had", "", "proc.open_failures" },
	{ "cpu_ns_per_s", "win_cpu_ms", "ms per second", 1e-6, "used", "of CPU", NULL },
	{ "syscalls_per_s", "win_syscalls", "syscalls per second", 1, "made", "", NULL },
	{ "open_failures_per_s", "win_open_failures", "failed opens per second", 1, "had", "", NULL },
};

static const struct feature *feature_of(const char *name, bool by_dist)
{
	for (size_t i = 0; name && i < sizeof(features) / sizeof(features[0]); i++)
		if (strcmp(by_dist ? features[i].dist : features[i].name, name) == 0)
			return &features[i];
	return NULL;
}

/* The feature the summary names: the baseline's max_feature, else its first. */
static struct json_object *main_feature(struct json_object *bl, const char **ret_name)
{
	struct json_object *fs = get(bl, "features"), *v;
	const char *mf = str(bl, "max_feature");

	if (mf && (v = get(fs, mf)) && json_object_is_type(v, json_type_object)) {
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

/* ---- #summary ---- */

/* The rule's output as text: <NA> said "(unknown)", its unit dropped. */
static void put_output(FILE *f, const char *esc)
{
	static const char *const units[] = { " ms", " s", " %" };
	size_t len = 0;
	_cleanup_free_ char *raw = esc ? text_unescape(esc, strlen(esc), &len) : NULL;
	const char *p, *end, *na;

	if (!raw) {
		fputs("?", f);
		return;
	}
	for (p = raw, end = raw + len; p < end;) {
		na = memmem(p, (size_t)(end - p), "<NA>", 4);
		if (!na) {
			(void)fg_xml_text(f, p, (size_t)(end - p));
			break;
		}
		(void)fg_xml_text(f, p, (size_t)(na - p));
		fputs("(unknown)", f);
		p = na + 4;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t k = strlen(units[i]);

			if ((size_t)(end - p) >= k && memcmp(p, units[i], k) == 0 &&
			    ((size_t)(end - p) == k || !((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'z'))) {
				p += k;
				break;
			}
		}
	}
}

static void put_sentence(FILE *f, struct json_object *a)
{
	struct json_object *bl = get(get(a, "evidence"), "baseline"), *ft, *user = get(a, "user");
	const char *exe = str(a, "exe"), *uname = str(user, "name"), *host = str(get(a, "host"), "name");
	const char *fname = NULL, *when = str(a, "when"), *rule = str(a, "rule");
	double pid, uid, v, p99, ratio;

	fputs("<p class=\"what\">", f);
	put_rec(f, exe ? base_name(exe) : "A process");
	if (num(a, "pid", &pid) || uname || num(user, "uid", &uid)) {
		fputs(" (", f);
		if (num(a, "pid", &pid))
			fprintf(f, "pid %.0f%s", pid, uname || num(user, "uid", &uid) ? ", " : "");
		if (uname) {
			fputs("user ", f);
			put_rec(f, uname);
		} else if (num(user, "uid", &uid)) {
			fprintf(f, "uid %.0f", uid);
		}
		fputs(")", f);
	}
	if (host) {
		fputs(" on host ", f);
		put_rec(f, host);
	}
	ft = main_feature(bl, &fname);
	if (ft && num(ft, "value", &v)) {
		const struct feature *d = feature_of(fname, false);
		double scale = d ? d->scale : 1;

		fprintf(f, " %s ", d ? d->verb : "had");
		put_num(f, v * scale);
		if (d) {
			fprintf(f, " %s%s%s", d->unit, *d->what ? " " : "", d->what);
		} else {
			fputs(" of ", f);
			put_rec(f, fname);
		}
		if (when && strcmp(when, "exit") == 0)
			fputs(" in one lifetime", f);
		if (num(ft, "p99", &p99)) {
			fputs(", where its baseline&apos;s p99 is ", f);
			put_num(f, p99 * scale);
			if (d)
				fprintf(f, " %s", d->unit);
			if (num(ft, "ratio_p99", &ratio) || (p99 > 0 && (ratio = v / p99, true))) {
				fputs(" (", f);
				put_num(f, ratio);
				fputs("x)", f);
			}
		}
		fputs(".", f);
	} else {
		fputs(" matched the rule ", f);
		put_rec(f, rule ? rule : "?");
		if (when) {
			fputs(" (moment: ", f);
			put_rec(f, when);
			fputs(")", f);
		}
		fputs(bl ? "; no baseline figure was scored." : ".", f);
	}
	fputs("</p>\n", f);
}

static void write_summary(FILE *f, struct json_object *a)
{
	char when[64];
	double line;

	section(f, "summary", "What happened");
	put_sentence(f, a);
	fputs("<dl>\n", f);
	row_str(f, "Rule", str(a, "rule"));
	row_str(f, "Priority", str(a, "priority"));
	fmt_time(when, a, "time_ns");
	if (when[0])
		fprintf(f, "<dt>Time</dt><dd>%s</dd>\n", when);
	row_str(f, "Moment", str(a, "when"));
	row_str(f, "Description", str(a, "rule_desc"));
	if (str(a, "output")) {
		row_open(f, "Output");
		put_output(f, str(a, "output"));
		fputs("</dd>\n", f);
	}
	row_str(f, "Alert id", str(a, "id"));
	if (get(a, "tags") && json_object_array_length(get(a, "tags")) > 0)
		row_value(f, "Tags", get(a, "tags"));
	if (str(a, "rule_file")) {
		row_open(f, "Rule file");
		put_rec(f, str(a, "rule_file"));
		if (num(a, "rule_line", &line))
			fprintf(f, ":%.0f", line);
		fputs("</dd>\n", f);
	}
	fputs("</dl>\n</section>\n", f);
}

/* ---- #process ---- */

static void write_process(FILE *f, struct json_object *a)
{
	struct json_object *of = get(a, "output_fields"), *anc = get(get(a, "evidence"), "ancestry");
	struct json_object *user = get(a, "user");
	const char *pexe = str(of, "proc.pexe");
	size_t n = anc && json_object_is_type(anc, json_type_array) ? json_object_array_length(anc) : 0;
	double pid, uid;

	section(f, "process", "The process");
	fputs("<dl>\n", f);
	row_str(f, "Executable", str(a, "exe"));
	if (num(a, "pid", &pid))
		fprintf(f, "<dt>PID</dt><dd>%.0f</dd>\n", pid);
	row_value(f, "Parent PID", get(of, "proc.ppid"));
	row_str(f, "Command line", str(of, "proc.cmdline"));
	if (str(user, "name") || num(user, "uid", &uid)) {
		row_open(f, "User");
		if (str(user, "name"))
			put_rec(f, str(user, "name"));
		if (num(user, "uid", &uid))
			fprintf(f, "%suid %.0f", str(user, "name") ? ", " : "", uid);
		fputs("</dd>\n", f);
	}
	row_str(f, "Cgroup", str(of, "proc.cgroup"));
	row_str(f, "Binary id", str(a, "binary_id"));
	row_str(f, "Build id", str(of, "proc.build_id"));
	row_str(f, "Script", str(of, "proc.script"));
	row_str(f, "Image", str(of, "proc.image"));
	row_value(f, "Exit code", get(of, "proc.exit_code"));
	row_str(f, "End", str(of, "proc.end_reason"));
	fputs("</dl>\n<h3>Ancestry, from the root down</h3>\n<ol class=\"ancestry\">\n", f);
	if (n > LIST_MAX)
		n = LIST_MAX;
	for (size_t i = n; i-- > 0;) {
		const char *e = json_object_is_type(json_object_array_get_idx(anc, i), json_type_string)
					? json_object_get_string(json_object_array_get_idx(anc, i))
					: NULL;

		fputs("<li>", f);
		if (e)
			put_rec(f, e);
		else
			fputs("(an ancestor whose path is unknown)", f);
		fputs("</li>\n", f);
	}
	if (!n && pexe) {
		fputs("<li>", f);
		put_rec(f, pexe);
		fputs(" (the parent)</li>\n", f);
	}
	fputs("<li class=\"self\"><strong>", f);
	put_rec(f, str(a, "exe") ? str(a, "exe") : "this process");
	fputs("</strong>", f);
	if (num(a, "pid", &pid))
		fprintf(f, " (pid %.0f)", pid);
	fputs("</li>\n</ol>\n", f);
	if (!n && !pexe)
		fputs("<p>The record names no ancestors of this process.</p>\n", f);
	fputs("</section>\n", f);
}

/* ---- #baseline ---- */

#define PLOT_W 960
#define PLOT_H 120
#define PLOT_PAD 40
#define PLOT_AXIS 80

struct scale {
	double llo, lhi; /* log10 of the axis' ends */
};

static double plot_x(const struct scale *s, double v)
{
	double l = v > 0 ? log10(v) : s->llo;

	if (l < s->llo)
		l = s->llo;
	if (l > s->lhi)
		l = s->lhi;
	return PLOT_PAD + (l - s->llo) / (s->lhi - s->llo) * (PLOT_W - 2 * PLOT_PAD);
}

/* The quantiles of one distribution (object pNN -> number), in dist's unit. */
struct qset {
	const char *name[16];
	double v[16];
	size_t n;
};

static void qset_add(struct qset *q, const char *name, double v)
{
	if (q->n < 16) {
		q->name[q->n] = name;
		q->v[q->n++] = v;
	}
}

/* One distribution as an SVG: its quantiles on a log axis, the alert's value
 * (has_value) as the vertical line class "marker", labelled. */
static void plot(FILE *f, const struct qset *q, bool has_value, double value, const char *unit)
{
	double lo = INFINITY, hi = -INFINITY, x, p50 = NAN, p99 = NAN;
	struct scale s;

	for (size_t i = 0; i < q->n; i++)
		if (q->v[i] > 0) {
			lo = fmin(lo, q->v[i]);
			hi = fmax(hi, q->v[i]);
		}
	if (has_value && value > 0) {
		lo = fmin(lo, value);
		hi = fmax(hi, value);
	}
	if (!isfinite(lo)) {
		lo = 1;
		hi = 10;
	}
	s.llo = floor(log10(lo));
	s.lhi = ceil(log10(hi));
	if (s.lhi <= s.llo)
		s.lhi = s.llo + 1;
	fprintf(f, "<svg class=\"dist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		PLOT_W, PLOT_H, PLOT_W, PLOT_H);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", PLOT_PAD,
		PLOT_AXIS, PLOT_W - PLOT_PAD, PLOT_AXIS);
	for (double d = s.llo; d <= s.lhi; d++) {
		x = plot_x(&s, pow(10, d));
		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\"/>", x,
			PLOT_AXIS, x, PLOT_AXIS + 5);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, PLOT_AXIS + 18);
		put_num(f, pow(10, d));
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < q->n; i++) {
		if (strcmp(q->name[i], "p50") == 0)
			p50 = q->v[i];
		if (strcmp(q->name[i], "p99") == 0)
			p99 = q->v[i];
	}
	if (isfinite(p50) && isfinite(p99) && p99 >= p50)
		fprintf(f, "<rect class=\"spread\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#cfe0f3\"/>\n",
			plot_x(&s, p50), PLOT_AXIS - 7, plot_x(&s, p99) - plot_x(&s, p50));
	for (size_t i = 0; i < q->n; i++) {
		x = plot_x(&s, q->v[i]);
		fprintf(f, "<circle class=\"q\" cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#2a5db0\"/>", x, PLOT_AXIS);
		fprintf(f, "<text class=\"q\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x,
			PLOT_AXIS - 14 - (int)(i % 2) * 14);
		put_rec(f, q->name[i]);
		fputs(" ", f);
		put_num(f, q->v[i]);
		fputs("</text>\n", f);
	}
	if (has_value) {
		char b[48];

		x = plot_x(&s, value);
		fmt_num(b, value);
		fprintf(f, "<line class=\"marker\" data-value=\"%s\" x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%d\" "
			   "stroke=\"#c0392b\" stroke-width=\"2\"/>",
			b, x, x, PLOT_AXIS + 8);
		fprintf(f, "<text class=\"marker-label\" x=\"%.1f\" y=\"14\" text-anchor=\"%s\" fill=\"#c0392b\">this alert: %s %s</text>\n",
			x > PLOT_W / 2 ? x - 6 : x + 6, x > PLOT_W / 2 ? "end" : "start", b, unit);
	}
	fputs("</svg>\n", f);
}

/* One distribution's figure: name, quantiles (from quantiles[dist], else the
 * feature's p50/p99), the value (the feature's, else the output field's). */
static void write_dist(FILE *f, struct json_object *a, const char *title, const struct feature *d,
		       struct json_object *ft, struct json_object *qo)
{
	struct qset q = { 0 };
	double v = NAN, x;
	bool has = false;

	if (qo && json_object_is_type(qo, json_type_object)) {
		json_object_object_foreach(qo, key, val)
		{
			if (is_num(val) && isfinite(json_object_get_double(val)))
				qset_add(&q, key, json_object_get_double(val));
		}
	}
	if (!q.n && ft) {
		if (num(ft, "p50", &x))
			qset_add(&q, "p50", x * (d ? d->scale : 1));
		if (num(ft, "p99", &x))
			qset_add(&q, "p99", x * (d ? d->scale : 1));
	}
	if (ft && num(ft, "value", &v)) {
		v *= d ? d->scale : 1;
		has = true;
	} else if (d && d->field && num(get(a, "output_fields"), d->field, &v)) {
		has = true;
	}
	fputs("<figure>\n<figcaption>", f);
	put_rec(f, title);
	if (d)
		fprintf(f, " (%s)", d->unit);
	if (ft && num(ft, "score", &x)) {
		fputs(": score ", f);
		put_num(f, x);
	}
	fputs("</figcaption>\n", f);
	plot(f, &q, has, v, d ? d->unit : "");
	if (!has)
		fputs("<p>The record does not carry this alert&apos;s own value of it.</p>\n", f);
	fputs("</figure>\n", f);
}

static void write_baseline(FILE *f, struct json_object *a)
{
	struct json_object *bl = get(get(a, "evidence"), "baseline"), *fs, *qs;
	size_t plots = 0;
	double samples;

	section(f, "baseline", "Against its baseline");
	if (!bl || !json_object_is_type(bl, json_type_object)) {
		fputs("<p>This alert made no baseline comparison: its rule does not ask for the baseline.</p>\n"
		      "</section>\n",
		      f);
		return;
	}
	fs = get(bl, "features");
	qs = get(bl, "quantiles");
	fputs("<dl>\n", f);
	row_str(f, "Baseline key", str(bl, "key"));
	row_value(f, "Ready", get(bl, "ready"));
	if (num(bl, "samples", &samples))
		fprintf(f, "<dt>Samples learned</dt><dd>%.0f</dd>\n", samples);
	row_value(f, "Highest score", get(bl, "max_score"));
	row_str(f, "Feature of that score", str(bl, "max_feature"));
	fputs("</dl>\n", f);
	if (fs && json_object_is_type(fs, json_type_object)) {
		json_object_object_foreach(fs, key, val)
		{
			const struct feature *d = feature_of(key, false);

			if (!val || !json_object_is_type(val, json_type_object) || plots >= LIST_MAX)
				continue;
			write_dist(f, a, key, d, val, d ? get(qs, d->dist) : NULL);
			plots++;
		}
	}
	if (qs && json_object_is_type(qs, json_type_object)) {
		json_object_object_foreach(qs, key, val)
		{
			const struct feature *d = feature_of(key, true);

			if (d && get(fs, d->name))
				continue; /* drawn with its feature */
			if (!val || plots >= LIST_MAX)
				continue;
			write_dist(f, a, key, d, NULL, val);
			plots++;
		}
	}
	if (!plots)
		fputs("<p>The baseline had learned no distribution to compare with (not ready yet), so there is "
		      "nothing to plot.</p>\n",
		      f);
	fputs("</section>\n", f);
}

/* ---- #flamegraph ---- */

static int write_flamegraph(FILE *f, struct json_object *a)
{
	_cleanup_free_ char *buf = NULL;
	struct evidence ev;
	char err[256] = "";
	size_t len = 0;
	const char *svg;
	FILE *m;
	int r;

	section(f, "flamegraph", "Where it ran on CPU");
	r = evidence__parse(a, &ev, err, sizeof(err));
	if (r == -ENODATA) {
		fputs("<p>The alert carries no stack samples (sampling off, an exec, or too little CPU to sample), "
		      "so there is no flame graph.</p>\n",
		      f);
	} else if (r < 0) {
		fputs("<p>The alert&apos;s stacks could not be read: ", f);
		put_rec(f, err[0] ? err : "?");
		fputs("</p>\n", f);
	} else if (!(m = open_memstream(&buf, &len))) {
		r = -ENOMEM;
	} else {
		r = evidence_write_flamegraph(&ev, m, "the report's flame graph", NULL, NULL);
		if (fclose(m) == EOF && r == 0)
			r = -ENOMEM;
		svg = r == 0 && buf ? strstr(buf, "<svg") : NULL;
		if (svg)
			fprintf(f, "<div class=\"fg\">%s</div>\n", svg);
		else
			fputs("<p>The flame graph could not be drawn.</p>\n", f);
	}
	evidence__free(&ev);
	fputs("</section>\n", f);
	return r == -ENOMEM ? r : 0;
}

/* ---- #host ---- */

static void write_host(FILE *f, struct json_object *a, const char *version)
{
	struct json_object *h = get(a, "host");

	section(f, "host", "The host");
	fputs("<dl>\n", f);
	row_str(f, "Host name", str(h, "name"));
	row_str(f, "Host id", str(h, "id"));
	row_str(f, "Boot id", str(h, "boot_id"));
	row_str(f, "Kernel", str(h, "kernel"));
	if (version)
		fprintf(f, "<dt>Report by</dt><dd>plumbline %s</dd>\n", version);
	if (h && json_object_is_type(h, json_type_object)) {
		json_object_object_foreach(h, key, val)
		{
			if (!strcmp(key, "name") || !strcmp(key, "id") || !strcmp(key, "boot_id") ||
			    !strcmp(key, "kernel"))
				continue;
			if (val && json_object_is_type(val, json_type_object)) {
				json_object_object_foreach(val, k2, v2)
				{
					fputs("<dt>", f);
					put_rec(f, key);
					fputs(".", f);
					put_rec(f, k2);
					fputs("</dt><dd>", f);
					put_value(f, v2);
					fputs("</dd>\n", f);
				}
			} else {
				fputs("<dt>", f);
				put_rec(f, key);
				fputs("</dt><dd>", f);
				put_value(f, val);
				fputs("</dd>\n", f);
			}
		}
	}
	fputs("</dl>\n", f);
	if (!h)
		fputs("<p>The record carries no host context (written before alerts had it).</p>\n", f);
	fputs("</section>\n", f);
}

/* ---- #evidence ---- */

/* An array of objects as a table, its columns the first object's keys. */
static void table_of_objects(FILE *f, struct json_object *arr)
{
	const char *cols[COLS_MAX];
	size_t ncols = 0, n = json_object_array_length(arr);
	struct json_object *first = n ? json_object_array_get_idx(arr, 0) : NULL;

	if (first && json_object_is_type(first, json_type_object)) {
		json_object_object_foreach(first, key, val)
		{
			(void)val;
			if (ncols < COLS_MAX)
				cols[ncols++] = key;
		}
	}
	fputs("<table>\n<tr>", f);
	for (size_t c = 0; c < ncols; c++) {
		fputs("<th>", f);
		put_rec(f, cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		fputs("<tr>", f);
		for (size_t c = 0; c < ncols; c++) {
			fputs("<td>", f);
			put_value(f, get(o, cols[c]));
			fputs("</td>", f);
		}
		if (!ncols) {
			fputs("<td>", f);
			put_value(f, o);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* An object as a two-column table. */
static void table_of_pairs(FILE *f, struct json_object *o, const char *h1, const char *h2)
{
	size_t n = 0;

	fprintf(f, "<table>\n<tr><th>%s</th><th>%s</th></tr>\n", h1, h2);
	json_object_object_foreach(o, key, val)
	{
		if (n++ >= LIST_MAX)
			break;
		fputs("<tr><td>", f);
		put_rec(f, key);
		fputs("</td><td>", f);
		put_value(f, val);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void evidence_item(FILE *f, const char *name, struct json_object *v)
{
	fputs("<h3>", f);
	put_rec(f, name);
	fputs("</h3>\n", f);
	if (v && json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0 &&
	    json_object_is_type(json_object_array_get_idx(v, 0), json_type_object))
		table_of_objects(f, v);
	else if (v && json_object_is_type(v, json_type_object) && json_object_object_length(v) > 0)
		table_of_pairs(f, v, "name", "value");
	else {
		fputs("<p>", f);
		put_value(f, v);
		fputs("</p>\n", f);
	}
}

static void write_evidence(FILE *f, struct json_object *a)
{
	static const char *const news[][2] = { { "new_fail_paths", "Failed paths the baseline never saw" },
					       { "new_syscalls", "Syscalls the baseline never saw" },
					       { "new_oncpu_objects", "Objects the baseline never saw on CPU" } };
	struct json_object *ev = get(a, "evidence"), *bl = get(ev, "baseline"), *st = get(ev, "stacks");
	struct json_object *of = get(a, "output_fields");
	size_t items = 0;

	section(f, "evidence", "The rest of the evidence");
	if (ev && json_object_is_type(ev, json_type_object)) {
		json_object_object_foreach(ev, key, val)
		{
			if (!strcmp(key, "stacks") || !strcmp(key, "baseline") || !strcmp(key, "ancestry"))
				continue;
			evidence_item(f, key, val);
			items++;
		}
	}
	for (size_t i = 0; i < sizeof(news) / sizeof(news[0]); i++) {
		struct json_object *l = get(bl, news[i][0]);

		if (l && json_object_is_type(l, json_type_array) && json_object_array_length(l) > 0) {
			fprintf(f, "<h3>%s</h3>\n<ul>\n", news[i][1]);
			for (size_t k = 0; k < json_object_array_length(l) && k < LIST_MAX; k++) {
				fputs("<li>", f);
				put_value(f, json_object_array_get_idx(l, k));
				fputs("</li>\n", f);
			}
			fputs("</ul>\n", f);
			items++;
		}
	}
	if (get(st, "objects") && json_object_is_type(get(st, "objects"), json_type_array) &&
	    json_object_array_length(get(st, "objects")) > 0) {
		fputs("<h3>Objects on CPU</h3>\n", f);
		table_of_objects(f, get(st, "objects"));
		items++;
	}
	if (of && json_object_is_type(of, json_type_object) && json_object_object_length(of) > 0) {
		fputs("<h3>The fields the output names</h3>\n", f);
		table_of_pairs(f, of, "field", "value");
		items++;
	}
	if (!items)
		fputs("<p>The alert carries no other evidence.</p>\n", f);
	fputs("</section>\n", f);
}

/* ---- the page ---- */

static const char css[] =
	"body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:24px;color:#222;max-width:1240px}"
	"h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:28px}"
	"h3{font-size:15px}p.what{font-size:16px;background:#fff6e0;padding:10px;border-left:4px solid #e0a000}"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{font-weight:bold}dd{margin:0;"
	"overflow-wrap:anywhere;white-space:pre-wrap}table{border-collapse:collapse;margin:6px 0}"
	"td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;overflow-wrap:anywhere}"
	"ol.ancestry li.self{color:#a00}figure{margin:8px 0}svg.dist text{font-size:12px}";

int report__write_html(struct json_object *alert, const char *version, FILE *f)
{
	const char *rule = str(alert, "rule"), *id = str(alert, "id");
	int r;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<title>plumbline alert: ",
	      f);
	put_rec(f, rule ? rule : "?");
	fputs("</title>\n<style>", f);
	fputs(css, f);
	fputs("</style>\n</head>\n<body>\n<h1>Alert: ", f);
	put_rec(f, rule ? rule : "?");
	if (str(alert, "priority")) {
		fputs(" (", f);
		put_rec(f, str(alert, "priority"));
		fputs(")", f);
	}
	fputs("</h1>\n", f);
	if (id) {
		fputs("<p class=\"id\">Alert ", f);
		put_rec(f, id);
		fputs("</p>\n", f);
	}
	write_summary(f, alert);
	write_process(f, alert);
	write_baseline(f, alert);
	r = write_flamegraph(f, alert);
	write_host(f, alert, version);
	write_evidence(f, alert);
	fputs("</body>\n</html>\n", f);
	if (r < 0)
		return r;
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}
