// SPDX-License-Identifier: MIT
/*
 * test_learn.c - the sensor's side of baselines (sensor/pipeline/learn.c): the
 * baseline's state in every sample (key, readiness, the quantiles of what
 * is ready, the parent's view of an exec), the verdict of a window or an
 * exit, and what is learned: everything until ready, then nothing a rule
 * fired on or the verdict found anomalous, and never an image seen only in
 * part or still running. The ground truth is the baseline itself
 * (baselines/), scored and read directly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <poll.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "clock.h"
#include <json-c/json.h>

#include "baseline.h"
#include "bundle.h"
#include "pipeline/fleet.h"
#include "pipeline/learn.h"
#include "log.h"
#include "process/proctable.h"
#include "signing.h"
#include "sketch.h"
#include "syscalls.h"

#include "record_helpers.h"
#include "unit_helpers.h"

#define T0  1700000000000000000ull
#define MS  1000000ull
#define SEC 1000000000ull

struct fx {
	char dir[64], state_dir[96];
	struct bl_policy pol;
	struct learner *l;
	struct proctable *procs;
	unsigned long long sc[PL_SAMPLE_NR_SYSCALLS];
	struct pl_fail fails[2];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/plumbline-learn-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->state_dir, sizeof(f->state_dir), "%s/state", f->dir);
	bl_policy__defaults(&f->pol);
	/* the learner's plumbing, not set saturation (test_baseline.c has that) */
	f->pol.set_quiet_ns = 0;
	f->pol.set_new_max = 1.0;
	f->pol.recur_per_hour = 0;
	f->pol.min_samples = 3;
	f->pol.min_windows = 3;
	assert_int_equal(learner__open(f->state_dir, &f->pol, &f->l), 0);
	assert_int_equal(proctable__new(64, &f->procs), 0);
	f->sc[syscall_number("read")] = 90;
	f->sc[syscall_number("openat")] = 10;
	f->fails[0] = (struct pl_fail){.path = "/etc/app.conf", .err = 2, .count = 1};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	learner__free(f->l);
	proctable__free(f->procs);
	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

static struct proc_info *image(struct fx *f, uint32_t tgid, const char *exe, const char *binary_id,
			       const struct proc_info *parent)
{
	struct proc_info *pi = proctable__reset(f->procs, tgid, tgid);

	assert_non_null(pi);
	pi->exe = strdup(exe);
	pi->binary_id = binary_id ? strdup(binary_id) : NULL;
	pi->parent_binary_id = parent ? strdup(parent->binary_id) : NULL;
	pi->parent_exe = parent ? strdup(parent->exe) : NULL;
	learner__attach(f->l, pi);
	return pi;
}

/* An exit of 100 syscalls (read, openat), one failed path. */
static void exit_of(struct fx *f, struct pl_sample *s, uint64_t cpu_ns)
{
	pl_sample__init(s, PL_AT_EXIT);
	s->image_start_ns = T0;
	s->end_ns = s->time_ns = T0 + 50 * MS;
	s->end_reason = "exit";
	s->life.cpu_ns = cpu_ns;
	s->life.syscalls = 100;
	s->life.sc = f->sc;
	s->life.open_fail = 1;
	s->fails = f->fails;
	s->nfails = s->fail_paths = 1;
}

static void window_of(struct fx *f, struct pl_sample *s, uint64_t cpu_ns)
{
	pl_sample__init(s, PL_AT_WINDOW);
	s->image_start_ns = T0;
	s->win_start_ns = T0 + SEC;
	s->win_end_ns = s->time_ns = T0 + 2 * SEC;
	s->win.cpu_ns = cpu_ns;
	s->win.syscalls = 100;
	s->win.sc = f->sc;
}

/* Score and commit s for pi: whether it was learned. */
static bool observe(struct fx *f, struct proc_info *pi, struct pl_sample *s, bool alerted)
{
	bool r;

	learner__score(f->l, pi, s, true);
	r = learner__commit(f->l, alerted, s);
	assert_int_equal(r, s->bl.learned);
	return r;
}

