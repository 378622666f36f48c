// SPDX-License-Identifier: MIT
/*
 * test_baseline.c - learning and scoring one binary-in-context: readiness,
 * the modes, robust scores and noise floors, the poisoning guard (anomalous
 * samples never learned, learning rate-limited), never-seen set members,
 * priors, windows, children, syscall classes, merges that don't depend on
 * order, and a JSON form that round-trips and refuses every inconsistency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baseline.h"

#define NOW0 1700000000000000000ull /* an arbitrary CLOCK_REALTIME instant */
#define SEC 1000000000ull
#define HOUR (3600 * SEC)

#define CPU_MED 100000000ull /* 100 ms: far above the 5 ms noise floor */
#define WALL_MED 400000000ull
#define OFF_MED 300000000ull
#define SYS_MED 5000ull
#define FAIL_MED 3ull

#define BIN_A "build-id:0123456789abcdef"
#define PARENT_A "build-id:fedcba9876543210"
#define KEY_A BIN_A "@" PARENT_A

static const char *const known_paths[] = { "/etc/ld.so.preload", "/usr/lib/locale/C.utf8" };
static const char *const known_sys[] = { "openat", "read", "mmap", "exit_group" };

static struct bl_policy policy(enum bl_mode mode)
{
	struct bl_policy p;

	bl_policy__defaults(&p);
	p.mode = mode;
	/* these tests pin the guard itself: no learning by recurrence, sets
	 * ready at min_samples (the scenario tests use the defaults) */
	p.recur_per_hour = 0;
	p.set_quiet_ns = 0;
	p.set_new_max = 1.0;
	return p;
}

/* A sample like the ones learned; cpu scaled by `cpu_x`. Values vary a
 * little with i so the baseline isn't a single point. */
static struct bl_process_sample sample(unsigned i, uint64_t cpu_x)
{
	uint64_t wobble = 98 + i % 5; /* 98..102 % */

	return (struct bl_process_sample){
		.cpu_ns = CPU_MED * wobble / 100 * cpu_x,
		.wall_ns = WALL_MED * wobble / 100,
		.offcpu_ns = OFF_MED * wobble / 100,
		.syscalls = SYS_MED * wobble / 100,
		.open_fail = FAIL_MED,
		.fail_paths = known_paths,
		.nfail_paths = 2,
		.syscall_names = known_sys,
		.nsyscall_names = 4,
	};
}

static struct baseline *new_baseline(void)
{
	struct baseline *b = baseline__new(BIN_A, PARENT_A, "/usr/bin/a", "/usr/sbin/sshd", NOW0);

	assert_non_null(b);
	return b;
}

/* Learn n samples under p (auto before ready learns everything). */
static void learn_n(struct baseline *b, const struct bl_policy *p, unsigned n, uint64_t now_ns)
{
	for (unsigned i = 0; i < n; i++) {
		struct bl_process_sample s = sample(i, 1);
		struct bl_verdict v;

		assert_int_equal(baseline__observe_process(b, NULL, &s, p, now_ns, &v), 0);
		assert_true(v.learned);
	}
}

static struct baseline *ready_baseline(const struct bl_policy *p)
{
	struct baseline *b = new_baseline();

	learn_n(b, p, p->min_samples, NOW0);
	assert_true(baseline__ready(b, p));
	return b;
}

static void assert_baseline_equal(const struct baseline *a, const struct baseline *b)
{
	assert_string_equal(a->key, b->key);
	assert_string_equal(a->binary_id, b->binary_id);
	assert_string_equal(a->parent_id, b->parent_id);
	assert_string_equal(a->exe, b->exe);
	assert_string_equal(a->parent_exe, b->parent_exe);
	if (a->prior_key || b->prior_key) {
		assert_non_null(a->prior_key);
		assert_non_null(b->prior_key);
		assert_string_equal(a->prior_key, b->prior_key);
	}
	assert_int_equal(a->created_ns, b->created_ns);
	assert_int_equal(a->updated_ns, b->updated_ns);
	assert_int_equal(a->samples, b->samples);
	assert_int_equal(a->windows, b->windows);
	assert_int_equal(a->quarantined, b->quarantined);
	assert_int_equal(a->rate_limited, b->rate_limited);
	assert_true(a->tokens == b->tokens);
	assert_int_equal(a->tokens_ns, b->tokens_ns);
	assert_int_equal(a->oncpu_samples, b->oncpu_samples);
	assert_int_equal(a->oncpu_procs, b->oncpu_procs);
	assert_int_equal(a->oncpu_fn_procs, b->oncpu_fn_procs);
	assert_int_equal(a->oncpu_fn_samples, b->oncpu_fn_samples);
	for (int i = 0; i < PL_DIST_MAX; i++)
		if (!sketch__equal(&a->dist[i], &b->dist[i]))
			fail_msg("distribution %s differs", bl_dist__name(i));
	for (int i = 0; i < BL_SET_MAX; i++)
		if (!strset__equal(&a->set[i], &b->set[i]))
			fail_msg("set %s differs", bl_set__name(i));
}

/* ---- readiness and modes ---- */

static void test_baseline_ready_exactly_at_min_samples_and_learns_everything_before(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();

	(void)state;
	p.min_samples = 7;
	for (unsigned i = 0; i < 7; i++) {
		/* even a wild sample is learned before ready: there is nothing to judge it by */
		struct bl_process_sample s = sample(i, i == 3 ? 50 : 1);
		struct bl_verdict v;

		assert_false(baseline__ready(b, &p));
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i, &v), 0);
		assert_true(v.learned);
		assert_false(v.ready);
		assert_false(v.anomalous);
		assert_int_equal(v.max_dist, -1);
		assert_int_equal(b->samples, i + 1);
	}
	assert_true(baseline__ready(b, &p));
	assert_int_equal(b->dist[PL_LIFE_CPU].count, 7);
	assert_int_equal(b->quarantined, 0);
	assert_int_equal(b->updated_ns, NOW0 + 6);
	baseline__free(b);
}

static void test_baseline_learn_mode_never_scores(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = ready_baseline(&p);
	struct bl_process_sample s = sample(0, 10);
	struct bl_verdict v;

	(void)state;
	p.mode = BL_MODE_LEARN;
	for (int i = 0; i < 100; i++) {
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
		assert_false(v.ready);
		assert_false(v.anomalous);
		assert_false(v.f[PL_LIFE_CPU].valid);
		assert_true(v.learned);
	}
	/* learn mode isn't rate-limited either */
	assert_int_equal(b->samples, p.min_samples + 100);
	assert_int_equal(b->quarantined, 0);
	assert_int_equal(b->rate_limited, 0);
	baseline__free(b);
}

static void test_baseline_detect_mode_scores_once_ready_and_never_learns(void **state)
{
	struct bl_policy p = policy(BL_MODE_DETECT);
	struct baseline *b = new_baseline();
	struct bl_process_sample s = sample(0, 1), wild = sample(0, 10);
	struct bl_verdict v;

	(void)state;
	/* not ready: neither scored nor learned */
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0, &v), 0);
	assert_false(v.ready);
	assert_false(v.learned);
	assert_int_equal(b->samples, 0);
	assert_int_equal(b->dist[PL_LIFE_CPU].count, 0);
	assert_int_equal(b->set[BL_SET_SYSCALLS].n, 0);
	baseline__free(b);

	p.mode = BL_MODE_AUTO;
	b = ready_baseline(&p);
	p.mode = BL_MODE_DETECT;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
	assert_true(v.ready);
	assert_false(v.anomalous);
	assert_false(v.learned);
	assert_int_equal(baseline__observe_process(b, NULL, &wild, &p, NOW0 + SEC, &v), 0);
	assert_true(v.ready);
	assert_true(v.anomalous);
	assert_int_equal(v.max_dist, PL_LIFE_CPU);
	assert_false(v.learned);
	assert_int_equal(b->samples, p.min_samples);
	assert_int_equal(b->dist[PL_LIFE_CPU].count, p.min_samples);
	assert_int_equal(b->updated_ns, NOW0);
	baseline__free(b);
}

/* ---- scores ---- */

static void test_baseline_sample_at_median_scores_low_and_is_learned(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = ready_baseline(&p);
	struct bl_process_sample s = sample(2, 1); /* wobble 100 %: the medians */
	struct bl_verdict v;

	(void)state;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
	assert_true(v.ready);
	assert_false(v.from_prior);
	assert_int_equal(v.samples, p.min_samples);
	for (int d = PL_LIFE_CPU; d <= PL_LIFE_OPEN_FAIL; d++) {
		assert_true(v.f[d].valid);
		assert_true(fabs(v.f[d].score) < 1.0);
	}
	for (int d = PL_WIN_CPU; d < PL_DIST_MAX; d++)
		assert_false(v.f[d].valid);
	assert_true(fabs(v.f[PL_LIFE_CPU].p50 - (double)CPU_MED) <= CPU_MED * SKETCH_ALPHA);
	assert_true(fabs(v.f[PL_LIFE_CPU].ratio_p50 - 1.0) < 0.02);
	assert_int_equal(v.new_members[BL_SET_FAIL_PATHS], 0);
	assert_int_equal(v.new_members[BL_SET_SYSCALLS], 0);
	assert_false(v.anomalous);
	assert_true(v.learned);
	assert_int_equal(b->samples, p.min_samples + 1);
	assert_int_equal(b->quarantined, 0);
	baseline__free(b);
}

