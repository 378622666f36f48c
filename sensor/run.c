// SPDX-License-Identifier: MIT
/*
 * run.c - the sensor daemon: set-up, one epoll loop over the ring buffer, a
 * signalfd and timerfds, and shutdown.
 *
 * The loop only dispatches: ring-buffer records go to images.c (the life of
 * each image, and its samples), samples through pipeline.c (score, judge,
 * learn, record), the tick drives the window pass, the failed-path sweep,
 * the live view, stats (stats.c) and baseline saves. The loop has room for
 * more fds (perf sampling, metrics, PSI triggers): one tag and one case.
 */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "alerts.h"
#include "audit_trail.h"
#include "binagg.h"
#include "bpfsensor.h"
#include "cleanup.h"
#include "clock.h"
#include "config.h"
#include "failpaths.h"
#include "oncpu.h"
#include "symbols.h"
#include "filekind.h"
#include "kfeatures.h"
#include "identity.h"
#include "learn.h"
#include "live.h"
#include "log.h"
#include "lossalert.h"
#include "output.h"
#include "images.h"
#include "pipeline.h"
#include "privilege.h"
#include "proctable.h"
#include "runtime.h"
#include "stats.h"
#include "syslog_out.h"
#include "textsafe.h"

enum { FD_RINGBUF = 1, FD_SIGNAL, FD_TICK, FD_STOP, FD_IDENTITY };

/* How an output is named in the messages of on_output(). */
struct out_label {
	const char *noun;  /* what it loses: "records", "alerts" */
	char where[160];   /* "/var/log/plumbline.jsonl", "syslog (unix:/dev/log)" */
	const char *until; /* when the loss stops */
};

struct sensor {
	const struct run_opts *opts;
	struct pl_features feat;
	struct bpfsensor *bpf;
	struct proctable *procs;
	struct identity *ident;
	struct pl_output *out;
	struct live *live;
	struct learner *learn; /* NULL: baselines off or unavailable */
	struct alerts *alerts; /* NULL: --no-rules */
	struct binagg *bin;
	struct failpaths *fails; /* failed-path keys: the kernel's table and each image's list */
	struct symbols *sym;     /* frame names; NULL: sampling off */
	struct oncpu *oncpu;     /* on-CPU samples per image; NULL: sampling off */
	struct pl_output *syslog; /* alerts to the syslog daemon, NULL: --syslog off */
	struct pl_output *text;   /* alerts as lines on stdout with the live view */
	struct pl_output *ocsf;   /* alerts as OCSF findings (--ocsf), NULL: none */
	struct out_label out_label, syslog_label, text_label, ocsf_label;
	uint64_t last_tick_ns;
	int epfd, sigfd, tickfd, stopfd;
	bool stop;
	uint64_t start_ns;
	uint64_t last_live_ns;
	uint64_t ticks;
	uint64_t pass_ns;  /* the time of the current pass over the kernel's table */
	uint64_t consumed; /* records handled in the current consume() */
	struct images *images;
	struct pipeline *pipe;
	struct audit_trail *audit; /* NULL: no --audit-log */
	const char *stop_reason;   /* for the audit log's stop line */
	struct runtime *rt;        /* metrics, status.json */
	struct lossalert *loss;     /* the "Sensor lost events" alert */
	struct pl_alert_ids ids;    /* the one generator of alert ids: rules' alerts, summaries, losses */
};

/*
 * What an output's failure episode means to the operator (outputs/output.h):
 * the first lost record is said once with the reason, a reminder at most
 * once a minute while it lasts, and its end with how many were lost. ctx is
 * the output's struct out_label.
 */
