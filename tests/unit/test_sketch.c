// SPDX-License-Identifier: MIT
/*
 * test_sketch.c - the quantile sketch against exact answers: quantiles of
 * sorted inputs within SKETCH_ALPHA, exact counters, merges that are
 * bit-identical whatever the grouping (collapse included), robust scores,
 * and a JSON form that round-trips and refuses every inconsistency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>

#include <cmocka.h>

#include "sketch.h"

#define REL_EPS 1e-9 /* floating slack on top of SKETCH_ALPHA */
#define N_BIG	100000

/* xorshift64*: a fixed-seed PRNG, so every run sees the same inputs. */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
}

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* uniform in [0, 1) */
static double rng_unit(void)
{
	return (double)(rng_next() >> 11) * 0x1.0p-53;
}

/* standard normal, Box-Muller */
static double rng_normal(void)
{
	double u1 = 1.0 - rng_unit(), u2 = rng_unit(); /* u1 in (0, 1] */

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static uint64_t lognormal(double median, double sigma)
{
	return (uint64_t)llround(median * exp(sigma * rng_normal()));
}

/* log-uniform over [1, hi] */
static uint64_t loguniform(double hi)
{
	double v = exp(rng_unit() * log(hi));

	return v >= hi ? (uint64_t)hi : (uint64_t)v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void build(struct sketch *s, const uint64_t *v, size_t n)
{
	sketch__init(s);
	for (size_t k = 0; k < n; k++)
		assert_int_equal(sketch__add(s, v[k]), 0);
}

/* The sketch's q-quantile within SKETCH_ALPHA of sorted[floor(q * (n - 1))]. */
static void check_q(const struct sketch *s, const uint64_t *sorted, size_t n, double q)
{
	uint64_t exact = sorted[(size_t)(q * (double)(n - 1))];
	double est = sketch__quantile(s, q);
	double rel = exact ? fabs(est - (double)exact) / (double)exact : fabs(est);

	if (!(rel <= SKETCH_ALPHA + REL_EPS))
		fail_msg("q=%.4f exact=%llu estimate=%.17g relative error %.3g > %g", q, (unsigned long long)exact, est,
			 rel, SKETCH_ALPHA);
}

/* Sketch v, then check the detection quantiles (and, if `grid`, every 1%)
 * plus the exact ends, count and min/max against the sorted input. */
static void check_accuracy(uint64_t *v, size_t n, bool grid, struct sketch *ret)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	struct sketch s;

	build(&s, v, n);
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(s.count, n);
	assert_int_equal(s.min, v[0]);
	assert_int_equal(s.max, v[n - 1]);
	assert_true(sketch__quantile(&s, 0.0) == (double)v[0]);
	assert_true(sketch__quantile(&s, 1.0) == (double)v[n - 1]);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
		check_q(&s, v, n, qs[k]);
	for (int k = 1; grid && k < 100; k++)
		check_q(&s, v, n, k / 100.0);
	if (ret)
		*ret = s;
	else
		sketch__clear(&s);
}

static uint64_t *alloc_values(size_t n)
{
	uint64_t *v = calloc(n, sizeof(*v));

	assert_non_null(v);
	return v;
}

static void test_sketch_uniform_quantiles_within_alpha(void **state)
{
	uint64_t *v = alloc_values(N_BIG);

	rng_seed(1);
	for (size_t k = 0; k < N_BIG; k++)
		v[k] = 1000 + (uint64_t)(rng_unit() * (1e9 - 1e3));
	check_accuracy(v, N_BIG, true, NULL);
	free(v);
}

static void test_sketch_lognormal_quantiles_within_alpha(void **state)
{
	uint64_t *v = alloc_values(N_BIG);

	rng_seed(2);
	for (size_t k = 0; k < N_BIG; k++)
		v[k] = lognormal(1e6, 2.0);
	check_accuracy(v, N_BIG, true, NULL);
	free(v);
}

static void test_sketch_bimodal_quantiles_within_alpha(void **state)
{
	uint64_t *v = alloc_values(N_BIG);

	rng_seed(3);
	for (size_t k = 0; k < N_BIG; k++)
		v[k] = k % 3 ? lognormal(2e3, 0.1) : lognormal(5e8, 0.2);
	check_accuracy(v, N_BIG, true, NULL);
	free(v);
}

static void test_sketch_all_equal_values_are_exact(void **state)
{
	struct sketch s;

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 12345, 10000), 0);
	for (int k = 0; k <= 100; k++)
		assert_true(sketch__quantile(&s, k / 100.0) == 12345.0);
	assert_int_equal(s.nbins, 1);
	sketch__clear(&s);
}

