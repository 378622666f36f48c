// SPDX-License-Identifier: MIT
/*
 * match.c - the string matchers behind the condition operators: ASCII
 * case-insensitive search, glob, path-prefix sets, literal sets for `in`,
 * and PCRE2 regexes with match limits. All of them run without allocating,
 * because they run for every event; anything that needs memory (sorting a
 * set, compiling a regex, its match data) happens at compile time, except a
 * regex's verdict cache, allocated once at its first run.
 *
 * A regex is the one matcher whose cost a subject can blow up (100 us for a
 * crafted 251-byte argument, within the match limit), so it is bounded
 * three ways: the match limit per run, the verdict cache per subject
 * (regex_cache.c: a repeated string runs PCRE2 once), and a budget of PCRE2
 * time per second shared by every regex (struct rl_regex_budget): beyond
 * it a regex is not run and its comparison is undecided, which eval.c
 * carries through the condition.
 */
#include "expr_internal.h"
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

bool rl_x__icontains(const char *hay, const char *needle, size_t nlen)
{
	if (nlen == 0)
		return true;
	for (; *hay; hay++) {
		size_t i = 0;

		while (i < nlen && hay[i] && lower(hay[i]) == lower(needle[i]))
			i++;
		if (i == nlen)
			return true;
		if (!hay[i])
			return false;
	}
	return false;
}

/* One glob element at *pat against c: a literal (possibly \-escaped), '?',
 * or a [class] ([!..] or [^..] negated, a-z ranges). Sets *next past it. */
static bool glob_one(const char *pat, char c, const char **next)
{
	if (*pat == '?') {
		*next = pat + 1;
		return true;
	}
	if (*pat == '[') {
		const char *p = pat + 1;
		bool neg = false, hit = false;

		if (*p == '!' || *p == '^') {
			neg = true;
			p++;
		}
		for (bool first = true; *p && (first || *p != ']'); first = false) {
			char lo = *p, hi = lo;

			if (p[1] == '-' && p[2] && p[2] != ']') {
				hi = p[2];
				p += 3;
			} else {
				p++;
			}
			if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
				hit = true;
		}
		if (*p == ']') {
			*next = p + 1;
			return hit != neg;
		}
		/* no closing ']': the '[' is a literal */
	}
	if (*pat == '\\' && pat[1]) {
		*next = pat + 2;
		return pat[1] == c;
	}
	*next = pat + 1;
	return *pat == c;
}

/* '*' matches any run of bytes, '/' included (Falco's glob). Backtracks only
 * to the last '*', so it is O(len(pat) * len(s)). */
