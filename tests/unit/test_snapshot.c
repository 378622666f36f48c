// SPDX-License-Identifier: MIT
/*
 * test_snapshot.c - what the metrics and status.json read of the rules
 * (sensor/pipeline/alerts.c): evaluations, alerts and held-back matches per
 * rule, kept by name across a reload; the last alerts, newest first, as the
 * alert records say them; and a snapshot's exposition, with a rule name that
 * needs escaping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "pipeline/alerts.h"
#include "telemetry/snapshot.h"

#include "record_helpers.h"
#include "unit_helpers.h"

#define T0  1700000000000000000ull
#define SEC 1000000000ull

struct fx {
	char dir[64], rules[96];
	const char *paths[1];
	struct alerts_opts o;
	struct alerts *a;
	struct ut_mem_output *out;
	struct pl_output *outs[1];
	struct pl_sample s;
};

static void write_rules(struct fx *f, const char *text)
{
	FILE *fp = fopen(f->rules, "we");

	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/plumbline-snapshot-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->rules, sizeof(f->rules), "%s/rules.yaml", f->dir);
	f->paths[0] = f->rules;
	f->o = (struct alerts_opts){.paths = f->paths, .npaths = 1, .id_instance = 0x5eed};
	f->out = ut_mem_output__new();
	f->outs[0] = &f->out->base;
	pl_sample__init(&f->s, PL_AT_EXEC);
	f->s.pid = 100;
	f->s.comm = "svc";
	f->s.exe = "/usr/bin/svc";
	f->s.binary_id = "build-id:5c";
	f->s.cmdline = "svc";
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	alerts__free(f->a);
	output__free(&f->out->base);
	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

#define RULES                                                                                                          \
	"- rule: 'Every \"svc\" exec'\n  desc: d\n  condition: proc.exe_name = svc\n  output: o %proc.pid\n"           \
	"  priority: NOTICE\n  when: exec\n"                                                                           \
	"- rule: Throttled\n  desc: d\n  condition: proc.exe_name = svc\n  output: o\n  priority: WARNING\n"           \
	"  when: exec\n  throttle: 600\n"                                                                              \
	"- rule: Never\n  desc: d\n  condition: proc.exe_name = nothing\n  output: o\n  priority: NOTICE\n"            \
	"  when: exec\n"                                                                                               \
	"- rule: At exit\n  desc: d\n  condition: proc.exe_name = svc\n  output: o\n  priority: NOTICE\n"              \
	"  when: exit\n"

static const struct alerts_rule_count *count_of(const struct alerts *a, const char *name)
{
	size_t n;
	const struct alerts_rule_count *c = alerts__rule_counts(a, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return &c[i];
	fail_msg("no counts for rule %s", name);
	return NULL;
}

static void test_counts_per_rule_and_kept_across_reload(void **state)
{
	struct fx *f = *state;
	const struct alerts_rule_count *c;
	size_t n;

	write_rules(f, RULES);
	assert_int_equal(alerts__open(&f->o, &f->a), 0);
	for (int i = 0; i < 3; i++) {
		f->s.pid = 100 + (uint32_t)i;
		alerts__eval(f->a, &f->s, T0 + (uint64_t)i * SEC, f->outs, 1);
	}
	c = alerts__rule_counts(f->a, &n);
	assert_int_equal(n, 4);
	c = count_of(f->a, "Every \"svc\" exec");
	assert_int_equal(c->evaluations, 3);
	assert_int_equal(c->alerts, 3);
	assert_int_equal(c->throttled, 0);
	c = count_of(f->a, "Throttled");
	assert_int_equal(c->evaluations, 3);
	assert_int_equal(c->alerts, 1);
	assert_int_equal(c->throttled, 2);
	c = count_of(f->a, "Never");
	assert_int_equal(c->evaluations, 3);
	assert_int_equal(c->alerts, 0);
	c = count_of(f->a, "At exit"); /* never runs at exec */
	assert_int_equal(c->evaluations, 0);
	assert_int_equal(f->out->n, 4);

	/* a reload without "Never", with a new rule: the others keep their counts */
	write_rules(f, "- rule: Throttled\n  desc: d\n  condition: proc.exe_name = svc\n  output: o\n"
		       "  priority: WARNING\n  when: exec\n  throttle: 600\n"
		       "- rule: New\n  desc: d\n  condition: proc.exe_name = svc\n  output: o\n  priority: NOTICE\n"
		       "  when: exec\n");
	assert_int_equal(alerts__reload(f->a), 0);
	alerts__eval(f->a, &f->s, T0 + 10 * SEC, f->outs, 1);
	c = alerts__rule_counts(f->a, &n);
	assert_int_equal(n, 2);
	c = count_of(f->a, "Throttled");
	assert_int_equal(c->evaluations, 4);
	assert_int_equal(c->throttled, 3);
	c = count_of(f->a, "New");
	assert_int_equal(c->evaluations, 1);
	assert_int_equal(c->alerts, 1);
}