static void test_sketch_powers_of_two_within_alpha(void **state)
{
	uint64_t v[64 * 3];

	/* 2^0 .. 2^41: ~1400 buckets, nothing collapsed, every quantile kept */
	for (size_t k = 0; k < 42 * 3; k++)
		v[k] = (uint64_t)1 << (k % 42);
	check_accuracy(v, 42 * 3, true, NULL);
	/* and one either side of every boundary */
	for (size_t k = 0; k < 42 * 3; k++)
		v[k] = ((uint64_t)1 << (k % 42)) + (k < 42 ? 0 : k < 84 ? 1 : (uint64_t)-1); /* 2^0 - 1 = 0 */
	check_accuracy(v, 42 * 3, true, NULL);
	/* 2^0 .. 2^63 needs more than SKETCH_MAX_BINS: the high quantiles hold */
	for (size_t k = 0; k < 64 * 3; k++)
		v[k] = (uint64_t)1 << (k % 64);
	check_accuracy(v, 64 * 3, false, NULL);
}

static void test_sketch_values_at_gamma_powers_within_alpha(void **state)
{
	double gamma = (1 + SKETCH_ALPHA) / (1 - SKETCH_ALPHA);
	uint64_t *v = alloc_values(3 * 2000);
	size_t n = 0;

	/* 2000 buckets: all of them kept, so every quantile is guaranteed */
	for (int i = 0; i < 2000; i++) {
		double g = pow(gamma, i);

		v[n++] = (uint64_t)floor(g);
		v[n++] = (uint64_t)ceil(g);
		v[n++] = (uint64_t)ceil(g) + 1;
	}
	check_accuracy(v, n, true, NULL);
	free(v);
}

static void test_sketch_huge_range_collapses_low_and_keeps_high_quantiles(void **state)
{
	uint64_t *v = alloc_values(N_BIG);
	struct sketch s;

	rng_seed(4);
	for (size_t k = 0; k < N_BIG; k++)
		v[k] = loguniform((double)(UINT64_MAX / 2));
	v[0] = 1;
	v[1] = UINT64_MAX / 2;
	check_accuracy(v, N_BIG, false, &s);
	assert_int_equal(s.nbins, SKETCH_MAX_BINS);
	assert_true(s.collapsed > 0);
	assert_true(s.collapsed <= s.bins[0]);
	assert_int_equal(s.count, N_BIG);
	/* collapsed is exactly the samples whose own bucket fell below */
	{
		double gamma = (1 + SKETCH_ALPHA) / (1 - SKETCH_ALPHA);
		uint64_t below = 0;

		for (size_t k = 0; k < N_BIG; k++)
			if ((int32_t)ceil(log((double)v[k]) / log(gamma)) < s.offset)
				below++;
		assert_int_equal(s.collapsed, below);
	}
	sketch__clear(&s);
	free(v);
}

