/* SPDX-License-Identifier: MIT */
/*
 * output.h - where records go: one small vtable per backend.
 *
 * A backend takes typed records (struct pl_record: an alert, a sample, a
 * sensor event) and formats each itself, in its own words; it must never
 * block the sensor for long or lose a record silently: a record it cannot
 * deliver is counted in `dropped` and the error is returned to the caller.
 * A new sink is one file: its ops, its open function, its formatting.
 *
 * How loudly to report is the same rule for every backend, kept here rather
 * than in each caller: a failure is an episode. Its first lost record is
 * reported once, with the reason; while it lasts nothing more is said except
 * a reminder at most once a minute with the count so far; the first record
 * delivered again ends it, reported once with how many were lost. The
 * reports go to a callback the caller registers (output__set_reporter()):
 * this library knows nothing of the kernel and never prints.
 *
 * A backend that keeps records while its target is away (syslog's buffer)
 * loses nothing while the target is down, so it has a second kind of
 * episode, the outage: the backend says when the target stops and starts
 * again taking records (output__set_down()), and each edge is reported once.
 */
#ifndef PL_OUTPUT_H
#define PL_OUTPUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "alert.h"
#include "sample.h"

struct pl_sensor_stats; /* sensor_stats.h */
struct pl_sensor_event; /* sensor_event.h */

struct pl_output;

/* What goes to the outputs. */
enum pl_record_kind {
	PL_RECORD_ALERT = 0, /* an alert or a summary (alert.h) */
	PL_RECORD_SAMPLE,    /* an exec, window or process record (sample_json.h) */
	PL_RECORD_EVENT,     /* a record made elsewhere as JSON (a `plumbline baseline` change, ...) */
	PL_RECORD_STATS,     /* the sensor's counters: the `stats` record (sensor_stats.h) */
	PL_RECORD_SENSOR,    /* the sensor's life: start, rules, losses, stop, audit_head (sensor_event.h) */
};

/* A record that was JSON where it was born (the command line's changes to
 * the audit log, an audit log's own resumed/audit_lost lines): its type
 * ([a-z0-9_]{1,32}) and its JSON body (the whole record, "type" included). */
struct pl_event {
	const char *type;
	struct json_object *body;
};

struct pl_record {
	enum pl_record_kind kind;
	union {
		const struct pl_alert *alert;
		const struct pl_sample *sample;
		const struct pl_event *event;
		const struct pl_sensor_stats *stats;
		const struct pl_sensor_event *sensor;
	};
};

/* The record's type: "alert", "alert_summary", "exec", "window", "process", "stats", or the event's. */
const char *pl_record__type(const struct pl_record *rec);

/* The form alerts take on an output (docs/outputs.md): the sensor's own
 * record, or an OCSF Detection Finding. Set by whoever opens the output. */
enum pl_alert_form { PL_ALERT_NATIVE = 0, PL_ALERT_OCSF };

/*
 * The JSON of rec, in form for an alert (the other records have one form):
 * the one place the outputs turn records into JSON. A new object (the
 * event's body gains a reference), or NULL on ENOMEM (or a summary that
 * names no alert, in OCSF).
 */
struct json_object *pl_record__json(const struct pl_record *rec, enum pl_alert_form form);

/* The JSON text of rec (pl_record__json(), printed plain, '/' not escaped:
 * every JSON line the sensor writes), malloc'd, NUL-terminated, into *ret
 * and its length into *ret_len. 0 or -ENOMEM (both untouched). */
int pl_record__text(const struct pl_record *rec, enum pl_alert_form form, char **ret, size_t *ret_len);

struct pl_output_ops {
	const char *name;
	/* Deliver one record. 0 or -errno; the record is not kept on failure.
	 * A backend that can say more than the errno (what is wrong with its
	 * target) writes it into o->why before returning the error. */
	int (*write)(struct pl_output *o, const struct pl_record *rec);
	int (*flush)(struct pl_output *o);
	void (*free)(struct pl_output *o);
};

/* What output__write() tells the reporter: the edges of a failure episode. */
enum pl_output_event {
	PL_OUTPUT_FAILING,	 /* the first record lost after a delivery (or since open): last_err, why */
	PL_OUTPUT_STILL_FAILING, /* still losing records, a reminder interval after the last word */
	PL_OUTPUT_RECOVERED,	 /* a record delivered after losses: output__lost() were lost */
	PL_OUTPUT_DOWN,		 /* an outage begins: the target stopped taking records (why); they wait */
	PL_OUTPUT_UP,		 /* the outage ends: the target took what waited; o->down_ns long */
};

typedef void (*pl_output_report_fn)(struct pl_output *o, enum pl_output_event ev, void *ctx);

#define PL_OUTPUT_REMINDER_NS (60ull * 1000000000ull) /* at most one reminder a minute */

