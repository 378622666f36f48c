/* SPDX-License-Identifier: MIT */
/*
 * record_event.h - a rule event from a JSON record.
 *
 * The sensor evaluates rules on exactly the records it writes (process,
 * window and exec records, docs/records.md), and `plumbline replay` reads
 * those records back: one conversion serves both, so a rule behaves the
 * same live and in replay. Field names are looked up here, once per event,
 * never while a rule is evaluated.
 *
 * Strings in records are escaped (text_escape(), docs/records.md); events
 * hold them unescaped, once, here: rules and exceptions compare the bytes a
 * process gave, whichever moment and whether live or replayed.
 */
#ifndef PL_RULES_RECORD_EVENT_H
#define PL_RULES_RECORD_EVENT_H

#include <json-c/json.h>

#include "event.h"

#define RL_MAX_ANCESTORS 8

struct rl_text_chunk;

/* An event and the storage its arrays point into. Zero it before the first
 * fill; rl_record_event__release() frees what fills allocated. */
struct rl_record_event {
	struct rl_event ev;
	uint64_t sc[RL_SC_SLOTS];
	uint64_t win_sc[RL_SC_SLOTS];
	const char *aname[RL_MAX_ANCESTORS], *apath[RL_MAX_ANCESTORS];
	const char *new_paths[8], *new_syscalls[8];
	struct rl_text_chunk *text; /* unescaped strings of the current event */
	/* Set by the caller when no rule reads proc.syscall[NAME] or
	 * win.syscall_per_s[NAME]: mapping every syscall name back to its
	 * number is then work for nothing. */
	bool skip_syscalls;
};

/*
 * Fill re from rec as an event of `kind`: a "process" record gives an exit
 * event (or, with RL_KIND_EXEC, the exec event of its image: identity and
 * baseline only), a "window" record a window event, an "exec" record an
 * exec event. Strings are unescaped (text_unescape(); a string stops at an
 * escaped NUL): those with nothing to undo are borrowed from rec, the others
 * kept in re. Either way they live until the next fill or release, and rec
 * must too. 0, or -EINVAL when rec is not a record of a type that kind can
 * come from. A string that cannot be unescaped for lack of memory is absent.
 */
int rl_record_event__fill(struct rl_record_event *re, struct json_object *rec, enum rl_kind kind);

/* Free the strings fills kept in re (re can be filled again). */
void rl_record_event__release(struct rl_record_event *re);

#endif
