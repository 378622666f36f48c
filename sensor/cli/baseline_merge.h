/* SPDX-License-Identifier: MIT */
/*
 * baseline_merge.h - `baseline merge`'s engine: many hosts' bundles folded
 * into one by key, streaming (one input at a time per worker), on up to
 * BL_MERGE_JOBS_MAX CPUs.
 */
#ifndef PL_BASELINE_MERGE_H
#define PL_BASELINE_MERGE_H

#include <stddef.h>

#include "bundle.h"

#define BL_MERGE_JOBS_MAX 4 /* workers: each holds an accumulator and one input */

/*
 * Merge the bundles files[0..nfiles) on jobs workers (0: one per online
 * CPU, at most BL_MERGE_JOBS_MAX). Each input must pass
 * baseline_fleet__read() with trust and the role (role NULL: the first
 * input's). Returns 0 with *ret, the merged baselines sorted by key (*ret_n;
 * free each and the array), and ret_meta's role, host_list and hosts (the
 * inputs' sum) set, created_ns 0; or -errno, logged naming the file, the
 * outputs untouched. The result does not depend on jobs.
 */
int baseline_merge__run(char **files, int nfiles, const struct bl_keyring *trust, const char *role, unsigned jobs,
			struct bl_bundle_meta *ret_meta, struct baseline ***ret, size_t *ret_n);

#endif
