/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - the fleet's view: the newest good role bundle of --fleet-dir,
 * loaded read-only (key -> baseline), for the learner to score against
 * (learn.h) while a key's own baseline is not ready, and for the rules'
 * fleet.* fields beside the host's own.
 *
 * The directory is the fleet's to fill (rsync, configuration management,
 * object storage): the sensor only reads it, at start and whenever a file
 * in it is closed after writing or renamed in (inotify, its fd in the event
 * loop; a directory removed or moved away is looked for again each tick,
 * and watched again when it is back). Each regular file (at most FLEET_MAX_FILES, names starting with
 * '.' passed over: rsync's temporary files) is judged by its header and
 * signature first (bl_bundle__read_meta() without its baselines): signed
 * by a trusted key (--fleet-keys), for our role, newer than the bundle
 * loaded; the newest such is then read whole, verified again, and replaces
 * the view. Every other file is refused, for one reason, said once per file
 * and reason (a log line, a `fleet` record, counts); a bad signature also
 * raises the sensor's own alert FLEET_BAD_SIG_RULE. A file is judged again
 * only when it changed (inode, size, mtime). Each look, the judging
 * included, runs on a loader thread: the event loop only says what it
 * found and swaps the new view in.
 */
#ifndef PL_FLEET_H
#define PL_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alert.h"
#include "baseline.h"
#include "output.h"

#define FLEET_MAX_FILES	   64 /* files of the directory judged per look; the rest passed over (said) */
#define FLEET_BAD_SIG_RULE "Fleet bundle with a bad signature"

struct fleet;

/* Why a file was loaded or refused. */
enum fleet_result {
	FLEET_LOADED = 0,    /* "loaded" */
	FLEET_BAD_SIGNATURE, /* "bad_signature": signed by a trusted key, but not these bytes */
	FLEET_UNKNOWN_KEY,   /* "unknown_key": signed by a key not in --fleet-keys */
	FLEET_UNSIGNED,	     /* "unsigned": bundles must be signed */
	FLEET_OTHER_ROLE,    /* "other_role": for another role (or none) */
	FLEET_NOT_NEWER,     /* "not_newer": created before (or when) the bundle loaded was */
	FLEET_INVALID,	     /* "invalid": unreadable, too large, not a bundle */
	FLEET_RESULT_MAX,
};

/* The result's name in records, metrics and status.json ("loaded", ...). */
const char *fleet_result__name(enum fleet_result r);

/* The bundle the view holds. */
struct fleet_bundle {
	char file[256]; /* its name in the directory, raw */
	char role[64];
	char key_id[17];
	uint64_t created_ns; /* CLOCK_REALTIME, as the bundle says */
	uint32_t hosts;	     /* host exports it holds */
	uint64_t baselines;
	uint64_t loaded_ns;  /* CLOCK_REALTIME it was loaded */
	uint64_t arrival_ns; /* its ctime (a rename sets it) */
	uint64_t load_ns;    /* the time to read, verify and index it */
};

/* What fleet__counts() says. */
struct fleet_counts {
	bool on;
	char role[64];
	const char *dir;		    /* the fleet directory (the options', raw) */
	uint64_t results[FLEET_RESULT_MAX]; /* files judged since start, by result */
	bool watching;			    /* the directory is watched (false: removed or moved away, looked for) */
	bool loaded;			    /* a bundle is in use */
	struct fleet_bundle bundle;
	uint64_t keys; /* trusted public keys */
};

/* One judgement, for the caller's records and alert (fleet__changed()). */
struct fleet_report {
	const char *file; /* raw name */
	enum fleet_result result;
	const char *why; /* in words */
	bool has_meta;	 /* the header was read: the fields below are what it says */
	const char *role;
	const char *host;
	uint64_t created_ns;
	uint32_t hosts;
	uint64_t baselines;
	const char *key_id; /* "" when none */
	uint64_t arrival_ns, load_ns;
};

typedef void (*fleet_report_fn)(void *ctx, const struct fleet_report *r);

/*
 * Open the fleet view of role over dir, trusting the public keys at keys
 * (a PEM file or a directory of *.pub): the keys are loaded and the
 * directory watched now (the inotify instance is made before the privilege
 * drop); nothing is judged until fleet__scan(). 0, or -errno (logged): a
 * key file that cannot be loaded, a directory that cannot be watched.
 */
int fleet__open(const char *dir, const char *keys, const char *role, struct fleet **ret);
/* NULL-safe. */
void fleet__free(struct fleet *f);

/* The fd for the event loop: readable when the directory changed or a look
 * finished (then fleet__changed()). */
int fleet__epoll_fd(const struct fleet *f);

/* Look at the directory's files (at start, after the privilege drop: it
 * starts the loader thread): each changed file judged, the newest good one
 * newer than the bundle in use loaded, all on the loader thread. Nothing is
 * said here: fleet__changed() says the verdicts once the look is done. With
 * a look under way, another follows it. */
void fleet__scan(struct fleet *f);

/* The fd was readable: a finished look's view put in use and its verdicts
 * logged and handed to fn (once per file and result), then another look
 * when the directory changed meanwhile. */
void fleet__changed(struct fleet *f, fleet_report_fn fn, void *ctx);

/* Each second: a directory whose watch was lost (removed or moved away) is
 * watched again once it is back, and looked at. f may be NULL (off). */
void fleet__tick(struct fleet *f);

/* Whether a look is under way. f may be NULL. */
bool fleet__busy(const struct fleet *f);

/* The fleet's baseline of key, read-only, valid until the next scan
 * replaces the view; NULL when no bundle is loaded or it lacks key.
 * ret_hosts (may be NULL): the hosts that learned it. */
const struct baseline *fleet__get(const struct fleet *f, const char *key, uint32_t *ret_hosts);

/* The role ("" never: fleet__open() requires one). */
const char *fleet__role(const struct fleet *f);

/* Bumped each time the view is replaced (a cache of its baselines' addresses is then stale). */
uint64_t fleet__generation(const struct fleet *f);

/* The counts and the bundle in use, for metrics, status.json and stats. f may be NULL (off). */
void fleet__counts(const struct fleet *f, struct fleet_counts *ret);

/*
 * The sensor's own alert for a bundle with a bad signature (r->result
 * FLEET_BAD_SIGNATURE): rule FLEET_BAD_SIG_RULE, Warning, to every output
 * of outs (NULL entries skipped), as the loss alert is (lossalert.h): built
 * in, not a rule, so that no ruleset can switch it off.
 */
void fleet__alert(const struct fleet_report *r, const char *dir, struct pl_alert_ids *ids,
		  struct pl_output *const *outs, size_t nouts);

#endif