static void test_baseline_ten_times_cpu_is_anomalous_and_quarantined(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = ready_baseline(&p);
	struct bl_process_sample s = sample(2, 10);
	struct bl_verdict v;

	(void)state;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
	assert_true(v.ready);
	assert_true(v.f[PL_LIFE_CPU].valid);
	assert_true(v.f[PL_LIFE_CPU].value == (double)(10 * CPU_MED));
	assert_true(v.f[PL_LIFE_CPU].score >= p.alert_score);
	assert_true(fabs(v.f[PL_LIFE_CPU].ratio_p50 - 10.0) <= 10.0 * 0.02);
	assert_true(v.f[PL_LIFE_CPU].ratio_p99 > 9.0);
	assert_int_equal(v.max_dist, PL_LIFE_CPU);
	assert_true(v.max_score == v.f[PL_LIFE_CPU].score);
	/* the other features were at their medians */
	assert_true(fabs(v.f[PL_LIFE_WALL].score) < 1.0);
	assert_true(v.anomalous);
	assert_false(v.learned);
	assert_int_equal(b->quarantined, 1);
	assert_int_equal(b->samples, p.min_samples);
	assert_int_equal(b->dist[PL_LIFE_CPU].max, CPU_MED * 102 / 100);
	baseline__free(b);
}

static void test_baseline_deviation_below_noise_floor_scores_zero(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();
	const uint64_t cpu = 1000000; /* 1 ms, every time: MAD 0 */
	const uint64_t floor_cpu = (uint64_t)bl_dist__noise_floor(PL_LIFE_CPU);
	const uint64_t floor_sys = (uint64_t)bl_dist__noise_floor(PL_LIFE_SYSCALLS);
	struct bl_process_sample s = { .cpu_ns = cpu, .wall_ns = WALL_MED, .offcpu_ns = OFF_MED, .syscalls = 10 };
	struct bl_verdict v;

	(void)state;
	assert_int_equal(floor_cpu, 5000000);
	assert_int_equal(floor_sys, 100);
	for (unsigned i = 0; i < p.min_samples; i++)
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0, &v), 0);

	/* 5.9x the CPU, 10.9x the syscalls, yet each under its floor */
	s.cpu_ns = cpu + floor_cpu - 100000;
	s.syscalls = 10 + floor_sys - 1;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0, &v), 0);
	assert_true(v.f[PL_LIFE_CPU].valid);
	assert_true(v.f[PL_LIFE_CPU].score == 0.0);
	assert_true(v.f[PL_LIFE_SYSCALLS].score == 0.0);
	assert_true(v.max_score == 0.0);
	assert_false(v.anomalous);

	/* five floors past p99 + floor, the same baseline scores them as far off */
	s.cpu_ns = cpu + 6 * floor_cpu;
	s.syscalls = 10 + 6 * floor_sys;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0, &v), 0);
	assert_true(v.f[PL_LIFE_CPU].score >= p.alert_score);
	assert_true(v.f[PL_LIFE_SYSCALLS].score >= p.alert_score);
	assert_true(v.anomalous);
	assert_false(v.learned);
	baseline__free(b);
}

/* ---- the poisoning guard ---- */

static void test_baseline_repeated_anomaly_is_never_learned(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = ready_baseline(&p);
	struct bl_process_sample s = sample(2, 10);
	double p50 = sketch__quantile(&b->dist[PL_LIFE_CPU], 0.5);
	struct bl_verdict v;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + (uint64_t)i * HOUR, &v), 0);
		assert_true(v.anomalous);
		assert_false(v.learned);
	}
	assert_int_equal(b->samples, p.min_samples);
	assert_int_equal(b->dist[PL_LIFE_CPU].count, p.min_samples);
	assert_true(sketch__quantile(&b->dist[PL_LIFE_CPU], 0.5) == p50);
	assert_int_equal(b->quarantined, 1000);
	assert_int_equal(b->rate_limited, 0);
	baseline__free(b);
}

static void test_baseline_learning_is_rate_limited_and_refills_with_time(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b;
	struct bl_verdict v;
	unsigned learned = 0;
	const uint64_t t = NOW0 + 10 * SEC;

	(void)state;
	p.learn_per_hour = 5;
	b = ready_baseline(&p);
	for (unsigned i = 0; i < 100; i++) {
		struct bl_process_sample s = sample(i, 1);

		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, t, &v), 0);
		assert_false(v.anomalous);
		learned += v.learned;
	}
	assert_int_equal(learned, 5);
	assert_int_equal(b->rate_limited, 95);
	assert_int_equal(b->samples, p.min_samples + 5);
	assert_int_equal(b->quarantined, 0);

	/* an hour later: 5 more, and no more than 5 (the bucket is capped) */
	learned = 0;
	for (unsigned i = 0; i < 100; i++) {
		struct bl_process_sample s = sample(i, 1);

		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, t + HOUR, &v), 0);
		learned += v.learned;
	}
	assert_int_equal(learned, 5);
	assert_int_equal(b->rate_limited, 190);

	/* half an hour later: 2.5 tokens, so 2 */
	learned = 0;
	for (unsigned i = 0; i < 10; i++) {
		struct bl_process_sample s = sample(i, 1);

		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, t + HOUR + HOUR / 2, &v), 0);
		learned += v.learned;
	}
	assert_int_equal(learned, 2);
	assert_int_equal(b->samples, p.min_samples + 12);
	baseline__free(b);
}

/* ---- set members ---- */

static void test_baseline_never_seen_members_are_anomalous_once_ready(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = ready_baseline(&p);
	const char *const paths[] = { "/etc/ld.so.preload", "/root/.ssh/id_rsa", "/usr/lib/locale/C.utf8" };
	const char *const sys[] = { "openat", "ptrace", "read", "process_vm_writev" };
	struct bl_process_sample s = sample(2, 1);
	struct bl_verdict v;

	(void)state;
	s.fail_paths = paths;
	s.nfail_paths = 3;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
	assert_true(v.anomalous);
	assert_true(v.max_score < p.alert_score); /* the members alone made it anomalous */
	assert_int_equal(v.new_members[BL_SET_FAIL_PATHS], 1);
	assert_ptr_equal(v.new_list[BL_SET_FAIL_PATHS][0], paths[1]);
	assert_int_equal(v.new_members[BL_SET_SYSCALLS], 0);
	assert_int_equal(v.new_members[BL_SET_CHILDREN], 0);
	assert_false(v.learned);
	assert_false(strset__contains(&b->set[BL_SET_FAIL_PATHS], "/root/.ssh/id_rsa"));
	assert_int_equal(b->quarantined, 1);

	s = sample(2, 1);
	s.syscall_names = sys;
	s.nsyscall_names = 4;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
	assert_true(v.anomalous);
	assert_int_equal(v.new_members[BL_SET_FAIL_PATHS], 0);
	assert_int_equal(v.new_members[BL_SET_SYSCALLS], 2);
	assert_ptr_equal(v.new_list[BL_SET_SYSCALLS][0], sys[1]);
	assert_ptr_equal(v.new_list[BL_SET_SYSCALLS][1], sys[3]);
	assert_false(v.learned);
	assert_false(strset__contains(&b->set[BL_SET_SYSCALLS], "ptrace"));
	assert_int_equal(b->samples, p.min_samples);
	assert_int_equal(b->quarantined, 2);
	baseline__free(b);
}

static void test_baseline_new_members_are_learned_before_ready(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();
	const char *const paths[] = { "/root/.ssh/id_rsa" };
	const char *const sys[] = { "ptrace" };
	struct bl_process_sample s = sample(0, 1);
	struct bl_verdict v;

	(void)state;
	learn_n(b, &p, 3, NOW0);
	s.fail_paths = paths;
	s.nfail_paths = 1;
	s.syscall_names = sys;
	s.nsyscall_names = 1;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + SEC, &v), 0);
	assert_false(v.ready);
	assert_false(v.anomalous);
	assert_int_equal(v.new_members[BL_SET_FAIL_PATHS], 0);
	assert_true(v.learned);
	assert_true(strset__contains(&b->set[BL_SET_FAIL_PATHS], "/root/.ssh/id_rsa"));
	assert_true(strset__contains(&b->set[BL_SET_SYSCALLS], "ptrace"));
	assert_int_equal(b->set[BL_SET_FAIL_PATHS].n, 3);
	assert_int_equal(b->set[BL_SET_SYSCALLS].n, 5);
	baseline__free(b);
}

/* ---- prior ---- */

static void test_baseline_not_ready_is_scored_against_ready_prior(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *prior = new_baseline(), *b;
	struct bl_process_sample s = sample(2, 10);
	struct bl_verdict v;

	(void)state;
	learn_n(prior, &p, 33, NOW0);
	b = baseline__new("build-id:1111", PARENT_A, "/usr/bin/a", "/usr/sbin/sshd", NOW0);
	assert_non_null(b);
	assert_int_equal(baseline__observe_process(b, prior, &s, &p, NOW0 + SEC, &v), 0);
	assert_true(v.ready);
	assert_true(v.from_prior);
	assert_int_equal(v.samples, 33);
	assert_true(v.f[PL_LIFE_CPU].score >= p.alert_score);
	assert_true(v.anomalous);
	/* b itself isn't ready, so it still learns */
	assert_true(v.learned);
	assert_int_equal(b->samples, 1);
	assert_int_equal(prior->samples, 33);

	/* a prior that isn't ready isn't used */
	baseline__free(prior);
	prior = new_baseline();
	learn_n(prior, &p, p.min_samples - 1, NOW0);
	assert_int_equal(baseline__observe_process(b, prior, &s, &p, NOW0 + SEC, &v), 0);
	assert_false(v.ready);
	assert_false(v.from_prior);
	assert_int_equal(v.samples, 0);
	baseline__free(prior);
	baseline__free(b);
}

/* ---- windows ---- */

