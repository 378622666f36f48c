// SPDX-License-Identifier: MIT
/*
 * test_stacks.c - on-CPU stack evidence from the real sensor: a program
 * with frame pointers burns CPU in a known function of a shared library it
 * loads, and exits; its alert names that library and that function, and
 * its baseline learns where its code normally runs, by object and by
 * function: the alert's frames of functions it never ran are marked new.
 * A program built without frame pointers, as Debian builds its binaries,
 * spins at the end of a known chain seven functions deep: its samples hold
 * the whole chain, unwound in user space through its unwind tables.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (15000 * HARNESS_SLOWDOWN)
#define HZ 997 /* samples per second per CPU in these tests */

static struct sensor_proc sensor; /* stopped by teardown, even when a test fails half-way */

static int teardown(void **state)
{
	(void)state;
	if (sensor.pid > 0 || sensor.dir[0])
		sensor_cleanup(&sensor);
	memset(&sensor, 0, sizeof(sensor));
	return 0;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool ends_with(const char *str, const char *tail)
{
	size_t a = str ? strlen(str) : 0, b = strlen(tail);

	return a >= b && strcmp(str + a - b, tail) == 0;
}

/* Run pl_burn MS [LIB]; its records (exec image last) into *recs. */
static pid_t burn(struct sensor_proc *sp, const char *ms, const char *lib, struct json_object **recs)
{
	const char *argv[] = { PL_BURN_BIN, ms, lib, NULL };
	char out[64];
	int st;
	pid_t pid = run_capture(argv, out, sizeof(out), &st);

	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* the fork step and the exec image; the exit is written after its rules ran */
	*recs = records_wait_pid(sp, pid, 2, WAIT_MS);
	assert_non_null(*recs);
	return pid;
}

static struct json_object *alert_of(struct sensor_proc *sp, const char *rule, pid_t pid)
{
	struct json_object *recs = records_load(sp), *found = NULL;

	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);

		/* the last one: the rule may fire more than once for the pid */
		if (!strcmp(rec_str(r, "type") ?: "", "alert") && !strcmp(rec_str(r, "rule") ?: "", rule) &&
		    rec_int(r, "pid") == pid) {
			json_object_put(found);
			found = json_object_get(r);
		}
	}
	json_object_put(recs);
	return found;
}

