/* SPDX-License-Identifier: MIT */
/*
 * baseline.h - what one binary, in one context, normally costs.
 *
 * A baseline is keyed by the executable's identity (its ELF build-id, or a
 * content hash when it has none) and its context: the identity of the parent
 * binary. So "sshd started by sshd" (a login) is learned apart from "sshd
 * started by systemd" (the listener), and a rebuilt binary starts afresh,
 * with the baseline of the binary it replaced kept as its prior. Paths are
 * labels for people, never part of the key: renaming or copying a binary
 * doesn't escape its history.
 *
 * The image part of the key says what the image runs and how it
 * began (docs/baselines.md "Keys"):
 *
 *   binary_id  = <binary> [ "+script:" <abs path> [ "#sha256:" <16 hex> ]
 *                         | "+inline" | "+module:" <name> ] [ "+fork" ]
 *
 * "+script", "+inline", "+module" for interpreters (sensor/identity/scriptkey.h),
 * "+fork" for a child that did not exec (it runs its parent's image in
 * another role: sshd's privilege-separation child). The key is only a
 * string: files written before this grammar load as they were.
 *
 * It holds distributions (sketch.h) of per-process-lifetime and per-window
 * costs and bounded sets (strset.h) of what the binary has been seen doing.
 * baseline__observe_*() score a sample against what was learned and then,
 * by the policy, learn it or not; see docs/baselines.md for the model.
 */
#ifndef PL_BASELINE_H
#define PL_BASELINE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "sample.h"
#include "sketch.h"
#include "strset.h"

#define BL_FORMAT_VERSION 1

/* Distributions: enum pl_dist (sample.h), shared with the sample's verdict. */

/* Sets. */
enum bl_set {
	BL_SET_FAIL_PATHS, /* paths whose open failed */
	BL_SET_CHILDREN,   /* exe paths of the binaries it executed */
	BL_SET_SYSCALLS,   /* syscall names it used */
	BL_SET_ONCPU,      /* objects (file paths) its code ran in, by samples (optional in files) */
	/* the sets of issue 18 (optional in files: a file written before them loads) */
	BL_SET_FILES,      /* watched files touched, "class:op" (credentials:read, persistence:write) */
	BL_SET_OBJECTS,    /* executable objects (file paths) its images mapped, once per image */
	BL_SET_PEERS,      /* TCP peers by class and port ("public:tcp/443"), "none" for a lifetime
			    * without connects (optional in files) */
	BL_SET_ONCPU_FUNCS, /* user functions in its kept on-CPU stacks, "object\x1Ffunction"
			     * (baseline__function_member), by samples (optional in files) */
	BL_SET_MAX,
};

enum bl_sc_class { BL_SC_FILE, BL_SC_NET, BL_SC_PROC, BL_SC_MEM, BL_SC_IPC, BL_SC_TIME, BL_SC_OTHER, BL_SC_MAX };

enum bl_mode {
	BL_MODE_AUTO = 0, /* learn until ready, then score and keep learning, guarded */
	BL_MODE_LEARN,    /* learn everything, never score */
	BL_MODE_DETECT,   /* score, never learn */
};

struct bl_policy {
	enum bl_mode mode;
	uint32_t min_samples;   /* process samples before lifetime features are ready */
	uint32_t min_windows;   /* window samples before window features are ready */
	double alert_score;     /* a sample scoring >= this, or with a never-seen set member, is not learned once ready */
	double learn_per_hour;  /* once ready, at most this many samples learned per hour per baseline */
	double mad_floor;       /* floor of the MAD in ln units (sketch__score; unused by baselines now) */
	/* */
	double recur_per_hour;  /* once ready, at most this many anomalous (not alerted) samples learned per hour */
	double set_new_max;     /* a set is saturated when the chance of a new member (Good-Turing) is <= this */
	uint64_t set_quiet_ns;  /* ... and no new member arrived for this long (nor since the baseline was made) */
	/* the store's lifetime (docs/baselines.md "Lifetime of the store"): */
	uint32_t max_baselines;    /* held at once; when full, learning ones are evicted (store.h) */
	uint32_t uid_share;        /* learning baselines one non-root user may have made (0: max / 8) */
	uint64_t max_age_ns;       /* a baseline not seen for longer is removed (0: never) */
	uint64_t prior_max_age_ns; /* an old binary's baseline kept only as a prior goes this long after
				    * its successor appeared, or once that one is ready (0: only then) */
};

