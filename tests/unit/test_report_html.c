// SPDX-License-Identifier: MIT
/*
 * test_report_html.c - the HTML page of `plumbline report` (report_html.c)
 * for hostile alert records: an exe named <script>, quotes, newlines and
 * control bytes in every string the page shows; every section there once,
 * nothing a name could add as markup, no "null" or "<NA>" in the text, the
 * baseline's marker at the alert's value; and a record with nothing but an
 * id still gives every section, each saying in words what is missing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli/report_html.h"

/* A hostile record: the sensor escapes control bytes as \xNN (in JSON
 * "\\x0A"); a forged file may hold them raw ("\n", "\u0007") too. */
static const char hostile[] =
    "{\"type\":\"alert\",\"id\":\"a-<b>id</b>\",\"time_ns\":1796030011000000000,"
    "\"rule\":\"Evil <i>rule</i>\\n\\u0007\",\"priority\":\"Critical\",\"severity\":2,\"when\":\"exit\","
    "\"output\":\"<script>alert(1)</script> used 612 ms, wanting <NA> % over <NA> s; cmdline \\\"<NA>\\\"\","
    "\"tags\":[\"t<1>\"],\"pid\":4242,\"exe\":\"/tmp/<script>alert(1)</script>\\\"q'\\\\x0Anl\","
    "\"binary_id\":\"build-id:00aa\",\"rule_desc\":\"desc <img src=x onerror=alert(2)>\","
    "\"rule_file\":\"/r\\\".yaml\",\"rule_line\":7,"
    "\"output_fields\":{\"proc.cmdline\":\"sh -c '<svg onload=alert(3)>'\",\"proc.cgroup\":null,"
    "\"proc.cpu_ms\":612,\"x<y>\":\"</td></tr></table><script>\"},"
    "\"evidence\":{\"syscalls\":{\"read<\":400},\"ancestry\":[\"/usr/lib/systemd/systemd\",null,"
    "\"/usr/sbin/<p>sshd\"],"
    "\"fail_paths\":[{\"path\":\"/etc/<x>\",\"errno\":2,\"errno_name\":null,\"count\":9,\"truncated\":false}],"
    "\"baseline\":{\"key\":\"build-id:00aa@-\",\"ready\":true,\"samples\":212,\"max_score\":9.4,"
    "\"max_feature\":\"cpu_ns\",\"features\":{\"cpu_ns\":{\"value\":612000000.0,\"p50\":11800000.0,"
    "\"p99\":19500000.0,\"ratio_p50\":51.9,\"ratio_p99\":31.4,\"score\":9.4}},"
    "\"new_fail_paths\":[\"/tmp/<new>\"],\"new_syscalls\":[],"
    "\"quantiles\":{\"cpu_ms\":{\"p50\":11.8,\"p90\":14.0,\"p99\":19.5},\"<q>\":{\"p<9>\":3}}},"
    "\"stacks\":{\"samples\":10,\"rate_hz\":49,\"unattributed\":0,"
    "\"top\":[{\"samples\":10,\"frames\":[{\"object\":\"/tmp/<o>.so\",\"function\":\"<script>f</script>\","
    "\"offset\":1,\"build_id\":null,\"kernel\":false}]}]}},"
    "\"host\":{\"name\":\"web-<3>\",\"id\":\"3d12\",\"boot_id\":\"6a09\","
    "\"psi\":{\"cpu_some_avg10\":0.93}},\"user\":{\"uid\":0,\"name\":\"ro\\\"ot\"}}";

static char *render(const char *text, int *ret)
{
	struct json_object *o = json_tokener_parse(text);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(o);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	*ret = report__write_html(o, "9.9.9", f);
	assert_int_equal(fclose(f), 0);
	json_object_put(o);
	assert_non_null(out);
	assert_int_equal(strlen(out), len); /* no NUL in the page */
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Every section once, in order. */
static void assert_sections(const char *page)
{
	static const char *const ids[] = {REPORT_SECTIONS};
	const char *at = page;
	char want[64];

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(want, sizeof(want), "<section id=\"%s\">", ids[i]);
		assert_int_equal(count(page, want), 1);
		assert_non_null(strstr(at, want));
		at = strstr(at, want);
	}
	assert_int_equal(count(page, "<section "), 6);
	assert_int_equal(count(page, "</section>"), 6);
}