static struct learner_counts counts(struct fx *f)
{
	struct learner_counts c;

	learner__counts(f->l, &c);
	return c;
}

static void test_learn_state_fills_key_readiness_and_only_ready_quantiles(void **state)
{
	static const double qs[3] = {0.5, 0.9, 0.99};
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_sample s;

	assert_non_null(pi->bl);
	pl_sample__init(&s, PL_AT_EXEC);
	learner__state(f->l, pi, &s);
	assert_string_equal(s.bl.key, "build-id:aa@-");
	assert_false(s.bl.ready);
	assert_false(s.bl.windows_ready);
	assert_int_equal(s.bl.samples, 0);
	assert_false(s.bl.scored);
	for (int d = 0; d < PL_DIST_MAX; d++)
		for (int k = 0; k < 3; k++)
			assert_true(isnan(s.bl.q[d][k]));

	/* three lifetimes: lifetimes ready, windows not */
	for (int i = 0; i < 3; i++) {
		exit_of(f, &s, (10 + i) * MS);
		assert_true(observe(f, pi, &s, false));
	}
	pl_sample__init(&s, PL_AT_EXEC);
	learner__state(f->l, pi, &s);
	assert_true(s.bl.ready);
	assert_false(s.bl.windows_ready);
	assert_int_equal(s.bl.samples, 3);
	for (int d = 0; d < PL_DIST_MAX; d++)
		for (int k = 0; k < 3; k++) {
			if (d <= PL_LIFE_OPEN_FAIL) {
				double want = sketch__quantile(&pi->bl->dist[d], qs[k]);

				assert_true(isfinite(want));
				assert_true(s.bl.q[d][k] == want);
			} else {
				assert_true(isnan(s.bl.q[d][k]));
			}
		}

	/* three windows: the window distributions rules read are ready too, not the classes */
	for (int i = 0; i < 3; i++) {
		window_of(f, &s, 100 * MS);
		assert_true(observe(f, pi, &s, false));
	}
	pl_sample__init(&s, PL_AT_WINDOW);
	learner__state(f->l, pi, &s);
	assert_true(s.bl.windows_ready);
	for (int d = PL_WIN_CPU; d < PL_DIST_MAX; d++)
		for (int k = 0; k < 3; k++) {
			if (d <= PL_WIN_OPEN_FAIL)
				assert_true(s.bl.q[d][k] == sketch__quantile(&pi->bl->dist[d], qs[k]));
			else
				assert_true(isnan(s.bl.q[d][k]));
		}
	assert_true(fabs(s.bl.q[PL_WIN_CPU][0] - 100e6) <= 100e6 * 0.02);
}

static void test_learn_state_of_an_image_without_baseline_is_empty(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", NULL, NULL);
	struct pl_sample s;

	assert_null(pi->bl);
	assert_int_equal(counts(f).without_baseline, 1);
	exit_of(f, &s, MS);
	learner__score(f->l, pi, &s, true);
	assert_null(s.bl.key);
	assert_false(s.bl.scored);
	assert_false(learner__commit(f->l, false, &s));
	learner__score(f->l, NULL, &s, true);
	assert_null(s.bl.key);
	assert_false(learner__commit(f->l, false, NULL));
}

