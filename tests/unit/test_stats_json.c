// SPDX-License-Identifier: MIT
/*
 * test_stats_json.c - the sensor's counters and life as records
 * (outputs/sensor_stats.h, sensor_event.h): the stats record's keys, order
 * and nulls byte for byte, each counter under its own key, the loss causes'
 * names, and the audit trail's events.
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

#include "output.h"
#include "sensor_event.h"
#include "sensor_stats.h"

/* A sensor run's stats record with every part on, its numbers zeroed (captured before the
 * record was made from the struct). */
static const char every_part_on[] =
    "{\"type\":\"stats\",\"time_ns\":0,\"uptime_ns\":0,\"ringbuf_records\":{\"exec\":0,\"fork\":0,\"seen"
    "\":0,\"end\":0,\"fail_path\":0,\"sample\":0,\"file\":0,\"map\":0,\"net\":0},\"invalid_records\":0,\""
    "exec_records\":0,\"process_records\":0,\"window_records\":0,\"kernel_drops\":{\"ringbuf_full\":0,\"p"
    "roc_map_full\":0,\"fail_path_map_full\":0,\"path_truncated\":0,\"args_truncated\":0,\"thread_state\""
    ":0,\"path_fault\":0,\"fail_path_image_cap\":0,\"sample_ring_full\":0,\"stack_copy_failed\":0,\"kstac"
    "k_unreadable\":0,\"file_image_cap\":0,\"map_image_cap\":0,\"net_dest_image_cap\":0},\"userspace_drop"
    "s\":{\"proctable_full\":0,\"fail_keys_unremembered\":0,\"fail_paths_displaced\":0},\"waiting\":{\"st"
    "ate_reads\":0,\"skipped\":0,\"reports\":0},\"fail_paths\":{\"table_entries\":0,\"table_max\":0,\"orp"
    "hans_swept\":0,\"idle_moved\":0,\"unknown_swept\":0,\"trimmed\":0},\"oncpu\":{\"rate_hz\":0,\"sample"
    "s\":0,\"malformed\":0,\"user_frames\":0,\"kernel_frames\":0,\"stacks_complete\":0,\"cut_truncated\":"
    "0,\"cut_no_mapping\":0,\"cut_no_cfi\":0,\"cut_no_file\":0,\"cut_bad_cfi\":0,\"cut_depth\":0,\"no_map"
    "pings\":0,\"stacks_held\":0,\"stack_table_full\":0,\"orphans_swept\":0,\"unwind_ns\":0,\"unwind_obje"
    "cts\":0,\"cfi_rows_read\":0,\"cfi_rows_cached\":0,\"names_cached\":0,\"maps_read\":0,\"mappings\":0,"
    "\"mappings_lost\":0,\"objects\":0,\"objects_refused\":0,\"objects_loaded\":0,\"object_load_failures"
    "\":0,\"kernel_symbols\":0,\"named_symtab\":0,\"named_debug_build_id\":0,\"named_debuglink\":0,\"name"
    "d_minidebuginfo\":0,\"named_dynsym\":0,\"named_none\":0,\"minidebuginfo_failures\":0,\"debuglink_mis"
    "matches\":0},\"output\":{\"written\":0,\"dropped\":0},\"syslog\":{\"written\":0,\"dropped\":0,\"sent"
    "\":0,\"queued\":0,\"queued_bytes\":0,\"dropped_overflow\":0,\"dropped_unsendable\":0,\"dropped_at_ex"
    "it\":0,\"cut\":0,\"connects\":0,\"reconnects\":0,\"connect_failures\":0,\"stalls\":0,\"outages\":0,"
    "\"state\":\"connected\"},\"audit\":{\"written\":0,\"dropped\":0},\"ocsf\":{\"written\":0,\"dropped\""
    ":0},\"tracked_processes\":0,\"processes_swept\":0,\"sensor_cpu_ns\":0,\"sensor_maxrss_kb\":0,\"featu"
    "res\":{\"root\":true,\"btf\":false},\"baselines\":{\"baselines\":0,\"process_samples_learned\":0,\"w"
    "indow_samples_learned\":0,\"anomalous_samples\":0,\"without_baseline\":0,\"save_errors\":0,\"evicted"
    "\":0,\"aged_out\":0,\"refused_full\":0,\"refused_user\":0,\"saves_queued\":0,\"saves_dropped\":0,\"r"
    "efused_users\":[]},\"rules\":{\"rules\":0,\"events\":0,\"alerts\":0,\"throttled\":0,\"summaries\":0,"
    "\"summaries_pending\":0,\"regex_limit_hits\":0,\"regex_errors\":0,\"regex_runs\":0,\"regex_cache_hit"
    "s\":0,\"regex_skipped\":0,\"regex_skipped_matches\":0,\"reloads\":0,\"reload_failures\":0},\"binarie"
    "s_untracked\":0,\"binary_paths_forgotten\":0,\"identity\":{\"hashes_queued\":0,\"hashes_done\":0,\"h"
    "ash_failures\":0,\"hash_queue_full\":0,\"hashes_pending\":0,\"hash_ns\":0,\"cache_hits\":0}}";

