/* SPDX-License-Identifier: MIT */
/*
 * event.h - what a rule sees: one flat, typed record of a process at one
 * moment (its exec, a 1-second window while it runs, or its exit).
 *
 * Values live in arrays indexed by field id (fields.h), so a compiled rule
 * reads a field with one index and one presence bit: no names, no hashing,
 * no JSON while evaluating. Both the sensor and `plumbline replay` fill events
 * from the JSON records the sensor writes (record_event.h), once per event.
 * Strings are borrowed: they must outlive the evaluation.
 */
#ifndef PL_RULES_EVENT_H
#define PL_RULES_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fields.h"

/* When a rule can be evaluated (a bit mask). */
enum rl_kind {
	RL_KIND_EXEC = 1u << 0,   /* a new image started */
	RL_KIND_WINDOW = 1u << 1, /* a 1-second window of a running image */
	RL_KIND_EXIT = 1u << 2,   /* an image ended (exit, or exec of another) */
	RL_KIND_ALL = 7u,
};

struct rl_strlist {
	const char *const *v;
	uint32_t n;
};

#define RL_SC_SLOTS 512 /* per-syscall counters, by x86_64 number (PL_NR_SYSCALLS) */

struct rl_event {
	enum rl_kind kind;
	uint64_t present[(RL_NFIELDS + 63) / 64]; /* bit per field id: has a value */
	double num[RL_NFIELDS];                   /* RL_T_NUM and RL_T_BOOL fields (bool: 0/1) */
	const char *str[RL_NFIELDS];              /* RL_T_STR fields */
	struct rl_strlist list[RL_NFIELDS];       /* RL_T_STRLIST fields */
	const uint64_t *sc;     /* lifetime per-syscall counts, or NULL (proc.syscall[NAME]) */
	const uint64_t *win_sc; /* per-syscall counts in the window, or NULL (win.syscall_per_s[NAME]) */
	double win_seconds;     /* the window's length, to make per-second rates */
};

/* Start a new event of kind k: nothing present. */
static inline void rl_event__reset(struct rl_event *e, enum rl_kind k)
{
	e->kind = k;
	memset(e->present, 0, sizeof(e->present));
	e->sc = e->win_sc = NULL;
	e->win_seconds = 0;
}

static inline bool rl_event__has(const struct rl_event *e, enum rl_field f)
{
	return e->present[f / 64] & (1ull << (f % 64));
}

static inline void rl_event__mark(struct rl_event *e, enum rl_field f)
{
	e->present[f / 64] |= 1ull << (f % 64);
}

static inline void rl_event__num(struct rl_event *e, enum rl_field f, double v)
{
	e->num[f] = v;
	rl_event__mark(e, f);
}

static inline void rl_event__bool(struct rl_event *e, enum rl_field f, bool v)
{
	e->num[f] = v ? 1 : 0;
	rl_event__mark(e, f);
}

/* NULL leaves the field absent. */
static inline void rl_event__str(struct rl_event *e, enum rl_field f, const char *s)
{
	if (!s)
		return;
	e->str[f] = s;
	rl_event__mark(e, f);
}

static inline void rl_event__list(struct rl_event *e, enum rl_field f, const char *const *v, uint32_t n)
{
	e->list[f].v = v;
	e->list[f].n = n;
	rl_event__mark(e, f);
}

#endif
