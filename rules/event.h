/* SPDX-License-Identifier: MIT */
/*
 * event.h - what a rule sees, and when.
 *
 * A rule is evaluated on one typed sample (common/sample.h) of a process at
 * one moment: its exec, a 1-second window while it runs, or its exit. It
 * reads the sample through the field table (fields.h), by field id: no
 * names, no hashing, no JSON while evaluating. The live sensor fills the
 * sample from the kernel's counters; `plumbline replay` from a JSON record.
 * Strings in a sample are borrowed: they must outlive the evaluation.
 */
#ifndef PL_RULES_EVENT_H
#define PL_RULES_EVENT_H

#include <stdint.h>

#include "fields.h"
#include "sample.h"

/* When a rule can be evaluated (a bit mask): the sample's moments. */
enum rl_kind {
	RL_KIND_EXEC = PL_AT_EXEC,     /* a new image started */
	RL_KIND_WINDOW = PL_AT_WINDOW, /* a 1-second window of a running image */
	RL_KIND_EXIT = PL_AT_EXIT,     /* an image ended (exit, or exec of another) */
	RL_KIND_ALL = PL_AT_ALL,
};

struct rl_strlist {
	const char *const *v;
	uint32_t n;
};

#define RL_SC_SLOTS PL_SAMPLE_NR_SYSCALLS /* per-syscall counters, by number */

#endif
