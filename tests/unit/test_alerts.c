// SPDX-License-Identifier: MIT
/*
 * test_alerts.c - rules on samples to alert records (sensor/pipeline/alerts.c):
 * the throttle per (rule, binary) and what the next alert says of it, the
 * exact value of each output field by type, the evidence of each moment
 * (a window's one top path; an exit's every path), an undecided match when
 * the regex budget is spent, and a reload that keeps the old rules when the
 * new ones don't load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>
#include <math.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "pipeline/alerts.h"
#include "telemetry/stats.h"
#include "log.h"
#include "syscalls.h"

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
	struct pl_output *outs[2];
	unsigned long long life_sc[PL_SAMPLE_NR_SYSCALLS], win_sc[PL_SAMPLE_NR_SYSCALLS];
	struct pl_fail fails[2];
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
	snprintf(f->dir, sizeof(f->dir), "/tmp/plumbline-alerts-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->rules, sizeof(f->rules), "%s/rules.yaml", f->dir);
	f->paths[0] = f->rules;
	f->o = (struct alerts_opts){.paths = f->paths, .npaths = 1, .id_instance = 0x5eed};
	f->out = ut_mem_output__new();
	f->outs[0] = &f->out->base;
	f->outs[1] = NULL; /* a NULL output is skipped */

	/* an exit of svc: 9 openat, 2 read; two failed paths */
	pl_sample__init(&f->s, PL_AT_EXIT);
	f->s.pid = 4242;
	f->s.comm = "svc";
	f->s.exe = "/usr/bin/svc";
	f->s.binary_id = "build-id:5c";
	f->s.cmdline = "svc --serve";
	f->s.image_start_ns = T0;
	f->s.end_ns = f->s.time_ns = T0 + 2 * SEC;
	f->s.end_reason = "exit";
	f->s.life.cpu_ns = 1500000;
	f->life_sc[syscall_number("openat")] = 9;
	f->life_sc[syscall_number("read")] = 2;
	f->s.life.sc = f->life_sc;
	f->s.life.syscalls = 11;
	f->s.life.open_fail = 6;
	f->fails[0] = (struct pl_fail){.path = "/etc/svc.conf", .err = 2, .count = 5};
	f->fails[1] = (struct pl_fail){.path = "/root/key", .err = 13, .count = 1, .truncated = true};
	f->s.fails = f->fails;
	f->s.nfails = f->s.fail_paths = 2;
	f->s.parent_exe = "/usr/lib/systemd/systemd";
	f->s.ancestors[0] = "/usr/lib/systemd/systemd";
	f->s.ancestors[1] = NULL;
	f->s.nancestors = 2;
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

static void open_rules(struct fx *f, const char *text)
{
	write_rules(f, text);
	assert_int_equal(alerts__open(&f->o, &f->a), 0);
}

static int eval(struct fx *f, const struct pl_sample *s, uint64_t now)
{
	return alerts__eval(f->a, s, now, f->outs, 2);
}

static struct json_object *alert(struct fx *f, size_t i)
{
	return ut_mem_record(f->out, i);
}

/* A counter of the stats record's `rules`, by its key there. */
static uint64_t rules_counter(struct fx *f, const char *key)
{
	struct pl_stats_rules c;
	struct json_object *o;
	uint64_t v;

	alerts__counts(f->a, &c);
	o = stats_json__rules(&c);
	v = ut_u64(o, key);
	json_object_put(o);
	return v;
}

/* ---- throttle ---- */

static const char throttle_rules[] = "- rule: Throttled\n"
				     "  desc: d\n"
				     "  condition: proc.name = svc\n"
				     "  output: throttled %proc.pid\n"
				     "  priority: WARNING\n"
				     "  when: exit\n"
				     "  throttle: 60\n"
				     "- rule: Every match\n"
				     "  desc: d\n"
				     "  condition: proc.name = svc\n"
				     "  output: every %proc.pid\n"
				     "  priority: DEBUG\n"
				     "  when: exit\n";

