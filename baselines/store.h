/* SPDX-License-Identifier: MIT */
/*
 * store.h - baselines on disk: a state directory of one file per baseline.
 *
 * Each baseline lives in <dir>/<16 hex digits>.json (the FNV-1a 64 hash of
 * its key; the file repeats the key, which is checked). A save writes a temp
 * file, fsyncs it, renames it over the old one and fsyncs the directory, so
 * a crash or SIGKILL at any instant leaves either the old or the new file,
 * both loadable. Loading validates every field and bound: a corrupt,
 * truncated, oversized or wrong-version file, or anything that is not a
 * regular file (a FIFO, a symlink, a device: never opened, never waited on),
 * is reported by name, moved aside to <name>.bad-<unix time> and relearned,
 * never trusted.
 *
 * Bundles (`baseline export/import/merge`), one file holding many
 * baselines, are in bundle.h.
 */
#ifndef PL_STORE_H
#define PL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "fileio.h"

#define BL_FILE_MAX (8u << 20) /* a baseline file larger than this is rejected */
#define BL_STORE_MAX 65536     /* baselines kept at once, by default (bl_policy.max_baselines) */
#define BL_STORE_LIMIT (1u << 20) /* the most a store holds, whatever the policy: files beyond are not loaded */
#define BL_UID_SHARE_DIV 8 /* a non-root user may have made 1/8 of the bound's learning baselines */
#define BL_UID_TRACK 16    /* users whose refusals are counted apart (the most refused) */
#define BL_SEEN_SAVE_NS (3600ull * 1000000000ull) /* seen_ns alone makes a baseline dirty this often */

/* Told about every file that could not be used, and what was done. */
typedef void (*bl_report_fn)(void *ctx, const char *path, const char *problem);

struct bl_store;

/* Open dir (created 0700 if missing) and load it. A directory that others
 * could write to (bl_dir__check()) is refused: -EPERM (or -ENOTDIR), after
 * telling report why and how to fix it; nothing in it is loaded. 0 and *ret
 * or -errno. */
int bl_store__open(const char *dir, bl_report_fn report, void *ctx, struct bl_store **ret);

/* The same without changing anything on disk (no directory created, no temp
 * file removed, bad files reported but left where they are): for reading
 * while a sensor may be writing. bl_store__save() on it fails with -EROFS. */
int bl_store__open_readonly(const char *dir, bl_report_fn report, void *ctx, struct bl_store **ret);
void bl_store__free(struct bl_store *st);

size_t bl_store__count(const struct bl_store *st);
struct baseline *bl_store__at(struct bl_store *st, size_t i);
struct baseline *bl_store__get(struct bl_store *st, const char *key);

/*
 * The baseline of (binary_id, parent_id), created when missing, made by uid
 * (the user of the process that needs it; BL_UID_NONE when unknown): then,
 * if a baseline with the same labels (exe, parent exe) but another binary
 * exists, the newest such becomes its prior (a fork child's image,
 * BL_KEY_FORK, only ever has another fork child's as prior). A baseline
 * found is touched (bl_store__touch).
 *
 * A user other than root that already made bl_store__uid_share() learning
 * (not ready) baselines gets none: refused, counted for that uid
 * (bl_store__uid_refusals()).
 *
 * When the store holds its bound (bl_store__set_policy), baselines no
 * process uses (users == 0), other than the new one's prior, are evicted
 * from memory and disk first (a 1/64 margin at once, counted in
 * bl_store__evicted()): learning ones, least recently seen and then least
 * observed first, then ready ones that aged out (max_age_ns); never a
 * current ready one, which only another ready one may displace
 * (bl_store__absorb) or a lowered bound (bl_store__sweep). Every pointer to
 * an evicted baseline is gone, so a holder of one must count itself in
 * users. NULL when nothing may go (counted in bl_store__refused()), or on
 * ENOMEM.
 */
struct baseline *bl_store__obtain(struct bl_store *st, const char *binary_id, const char *parent_id, const char *exe,
				  const char *parent_exe, uint32_t uid, uint64_t now_ns);
uint64_t bl_store__refused(const struct bl_store *st);

