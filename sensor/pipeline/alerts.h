/* SPDX-License-Identifier: MIT */
/*
 * alerts.h - rules on samples: load the ruleset, evaluate it on every exec,
 * window and exit sample, dedupe, and write alerts, each with a unique id.
 * What a rule's dedupe window (`throttle`) held back is written as an
 * alert_summary record when the window closes (dedupe.h): never dropped.
 *
 * Used by the daemon (samples built from the kernel's counters) and by
 * `plumbline replay` (samples parsed from records): both hand it the same
 * typed samples, so a rule behaves the same.
 */
#ifndef PL_ALERTS_H
#define PL_ALERTS_H

#include <stdbool.h>
#include <stdint.h>

#include "alert.h"
#include "event.h"
#include "output.h"
#include "sensor_stats.h"

struct alerts_opts {
	const char *const *paths;  /* rule files or directories */
	size_t npaths;
	const char *const *enable; /* "name" or "tag:T" entries to enable */
	size_t nenable;
	const char *const *disable;
	size_t ndisable;
	uint64_t regex_budget_ns;  /* PCRE2 time allowed per second (rules/expr.h); 0: none (replay) */
	uint64_t id_instance;      /* the first half of every id; 0: drawn from getrandom(2) at open */
	struct pl_alert_ids *ids;  /* the sensor's id generator (kept, not copied); NULL: one of its own,
				    * from id_instance */
	/* The clock of throttle windows, ns, read at each eval, tick and
	 * finish: one that never steps back (live: CLOCK_BOOTTIME, boot_ns()),
	 * so that a wall-clock step neither re-raises a throttled alert nor
	 * holds one back for the length of the step. NULL: the now_ns given to
	 * them (a replay, whose record times are its clock). */
	uint64_t (*window_clock)(void *ctx);
	void *window_clock_ctx;
};

#define ALERT_ID_LEN PL_ALERT_ID_LEN /* "<16 hex: instance>-<16 hex: sequence>" */

struct alerts;

/* Load the rules. Diagnostics are logged. 0 or -EINVAL (errors) / -ENOMEM.
 * The arrays of o, and the strings they point to, are kept, not copied:
 * alerts__reload() reads them again, so they must outlive a. */
int alerts__open(const struct alerts_opts *o, struct alerts **ret);
void alerts__free(struct alerts *a);

/* Load the rules again (SIGHUP): on any error the old ruleset stays. 0 or -errno. */
int alerts__reload(struct alerts *a);

/* SIGHUP with a new config file: the rule files, enable/disable
 * lists and regex budget of o (kept, not copied, as for alerts__open) take
 * effect with a reload. When the reload fails the old ruleset and the old
 * lists stay (the regex budget is applied either way). 0 or -errno. */
int alerts__reconfigure(struct alerts *a, const struct alerts_opts *o);

/* Kinds at which some enabled rule runs. */
unsigned alerts__kinds(const struct alerts *a);

/* The ruleset now running (its path classes: fileclass.h), or NULL. Valid
 * until the next alerts__reload(). */
const struct rl_ruleset *alerts__rules(const struct alerts *a);

/*
 * Evaluate the rules that run at s's moment on s; every alert that passes
 * its rule's dedupe window goes to each of the outputs (NULL entries
 * skipped), in the output's alert_form. Windows that closed by now (the
 * window clock) are summarized first. now_ns: CLOCK_REALTIME, the alerts'
 * time (summaries give their window's times in it too). Returns the number of rules
 * that matched (held-back ones included: they still raised an alert).
 */
int alerts__eval(struct alerts *a, const struct pl_sample *s, uint64_t now_ns, struct pl_output *const *outs,
		 size_t nouts);
/* how many of the last alerts__eval's matches were at Warning or
 * above (these forbid learning the sample; lower ones don't). */
int alerts__matched_warning(const struct alerts *a);

/* The running ruleset, for the audit log: its rules, its files, and the
 * SHA-256 over those files' bytes in load order (rl_ruleset__digest). */
void alerts__ruleset(const struct alerts *a, size_t *ret_rules, size_t *ret_files, unsigned char ret_sha256[32]);

/* Write the alert_summary records of the dedupe windows that ended by
 * now_ns (the sensor's tick). */
void alerts__tick(struct alerts *a, uint64_t now_ns, struct pl_output *const *outs, size_t nouts);

/* Write the alert_summary record of every window still holding matches
 * (shutdown, the end of a replay), and close all windows. */
void alerts__finish(struct alerts *a, uint64_t now_ns, struct pl_output *const *outs, size_t nouts);

/* ---- metrics and `plumbline status` ---- */

/* The counters of the stats record's `rules` (sensor_stats.h), typed. */
void alerts__counts(const struct alerts *a, struct pl_stats_rules *ret);

/* Counts of one loaded rule, kept by name across reloads. */
struct alerts_rule_count {
	const char *name; /* the rule's name, raw (owned by the ruleset: valid until the next reload) */
	bool enabled;
	uint64_t evaluations; /* samples it was evaluated on */
	uint64_t alerts;      /* alerts it wrote */
	uint64_t throttled;   /* matches its dedupe window held back */
};

/* One per loaded rule, in load order (*ret_n of them; NULL and 0 when the
 * counts could not be allocated). Valid until the next alerts__reload(). */
const struct alerts_rule_count *alerts__rule_counts(const struct alerts *a, size_t *ret_n);

#define ALERTS_RECENT_MAX 10

/* An alert written, as `plumbline status` lists it: strings escaped as in
 * the alert record (text_escape), cut to fit. */
struct alerts_recent {
	uint64_t time_ns; /* REALTIME */
	char id[ALERT_ID_LEN + 1];
	char rule[128];
	char priority[16];
	char exe[256];    /* "" when unknown */
	uint32_t pid;
};

/* The last alerts written (up to max, at most ALERTS_RECENT_MAX), newest first. */
size_t alerts__recent(const struct alerts *a, struct alerts_recent *ret, size_t max);

#endif
