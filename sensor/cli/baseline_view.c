// SPDX-License-Identifier: MIT
/*
 * baseline_view.c - `baseline list` and `baseline show` (docs/baselines.md,
 * "Readiness").
 *
 * A baseline is armed for a rule family when its part is ready: the cost
 * rules (lifetime distributions) at min_samples process samples, the
 * window rules at min_windows windows, each set rule (children for the
 * build canary, on-CPU objects for new code, fail paths, syscalls, files,
 * objects, peers) once its set is saturated (baselines/readiness.c). People
 * ask what a baseline is armed for and what it still waits for: both are
 * said here, in the units of what is measured (ms, per second, % of a CPU),
 * with names printed whole through text_escape().
 */
#include "cli/baseline_view.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "sample_json.h"
#include "sketch.h"
#include "textsafe.h"

#define OR_Q(s) ((s) ? (s) : "?")

static const double quantiles[] = {0.5, 0.9, 0.99, 0.999};
static const char *const qnames[] = {"p50", "p90", "p99", "p99_9"};

char *baseline_view__label(const struct baseline *b)
{
	size_t n = strlen(b->binary_id), k = strlen(BL_KEY_FORK);
	_cleanup_free_ char *forked = NULL;

	/* a fork image's baseline has the exec image's labels: say which is which */
	if (n >= k && strcmp(b->binary_id + n - k, BL_KEY_FORK) == 0 &&
	    asprintf(&forked, "%s (fork)", b->exe[0] ? b->exe : "-") < 0)
		return NULL;
	return text_escape_str(forked ? forked : b->exe[0] ? b->exe : "-");
}

static void fmt_time(uint64_t ns, char *buf, size_t size)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (ns && gmtime_r(&t, &tm))
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(buf, size, "-");
}

/* v in the distribution's unit, for people: a duration, a share of a CPU, a rate or a count. */
static void fmt_value(enum pl_dist d, double v, char *buf, size_t size)
{
	const char *name = bl_dist__name(d);
	bool per_s = strstr(name, "_per_s") != NULL;

	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (d == PL_WIN_CPU) /* ns of CPU per second */
		snprintf(buf, size, "%.3g %%", v / 1e7);
	else if (strstr(name, "_ns") && !per_s)
		snprintf(buf, size,
			 v < 1e3   ? "%.0f ns"
			 : v < 1e6 ? "%.3g us"
			 : v < 1e9 ? "%.3g ms"
				   : "%.3g s",
			 v < 1e3   ? v
			 : v < 1e6 ? v / 1e3
			 : v < 1e9 ? v / 1e6
				   : v / 1e9);
	else if (per_s)
		snprintf(buf, size, "%.3g/s", v);
	else
		snprintf(buf, size, "%.0f", v);
}

/* The sets whose saturation a rule family waits for, in the order people read them. */
static const enum bl_set shown_sets[] = {BL_SET_CHILDREN, BL_SET_ONCPU,	  BL_SET_FAIL_PATHS, BL_SET_SYSCALLS,
					 BL_SET_FILES,	  BL_SET_OBJECTS, BL_SET_PEERS,	     BL_SET_ONCPU_FUNCS};
#define NSHOWN (sizeof(shown_sets) / sizeof(shown_sets[0]))

