/* SPDX-License-Identifier: MIT */
/*
 * expr_internal.h - what the condition compiler's files share (not API).
 *
 * A condition goes through three forms:
 *   parse.c   source -> a typed tree of x_node (names resolved, macros
 *             inlined, lists expanded, types checked, regexes compiled),
 *             with parse_node.c and parse_list.c below it (parse_int.h);
 *   compile.c that tree -> folded, `and`/`or` operands reordered, and
 *             flattened into one array of x_enode in preorder, each node
 *             knowing its subtree size so a parent finds its next child by
 *             skipping, without pointers;
 *   eval.c    walks the array: no names, no allocation.
 * Everything a compiled expression points at is owned by it: literal
 * strings and sets through the pool below, regexes in its own array.
 */
#ifndef PL_RULES_EXPR_INTERNAL_H
#define PL_RULES_EXPR_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "expr.h"
#include "fields.h"

#define X_MAX_SRC	 65536u /* bytes of one condition or macro source */
#define X_MAX_NODES	 65536u /* tree nodes plus list items after expanding macros and lists */
#define X_MAX_HEIGHT	 512u	/* tree height: bounds recursion in fold and eval */
#define X_SET_LINEAR_MAX 8u	/* `in` sets up to this size are scanned, larger ones binary-searched */

enum x_op {
	X_CONST, /* boolean constant: num is 0 or 1 */
	X_NUM,	 /* number literal */
	X_STR,	 /* string literal */
	X_NONE,	 /* a number without a value (a folded division by zero) */
	X_FIELD, /* read a field (param: syscall number, or -1) */
	X_NEG,
	X_ADD,
	X_SUB,
	X_MUL,
	X_DIV,
	X_AND,
	X_OR,
	X_NOT,
	X_EQ,
	X_NE,
	X_LT,
	X_LE,
	X_GT,
	X_GE,
	X_CONTAINS,
	X_ICONTAINS,
	X_STARTSWITH,
	X_ENDSWITH,
	X_GLOB,
	X_REGEX,
	X_PMATCH,
	X_IN,
	X_EXISTS,
};

/* A literal set for `in` (numbers or strings) or `pmatch` (path prefixes,
 * trailing '/' removed). Strings are sorted when n > X_SET_LINEAR_MAX. */
struct x_set {
	size_t n;
	bool num;
	bool sorted;
	const char **s;
	size_t *len;
	double *v;
};

/* What a regex said about a subject, as its cache keeps it. */
enum x_verdict {
	X_VERDICT_NONE = 0, /* not cached */
	X_VERDICT_MATCH,
	X_VERDICT_NOMATCH,
	X_VERDICT_LIMIT, /* gave up on the match or depth limit: no match, and counted */
};

struct x_regex_cache; /* regex_cache.c */

struct x_regex {
	pcre2_code *code;
	pcre2_match_data *md; /* per regex: why evaluation is thread-compatible, not thread-safe */
	pcre2_match_context *mctx;
	struct x_regex_cache *cache; /* verdicts by subject; NULL until the first run */
};

/* Parse tree node. kid[0] is the left operand, kid[1] the right. */
struct x_node {
	enum x_op op;
	enum rl_type type; /* of the value the node produces */
	size_t off;	   /* where the node starts, in the source it came from */
	enum rl_field field;
	int param;
	double num;
	const char *str; /* X_STR: NUL-terminated, no embedded NUL */
	size_t len;
	struct x_set *set;  /* X_IN, X_PMATCH */
	struct x_regex *re; /* X_REGEX */
	struct x_node **kid;
	size_t nkid;
	size_t height;
	/* filled by the compiler */
	size_t seq; /* position among its siblings, for a stable sort */
	size_t cost;
	bool regex;
	bool fields; /* the subtree reads the event */
};

/* Evaluation node: 32 bytes, in preorder. Operands of node i start at i+1;
 * the next operand starts `size` nodes after the previous one. */