static void every_part(struct pl_sensor_stats *s)
{
	*s = (struct pl_sensor_stats){.oncpu_on = true, .baselines_on = true, .rules_on = true, .identity_on = true};
	s->json.on = s->syslog.on = s->audit.on = s->ocsf.on = true;
	s->syslog_more.state = PL_SYSLOG_CONNECTED;
	s->feature[0].name = "root";
	s->feature[0].have = true;
	s->feature[1].name = "btf";
	s->nfeature = 2;
}

/* The record's text, as every JSON output writes it. */
static char *text(const struct pl_record *rec)
{
	char *t = NULL;
	size_t len;

	assert_int_equal(pl_record__text(rec, PL_ALERT_NATIVE, &t, &len), 0);
	assert_int_equal(strlen(t), len);
	return t;
}

static void test_stats_record_is_byte_for_byte_the_sensors(void **state)
{
	struct pl_sensor_stats s;
	char *t;

	(void)state;
	every_part(&s);
	t = text(&(struct pl_record){.kind = PL_RECORD_STATS, .stats = &s});
	assert_string_equal(t, every_part_on);
	free(t);
}

static void test_stats_record_parts_off_are_null(void **state)
{
	struct pl_sensor_stats s = {0};
	struct json_object *o = stats_json__record(&s), *v;

	(void)state;
	assert_non_null(o);
	for (const char *const *k =
		 (const char *const[]){"oncpu", "syslog", "ocsf", "baselines", "rules", "identity", NULL};
	     *k; k++) {
		assert_true(json_object_object_get_ex(o, *k, &v));
		assert_null(v);
	}
	assert_false(json_object_object_get_ex(o, "audit", NULL)); /* no key at all without an audit log */
	assert_true(json_object_object_get_ex(o, "output", &v));   /* zeros without a JSON output */
	assert_int_equal(json_object_get_uint64(json_object_object_get(v, "written")), 0);
	json_object_put(o);
}

static uint64_t at(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v = json_object_object_get(o, a);

	if (b)
		v = json_object_object_get(v, b);
	assert_non_null(v);
	return json_object_get_uint64(v);
}