/* What b waits for, as "a; b; c" in buf (empty when armed for everything); the number of parts. */
static size_t waiting_for(const struct baseline *b, const struct bl_policy *p, uint64_t now_ns, char *buf, size_t size,
			  size_t *ret_saturated)
{
	size_t parts = 0, len = 0, sat = 0;
	char t[128];

	buf[0] = '\0';
#define PART(...)                                                                                                      \
	do {                                                                                                           \
		if (len < size)                                                                                        \
			len += (size_t)snprintf(buf + len, size - len, "%s", parts ? "; " : "");                       \
		if (len < size)                                                                                        \
			len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__);                                   \
		parts++;                                                                                               \
	} while (0)
	if (!baseline__ready(b, p))
		PART("cost: %llu more samples", (unsigned long long)(p->min_samples - b->samples));
	if (!baseline__windows_ready(b, p))
		PART("windows: %llu more", (unsigned long long)(p->min_windows - b->windows));
	char texts[NSHOWN][128];
	bool said[NSHOWN] = {false};

	for (size_t i = 0; i < NSHOWN; i++) {
		struct bl_set_state s;

		baseline__set_state(b, shown_sets[i], p, now_ns, &s);
		if (s.wait == BL_WAIT_NONE) {
			sat++;
			said[i] = true;
			continue;
		}
		bl_set_state__text(&s, shown_sets[i], texts[i], sizeof(texts[i]));
	}
	/* the sets that wait for the same thing together: "children, syscalls: 7m more ..." */
	for (size_t i = 0; i < NSHOWN; i++) {
		size_t tl = 0;

		if (said[i])
			continue;
		t[0] = '\0';
		for (size_t k = i; k < NSHOWN; k++)
			if (!said[k] && strcmp(texts[k], texts[i]) == 0) {
				said[k] = true;
				if (tl < sizeof(t))
					tl += (size_t)snprintf(t + tl, sizeof(t) - tl, "%s%s", tl ? ", " : "",
							       bl_set__name(shown_sets[k]));
			}
		PART("%s: %s", t, texts[i]);
	}
#undef PART
	*ret_saturated = sat;
	return parts;
}

static int cmp_listed(const void *x, const void *y)
{
	const struct baseline *a = *(const struct baseline *const *)x, *b = *(const struct baseline *const *)y;
	int c = strcmp(a->exe, b->exe);

	if (!c)
		c = strcmp(a->parent_exe, b->parent_exe);
	return c ? c : strcmp(a->key, b->key);
}

static struct json_object *set_state_json(const struct baseline *b, enum bl_set set, const struct bl_policy *p,
					  uint64_t now_ns)
{
	struct json_object *o = json_object_new_object();
	struct bl_set_state s;
	char t[128];

	baseline__set_state(b, set, p, now_ns, &s);
	json_object_object_add(o, "saturated", json_object_new_boolean(s.wait == BL_WAIT_NONE));
	json_object_object_add(o, "waiting_for", json_object_new_string(bl_set_wait__name(s.wait)));
	json_object_object_add(o, "members", json_object_new_uint64(b->set[set].n));
	json_object_object_add(o, "draws", json_object_new_uint64(s.draws));
	json_object_object_add(o, "draws_needed", json_object_new_uint64(s.need));
	json_object_object_add(o, "new_chance", isfinite(s.chance) ? json_object_new_double(s.chance) : NULL);
	json_object_object_add(o, "new_chance_max", json_object_new_double(s.chance_max));
	json_object_object_add(o, "quiet_s", json_object_new_double((double)s.quiet_ns / 1e9));
	json_object_object_add(o, "quiet_needed_s", json_object_new_double((double)s.quiet_need_ns / 1e9));
	json_object_object_add(o, "text", json_object_new_string(bl_set_state__text(&s, set, t, sizeof(t))));
	return o;
}

static struct json_object *readiness_json(const struct baseline *b, const struct bl_policy *p, uint64_t now_ns)
{
	struct json_object *sets = json_object_new_object();

	for (size_t i = 0; i < NSHOWN; i++)
		json_object_object_add(sets, bl_set__name(shown_sets[i]), set_state_json(b, shown_sets[i], p, now_ns));
	return sets;
}

