// SPDX-License-Identifier: MIT
/*
 * audit_trail.c - the sensor's own life in the audit log (audit_trail.h).
 */
#include "audit_trail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "bundle.h"
#include "cleanup.h"
#include "clock.h"
#include "log.h"
#include "plumbline.h"
#include "sample_json.h"
#include "sha256fd.h"

struct audit_trail {
	const struct run_opts *opts;
	struct pl_output *log;
	char where[160];	 /* the reporter's words for the log */
	uint64_t head_ns;	 /* CLOCK_MONOTONIC of the last head sent */
	uint64_t head_seq;	 /* the seq it named */
	uint64_t losses_ns;	 /* of the last losses check */
	struct live_losses seen; /* losses already written */
};

static void on_audit_output(struct pl_output *o, enum pl_output_event ev, void *ctx)
{
	const char *where = ctx;

	switch (ev) {
	case PL_OUTPUT_FAILING:
		if (o->why[0])
			log_warn(
			    "Cannot append to the audit log %s: %s (counted; the log says how many lines were lost "
			    "once writing works again)",
			    where, o->why);
		else
			log_warn_errno(o->last_err,
				       "Cannot append to the audit log %s: %m (counted; the log says how many "
				       "lines were lost once writing works again)",
				       where);
		break;
	case PL_OUTPUT_STILL_FAILING:
		log_warn_errno(o->last_err, "Still cannot append to the audit log %s: %llu lines lost so far (%m)",
			       where, (unsigned long long)output__lost(o));
		break;
	case PL_OUTPUT_RECOVERED:
		log_info("Recovered: the audit log %s is appended to again; %llu lines lost meanwhile", where,
			 (unsigned long long)output__lost(o));
		break;
	}
}

static const char *open_why(int r)
{
	switch (r) {
	case -ELOOP:
		return "it is a symbolic link, refused: give the file's own path";
	case -EINVAL:
		return "it is not a regular file";
	case -EBUSY:
		return "another process (a running sensor) holds it";
	case -EBADMSG:
		return "its last line is not a valid audit line: it is not an audit log, or its end was damaged "
		       "(plumbline audit verify says where; move it aside to start a new chain)";
	default:
		return strerror(-r);
	}
}

static int open_log(const char *path, struct pl_output **ret)
{
	struct audit_resume res;
	int r = audit_log__open(path, ret, &res);

	if (r < 0)
		return log_error_errno(r, "Cannot open the audit log '%s': %s", path, open_why(r));
	if (res.torn_bytes)
		log_warn("Audit log %s: its last line is torn (%llu bytes at offset %llu, no newline: a crash "
			 "mid-write); it stays, named in a `resumed` line, and the chain continues from seq %llu",
			 path, (unsigned long long)res.torn_bytes, (unsigned long long)res.torn_offset,
			 (unsigned long long)res.seq);
	else if (res.seq)
		log_info("Audit log %s: continuing the chain after seq %llu", path, (unsigned long long)res.seq);
	return 0;
}

int audit_trail__open(const struct run_opts *o, struct audit_trail **ret)
{
	struct audit_trail *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return log_error_errno(ENOMEM, "Out of memory");
	r = open_log(o->audit_log, &t->log);
	if (r < 0) {
		free(t);
		return r;
	}
	t->opts = o;
	snprintf(t->where, sizeof(t->where), "%s", o->audit_log);
	output__set_reporter(t->log, on_audit_output, t->where);
	*ret = t;
	return 0;
}

void audit_trail__free(struct audit_trail *t)
{
	if (!t)
		return;
	output__free(t->log);
	free(t);
}

struct pl_output *audit_trail__output(struct audit_trail *t)
{
	return t ? t->log : NULL;
}

static struct json_object *record(const char *type)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		json_object_object_add(o, "type", json_object_new_string(type));
		json_object_object_add(o, "time_ns", json_object_new_uint64(real_ns()));
	}
	return o;
}

/* Append rec, a record of the given type (consumed). */
static void put(struct audit_trail *t, const char *type, struct json_object *rec)
{
	if (rec)
		output__write_event(t->log, type, rec);
	else
		t->log->dropped++;
	json_object_put(rec);
}

static struct json_object *str_array(const char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, sample_json__str(v[i]));
	return a;
}

static struct json_object *ruleset(const struct alerts *a)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[32];
	char sha[65];
	size_t rules, files;
	struct json_object *o;

	if (!a)
		return NULL;
	alerts__ruleset(a, &rules, &files, md);
	for (int i = 0; i < 32; i++) {
		sha[2 * i] = hex[md[i] >> 4];
		sha[2 * i + 1] = hex[md[i] & 15];
	}
	sha[64] = '\0';
	o = json_object_new_object();
	json_object_object_add(o, "rules", json_object_new_uint64(rules));
	json_object_object_add(o, "files", json_object_new_uint64(files));
	json_object_object_add(o, "sha256", json_object_new_string(sha));
	return o;
}

/* The options that decide what the sensor sees and says. */
static struct json_object *options(const struct run_opts *o)
{
	static const char *const modes[] = {
	    [BL_MODE_AUTO] = "auto", [BL_MODE_LEARN] = "learn", [BL_MODE_DETECT] = "detect"};
	struct json_object *j = json_object_new_object();
	char syslog[PL_SYSLOG_PATH_MAX + 8];

	syslog_target__format(&o->syslog, syslog, sizeof(syslog));
	const char *def = run_opts__default_rules();

