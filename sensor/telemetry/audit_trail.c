// SPDX-License-Identifier: MIT
/*
 * audit_trail.c - the sensor's own life in the audit log (audit_trail.h).
 */
#include "telemetry/audit_trail.h"

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
#include "hex.h"
#include "log.h"
#include "plumbline.h"
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
	case PL_OUTPUT_DOWN: /* a file has no outage, only failed writes */
	case PL_OUTPUT_UP:
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

static const char *key_why(int r)
{
	switch (r) {
	case -ELOOP:
		return "it is a symbolic link, refused";
	case -EPERM:
		return "it must be owned by the sensor's user with mode 0600 (no group or other access)";
	case -EBADMSG:
		return "it is not a key file of plumbline audit keygen, or both its slots are damaged";
	default:
		return strerror(-r);
	}
}

static int open_log(const char *path, const char *key, struct pl_output **ret)
{
	struct audit_resume res = { 0 };
	int r = audit_log__open(path, key, ret, &res);

	if (r < 0 && res.key_error)
		return log_error_errno(r, "Cannot open the audit key '%s': %s", key, key_why(r));
	if (r == -EKEYREJECTED)
		return log_error_errno(r,
				       "Cannot seal the audit log '%s' with the key '%s': its lines carry no MAC, and a "
				       "key seals a log from its first line (move the log aside to start a keyed one)",
				       path, key);
	if (r == -ENOKEY)
		return log_error_errno(r, "The audit log '%s' is keyed (its lines carry a MAC): give its key file "
					  "with --audit-key",
				       path);
	if (r < 0)
		return log_error_errno(r, "Cannot open the audit log '%s': %s", path, open_why(r));
	if (res.seq_gap)
		log_error("Audit log %s: its key is at seq %llu but the file ends at seq %llu: lines the key "
			  "sealed are gone (cut off); the chain goes on at seq %llu, the gap visible to verify",
			  path, (unsigned long long)res.key_epoch, (unsigned long long)(res.seq - res.seq_gap),
			  (unsigned long long)res.key_epoch);
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
	r = open_log(o->audit_log, o->audit_key, &t->log);
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

/* Append ev, stamped now. */
static void put(struct audit_trail *t, struct pl_sensor_event *ev)
{
	ev->time_ns = real_ns();
	output__write_sensor(t->log, ev);
}

static void ruleset(const struct alerts *a, struct pl_ruleset_id *ret)
{
	unsigned char md[32];
	size_t rules, files;

	alerts__ruleset(a, &rules, &files, md);
	pl_hex_encode(md, 32, ret->sha256);
	ret->rules = rules;
	ret->files = files;
}

static const char *mode_name(enum bl_mode m)
{
	static const char *const modes[] = {
	    [BL_MODE_AUTO] = "auto", [BL_MODE_LEARN] = "learn", [BL_MODE_DETECT] = "detect"};

	return (unsigned)m < 3 && modes[m] ? modes[m] : "?";
}

void audit_trail__start(struct audit_trail *t, const struct alerts *a)
{
	const struct run_opts *o = t ? t->opts : NULL;
	char syslog[PL_SYSLOG_HOST_MAX + 16]; /* "relp+tls:[HOST]:PORT" is the longest */
	struct pl_ruleset_id rs;
	struct pl_start_options opt;

	if (!t)
		return;
	syslog_target__format(&o->syslog, syslog, sizeof(syslog));
	opt = (struct pl_start_options){
		.rules = o->rules ? o->rule_list : NULL,
		.nrules = o->nrule_list,
		.enable = o->enable,
		.nenable = o->nenable,
		.disable = o->disable,
		.ndisable = o->ndisable,
		.baselines = o->baselines,
		.state_dir = o->baselines ? o->state_dir : NULL,
		.mode = mode_name(o->policy.mode),
		.json = o->json_path,
		.syslog = syslog,
		.audit_log = o->audit_log,
		.audit_head_interval_s = o->audit_head_interval_s,
		.stats_interval_s = o->stats_interval_s,
		.regex_budget_ms = o->regex_budget_ms,
	};
	if (a)
		ruleset(a, &rs);
	put(t, &(struct pl_sensor_event){ .kind = PL_SENSOR_START,
					  .start = { .version = PL_VERSION,
						     .pid = (int64_t)getpid(),
						     .options = &opt,
						     .ruleset = a ? &rs : NULL } });
	t->head_ns = mono_ns(); /* the first head an interval from now */
	t->losses_ns = t->head_ns;
}

void audit_trail__rules(struct audit_trail *t, const struct alerts *a, int r)
{
	struct pl_ruleset_id rs;

	if (!t || !a)
		return;
	ruleset(a, &rs); /* rejected: the rules that keep running */
	put(t, &(struct pl_sensor_event){
		   .kind = PL_SENSOR_RULES,
		   .rules = { .reason = "sighup", .result = r < 0 ? "rejected" : "loaded", .ruleset = &rs } });
}

static void send_head(struct audit_trail *t, struct pl_output *const *heads, size_t n, uint64_t now_ns)
{
	struct pl_sensor_event ev;

	if (audit_log__head_event(t->log, t->opts->audit_log, real_ns(), &ev) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (heads[i])
			output__write_sensor(heads[i], &ev);
	t->head_seq = ev.head.seq;
	t->head_ns = now_ns;
}

#define GREW(f) (lost->f != t->seen.f)

void audit_trail__tick(struct audit_trail *t, const struct live_losses *lost, uint64_t now_ns,
		       struct pl_output *const *heads, size_t n)
{
	uint64_t every = (t ? t->opts->stats_interval_s ? t->opts->stats_interval_s : 60 : 0) * 1000000000ull;
	uint64_t seq;
	char hash[PL_AUDIT_HEX + 1];

	if (!t)
		return;
	if (now_ns - t->losses_ns >= every - 50000000ull) {
		t->losses_ns = now_ns;
		if (GREW(records) || GREW(processes) || GREW(output_writes) || GREW(fail_paths) || GREW(threads)) {
			struct pl_sensor_event ev = { .kind = PL_SENSOR_LOSSES };

			ev.losses = (struct live_losses){
				.records = lost->records - t->seen.records,
				.processes = lost->processes - t->seen.processes,
				.output_writes = lost->output_writes - t->seen.output_writes,
				.fail_paths = lost->fail_paths - t->seen.fail_paths,
				.threads = lost->threads - t->seen.threads,
			};
			put(t, &ev);
			t->seen = *lost;
		}
	}
	if (audit_log__head(t->log, &seq, hash) == 0 && seq != t->head_seq &&
	    now_ns - t->head_ns >= t->opts->audit_head_interval_s * 1000000000ull - 50000000ull)
		send_head(t, heads, n, now_ns);
}

void audit_trail__stop(struct audit_trail *t, const char *reason, const struct pl_sensor_stats *st,
		       struct pl_output *const *heads, size_t n)
{
	if (!t)
		return;
	put(t, &(struct pl_sensor_event){ .kind = PL_SENSOR_STOP, .stop = { .reason = reason, .stats = st } });
	send_head(t, heads, n, mono_ns());
}

int audit_trail__cli_open(const char *path, const char *key, struct pl_output **ret)
{
	return open_log(path, key, ret);
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