static void on_output(struct pl_output *o, enum pl_output_event ev, void *ctx)
{
	const struct out_label *l = ctx;
	unsigned long long lost = (unsigned long long)output__lost(o);

	switch (ev) {
	case PL_OUTPUT_FAILING:
		if (o->why[0])
			log_warn("%s: %s to %s are lost %s (counted in the stats record)", o->why, l->noun, l->where,
				 l->until);
		else
			log_warn_errno(o->last_err, "Cannot write %s to %s: %m (dropping and counting them %s)", l->noun,
				       l->where, l->until);
		break;
	case PL_OUTPUT_STILL_FAILING:
		if (o->why[0])
			log_warn("Still cannot write %s to %s: %llu lost so far (%s)", l->noun, l->where, lost, o->why);
		else
			log_warn_errno(o->last_err, "Still cannot write %s to %s: %llu lost so far (%m)", l->noun,
				       l->where, lost);
		break;
	case PL_OUTPUT_RECOVERED:
		log_info("Recovered: %s to %s are written again; %llu %s lost meanwhile", l->noun, l->where, lost,
			 l->noun);
		break;
	}
}

/* Records handled per consume call: past it the loop comes back to epoll, so
 * signals and ticks are served during a sustained storm of records. */
#define CONSUME_BUDGET 4096

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
 * shutdown), bounded so that producers faster than us can't hold us here. */
static void drain(struct sensor *s)
{
	int batches = 0;

	do
		consume(s);
	while (s->consumed >= CONSUME_BUDGET && ++batches < 64);
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

	images__window(s->images, tgid, p, s->pass_ns);
}

static void running_one(void *ctx, uint32_t tgid, const struct pl_proc *p)
{
	struct sensor *s = ctx;

	images__running(s->images, tgid, p, s->pass_ns);
}

static void foreach_kernel_proc(struct sensor *s, void (*fn)(void *, uint32_t, const struct pl_proc *))
{
	bpfsensor__sync_cpu(s->bpf);
	s->pass_ns = mono_ns();
	bpfsensor__foreach_proc(s->bpf, s->opts->max_procs * 2u, fn, s);
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
	};
}

/* Where the pipeline writes records and alerts: set again when one changes. */
static void set_outputs(struct sensor *s)
{
	struct pl_output *alert_outs[] = { s->out, s->syslog, s->text, audit_trail__output(s->audit), s->ocsf };

	pipeline__set_outputs(s->pipe, s->out, alert_outs, ARRAY_SIZE(alert_outs));
}

/* The loss alert goes where rule alerts go (set_outputs()). final: at shutdown. */
/* The counters now (stats.h). */
static void collect(struct sensor *s, struct pl_sensor_stats *ret)
{
	struct stats_sources src = sources(s);

	stats__collect(&src, ret);
}

static void loss_alert(struct sensor *s, bool final)
{
	struct pl_output *alert_outs[] = { s->out, s->syslog, s->text, audit_trail__output(s->audit), s->ocsf };
	struct pl_sensor_stats st;

	collect(s, &st);
	if (final)
		lossalert__flush(s->loss, &st, alert_outs, ARRAY_SIZE(alert_outs));
	else
		lossalert__tick(s->loss, &st, mono_ns(), alert_outs, ARRAY_SIZE(alert_outs));
}

static void emit_stats(struct sensor *s)
{
	struct pl_sensor_stats st;

	collect(s, &st);
	if (s->out)
		output__write_stats(s->out, &st);
}

