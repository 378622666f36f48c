// SPDX-License-Identifier: MIT
/*
 * baseline_merge.c - many hosts' bundles into one (baseline_merge.h).
 *
 * Reading a bundle is parsing JSON, and parsing dominates a fleet's merge
 * (docs/performance.md, "Fleet bundles"), so the inputs are split into
 * contiguous runs, one per worker; each worker folds its run one input at
 * a time into an accumulator sorted by key (memory: the accumulator and one
 * input, whatever the number of inputs), and the accumulators are folded in
 * input order at the end. Merging baselines is exact and associative, and
 * what it keeps of the first (prior_key, uid: the first that has one) is
 * kept in input order too, so the result is the one a single pass makes,
 * whatever the number of workers.
 */
#include "cli/baseline_merge.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/baseline_fleet.h"
#include "log.h"
#include "store.h"
#include "thread.h"

struct acc {
	struct baseline **b;
	size_t n;
};

struct job {
	char **files;
	int from, to; /* this worker's inputs */
	const struct bl_keyring *trust;
	const char *role;
	struct bl_bundle_meta *metas; /* per input: its role, hosts and host names */
	atomic_bool *stop;	      /* a worker failed: the others stop at their next input */
	struct acc acc;
	int r;
	pthread_t tid;
	bool started; /* on a thread of its own (job 0 runs on the caller's) */
};

static int cmp_key(const void *a, const void *b)
{
	return strcmp((*(struct baseline *const *)a)->key, (*(struct baseline *const *)b)->key);
}

static void acc_free(struct acc *a)
{
	for (size_t i = 0; i < a->n; i++)
		baseline__free(a->b[i]);
	free(a->b);
	a->b = NULL;
	a->n = 0;
}

/*
 * Merge the n baselines of bs (sorted by key when sorted, else sorted here;
 * consumed, and the array freed) into acc, sorted by key with no key twice;
 * the result is the same, acc's baseline first for a key both hold. Sorted
 * merging keeps a fleet's merge O(n log n): 65536 keys are compared a
 * million times, not two billion.
 */
static int merge_into(struct acc *acc, struct baseline **bs, size_t n, bool sorted)
{
	struct baseline **out = malloc((acc->n + n ? acc->n + n : 1) * sizeof(*out));
	size_t i = 0, j = 0, k = 0;
	int r = 0;

	if (!out) {
		for (size_t x = 0; x < n; x++)
			baseline__free(bs[x]);
		free(bs);
		return -ENOMEM;
	}
	if (!sorted)
		qsort(bs, n, sizeof(*bs), cmp_key);
	while (i < acc->n || j < n) {
		struct baseline *next =
		    j == n || (i < acc->n && strcmp(acc->b[i]->key, bs[j]->key) <= 0) ? acc->b[i++] : bs[j++];

		if (k > 0 && strcmp(out[k - 1]->key, next->key) == 0) {
			if (!r)
				r = baseline__merge(out[k - 1], next);
			baseline__free(next);
		} else {
			out[k++] = next;
		}
	}
	free(acc->b);
	free(bs);
	acc->b = out;
	acc->n = k;
	return r;
}

static void *work(void *arg)
{
	struct job *j = arg;

	for (int f = j->from; f < j->to && !j->r && !atomic_load(j->stop); f++) {
		struct baseline **bs;
		char id[BL_KEY_ID_LEN + 1];
		size_t n;

		j->r = baseline_fleet__read(j->files[f], j->trust, j->role, &j->metas[f], id, &bs, &n);
		if (j->r < 0)
			break;
		j->r = merge_into(&j->acc, bs, n, false);
		if (j->r < 0)
			log_error_errno(j->r, "Cannot merge '%s': %m", j->files[f]);
		else if (j->acc.n > BL_STORE_MAX)
			j->r = log_error_errno(
			    EFBIG, "With '%s', the merge holds %zu baselines, more than the %u a store keeps",
			    j->files[f], j->acc.n, BL_STORE_MAX);
	}
	if (j->r < 0)
		atomic_store(j->stop, true);
	return NULL;
}