static void test_baseline_window_normalized_per_second_and_ready_at_min_windows(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();
	struct bl_window_sample w = {
		.duration_ns = SEC / 2,
		.cpu_ns = 50000000,
		.syscalls = 500,
		.open_fail = 2,
		.sc_class = { [BL_SC_FILE] = 300, [BL_SC_MEM] = 150, [BL_SC_TIME] = 50 },
	};
	struct bl_verdict v;

	(void)state;
	p.min_windows = 10;
	for (unsigned i = 0; i < 10; i++) {
		assert_false(baseline__windows_ready(b, &p));
		assert_int_equal(baseline__observe_window(b, NULL, &w, &p, NOW0 + i * SEC, &v), 0);
		assert_false(v.ready);
		assert_true(v.learned);
	}
	assert_true(baseline__windows_ready(b, &p));
	assert_int_equal(b->windows, 10);
	assert_int_equal(b->samples, 0);
	assert_false(baseline__ready(b, &p));
	assert_int_equal(b->dist[PL_WIN_SYSCALLS].min, 1000);
	assert_int_equal(b->dist[PL_WIN_SYSCALLS].max, 1000);
	assert_int_equal(b->dist[PL_WIN_CPU].min, 100000000);
	assert_int_equal(b->dist[PL_WIN_OPEN_FAIL].min, 4);
	assert_int_equal(b->dist[PL_WIN_SC_FILE].min, 600);
	assert_int_equal(b->dist[PL_WIN_SC_MEM].min, 300);
	assert_int_equal(b->dist[PL_WIN_SC_TIME].min, 100);
	assert_int_equal(b->dist[PL_WIN_SC_NET].max, 0);
	assert_int_equal(b->dist[PL_LIFE_CPU].count, 0);

	/* 1000 syscalls over 1 s is the same rate: scored, unremarkable */
	w.duration_ns = SEC;
	w.syscalls = 1000;
	w.cpu_ns = 100000000;
	w.open_fail = 4;
	w.sc_class[BL_SC_FILE] = 600;
	w.sc_class[BL_SC_MEM] = 300;
	w.sc_class[BL_SC_TIME] = 100;
	assert_int_equal(baseline__observe_window(b, NULL, &w, &p, NOW0 + 20 * SEC, &v), 0);
	assert_true(v.ready);
	assert_int_equal(v.samples, 10);
	assert_true(v.f[PL_WIN_SYSCALLS].valid);
	assert_true(v.f[PL_WIN_SYSCALLS].value == 1000.0);
	assert_true(v.f[PL_WIN_SYSCALLS].score == 0.0);
	assert_false(v.f[PL_LIFE_CPU].valid);
	assert_false(v.anomalous);
	assert_true(v.learned);
	assert_int_equal(b->windows, 11);

	/* 20x the file syscalls is not */
	w.sc_class[BL_SC_FILE] = 12000;
	assert_int_equal(baseline__observe_window(b, NULL, &w, &p, NOW0 + 21 * SEC, &v), 0);
	assert_true(v.anomalous);
	assert_int_equal(v.max_dist, PL_WIN_SC_FILE);
	assert_false(v.learned);
	assert_int_equal(b->windows, 11);
	assert_int_equal(b->quarantined, 1);
	baseline__free(b);
}

/* ---- children ---- */

static void test_baseline_observe_child_flags_only_new_children_once_ready(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();

	(void)state;
	p.min_samples = 3;
	assert_int_equal(baseline__observe_child(b, "/usr/bin/ls", NULL, &p, NOW0), 0);
	assert_true(strset__contains(&b->set[BL_SET_CHILDREN], "/usr/bin/ls"));
	learn_n(b, &p, 3, NOW0);
	assert_true(baseline__ready(b, &p));

	assert_int_equal(baseline__observe_child(b, "/usr/bin/nc", NULL, &p, NOW0 + SEC), 1);
	assert_false(strset__contains(&b->set[BL_SET_CHILDREN], "/usr/bin/nc"));
	/* and again: still never learned */
	assert_int_equal(baseline__observe_child(b, "/usr/bin/nc", NULL, &p, NOW0 + SEC), 1);
	assert_int_equal(b->set[BL_SET_CHILDREN].n, 1);

	assert_int_equal(baseline__observe_child(b, "/usr/bin/ls", NULL, &p, NOW0 + SEC), 0);
	assert_int_equal(b->set[BL_SET_CHILDREN].m[0].count, 2);

	/* detect mode reports without learning; learn mode learns without reporting */
	p.mode = BL_MODE_DETECT;
	assert_int_equal(baseline__observe_child(b, "/usr/bin/curl", NULL, &p, NOW0 + SEC), 1);
	assert_int_equal(baseline__observe_child(b, "/usr/bin/ls", NULL, &p, NOW0 + SEC), 0);
	assert_int_equal(b->set[BL_SET_CHILDREN].m[0].count, 2);
	p.mode = BL_MODE_LEARN;
	assert_int_equal(baseline__observe_child(b, "/usr/bin/curl", NULL, &p, NOW0 + SEC), 0);
	assert_true(strset__contains(&b->set[BL_SET_CHILDREN], "/usr/bin/curl"));
	baseline__free(b);
}

/* ---- objects mapped ---- */

static void test_baseline_objects_learned_then_new_ones_flagged_not_learned(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline(), *back = NULL;
	struct json_object *o, *sets;
	bool ready, known;
	char err[160];

	(void)state;
	p.min_samples = 3;
	/* before the set is ready: everything is learned, even when a rule fired */
	assert_int_equal(baseline__learn_object(b, "/usr/lib/libc.so.6", &p, NOW0, false), 0);
	assert_int_equal(baseline__learn_object(b, "/usr/lib/security/pam_unix.so", &p, NOW0, false), 0);
	baseline__object_state(b, "/usr/lib/libc.so.6", &p, NOW0, &ready, &known);
	assert_false(ready); /* no process samples yet */
	assert_true(known);
	learn_n(b, &p, 3, NOW0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(baseline__learn_object(b, "/usr/lib/libc.so.6", &p, NOW0, false), 0);
		assert_int_equal(baseline__learn_object(b, "/usr/lib/security/pam_unix.so", &p, NOW0, false), 0);
	}
	baseline__object_state(b, "/tmp/x/libhook.so", &p, NOW0 + SEC, &ready, &known);
	assert_true(ready);
	assert_false(known);
	/* a new object once ready is never learned in auto mode */
	assert_int_equal(baseline__learn_object(b, "/tmp/x/libhook.so", &p, NOW0 + SEC, false), 0);
	assert_false(strset__contains(&b->set[BL_SET_OBJECTS], "/tmp/x/libhook.so"));
	/* a known one counts one more image */
	assert_int_equal(baseline__learn_object(b, "/usr/lib/libc.so.6", &p, NOW0 + SEC, true), 0);
	assert_int_equal(b->set[BL_SET_OBJECTS].m[0].count, 5);
	/* learn mode learns it; detect mode never learns */
	p.mode = BL_MODE_DETECT;
	assert_int_equal(baseline__learn_object(b, "/usr/lib/libnew.so", &p, NOW0 + SEC, false), 0);
	assert_false(strset__contains(&b->set[BL_SET_OBJECTS], "/usr/lib/libnew.so"));
	p.mode = BL_MODE_LEARN;
	assert_int_equal(baseline__learn_object(b, "/usr/lib/libnew.so", &p, NOW0 + SEC, false), 0);
	assert_true(strset__contains(&b->set[BL_SET_OBJECTS], "/usr/lib/libnew.so"));

	/* the set round-trips, and a file written before it loads with it empty */
	o = baseline__to_json(b);
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back->set[BL_SET_OBJECTS].n, 3);
	baseline__free(back);
	assert_true(json_object_object_get_ex(o, "sets", &sets));
	json_object_object_del(sets, "objects");
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back->set[BL_SET_OBJECTS].n, 0);
	json_object_put(o);
	baseline__free(back);
	baseline__free(b);
}

static void test_baseline_objects_alerted_new_member_not_learned_before_ready(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();

	(void)state;
	/* a rule at Warning fired on it: not learned, ready or not */
	assert_int_equal(baseline__learn_object(b, "/tmp/x/libhook.so", &p, NOW0, true), 0);
	assert_false(strset__contains(&b->set[BL_SET_OBJECTS], "/tmp/x/libhook.so"));
	baseline__free(b);
}
/* A child by path and content: another binary at a learned path is new; a
 * bare path (a set from before identities) stands for any content there. */
static void test_baseline_observe_child_by_identity(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();
	char m[64];

	(void)state;
	p.min_samples = 3;
	assert_int_equal(baseline__child_member("/opt/tc/as", "sha256:aa", m, sizeof(m)), 0);
	assert_string_equal(m, "/opt/tc/as\tsha256:aa");
	assert_int_equal(baseline__child_member("/opt/tc/as", NULL, m, sizeof(m)), 0);
	assert_string_equal(m, "/opt/tc/as");
	assert_int_equal(baseline__child_member("/opt/tc/as", "sha256:aa", m, 8), -ENAMETOOLONG);

	assert_int_equal(baseline__observe_child(b, "/opt/tc/as", "sha256:aa", &p, NOW0), 0);
	assert_int_equal(baseline__observe_child(b, "/usr/bin/ld", NULL, &p, NOW0), 0); /* legacy, bare */
	assert_true(strset__contains(&b->set[BL_SET_CHILDREN], "/opt/tc/as\tsha256:aa"));
	assert_false(strset__contains(&b->set[BL_SET_CHILDREN], "/opt/tc/as"));
	assert_true(strset__has_prefix(&b->set[BL_SET_CHILDREN], "/opt/tc/as\t"));
	assert_false(strset__has_prefix(&b->set[BL_SET_CHILDREN], "/opt/tc/ar\t"));
	learn_n(b, &p, 3, NOW0);
	assert_true(baseline__ready(b, &p));

	assert_int_equal(baseline__observe_child(b, "/opt/tc/as", "sha256:aa", &p, NOW0 + SEC), 0);
	assert_int_equal(baseline__observe_child(b, "/opt/tc/as", "sha256:bb", &p, NOW0 + SEC), 1); /* the fake */
	assert_int_equal(baseline__observe_child(b, "/opt/tc/as", NULL, &p, NOW0 + SEC), 1); /* by path: not learned bare */
	/* a bare (legacy) member is any content at that path, and learns the identity beside it */
	assert_int_equal(baseline__observe_child(b, "/usr/bin/ld", "sha256:cc", &p, NOW0 + SEC), 0);
	assert_true(strset__contains(&b->set[BL_SET_CHILDREN], "/usr/bin/ld\tsha256:cc"));
	assert_int_equal(b->set[BL_SET_CHILDREN].n, 3);
	baseline__free(b);
}

