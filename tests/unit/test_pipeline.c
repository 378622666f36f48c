// SPDX-License-Identifier: MIT
/*
 * test_pipeline.c - a sample's way through the sensor (sensor/pipeline/pipeline.c),
 * and the promise that live and replay are the same path.
 *
 * Live and replay: the same samples judged by the shipped rules directly,
 * and after a trip through their JSON records (written, read back by the
 * one parser, judged again), give the same alerts, byte for byte. Then a
 * whole recorded run: the pipeline with a real learner and the shipped
 * rules writes its records to a file and its alerts to memory, and
 * `plumbline replay` of that file prints the same alerts.
 *
 * The steps: an exec is judged, never scored; a window or an exit is
 * scored, judged, then learned unless a rule fired; a step (a fork child
 * that exec'd) is written, neither scored nor judged; a process still
 * running at shutdown is scored and written, never judged nor learned;
 * records are written only for the moments asked for.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "pipeline/alerts.h"
#include "cli/cmd_rules.h"
#include "pipeline/learn.h"
#include "log.h"
#include "pipeline/pipeline.h"
#include "process/proctable.h"
#include "sample_json.h"
#include "syscalls.h"

#include "record_helpers.h"
#include "unit_helpers.h"

#define T0  1700000000000000000ull
#define MS  1000000ull
#define SEC 1000000000ull

#define LIVE_EXEC    (PIPE_JUDGE | PIPE_RECORD)
#define LIVE_WINDOW  (PIPE_SCORE | PIPE_LEARN | PIPE_JUDGE | PIPE_RECORD)
#define LIVE_EXIT    (PIPE_SCORE | PIPE_LEARN | PIPE_JUDGE | PIPE_RECORD)
#define LIVE_STEP    PIPE_RECORD
#define LIVE_RUNNING (PIPE_SCORE | PIPE_RECORD)

/* A rule per moment, firing on a command line that asks for it. */
static const char test_rules[] = "- rule: Exec asked to fire\n"
				 "  desc: d\n"
				 "  condition: proc.cmdline contains --fire\n"
				 "  output: exec %proc.pid\n"
				 "  priority: WARNING\n"
				 "  when: exec\n"
				 "- rule: Window asked to fire\n"
				 "  desc: d\n"
				 "  condition: proc.cmdline contains --fire\n"
				 "  output: window %proc.pid\n"
				 "  priority: WARNING\n"
				 "  when: window\n"
				 "- rule: Exit asked to fire\n"
				 "  desc: d\n"
				 "  condition: proc.cmdline contains --fire\n"
				 "  output: exit %proc.pid\n"
				 "  priority: WARNING\n"
				 "  when: exit\n";

