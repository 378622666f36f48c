// SPDX-License-Identifier: MIT
/*
 * test_alert.c - the typed alert (outputs/alert.h) and its forms: one id
 * generator for every kind, the native record of the sensor's loss alert
 * byte for byte, its OCSF finding built from the struct (the evidence kept
 * in `unmapped`, the sensor's own process in `evidences`), a summary's
 * finding naming the alert it updates, and the text line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "alert.h"
#include "output.h"
#include "record_helpers.h"

#define HELD_ID "00000000000000aa-0000000000000001" /* the alert a summary repeats */
#define HOST_ID "3d1219c7c4c5404aaa1f6d2a48adfda4"
#define BOOT_ID "0f0e0d0c-0b0a-4908-8706-050403020100"

static const char *const loss_tags[] = {"sensor", "losses"};
static const struct pl_loss_cause causes[] = {
    {.name = "ringbuf_full", .lost = 3, .total = 3},
    {.name = "proctable_full", .lost = 0, .total = 1},
};

/* A loss alert as lossalert.c fills one. */
static void loss_alert(struct pl_alert *a, struct pl_alert_ids *ids, const struct pl_sample *self)
{
	pl_alert__init(a, PL_ALERT_LOSS, ids, 5000000000ull, "Sensor lost events", "Warning", 4);
	a->desc = "The sensor lost events.";
	snprintf(a->output, sizeof(a->output), "the sensor lost events: ringbuf_full 3 (3 in all, over 1.0 s)");
	a->tags = loss_tags;
	a->ntags = 2;
	a->pid = self->pid;
	a->exe = self->exe;
	a->sample = self;
	a->loss = (struct pl_alert_loss){.causes = causes, .ncauses = 2, .since_ns = 4000000000ull};
	a->host.name = "web\n1";
	a->host.id = HOST_ID;
	a->host.boot_id = BOOT_ID;
	a->has_user = true;
	a->uid = 0;
	a->user = "root";
}

static void test_alert_ids_one_sequence_for_every_kind(void **state)
{
	struct pl_alert_ids ids;
	struct pl_alert a;
	char next[PL_ALERT_ID_LEN + 1];

	assert_true(pl_alert_ids__init(&ids, 0xabc));
	pl_alert_ids__peek(&ids, next);
	assert_string_equal(next, "0000000000000abc-0000000000000001");
	pl_alert__init(&a, PL_ALERT_RULE, &ids, 1, "r", "Notice", 5);
	assert_string_equal(a.id, next);
	pl_alert__init(&a, PL_ALERT_SUMMARY, &ids, 2, "r", "Notice", 5);
	assert_string_equal(a.id, "0000000000000abc-0000000000000002");
	assert_string_equal(pl_alert__type(&a), "alert_summary");
	pl_alert__init(&a, PL_ALERT_LOSS, &ids, 3, "Sensor lost events", "Warning", 4);
	assert_string_equal(a.id, "0000000000000abc-0000000000000003");
	assert_string_equal(pl_alert__type(&a), "alert");
	/* what no producer set is unknown: "sensor", an empty rule file */
	assert_string_equal(a.when, "sensor");
	assert_string_equal(a.rule_file, "");
	assert_null(a.exe);
	/* drawn: never 0 */
	assert_true(pl_alert_ids__init(&ids, 0) || ids.instance != 0);
	assert_true(ids.instance != 0);
}