static void test_alert_names_library_and_function(void **state)
{
	static const char rule[] = "- rule: burner\n"
				   "  desc: pl_burn spent CPU\n"
				   "  condition: proc.exe_name = pl_burn and proc.cpu_ms >= 150\n"
				   "  output: \"pl_burn burned %proc.cpu_ms ms (pid %proc.pid)\"\n"
				   "  priority: WARNING\n"
				   "  evidence: [stacks]\n";
	char rules[256], hz[16], ocsf[256];
	const char *extra[] = {
	    "--process-records", "--no-syslog", "--rules", rules, "--sample-hz", hz, "--ocsf", ocsf, NULL};
	struct json_object *recs, *a, *st, *top, *frames, *fn0, *obj0, *proc, *oncpu;
	long long samples, cpu_ns;
	bool main_seen = false;
	pid_t pid;

	(void)state;
	NEED_BPF();
	snprintf(rules, sizeof(rules), "/tmp/plumbline-stacks-%d.yaml", (int)getpid());
	snprintf(ocsf, sizeof(ocsf), "/tmp/plumbline-stacks-%d.ocsf.jsonl", (int)getpid());
	snprintf(hz, sizeof(hz), "%d", HZ);
	harness_write_file(rules, rule);
	assert_int_equal(sensor_start(&sensor, extra), 0);

	pid = burn(&sensor, "300", PL_BURNLIB, &recs);
	proc = json_object_array_get_idx(recs, json_object_array_length(recs) - 1);
	a = alert_of(&sensor, "burner", pid);
	assert_non_null(a);
	st = get(get(a, "evidence"), "stacks");
	assert_non_null(st);

	/* as many samples as its CPU time at HZ: the kernel's own accounting */
	cpu_ns = rec_int(proc, "cpu_ns");
	samples = json_object_get_int64(get(st, "samples"));
	assert_int_equal(json_object_get_int64(get(st, "rate_hz")), HZ);
	assert_true(cpu_ns >= 300000000);
	assert_true(fabs((double)samples - cpu_ns * 1e-9 * HZ) <= 0.15 * cpu_ns * 1e-9 * HZ);
	assert_true(json_object_get_int64(get(st, "unattributed")) <= samples / 20);
	/* the process record says the same */
	oncpu = get(proc, "oncpu");
	assert_int_equal(json_object_get_int64(get(oncpu, "samples")), samples);

	/* named after the process has gone: the function, in the library */
	fn0 = json_object_array_get_idx(get(st, "functions"), 0);
	if (!json_object_get_string(get(fn0, "function")))
		fprintf(stderr, "%s\n", json_object_to_json_string(st));
	assert_non_null(json_object_get_string(get(fn0, "function")));
	assert_string_equal(json_object_get_string(get(fn0, "function")), "pl_burnlib_spin");
	assert_true(ends_with(json_object_get_string(get(fn0, "object")), "/libplburn.so"));
	assert_true(json_object_get_double(get(fn0, "share")) >= 0.8);
	obj0 = json_object_array_get_idx(get(st, "objects"), 0);
	assert_true(ends_with(json_object_get_string(get(obj0, "object")), "/libplburn.so"));
	assert_non_null(json_object_get_string(get(obj0, "build_id")));
	assert_true(json_object_get_double(get(obj0, "share")) >= 0.8);

	/* the heaviest stack ends in that function and, frame pointers all
	 * the way, starts from main */
	top = json_object_array_get_idx(get(st, "top"), 0);
	frames = get(top, "frames");
	assert_true(json_object_array_length(frames) >= 2);
	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		struct json_object *f = json_object_array_get_idx(frames, i);
		const char *name = json_object_get_string(get(f, "function"));

		main_seen |= name && !strcmp(name, "main") &&
			     ends_with(json_object_get_string(get(f, "object")), "/pl_burn");
		/* a kernel frame is a name and an offset, never an address */
		if (json_object_get_boolean(get(f, "kernel")))
			assert_non_null(name);
	}
	assert_true(main_seen);

	/* the same alert, read back by `plumbline evidence`: folded stacks,
	 * and the flame graph as headless Chromium draws it */
	{
		const char *id = json_object_get_string(get(a, "id"));
		const char *fold[] = { PL_SENSOR_BIN, "evidence", sensor.json, id, "--folded", NULL };
		const char *svg[] = { "/bin/sh", PL_EVIDENCE_CHROMIUM, PL_SENSOR_BIN, sensor.json, id, NULL };
		const char *report[] = { "/bin/sh", PL_REPORT_CHROMIUM, PL_SENSOR_BIN, sensor.json, id, NULL };
		const char *fold_ocsf[] = {PL_SENSOR_BIN, "evidence", ocsf, id, "--folded", NULL};
		static char out[65536], out_ocsf[65536];
		int rc;

		assert_non_null(id);
		run_capture(fold, out, sizeof(out), &rc);
		assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
		assert_non_null(strstr(out, ";call_lib;pl_burnlib_spin "));
		/* the same stacks read back from the OCSF output's finding of it */
		run_capture(fold_ocsf, out_ocsf, sizeof(out_ocsf), &rc);
		assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
		assert_string_equal(out_ocsf, out);
		run_capture(svg, out, sizeof(out), &rc);
		if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0)
			fprintf(stderr, "%s\n", out);
		assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
		/* and the alert's HTML report (plumbline report), as Chromium shows it */
		run_capture(report, out, sizeof(out), &rc);
		if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0)
			fprintf(stderr, "%s\n", out);
		assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	}
	{
		struct json_object *leaf = json_object_array_get_idx(frames, json_object_array_length(frames) - 1);
		const char *name = json_object_get_string(get(leaf, "function"));

		/* in user mode the leaf is the spinning function; a sample in the
		 * kernel (its clock read) ends in a kernel frame */
		if (!json_object_get_boolean(get(leaf, "kernel")))
			assert_string_equal(name, "pl_burnlib_spin");
	}
	json_object_put(a);
	json_object_put(recs);
	assert_int_equal(sensor_stop(&sensor), 0);
	unlink(rules);
	unlink(ocsf);
}

