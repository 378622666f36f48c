/* SPDX-License-Identifier: MIT */
/*
 * sketch.h - a bounded, mergeable quantile sketch with a relative-error
 * guarantee (DDSketch-style logarithmic buckets).
 *
 * A value v >= 1 goes to bucket i = ceil(log_gamma(v)), gamma = (1+a)/(1-a),
 * whose representative 2*gamma^i/(gamma+1) is within a relative error a of
 * every value in the bucket; values < 1 (zeros) are counted apart. So any
 * quantile read back is within a of the true quantile's value, as long as
 * its bucket was not collapsed. Memory is bounded by SKETCH_MAX_BINS: when
 * the range would need more, the lowest buckets are folded into one (the
 * high quantiles, which detection reads, keep the guarantee).
 *
 * count, zero_count, min, max and sum are exact. Merging adds bucket counts,
 * so it is exactly associative and commutative, collapsing included.
 * Values are unsigned integers: nanoseconds, or counts per window.
 */
#ifndef PL_SKETCH_H
#define PL_SKETCH_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SKETCH_ALPHA 0.01      /* relative accuracy of quantiles */
#define SKETCH_MAX_BINS 2048   /* bound on buckets (16 KiB of counts) */

struct sketch {
	uint64_t count;      /* all samples */
	uint64_t zero_count; /* samples < 1 */
	uint64_t min, max;   /* exact; meaningless when count == 0 */
	unsigned __int128 sum;
	int32_t offset;      /* bucket index of bins[0] */
	uint32_t nbins;
	uint64_t collapsed;  /* samples folded into bins[0] by the bound */
	uint64_t *bins;
};

void sketch__init(struct sketch *s);
void sketch__clear(struct sketch *s); /* frees, leaves an empty sketch */

/* Add n samples of value v. 0 or -ENOMEM (sketch unchanged). */
int sketch__add_n(struct sketch *s, uint64_t v, uint64_t n);
static inline int sketch__add(struct sketch *s, uint64_t v)
{
	return sketch__add_n(s, v, 1);
}

/* dst += src. 0 or -ENOMEM (dst unchanged). */
int sketch__merge(struct sketch *dst, const struct sketch *src);
/* A deep copy into *ret (initialized by the call). 0 or -ENOMEM. */
int sketch__copy(struct sketch *ret, const struct sketch *src);

/* The q-quantile (0 <= q <= 1), clamped to [min, max]; NAN when empty. */
double sketch__quantile(const struct sketch *s, double q);
double sketch__mean(const struct sketch *s);

/*
 * Robust deviation of v: (ln v - ln median) / (1.4826 * MAD of ln values),
 * with the MAD floored at `mad_floor` (in ln units) so a baseline of
 * identical values doesn't turn noise into huge scores. Positive: larger
 * than usual. NAN when empty.
 */
double sketch__score(const struct sketch *s, uint64_t v, double mad_floor);

/*
 * Where v falls in the learned distribution (the score baselines use): 0
 * anywhere up to the 99th percentile plus `noise_floor`, so every mode that
 * holds more than 1 % of the samples is normal; beyond it, the excess in
 * units of the distribution's upper spread, max(p99 - p50, noise_floor):
 *
 *   score = (v - p99 - noise_floor) / max(p99 - p50, noise_floor)
 *
 * Never negative: smaller than usual scores 0.
 * NAN when empty. *tail (may be NULL) gets the share of learned samples
 * >= v (1 when v is at or below the minimum).
 */
double sketch__tail_score(const struct sketch *s, uint64_t v, double noise_floor, double *tail);

/* Serialize; NULL on ENOMEM. */
struct json_object *sketch__to_json(const struct sketch *s);
/*
 * Parse and validate (every field, every bound, consistency of counts).
 * 0 and *ret (initialized here), or -EINVAL with a message in err.
 */
int sketch__from_json(struct json_object *o, struct sketch *ret, char *err, size_t errlen);

bool sketch__equal(const struct sketch *a, const struct sketch *b);

#endif
