/* SPDX-License-Identifier: MIT */
/*
 * learn.h - the sensor's side of baselines: turn process images and windows
 * into samples, score them, learn them, and say so in their records.
 *
 * The model and the store are in baselines/ (no kernel there); this module
 * knows the kernel's counters (struct pl_stats) and the process table, logs,
 * and decides when to flush the store.
 */
#ifndef PL_LEARN_H
#define PL_LEARN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "baseline.h"
#include "plumbline.h"
#include "proctable.h"
#include "record.h"

struct learner;

/* Make or check the state directory (statedir__check), take its writer
 * lock, held until learner__free(), and open the store under
 * state_dir/baselines, reporting bad files. 0 or -errno (logged): -EPERM
 * for a directory others could write, -EBUSY when another process holds
 * the lock. */
int learner__open(const char *state_dir, const struct bl_policy *pol, struct learner **ret);
/* Save and free. NULL-safe. */
void learner__free(struct learner *l);

/* Find or create pi's baseline from its binary and parent identities. */
void learner__attach(struct learner *l, struct proc_info *pi);

/* child was exec'd by a process running parent's image: observe the child
 * in the parent's baseline; sets child->parent_new_child. */
void learner__child(struct learner *l, struct proc_info *parent, struct proc_info *child);

/*
 * Score one ended image; when `learn`, keep the sample pending for
 * learner__commit(). Returns the "baseline" object for its record (new
 * reference), or NULL when pi has no baseline.
 */
struct json_object *learner__process(struct learner *l, struct proc_info *pi, const struct pl_proc *p,
				     const struct fail_count *fails, uint32_t nfails, uint64_t end_ns, bool learn);

/* Score one window [prev, cur] of duration_ns, pending for learning; NULL when none. */
struct json_object *learner__window(struct learner *l, struct proc_info *pi, const struct pl_stats *cur,
				    const struct pl_stats *prev, uint64_t duration_ns);

/*
 * Learn the sample scored last, unless `alerted` (a rule fired on it) or
 * the policy says no. The fail paths it borrowed must still be alive.
 * Returns whether it was learned.
 */
bool learner__commit(struct learner *l, bool alerted);

/* The "baseline" object of an exec record: readiness, quantiles, and
 * whether the parent had ever executed this binary. NULL without baseline. */
struct json_object *learner__exec(struct learner *l, const struct proc_info *pi);

/* Save dirty baselines; a failure is logged once per failure streak. */
int learner__flush(struct learner *l);

/* Counters for the stats record. */
void learner__stats(const struct learner *l, struct json_object *o);

#endif