/* The verdict in the sample is the baseline's own. */
static void test_learn_score_puts_the_baselines_verdict_into_the_sample(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_sample s;
	struct bl_verdict want;
	const char *paths[1] = {"/etc/other.conf"};
	const char *names[2] = {"read", "openat"};
	struct bl_process_sample ps = {
	    .cpu_ns = 200 * MS,
	    .wall_ns = 50 * MS,
	    .offcpu_ns = 0,
	    .syscalls = 100,
	    .open_fail = 1,
	    .fail_paths = paths,
	    .nfail_paths = 1,
	    .syscall_names = names,
	    .nsyscall_names = 2,
	};

	/* before ready: scored against nothing */
	exit_of(f, &s, 10 * MS);
	learner__score(f->l, pi, &s, true);
	assert_true(s.bl.scored);
	assert_false(s.bl.ready);
	assert_false(s.bl.anomalous);
	assert_int_equal(s.bl.max_dist, -1);
	assert_true(isnan(s.bl.max_score));
	for (int d = 0; d < PL_DIST_MAX; d++)
		assert_false(s.bl.f[d].valid);
	assert_true(learner__commit(f->l, false, &s));
	for (int i = 0; i < 2; i++) {
		exit_of(f, &s, 10 * MS);
		observe(f, pi, &s, false);
	}

	/* ready: 20x the CPU, and a path never seen */
	baseline__score_process(pi->bl, NULL, &ps, &f->pol, &want);
	exit_of(f, &s, 200 * MS);
	f->fails[0].path = "/etc/other.conf";
	learner__score(f->l, pi, &s, true);
	assert_true(s.bl.scored);
	assert_true(s.bl.ready);
	assert_false(s.bl.from_prior);
	assert_int_equal(s.bl.samples, 3);
	assert_true(s.bl.anomalous);
	assert_int_equal(s.bl.max_dist, want.max_dist);
	assert_int_equal(s.bl.max_dist, PL_LIFE_CPU);
	assert_true(s.bl.max_score == want.max_score);
	for (int d = 0; d < PL_DIST_MAX; d++) {
		assert_int_equal(s.bl.f[d].valid, want.f[d].valid);
		assert_int_equal(s.bl.f[d].valid, d <= PL_LIFE_OPEN_FAIL);
		if (!want.f[d].valid)
			continue;
		assert_true(s.bl.f[d].value == want.f[d].value);
		assert_true(s.bl.f[d].p50 == want.f[d].p50);
		assert_true(s.bl.f[d].p99 == want.f[d].p99);
		assert_true(s.bl.f[d].ratio_p50 == want.f[d].ratio_p50);
		assert_true(s.bl.f[d].ratio_p99 == want.f[d].ratio_p99);
		assert_true(s.bl.f[d].score == want.f[d].score);
	}
	assert_int_equal(s.bl.nnew_fail_paths, 1);
	assert_string_equal(s.bl.new_fail_paths[0], "/etc/other.conf");
	assert_int_equal(s.bl.nnew_syscalls, 0);
	/* anomalous: not learned, whatever the rules said */
	assert_false(learner__commit(f->l, false, &s));
	assert_int_equal(pi->bl->samples, 3);
	assert_int_equal(pi->bl->quarantined, 1);
	assert_int_equal(counts(f).anomalous, 1);
}

/* The user functions of an exit's kept stacks are learned into the image's
 * baseline, each by the samples of the stacks it is in (a recursion counts
 * once), the kernel's not at all; once saturated, the frames of a later
 * sample, a window's too, are marked new exactly where the function was never
 * learned, and a sample of an image without a baseline has every frame
 * cleared (frames may be shared by two images' stacks). */