static void test_sketch_extreme_values_are_kept(void **state)
{
	struct sketch s;

	sketch__init(&s);
	assert_int_equal(sketch__add(&s, UINT64_MAX), 0);
	assert_int_equal(sketch__add(&s, (uint64_t)1 << 40), 0);
	assert_int_equal(sketch__add(&s, 0), 0);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.collapsed, 0);
	assert_true(sketch__quantile(&s, 1.0) == (double)UINT64_MAX);
	assert_true(fabs(sketch__quantile(&s, 0.5) / 0x1.0p40 - 1) <= SKETCH_ALPHA + REL_EPS);
	assert_true(sketch__quantile(&s, 0.0) == 0.0);
	/* 1 and UINT64_MAX are more than SKETCH_MAX_BINS buckets apart:
	 * 1 is folded into the lowest kept bucket, counted, still exact in min */
	assert_int_equal(sketch__add(&s, 1), 0);
	assert_int_equal(s.nbins, SKETCH_MAX_BINS);
	assert_int_equal(s.collapsed, 1);
	assert_int_equal(s.count, 4);
	assert_int_equal(s.zero_count, 1);
	assert_int_equal(s.min, 0);
	assert_true(sketch__quantile(&s, 1.0) == (double)UINT64_MAX);
	sketch__clear(&s);
}

static void test_sketch_counters_sum_and_mean_are_exact(void **state)
{
	static const uint64_t v[] = { 0, 7, UINT64_MAX, 0, 5, UINT64_MAX };
	unsigned __int128 want = (unsigned __int128)UINT64_MAX * 2 + 12;
	struct sketch s;

	build(&s, v, 6);
	assert_int_equal(s.count, 6);
	assert_int_equal(s.zero_count, 2);
	assert_int_equal(s.min, 0);
	assert_int_equal(s.max, UINT64_MAX);
	assert_true(s.sum == want);
	assert_true(sketch__mean(&s) == (double)((long double)want / 6));
	assert_int_equal(sketch__add_n(&s, UINT64_MAX, 1000), 0);
	want += (unsigned __int128)UINT64_MAX * 1000;
	assert_true(s.sum == want);
	assert_int_equal(s.count, 1006);
	sketch__clear(&s);

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 10, 3), 0);
	assert_int_equal(sketch__add_n(&s, 20, 1), 0);
	assert_true(sketch__mean(&s) == 12.5);
	sketch__clear(&s);
}

static void test_sketch_add_zero_samples_changes_nothing(void **state)
{
	struct sketch s, empty;

	sketch__init(&s);
	sketch__init(&empty);
	assert_int_equal(sketch__add_n(&s, 42, 0), 0);
	assert_true(sketch__equal(&s, &empty));
	sketch__clear(&s);
}

static void test_sketch_count_overflow_refused_unchanged(void **state)
{
	struct sketch s, before;

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 3, UINT64_MAX - 1), 0);
	assert_int_equal(sketch__copy(&before, &s), 0);
	assert_int_equal(sketch__add_n(&s, 9, 2), -EOVERFLOW);
	assert_int_equal(sketch__merge(&s, &before), -EOVERFLOW);
	assert_true(sketch__equal(&s, &before));
	assert_int_equal(sketch__add(&s, 9), 0);
	assert_int_equal(s.count, UINT64_MAX);
	sketch__clear(&s);
	sketch__clear(&before);
}

static void test_sketch_empty_returns_nan(void **state)
{
	struct sketch s;

	sketch__init(&s);
	assert_true(isnan(sketch__quantile(&s, 0.0)));
	assert_true(isnan(sketch__quantile(&s, 0.5)));
	assert_true(isnan(sketch__quantile(&s, 1.0)));
	assert_true(isnan(sketch__mean(&s)));
	assert_true(isnan(sketch__score(&s, 5, 0.1)));
	assert_int_equal(sketch__add(&s, 5), 0);
	assert_true(isnan(sketch__quantile(&s, -0.1)));
	assert_true(isnan(sketch__quantile(&s, 1.1)));
	assert_true(isnan(sketch__quantile(&s, NAN)));
	sketch__clear(&s);
}

