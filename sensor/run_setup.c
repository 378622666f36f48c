// SPDX-License-Identifier: MIT
/*
 * run_setup.c - the daemon's set-up and teardown (run_int.h): the outputs
 * and what their failures say, signals, rules, the probes, on-CPU
 * sampling, the epoll loop's fds, metrics; and closing all of it, from
 * whatever point set-up reached.
 */
#include "run_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "config/config.h"
#include "filekind.h"
#include "log.h"
#include "hardening/privilege.h"
#include "identity/hostinfo.h"
#include "process/fileclass.h"
#include "ruleset.h"
#include "syslog_out.h"
#include "textsafe.h"

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
	case PL_OUTPUT_DOWN:
		log_warn("%s is not taking %s: %s; they wait in its buffer, retried with a backoff of 1 s doubling "
			 "to 30 s (an outage: its end is said too)",
			 l->where, l->noun, o->why[0] ? o->why : "no reason given");
		break;
	case PL_OUTPUT_UP:
		log_info("%s takes %s again: the outage lasted %.1f s; what waited has been sent", l->where, l->noun,
			 o->down_ns / 1e9);
		break;
	}
}

/* Why jsonl_output__open(path) failed with r, in words an operator can act on. */
const char *sensor__json_open_why(int r, const char *path, char *buf, size_t size)
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