	json_object_object_add(j, "rules",
			       !o->rules	? NULL
			       : o->nrule_paths ? str_array(o->rule_paths, o->nrule_paths)
						: str_array(&def, 1));
	json_object_object_add(j, "enable_rule", str_array(o->enable, o->nenable));
	json_object_object_add(j, "disable_rule", str_array(o->disable, o->ndisable));
	json_object_object_add(j, "baselines", json_object_new_boolean(o->baselines));
	json_object_object_add(j, "state_dir", o->baselines ? sample_json__str(o->state_dir) : NULL);
	json_object_object_add(j, "mode",
			       json_object_new_string((unsigned)o->policy.mode < 3 && modes[o->policy.mode]
							  ? modes[o->policy.mode]
							  : "?"));
	json_object_object_add(j, "json", o->json_path ? sample_json__str(o->json_path) : NULL);
	json_object_object_add(j, "syslog", json_object_new_string(syslog));
	json_object_object_add(j, "audit_log", sample_json__str(o->audit_log));
	json_object_object_add(j, "audit_head_interval_s", json_object_new_uint64(o->audit_head_interval_s));
	json_object_object_add(j, "stats_interval_s", json_object_new_uint64(o->stats_interval_s));
	json_object_object_add(j, "regex_budget_ms", json_object_new_uint64(o->regex_budget_ms));
	return j;
}

void audit_trail__start(struct audit_trail *t, const struct alerts *a)
{
	struct json_object *rec;

	if (!t)
		return;
	rec = record("start");
	if (rec) {
		json_object_object_add(rec, "version", json_object_new_string(PL_VERSION));
		json_object_object_add(rec, "pid", json_object_new_int64((int64_t)getpid()));
		json_object_object_add(rec, "options", options(t->opts));
		json_object_object_add(rec, "ruleset", ruleset(a));
	}
	put(t, "start", rec);
	t->head_ns = mono_ns(); /* the first head an interval from now */
	t->losses_ns = t->head_ns;
}

void audit_trail__rules(struct audit_trail *t, const struct alerts *a, int r)
{
	struct json_object *rec;

	if (!t || !a)
		return;
	rec = record("rules");
	if (rec) {
		json_object_object_add(rec, "reason", json_object_new_string("sighup"));
		json_object_object_add(rec, "result", json_object_new_string(r < 0 ? "rejected" : "loaded"));
		/* rejected: the rules that keep running */
		json_object_object_add(rec, "ruleset", ruleset(a));
	}
	put(t, "rules", rec);
}

static void send_head(struct audit_trail *t, struct pl_output *const *heads, size_t n, uint64_t now_ns)
{
	struct json_object *rec = audit_log__head_record(t->log, t->opts->audit_log, real_ns());

	if (!rec)
		return;
	for (size_t i = 0; i < n; i++)
		if (heads[i])
			output__write_event(heads[i], "audit_head", rec);
	json_object_put(rec);
	audit_log__head(t->log, &t->head_seq, (char[PL_AUDIT_HEX + 1]){0});
	t->head_ns = now_ns;
}

#define DELTA(f) (now.f - t->seen.f)

void audit_trail__tick(struct audit_trail *t, const struct live_losses *lost, uint64_t now_ns,
		       struct pl_output *const *heads, size_t n)
{
	uint64_t every = (t ? t->opts->stats_interval_s ? t->opts->stats_interval_s : 60 : 0) * 1000000000ull;
	uint64_t seq;
	char hash[PL_AUDIT_HEX + 1];

	if (!t)
		return;
	if (now_ns - t->losses_ns >= every - 50000000ull) {
		struct live_losses now = *lost;

		t->losses_ns = now_ns;
		if (DELTA(records) || DELTA(processes) || DELTA(output_writes) || DELTA(fail_paths) || DELTA(threads)) {
			struct json_object *rec = record("losses");

			if (rec) {
				json_object_object_add(rec, "records", json_object_new_uint64(DELTA(records)));
				json_object_object_add(rec, "processes", json_object_new_uint64(DELTA(processes)));
				json_object_object_add(rec, "output_writes",
						       json_object_new_uint64(DELTA(output_writes)));
				json_object_object_add(rec, "fail_paths", json_object_new_uint64(DELTA(fail_paths)));
				json_object_object_add(rec, "threads", json_object_new_uint64(DELTA(threads)));
			}
			put(t, "losses", rec);
			t->seen = now;
		}
	}
	if (audit_log__head(t->log, &seq, hash) == 0 && seq != t->head_seq &&
	    now_ns - t->head_ns >= t->opts->audit_head_interval_s * 1000000000ull - 50000000ull)
		send_head(t, heads, n, now_ns);
}

void audit_trail__stop(struct audit_trail *t, const char *reason, const struct pl_sensor_stats *st,
		       struct pl_output *const *heads, size_t n)
{
	struct json_object *rec;

	if (!t)
		return;
	rec = record("stop");
	if (rec) {
		json_object_object_add(rec, "reason", json_object_new_string(reason));
		json_object_object_add(rec, "stats", stats_json__record(st));
	}
	put(t, "stop", rec);
	send_head(t, heads, n, mono_ns());
}

int audit_trail__cli_open(const char *path, struct pl_output **ret)
{
	return open_log(path, ret);
}

int audit_trail__cli_append(struct pl_output *o, const char *path, const char *type, struct json_object *rec)
{
	int r;

	if (!json_object_object_get_ex(rec, "time_ns", NULL))
		json_object_object_add(rec, "time_ns", json_object_new_uint64(real_ns()));
	r = output__write_event(o, type, rec);
	if (r < 0)
		return log_error_errno(r, "Cannot append to the audit log '%s': %m: this change is not recorded there",
				       path);
	return 0;
}

int audit_trail__file_sha256(const char *path, char ret[65])
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	return sha256_fd(fd, BL_BUNDLE_MAX, NULL, ret);
}
