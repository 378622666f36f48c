/* SPDX-License-Identifier: MIT */
/*
 * ruleset.h - YAML rule files: load, validate, compile, select, evaluate.
 *
 * The shape is Falco's: a YAML sequence of items, each a `rule`, `macro`,
 * `list` or `required_engine_version`; rules with desc, condition, output,
 * priority, tags, enabled, exceptions; later items may append to or
 * override earlier ones. plumbline adds `evidence`, `throttle` and `when`.
 * Everything is parsed with libyaml and checked before anything runs: every
 * problem is a diagnostic with file:line:column, the item, and what is
 * wrong. A ruleset with any error is not usable (the sensor keeps its old
 * one).
 */
#ifndef PL_RULES_RULESET_H
#define PL_RULES_RULESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "expr.h"

#define RL_ENGINE_VERSION 1

/* Syslog severities (RFC 5424), as Falco names them. */
enum rl_priority {
	RL_PRIO_EMERGENCY = 0,
	RL_PRIO_ALERT,
	RL_PRIO_CRITICAL,
	RL_PRIO_ERROR,
	RL_PRIO_WARNING,
	RL_PRIO_NOTICE,
	RL_PRIO_INFORMATIONAL,
	RL_PRIO_DEBUG,
};

/* What an alert of the rule carries (`evidence:`). */
enum rl_evidence {
	RL_EV_FAIL_PATHS = 1u << 0, /* failed paths with counts */
	RL_EV_SYSCALLS = 1u << 1,   /* syscalls by name */
	RL_EV_BASELINE = 1u << 2,   /* the baseline verdict */
	RL_EV_ANCESTRY = 1u << 3,   /* ancestors' exe paths */
	RL_EV_STACKS = 1u << 4,     /* on-CPU stacks (accepted now; attached once stack sampling exists) */
	RL_EV_WAIT = 1u << 5,       /* what a waiting process waits on */
};

struct rl_rule {
	char *name;
	char *desc;
	char *condition_src;  /* after appends */
	char *output_src;
	enum rl_priority priority;
	char **tags;
	size_t ntags;
	bool enabled;
	unsigned evidence;    /* enum rl_evidence */
	uint32_t throttle_s;  /* one alert per (rule, binary) per this many seconds; 0 = every match */
	unsigned kinds;       /* RL_E|RL_W|RL_X: from `when:`, else derived from the fields */
	struct rl_expr *cond; /* includes the exceptions */
	struct rl_template *output;
	char *file;           /* where it was defined */
	int line;
};

enum rl_severity { RL_DIAG_ERROR, RL_DIAG_WARNING };

struct rl_diag {
	enum rl_severity severity;
	char *file;
	int line, col; /* 1-based */
	char *item;    /* "rule 'name'", "macro 'name'", "list 'name'", or "" */
	char *msg;
};

struct rl_diags {
	struct rl_diag *d;
	size_t n, cap;
	size_t errors, warnings;
};

void rl_diags__free(struct rl_diags *d);
/* "file:line:col: error: rule 'x': message\n" for each. */
void rl_diags__print(const struct rl_diags *d, FILE *out);

struct rl_ruleset;

/*
 * Load the files (a directory means its *.yaml and *.yml files in name
 * order), in order: later files may append to and override earlier ones.
 * Only regular files are read (symlinks to them are followed): a FIFO,
 * socket or device is an error diagnostic, and is never waited on.
 * Diagnostics are appended to *diags. Returns 0 and *ret when there are no
 * errors (warnings allowed), -EINVAL when there are (nothing returned),
 * -ENOMEM.
 */
int rl_ruleset__load(const char *const *paths, size_t npaths, struct rl_ruleset **ret, struct rl_diags *diags);

/* The same from memory (name is used in diagnostics). For tests and fuzzing. */
int rl_ruleset__load_buffer(const char *name, const char *buf, size_t len, struct rl_ruleset **ret,
			    struct rl_diags *diags);

void rl_ruleset__free(struct rl_ruleset *rs);

/* Enable or disable rules by name or by tag. Returns how many rules matched. */
size_t rl_ruleset__enable_name(struct rl_ruleset *rs, const char *name, bool enabled);
size_t rl_ruleset__enable_tag(struct rl_ruleset *rs, const char *tag, bool enabled);
/* An --enable-rule/--disable-rule entry: "NAME", or "tag:T" for every rule tagged T. */
size_t rl_ruleset__switch(struct rl_ruleset *rs, const char *what, bool enabled);

size_t rl_ruleset__count(const struct rl_ruleset *rs);

/* What was loaded, for audit records: SHA-256 over the files' bytes as read,
 * in load order (the same as `cat` of those files into sha256sum), and how
 * many files. */
void rl_ruleset__digest(const struct rl_ruleset *rs, unsigned char ret_sha256[32], size_t *ret_files);
const struct rl_rule *rl_ruleset__rule(const struct rl_ruleset *rs, size_t i);

/* Kinds at which at least one enabled rule runs: the sensor skips building
 * events nobody reads. */
unsigned rl_ruleset__kinds(const struct rl_ruleset *rs);

typedef void (*rl_match_fn)(const struct rl_rule *r, const struct pl_sample *ev, void *ctx);

/* Evaluate every enabled rule that runs at ev->moment, in file order; call fn
 * for each match. A rule whose condition is undecided (a regex skipped by
 * stats' budget) matches, fail closed: it is counted in stats->undecided,
 * and stats->match_undecided is true while fn runs for it. Returns the
 * number of matches. */
size_t rl_ruleset__eval(const struct rl_ruleset *rs, const struct pl_sample *ev, rl_match_fn fn, void *ctx,
			struct rl_eval_stats *stats);

const char *rl_priority__name(enum rl_priority p);

/*
 * A class of sensitive paths (`- list: path_class.NAME`, items = path
 * patterns; docs/rules.md "Path classes"): the sensor watches them in the
 * kernel and names a touched file by its class (file.class).
 */
struct rl_path_class {
	const char *name; /* NAME */
	const char **paths;
	size_t n;
};

/* The ruleset's path classes, in load order. */
size_t rl_ruleset__path_classes(const struct rl_ruleset *rs, const struct rl_path_class **ret);

#endif