static void on_tick(struct sensor *s)
{
	uint64_t now = mono_ns();

	s->ticks++;
	drain(s); /* starts first, so windows see every started image */
	foreach_kernel_proc(s, window_one);
	binagg__tick(s->bin, s->last_tick_ns ? (now - s->last_tick_ns) / 1e9 : 1);
	s->last_tick_ns = now;
	pipeline__tick(s->pipe, now + (uint64_t)mono_to_real()); /* dedupe windows that closed: their summaries */
	if (s->ticks % s->opts->fail_sweep_s == 0)
		failpaths__sweep(s->fails, now);
	if (s->oncpu) {
		if (s->ticks % ONCPU_SWEEP_S == 0)
			oncpu__sweep(s->oncpu, now);
		else
			oncpu__tick(s->oncpu, now);
	}
	if (s->live && now - s->last_live_ns >= s->opts->live_interval_s * 1000000000ull - 50000000ull) {
		struct pl_sensor_stats st;

		collect(s, &st);
		live__print(s->live, stdout, now - s->last_live_ns, proctable__count(s->procs), &st.losses);
		s->last_live_ns = now;
	}
	if (s->syslog)
		output__flush(s->syslog); /* what waits for the syslog target goes once it can */
	loss_alert(s, false);
	if (s->opts->stats_interval_s && s->ticks % s->opts->stats_interval_s == 0)
		emit_stats(s);
	if (s->learn && s->ticks % s->opts->flush_interval_s == 0)
		learner__flush(s->learn);
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

/* Why jsonl_output__open(path) failed with r, in words an operator can act on. */
static const char *json_open_why(int r, const char *path, char *buf, size_t size)
{
	struct stat st;

	if (r == -ELOOP)
		snprintf(buf, size, "it is a symbolic link, refused: the sensor's appends would go wherever it points; "
				    "give the file's own path, or - for standard output");
	else if (r == -EINVAL && lstat(path, &st) == 0)
		snprintf(buf, size, "it is %s, not a regular file; give a regular file, or - for standard output",
			 file_kind(st.st_mode));
	else
		snprintf(buf, size, "%s", strerror(-r));
	return buf;
}

/* SIGHUP: reopen the JSONL file at path into *out (log rotation). */
static void reopen(struct sensor *s, const char *path, struct pl_output **out)
{
	struct pl_output *n;
	int r;

	if (!*out || strcmp(path, "-") == 0)
		return;
	r = jsonl_output__open(path, &n);
	if (r < 0) {
		char why[256];

		log_warn("SIGHUP: cannot reopen %s: %s (keeping the old file)", path, json_open_why(r, path, why, sizeof(why)));
		return;
	}
	output__carry(n, *out);
	output__free(*out);
	*out = n;
	set_outputs(s);
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

/* ---- set-up ---- */

static int add_fd(struct sensor *s, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int timer_fd(uint64_t first_ns, uint64_t period_ns)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = first_ns / 1000000000ull, .tv_nsec = first_ns % 1000000000ull },
		.it_interval = { .tv_sec = period_ns / 1000000000ull, .tv_nsec = period_ns % 1000000000ull },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
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

static void sensor_close(struct sensor *s)
{
	runtime__free(s->rt); /* first: its thread reads only its own copy, but stops before all else */
	bpfsensor__free(s->bpf);
	proctable__free(s->procs);
	identity__free(s->ident);
	if (s->out)
		output__flush(s->out);
	output__free(s->out);
	audit_trail__free(s->audit);
	lossalert__free(s->loss);
	live__free(s->live);
	learner__free(s->learn); /* saves */
	alerts__free(s->alerts);
	output__free(s->syslog);
	output__free(s->text);
	if (s->ocsf)
		output__flush(s->ocsf);
	output__free(s->ocsf);
	binagg__free(s->bin);
	failpaths__free(s->fails);
	images__free(s->images);
	oncpu__free(s->oncpu);
	symbols__free(s->sym); /* after bpfsensor, whose mapping callback feeds it */
	pipeline__free(s->pipe);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->tickfd >= 0)
		close(s->tickfd);
	if (s->stopfd >= 0)
		close(s->stopfd);
}

static void on_mmap(void *ctx, uint32_t pid, const uint8_t *build_id, size_t len, const char *path)
{
	(void)pid;
	symbols__add_mapping(ctx, build_id, len, path);
}

/* A JSON Lines output at path, in form, its failures reported through
 * on_output() as what (the error's words) and noun (what is lost). */
static int open_jsonl(const char *path, const char *what, const char *noun, enum pl_alert_form form,
		      struct pl_output **ret, struct out_label *label)
{
	int r = jsonl_output__open(path, ret);

	if (r < 0) {
		char why[256];

		return log_error_errno(r, "Cannot open %s '%s': %s", what, path, json_open_why(r, path, why, sizeof(why)));
	}
	(*ret)->alert_form = form;
	*label = (struct out_label){ .noun = noun, .until = "until writing works again" };
	snprintf(label->where, sizeof(label->where), "%s", strcmp(path, "-") == 0 ? "stdout" : path);
	output__set_reporter(*ret, on_output, label);
	return 0;
}

/* SIGPIPE ignored; SIGINT, SIGTERM and SIGHUP blocked and read from a signalfd. */
static int open_signals(struct sensor *s)
{
	/* a JSON output on a pipe whose reader went away is an output that
	 * fails (EPIPE, counted and reported), not a reason to die */
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t mask;

	if (sigaction(SIGPIPE, &ign, NULL) < 0)
		return log_error_errno(errno, "sigaction: %m");
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(errno, "sigprocmask: %m");
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0)
		return log_error_errno(errno, "signalfd: %m");
	return 0;
}

