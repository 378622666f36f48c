// SPDX-License-Identifier: MIT
/*
 * test_evidence.c - an alert's stack evidence read back from its record:
 * strings unescaped exactly once, optional fields absent or null, every
 * wrong type refused with the field's path, the bounds on stacks and
 * frames, and "no stacks" told apart from "broken stacks".
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alert.h"
#include "alert_json.h"
#include "alert_ocsf.h"
#include "evidence.h"
#include "flamegraph.h"
#include "sample.h"
#include "sample_json.h"

static int parse(const char *json, struct evidence *ev, char *err, size_t errlen)
{
	struct json_object *rec = json_tokener_parse(json);
	int r;

	assert_non_null(rec);
	r = evidence__parse(rec, ev, err, errlen);
	json_object_put(rec);
	return r;
}

static void test_evidence_parse_reads_stacks_and_unescapes_once(void **state)
{
	static const char rec[] =
		"{\"type\":\"alert\",\"id\":\"a1\",\"rule\":\"r\\\\x0A\",\"priority\":\"Critical\",\"when\":\"exit\","
		"\"pid\":4242,\"exe\":\"/bin/m\",\"time_ns\":5,"
		"\"evidence\":{\"stacks\":{\"samples\":10,\"rate_hz\":49,\"unattributed\":1,"
		"\"unattributed_by\":{\"sample_ring_full\":1,\"stack_table_full\":0},"
		"\"top\":[{\"samples\":9,\"frames\":["
		"{\"object\":\"/a\\\\x5Cb\",\"function\":\"f\\\\x1B<\",\"offset\":36,\"build_id\":\"ab\",\"kernel\":false,"
		"\"new\":true},"
		"{\"object\":\"[kernel]\",\"function\":null,\"offset\":22,\"build_id\":null,\"kernel\":true}]}],"
		"\"objects\":[{\"object\":\"/a\",\"build_id\":null,\"samples\":9,\"share\":0.9,\"baseline_share\":null,"
		"\"new\":true},{\"object\":\"/b\",\"samples\":1,\"share\":0.1,\"baseline_share\":0.5,\"new\":false}],"
		"\"functions\":[{\"object\":\"/a\",\"function\":null,\"samples\":9,\"share\":0.9}]}}}";
	struct evidence ev;
	char err[128];

	assert_int_equal(parse(rec, &ev, err, sizeof(err)), 0);
	assert_string_equal(ev.id, "a1");
	assert_string_equal(ev.rule, "r\n");
	assert_string_equal(ev.priority, "Critical");
	assert_string_equal(ev.when, "exit");
	assert_string_equal(ev.exe, "/bin/m");
	assert_int_equal(ev.pid, 4242);
	assert_int_equal(ev.time_ns, 5);
	assert_int_equal(ev.samples, 10);
	assert_int_equal(ev.rate_hz, 49);
	assert_int_equal(ev.unattributed, 1);
	assert_true(ev.has_unatt_by);
	assert_int_equal(ev.unatt_ring, 1);
	assert_int_equal(ev.unatt_table, 0);
	assert_int_equal(ev.nstacks, 1);
	assert_int_equal(ev.stacks_dropped, 0);
	assert_int_equal(ev.stacks[0].samples, 9);
	assert_int_equal(ev.stacks[0].nframes, 2);
	assert_string_equal(ev.stacks[0].frames[0].object, "/a\\b");
	assert_string_equal(ev.stacks[0].frames[0].function, "f\x1b<");
	assert_string_equal(ev.stacks[0].frames[0].build_id, "ab");
	assert_int_equal(ev.stacks[0].frames[0].offset, 36);
	assert_false(ev.stacks[0].frames[0].kernel);
	assert_true(ev.stacks[0].frames[0].is_new);
	assert_false(ev.stacks[0].frames[1].is_new);
	assert_string_equal(ev.stacks[0].frames[1].object, "[kernel]");
	assert_null(ev.stacks[0].frames[1].function);
	assert_null(ev.stacks[0].frames[1].build_id);
	assert_int_equal(ev.stacks[0].frames[1].offset, 22);
	assert_true(ev.stacks[0].frames[1].kernel);
	assert_int_equal(ev.nobjects, 2);
	assert_null(ev.objects[0].build_id);
	assert_true(isnan(ev.objects[0].baseline_share));
	assert_true(ev.objects[0].is_new);
	assert_true(ev.objects[1].baseline_share == 0.5);
	assert_int_equal(ev.nfunctions, 1);
	assert_null(ev.functions[0].function);
	assert_int_equal(evidence__shown(&ev), 9);
	evidence__free(&ev);
	assert_null(ev.stacks);
}

static void test_evidence_parse_tells_no_stacks_apart(void **state)
{
	static const char *const none[] = {
		"{\"type\":\"alert\",\"id\":\"a\"}",
		"{\"type\":\"alert\",\"id\":\"a\",\"evidence\":{\"baseline\":null}}",
		"{\"type\":\"alert\",\"id\":\"a\",\"evidence\":{\"stacks\":null}}",
		"{\"type\":\"alert\",\"id\":\"a\",\"evidence\":{\"stacks\":{\"samples\":0}}}",
		"{\"type\":\"alert\",\"id\":\"a\",\"evidence\":{\"stacks\":{\"samples\":0,\"top\":[]}}}",
	};

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		struct evidence ev;
		char err[128];

		assert_int_equal(parse(none[i], &ev, err, sizeof(err)), -ENODATA);
		assert_string_equal(ev.id, "a");
		evidence__free(&ev);
	}
}

static void test_evidence_parse_names_the_wrong_field(void **state)
{
	static const struct {
		const char *stacks, *err;
	} cases[] = {
		{ "[]", "evidence.stacks: not an object" },
		{ "{\"top\":{}}", "evidence.stacks.top: not an array" },
		{ "{\"samples\":-1,\"top\":[]}", "evidence.stacks.samples: not a non-negative integer" },
		{ "{\"rate_hz\":49.5,\"top\":[]}", "evidence.stacks.rate_hz: not a non-negative integer" },
		{ "{\"top\":[\"x\"]}", "evidence.stacks.top[0]: not an object" },
		{ "{\"top\":[{\"frames\":[]}]}", "evidence.stacks.top[0].samples: missing" },
		{ "{\"top\":[{\"samples\":1}]}", "evidence.stacks.top[0].frames: missing" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[{\"object\":\"/a\"},{\"function\":\"f\"}]}]}",
		  "evidence.stacks.top[0].frames[1].object: missing" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[{\"object\":\"/a\",\"offset\":-1}]}]}",
		  "evidence.stacks.top[0].frames[0].offset: not a non-negative integer" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[{\"object\":\"/a\",\"kernel\":1}]}]}",
		  "evidence.stacks.top[0].frames[0].kernel: not a boolean" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[{\"object\":7}]}]}",
		  "evidence.stacks.top[0].frames[0].object: not a string" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[]}],\"objects\":[{\"object\":\"/a\",\"samples\":1,\"share\":\"x\"}]}",
		  "evidence.stacks.objects[0].share: not a number" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[]}],\"functions\":[{\"object\":\"/a\"}]}",
		  "evidence.stacks.functions[0].samples: missing" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[{\"object\":\"/a\",\"interp\":1}]}]}",
		  "evidence.stacks.top[0].frames[0].interp: not a string" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[]}],\"functions\":[{\"object\":\"/a\",\"offset\":-2}]}",
		  "evidence.stacks.functions[0].offset: not a non-negative integer" },
		{ "{\"top\":[{\"samples\":1,\"frames\":[{\"object\":\"/a\",\"new\":1}]}]}",
		  "evidence.stacks.top[0].frames[0].new: not a boolean" },
		{ "{\"unattributed_by\":[],\"top\":[]}", "evidence.stacks.unattributed_by: not an object" },
		{ "{\"unattributed_by\":{\"sample_ring_full\":1},\"top\":[]}",
		  "evidence.stacks.unattributed_by.stack_table_full: missing" },
		{ "{\"unattributed_by\":{\"sample_ring_full\":-2,\"stack_table_full\":0},\"top\":[]}",
		  "evidence.stacks.unattributed_by.sample_ring_full: not a non-negative integer" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct evidence ev;
		char rec[512], err[128];

		snprintf(rec, sizeof(rec), "{\"type\":\"alert\",\"id\":\"a\",\"evidence\":{\"stacks\":%s}}", cases[i].stacks);
		assert_int_equal(parse(rec, &ev, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, cases[i].err);
		evidence__free(&ev);
	}
}

/* rec with n stacks of depth frames each (caller frees). */
static char *rec_of(size_t n, size_t depth)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fputs("{\"type\":\"alert\",\"id\":\"a\",\"evidence\":{\"stacks\":{\"samples\":1,\"top\":[", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"samples\":1,\"frames\":[", i ? "," : "");
		for (size_t j = 0; j < depth; j++)
			fprintf(f, "%s{\"object\":\"/a\",\"function\":\"f%zu\"}", j ? "," : "", j);
		fputs("]}", f);
	}
	fputs("]}}}", f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_evidence_parse_bounds_stacks_and_frames(void **state)
{
	struct evidence ev;
	char err[128], *rec;

	rec = rec_of(EV_MAX_STACKS + 6, 2);
	assert_int_equal(parse(rec, &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.nstacks, EV_MAX_STACKS);
	assert_int_equal(ev.stacks_dropped, 6);
	assert_int_equal(evidence__shown(&ev), EV_MAX_STACKS);
	evidence__free(&ev);
	free(rec);

	rec = rec_of(1, FG_MAX_DEPTH);
	assert_int_equal(parse(rec, &ev, err, sizeof(err)), 0);
	assert_int_equal(ev.stacks[0].nframes, FG_MAX_DEPTH);
	evidence__free(&ev);
	free(rec);

	rec = rec_of(1, FG_MAX_DEPTH + 1);
	assert_int_equal(parse(rec, &ev, err, sizeof(err)), -E2BIG);
	assert_string_equal(err, "evidence.stacks.top[0].frames: 513 frames, more than the 512 a stack may have");
	evidence__free(&ev);
	free(rec);
}

/* The stacks as the sensor writes them (sample_json__stacks) and as
 * `plumbline evidence` reads them back: an interpreter's frames keep their
 * mark, a function without a name its file offset, in the stacks and in
 * the functions table. */
static void test_evidence_reads_back_what_the_sensor_writes(void **state)
{
	const struct pl_frame user[] = {
		{ .object = "/usr/bin/python3.11", .function = "Py_RunMain", .offset = 3, .build_id = "57" },
		{ .object = "/usr/bin/python3.11", .function = "_PyEval_EvalFrameDefault", .offset = 1234,
		  .build_id = "57", .interp = "python" },
		{ .object = "/usr/bin/dash", .offset = 0x1a2b, .build_id = "d4" },
	};
	const struct pl_frame kern[] = { { .object = "[kernel]", .function = "pipe_read", .offset = 9, .kernel = true } };
	const struct pl_stack st = { .samples = 7, .user = user, .kern = kern, .nuser = 3, .nkern = 1 };
	const struct pl_oncpu_fn fns[] = {
		{ .object = "/usr/bin/python3.11", .function = "_PyEval_EvalFrameDefault", .samples = 5, .interp = "python" },
		{ .object = "/usr/bin/dash", .offset = 0x1a2b, .samples = 2 },
	};
	struct pl_oncpu oc = { .samples = 8, .unattributed = 1, .rate_hz = 49, .fns = fns, .nfns = 2, .stacks = &st,
			       .nstacks = 1 };
	struct pl_sample s = { .oncpu = &oc };
	struct json_object *rec = json_object_new_object(), *evd = json_object_new_object();
	struct evidence ev;
	char err[128];

	(void)state;
	json_object_object_add(rec, "type", json_object_new_string("alert"));
	json_object_object_add(rec, "id", json_object_new_string("a"));
	json_object_object_add(evd, "stacks", sample_json__stacks(&s));
	json_object_object_add(rec, "evidence", evd);
	assert_int_equal(evidence__parse(rec, &ev, err, sizeof(err)), 0);
	json_object_put(rec);
	assert_int_equal(ev.nstacks, 1);
	assert_int_equal(ev.stacks[0].nframes, 4);
	assert_null(ev.stacks[0].frames[0].interp);
	assert_string_equal(ev.stacks[0].frames[1].function, "_PyEval_EvalFrameDefault");
	assert_string_equal(ev.stacks[0].frames[1].interp, "python");
	assert_int_equal(ev.stacks[0].frames[1].offset, 1234);
	assert_null(ev.stacks[0].frames[2].function);
	assert_null(ev.stacks[0].frames[2].interp);
	assert_int_equal(ev.stacks[0].frames[2].offset, 0x1a2b);
	assert_true(ev.stacks[0].frames[3].kernel);
	assert_null(ev.stacks[0].frames[3].interp);
	assert_int_equal(ev.nfunctions, 2);
	assert_string_equal(ev.functions[0].interp, "python");
	assert_null(ev.functions[1].function);
	assert_null(ev.functions[1].interp);
	assert_int_equal(ev.functions[1].offset, 0x1a2b);
	assert_string_equal(ev.functions[1].object, "/usr/bin/dash");
	evidence__free(&ev);
}

/* An alert's OCSF finding (alert_ocsf__finding(), what --ocsf writes) reads
 * back as its native record does: the same id, rule and stacks; a summary's
 * Update finding, or any other record, is no alert. */
static void test_evidence_reads_an_alert_back_from_its_ocsf_finding(void **state)
{
	const struct pl_frame user[] = {{.object = "/usr/bin/burn", .function = "spin", .offset = 4, .build_id = "b1"}};
	const struct pl_stack st = {.samples = 9, .user = user, .nuser = 1};
	struct pl_oncpu oc = {.samples = 9, .rate_hz = 49, .stacks = &st, .nstacks = 1};
	struct pl_sample s = {.pid = 42, .exe = "/usr/bin/burn", .moment = PL_AT_EXIT, .oncpu = &oc};
	struct pl_alert_ids ids = {.instance = 0xabc};
	struct json_object *f, *nat, *native, *other;
	struct evidence ev, evn;
	struct pl_alert a;
	char err[128];

	(void)state;
	pl_alert__init(&a, PL_ALERT_RULE, &ids, 7000000000ull, "burner", "Warning", 4);
	snprintf(a.output, sizeof(a.output), "burn spun");
	a.when = "exit";
	a.pid = 42;
	a.exe = s.exe;
	a.evidence = PL_EVIDENCE_STACKS;
	a.sample = &s;
	f = alert_ocsf__finding(&a);
	native = alert_json__record(&a);
	assert_non_null(f);
	nat = evidence__alert_record(f);
	assert_non_null(nat);
	assert_int_equal(evidence__parse(nat, &ev, err, sizeof(err)), 0);
	assert_int_equal(evidence__parse(native, &evn, err, sizeof(err)), 0);
	assert_string_equal(ev.id, "0000000000000abc-0000000000000001");
	assert_string_equal(ev.rule, evn.rule);
	assert_string_equal(ev.priority, "Warning");
	assert_string_equal(ev.when, "exit");
	assert_string_equal(ev.exe, "/usr/bin/burn");
	assert_int_equal(ev.pid, 42);
	assert_int_equal(ev.time_ns, 7000000000ll);
	assert_int_equal(ev.samples, evn.samples);
	assert_int_equal(ev.nstacks, 1);
	assert_string_equal(ev.stacks[0].frames[0].function, "spin");
	evidence__free(&ev);
	evidence__free(&evn);
	json_object_put(nat);
	/* the native record is itself */
	other = evidence__alert_record(native);
	assert_ptr_equal(other, native);
	json_object_put(other);
	json_object_put(native);
	json_object_put(f);
	/* a summary's finding updates an alert: none itself */
	pl_alert__init(&a, PL_ALERT_SUMMARY, &ids, 8000000000ull, "burner", "Warning", 4);
	a.summary.alert_id = "0000000000000abc-0000000000000001";
	f = alert_ocsf__finding(&a);
	assert_non_null(f);
	assert_null(evidence__alert_record(f));
	json_object_put(f);
	other = json_tokener_parse("{\"type\":\"process\",\"id\":\"x\"}");
	assert_null(evidence__alert_record(other));
	json_object_put(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evidence_reads_an_alert_back_from_its_ocsf_finding),
	    cmocka_unit_test(test_evidence_parse_reads_stacks_and_unescapes_once),
	    cmocka_unit_test(test_evidence_parse_tells_no_stacks_apart),
	    cmocka_unit_test(test_evidence_parse_names_the_wrong_field),
	    cmocka_unit_test(test_evidence_parse_bounds_stacks_and_frames),
	    cmocka_unit_test(test_evidence_reads_back_what_the_sensor_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
