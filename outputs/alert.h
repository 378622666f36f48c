/* SPDX-License-Identifier: MIT */
/*
 * alert.h - the alert as one typed struct, from the rule (or the sensor
 * itself) to every output.
 *
 * One struct for the three alerts the sensor writes: a rule's alert, the
 * summary of what a rule's dedupe window held back, and the sensor's own
 * "Sensor lost events" alert. Each output formats from it (the native JSON
 * record: alert_json.h; OCSF: alert_ocsf.h; syslog, the audit log, text
 * lines): nothing reads an alert back out of its JSON.
 *
 * Strings are raw, as the process or the rule file gave them (each output
 * escapes them once, text_escape()), except `output`, which the rule's
 * template already rendered escaped. Pointers are borrowed: an alert lives
 * for one write to the outputs. A new field is a member here, set by its
 * producer, formatted by the outputs that carry it; zero means "not known",
 * so producers that know nothing of it need no change.
 */
#ifndef PL_ALERT_H
#define PL_ALERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

#define PL_ALERT_ID_LEN	    33 /* "<16 hex: instance>-<16 hex: sequence>" */
#define PL_ALERT_OUTPUT_MAX 4096
#define PL_ALERT_LIST_MAX   8 /* entries of a list value of output_fields */

enum pl_alert_kind {
	PL_ALERT_RULE = 0, /* type "alert": a rule matched a sample */
	PL_ALERT_SUMMARY,  /* type "alert_summary": what a dedupe window held back */
	PL_ALERT_LOSS,	   /* type "alert", rule "Sensor lost events": the sensor's own */
};

/* The evidence a rule asks for (its `evidence:` list), taken from the sample. */
enum pl_alert_evidence {
	PL_EVIDENCE_FAIL_PATHS = 1u << 0,
	PL_EVIDENCE_SYSCALLS = 1u << 1,
	PL_EVIDENCE_BASELINE = 1u << 2,
	PL_EVIDENCE_ANCESTRY = 1u << 3,
	PL_EVIDENCE_STACKS = 1u << 4,
	PL_EVIDENCE_WAIT = 1u << 5,
};

enum pl_value_type { PL_VALUE_NULL = 0, PL_VALUE_INT, PL_VALUE_DOUBLE, PL_VALUE_BOOL, PL_VALUE_STR, PL_VALUE_LIST };

/* The exact value of one field a rule's output names (output_fields). */
struct pl_alert_field {
	char name[96]; /* "proc.pid", "proc.syscall[openat]" */
	enum pl_value_type type;
	int64_t i;
	double d;
	bool b;
	const char *s; /* raw */
	const char *list[PL_ALERT_LIST_MAX];
	uint32_t nlist;
};

/* The host, and what it was under when the alert was raised. */
struct pl_alert_host {
	const char *name;    /* gethostname(), raw; NULL: unknown */
	const char *id;	     /* stable host id, 32 hex (sensor/identity/hostinfo.h); NULL: unknown */
	const char *boot_id; /* /proc/sys/kernel/random/boot_id; NULL: unknown */
	bool psi; /* PSI readable: the *_ok values that are */
	bool cpu_ok, memory_ok, io_ok;
	double cpu, memory, io; /* `some avg10`, percent */
	bool cgroup_cpu;	/* the process's cgroup CPU throttling */
	uint64_t nr_periods, nr_throttled, throttled_usec;
};

/* PL_ALERT_SUMMARY: the window and what it held back. */
struct pl_alert_summary {
	const char *alert_id; /* the alert the held matches repeat */
	uint64_t count, first_ns, last_ns, window_start_ns, window_end_ns;
	const char *reason; /* "window_end", "shutdown", "evicted" (dedupe.h) */
};

/* PL_ALERT_LOSS: one cause of loss (the stats record's name). */
struct pl_loss_cause {
	const char *name;
	uint64_t lost;	/* since the previous loss alert */
	uint64_t total; /* since the start */
};

struct pl_alert_loss {
	const struct pl_loss_cause *causes; /* every cause, in the stats record's order */
	size_t ncauses;
	uint64_t since_ns;     /* REALTIME of the previous loss alert, or of the start */
	uint64_t ticks_folded; /* ticks with new losses folded into this alert */
};

struct pl_alert {
	enum pl_alert_kind kind;
	char id[PL_ALERT_ID_LEN + 1];
	uint64_t time_ns;		  /* REALTIME */
	const char *rule;		  /* raw */
	const char *desc;		  /* the rule's description, raw; NULL: none */
	const char *priority;		  /* "Warning" */
	int severity;			  /* syslog 0 Emergency .. 7 Debug */
	const char *when;		  /* "exec", "window", "exit", "sensor" */
	char output[PL_ALERT_OUTPUT_MAX]; /* the rendered line, escaped already */
	const char *output_text;	  /* the same for people (text output: absent values in words); NULL: output */
	const char *const *tags;	  /* raw */
	size_t ntags;
	uint32_t pid;
	const char *exe, *binary_id; /* raw; NULL: unknown */
	bool has_user;		     /* uid (and user) known: the process's (the sensor's own for a loss alert) */
	uint32_t uid;		     /* real uid */
	const char *user;	     /* uid's user name, raw; NULL: no such user */
	uint64_t suppressed_before;
	bool regex_skipped;		     /* matched only because the regex budget left a regex unrun */
	const struct pl_alert_field *fields; /* output_fields, in the template's order */
	size_t nfields;
	unsigned evidence;		/* enum pl_alert_evidence: what to take from sample */
	const struct pl_sample *sample; /* the sample matched (the sensor's own for a loss alert); NULL: none */
	struct pl_alert_host host;
	const char *rule_file; /* raw; "" for the sensor's own */
	int rule_line;
	struct pl_alert_summary summary; /* PL_ALERT_SUMMARY */
	struct pl_alert_loss loss;	 /* PL_ALERT_LOSS */
};

/* "alert" or "alert_summary": the record type of a. */
const char *pl_alert__type(const struct pl_alert *a);

/* The length of a->desc without the newlines and spaces a folded YAML
 * scalar ends in (0 when there is none): the text every output carries. */
size_t pl_alert__desc_len(const struct pl_alert *a);

/* ---- ids ---- */

/* The one generator of alert ids: "<instance>-<sequence>", 64 bits each in
 * hex, the sequence counting every alert and summary from 1. */
struct pl_alert_ids {
	uint64_t instance, seq;
};

/* Start a generator. instance 0: drawn from getrandom(2). Returns true, or
 * false when no entropy was to be had (early boot) and the instance was
 * derived from the clock and the pid instead (still distinct across
 * restarts; the caller may say so). */
bool pl_alert_ids__init(struct pl_alert_ids *ids, uint64_t instance);

/* The id the next alert gets, without taking it (a match the dedupe
 * window may hold back is named before it is known to be written). */
void pl_alert_ids__peek(const struct pl_alert_ids *ids, char ret[PL_ALERT_ID_LEN + 1]);

/* ---- the constructor ---- */

/*
 * Start *ret as a new alert of kind: its id taken from ids, its time, its
 * rule, priority and severity; everything else zero (unknown), `when`
 * "sensor", rule_file "". Every alert the sensor writes starts here.
 */
void pl_alert__init(struct pl_alert *ret, enum pl_alert_kind kind, struct pl_alert_ids *ids, uint64_t time_ns,
		    const char *rule, const char *priority, int severity);

#endif