/* ---- syscall classes ---- */

static void test_syscall_class_by_name(void **state)
{
	static const struct {
		const char *name;
		enum bl_sc_class cls;
	} cases[] = {
		{ "openat", BL_SC_FILE },      { "read", BL_SC_FILE },       { "newfstatat", BL_SC_FILE },
		{ "getdents64", BL_SC_FILE },  { "ioctl", BL_SC_FILE },      { "sendfile", BL_SC_FILE },
		{ "connect", BL_SC_NET },      { "socket", BL_SC_NET },      { "sendmsg", BL_SC_NET },
		{ "recvfrom", BL_SC_NET },     { "clone3", BL_SC_PROC },     { "execve", BL_SC_PROC },
		{ "getppid", BL_SC_PROC },     { "getpid", BL_SC_PROC },     { "setuid", BL_SC_PROC },
		{ "rt_sigaction", BL_SC_PROC },{ "prlimit64", BL_SC_PROC },  { "mmap", BL_SC_MEM },
		{ "mprotect", BL_SC_MEM },     { "brk", BL_SC_MEM },         { "futex", BL_SC_IPC },
		{ "epoll_wait", BL_SC_IPC },   { "io_uring_enter", BL_SC_IPC }, { "clock_nanosleep", BL_SC_TIME },
		{ "nanosleep", BL_SC_TIME },   { "timerfd_settime", BL_SC_TIME }, { "frobnicate", BL_SC_OTHER },
		{ "", BL_SC_OTHER },           { "getrandom", BL_SC_OTHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (syscall_class(cases[i].name) != cases[i].cls)
			fail_msg("syscall_class(\"%s\") = %d, expected %d", cases[i].name, syscall_class(cases[i].name),
				 cases[i].cls);
}

/* ---- merge ---- */

static const char *const variant_paths[3][2] = {
	{ "/a", "/b" },
	{ "/b", "/c" },
	{ "/c", "/d" },
};

/* One of three different histories of the same key. */
static struct baseline *variant(int which)
{
	struct bl_policy p = policy(BL_MODE_LEARN);
	struct baseline *b = baseline__new(BIN_A, PARENT_A, "/usr/bin/a", "/usr/sbin/sshd", NOW0 + (uint64_t)which * 7);
	const char *const sys[] = { which == 1 ? "accept4" : "bind", "openat" };
	const char *const objs[] = { "/usr/lib/libc.so.6", which == 2 ? "/usr/lib/liblzma.so.5" : "/usr/bin/a" };
	const uint64_t obj_counts[] = { 3, 1 + (uint64_t)which };

	assert_non_null(b);
	for (unsigned i = 0; i < 30u + 11u * (unsigned)which; i++) {
		struct bl_process_sample s = sample(i, 1 + (uint64_t)which * 3);
		struct bl_window_sample w = { .duration_ns = SEC, .cpu_ns = 1000000ull * (i + 1) * (unsigned)(which + 1),
					      .syscalls = 17u * i, .sc_class = { [BL_SC_NET] = i } };
		struct bl_verdict v;

		s.fail_paths = variant_paths[which];
		s.nsyscall_names = 2;
		s.syscall_names = sys;
		s.open_fail = i % 4;
		s.oncpu_objects = objs;
		s.oncpu_counts = obj_counts;
		s.noncpu = i % 3 ? 2 : 0;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + 100 * (uint64_t)which + i, &v), 0);
		assert_int_equal(baseline__observe_window(b, NULL, &w, &p, NOW0 + 100 * (uint64_t)which + i, &v), 0);
	}
	assert_int_equal(baseline__observe_child(b, which == 2 ? "/bin/sh" : "/bin/ls", NULL, &p, NOW0 + (uint64_t)which), 0);
	b->quarantined = 3u * (unsigned)which + 1;
	b->rate_limited = 5u * (unsigned)which;
	if (which == 1)
		b->prior_key = strdup("build-id:old@" PARENT_A);
	return b;
}

static struct baseline *merged(const int *order, int n, bool right_first)
{
	struct baseline *acc;

	if (right_first && n == 3) {
		/* a + (b + c) */
		struct baseline *bc = variant(order[1]);
		struct baseline *c = variant(order[2]);

		assert_int_equal(baseline__merge(bc, c), 0);
		baseline__free(c);
		acc = variant(order[0]);
		assert_int_equal(baseline__merge(acc, bc), 0);
		baseline__free(bc);
		return acc;
	}
	acc = variant(order[0]);
	for (int i = 1; i < n; i++) {
		struct baseline *x = variant(order[i]);

		assert_int_equal(baseline__merge(acc, x), 0);
		baseline__free(x);
	}
	return acc;
}

static void test_baseline_merge_adds_counts_and_is_associative_and_commutative(void **state)
{
	static const int orders[][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 0, 2, 1 } };
	struct baseline *ref = merged(orders[0], 3, false);
	struct baseline *v0 = variant(0), *v1 = variant(1), *v2 = variant(2);

	(void)state;
	assert_int_equal(ref->samples, v0->samples + v1->samples + v2->samples);
	assert_int_equal(ref->windows, v0->windows + v1->windows + v2->windows);
	assert_int_equal(ref->quarantined, 1 + 4 + 7);
	assert_int_equal(ref->rate_limited, 0 + 5 + 10);
	assert_int_equal(ref->oncpu_procs, v0->oncpu_procs + v1->oncpu_procs + v2->oncpu_procs);
	assert_int_equal(ref->oncpu_samples, v0->oncpu_samples + v1->oncpu_samples + v2->oncpu_samples);
	{
		/* a share is of the merged draws: libc's 3 of every 4 to 6 samples, the shares summing to 1 */
		struct bl_policy p = policy(BL_MODE_LEARN);
		double libc = baseline__oncpu_share(ref, &p, "/usr/lib/libc.so.6");
		double sum = libc + baseline__oncpu_share(ref, &p, "/usr/bin/a") +
			     baseline__oncpu_share(ref, &p, "/usr/lib/liblzma.so.5");
		uint64_t procs[3] = { v0->oncpu_procs, v1->oncpu_procs, v2->oncpu_procs };

		assert_true(v0->oncpu_samples > 0 && v2->oncpu_samples > 0);
		assert_true(fabs(libc - 3.0 * (double)(procs[0] + procs[1] + procs[2]) /
						 (double)(4 * procs[0] + 5 * procs[1] + 6 * procs[2])) < 1e-12);
		assert_true(fabs(sum - 1) < 1e-12);
	}
	assert_int_equal(ref->dist[PL_LIFE_CPU].count, ref->samples);
	assert_int_equal(ref->dist[PL_WIN_CPU].count, ref->windows);
	assert_int_equal(ref->created_ns, NOW0);
	assert_int_equal(ref->updated_ns, v2->updated_ns);
	assert_int_equal(ref->set[BL_SET_FAIL_PATHS].n, 4);
	assert_true(strset__contains(&ref->set[BL_SET_SYSCALLS], "accept4"));
	assert_true(strset__contains(&ref->set[BL_SET_CHILDREN], "/bin/sh"));
	assert_non_null(ref->prior_key);
	assert_string_equal(ref->prior_key, "build-id:old@" PARENT_A);
	assert_true(ref->dirty);

	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		for (int rf = 0; rf < 2; rf++) {
			struct baseline *m = merged(orders[i], 3, rf);

			assert_baseline_equal(ref, m);
			baseline__free(m);
		}
	}
	baseline__free(v0);
	baseline__free(v1);
	baseline__free(v2);
	baseline__free(ref);
}

static void test_baseline_merge_refuses_another_key(void **state)
{
	struct baseline *a = variant(0);
	struct baseline *other = baseline__new("build-id:99", PARENT_A, "/usr/bin/a", "/usr/sbin/sshd", NOW0);
	struct baseline *same_bin = baseline__new(BIN_A, "build-id:99", "/usr/bin/a", "/usr/sbin/sshd", NOW0);
	uint64_t samples = a->samples;

	(void)state;
	assert_non_null(other);
	assert_non_null(same_bin);
	other->samples = 5;
	assert_int_equal(baseline__merge(a, other), -EINVAL);
	assert_int_equal(baseline__merge(a, same_bin), -EINVAL);
	assert_int_equal(a->samples, samples);
	baseline__free(a);
	baseline__free(other);
	baseline__free(same_bin);
}

/* ---- JSON ---- */

