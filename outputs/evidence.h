/* SPDX-License-Identifier: MIT */
/*
 * evidence.h - an alert's stack evidence, read back from its JSON record
 * (`evidence.stacks`, docs/records.md) into typed data, for `plumbline
 * evidence` (cmd_evidence.c).
 *
 * The record comes from a file someone hands us, so nothing in it is
 * trusted: every field is type-checked, counts must be non-negative
 * integers, every string is unescaped once (text_unescape(), as every
 * reader of our formats does) so the structs hold raw bytes, cut at a NUL,
 * and each edge that shows them escapes them again. Sizes are bounded by
 * EV_MAX_STACKS and FG_MAX_DEPTH; what is past a bound is counted, not kept.
 */
#ifndef PL_EVIDENCE_H
#define PL_EVIDENCE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EV_MAX_STACKS 64 /* the sensor writes at most 16 */
#define EV_MAX_LIST 256	 /* objects, functions */

struct ev_frame {
	char *object;	/* "/usr/lib/x86_64-linux-gnu/libburn.so.1", "[kernel]" */
	char *function; /* NULL when the symbol is unknown */
	char *build_id; /* NULL when unknown */
	uint64_t offset;
	bool kernel;
	char *interp; /* "python", ...: an interpreter's evaluation (records.md); NULL otherwise or absent */
	bool is_new; /* "new": the baseline never saw its function on CPU */
};

struct ev_stack {
	uint64_t samples;
	struct ev_frame *frames; /* outermost caller first */
	size_t nframes;
};

struct ev_object {
	char *object, *build_id; /* build_id may be NULL */
	uint64_t samples;
	double share;
	double baseline_share; /* NAN when the baseline has none */
	bool is_new;
};

struct ev_function {
	char *object, *function; /* function may be NULL */
	uint64_t offset;	 /* in the file, when function is NULL (0 when absent) */
	char *interp;		 /* as ev_frame's */
	uint64_t samples;
	double share;
};

struct evidence {
	/* the alert (strings raw, NULL when absent) */
	char *id, *rule, *priority, *when, *exe;
	int64_t pid;	 /* -1 when absent */
	int64_t time_ns; /* 0 when absent */
	/* evidence.stacks */
	uint64_t samples, rate_hz, unattributed;
	/* unattributed_by: why (has_unatt_by false when the record predates it) */
	bool has_unatt_by;
	uint64_t unatt_ring, unatt_table;
	struct ev_stack *stacks; /* heaviest first, as recorded */
	size_t nstacks;
	size_t stacks_dropped; /* past EV_MAX_STACKS */
	struct ev_object *objects;
	size_t nobjects;
	struct ev_function *functions;
	size_t nfunctions;
};

/*
 * The alert of one line of the sensor's outputs, as the native record has
 * it (docs/records.md): a new reference to rec itself when it is a native
 * alert (`"type":"alert"`); for an OCSF Detection Finding of an alert
 * (class_uid 2004, activity_id 1: Create; docs/outputs.md, "OCSF"), a new
 * object with the native fields it carries: `id` (metadata.uid), `rule`
 * (finding_info.title), `output` (message), and `time_ns`, `priority`,
 * `severity`, `when`, `pid`, `exe`, `binary_id`, `evidence`, `host`,
 * `output_fields`, `rule_file`, `rule_line`, `suppressed_before`,
 * `regex_skipped` from its `unmapped`, `rule_desc` (finding_info.desc) and
 * `user` ({uid, name} of evidences[0].actor.user, the uid as an integer). NULL for anything else (other records, a summary's Update
 * finding) or when out of memory.
 */
struct json_object *evidence__alert_record(struct json_object *rec);

/*
 * Read the stack evidence of alert record rec into *ret (which the caller
 * frees with evidence__free(), also after a failure). Returns 0; -ENODATA
 * when the alert has no `evidence.stacks`, or no stack in its `top`;
 * -EINVAL when a field has the wrong type or value, with err naming it
 * ("evidence.stacks.top[2].frames[0].offset: not a non-negative integer");
 * -E2BIG for a stack deeper than FG_MAX_DEPTH frames (err names it);
 * -ENOMEM.
 */
int evidence__parse(struct json_object *rec, struct evidence *ret, char *err, size_t errlen);

/* Free what *ev holds (not ev itself) and zero it. */
void evidence__free(struct evidence *ev);

/* Samples of the stacks kept, at most UINT64_MAX. */
uint64_t evidence__shown(const struct evidence *ev);

#endif