static void test_learn_functions_on_cpu_learned_then_new_frames_marked(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_frame user[] = {
		{ .object = "/usr/bin/app", .function = "main", .offset = 0x41 },
		{ .object = "/usr/bin/app", .function = "work", .offset = 0x10 },
	};
	struct pl_frame user2[] = {
		{ .object = "/usr/bin/app", .function = "main", .offset = 0x45 },
		{ .object = "/usr/bin/app", .function = NULL, .offset = 0x9a10 },
		{ .object = "/usr/bin/app", .function = "main", .offset = 0x45 }, /* recursion */
	};
	struct pl_frame kern[] = { { .object = "[kernel]", .function = "do_syscall_64", .kernel = true } };
	struct pl_stack st[] = { { .samples = 7, .user = user, .kern = kern, .nuser = 2, .nkern = 1 },
				 { .samples = 2, .user = user2, .nuser = 3 } };
	struct pl_oncpu oc = { .samples = 9, .stacks = st, .nstacks = 2 };
	struct pl_frame hook[] = {
		{ .object = "/usr/bin/app", .function = "main", .offset = 0x41 },
		{ .object = "/tmp/.x/libhook.so", .function = "hook_spin" },
	};
	struct pl_stack hst[] = { { .samples = 30, .user = hook, .kern = kern, .nuser = 2, .nkern = 1 } };
	struct pl_oncpu hoc = { .samples = 30, .stacks = hst, .nstacks = 1 };
	struct pl_sample s;
	char m[64];

	for (int i = 0; i < 3; i++) {
		exit_of(f, &s, 10 * MS);
		s.oncpu = &oc;
		assert_true(observe(f, pi, &s, false));
		assert_false(user[1].is_new); /* learning: nothing is new */
	}
	/* the app's unnamed code (2 samples an exit), main (9), work (7); not do_syscall_64 */
	assert_int_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].n, 3);
	assert_int_equal(pi->bl->oncpu_fn_procs, 3);
	assert_int_equal(pi->bl->oncpu_fn_samples, 3 * 9);
	assert_int_equal(baseline__function_member("/usr/bin/app", NULL, m, sizeof(m)), 0);
	assert_string_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].m[0].s, m);
	assert_int_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].m[0].count, 3 * 2);
	assert_int_equal(baseline__function_member("/usr/bin/app", "main", m, sizeof(m)), 0);
	assert_string_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].m[1].s, m);
	assert_int_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].m[1].count, 3 * 9);
	assert_int_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].m[2].count, 3 * 7);

	/* a window running the hook: marked, not learned (windows learn no set) */
	window_of(f, &s, 300 * MS);
	s.oncpu = &hoc;
	learner__score(f->l, pi, &s, true);
	assert_false(hook[0].is_new);
	assert_true(hook[1].is_new);
	assert_false(kern[0].is_new);
	learner__commit(f->l, false, &s);
	assert_int_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].n, 3);

	/* an image without a baseline: nothing of its stacks is new */
	assert_int_equal(learner__mark_new_frames(f->l, NULL, &hoc), 0);
	assert_false(hook[1].is_new);
	/* an exit a rule fired on: new, and never learned */
	exit_of(f, &s, 10 * MS);
	s.oncpu = &hoc;
	assert_false(observe(f, pi, &s, true));
	assert_true(hook[1].is_new);
	assert_int_equal(pi->bl->set[BL_SET_ONCPU_FUNCS].n, 3);
}

/* A sample a rule at Warning or above fired on is never learned, ready or
 * not: repeating an attack while a baseline learns must not make it
 * normal. The others are learned until ready and after. */
/* A host that joins (its own baseline empty, no prior) marks the frames of
 * its stacks against the fleet's functions on CPU: the role's bundle of a
 * host that learned the app's code, loaded through the fleet view. */