static struct baseline *rich_baseline(void)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = variant(1);
	const char *const sys[] = { "accept4", "openat" };
	struct bl_process_sample s = sample(0, 10);
	struct bl_verdict v;

	free(b->exe);
	b->exe = strdup("/opt/we\"ird/\xc3\xa9t\xc3\xa9 bin\\x");
	assert_non_null(b->exe);
	/* quarantine one, rate-limit some, leave a fractional token */
	p.learn_per_hour = 2;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + HOUR, &v), 0);
	assert_false(v.learned);
	assert_int_equal(b->quarantined, 5);
	for (unsigned i = 0; i < 4; i++) {
		s = sample(i, 4); /* variant 1's own kind of sample */
		s.fail_paths = variant_paths[1];
		s.syscall_names = sys;
		s.nsyscall_names = 2;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + HOUR + i * 1000 * SEC, &v), 0);
	}
	assert_int_equal(b->rate_limited, 5 + 1);
	assert_true(b->tokens > 0 && b->tokens < 1);
	return b;
}

static struct json_object *reparse(struct json_object *o)
{
	struct json_object *r = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	assert_non_null(r);
	return r;
}

static void test_baseline_json_round_trips(void **state)
{
	struct baseline *b = rich_baseline(), *back = NULL;
	struct json_object *o = baseline__to_json(b), *p;
	char err[256] = "";

	(void)state;
	assert_non_null(o);
	p = reparse(o);
	assert_int_equal(baseline__from_json(p, &back, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_non_null(back);
	assert_baseline_equal(b, back);
	assert_false(back->dirty);
	json_object_put(o);
	json_object_put(p);
	baseline__free(back);

	/* no prior key: null, and back as NULL */
	free(b->prior_key);
	b->prior_key = NULL;
	o = baseline__to_json(b);
	p = reparse(o);
	assert_int_equal(baseline__from_json(p, &back, err, sizeof(err)), 0);
	assert_null(back->prior_key);
	assert_baseline_equal(b, back);
	json_object_put(o);
	json_object_put(p);
	baseline__free(back);
	baseline__free(b);
}

/* CLOCK_REALTIME steps back (NTP, a restored VM): a baseline learned then
 * must still be one the loader accepts, or the store throws it away. */
static void test_baseline_learned_while_clock_behind_creation_still_loads(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline(), *back = NULL;
	struct bl_process_sample s = sample(0, 1);
	struct json_object *o;
	struct bl_verdict v;
	char err[256] = "";

	(void)state;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 - 60 * SEC, &v), 0);
	assert_true(v.learned);
	o = baseline__to_json(b);
	assert_non_null(o);
	if (baseline__from_json(o, &back, err, sizeof(err)) != 0)
		fail_msg("a baseline learned with the clock 60 s behind its creation is rejected: %s", err);
	json_object_put(o);
	baseline__free(back);
	baseline__free(b);
}

enum mutation {
	MUT_VERSION,
	MUT_KEY,
	MUT_AT_IN_BINARY_ID,
	MUT_MISSING_DIST,
	MUT_EXTRA_DIST,
	MUT_RENAMED_DIST,
	MUT_MISSING_SET,
	MUT_CREATED_AFTER_UPDATED,
	MUT_SAMPLES,
	MUT_WINDOWS,
	MUT_LABEL_NOT_STRING,
	MUT_LABEL_TOO_LONG,
	MUT_NOT_OBJECT,
	MUT_NEGATIVE,
	MUT_MAX,
};

static const struct {
	enum mutation m;
	const char *err; /* a part of the message */
} rejections[] = {
	{ MUT_VERSION, "format version 2" },
	{ MUT_KEY, "\"key\" is not binary_id@parent_id" },
	{ MUT_AT_IN_BINARY_ID, "'@'" },
	{ MUT_MISSING_DIST, "exactly 15 distributions" },
	{ MUT_EXTRA_DIST, "exactly 15 distributions" },
	{ MUT_RENAMED_DIST, "distribution \"win_sc_other_per_s\" is missing" },
	{ MUT_MISSING_SET, "set \"children\" is missing" },
	{ MUT_CREATED_AFTER_UPDATED, "created_ns is after updated_ns" },
	{ MUT_SAMPLES, "sample counts disagree" },
	{ MUT_WINDOWS, "sample counts disagree" },
	{ MUT_LABEL_NOT_STRING, "\"exe\" is not a string" },
	{ MUT_LABEL_TOO_LONG, "\"parent_exe\" is longer than 4096" },
	{ MUT_NOT_OBJECT, "not a JSON object" },
	{ MUT_NEGATIVE, "\"quarantined\" is negative" },
};

static struct json_object *long_string(size_t n)
{
	char *s = malloc(n + 1);
	struct json_object *j;

	assert_non_null(s);
	memset(s, 'x', n);
	s[n] = '\0';
	j = json_object_new_string(s);
	free(s);
	return j;
}

static struct json_object *mutated(const struct baseline *b, enum mutation m)
{
	struct json_object *o = baseline__to_json(b), *d, *s, *x;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "dists", &d));
	assert_true(json_object_object_get_ex(o, "sets", &s));
	switch (m) {
	case MUT_VERSION:
		json_object_object_add(o, "version", json_object_new_int(2));
		break;
	case MUT_KEY:
		json_object_object_add(o, "key", json_object_new_string(BIN_A "@build-id:other"));
		break;
	case MUT_AT_IN_BINARY_ID:
		/* key consistent with the ids: only the '@' rule catches it */
		json_object_object_add(o, "binary_id", json_object_new_string("build-id:ab@cd"));
		json_object_object_add(o, "key", json_object_new_string("build-id:ab@cd@" PARENT_A));
		break;
	case MUT_MISSING_DIST:
		json_object_object_del(d, "life_wall_ns");
		break;
	case MUT_EXTRA_DIST:
		assert_true(json_object_object_get_ex(d, "life_cpu_ns", &x));
		json_object_object_add(d, "life_bogus", json_object_get(x));
		break;
	case MUT_RENAMED_DIST:
		assert_true(json_object_object_get_ex(d, "win_sc_other_per_s", &x));
		json_object_object_add(d, "win_sc_others_per_s", json_object_get(x));
		json_object_object_del(d, "win_sc_other_per_s");
		break;
	case MUT_MISSING_SET:
		json_object_object_del(s, "children");
		break;
	case MUT_CREATED_AFTER_UPDATED:
		json_object_object_add(o, "created_ns", json_object_new_uint64(b->updated_ns + 1));
		break;
	case MUT_SAMPLES:
		json_object_object_add(o, "samples", json_object_new_uint64(b->samples + 1));
		break;
	case MUT_WINDOWS:
		json_object_object_add(o, "windows", json_object_new_uint64(b->windows - 1));
		break;
	case MUT_LABEL_NOT_STRING:
		json_object_object_add(o, "exe", json_object_new_int(42));
		break;
	case MUT_LABEL_TOO_LONG:
		json_object_object_add(o, "parent_exe", long_string(4097));
		break;
	case MUT_NOT_OBJECT:
		json_object_put(o);
		o = json_object_new_array();
		json_object_array_add(o, json_object_new_int(1));
		break;
	case MUT_NEGATIVE:
		json_object_object_add(o, "quarantined", json_object_new_int(-1));
		break;
	case MUT_MAX:
		break;
	}
	return o;
}

/* Where a binary's code runs: learned from samples by object, ready once
 * min_samples processes brought samples, and then a never-seen object is
 * named with its samples, without making the verdict anomalous (sampling is
 * noisy: a rule weighs it). Baseline files written before this set load. */
static void test_baseline_oncpu_objects_learned_then_new_ones_named(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline(), *back = NULL;
	const char *const usual[] = { "/usr/sbin/sshd", "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	const char *const odd[] = { "/usr/sbin/sshd", "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1" };
	const uint64_t usual_n[] = { 3, 1 }, odd_n[] = { 1, 25 };
	struct bl_process_sample s;
	struct bl_verdict v;
	struct json_object *o, *sets;
	char err[160];

	(void)state;
	for (unsigned i = 0; i < p.min_samples; i++) {
		s = sample(i, 1);
		s.oncpu_objects = usual;
		s.oncpu_counts = usual_n;
		s.noncpu = 2;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i * SEC, &v), 0);
		/* not ready while learning: nothing is called new */
		assert_false(v.oncpu_ready);
		assert_int_equal(v.new_oncpu_samples, 0);
	}
	assert_int_equal(b->oncpu_procs, p.min_samples);
	assert_int_equal(b->oncpu_samples, 4 * p.min_samples);
	assert_true(fabs(baseline__oncpu_share(b, &p, usual[0]) - 0.75) < 1e-12);
	assert_true(baseline__oncpu_share(b, &p, odd[1]) == 0);

	s = sample(99, 1);
	s.oncpu_objects = odd;
	s.oncpu_counts = odd_n;
	s.noncpu = 2;
	baseline__score_process(b, NULL, &s, &p, &v);
	assert_true(v.oncpu_ready);
	assert_int_equal(v.new_members[BL_SET_ONCPU], 1);
	assert_string_equal(v.new_list[BL_SET_ONCPU][0], odd[1]);
	assert_int_equal(v.new_oncpu_samples, 25);
	assert_false(v.anomalous);

	/* a file without the set and its counters (written before sampling) loads, empty */
	o = baseline__to_json(b);
	assert_true(json_object_object_get_ex(o, "sets", &sets));
	json_object_object_del(sets, "oncpu_objects");
	json_object_object_del(o, "oncpu_samples");
	json_object_object_del(o, "oncpu_procs");
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back->oncpu_procs, 0);
	assert_int_equal(back->set[BL_SET_ONCPU].n, 0);
	assert_true(isnan(baseline__oncpu_share(back, &p, usual[0])));
	json_object_put(o);
	baseline__free(back);

	/* a file whose counts exceed its draws (merged before merges added them)
	 * loads with the draws its counts show: no share above 1 */
	o = baseline__to_json(b);
	json_object_object_add(o, "oncpu_samples", json_object_new_uint64(b->oncpu_samples / 3));
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back->oncpu_samples, b->oncpu_samples);
	assert_true(fabs(baseline__oncpu_share(back, &p, usual[0]) - 0.75) < 1e-12);
	json_object_put(o);
	baseline__free(back);
	baseline__free(b);
}

