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
 * no parsing, no name lookup and no allocation.
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

/* Regex limits: a rule's regex can't become the sensor's own CPU runaway. */
#define RL_REGEX_MATCH_LIMIT 100000u
#define RL_REGEX_DEPTH_LIMIT 1000u
#define RL_MAX_DEPTH 64 /* nesting of parentheses, not, and macro expansion */

struct rl_eval_stats {
	uint64_t evaluations;
	uint64_t regex_limit_hits; /* a match gave up on a limit: counted as no match */
	uint64_t regex_errors;
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

/* Evaluate. stats may be NULL. Thread-compatible (no shared mutable state
 * except stats and PCRE2 match data owned by e). */
bool rl_expr__eval(const struct rl_expr *e, const struct rl_event *ev, struct rl_eval_stats *stats);

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
size_t rl_template__render(const struct rl_template *t, const struct rl_event *ev, char *buf, size_t size);

/* Fields the template names, in order (up to max). */
size_t rl_template__fields(const struct rl_template *t, enum rl_field *out, int *params, size_t max);

#endif
