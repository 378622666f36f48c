/* SPDX-License-Identifier: MIT */
/*
 * sample_json_int.h - what the record writer (sample_json.c) and its parser
 * (sample_parse.c) share: the tables both walk, so that a field written is
 * a field read back.
 */
#ifndef PL_SAMPLE_JSON_INT_H
#define PL_SAMPLE_JSON_INT_H

#include "sample.h"

/* The quantiles a rule can compare with, in its units (ms, per second). */
struct sample_quantile {
	const char *name;
	enum pl_dist d;
	double div; /* from the sample's unit: 1e6 for ns to ms */
};
#define SAMPLE_QUANTILES 8
extern const struct sample_quantile sample_quantiles[SAMPLE_QUANTILES];
extern const char *const sample_qnames[3]; /* "p50", "p90", "p99" */

#endif