struct fx {
	char dir[64], state_dir[96], rules[96], records[96];
	const char *rule_paths[1];
	struct alerts_opts ao;
	struct bl_policy pol;
	struct proctable *procs;
	struct learner *learn;
	struct alerts *alerts;
	struct pipeline *pipe;
	struct ut_mem_output *recs, *out;
	/* counters of the samples, kept here so that they outlive a run */
	unsigned long long sc[8][PL_SAMPLE_NR_SYSCALLS], errnos[8][PL_SAMPLE_NR_ERRNO];
	struct pl_fail fails[8][2];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/plumbline-pipeline-XXXXXX");
	assert_non_null(mkdtemp(f->dir)); /* 0700: a state directory only we can write */
	snprintf(f->state_dir, sizeof(f->state_dir), "%s/state", f->dir);
	snprintf(f->rules, sizeof(f->rules), "%s/rules.yaml", f->dir);
	snprintf(f->records, sizeof(f->records), "%s/records.jsonl", f->dir);
	write_file(f->rules, test_rules);
	bl_policy__defaults(&f->pol);
	f->pol.min_samples = 3;
	f->pol.min_windows = 3;
	f->pol.set_quiet_ns = 0; /* learning is compressed into seconds here */
	assert_int_equal(proctable__new(1024, &f->procs), 0);
	f->recs = ut_mem_output__new();
	f->out = ut_mem_output__new();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	pipeline__free(f->pipe);
	alerts__free(f->alerts);
	learner__free(f->learn);
	proctable__free(f->procs);
	output__free(&f->recs->base);
	output__free(&f->out->base);
	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

/* The pipeline with a learner, rules from `rules` (NULL: none) and the records of `o`. */
static void open_pipeline(struct fx *f, const char *rules, const struct pipeline_opts *o)
{
	struct pl_output *outs[1] = {&f->out->base};

	assert_int_equal(learner__open(f->state_dir, &f->pol, &f->learn), 0);
	if (rules) {
		f->rule_paths[0] = rules;
		f->ao = (struct alerts_opts){.paths = f->rule_paths, .npaths = 1};
		assert_int_equal(alerts__open(&f->ao, &f->alerts), 0);
	}
	assert_int_equal(pipeline__new(o, f->learn, f->alerts, &f->pipe), 0);
	pipeline__set_outputs(f->pipe, &f->recs->base, outs, 1);
}

/* An exec'd image user space knows, with its baseline attached. */
static struct proc_info *image(struct fx *f, uint32_t tgid, uint32_t ppid, const char *exe, const char *binary_id,
			       const struct proc_info *parent, const char *cmdline)
{
	struct proc_info *pi = proctable__reset(f->procs, tgid, tgid * 100ull);
	const char *name = strrchr(exe, '/');

	assert_non_null(pi);
	pi->flags = PL_PROC_EXECED;
	pi->ppid = ppid;
	snprintf(pi->exec_comm, sizeof(pi->exec_comm), "%s", name ? name + 1 : exe);
	pi->exe = strdup(exe);
	pi->binary_id = strdup(binary_id);
	pi->cmdline = strdup(cmdline);
	pi->parent_binary_id = parent ? strdup(parent->binary_id) : NULL;
	pi->parent_exe = parent ? strdup(parent->exe) : NULL;
	if (f->learn)
		learner__attach(f->learn, pi);
	return pi;
}

/* A sample of pi at moment m; its image started at start_ns. Counters in slot k of f. */
static void sample(struct fx *f, struct pl_sample *s, enum pl_moment m, const struct proc_info *pi, uint64_t start_ns,
		   int k)
{
	pl_sample__init(s, m);
	memset(f->sc[k], 0, sizeof(f->sc[k]));
	memset(f->errnos[k], 0, sizeof(f->errnos[k]));
	s->pid = pi->tgid;
	s->ppid = pi->ppid;
	s->comm = s->exec_comm = pi->exec_comm;
	s->exe = pi->exe;
	s->cmdline = pi->cmdline;
	s->binary_id = pi->binary_id;
	s->parent_exe = pi->parent_exe;
	s->image = pi->flags & PL_PROC_FORKED ? PL_IMAGE_FORK : PL_IMAGE_EXEC;
	s->start_ns = s->image_start_ns = start_ns;
	s->threads = 1;
	s->life.sc = s->win.sc = f->sc[k];
	s->life.fail_errno = s->win.fail_errno = f->errnos[k];
	s->time_ns = start_ns;
}

/* An exit after wall_ns, with cpu_ns on CPU and `syscalls` reads. */
static void ended(struct pl_sample *s, uint64_t wall_ns, uint64_t cpu_ns, uint64_t syscalls)
{
	s->end_ns = s->time_ns = s->image_start_ns + wall_ns;
	s->end_reason = "exit";
	s->has_exit_code = true;
	s->life.cpu_ns = cpu_ns;
	s->life.offcpu_ns = wall_ns > cpu_ns ? wall_ns - cpu_ns : 0;
	((unsigned long long *)s->life.sc)[0] += syscalls;
	s->life.syscalls += syscalls;
}

/* The window [start, start + 1 s) of an image, with cpu_ns and `syscalls` reads in it. */
static void window(struct pl_sample *s, uint64_t start, uint64_t cpu_ns, uint64_t syscalls)
{
	s->win_start_ns = start;
	s->win_end_ns = s->time_ns = start + SEC;
	s->win.cpu_ns = cpu_ns;
	s->life.cpu_ns = cpu_ns;
	((unsigned long long *)s->win.sc)[0] = syscalls;
	s->win.syscalls = s->life.syscalls = syscalls;
}

static void run(struct fx *f, struct pl_sample *s, struct proc_info *pi, unsigned steps)
{
	pipeline__run(f->pipe, s, pi, steps, s->time_ns);
}

/* Record i of the records written, and its baseline. */
static struct json_object *record(struct fx *f, size_t i)
{
	return ut_mem_record(f->recs, i);
}

/* The record of s as a line (malloc'd, without the newline). */
static char *line_of_record(const struct pl_sample *s)
{
	struct json_object *rec = sample_json__record(s);
	char *l;

	assert_non_null(rec);
	l = strdup(json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	assert_non_null(l);
	json_object_put(rec);
	return l;
}

/* ---- live and replay ---- */

/* The rule of each alert line; "repeats: R" for the alert_summary of R. */
static void assert_rules(const struct ut_mem_output *m, const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	if (m->n != n) {
		for (size_t i = 0; i < m->n; i++)
			print_message("alert %zu: %s\n", i, m->lines[i]);
		fail_msg("%zu alerts, expected %zu", m->n, n);
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = ut_mem_record(m, i);
		bool summary = strncmp(want[i], "repeats: ", 9) == 0;

		assert_string_equal(ut_str(a, "type"), summary ? "alert_summary" : "alert");
		if (strcmp(ut_str(a, "rule"), want[i] + (summary ? 9 : 0)) != 0)
			fail_msg("alert %zu is '%s', expected '%s'", i, ut_str(a, "rule"), want[i]);
		json_object_put(a);
	}
}

/* Ids are "<instance>-<sequence>", the instance random per run: x it out
 * wherever an id appears (id, alert_id, a summary's text). */
static void forget_instances(char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(l[i]);

		for (size_t k = 0; k + 33 <= len; k++) {
			size_t h = 0;

			while (h < 16 && isxdigit((unsigned char)l[i][k + h]))
				h++;
			if (h == 16 && l[i][k + 16] == '-' && strspn(l[i] + k + 17, "0123456789abcdef") >= 16)
				memset(l[i] + k, 'x', 16);
		}
	}
}

static void assert_same_lines(char *const *a, size_t na, char *const *b, size_t nb)
{
	forget_instances(a, na);
	forget_instances(b, nb);
	for (size_t i = 0; i < na && i < nb; i++) {
		size_t k = 0;

		while (a[i][k] && a[i][k] == b[i][k])
			k++;
		if (a[i][k] || b[i][k])
			fail_msg("alert %zu differs at byte %zu:\nlive:   ...%.80s\nreplay: ...%.80s", i, k,
				 a[i] + (k > 40 ? k - 40 : 0), b[i] + (k > 40 ? k - 40 : 0));
	}
	assert_int_equal(na, nb);
}

static const char hostile_exe[] = "/tmp/x\r\nALERT Emergency forged\x1b]0;t\x07q\"uo\\te\xff";
static const char hostile_cmd[] = "curl http://x/\n{\"type\":\"alert\",\"rule\":\"forged\"}\x1b[2J\xff\"";
static const char hostile_path[] = "/etc/\xff\xfe\"pid\":1\n{\"type\":\"forged\"}\\x41";

static void test_pipeline_alerts_are_the_same_live_and_replayed_from_records(void **state)
{
	struct fx *f = *state;
	struct alerts *live = NULL, *replay = NULL;
	struct ut_mem_output *lo = ut_mem_output__new(), *ro = ut_mem_output__new();
	struct pl_output *louts[1] = {&lo->base}, *routs[1] = {&ro->base};
	struct sample_buf *buf = NULL;
	const char *paths[1] = {PL_RULES_SOURCE_DIR};
	struct alerts_opts ao = {.paths = paths, .npaths = 1, .id_instance = 1};
	struct proc_info sshd = {.tgid = 4242}, app = {.tgid = 5000}, py = {.tgid = 6000}, curl = {.tgid = 7000},
			 cat = {.tgid = 8000}, evil = {.tgid = 9000}, evil_curl = {.tgid = 9001};
	struct pl_sample s[8];
	size_t n = 0;
	static const char *const want[] = {
	    "Unexpected CPU in authentication",
	    "Process far outside its baseline",
	    "Open retry storm",
	    "Open retry storm across processes of one binary",
	    "CPU runaway",
	    "Build tool executed a new binary",
	    "Build tool ran a network tool",
	    "Open retry storm in a short-lived process",
	    "Build tool ran a network tool",
	    NULL,
	};

	assert_int_equal(alerts__open(&ao, &live), 0);
	assert_int_equal(alerts__open(&ao, &replay), 0);
	assert_int_equal(sample_buf__new(&buf), 0);

	/* an sshd login that spent 600 ms on CPU where its baseline says 20 (p99 40) */
	sshd.exe = "/usr/sbin/sshd";
	sshd.binary_id = "build-id:5511";
	sshd.parent_exe = "/usr/sbin/sshd";
	sshd.cmdline = "sshd: alice [priv]";
	memcpy(sshd.exec_comm, "sshd", 5);
	sample(f, &s[n], PL_AT_EXIT, &sshd, T0, n);
	ended(&s[n], 700 * MS, 600 * MS, 400);
	f->sc[n][syscall_number("write")] = 300;
	f->sc[n][syscall_number("openat")] = 200;
	s[n].life.syscalls += 500;
	s[n].life.runq_ns = 5 * MS;
	s[n].exit_code = 255;
	s[n].ancestors[0] = "/usr/sbin/sshd";
	s[n].ancestors[1] = "/usr/lib/systemd/systemd";
	s[n].nancestors = 2;
	s[n].bl.key = "build-id:5511@build-id:5511";
	s[n].bl.ready = true;
	s[n].bl.samples = 40;
	s[n].bl.q[PL_LIFE_CPU][0] = 20 * MS;
	s[n].bl.q[PL_LIFE_CPU][1] = 30 * MS;
	s[n].bl.q[PL_LIFE_CPU][2] = 40 * MS;
	s[n].bl.scored = true;
	s[n].bl.anomalous = true;
	s[n].bl.f[PL_LIFE_CPU] = (struct pl_score){true, 600e6, 20e6, 40e6, 30, 15, 12.5};
	s[n].bl.f[PL_LIFE_WALL] = (struct pl_score){true, 700e6, 100e6, 150e6, 7, 700.0 / 150, 3.25};
	s[n].bl.max_dist = PL_LIFE_CPU;
	s[n].bl.max_score = 12.5;
	n++;

	/* a retry storm: 5000 failed opens this second, 99 % on one path; 6 processes of the binary */
	app.exe = "/opt/app/bin/app";
	app.binary_id = "build-id:a99";
	app.cmdline = "app --serve";
	memcpy(app.exec_comm, "app", 4);
	sample(f, &s[n], PL_AT_WINDOW, &app, T0, n);
	window(&s[n], T0 + 10 * SEC, 300 * MS, 200);
	f->sc[n][syscall_number("openat")] = 5000;
	s[n].win.syscalls += 5000;
	s[n].win.open_fail = 5000;
	f->errnos[n][2] = 5000;
	s[n].life.open_fail = 20000;
	f->fails[n][0] = (struct pl_fail){.path = "/etc/app/flags.json", .err = 2, .count = 19800, .truncated = true};
	f->fails[n][1] = (struct pl_fail){.path = "/etc/app/b", .err = 13, .count = 200};
	s[n].fails = f->fails[n];
	s[n].nfails = s[n].fail_paths = 2;
	s[n].bin = (struct pl_bin){.present = true,
				   .procs = 6,
				   .open_failures_per_s = 6000,
				   .top_fail_path = "/etc/app/flags.json",
				   .top_fail_share = 0.9};
	n++;

	/* a runaway: 42 s in a row on a core, a baseline not ready yet */
	py.exe = "/usr/bin/python3.12";
	py.binary_id = "build-id:b0b";
	py.cmdline = "python3 regex.py";
	memcpy(py.exec_comm, "python3", 8);
	sample(f, &s[n], PL_AT_WINDOW, &py, T0, n);
	window(&s[n], T0 + 42 * SEC, SEC, 3);
	s[n].life.cpu_ns = 42 * SEC;
	s[n].busy_s = 42;
	s[n].bl.key = "build-id:b0b@-";
	s[n].bl.samples = 5;
	n++;

	/* make executed curl, which its ready baseline had never seen it run */
	curl.exe = "/usr/bin/curl";
	curl.binary_id = "build-id:c0de";
	curl.parent_exe = "/usr/bin/make";
	curl.cmdline = "curl -sS https://example.com/x.sh";
	memcpy(curl.exec_comm, "curl", 5);
	sample(f, &s[n], PL_AT_EXEC, &curl, T0 + 50 * SEC, n);
	s[n].ancestors[0] = "/usr/bin/make";
	s[n].ancestors[1] = NULL;
	s[n].nancestors = 2;
	s[n].bl.key = "build-id:c0de@build-id:make";
	s[n].bl.parent_ready = s[n].bl.parent_new_child = true;
	n++;

	/* a quiet exit: nothing to say */
	cat.exe = "/usr/bin/cat";
	cat.binary_id = "build-id:ca7";
	cat.cmdline = "cat /etc/hostname";
	memcpy(cat.exec_comm, "cat", 4);
	sample(f, &s[n], PL_AT_EXIT, &cat, T0 + 60 * SEC, n);
	ended(&s[n], 2 * MS, 1 * MS, 40);
	n++;

	/* hostile bytes everywhere a process can put them: a short-lived storm ... */
	evil.exe = (char *)hostile_exe;
	evil.binary_id = "sha256:e0";
	evil.cmdline = (char *)hostile_cmd;
	evil.parent_exe = (char *)hostile_exe;
	memcpy(evil.exec_comm, "x\n\x1b\"\\", 6);
	sample(f, &s[n], PL_AT_EXIT, &evil, T0 + 70 * SEC, n);
	ended(&s[n], 100 * MS, 50 * MS, 10);
	s[n].life.open_fail = 400;
	f->fails[n][0] = (struct pl_fail){.path = hostile_path, .err = 2, .count = 400};
	s[n].fails = f->fails[n];
	s[n].nfails = s[n].fail_paths = 1;
	s[n].ancestors[0] = hostile_exe;
	s[n].nancestors = 1;
	n++;
	/* ... and a network tool run by a "make" of its own */
	evil_curl.exe = "/usr/bin/curl";
	evil_curl.binary_id = "sha256:c1";
	evil_curl.cmdline = (char *)hostile_cmd;
	evil_curl.parent_exe = "/tmp/\x1b[2J\n/make";
	memcpy(evil_curl.exec_comm, "curl", 5);
	sample(f, &s[n], PL_AT_EXEC, &evil_curl, T0 + 80 * SEC, n);
	n++;

	for (size_t i = 0; i < n; i++) {
		char *line = line_of_record(&s[i]);
		struct json_object *back;
		struct pl_sample parsed;
		int ml, mr;

		back = json_tokener_parse(line);
		assert_non_null(back);
		assert_int_equal(sample_json__parse(back, buf, &parsed), 0);
		ml = alerts__eval(live, &s[i], s[i].time_ns, louts, 1);
		mr = alerts__eval(replay, &parsed, s[i].time_ns, routs, 1);
		assert_int_equal(ml, mr);
		json_object_put(back);
		free(line);
	}
	assert_rules(lo, want);
	assert_same_lines(lo->lines, lo->n, ro->lines, ro->n);

	output__free(&lo->base);
	output__free(&ro->base);
	sample_buf__free(buf);
	alerts__free(live);
	alerts__free(replay);
}

/* fn(argc, argv) with stdout captured (malloc'd); *ret gets its return. */
static char *capture(int (*fn)(int, char **), char **argv, int *ret)
{
	char path[] = "/tmp/plumbline-pipeout-XXXXXX", *out;
	int fd = mkstemp(path), saved, argc = 0;

	while (argv[argc])
		argc++;
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0 && dup2(fd, STDOUT_FILENO) >= 0);
	*ret = fn(argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	close(fd);
	out = ut_read_file(path, NULL);
	assert_non_null(out);
	unlink(path);
	return out;
}

/* The lines of text, split in place. */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;

