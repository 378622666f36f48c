// SPDX-License-Identifier: MIT
/*
 * sketch.c - DDSketch-style quantile sketch: logarithmic buckets in one
 * dense array, bounded by SKETCH_MAX_BINS.
 *
 * The bins are kept in a canonical form that depends only on the multiset
 * of samples added, never on the order they came in or how they were
 * grouped into merges:
 *
 *   - bins[] spans exactly [lowest kept non-empty bucket, bucket of max]:
 *     bins[0] and bins[nbins - 1] are never zero;
 *   - the kept range is [hi - SKETCH_MAX_BINS + 1, hi] with hi the bucket
 *     of max, and every sample whose bucket lies below it is counted in the
 *     lowest kept bucket and in `collapsed`.
 *
 * Because hi only grows, folding into a higher floor composes with earlier
 * folds, and `collapsed` can be recomputed exactly when the floor rises (it
 * is the content of the bins below the new floor, plus the old collapsed
 * samples if they stay where they are). So add and merge give bit-identical
 * sketches for the same samples, and sketch__equal can compare memory.
 * from_json accepts only this canonical form.
 *
 * Bucket indices come from libm's log(); a value within an ulp of a bucket
 * boundary could land one bucket over on another libm, which from_json
 * would see as min/max outside their buckets.
 */
#include "sketch.h"

#include "jsonfield.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKETCH_VERSION 1

static double log_gamma(void)
{
	return log((1.0 + SKETCH_ALPHA) / (1.0 - SKETCH_ALPHA));
}

/* Bucket of v >= 1. The largest, index_of(UINT64_MAX), is about 2219. */
static int32_t index_of(uint64_t v)
{
	return (int32_t)ceil(log((double)v) / log_gamma());
}

static double representative(int32_t i)
{
	double gamma = (1.0 + SKETCH_ALPHA) / (1.0 - SKETCH_ALPHA);

	return 2.0 * exp((double)i * log_gamma()) / (gamma + 1.0);
}

static int32_t top_index(const struct sketch *s)
{
	return s->offset + (int32_t)s->nbins - 1;
}

void sketch__init(struct sketch *s)
{
	memset(s, 0, sizeof(*s));
}

void sketch__clear(struct sketch *s)
{
	free(s->bins);
	sketch__init(s);
}

/*
 * Add src's bins into dst, which covers [lo, lo + n). Buckets of src below
 * lo land in dst[0]. Returns how many of src's samples are now collapsed:
 * all of its bins below lo (they include its old collapsed samples), or its
 * old collapsed count if its floor did not move.
 */
static uint64_t fold_into(uint64_t *dst, int32_t lo, const struct sketch *src)
{
	uint64_t folded = 0;

	for (uint32_t k = 0; k < src->nbins; k++) {
		int32_t i = src->offset + (int32_t)k;

		if (i < lo) {
			dst[0] += src->bins[k];
			folded += src->bins[k];
		} else {
			dst[i - lo] += src->bins[k];
		}
	}
	return src->nbins && src->offset >= lo ? src->collapsed : folded;
}

/* Beyond the header's contract: -EOVERFLOW (unchanged) if count would wrap. */
int sketch__add_n(struct sketch *s, uint64_t v, uint64_t n)
{
	int32_t idx = v >= 1 ? index_of(v) : 0;

	if (n == 0)
		return 0;
	if (s->count > UINT64_MAX - n)
		return -EOVERFLOW;
	if (v >= 1 && !(s->nbins && idx <= top_index(s) && (idx >= s->offset || s->nbins == SKETCH_MAX_BINS))) {
		/* the range changes: the one place that does that is merge */
		struct sketch one = { .count = n,
				      .min = v,
				      .max = v,
				      .sum = (unsigned __int128)v * n,
				      .offset = idx,
				      .nbins = 1,
				      .bins = &n };

		return sketch__merge(s, &one);
	}
	if (v < 1) {
		s->zero_count += n;
	} else if (idx < s->offset) { /* full range, below it: fold */
		s->bins[0] += n;
		s->collapsed += n;
	} else {
		s->bins[idx - s->offset] += n;
	}
	if (!s->count || v < s->min)
		s->min = v;
	if (!s->count || v > s->max)
		s->max = v;
	s->count += n;
	s->sum += (unsigned __int128)v * n; /* < 2^128: count and v are < 2^64 */
	return 0;
}