/* Functions on CPU: each user function of a lifetime's kept stacks learned
 * by the samples of the stacks it is in, those stacks' samples the set's
 * draws; once saturated (and min_samples lifetimes brought some), a user
 * frame whose (object, function) it never held is marked new, every other
 * frame not, a kernel frame never; against the prior while the baseline
 * itself is not ready; nothing in learn mode. The set and its counters
 * survive the file, and a file written before them loads without them
 * (nothing new). */
/* What a set waits for, and said in words: draws first, then (on-CPU sets)
 * the lifetimes that brought some, then the chance of a new member, then the
 * quiet time; set_ready() is true exactly when nothing is waited for. */
static void test_baseline_set_state_says_what_a_set_waits_for(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline();
	struct bl_set_state st;
	struct bl_verdict v;
	char t[128];

	(void)state;
	p.set_new_max = 0.05;
	p.set_quiet_ns = 600 * SEC;
	baseline__set_state(b, BL_SET_CHILDREN, &p, NOW0, &st);
	assert_int_equal(st.wait, BL_WAIT_DRAWS);
	assert_string_equal(bl_set_state__text(&st, BL_SET_CHILDREN, t, sizeof(t)), "20 more samples");
	for (unsigned i = 0; i < 25; i++) {
		struct bl_process_sample s = sample(i, 1);

		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i * SEC, &v), 0);
	}
	/* 25 samples, members since NOW0: a set without new members waits for quiet */
	baseline__set_state(b, BL_SET_SYSCALLS, &p, NOW0 + 100 * SEC, &st);
	assert_int_equal(st.wait, BL_WAIT_QUIET);
	assert_int_equal(st.draws, 25);
	assert_true(st.chance == 0);
	assert_string_equal(bl_set_state__text(&st, BL_SET_SYSCALLS, t, sizeof(t)), "8m 20s more without a new member");
	assert_false(baseline__set_ready(b, BL_SET_SYSCALLS, &p, NOW0 + 100 * SEC));
	baseline__set_state(b, BL_SET_SYSCALLS, &p, NOW0 + 600 * SEC, &st);
	assert_int_equal(st.wait, BL_WAIT_NONE);
	assert_string_equal(bl_set_state__text(&st, BL_SET_SYSCALLS, t, sizeof(t)), "saturated");
	assert_true(baseline__set_ready(b, BL_SET_SYSCALLS, &p, NOW0 + 600 * SEC));
	/* a member seen once in 25 draws (4 %) is within the 5 %; two (8 %) are not */
	assert_true(baseline__observe_child(b, "/usr/bin/one", NULL, &p, NOW0 + 30 * SEC) >= 0);
	assert_true(baseline__observe_child(b, "/usr/bin/two", NULL, &p, NOW0 + 31 * SEC) >= 0);
	baseline__set_state(b, BL_SET_CHILDREN, &p, NOW0 + HOUR, &st);
	assert_int_equal(st.wait, BL_WAIT_CHANCE);
	assert_string_equal(bl_set_state__text(&st, BL_SET_CHILDREN, t, sizeof(t)),
			    "new members still arrive (8.0 % of samples > 5 %)");
	assert_false(baseline__set_ready(b, BL_SET_CHILDREN, &p, NOW0 + HOUR));
	/* on-CPU objects: draws are CPU samples, then lifetimes that brought some, and no quiet time */
	baseline__set_state(b, BL_SET_ONCPU, &p, NOW0 + HOUR, &st);
	assert_int_equal(st.wait, BL_WAIT_DRAWS);
	assert_string_equal(bl_set_state__text(&st, BL_SET_ONCPU, t, sizeof(t)), "20 more CPU samples");
	b->oncpu_samples = 40;
	b->oncpu_procs = 3;
	baseline__set_state(b, BL_SET_ONCPU, &p, NOW0 + HOUR, &st);
	assert_int_equal(st.wait, BL_WAIT_PROCS);
	assert_string_equal(bl_set_state__text(&st, BL_SET_ONCPU, t, sizeof(t)),
			    "17 more runs that reach the CPU sampler");
	baseline__free(b);
}

/* One CPU sample brings a whole stack: the loader's stack sampled once in one
 * lifetime is a dozen functions of count 1, and one draw that brought new
 * ones, not a dozen (the set saturates at 1/200); lifetimes that each bring a
 * singleton count one draw each (11 of 200 is above set_new_max). */
static void test_baseline_oncpu_functions_singletons_of_one_lifetime_are_one_draw(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline(), *c = new_baseline();
	char usual[2][64], rare[16][64];
	const char *fns[2 + 16];
	uint64_t counts[2 + 16];
	struct bl_process_sample s;
	struct bl_verdict v;

	(void)state;
	p.set_new_max = 0.05; /* the default: what is measured here */
	assert_int_equal(baseline__function_member("/usr/bin/x", "main", usual[0], sizeof(usual[0])), 0);
	assert_int_equal(baseline__function_member("/usr/bin/x", "spin", usual[1], sizeof(usual[1])), 0);
	for (int k = 0; k < 16; k++) {
		char name[32];

		snprintf(name, sizeof(name), "_dl_fn%d", k);
		assert_int_equal(baseline__function_member("/lib64/ld.so", name, rare[k], sizeof(rare[k])), 0);
	}
	for (int i = 0; i < 40; i++) { /* 40 lifetimes of 5 samples: 200 draws */
		uint32_t n = 2;

		fns[0] = usual[0], fns[1] = usual[1];
		counts[0] = 5, counts[1] = 4;
		if (i == 3) /* one sample in the loader: 12 functions seen once */
			for (int k = 0; k < 12; k++)
				fns[n] = rare[k], counts[n++] = 1;
		s = sample(i, 1);
		s.functions = fns;
		s.function_counts = counts;
		s.nfunctions = n;
		s.function_samples = 5;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i * SEC, &v), 0);
		/* in c, lifetimes 0..10 each bring one function seen once */
		n = 2;
		if (i <= 10)
			fns[n] = rare[i], counts[n++] = 1;
		s.nfunctions = n;
		assert_int_equal(baseline__observe_process(c, NULL, &s, &p, NOW0 + i * SEC, &v), 0);
	}
	assert_int_equal(b->oncpu_fn_samples, 200);
	assert_int_equal(b->set[BL_SET_ONCPU_FUNCS].n, 14);
	assert_true(baseline__set_new_chance(b, BL_SET_ONCPU_FUNCS) == 1.0 / 200);
	assert_true(baseline__set_ready(b, BL_SET_ONCPU_FUNCS, &p, NOW0 + HOUR));
	assert_true(baseline__set_new_chance(c, BL_SET_ONCPU_FUNCS) == 11.0 / 200);
	assert_false(baseline__set_ready(c, BL_SET_ONCPU_FUNCS, &p, NOW0 + HOUR));
	baseline__free(c);
	baseline__free(b);
}