	for (char *p = text; *p && n < max;) {
		char *nl = strchr(p, '\n');

		assert_non_null(nl); /* every line ends */
		*nl = '\0';
		lines[n++] = p;
		p = nl + 1;
	}
	return n;
}

/*
 * A whole run: the pipeline with a real learner and the shipped rules, its
 * records to a file, its alerts to memory; then `plumbline replay --json`
 * of the file. Baselines get ready on the way, so the verdicts and the
 * learning are the learner's, and so is the difference between a record
 * (written after learning) and the sample the rules judged (before).
 */
static void test_pipeline_recorded_run_replays_to_the_same_alerts(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.exec_records = true, .process_records = true, .window_records = true};
	struct pl_output *file = NULL, *outs[1] = {&f->out->base};
	char *argv[] = {"replay", f->records, "--rules", PL_RULES_SOURCE_DIR, "--json", NULL};
	struct proc_info *listener, *pi, *make, *app;
	struct pl_sample s;
	uint64_t t = T0;
	char *out, *lines[64];
	size_t nlines;
	int r;
	static const char *const want[] = {
	    "Unexpected CPU in authentication",
	    "Process far outside its baseline",
	    "Build tool executed a new binary",
	    "Build tool ran a network tool",
	    "Build tool executed a new binary",
	    "Build tool ran a network tool",
	    /* the storm, far above the window baseline the quiet seconds made ready */
	    "Open retry storm",
	    "Running process far outside its baseline",
	    /* again after the storm rule's throttle (60 s), within the deviation's (300 s):
	     * the storm's window first says what it held back */
	    "repeats: Open retry storm",
	    "Open retry storm",
	    "CPU runaway",
	    "Open retry storm in a short-lived process",
	    /* the end: every window still holding repeats says so, oldest first */
	    "repeats: Build tool executed a new binary",
	    "repeats: Build tool ran a network tool",
	    "repeats: Running process far outside its baseline",
	    "repeats: CPU runaway",
	    NULL,
	};

	open_pipeline(f, PL_RULES_SOURCE_DIR, &o);
	assert_int_equal(jsonl_output__open(f->records, &file), 0);
	pipeline__set_outputs(f->pipe, file, outs, 1);

	/* four quiet sshd logins make its baseline ready; the fifth spends 30x the CPU */
	listener = image(f, 100, 1, "/usr/sbin/sshd", "build-id:5511", NULL, "sshd -D");
	for (int i = 0; i < 5; i++, t += 10 * SEC) {
		pi = image(f, 200 + i, 100, "/usr/sbin/sshd", "build-id:5511", listener, "sshd: alice [priv]");
		sample(f, &s, PL_AT_EXEC, pi, t, 0);
		run(f, &s, pi, LIVE_EXEC);
		sample(f, &s, PL_AT_EXIT, pi, t, 0);
		ended(&s, 100 * MS, i < 4 ? 20 * MS + i * MS : 600 * MS, 500);
		run(f, &s, pi, LIVE_EXIT);
	}

	/* make runs cc three times (its baseline learns the child), then curl, twice */
	for (int i = 0; i < 6; i++, t += 10 * SEC) {
		struct proc_info *child;

		make = image(f, 300 + i, 1, "/usr/bin/make", "build-id:3a4e", NULL, "make all");
		sample(f, &s, PL_AT_EXEC, make, t, 0);
		run(f, &s, make, LIVE_EXEC);
		child = i < 3 ? image(f, 400 + i, 300 + i, "/usr/bin/cc", "build-id:cc", make, "cc -c x.c")
			      : image(f, 400 + i, 300 + i, "/usr/bin/curl", "build-id:c0de", make,
				      i == 3 ? "curl -sS https://example.com/x.sh" : hostile_cmd);
		learner__child(f->learn, make, child, false);
		sample(f, &s, PL_AT_EXEC, child, t + MS, 1);
		run(f, &s, child, LIVE_EXEC);
		sample(f, &s, PL_AT_EXIT, child, t + MS, 1);
		ended(&s, 50 * MS, 10 * MS, 100);
		run(f, &s, child, LIVE_EXIT);
		sample(f, &s, PL_AT_EXIT, make, t, 0);
		ended(&s, 100 * MS, 30 * MS, 300);
		run(f, &s, make, LIVE_EXIT);
		/* the second curl comes after the first one's throttle (an hour) */
		t += i == 3 ? 3600 * SEC : 0;
	}

	/* a service's windows: a first one (not scored), quiet ones, a storm, the storm again
	 * within the rule's throttle and after it, then a runaway */
	app = image(f, 500, 1, "/opt/app/bin/app", "build-id:a99", NULL, "app --serve");
	sample(f, &s, PL_AT_EXEC, app, t, 0);
	run(f, &s, app, LIVE_EXEC);
	for (int i = 0; i < 12; i++) {
		bool storm = i == 4 || i == 5 || i == 7, busy = i >= 8;
		uint64_t start = t + (uint64_t)i * SEC + (i >= 7 ? 60 * SEC : 0);

		sample(f, &s, PL_AT_WINDOW, app, t, 0);
		window(&s, start, busy ? SEC : 10 * MS, 100);
		s.busy_s = busy ? 30 + (i - 8) : 0;
		if (storm) {
			s.win.open_fail = 4000;
			f->errnos[0][2] = 4000;
			s.life.open_fail = 4000 * (uint64_t)(i - 3);
			f->fails[0][0] =
			    (struct pl_fail){.path = hostile_path, .err = 2, .count = s.life.open_fail - 10};
			f->fails[0][1] = (struct pl_fail){.path = "/etc/app/b", .err = 13, .count = 10};
			s.fails = f->fails[0];
			s.nfails = s.fail_paths = 2;
		}
		run(f, &s, app, i == 0 ? (PIPE_JUDGE | PIPE_RECORD) : LIVE_WINDOW);
	}
	t += 120 * SEC;

	/* a short-lived storm, judged; the same as a step and at shutdown, not judged */
	for (int i = 0; i < 3; i++, t += SEC) {
		pi = image(f, 600 + i, 500, "/opt/app/bin/app", "build-id:a99", app, "app --worker");
		if (i == 1)
			pi->flags = PL_PROC_FORKED;
		sample(f, &s, PL_AT_EXIT, pi, t, 0);
		ended(&s, 100 * MS, 50 * MS, 10);
		s.life.open_fail = 400;
		f->fails[0][0] = (struct pl_fail){.path = hostile_path, .err = 2, .count = 400};
		s.fails = f->fails[0];
		s.nfails = s.fail_paths = 1;
		if (i == 1) {
			s.end_reason = "exec";
			s.has_exit_code = false;
		} else if (i == 2) {
			s.end_reason = "running";
			s.has_exit_code = false;
		}
		run(f, &s, pi, i == 0 ? LIVE_EXIT : i == 1 ? LIVE_STEP : LIVE_RUNNING);
	}
	output__free(file);
	pipeline__set_outputs(f->pipe, NULL, outs, 1);
	/* replay ends its windows at its last record's time; so does this run */
	pipeline__finish(f->pipe, t - SEC + 100 * MS); /* the last record: the running one's end */

	assert_rules(f->out, want);
	out = capture(cmd_replay, argv, &r);
	assert_int_equal(r, 0);
	nlines = split_lines(out, lines, 64);
	assert_same_lines(f->out->lines, f->out->n, lines, nlines);
	free(out);
}