bool rl_x__glob(const char *pat, const char *s)
{
	const char *star = NULL, *star_s = NULL;

	while (*s) {
		const char *next;

		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			if (!*pat)
				return true;
			star = pat;
			star_s = s;
			continue;
		}
		if (*pat && glob_one(pat, *s, &next)) {
			pat = next;
			s++;
			continue;
		}
		if (!star)
			return false;
		pat = star;
		s = ++star_s;
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

bool rl_x__pmatch(const struct x_set *set, const char *path)
{
	for (size_t i = 0; i < set->n; i++) {
		size_t n = set->len[i];

		/* "/" was stored as "": every absolute path is under it */
		if (n == 0 ? path[0] == '/' : strncmp(path, set->s[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

bool rl_x__set_has_str(const struct x_set *set, const char *s)
{
	if (!set->sorted) {
		for (size_t i = 0; i < set->n; i++)
			if (strcmp(s, set->s[i]) == 0)
				return true;
		return false;
	}
	for (size_t lo = 0, hi = set->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s, set->s[mid]);

		if (c == 0)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

bool rl_x__set_has_num(const struct x_set *set, double v)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i] == v)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rl_x__set_finish(struct x_set *set)
{
	size_t n = 0;

	if (set->num) {
		/* few enough to scan; drop exact duplicates */
		for (size_t i = 0; i < set->n; i++) {
			if (rl_x__set_has_num(&(struct x_set){.n = n, .num = true, .v = set->v}, set->v[i]))
				continue;
			set->v[n++] = set->v[i];
		}
		set->n = n;
		return;
	}
	if (set->n <= X_SET_LINEAR_MAX || !set->len)
		return;
	qsort(set->s, set->n, sizeof(set->s[0]), cmp_str);
	for (size_t i = 0; i < set->n; i++)
		if (n == 0 || strcmp(set->s[n - 1], set->s[i]) != 0)
			set->s[n++] = set->s[i];
	set->n = n;
	for (size_t i = 0; i < n; i++)
		set->len[i] = strlen(set->s[i]);
	set->sorted = true;
}

int rl_x__regex_compile(const char *pat, size_t len, struct x_regex **ret, char *msg, size_t msgsize)
{
	struct x_regex *re;
	PCRE2_SIZE erroff;
	int errcode;

	re = calloc(1, sizeof(*re));
	if (!re)
		return -ENOMEM;
	re->code = pcre2_compile((PCRE2_SPTR)pat, len, 0, &errcode, &erroff, NULL);
	if (!re->code) {
		PCRE2_UCHAR text[256];

		if (pcre2_get_error_message(errcode, text, sizeof(text)) < 0)
			snprintf((char *)text, sizeof(text), "error %d", errcode);
		snprintf(msg, msgsize, "bad regex: %s at offset %zu of the pattern", (const char *)text,
			 (size_t)erroff);
		free(re);
		return -EINVAL;
	}
	/* JIT where the platform has it; the interpreter otherwise, silently */
	(void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
	re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
	re->mctx = pcre2_match_context_create(NULL);
	if (!re->md || !re->mctx) {
		rl_x__regex_free(re);
		return -ENOMEM;
	}
	pcre2_set_match_limit(re->mctx, RL_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mctx, RL_REGEX_DEPTH_LIMIT);
	*ret = re;
	return 0;
}

void rl_x__regex_free(struct x_regex *re)
{
	if (!re)
		return;
	rl_x__cache_free(re);
	pcre2_match_context_free(re->mctx);
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	free(re);
}

static uint64_t budget_clock(const struct rl_regex_budget *b)
{
	return b->clock_ns ? b->clock_ns() : mono_ns();
}

/* Whether the budget lets one more regex run now (a new second starts afresh). */
static bool budget_allows(struct rl_regex_budget *b, uint64_t now)
{
	if (now - b->second_ns >= 1000000000ull) {
		b->second_ns = now;
		b->spent_ns = 0;
	}
	return b->spent_ns < b->ns_per_s;
}

static enum rl_truth verdict_truth(int verdict, struct rl_eval_stats *stats)
{
	if (verdict == X_VERDICT_MATCH)
		return RL_TRUE;
	if (verdict == X_VERDICT_LIMIT && stats)
		stats->regex_limit_hits++;
	return RL_FALSE;
}

enum rl_truth rl_x__regex_match(struct x_regex *re, const char *s, struct rl_eval_stats *stats)
{
	struct rl_regex_budget *b = stats && stats->budget.ns_per_s ? &stats->budget : NULL;
	size_t len = strlen(s);
	uint64_t start = 0, hash;
	int rc, verdict = rl_x__cache_get(re, s, len, &hash);

	if (verdict != X_VERDICT_NONE) {
		if (stats)
			stats->regex_cache_hits++;
		return verdict_truth(verdict, stats);
	}
	if (b) {
		start = budget_clock(b);
		if (!budget_allows(b, start)) {
			stats->regex_skipped++;
			return RL_UNDECIDED;
		}
	}
	rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, re->md, re->mctx);
	if (b)
		b->spent_ns += budget_clock(b) - start;
	if (stats)
		stats->regex_runs++;
	if (rc >= 0)
		verdict = X_VERDICT_MATCH;
	else if (rc == PCRE2_ERROR_NOMATCH)
		verdict = X_VERDICT_NOMATCH;
	/* every way a match can run out of budget is a limit hit: the same next time */
	else if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
		 rc == PCRE2_ERROR_JIT_STACKLIMIT)
		verdict = X_VERDICT_LIMIT;
	else {
		/* anything else (out of memory) may not happen again: not remembered */
		if (stats)
			stats->regex_errors++;
		return RL_FALSE;
	}
	rl_x__cache_put(re, s, len, hash, verdict);
	return verdict_truth(verdict, stats);
}
