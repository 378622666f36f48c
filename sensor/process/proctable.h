/* SPDX-License-Identifier: MIT */
/*
 * proctable.h - user space's view of every process the sensor tracks.
 *
 * The kernel's `procs` map holds the counters; this table holds what only
 * user space can know (exe path, build-id, cgroup path, cmdline), the keys of
 * the failed paths reported for the current image, and the snapshot that the
 * next per-second window is computed against. Keyed by tgid; bounded.
 */
#ifndef PL_PROCTABLE_H
#define PL_PROCTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "plumbline.h"

struct baseline;
struct pl_cpuwin;

#define PROC_MAX_FAIL_KEYS 256 /* failed-path keys remembered per image */

/* A failed-path key of an image (the life of a key: failpaths.h). */
struct fail_ref {
	struct pl_fail_key key;
	char *path;       /* key.path as a C string (raw bytes, NUL-terminated even when the key is not) */
	bool truncated;
	bool in_kernel;   /* the key has an entry in the kernel's table */
	uint64_t folded;  /* failures of earlier entries of the key, moved out of the table while idle */
	uint64_t swept;   /* the entry's count at the last sweep; unchanged at the next means idle */
};

/* A wait for identity's hash of the file the kernel knows as (dev, ino). */
struct hash_wait {
	bool on;
	uint32_t dev; /* kernel dev_t */
	uint64_t ino;
};

/* An exec whose observation in the parent's set of children waits for the
 * child's content hash (learner__child()): the parent process and image. */
struct child_wait {
	bool on;
	uint32_t tgid;
	uint64_t image_id;
};
#define PROC_MAX_PEERS 8

struct proc_info {
	uint32_t tgid;
	uint64_t image_id;       /* the image these strings describe */
	uint32_t flags;          /* pl_proc_flags of the image */
	char exec_comm[PL_COMM_LEN];
	uint32_t exe_dev;        /* kernel dev_t and inode the strings below describe */
	uint64_t exe_ino;
	bool filename_truncated;
	uint64_t live_interval;  /* last live-view interval this process was counted in */
	/* strings from the process are raw bytes: escaped only where they leave the sensor */
	char *exe;
	char *build_id;
	char *cmdline;
	char *filename;          /* as passed to execve, NULL for fork/pre-existing */
	char *binary_id;         /* baseline identity of the image (identity.h) */
	char *parent_binary_id;  /* of the parent process's image, when known */
	char *parent_exe;
	bool hash_wait;          /* binary_id waits for the hash of exe_dev/exe_ino (identity.h) */
	struct hash_wait parent_wait; /* parent_binary_id waits for the hash of the parent's image */
	struct baseline *bl;     /* its baseline (owned by the store), or NULL; none while either waits */
	/* a rule at Warning or above matched this image (warned_image == image_id)
	 * at some moment: its lifetime (exit sample) is not learned */
	uint64_t warned_image;
	bool parent_new_child;   /* the parent's baseline had never seen it execute this image */
	bool parent_bl_ready;    /* ... and that baseline was ready */
	bool parent_seen;        /* the two above were judged (learner__child()) */
	bool stdin_pipe;         /* its stdin was an anonymous pipe at exec (pipes.h) */
	char *stdin_writer;      /* the exe exec'd writing that pipe, NULL: none known (yet) */
	bool ran_child;          /* it, or a fork child running its image, exec'd something (exitwin.h) */
	struct child_wait child_wait; /* its parent observes it when its hash comes */
	uint32_t ppid;
	uint32_t uid;            /* of the image at its start: who its new baseline is made by */
	struct pl_cpuwin *cw;    /* its busy streak and last windows (cpuwin.h), from its first whole window; NULL before */
	bool exe_trusted_known;  /* exe_trusted was checked (identity__exe_trusted()) */
	bool exe_trusted;
	char *exe_memfd_copy_of; /* the trusted binary its sealed memfd executable copies, or NULL (identity__memfd_copy_of()) */
	struct fail_ref *fails;
	uint32_t nfails;
	uint32_t fails_cap;
	uint64_t fail_other;     /* failures of paths displaced from a full list (failpaths.h) */
	bool have_last;          /* `last` holds a snapshot */
	uint64_t last_ns;        /* when `last` was taken (monotonic) */
	struct stats_pack *last; /* counters at the previous window, packed (below) */
	/* baseline keys (scriptkey.h): what the image's baseline stands for */
	char *script_suffix;     /* "+script:...", "+inline", "+module:..." or NULL */
	char *script;            /* the script label (proc.script) or NULL */
	/* TCP peers image peers_image tried (connect records), for its exit
	 * sample's BL_SET_PEERS; past PROC_MAX_PEERS they are not kept */
	uint64_t peers_image;
	uint32_t npeers;
	char peers[PROC_MAX_PEERS][32];
	bool forked;             /* a fork child running its parent's image (no exec) */
	/* an exec'd image has mapped a library its executable names in
	 * DT_NEEDED (or is not dynamic, or was not exec'd under the sensor):
	 * objects it maps from now on are no preloads (images.c) */
	bool maps_past_preloads;
	/* the directory of the outermost build driver among the image's
	 * ancestors, itself included (buildkey.h), or NULL: handed down at
	 * fork and exec, never read from /proc (but for a SEEN driver) */
	char *build_dir;
	/* waiting (images.c): when it last used CPU or made a syscall
	 * (monotonic; image start until its first active window), and when its
	 * state was last read / its wait last reported */
	uint64_t active_ns;
	uint64_t wait_checked_ns;
	uint64_t wait_reported_ns;
	uint64_t seen_pass;      /* the last pass over the kernel's table that found it (proctable__sweep) */
	struct proc_info *next;  /* hash chain */
};