/* ---- the steps ---- */

static void test_pipeline_exec_is_judged_but_never_scored(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.exec_records = true, .process_records = true, .window_records = true};
	struct proc_info *pi;
	struct pl_sample s;
	struct json_object *rec, *bl;

	open_pipeline(f, f->rules, &o);
	pi = image(f, 10, 1, "/usr/bin/tool", "build-id:70", NULL, "tool --fire");
	sample(f, &s, PL_AT_EXEC, pi, T0, 0);
	/* even when asked to score: an exec has nothing to score */
	run(f, &s, pi, LIVE_EXEC | PIPE_SCORE | PIPE_LEARN);
	assert_rules(f->out, (const char *const[]){"Exec asked to fire", NULL});
	assert_false(s.bl.scored);
	assert_int_equal(f->recs->n, 1);
	rec = record(f, 0);
	assert_string_equal(ut_str(rec, "type"), "exec");
	bl = ut_obj(rec, "baseline");
	assert_string_equal(ut_str(bl, "key"), "build-id:70@-");
	assert_false(ut_bool(bl, "ready"));
	assert_int_equal(ut_u64(bl, "samples"), 0);
	ut_absent(bl, "anomalous");
	ut_absent(bl, "learned");
	ut_absent(bl, "features");
	json_object_put(rec);
	assert_int_equal(pi->bl->samples, 0);
	assert_int_equal(pi->bl->windows, 0);
	assert_int_equal(pipeline__stats(f->pipe)->exec_records, 1);
}