static void test_alert_loss_native_record_exact_bytes(void **state)
{
	struct ut_mem_output *m = ut_mem_output__new();
	struct pl_alert_ids ids = {.instance = 1};
	const struct pl_sample self = {.pid = 7, .exe = "/usr/sbin/plumbline", .comm = "plumbline"};
	struct pl_alert a;

	loss_alert(&a, &ids, &self);
	assert_int_equal(output__write_alert(&m->base, &a), 0);
	assert_int_equal(m->n, 1);
	assert_string_equal(
	    m->lines[0],
	    "{\"type\":\"alert\",\"id\":\"0000000000000001-0000000000000001\",\"time_ns\":5000000000,"
	    "\"rule\":\"Sensor lost events\",\"priority\":\"Warning\",\"severity\":4,\"when\":\"sensor\","
	    "\"output\":\"the sensor lost events: ringbuf_full 3 (3 in all, over 1.0 s)\","
	    "\"tags\":[\"sensor\",\"losses\"],\"pid\":7,\"exe\":\"/usr/sbin/plumbline\",\"binary_id\":null,"
	    "\"suppressed_before\":0,\"regex_skipped\":false,\"output_fields\":{},"
	    "\"evidence\":{\"losses\":{\"ringbuf_full\":3},\"losses_total\":{\"ringbuf_full\":3,"
	    "\"proctable_full\":1},\"since_ns\":4000000000,\"ticks_folded\":0},"
	    "\"host\":{\"name\":\"web\\\\x0A1\",\"id\":\"" HOST_ID "\",\"boot_id\":\"" BOOT_ID "\"},"
	    "\"rule_file\":\"\",\"rule_line\":0,\"rule_desc\":\"The sensor lost events.\","
	    "\"user\":{\"uid\":0,\"name\":\"root\"}}");
	ut_mem_free(&m->base);
}

static void test_alert_loss_ocsf_finding_from_the_struct(void **state)
{
	struct ut_mem_output *m = ut_mem_output__new();
	struct pl_alert_ids ids = {.instance = 1};
	const struct pl_sample self = {.pid = 7, .exe = "/usr/sbin/plumbline", .comm = "plumbline"};
	struct json_object *f, *p;
	struct pl_alert a;

	m->base.alert_form = PL_ALERT_OCSF;
	loss_alert(&a, &ids, &self);
	assert_int_equal(output__write_alert(&m->base, &a), 0);
	f = ut_mem_record(m, 0);
	assert_int_equal(ut_u64(f, "class_uid"), 2004);
	assert_int_equal(ut_u64(f, "activity_id"), 1);
	assert_int_equal(ut_u64(f, "severity_id"), 3); /* syslog Warning: Medium */
	assert_int_equal(ut_u64(f, "time"), 5000);
	assert_string_equal(ut_str(f, "message"), a.output);
	assert_string_equal(ut_str(ut_obj(f, "finding_info"), "uid"), a.id);
	assert_string_equal(ut_str(ut_obj(f, "finding_info"), "desc"), "The sensor lost events.");
	/* the host as OCSF's device, the user as the evidence's actor and the process's */
	assert_string_equal(ut_str(ut_obj(f, "device"), "hostname"), "web\\x0A1");
	assert_string_equal(ut_str(ut_obj(f, "device"), "uid"), HOST_ID);
	assert_string_equal(ut_str(ut_obj(f, "device"), "boot_uid"), BOOT_ID);
	assert_int_equal(ut_u64(ut_obj(f, "device"), "type_id"), 1);
	p = ut_obj(ut_obj(json_object_array_get_idx(ut_field(f, "evidences"), 0), "actor"), "user");
	assert_string_equal(ut_str(p, "uid"), "0");
	assert_string_equal(ut_str(p, "name"), "root");
	p = ut_obj(json_object_array_get_idx(ut_field(f, "evidences"), 0), "process");
	assert_string_equal(ut_str(ut_obj(p, "user"), "name"), "root");
	assert_int_equal(ut_u64(p, "pid"), 7);
	assert_string_equal(ut_str(p, "name"), "plumbline");
	assert_string_equal(ut_str(ut_obj(p, "file"), "path"), "/usr/sbin/plumbline");
	/* the counts by cause, as the native record has them */
	assert_int_equal(ut_u64(ut_obj(ut_obj(ut_obj(f, "unmapped"), "evidence"), "losses"), "ringbuf_full"), 3);
	json_object_put(f);
	ut_mem_free(&m->base);
}