#define BL_UID_NONE UINT32_MAX /* baseline.uid of a baseline whose maker is not known */

#define BL_KEY_FORK "+fork" /* binary_id suffix of a fork child's image (above) */

/* The defaults documented in docs/baselines.md. */
void bl_policy__defaults(struct bl_policy *p);

struct baseline {
	char *key;        /* "<binary_id>@<parent_id>" */
	char *binary_id;  /* "build-id:<hex>" or "sha256:<hex>" or "file:<dev>:<ino>", with the
			   * image suffixes above */
	char *parent_id;  /* the parent's binary_id, "-" when unknown */
	char *exe;        /* label: last exe path seen */
	char *parent_exe; /* label */
	char *prior_key;  /* the baseline this one replaced (same labels, older binary), or NULL */
	uint64_t created_ns, updated_ns; /* CLOCK_REALTIME */
	uint64_t seen_ns;     /* last time a process of it was seen (CLOCK_REALTIME; files without it: updated_ns) */
	uint64_t seen_saved_ns; /* seen_ns as last saved or loaded (not in the file) */
	uint32_t users;       /* processes attached to it now (not in the file): never evicted while > 0 */
	uint32_t uid;         /* the user whose process made it (BL_UID_NONE: unknown, files without it) */
	uint32_t hosts;       /* hosts whose learning it holds: 1 when learned here, a merge sums (files without it: 1) */
	uint64_t samples;     /* process samples learned */
	uint64_t windows;     /* window samples learned */
	uint64_t quarantined; /* samples scored anomalous and not learned */
	uint64_t rate_limited;/* samples not learned because of learn_per_hour */
	double tokens;        /* learning budget, refilled at learn_per_hour */
	uint64_t tokens_ns;
	uint64_t recurred;    /* anomalous samples learned by recurrence (recur_per_hour) */
	double recur_tokens;  /* budget of those, refilled at recur_per_hour; -1: full at next use */
	uint64_t recur_tokens_ns;
	struct sketch dist[PL_DIST_MAX];
	struct strset set[BL_SET_MAX];
	uint64_t oncpu_samples; /* on-CPU samples learned into set[BL_SET_ONCPU] */
	uint64_t oncpu_procs;   /* process samples that brought any */
	uint64_t oncpu_fn_samples; /* samples of the kept stacks learned into set[BL_SET_ONCPU_FUNCS] (its draws) */
	uint64_t oncpu_fn_procs;   /* process samples that brought any */
	bool dirty;           /* changed since the last save */
};

/* One process image, as learned and scored. */
struct bl_process_sample {
	uint64_t cpu_ns, wall_ns, offcpu_ns, syscalls, open_fail;
	const char *const *fail_paths; /* distinct paths that failed */
	uint32_t nfail_paths;
	const char *const *syscall_names; /* distinct syscalls used */
	uint32_t nsyscall_names;
	/* on-CPU samples by object (noncpu 0: none, or sampling off) */
	const char *const *oncpu_objects;
	const uint64_t *oncpu_counts;
	uint32_t noncpu;
	/* the distinct user functions of its kept on-CPU stacks, as members
	 * (baseline__function_member), each with the samples of the stacks it
	 * is in, and the samples of those stacks; nfunctions 0: none */
	const char *const *functions;
	const uint64_t *function_counts;
	uint32_t nfunctions;
	uint64_t function_samples;
	/* TCP peers the image tried ("class:tcp/port"); none and no connects
	 * at all: the lifetime is a draw of "none" */
	const char *const *peers;
	uint32_t npeers;
	uint64_t connects;
	uint64_t now_ns; /* CLOCK_REALTIME of the sample, for set readiness; 0: the baseline's updated_ns */
};

/* One window of a running process. Counts are over duration_ns. */
struct bl_window_sample {
	uint64_t duration_ns;
	uint64_t cpu_ns, syscalls, open_fail;
	uint64_t sc_class[BL_SC_MAX];
};