/* Four quiet windows make the baseline ready and are learned; the next one,
 * the same but for a rule that fires on it, is not. */
static void test_pipeline_window_is_learned_unless_a_rule_fires(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.window_records = true};
	struct proc_info *pi, *fire;
	struct pl_sample s;
	struct json_object *rec, *bl;
	struct learner_counts lc;

	open_pipeline(f, f->rules, &o);
	pi = image(f, 10, 1, "/usr/bin/svc", "build-id:5c", NULL, "svc");
	fire = image(f, 11, 1, "/usr/bin/svc", "build-id:5c", NULL, "svc --fire");
	assert_ptr_equal(pi->bl, fire->bl); /* one binary in one context: one baseline */
	for (int i = 0; i < 4; i++) {
		sample(f, &s, PL_AT_WINDOW, pi, T0, 0);
		window(&s, T0 + (uint64_t)i * SEC, 100 * MS, 1000);
		run(f, &s, pi, LIVE_WINDOW);
		assert_true(s.bl.scored);
		assert_true(s.bl.learned);
	}
	assert_int_equal(pi->bl->windows, 4);
	sample(f, &s, PL_AT_WINDOW, fire, T0, 0);
	window(&s, T0 + 4 * SEC, 100 * MS, 1000);
	run(f, &s, fire, LIVE_WINDOW);
	assert_rules(f->out, (const char *const[]){"Window asked to fire", NULL});
	assert_true(s.bl.scored);
	assert_false(s.bl.anomalous); /* the same window: only the rule kept it out */
	assert_false(s.bl.learned);
	assert_int_equal(pi->bl->windows, 4);
	assert_int_equal(pi->bl->quarantined, 1);

	assert_int_equal(f->recs->n, 5);
	for (size_t i = 0; i < 5; i++) {
		rec = record(f, i);
		bl = ut_obj(rec, "baseline");
		assert_int_equal(ut_bool(bl, "learned"), i < 4);
		/* windows ready once three were learned: the fourth and fifth were scored against them */
		assert_int_equal(ut_bool(bl, "windows_ready"), i >= 3);
		assert_int_equal(json_object_object_length(ut_obj(bl, "features")) > 0, i >= 3);
		/* and no lifetime learned: what rules read as baseline.ready */
		assert_false(ut_bool(bl, "ready"));
		assert_int_equal(ut_u64(bl, "samples"), 0);
		assert_false(ut_bool(bl, "anomalous"));
		json_object_put(rec);
	}
	learner__counts(f->learn, &lc);
	assert_int_equal(lc.window_samples, 4);
	assert_int_equal(lc.process_samples, 0);
	assert_int_equal(pipeline__stats(f->pipe)->window_records, 5);
}

