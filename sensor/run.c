// SPDX-License-Identifier: MIT
/*
 * run.c - the sensor daemon: one epoll loop over the ring buffer, a
 * signalfd and timerfds, SIGHUP and shutdown (set-up and teardown:
 * run_setup.c).
 *
 * The loop only dispatches: ring-buffer records go to images.c (the life of
 * each image, and its samples), samples through pipeline.c (score, judge,
 * learn, record), the tick drives the window pass, the failed-path sweep,
 * the live view, stats (stats.c) and baseline saves (written by a thread of
 * their own, saver.h; their results come back on an fd of the loop). The loop has room for
 * more fds (perf sampling, metrics, PSI triggers): one tag and one case.
 */
#include "run.h"
#include "run_int.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/alerts.h"
#include "telemetry/audit_trail.h"
#include "process/binagg.h"
#include "probes/bpfsensor.h"
#include "cleanup.h"
#include "clock.h"
#include "sensor_event.h"
#include "config/config.h"
#include "process/failpaths.h"
#include "stacks/oncpu.h"
#include "stacks/symbols.h"
#include "probes/kfeatures.h"
#include "identity/identity.h"
#include "identity/hostinfo.h"
#include "identity/usercache.h"
#include "pipeline/learn.h"
#include "process/live.h"
#include "log.h"
#include "telemetry/lossalert.h"
#include "output.h"
#include "pipeline/images.h"
#include "pipeline/pipeline.h"
#include "process/proctable.h"
#include "telemetry/runtime.h"
#include "telemetry/stats.h"
#include "syslog_out.h"

/* Records handled per consume call: past it the loop comes back to epoll, so
 * signals and ticks are served during a sustained storm of records. */
#define CONSUME_BUDGET 4096

/* Passes over the kernel's table that must miss a tracked process before
 * its entry goes (proctable__sweep): its end record, if not lost, is
 * consumed well within that. */
#define PROC_GONE_PASSES 3

/* The most a tick spends consuming records before its own work (drain). */
#define DRAIN_TICK_NS (200ull * 1000000ull)

/* The ring buffer's callback: one record to images.c. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct sensor *s = ctx;

	images__on_record(s->images, data, size);
	/* the record is consumed either way; a negative return only stops the batch */
	return ++s->consumed >= CONSUME_BUDGET ? -EAGAIN : 0;
}

/* Consume at most CONSUME_BUDGET records. */
static void consume(struct sensor *s)
{
	s->consumed = 0;
	bpfsensor__consume(s->bpf);
}

/* Consume what is pending (before a tick reads the process table, and at
 * shutdown), bounded so that producers faster than us can't hold us here:
 * at most 64 batches, and at a tick at most DRAIN_TICK_NS of them (an exec
 * flood would otherwise hold the tick, and the stats, for seconds; what is
 * left is consumed by the loop, between ticks). */
static void drain(struct sensor *s, uint64_t budget_ns)
{
	uint64_t t0 = mono_ns();
	int batches = 0;

	do
		consume(s);
	while (s->consumed >= CONSUME_BUDGET && ++batches < 64 && mono_ns() - t0 < budget_ns);
}

/* Content hashes finished off the loop (identity.h): the images of those
 * files are identified and attached now. */
static void on_identity(struct sensor *s)
{
	identity__completed(s->ident, images__on_hashed, s->images);
}

/* ---- periodic work ---- */

static void window_one(void *ctx, uint32_t tgid, const struct pl_proc *p)
{
	struct sensor *s = ctx;

	proctable__mark(s->procs, tgid);
	images__window(s->images, tgid, p, s->pass_ns);
}

static void running_one(void *ctx, uint32_t tgid, const struct pl_proc *p)
{
	struct sensor *s = ctx;

	images__running(s->images, tgid, p, s->pass_ns);
}

/* 0 when every process in the kernel's table was visited (bpfsensor.h). */
static int foreach_kernel_proc(struct sensor *s, void (*fn)(void *, uint32_t, const struct pl_proc *))
{
	bpfsensor__sync_cpu(s->bpf);
	s->pass_ns = mono_ns();
	return bpfsensor__foreach_proc(s->bpf, s->opts->max_procs * 2u, fn, s);
}