static void test_stats_record_each_counter_under_its_key(void **state)
{
	struct pl_sensor_stats s;
	struct json_object *o;

	(void)state;
	every_part(&s);
	s.loss[PL_LOSS_INVALID_RECORDS] = 1;
	s.loss[PL_LOSS_FAIL_PATHS_DISPLACED] = 2;
	s.loss[PL_LOSS_BINARY_PATHS_FORGOTTEN] = 3;
	s.kernel_drops[PL_KDROP_SAMPLE_RING] = 4;
	s.oncpu.kernel_symbols = 5;
	s.oncpu.named_minidebuginfo = 13;
	s.oncpu.debuglink_mismatches = 14;
	s.syslog_more.connect_failures = 6;
	s.syslog_more.stalls = 11;
	s.syslog_more.outages = 12;
	s.rules.reload_failures = 7;
	s.identity.cache_hits = 8;
	s.fail_paths.unknown_swept = 9;
	s.baselines.aged_out = 10;
	s.processes_swept = 11;
	s.baselines.refused_user = 12;
	s.baselines.ntop_users = 1;
	s.baselines.top_users[0].uid = 65534;
	s.baselines.top_users[0].refused = 12;
	o = stats_json__record(&s);
	assert_int_equal(at(o, "invalid_records", NULL), 1);
	assert_int_equal(at(o, "userspace_drops", "fail_paths_displaced"), 2);
	assert_int_equal(at(o, "binary_paths_forgotten", NULL), 3);
	assert_int_equal(at(o, "kernel_drops", "sample_ring_full"), 4);
	assert_int_equal(at(o, "oncpu", "kernel_symbols"), 5);
	assert_int_equal(at(o, "oncpu", "named_minidebuginfo"), 13);
	assert_int_equal(at(o, "oncpu", "debuglink_mismatches"), 14);
	assert_int_equal(at(o, "syslog", "connect_failures"), 6);
	assert_int_equal(at(o, "syslog", "stalls"), 11);
	assert_int_equal(at(o, "syslog", "outages"), 12);
	assert_int_equal(at(o, "rules", "reload_failures"), 7);
	assert_int_equal(at(o, "identity", "cache_hits"), 8);
	assert_int_equal(at(o, "fail_paths", "unknown_swept"), 9);
	assert_int_equal(at(o, "baselines", "aged_out"), 10);
	assert_int_equal(at(o, "processes_swept", NULL), 11);
	assert_int_equal(at(o, "baselines", "refused_user"), 12);
	{
		struct json_object *b, *top;

		assert_true(json_object_object_get_ex(o, "baselines", &b));
		assert_true(json_object_object_get_ex(b, "refused_users", &top));
		assert_int_equal(json_object_array_length(top), 1);
		assert_string_equal(json_object_to_json_string(json_object_array_get_idx(top, 0)),
				    "{ \"uid\": 65534, \"refused\": 12 }");
	}
	json_object_put(o);
}

static void test_loss_causes_named_as_in_the_stats_record(void **state)
{
	(void)state;
	assert_string_equal(pl_loss__name(PL_LOSS_RINGBUF_FULL), "ringbuf_full");
	assert_int_equal(pl_loss__drop(PL_LOSS_RINGBUF_FULL), PL_KDROP_RINGBUF);
	assert_string_equal(pl_loss__name(PL_LOSS_OUTPUT_DROPPED), "output_dropped");
	assert_int_equal(pl_loss__drop(PL_LOSS_OUTPUT_DROPPED), -1);
	assert_string_equal(pl_loss__name(PL_LOSS_MAX), "?");
	assert_string_equal(pl_drop__name(PL_KDROP_PATH_TRUNC), "path_truncated");
	assert_string_equal(pl_drop__name(PL_KDROP_MAX), "?");
}

