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

#include <stdbool.h>
#include <stdint.h>

#include "baseline.h"
#include "plumbline.h"
#include "process/proctable.h"
#include "sample.h"
#include "store.h"

#define LEARN_TOP_USERS 4 /* the users most refused over their share, in the stats */

struct learner;

/* Make or check the state directory (statedir__check), take its writer
 * lock, held until learner__free(), and open the store under
 * state_dir/baselines, reporting bad files. 0 or -errno (logged): -EPERM
 * for a directory others could write, -EBUSY when another process holds
 * the lock. */
int learner__open(const char *state_dir, const struct bl_policy *pol, struct learner **ret);
/* Save and free. NULL-safe. */
void learner__free(struct learner *l);

struct fleet;

/*
 * Score against the fleet's view f too (fleet.h; NULL: none): each sample's
 * fleet.* values, and, while a key's own baseline (and any prior) is not
 * ready and the fleet's is, baseline.ready, its quantiles and scores are
 * the fleet's (baseline.source "fleet"). The host keeps learning its own,
 * which takes over once ready. f must outlive the learner or be unset.
 */
void learner__set_fleet(struct learner *l, const struct fleet *f);

/* Find or create pi's baseline from its binary and parent identities. */
void learner__attach(struct learner *l, struct proc_info *pi);

/*
 * child was exec'd by a process running parent's image: observe the child
 * in the parent's baseline; sets child->parent_new_child. The child is a
 * member by path when only root could have placed its executable
 * (exe_trusted: a package upgrade is no new child) or when `fresh` (written
 * in the last 10 minutes: a build's own product, new by nature each build,
 * which the canary judges by path and age), else by path and content
 * (binary_id, baseline__child_member()). A content hash still pending is
 * waited for: the child is judged by path now (a new path is new at once)
 * and child->child_wait says it is observed again, with its content, when
 * the hash comes (learner__child_hashed()).
 */
void learner__child(struct learner *l, struct proc_info *parent, struct proc_info *child, bool fresh);
/* child's hash came (images__on_hashed()): observe it in its parent's
 * baseline by content, if that parent still runs the image that exec'd it. */
void learner__child_hashed(struct learner *l, struct proc_info *parent, struct proc_info *child);

/* pi touched a watched file: member "class:op" against (learn: into) its
 * baseline's files set (baseline__observe_file()). 1: new once ready. */
int learner__file(struct learner *l, struct proc_info *pi, const char *member, bool learn, bool *ret_ready);
/* The image's baseline's set of objects, for a map sample of pi mapping
 * m->path: into m->objects_known, objects_ready, object_new. */
void learner__object_state(struct learner *l, const struct proc_info *pi, struct pl_map_ev *m);
/* Learn it, unless `alerted` (baseline__learn_object()). */
void learner__object_commit(struct learner *l, struct proc_info *pi, const char *path, bool alerted);

/*
 * The baseline's state for a sample of pi at any moment, into s->bl: key,
 * readiness, the learned quantiles of what is ready, the parent's view of
 * this image's exec (nothing when pi has no baseline), and s's frames
 * marked new or not (learner__mark_new_frames).
 */
void learner__state(struct learner *l, const struct proc_info *pi, struct pl_sample *s);

/*
 * Mark each frame of oc's stacks new or not (pl_frame.is_new) against
 * baseline b's functions on CPU, or its prior's when b's are not saturated,
 * or the fleet's (fleet.h) when neither is (baseline__mark_new_frames: NULL
 * b marks nothing new). learner__state()
 * calls it for every sample; a sampler that builds stacks elsewhere calls
 * it on them before they are written. The frames must be oc's own to write.
 * Returns the frames marked new.
 */
uint32_t learner__mark_new_frames(struct learner *l, const struct baseline *b, struct pl_oncpu *oc);

/*
 * The state, and for a window or exit sample its verdict against the
 * baseline (or the prior), into s->bl. With `learn`, the sample is kept
 * pending for learner__commit() (a partial image's never is). The strings
 * and counts of s it borrows must live until then.
 */
void learner__score(struct learner *l, struct proc_info *pi, struct pl_sample *s, bool learn);

/*
 * Learn the sample scored last, unless `alerted` (a rule at Warning or above
 * fired on it) or
 * the policy says no; s->bl.learned (s may be NULL) and the return value
 * say whether it was learned.
 */
bool learner__commit(struct learner *l, bool alerted, struct pl_sample *s);

/* The store's lifetime sweep (bl_store__sweep) now, logged when it removed
 * any: at open, then hourly from learner__flush. */
void learner__sweep(struct learner *l);