/* Learning baselines one non-root user may have made: the policy's
 * uid_share, or the bound / BL_UID_SHARE_DIV; at least 1. */
size_t bl_store__uid_share(const struct bl_store *st);

/* New baselines refused to a user over its share, by uid. */
struct bl_uid_refusals {
	uint32_t uid;
	uint64_t refused;
};
/* The most refused users (at most max, at most BL_UID_TRACK), most first, into
 * ret; their number. A user beyond the BL_UID_TRACK most refused may be
 * counted under another one's slot: counts are upper bounds. */
size_t bl_store__uid_refusals(const struct bl_store *st, struct bl_uid_refusals *ret, size_t max);
/* Every refusal of that kind, exactly. */
uint64_t bl_store__uid_refused(const struct bl_store *st);

/*
 * Lifetime (docs/baselines.md "Lifetime of the store"). The
 * policy's max_baselines (0: BL_STORE_MAX; at most BL_STORE_LIMIT),
 * max_age_ns, prior_max_age_ns and min_samples (a successor's readiness)
 * apply from now on; until called, a store is bounded at BL_STORE_MAX and
 * nothing ages.
 */
void bl_store__set_policy(struct bl_store *st, const struct bl_policy *p);

/* A process of b's binary was seen at now_ns (CLOCK_REALTIME): seen_ns
 * moves forward (never back), and b becomes dirty when that has not been
 * saved for BL_SEEN_SAVE_NS. */
void bl_store__touch(struct baseline *b, uint64_t now_ns);
/* Touch every baseline in use (users > 0): a process that runs for months is seen. */
void bl_store__touch_live(struct bl_store *st, uint64_t now_ns);

/*
 * Remove, from memory and disk, every baseline not in use that is
 *  - not seen for longer than max_age_ns (when set), or
 *  - the prior of another one, not seen itself since that one was made,
 *    once that one is ready or prior_max_age_ns after it was made;
 * (both counted in bl_store__aged_out()) then evict the least recently seen
 * while more than max_baselines are held (a bound lowered since the files
 * were written). The number aged out, or -EROFS / -ENOMEM.
 */
int bl_store__sweep(struct bl_store *st, uint64_t now_ns);
uint64_t bl_store__evicted(const struct bl_store *st);
uint64_t bl_store__aged_out(const struct bl_store *st);

/* The first file the last bl_store__save() could not write (its path), or NULL. */
const char *bl_store__save_failed(const struct bl_store *st);

/*
 * For a caller that writes files elsewhere (the sensor's save thread): a
 * remover told the path of each file to remove (eviction, aging, forget),
 * instead of the store unlinking it, so that removals are ordered with the
 * writes in flight. NULL: unlinked here.
 */
typedef void (*bl_remove_fn)(void *ctx, const char *path);
void bl_store__set_remover(struct bl_store *st, bl_remove_fn fn, void *ctx);

/* b's file as bl_store__save() would write it: its path and bytes (both
 * malloc'd, the caller's; data not NUL-terminated). Nothing in b changes.
 * 0, or -ENOMEM with nothing set. */
int bl_store__encode(const struct bl_store *st, const struct baseline *b, char **ret_path, char **ret_data,
		     size_t *ret_len);

/* Write every dirty baseline. 0, or the first -errno (the rest are still tried;
 * a baseline that failed stays dirty for the next save). */
int bl_store__save(struct bl_store *st);

/* Remove one baseline from memory and disk. 0 or -ENOENT / -errno. */
int bl_store__forget(struct bl_store *st, const char *key);

/* Merge b (consumed) into the store: added, or merged into the baseline of
 * the same key. 0 or -errno (b freed either way). */
int bl_store__absorb(struct bl_store *st, struct baseline *b);

/* One baseline file's bytes (len at most BL_FILE_MAX, need not be
 * NUL-terminated): JSON, the store's "format", then baseline__from_json().
 * 0 and *ret, or -EINVAL / -EFBIG / -ENOMEM with err saying what was wrong.
 * The key is not checked against a file name here. */
int bl_store__parse_file(const char *buf, size_t len, struct baseline **ret, char *err, size_t errlen);

/* FNV-1a 64 of s, the file name of a key. */
uint64_t bl_key_hash(const char *s);

#endif