static void test_baseline_learns_objects_and_flags_a_new_one(void **state)
{
	static const char rule[] = "- rule: new code\n"
				   "  desc: pl_burn ran code where it never had\n"
				   "  condition: proc.exe_name = pl_burn and baseline.new_oncpu_samples >= 5\n"
				   "  output: \"pl_burn ran %baseline.new_oncpu_samples samples in %baseline.new_oncpu_objects\"\n"
				   "  priority: WARNING\n"
				   "  evidence: [stacks, baseline]\n";
	char rules[256], hz[16];
	const char *extra[] = { "--process-records", "--no-syslog", "--rules", rules, "--sample-hz", hz,
				"--min-samples", "5", "--set-quiet", "0", NULL };
	struct json_object *recs, *bl, *news, *a, *objs, *proc;
	bool lib_new = false, lib_listed = false;
	pid_t pid;

	(void)state;
	NEED_BPF();
	snprintf(rules, sizeof(rules), "/tmp/plumbline-stacks2-%d.yaml", (int)getpid());
	snprintf(hz, sizeof(hz), "%d", HZ);
	harness_write_file(rules, rule);
	assert_int_equal(sensor_start(&sensor, extra), 0);

	/* five runs in the program itself: where its code runs is learned */
	for (int i = 0; i < 5; i++) {
		pid = burn(&sensor, "40", NULL, &recs);
		proc = json_object_array_get_idx(recs, json_object_array_length(recs) - 1);
		bl = get(proc, "baseline");
		assert_false(json_object_get_boolean(get(bl, "oncpu_ready")));
		assert_null(alert_of(&sensor, "new code", pid));
		json_object_put(recs);
	}
	/* the sixth runs in a library it never ran in */
	pid = burn(&sensor, "200", PL_BURNLIB, &recs);
	proc = json_object_array_get_idx(recs, json_object_array_length(recs) - 1);
	bl = get(proc, "baseline");
	assert_true(json_object_get_boolean(get(bl, "oncpu_ready")));
	news = get(bl, "new_oncpu_objects");
	for (size_t i = 0; i < json_object_array_length(news); i++)
		lib_new |= ends_with(json_object_get_string(json_object_array_get_idx(news, i)), "/libplburn.so");
	if (!lib_new)
		fprintf(stderr, "%s\n", json_object_to_json_string(proc));
	assert_true(lib_new);
	if (json_object_get_int64(get(bl, "new_oncpu_samples")) < 100)
		fprintf(stderr, "%s\n", json_object_to_json_string(proc));
	assert_true(json_object_get_int64(get(bl, "new_oncpu_samples")) >= 100);
	a = alert_of(&sensor, "new code", pid);
	assert_non_null(a);
	/* beside each object, what the baseline expects of it */
	objs = get(get(get(a, "evidence"), "stacks"), "objects");
	for (size_t i = 0; i < json_object_array_length(objs); i++) {
		struct json_object *o = json_object_array_get_idx(objs, i);

		if (!ends_with(json_object_get_string(get(o, "object")), "/libplburn.so"))
			continue;
		lib_listed = true;
		assert_true(json_object_get_boolean(get(o, "new")));
		assert_true(json_object_get_double(get(o, "baseline_share")) == 0);
	}
	assert_true(lib_listed);
	/* and each frame against the functions it learned: main ran in every
	 * run, call_lib and the library's function never did; kernel frames
	 * are never judged */
	{
		struct json_object *top = get(get(get(a, "evidence"), "stacks"), "top");
		bool spin_new = false, main_known = false;

		for (size_t i = 0; i < json_object_array_length(top); i++) {
			struct json_object *frames = get(json_object_array_get_idx(top, i), "frames");

			for (size_t k = 0; k < json_object_array_length(frames); k++) {
				struct json_object *f = json_object_array_get_idx(frames, k);
				const char *name = json_object_get_string(get(f, "function"));
				bool is_new = json_object_get_boolean(get(f, "new"));

				if (json_object_get_boolean(get(f, "kernel")))
					assert_false(is_new);
				if (!name)
					continue;
				if (!strcmp(name, "pl_burnlib_spin") || !strcmp(name, "call_lib")) {
					if (!is_new)
						fprintf(stderr, "%s\n", json_object_to_json_string(f));
					assert_true(is_new);
					spin_new |= !strcmp(name, "pl_burnlib_spin");
				}
				if (!strcmp(name, "main") && ends_with(json_object_get_string(get(f, "object")), "/pl_burn")) {
					assert_null(get(f, "new")); /* written only when true */
					main_known = true;
				}
			}
		}
		assert_true(spin_new);
		assert_true(main_known);
	}
	json_object_put(a);
	json_object_put(recs);
	assert_int_equal(sensor_stop(&sensor), 0);
	unlink(rules);
}

/* The exit alert of pid for rule (the rule may also fire at windows). */
static struct json_object *exit_alert_of(struct sensor_proc *sp, const char *rule, pid_t pid)
{
	struct json_object *recs = records_load(sp), *found = NULL;

	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);

		if (!strcmp(rec_str(r, "type") ?: "", "alert") && !strcmp(rec_str(r, "rule") ?: "", rule) &&
		    rec_int(r, "pid") == pid && !strcmp(rec_str(r, "when") ?: "", "exit")) {
			json_object_put(found);
			found = json_object_get(r);
		}
	}
	json_object_put(recs);
	return found;
}