struct bl_feature {
	bool valid;        /* this distribution was ready and scored */
	double value;      /* the sample's value */
	double p50, p99;   /* of the baseline */
	double ratio_p50;  /* value / p50 (value when p50 is 0) */
	double ratio_p99;
	double score;      /* sketch__tail_score: 0 up to p99 + noise floor, then spreads beyond it */
	double tail;       /* share of learned samples >= value */
};

struct bl_verdict {
	bool ready;               /* scored against a ready baseline */
	bool from_prior;          /* ... which was the prior (this one not ready yet) */
	uint64_t samples;         /* samples behind the baseline used */
	struct bl_feature f[PL_DIST_MAX];
	double max_score;         /* highest score among valid features */
	int max_dist;             /* its enum pl_dist, -1 if none */
	uint32_t new_members[BL_SET_MAX]; /* sample members never seen before (when ready) */
	const char *new_list[BL_SET_MAX][8]; /* the first of them, pointing into the sample */
	bool oncpu_ready;         /* the baseline has learned on-CPU objects (oncpu_procs >= min_samples) */
	uint64_t new_oncpu_samples; /* samples in objects it never saw on-CPU (when oncpu_ready) */
	bool set_ready[BL_SET_MAX]; /* the set is saturated (baseline__set_ready); new members count only then */
	bool recurred;            /* learned though anomalous, from the recurrence budget */
	bool anomalous;           /* max_score >= alert_score or a new member (on-CPU objects aside:
				   * a rule weighs those, sampling makes them noisy) */
	bool learned;             /* the sample went into the baseline */
};

/* An empty baseline. NULL on ENOMEM. Strings are copied. */
struct baseline *baseline__new(const char *binary_id, const char *parent_id, const char *exe, const char *parent_exe,
			       uint64_t now_ns);
void baseline__free(struct baseline *b);

/* The share of b's learned on-CPU samples that ran in object, NaN when b
 * has not learned objects yet. */
double baseline__oncpu_share(const struct baseline *b, const struct bl_policy *p, const char *object);

/*
 * A set is saturated ("ready"): it has had at least min_samples draws (process
 * samples; for children, also execs; for on-CPU objects, CPU samples), the
 * Good-Turing chance that the next draw brings a new member (members seen in
 * exactly one draw / draws; for on-CPU functions, the lifetimes that brought
 * such members, as one stack brings many) is at most set_new_max, and no member is newer
 * than set_quiet_ns (nor the baseline). now_ns: CLOCK_REALTIME.
 */
bool baseline__set_ready(const struct baseline *b, enum bl_set set, const struct bl_policy *p, uint64_t now_ns);
/* The Good-Turing estimate above; NaN with no draws. */
double baseline__set_new_chance(const struct baseline *b, enum bl_set set);
/* A set's draws: what one "sample" of it is (process samples; execs for
 * children; CPU samples for on-CPU objects and functions). */
uint64_t baseline__set_draws(const struct baseline *b, enum bl_set set);

/* What a set waits for before it is saturated, the first unmet condition of
 * baseline__set_ready() in its order. */
enum bl_set_wait {
	BL_WAIT_NONE = 0, /* saturated */
	BL_WAIT_DRAWS,    /* fewer than min_samples draws */
	BL_WAIT_PROCS,    /* on-CPU sets: fewer than min_samples lifetimes brought some */
	BL_WAIT_CHANCE,   /* new members still arrive: chance > set_new_max */
	BL_WAIT_QUIET,    /* a member (or the baseline) is newer than set_quiet_ns */
};

struct bl_set_state {
	enum bl_set_wait wait;
	uint64_t draws, procs, need; /* need: min_samples (of draws, or of procs) */
	double chance, chance_max;   /* chance NaN without draws */
	uint64_t quiet_ns, quiet_need_ns; /* since the newest member; quiet_need_ns 0: not asked */
};

/* Why b's set is or is not saturated at now_ns (CLOCK_REALTIME; 0: b's
 * updated_ns), as baseline__set_ready() decides: wait is BL_WAIT_NONE exactly
 * when it returns true. Pure (baselines/readiness.c). */
void baseline__set_state(const struct baseline *b, enum bl_set set, const struct bl_policy *p, uint64_t now_ns,
			 struct bl_set_state *ret);