static void test_sketch_zeros_counted_apart(void **state)
{
	struct sketch s;

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 0, 5), 0);
	assert_int_equal(sketch__add_n(&s, 100, 5), 0);
	assert_int_equal(s.zero_count, 5);
	assert_int_equal(s.count, 10);
	assert_int_equal(s.nbins, 1);
	assert_true(sketch__quantile(&s, 0.4) == 0.0);
	assert_true(sketch__quantile(&s, 0.5) == 0.0); /* rank 4.5: the fifth zero */
	assert_true(sketch__quantile(&s, 0.6) == 100.0);
	sketch__clear(&s);

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 0, 3), 0);
	assert_int_equal(s.nbins, 0);
	assert_true(sketch__quantile(&s, 0.5) == 0.0);
	assert_true(sketch__mean(&s) == 0.0);
	sketch__clear(&s);
}

/* A sketch of n values drawn by gen(seed). */
enum dist { D_SMALL, D_MID, D_HUGE, D_WIDE };

static void make(struct sketch *s, enum dist d, uint64_t seed, size_t n)
{
	rng_seed(seed);
	sketch__init(s);
	for (size_t k = 0; k < n; k++) {
		uint64_t v = 0;

		switch (d) {
		case D_SMALL:
			v = rng_next() % 101; /* zeros too */
			break;
		case D_MID:
			v = lognormal(1e6, 1.0);
			break;
		case D_HUGE:
			v = (UINT64_MAX >> 1) + rng_next() % 1000000;
			break;
		case D_WIDE:
			v = loguniform(1.8e19);
			break;
		}
		assert_int_equal(sketch__add(s, v), 0);
	}
}

/* x + y into a fresh sketch */
static void sum2(struct sketch *ret, const struct sketch *x, const struct sketch *y)
{
	assert_int_equal(sketch__copy(ret, x), 0);
	assert_int_equal(sketch__merge(ret, y), 0);
}

static void check_assoc_commut(const struct sketch *a, const struct sketch *b, const struct sketch *c)
{
	enum { AB, BA, AB_C, BC, A_BC, CA, CA_B, N };
	struct sketch x[N];

	sum2(&x[AB], a, b);
	sum2(&x[BA], b, a);
	sum2(&x[AB_C], &x[AB], c);
	sum2(&x[BC], b, c);
	sum2(&x[A_BC], a, &x[BC]);
	sum2(&x[CA], c, a);
	sum2(&x[CA_B], &x[CA], b);
	assert_true(sketch__equal(&x[AB], &x[BA]));
	assert_true(sketch__equal(&x[AB_C], &x[A_BC]));
	assert_true(sketch__equal(&x[AB_C], &x[CA_B]));
	assert_int_equal(x[AB_C].count, a->count + b->count + c->count);
	assert_true(x[AB_C].sum == a->sum + b->sum + c->sum);
	for (int k = 0; k < N; k++)
		sketch__clear(&x[k]);
}

static void test_sketch_merge_associative_and_commutative(void **state)
{
	struct sketch a, b, c;

	make(&a, D_SMALL, 10, 5000);
	make(&b, D_MID, 11, 5000);
	make(&c, D_MID, 12, 300);
	check_assoc_commut(&a, &b, &c);
	sketch__clear(&a);
	sketch__clear(&b);
	sketch__clear(&c);
}

static void test_sketch_merge_associative_and_commutative_with_collapse(void **state)
{
	struct sketch a, b, c, e;

	/* only the last merge collapses, at different points of each grouping */
	make(&a, D_SMALL, 20, 5000);
	make(&b, D_MID, 21, 5000);
	make(&c, D_HUGE, 22, 100);
	check_assoc_commut(&a, &b, &c);
	{
		struct sketch ac;

		sum2(&ac, &a, &c);
		assert_true(ac.collapsed > 0);
		sketch__clear(&ac);
	}
	sketch__clear(&c);
	/* parts that collapsed already, with different floors */
	make(&c, D_WIDE, 23, 20000);
	assert_true(c.collapsed > 0);
	make(&e, D_HUGE, 24, 10);
	check_assoc_commut(&c, &a, &e);
	check_assoc_commut(&e, &c, &b);
	sketch__clear(&a);
	sketch__clear(&b);
	sketch__clear(&c);
	sketch__clear(&e);
}