static void test_pipeline_exit_is_learned_unless_a_rule_fires(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.process_records = true};
	struct proc_info *pi;
	struct pl_sample s;
	struct json_object *rec;

	open_pipeline(f, f->rules, &o);
	for (int i = 0; i < 5; i++) {
		pi = image(f, 10 + i, 1, "/usr/bin/job", "build-id:j0b", NULL, i == 4 ? "job --fire" : "job");
		sample(f, &s, PL_AT_EXIT, pi, T0 + (uint64_t)i * SEC, 0);
		ended(&s, 10 * MS, 5 * MS, 100);
		run(f, &s, pi, LIVE_EXIT);
		assert_int_equal(s.bl.learned, i < 4);
	}
	assert_rules(f->out, (const char *const[]){"Exit asked to fire", NULL});
	assert_int_equal(pi->bl->samples, 4);
	rec = record(f, 4);
	assert_false(ut_bool(ut_obj(rec, "baseline"), "learned"));
	assert_false(ut_bool(ut_obj(rec, "baseline"), "anomalous"));
	json_object_put(rec);
	assert_int_equal(pipeline__stats(f->pipe)->process_records, 5);
}

/* A fork child's step to exec: written, neither scored, nor judged, nor learned. */
static void test_pipeline_step_is_written_but_neither_scored_nor_judged(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.process_records = true};
	struct proc_info *pi;
	struct pl_sample s;
	struct json_object *rec, *bl;

	open_pipeline(f, f->rules, &o);
	pi = image(f, 10, 1, "/usr/bin/sh", "build-id:5h", NULL, "sh -c tool --fire");
	pi->flags = PL_PROC_FORKED;
	sample(f, &s, PL_AT_EXIT, pi, T0, 0);
	ended(&s, 1 * MS, 1 * MS, 20);
	s.end_reason = "exec";
	s.has_exit_code = false;
	run(f, &s, pi, LIVE_STEP);
	assert_int_equal(f->out->n, 0);
	assert_int_equal(f->recs->n, 1);
	assert_false(s.bl.scored);
	rec = record(f, 0);
	assert_string_equal(ut_str(rec, "end_reason"), "exec");
	assert_string_equal(ut_str(rec, "image"), "fork");
	/* the baseline's state, for what it's worth, but no verdict */
	bl = ut_obj(rec, "baseline");
	ut_absent(bl, "anomalous");
	ut_absent(bl, "learned");
	json_object_put(rec);
	assert_int_equal(pi->bl->samples, 0);
}

