/* SPDX-License-Identifier: MIT */
/*
 * expr.h - rule conditions and output templates: parsed once, compiled to a
 * typed evaluation tree, evaluated many times.
 *
 * The language (docs/rules.md): `and`, `or`, `not`, parentheses; `= != < <=
 * > >=`; `contains icontains startswith endswith glob pmatch regex in
 * exists`; `+ - * /` on numbers; numbers, 'single' or "double" quoted
 * strings, bare words on the right of a string operator; macro names; list
 * names inside `in (...)` / `pmatch (...)`; fields (fields.h), some with a
 * [NAME] parameter. Compilation resolves every name (fields to ids, macros
 * inlined, lists expanded, syscall names to numbers), checks types, folds
 * constants, compiles regexes with PCRE2 (JIT where available) and orders
 * `and`/`or` operands cheapest first with regexes last. Evaluation then does
 * no parsing, no name lookup and no allocation (but for a regex's verdict
 * cache, allocated once at its first run).
 */
#ifndef PL_RULES_EXPR_H
#define PL_RULES_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* A compile error: where and what. offset is a byte offset into the source
 * that failed, which is the rule's own condition unless `macro` names the
 * macro whose condition it was. */
struct rl_error {
	size_t offset;
	char macro[128]; /* "" when the error is in the condition itself */
	char msg[320];
};

/* Names the compiler resolves through the loader. */
struct rl_resolver {
	void *ctx;
	/* The condition source of macro `name` (borrowed, NUL-terminated), or
	 * NULL when there is no such macro. */
	const char *(*macro)(void *ctx, const char *name);
	/* The items of list `name` (borrowed), or false when there is no such list. */
	bool (*list)(void *ctx, const char *name, const char *const **items, size_t *n);
};

/*
 * Regex limits: a rule's regex can't become the sensor's own CPU runaway.
 * Per match, PCRE2's match and depth limits. Per subject, a cache of each
 * regex's verdicts (regex_cache.c), so a repeated string is matched once.
 * Per second, a budget of PCRE2 time over all regexes: beyond it a regex is
 * not run, and the condition reading it is undecided (below).
 */
#define RL_REGEX_MATCH_LIMIT 100000u
#define RL_REGEX_DEPTH_LIMIT 1000u
#define RL_REGEX_BUDGET_NS   (50ull * 1000000ull) /* the sensor's default: 50 ms a second, 5 % of a core */
#define RL_MAX_DEPTH 64 /* nesting of parentheses, not, and macro expansion */

/* A condition's outcome. Undecided: a regex it depends on was skipped by
 * the budget, and the other operands could not settle it without it. */
enum rl_truth {
	RL_FALSE = 0,
	RL_TRUE = 1,
	RL_UNDECIDED = 2,
};

/* PCRE2 time allowed per second, over every regex evaluated with the same
 * stats. Set ns_per_s (and clock_ns, for tests) before evaluating; the
 * rest is the budget's own state. */
struct rl_regex_budget {
	uint64_t ns_per_s;          /* 0: no budget, every regex runs (replay) */
	uint64_t (*clock_ns)(void); /* monotonic ns; NULL: CLOCK_MONOTONIC */
	uint64_t second_ns;         /* start of the current one-second window */
	uint64_t spent_ns;          /* PCRE2 time spent in it */
};

/* The evaluator's mutable state: counters, and the regex budget. */
struct rl_eval_stats {
	uint64_t evaluations;
	uint64_t regex_limit_hits; /* a match gave up on a limit (run now, or cached): counted as no match */
	uint64_t regex_errors;
	uint64_t regex_runs;       /* PCRE2 matches run */
	uint64_t regex_cache_hits; /* verdicts taken from a regex's cache */
	uint64_t regex_skipped;    /* regexes not run: the second's budget was spent */
	uint64_t undecided;        /* rule matches that were undecided (rl_ruleset__eval) */
	bool match_undecided;      /* while a match callback runs: that match is undecided */
	struct rl_regex_budget budget;
};

struct rl_expr;

/*
 * Compile a condition. res may be NULL (no macros or lists). Returns 0 and
 * *ret, or -EINVAL with *err filled (-ENOMEM on allocation failure). The
 * condition must be boolean.
 */
int rl_expr__compile(const char *src, const struct rl_resolver *res, struct rl_expr **ret, struct rl_error *err);
void rl_expr__free(struct rl_expr *e);

/* The kinds (RL_E|RL_W|RL_X) at which every field the condition uses can
 * have a value: where the rule can match at all. */
unsigned rl_expr__kinds(const struct rl_expr *e);

/* 1: always true, 0: always false, -1: depends on the event. */
int rl_expr__constant(const struct rl_expr *e);

/*
 * Evaluate, in Kleene's three-valued logic: RL_UNDECIDED only when a regex
 * was skipped by stats' budget and the rest of the condition could not
 * decide without it (`false and X` is false, `true or X` true, `not X` and
 * `true and X` undecided). stats may be NULL (no counters, no budget).
 * Thread-compatible (no shared mutable state except stats and the PCRE2
 * match data and verdict caches owned by e).
 */
enum rl_truth rl_expr__decide(const struct rl_expr *e, const struct pl_sample *ev, struct rl_eval_stats *stats);

/* Whether the condition matches: rl_expr__decide() != RL_FALSE. An
 * undecided condition counts as a match (fail closed: an attacker who
 * spends the budget earns alerts, not silence; docs/rules.md). */
bool rl_expr__eval(const struct rl_expr *e, const struct pl_sample *ev, struct rl_eval_stats *stats);

/* Fields the condition reads, for evidence: fills up to max ids, returns how many. */
size_t rl_expr__fields(const struct rl_expr *e, enum rl_field *out, size_t max);

/*
 * Output templates: text with %field substitutions (%proc.name,
 * %proc.syscall[openat], %{proc.pid} when followed by a name character).
 * `%%` is a literal %. Trailing white space is dropped when compiling.
 */
struct rl_template;

int rl_template__compile(const char *src, struct rl_template **ret, struct rl_error *err);
void rl_template__free(struct rl_template *t);

/*
 * Render into buf (NUL-terminated when size > 0; buf may be NULL when size
 * is 0). Everything goes through the one escaping of untrusted text
 * (text_escape_buf()), string values with '"' too: no value can break the
 * line, drive a terminal or forge a field, and text_unescape() of the result
 * gives the literal text with the values' raw bytes. Absent fields render
 * as <NA>. Numbers print as integers when integral, else with up to 3
 * decimals. Returns the length it needed, like snprintf; a cut to size
 * never splits an escape or a UTF-8 character.
 */
size_t rl_template__render(const struct rl_template *t, const struct pl_sample *ev, char *buf, size_t size);

/*
 * As rl_template__render(), for people (the text output): an absent value
 * is said in words, "(none learned)" for a baseline.* field (the baseline
 * has no such figure yet), "(unknown)" for another, and a unit word right
 * after it (" ms", " s", " %") is left out: "p99 (none learned) per
 * lifetime", not "p99 <NA> ms per lifetime".
 */
size_t rl_template__render_text(const struct rl_template *t, const struct pl_sample *ev, char *buf, size_t size);

/* Fields the template names, in order (up to max). */
size_t rl_template__fields(const struct rl_template *t, enum rl_field *out, int *params, size_t max);

#endif