static void test_alerts_throttle_per_rule_and_binary_counts_what_it_held_back(void **state)
{
	struct fx *f = *state;
	struct pl_sample other = f->s;
	struct json_object *a;

	open_rules(f, throttle_rules);
	other.binary_id = "build-id:07";
	/* both rules match each time; the throttled one writes once per 60 s per binary */
	assert_int_equal(eval(f, &f->s, T0), 2);
	assert_int_equal(eval(f, &f->s, T0 + 1 * SEC), 2);
	assert_int_equal(eval(f, &f->s, T0 + 2 * SEC), 2);
	assert_int_equal(eval(f, &other, T0 + 3 * SEC), 2);	/* another binary: its own throttle */
	assert_int_equal(eval(f, &f->s, T0 + 60 * SEC - 1), 2); /* still within the 60 s */
	assert_int_equal(eval(f, &f->s, T0 + 60 * SEC), 2);
	/* Throttled: T0 (A), T0+3 (B), T0+60 (A, after 3 held back, which its
	 * window's summary reports first); Every: all six */
	assert_int_equal(f->out->n, 10);
	{
		static const char *const types[] = {"alert", "alert", "alert", "alert", "alert",
						    "alert", "alert", "alert_summary", "alert", "alert"};
		static const char *const rules[] = {"Throttled",   "Every match", "Every match", "Every match",
						    "Throttled",   "Every match", "Every match", "Throttled",
						    "Throttled",   "Every match"};
		static const uint64_t before[] = {0, 0, 0, 0, 0, 0, 0, 0, 3, 0};
		static const uint64_t times[] = {T0,		    T0,		      T0 + SEC,	    T0 + 2 * SEC,
						 T0 + 3 * SEC,	    T0 + 3 * SEC,     T0 + 60 * SEC - 1, T0 + 60 * SEC,
						 T0 + 60 * SEC,	    T0 + 60 * SEC};
		/* ids count alerts and summaries alike, in the order written */
		static const unsigned seq[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

		for (size_t i = 0; i < 10; i++) {
			char id[64];

			a = alert(f, i);
			assert_string_equal(ut_str(a, "type"), types[i]);
			assert_string_equal(ut_str(a, "rule"), rules[i]);
			if (strcmp(types[i], "alert") == 0)
				assert_int_equal(ut_u64(a, "suppressed_before"), before[i]);
			assert_int_equal(ut_u64(a, "time_ns"), times[i]);
			snprintf(id, sizeof(id), "0000000000005eed-%016x", seq[i]);
			assert_string_equal(ut_str(a, "id"), id);
			json_object_put(a);
		}
	}
	a = alert(f, 4);
	assert_string_equal(ut_str(a, "binary_id"), "build-id:07");
	json_object_put(a);
	/* the summary: which alert the 3 repeat, when they came, why it was written */
	a = alert(f, 7);
	{
		static const char *const keys[] = {"type",	"id",	       "time_ns",	"rule",
						   "priority",	"severity",    "output",	"alert_id",
						   "exe",	"binary_id",   "count",		"first_ns",
						   "last_ns",	"window_start_ns", "window_end_ns", "reason",
						   "host",	NULL};

		ut_keys(a, keys);
	}
	ut_host_is_this_machine(ut_obj(a, "host"));
	assert_string_equal(ut_str(a, "alert_id"), "0000000000005eed-0000000000000001");
	assert_string_equal(ut_str(a, "priority"), "Warning");
	assert_int_equal(ut_i64(a, "severity"), 4);
	assert_string_equal(ut_str(a, "exe"), "/usr/bin/svc");
	assert_string_equal(ut_str(a, "binary_id"), "build-id:5c");
	assert_int_equal(ut_u64(a, "count"), 3);
	assert_int_equal(ut_u64(a, "first_ns"), T0 + SEC);
	assert_int_equal(ut_u64(a, "last_ns"), T0 + 60 * SEC - 1);
	assert_int_equal(ut_u64(a, "window_start_ns"), T0);
	assert_int_equal(ut_u64(a, "window_end_ns"), T0 + 60 * SEC);
	assert_string_equal(ut_str(a, "reason"), "window_end");
	assert_string_equal(ut_str(a, "output"), "3 more alerts of Throttled for /usr/bin/svc held back "
						 "(repeats of alert 0000000000005eed-0000000000000001)");
	json_object_put(a);
	assert_int_equal(rules_counter(f, "events"), 6);
	assert_int_equal(rules_counter(f, "alerts"), 9);
	assert_int_equal(rules_counter(f, "throttled"), 3);
	assert_int_equal(rules_counter(f, "summaries"), 1);
	assert_int_equal(rules_counter(f, "summaries_pending"), 0);
	/* the NULL output was skipped, the other written to */
	assert_int_equal(f->out->base.written, 10);
}

/* A window that no later match closes is summarized at the tick after its
 * end, once; the next alert of the pair still says what came before it. */
static void test_alerts_summary_at_the_tick_after_the_window_ends(void **state)
{
	struct fx *f = *state;
	struct json_object *a;

	open_rules(f, throttle_rules);
	assert_int_equal(eval(f, &f->s, T0), 2);
	assert_int_equal(eval(f, &f->s, T0 + 10 * SEC), 2);
	assert_int_equal(eval(f, &f->s, T0 + 20 * SEC), 2);
	/* 4 records: Throttled, Every, Every, Every */
	assert_int_equal(f->out->n, 4);
	assert_int_equal(rules_counter(f, "summaries_pending"), 1);
	alerts__tick(f->a, T0 + 59 * SEC, f->outs, 2); /* not over yet */
	assert_int_equal(f->out->n, 4);
	alerts__tick(f->a, T0 + 61 * SEC, f->outs, 2);
	assert_int_equal(f->out->n, 5);
	a = alert(f, 4);
	assert_string_equal(ut_str(a, "type"), "alert_summary");
	assert_int_equal(ut_u64(a, "time_ns"), T0 + 61 * SEC);
	assert_int_equal(ut_u64(a, "count"), 2);
	assert_int_equal(ut_u64(a, "first_ns"), T0 + 10 * SEC);
	assert_int_equal(ut_u64(a, "last_ns"), T0 + 20 * SEC);
	assert_string_equal(ut_str(a, "reason"), "window_end");
	assert_string_equal(ut_str(a, "alert_id"), "0000000000005eed-0000000000000001");
	assert_string_equal(ut_str(a, "id"), "0000000000005eed-0000000000000005");
	json_object_put(a);
	/* reported once: neither the next tick nor the shutdown says it again */
	alerts__tick(f->a, T0 + 62 * SEC, f->outs, 2);
	assert_int_equal(f->out->n, 5);
	assert_int_equal(rules_counter(f, "summaries_pending"), 0);
	/* the next alert of the pair: a new window, and what the last one held */
	assert_int_equal(eval(f, &f->s, T0 + 70 * SEC), 2);
	assert_int_equal(f->out->n, 7);
	a = alert(f, 5);
	assert_string_equal(ut_str(a, "rule"), "Throttled");
	assert_int_equal(ut_u64(a, "suppressed_before"), 2);
	assert_string_equal(ut_str(a, "id"), "0000000000005eed-0000000000000006");
	json_object_put(a);
	alerts__finish(f->a, T0 + 71 * SEC, f->outs, 2);
	assert_int_equal(f->out->n, 7); /* the new window held nothing */
	assert_int_equal(rules_counter(f, "throttled"), 2);
	assert_int_equal(rules_counter(f, "summaries"), 1);
}

/* At shutdown every window still holding matches is summarized, cut short;
 * the counts add up to what the stats call throttled. */
static void test_alerts_summaries_at_shutdown_account_for_every_held_match(void **state)
{
	struct fx *f = *state;
	struct pl_sample b = f->s;
	struct json_object *a;
	uint64_t sum = 0;

	open_rules(f, throttle_rules);
	b.binary_id = "build-id:07";
	b.exe = "/usr/bin/other";
	for (int i = 0; i < 5; i++)
		eval(f, &f->s, T0 + (uint64_t)i * SEC);
	for (int i = 0; i < 3; i++)
		eval(f, &b, T0 + (uint64_t)i * SEC);
	eval(f, &b, T0 + 3 * SEC + 1); /* after the other's last: a is held from T0+1s, b from T0+1s */
	/* Throttled: 1 + 1 alerts, 4 + 3 held; Every: 9 */
	assert_int_equal(f->out->n, 11);
	assert_int_equal(rules_counter(f, "summaries_pending"), 2);
	alerts__finish(f->a, T0 + 30 * SEC, f->outs, 2);
	assert_int_equal(f->out->n, 13);
	/* in the order the windows began to hold matches */
	a = alert(f, 11);
	assert_string_equal(ut_str(a, "type"), "alert_summary");
	assert_string_equal(ut_str(a, "binary_id"), "build-id:5c");
	assert_int_equal(ut_u64(a, "count"), 4);
	assert_int_equal(ut_u64(a, "last_ns"), T0 + 4 * SEC);
	assert_int_equal(ut_u64(a, "window_end_ns"), T0 + 60 * SEC);
	assert_string_equal(ut_str(a, "reason"), "shutdown");
	sum += ut_u64(a, "count");
	json_object_put(a);
	a = alert(f, 12);
	assert_string_equal(ut_str(a, "binary_id"), "build-id:07");
	assert_string_equal(ut_str(a, "exe"), "/usr/bin/other");
	assert_int_equal(ut_u64(a, "count"), 3);
	assert_int_equal(ut_u64(a, "first_ns"), T0 + SEC);
	assert_int_equal(ut_u64(a, "last_ns"), T0 + 3 * SEC + 1);
	assert_string_equal(ut_str(a, "reason"), "shutdown");
	sum += ut_u64(a, "count");
	json_object_put(a);
	assert_int_equal(sum, rules_counter(f, "throttled"));
	assert_int_equal(rules_counter(f, "summaries"), 2);
	assert_int_equal(rules_counter(f, "summaries_pending"), 0);
}

/* An alert goes to an OCSF output as a Detection Finding with the same id,
 * to a native output as the record; a summary as the finding's update. */
static void test_alerts_ocsf_output_gets_findings_with_the_alert_ids(void **state)
{
	struct fx *f = *state;
	struct ut_mem_output *oc = ut_mem_output__new();
	struct pl_output *outs[2] = {&f->out->base, &oc->base};
	struct json_object *a, *fi, *p, *um;

	oc->base.alert_form = PL_ALERT_OCSF;
	open_rules(f, throttle_rules);
	alerts__eval(f->a, &f->s, T0 + 1500000, outs, 2);
	alerts__eval(f->a, &f->s, T0 + 2 * SEC, outs, 2);
	alerts__finish(f->a, T0 + 3 * SEC, outs, 2);
	/* Throttled, Every, Every, its summary */
	assert_int_equal(f->out->n, 4);
	assert_int_equal(oc->n, 4);
	a = ut_mem_record(oc, 0);
	assert_int_equal(ut_i64(a, "class_uid"), 2004);
	assert_int_equal(ut_i64(a, "category_uid"), 2);
	assert_int_equal(ut_i64(a, "activity_id"), 1);
	assert_int_equal(ut_i64(a, "type_uid"), 200401);
	assert_int_equal(ut_i64(a, "severity_id"), 3); /* Warning: Medium */
	assert_int_equal(ut_i64(a, "time"), (int64_t)((T0 + 1500000) / 1000000));
	assert_string_equal(ut_str(a, "message"), "throttled 4242");
	assert_string_equal(ut_str(ut_obj(a, "metadata"), "version"), "1.6.0");
	assert_string_equal(ut_str(ut_obj(ut_obj(a, "metadata"), "product"), "name"), "plumbline");
	fi = ut_obj(a, "finding_info");
	assert_string_equal(ut_str(fi, "uid"), "0000000000005eed-0000000000000001");
	assert_string_equal(ut_str(fi, "title"), "Throttled");
	assert_string_equal(ut_str(fi, "desc"), "d");
	p = ut_obj(json_object_array_get_idx(ut_arr(a, "evidences"), 0), "process");
	assert_int_equal(ut_i64(p, "pid"), 4242);
	assert_string_equal(ut_str(p, "cmd_line"), "svc --serve");
	assert_string_equal(ut_str(ut_obj(p, "file"), "path"), "/usr/bin/svc");
	assert_string_equal(ut_str(ut_obj(p, "file"), "name"), "svc");
	um = ut_obj(a, "unmapped");
	assert_int_equal(ut_u64(um, "time_ns"), T0 + 1500000);
	assert_string_equal(ut_str(um, "binary_id"), "build-id:5c");
	json_object_put(a);
	a = ut_mem_record(oc, 3);
	assert_int_equal(ut_i64(a, "activity_id"), 2);
	assert_int_equal(ut_i64(a, "type_uid"), 200402);
	assert_int_equal(ut_i64(a, "count"), 1);
	assert_int_equal(ut_i64(a, "start_time"), (int64_t)((T0 + 2 * SEC) / 1000000));
	assert_string_equal(ut_str(ut_obj(a, "finding_info"), "uid"), "0000000000005eed-0000000000000001");
	assert_string_equal(ut_str(ut_obj(a, "metadata"), "uid"), "0000000000005eed-0000000000000004");
	assert_string_equal(ut_str(ut_obj(a, "unmapped"), "reason"), "shutdown");
	json_object_put(a);
	output__free(&oc->base);
}

/* Without a binary id, the exe is who is throttled. */
static void test_alerts_throttle_falls_back_to_the_exe(void **state)
{
	struct fx *f = *state;
	struct pl_sample a = f->s, b = f->s;

	open_rules(f, throttle_rules);
	a.binary_id = b.binary_id = NULL;
	b.exe = "/usr/local/bin/svc";
	eval(f, &a, T0);
	eval(f, &a, T0 + SEC);
	eval(f, &b, T0 + SEC);
	/* Throttled twice (a, b), Every three times */
	assert_int_equal(f->out->n, 5);
	assert_int_equal(rules_counter(f, "throttled"), 1);
}

/* The window clock the test moves by hand (alerts_opts.window_clock). */
static uint64_t fake_clock(void *ctx)
{
	return *(const uint64_t *)ctx;
}

/*
 * Throttle windows run on the window clock, not on the wall clock: the wall
 * clock stepped back an hour neither re-raises a throttled alert nor holds
 * the next one back an hour; the summary's times are in the wall clock as
 * of its writing.
 */
static void test_alerts_throttle_ignores_a_wall_clock_step(void **state)
{
	struct fx *f = *state;
	const uint64_t back = 3600 * SEC, boot = 500 * SEC;
	uint64_t clock = boot;
	struct json_object *a;

	f->o.window_clock = fake_clock;
	f->o.window_clock_ctx = &clock;
	open_rules(f, throttle_rules);
	assert_int_equal(eval(f, &f->s, T0), 2);
	/* 1 s later the wall clock is stepped back 1 h: still throttled */
	clock = boot + SEC;
	assert_int_equal(eval(f, &f->s, T0 + SEC - back), 2);
	assert_int_equal(f->out->n, 3); /* Throttled, Every, Every */
	assert_int_equal(rules_counter(f, "throttled"), 1);
	/* 60 s after the first alert by the window clock: a new window, whatever
	 * the wall clock says, after the summary of the last one */
	clock = boot + 60 * SEC;
	assert_int_equal(eval(f, &f->s, T0 + 60 * SEC - back), 2);
	assert_int_equal(f->out->n, 6);
	a = alert(f, 3);
	assert_string_equal(ut_str(a, "type"), "alert_summary");
	assert_int_equal(ut_u64(a, "count"), 1);
	assert_int_equal(ut_u64(a, "first_ns"), T0 + SEC - back);
	assert_int_equal(ut_u64(a, "window_start_ns"), T0 - back);
	json_object_put(a);
	a = alert(f, 4);
	assert_string_equal(ut_str(a, "rule"), "Throttled");
	assert_int_equal(ut_u64(a, "suppressed_before"), 1);
	json_object_put(a);
}

/* ---- output fields ---- */

static void test_alerts_output_fields_keep_each_value_exactly_by_type(void **state)
{
	struct fx *f = *state;
	struct json_object *a, *of;
	static const char *const keys[] = {"proc.pid",	     "proc.cpu_ms", "proc.wall_ms",	    "proc.partial",
					   "proc.exe",	     "proc.apath",  "proc.syscall[openat]", "proc.exit_signal",
					   "baseline.ready", NULL};
	static const char *const apath[] = {"/usr/lib/systemd/systemd", "<null>", NULL};

	open_rules(f, "- rule: Fields\n"
		      "  desc: d\n"
		      "  condition: proc.pid > 0\n"
		      "  output: \"%proc.pid %proc.cpu_ms %proc.wall_ms %proc.partial %proc.exe %proc.apath "
		      "%proc.syscall[openat] %proc.exit_signal %baseline.ready\"\n"
		      "  priority: NOTICE\n"
		      "  tags: [a, \"t\\nx\"]\n"
		      "  when: exit\n");
	f->s.exe = "/opt/q\"uo\\te\n";
	assert_int_equal(eval(f, &f->s, T0), 1);
	a = alert(f, 0);
	of = ut_obj(a, "output_fields");
	ut_keys(of, keys);
	/* integral numbers stay integers; the rest are doubles */
	assert_true(json_object_is_type(ut_field(of, "proc.pid"), json_type_int));
	assert_int_equal(ut_i64(of, "proc.pid"), 4242);
	assert_true(json_object_is_type(ut_field(of, "proc.cpu_ms"), json_type_double));
	assert_true(ut_dbl(of, "proc.cpu_ms") == 1.5);
	assert_true(json_object_is_type(ut_field(of, "proc.wall_ms"), json_type_int));
	assert_int_equal(ut_i64(of, "proc.wall_ms"), 2000);
	assert_false(ut_bool(of, "proc.partial"));
	/* strings escaped once, as in records */
	assert_string_equal(ut_str(of, "proc.exe"), "/opt/q\"uo\\x5Cte\\x0A");
	ut_strings(ut_arr(of, "proc.apath"), apath);
	assert_int_equal(ut_i64(of, "proc.syscall[openat]"), 9);
	/* absent: null, never 0 or "" */
	ut_null(of, "proc.exit_signal");
	ut_null(of, "baseline.ready");
	/* the line, for people: one line, quotes in values escaped too, <NA> for what is absent
	 * (an unknown entry of a list is empty) */
	assert_string_equal(ut_str(a, "output"), "4242 1.5 2000 false /opt/q\\x22uo\\x5Cte\\x0A "
						 "/usr/lib/systemd/systemd, 9 <NA> <NA>");
	{
		static const char *const tags[] = {"a", "t\\x0Ax", NULL};

		ut_strings(ut_arr(a, "tags"), tags);
	}
	json_object_put(a);
}

/* ---- evidence ---- */

static const char evidence_rules[] = "- rule: Everything\n"
				     "  desc: d\n"
				     "  condition: proc.pid > 0\n"
				     "  output: all %proc.pid\n"
				     "  priority: INFORMATIONAL\n"
				     "  evidence: [fail_paths, syscalls, baseline, ancestry, stacks]\n"
				     "- rule: Ancestry only\n"
				     "  desc: d\n"
				     "  condition: proc.pid > 0\n"
				     "  output: anc %proc.pid\n"
				     "  priority: INFORMATIONAL\n"
				     "  evidence: [ancestry]\n"
				     "  when: exit\n";

static void test_alerts_alert_record_has_identity_rule_and_evidence_of_an_exit(void **state)
{
	struct fx *f = *state;
	struct json_object *a, *ev, *p, *e;
	static const char *const keys[] = {
	    "type",	     "id",	      "time_ns",  "rule",	  "priority",  "severity",  "when",
	    "output",	     "tags",	      "pid",	  "exe",       "binary_id", "suppressed_before",
	    "regex_skipped", "output_fields", "evidence", "host", "rule_file", "rule_line", "rule_desc", "user", NULL};
	static const char *const ev_keys[] = {"fail_paths", "syscalls", "baseline", "ancestry", NULL};
	struct passwd *pw = getpwuid(getuid());
	static const char *const sc_keys[] = {"openat", "read", NULL};
	static const char *const anc[] = {"/usr/lib/systemd/systemd", "<null>", NULL};
	static const char *const anc_only[] = {"ancestry", NULL};

	open_rules(f, evidence_rules);
	f->s.uid = (uint32_t)getuid();
	assert_int_equal(eval(f, &f->s, T0 + 5), 2);
	a = alert(f, 0);
	ut_keys(a, keys);
	/* the rule's desc, the process's user and the host, against the machine's own */
	assert_string_equal(ut_str(a, "rule_desc"), "d");
	assert_int_equal(ut_u64(ut_obj(a, "user"), "uid"), getuid());
	assert_non_null(pw);
	assert_string_equal(ut_str(ut_obj(a, "user"), "name"), pw->pw_name);
	ut_host_is_this_machine(ut_obj(a, "host"));
	assert_string_equal(ut_str(a, "type"), "alert");
	assert_string_equal(ut_str(a, "id"), "0000000000005eed-0000000000000001");
	assert_int_equal(ut_u64(a, "time_ns"), T0 + 5);
	assert_string_equal(ut_str(a, "rule"), "Everything");
	assert_string_equal(ut_str(a, "priority"), "Informational");
	assert_int_equal(ut_i64(a, "severity"), 6);
	assert_string_equal(ut_str(a, "when"), "exit");
	assert_string_equal(ut_str(a, "output"), "all 4242");
	assert_int_equal(json_object_array_length(ut_arr(a, "tags")), 0);
	assert_int_equal(ut_u64(a, "pid"), 4242);
	assert_string_equal(ut_str(a, "exe"), "/usr/bin/svc");
	assert_string_equal(ut_str(a, "binary_id"), "build-id:5c");
	assert_false(ut_bool(a, "regex_skipped"));
	assert_string_equal(ut_str(a, "rule_file"), f->rules);
	assert_int_equal(ut_i64(a, "rule_line"), 1);
	{
		/* PSI as /proc/pressure says it, or absent (never 0 in its place) */
		struct json_object *host = ut_obj(a, "host"), *psi = NULL;
		bool has_psi = json_object_object_get_ex(host, "psi", &psi);

		assert_int_equal(has_psi, access("/proc/pressure/cpu", R_OK) == 0);
		if (has_psi) {
			double v = ut_dbl(psi, "cpu_some_avg10");

			assert_true(v >= 0 && v <= 100);
		}
	}
	ev = ut_obj(a, "evidence");
	/* stacks are accepted, not attached yet */
	ut_keys(ev, ev_keys);
	/* an exit: every failed path */
	p = ut_arr(ev, "fail_paths");
	assert_int_equal(json_object_array_length(p), 2);
	e = json_object_array_get_idx(p, 1);
	assert_string_equal(ut_str(e, "path"), "/root/key");
	assert_int_equal(ut_i64(e, "errno"), 13);
	assert_string_equal(ut_str(e, "errno_name"), "EACCES");
	assert_int_equal(ut_u64(e, "count"), 1);
	assert_true(ut_bool(e, "truncated"));
	/* the image's syscalls */
	ut_keys(ut_obj(ev, "syscalls"), sc_keys);
	assert_int_equal(ut_u64(ut_obj(ev, "syscalls"), "openat"), 9);
	/* no baseline attached */
	ut_null(ev, "baseline");
	ut_strings(ut_arr(ev, "ancestry"), anc);
	json_object_put(a);
	a = alert(f, 1);
	ut_keys(ut_obj(a, "evidence"), anc_only);
	assert_int_equal(ut_i64(a, "rule_line"), 7);
	json_object_put(a);
}

static void test_alerts_evidence_of_a_window_is_its_second_and_its_top_path(void **state)
{
	struct fx *f = *state;
	struct pl_sample w = f->s;
	struct json_object *a, *ev, *p, *e, *bl;
	static const char *const ekeys[] = {"path", "errno", "errno_name", "count", "truncated", NULL};
	static const char *const sc_keys[] = {"write", NULL};

	open_rules(f, evidence_rules);
	w.moment = PL_AT_WINDOW;
	w.win_start_ns = T0;
	w.win_end_ns = w.time_ns = T0 + SEC;
	f->win_sc[syscall_number("write")] = 3;
	w.win.sc = f->win_sc;
	w.win.syscalls = 3;
	/* the second path failed most so far */
	f->fails[1].count = 50;
	w.bl.key = "build-id:5c@-";
	w.bl.windows_ready = true;
	assert_int_equal(eval(f, &w, T0 + SEC), 1);
	a = alert(f, 0);
	assert_string_equal(ut_str(a, "when"), "window");
	ev = ut_obj(a, "evidence");
	/* a window: its top path so far, the same shape as an exit's entries */
	p = ut_arr(ev, "fail_paths");
	assert_int_equal(json_object_array_length(p), 1);
	e = json_object_array_get_idx(p, 0);
	ut_keys(e, ekeys);
	assert_string_equal(ut_str(e, "path"), "/root/key");
	assert_int_equal(ut_i64(e, "errno"), 13);
	assert_int_equal(ut_u64(e, "count"), 50);
	assert_true(ut_bool(e, "truncated"));
	/* this second's syscalls, not the image's */
	ut_keys(ut_obj(ev, "syscalls"), sc_keys);
	/* the baseline's state (this window was not scored) */
	bl = ut_obj(ev, "baseline");
	assert_string_equal(ut_str(bl, "key"), "build-id:5c@-");
	assert_true(ut_bool(bl, "windows_ready"));
	ut_absent(bl, "anomalous");
	json_object_put(a);

	/* no path known: null */
	ut_mem_clear(f->out);
	w.nfails = 0;
	assert_int_equal(eval(f, &w, T0 + 2 * SEC), 1);
	a = alert(f, 0);
	ut_null(ut_obj(a, "evidence"), "fail_paths");
	json_object_put(a);
}

static void test_alerts_evidence_of_an_exec_has_no_counts(void **state)
{
	struct fx *f = *state;
	struct pl_sample e = f->s;
	struct json_object *a, *ev;

	open_rules(f, evidence_rules);
	e.moment = PL_AT_EXEC;
	e.time_ns = T0;
	assert_int_equal(eval(f, &e, T0), 1); /* "Ancestry only" runs at exit */
	a = alert(f, 0);
	assert_string_equal(ut_str(a, "when"), "exec");
	ev = ut_obj(a, "evidence");
	ut_null(ev, "fail_paths");
	ut_null(ev, "syscalls");
	ut_null(ev, "baseline");
	assert_int_equal(json_object_array_length(ut_arr(ev, "ancestry")), 2);
	json_object_put(a);
}

/* ---- undecided matches ---- */

/* When the second's regex budget is spent, a regex is not run: its rule
 * matches undecided (fail closed), and the alert says so. */
static void test_alerts_a_match_undecided_by_the_regex_budget_says_so(void **state)
{
	struct fx *f = *state;
	struct pl_sample s = f->s;
	char cmd[32];
	const char *rules = "- rule: Regex\n"
			    "  desc: d\n"
			    "  condition: proc.cmdline regex \"^zzz[0-9]+$\"\n"
			    "  output: regex %proc.pid\n"
			    "  priority: NOTICE\n"
			    "  when: exit\n";
	struct json_object *a;
	int i;

	/* no budget (replay): every regex runs, none matches */
	open_rules(f, rules);
	for (i = 0; i < 20; i++) {
		snprintf(cmd, sizeof(cmd), "svc %d", i);
		s.cmdline = cmd;
		assert_int_equal(eval(f, &s, T0), 0);
	}
	assert_int_equal(rules_counter(f, "regex_skipped"), 0);
	alerts__free(f->a);
	f->a = NULL;

	/* a budget of 1 ns: the first regex of a second spends it, the next is skipped */
	f->o.regex_budget_ns = 1;
	assert_int_equal(alerts__open(&f->o, &f->a), 0);
	for (i = 0; i < 20 && f->out->n == 0; i++) {
		snprintf(cmd, sizeof(cmd), "svc %d", i); /* each a new subject: no cached verdict */
		s.cmdline = cmd;
		eval(f, &s, T0);
	}
	assert_int_equal(f->out->n, 1);
	assert_true(i >= 2);
	a = alert(f, 0);
	assert_true(ut_bool(a, "regex_skipped"));
	json_object_put(a);
	assert_int_equal(rules_counter(f, "regex_skipped"), 1);
	assert_int_equal(rules_counter(f, "regex_skipped_matches"), 1);
}

/* ---- the ruleset ---- */

static void test_alerts_reload_keeps_the_old_rules_when_the_new_ones_fail(void **state)
{
	struct fx *f = *state;
	struct json_object *a;
	struct pl_sample e = f->s;

	open_rules(f, "- rule: Old\n  desc: d\n  condition: proc.pid > 0\n  output: old\n  priority: NOTICE\n"
		      "  when: exit\n");
	assert_int_equal(alerts__kinds(f->a), PL_AT_EXIT);
	write_rules(f, "- rule: New\n  desc: d\n  condition: proc.nosuchfield > 0\n  output: new\n"
		       "  priority: NOTICE\n");
	assert_int_equal(alerts__reload(f->a), -EINVAL);
	assert_int_equal(eval(f, &f->s, T0), 1);
	a = alert(f, 0);
	assert_string_equal(ut_str(a, "rule"), "Old");
	json_object_put(a);
	assert_int_equal(rules_counter(f, "reload_failures"), 1);
	assert_int_equal(rules_counter(f, "reloads"), 0);
	/* unreadable YAML too */
	write_rules(f, "- rule: [\n");
	assert_int_equal(alerts__reload(f->a), -EINVAL);
	assert_int_equal(rules_counter(f, "reload_failures"), 2);

	write_rules(f, "- rule: New\n  desc: d\n  condition: proc.pid > 0\n  output: new\n  priority: NOTICE\n"
		       "  when: exec\n");
	assert_int_equal(alerts__reload(f->a), 0);
	assert_int_equal(rules_counter(f, "reloads"), 1);
	assert_int_equal(alerts__kinds(f->a), PL_AT_EXEC);
	/* no rule at exit now: not even an event */
	assert_int_equal(eval(f, &f->s, T0), 0);
	assert_int_equal(rules_counter(f, "events"), 1);
	e.moment = PL_AT_EXEC;
	assert_int_equal(eval(f, &e, T0), 1);
	a = alert(f, 1);
	assert_string_equal(ut_str(a, "rule"), "New");
	json_object_put(a);
	assert_int_equal(rules_counter(f, "rules"), 1);
}

static void test_alerts_open_refuses_rules_with_errors(void **state)
{
	struct fx *f = *state;

	write_rules(f, "- rule: Bad\n  desc: d\n  condition: proc.pid >\n  output: x\n  priority: NOTICE\n");
	assert_int_equal(alerts__open(&f->o, &f->a), -EINVAL);
	assert_null(f->a);
}

/* --enable-rule / --disable-rule, by name and by tag, kept across a reload. */
static void test_alerts_rules_are_enabled_and_disabled_by_name_and_tag(void **state)
{
	struct fx *f = *state;
	const char *dis[] = {"tag:noisy", "Named"}, *en[] = {"Off by default"};
	struct json_object *a;

	f->o.disable = dis;
	f->o.ndisable = 2;
	f->o.enable = en;
	f->o.nenable = 1;
	open_rules(f, "- rule: Named\n  desc: d\n  condition: proc.pid > 0\n  output: a\n  priority: NOTICE\n"
		      "  when: exit\n"
		      "- rule: Tagged\n  desc: d\n  condition: proc.pid > 0\n  output: b\n  priority: NOTICE\n"
		      "  when: exit\n  tags: [noisy]\n"
		      "- rule: Kept\n  desc: d\n  condition: proc.pid > 0\n  output: c\n  priority: NOTICE\n"
		      "  when: exit\n"
		      "- rule: Off by default\n  desc: d\n  condition: proc.pid > 0\n  output: d\n  priority: NOTICE\n"
		      "  when: exit\n  enabled: false\n");
	assert_int_equal(eval(f, &f->s, T0), 2);
	assert_int_equal(alerts__reload(f->a), 0);
	assert_int_equal(eval(f, &f->s, T0), 2);
	assert_int_equal(f->out->n, 4);
	for (size_t i = 0; i < 4; i++) {
		a = alert(f, i);
		assert_string_equal(ut_str(a, "rule"), i % 2 ? "Off by default" : "Kept");
		json_object_put(a);
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_alerts_throttle_per_rule_and_binary_counts_what_it_held_back),
	    T(test_alerts_throttle_falls_back_to_the_exe),
	    T(test_alerts_throttle_ignores_a_wall_clock_step),
	    T(test_alerts_summary_at_the_tick_after_the_window_ends),
	    T(test_alerts_summaries_at_shutdown_account_for_every_held_match),
	    T(test_alerts_ocsf_output_gets_findings_with_the_alert_ids),
	    T(test_alerts_output_fields_keep_each_value_exactly_by_type),
	    T(test_alerts_alert_record_has_identity_rule_and_evidence_of_an_exit),
	    T(test_alerts_evidence_of_a_window_is_its_second_and_its_top_path),
	    T(test_alerts_evidence_of_an_exec_has_no_counts),
	    T(test_alerts_a_match_undecided_by_the_regex_budget_says_so),
	    T(test_alerts_reload_keeps_the_old_rules_when_the_new_ones_fail),
	    T(test_alerts_open_refuses_rules_with_errors),
	    T(test_alerts_rules_are_enabled_and_disabled_by_name_and_tag),
	};
#undef T

	log_set_level(LOG_LVL_ERROR);
	return cmocka_run_group_tests_name("alerts", tests, NULL, NULL);
}
