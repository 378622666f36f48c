// SPDX-License-Identifier: MIT
/*
 * readiness.c - whether a baseline's set is saturated, and why not yet:
 * its draws, the Good-Turing chance of a new member, the walk of the
 * conditions (docs/baselines.md, "Sets: ready when saturated").
 *
 * baseline__set_ready() answers yes or no, many times a second; people
 * (`baseline list`, `baseline show`, `status`) ask what is missing: how many
 * more samples, whether new members still arrive, how much longer the set
 * must stay quiet. Both are this one walk of the conditions, in their order,
 * which stops at the first unmet one (set_ready() is a wrapper).
 */
#include "baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NS_PER_S 1000000000ull

uint64_t baseline__set_draws(const struct baseline *b, enum bl_set set)
{
	uint64_t execs = 0;

	switch (set) {
	case BL_SET_CHILDREN:
		/* execs, and processes that ran none (a leaf binary's empty set saturates too) */
		for (uint32_t i = 0; i < b->set[set].n; i++)
			execs += b->set[set].m[i].count;
		return execs > b->samples ? execs : b->samples;
	case BL_SET_ONCPU:
		return b->oncpu_samples;
	case BL_SET_ONCPU_FUNCS:
		return b->oncpu_fn_samples;
	case BL_SET_PEERS:
		/* lifetimes learned since peers were (a baseline older than the set has none) */
		for (uint32_t i = 0; i < b->set[set].n; i++)
			execs += b->set[set].m[i].count;
		return execs;
	default:
		return b->samples;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The draws that brought the on-CPU functions set's singletons. One CPU
 * sample brings a whole stack: the loader's or an error path's stack, sampled
 * once, is a dozen functions of count 1 at once, and counting each as a draw
 * would keep the set from ever saturating (one such sample in 200 would read
 * as a chance of 0.06). The functions one lifetime brought share their
 * first_ns, so singletons are counted once per first_ns: per lifetime that
 * brought any. singles: the ungrouped count, the bound. -ENOMEM leaves it.
 */
static uint64_t function_single_draws(const struct strset *set, uint64_t singles)
{
	uint64_t *first, groups = 0;
	uint32_t k = 0;

	if (singles < 2 || !(first = malloc(singles * sizeof(*first))))
		return singles;
	for (uint32_t i = 0; i < set->n && k < singles; i++)
		if (set->m[i].count == 1)
			first[k++] = set->m[i].first_ns;
	qsort(first, k, sizeof(*first), cmp_u64);
	for (uint32_t i = 0; i < k; i++)
		groups += !i || first[i] != first[i - 1];
	free(first);
	return groups;
}

double baseline__set_new_chance(const struct baseline *b, enum bl_set set)
{
	uint64_t draws, singles = 0;

	if (!b || set >= BL_SET_MAX)
		return NAN;
	draws = baseline__set_draws(b, set);
	if (!draws)
		return NAN;
	for (uint32_t i = 0; i < b->set[set].n; i++)
		singles += b->set[set].m[i].count == 1;
	if (set == BL_SET_ONCPU_FUNCS)
		singles = function_single_draws(&b->set[set], singles);
	/* a refused member (the bound) was new: count it as a singleton */
	singles += b->set[set].overflow;
	return (double)singles / (double)draws;
}

bool baseline__set_ready(const struct baseline *b, enum bl_set set, const struct bl_policy *p, uint64_t now_ns)
{
	struct bl_set_state st;

	/* one walk of the conditions, for this answer and for the words of
	 * baseline__set_state() (readiness.c): the two cannot disagree */
	baseline__set_state(b, set, p, now_ns, &st);
	return st.wait == BL_WAIT_NONE;
}

void baseline__set_state(const struct baseline *b, enum bl_set set, const struct bl_policy *p, uint64_t now_ns,
			 struct bl_set_state *ret)
{
	bool oncpu = set == BL_SET_ONCPU || set == BL_SET_ONCPU_FUNCS;
	uint64_t newest = 0;

	*ret = (struct bl_set_state){.need = p->min_samples, .chance = NAN, .chance_max = p->set_new_max};
	if (!b || set >= BL_SET_MAX) {
		ret->wait = BL_WAIT_DRAWS;
		return;
	}
	ret->draws = baseline__set_draws(b, set);
	ret->procs = set == BL_SET_ONCPU ? b->oncpu_procs : set == BL_SET_ONCPU_FUNCS ? b->oncpu_fn_procs : 0;
	if (ret->draws < p->min_samples) { /* the cheap answer first: this is asked at every sample */
		ret->wait = BL_WAIT_DRAWS;
		return;
	}
	if (oncpu && ret->procs < p->min_samples) {
		ret->wait = BL_WAIT_PROCS;
		return;
	}
	ret->chance = baseline__set_new_chance(b, set);
	if (!oncpu) { /* the on-CPU sets ask no quiet time: sampling brings a rare object now and then forever */
		newest = b->created_ns;
		for (uint32_t i = 0; i < b->set[set].n; i++)
			if (b->set[set].m[i].first_ns > newest)
				newest = b->set[set].m[i].first_ns;
		if (!now_ns)
			now_ns = b->updated_ns;
		ret->quiet_ns = now_ns >= newest ? now_ns - newest : 0;
		ret->quiet_need_ns = p->set_quiet_ns;
	}
	if (!(ret->chance <= p->set_new_max))
		ret->wait = BL_WAIT_CHANCE;
	else if (!oncpu && (now_ns < newest || ret->quiet_ns < p->set_quiet_ns))
		ret->wait = BL_WAIT_QUIET;
	else
		ret->wait = BL_WAIT_NONE;
}

static void fmt_duration(uint64_t ns, char *buf, size_t size)
{
	uint64_t s = (ns + NS_PER_S - 1) / NS_PER_S;

	if (s >= 86400)
		snprintf(buf, size, "%llud %lluh", (unsigned long long)(s / 86400),
			 (unsigned long long)(s % 86400 / 3600));
	else if (s >= 3600)
		snprintf(buf, size, "%lluh %llum", (unsigned long long)(s / 3600), (unsigned long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, size, "%llum %llus", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, size, "%llus", (unsigned long long)s);
}

/* What one draw of the set is, plural. */
static const char *draw_noun(enum bl_set set)
{
	switch (set) {
	case BL_SET_ONCPU:
	case BL_SET_ONCPU_FUNCS:
		return "CPU samples";
	default:
		return "samples";
	}
}

const char *bl_set_state__text(const struct bl_set_state *s, enum bl_set set, char *buf, size_t size)
{
	char d[32];

	switch (s->wait) {
	case BL_WAIT_NONE:
		snprintf(buf, size, "saturated");
		break;
	case BL_WAIT_DRAWS:
		snprintf(buf, size, "%llu more %s", (unsigned long long)(s->need - s->draws), draw_noun(set));
		break;
	case BL_WAIT_PROCS:
		snprintf(buf, size, "%llu more runs that reach the CPU sampler",
			 (unsigned long long)(s->need - s->procs));
		break;
	case BL_WAIT_CHANCE:
		snprintf(buf, size, "new members still arrive (%.1f %% of %s > %.0f %%)", 100 * s->chance,
			 draw_noun(set), 100 * s->chance_max);
		break;
	case BL_WAIT_QUIET:
		fmt_duration(s->quiet_need_ns - s->quiet_ns, d, sizeof(d));
		snprintf(buf, size, "%s more without a new member", d);
		break;
	}
	return buf;
}

const char *bl_set_wait__name(enum bl_set_wait w)
{
	static const char *const names[] = {"none", "draws", "procs", "chance", "quiet"};

	return (unsigned)w < sizeof(names) / sizeof(names[0]) ? names[w] : "?";
}