/* The rules: bad rules at start-up stop the sensor, nobody should believe it is watching. */
static int load_rules(struct sensor *s)
{
	static const char *def; /* static: alerts keeps &def, and reads it at every SIGHUP */
	struct alerts_opts ao = {
		.paths = s->opts->nrule_paths ? s->opts->rule_paths : &def,
		.npaths = s->opts->nrule_paths ? s->opts->nrule_paths : 1,
		.enable = s->opts->enable,
		.nenable = s->opts->nenable,
		.disable = s->opts->disable,
		.ndisable = s->opts->ndisable,
		.regex_budget_ns = (uint64_t)s->opts->regex_budget_ms * 1000000ull,
		.ids = &s->ids,
	};

	def = run_opts__default_rules();
	return alerts__open(&ao, &s->alerts);
}

/* Alerts to syslog (--syslog); a target unusable already is said now, not at the first alert. */
static int open_syslog_output(struct sensor *s)
{
	struct pl_syslog_opts so = { .app_name = "plumbline", .facility = LOG_DAEMON,
				     .buffer_bytes = s->opts->syslog_buffer_bytes };
	struct pl_syslog_stats st;
	char target[PL_SYSLOG_HOST_MAX + 16];
	int r;

	if (s->opts->syslog.kind == PL_SYSLOG_OFF)
		return 0;
	r = syslog_output__open(&s->opts->syslog, &so, &s->syslog);
	if (r < 0)
		return log_error_errno(r, "Cannot set up the syslog output: %m");
	syslog_target__format(&s->opts->syslog, target, sizeof(target));
	s->syslog_label = (struct out_label){
		.noun = "alerts",
		.until = "while the syslog buffer is full (the target is down or slow)",
	};
	snprintf(s->syslog_label.where, sizeof(s->syslog_label.where), "syslog (%.140s)", target);
	output__set_reporter(s->syslog, on_output, &s->syslog_label);
	syslog_output__stats(s->syslog, &st);
	if (st.state == PL_SYSLOG_DISCONNECTED)
		log_warn("%s: alerts to syslog (%s) wait in a bounded buffer until it takes them "
			 "(retried with a backoff of 1 s doubling to 30 s)",
			 st.why, target);
	return 0;
}