int baseline_view__list(const struct baseline *const *bs, size_t n, const struct bl_policy *p, uint64_t now_ns,
			bool json, const char *where)
{
	_cleanup_free_ const struct baseline **v = n ? malloc(n * sizeof(*v)) : NULL;
	int wexe = 3, wpar = 6;
	char wait[1024];

	if (n && !v)
		return -ENOMEM;
	if (n)
		memcpy(v, bs, n * sizeof(*v));
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_listed);
	if (json) {
		struct json_object *arr = json_object_new_array();

		for (size_t i = 0; i < n; i++) {
			const struct baseline *b = v[i];
			struct json_object *e = json_object_new_object();
			size_t sat;

			json_object_object_add(e, "key", sample_json__str(b->key));
			json_object_object_add(e, "exe", sample_json__str(b->exe));
			json_object_object_add(e, "parent_exe", sample_json__str(b->parent_exe));
			json_object_object_add(e, "samples", json_object_new_uint64(b->samples));
			json_object_object_add(e, "windows", json_object_new_uint64(b->windows));
			json_object_object_add(e, "ready", json_object_new_boolean(baseline__ready(b, p)));
			json_object_object_add(e, "windows_ready",
					       json_object_new_boolean(baseline__windows_ready(b, p)));
			json_object_object_add(e, "updated_ns", json_object_new_uint64(b->updated_ns));
			json_object_object_add(e, "sets", readiness_json(b, p, now_ns));
			waiting_for(b, p, now_ns, wait, sizeof(wait), &sat);
			json_object_object_add(e, "waiting_for", json_object_new_string(wait));
			json_object_array_add(arr, e);
		}
		puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
		return 0;
	}
	/* the columns as wide as the widest name: a path is never cut */
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *e = baseline_view__label(v[i]), *pe = text_escape_str(v[i]->parent_exe);

		if (e && (int)strlen(e) > wexe)
			wexe = (int)strlen(e);
		if (pe && (int)strlen(pe) > wpar)
			wpar = (int)strlen(pe);
	}
	printf("%-*s  %-*s  %-17s %8s %8s %5s  %s\n", wexe, "EXE", wpar, "PARENT", "ID", "SAMPLES", "WINDOWS", "SETS",
	       "WAITING FOR");
	for (size_t i = 0; i < n; i++) {
		const struct baseline *b = v[i];
		_cleanup_free_ char *e = baseline_view__label(b),
				    *pe = text_escape_str(b->parent_exe[0] ? b->parent_exe : "-");
		size_t sat, parts = waiting_for(b, p, now_ns, wait, sizeof(wait), &sat);
		char sets[16];

		char id[BL_SHORT_ID_SIZE];

		baseline__short_id(b, id);
		snprintf(sets, sizeof(sets), "%zu/%zu", sat, NSHOWN);
		printf("%-*s  %-*s  %-17s %8llu %8llu %5s  %s\n", wexe, OR_Q(e), wpar, OR_Q(pe), id,
		       (unsigned long long)b->samples, (unsigned long long)b->windows, sets,
		       parts ? wait : "nothing: armed for every rule family");
	}
	printf("-- %zu baselines in %s; ready at %u samples, %u windows; a set is saturated when new members "
	       "arrive in at most %.0f %% of draws and none for %llu s\n",
	       n, where, p->min_samples, p->min_windows, 100 * p->set_new_max,
	       (unsigned long long)(p->set_quiet_ns / 1000000000ull));
	return 0;
}

struct json_object *baseline_view__show_json(const struct baseline *b, const struct bl_policy *p, uint64_t now_ns)
{
	struct json_object *o = baseline__to_json(b), *q = json_object_new_object();
	char wait[1024];
	size_t sat;