/* Without baselines, a step's record has none at all. */
static void test_pipeline_without_learner_or_rules_only_writes(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.exec_records = true, .process_records = true, .window_records = true};
	struct pl_output *outs[1] = {&f->out->base};
	struct proc_info *pi;
	struct pl_sample s;
	struct json_object *rec;

	assert_int_equal(pipeline__new(&o, NULL, NULL, &f->pipe), 0);
	pipeline__set_outputs(f->pipe, &f->recs->base, outs, 1);
	pi = image(f, 10, 1, "/usr/bin/sh", "build-id:5h", NULL, "sh --fire");
	sample(f, &s, PL_AT_EXIT, pi, T0, 0);
	ended(&s, 1 * MS, 1 * MS, 20);
	run(f, &s, pi, LIVE_EXIT);
	sample(f, &s, PL_AT_EXIT, pi, T0, 0);
	ended(&s, 1 * MS, 1 * MS, 20);
	run(f, &s, pi, LIVE_STEP);
	assert_int_equal(f->out->n, 0);
	assert_int_equal(f->recs->n, 2);
	for (size_t i = 0; i < 2; i++) {
		rec = record(f, i);
		ut_null(rec, "baseline");
		json_object_put(rec);
	}
}

/* A process still running at shutdown: its verdict in its record, but it
 * is no exit to judge, nor a finished sample to learn. */
static void test_pipeline_running_exit_is_scored_but_neither_learned_nor_judged(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.process_records = true};
	struct proc_info *pi;
	struct pl_sample s;
	struct json_object *rec, *bl;
	struct learner_counts lc;

	open_pipeline(f, f->rules, &o);
	for (int i = 0; i < 3; i++) {
		pi = image(f, 10 + i, 1, "/usr/bin/d", "build-id:d", NULL, "d");
		sample(f, &s, PL_AT_EXIT, pi, T0, 0);
		ended(&s, 10 * MS, 5 * MS, 100);
		run(f, &s, pi, LIVE_EXIT);
	}
	assert_int_equal(pi->bl->samples, 3);
	pi = image(f, 20, 1, "/usr/bin/d", "build-id:d", NULL, "d --fire");
	sample(f, &s, PL_AT_EXIT, pi, T0, 0);
	ended(&s, 10 * MS, 5 * MS, 100);
	s.end_reason = "running";
	s.has_exit_code = false;
	run(f, &s, pi, LIVE_RUNNING);
	assert_int_equal(f->out->n, 0);
	assert_true(s.bl.scored);
	assert_false(s.bl.learned);
	assert_int_equal(pi->bl->samples, 3);
	rec = record(f, 3);
	assert_string_equal(ut_str(rec, "end_reason"), "running");
	bl = ut_obj(rec, "baseline");
	assert_true(ut_bool(bl, "ready"));
	assert_false(ut_bool(bl, "learned"));
	assert_false(ut_bool(bl, "anomalous"));
	assert_true(json_object_object_length(ut_obj(bl, "features")) > 0);
	json_object_put(rec);
	learner__counts(f->learn, &lc);
	assert_int_equal(lc.process_samples, 3);
}