/* The outputs only alerts go to: syslog, the live view's lines, OCSF (--ocsf). */
static int open_alert_outputs(struct sensor *s)
{
	int r = open_syslog_output(s);

	if (r < 0)
		return r;
	if (s->opts->live == LIVE_ON && text_output__open(stdout, &s->text) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	if (s->text) {
		s->text_label = (struct out_label){ .noun = "alert lines", .where = "stdout",
						    .until = "until writing works again" };
		output__set_reporter(s->text, on_output, &s->text_label);
	}
	if (!s->opts->ocsf_path)
		return 0;
	return open_jsonl(s->opts->ocsf_path, "the OCSF output", "OCSF findings", PL_ALERT_OCSF, &s->ocsf,
			  &s->ocsf_label);
}

/* On-CPU stacks and their symbols, when the probes sample. */
static int open_sampling(struct sensor *s)
{
	struct oncpu_table ot;
	int r;

	if (!bpfsensor__samples(s->bpf)) {
		if (s->opts->sample_hz)
			log_warn("On-CPU sampling is off: %s; alerts carry no stacks",
				 s->feat.have[PL_FEAT_PERF_EVENT] ? "--sample-hz 0" : "perf events are unavailable");
		return 0;
	}
	ot = bpfsensor__oncpu_table(s->bpf);
	if (symbols__new(&s->sym) < 0 ||
	    oncpu__new(&ot, s->sym, s->opts->max_stacks, s->opts->sample_hz, &s->oncpu) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	symbols__load_kernel(s->sym);
	r = bpfsensor__watch_mmaps(s->bpf, on_mmap, s->sym);
	if (r < 0)
		log_warn_errno(r, "Cannot watch executable mappings (%m): stack frames of processes "
				  "that have exited before their stacks are read stay unnamed");
	return 0;
}

/* The probes, and what consumes their records: failed paths, the pipeline,
 * sampling, identity, images; privileges dropped once all is attached. */
static int open_probes(struct sensor *s)
{
	struct bpfsensor_opts bo = {
		.max_procs = s->opts->max_procs,
		.max_fail_paths = s->opts->max_fail_paths,
		.ringbuf_kb = s->opts->ringbuf_kb,
		.refresh_hz = s->opts->refresh_hz,
		.sample_hz = s->opts->sample_hz,
		.max_stacks = s->opts->max_stacks,
		.fail_keys_burst = PROC_MAX_FAIL_KEYS,
		.fail_keys_per_s = 32,
	};
	struct pipeline_opts po = {
		.exec_records = s->opts->process_records,
		.process_records = s->opts->process_records,
		.window_records = s->opts->window_records,
	};
	struct failpaths_table tbl;
	struct images_deps d;
	int r = bpfsensor__open(&bo, &s->feat, on_record, s, &s->bpf);

	if (r < 0)
		return r;
	tbl = bpfsensor__fail_table(s->bpf);
	if (failpaths__new(&tbl, s->procs, &s->fails) < 0 || pipeline__new(&po, s->learn, s->alerts, &s->pipe) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	r = open_sampling(s);
	if (r < 0)
		return r;
	set_outputs(s);
	/* every program loaded and attached, every perf event open: the
	 * steady state's privileges from here on. Before any thread is
	 * started (capabilities are per thread): the hash worker now. */
	r = privilege__drop(s->opts->keep_privileges);
	if (r < 0)
		return r;
	privilege__selftest();
	r = identity__new(s->feat.cgroup2, &s->ident);
	if (r < 0)
		return log_error_errno(r, "Cannot start the identity hash worker: %m");
	d = (struct images_deps){
		.procs = s->procs,
		.ident = s->ident,
		.fails = s->fails,
		.bin = s->bin,
		.live = s->live,
		.learn = s->learn,
		.pipe = s->pipe,
		.oncpu = s->oncpu,
	};
	if (images__new(&d, &s->images) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	return 0;
}

/* The event loop's fds: the ring buffer, signals, the tick, the stop timer, identity. */
static int open_event_loop(struct sensor *s)
{
	int r;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return log_error_errno(errno, "epoll_create1: %m");
	s->tickfd = timer_fd(1000000000ull, 1000000000ull);
	if (s->tickfd < 0)
		return log_error_errno(s->tickfd, "timerfd: %m");
	if (s->opts->duration_s > 0) {
		s->stopfd = timer_fd((uint64_t)(s->opts->duration_s * 1e9), 0);
		if (s->stopfd < 0)
			return log_error_errno(s->stopfd, "timerfd: %m");
		r = add_fd(s, s->stopfd, FD_STOP);
		if (r < 0)
			return log_error_errno(r, "epoll_ctl: %m");
	}
	r = add_fd(s, bpfsensor__epoll_fd(s->bpf), FD_RINGBUF);
	if (!r)
		r = add_fd(s, s->sigfd, FD_SIGNAL);
	if (!r)
		r = add_fd(s, s->tickfd, FD_TICK);
	if (!r)
		r = add_fd(s, identity__epoll_fd(s->ident), FD_IDENTITY);
	if (r < 0)
		return log_error_errno(r, "epoll_ctl: %m");
	return 0;
}

/*
 * Open everything in the order a failure must stop at: the kernel's
 * features, the outputs, the signals, the rules and the outputs of alerts,
 * the state (baselines), the probes, the loss alert, the event loop, and
 * last the metrics (a thread, which inherits the signal mask).
 */
static int sensor_open(struct sensor *s)
{
	int r;

	if (!pl_alert_ids__init(&s->ids, 0))
		log_warn("getrandom: %m; alert ids are derived from the clock and the pid");
	features__probe(&s->feat, true);
	r = features__check_required(&s->feat);
	if (r < 0)
		return r;
	features__warn_optional(&s->feat);
	if (s->opts->json_path && (r = open_jsonl(s->opts->json_path, "JSON output", "records", PL_ALERT_NATIVE,
						    &s->out, &s->out_label)) < 0)
		return r;
	if (s->opts->audit_log && (r = audit_trail__open(s->opts, &s->audit)) < 0)
		return r;
	if (proctable__new(s->opts->max_procs, &s->procs) < 0 ||
	    (s->opts->live == LIVE_ON && live__new(&s->live) < 0))
		return log_error_errno(ENOMEM, "Out of memory");
	r = open_signals(s);
	if (r < 0)
		return r;
	if (s->opts->rules && ((r = load_rules(s)) < 0 || (r = open_alert_outputs(s)) < 0))
		return r;
	if (binagg__new(4096, &s->bin) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	/* A state directory it cannot use (insecure, in use, uncreatable) stops the
	 * sensor, as bad rules do: nobody should believe it is learning. */
	if (s->opts->baselines) {
		r = learner__open(s->opts->state_dir, &s->opts->policy, &s->learn);
		if (r < 0) {
			log_error("not starting without the baselines it was asked for (--no-baselines runs without them)");
			return r;
		}
	}
	r = open_probes(s);
	if (r < 0)
		return r;
	if (lossalert__open(s->opts->loss_alert_interval_s, &s->ids, &s->loss) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	r = open_event_loop(s);
	if (r < 0)
		return r;
	/* after the signal mask, which the metrics thread inherits */
	return runtime__open(s->opts, &s->rt);
}

static void sensor_shutdown(struct sensor *s)
{
	drain(s);
	on_identity(s); /* hashes finished meanwhile, for the running records */
	if (s->opts->process_records)
		foreach_kernel_proc(s, running_one);
	/* what dedupe windows still hold is reported before the last stats */
	pipeline__finish(s->pipe, real_ns());
	loss_alert(s, true); /* losses not yet alerted on, before syslog's last chance */
	if (s->syslog) {
		/* what still waits for the syslog target gets a few seconds, then is counted lost */
		uint64_t lost = syslog_output__drain(s->syslog, 3000);

		if (lost)
			log_warn("%llu alerts to syslog were still waiting for the target at exit: lost (counted)",
				 (unsigned long long)lost);
	}
	emit_stats(s);
	if (s->audit) {
		struct pl_output *heads[] = { s->syslog, s->out };
		struct pl_sensor_stats st;

		collect(s, &st);
		audit_trail__stop(s->audit, s->stop_reason ? s->stop_reason : "error", &st, heads, ARRAY_SIZE(heads));
	}
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
	r = sensor_open(s);
	if (r < 0)
		goto out;

	audit_trail__start(s->audit, s->alerts);
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
	sensor_close(s);
	free(s);
	return r;
}