/* Beyond the header's contract: -EOVERFLOW (unchanged) if count would wrap. */
int sketch__merge(struct sketch *dst, const struct sketch *src)
{
	const struct sketch *both[2] = { dst, src };
	uint64_t *bins = NULL, collapsed = 0;
	int32_t lo = INT32_MAX, hi = -1;

	if (dst->count > UINT64_MAX - src->count)
		return -EOVERFLOW;
	for (int k = 0; k < 2; k++) {
		if (!both[k]->nbins)
			continue;
		lo = both[k]->offset < lo ? both[k]->offset : lo;
		hi = top_index(both[k]) > hi ? top_index(both[k]) : hi;
	}
	if (hi >= 0) {
		/* the kept range: at most SKETCH_MAX_BINS buckets, ending at max's */
		if (lo < hi - SKETCH_MAX_BINS + 1)
			lo = hi - SKETCH_MAX_BINS + 1;
		bins = calloc((size_t)(hi - lo + 1), sizeof(*bins));
		if (!bins)
			return -ENOMEM;
		/* dst == src is fine: both are read before dst is written */
		collapsed = fold_into(bins, lo, dst) + fold_into(bins, lo, src);
	}
	if (src->count) {
		if (!dst->count || src->min < dst->min)
			dst->min = src->min;
		if (!dst->count || src->max > dst->max)
			dst->max = src->max;
	}
	dst->count += src->count;
	dst->zero_count += src->zero_count;
	dst->sum += src->sum;
	free(dst->bins);
	dst->bins = bins;
	dst->offset = bins ? lo : 0;
	dst->nbins = bins ? (uint32_t)(hi - lo + 1) : 0;
	dst->collapsed = collapsed;
	return 0;
}

int sketch__copy(struct sketch *ret, const struct sketch *src)
{
	uint64_t *bins = NULL;

	if (src->nbins) {
		bins = malloc(src->nbins * sizeof(*bins));
		if (!bins)
			return -ENOMEM;
		memcpy(bins, src->bins, src->nbins * sizeof(*bins));
	}
	*ret = *src;
	ret->bins = bins;
	return 0;
}

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

double sketch__quantile(const struct sketch *s, double q)
{
	double rank, lo;
	uint64_t cum;

	if (!s->count || !(q >= 0.0 && q <= 1.0))
		return NAN;
	if (q == 0.0)
		return (double)s->min;
	if (q == 1.0)
		return (double)s->max;
	/* the sample of sorted rank floor(q * (count - 1)) */
	rank = q * (double)(s->count - 1);
	cum = s->zero_count;
	if ((double)cum > rank)
		return (double)s->min;
	/* bins hold values >= 1 only: a min of 0 belongs to the zeros */
	lo = s->min > 1 ? (double)s->min : 1.0;
	for (uint32_t k = 0; k < s->nbins; k++) {
		cum += s->bins[k];
		if ((double)cum > rank)
			return clamp(representative(s->offset + (int32_t)k), lo, (double)s->max);
	}
	return (double)s->max; /* unreachable while bins sum to count - zero_count */
}

double sketch__mean(const struct sketch *s)
{
	if (!s->count)
		return NAN;
	return (double)((long double)s->sum / (long double)s->count);
}

/*
 * ln of item k of the sorted sequence: item 0 is the zeros (as value 1),
 * item k + 1 is bucket offset + k. Clamped to [min, max] like quantiles, so
 * a baseline of identical values has a MAD of exactly 0.
 */
static double item_ln(const struct sketch *s, uint32_t k)
{
	double lo = s->min > 1 ? (double)s->min : 1.0;

	if (k == 0)
		return 0.0;
	return log(clamp(representative(s->offset + (int32_t)k - 1), lo, (double)s->max));
}

static uint64_t item_weight(const struct sketch *s, uint32_t k)
{
	return k == 0 ? s->zero_count : s->bins[k - 1];
}

/*
 * Weighted median of |item_ln - m|, same rank convention as quantiles.
 * item_ln is nondecreasing, so the deviations are sorted by walking outward
 * from m with two cursors: no allocation, no sort.
 */
