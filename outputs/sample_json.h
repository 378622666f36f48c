/* SPDX-License-Identifier: MIT */
/*
 * sample_json.h - the JSON form of a sample: the records the sensor writes
 * (exec, process, window; docs/records.md), and the one parser of them,
 * for `plumbline replay`.
 *
 * Writing escapes every string from a process once (text_escape()); reading
 * unescapes it once, so a sample that goes out as JSON and comes back in is
 * the sample that went out: the same fields, the same raw bytes, the same
 * alerts (a unit test holds the two paths to that). Times are REALTIME ns on
 * both sides. What JSON can't carry exactly is said in docs/records.md
 * (doubles are printed by json-c with 17 significant digits: exact).
 */
#ifndef PL_SAMPLE_JSON_H
#define PL_SAMPLE_JSON_H

#include <json-c/json.h>

#include "sample.h"

/* raw escaped once (text_escape()), as a JSON string; NULL for NULL or ENOMEM. */
struct json_object *sample_json__str(const char *raw);

/* The record of s: an "exec", "window" or "process" record (an exit sample
 * is a process record). NULL on ENOMEM. */
struct json_object *sample_json__record(const struct pl_sample *s);

/* The object of a map sample (its "object"), NULL for other moments. */
struct json_object *sample_json__map(const struct pl_sample *s);

/* The pieces alerts carry as evidence, the same as in records: */
/* "open_fail_paths": [{path, errno, errno_name, count, truncated}] */
struct json_object *sample_json__fail_paths(const struct pl_sample *s);
/* "syscalls_by_name" of a span: {name: count}, most frequent first */
struct json_object *sample_json__syscalls(const struct pl_span *sp);
/* "baseline": the verdict object, or NULL when no baseline is attached */
struct json_object *sample_json__baseline(const struct pl_sample *s);
/* "stacks": on-CPU samples (top stacks, objects, functions), NULL when none */
struct json_object *sample_json__stacks(const struct pl_sample *s);
/* "ancestors": exe paths, parent first */
struct json_object *sample_json__ancestors(const struct pl_sample *s);

/* what the waiting process waits on (records.md#wait),
 * or NULL when its wait was not read. */
struct json_object *sample_json__wait(const struct pl_sample *s);
/* The watched file of a file sample (its record's "file"), NULL at other moments. */
struct json_object *sample_json__file(const struct pl_sample *s);

/*
 * Storage for one parsed sample: its strings (unescaped copies), syscall
 * counts, failed paths. Reused from record to record; sample_buf__free()
 * at the end.
 */
struct sample_buf;

int sample_buf__new(struct sample_buf **ret);
void sample_buf__free(struct sample_buf *b);

/*
 * Parse record rec into *ret (its strings and arrays in b, valid until the
 * next parse into b). The moment is the record's type: "exec", "window",
 * or "process" (exit). A field that is missing, null or of the wrong type
 * is left unknown. 0, -EINVAL when rec is not an object with one of those
 * types, -ENOMEM.
 */
int sample_json__parse(struct json_object *rec, struct sample_buf *b, struct pl_sample *ret);

#endif