static void test_alert_summary_finding_updates_its_alert(void **state)
{
	struct ut_mem_output *m = ut_mem_output__new(), *t = ut_mem_output__new();
	struct pl_alert_ids ids = {.instance = 2};
	struct json_object *f;
	struct pl_alert a;

	m->base.alert_form = PL_ALERT_OCSF;
	pl_alert__init(&a, PL_ALERT_SUMMARY, &ids, 9000000000ull, "r", "Notice", 5);
	snprintf(a.output, sizeof(a.output), "2 more alerts of r for /bin/x held back (repeats of alert " HELD_ID ")");
	a.exe = "/bin/x";
	a.summary = (struct pl_alert_summary){.alert_id = HELD_ID,
					      .count = 2,
					      .first_ns = 6000000000ull,
					      .last_ns = 7000000000ull,
					      .window_start_ns = 5000000000ull,
					      .window_end_ns = 9000000000ull,
					      .reason = "window_end"};
	assert_int_equal(output__write_alert(&m->base, &a), 0);
	assert_int_equal(output__write_alert(&t->base, &a), 0);
	f = ut_mem_record(m, 0);
	assert_int_equal(ut_u64(f, "activity_id"), 2);
	assert_int_equal(ut_u64(f, "count"), 2);
	assert_string_equal(ut_str(ut_obj(f, "finding_info"), "uid"), HELD_ID);
	assert_string_equal(ut_str(ut_obj(f, "unmapped"), "id"), a.id);
	json_object_put(f);
	f = ut_mem_record(t, 0);
	assert_string_equal(ut_str(f, "type"), "alert_summary");
	assert_string_equal(ut_str(f, "alert_id"), HELD_ID);
	assert_string_equal(ut_str(f, "reason"), "window_end");
	json_object_put(f);
	/* a summary that names no alert has no finding: refused, counted by the output */
	a.summary.alert_id = NULL;
	assert_true(output__write_alert(&m->base, &a) < 0);
	ut_mem_free(&m->base);
	ut_mem_free(&t->base);
}

static void test_alert_text_line_and_other_records_skipped(void **state)
{
	struct pl_output *o;
	struct pl_alert_ids ids = {.instance = 3};
	struct pl_alert a;
	struct json_object *ev = json_object_new_object();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(text_output__open(f, &o), 0);
	pl_alert__init(&a, PL_ALERT_RULE, &ids, 1, "Odd\nrule", "Critical", 2);
	snprintf(a.output, sizeof(a.output), "out");
	assert_int_equal(output__write_alert(o, &a), 0);
	a.kind = PL_ALERT_SUMMARY;
	assert_int_equal(output__write_alert(o, &a), 0);
	assert_int_equal(output__write_event(o, "stats", ev), 0);
	/* the host and the user; an output that starts with the rule's name
	 * is not prefixed with it again; the text form of the output wins */
	pl_alert__init(&a, PL_ALERT_RULE, &ids, 1, "Open retry storm", "Warning", 4);
	snprintf(a.output, sizeof(a.output), "Open retry storm: x <NA>");
	a.output_text = "Open retry storm: x (none learned)";
	a.host.name = "web\x1b" "1";
	a.has_user = true;
	a.uid = 1000;
	a.user = "alice";
	assert_int_equal(output__write_alert(o, &a), 0);
	a.user = NULL;
	a.output_text = NULL;
	snprintf(a.output, sizeof(a.output), "Open retry storms: x");
	assert_int_equal(output__write_alert(o, &a), 0);
	fclose(f);
	assert_string_equal(buf, "ALERT Critical Odd\\x0Arule: out (id 0000000000000003-0000000000000001)\n"
				 "REPEATS Critical Odd\\x0Arule: out (id 0000000000000003-0000000000000001)\n"
				 "ALERT Warning Open retry storm: x (none learned) (id 0000000000000003-0000000000000002, "
				 "host web\\x1B1, user alice uid 1000)\n"
				 "ALERT Warning Open retry storm: Open retry storms: x (id 0000000000000003-0000000000000002, "
				 "host web\\x1B1, user uid 1000)\n");
	free(buf);
	json_object_put(ev);
	output__free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alert_ids_one_sequence_for_every_kind),
	    cmocka_unit_test(test_alert_loss_native_record_exact_bytes),
	    cmocka_unit_test(test_alert_loss_ocsf_finding_from_the_struct),
	    cmocka_unit_test(test_alert_summary_finding_updates_its_alert),
	    cmocka_unit_test(test_alert_text_line_and_other_records_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