static struct stats_sources sources(const struct sensor *s)
{
	return (struct stats_sources){
		.start_ns = s->start_ns,
		.max_fail_paths = s->opts->max_fail_paths,
		.feat = &s->feat,
		.bpf = s->bpf,
		.images = s->images,
		.fails = s->fails,
		.pipe = s->pipe,
		.procs = s->procs,
		.json = s->out,
		.syslog = s->syslog,
		.ocsf = s->ocsf,
		.learn = s->learn,
		.alerts = s->alerts,
		.bin = s->bin,
		.ident = s->ident,
		.oncpu = s->oncpu,
		.sym = s->sym,
		.sample_hz = s->opts->sample_hz,
		.audit = audit_trail__output(s->audit),
		.fleet = s->fleet,
	};
}

/* A fleet bundle judged (fleet.h): a `fleet` record to the JSON output and
 * the audit log, and the sensor's own alert for a bad signature. */
static void on_fleet_report(void *ctx, const struct fleet_report *r)
{
	struct sensor *s = ctx;
	struct pl_output *audit = audit_trail__output(s->audit);
	struct pl_sensor_event ev = {
		.kind = PL_SENSOR_FLEET,
		.time_ns = real_ns(),
		.fleet = {
			.file = r->file,
			.verdict = fleet_result__name(r->result),
			.why = r->why && r->why[0] ? r->why : NULL,
			.role = r->has_meta ? r->role : NULL,
			.created_ns = r->created_ns,
			.hosts = r->hosts,
			.baselines = r->baselines,
			.key_id = r->key_id,
			.arrival_ns = r->arrival_ns,
			.load_ns = r->load_ns,
		},
	};

	if (s->out)
		output__write_sensor(s->out, &ev);
	if (audit)
		output__write_sensor(audit, &ev);
	if (r->result == FLEET_BAD_SIGNATURE) {
		struct pl_output *outs[SENSOR_ALERT_OUTPUTS];
		size_t n = sensor__alert_outputs(s, outs);

		fleet__alert(r, s->opts->fleet_dir, &s->ids, outs, n);
	}
}

/* The counters now (stats.h). */
/* stdout as the live view sees it: a terminal and its size now (a resize
 * shows at the next refresh), or not a terminal. */
static const struct live_screen *live_screen(struct live_screen *ret)
{
	struct winsize ws;

	*ret = (struct live_screen){ .tty = isatty(STDOUT_FILENO) == 1 };
	if (ret->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		ret->cols = ws.ws_col;
		ret->rows = ws.ws_row;
	} else if (ret->tty) {
		ret->cols = 80, ret->rows = 24;
	}
	return ret;
}

static void collect(struct sensor *s, struct pl_sensor_stats *ret)
{
	struct stats_sources src = sources(s);

	stats__collect(&src, ret);
}

/* The loss alert goes where rule alerts go (sensor__set_outputs()). final: at shutdown. */
static void loss_alert(struct sensor *s, bool final)
{
	struct pl_output *alert_outs[SENSOR_ALERT_OUTPUTS];
	size_t n = sensor__alert_outputs(s, alert_outs);
	struct pl_sensor_stats st;

	collect(s, &st);
	if (final)
		lossalert__flush(s->loss, &st, alert_outs, n);
	else
		lossalert__tick(s->loss, &st, mono_ns(), alert_outs, n);
}

/* The rule families' readiness, for the stats record only: a pass over the store (learn.h). */
static void collect_families(struct sensor *s, struct pl_sensor_stats *st)
{
	struct learn_progress *p;

	if (!s->learn || !(p = malloc(sizeof(*p))))
		return;
	learner__progress(s->learn, p);
	_Static_assert(LEARN_FAMILIES_MAX <= PL_STATS_FAMILIES_MAX, "room for every family");
	for (size_t i = 0; i < p->nfamily; i++) {
		st->baselines.families[i].name = p->family[i].name;
		st->baselines.families[i].ready = p->family[i].active_ready;
		st->baselines.families[i].learning = p->family[i].active_learning;
		st->baselines.families[i].armed = p->family[i].armed;
	}
	st->baselines.nfamilies = p->nfamily;
	free(p);
}

static void emit_stats(struct sensor *s)
{
	struct pl_sensor_stats st;

	collect(s, &st);
	collect_families(s, &st);
	if (s->out)
		output__write_stats(s->out, &st);
}