struct pl_output {
	const struct pl_output_ops *ops;
	uint64_t written; /* records delivered */
	uint64_t dropped; /* records lost to errors */
	int last_err;     /* negative errno of the last failure, 0 if none */
	char why[384];	  /* the backend's words for the last failure, "" when the errno says it all */
	/* the failure episode (output.c) */
	bool failing;		      /* the last record was lost (or the target was unusable at open) */
	uint64_t episode_base;	      /* `dropped` when the current (or last) episode began */
	uint64_t last_word_ns;	      /* CLOCK_MONOTONIC of the last report */
	uint64_t reminder_ns;	      /* interval between reminders; PL_OUTPUT_REMINDER_NS unless changed */
	/* the outage (output__set_down()) */
	bool down;		      /* the target is not taking records */
	uint64_t down_since_ns;	      /* CLOCK_MONOTONIC when the current (or last) outage began */
	uint64_t down_ns;	      /* how long the last outage lasted, once it has ended */
	pl_output_report_fn report;   /* NULL: nobody listens */
	void *report_ctx;
	enum pl_alert_form alert_form; /* PL_ALERT_NATIVE unless set */
};

/*
 * Report failure episodes of o to fn(o, event, ctx) (see enum
 * pl_output_event); fn may be NULL to stop. When the backend already knows at
 * open that its target is unusable (o->failing), fn hears PL_OUTPUT_FAILING
 * right away, so the problem is said at start-up rather than at the first
 * lost record.
 */
void output__set_reporter(struct pl_output *o, pl_output_report_fn fn, void *ctx);

/* Records lost in the current failure episode, or in the last one once it has ended. */
uint64_t output__lost(const struct pl_output *o);

/* For backends: o's target is unusable from the start (err: -errno; why: what
 * is wrong, or NULL). The first report says so; no record is counted. */
void output__fail_at_open(struct pl_output *o, int err, const char *why);

/* For backends, on the thread that calls output__write(): the target stopped
 * (down, why: what is wrong) or started again (!down) taking records. Only
 * an edge is reported (PL_OUTPUT_DOWN with why in o->why, PL_OUTPUT_UP). */
void output__set_down(struct pl_output *o, bool down, const char *why);

/* Carry counters, the failure episode, the outage, the reporter and the alert form from `from` to `to`
 * (a reopened file replacing the old one: SIGHUP). */
void output__carry(struct pl_output *to, const struct pl_output *from);

/*
 * Open path to append to it, for a backend that writes files as root: only
 * a regular file, or a new one (created with mode), is taken; a symlink is
 * refused with -ELOOP (never followed), a directory with -EISDIR, anything
 * else (a FIFO, a device) with -EINVAL, and the open never blocks. access:
 * O_WRONLY or O_RDWR. Returns the fd (blocking, O_APPEND) or -errno.
 */
int output__open_append(const char *path, int access, mode_t mode);

/* Write rec (not consumed). Counts written/dropped, tracks the failure
 * episode and calls the reporter at its edges. Returns 0 or -errno. */
int output__write(struct pl_output *o, const struct pl_record *rec);

/* output__write() of rec to each of outs (NULL entries skipped), each in
 * its own form. */
void output__write_all(struct pl_output *const *outs, size_t n, const struct pl_record *rec);

/* Shorthands: an alert, a sample, the stats, the sensor's life, an event (body: the record, "type" included). */
int output__write_alert(struct pl_output *o, const struct pl_alert *a);
int output__write_sample(struct pl_output *o, const struct pl_sample *s);
int output__write_stats(struct pl_output *o, const struct pl_sensor_stats *st);
int output__write_sensor(struct pl_output *o, const struct pl_sensor_event *ev);
int output__write_event(struct pl_output *o, const char *type, struct json_object *body);
int output__flush(struct pl_output *o);
/* NULL-safe. */
void output__free(struct pl_output *o);

/*
 * JSON Lines backend: one record per line, to `path` ("-" is stdout),
 * appended, created 0640. path must be a regular file or not exist: a
 * symlink is refused with -ELOOP (not followed, even when dangling), a
 * directory with -EISDIR, anything else (a FIFO, a device, a socket) with
 * -EINVAL, and the open never blocks. Lines are written whole: after a
 * failed write to a regular file (disk full) the partial line is truncated
 * away, so the file stays valid JSONL. Returns 0 and *ret, or -errno (*ret
 * untouched).
 */
int jsonl_output__open(const char *path, struct pl_output **ret);

/* Alerts as one line each on f (not owned); other records are not
 * written (and count as written). 0 or -ENOMEM. */
int text_output__open(FILE *f, struct pl_output **ret);

/* Alerts to a syslog daemon: syslog_out.h. */

#endif