static void test_learn_frames_marked_new_against_the_fleet_while_its_own_is_not_ready(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL), *joined;
	struct pl_frame user[] = { { .object = "/usr/bin/app", .function = "main", .offset = 0x41 },
				   { .object = "/usr/bin/app", .function = "work", .offset = 0x10 } };
	struct pl_frame hook[] = { { .object = "/usr/bin/app", .function = "main", .offset = 0x41 },
				   { .object = "/tmp/.x/libhook.so", .function = "hook_spin" } };
	struct pl_frame kern[] = { { .object = "[kernel]", .function = "do_syscall_64", .kernel = true } };
	struct pl_stack st[] = { { .samples = 9, .user = user, .kern = kern, .nuser = 2, .nkern = 1 } };
	struct pl_stack hst[] = { { .samples = 30, .user = hook, .kern = kern, .nuser = 2, .nkern = 1 } };
	struct pl_oncpu oc = { .samples = 9, .stacks = st, .nstacks = 1 };
	struct pl_oncpu hoc = { .samples = 30, .stacks = hst, .nstacks = 1 };
	struct bl_bundle_meta m = { .role = "app", .created_ns = T0, .hosts = 1 };
	char fleet_dir[128], key[128], pub[128], path[160], state2[128], err[256];
	struct pollfd p = { .events = POLLIN };
	struct bl_signkey *k;
	struct learner *l2;
	struct fleet *fl;
	struct pl_sample s;

	for (int i = 0; i < 3; i++) {
		exit_of(f, &s, 10 * MS);
		s.oncpu = &oc;
		assert_true(observe(f, pi, &s, false));
	}
	assert_true(baseline__set_ready(pi->bl, BL_SET_ONCPU_FUNCS, &f->pol, 0));
	/* its store as the role's signed bundle, in a fleet directory */
	snprintf(fleet_dir, sizeof(fleet_dir), "%s/fleet", f->dir);
	snprintf(key, sizeof(key), "%s/role.key", f->dir);
	snprintf(pub, sizeof(pub), "%s/role.key.pub", f->dir);
	snprintf(path, sizeof(path), "%s/app.bundle", fleet_dir);
	assert_int_equal(mkdir(fleet_dir, 0755), 0);
	assert_int_equal(bl_signkey__generate(key, pub, err, sizeof(err)), 0);
	assert_int_equal(bl_signkey__load(key, &k, err, sizeof(err)), 0);
	assert_int_equal(bl_bundle__write_meta(path, &pi->bl, 1, &m, k), 0);
	bl_signkey__free(k);

	/* the joining host: a state of its own, the fleet's view */
	snprintf(state2, sizeof(state2), "%s/state2", f->dir);
	assert_int_equal(learner__open(state2, &f->pol, &l2), 0);
	assert_int_equal(fleet__open(fleet_dir, pub, "app", &fl), 0);
	fleet__scan(fl);
	p.fd = fleet__epoll_fd(fl);
	for (int i = 0; i < 100 && fleet__busy(fl); i++) {
		assert_true(poll(&p, 1, 100) >= 0);
		fleet__changed(fl, NULL, NULL);
	}
	assert_int_equal(fleet__generation(fl), 1);
	joined = proctable__reset(f->procs, 20, 20);
	assert_non_null(joined);
	joined->exe = strdup("/usr/bin/app");
	joined->binary_id = strdup("build-id:aa");
	learner__attach(l2, joined);
	assert_non_null(joined->bl);
	assert_int_equal(joined->bl->samples, 0);

	/* no fleet: its own set is not ready, nothing is new */
	assert_int_equal(learner__mark_new_frames(l2, joined->bl, &hoc), 0);
	assert_false(hook[1].is_new);
	learner__set_fleet(l2, fl);
	assert_int_equal(learner__mark_new_frames(l2, joined->bl, &hoc), 1);
	assert_false(hook[0].is_new);
	assert_true(hook[1].is_new);
	assert_false(kern[0].is_new);
	assert_int_equal(learner__mark_new_frames(l2, joined->bl, &oc), 0);

	learner__set_fleet(l2, NULL);
	fleet__free(fl);
	learner__free(l2);
}

static void test_learn_commit_a_rule_that_fired_blocks_learning_ready_or_not(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_sample s;

	for (int i = 0; i < 4; i++) {
		exit_of(f, &s, 10 * MS);
		assert_int_equal(observe(f, pi, &s, i == 1), i != 1);
	}
	assert_int_equal(pi->bl->samples, 3);
	assert_int_equal(pi->bl->quarantined, 1);
	exit_of(f, &s, 10 * MS);
	assert_false(observe(f, pi, &s, true));
	assert_false(s.bl.anomalous); /* only the rule kept it out */
	assert_int_equal(pi->bl->samples, 3);
	assert_int_equal(pi->bl->quarantined, 2);
	exit_of(f, &s, 10 * MS);
	assert_true(observe(f, pi, &s, false));
	assert_int_equal(pi->bl->samples, 4);

	/* the same for windows */
	for (int i = 0; i < 4; i++) {
		window_of(f, &s, 100 * MS);
		assert_int_equal(observe(f, pi, &s, i == 1), i != 1);
	}
	window_of(f, &s, 100 * MS);
	assert_false(observe(f, pi, &s, true));
	window_of(f, &s, 100 * MS);
	assert_true(observe(f, pi, &s, false));
	assert_int_equal(pi->bl->windows, 4);
	assert_int_equal(counts(f).process_samples, 4);
	assert_int_equal(counts(f).window_samples, 4);
}