static double mad_ln(const struct sketch *s, double m)
{
	double rank = 0.5 * (double)(s->count - 1);
	uint32_t nitems = s->nbins + 1, right = 0;
	int64_t left;
	uint64_t cum = 0;

	while (right < nitems && item_ln(s, right) < m)
		right++;
	left = (int64_t)right - 1;
	while (left >= 0 || right < nitems) {
		double dl = left >= 0 ? m - item_ln(s, (uint32_t)left) : INFINITY;
		double dr = right < nitems ? item_ln(s, right) - m : INFINITY;
		double d;

		if (dl <= dr) {
			d = dl;
			cum += item_weight(s, (uint32_t)left--);
		} else {
			d = dr;
			cum += item_weight(s, right++);
		}
		if ((double)cum > rank)
			return d;
	}
	return 0.0;
}

double sketch__score(const struct sketch *s, uint64_t v, double mad_floor)
{
	double m, mad, num;

	if (!s->count)
		return NAN;
	m = log(fmax(sketch__quantile(s, 0.5), 1.0));
	mad = fmax(mad_ln(s, m), mad_floor);
	num = log(v > 1 ? (double)v : 1.0) - m;
	if (num == 0.0)
		return 0.0; /* not 0/0 when mad_floor is 0 */
	return num / (1.4826 * mad);
}

/* The share of samples >= v, from the buckets (a bucket holding v counts whole). */
static double tail_share(const struct sketch *s, uint64_t v)
{
	uint64_t below;
	int32_t idx;

	if (v <= s->min)
		return 1.0;
	if (v > s->max)
		return 0.0;
	below = s->zero_count;
	idx = index_of(v);
	for (uint32_t k = 0; k < s->nbins && s->offset + (int32_t)k < idx; k++)
		below += s->bins[k];
	return (double)(s->count - below) / (double)s->count;
}

double sketch__tail_score(const struct sketch *s, uint64_t v, double noise_floor, double *tail)
{
	double p50, p99, width, excess, score;

	if (tail)
		*tail = s->count ? tail_share(s, v) : NAN;
	if (!s->count)
		return NAN;
	p50 = sketch__quantile(s, 0.5);
	p99 = sketch__quantile(s, 0.99);
	width = fmax(p99 - p50, noise_floor);
	if (!(width > 0))
		width = 1.0;
	excess = (double)v - p99 - (noise_floor > 0 ? noise_floor : 0);
	if (!(excess > 0))
		return 0.0;
	/* no discount for values below the max: one learned outlier must not
	 * make everything up to it normal (a mode is normal once above p99) */
	score = excess / width;
	return score;
}

/* x in decimal, written backwards from the end of buf[40]; returns the start. */
static char *u128_to_dec(unsigned __int128 x, char buf[40])
{
	char *p = buf + 39;

	*p = '\0';
	do {
		*--p = (char)('0' + (int)(x % 10));
		x /= 10;
	} while (x);
	return p;
}

struct json_object *sketch__to_json(const struct sketch *s)
{
	struct json_object *o = json_object_new_object(), *bins;
	char buf[40];

	if (!o)
		return NULL;
	if (jf_add(o, "v", json_object_new_int(SKETCH_VERSION)) ||
	    jf_add(o, "alpha", json_object_new_double(SKETCH_ALPHA)) ||
	    jf_add(o, "count", json_object_new_uint64(s->count)) ||
	    jf_add(o, "zero_count", json_object_new_uint64(s->zero_count)) ||
	    jf_add(o, "min", json_object_new_uint64(s->min)) || jf_add(o, "max", json_object_new_uint64(s->max)) ||
	    jf_add(o, "sum", json_object_new_string(u128_to_dec(s->sum, buf))) ||
	    jf_add(o, "offset", json_object_new_int(s->offset)) ||
	    jf_add(o, "collapsed", json_object_new_uint64(s->collapsed)))
		goto fail;
	bins = json_object_new_array_ext((int)s->nbins);
	if (jf_add(o, "bins", bins))
		goto fail;
	for (uint32_t k = 0; k < s->nbins; k++) {
		struct json_object *j = json_object_new_uint64(s->bins[k]);

		if (!j || json_object_array_add(bins, j)) {
			json_object_put(j);
			goto fail;
		}
	}
	return o;
fail:
	json_object_put(o);
	return NULL;
}


/* A non-negative JSON integer into *ret. */
static int get_u64(struct json_object *o, const char *key, uint64_t *ret, char *err, size_t errlen)
{
	return jf_get_u64(o, key, "sketch", ret, err, errlen);
}

