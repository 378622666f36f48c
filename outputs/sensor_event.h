/* SPDX-License-Identifier: MIT */
/*
 * sensor_event.h - the sensor's own life, typed: start, rules, losses, stop,
 * the audit log's head and the fleet bundles it judged.
 *
 * The audit trail (sensor/telemetry/audit_trail.c) says what happens to the sensor
 * with these; they cross the output interface as they are (PL_RECORD_SENSOR
 * in output.h) and each backend formats them: their JSON, the records of
 * docs/records.md and docs/audit.md, is made here (sensor_event_json.c).
 * Nothing is owned: every pointer belongs to the caller for the write.
 */
#ifndef PL_SENSOR_EVENT_H
#define PL_SENSOR_EVENT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sensor_stats.h"

enum pl_sensor_event_kind {
	PL_SENSOR_START,      /* "start": the sensor attached */
	PL_SENSOR_RULES,      /* "rules": a SIGHUP reloaded (or kept) the rules */
	PL_SENSOR_LOSSES,     /* "losses": what was lost since the last one */
	PL_SENSOR_STOP,	      /* "stop": the sensor detached, with its last counters */
	PL_SENSOR_AUDIT_HEAD, /* "audit_head": the audit log's chain head, for off the host */
	PL_SENSOR_FLEET,      /* "fleet": a role bundle of --fleet-dir loaded or refused */
};

/* A fleet bundle judged (sensor/pipeline/fleet.h): raw strings, escaped when formatted. */
struct pl_fleet_event {
	const char *file;    /* its name in the fleet directory */
	const char *verdict; /* "loaded", "bad_signature", "unknown_key", "unsigned", "other_role", "not_newer", "invalid" */
	const char *why;     /* the verdict in words */
	const char *role;    /* what the bundle says of itself; NULL when it could not be read */
	uint64_t created_ns;
	uint32_t hosts;
	uint64_t baselines;
	const char *key_id;  /* the signing key's id (16 hex); NULL: none */
	uint64_t arrival_ns; /* CLOCK_REALTIME the file arrived (its ctime: a rename sets it) */
	uint64_t load_ns;    /* loaded: the time to read, verify and index it */
};

/* The rules loaded: how many, from how many files, and the SHA-256 of them all. */
struct pl_ruleset_id {
	uint64_t rules, files;
	char sha256[65]; /* lowercase hex */
};

/* The options that decide what the sensor sees and says (raw strings: escaped when formatted). */
struct pl_start_options {
	const char *const *rules; /* the rule paths, NULL: rules are off */
	size_t nrules;
	const char *const *enable, *const *disable;
	size_t nenable, ndisable;
	bool baselines;
	const char *state_dir; /* NULL: baselines are off */
	const char *mode;      /* "auto", "learn", "detect" */
	const char *json;      /* NULL: no JSON output */
	const char *syslog;    /* the syslog target, in words */
	const char *audit_log;
	uint64_t audit_head_interval_s, stats_interval_s, regex_budget_ms;
};

struct pl_sensor_event {
	enum pl_sensor_event_kind kind;
	uint64_t time_ns; /* CLOCK_REALTIME */
	union {
		struct {
			const char *version;
			int64_t pid;
			const struct pl_start_options *options;
			const struct pl_ruleset_id *ruleset; /* NULL: rules are off */
		} start;
		struct {
			const char *reason, *result;	     /* "sighup"; "loaded" or "rejected" */
			const struct pl_ruleset_id *ruleset; /* the rules that run now */
		} rules;
		struct live_losses losses;
		struct {
			const char *reason;
			const struct pl_sensor_stats *stats;
		} stop;
		struct {
			uint64_t seq;
			char hash[65]; /* lowercase hex */
			const char *file;
		} head;
		struct pl_fleet_event fleet;
	};
};

/* The event's record type ("start", "rules", "losses", "stop", "audit_head", "fleet"). */
const char *pl_sensor_event__type(const struct pl_sensor_event *ev);

/* The event's record (type and time_ns first), a new object, NULL on ENOMEM. */
struct json_object *sensor_event_json__record(const struct pl_sensor_event *ev);

#endif