/* The role the inputs must have: role, or without it the first input's (its header alone). */
static int first_role(char **files, const struct bl_keyring *trust, const char *role, char ret[BL_ROLE_MAX + 1])
{
	struct bl_bundle_meta *m;
	enum bl_sig sig;
	char err[512];
	int r;

	if (role) {
		snprintf(ret, BL_ROLE_MAX + 1, "%s", role);
		return 0;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return log_error_errno(ENOMEM, "Out of memory");
	r = bl_bundle__read_meta(files[0], trust, m, &sig, NULL, NULL, NULL, err, sizeof(err));
	if (r < 0)
		log_error_errno(r, "Cannot read '%s': %s", files[0], err);
	else
		snprintf(ret, BL_ROLE_MAX + 1, "%s", m->role);
	free(m);
	return r;
}

int baseline_merge__run(char **files, int nfiles, const struct bl_keyring *trust, const char *role, unsigned jobs,
			struct bl_bundle_meta *ret_meta, struct baseline ***ret, size_t *ret_n)
{
	struct bl_bundle_meta *metas = calloc(nfiles ? (size_t)nfiles : 1, sizeof(*metas)), *out;
	char want[BL_ROLE_MAX + 1] = "";
	struct job *j = NULL;
	atomic_bool stop = false;
	uint64_t hosts = 0;
	int r;

	if (!jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (jobs > BL_MERGE_JOBS_MAX)
		jobs = BL_MERGE_JOBS_MAX;
	if (nfiles > 0 && jobs > (unsigned)nfiles)
		jobs = (unsigned)nfiles;
	if (!metas || !(j = calloc(jobs, sizeof(*j)))) {
		free(metas);
		return log_error_errno(ENOMEM, "Out of memory");
	}
	r = nfiles > 0 ? first_role(files, trust, role, want) : 0;
	for (unsigned t = 0; t < jobs; t++)
		j[t] = (struct job){.files = files,
				    .from = (int)((uint64_t)nfiles * t / jobs),
				    .to = (int)((uint64_t)nfiles * (t + 1) / jobs),
				    .trust = trust,
				    .role = want,
				    .metas = metas,
				    .stop = &stop,
				    .r = r};
	for (unsigned t = 1; !r && t < jobs; t++) {
		int e = pl_thread_start(&j[t].tid, work, &j[t]);

		if (e < 0) {
			r = log_error_errno(e, "Cannot start a merge worker: %m");
			atomic_store(&stop, true);
			break;
		}
		j[t].started = true;
	}
	if (!r)
		work(&j[0]);
	for (unsigned t = 1; t < jobs; t++)
		if (j[t].started)
			pthread_join(j[t].tid, NULL);
	/* in input order: the first failure, then the accumulators */
	for (unsigned t = 0; t < jobs && !r; t++)
		r = j[t].r;
	for (unsigned t = 1; t < jobs && !r; t++) {
		r = merge_into(&j[0].acc, j[t].acc.b, j[t].acc.n, true);
		j[t].acc = (struct acc){0};
		if (r < 0)
			log_error_errno(r, "Cannot merge: %m");
		else if (j[0].acc.n > BL_STORE_MAX)
			r = log_error_errno(EFBIG, "The merge holds %zu baselines, more than the %u a store keeps",
					    j[0].acc.n, BL_STORE_MAX);
	}
	out = r ? NULL : calloc(1, sizeof(*out));
	if (!r && !out)
		r = log_error_errno(ENOMEM, "Out of memory");
	for (int f = 0; !r && f < nfiles; f++) {
		hosts += metas[f].hosts;
		bl_bundle_meta__add_hosts(out, &metas[f]);
	}
	if (!r && hosts > UINT32_MAX)
		r = log_error_errno(EOVERFLOW, "The merge holds more than %u hosts", UINT32_MAX);
	for (unsigned t = r ? 0 : 1; t < jobs; t++)
		acc_free(&j[t].acc);
	if (!r) {
		snprintf(out->role, sizeof(out->role), "%s", want);
		out->hosts = (uint32_t)hosts;
		*ret_meta = *out;
		*ret = j[0].acc.b;
		*ret_n = j[0].acc.n;
	}
	free(out);
	free(metas);
	free(j);
	return r;
}