static void test_sketch_merge_with_empty_is_identity(void **state)
{
	struct sketch a, empty, x;

	make(&a, D_WIDE, 30, 3000);
	sketch__init(&empty);
	sum2(&x, &a, &empty);
	assert_true(sketch__equal(&x, &a));
	sketch__clear(&x);
	sum2(&x, &empty, &a);
	assert_true(sketch__equal(&x, &a));
	sketch__clear(&x);
	sketch__clear(&a);
}

static void test_sketch_merge_with_itself_doubles(void **state)
{
	struct sketch a, twice;

	make(&a, D_WIDE, 31, 3000);
	sketch__init(&twice);
	rng_seed(31);
	for (size_t k = 0; k < 3000; k++)
		assert_int_equal(sketch__add_n(&twice, loguniform(1.8e19), 2), 0);
	assert_int_equal(sketch__merge(&a, &a), 0);
	assert_true(sketch__equal(&a, &twice));
	sketch__clear(&a);
	sketch__clear(&twice);
}

/* Sketch v[] whole and as `parts` random slices merged left to right and
 * as a balanced tree: all three identical. */
static void check_parts(const uint64_t *v, size_t n, size_t parts)
{
	struct sketch whole, left, *p = calloc(parts, sizeof(*p));
	size_t *cut = calloc(parts + 1, sizeof(*cut));

	assert_non_null(p);
	assert_non_null(cut);
	for (size_t k = 1; k < parts; k++)
		cut[k] = rng_next() % (n + 1);
	cut[parts] = n;
	qsort(cut, parts + 1, sizeof(*cut), cmp_u64);
	build(&whole, v, n);
	sketch__init(&left);
	for (size_t k = 0; k < parts; k++) {
		build(&p[k], v + cut[k], cut[k + 1] - cut[k]);
		assert_int_equal(sketch__merge(&left, &p[k]), 0);
	}
	assert_true(sketch__equal(&left, &whole));
	for (size_t step = 1; step < parts; step *= 2)
		for (size_t k = 0; k + step < parts; k += 2 * step)
			assert_int_equal(sketch__merge(&p[k], &p[k + step]), 0);
	assert_true(sketch__equal(&p[0], &whole));
	for (size_t k = 0; k < parts; k++)
		sketch__clear(&p[k]);
	sketch__clear(&whole);
	sketch__clear(&left);
	free(p);
	free(cut);
}

static void test_sketch_merge_of_parts_equals_whole_stream(void **state)
{
	size_t n = 50000;
	uint64_t *v = alloc_values(n);

	rng_seed(40);
	for (size_t k = 0; k < n; k++)
		v[k] = k % 10 == 0 ? 0 : lognormal(1e5, 1.5);
	check_parts(v, n, 7);
	/* collapsing, in random, ascending and descending order */
	for (size_t k = 0; k < n; k++)
		v[k] = k % 50 == 0 ? 0 : loguniform(1.8e19);
	check_parts(v, n, 9);
	qsort(v, n, sizeof(*v), cmp_u64);
	check_parts(v, n, 5);
	for (size_t k = 0; k < n / 2; k++) {
		uint64_t t = v[k];

		v[k] = v[n - 1 - k];
		v[n - 1 - k] = t;
	}
	check_parts(v, n, 6);
	free(v);
}

static void test_sketch_copy_is_deep_and_equal(void **state)
{
	struct sketch a, b;

	make(&a, D_MID, 50, 1000);
	assert_int_equal(sketch__copy(&b, &a), 0);
	assert_true(sketch__equal(&a, &b));
	assert_ptr_not_equal(a.bins, b.bins);
	assert_int_equal(sketch__add(&b, 1), 0);
	assert_false(sketch__equal(&a, &b));
	sketch__clear(&a);
	sketch__clear(&b);
}