/* What the sensor saw only in part is scored, never learned; nor is what
 * the caller doesn't want learned (a process still running). */
static void test_learn_partial_image_or_unwanted_sample_is_never_learned(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_sample s;

	for (int i = 0; i < 3; i++) {
		exit_of(f, &s, 10 * MS);
		s.partial = true;
		assert_false(observe(f, pi, &s, false));
		assert_true(s.bl.scored);
		window_of(f, &s, 10 * MS);
		s.partial = true;
		assert_false(observe(f, pi, &s, false));
	}
	assert_int_equal(pi->bl->samples, 0);
	assert_int_equal(pi->bl->windows, 0);
	exit_of(f, &s, 10 * MS);
	learner__score(f->l, pi, &s, false);
	assert_true(s.bl.scored);
	assert_false(learner__commit(f->l, false, &s));
	assert_false(s.bl.learned);
	assert_int_equal(pi->bl->samples, 0);
	/* a commit with nothing pending learns nothing, leaves the sample be */
	s.bl.learned = true;
	assert_false(learner__commit(f->l, false, &s));
	assert_true(s.bl.learned);
}

/* An exec has no counts: its state only, nothing pending. */
static void test_learn_exec_is_never_scored(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_sample s;

	pl_sample__init(&s, PL_AT_EXEC);
	learner__score(f->l, pi, &s, true);
	assert_string_equal(s.bl.key, "build-id:aa@-");
	assert_false(s.bl.scored);
	assert_false(learner__commit(f->l, false, &s));
	assert_int_equal(pi->bl->samples, 0);
}

/* The build-host canary's input: a parent's baseline learns its children
 * until ready; once ready, a child it never ran is new (and stays new). */
static void test_learn_child_is_new_only_to_a_ready_parent_that_never_ran_it(void **state)
{
	struct fx *f = *state;
	struct proc_info *make = image(f, 10, "/usr/bin/make", "build-id:3a4e", NULL), *child;
	struct pl_sample s;

	child = image(f, 11, "/usr/bin/cc", "build-id:cc", make);
	learner__child(f->l, make, child, false);
	assert_false(child->parent_bl_ready);
	assert_false(child->parent_new_child);
	for (int i = 0; i < 3; i++) {
		exit_of(f, &s, 10 * MS);
		observe(f, make, &s, false);
	}
	child = image(f, 12, "/usr/bin/cc", "build-id:cc", make);
	learner__child(f->l, make, child, false);
	assert_true(child->parent_bl_ready);
	assert_false(child->parent_new_child);
	for (int i = 0; i < 2; i++) {
		child = image(f, 13 + i, "/usr/bin/curl", "build-id:c0de", make);
		learner__child(f->l, make, child, false);
		assert_true(child->parent_bl_ready);
		assert_true(child->parent_new_child);
	}
	/* and the child's samples say so */
	pl_sample__init(&s, PL_AT_EXEC);
	learner__state(f->l, child, &s);
	assert_string_equal(s.bl.key, "build-id:c0de@build-id:3a4e");
	assert_true(s.bl.parent_ready);
	assert_true(s.bl.parent_new_child);
	/* no parent known, or no exe: nothing observed */
	child = image(f, 20, "/usr/bin/x", "build-id:x", NULL);
	learner__child(f->l, NULL, child, false);
	assert_false(child->parent_new_child);
}