/*
 * Save dirty baselines (first touching those in use, and sweeping when an
 * hour has passed): each is encoded here and written by the save thread
 * (saver.h), LEARN_SAVES_PER_TICK now and the rest by learner__flush_more(),
 * at most SAVER_QUEUE_BYTES waiting (counted when full). A failure, reported by learner__saved(), is logged
 * once per failure streak, naming the errno and the first file that could
 * not be written; its baseline stays dirty. Users refused over their share
 * are logged here, once per episode (a flush interval with refusals after
 * one without). 0, or -ENOMEM when a baseline could not be encoded.
 */
int learner__flush(struct learner *l);

#define LEARN_SAVES_PER_TICK 256 /* baselines encoded and queued per tick, at most */

/* Go on queueing the current flush's dirty baselines, at most budget of
 * them (each tick, LEARN_SAVES_PER_TICK: a flush of thousands is spread
 * over ticks instead of stalling one). 0, -ENOBUFS when the save queue is
 * full (the rest wait for the next call), or -ENOMEM. */
int learner__flush_more(struct learner *l, size_t budget);

/* Start the save thread: after the privilege drop (saver__start()). Saves
 * queued before wait for it. 0 or -errno. */
int learner__start(struct learner *l);

/* The save thread's fd (readable when saves finished), and their results. */
int learner__epoll_fd(const struct learner *l);
void learner__saved(struct learner *l);

/* Counters for the stats record. */
/* The counters of the stats record's `baselines`, typed. */
struct learner_counts {
	uint64_t baselines, process_samples, window_samples, anomalous;
	uint64_t without_baseline; /* refusals of a full store included: attach counts them */
	uint64_t save_errors, evicted, aged_out;
	uint64_t refused_full;   /* a full store held only what must be kept (bl_store__refused) */
	uint64_t refused_user;   /* users over their share (bl_store__uid_refused) */
	uint64_t saves_queued;   /* baseline files waiting for the save thread */
	uint64_t saves_dropped;  /* saves not queued (the queue full): the baseline stays dirty */
	struct bl_uid_refusals top_users[LEARN_TOP_USERS];
	size_t ntop_users;
};

void learner__counts(const struct learner *l, struct learner_counts *ret);

/* ---- metrics and `plumbline status` ---- */

#define LEARN_TOP_MAX 5

/* The store by state, and the learning baselines closest to ready. */
/*
 * Rule families and when each is armed (docs/baselines.md#armed): the table is
 * data, learn.c's `families[]`, one line a family; a family judges a kind of
 * readiness of the baselines of the binaries that run. A baseline is active
 * when a process of it was seen in the last LEARN_ACTIVE_S seconds; a family
 * is armed when the active baselines it concerns that are ready for it hold
 * at least LEARN_ARMED_PCT % of those baselines' samples: what runs often
 * weighs as often, a binary run once in ten minutes hardly at all.
 */
#define LEARN_ACTIVE_S 600
#define LEARN_ARMED_PCT 80
#define LEARN_FAMILIES_MAX 12

enum learn_readiness {
	LEARN_READY_LIFETIME, /* process samples >= min_samples: cost, lifetime, deviation */
	LEARN_READY_WINDOWS,  /* window samples >= min_windows, of binaries that live past a window */
	LEARN_READY_SET,      /* the set is saturated (baseline__set_ready()) */
};

struct learn_family_state {
	const char *name;  /* "cost", "windows", "children", "oncpu_objects", ... (static) */
	const char *rules; /* the shipped rule files that need it (static) */
	uint64_t ready, learning;		/* of every baseline it concerns */
	uint64_t active_ready, active_learning; /* of those active (seen in the last LEARN_ACTIVE_S) */
	uint64_t weight_ready, weight_all;	/* the active ones' samples (process, window or draws) */
	/* the active learning ones by what they wait for (enum bl_set_wait:
	 * draws are samples or windows; procs, chance and quiet only for sets) */
	uint64_t waiting[BL_WAIT_QUIET + 1];
	bool armed;
};

struct learn_progress {
	uint64_t baselines;     /* in the store */
	uint64_t ready;         /* process samples >= min_samples (scored) */
	uint64_t learning;      /* not ready yet */
	uint64_t windows_ready; /* window samples >= min_windows */
	uint32_t min_samples, min_windows;
	uint64_t process_samples, window_samples, anomalous, without_baseline, save_errors;
	struct {
		char exe[256];       /* the baseline's exe label, escaped (text_escape) */
		char parent_exe[256];
		char id[BL_SHORT_ID_SIZE]; /* baseline__short_id(), as `baseline list` shows it */
		uint64_t samples;    /* of min_samples */
	} top[LEARN_TOP_MAX];   /* learning baselines with the most samples first */
	size_t ntop;
	struct learn_family_state family[LEARN_FAMILIES_MAX];
	size_t nfamily;
	uint64_t active;	/* baselines seen in the last LEARN_ACTIVE_S */
};

/* Fill *ret. One pass over the store. */
void learner__progress(const struct learner *l, struct learn_progress *ret);

#endif
