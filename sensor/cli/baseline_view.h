/* SPDX-License-Identifier: MIT */
/*
 * baseline_view.h - baselines for people and scripts: `baseline list` and
 * `baseline show`, with what each baseline is armed for and what it waits
 * for (samples, saturation, time), in human units.
 */
#ifndef PL_BASELINE_VIEW_H
#define PL_BASELINE_VIEW_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baseline.h"

/*
 * The listing of bs[0..n) sorted by exe, parent exe and key: full names
 * (never cut), one line each with samples, windows, sets saturated and the
 * first things waited for; then a line naming where. With json, one array
 * on stdout. now_ns: CLOCK_REALTIME. 0 or -ENOMEM.
 */
int baseline_view__list(const struct baseline *const *bs, size_t n, const struct bl_policy *p, uint64_t now_ns,
			bool json, const char *where);

/* One baseline in full, in words and human units. */
void baseline_view__show_text(const struct baseline *b, const struct bl_policy *p, uint64_t now_ns);
/* Its JSON (baseline__to_json()) with readiness and quantiles added; NULL on ENOMEM. */
struct json_object *baseline_view__show_json(const struct baseline *b, const struct bl_policy *p, uint64_t now_ns);

/* "build-id:HEX@... (fork)"-aware label of b's exe for a listing (malloc'd, escaped; NULL on ENOMEM). */
char *baseline_view__label(const struct baseline *b);

#endif
