// SPDX-License-Identifier: MIT
/*
 * snapshot.c - the tick's snapshot, and its two renderings (see snapshot.h).
 *
 * The metric families and their meaning are listed in docs/metrics.md, the
 * fields of status.json in docs/status.md: a family or field added here is
 * added there.
 */
#include "telemetry/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "identity/hostinfo.h"
#include "probes/bpfsensor.h"
#include "clock.h"
#include "lineread.h"
#include "syslog_out.h"
#include "textsafe.h"

static const char *const ev_names[] = {NULL, "exec", "fork", "seen", "end", "fail_path", "sample", "file", "map", "net"};

const char *snap_output__name(enum snap_output o)
{
	static const char *const names[SNAP_OUT_MAX] = {"json", "syslog", "ocsf", "audit"};

	return (unsigned)o < SNAP_OUT_MAX ? names[o] : "?";
}

void snapshot__clear(struct snapshot *s)
{
	for (size_t i = 0; i < s->nrule; i++)
		free(s->rule[i].name);
	free(s->rule);
	*s = (struct snapshot){0};
}

static void loss(struct snapshot *s, const char *cause, uint64_t n, bool detail)
{
	if (s->nloss < SNAP_LOSSES_MAX)
		s->loss[s->nloss++] = (struct snap_loss){.cause = cause, .n = n, .detail = detail};
}