	if (!o)
		return NULL;
	json_object_object_add(o, "ready", json_object_new_boolean(baseline__ready(b, p)));
	json_object_object_add(o, "windows_ready", json_object_new_boolean(baseline__windows_ready(b, p)));
	json_object_object_add(o, "readiness", readiness_json(b, p, now_ns));
	waiting_for(b, p, now_ns, wait, sizeof(wait), &sat);
	json_object_object_add(o, "waiting_for", json_object_new_string(wait));
	for (int d = 0; d < PL_DIST_MAX; d++) {
		struct json_object *e = json_object_new_object();
		const struct sketch *s = &b->dist[d];

		json_object_object_add(e, "count", json_object_new_uint64(s->count));
		for (size_t i = 0; i < 4; i++) {
			double v = sketch__quantile(s, quantiles[i]);

			json_object_object_add(e, qnames[i], isfinite(v) ? json_object_new_double(v) : NULL);
		}
		json_object_object_add(e, "mean", s->count ? json_object_new_double(sketch__mean(s)) : NULL);
		json_object_object_add(e, "min", s->count ? json_object_new_uint64(s->min) : NULL);
		json_object_object_add(e, "max", s->count ? json_object_new_uint64(s->max) : NULL);
		json_object_object_add(q, bl_dist__name(d), e);
	}
	json_object_object_add(o, "quantiles", q);
	return o;
}

void baseline_view__show_text(const struct baseline *b, const struct bl_policy *p, uint64_t now_ns)
{
	_cleanup_free_ char *key = text_escape_str(b->key), *exe = baseline_view__label(b);
	_cleanup_free_ char *pexe = text_escape_str(b->parent_exe), *prior = text_escape_str(b->prior_key);
	char c[32], u[32], wait[1024], t[128];
	size_t sat;

	fmt_time(b->created_ns, c, sizeof(c));
	fmt_time(b->updated_ns, u, sizeof(u));
	printf("baseline %s\n", OR_Q(key));
	printf("  exe            %s\n  parent exe     %s\n", OR_Q(exe), !pexe ? "?" : pexe[0] ? pexe : "-");
	printf("  created        %s   updated %s\n", c, u);
	printf("  not learned    %llu anomalous, %llu over the learning rate\n", (unsigned long long)b->quarantined,
	       (unsigned long long)b->rate_limited);
	printf("  prior          %s\n", prior ? prior : b->prior_key ? "?" : "-");
	waiting_for(b, p, now_ns, wait, sizeof(wait), &sat);
	printf("  armed for      %s\n", wait[0] ? "part of the rules (below)" : "every rule family");
	printf("  cost rules     %s: %llu process samples (ready at %u)\n",
	       baseline__ready(b, p) ? "ready" : "learning", (unsigned long long)b->samples, p->min_samples);
	printf("  window rules   %s: %llu windows (ready at %u)\n",
	       baseline__windows_ready(b, p) ? "ready" : "learning", (unsigned long long)b->windows, p->min_windows);
	printf("  %-24s %8s %10s %10s %10s %10s %10s %10s\n", "distribution", "count", "p50", "p90", "p99", "p99.9",
	       "min", "max");
	for (int d = 0; d < PL_DIST_MAX; d++) {
		const struct sketch *s = &b->dist[d];
		char v[6][24];

		for (int i = 0; i < 4; i++)
			fmt_value(d, sketch__quantile(s, quantiles[i]), v[i], sizeof(v[i]));
		fmt_value(d, s->count ? (double)s->min : NAN, v[4], sizeof(v[4]));
		fmt_value(d, s->count ? (double)s->max : NAN, v[5], sizeof(v[5]));
		printf("  %-24s %8llu %10s %10s %10s %10s %10s %10s\n", bl_dist__name(d), (unsigned long long)s->count,
		       v[0], v[1], v[2], v[3], v[4], v[5]);
	}
	for (int i = 0; i < BL_SET_MAX; i++) {
		const struct strset *set = &b->set[i];
		struct bl_set_state s;

		baseline__set_state(b, i, p, now_ns, &s);
		printf("  %s: %u members (at most %u, %llu refused); %s\n", bl_set__name(i), set->n, set->max,
		       (unsigned long long)set->overflow, bl_set_state__text(&s, i, t, sizeof(t)));
		for (uint32_t k = 0; k < set->n; k++) {
			_cleanup_free_ char *m = text_escape_str(set->m[k].s);

			printf("    %8llu  %s\n", (unsigned long long)set->m[k].count, OR_Q(m));
		}
	}
}