/* Baselines outlive the learner: saved at free, loaded at open. */
static void test_learn_baselines_are_saved_and_loaded_again(void **state)
{
	struct fx *f = *state;
	struct proc_info *pi = image(f, 10, "/usr/bin/app", "build-id:aa", NULL);
	struct pl_sample s;

	for (int i = 0; i < 3; i++) {
		exit_of(f, &s, 10 * MS);
		observe(f, pi, &s, false);
	}
	learner__free(f->l);
	f->l = NULL;
	assert_int_equal(learner__open(f->state_dir, &f->pol, &f->l), 0);
	pi = image(f, 11, "/usr/bin/app", "build-id:aa", NULL);
	pl_sample__init(&s, PL_AT_EXEC);
	learner__state(f->l, pi, &s);
	assert_true(s.bl.ready);
	assert_int_equal(s.bl.samples, 3);
	assert_int_equal(counts(f).baselines, 1);
}

/* One writer per state directory; none that others could write. */
static void test_learn_open_refuses_a_busy_or_writable_state_directory(void **state)
{
	struct fx *f = *state;
	struct learner *second = NULL;
	char other[128];

	assert_int_equal(learner__open(f->state_dir, &f->pol, &second), -EBUSY);
	assert_null(second);
	snprintf(other, sizeof(other), "%s/open", f->dir);
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(chmod(other, 0777), 0);
	assert_int_equal(learner__open(other, &f->pol, &second), -EPERM);
	assert_null(second);
}


/* a baseline a running image is attached to is never evicted; a
 * full store of such refuses the next (counted once), and the baseline is
 * evictable again once its process is gone from the table. */
static void test_learn_a_baseline_in_use_is_never_evicted(void **state)
{
	struct fx *f = *state;
	struct proc_info *a, *b, *c;

	learner__free(f->l);
	f->pol.max_baselines = 1;
	assert_int_equal(learner__open(f->state_dir, &f->pol, &f->l), 0);
	a = image(f, 10, "/usr/bin/a", "build-id:aa", NULL);
	assert_non_null(a->bl);
	assert_int_equal(a->bl->users, 1);
	b = image(f, 11, "/usr/bin/b", "build-id:bb", NULL);
	assert_null(b->bl);
	assert_int_equal(counts(f).without_baseline, 1);
	assert_int_equal(counts(f).evicted, 0);
	/* b execs a's binary: two users */
	b = image(f, 11, "/usr/bin/a", "build-id:aa", NULL);
	assert_ptr_equal(b->bl, a->bl);
	assert_int_equal(a->bl->users, 2);
	proctable__remove(f->procs, 10);
	c = image(f, 12, "/usr/bin/c", "build-id:cc", NULL);
	assert_null(c->bl); /* b still runs a's binary */
	assert_int_equal(counts(f).without_baseline, 2);
	b = image(f, 11, "/usr/bin/d", "build-id:dd", NULL); /* b execs again: a's is free */
	assert_non_null(b->bl);
	assert_string_equal(b->bl->key, "build-id:dd@-");
	assert_int_equal(counts(f).evicted, 1);
	assert_int_equal(counts(f).baselines, 1);
}

static const struct learn_family_state *family(const struct learn_progress *p, const char *name)
{
	for (size_t i = 0; i < p->nfamily; i++)
		if (strcmp(p->family[i].name, name) == 0)
			return &p->family[i];
	fail_msg("no family %s", name);
	return NULL;
}