static void on_tick(struct sensor *s)
{
	uint64_t now = mono_ns();

	s->ticks++;
	drain(s, DRAIN_TICK_NS); /* starts first, so windows see every started image */
	proctable__begin_pass(s->procs);
	/* a complete pass proves which tracked processes are gone (an end record lost) */
	if (foreach_kernel_proc(s, window_one) == 0)
		proctable__sweep(s->procs, PROC_GONE_PASSES);
	binagg__tick(s->bin, s->last_tick_ns ? (now - s->last_tick_ns) / 1e9 : 1);
	s->last_tick_ns = now;
	pipeline__tick(s->pipe, now + (uint64_t)mono_to_real()); /* dedupe windows that closed: their summaries */
	if (images__files_rescan(s->images) || now - s->files_expanded_ns >= FILES_RESCAN_NS)
		sensor__watch_files(s);
	if (s->ticks % s->opts->fail_sweep_s == 0)
		failpaths__sweep(s->fails, now);
	fleet__tick(s->fleet); /* a fleet directory removed: watched again once it is back */
	if (s->oncpu) {
		if (s->ticks % ONCPU_SWEEP_S == 0)
			oncpu__sweep(s->oncpu, now);
		else
			oncpu__tick(s->oncpu, now);
	}
	if (s->live && now - s->last_live_ns >= s->opts->live_interval_s * 1000000000ull - 50000000ull) {
		struct pl_sensor_stats st;
		struct live_screen sc;

		collect(s, &st);
		live__print(s->live, stdout, live_screen(&sc), now - s->last_live_ns, proctable__count(s->procs),
			    &st.losses);
		s->last_live_ns = now;
	}
	if (s->syslog)
		output__flush(s->syslog); /* what the syslog sender dropped, counted before the stats */
	loss_alert(s, false);
	if (s->opts->stats_interval_s && s->ticks % s->opts->stats_interval_s == 0)
		emit_stats(s);
	if (s->learn && s->ticks % s->opts->flush_interval_s == 0)
		learner__flush(s->learn);
	else if (s->learn)
		learner__flush_more(s->learn, LEARN_SAVES_PER_TICK); /* a long flush goes on */
	if (s->audit) {
		struct pl_output *heads[] = { s->syslog, s->out };
		struct pl_sensor_stats st;

		collect(s, &st);
		audit_trail__tick(s->audit, &st.losses, now, heads, ARRAY_SIZE(heads));
	}
	{
		struct stats_sources src = sources(s);

		runtime__tick(s->rt, &src, false);
	}
}

static void reopen(struct sensor *s, const char *path, struct pl_output **out)
{
	struct pl_output *n;
	int r;

	if (!*out || strcmp(path, "-") == 0)
		return;
	r = jsonl_output__open(path, &n);
	if (r < 0) {
		char why[256];

		log_warn("SIGHUP: cannot reopen %s: %s (keeping the old file)", path, sensor__json_open_why(r, path, why, sizeof(why)));
		return;
	}
	output__carry(n, *out);
	output__free(*out);
	*out = n;
	sensor__set_outputs(s);
	log_info("SIGHUP: reopened %s", path);
}

static void on_signal(struct sensor *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			/* the config file first (docs/config.md): it may change the rules and the JSON path */
			int rules_r = 0, cr = config__reload(s->alerts, &rules_r);

			if (s->alerts && cr >= 0)
				audit_trail__rules(s->audit, s->alerts, cr > 0 ? rules_r : alerts__reload(s->alerts));
			sensor__watch_files(s); /* the classes may have changed */
			hostinfo__refresh(); /* a renamed host; users renamed or made */
			usercache__clear();
			if (s->out)
				reopen(s, s->opts->json_path, &s->out);
			if (s->ocsf)
				reopen(s, s->opts->ocsf_path, &s->ocsf);
			continue;
		}
		log_info("%s: stopping", strsignal((int)si.ssi_signo));
		s->stop_reason = si.ssi_signo == SIGINT ? "SIGINT" : si.ssi_signo == SIGTERM ? "SIGTERM" : "signal";
		s->stop = true;
	}
}

/* sd_notify(3) READY=1 when started by a service manager (or a test). */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;
	size_t len;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	len = strlen(path);
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + len) < 0)
		log_warn("Cannot notify readiness on NOTIFY_SOCKET: %m");
}