static void test_baseline_oncpu_functions_learned_then_frames_marked_new(void **state)
{
	struct bl_policy p = policy(BL_MODE_AUTO);
	struct baseline *b = new_baseline(), *back = NULL, *fresh = new_baseline();
	char m_main[64], m_memcpy[64], m_irq[64], m_unnamed[64], m_hook[64], big[STRSET_MAX_LEN + 1];
	char out[STRSET_MAX_LEN + 16];
	const char *usual[2] = { m_main, m_memcpy };
	const uint64_t usual_n[2] = { 5, 3 };
	struct pl_frame user[] = {
		{ .object = "/usr/sbin/sshd", .function = "main", .offset = 0x41 },
		{ .object = "/tmp/.x/libhook.so", .function = "hook_spin" }, /* never learned: new */
		{ .object = "/usr/lib/libc.so.6", .function = NULL, .offset = 0x9a10 }, /* libc's unnamed code: new */
		{ .object = "/usr/lib/libc.so.6", .function = "memcpy", .offset = 7, .is_new = true }, /* known: cleared */
	};
	/* a kernel frame, never learned, never new */
	struct pl_frame kern[] = { { .object = "[kernel]", .function = "asm_sysvec_apic_timer_interrupt", .kernel = true } };
	struct pl_stack st[] = { { .samples = 5, .user = user, .kern = kern, .nuser = 4, .nkern = 1 } };
	struct pl_oncpu oc = { .samples = 5, .stacks = st, .nstacks = 1 };
	struct bl_process_sample s;
	struct bl_verdict v;
	struct json_object *o, *sets;
	char err[160];

	(void)state;
	assert_int_equal(baseline__function_member("/usr/sbin/sshd", "main", m_main, sizeof(m_main)), 0);
	assert_string_equal(m_main, "/usr/sbin/sshd\x1fmain");
	assert_int_equal(baseline__function_member("/usr/lib/libc.so.6", "memcpy", m_memcpy, sizeof(m_memcpy)), 0);
	assert_int_equal(baseline__function_member("[kernel]", "asm_sysvec_apic_timer_interrupt", m_irq, sizeof(m_irq)), 0);
	assert_int_equal(baseline__function_member("/usr/lib/libc.so.6", NULL, m_unnamed, sizeof(m_unnamed)), 0);
	assert_string_equal(m_unnamed, "/usr/lib/libc.so.6\x1f");
	assert_int_equal(baseline__function_member("/tmp/.x/libhook.so", "hook_spin", m_hook, sizeof(m_hook)), 0);
	assert_int_equal(baseline__function_member("/usr/sbin/sshd", "main", m_main, 15), -ENAMETOOLONG);
	memset(big, 'f', STRSET_MAX_LEN);
	big[STRSET_MAX_LEN] = '\0';
	assert_int_equal(baseline__function_member("/x", big, out, sizeof(out)), -ENAMETOOLONG);
	big[BL_FUNC_MEMBER_MAX - 3] = '\0'; /* "/x" and the separator: 512 bytes, the longest member */
	assert_int_equal(baseline__function_member("/x", big, out, sizeof(out)), 0);
	assert_int_equal(strlen(out), BL_FUNC_MEMBER_MAX);
	big[BL_FUNC_MEMBER_MAX - 3] = 'f';
	big[BL_FUNC_MEMBER_MAX - 2] = '\0';
	assert_int_equal(baseline__function_member("/x", big, out, sizeof(out)), -ENAMETOOLONG);
	assert_int_equal(baseline__function_member("/usr/sbin/sshd", "main", m_main, sizeof(m_main)), 0);

	for (unsigned i = 0; i < p.min_samples; i++) {
		s = sample(i, 1);
		s.functions = usual;
		s.function_counts = usual_n;
		s.nfunctions = 2;
		s.function_samples = 5;
		/* not saturated while learning: nothing is new */
		assert_int_equal(baseline__mark_new_frames(b, NULL, NULL, &p, NOW0 + i * SEC, &oc), 0);
		assert_false(user[1].is_new);
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + i * SEC, &v), 0);
		assert_true(v.learned);
	}
	assert_int_equal(b->oncpu_fn_procs, p.min_samples);
	assert_int_equal(b->oncpu_fn_samples, 5 * p.min_samples);
	assert_int_equal(b->set[BL_SET_ONCPU_FUNCS].n, 2);
	/* sorted by bytes: libc's memcpy, then sshd's main */
	assert_string_equal(b->set[BL_SET_ONCPU_FUNCS].m[0].s, m_memcpy);
	assert_int_equal(b->set[BL_SET_ONCPU_FUNCS].m[0].count, 3 * p.min_samples);
	assert_int_equal(b->set[BL_SET_ONCPU_FUNCS].m[1].count, 5 * p.min_samples);
	assert_true(baseline__set_ready(b, BL_SET_ONCPU_FUNCS, &p, NOW0 + HOUR));
	assert_true(baseline__set_new_chance(b, BL_SET_ONCPU_FUNCS) == 0);
	/* the objects set is another set: sampled objects were never learned here */
	assert_false(baseline__set_ready(b, BL_SET_ONCPU, &p, NOW0 + HOUR));

	assert_int_equal(baseline__mark_new_frames(b, NULL, NULL, &p, NOW0 + HOUR, &oc), 2);
	assert_false(user[0].is_new);
	assert_true(user[1].is_new);
	assert_true(user[2].is_new);
	assert_false(user[3].is_new);
	assert_false(kern[0].is_new);
	/* scored: the new function is named, and does not make the verdict anomalous */
	s = sample(99, 1);
	s.functions = (const char *const[]){ m_main, m_hook };
	s.function_counts = (const uint64_t[]){ 4, 4 };
	s.nfunctions = 2;
	s.function_samples = 4;
	baseline__score_process(b, NULL, &s, &p, &v);
	assert_int_equal(v.new_members[BL_SET_ONCPU_FUNCS], 1);
	assert_string_equal(v.new_list[BL_SET_ONCPU_FUNCS][0], m_hook);
	assert_false(v.anomalous);

	/* another baseline, not ready, is judged by its ready prior; in learn mode nothing is new */
	assert_int_equal(baseline__mark_new_frames(fresh, b, NULL, &p, NOW0 + HOUR, &oc), 2);
	assert_int_equal(baseline__mark_new_frames(fresh, NULL, NULL, &p, NOW0 + HOUR, &oc), 0);
	assert_false(user[1].is_new);
	p.mode = BL_MODE_LEARN;
	assert_int_equal(baseline__mark_new_frames(b, NULL, NULL, &p, NOW0 + HOUR, &oc), 0);
	p.mode = BL_MODE_AUTO;

	/* the file keeps the set and its draws */
	o = baseline__to_json(b);
	assert_non_null(o);
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_baseline_equal(b, back);
	assert_int_equal(back->oncpu_fn_procs, p.min_samples);
	assert_int_equal(back->oncpu_fn_samples, 5 * p.min_samples);
	assert_int_equal(baseline__mark_new_frames(back, NULL, NULL, &p, NOW0 + HOUR, &oc), 2);
	baseline__free(back);
	back = NULL;
	/* a file without them (written before) loads, empty and not ready: nothing new */
	assert_true(json_object_object_get_ex(o, "sets", &sets));
	json_object_object_del(sets, "oncpu_functions");
	json_object_object_del(o, "oncpu_fn_procs");
	json_object_object_del(o, "oncpu_fn_samples");
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back->oncpu_fn_procs, 0);
	assert_int_equal(back->oncpu_fn_samples, 0);
	assert_int_equal(back->set[BL_SET_ONCPU_FUNCS].n, 0);
	assert_int_equal(baseline__mark_new_frames(back, NULL, NULL, &p, NOW0 + HOUR, &oc), 0);
	json_object_put(o);
	baseline__free(back);
	baseline__free(fresh);
	baseline__free(b);
}

static void test_baseline_json_rejects_each_inconsistency(void **state)
{
	struct baseline *b = rich_baseline();

	(void)state;
	assert_int_equal(sizeof(rejections) / sizeof(rejections[0]), MUT_MAX);
	for (size_t i = 0; i < sizeof(rejections) / sizeof(rejections[0]); i++) {
		struct json_object *o = mutated(b, rejections[i].m);
		struct baseline *sentinel = (struct baseline *)&rejections, *got = sentinel;
		char err[256] = "";
		int r = baseline__from_json(o, &got, err, sizeof(err));

		if (r != -EINVAL)
			fail_msg("mutation %zu: from_json returned %d, expected -EINVAL", i, r);
		assert_ptr_equal(got, sentinel);
		if (!strstr(err, rejections[i].err))
			fail_msg("mutation %zu: error \"%s\" doesn't say \"%s\"", i, err, rejections[i].err);
		json_object_put(o);
	}
	baseline__free(b);
}

static void test_baseline_json_accepts_label_of_exactly_4096_bytes(void **state)
{
	struct baseline *b = rich_baseline(), *back = NULL;
	struct json_object *o = baseline__to_json(b);
	char err[256] = "";

	(void)state;
	json_object_object_add(o, "exe", long_string(4096));
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(strlen(back->exe), 4096);
	json_object_put(o);
	baseline__free(back);
	baseline__free(b);
}

/* Labels are the bytes a process gave; a file holds them escaped, printable,
 * and gives them back byte for byte. Files from before the escaping (only
 * invalid UTF-8 and backslashes as \xNN, controls left to json-c) still load. */
static void test_baseline_json_escapes_labels_and_reads_old_ones(void **state)
{
	static const char exe[] = "/tmp/x\nALERT forged\x1b[2J\x1b]0;t\x07\xc2\x9b\xe2\x80\xae\\x41\xff";
	struct baseline *b = rich_baseline(), *back = NULL;
	struct json_object *o, *p, *v;
	char err[256] = "";
	const char *text;

	(void)state;
	free(b->exe);
	b->exe = strdup(exe);
	free(b->parent_exe);
	b->parent_exe = strdup("/bin/\r\x7fsh");
	o = baseline__to_json(b);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "exe", &v));
	assert_string_equal(json_object_get_string(v), "/tmp/x\\x0AALERT forged\\x1B[2J\\x1B]0;t\\x07\\xC2\\x9B"
						      "\\xE2\\x80\\xAE\\x5Cx41\\xFF");
	/* nothing for json-c to escape as a control character */
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_null(strstr(text, "\\n"));
	assert_null(strstr(text, "\\r"));
	assert_null(strstr(text, "\\u00"));
	p = reparse(o);
	assert_int_equal(baseline__from_json(p, &back, err, sizeof(err)), 0);
	assert_string_equal(back->exe, exe);
	assert_string_equal(back->parent_exe, "/bin/\r\x7fsh");
	assert_baseline_equal(b, back);
	json_object_put(p);
	baseline__free(back);

	/* as the former sanitizer wrote it */
	json_object_object_add(o, "exe", json_object_new_string("/opt/a\\x5Cb\\xFF\n\xc3\xa9"));
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_string_equal(back->exe, "/opt/a\\b\xff\n\xc3\xa9");
	baseline__free(back);

	/* a NUL, even escaped, is no label */
	json_object_object_add(o, "exe", json_object_new_string("/opt/a\\x00b"));
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NUL"));
	json_object_put(o);
	baseline__free(b);
}


/* ---- scoring by place in the distribution, recurrence, saturation ---- */

#define HOUR_NS 3600000000000ull

/* sshd login children: half fail 21 opens, half none. Both modes score 0;
 * 10x the upper mode scores far beyond alert_score. */