/* Whether frames hold main > plchain_1 > .. > plchain_6 > plchain_spin as
 * consecutive user frames of pl_chain: nothing between them, no [unknown]. */
static bool has_chain(struct json_object *frames)
{
	static const char *const chain[] = { "main",	  "plchain_1", "plchain_2", "plchain_3",
					     "plchain_4", "plchain_5", "plchain_6", "plchain_spin" };
	const size_t nc = sizeof(chain) / sizeof(*chain);
	size_t n = json_object_array_length(frames);

	for (size_t i = 0; i + nc <= n; i++) {
		size_t k = 0;

		while (k < nc) {
			struct json_object *f = json_object_array_get_idx(frames, i + k);
			const char *fn = json_object_get_string(get(f, "function"));

			if (!fn || strcmp(fn, chain[k]) || json_object_get_boolean(get(f, "kernel")) ||
			    !ends_with(json_object_get_string(get(f, "object")), "/pl_chain"))
				break;
			k++;
		}
		if (k == nc)
			return true;
	}
	return false;
}

/*
 * No frame pointers: every function of the chain, in order, in at least 90 %
 * of the spinner's samples (the rest: its start in the dynamic loader, a
 * sample the ring could not take); the stacks begin at _start.
 */
static void test_whole_stack_without_frame_pointers(void **state)
{
	static const char rule[] = "- rule: chain\n"
				   "  desc: pl_chain spent CPU\n"
				   "  condition: proc.exe_name = pl_chain and proc.cpu_ms >= 150\n"
				   "  output: \"pl_chain burned %proc.cpu_ms ms (pid %proc.pid)\"\n"
				   "  priority: WARNING\n"
				   "  evidence: [stacks]\n";
	char rules[256], hz[16];
	const char *extra[] = { "--no-syslog", "--rules", rules, "--sample-hz", hz, NULL };
	const char *argv[] = { PL_CHAIN_BIN, "1000", NULL };
	struct json_object *a, *st, *top;
	long long samples, whole = 0, kept = 0;
	char out[64];
	int rc;
	pid_t pid;

	(void)state;
	NEED_BPF();
	snprintf(rules, sizeof(rules), "/tmp/plumbline-stacks3-%d.yaml", (int)getpid());
	snprintf(hz, sizeof(hz), "%d", HZ);
	harness_write_file(rules, rule);
	assert_int_equal(sensor_start(&sensor, extra), 0);

	pid = run_capture(argv, out, sizeof(out), &rc);
	assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	for (int waited = 0; !(a = exit_alert_of(&sensor, "chain", pid)) && waited < WAIT_MS; waited += 100)
		usleep(100 * 1000);
	assert_non_null(a);
	st = get(get(a, "evidence"), "stacks");
	samples = json_object_get_int64(get(st, "samples"));
	top = get(st, "top");
	/* about 1 s of CPU at HZ */
	assert_true(samples >= HZ * 8 / 10);
	for (size_t i = 0; i < json_object_array_length(top); i++) {
		struct json_object *t = json_object_array_get_idx(top, i), *frames = get(t, "frames");
		long long n = json_object_get_int64(get(t, "samples"));
		struct json_object *f0 = json_object_array_get_idx(frames, 0);

		kept += n;
		if (!has_chain(frames))
			continue;
		whole += n;
		/* a whole stack, from the program's first instruction */
		assert_string_equal(json_object_get_string(get(f0, "function")) ?: "", "_start");
		assert_true(ends_with(json_object_get_string(get(f0, "object")), "/pl_chain"));
	}
	if (whole * 10 < samples * 9)
		fprintf(stderr, "%s\n", json_object_to_json_string(st));
	fprintf(stderr, "  %lld samples, %lld in the stacks listed, %lld with the whole chain (%.1f %%)\n", samples,
		kept, whole, 100.0 * (double)whole / (double)samples);
	assert_true(whole * 10 >= samples * 9);
	json_object_put(a);
	assert_int_equal(sensor_stop(&sensor), 0);
	unlink(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_alert_names_library_and_function, teardown),
		cmocka_unit_test_teardown(test_baseline_learns_objects_and_flags_a_new_one, teardown),
		cmocka_unit_test_teardown(test_whole_stack_without_frame_pointers, teardown),
	};

	return cmocka_run_group_tests(tests, harness_group_setup, NULL);
}