struct x_enode {
	uint8_t op;
	uint8_t type; /* comparisons: the operands' type; values: their own */
	uint16_t field;
	int32_t param;
	uint32_t size; /* nodes in this subtree, this one included */
	uint32_t n;    /* X_AND, X_OR: number of operands */
	union {
		double num;
		struct {
			const char *s;
			size_t len;
		} str;
		const struct x_set *set;
		struct x_regex *re;
	} u;
};

/* Owned allocations, freed together. */
struct x_pool {
	void **p;
	size_t n, cap;
};

struct rl_expr {
	struct x_enode *nodes;
	size_t nnodes;
	unsigned kinds;
	int constant;
	enum rl_field fields[RL_NFIELDS];
	size_t nfields;
	struct x_pool data;
	struct x_regex **re;
	size_t nre;
};

/* parse.c: parse src into *ret (a tree allocated in *ast; literals, sets
 * and regexes in *data / *re). Returns 0, -EINVAL with *err filled,
 * -ENOMEM. */
int rl_x__parse(const char *src, const struct rl_resolver *res, struct x_pool *ast, struct x_pool *data,
		struct x_regex ***re, size_t *nre, struct x_node **ret, struct rl_error *err);

/* parse_node.c: the pools. add: p is now the pool's (freed by
 * rl_x__pool_free); returns 0, or -ENOMEM when p is NULL or can't be added
 * (then p is freed). */
int rl_x__pool_add(struct x_pool *pool, void *p);
void rl_x__pool_free(struct x_pool *pool);

/* match.c: the string matchers and literal sets. */
bool rl_x__icontains(const char *hay, const char *needle, size_t nlen);
bool rl_x__glob(const char *pat, const char *s);
bool rl_x__pmatch(const struct x_set *set, const char *path);
bool rl_x__set_has_str(const struct x_set *set, const char *s);
bool rl_x__set_has_num(const struct x_set *set, double v);
/* Sort and deduplicate a set's members (strings: binary search beyond X_SET_LINEAR_MAX). */
void rl_x__set_finish(struct x_set *set);
/* Compile a regex; on failure msg gets PCRE2's text and the offset in the pattern. */
int rl_x__regex_compile(const char *pat, size_t len, struct x_regex **ret, char *msg, size_t msgsize);
void rl_x__regex_free(struct x_regex *re);
/*
 * Match s: RL_TRUE or RL_FALSE (a limit hit is RL_FALSE, and counted), from
 * the regex's cache when it has s, else by running PCRE2 when stats' regex
 * budget allows, else RL_UNDECIDED (not run, counted in regex_skipped).
 * stats may be NULL: no counters and no budget.
 */
enum rl_truth rl_x__regex_match(struct x_regex *re, const char *s, struct rl_eval_stats *stats);

/* regex_cache.c: a regex's verdicts by subject (see there for why it is safe
 * against chosen subjects). get: the verdict, or X_VERDICT_NONE, and s's
 * hash for put (0 when there is no cache yet). put: remember one (allocates
 * the cache at the first call; silently not when that fails or s is too
 * long). */
int rl_x__cache_get(struct x_regex *re, const char *s, size_t len, uint64_t *ret_hash);
void rl_x__cache_put(struct x_regex *re, const char *s, size_t len, uint64_t hash, int verdict);
void rl_x__cache_free(struct x_regex *re);

/* eval.c: evaluate a flattened boolean or number subtree. A boolean is
 * three-valued: RL_UNDECIDED when a regex it depends on was skipped. */
enum rl_truth rl_x__test(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats);
bool rl_x__num(const struct x_enode *n, const struct pl_sample *ev, struct rl_eval_stats *stats, double *out);

/* A number (or boolean) field's value, parameterized fields included;
 * false when absent. */
static inline bool rl_x__field_num(const struct pl_sample *ev, unsigned f, int param, double *out)
{
	return rl_field__num(ev, (enum rl_field)f, param, out);
}

static inline const char *rl_x__field_str(const struct pl_sample *ev, unsigned f)
{
	return rl_field__str(ev, (enum rl_field)f);
}

static inline bool rl_x__field_exists(const struct pl_sample *ev, unsigned f, int param)
{
	return rl_field__exists(ev, (enum rl_field)f, param);
}

#endif