/* The state in words for people: "saturated", "12 more samples", "new
 * members still arrive (12.5 % of draws > 5 %)", "4m 10s more without a new
 * member". Returns buf. */
const char *bl_set_state__text(const struct bl_set_state *s, enum bl_set set, char *buf, size_t size);
/* The name of a wait ("none", "draws", "procs", "chance", "quiet"), for JSON. */
const char *bl_set_wait__name(enum bl_set_wait w);

/* The peers member of a lifetime without connects. */
#define BL_PEER_NONE "none"
/* peer is in b's peers set. */
bool baseline__peer_known(const struct baseline *b, const char *peer);
/* b's peers set holds only "none": its lifetimes never connected. */
bool baseline__peers_never(const struct baseline *b);

/* Lifetime features are ready: enough process samples. */
bool baseline__ready(const struct baseline *b, const struct bl_policy *p);
bool baseline__windows_ready(const struct baseline *b, const struct bl_policy *p);

/*
 * Score s against b (or against prior when b is not ready and prior is),
 * then learn it as the policy says. *ret gets the verdict, including the
 * sample's set members that the baseline had never seen. prior may be NULL.
 * 0 or -ENOMEM.
 */
/*
 * The two halves of observing, for a caller that decides in between (the
 * sensor evaluates rules on the verdict first): score (pure), then learn
 * per the policy, where `alerted` (a rule fired on the sample) forbids
 * learning once ready, like an anomalous verdict. learn sets v->learned.
 */
void baseline__score_process(const struct baseline *b, const struct baseline *prior,
			     const struct bl_process_sample *s, const struct bl_policy *p, struct bl_verdict *ret);
int baseline__learn_process(struct baseline *b, const struct bl_process_sample *s, const struct bl_policy *p,
			    uint64_t now_ns, bool alerted, struct bl_verdict *v);
void baseline__score_window(const struct baseline *b, const struct baseline *prior, const struct bl_window_sample *s,
			    const struct bl_policy *p, struct bl_verdict *ret);
int baseline__learn_window(struct baseline *b, const struct bl_window_sample *s, const struct bl_policy *p,
			   uint64_t now_ns, bool alerted, struct bl_verdict *v);

int baseline__observe_process(struct baseline *b, const struct baseline *prior, const struct bl_process_sample *s,
			      const struct bl_policy *p, uint64_t now_ns, struct bl_verdict *ret);
int baseline__observe_window(struct baseline *b, const struct baseline *prior, const struct bl_window_sample *s,
			     const struct bl_policy *p, uint64_t now_ns, struct bl_verdict *ret);

/*
 * The member of a set of children that stands for an executable: its path
 * alone when identity is NULL, else "<path>\t<identity>" (the child's
 * binary_id: "sha256:<hex>" or "build-id:<hex>"), so that another binary at
 * a learned path is a new child. Who passes which: learner__child()
 * (sensor/pipeline/learn.c): a binary only root could have placed, or one
 * written in the last 10 minutes (a build's own product, new each build),
 * is a child by path; any other by path and content. 0, or -ENAMETOOLONG
 * (buf too small: the path alone is not a substitute).
 */
int baseline__child_member(const char *child_exe, const char *identity, char *buf, size_t size);

/*
 * Record that b's binary executed child_exe (with identity, NULL: by path
 * only; baseline__child_member()). A set learned before identities (files
 * from before ABI 5) holds bare paths: a bare path that is there stands for
 * any content at that path, as it did, and the child is learned with its
 * identity beside it. Returns 1 when b's children set
 * is saturated (baseline__set_ready) and had never held it (the build-host canary's event), 0 otherwise, or
 * -errno. Learned like any sample: always before ready and in learn mode,
 * never in detect mode, and once ready only when already known (a new child
 * is anomalous by definition, so it is not learned: see docs/baselines.md).
 */
int baseline__observe_child(struct baseline *b, const char *child_exe, const char *identity, const struct bl_policy *p,
			    uint64_t now_ns);

/*
 * A watched file touched by b's binary, as the member "class:op"
 * (BL_SET_FILES). *ret_ready: the set is saturated. Returns 1 when it is and
 * never held member, 0 otherwise, or -errno. With learn, the member is
 * learned as baseline__observe_child() learns a child; without, nothing
 * changes (the scoring before the rules: a touch that raises an alert at
 * Warning or above is not learned).
 */