void sensor__close(struct sensor *s)
{
	runtime__free(s->rt); /* first: its thread reads only its own copy, but stops before all else */
	bpfsensor__free(s->bpf);
	proctable__free(s->procs);
	objects__free(s->objects);
	pkgindex__free(s->pkgs);
	identity__free(s->ident);
	if (s->out)
		output__flush(s->out);
	output__free(s->out);
	audit_trail__free(s->audit);
	lossalert__free(s->loss);
	live__free(s->live);
	if (s->learn)
		learner__set_fleet(s->learn, NULL);
	fleet__free(s->fleet);
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
	fileclass__free(s->classes);
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

static void on_mmap(void *ctx, const struct bpfsensor_mapping *m)
{
	oncpu__on_mmap(ctx, m->pid, m->addr, m->maplen, m->pgoff, m->build_id, m->len, m->path);
}

/* A JSON Lines output at path, in form, its failures reported through
 * on_output() as what (the error's words) and noun (what is lost). */
static int open_jsonl(const char *path, const char *what, const char *noun, enum pl_alert_form form,
		      struct pl_output **ret, struct out_label *label)
{
	int r = jsonl_output__open(path, ret);

	if (r < 0) {
		char why[256];

		return log_error_errno(r, "Cannot open %s '%s': %s", what, path, sensor__json_open_why(r, path, why, sizeof(why)));
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

/* Throttle windows live on a clock that a wall-clock step does not move. */
static uint64_t window_clock(void *ctx)
{
	(void)ctx;
	return boot_ns();
}

/* The rules: bad rules at start-up stop the sensor, nobody should believe it is watching. */
static int load_rules(struct sensor *s)
{
	struct alerts_opts ao = {
		.paths = s->opts->rule_list, /* kept: alerts reads it at every SIGHUP */
		.npaths = s->opts->nrule_list,
		.enable = s->opts->enable,
		.nenable = s->opts->nenable,
		.disable = s->opts->disable,
		.ndisable = s->opts->ndisable,
		.regex_budget_ns = (uint64_t)s->opts->regex_budget_ms * 1000000ull,
		.ids = &s->ids,
		.window_clock = window_clock,
	};

	return alerts__open(&ao, &s->alerts);
}

/* Alerts to syslog (--syslog); its sender thread starts after the privilege drop
 * (open_probes()), and a target unusable already is said as soon as its first
 * attempt failed, before any alert. */
static int open_syslog_output(struct sensor *s)
{
	struct pl_syslog_opts so = { .app_name = "plumbline", .facility = LOG_DAEMON,
				     .buffer_bytes = s->opts->syslog_buffer_bytes, .tls = s->opts->syslog_tls,
				     .hostname = s->opts->host_name };
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
	return 0;
}

/* The outputs only alerts go to: syslog, the live view's lines, OCSF (--ocsf). */
static int open_alert_outputs(struct sensor *s)
{
	int r = open_syslog_output(s);
	FILE *alert_lines = NULL;

	if (r < 0)
		return r;
	/* on a terminal the live view redraws in place: the alert lines are
	 * drawn in it, below the table, rather than scrolled past it */
	if (s->opts->live == LIVE_ON && s->live && isatty(STDOUT_FILENO) == 1)
		alert_lines = live__alert_file(s->live);
	if (s->opts->live == LIVE_ON && text_output__open(alert_lines ? alert_lines : stdout, &s->text) < 0)
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
	r = bpfsensor__watch_mmaps(s->bpf, on_mmap, s->oncpu);
	if (r < 0)
		log_warn_errno(r, "Cannot watch executable mappings (%m): stack frames of processes "
				  "that have exited before their stacks are read stay unnamed");
	return 0;
}

static void kernel_name(void *ctx, uint64_t ip, char *name, size_t size)
{
	struct pl_frame f = { 0 };

	symbols__kernel(ctx, ip, &f);
	snprintf(name, size, "%s", f.function ? f.function : "");
}

/*
 * The kernel stacks of waiting threads from BPF (bpf/waits.bpf.c), named from
 * /proc/kallsyms: read now, while the sensor may (kptr_restrict shows
 * addresses only to CAP_SYSLOG, which the drop takes).
 */
static int open_wait_stacks(struct sensor *s)
{
	if (!bpfsensor__has_wait_stacks(s->bpf))
		return 0;
	if (!s->sym && symbols__new(&s->sym) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	symbols__load_kernel(s->sym); /* a no-op when sampling loaded it */
	s->kstacks = (struct waitstate_kstacks){
		.read = bpfsensor__wait_stacks,
		.read_ctx = s->bpf,
		.name = kernel_name,
		.name_ctx = s->sym,
	};
	return 0;
}

/* The probes, and what consumes their records: failed paths, the pipeline,
 * sampling, identity, images; privileges dropped once all is attached. */
size_t sensor__alert_outputs(const struct sensor *s, struct pl_output *ret[SENSOR_ALERT_OUTPUTS])
{
	struct pl_output *outs[SENSOR_ALERT_OUTPUTS] = { s->out, s->syslog, s->text, audit_trail__output(s->audit),
							 s->ocsf };

	memcpy(ret, outs, sizeof(outs));
	return SENSOR_ALERT_OUTPUTS;
}

void sensor__set_outputs(struct sensor *s)
{
	struct pl_output *alert_outs[SENSOR_ALERT_OUTPUTS];
	size_t n = sensor__alert_outputs(s, alert_outs);

	pipeline__set_outputs(s->pipe, s->out, alert_outs, n);
}

/* ---- watched files ---- */

/* Directory entries the expansion reads at most (a `**` under a big tree). */
#define FILES_WALK_MAX 200000

struct watch_keys {
	struct pl_watch_key *k;
	uint32_t *kind;
	size_t n, cap;
};

static void add_watch(void *ctx, uint64_t dev, uint64_t ino, unsigned kinds)
{
	struct watch_keys *w = ctx;

	for (size_t i = 0; i < w->n; i++) /* the same key again: OR its kinds (sets are small) */
		if (w->k[i].ino == ino && w->k[i].dev == identity__dev_to_kernel((dev_t)dev)) {
			w->kind[i] |= kinds;
			return;
		}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct pl_watch_key *k = realloc(w->k, cap * sizeof(*k));
		uint32_t *kind = k ? realloc(w->kind, cap * sizeof(*kind)) : NULL;

		if (k)
			w->k = k;
		if (!k || !kind)
			return;
		w->kind = kind;
		w->cap = cap;
	}
	w->k[w->n] = (struct pl_watch_key){.ino = ino, .dev = identity__dev_to_kernel((dev_t)dev)};
	w->kind[w->n++] = kinds;
}

void sensor__watch_files(struct sensor *s)
{
	const struct rl_path_class *c;
	size_t n = rl_ruleset__path_classes(alerts__rules(s->alerts), &c), loaded = 0;
	struct watch_keys w = {0};
	struct fileclass *fc = NULL;
	int r;

	s->files_expanded_ns = mono_ns();
	if (!s->bpf || !bpfsensor__tracks_open_fail(s->bpf))
		return;
	if (fileclass__new(c, n, NULL, 0, &fc) < 0) {
		log_warn("Out of memory for the path classes: the watch set is unchanged");
		return;
	}
	fileclass__expand(fc, FILES_WALK_MAX, add_watch, &w);
	r = bpfsensor__set_watch(s->bpf, w.k, w.kind, w.n, &loaded);
	if (r < 0)
		log_warn("Watched files: %zu of %zu keys loaded: %s", loaded, w.n, strerror(-r));
	fileclass__free(s->classes);
	s->classes = fc;
	log_debug("Watched files: %zu path classes, %zu keys", n, loaded);
	free(w.k);
	free(w.kind);
}

static int open_probes(struct sensor *s)
{
	struct bpfsensor_opts bo = {
		.max_procs = s->opts->max_procs,
		.max_fail_paths = s->opts->max_fail_paths,
		.ringbuf_kb = s->opts->ringbuf_kb,
		.refresh_hz = s->opts->refresh_hz,
		.sample_hz = s->opts->sample_hz,
		.stack_bytes = s->opts->stack_bytes,
		.sample_ring_kb = s->opts->sample_ring_kb,
		.fail_keys_burst = PROC_MAX_FAIL_KEYS,
		.fail_keys_per_s = 32,
	};
	struct pipeline_opts po = {
		.exec_records = s->opts->process_records,
		.process_records = s->opts->process_records,
		.window_records = s->opts->window_records,
		.map_records = s->opts->map_records,
	};
	struct failpaths_table tbl;
	struct images_deps d;
	int r = bpfsensor__open(&bo, &s->feat, s->on_record, s, &s->bpf);

	if (r < 0)
		return r;
	tbl = bpfsensor__fail_table(s->bpf);
	if (failpaths__new(&tbl, s->procs, &s->fails) < 0 || pipeline__new(&po, s->learn, s->alerts, &s->pipe) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	r = open_sampling(s);
	if (r < 0)
		return r;
	r = open_wait_stacks(s);
	if (r < 0)
		return r;
	sensor__set_outputs(s);
	/* every program loaded and attached, every perf event open: the
	 * steady state's privileges from here on. Before any thread is
	 * started (capabilities and the seccomp filter are per thread): the
	 * hash worker, the syslog sender and the baseline saver now. */
	r = privilege__drop(s->opts->keep_privileges);
	if (r < 0)
		return r;
	privilege__selftest();
	r = identity__new(s->feat.cgroup2, &s->ident);
	if (r < 0)
		return log_error_errno(r, "Cannot start the identity hash worker: %m");
	r = s->syslog ? syslog_output__start(s->syslog) : 0;
	if (r < 0)
		return log_error_errno(r, "Cannot start the syslog sender thread: %m");
	r = s->learn ? learner__start(s->learn) : 0;
	if (r < 0)
		return log_error_errno(r, "Cannot start the baseline save thread: %m");
	d = (struct images_deps){
		.procs = s->procs,
		.ident = s->ident,
		.fails = s->fails,
		.bin = s->bin,
		.live = s->live,
		.learn = s->learn,
		.pipe = s->pipe,
		.oncpu = s->oncpu,
		.classes = &s->classes,
		.net_written = bpfsensor__net_written,
		.net_written_ctx = s->bpf,
		.kstacks = s->kstacks.read ? &s->kstacks : NULL,
	};
	if (pkgindex__new(NULL, NULL, &s->pkgs) < 0 || objects__new(s->ident, s->pkgs, &s->objects) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	d.objects = s->objects;
	if (images__new(&d, &s->images) < 0)
		return log_error_errno(ENOMEM, "Out of memory");
	sensor__watch_files(s);
	return 0;
}

/* The event loop's fds: the ring buffer, signals, the tick, the stop timer,
 * identity, the syslog sender, the baseline save thread. */
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
	if (!r && s->syslog)
		r = add_fd(s, syslog_output__event_fd(s->syslog), FD_SYSLOG);
	if (!r && s->learn)
		r = add_fd(s, learner__epoll_fd(s->learn), FD_SAVED);
	if (!r && s->fleet)
		r = add_fd(s, fleet__epoll_fd(s->fleet), FD_FLEET);
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
int sensor__open(struct sensor *s)
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
	if (s->opts->audit_key && !s->opts->audit_log)
		return log_error_errno(EINVAL, "--audit-key seals the audit log: give --audit-log too");
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
	/* the host's name and id for every alert: the state directory (checked
	 * and locked by now) keeps an id of the sensor's own where the host has none */
	hostinfo__init(s->learn ? s->opts->state_dir : NULL);
	hostinfo__set_name(s->opts->host_name);
	/* the fleet's view: keys and the inotify instance before the drop */
	if (s->learn && s->opts->fleet_dir && s->opts->role) {
		r = fleet__open(s->opts->fleet_dir, s->opts->fleet_keys, s->opts->role, &s->fleet);
		if (r < 0) {
			log_error("not starting without the fleet view it was asked for");
			return r;
		}
		learner__set_fleet(s->learn, s->fleet);
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