/* No "null", no "<NA>", raw or escaped, anywhere outside the tags. */
static void assert_no_placeholders(const char *page)
{
	assert_null(strstr(page, "null"));
	assert_null(strstr(page, "<NA>"));
	assert_null(strstr(page, "&lt;NA&gt;"));
}

static void test_report_escapes_every_string_of_a_hostile_alert(void **state)
{
	int r;
	char *page = render(hostile, &r);

	(void)state;
	assert_int_equal(r, 0);
	assert_true(strncmp(page, "<!DOCTYPE html>\n", 16) == 0);
	assert_sections(page);
	assert_no_placeholders(page);
	/* nothing of the record became markup: the only elements are ours */
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<i>"));
	assert_null(strstr(page, "<b>"));
	assert_null(strstr(page, "<p>sshd"));
	assert_null(strstr(page, "<svg onload"));
	assert_null(strstr(page, "onerror=alert(2)>"));
	assert_int_equal(count(page, "<table>"), count(page, "</table>"));
	/* and it is all there as text */
	assert_non_null(strstr(page, "/tmp/&lt;script&gt;alert(1)&lt;/script&gt;&quot;q&apos;\\x0Anl"));
	assert_non_null(strstr(page, "Evil &lt;i&gt;rule&lt;/i&gt;\\x0A\\x07"));
	assert_non_null(strstr(page, "desc &lt;img src=x onerror=alert(2)&gt;"));
	assert_non_null(strstr(page, "sh -c &apos;&lt;svg onload=alert(3)&gt;&apos;"));
	assert_non_null(strstr(page, "&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;"));
	assert_non_null(strstr(page, "&lt;script&gt;f&lt;/script&gt;")); /* the flame graph's frame */
	/* the summary in words, from the fields present (the exe's base name:
	 * after the last slash, which is in "</script>") */
	assert_non_null(strstr(page, "<p class=\"what\">script&gt;&quot;q&apos;\\x0Anl (pid 4242, user "
				     "ro&quot;ot) on host web-&lt;3&gt; used 612 ms of CPU in one lifetime, where "
				     "its baseline&apos;s p99 is 19.5 ms (31.4x)."));
	assert_non_null(strstr(page, "<dt>Time</dt><dd>2026-11-30 09:13:31.000 UTC</dd>"));
	/* <NA> in words, its unit dropped */
	assert_non_null(strstr(page, "wanting (unknown) over (unknown); cmdline &quot;(unknown)&quot;"));
	/* the ancestry from the root down, the unknown one said so */
	assert_non_null(strstr(page, "<li>/usr/sbin/&lt;p&gt;sshd</li>\n<li>(an ancestor whose path is unknown)"
				     "</li>\n<li>/usr/lib/systemd/systemd</li>\n<li class=\"self\">"));
	/* the baseline's quantiles, the marker at 612 ms */
	assert_int_equal(count(page, "<line class=\"marker\" data-value=\"612\""), 1);
	assert_non_null(strstr(page, ">this alert: 612 ms</text>"));
	assert_non_null(strstr(page, ">p90 14</text>"));
	assert_non_null(strstr(page, ">p&lt;9&gt; 3</text>"));
	/* the host and the rest */
	assert_non_null(strstr(page, "<dt>psi.cpu_some_avg10</dt><dd>0.93</dd>"));
	assert_non_null(strstr(page, "<dt>Report by</dt><dd>plumbline 9.9.9</dd>"));
	assert_non_null(strstr(page, "<td>/etc/&lt;x&gt;</td><td>2</td><td>(none)</td><td>9</td><td>no</td>"));
	assert_non_null(strstr(page, "<li>/tmp/&lt;new&gt;</li>"));
	/* nothing to load: no URL but the SVG namespaces */
	assert_null(strstr(page, " src=\""));
	assert_null(strstr(page, "href=\""));
	assert_int_equal(count(page, "http://"), count(page, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_null(strstr(page, "https:"));
	free(page);
}

static void test_report_says_what_a_bare_alert_lacks(void **state)
{
	int r;
	char *page = render("{\"type\":\"alert\",\"id\":\"x1\",\"rule\":\"R\",\"exe\":null,\"pid\":null,"
			    "\"evidence\":{\"baseline\":null},\"host\":null,\"user\":null,\"rule_desc\":null}",
			    &r);

	(void)state;
	assert_int_equal(r, 0);
	assert_sections(page);
	assert_no_placeholders(page);
	assert_non_null(strstr(page, "<p class=\"what\">A process matched the rule R.</p>"));
	assert_non_null(strstr(page, "This alert made no baseline comparison"));
	assert_non_null(strstr(page, "The alert carries no stack samples"));
	assert_non_null(strstr(page, "The record carries no host context"));
	assert_non_null(strstr(page, "The record names no ancestors of this process."));
	assert_non_null(strstr(page, "The alert carries no other evidence."));
	assert_null(strstr(page, "<dt>Description</dt>"));
	free(page);
}

static void test_report_plots_a_baseline_not_ready_in_words(void **state)
{
	int r;
	char *page = render("{\"type\":\"alert\",\"id\":\"x2\",\"rule\":\"R\",\"evidence\":{\"baseline\":"
			    "{\"key\":\"k\",\"ready\":false,\"samples\":0,\"quantiles\":{}}}}",
			    &r);

	(void)state;
	assert_int_equal(r, 0);
	assert_no_placeholders(page);
	assert_non_null(strstr(page, "<dt>Samples learned</dt><dd>0</dd>"));
	assert_non_null(strstr(page, "nothing to plot"));
	assert_null(strstr(page, "class=\"marker\""));
	free(page);
}

static void test_report_compares_the_output_value_with_the_quantiles(void **state)
{
	int r;
	char *page = render("{\"type\":\"alert\",\"id\":\"x3\",\"rule\":\"CPU runaway\",\"when\":\"window\","
			    "\"pid\":6003,\"exe\":\"/usr/bin/regexd\",\"output_fields\":{\"proc.cpu_ms\":7000},"
			    "\"evidence\":{\"baseline\":{\"key\":\"k\",\"ready\":true,\"samples\":400,"
			    "\"quantiles\":{\"cpu_ms\":{\"p50\":40.0,\"p90\":90.0,\"p99\":120.0}}}}}",
			    &r);

	(void)state;
	assert_int_equal(r, 0);
	assert_no_placeholders(page);
	/* no scored feature: the output's value against the quantiles' p99 */
	assert_non_null(strstr(page, "<p class=\"what\">regexd (pid 6003) used 7000 ms of CPU, where its "
				     "baseline&apos;s p99 is 120 ms (58.3x).</p>"));
	assert_int_equal(count(page, "<line class=\"marker\" data-value=\"7000\""), 1);
	assert_non_null(strstr(page, ">p50 40</text>"));
	assert_non_null(strstr(page, ">p90 90</text>"));
	assert_non_null(strstr(page, ">p99 120</text>"));
	free(page);
}

static void test_report_fails_on_a_full_disk(void **state)
{
	struct json_object *o = json_tokener_parse(hostile);
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f) {
		json_object_put(o);
		skip();
	}
	assert_int_equal(report__write_html(o, "1", f), -EIO);
	fclose(f);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_escapes_every_string_of_a_hostile_alert),
	    cmocka_unit_test(test_report_says_what_a_bare_alert_lacks),
	    cmocka_unit_test(test_report_plots_a_baseline_not_ready_in_words),
	    cmocka_unit_test(test_report_compares_the_output_value_with_the_quantiles),
	    cmocka_unit_test(test_report_fails_on_a_full_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
