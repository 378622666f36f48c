/* SPDX-License-Identifier: MIT */
/*
 * learn_int.h - the learner's state, shared by learn.c (scoring and
 * learning) and learn_progress.c (what it says of its readiness). Not API:
 * the rest of the sensor goes through learn.h.
 */
#ifndef PL_LEARN_INT_H
#define PL_LEARN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "baseline.h"
#include "pipeline/learn.h"
#include "store.h"
#include "syscalls.h"

struct fleet;
struct saver;

/* A scored sample waiting for the rules' decision (learner__commit). */
enum pending_kind { PENDING_NONE, PENDING_PROCESS, PENDING_WINDOW };

#define LEARN_MAX_OBJECTS 128 /* on-CPU objects of one sample learned (most samples first) */
#define LEARN_MAX_FUNCS 256	   /* distinct functions of one sample's kept stacks learned (heaviest stacks first) */
#define LEARN_FN_ARENA (64u << 10) /* ... and the bytes of their members */

struct pending {
	enum pending_kind kind;
	struct baseline *b;
	struct bl_process_sample ps;
	struct bl_window_sample ws;
	struct bl_verdict v;
	struct bl_verdict fv; /* against the fleet's baseline of the key (fleet.*) */
	const char *paths[PROC_MAX_FAIL_KEYS]; /* borrowed from the sample until commit */
	const char *names[PL_NR_SYSCALLS];
	const char *objs[LEARN_MAX_OBJECTS]; /* on-CPU objects, borrowed likewise */
	uint64_t obj_counts[LEARN_MAX_OBJECTS];
	const char *fns[LEARN_MAX_FUNCS]; /* on-CPU functions' members, in fn_arena */
	uint64_t fn_counts[LEARN_MAX_FUNCS]; /* ... the samples of the stacks each is in */
	uint32_t fn_stack[LEARN_MAX_FUNCS];  /* ... the last stack counted (a recursion counts once) */
	char fn_arena[LEARN_FN_ARENA];
};

#define QCACHE_SLOTS 1024

struct qcache {
	const struct baseline *b;
	uint64_t samples, windows, updated_ns; /* b as the quantiles were computed */
	double q[PL_WIN_OPEN_FAIL + 1][3];
};

struct learner {
	struct bl_policy pol;
	struct pending pending;
	struct bl_store *store;
	char *dir;
	int lock_fd; /* the state directory's writer lock (statedir__lock) */
	enum bl_sc_class sc_class[PL_NR_SYSCALLS];
	bool save_failing;
	struct qcache qcache[QCACHE_SLOTS];
	uint64_t process_samples, window_samples, anomalous, no_baseline, saves, save_errors;
	uint64_t evicted_logged; /* bl_store__evicted() at the last eviction log line */
	uint64_t evicted_seen;   /* ... and when the quantile cache was last cleared */
	uint64_t swept_ns;       /* CLOCK_REALTIME of the last lifetime sweep */
	struct saver *saver;     /* the save thread */
	uint64_t batch;          /* flushes queued so far: a save's batch */
	uint64_t failed_batch;   /* the last batch that had a failure (counted once in save_errors) */
	uint64_t saves_dropped;  /* times the save queue was full */
	bool flushing;           /* a flush is queueing its dirty baselines, LEARN_SAVES_PER_TICK a tick */
	size_t flush_cursor;     /* ... from this position of the store */
	/* the per-user bound: a log line per episode of refusals (log_refusals) */
	struct uid_episode {
		uint32_t uid;
		bool used, logged;
		uint64_t at_flush; /* its refusals at the last flush */
	} episodes[BL_UID_TRACK];
	uint64_t uid_refused_seen; /* bl_store__uid_refused() at the last look */
	const struct fleet *fleet;  /* the fleet's view (learner__set_fleet), NULL: none */
	uint64_t fleet_gen;         /* its generation when the quantile cache was last cleared */
};

#endif