/* Armed per family: the ready baselines of what ran in the last 10 minutes hold >= 80 % of its samples. */
static void test_learn_family_armed_when_what_runs_is_mostly_ready(void **state)
{
	struct fx *f = *state;
	struct proc_info *a = image(f, 10, "/usr/bin/busy", "build-id:aa", NULL);
	struct proc_info *b = image(f, 11, "/usr/bin/rare", "build-id:bb", NULL);
	struct proc_info *old = image(f, 12, "/usr/bin/gone", "build-id:cc", NULL);
	struct learn_progress *p = calloc(1, sizeof(*p));
	const struct learn_family_state *cost;
	struct pl_sample s;

	assert_non_null(p);
	for (int i = 0; i < 3; i++) { /* ready at 3 (the fixture's min_samples) */
		exit_of(f, &s, 10 * MS);
		observe(f, a, &s, false);
	}
	for (int i = 0; i < 2; i++) {
		exit_of(f, &s, 10 * MS);
		observe(f, b, &s, false); /* 2 of 3: learning */
	}
	for (int i = 0; i < 2; i++) {
		exit_of(f, &s, 10 * MS);
		observe(f, old, &s, false);
	}
	a->bl->seen_ns = b->bl->seen_ns = real_ns(); /* active */
	old->bl->seen_ns = T0;				      /* last seen in 2023 */
	learner__progress(f->l, p);
	cost = family(p, "cost");
	assert_int_equal(p->active, 2);
	assert_int_equal(cost->active_ready, 1);
	assert_int_equal(cost->active_learning, 1); /* the inactive one is not counted */
	assert_int_equal(cost->waiting[BL_WAIT_DRAWS], 1); /* it waits for samples */
	assert_int_equal(cost->waiting[BL_WAIT_QUIET], 0);
	/* children: the ready one's set is saturated (no exec in 3 samples, set_quiet 0 here);
	 * the other waits for its third sample */
	assert_int_equal(family(p, "children")->active_ready, 1);
	assert_int_equal(family(p, "children")->active_learning, 1);
	assert_int_equal(family(p, "children")->waiting[BL_WAIT_DRAWS], 1);
	assert_int_equal(cost->learning, 2);
	assert_int_equal(cost->weight_ready, 3);
	assert_int_equal(cost->weight_all, 5);
	assert_false(cost->armed); /* 60 % */
	/* closest to ready: the learning ones, each with its id as baseline list shows it */
	{
		bool rare = false;

		for (size_t i = 0; i < p->ntop; i++)
			if (!strcmp(p->top[i].exe, "/usr/bin/rare")) {
				rare = true;
				assert_int_equal(strncmp(p->top[i].id, "bb@", 3), 0);
				assert_int_equal(p->top[i].samples, 2);
			}
		assert_true(rare);
	}
	for (int i = 0; i < 5; i++) {
		exit_of(f, &s, 10 * MS);
		observe(f, a, &s, false);
	}
	a->bl->seen_ns = real_ns();
	learner__progress(f->l, p);
	assert_true(family(p, "cost")->armed); /* 8 of 10: 80 % */
	/* a key seen once never recurs: it holds nothing back */
	exit_of(f, &s, 10 * MS);
	observe(f, image(f, 13, "/tmp/x/once.sh", "build-id:dd", NULL), &s, false);
	learner__progress(f->l, p);
	assert_true(family(p, "cost")->armed);
	/* no window samples: the windows family concerns none, and is not armed */
	assert_int_equal(family(p, "windows")->active_ready + family(p, "windows")->active_learning, 0);
	assert_false(family(p, "windows")->armed);
	free(p);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_learn_state_fills_key_readiness_and_only_ready_quantiles),
	    T(test_learn_state_of_an_image_without_baseline_is_empty),
	    T(test_learn_score_puts_the_baselines_verdict_into_the_sample),
	    T(test_learn_functions_on_cpu_learned_then_new_frames_marked),
	    T(test_learn_frames_marked_new_against_the_fleet_while_its_own_is_not_ready),
	    T(test_learn_commit_a_rule_that_fired_blocks_learning_ready_or_not),
	    T(test_learn_partial_image_or_unwanted_sample_is_never_learned),
	    T(test_learn_exec_is_never_scored),
	    T(test_learn_child_is_new_only_to_a_ready_parent_that_never_ran_it),
	    T(test_learn_baselines_are_saved_and_loaded_again),
	    T(test_learn_open_refuses_a_busy_or_writable_state_directory),
	    T(test_learn_a_baseline_in_use_is_never_evicted),
	    T(test_learn_family_armed_when_what_runs_is_mostly_ready),
	};
#undef T

	log_set_level(LOG_LVL_ERROR);
	return cmocka_run_group_tests_name("learn", tests, NULL, NULL);
}