int baseline__observe_file(struct baseline *b, const char *member, const struct bl_policy *p, uint64_t now_ns,
			   bool learn, bool *ret_ready);

/*
 * The set of objects its images mapped (BL_SET_OBJECTS, members: the
 * objects' paths, so a library upgraded in place stays known): whether the
 * set is saturated, and whether it holds path. Pure.
 */
void baseline__object_state(const struct baseline *b, const char *path, const struct bl_policy *p, uint64_t now_ns,
			    bool *ready, bool *known);
/*
 * Learn that an image of b mapped path (once per image), as the policy
 * says: always before the set is ready and in learn mode, never in detect
 * mode, and once ready only when already known (a new object is anomalous:
 * the caller does not learn it when a rule at Warning or above fired, and
 * this refuses it in auto mode). 0 or -errno.
 */
int baseline__learn_object(struct baseline *b, const char *path, const struct bl_policy *p, uint64_t now_ns,
			   bool alerted);

/*
 * The member of BL_SET_ONCPU_FUNCS that stands for a frame: "object\x1Ffunction",
 * or "object\x1F" for the object's unnamed code (function NULL), the unit
 * separator being a byte no path or symbol the sensor keeps holds raw
 * (records escape it). 0, or -ENAMETOOLONG when it does not fit in size or
 * passes BL_FUNC_MEMBER_MAX bytes: such a frame is neither learned nor new.
 * The bound keeps the set (1024 members) under 2 MiB even escaped, so a
 * baseline at every bound still fits a bundle's 8 MiB per baseline.
 */
#define BL_FUNC_MEMBER_MAX 512
int baseline__function_member(const char *object, const char *function, char *buf, size_t size);

/*
 * Set is_new on every frame of oc's stacks: a user frame when the functions
 * set of b (or, when that is not ready, of prior; when neither is, of
 * fleet, the fleet's baseline of the key) is saturated
 * (baseline__set_ready) and holds no member for it; never a kernel frame
 * (the set learns none). Every frame is written, new or not, so a frame
 * shared by two images' stacks is marked for the one asked about. b, prior
 * and fleet may be NULL (all NULL: nothing is new). The frames must be the caller's to
 * write: oc's stacks point at const frames only so that readers keep off. Pure
 * otherwise. Returns the number of frames marked new.
 */
uint32_t baseline__mark_new_frames(const struct baseline *b, const struct baseline *prior, const struct baseline *fleet,
				   const struct bl_policy *p, uint64_t now_ns, struct pl_oncpu *oc);

/* dst += src (same key); hosts add up (saturating). 0, -EINVAL for different keys, -ENOMEM. */
int baseline__merge(struct baseline *dst, const struct baseline *src);

/* The class of a syscall by name (file, net, ...). */
enum bl_sc_class syscall_class(const char *name);
const char *bl_dist__name(enum pl_dist d);
/* Deviations below this (in the distribution's unit) score 0. */
double bl_dist__noise_floor(enum pl_dist d);
const char *bl_set__name(enum bl_set s);

/*
 * A baseline's short id, "b39fcce3@135afc8c": the first 8 hex digits of the
 * binary's and of the parent's ids (after their "kind:"), what tells apart
 * two baselines of one exe label (another version, another parent) in
 * `baseline list` and `status`; bytes outside printable ASCII become '?'.
 */
#define BL_SHORT_ID_SIZE 18
void baseline__short_id(const struct baseline *b, char buf[BL_SHORT_ID_SIZE]);
/* Whether what, "HEX@HEX" with 8 digits or more on each side, names b:
 * prefixes of its binary's and parent's ids, as a short id shows them. */
bool baseline__short_id_matches(const struct baseline *b, const char *what);

/* Serialize (strings escaped with text_escape(); NULL on ENOMEM) / parse
 * and validate (every field and bound; strings unescaped back to bytes). */
struct json_object *baseline__to_json(const struct baseline *b);
int baseline__from_json(struct json_object *o, struct baseline **ret, char *err, size_t errlen);

#endif
