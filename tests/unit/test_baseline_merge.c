// SPDX-License-Identifier: MIT
/*
 * test_baseline_merge.c - `baseline merge`'s engine (sensor/cli/baseline_merge.c):
 * the same bytes from one worker as from several, whatever the split of the
 * inputs; hosts and host names summed in input order; a refused input
 * (another role, a bad signature) failing the whole merge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/baseline_merge.h"
#include "bundle.h"
#include "unit_helpers.h"

#define NOW0 1700000000000000000ull
#define SEC  1000000000ull
#define NIN  7

struct ctx {
	char dir[64];
	char *files[NIN];
	struct bl_signkey *k;
	struct bl_keyring *trust;
};

static const char *const sys_names[] = {"openat", "read", "mmap", "close"};

/* Input i: keys shared by all inputs and keys of its own, learned with values of its own. */
static void write_input(struct ctx *c, int i, const char *role)
{
	struct baseline *bs[6];
	struct bl_bundle_meta m = {.created_ns = NOW0, .hosts = 1 + (uint32_t)(i % 2)};
	struct bl_policy p;
	char path[128];

	bl_policy__defaults(&p);
	p.mode = BL_MODE_LEARN;
	for (int k = 0; k < 6; k++) {
		char id[64];

		snprintf(id, sizeof(id), k < 4 ? "build-id:shared%02d" : "build-id:own%02d_%d", k, i);
		bs[k] = baseline__new(id, "build-id:p", "/usr/bin/x", "/sbin/init", NOW0 + (uint64_t)i);
		assert_non_null(bs[k]);
		if (k == 1 && i >= 2)
			bs[k]->prior_key = strdup(i == 2 ? "build-id:old2@build-id:p" : "build-id:old3@build-id:p");
		for (int n = 0; n < 3 + i + k; n++) {
			const char *fp = n % 2 ? "/etc/a" : "/etc/missing";
			struct bl_process_sample s = {.cpu_ns = 1000000ull * (uint64_t)(1 + i) + (uint64_t)n * 7919,
						      .wall_ns = 5000000,
						      .syscalls = 100 + (uint64_t)n,
						      .fail_paths = &fp,
						      .nfail_paths = 1,
						      .syscall_names = sys_names,
						      .nsyscall_names = 2 + (uint32_t)(n % 3)};
			struct bl_window_sample w = {.duration_ns = SEC, .cpu_ns = 1000, .syscalls = 10 + (uint64_t)i};
			struct bl_verdict v;

			assert_int_equal(baseline__observe_process(bs[k], NULL, &s, &p, NOW0 + (uint64_t)n, &v), 0);
			assert_int_equal(baseline__observe_window(bs[k], NULL, &w, &p, NOW0 + (uint64_t)n, &v), 0);
		}
	}
	snprintf(m.role, sizeof(m.role), "%s", role);
	snprintf(m.host, sizeof(m.host), "host-%d", i);
	snprintf(path, sizeof(path), "%s/in%d.json", c->dir, i);
	assert_int_equal(bl_bundle__write_meta(path, bs, 6, &m, c->k), 0);
	for (int k = 0; k < 6; k++)
		baseline__free(bs[k]);
	free(c->files[i]);
	c->files[i] = strdup(path);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char key[128], pub[128], err[256] = "";

	assert_non_null(c);
	snprintf(c->dir, sizeof(c->dir), "/tmp/pl-unit-merge-XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(key, sizeof(key), "%s/k", c->dir);
	snprintf(pub, sizeof(pub), "%s/k.pub", c->dir);
	if (bl_signkey__generate(key, pub, err, sizeof(err)) || bl_signkey__load(key, &c->k, err, sizeof(err)) ||
	    bl_keyring__load(pub, &c->trust, err, sizeof(err)))
		fail_msg("keys: %s", err);
	for (int i = 0; i < NIN; i++)
		write_input(c, i, "ssh");
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	for (int i = 0; i < NIN; i++)
		free(c->files[i]);
	bl_signkey__free(c->k);
	bl_keyring__free(c->trust);
	ut_rm_rf(c->dir);
	free(c);
	return 0;
}

/* The merge on jobs workers, as the bundle's bytes (unsigned, created 0). */
static char *merged(struct ctx *c, unsigned jobs, struct bl_bundle_meta *m)
{
	struct baseline **bs = NULL;
	char path[128];
	size_t n = 0, len = 0;
	char *text;

	assert_int_equal(baseline_merge__run(c->files, NIN, c->trust, NULL, jobs, m, &bs, &n), 0);
	snprintf(path, sizeof(path), "%s/out%u.json", c->dir, jobs);
	assert_int_equal(bl_bundle__write_meta(path, bs, n, m, NULL), 0);
	for (size_t i = 0; i < n; i++)
		baseline__free(bs[i]);
	free(bs);
	text = ut_read_file(path, &len);
	assert_non_null(text);
	return text;
}

static void test_merge_same_bytes_on_any_number_of_workers(void **state)
{
	struct ctx *c = *state;
	struct bl_bundle_meta m1, m;
	char *one = merged(c, 1, &m1);

	assert_int_equal(m1.hosts, 1 + 2 + 1 + 2 + 1 + 2 + 1); /* 1 or 2 per input */
	assert_string_equal(m1.role, "ssh");
	assert_string_equal(m1.host_list, "host-0,host-1,host-2,host-3,host-4,host-5,host-6,");
	/* the first prior_key in input order wins, on any split */
	assert_non_null(strstr(one, "\"prior_key\":\"build-id:old2@build-id:p\""));
	assert_null(strstr(one, "old3"));
	for (unsigned jobs = 2; jobs <= BL_MERGE_JOBS_MAX; jobs++) {
		char *many = merged(c, jobs, &m);

		assert_string_equal(one, many);
		assert_int_equal(m.hosts, m1.hosts);
		assert_string_equal(m.host_list, m1.host_list);
		free(many);
	}
	/* 4 shared keys and 2 of each input's own */
	{
		size_t keys = 0;

		for (const char *p = one; (p = strstr(p, "\"key\":")); p++)
			keys++;
		assert_int_equal(keys, 4 + 2 * NIN);
	}
	free(one);
}

static void test_merge_refuses_another_role_or_a_bad_signature(void **state)
{
	struct ctx *c = *state;
	struct bl_bundle_meta m = {.hosts = 99};
	struct baseline **bs = (struct baseline **)&m;
	size_t n = 42, len = 0;
	char *text;

	write_input(c, 5, "build");
	for (unsigned jobs = 1; jobs <= 3; jobs++) {
		assert_int_equal(baseline_merge__run(c->files, NIN, c->trust, NULL, jobs, &m, &bs, &n), -EINVAL);
		assert_int_equal(baseline_merge__run(c->files, NIN, c->trust, "build", jobs, &m, &bs, &n), -EINVAL);
		assert_int_equal(m.hosts, 99); /* untouched */
		assert_int_equal(n, 42);
	}
	write_input(c, 5, "ssh");
	/* one flipped digit in input 3 */
	text = ut_read_file(c->files[3], &len);
	assert_non_null(text);
	{
		char *s = strstr(text, "\"samples\":") + 10;
		FILE *f;

		*s ^= 1;
		f = fopen(c->files[3], "we");
		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, len, f), len);
		fclose(f);
	}
	free(text);
	for (unsigned jobs = 1; jobs <= 3; jobs++)
		assert_int_equal(baseline_merge__run(c->files, NIN, c->trust, NULL, jobs, &m, &bs, &n), -EBADMSG);
	assert_int_equal(n, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_merge_same_bytes_on_any_number_of_workers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_merge_refuses_another_role_or_a_bad_signature, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