static uint64_t rss_bytes(void)
{
	char buf[128];
	unsigned long long size, resident;
	long page = sysconf(_SC_PAGESIZE);

	if (read_small_file("/proc/self/statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &size, &resident) != 2 || page <= 0)
		return 0;
	return (uint64_t)resident * (uint64_t)page;
}

static void output_state(struct snap_output_state *o, const struct pl_stats_output *out)
{
	if (!out->on)
		return;
	o->on = true;
	o->written = out->written;
	o->dropped = out->dropped;
	o->failing = out->failing;
	snprintf(o->state, sizeof(o->state), "%s", out->failing ? "failing" : "ok");
}

static int fill_rules(struct snapshot *s, const struct alerts *a)
{
	const struct alerts_rule_count *c;
	size_t n;

	s->nrecent = alerts__recent(a, s->recent, ALERTS_RECENT_MAX);
	c = alerts__rule_counts(a, &n);
	if (!n)
		return 0;
	s->rule = calloc(n, sizeof(*s->rule));
	if (!s->rule)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s->rule[i] = (struct snap_rule){.name = strdup(c[i].name),
						.enabled = c[i].enabled,
						.evaluations = c[i].evaluations,
						.alerts = c[i].alerts,
						.throttled = c[i].throttled};
		if (!s->rule[i].name)
			return -ENOMEM;
		s->nrule++;
	}
	return 0;
}

int snapshot__fill(struct snapshot *s, const struct stats_sources *src, uint64_t start_time_ns, uint32_t max_procs)
{
	struct pl_sensor_stats st;
	uint64_t now = mono_ns();
	int r = 0;

	snapshot__clear(s);
	stats__collect(src, &st);
	s->pid = (uint32_t)getpid();
	s->time_ns = st.time_ns;
	s->start_time_ns = start_time_ns;
	s->uptime_ns = st.uptime_ns;
	s->cpu_ns = st.cpu_ns;
	s->rss_bytes = rss_bytes();
	s->maxrss_bytes = st.maxrss_kb * 1024u;
	for (int i = 0; i < PL_FEAT_MAX; i++)
		s->have[i] = st.feature[i].have;
	s->tracked_processes = st.tracked_processes;
	s->max_procs = max_procs;
	s->baselines_on = src->learn;
	s->rules_on = src->alerts;
	s->sampling_on = src->oncpu;

	for (int i = PL_EV_EXEC; i <= PL_EV_LAST; i++)
		s->ringbuf_records[i] = st.ringbuf_records[i];
	s->exec_records = st.exec_records;
	s->process_records = st.process_records;
	s->window_records = st.window_records;

	/* every loss counter of the stats record, by its key there (docs/records.md), lost or
	 * bounded detail as its class says; the outputs' drops have metrics of their own */
	for (int i = 0; i < PL_LOSS_MAX; i++) {
		bool sampling = i == PL_LOSS_STACK_TABLE_FULL ||
				i == PL_LOSS_MAPPINGS_LOST || i == PL_LOSS_OBJECTS_REFUSED;

		if (i == PL_LOSS_OUTPUT_DROPPED || i == PL_LOSS_SYSLOG_DROPPED || i == PL_LOSS_OCSF_DROPPED ||
		    i == PL_LOSS_AUDIT_DROPPED || (sampling && !st.oncpu_on))
			continue;
		loss(s, pl_loss__name(i), st.loss[i], pl_loss__class(i) == PL_LOSS_DETAIL);
	}
	s->path_truncated = st.kernel_drops[PL_DROP_PATH_TRUNC];
	s->args_truncated = st.kernel_drops[PL_DROP_ARGS_TRUNC];
	s->losses = st.losses;

	output_state(&s->out[SNAP_OUT_JSON], &st.json);
	output_state(&s->out[SNAP_OUT_SYSLOG], &st.syslog);
	output_state(&s->out[SNAP_OUT_OCSF], &st.ocsf);
	output_state(&s->out[SNAP_OUT_AUDIT], &st.audit);
	if (st.syslog.on) {
		snprintf(s->out[SNAP_OUT_SYSLOG].state, sizeof(s->out[SNAP_OUT_SYSLOG].state), "%s",
			 syslog_state__name(st.syslog_more.state));
		s->out[SNAP_OUT_SYSLOG].queued = st.syslog_more.queued;
		s->out[SNAP_OUT_SYSLOG].queued_bytes = st.syslog_more.queued_bytes;
	}
	s->rules = st.rules;
	if (src->alerts)
		r = fill_rules(s, src->alerts);
	if (src->learn) {
		learner__progress(src->learn, &s->learn);
		loss(s, "without_baseline", s->learn.without_baseline, true); /* every event kept: not judged */
	}
	fleet__counts(src->fleet, &s->fleet);
	snprintf(s->fleet_dir, sizeof(s->fleet_dir), "%s", s->fleet.dir ? s->fleet.dir : "");
	s->fleet.dir = s->fleet.on ? s->fleet_dir : NULL;
	snprintf(s->host_name, sizeof(s->host_name), "%s", hostinfo__get()->name);
	hostctx__psi(now, &s->psi);
	return r;
}


/* ---- Prometheus text (docs/metrics.md) ---- */

#define L1(n, v) ((struct pl_label[]){{(n), (v)}})

static void counter(struct pl_expo *e, const char *name, const char *help, uint64_t v)
{
	expo__family(e, name, PL_METRIC_COUNTER, help);
	expo__u64(e, NULL, 0, v);
}

static void gauge(struct pl_expo *e, const char *name, const char *help, double v)
{
	expo__family(e, name, PL_METRIC_GAUGE, help);
	expo__double(e, NULL, 0, v);
}

static void render_rules(const struct snapshot *s, struct pl_expo *e)
{
	const struct pl_stats_rules *c = &s->rules;

	expo__family(e, "plumbline_rules_loaded", PL_METRIC_GAUGE, "Rules loaded, by whether they are enabled.");
	expo__u64(e, L1("enabled", "true"), 1, c->enabled);
	expo__u64(e, L1("enabled", "false"), 1, c->rules - c->enabled);
	counter(e, "plumbline_rule_samples_total", "Samples (exec, window, exit) on which some enabled rule ran.",
		c->events);
	expo__family(e, "plumbline_rule_evaluations_total", PL_METRIC_COUNTER,
		     "Evaluations of each loaded rule (one per sample at a moment it runs at).");
	for (size_t i = 0; i < s->nrule; i++)
		expo__u64(e, L1("rule", s->rule[i].name), 1, s->rule[i].evaluations);
	expo__family(e, "plumbline_rule_alerts_total", PL_METRIC_COUNTER, "Alerts written, by rule.");
	for (size_t i = 0; i < s->nrule; i++)
		expo__u64(e, L1("rule", s->rule[i].name), 1, s->rule[i].alerts);
	expo__family(e, "plumbline_rule_throttled_total", PL_METRIC_COUNTER,
		     "Matches held back by the rule's dedupe window (throttle), by rule.");
	for (size_t i = 0; i < s->nrule; i++)
		expo__u64(e, L1("rule", s->rule[i].name), 1, s->rule[i].throttled);
	counter(e, "plumbline_alert_summaries_total", "alert_summary records written (dedupe windows closed).",
		c->summaries);
	gauge(e, "plumbline_alert_summaries_pending", "Dedupe windows holding matches not reported yet.",
	      (double)c->summaries_pending);
	counter(e, "plumbline_rule_reloads_total", "Successful rule reloads on SIGHUP.", c->reloads);
	counter(e, "plumbline_rule_reload_failures_total", "Rule reloads rejected on SIGHUP.", c->reload_failures);
	counter(e, "plumbline_regex_limit_hits_total",
		"Regex evaluations stopped by PCRE2's match or depth limit (the comparison is false).",
		c->regex_limit_hits);
	counter(e, "plumbline_regex_budget_skips_total",
		"Regex evaluations skipped because the second's regex budget (--regex-budget-ms) was spent.",
		c->regex_skipped);
	counter(e, "plumbline_regex_budget_skipped_matches_total",
		"Rule matches undecided because of a skipped regex (they matched: fail closed).",
		c->regex_skipped_matches);
	counter(e, "plumbline_regex_errors_total", "Regex matches that failed otherwise.", c->regex_errors);
	counter(e, "plumbline_regex_runs_total", "PCRE2 matches run.", c->regex_runs);
	counter(e, "plumbline_regex_cache_hits_total", "Regex evaluations answered from the verdict cache.",
		c->regex_cache_hits);
}

/* The fleet's view: what was judged, and the bundle in use (docs/metrics.md). */
static void render_fleet(const struct snapshot *s, struct pl_expo *e)
{
	const struct fleet_counts *f = &s->fleet;

	expo__family(e, "plumbline_fleet_bundles_total", PL_METRIC_COUNTER,
		     "Files of the fleet directory judged, by result: loaded, or refused (bad_signature, unknown_key, "
		     "unsigned, other_role, not_newer, invalid).");
	for (int r = 0; r < FLEET_RESULT_MAX; r++)
		expo__u64(e, L1("result", fleet_result__name(r)), 1, f->results[r]);
	gauge(e, "plumbline_fleet_dir_watched",
	      "1 while the fleet directory is watched; 0 after it was removed or moved away, until it is back.",
	      f->watching ? 1 : 0);
	gauge(e, "plumbline_fleet_bundle_created_seconds",
	      "When the fleet bundle in use was made (Unix time; 0: none loaded).",
	      f->loaded ? f->bundle.created_ns / 1e9 : 0);
	gauge(e, "plumbline_fleet_bundle_hosts", "Host exports the fleet bundle in use holds (0: none loaded).",
	      (double)(f->loaded ? f->bundle.hosts : 0));
	gauge(e, "plumbline_fleet_bundle_baselines", "Baselines the fleet bundle in use holds (0: none loaded).",
	      (double)(f->loaded ? f->bundle.baselines : 0));
}

static void render_baselines(const struct snapshot *s, struct pl_expo *e)
{
	const struct learn_progress *l = &s->learn;

	expo__family(e, "plumbline_baselines", PL_METRIC_GAUGE,
		     "Baselines in the store, by state: learning (fewer process samples than --min-samples) or ready.");
	expo__u64(e, L1("state", "learning"), 1, l->learning);
	expo__u64(e, L1("state", "ready"), 1, l->ready);
	gauge(e, "plumbline_baselines_windows_ready",
	      "Baselines with at least --min-windows window samples (window scores ready).", (double)l->windows_ready);
	expo__family(e, "plumbline_baseline_samples_learned_total", PL_METRIC_COUNTER,
		     "Samples learned into baselines since start, by kind.");
	expo__u64(e, L1("kind", "process"), 1, l->process_samples);
	expo__u64(e, L1("kind", "window"), 1, l->window_samples);
	counter(e, "plumbline_baseline_anomalous_samples_total", "Samples whose verdict was anomalous.", l->anomalous);
	counter(e, "plumbline_baseline_save_errors_total", "Failed saves of the baseline store.", l->save_errors);
	expo__family(e, "plumbline_family_baselines", PL_METRIC_GAUGE,
		     "Active baselines (a process seen in the last 10 minutes) a rule family judges, by state: "
		     "ready for it or learning (docs/baselines.md#armed).");
	for (size_t f = 0; f < l->nfamily; f++) {
		expo__u64(e, ((struct pl_label[]){ { "family", l->family[f].name }, { "state", "ready" } }), 2,
			  l->family[f].active_ready);
		expo__u64(e, ((struct pl_label[]){ { "family", l->family[f].name }, { "state", "learning" } }), 2,
			  l->family[f].active_learning);
	}
	expo__family(e, "plumbline_family_baselines_waiting", PL_METRIC_GAUGE,
		     "Active baselines still learning for a rule family, by what they wait for: draws (samples, "
		     "windows), procs (runs that reach the CPU sampler), chance (new set members still arrive), "
		     "quiet (a set member is newer than --set-quiet).");
	for (size_t f = 0; f < l->nfamily; f++)
		for (int k = BL_WAIT_DRAWS; k <= BL_WAIT_QUIET; k++)
			expo__u64(e, ((struct pl_label[]){ { "family", l->family[f].name }, { "for", bl_set_wait__name(k) } }),
				  2, l->family[f].waiting[k]);
	expo__family(e, "plumbline_family_armed", PL_METRIC_GAUGE,
		     "1 when a rule family is armed: at least 80 % of the active baselines it judges are ready.");
	for (size_t f = 0; f < l->nfamily; f++)
		expo__u64(e, L1("family", l->family[f].name), 1, l->family[f].armed);
}

int snapshot__metrics(const struct snapshot *s, struct pl_expo *e)
{
	static const char *const psi_res[] = {"cpu", "memory", "io"};
	bool psi_ok[] = {s->psi.cpu_ok, s->psi.memory_ok, s->psi.io_ok};
	double psi_v[] = {s->psi.cpu, s->psi.memory, s->psi.io};

	expo__family(e, "plumbline_build_info", PL_METRIC_GAUGE, "The sensor's version (the value is 1).");
	expo__u64(e, ((struct pl_label[]){{"version", PL_VERSION}, {"libbpf", bpfsensor__libbpf_version()}}), 2, 1);
	gauge(e, "plumbline_start_time_seconds", "When the sensor started, seconds since the Unix epoch.",
	      (double)s->start_time_ns / 1e9);
	gauge(e, "plumbline_uptime_seconds", "Seconds since the sensor started.", (double)s->uptime_ns / 1e9);
	expo__family(e, "plumbline_kernel_feature", PL_METRIC_GAUGE, "Probed kernel features: 1 available, 0 missing.");
	for (int i = 0; i < PL_FEAT_MAX; i++)
		expo__u64(e, L1("feature", features__id(i)), 1, s->have[i]);
	gauge(e, "plumbline_tracked_processes", "Processes in the user-space process table.",
	      (double)s->tracked_processes);
	gauge(e, "plumbline_tracked_processes_max", "The process table's bound (--max-procs).", (double)s->max_procs);

	expo__family(e, "plumbline_events_total", PL_METRIC_COUNTER, "Valid ring-buffer records consumed, by type.");
	for (int i = PL_EV_EXEC; i <= PL_EV_LAST; i++)
		if (ev_names[i])
			expo__u64(e, L1("type", ev_names[i]), 1, s->ringbuf_records[i]);
	expo__family(e, "plumbline_records_total", PL_METRIC_COUNTER,
		     "exec, process and window records built and handed to the JSON output.");
	expo__u64(e, L1("type", "exec"), 1, s->exec_records);
	expo__u64(e, L1("type", "process"), 1, s->process_records);
	expo__u64(e, L1("type", "window"), 1, s->window_records);
	expo__family(e, "plumbline_losses_total", PL_METRIC_COUNTER,
		     "Events and records lost, by cause: the loss counters of the stats record of class lost, "
		     "keyed as there. Any increase raises the loss alert.");
	for (size_t i = 0; i < s->nloss; i++)
		if (!s->loss[i].detail)
			expo__u64(e, L1("cause", s->loss[i].cause), 1, s->loss[i].n);
	expo__family(e, "plumbline_detail_capped_total", PL_METRIC_COUNTER,
		     "Bounded detail, by cause: every event counted, a bounded part of its detail not kept "
		     "(a stack not stored, an image over its share of a table). Never a loss, never alerted.");
	for (size_t i = 0; i < s->nloss; i++)
		if (s->loss[i].detail)
			expo__u64(e, L1("cause", s->loss[i].cause), 1, s->loss[i].n);
	expo__family(
	    e, "plumbline_truncations_total", PL_METRIC_COUNTER,
	    "Strings cut to their bound (nothing else lost): failed-open paths and exec paths, command lines.");
	expo__u64(e, L1("what", "path"), 1, s->path_truncated);
	expo__u64(e, L1("what", "args"), 1, s->args_truncated);

	expo__family(e, "plumbline_output_records_written_total", PL_METRIC_COUNTER, "Records delivered, by output.");
	for (int o = 0; o < SNAP_OUT_MAX; o++)
		if (s->out[o].on)
			expo__u64(e, L1("output", snap_output__name(o)), 1, s->out[o].written);
	expo__family(e, "plumbline_output_records_dropped_total", PL_METRIC_COUNTER,
		     "Records an output could not deliver, by output.");
	for (int o = 0; o < SNAP_OUT_MAX; o++)
		if (s->out[o].on)
			expo__u64(e, L1("output", snap_output__name(o)), 1, s->out[o].dropped);
	expo__family(e, "plumbline_output_failing", PL_METRIC_GAUGE,
		     "1 while an output's last record was lost (a failure episode), else 0.");
	for (int o = 0; o < SNAP_OUT_MAX; o++)
		if (s->out[o].on)
			expo__u64(e, L1("output", snap_output__name(o)), 1, s->out[o].failing);
	if (s->out[SNAP_OUT_SYSLOG].on) {
		gauge(e, "plumbline_syslog_queued_messages", "Alerts waiting for the syslog target.",
		      (double)s->out[SNAP_OUT_SYSLOG].queued);
		gauge(e, "plumbline_syslog_queued_bytes", "Bytes of the alerts waiting for the syslog target.",
		      (double)s->out[SNAP_OUT_SYSLOG].queued_bytes);
		gauge(e, "plumbline_syslog_connected", "1 when the syslog target is connected.",
		      strcmp(s->out[SNAP_OUT_SYSLOG].state, "connected") == 0);
	}
	if (s->rules_on)
		render_rules(s, e);
	if (s->baselines_on)
		render_baselines(s, e);
	if (s->fleet.on)
		render_fleet(s, e);
	if (s->psi.present) {
		expo__family(e, "plumbline_host_pressure_some_avg10_ratio", PL_METRIC_GAUGE,
			     "Host pressure stall information: share of the last 10 s some task stalled, by resource.");
		for (int i = 0; i < 3; i++)
			if (psi_ok[i])
				expo__double(e, L1("resource", psi_res[i]), 1, psi_v[i] / 100.0);
	}
	counter(e, "plumbline_metrics_scrapes_total", "Scrapes of this endpoint answered (as of the last tick).",
		s->scrapes);
	expo__family(e, "plumbline_metrics_connections_cut_total", PL_METRIC_COUNTER,
		     "Connections to this endpoint cut before their request head was complete (as of the last tick).");
	expo__u64(e, L1("reason", "deadline"), 1, s->cut_deadline);
	expo__u64(e, L1("reason", "evicted"), 1, s->cut_evicted);
	return e->err;
}

void snapshot__process_metrics(struct pl_expo *e, void *ctx)
{
	struct rusage ru;

	(void)ctx;
	getrusage(RUSAGE_SELF, &ru);
	expo__family(e, "plumbline_process_cpu_seconds_total", PL_METRIC_COUNTER,
		     "User and system CPU time of the sensor process (not of its BPF programs), seconds.");
	expo__double(e, NULL, 0,
		     (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	gauge(e, "plumbline_process_resident_memory_bytes", "Resident memory of the sensor process (/proc/self/statm).",
	      (double)rss_bytes());
	gauge(e, "plumbline_process_max_resident_memory_bytes", "Peak resident memory of the sensor process.",
	      (double)ru.ru_maxrss * 1024.0);
}

/* ---- status.json (docs/status.md) ---- */

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

/* Raw bytes (a rule's name) as JSON: escaped once, as in records. */
static void add_raw(struct json_object *o, const char *key, const char *raw)
{
	char *esc = text_escape_str(raw);

	add_str(o, key, esc);
	free(esc);
}

static struct json_object *status_watch(const struct snapshot *s)
{
	struct json_object *w = json_object_new_object(), *f = json_object_new_array(),
			   *outs = json_object_new_object();

	for (int i = 0; i < PL_FEAT_MAX; i++)
		if (s->have[i])
			json_object_array_add(f, json_object_new_string(features__id(i)));
	json_object_object_add(w, "features", f);
	add_u64(w, "tracked_processes", s->tracked_processes);
	add_u64(w, "max_procs", s->max_procs);
	json_object_object_add(w, "baselines", json_object_new_boolean(s->baselines_on));
	json_object_object_add(w, "rules", json_object_new_boolean(s->rules_on));
	json_object_object_add(w, "stack_sampling", json_object_new_boolean(s->sampling_on));
	add_u64(w, "rules_loaded", s->rules.rules);
	add_u64(w, "rules_enabled", s->rules.enabled);
	for (int o = 0; o < SNAP_OUT_MAX; o++) {
		struct json_object *x;

		if (!s->out[o].on)
			continue;
		x = json_object_new_object();
		add_str(x, "state", s->out[o].state);
		add_u64(x, "written", s->out[o].written);
		add_u64(x, "dropped", s->out[o].dropped);
		json_object_object_add(outs, snap_output__name(o), x);
	}
	json_object_object_add(w, "outputs", outs);
	return w;
}

static struct json_object *status_learning(const struct snapshot *s)
{
	const struct learn_progress *l = &s->learn;
	struct json_object *o, *top, *fam;

	if (!s->baselines_on)
		return NULL;
	o = json_object_new_object();
	top = json_object_new_array();
	add_u64(o, "baselines", l->baselines);
	add_u64(o, "ready", l->ready);
	add_u64(o, "learning", l->learning);
	add_u64(o, "windows_ready", l->windows_ready);
	add_u64(o, "min_samples", l->min_samples);
	add_u64(o, "min_windows", l->min_windows);
	for (size_t i = 0; i < l->ntop; i++) {
		struct json_object *t = json_object_new_object();

		add_str(t, "exe", l->top[i].exe[0] ? l->top[i].exe : NULL);
		add_str(t, "parent_exe", l->top[i].parent_exe[0] ? l->top[i].parent_exe : NULL);
		add_str(t, "id", l->top[i].id);
		add_u64(t, "samples", l->top[i].samples);
		add_u64(t, "needed", l->min_samples);
		json_object_array_add(top, t);
	}
	json_object_object_add(o, "closest_to_ready", top);
	add_u64(o, "active", l->active);
	fam = json_object_new_array();
	for (size_t f = 0; f < l->nfamily; f++) {
		const struct learn_family_state *st = &l->family[f];
		struct json_object *t = json_object_new_object();

		add_str(t, "family", st->name);
		add_str(t, "rules", st->rules);
		add_u64(t, "active_ready", st->active_ready);
		add_u64(t, "active_learning", st->active_learning);
		add_u64(t, "ready_pct", st->weight_all ? st->weight_ready * 100 / st->weight_all : 0);
		add_u64(t, "ready", st->ready);
		add_u64(t, "learning", st->learning);
		{
			struct json_object *w = json_object_new_object();

			for (int k = BL_WAIT_DRAWS; k <= BL_WAIT_QUIET; k++)
				add_u64(w, bl_set_wait__name(k), st->waiting[k]);
			json_object_object_add(t, "waiting_for", w);
		}
		json_object_object_add(t, "armed", json_object_new_boolean(st->armed));
		json_object_array_add(fam, t);
	}
	json_object_object_add(o, "families", fam);
	return o;
}

/* status.json's fleet: the role, the directory, the bundle in use and what was refused. */
static struct json_object *status_fleet(const struct snapshot *s)
{
	const struct fleet_counts *f = &s->fleet;
	struct json_object *o, *b = NULL, *refused;

	if (!f->on)
		return NULL;
	o = json_object_new_object();
	add_raw(o, "role", f->role);
	add_raw(o, "dir", f->dir);
	add_u64(o, "keys", f->keys);
	json_object_object_add(o, "watching", json_object_new_boolean(f->watching));
	if (f->loaded) {
		b = json_object_new_object();
		add_raw(b, "file", f->bundle.file);
		add_raw(b, "key_id", f->bundle.key_id);
		add_u64(b, "created_ns", f->bundle.created_ns);
		add_u64(b, "hosts", f->bundle.hosts);
		add_u64(b, "baselines", f->bundle.baselines);
		add_u64(b, "loaded_ns", f->bundle.loaded_ns);
		add_u64(b, "arrival_ns", f->bundle.arrival_ns);
		add_u64(b, "load_ns", f->bundle.load_ns);
	}
	json_object_object_add(o, "bundle", b);
	add_u64(o, "loaded", f->results[FLEET_LOADED]);
	refused = json_object_new_object();
	for (int r = FLEET_LOADED + 1; r < FLEET_RESULT_MAX; r++)
		add_u64(refused, fleet_result__name(r), f->results[r]);
	json_object_object_add(o, "refused", refused);
	return o;
}

struct json_object *snapshot__status(const struct snapshot *s, const char *runtime_dir, const char *metrics_addr)
{
	struct json_object *o = json_object_new_object(), *losses, *detail, *groups, *alerts;

	if (!o)
		return NULL;
	add_str(o, "type", "status");
	add_u64(o, "format", 1);
	add_str(o, "state", s->stopped ? "stopped" : "running");
	add_u64(o, "pid", s->pid);
	add_str(o, "version", PL_VERSION);
	add_u64(o, "start_time_ns", s->start_time_ns);
	add_u64(o, "time_ns", s->time_ns);
	add_u64(o, "uptime_ns", s->uptime_ns);
	add_u64(o, "cpu_ns", s->cpu_ns);
	add_u64(o, "rss_bytes", s->rss_bytes);
	add_str(o, "runtime_dir", runtime_dir);
	add_str(o, "metrics", metrics_addr);
	json_object_object_add(o, "watching", status_watch(s));
	json_object_object_add(o, "learning", status_learning(s));
	add_raw(o, "host_name", s->host_name[0] ? s->host_name : NULL);
	json_object_object_add(o, "fleet", status_fleet(s));
	losses = json_object_new_object();
	detail = json_object_new_object();
	for (size_t i = 0; i < s->nloss; i++)
		add_u64(s->loss[i].detail ? detail : losses, s->loss[i].cause, s->loss[i].n);
	for (int i = 0; i < SNAP_OUT_MAX; i++)
		if (s->out[i].on) {
			char key[48];

			snprintf(key, sizeof(key), "%s_dropped", snap_output__name(i));
			add_u64(losses, key, s->out[i].dropped);
		}
	groups = json_object_new_object();
	add_u64(groups, "records", s->losses.records);
	add_u64(groups, "processes", s->losses.processes);
	add_u64(groups, "output_writes", s->losses.output_writes);
	add_u64(groups, "fail_paths", s->losses.fail_paths);
	add_u64(groups, "threads", s->losses.threads);
	add_u64(groups, "other", s->losses.other);
	json_object_object_add(o, "losses", losses);
	json_object_object_add(o, "detail_capped", detail);
	json_object_object_add(o, "lost", groups);
	alerts = json_object_new_array();
	for (size_t i = 0; i < s->nrecent; i++) {
		const struct alerts_recent *r = &s->recent[i];
		struct json_object *a = json_object_new_object();

		add_str(a, "id", r->id);
		add_u64(a, "time_ns", r->time_ns);
		add_str(a, "rule", r->rule);
		add_str(a, "priority", r->priority);
		add_str(a, "exe", r->exe[0] ? r->exe : NULL);
		add_u64(a, "pid", r->pid);
		json_object_array_add(alerts, a);
	}
	json_object_object_add(o, "last_alerts", s->rules_on ? alerts : NULL);
	if (!s->rules_on)
		json_object_put(alerts);
	if (s->rules_on) {
		struct json_object *rules = json_object_new_array();

		for (size_t i = 0; i < s->nrule; i++) {
			struct json_object *r = json_object_new_object();

			add_raw(r, "name", s->rule[i].name);
			json_object_object_add(r, "enabled", json_object_new_boolean(s->rule[i].enabled));
			add_u64(r, "evaluations", s->rule[i].evaluations);
			add_u64(r, "alerts", s->rule[i].alerts);
			add_u64(r, "throttled", s->rule[i].throttled);
			json_object_array_add(rules, r);
		}
		json_object_object_add(o, "rules", rules);
		add_u64(o, "alerts", s->rules.alerts);
	}
	return o;
}
