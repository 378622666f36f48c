// SPDX-License-Identifier: MIT
/*
 * test_baselines.c - learning and scoring with the real sensor.
 *
 * A helper with a known CPU cost runs 30 times: the baseline becomes ready
 * and its learned median is within the sketch's guarantee of the measured
 * costs. The sensor restarts (the store persists), then one run costing 10x
 * gets a high score and is not learned, while 30 more normal runs are not
 * anomalous. A corrupt baseline file is reported by name and moved aside,
 * and so is a FIFO under a baseline's name, without holding up the start.
 * The running sensor holds its state directory: a second writer is refused;
 * and a state directory others can write is refused at start-up.
 *
 * Keys: a real python3 running two scripts and two -c one-liners
 * gets three baselines (the one-liners share one); a changed script is a
 * new baseline with the old one as prior; a fork child of the same image is
 * a baseline apart ("+fork").
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"

#define ALPHA 0.01 /* SKETCH_ALPHA */
#define WAIT_MS (10000 * HARNESS_SLOWDOWN)
#define RUNS 30
#define NORMAL "30" /* million iterations: ~30-60 ms of CPU */
#define TENX "300"

static struct sensor_proc sensor;

static const char *const extra[] = { "--process-records", "--min-samples", "20", NULL };

static int group_setup(void **state)
{
	return harness_group_setup_shared(&sensor, extra);
}

static int group_teardown(void **state)
{
	return harness_group_teardown(&sensor);
}

/* Run the helper doing miter million iterations of work (a CPU cost that
 * doesn't depend on the machine's load); return its exec image's record. */
