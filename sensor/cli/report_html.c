// SPDX-License-Identifier: MIT
/*
 * report_html.c - an alert record as one self-contained HTML page
 * (report_html.h says what it holds and how strings are kept harmless).
 *
 * Every string of the record goes through rh_put_rec(): unescaped once, as
 * every reader of our records does, then text_escape()d and XML-escaped by
 * fg_xml_text(), the flame graph's own writer. No record text is ever put
 * in an attribute: attributes hold our literals and numbers we print.
 * A value the record lacks is left out, or said in words; the page never
 * reads "null" or "<NA>". The helpers are in report_util.c, the
 * #baseline section in report_baseline.c.
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
#include "cli/report_int.h"
#include "evidence.h"
#include "flamegraph.h"
#include "textsafe.h"

/* ---- #summary ---- */

/* The rule's output as text: <NA> said "(unknown)", its unit dropped. */
static void put_output(FILE *f, const char *esc)
{
	static const char *const units[] = {" ms", " s", " %"};
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

/* "used 612 ms of CPU in one lifetime, where its baseline's p99 is 19.5 ms
 * (31.4x)": v and p99 (NAN: none) in d's unit; name when d is NULL. */
static void put_compare(FILE *f, const struct feature *d, const char *name, double v, double p99, double ratio,
			const char *when)
{
	fprintf(f, " %s ", d ? d->verb : "had");
	rh_put_num(f, v);
	if (d) {
		fprintf(f, " %s%s%s", d->unit, *d->what ? " " : "", d->what);
	} else {
		fputs(" of ", f);
		rh_put_rec(f, name);
	}
	if (when && strcmp(when, "exit") == 0)
		fputs(" in one lifetime", f);
	if (isfinite(p99)) {
		fputs(", where its baseline&apos;s p99 is ", f);
		rh_put_num(f, p99);
		if (d)
			fprintf(f, " %s", d->unit);
		if (!isfinite(ratio) && p99 > 0)
			ratio = v / p99;
		if (isfinite(ratio)) {
			fputs(" (", f);
			rh_put_num(f, ratio);
			fputs("x)", f);
		}
	}
	fputs(".", f);
}

/* Without a scored feature: a distribution the baseline has quantiles for
 * whose value the output names (proc.cpu_ms), compared with its p99. */
static bool put_compare_quantiles(FILE *f, struct json_object *a, struct json_object *bl, const char *when)
{
	struct json_object *qs = rh_get(bl, "quantiles");
	double v, p99;

	if (!qs || !json_object_is_type(qs, json_type_object))
		return false;
	json_object_object_foreach(qs, key, val)
	{
		const struct feature *d = rh_feature_of(key, true);

		if (d && d->field && rh_num(rh_get(a, "output_fields"), d->field, &v) && rh_num(val, "p99", &p99)) {
			put_compare(f, d, key, v, p99, NAN, when);
			return true;
		}
	}
	return false;
}

static void put_sentence(FILE *f, struct json_object *a)
{
	struct json_object *bl = rh_get(rh_get(a, "evidence"), "baseline"), *ft, *user = rh_get(a, "user");
	const char *exe = rh_str(a, "exe"), *uname = rh_str(user, "name"), *host = rh_str(rh_get(a, "host"), "name");
	const char *fname = NULL, *when = rh_str(a, "when"), *rule = rh_str(a, "rule");
	double pid, uid, v, p99, ratio;

	fputs("<p class=\"what\">", f);
	rh_put_rec(f, exe ? rh_base_name(exe) : "A process");
	if (rh_num(a, "pid", &pid) || uname || rh_num(user, "uid", &uid)) {
		fputs(" (", f);
		if (rh_num(a, "pid", &pid))
			fprintf(f, "pid %.0f%s", pid, uname || rh_num(user, "uid", &uid) ? ", " : "");
		if (uname) {
			fputs("user ", f);
			rh_put_rec(f, uname);
		} else if (rh_num(user, "uid", &uid)) {
			fprintf(f, "uid %.0f", uid);
		}
		fputs(")", f);
	}
	if (host) {
		fputs(" on host ", f);
		rh_put_rec(f, host);
	}
	ft = rh_main_feature(bl, &fname);
	if (ft && rh_num(ft, "value", &v)) {
		const struct feature *d = rh_feature_of(fname, false);
		double scale = d ? d->scale : 1;

		put_compare(f, d, fname, v * scale, rh_num(ft, "p99", &p99) ? p99 * scale : NAN,
			    rh_num(ft, "ratio_p99", &ratio) ? ratio : NAN, when);
	} else if (!put_compare_quantiles(f, a, bl, when)) {
		fputs(" matched the rule ", f);
		rh_put_rec(f, rule ? rule : "?");
		if (when) {
			fputs(" (moment: ", f);
			rh_put_rec(f, when);
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

	rh_section(f, "summary", "What happened");
	put_sentence(f, a);
	fputs("<dl>\n", f);
	rh_row_str(f, "Rule", rh_str(a, "rule"));
	rh_row_str(f, "Priority", rh_str(a, "priority"));
	rh_fmt_time(when, a, "time_ns");
	if (when[0])
		fprintf(f, "<dt>Time</dt><dd>%s</dd>\n", when);
	rh_row_str(f, "Moment", rh_str(a, "when"));
	rh_row_str(f, "Description", rh_str(a, "rule_desc"));
	if (rh_str(a, "output")) {
		rh_row_open(f, "Output");
		put_output(f, rh_str(a, "output"));
		fputs("</dd>\n", f);
	}
	rh_row_str(f, "Alert id", rh_str(a, "id"));
	if (rh_get(a, "tags") && json_object_array_length(rh_get(a, "tags")) > 0)
		rh_row_value(f, "Tags", rh_get(a, "tags"));
	if (rh_str(a, "rule_file")) {
		rh_row_open(f, "Rule file");
		rh_put_rec(f, rh_str(a, "rule_file"));
		if (rh_num(a, "rule_line", &line))
			fprintf(f, ":%.0f", line);
		fputs("</dd>\n", f);
	}
	fputs("</dl>\n</section>\n", f);
}

/* ---- #process ---- */

static void write_process(FILE *f, struct json_object *a)
{
	struct json_object *of = rh_get(a, "output_fields"), *anc = rh_get(rh_get(a, "evidence"), "ancestry");
	struct json_object *user = rh_get(a, "user");
	const char *pexe = rh_str(of, "proc.pexe");
	size_t n = anc && json_object_is_type(anc, json_type_array) ? json_object_array_length(anc) : 0;
	double pid, uid;

	rh_section(f, "process", "The process");
	fputs("<dl>\n", f);
	rh_row_str(f, "Executable", rh_str(a, "exe"));
	if (rh_num(a, "pid", &pid))
		fprintf(f, "<dt>PID</dt><dd>%.0f</dd>\n", pid);
	rh_row_value(f, "Parent PID", rh_get(of, "proc.ppid"));
	rh_row_str(f, "Command line", rh_str(of, "proc.cmdline"));
	if (rh_str(user, "name") || rh_num(user, "uid", &uid)) {
		rh_row_open(f, "User");
		if (rh_str(user, "name"))
			rh_put_rec(f, rh_str(user, "name"));
		if (rh_num(user, "uid", &uid))
			fprintf(f, "%suid %.0f", rh_str(user, "name") ? ", " : "", uid);
		fputs("</dd>\n", f);
	}
	rh_row_str(f, "Cgroup", rh_str(of, "proc.cgroup"));
	rh_row_str(f, "Binary id", rh_str(a, "binary_id"));
	rh_row_str(f, "Build id", rh_str(of, "proc.build_id"));
	rh_row_str(f, "Script", rh_str(of, "proc.script"));
	rh_row_str(f, "Image", rh_str(of, "proc.image"));
	rh_row_value(f, "Exit code", rh_get(of, "proc.exit_code"));
	rh_row_str(f, "End", rh_str(of, "proc.end_reason"));
	fputs("</dl>\n<h3>Ancestry, from the root down</h3>\n<ol class=\"ancestry\">\n", f);
	if (n > LIST_MAX)
		n = LIST_MAX;
	for (size_t i = n; i-- > 0;) {
		const char *e = json_object_is_type(json_object_array_get_idx(anc, i), json_type_string)
				    ? json_object_get_string(json_object_array_get_idx(anc, i))
				    : NULL;

		fputs("<li>", f);
		if (e)
			rh_put_rec(f, e);
		else
			fputs("(an ancestor whose path is unknown)", f);
		fputs("</li>\n", f);
	}
	if (!n && pexe) {
		fputs("<li>", f);
		rh_put_rec(f, pexe);
		fputs(" (the parent)</li>\n", f);
	}
	fputs("<li class=\"self\"><strong>", f);
	rh_put_rec(f, rh_str(a, "exe") ? rh_str(a, "exe") : "this process");
	fputs("</strong>", f);
	if (rh_num(a, "pid", &pid))
		fprintf(f, " (pid %.0f)", pid);
	fputs("</li>\n</ol>\n", f);
	if (!n && !pexe)
		fputs("<p>The record names no ancestors of this process.</p>\n", f);
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

	rh_section(f, "flamegraph", "Where it ran on CPU");
	r = evidence__parse(a, &ev, err, sizeof(err));
	if (r == -ENODATA) {
		fputs("<p>The alert carries no stack samples (sampling off, an exec, or too little CPU to sample), "
		      "so there is no flame graph.</p>\n",
		      f);
	} else if (r < 0) {
		fputs("<p>The alert&apos;s stacks could not be read: ", f);
		rh_put_rec(f, err[0] ? err : "?");
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
	struct json_object *h = rh_get(a, "host");

	rh_section(f, "host", "The host");
	fputs("<dl>\n", f);
	rh_row_str(f, "Host name", rh_str(h, "name"));
	rh_row_str(f, "Host id", rh_str(h, "id"));
	rh_row_str(f, "Boot id", rh_str(h, "boot_id"));
	rh_row_str(f, "Kernel", rh_str(h, "kernel"));
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
					rh_put_rec(f, key);
					fputs(".", f);
					rh_put_rec(f, k2);
					fputs("</dt><dd>", f);
					rh_put_value(f, v2);
					fputs("</dd>\n", f);
				}
			} else {
				fputs("<dt>", f);
				rh_put_rec(f, key);
				fputs("</dt><dd>", f);
				rh_put_value(f, val);
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
		rh_put_rec(f, cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		fputs("<tr>", f);
		for (size_t c = 0; c < ncols; c++) {
			fputs("<td>", f);
			rh_put_value(f, rh_get(o, cols[c]));
			fputs("</td>", f);
		}
		if (!ncols) {
			fputs("<td>", f);
			rh_put_value(f, o);
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
		rh_put_rec(f, key);
		fputs("</td><td>", f);
		rh_put_value(f, val);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void evidence_item(FILE *f, const char *name, struct json_object *v)
{
	fputs("<h3>", f);
	rh_put_rec(f, name);
	fputs("</h3>\n", f);
	if (v && json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0 &&
	    json_object_is_type(json_object_array_get_idx(v, 0), json_type_object))
		table_of_objects(f, v);
	else if (v && json_object_is_type(v, json_type_object) && json_object_object_length(v) > 0)
		table_of_pairs(f, v, "name", "value");
	else {
		fputs("<p>", f);
		rh_put_value(f, v);
		fputs("</p>\n", f);
	}
}

static void write_evidence(FILE *f, struct json_object *a)
{
	static const char *const news[][2] = {{"new_fail_paths", "Failed paths the baseline never saw"},
					      {"new_syscalls", "Syscalls the baseline never saw"},
					      {"new_oncpu_objects", "Objects the baseline never saw on CPU"}};
	struct json_object *ev = rh_get(a, "evidence"), *bl = rh_get(ev, "baseline"), *st = rh_get(ev, "stacks");
	struct json_object *of = rh_get(a, "output_fields");
	size_t items = 0;

	rh_section(f, "evidence", "The rest of the evidence");
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
		struct json_object *l = rh_get(bl, news[i][0]);

		if (l && json_object_is_type(l, json_type_array) && json_object_array_length(l) > 0) {
			fprintf(f, "<h3>%s</h3>\n<ul>\n", news[i][1]);
			for (size_t k = 0; k < json_object_array_length(l) && k < LIST_MAX; k++) {
				fputs("<li>", f);
				rh_put_value(f, json_object_array_get_idx(l, k));
				fputs("</li>\n", f);
			}
			fputs("</ul>\n", f);
			items++;
		}
	}
	if (rh_get(st, "objects") && json_object_is_type(rh_get(st, "objects"), json_type_array) &&
	    json_object_array_length(rh_get(st, "objects")) > 0) {
		fputs("<h3>Objects on CPU</h3>\n", f);
		table_of_objects(f, rh_get(st, "objects"));
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
	const char *rule = rh_str(alert, "rule"), *id = rh_str(alert, "id");
	int r;

	fputs(
	    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	    "<title>plumbline alert: ",
	    f);
	rh_put_rec(f, rule ? rule : "?");
	fputs("</title>\n<style>", f);
	fputs(css, f);
	fputs("</style>\n</head>\n<body>\n<h1>Alert: ", f);
	rh_put_rec(f, rule ? rule : "?");
	if (rh_str(alert, "priority")) {
		fputs(" (", f);
		rh_put_rec(f, rh_str(alert, "priority"));
		fputs(")", f);
	}
	fputs("</h1>\n", f);
	if (id) {
		fputs("<p class=\"id\">Alert ", f);
		rh_put_rec(f, id);
		fputs("</p>\n", f);
	}
	write_summary(f, alert);
	write_process(f, alert);
	rh_write_baseline(f, alert);
	r = write_flamegraph(f, alert);
	write_host(f, alert, version);
	write_evidence(f, alert);
	fputs("</body>\n</html>\n", f);
	if (r < 0)
		return r;
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}