static void test_sketch_score_flags_outliers_of_lognormal_baseline(void **state)
{
	double sigma = 0.15, median = 1e6;
	struct sketch s;

	sketch__init(&s);
	rng_seed(60);
	for (size_t k = 0; k < 20000; k++)
		assert_int_equal(sketch__add(&s, lognormal(median, sigma)), 0);
	assert_true(fabs(sketch__score(&s, (uint64_t)median, 0.01)) < 3);
	assert_true(fabs(sketch__score(&s, (uint64_t)(median * 1.2), 0.01)) < 3);
	assert_true(fabs(sketch__score(&s, (uint64_t)(median / 1.2), 0.01)) < 3);
	/* one sigma away scores about 1: the MAD is scaled to a std deviation */
	{
		double one = sketch__score(&s, (uint64_t)(median * exp(sigma)), 0.01);

		if (!(one > 0.8 && one < 1.2))
			fail_msg("score at +1 sigma = %g", one);
	}
	assert_true(sketch__score(&s, (uint64_t)(median * 10), 0.01) > 10);
	assert_true(sketch__score(&s, (uint64_t)(median / 10), 0.01) < -10);
	assert_true(sketch__score(&s, 0, 0.01) < -10);
	sketch__clear(&s);
}

static void test_sketch_score_of_identical_baseline_uses_floor(void **state)
{
	struct sketch s;
	double sc;

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 5000, 1000), 0);
	assert_true(sketch__score(&s, 5000, 0.1) == 0.0);
	assert_true(sketch__score(&s, 5000, 0.0) == 0.0);
	sc = sketch__score(&s, 10000, 0.1);
	if (fabs(sc - log(2.0) / (1.4826 * 0.1)) > 1e-9)
		fail_msg("score %g, want %g", sc, log(2.0) / (1.4826 * 0.1));
	sc = sketch__score(&s, 2500, 0.5);
	if (fabs(sc + log(2.0) / (1.4826 * 0.5)) > 1e-9)
		fail_msg("score %g, want %g", sc, -log(2.0) / (1.4826 * 0.5));
	sketch__clear(&s);
}

static void test_sketch_score_of_zero_baseline_treats_zero_as_one(void **state)
{
	struct sketch s;
	double sc;

	sketch__init(&s);
	assert_int_equal(sketch__add_n(&s, 0, 100), 0);
	assert_true(sketch__score(&s, 0, 0.2) == 0.0);
	assert_true(sketch__score(&s, 1, 0.2) == 0.0);
	sc = sketch__score(&s, 1000, 0.2);
	if (fabs(sc - log(1000.0) / (1.4826 * 0.2)) > 1e-9)
		fail_msg("score %g", sc);
	sketch__clear(&s);
}

/* JSON text of s, parsed back: the round trip a baseline file makes. */
static struct json_object *reparse(const struct sketch *s)
{
	struct json_object *o = sketch__to_json(s), *back;

	assert_non_null(o);
	back = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_non_null(back);
	json_object_put(o);
	return back;
}

static void check_round_trip(const struct sketch *s)
{
	struct json_object *o = reparse(s), *again;
	struct sketch back;
	char err[256];

	if (sketch__from_json(o, &back, err, sizeof(err)))
		fail_msg("from_json: %s", err);
	assert_true(sketch__equal(s, &back));
	again = sketch__to_json(&back);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    json_object_to_json_string_ext(again, JSON_C_TO_STRING_PLAIN));
	json_object_put(again);
	json_object_put(o);
	sketch__clear(&back);
}

static void test_sketch_json_round_trip_is_equal(void **state)
{
	struct sketch s;

	sketch__init(&s);
	check_round_trip(&s);
	assert_int_equal(sketch__add_n(&s, 0, 4), 0);
	check_round_trip(&s);
	sketch__clear(&s);
	make(&s, D_MID, 70, 5000);
	check_round_trip(&s);
	sketch__clear(&s);
	make(&s, D_WIDE, 71, 20000);
	assert_true(s.collapsed > 0);
	assert_int_equal(sketch__add_n(&s, UINT64_MAX, UINT64_MAX / 2), 0); /* sum near 2^127 */
	check_round_trip(&s);
	sketch__clear(&s);
}