struct proctable;

/*
 * A process's counters at its previous window, packed: the scalar counters,
 * then only the syscall and errno counts that are not zero. A whole struct
 * pl_stats is some 4.6 KB and a process uses a few dozen syscalls, so 10,000
 * tracked processes hold about 1 KB each instead of 5.4.
 * stats_pack__set() keeps *p (reallocated to fit; left as it was on ENOMEM,
 * -ENOMEM); stats_pack__get() unpacks into *ret. Freed with free().
 */
struct stats_pack;
int stats_pack__set(struct stats_pack **p, const struct pl_stats *st);
void stats_pack__get(const struct stats_pack *p, struct pl_stats *ret);

/* max bounds the number of entries. 0 or -ENOMEM. */
int proctable__new(uint32_t max, struct proctable **ret);
void proctable__free(struct proctable *t);

struct proc_info *proctable__get(struct proctable *t, uint32_t tgid);

/* The entry for tgid, reset for a new image (strings freed, failed keys
 * forgotten). NULL when the table is full or out of memory. */
struct proc_info *proctable__reset(struct proctable *t, uint32_t tgid, uint64_t image_id);

void proctable__remove(struct proctable *t, uint32_t tgid);
uint32_t proctable__count(const struct proctable *t);

/* Remember a new failed-path key for the image, in the kernel's table.
 * false when the list is full (PROC_MAX_FAIL_KEYS) or out of memory. */
bool proc_info__add_fail(struct proc_info *pi, const struct pl_fail_key *k, bool truncated);

/* The image's entry for key k, or NULL. */
struct fail_ref *proc_info__find_fail(struct proc_info *pi, const struct pl_fail_key *k);

/* Make f (an entry of pi) the entry of the new key k, in the kernel's table,
 * with no failures counted yet. 0 or -ENOMEM (f is then left as it was). */
int proc_info__replace_fail(struct proc_info *pi, struct fail_ref *f, const struct pl_fail_key *k, bool truncated);

/*
 * Entries of processes that are gone. A process's end record can be lost
 * (the ring buffer full in an exec flood) and its entry would then stay for
 * ever, holding memory, its baseline and a slot of the bound. The kernel's
 * table loses no exit: so each complete pass over it marks the entries it
 * finds (proctable__begin_pass, proctable__mark) and proctable__sweep()
 * removes those no pass found for `passes` passes in a row (an entry made
 * since the last pass is not judged before then; an end record still
 * pending after a pass is consumed within a pass or two). The number
 * removed; counted in proctable__swept().
 */
void proctable__begin_pass(struct proctable *t);
void proctable__mark(struct proctable *t, uint32_t tgid);
uint32_t proctable__sweep(struct proctable *t, uint64_t passes);
uint64_t proctable__swept(const struct proctable *t);

/*
 * The process that the CPU of pi, a short-lived clone, is charged to: the
 * outermost of its ancestors that run its binary (same binary_id and
 * script), walking up through those and through shells only, at most 16
 * levels. NULL when its parent is neither (pi is then no clone), when pi
 * is a shell itself (a shell's subshells are its own business), or when its
 * identity is not known yet.
 */
struct proc_info *proctable__clone_root(struct proctable *t, const struct proc_info *pi);

/*
 * Charge the CPU of pi, an image that just exited after wall_ns, having
 * wanted a CPU (run or been runnable) wanted_ns, to its clone root, when it
 * is a clone: it lived < 5 s and wanted a CPU at least half of it. So work
 * spread over many short children of one binary adds up where no one child
 * is ever busy for long.
 */
void proctable__charge_clone(struct proctable *t, const struct proc_info *pi, uint64_t wall_ns, uint64_t wanted_ns);

/* pi's last windows, made at their first use; NULL when out of memory. */
struct pl_cpuwin *proc_info__cpuwin(struct proc_info *pi);

/* Call fn for every entry; fn may not add or remove entries. */
void proctable__foreach(struct proctable *t, void (*fn)(struct proc_info *pi, void *ctx), void *ctx);

#endif