/* Lost raises the loss alert, bounded detail never: the issue-18 causes, the default, and every kernel slot. */
static void test_loss_causes_classified_lost_or_detail(void **state)
{
	static const enum pl_loss lost[] = {
		PL_LOSS_RINGBUF_FULL,  PL_LOSS_INVALID_RECORDS, PL_LOSS_PROC_MAP_FULL, PL_LOSS_PROCTABLE_FULL,
		PL_LOSS_FAIL_PATH_MAP_FULL, PL_LOSS_THREAD_STATE, PL_LOSS_OUTPUT_DROPPED, PL_LOSS_SYSLOG_DROPPED,
		PL_LOSS_OCSF_DROPPED, PL_LOSS_AUDIT_DROPPED, PL_LOSS_KERNEL_OTHER,
	};
	static const enum pl_loss detail[] = {
		PL_LOSS_SAMPLE_RING_FULL, PL_LOSS_STACK_COPY_FAILED, PL_LOSS_KSTACK_UNREADABLE, PL_LOSS_STACK_TABLE_FULL,
		PL_LOSS_FAIL_PATH_IMAGE_CAP, PL_LOSS_FAIL_PATHS_DISPLACED,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		assert_int_equal(pl_loss__class(lost[i]), PL_LOSS_LOST);
	for (size_t i = 0; i < sizeof(detail) / sizeof(detail[0]); i++)
		assert_int_equal(pl_loss__class(detail[i]), PL_LOSS_DETAIL);
	assert_int_equal(pl_loss__class(PL_LOSS_MAX), PL_LOSS_LOST); /* unknown: lost */
	assert_int_equal(pl_drop__class(PL_KDROP_STACK_COPY), PL_LOSS_DETAIL);
	assert_int_equal(pl_drop__class(PL_KDROP_RINGBUF), PL_LOSS_LOST);
	assert_int_equal(pl_drop__class(PL_KDROP_MAX), PL_LOSS_LOST); /* a slot no cause names: lost */
	/* every cause is named; every kernel slot is a cause's, or a truncation (else name it at merge) */
	for (int c = 0; c < PL_LOSS_MAX; c++)
		assert_string_not_equal(pl_loss__name(c), "?");
	for (int d = 0; d < PL_KDROP_MAX; d++) {
		bool named = d == PL_KDROP_PATH_TRUNC || d == PL_KDROP_ARGS_TRUNC;

		for (int c = 0; c < PL_LOSS_MAX; c++)
			named |= pl_loss__drop(c) == d;
		if (!named)
			fail_msg("kernel drop slot %d (%s) is no loss cause's: add it to outputs/stats_json.c", d,
				 pl_drop__name(d));
	}
}

static void test_sensor_events_as_records(void **state)
{
	struct pl_sensor_stats st = {0};
	struct pl_sensor_event head = {
	    .kind = PL_SENSOR_AUDIT_HEAD, .time_ns = 5, .head = {.seq = 42, .file = "/a.log"}};
	const struct pl_sensor_event losses = {
	    .kind = PL_SENSOR_LOSSES, .time_ns = 6, .losses = {.records = 1, .threads = 2}};
	const struct pl_ruleset_id rs = {.rules = 3, .files = 1, .sha256 = "ab"};
	const struct pl_sensor_event rules = {
	    .kind = PL_SENSOR_RULES, .time_ns = 7, .rules = {.reason = "sighup", .result = "loaded", .ruleset = &rs}};
	const struct pl_sensor_event stop = {
	    .kind = PL_SENSOR_STOP, .time_ns = 8, .stop = {.reason = "SIGTERM", .stats = &st}};
	struct json_object *o;
	char *t;

	(void)state;
	snprintf(head.head.hash, sizeof(head.head.hash), "%s", "9f");
	t = text(&(struct pl_record){.kind = PL_RECORD_SENSOR, .sensor = &head});
	assert_string_equal(t,
			    "{\"type\":\"audit_head\",\"time_ns\":5,\"seq\":42,\"hash\":\"9f\",\"file\":\"/a.log\"}");
	free(t);
	t = text(&(struct pl_record){.kind = PL_RECORD_SENSOR, .sensor = &losses});
	assert_string_equal(t, "{\"type\":\"losses\",\"time_ns\":6,\"records\":1,\"processes\":0,\"output_writes\":0,"
			       "\"fail_paths\":0,\"threads\":2}");
	free(t);
	t = text(&(struct pl_record){.kind = PL_RECORD_SENSOR, .sensor = &rules});
	assert_string_equal(t, "{\"type\":\"rules\",\"time_ns\":7,\"reason\":\"sighup\",\"result\":\"loaded\","
			       "\"ruleset\":{\"rules\":3,\"files\":1,\"sha256\":\"ab\"}}");
	free(t);
	o = sensor_event_json__record(&stop);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "reason")), "SIGTERM");
	assert_string_equal(json_object_get_string(json_object_object_get(json_object_object_get(o, "stats"), "type")),
			    "stats");
	json_object_put(o);
	assert_string_equal(pl_record__type(&(struct pl_record){.kind = PL_RECORD_SENSOR, .sensor = &stop}), "stop");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_record_is_byte_for_byte_the_sensors),
	    cmocka_unit_test(test_stats_record_parts_off_are_null),
	    cmocka_unit_test(test_stats_record_each_counter_under_its_key),
	    cmocka_unit_test(test_loss_causes_named_as_in_the_stats_record),
	    cmocka_unit_test(test_loss_causes_classified_lost_or_detail),
	    cmocka_unit_test(test_sensor_events_as_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