/* A valid sketch as JSON, for the rejection tests to break one field of. */
static struct json_object *valid_json(void)
{
	struct json_object *o;
	struct sketch s;

	sketch__init(&s);
	for (uint64_t v = 1; v <= 1000; v++)
		assert_int_equal(sketch__add(&s, v * 37), 0);
	o = reparse(&s);
	sketch__clear(&s);
	return o;
}

/* from_json(o) fails with -EINVAL and an err mentioning `want`. */
static void expect_reject(struct json_object *o, const char *want)
{
	struct sketch s;
	char err[256] = "";

	sketch__init(&s);
	assert_int_equal(sketch__from_json(o, &s, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != '\0');
	if (!strstr(err, want))
		fail_msg("err \"%s\" does not mention \"%s\"", err, want);
	json_object_put(o);
}

static struct json_object *with(const char *key, struct json_object *val)
{
	struct json_object *o = valid_json();

	json_object_object_add(o, key, val);
	return o;
}

static struct json_object *with_bin0(struct json_object *val)
{
	struct json_object *o = valid_json(), *bins;

	json_object_object_get_ex(o, "bins", &bins);
	json_object_array_put_idx(bins, 0, val);
	return o;
}

static uint64_t field(struct json_object *o, const char *key)
{
	struct json_object *j;

	assert_true(json_object_object_get_ex(o, key, &j));
	return json_object_get_uint64(j);
}

static void test_sketch_from_json_rejects_bad_header(void **state)
{
	struct json_object *o;

	expect_reject(with("v", json_object_new_int(2)), "version");
	expect_reject(with("v", json_object_new_string("1")), "\"v\"");
	expect_reject(with("alpha", json_object_new_double(0.02)), "alpha");
	expect_reject(with("alpha", json_object_new_string("0.01")), "alpha");
	expect_reject(with("count", json_object_new_int(-1)), "negative");
	expect_reject(with("zero_count", json_object_new_int64(-5)), "negative");
	expect_reject(with("offset", json_object_new_int(-1)), "negative");
	expect_reject(with("offset", json_object_new_int(100000)), "offset");
	expect_reject(with("count", json_object_new_string("1000")), "not an integer");
	expect_reject(with("min", json_object_new_double(37.0)), "not an integer");
	expect_reject(with("bins", json_object_new_object()), "bins");
	expect_reject(with("extra", json_object_new_int(1)), "unknown field");
	expect_reject(json_object_new_array(), "object");
	o = valid_json();
	json_object_object_add(o, "min", json_object_new_uint64(field(o, "max") + 1));
	expect_reject(o, "min");
}

static void test_sketch_from_json_rejects_missing_fields(void **state)
{
	static const char *const keys[] = { "v",   "alpha", "count",  "zero_count", "min",
					    "max", "sum",   "offset", "collapsed",  "bins" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		struct json_object *o = valid_json();

		json_object_object_del(o, keys[k]);
		expect_reject(o, keys[k]);
	}
}

static void test_sketch_from_json_rejects_bad_sum(void **state)
{
	expect_reject(with("sum", json_object_new_string("12a")), "sum");
	expect_reject(with("sum", json_object_new_string("-5")), "sum");
	expect_reject(with("sum", json_object_new_string("")), "sum");
	expect_reject(with("sum", json_object_new_string("0123")), "sum");
	expect_reject(with("sum", json_object_new_string("340282366920938463463374607431768211456")), "sum");
	expect_reject(with("sum", json_object_new_int(5)), "sum");
	/* well formed, but not what the bins can add up to */
	expect_reject(with("sum", json_object_new_string("1")), "sum");
	expect_reject(with("sum", json_object_new_string("340282366920938463463374607431768211455")), "sum");
}

static void test_sketch_from_json_rejects_inconsistent_bins(void **state)
{
	struct json_object *o, *bins;

	expect_reject(with_bin0(json_object_new_int(-3)), "negative");
	expect_reject(with_bin0(json_object_new_string("1")), "bins[0]");
	o = valid_json();
	json_object_object_get_ex(o, "bins", &bins);
	json_object_array_put_idx(
		bins, 0, json_object_new_uint64(json_object_get_uint64(json_object_array_get_idx(bins, 0)) + 1));
	expect_reject(o, "count");
	/* more bins than the bound, even if the counts add up */
	o = valid_json();
	bins = json_object_new_array();
	for (int k = 0; k <= SKETCH_MAX_BINS; k++)
		json_object_array_add(bins, json_object_new_int(1));
	json_object_object_add(o, "bins", bins);
	json_object_object_add(o, "count", json_object_new_int(SKETCH_MAX_BINS + 1));
	json_object_object_add(o, "offset", json_object_new_int(0));
	expect_reject(o, "more than");
	/* max not in the last bin */
	o = valid_json();
	json_object_object_add(o, "max", json_object_new_uint64(field(o, "max") * 2));
	expect_reject(o, "bucket");
	/* min not in the first bin */
	o = valid_json();
	json_object_object_add(o, "min", json_object_new_uint64(field(o, "min") + 100));
	expect_reject(o, "bucket");
	/* bins shifted off the values */
	o = valid_json();
	json_object_object_add(o, "offset", json_object_new_uint64(field(o, "offset") + 1));
	expect_reject(o, "bucket");
	/* collapsed without a full range */
	expect_reject(with("collapsed", json_object_new_int(1)), "collapsed");
	/* zeros that min doesn't admit */
	o = valid_json();
	json_object_object_add(o, "zero_count", json_object_new_int(1));
	json_object_object_add(o, "count", json_object_new_uint64(field(o, "count") + 1));
	expect_reject(o, "zero_count");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sketch_uniform_quantiles_within_alpha),
		cmocka_unit_test(test_sketch_lognormal_quantiles_within_alpha),
		cmocka_unit_test(test_sketch_bimodal_quantiles_within_alpha),
		cmocka_unit_test(test_sketch_all_equal_values_are_exact),
		cmocka_unit_test(test_sketch_powers_of_two_within_alpha),
		cmocka_unit_test(test_sketch_values_at_gamma_powers_within_alpha),
		cmocka_unit_test(test_sketch_huge_range_collapses_low_and_keeps_high_quantiles),
		cmocka_unit_test(test_sketch_extreme_values_are_kept),
		cmocka_unit_test(test_sketch_counters_sum_and_mean_are_exact),
		cmocka_unit_test(test_sketch_add_zero_samples_changes_nothing),
		cmocka_unit_test(test_sketch_count_overflow_refused_unchanged),
		cmocka_unit_test(test_sketch_empty_returns_nan),
		cmocka_unit_test(test_sketch_zeros_counted_apart),
		cmocka_unit_test(test_sketch_merge_associative_and_commutative),
		cmocka_unit_test(test_sketch_merge_associative_and_commutative_with_collapse),
		cmocka_unit_test(test_sketch_merge_with_empty_is_identity),
		cmocka_unit_test(test_sketch_merge_with_itself_doubles),
		cmocka_unit_test(test_sketch_merge_of_parts_equals_whole_stream),
		cmocka_unit_test(test_sketch_copy_is_deep_and_equal),
		cmocka_unit_test(test_sketch_score_flags_outliers_of_lognormal_baseline),
		cmocka_unit_test(test_sketch_score_of_identical_baseline_uses_floor),
		cmocka_unit_test(test_sketch_score_of_zero_baseline_treats_zero_as_one),
		cmocka_unit_test(test_sketch_json_round_trip_is_equal),
		cmocka_unit_test(test_sketch_from_json_rejects_bad_header),
		cmocka_unit_test(test_sketch_from_json_rejects_missing_fields),
		cmocka_unit_test(test_sketch_from_json_rejects_bad_sum),
		cmocka_unit_test(test_sketch_from_json_rejects_inconsistent_bins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