static void sensor_shutdown(struct sensor *s)
{
	drain(s, UINT64_MAX);
	on_identity(s); /* hashes finished meanwhile, for the running records */
	if (s->opts->process_records) {
		images__closing(s->images);
		foreach_kernel_proc(s, running_one);
		/* a process whose final switch came after the drain: its end is in
		 * the ring and no longer in the table the walk read */
		drain(s, UINT64_MAX);
	}
	/* what dedupe windows still hold is reported before the last stats */
	pipeline__finish(s->pipe, real_ns());
	loss_alert(s, true); /* losses not yet alerted on, before syslog's last chance */
	if (s->audit) {
		/* the stop line and its head before syslog's drain: the head must leave the host */
		struct pl_output *heads[] = { s->syslog, s->out };
		struct pl_sensor_stats st;

		collect(s, &st);
		audit_trail__stop(s->audit, s->stop_reason ? s->stop_reason : "error", &st, heads, ARRAY_SIZE(heads));
	}
	if (s->syslog) {
		/* what still waits for the syslog target gets a few seconds, then is counted lost */
		bool stuck = false;
		uint64_t lost = syslog_output__drain(s->syslog, 3000, &stuck);

		if (lost)
			log_warn("%llu alerts to syslog were still waiting for the target at exit: lost (counted)",
				 (unsigned long long)lost);
		if (stuck)
			log_warn("The syslog sender was still waiting on the target %d s after the stop: left to the exit",
				 3 + PL_SYSLOG_STOP_GRACE_MS / 1000);
	}
	emit_stats(s);
	{
		struct stats_sources src = sources(s);

		runtime__stop(s->rt, &src);
	}
}

int sensor_run(const struct run_opts *opts)
{
	struct sensor *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return log_error_errno(ENOMEM, "Out of memory");
	s->opts = opts;
	s->epfd = s->sigfd = s->tickfd = s->stopfd = -1;
	s->start_ns = s->last_live_ns = mono_ns();
	s->on_record = on_record;
	r = sensor__open(s);
	if (r < 0)
		goto out;

	audit_trail__start(s->audit, s->alerts);
	if (s->fleet)
		fleet__scan(s->fleet); /* the bundles there at start: said when the look is done */
	log_info("attached: watching every process (%s%s)", s->opts->process_records ? "process records" : "no process records",
		 s->opts->json_path ? "" : ", no JSON output");
	{
		struct stats_sources src = sources(s);

		runtime__tick(s->rt, &src, true); /* status.json at start */
	}
	notify_ready();
	while (!s->stop) {
		struct epoll_event evs[8];
		/* records don't wake us one by one (BPF_RB_NO_WAKEUP until an
		 * eighth of the ring is pending): collect them every 100 ms */
		int n = epoll_wait(s->epfd, evs, 8, 100);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = log_error_errno(errno, "epoll_wait: %m");
			break;
		}
		if (n == 0)
			consume(s);
		for (int i = 0; i < n; i++) {
			uint64_t expirations;

			switch (evs[i].data.u32) {
			case FD_RINGBUF:
				consume(s);
				break;
			case FD_SIGNAL:
				on_signal(s);
				break;
			case FD_TICK:
				if (read(s->tickfd, &expirations, sizeof(expirations)) > 0)
					on_tick(s);
				break;
			case FD_STOP:
				s->stop_reason = "duration";
				s->stop = true;
				break;
			case FD_IDENTITY:
				on_identity(s);
				break;
			case FD_SYSLOG:
				output__flush(s->syslog); /* the sender's news: an outage began or ended */
				break;
			case FD_SAVED:
				learner__saved(s->learn); /* baseline saves finished off the loop */
				break;
			case FD_FLEET:
				fleet__changed(s->fleet, on_fleet_report, s); /* a bundle arrived */
				break;
			}
		}
	}
	sensor_shutdown(s);
	{
		struct pl_sensor_stats st;
		char text[256];

		collect(s, &st);
		live__losses_text(&st.losses, text, sizeof(text));
		log_info("detached after %.1f s: %llu process records, %s", (mono_ns() - s->start_ns) / 1e9,
			 (unsigned long long)pipeline__stats(s->pipe)->process_records, text);
	}
out:
	sensor__close(s);
	free(s);
	return r;
}