static struct json_object *run_helper(const char *miter, struct json_object **recs)
{
	const char *argv[] = { PL_HELPER_BIN, "work", miter, NULL };
	char out[256];
	int st;
	pid_t pid = run_capture(argv, out, sizeof(out), &st);

	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	*recs = records_wait_pid(&sensor, pid, 2, WAIT_MS);
	assert_non_null(*recs);
	return records_find(*recs, pid, "exec");
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static double cpu_score(struct json_object *r)
{
	struct json_object *f = get(get(get(r, "baseline"), "features"), "cpu_ns");

	assert_non_null(f);
	return json_object_get_double(get(f, "score"));
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* `plumbline baseline show KEY --json` on the sensor's state dir. */
static struct json_object *show(const char *key)
{
	const char *argv[] = { PL_SENSOR_BIN, "baseline", "show", key, "--json", "--state-dir", sensor.state, NULL };
	static char out[1 << 20];
	struct json_object *arr;
	int st;

	run_capture(argv, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	arr = json_tokener_parse(out);
	assert_non_null(arr);
	assert_int_equal(json_object_array_length(arr), 1);
	return arr;
}

static void test_learns_a_known_cost_then_scores_a_10x_run(void **state)
{
	long long costs[RUNS];
	char key[512] = "";
	struct json_object *recs, *r, *arr, *b, *q;
	int st, learned = 0;
	double p50;

	NEED_BPF();
	for (int i = 0; i < RUNS; i++) {
		r = run_helper(NORMAL, &recs);
		assert_non_null(r);
		costs[i] = rec_int(r, "cpu_ns");
		/* learning: the first min-samples runs are learned without being scored */
		assert_true(json_object_get_boolean(get(get(r, "baseline"), "learned")));
		assert_int_equal(json_object_get_boolean(get(get(r, "baseline"), "ready")), i >= 20);
		snprintf(key, sizeof(key), "%s", json_object_get_string(get(get(r, "baseline"), "key")));
		json_object_put(recs);
	}
	/* stopping saves the store; its file is what `baseline show` reads */
	st = sensor_stop(&sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	arr = show(key);
	b = json_object_array_get_idx(arr, 0);
	assert_int_equal(json_object_get_int64(get(b, "samples")), RUNS);
	assert_true(json_object_get_boolean(get(b, "ready")));
	q = get(get(b, "quantiles"), "life_cpu_ns");
	p50 = json_object_get_double(get(q, "p50"));
	qsort(costs, RUNS, sizeof(costs[0]), cmp_ll);
	/* the median of 30 lies between the 15th and 16th values; the sketch
	 * answers within ALPHA of one of them */
	if (p50 < costs[14] * (1 - ALPHA) || p50 > costs[15] * (1 + ALPHA))
		fail_msg("learned p50 %.0f ns, measured median between %lld and %lld", p50, costs[14], costs[15]);
	assert_int_equal(json_object_get_int64(get(q, "min")), costs[0]);
	assert_int_equal(json_object_get_int64(get(q, "max")), costs[RUNS - 1]);
	json_object_put(arr);

	/* a restart keeps what was learned */
	assert_int_equal(sensor_restart(&sensor, extra), 0);
	r = run_helper(TENX, &recs);
	assert_non_null(r);
	if (cpu_score(r) < 4)
		fail_msg("a 10x run scored only %.2f", cpu_score(r));
	assert_true(json_object_get_boolean(get(get(r, "baseline"), "anomalous")));
	assert_true(json_object_get_double(get(get(get(get(r, "baseline"), "features"), "cpu_ns"), "ratio_p50")) > 5);
	/* no rule at Warning on it: the recurrence budget (one sample, 2 an
	 * hour: docs/baselines.md) learns it; a second one at once is not */
	assert_true(json_object_get_boolean(get(get(r, "baseline"), "learned")));
	json_object_put(recs);
	r = run_helper(TENX, &recs);
	assert_non_null(r);
	if (cpu_score(r) < 4)
		fail_msg("a second 10x run scored only %.2f", cpu_score(r));
	assert_true(json_object_get_boolean(get(get(r, "baseline"), "anomalous")));
	assert_false(json_object_get_boolean(get(get(r, "baseline"), "learned")));
	json_object_put(recs);

	for (int i = 0; i < RUNS; i++) {
		r = run_helper(NORMAL, &recs);
		assert_non_null(r);
		/* the CPU is what this test controls; wall and off-CPU time also
		 * depend on what else the machine does */
		if (fabs(cpu_score(r)) >= 4)
			fail_msg("normal run %d: cpu_ns scored %.2f (%s)", i, cpu_score(r),
				 json_object_to_json_string(get(r, "baseline")));
		learned += json_object_get_boolean(get(get(r, "baseline"), "learned"));
		json_object_put(recs);
	}
	st = sensor_stop(&sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	arr = show(key);
	/* the first 10x run was learned by recurrence, the second not; the normal ones were, unless something
	 * else about them (wall time on a busy machine) was anomalous */
	assert_true(learned >= RUNS / 2);
	assert_int_equal(json_object_get_int64(get(json_object_array_get_idx(arr, 0), "samples")), RUNS + 1 + learned);
	assert_int_equal(json_object_get_int64(get(json_object_array_get_idx(arr, 0), "quarantined")),
			 1 + RUNS - learned);
	json_object_put(arr);
	assert_int_equal(sensor_restart(&sensor, extra), 0);
}

/* ---- keys ---- */

#define PYTHON "/usr/bin/python3"

/* Every process record of pids a and b, gathered from what the sensor
 * appends until a has a record of image ia and b (when > 0) one of image ib
 * (records_wait_pid() would drop the other pid's records). */
static struct json_object *wait_pids(pid_t a, const char *ia, pid_t b, const char *ib)
{
	struct json_object *out = json_object_new_array();
	bool ha = false, hb = b <= 0;

	for (int tries = 0; tries < WAIT_MS / 20 && !(ha && hb); tries++) {
		struct json_object *recs = records_load(&sensor);

		for (size_t i = 0; i < json_object_array_length(recs); i++) {
			struct json_object *r = json_object_array_get_idx(recs, i);
			const char *t = rec_str(r, "type"), *im = rec_str(r, "image");

			if (!t || strcmp(t, "process") != 0 || !im)
				continue;
			if (rec_int(r, "pid") == a)
				ha |= strcmp(im, ia) == 0;
			else if (b > 0 && rec_int(r, "pid") == b)
				hb |= strcmp(im, ib) == 0;
			else
				continue;
			json_object_array_add(out, json_object_get(r));
		}
		json_object_put(recs);
		if (!(ha && hb))
			usleep(20000);
	}
	if (!(ha && hb))
		fail_msg("no %s record of %d or no %s record of %d: %s", ia, a, ib ? ib : "-", b,
			 json_object_to_json_string(out));
	return out;
}

/* Run argv, return its exec image's baseline key and script (copies). */
static void run_keyed(const char *const *argv, char *key, size_t keylen, char *script, size_t scriptlen)
{
	char out[256];
	int st;
	pid_t pid = run_capture(argv, out, sizeof(out), &st);
	struct json_object *recs, *r;

	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	recs = wait_pids(pid, "exec", -1, NULL);
	r = records_find(recs, pid, "exec");
	if (!r)
		fail_msg("no exec record of %s: %s", argv[0], json_object_to_json_string(recs));
	snprintf(key, keylen, "%s", json_object_get_string(get(get(r, "baseline"), "key")));
	snprintf(script, scriptlen, "%s", rec_str(r, "script") ? rec_str(r, "script") : "(null)");
	json_object_put(recs);
}

static void test_python_is_keyed_by_script_and_forks_apart(void **state)
{
	char dir[] = "/tmp/pl-keys-XXXXXX", a[64], b[64], f[64];
	char ka[1024], kb[1024], kc1[1024], kc2[1024], ka2[1024], sa[1024], sb[1024], sc[1024], tmp[1024];
	char want[1200], out[256], *end;
	struct json_object *recs, *pr, *cr, *arr;
	pid_t pid, child;
	int st;

	NEED_BPF();
	if (access(PYTHON, X_OK) != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.py", dir);
	snprintf(b, sizeof(b), "%s/b.py", dir);
	snprintf(f, sizeof(f), "%s/f.py", dir);
	harness_write_file(a, "x = 1\n");
	harness_write_file(b, "x = 2\n");
	harness_write_file(f, "import os, sys\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\n"
		      "print(pid)\n");

	/* options before the script are skipped: -u -X dev */
	run_keyed((const char *const[]){ PYTHON, "-u", "-X", "dev", a, NULL }, ka, sizeof(ka), sa, sizeof(sa));
	run_keyed((const char *const[]){ PYTHON, b, NULL }, kb, sizeof(kb), sb, sizeof(sb));
	run_keyed((const char *const[]){ PYTHON, "-c", "pass", NULL }, kc1, sizeof(kc1), sc, sizeof(sc));
	run_keyed((const char *const[]){ PYTHON, "-c", "print(3)", NULL }, kc2, sizeof(kc2), tmp, sizeof(tmp));
	assert_string_equal(sa, a);
	assert_string_equal(sb, b);
	assert_string_equal(sc, "-c");
	snprintf(want, sizeof(want), "+script:%s#sha256:", a);
	if (!strstr(ka, want))
		fail_msg("key of python3 a.py: %s", ka);
	assert_string_not_equal(ka, kb);
	assert_string_not_equal(ka, kc1);
	assert_string_not_equal(kb, kc1);
	assert_string_equal(kc1, kc2); /* one bucket for one-liners */
	assert_non_null(strstr(kc1, "+inline@"));

	/* a changed script: another key, with the old one as its prior */
	harness_write_file(a, "x = 1\ny = 2\n");
	run_keyed((const char *const[]){ PYTHON, a, NULL }, ka2, sizeof(ka2), tmp, sizeof(tmp));
	assert_string_not_equal(ka, ka2);

	/* a fork child of the script: the same script, another role */
	pid = run_capture((const char *const[]){ PYTHON, f, NULL }, out, sizeof(out), &st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	child = (pid_t)strtol(out, &end, 10);
	assert_true(child > 0 && end != out);
	recs = wait_pids(pid, "exec", child, "fork");
	pr = records_find(recs, pid, "exec");
	cr = records_find(recs, child, "fork");
	assert_non_null(pr);
	assert_non_null(cr);
	{
		const char *pk = json_object_get_string(get(get(pr, "baseline"), "key"));
		const char *ck = json_object_get_string(get(get(cr, "baseline"), "key"));
		size_t n = strcspn(pk, "@");

		assert_non_null(pk);
		assert_non_null(ck);
		/* the child's image: the parent's image part + "+fork" */
		if (strncmp(ck, pk, n) != 0 || strncmp(ck + n, "+fork@", 6) != 0)
			fail_msg("fork child key %s, exec key %s", ck, pk);
		assert_string_equal(rec_str(cr, "script"), f);
	}
	json_object_put(recs);

	st = sensor_stop(&sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	arr = show(ka2);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(arr, 0), "prior_key")), ka);
	json_object_put(arr);
	unlink(a);
	unlink(b);
	unlink(f);
	rmdir(dir);
	assert_int_equal(sensor_restart(&sensor, extra), 0);
}

static void test_corrupt_baseline_file_is_reported_and_moved_aside(void **state)
{
	static const char truncated[] = "{\"format\":\"plumbline-baseline\",\"version\":1,\"key\":";
	char path[256], line[1024];
	bool reported = false, moved = false;
	struct dirent *de;
	FILE *f;
	DIR *d;
	int fd, st;

	NEED_BPF();
	st = sensor_stop(&sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(path, sizeof(path), "%s/baselines/00000000deadbeef.json", sensor.state);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	/* a save cut short: valid JSON up to where it stops */
	assert_int_equal(write(fd, truncated, sizeof(truncated) - 1), (ssize_t)sizeof(truncated) - 1);
	close(fd);
	assert_int_equal(sensor_restart(&sensor, extra), 0);

	f = fopen(sensor.log, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		reported |= strstr(line, "00000000deadbeef.json") && strstr(line, "moved aside");
	fclose(f);
	assert_true(reported);
	snprintf(path, sizeof(path), "%s/baselines", sensor.state);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)))
		moved |= strncmp(de->d_name, "00000000deadbeef.json.bad-", 26) == 0;
	closedir(d);
	assert_true(moved);
}

/* The number in the last "baselines: N loaded" line of the sensor's log, or -1. */
static long last_loaded(void)
{
	char line[1024];
	long n = -1;
	FILE *f = fopen(sensor.log, "re");

	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "baselines: ");

		if (p && strstr(p, " loaded from "))
			n = strtol(p + 11, NULL, 10);
	}
	if (f)
		fclose(f);
	return n;
}

/*
 * A FIFO named like a baseline used to stop the sensor before it attached:
 * the store's open() waited for a writer, with SIGINT and SIGTERM already
 * blocked for the signalfd. Now it starts, names the FIFO, moves it aside
 * and loads every other baseline.
 */
static void test_fifo_in_the_store_is_reported_and_the_rest_loads(void **state)
{
	char fifo[256], line[1024];
	bool reported = false;
	struct dirent *de;
	long files = 0;
	FILE *f;
	DIR *d;
	int st;

	NEED_BPF();
	st = sensor_stop(&sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(fifo, sizeof(fifo), "%s/baselines", sensor.state);
	d = opendir(fifo);
	assert_non_null(d);
	while ((de = readdir(d)))
		files += strlen(de->d_name) == 21 && strcmp(de->d_name + 16, ".json") == 0;
	closedir(d);
	assert_true(files > 0);
	snprintf(fifo, sizeof(fifo), "%s/baselines/00000000feedf00d.json", sensor.state);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	assert_int_equal(sensor_restart(&sensor, extra), 0);
	f = fopen(sensor.log, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		reported |= strstr(line, "00000000feedf00d.json") && strstr(line, "not a regular file (a FIFO)") &&
			    strstr(line, "moved aside");
	fclose(f);
	assert_true(reported);
	assert_int_equal(last_loaded(), files);
	assert_int_equal(access(fifo, F_OK), -1);
}

/*
 * Two writers on one state directory each saved their own copy and the last
 * save won, silently. The sensor now holds the directory's lock: a second
 * sensor, and `baseline import`, are refused and told who holds it; readers
 * are not. The lock goes with the process, even one killed with SIGKILL.
 */
static void test_a_second_writer_is_refused_while_the_sensor_runs(void **state)
{
	char err[8192], want[512], bundle[256];
	const char *second[] = { PL_SENSOR_BIN, "run", "--state-dir", sensor.state, "--no-live", "--duration", "5", NULL };
	const char *import[] = { PL_SENSOR_BIN, "baseline", "import", bundle, "--state-dir", sensor.state, NULL };
	const char *list[] = { PL_SENSOR_BIN, "baseline", "list", "--state-dir", sensor.state, NULL };
	const char *export[] = { PL_SENSOR_BIN, "baseline", "export", bundle, "--state-dir", sensor.state, NULL };
	int st;

	NEED_BPF();
	snprintf(want, sizeof(want), "state directory %s is in use by plumbline pid %d; stop it, or use --state-dir",
		 sensor.state, (int)sensor.pid);
	assert_int_equal(run_capture_err(second, err, sizeof(err), 20000, &st), 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !strstr(err, want))
		fail_msg("a second sensor on %s: status %d, stderr:\n%s", sensor.state, st, err);
	assert_null(strstr(err, "attached")); /* refused before attaching anything */

	/* reading needs no lock; writing is refused the same way */
	snprintf(bundle, sizeof(bundle), "%s/all.json", sensor.dir);
	assert_int_equal(run_capture_err(list, err, sizeof(err), 20000, &st), 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(run_capture_err(export, err, sizeof(err), 20000, &st), 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(run_capture_err(import, err, sizeof(err), 20000, &st), 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !strstr(err, want))
		fail_msg("import beside the sensor: status %d, stderr:\n%s", st, err);

	/* killed outright, the sensor leaves no lock behind */
	st = sensor_stop_within(&sensor, SIGKILL, 10000);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(run_capture_err(import, err, sizeof(err), 20000, &st), 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("import after the sensor died: status %d, stderr:\n%s", st, err);
	assert_int_equal(sensor_restart(&sensor, extra), 0);
}

/*
 * A state directory that others can write to used to load with a warning
 * (only for baselines/) or none at all. `run` now refuses to start, with the
 * fix in the message, rather than learn into it or run without baselines
 * while the operator believes it learns.
 */
static void test_run_refuses_a_state_dir_others_can_write(void **state)
{
	char want[512];
	int st;

	NEED_BPF();
	st = sensor_stop(&sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(chmod(sensor.state, 0777), 0);
	assert_int_equal(sensor_restart(&sensor, extra), -ECHILD);
	assert_int_equal(chmod(sensor.state, 0700), 0);
	snprintf(want, sizeof(want),
		 "refusing state directory %s: writable by group or others (mode 0777); fix: chmod 0700 %s",
		 sensor.state, sensor.state);
	assert_true(sensor_log_has(&sensor, want));
	assert_true(sensor_log_has(&sensor, "--no-baselines runs without them"));
	/* fixed, it starts */
	assert_int_equal(sensor_restart(&sensor, extra), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_learns_a_known_cost_then_scores_a_10x_run),
		HARNESS_TEST(test_python_is_keyed_by_script_and_forks_apart),
		HARNESS_TEST(test_corrupt_baseline_file_is_reported_and_moved_aside),
		HARNESS_TEST(test_fifo_in_the_store_is_reported_and_the_rest_loads),
		HARNESS_TEST(test_a_second_writer_is_refused_while_the_sensor_runs),
		HARNESS_TEST(test_run_refuses_a_state_dir_others_can_write),
	};

	return cmocka_run_group_tests_name("bpf_baselines", tests, group_setup, group_teardown);
}