/* Digits only, no leading zero, below 2^128. */
static int parse_u128(const char *str, size_t len, unsigned __int128 *ret)
{
	unsigned __int128 x = 0, max = ~(unsigned __int128)0;

	if (len == 0 || len > 39 || (len > 1 && str[0] == '0'))
		return -EINVAL;
	for (size_t k = 0; k < len; k++) {
		unsigned d = (unsigned)(str[k] - '0');

		if (str[k] < '0' || str[k] > '9')
			return -EINVAL;
		if (x > (max - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*ret = x;
	return 0;
}

static const char *const sketch_keys[] = {
	"v", "alpha", "count", "zero_count", "min", "max", "sum", "offset", "collapsed", "bins", NULL,
};

static int check_keys(struct json_object *o, char *err, size_t errlen)
{
	return jf_check_keys(o, sketch_keys, "sketch", err, errlen);
}

/* The fields that need only the header, before any bins are read. */
static int parse_header(struct json_object *o, struct sketch *s, char *err, size_t errlen)
{
	struct json_object *j;
	uint64_t u;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return jf_fail(err, errlen, "sketch: not a JSON object");
	r = check_keys(o, err, errlen);
	if (r)
		return r;
	if (!json_object_object_get_ex(o, "v", &j) || !json_object_is_type(j, json_type_int))
		return jf_fail(err, errlen, "sketch: missing or non-integer version \"v\"");
	if (json_object_get_int64(j) != SKETCH_VERSION)
		return jf_fail(err, errlen, "sketch: unsupported version %lld (want %d)",
			    (long long)json_object_get_int64(j), SKETCH_VERSION);
	if (!json_object_object_get_ex(o, "alpha", &j) || !json_object_is_type(j, json_type_double))
		return jf_fail(err, errlen, "sketch: missing or non-number \"alpha\"");
	if (fabs(json_object_get_double(j) - SKETCH_ALPHA) > 1e-12)
		return jf_fail(err, errlen, "sketch: alpha %g does not match this build's %g", json_object_get_double(j),
			    SKETCH_ALPHA);
	if ((r = get_u64(o, "count", &s->count, err, errlen)) ||
	    (r = get_u64(o, "zero_count", &s->zero_count, err, errlen)) ||
	    (r = get_u64(o, "min", &s->min, err, errlen)) || (r = get_u64(o, "max", &s->max, err, errlen)) ||
	    (r = get_u64(o, "collapsed", &s->collapsed, err, errlen)) || (r = get_u64(o, "offset", &u, err, errlen)))
		return r;
	if (u > (uint64_t)index_of(UINT64_MAX))
		return jf_fail(err, errlen, "sketch: offset %llu beyond the last bucket %d", (unsigned long long)u,
			    index_of(UINT64_MAX));
	s->offset = (int32_t)u;
	if (!json_object_object_get_ex(o, "sum", &j) || !json_object_is_type(j, json_type_string))
		return jf_fail(err, errlen, "sketch: missing or non-string \"sum\"");
	r = parse_u128(json_object_get_string(j), (size_t)json_object_get_string_len(j), &s->sum);
	if (r)
		return jf_fail(err, errlen, "sketch: \"sum\" is not a decimal integer below 2^128");
	if (s->min > s->max)
		return jf_fail(err, errlen, "sketch: min %llu > max %llu", (unsigned long long)s->min,
			    (unsigned long long)s->max);
	if (s->zero_count > s->count)
		return jf_fail(err, errlen, "sketch: zero_count > count");
	return 0;
}

static int parse_bins(struct json_object *o, struct sketch *s, char *err, size_t errlen)
{
	struct json_object *arr;
	uint64_t total = s->zero_count;
	size_t n;

	if (!json_object_object_get_ex(o, "bins", &arr) || !json_object_is_type(arr, json_type_array))
		return jf_fail(err, errlen, "sketch: missing or non-array \"bins\"");
	n = json_object_array_length(arr);
	if (n > SKETCH_MAX_BINS)
		return jf_fail(err, errlen, "sketch: %zu bins, more than %d", n, SKETCH_MAX_BINS);
	if (n && (int64_t)s->offset + (int64_t)n - 1 > index_of(UINT64_MAX))
		return jf_fail(err, errlen, "sketch: bins end beyond the last bucket %d", index_of(UINT64_MAX));
	if (n) {
		s->bins = calloc(n, sizeof(*s->bins));
		if (!s->bins)
			return -ENOMEM;
	}
	s->nbins = (uint32_t)n;
	for (size_t k = 0; k < n; k++) {
		struct json_object *j = json_object_array_get_idx(arr, k);

		if (!json_object_is_type(j, json_type_int))
			return jf_fail(err, errlen, "sketch: bins[%zu] is not an integer", k);
		if (json_object_get_int64(j) < 0)
			return jf_fail(err, errlen, "sketch: bins[%zu] is negative", k);
		s->bins[k] = json_object_get_uint64(j);
		if (total > UINT64_MAX - s->bins[k])
			return jf_fail(err, errlen, "sketch: bins overflow the count");
		total += s->bins[k];
	}
	if (total != s->count)
		return jf_fail(err, errlen, "sketch: zero_count + sum(bins) = %llu, but count = %llu",
			    (unsigned long long)total, (unsigned long long)s->count);
	return 0;
}

/* Everything that ties the header to the bins; see the canonical form. */
static int check_consistency(const struct sketch *s, char *err, size_t errlen)
{
	if (!s->count) {
		if (s->min || s->max || s->sum || s->collapsed || s->offset || s->nbins)
			return jf_fail(err, errlen, "sketch: empty but min, max, sum, offset, collapsed or bins is not 0");
		return 0;
	}
	if ((s->min == 0) != (s->zero_count > 0))
		return jf_fail(err, errlen, "sketch: min %llu disagrees with zero_count %llu", (unsigned long long)s->min,
			    (unsigned long long)s->zero_count);
	if (s->sum < (unsigned __int128)s->min * s->count || s->sum > (unsigned __int128)s->max * s->count)
		return jf_fail(err, errlen, "sketch: sum outside [min * count, max * count]");
	if (!s->nbins) {
		if (s->max != 0 || s->offset || s->collapsed)
			return jf_fail(err, errlen, "sketch: no bins but max, offset or collapsed is not 0");
		return 0;
	}
	if (!s->bins[0] || !s->bins[s->nbins - 1])
		return jf_fail(err, errlen, "sketch: bins not trimmed (first or last is 0)");
	if (s->max < 1)
		return jf_fail(err, errlen, "sketch: bins are not empty but max is 0");
	if (index_of(s->max) != top_index(s))
		return jf_fail(err, errlen, "sketch: max %llu is in bucket %d, but the last bin is bucket %d",
			    (unsigned long long)s->max, index_of(s->max), top_index(s));
	if (s->collapsed) {
		if (s->nbins != SKETCH_MAX_BINS || s->collapsed > s->bins[0])
			return jf_fail(err, errlen, "sketch: collapsed %llu with %u bins of bound %d, first bin %llu",
				    (unsigned long long)s->collapsed, s->nbins, SKETCH_MAX_BINS,
				    (unsigned long long)s->bins[0]);
		if (s->min >= 1 && index_of(s->min) >= s->offset)
			return jf_fail(err, errlen, "sketch: collapsed but min %llu is in a kept bucket",
				    (unsigned long long)s->min);
	} else if (s->min >= 1 && index_of(s->min) != s->offset) {
		return jf_fail(err, errlen, "sketch: min %llu is in bucket %d, but the first bin is bucket %d",
			    (unsigned long long)s->min, index_of(s->min), s->offset);
	}
	return 0;
}

int sketch__from_json(struct json_object *o, struct sketch *ret, char *err, size_t errlen)
{
	struct sketch s;
	int r;

	sketch__init(&s);
	if (err && errlen)
		err[0] = '\0';
	if (!o)
		return jf_fail(err, errlen, "sketch: null");
	r = parse_header(o, &s, err, errlen);
	if (!r)
		r = parse_bins(o, &s, err, errlen);
	if (!r)
		r = check_consistency(&s, err, errlen);
	if (r) {
		if (r == -ENOMEM)
			jf_fail(err, errlen, "sketch: out of memory");
		sketch__clear(&s);
		return r;
	}
	*ret = s;
	return 0;
}

bool sketch__equal(const struct sketch *a, const struct sketch *b)
{
	return a->count == b->count && a->zero_count == b->zero_count && a->min == b->min && a->max == b->max &&
	       a->sum == b->sum && a->offset == b->offset && a->nbins == b->nbins && a->collapsed == b->collapsed &&
	       (!a->nbins || !memcmp(a->bins, b->bins, a->nbins * sizeof(*a->bins)));
}
