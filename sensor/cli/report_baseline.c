// SPDX-License-Identifier: MIT
/*
 * report_baseline.c - the report's #baseline section: the baseline the
 * alert was compared with, each distribution an inline SVG, its quantiles
 * on a log axis and the alert's value a vertical line (class "marker").
 * Attributes hold only numbers printed here; names are text.
 */
#include "cli/report_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- #baseline ---- */

#define PLOT_W	  960
#define PLOT_H	  120
#define PLOT_PAD  40
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
	fprintf(f,
		"<svg class=\"dist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
		"%d\">\n",
		PLOT_W, PLOT_H, PLOT_W, PLOT_H);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", PLOT_PAD,
		PLOT_AXIS, PLOT_W - PLOT_PAD, PLOT_AXIS);
	for (double d = s.llo; d <= s.lhi; d++) {
		x = plot_x(&s, pow(10, d));
		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\"/>", x,
			PLOT_AXIS, x, PLOT_AXIS + 5);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, PLOT_AXIS + 18);
		rh_put_num(f, pow(10, d));
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < q->n; i++) {
		if (strcmp(q->name[i], "p50") == 0)
			p50 = q->v[i];
		if (strcmp(q->name[i], "p99") == 0)
			p99 = q->v[i];
	}
	if (isfinite(p50) && isfinite(p99) && p99 >= p50)
		fprintf(f,
			"<rect class=\"spread\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#cfe0f3\"/>\n",
			plot_x(&s, p50), PLOT_AXIS - 7, plot_x(&s, p99) - plot_x(&s, p50));
	for (size_t i = 0; i < q->n; i++) {
		x = plot_x(&s, q->v[i]);
		fprintf(f, "<circle class=\"q\" cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#2a5db0\"/>", x, PLOT_AXIS);
		fprintf(f, "<text class=\"q\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x,
			PLOT_AXIS - 14 - (int)(i % 2) * 14);
		rh_put_rec(f, q->name[i]);
		fputs(" ", f);
		rh_put_num(f, q->v[i]);
		fputs("</text>\n", f);
	}
	if (has_value) {
		char b[48];

		x = plot_x(&s, value);
		rh_fmt_num(b, value);
		fprintf(f,
			"<line class=\"marker\" data-value=\"%s\" x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#c0392b\" stroke-width=\"2\"/>",
			b, x, x, PLOT_AXIS + 8);
		fprintf(f,
			"<text class=\"marker-label\" x=\"%.1f\" y=\"14\" text-anchor=\"%s\" fill=\"#c0392b\">this "
			"alert: %s %s</text>\n",
			x > PLOT_W / 2 ? x - 6 : x + 6, x > PLOT_W / 2 ? "end" : "start", b, unit);
	}
	fputs("</svg>\n", f);
}

/* One distribution's figure: name, quantiles (from quantiles[dist], else the
 * feature's p50/p99), the value (the feature's, else the output field's). */
static void write_dist(FILE *f, struct json_object *a, const char *title, const struct feature *d,
		       struct json_object *ft, struct json_object *qo)
{
	struct qset q = {0};
	double v = NAN, x;
	bool has = false;

	if (qo && json_object_is_type(qo, json_type_object)) {
		json_object_object_foreach(qo, key, val)
		{
			if (rh_is_num(val) && isfinite(json_object_get_double(val)))
				qset_add(&q, key, json_object_get_double(val));
		}
	}
	if (!q.n && ft) {
		if (rh_num(ft, "p50", &x))
			qset_add(&q, "p50", x * (d ? d->scale : 1));
		if (rh_num(ft, "p99", &x))
			qset_add(&q, "p99", x * (d ? d->scale : 1));
	}
	if (ft && rh_num(ft, "value", &v)) {
		v *= d ? d->scale : 1;
		has = true;
	} else if (d && d->field && rh_num(rh_get(a, "output_fields"), d->field, &v)) {
		has = true;
	}
	fputs("<figure>\n<figcaption>", f);
	rh_put_rec(f, title);
	if (d)
		fprintf(f, " (%s)", d->unit);
	if (ft && rh_num(ft, "score", &x)) {
		fputs(": score ", f);
		rh_put_num(f, x);
	}
	fputs("</figcaption>\n", f);
	plot(f, &q, has, v, d ? d->unit : "");
	if (!has)
		fputs("<p>The record does not carry this alert&apos;s own value of it.</p>\n", f);
	fputs("</figure>\n", f);
}

void rh_write_baseline(FILE *f, struct json_object *a)
{
	struct json_object *bl = rh_get(rh_get(a, "evidence"), "baseline"), *fs, *qs;
	size_t plots = 0;
	double samples;

	rh_section(f, "baseline", "Against its baseline");
	if (!bl || !json_object_is_type(bl, json_type_object)) {
		fputs("<p>This alert made no baseline comparison: its rule does not ask for the baseline.</p>\n"
		      "</section>\n",
		      f);
		return;
	}
	fs = rh_get(bl, "features");
	qs = rh_get(bl, "quantiles");
	fputs("<dl>\n", f);
	rh_row_str(f, "Baseline key", rh_str(bl, "key"));
	rh_row_value(f, "Ready", rh_get(bl, "ready"));
	if (rh_num(bl, "samples", &samples))
		fprintf(f, "<dt>Samples learned</dt><dd>%.0f</dd>\n", samples);
	rh_row_value(f, "Highest score", rh_get(bl, "max_score"));
	rh_row_str(f, "Feature of that score", rh_str(bl, "max_feature"));
	fputs("</dl>\n", f);
	if (fs && json_object_is_type(fs, json_type_object)) {
		json_object_object_foreach(fs, key, val)
		{
			const struct feature *d = rh_feature_of(key, false);

			if (!val || !json_object_is_type(val, json_type_object) || plots >= LIST_MAX)
				continue;
			write_dist(f, a, key, d, val, d ? rh_get(qs, d->dist) : NULL);
			plots++;
		}
	}
	if (qs && json_object_is_type(qs, json_type_object)) {
		json_object_object_foreach(qs, key, val)
		{
			const struct feature *d = rh_feature_of(key, true);

			if (d && rh_get(fs, d->name))
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