static void test_pipeline_writes_records_only_for_the_moments_asked_for(void **state)
{
	struct fx *f = *state;
	struct pipeline_opts o = {.process_records = true};
	struct proc_info *pi;
	struct pl_sample s;
	struct json_object *rec;
	const struct pipeline_stats *st;

	open_pipeline(f, NULL, &o);
	pi = image(f, 10, 1, "/usr/bin/w", "build-id:77", NULL, "w");
	/* nothing to judge, no exec or window records: exec and window samples are not wanted */
	assert_false(pipeline__wants(f->pipe, PL_AT_EXEC));
	assert_false(pipeline__wants(f->pipe, PL_AT_WINDOW));
	assert_true(pipeline__wants(f->pipe, PL_AT_EXIT));
	sample(f, &s, PL_AT_EXEC, pi, T0, 0);
	run(f, &s, pi, LIVE_EXEC);
	sample(f, &s, PL_AT_WINDOW, pi, T0, 0);
	window(&s, T0, 10 * MS, 10);
	run(f, &s, pi, LIVE_WINDOW);
	/* scored and learned all the same: learning doesn't wait for a record */
	assert_true(s.bl.scored);
	assert_int_equal(pi->bl->windows, 1);
	sample(f, &s, PL_AT_EXIT, pi, T0, 0);
	ended(&s, 2 * SEC, 20 * MS, 10);
	/* a step that asks for no record is not written */
	run(f, &s, pi, PIPE_SCORE | PIPE_LEARN);
	assert_int_equal(f->recs->n, 0);
	run(f, &s, pi, LIVE_EXIT);
	assert_int_equal(f->recs->n, 1);
	rec = record(f, 0);
	assert_string_equal(ut_str(rec, "type"), "process");
	json_object_put(rec);
	st = pipeline__stats(f->pipe);
	assert_int_equal(st->exec_records, 0);
	assert_int_equal(st->window_records, 0);
	assert_int_equal(st->process_records, 1);

	/* with rules at exec, an exec sample is wanted for them, though not written */
	pipeline__free(f->pipe);
	f->pipe = NULL;
	f->rule_paths[0] = f->rules;
	f->ao = (struct alerts_opts){.paths = f->rule_paths, .npaths = 1};
	assert_int_equal(alerts__open(&f->ao, &f->alerts), 0);
	assert_int_equal(pipeline__new(&o, f->learn, f->alerts, &f->pipe), 0);
	assert_true(pipeline__wants(f->pipe, PL_AT_EXEC));
	/* and no JSON output at all: no records, whatever was asked */
	pipeline__set_outputs(f->pipe, NULL, NULL, 0);
	run(f, &s, pi, LIVE_EXIT);
	assert_int_equal(pipeline__stats(f->pipe)->process_records, 0);
}

/* Records of a sensor that wrote no exec records: an exec'd image's
 * process record is judged as its exec, then as its exit; with exec
 * records, each moment is judged once, from its own record. */
static void test_pipeline_replay_judges_the_exec_of_a_process_record_without_exec_records(void **state)
{
	struct fx *f = *state;
	char *argv[] = {"replay", f->records, "--rules", f->rules, "--json", NULL};
	struct proc_info *pi;
	struct pl_sample e, x;
	char *out, *lines[8], *l;
	int r;
	FILE *fp;

	pi = image(f, 10, 1, "/usr/bin/tool", "build-id:70", NULL, "tool --fire");
	sample(f, &e, PL_AT_EXEC, pi, T0, 0);
	sample(f, &x, PL_AT_EXIT, pi, T0, 1);
	ended(&x, 10 * MS, 1 * MS, 10);

	fp = fopen(f->records, "we");
	assert_non_null(fp);
	l = line_of_record(&x);
	fprintf(fp, "%s\n", l);
	free(l);
	fclose(fp);
	out = capture(cmd_replay, argv, &r);
	assert_int_equal(r, 0);
	assert_int_equal(split_lines(out, lines, 8), 2);
	assert_non_null(strstr(lines[0], "\"rule\":\"Exec asked to fire\""));
	assert_non_null(strstr(lines[0], "\"time_ns\":1700000000000000000,"));
	assert_non_null(strstr(lines[1], "\"rule\":\"Exit asked to fire\""));
	free(out);

	fp = fopen(f->records, "we");
	assert_non_null(fp);
	l = line_of_record(&e);
	fprintf(fp, "%s\n", l);
	free(l);
	l = line_of_record(&x);
	fprintf(fp, "%s\n", l);
	free(l);
	fclose(fp);
	out = capture(cmd_replay, argv, &r);
	assert_int_equal(r, 0);
	assert_int_equal(split_lines(out, lines, 8), 2);
	assert_non_null(strstr(lines[0], "\"rule\":\"Exec asked to fire\""));
	assert_non_null(strstr(lines[1], "\"rule\":\"Exit asked to fire\""));
	free(out);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_pipeline_alerts_are_the_same_live_and_replayed_from_records),
	    T(test_pipeline_recorded_run_replays_to_the_same_alerts),
	    T(test_pipeline_exec_is_judged_but_never_scored),
	    T(test_pipeline_window_is_learned_unless_a_rule_fires),
	    T(test_pipeline_exit_is_learned_unless_a_rule_fires),
	    T(test_pipeline_step_is_written_but_neither_scored_nor_judged),
	    T(test_pipeline_without_learner_or_rules_only_writes),
	    T(test_pipeline_running_exit_is_scored_but_neither_learned_nor_judged),
	    T(test_pipeline_writes_records_only_for_the_moments_asked_for),
	    T(test_pipeline_replay_judges_the_exec_of_a_process_record_without_exec_records),
	};
#undef T

	log_set_level(LOG_LVL_WARN);
	return cmocka_run_group_tests_name("pipeline", tests, NULL, NULL);
}