static void test_baseline_bimodal_both_modes_normal(void **state)
{
	struct bl_policy p;
	struct baseline *b = baseline__new("build-id:aa", "build-id:bb", "/usr/sbin/sshd", "/usr/sbin/sshd", NOW0);
	struct bl_process_sample s = { .cpu_ns = 8000000, .wall_ns = 50000000, .syscalls = 400 };
	struct bl_verdict v;

	(void)state;
	bl_policy__defaults(&p);
	for (int i = 0; i < 40; i++) {
		s.open_fail = i % 2 ? 21 : 0;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, NOW0 + (uint64_t)i, &v), 0);
	}
	for (int k = 0; k < 2; k++) {
		s.open_fail = k ? 21 : 0;
		baseline__score_process(b, NULL, &s, &p, &v);
		assert_true(v.ready);
		assert_true(v.f[PL_LIFE_OPEN_FAIL].score == 0.0);
		assert_false(v.anomalous);
	}
	s.open_fail = 210;
	baseline__score_process(b, NULL, &s, &p, &v);
	assert_true(v.f[PL_LIFE_OPEN_FAIL].score >= 8.0);
	assert_true(v.anomalous);
	assert_true(v.f[PL_LIFE_OPEN_FAIL].tail == 0.0);
	baseline__free(b);
}

/* A 10x CPU mode, recurring with no Warning alert, is learned at
 * recur_per_hour (2/h): normal only once it holds more than 1 % of the
 * samples, i.e. after its second learned sample, half an hour later. */
static void test_baseline_recurring_mode_learned_slowly(void **state)
{
	struct bl_policy p;
	struct baseline *b = baseline__new("build-id:aa", "build-id:bb", "/bin/x", "/bin/y", NOW0);
	struct bl_process_sample s = { .cpu_ns = 10000000, .wall_ns = 20000000, .syscalls = 100 };
	struct bl_verdict v;
	uint64_t t = NOW0;
	int learned = 0, k;

	(void)state;
	bl_policy__defaults(&p);
	for (int i = 0; i < 20; i++) {
		s.cpu_ns = 10000000 + (uint64_t)i * 10000;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, t, &v), 0);
	}
	s.cpu_ns = 100000000; /* 10x */
	/* every minute for 29 minutes: one learned (the burst), the rest refused */
	for (k = 0; k < 29; k++) {
		t += 60000000000ull;
		assert_int_equal(baseline__observe_process(b, NULL, &s, &p, t, &v), 0);
		assert_true(v.anomalous);
		learned += v.learned;
		if (v.learned)
			assert_true(v.recurred);
	}
	assert_int_equal(learned, 1);
	assert_int_equal(b->recurred, 1);
	/* an alert at Warning forbids it even with a token */
	t += HOUR_NS;
	assert_int_equal(baseline__learn_process(b, &s, &p, t, true, &v), 0);
	assert_false(v.learned);
	/* the second one goes in: now the mode is above p99, and normal */
	t += HOUR_NS / 2;
	assert_int_equal(baseline__observe_process(b, NULL, &s, &p, t, &v), 0);
	assert_true(v.anomalous);
	assert_true(v.learned);
	baseline__score_process(b, NULL, &s, &p, &v);
	assert_false(v.anomalous);
	assert_true(v.f[PL_LIFE_CPU].score == 0.0);
	/* a one-off far beyond is still anomalous */
	s.cpu_ns = 2000000000;
	baseline__score_process(b, NULL, &s, &p, &v);
	assert_true(v.anomalous);
	baseline__free(b);
}

/* Good-Turing: a children set whose members still arrive is not saturated;
 * one where they stopped (and stayed stopped for set_quiet) is. */
static void test_baseline_children_ready_when_saturated(void **state)
{
	struct bl_policy p;
	struct baseline *b = baseline__new("build-id:aa", "build-id:bb", "/usr/bin/gcc", "/usr/bin/make", NOW0);
	char name[64];
	uint64_t t = NOW0;

	(void)state;
	bl_policy__defaults(&p);
	/* 20 compiles, each cc1 and as, in the first minute: saturated by
	 * count, but young: the first link's collect2 is not news */
	for (int i = 0; i < 20; i++) {
		t += 1000000000ull;
		assert_int_equal(baseline__observe_child(b, "/usr/lib/gcc/cc1", NULL, &p, t), 0);
		assert_int_equal(baseline__observe_child(b, "/usr/bin/as", NULL, &p, t), 0);
	}
	assert_true(baseline__set_new_chance(b, BL_SET_CHILDREN) == 0.0);
	assert_false(baseline__set_ready(b, BL_SET_CHILDREN, &p, t));
	assert_int_equal(baseline__observe_child(b, "/usr/lib/gcc/collect2", NULL, &p, t), 0);
	/* members still arriving: one new name per draw, never saturated */
	for (int i = 0; i < 10; i++) {
		t += 60000000000ull;
		snprintf(name, sizeof(name), "/tmp/gen%d", i);
		assert_int_equal(baseline__observe_child(b, name, NULL, &p, t), 0);
	}
	assert_true(baseline__set_new_chance(b, BL_SET_CHILDREN) > p.set_new_max);
	assert_false(baseline__set_ready(b, BL_SET_CHILDREN, &p, t + HOUR_NS));
	/* they stop: the known ones recur until the singletons are < 5 % */
	for (int i = 0; i < 200; i++) {
		t += 1000000000ull;
		assert_int_equal(baseline__observe_child(b, "/usr/lib/gcc/cc1", NULL, &p, t), 0);
	}
	assert_true(baseline__set_new_chance(b, BL_SET_CHILDREN) <= p.set_new_max);
	assert_false(baseline__set_ready(b, BL_SET_CHILDREN, &p, t)); /* the last new one is 200 s old */
	t += p.set_quiet_ns;
	assert_true(baseline__set_ready(b, BL_SET_CHILDREN, &p, t));
	/* now a never-run binary is news, and is not learned */
	assert_int_equal(baseline__observe_child(b, "/usr/bin/curl", NULL, &p, t), 1);
	assert_int_equal(baseline__observe_child(b, "/usr/bin/curl", NULL, &p, t), 1);
	assert_int_equal(baseline__observe_child(b, "/usr/lib/gcc/collect2", NULL, &p, t), 0);
	baseline__free(b);
}

/* A file written before the recurrence fields still loads. */
static void test_baseline_json_without_recurrence_fields_loads(void **state)
{
	struct baseline *b = baseline__new("build-id:aa", "build-id:bb", "/bin/x", "/bin/y", NOW0), *back = NULL;
	struct json_object *o;
	char err[256];

	(void)state;
	b->recurred = 3;
	o = baseline__to_json(b);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "recurred", NULL));
	json_object_object_del(o, "recurred");
	json_object_object_del(o, "recur_tokens");
	json_object_object_del(o, "recur_tokens_ns");
	assert_int_equal(baseline__from_json(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back->recurred, 0);
	assert_true(back->recur_tokens == -1);
	json_object_object_add(o, "recur_tokens", json_object_new_double(7));
	{ struct baseline *bad = NULL; assert_int_equal(baseline__from_json(o, &bad, err, sizeof(err)), -EINVAL); }
	json_object_put(o);
	baseline__free(back);
	baseline__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_ready_exactly_at_min_samples_and_learns_everything_before),
		cmocka_unit_test(test_baseline_learn_mode_never_scores),
		cmocka_unit_test(test_baseline_detect_mode_scores_once_ready_and_never_learns),
		cmocka_unit_test(test_baseline_sample_at_median_scores_low_and_is_learned),
		cmocka_unit_test(test_baseline_ten_times_cpu_is_anomalous_and_quarantined),
		cmocka_unit_test(test_baseline_deviation_below_noise_floor_scores_zero),
		cmocka_unit_test(test_baseline_bimodal_both_modes_normal),
		cmocka_unit_test(test_baseline_recurring_mode_learned_slowly),
		cmocka_unit_test(test_baseline_children_ready_when_saturated),
		cmocka_unit_test(test_baseline_json_without_recurrence_fields_loads),
		cmocka_unit_test(test_baseline_repeated_anomaly_is_never_learned),
		cmocka_unit_test(test_baseline_learning_is_rate_limited_and_refills_with_time),
		cmocka_unit_test(test_baseline_never_seen_members_are_anomalous_once_ready),
		cmocka_unit_test(test_baseline_new_members_are_learned_before_ready),
		cmocka_unit_test(test_baseline_not_ready_is_scored_against_ready_prior),
		cmocka_unit_test(test_baseline_window_normalized_per_second_and_ready_at_min_windows),
		cmocka_unit_test(test_baseline_observe_child_flags_only_new_children_once_ready),
		cmocka_unit_test(test_baseline_objects_learned_then_new_ones_flagged_not_learned),
		cmocka_unit_test(test_baseline_objects_alerted_new_member_not_learned_before_ready),
		cmocka_unit_test(test_baseline_observe_child_by_identity),
		cmocka_unit_test(test_syscall_class_by_name),
		cmocka_unit_test(test_baseline_merge_adds_counts_and_is_associative_and_commutative),
		cmocka_unit_test(test_baseline_merge_refuses_another_key),
		cmocka_unit_test(test_baseline_json_round_trips),
		cmocka_unit_test(test_baseline_learned_while_clock_behind_creation_still_loads),
		cmocka_unit_test(test_baseline_json_rejects_each_inconsistency),
		cmocka_unit_test(test_baseline_oncpu_objects_learned_then_new_ones_named),
		cmocka_unit_test(test_baseline_oncpu_functions_learned_then_frames_marked_new),
		cmocka_unit_test(test_baseline_oncpu_functions_singletons_of_one_lifetime_are_one_draw),
		cmocka_unit_test(test_baseline_set_state_says_what_a_set_waits_for),
		cmocka_unit_test(test_baseline_json_accepts_label_of_exactly_4096_bytes),
		cmocka_unit_test(test_baseline_json_escapes_labels_and_reads_old_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