static void test_recent_alerts_newest_first_as_records(void **state)
{
	struct fx *f = *state;
	struct alerts_recent r[ALERTS_RECENT_MAX];
	size_t n;

	write_rules(f, "- rule: R\n  desc: d\n  condition: proc.exe_name = svc\n  output: o\n  priority: ERROR\n"
		       "  when: exec\n");
	assert_int_equal(alerts__open(&f->o, &f->a), 0);
	assert_int_equal(alerts__recent(f->a, r, ALERTS_RECENT_MAX), 0);
	for (int i = 0; i < 12; i++) {
		f->s.pid = 200 + (uint32_t)i;
		f->s.exe = i == 11 ? "/tmp/b\nd/svc" : "/usr/bin/svc";
		alerts__eval(f->a, &f->s, T0 + (uint64_t)i * SEC, f->outs, 1);
	}
	n = alerts__recent(f->a, r, ALERTS_RECENT_MAX);
	assert_int_equal(n, ALERTS_RECENT_MAX);
	for (size_t i = 0; i < n; i++) {
		struct json_object *rec = ut_mem_record(f->out, 11 - i), *v;

		assert_int_equal(r[i].pid, 211 - i);
		assert_int_equal(r[i].time_ns, T0 + (11 - i) * SEC);
		assert_string_equal(r[i].rule, "R");
		assert_string_equal(r[i].priority, "Error");
		assert_true(json_object_object_get_ex(rec, "id", &v));
		assert_string_equal(r[i].id, json_object_get_string(v));
		assert_true(json_object_object_get_ex(rec, "exe", &v));
		assert_string_equal(r[i].exe, json_object_get_string(v)); /* escaped as in the record */
		json_object_put(rec);
	}
	assert_string_equal(r[0].exe, "/tmp/b\\x0Ad/svc");
	assert_int_equal(alerts__recent(f->a, r, 2), 2);
	assert_int_equal(r[0].pid, 211);
}

static void test_snapshot_metrics_render_rules_escaped(void **state)
{
	struct snapshot s = {0};
	struct pl_expo e = {0};
	struct snap_rule rules[2] = {
	    {.name = (char *)"Say \"hi\" \\ to\nall", .enabled = true, .evaluations = 7, .alerts = 2},
	    {.name = (char *)"plain", .enabled = false},
	};
	const char *t;

	(void)state;
	s.rules_on = true;
	s.rule = rules;
	s.nrule = 2;
	s.rules.rules = 2;
	s.rules.enabled = 1;
	s.out[SNAP_OUT_JSON] = (struct snap_output_state){.on = true, .written = 5, .dropped = 1, .failing = true};
	s.nloss = 2;
	s.loss[0] = (struct snap_loss){.cause = "ringbuf_full", .n = 3};
	s.loss[1] = (struct snap_loss){.cause = "stack_not_stored", .n = 9, .detail = true};
	s.cpu_ns = 1500000000;
	assert_int_equal(snapshot__metrics(&s, &e), 0);
	t = expo__text(&e);
	assert_non_null(strstr(t, "plumbline_rule_alerts_total{rule=\"Say \\\"hi\\\" \\\\ to\\nall\"} 2\n"));
	assert_non_null(strstr(t, "plumbline_rule_evaluations_total{rule=\"Say \\\"hi\\\" \\\\ to\\nall\"} 7\n"));
	assert_non_null(strstr(t, "plumbline_rule_alerts_total{rule=\"plain\"} 0\n"));
	assert_non_null(strstr(t, "plumbline_rules_loaded{enabled=\"false\"} 1\n"));
	assert_non_null(strstr(t, "plumbline_output_records_written_total{output=\"json\"} 5\n"));
	assert_non_null(strstr(t, "plumbline_output_records_dropped_total{output=\"json\"} 1\n"));
	assert_non_null(strstr(t, "plumbline_output_failing{output=\"json\"} 1\n"));
	assert_null(strstr(t, "output=\"syslog\"")); /* off: no series */
	assert_non_null(strstr(t, "plumbline_losses_total{cause=\"ringbuf_full\"} 3\n"));
	/* bounded detail has its own metric, and is no loss */
	assert_non_null(strstr(t, "plumbline_detail_capped_total{cause=\"stack_not_stored\"} 9\n"));
	assert_null(strstr(t, "plumbline_losses_total{cause=\"stack_not_stored\"}"));
	assert_null(strstr(t, "plumbline_process_cpu_seconds_total")); /* rendered at the scrape */
	assert_null(strstr(t, "plumbline_baselines{")); /* baselines off */
	expo__free(&e);
}

/* Resident bytes from /proc/self/statm, read without touching the heap. */
static unsigned long long statm_resident(void)
{
	unsigned long long size, resident;
	char buf[128];
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(sscanf(buf, "%llu %llu", &size, &resident), 2);
	return resident * (unsigned long long)sysconf(_SC_PAGESIZE);
}

static void test_process_metrics_are_of_the_moment(void **state)
{
	struct pl_expo e = { 0 };
	unsigned long long before = 0, after = 1, rss = 0;
	const char *p = NULL;

	(void)state;
	e.cap = 1 << 16; /* allocated and touched before statm is read: the rendering doesn't move RSS */
	e.buf = malloc(e.cap);
	assert_non_null(e.buf);
	memset(e.buf, 0, e.cap);
	/* RSS may move between two reads of it (a sanitizer's allocator): retried until it holds still */
	for (int i = 0; i < 20 && before != after; i++) {
		e.len = 0;
		before = statm_resident();
		snapshot__process_metrics(&e, NULL);
		after = statm_resident();
	}
	assert_true(before == after);
	p = strstr(expo__text(&e), "\nplumbline_process_resident_memory_bytes ");
	assert_non_null(p);
	assert_int_equal(sscanf(p + 41, "%llu", &rss), 1);
	assert_int_equal(rss, before);
	assert_non_null(strstr(expo__text(&e), "# TYPE plumbline_process_cpu_seconds_total counter\n"));
	assert_non_null(strstr(expo__text(&e), "# TYPE plumbline_process_max_resident_memory_bytes gauge\n"));
	expo__free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_counts_per_rule_and_kept_across_reload, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recent_alerts_newest_first_as_records, setup, teardown),
	    cmocka_unit_test(test_snapshot_metrics_render_rules_escaped),
	    cmocka_unit_test(test_process_metrics_are_of_the_moment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
