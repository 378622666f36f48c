// SPDX-License-Identifier: MIT
/*
 * learn_progress.c - what the learner says of its readiness: per rule
 * family, the baselines ready, waiting and what for, and the ones closest
 * to ready (learner__progress(), for metrics and `plumbline status`).
 */
#include "pipeline/learn_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "textsafe.h"

/* ---- metrics and `plumbline status` ---- */

static void label(char *buf, size_t size, const char *s)
{
	buf[0] = '\0';
	if (s)
		text_escape_buf(buf, size, s, strlen(s), 0);
}

/*
 * The rule families, and the readiness each needs (learn.h). The families
 * of issue 18 add a line each: { "files", "70-files.yaml", LEARN_READY_SET,
 * BL_SET_FILES }, { "objects", "75-code.yaml", ..., BL_SET_OBJECTS },
 * { "peers", "80-network.yaml", ..., BL_SET_PEERS }.
 */
static const struct {
	const char *name, *rules;
	enum learn_readiness need;
	enum bl_set set;
} families[] = {
	{ "cost", "10-auth.yaml 30-runaway.yaml 60-waiting.yaml 90-deviation.yaml", LEARN_READY_LIFETIME, 0 },
	{ "windows", "20-storms.yaml 30-runaway.yaml 90-deviation.yaml", LEARN_READY_WINDOWS, 0 },
	{ "children", "40-canary.yaml", LEARN_READY_SET, BL_SET_CHILDREN },
	{ "oncpu_objects", "10-auth.yaml", LEARN_READY_SET, BL_SET_ONCPU },
};
_Static_assert(sizeof(families) / sizeof(families[0]) <= LEARN_FAMILIES_MAX, "room for every family");

/* Whether family f concerns baseline b at all (a binary that never lives a window has no window
 * baseline to wait for; one never sampled on CPU no objects), and whether b is ready for it. */
static bool family_concerns(const struct learner *l, size_t f, const struct baseline *b, uint64_t now, bool *ready,
			    uint64_t *weight, enum bl_set_wait *wait)
{
	struct bl_set_state ss;

	*weight = b->samples;
	*wait = BL_WAIT_DRAWS;
	switch (families[f].need) {
	case LEARN_READY_LIFETIME:
		/* a key seen once (a script in a fresh temporary directory, a one-off build) recurs
		 * never: no definition could have it ready, and it holds nothing back */
		*ready = baseline__ready(b, &l->pol);
		return b->samples >= 2;
	case LEARN_READY_WINDOWS:
		*ready = baseline__windows_ready(b, &l->pol);
		*weight = b->windows;
		return b->windows > 0;
	case LEARN_READY_SET:
		if (b->samples < 2 || (families[f].set == BL_SET_ONCPU && !b->oncpu_samples))
			return false;
		baseline__set_state(b, families[f].set, &l->pol, now, &ss);
		*ready = ss.wait == BL_WAIT_NONE;
		*wait = ss.wait;
		return true;
	}
	return false;
}

static void progress_families(const struct learner *l, struct learn_progress *ret)
{
	uint64_t now = real_ns(), active_ns = LEARN_ACTIVE_S * 1000000000ull;
	size_t n = bl_store__count(l->store);

	ret->nfamily = sizeof(families) / sizeof(families[0]);
	for (size_t f = 0; f < ret->nfamily; f++)
		ret->family[f] = (struct learn_family_state){ .name = families[f].name, .rules = families[f].rules };
	for (size_t i = 0; i < n; i++) {
		const struct baseline *b = bl_store__at(l->store, i);
		bool active;

		if (!b)
			continue;
		active = b->seen_ns <= now ? now - b->seen_ns < active_ns : true;
		ret->active += active;
		for (size_t f = 0; f < ret->nfamily; f++) {
			struct learn_family_state *st = &ret->family[f];
			uint64_t weight = 0;
			enum bl_set_wait wait;
			bool ready = false;

			if (!family_concerns(l, f, b, now, &ready, &weight, &wait))
				continue;
			*(ready ? &st->ready : &st->learning) += 1;
			if (!active)
				continue;
			*(ready ? &st->active_ready : &st->active_learning) += 1;
			if (!ready && wait <= BL_WAIT_QUIET)
				st->waiting[wait]++;
			st->weight_all += weight;
			st->weight_ready += ready ? weight : 0;
		}
	}
	for (size_t f = 0; f < ret->nfamily; f++) {
		struct learn_family_state *st = &ret->family[f];
		st->armed = st->weight_all && st->weight_ready * 100 >= st->weight_all * LEARN_ARMED_PCT;
	}
}

void learner__progress(const struct learner *l, struct learn_progress *ret)
{
	size_t n = bl_store__count(l->store);
	const struct baseline *top[LEARN_TOP_MAX];
	size_t ntop = 0;

	*ret = (struct learn_progress){
		.baselines = n,
		.min_samples = l->pol.min_samples,
		.min_windows = l->pol.min_windows,
		.process_samples = l->process_samples,
		.window_samples = l->window_samples,
		.anomalous = l->anomalous,
		.without_baseline = l->no_baseline + bl_store__refused(l->store),
		.save_errors = l->save_errors,
	};
	for (size_t i = 0; i < n; i++) {
		const struct baseline *b = bl_store__at(l->store, i);
		size_t j;

		if (!b)
			continue;
		ret->windows_ready += baseline__windows_ready(b, &l->pol);
		if (baseline__ready(b, &l->pol)) {
			ret->ready++;
			continue;
		}
		ret->learning++;
		/* insertion into the few closest to ready: most samples, then most recently updated */
		for (j = ntop; j > 0; j--) {
			const struct baseline *o = top[j - 1];

			if (o->samples > b->samples || (o->samples == b->samples && o->updated_ns >= b->updated_ns))
				break;
			if (j < LEARN_TOP_MAX)
				top[j] = o;
		}
		if (j < LEARN_TOP_MAX) {
			top[j] = b;
			if (ntop < LEARN_TOP_MAX)
				ntop++;
		}
	}
	for (size_t i = 0; i < ntop; i++) {
		label(ret->top[i].exe, sizeof(ret->top[i].exe), top[i]->exe);
		label(ret->top[i].parent_exe, sizeof(ret->top[i].parent_exe), top[i]->parent_exe);
		ret->top[i].samples = top[i]->samples;
		baseline__short_id(top[i], ret->top[i].id);
	}
	ret->ntop = ntop;
	progress_families(l, ret);
}
