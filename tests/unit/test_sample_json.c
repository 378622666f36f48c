// SPDX-License-Identifier: MIT
/*
 * test_sample_json.c - samples to records and back (outputs/sample_json.c).
 *
 * The writer: every field of exec, window and process records written from
 * hand-built samples, with exact values; strings from processes escaped
 * exactly once, so that no byte a process controls can forge a line or a
 * field. The parser: a record read back is the sample that was written, as
 * far as every rule field can see (each field id compared through
 * rl_field__num/str/list); writing it again gives the same record; older
 * records and hostile input never crash and leave unknown what they don't
 * say.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fields.h"
#include "sample.h"
#include "sample_json.h"
#include "syscalls.h"
#include "textsafe.h"

#include "record_helpers.h"

#define T0 1700000000000000000ull /* a REALTIME ns stamp */

struct fx {
	unsigned long long life_sc[PL_SAMPLE_NR_SYSCALLS], win_sc[PL_SAMPLE_NR_SYSCALLS];
	unsigned long long life_errno[PL_SAMPLE_NR_ERRNO], win_errno[PL_SAMPLE_NR_ERRNO];
	struct pl_fail fails[3];
	struct pl_oncpu_obj objs[2];
	struct pl_oncpu oncpu;
	struct pl_sample exec, win, exit;
	struct sample_buf *buf;
	int nr_read, nr_close, nr_getppid, nr_openat;
	int nr_hole;	/* a number below 512 without a name */
	int errno_hole; /* an errno below 63 without a name */
};

static const char *const identity_keys[] = {
    "pid",	 "ppid",    "uid",	"comm",	    "exec_comm",	  "exe",
    "exe_dev",	 "exe_ino", "build_id", "filename", "filename_truncated", "cmdline",
    "cgroup_id", "cgroup",  "image",	"partial",  "exe_kind", "exe_trusted", "exe_mtime_ns",
    "exe_memfd_copy_of", "stdin_pipe", "stdin_writer", "exe_net_written", "connected", "start_ns", "image_start_ns",
    "threads",	 "script", NULL};
static const char *const span_keys[] = {
    "cpu_ns",		"offcpu_ns",	  "runq_ns",	   "blocked_ns",	 "ctx_switches",	 "syscalls",
    "syscalls_by_name", "syscalls_other", "open_failures", "open_fail_by_errno", "open_fail_unrecorded",
    "connects", "connect_failures", "connect_new_dests", NULL};

/* The keys of a record: type, identity, `mid`, span, `tail` (NULL-terminated lists). */
static void record_keys(const char **out, size_t cap, const char *const *mid, bool span, const char *const *tail)
{
	size_t n = 0;

	out[n++] = "type";
	for (size_t i = 0; identity_keys[i]; i++)
		out[n++] = identity_keys[i];
	for (size_t i = 0; mid && mid[i]; i++)
		out[n++] = mid[i];
	for (size_t i = 0; span && span_keys[i]; i++)
		out[n++] = span_keys[i];
	for (size_t i = 0; tail && tail[i]; i++)
		out[n++] = tail[i];
	assert_true(n < cap);
	out[n] = NULL;
}

/* ---- the samples ---- */

static void identity(struct pl_sample *s)
{
	s->pid = 4242;
	s->ppid = 4000;
	s->uid = 1000;
	s->comm = "worker";
	s->exec_comm = "worker-0";
	s->exe = "/usr/bin/worker";
	s->filename = "./worker";
	s->filename_truncated = true;
	s->cmdline = "worker --serve";
	s->script = "/srv/worker.py";
	s->build_id = "0123abcd";
	s->binary_id = "build-id:0123abcd";
	s->cgroup = "/system.slice/worker.service";
	s->cgroup_id = 77;
	s->exe_dev = (253u << 20) | 0x12345; /* "253:74565": the minor has 20 bits */
	s->exe_ino = 123456;
	s->image = PL_IMAGE_EXEC;
	s->exe_kind = "memfd";
	s->exe_mtime_ns = T0 - 5000000000ull;
	s->exe_trusted_known = true;
	s->exe_trusted = true;
	s->exe_memfd_copy_of = "/usr/bin/worker";
	s->stdin_pipe = true;
	s->stdin_writer = "/usr/bin/curl";
	s->exe_net_written_known = true;
	s->exe_net_written = true;
	s->connected = true;
	s->start_ns = T0 + 1000;
	s->image_start_ns = T0 + 2000;
	s->threads = 3;
	s->parent_exe = "/usr/sbin/sshd";
	s->ancestors[0] = "/usr/sbin/sshd";
	s->ancestors[1] = NULL; /* an ancestor whose path is unknown */
	s->ancestors[2] = "/sbin/init";
	s->nancestors = 3;
}

/* The baseline's state: ready lifetimes and windows, quantiles of every distribution rules read. */
static void state(struct pl_sample *s)
{
	static const enum pl_dist ds[] = {PL_LIFE_CPU,	     PL_LIFE_WALL, PL_LIFE_OFFCPU,  PL_LIFE_SYSCALLS,
					  PL_LIFE_OPEN_FAIL, PL_WIN_CPU,   PL_WIN_SYSCALLS, PL_WIN_OPEN_FAIL};

	s->bl.key = "build-id:0123abcd@build-id:feed";
	s->bl.ready = true;
	s->bl.windows_ready = true;
	s->bl.samples = 25;
	s->bl.parent_ready = true;
	s->bl.parent_new_child = true;
	for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		/* ns distributions in whole ms (+0.25 ms), counts whole */
		double unit =
		    ds[i] == PL_LIFE_CPU || ds[i] == PL_LIFE_WALL || ds[i] == PL_LIFE_OFFCPU || ds[i] == PL_WIN_CPU
			? 1e6
			: 1;

		s->bl.q[ds[i]][0] = (10 + i) * unit + unit / 4;
		s->bl.q[ds[i]][1] = (20 + i) * unit;
		s->bl.q[ds[i]][2] = (40 + i) * unit;
		/* the fleet's view of the key: a wider spread of the same */
		s->bl.fleet.q[ds[i]][0] = (5 + i) * unit + unit / 2;
		s->bl.fleet.q[ds[i]][1] = (30 + i) * unit;
		s->bl.fleet.q[ds[i]][2] = (80 + i) * unit;
	}
	s->bl.fleet.present = s->bl.fleet.ready = s->bl.fleet.windows_ready = true;
	s->bl.fleet.samples = 300;
	s->bl.fleet.hosts = 12;
	s->bl.fleet.role = "ssh";
}

static void feature(struct pl_sample *s, enum pl_dist d, double value, double p50, double p99, double score)
{
	s->bl.f[d] = (struct pl_score){
	    .valid = true,
	    .value = value,
	    .p50 = p50,
	    .p99 = p99,
	    .ratio_p50 = value / p50,
	    .ratio_p99 = value / p99,
	    .score = score,
	};
	if (s->bl.max_dist < 0 || score > s->bl.max_score) {
		s->bl.max_score = score;
		s->bl.max_dist = d;
	}
	/* and against the fleet's: twice the median, the same score plus one */
	s->bl.fleet.scored = true;
	s->bl.fleet.f[d] = s->bl.f[d];
	s->bl.fleet.f[d].p50 = 2 * p50;
	s->bl.fleet.f[d].ratio_p50 = value / (2 * p50);
	s->bl.fleet.f[d].score = score + 1;
}

static int setup(void **state_)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct pl_sample *s;

	assert_non_null(f);
	f->nr_read = syscall_number("read");
	f->nr_close = syscall_number("close");
	f->nr_getppid = syscall_number("getppid");
	f->nr_openat = syscall_number("openat");
	assert_true(f->nr_read >= 0 && f->nr_close >= 0 && f->nr_getppid >= 0 && f->nr_openat >= 0);
	f->nr_hole = -1;
	for (int i = PL_SAMPLE_NR_SYSCALLS - 1; i >= 0 && f->nr_hole < 0; i--)
		if (!syscall_name((unsigned)i))
			f->nr_hole = i;
	f->errno_hole = -1;
	for (int e = 1; e < PL_SAMPLE_NR_ERRNO - 1 && f->errno_hole < 0; e++)
		if (!errno_name(e))
			f->errno_hole = e;
	assert_int_equal(sample_buf__new(&f->buf), 0);

	/* the image: 5 getppid, 9 openat, 2 read, 2 close, 4 beyond 512 */
	f->life_sc[f->nr_getppid] = 5;
	f->life_sc[f->nr_openat] = 9;
	f->life_sc[f->nr_read] = 2;
	f->life_sc[f->nr_close] = 2;
	/* 6 failed opens: 5 ENOENT + 1 EACCES, every one with its path listed */
	f->life_errno[2] = 5;
	f->life_errno[13] = 1;
	f->fails[0] = (struct pl_fail){.path = "/etc/worker.conf", .err = 2, .count = 5};
	f->fails[1] = (struct pl_fail){.path = "/root/secret", .err = 13, .count = 1, .truncated = true};

	s = &f->exec;
	pl_sample__init(s, PL_AT_EXEC);
	identity(s);
	state(s);
	s->time_ns = s->image_start_ns;

	s = &f->exit;
	pl_sample__init(s, PL_AT_EXIT);
	identity(s);
	state(s);
	s->end_ns = s->time_ns = T0 + 9000;
	s->end_reason = "exit";
	s->has_exit_code = true;
	s->exit_code = 3;
	s->auth = (struct pl_auth){ .present = true, .failed = true, .failures = 5, .failures_per_min = 150, .successes = 1 };
	s->life = (struct pl_span){.cpu_ns = 5000000,
				   .offcpu_ns = 3000,
				   .runq_ns = 1000,
				   .ctx_switches = 7,
				   .syscalls = 22,
				   .sc_other = 4,
				   .open_fail = 6,
				   .sc = f->life_sc,
				   .fail_errno = f->life_errno};
	s->fails = f->fails;
	s->nfails = s->fail_paths = 2;
	s->bin = (struct pl_bin){.present = true,
				 .procs = 3,
				 .open_failures_per_s = 12.5,
				 .top_fail_path = "/etc/worker.conf",
				 .top_fail_share = 0.8,
				 .storm_path = "/etc/worker.d/flags.json",
				 .storm_paths = "/etc/worker.d/flags.json, /usr/share/locale/C/LC_MESSAGES/libc.mo",
				 .storm_procs = 3,
				 .storm_failures_per_s = 3.0};
	s->bl.scored = true;
	s->bl.anomalous = true;
	s->bl.samples = 24; /* the samples behind the baseline that scored it */
	feature(s, PL_LIFE_CPU, 5e6, 2e6, 4e6, 9.5);
	feature(s, PL_LIFE_WALL, 7000, 5000, 9000, 0.5);
	feature(s, PL_LIFE_OFFCPU, 3000, 2000, 8000, 0.75);
	feature(s, PL_LIFE_SYSCALLS, 22, 20, 30, 0.25);
	feature(s, PL_LIFE_OPEN_FAIL, 6, 4, 16, 1.5);
	s->bl.new_fail_paths[0] = "/root/secret";
	s->bl.nnew_fail_paths = 1;
	s->bl.new_syscalls[0] = "getppid";
	s->bl.nnew_syscalls = 1;
	/* 40 samples: 30 in the program, 10 in a library it never ran in */
	f->objs[0] = (struct pl_oncpu_obj){.object = "/usr/sbin/sshd", .build_id = "0123abcd", .samples = 30};
	f->objs[1] = (struct pl_oncpu_obj){.object = "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1", .samples = 10};
	f->oncpu = (struct pl_oncpu){.samples = 41,
				     .unattributed = 3,
				     .unatt_ring = 2,
				     .unatt_table = 1,
				     .rate_hz = 49,
				     .objs = f->objs,
				     .nobjs = 2};
	s->oncpu = &f->oncpu;
	s->bl.oncpu_ready = true;
	s->bl.new_oncpu_objects[0] = "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1";
	s->bl.nnew_oncpu_objects = 1;
	s->bl.new_oncpu_samples = 10;

	s = &f->win;
	pl_sample__init(s, PL_AT_WINDOW);
	identity(s);
	state(s);
	s->win_start_ns = T0 + 1000000000ull;
	s->win_end_ns = s->time_ns = T0 + 2000000000ull;
	/* the window: 300 read and 300 openat (tie: read's number is lower), 250 failed opens */
	f->win_sc[f->nr_openat] = 300;
	f->win_sc[f->nr_read] = 300;
	f->win_errno[2] = 200;
	f->win_errno[PL_SAMPLE_NR_ERRNO - 1] = 50; /* errno >= 63 */
	s->win = (struct pl_span){.cpu_ns = 950000000,
				  .offcpu_ns = 40000000,
				  .runq_ns = 15000000,
				  .ctx_switches = 11,
				  .syscalls = 600,
				  .open_fail = 250,
				  .open_fail_unrecorded = 7,
				  .sc = f->win_sc,
				  .fail_errno = f->win_errno};
	s->life = f->exit.life;
	s->life.cpu_ns = 20000000000ull;
	s->life.open_fail = 1000;
	f->fails[2] = (struct pl_fail){.path = "/etc/app/flags.json", .err = 2, .count = 900, .truncated = true};
	s->fails = f->fails;
	s->nfails = 3;
	s->fail_paths = 5; /* more keys than listed */
	s->busy_s = 12.5;
	s->recent_s = 20;
	s->recent_busy_ns = 17000000000ull;
	s->recent_cpu_ns = 15000000000ull;
	s->clones = 3;
	s->clone_ns = 600000000ull;
	s->bin = f->exit.bin;
	s->bl.scored = true;
	s->bl.learned = true;
	s->bl.samples = 70;
	feature(s, PL_WIN_CPU, 950e6, 100e6, 300e6, 6.5);
	feature(s, PL_WIN_SYSCALLS, 600, 500, 800, 0.125);
	feature(s, PL_WIN_OPEN_FAIL, 250, 0, 3, 4.125); /* a median of 0: the ratio is not finite */
	*state_ = f;
	return 0;
}

static int teardown(void **state_)
{
	struct fx *f = *state_;

	sample_buf__free(f->buf);
	free(f);
	return 0;
}

/* The record of s, as a line is written (JSONL flags) and read back. */
static struct json_object *written(const struct pl_sample *s)
{
	struct json_object *o = sample_json__record(s), *back;

	assert_non_null(o);
	back = json_tokener_parse(
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	assert_non_null(back);
	json_object_put(o);
	return back;
}

static char *line_of(const struct pl_sample *s)
{
	struct json_object *o = sample_json__record(s);
	char *l;

	assert_non_null(o);
	l = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	assert_non_null(l);
	return l;
}

static void assert_identity(struct json_object *o)
{
	assert_int_equal(ut_u64(o, "pid"), 4242);
	assert_int_equal(ut_u64(o, "ppid"), 4000);
	assert_int_equal(ut_u64(o, "uid"), 1000);
	assert_string_equal(ut_str(o, "comm"), "worker");
	assert_string_equal(ut_str(o, "exec_comm"), "worker-0");
	assert_string_equal(ut_str(o, "exe"), "/usr/bin/worker");
	assert_string_equal(ut_str(o, "exe_dev"), "253:74565");
	assert_int_equal(ut_u64(o, "exe_ino"), 123456);
	assert_string_equal(ut_str(o, "build_id"), "0123abcd");
	assert_string_equal(ut_str(o, "filename"), "./worker");
	assert_true(ut_bool(o, "filename_truncated"));
	assert_string_equal(ut_str(o, "cmdline"), "worker --serve");
	assert_int_equal(ut_u64(o, "cgroup_id"), 77);
	assert_string_equal(ut_str(o, "cgroup"), "/system.slice/worker.service");
	assert_string_equal(ut_str(o, "image"), "exec");
	assert_false(ut_bool(o, "partial"));
	assert_int_equal(ut_u64(o, "start_ns"), T0 + 1000);
	assert_int_equal(ut_u64(o, "image_start_ns"), T0 + 2000);
	assert_int_equal(ut_u64(o, "threads"), 3);
	/* context */
	assert_string_equal(ut_str(o, "binary_id"), "build-id:0123abcd");
	assert_string_equal(ut_str(o, "parent_exe"), "/usr/sbin/sshd");
	{
		static const char *const anc[] = {"/usr/sbin/sshd", "<null>", "/sbin/init", NULL};

		ut_strings(ut_arr(o, "ancestors"), anc);
	}
}

/* ---- the writer ---- */

static void test_sample_json_exec_record_has_identity_time_context_and_baseline_state(void **state)
{
	struct fx *f = *state;
	struct json_object *o = written(&f->exec), *bl, *q, *e;
	static const char *const mid[] = {"time_ns", "binary_id", "parent_exe", "ancestors", "baseline", NULL};
	static const char *const bl_keys[] = {
	    "key", "ready", "source", "samples", "windows_ready", "parent_ready", "parent_new_child", "peers_ready", "peers_never", "quantiles", "fleet", NULL};
	static const char *const q_keys[] = {"cpu_ms",	     "wall_ms",		  "offcpu_ms",
					     "syscalls",     "open_failures",	  "win_cpu_ms",
					     "win_syscalls", "win_open_failures", NULL};
	const char *keys[64];

	record_keys(keys, 64, mid, false, NULL);
	ut_keys(o, keys);
	assert_string_equal(ut_str(o, "type"), "exec");
	assert_identity(o);
	assert_int_equal(ut_u64(o, "time_ns"), T0 + 2000);

	/* at exec the baseline's state only: nothing scored */
	bl = ut_obj(o, "baseline");
	ut_keys(bl, bl_keys);
	assert_string_equal(ut_str(bl, "key"), "build-id:0123abcd@build-id:feed");
	assert_true(ut_bool(bl, "ready"));
	assert_int_equal(ut_u64(bl, "samples"), 25);
	assert_true(ut_bool(bl, "windows_ready"));
	assert_true(ut_bool(bl, "parent_ready"));
	assert_true(ut_bool(bl, "parent_new_child"));
	q = ut_obj(bl, "quantiles");
	ut_keys(q, q_keys);
	/* in the rules' units: ms for times (10.25 ms from 10250000 ns), counts as they are */
	e = ut_obj(q, "cpu_ms");
	assert_true(ut_dbl(e, "p50") == 10.25);
	assert_true(ut_dbl(e, "p90") == 20);
	assert_true(ut_dbl(e, "p99") == 40);
	e = ut_obj(q, "syscalls");
	assert_true(ut_dbl(e, "p50") == 13.25);
	assert_true(ut_dbl(e, "p99") == 43);
	e = ut_obj(q, "win_cpu_ms");
	assert_true(ut_dbl(e, "p50") == 15.25);
	e = ut_obj(q, "win_open_failures");
	assert_true(ut_dbl(e, "p99") == 47);
	json_object_put(o);
}

static void test_sample_json_process_record_has_exact_identity_fields(void **state)
{
	struct fx *f = *state;
	struct json_object *o = written(&f->exit);
	static const char *const mid[] = {"end_ns", "duration_ns", "end_reason", "exit_code", "exit_signal", "auth", NULL};
	static const char *const tail[] = {"open_fail_paths", "open_fail_paths_incomplete", "oncpu",
					   "binary_id",	      "parent_exe",
					   "ancestors",	      "binary",
					   "baseline",	      NULL};
	static const char *const oncpu_keys[] = {"samples", "unattributed", "unattributed_by", "rate_hz", "objects", NULL};
	static const char *const by_keys[] = {"sample_ring_full", "stack_table_full", NULL};
	const char *keys[64];

	record_keys(keys, 64, mid, true, tail);
	ut_keys(o, keys);
	assert_string_equal(ut_str(o, "type"), "process");
	ut_keys(ut_obj(o, "oncpu"), oncpu_keys);
	assert_int_equal(ut_u64(ut_obj(o, "oncpu"), "samples"), 41);
	assert_int_equal(ut_u64(ut_obj(o, "oncpu"), "unattributed"), 3);
	ut_keys(ut_obj(ut_obj(o, "oncpu"), "unattributed_by"), by_keys);
	assert_int_equal(ut_u64(ut_obj(ut_obj(o, "oncpu"), "unattributed_by"), "sample_ring_full"), 2);
	assert_int_equal(ut_u64(ut_obj(ut_obj(o, "oncpu"), "unattributed_by"), "stack_table_full"), 1);
	assert_identity(o);
	assert_int_equal(ut_u64(o, "end_ns"), T0 + 9000);
	assert_int_equal(ut_u64(o, "duration_ns"), 7000);
	assert_string_equal(ut_str(o, "end_reason"), "exit");
	json_object_put(o);
}

static void test_sample_json_process_record_has_exit_code_or_signal_never_both(void **state)
{
	struct fx *f = *state;
	struct pl_sample s = f->exit;
	struct json_object *o;

	o = written(&s);
	assert_int_equal(ut_i64(o, "exit_code"), 3);
	ut_null(o, "exit_signal");
	json_object_put(o);

	s.exit_code = 0;
	o = written(&s);
	assert_int_equal(ut_i64(o, "exit_code"), 0); /* 0 is a code, not a missing one */
	ut_null(o, "exit_signal");
	json_object_put(o);

	s.has_exit_code = false;
	s.has_exit_signal = true;
	s.exit_signal = 9;
	o = written(&s);
	ut_null(o, "exit_code");
	assert_int_equal(ut_i64(o, "exit_signal"), 9);
	json_object_put(o);

	/* an image replaced by exec, or still running at shutdown: neither */
	s.has_exit_signal = false;
	s.end_reason = "running";
	o = written(&s);
	assert_string_equal(ut_str(o, "end_reason"), "running");
	ut_null(o, "exit_code");
	ut_null(o, "exit_signal");
	json_object_put(o);
}

static void test_sample_json_process_record_span_is_exact(void **state)
{
	struct fx *f = *state;
	struct json_object *o = written(&f->exit);

	assert_int_equal(ut_u64(o, "cpu_ns"), 5000000);
	assert_int_equal(ut_u64(o, "offcpu_ns"), 3000);
	assert_int_equal(ut_u64(o, "runq_ns"), 1000);
	assert_int_equal(ut_u64(o, "blocked_ns"), 2000);
	assert_int_equal(ut_u64(o, "ctx_switches"), 7);
	assert_int_equal(ut_u64(o, "syscalls"), 22);
	assert_int_equal(ut_u64(o, "syscalls_other"), 4);
	assert_int_equal(ut_u64(o, "open_failures"), 6);
	assert_int_equal(ut_u64(o, "open_fail_unrecorded"), 0);
	json_object_put(o);

	/* run-queue time above off-CPU time (counters read apart): blocked is 0, never a wrapped number */
	f->exit.life.runq_ns = 5000;
	o = written(&f->exit);
	assert_int_equal(ut_u64(o, "blocked_ns"), 0);
	json_object_put(o);
}

static void test_sample_json_syscalls_by_name_sorted_by_count_then_number(void **state)
{
	struct fx *f = *state;
	struct json_object *o = written(&f->exit), *by;
	/* ties (read, close: 2 each) by number: read before close */
	static const char *const names[] = {"openat", "getppid", "read", "close", NULL};
	static const uint64_t counts[] = {9, 5, 2, 2};
	size_t i = 0;

#if defined(__x86_64__)
	assert_int_equal(f->nr_read, 0);
	assert_int_equal(f->nr_close, 3);
#endif
	assert_true(f->nr_read < f->nr_close);
	by = ut_obj(o, "syscalls_by_name");
	ut_keys(by, names);
	json_object_object_foreach(by, k, v)
	{
		(void)k;
		assert_int_equal(json_object_get_uint64(v), counts[i]);
		i++;
	}
	json_object_put(o);

	/* the window's own: a tie of 300, read first */
	o = written(&f->win);
	{
		static const char *const wn[] = {"read", "openat", NULL};

		ut_keys(ut_obj(o, "syscalls_by_name"), wn);
	}
	json_object_put(o);
}

static void test_sample_json_syscall_without_a_name_is_sys_nr(void **state)
{
	struct fx *f = *state;
	unsigned long long sc[PL_SAMPLE_NR_SYSCALLS] = {0};
	struct json_object *o;
	char want[32];
	const char *keys[] = {want, "read", NULL};

	if (f->nr_hole < 0)
		skip();
	sc[f->nr_hole] = 7;
	sc[f->nr_read] = 1;
	f->exit.life.sc = sc;
	o = written(&f->exit);
	snprintf(want, sizeof(want), "sys_%d", f->nr_hole);
	ut_keys(ut_obj(o, "syscalls_by_name"), keys);
	assert_int_equal(ut_u64(ut_obj(o, "syscalls_by_name"), want), 7);
	json_object_put(o);

	/* and no per-number counts at all (a record without them): an empty object */
	f->exit.life.sc = NULL;
	o = written(&f->exit);
	assert_int_equal(json_object_object_length(ut_obj(o, "syscalls_by_name")), 0);
	json_object_put(o);
}

static void test_sample_json_open_fail_by_errno_by_name_with_other_last(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *by;
	char hole[16];
	const char *keys[] = {"ENOENT", "EACCES", hole, "other", NULL};

	if (f->errno_hole < 0)
		skip();
	snprintf(hole, sizeof(hole), "E%d", f->errno_hole);
	f->life_errno[f->errno_hole] = 4;
	f->life_errno[PL_SAMPLE_NR_ERRNO - 1] = 1;
	f->life_errno[0] = 99; /* slot 0 is no errno: never written */
	o = written(&f->exit);
	by = ut_obj(o, "open_fail_by_errno");
	ut_keys(by, keys);
	assert_int_equal(ut_u64(by, "ENOENT"), 5);
	assert_int_equal(ut_u64(by, "EACCES"), 1);
	assert_int_equal(ut_u64(by, hole), 4);
	assert_int_equal(ut_u64(by, "other"), 1);
	json_object_put(o);
}

static void test_sample_json_open_fail_paths_list_every_path_and_say_when_incomplete(void **state)
{
	struct fx *f = *state;
	struct json_object *o = written(&f->exit), *paths, *e;
	static const char *const ekeys[] = {"path", "errno", "errno_name", "count", "truncated", NULL};

	paths = ut_arr(o, "open_fail_paths");
	assert_int_equal(json_object_array_length(paths), 2);
	e = json_object_array_get_idx(paths, 0);
	ut_keys(e, ekeys);
	assert_string_equal(ut_str(e, "path"), "/etc/worker.conf");
	assert_int_equal(ut_i64(e, "errno"), 2);
	assert_string_equal(ut_str(e, "errno_name"), "ENOENT");
	assert_int_equal(ut_u64(e, "count"), 5);
	assert_false(ut_bool(e, "truncated"));
	e = json_object_array_get_idx(paths, 1);
	assert_string_equal(ut_str(e, "path"), "/root/secret");
	assert_int_equal(ut_i64(e, "errno"), 13);
	assert_string_equal(ut_str(e, "errno_name"), "EACCES");
	assert_int_equal(ut_u64(e, "count"), 1);
	assert_true(ut_bool(e, "truncated"));
	/* 5 + 1 listed of 6 */
	assert_false(ut_bool(o, "open_fail_paths_incomplete"));
	json_object_put(o);

	/* one path listed: 5 of 6 */
	f->exit.nfails = 1;
	o = written(&f->exit);
	assert_true(ut_bool(o, "open_fail_paths_incomplete"));
	json_object_put(o);

	/* both listed, one more failure whose path did not fit the kernel's table */
	f->exit.nfails = 2;
	f->exit.life.open_fail = 7;
	f->exit.life.open_fail_unrecorded = 1;
	o = written(&f->exit);
	assert_true(ut_bool(o, "open_fail_paths_incomplete"));
	assert_int_equal(ut_u64(o, "open_fail_unrecorded"), 1);
	json_object_put(o);

	/* counts read while running can exceed the total read just before: incomplete too */
	f->exit.life.open_fail = 5;
	o = written(&f->exit);
	assert_true(ut_bool(o, "open_fail_paths_incomplete"));
	json_object_put(o);

	/* no failures, no paths: complete, an empty list */
	f->exit.nfails = 0;
	f->exit.life.open_fail = 0;
	o = written(&f->exit);
	assert_int_equal(json_object_array_length(ut_arr(o, "open_fail_paths")), 0);
	assert_false(ut_bool(o, "open_fail_paths_incomplete"));
	json_object_put(o);
}

static void test_sample_json_window_record_has_deltas_total_busy_and_binary(void **state)
{
	struct fx *f = *state;
	struct json_object *o = written(&f->win), *t, *b;
	static const char *const mid[] = {"window_start_ns", "window_end_ns", NULL};
	static const char *const tail[] = {"binary_id", "parent_exe", "ancestors", "binary",
					   "total",	"busy_s", "recent", "baseline", NULL};
	static const char *const total_keys[] = {
	    "cpu_ns",	      "offcpu_ns",	    "runq_ns", "blocked_ns", "syscalls",      "open_failures",
	    "ctx_switches",   "syscalls_by_name",   "connects", "connect_failures", "connect_new_dests",
	    "threads", "fail_paths", "top_fail_path", "top_fail_count",
	    "top_fail_errno", "top_fail_truncated", NULL};
	static const char *const bin_keys[] = {"procs", "open_failures_per_s", "top_fail_path", "top_fail_share", "storm_path", "storm_paths", "storm_procs", "storm_failures_per_s", "storm_new_binary", NULL};
	static const char *const errno_keys[] = {"ENOENT", "other", NULL};
	const char *keys[64];

	record_keys(keys, 64, mid, true, tail);
	ut_keys(o, keys);
	assert_string_equal(ut_str(o, "type"), "window");
	assert_identity(o);
	assert_int_equal(ut_u64(o, "window_start_ns"), T0 + 1000000000ull);
	assert_int_equal(ut_u64(o, "window_end_ns"), T0 + 2000000000ull);
	/* the window's own counts */
	assert_int_equal(ut_u64(o, "cpu_ns"), 950000000);
	assert_int_equal(ut_u64(o, "offcpu_ns"), 40000000);
	assert_int_equal(ut_u64(o, "runq_ns"), 15000000);
	assert_int_equal(ut_u64(o, "blocked_ns"), 25000000);
	assert_int_equal(ut_u64(o, "ctx_switches"), 11);
	assert_int_equal(ut_u64(o, "syscalls"), 600);
	assert_int_equal(ut_u64(o, "syscalls_other"), 0);
	assert_int_equal(ut_u64(o, "open_failures"), 250);
	assert_int_equal(ut_u64(o, "open_fail_unrecorded"), 7);
	ut_keys(ut_obj(o, "open_fail_by_errno"), errno_keys);
	assert_int_equal(ut_u64(ut_obj(o, "open_fail_by_errno"), "ENOENT"), 200);
	assert_int_equal(ut_u64(ut_obj(o, "open_fail_by_errno"), "other"), 50);
	/* the image so far: what rules read as proc.* */
	t = ut_obj(o, "total");
	ut_keys(t, total_keys);
	assert_int_equal(ut_u64(t, "cpu_ns"), 20000000000ull);
	assert_int_equal(ut_u64(t, "offcpu_ns"), 3000);
	assert_int_equal(ut_u64(t, "runq_ns"), 1000);
	assert_int_equal(ut_u64(t, "blocked_ns"), 2000);
	assert_int_equal(ut_u64(t, "syscalls"), 22);
	assert_int_equal(ut_u64(t, "open_failures"), 1000);
	assert_int_equal(ut_u64(t, "ctx_switches"), 7);
	assert_int_equal(ut_u64(ut_obj(t, "syscalls_by_name"), "openat"), 9);
	assert_int_equal(ut_u64(t, "threads"), 3);
	assert_int_equal(ut_u64(t, "fail_paths"), 5);
	/* the listed path that failed most, whatever its place in the list */
	assert_string_equal(ut_str(t, "top_fail_path"), "/etc/app/flags.json");
	assert_int_equal(ut_u64(t, "top_fail_count"), 900);
	assert_int_equal(ut_i64(t, "top_fail_errno"), 2);
	assert_true(ut_bool(t, "top_fail_truncated"));
	assert_true(ut_dbl(o, "busy_s") == 12.5);
	b = ut_obj(o, "binary");
	ut_keys(b, bin_keys);
	assert_int_equal(ut_u64(b, "procs"), 3);
	assert_true(ut_dbl(b, "open_failures_per_s") == 12.5);
	assert_string_equal(ut_str(b, "top_fail_path"), "/etc/worker.conf");
	assert_true(ut_dbl(b, "top_fail_share") == 0.8);
	json_object_put(o);

	/* no listed path: the top is null, and so are its count and errno */
	f->win.nfails = 0;
	f->win.bin.top_fail_path = NULL;
	f->win.bin.top_fail_share = NAN;
	o = written(&f->win);
	t = ut_obj(o, "total");
	ut_null(t, "top_fail_path");
	ut_null(t, "top_fail_count");
	ut_null(t, "top_fail_errno");
	ut_null(t, "top_fail_truncated");
	ut_null(ut_obj(o, "binary"), "top_fail_path");
	ut_null(ut_obj(o, "binary"), "top_fail_share");
	json_object_put(o);

	/* the binary without activity in the last second: null */
	f->win.bin.present = false;
	o = written(&f->win);
	ut_null(o, "binary");
	json_object_put(o);
}

static void test_sample_json_baseline_is_state_at_exec_and_a_verdict_at_window_and_exit(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *bl, *feat, *e;
	static const char *const scored_keys[] = {"key",	  "ready",	  "source",
						  "from_prior",	  "samples",
						  "learned",	  "anomalous",
						  "max_score",	  "max_feature",
						  "features",	  "new_fail_paths",
						  "new_syscalls", "windows_ready",
						  "parent_ready", "parent_new_child",
						  "peers_ready", "peers_never",
						  "quantiles",	  "fleet",	  NULL};
	static const char *const exit_keys[] = {"key",	  "ready",	  "source",
						"from_prior",	  "samples",
						"learned",	  "anomalous",
						"max_score",	  "max_feature",
						"features",	  "new_fail_paths",
						"new_syscalls", "oncpu_ready", "new_oncpu_objects", "new_oncpu_samples",
						"windows_ready", "parent_ready", "parent_new_child",
						"peers_ready", "peers_never",
						"quantiles",	  "fleet",	  NULL};
	static const char *const fkeys[] = {"value", "p50", "p99", "ratio_p50", "ratio_p99", "score", NULL};
	static const char *const exit_features[] = {"cpu_ns",	"wall_ns",	 "offcpu_ns",
						    "syscalls", "open_failures", NULL};
	static const char *const win_features[] = {"cpu_ns_per_s", "syscalls_per_s", "open_failures_per_s", NULL};
	static const char *const new_paths[] = {"/root/secret", NULL};
	static const char *const new_sc[] = {"getppid", NULL};
	static const char *const none[] = {NULL};

	o = written(&f->exit);
	bl = ut_obj(o, "baseline");
	ut_keys(bl, exit_keys);
	assert_true(ut_bool(bl, "oncpu_ready"));
	assert_int_equal(ut_u64(bl, "new_oncpu_samples"), 10);
	assert_string_equal(ut_str(bl, "key"), "build-id:0123abcd@build-id:feed");
	assert_true(ut_bool(bl, "ready"));
	assert_false(ut_bool(bl, "from_prior"));
	assert_int_equal(ut_u64(bl, "samples"), 24);
	assert_false(ut_bool(bl, "learned"));
	assert_true(ut_bool(bl, "anomalous"));
	assert_true(ut_dbl(bl, "max_score") == 9.5);
	assert_string_equal(ut_str(bl, "max_feature"), "cpu_ns");
	feat = ut_obj(bl, "features");
	ut_keys(feat, exit_features);
	e = ut_obj(feat, "cpu_ns");
	ut_keys(e, fkeys);
	assert_true(ut_dbl(e, "value") == 5e6);
	assert_true(ut_dbl(e, "p50") == 2e6);
	assert_true(ut_dbl(e, "p99") == 4e6);
	assert_true(ut_dbl(e, "ratio_p50") == 2.5);
	assert_true(ut_dbl(e, "ratio_p99") == 1.25);
	assert_true(ut_dbl(e, "score") == 9.5);
	ut_strings(ut_arr(bl, "new_fail_paths"), new_paths);
	ut_strings(ut_arr(bl, "new_syscalls"), new_sc);
	assert_true(json_object_is_type(ut_obj(bl, "quantiles"), json_type_object));
	json_object_put(o);

	o = written(&f->win);
	bl = ut_obj(o, "baseline");
	ut_keys(bl, scored_keys);
	assert_true(ut_bool(bl, "learned"));
	assert_false(ut_bool(bl, "anomalous"));
	assert_int_equal(ut_u64(bl, "samples"), 70);
	assert_string_equal(ut_str(bl, "max_feature"), "cpu_ns_per_s");
	assert_true(ut_dbl(bl, "max_score") == 6.5);
	ut_keys(ut_obj(bl, "features"), win_features);
	/* a ratio over a median of 0 is not finite: null */
	ut_null(ut_obj(ut_obj(bl, "features"), "open_failures_per_s"), "ratio_p50");
	ut_strings(ut_arr(bl, "new_fail_paths"), none);
	json_object_put(o);

	/* scored against a baseline with nothing ready: no feature, no max */
	f->win.bl.max_dist = -1;
	f->win.bl.max_score = NAN;
	memset(f->win.bl.f, 0, sizeof(f->win.bl.f));
	o = written(&f->win);
	bl = ut_obj(o, "baseline");
	ut_null(bl, "max_score");
	ut_null(bl, "max_feature");
	assert_int_equal(json_object_object_length(ut_obj(bl, "features")), 0);
	json_object_put(o);

	/* not scored (a first window): the state only, as at exec */
	f->win.bl.scored = false;
	o = written(&f->win);
	bl = ut_obj(o, "baseline");
	ut_absent(bl, "anomalous");
	ut_absent(bl, "learned");
	ut_absent(bl, "from_prior");
	ut_absent(bl, "features");
	assert_true(ut_bool(bl, "ready"));
	json_object_put(o);

	/* no baseline attached: null, whatever else the verdict holds */
	f->exit.bl.key = NULL;
	o = written(&f->exit);
	ut_null(o, "baseline");
	json_object_put(o);
	f->exec.bl.key = NULL;
	o = written(&f->exec);
	ut_null(o, "baseline");
	json_object_put(o);
}

static void test_sample_json_unknown_strings_are_null_never_empty(void **state)
{
	struct pl_sample s;
	struct json_object *o;
	static const char *const strs[] = {"exec_comm", "exe",	     "build_id",   "filename",	 "cmdline",
					   "cgroup",	"binary_id", "parent_exe", "end_reason", NULL};

	(void)state;
	pl_sample__init(&s, PL_AT_EXIT);
	s.comm = "AAAAAAAAAAAAAAA";
	s.image = PL_IMAGE_PREEXISTING;
	s.partial = true;
	o = written(&s);
	for (size_t i = 0; strs[i]; i++)
		ut_null(o, strs[i]);
	assert_string_equal(ut_str(o, "comm"), "AAAAAAAAAAAAAAA");
	assert_string_equal(ut_str(o, "image"), "preexisting");
	assert_true(ut_bool(o, "partial"));
	assert_string_equal(ut_str(o, "exe_dev"), "0:0");
	assert_int_equal(json_object_array_length(ut_arr(o, "ancestors")), 0);
	ut_null(o, "binary");
	ut_null(o, "baseline");
	json_object_put(o);

	s.image = PL_IMAGE_FORK;
	o = written(&s);
	assert_string_equal(ut_str(o, "image"), "fork");
	json_object_put(o);
}

/* ---- escaping ---- */

/* The bytes a hostile process controls, and what they must become. */
static const char hostile[] = "/tmp/a\nb\"c\\d\xff\xfe{\"pid\":1,\"x\":\"\n{\"type\":\"forged\"}";
static const char hostile_escaped[] = "/tmp/a\\x0Ab\"c\\x5Cd\\xFF\\xFE{\"pid\":1,\"x\":\"\\x0A{\"type\":\"forged\"}";

static void test_sample_json_hostile_strings_cannot_forge_a_line_or_a_field(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *back;
	struct json_tokener *tok;
	const char *line, *keys[64];
	static const char *const mid[] = {"end_ns", "duration_ns", "end_reason", "exit_code", "exit_signal", "auth", NULL};
	static const char *const tail[] = {"open_fail_paths", "open_fail_paths_incomplete", "oncpu",
					   "binary_id",	      "parent_exe",
					   "ancestors",	      "binary",
					   "baseline",	      NULL};
	static const char *const ekeys[] = {"path", "errno", "errno_name", "count", "truncated", NULL};
	size_t len;

	f->fails[0].path = hostile;
	f->exit.exe = f->exit.cmdline = f->exit.comm = f->exit.parent_exe = hostile;
	f->exit.ancestors[1] = hostile;
	f->exit.bl.new_fail_paths[0] = hostile;
	f->exit.bin.top_fail_path = hostile;
	o = sample_json__record(&f->exit);
	assert_non_null(o);
	/* the JSONL backend's flags */
	line = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	assert_non_null(line);
	assert_int_equal(strlen(line), len);
	assert_null(memchr(line, '\n', len));
	assert_null(memchr(line, '\r', len));
	assert_null(memchr(line, '\x1b', len));

	tok = json_tokener_new();
	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, line, (int)len);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	assert_int_equal(json_tokener_get_parse_end(tok), len); /* nothing after the object */
	json_tokener_free(tok);
	assert_non_null(back);

	record_keys(keys, 64, mid, true, tail);
	ut_keys(back, keys);
	assert_string_equal(ut_str(back, "type"), "process");
	assert_int_equal(ut_u64(back, "pid"), 4242);
	assert_string_equal(ut_str(back, "exe"), hostile_escaped);
	assert_string_equal(ut_str(back, "cmdline"), hostile_escaped);
	assert_string_equal(ut_str(back, "comm"), hostile_escaped);
	assert_string_equal(ut_str(back, "parent_exe"), hostile_escaped);
	assert_string_equal(ut_str(ut_obj(back, "binary"), "top_fail_path"), hostile_escaped);
	{
		const char *anc[] = {"/usr/sbin/sshd", hostile_escaped, "/sbin/init", NULL};
		const char *np[] = {hostile_escaped, NULL};

		ut_strings(ut_arr(back, "ancestors"), anc);
		ut_strings(ut_arr(ut_obj(back, "baseline"), "new_fail_paths"), np);
	}
	ut_keys(json_object_array_get_idx(ut_arr(back, "open_fail_paths"), 0), ekeys);
	assert_string_equal(ut_str(json_object_array_get_idx(ut_arr(back, "open_fail_paths"), 0), "path"),
			    hostile_escaped);
	assert_int_equal(ut_i64(json_object_array_get_idx(ut_arr(back, "open_fail_paths"), 0), "errno"), 2);
	json_object_put(back);

	/* json_tokener_parse (the simple API replay uses) agrees */
	back = json_tokener_parse(line);
	assert_non_null(back);
	assert_string_equal(ut_str(back, "exe"), hostile_escaped);
	json_object_put(back);
	json_object_put(o);
}

/* An argument byte that is not UTF-8 is \xFF in the record, not \x5CxFF. */
static void test_sample_json_cmdline_argument_byte_is_escaped_once(void **state)
{
	static const char args[] = "/bin/tool\0--x\0\xff\0";
	struct fx *f = *state;
	char *cmdline = text_cmdline(args, sizeof(args) - 1);
	struct json_object *o;

	assert_non_null(cmdline);
	f->exit.cmdline = cmdline;
	o = written(&f->exit);
	assert_string_equal(ut_str(o, "cmdline"), "/bin/tool --x \\xFF");
	json_object_put(o);
	free(cmdline);
}

/* ---- the parser ---- */

/* a and b are the same sample to every rule field. */
static void assert_same_to_rules(const struct pl_sample *a, const struct pl_sample *b)
{
	for (int fid = 0; fid < RL_NFIELDS; fid++) {
		const struct rl_field_info *fi = rl_field__info(fid);
		const char *la[RL_LIST_MAX], *lb[RL_LIST_MAX];
		const char *sa, *sb;
		int na, nb;

		switch (fi->type) {
		case RL_T_NUM:
		case RL_T_BOOL:
			/* a [NAME] field: every syscall number, and those out of range */
			for (int p = -1; p < (fi->param ? PL_SAMPLE_NR_SYSCALLS + 1 : 0); p++) {
				double va = -1, vb = -1;
				bool ha = rl_field__num(a, fid, p, &va), hb = rl_field__num(b, fid, p, &vb);

				if (ha != hb || (ha && va != vb))
					fail_msg("%s[%d] at %s: %s %.17g, then %s %.17g", fi->name, p,
						 pl_moment__name(a->moment), ha ? "present" : "absent", va,
						 hb ? "present" : "absent", vb);
			}
			break;
		case RL_T_STR:
			sa = rl_field__str(a, fid);
			sb = rl_field__str(b, fid);
			if (!sa != !sb || (sa && strcmp(sa, sb) != 0))
				fail_msg("%s at %s: '%s', then '%s'", fi->name, pl_moment__name(a->moment),
					 sa ? sa : "(absent)", sb ? sb : "(absent)");
			break;
		case RL_T_STRLIST:
			na = rl_field__list(a, fid, la);
			nb = rl_field__list(b, fid, lb);
			if (na != nb)
				fail_msg("%s at %s: %d entries, then %d", fi->name, pl_moment__name(a->moment), na, nb);
			for (int i = 0; i < na; i++)
				if (!la[i] != !lb[i] || (la[i] && strcmp(la[i], lb[i]) != 0))
					fail_msg("%s[%d] differs", fi->name, i);
			break;
		}
	}
}

/* Written, read back as replay reads it: the sample's twin in f->buf. */
static void parse_back(struct fx *f, const struct pl_sample *s, struct pl_sample *ret)
{
	char *line = line_of(s);
	struct json_object *rec = json_tokener_parse(line);

	assert_non_null(rec);
	assert_int_equal(sample_json__parse(rec, f->buf, ret), 0);
	/* the sample's strings are copies in the buffer, not in the tree */
	json_object_put(rec);
	free(line);
}

static void round_trip(struct fx *f, const struct pl_sample *s)
{
	struct pl_sample back;
	char *first = line_of(s), *again;

	parse_back(f, s, &back);
	assert_int_equal(back.moment, s->moment);
	assert_same_to_rules(s, &back);
	/* and the record of what was read is the record that was read */
	again = line_of(&back);
	if (strcmp(first, again) != 0)
		fail_msg("written again differently:\n%s\n%s", first, again);
	free(first);
	free(again);
}

/* A parameter a [..] field has a value for: openat, or the root for a path prefix. */
static int param_for(const struct rl_field_info *fi)
{
	return fi->param_path ? rl_field__path_param("/", 1) : fi->param ? syscall_number("openat") : -1;
}

/* How many fields have a value in s (so that a comparison isn't of absences only). */
static int present(const struct pl_sample *s)
{
	int n = 0;

	for (int fid = 0; fid < RL_NFIELDS; fid++)
		n += rl_field__exists(s, fid, param_for(rl_field__info(fid)));
	return n;
}

/* Whether every field of the moment, but those listed, has a value in s. */
static void assert_rich(const struct pl_sample *s, const enum rl_field *absent, size_t nabsent)
{
	for (int fid = 0; fid < RL_NFIELDS; fid++) {
		const struct rl_field_info *fi = rl_field__info(fid);
		bool want = fi->kinds & (unsigned)s->moment, has;

		for (size_t i = 0; i < nabsent; i++)
			if (absent[i] == (enum rl_field)fid)
				want = false;
		has = rl_field__exists(s, fid, param_for(fi));
		if (has != want)
			fail_msg("%s at %s: %s", fi->name, pl_moment__name(s->moment), has ? "present" : "absent");
	}
}

static void test_sample_json_parse_gives_every_rule_field_of_rich_samples(void **state)
{
	struct fx *f = *state;
	static const enum rl_field exit_absent[] = {RL_F_PROC_EXIT_SIGNAL};
	/* only on windows whose wait was read */
	static const enum rl_field win_absent[] = {RL_F_PROC_WAITING_S, RL_F_PROC_STATE, RL_F_PROC_WCHAN,
						   RL_F_PROC_WAIT_FRAME, RL_F_PROC_WAIT_FRAMES};
	static const struct pl_wait wait = {
	    .waiting_s = 7.25, .state = 'S', .threads = 3, .runq = 1, .blocked = 1, .stopped = 1, .nt = 2,
	    .t = {{.tid = 41, .state = 'S', .wchan = "pipe_read", .stack_read = true, .nframes = 2,
		   .frames = {"pipe_read", "vfs_read"}},
		  {.tid = 42, .state = 'T', .stack_read = false}}};
	struct pl_sample s;

	/* the samples hold a value for every field of their moment */
	assert_rich(&f->exec, NULL, 0);
	assert_rich(&f->win, win_absent, 5);
	assert_rich(&f->exit, exit_absent, 1);
	round_trip(f, &f->exec);
	round_trip(f, &f->win);
	round_trip(f, &f->exit);

	/* a connect: the outcome of a first connect to one destination */
	{
		static const struct pl_net_ev net = {.addr = "2001:db8::7", .port = 4444, .family = 6,
						     .cls = "public", .outcome = "connected", .attempt_ns = T0 + 5,
						     .peer = "public:tcp/4444"};
		static const enum rl_field conn_absent[] = {RL_F_PROC_TOP_FAIL_PATH, RL_F_PROC_TOP_FAIL_COUNT,
							    RL_F_PROC_TOP_FAIL_SHARE};

		s = f->exec;
		s.moment = PL_AT_CONNECT;
		s.time_ns = T0 + 9;
		s.life = f->win.life;
		s.life.net_connects = 3;
		s.life.net_connect_fail = 1;
		s.life.net_dests = 2;
		s.net = &net;
		assert_rich(&s, conn_absent, 3);
		round_trip(f, &s);
	}

	/* a window of a waiting process, with what it waits on */
	s = f->win;
	s.wait = &wait;
	assert_rich(&s, NULL, 0);
	round_trip(f, &s);

	/* failures under an errno without a name, and beyond the last named one */
	s = f->exit;
	if (f->errno_hole > 0)
		f->life_errno[f->errno_hole] = 2;
	f->life_errno[PL_SAMPLE_NR_ERRNO - 1] = 3;
	round_trip(f, &s);
	f->life_errno[f->errno_hole > 0 ? f->errno_hole : 0] = 0;
	f->life_errno[PL_SAMPLE_NR_ERRNO - 1] = 0;

	/* killed by a signal; scored against a prior */
	s = f->exit;
	s.has_exit_code = false;
	s.has_exit_signal = true;
	s.exit_signal = 11;
	s.bl.from_prior = true;
	round_trip(f, &s);

	/* a preexisting image, partial, whose parent had run it before */
	s = f->win;
	s.image = PL_IMAGE_PREEXISTING;
	s.partial = true;
	s.bl.parent_new_child = false;
	round_trip(f, &s);
	s.image = PL_IMAGE_FORK;
	round_trip(f, &s);

	/* more ancestors than a rule lists, more new members than a verdict keeps */
	s = f->exit;
	for (uint32_t i = 0; i < PL_SAMPLE_ANCESTORS; i++)
		s.ancestors[i] = i % 2 ? "/usr/bin/bash" : NULL;
	s.nancestors = PL_SAMPLE_ANCESTORS;
	for (uint32_t i = 0; i < PL_SAMPLE_NEW_MAX; i++)
		s.bl.new_syscalls[i] = syscall_name(i);
	s.bl.nnew_syscalls = PL_SAMPLE_NEW_MAX;
	round_trip(f, &s);
}

/* Found by fuzz_json_out: the kernel stack frames of a waiting thread went
 * out unescaped, so a frame that was not valid UTF-8 made the whole record
 * invalid UTF-8 (records.md promises UTF-8). They are escaped like wchan,
 * and read back raw. */
static void test_sample_json_wait_frames_are_escaped_and_read_back_raw(void **state)
{
	struct fx *f = *state;
	static const struct pl_wait wait = {
	    .state = 'D', .threads = 1, .blocked = 1, .nt = 1,
	    .t = {{.tid = 7, .state = 'D', .wchan = "io\xff", .stack_read = true, .nframes = 2,
		   .frames = {"\xff\xfe\n[mod]", "a\\x41\"b"}, .stack_source = PL_WAIT_STACK_BPF}}};
	struct json_object *rec, *back, *frames;
	struct pl_sample s = f->win, t;
	const char *text;
	size_t len;

	s.wait = &wait;
	rec = sample_json__record(&s);
	assert_non_null(rec);
	text = json_object_to_json_string_length(rec, JSON_C_TO_STRING_PLAIN, &len);
	for (size_t i = 0; i < len; i++)
		assert_true((unsigned char)text[i] < 0x80); /* all of it ASCII here: the bytes escaped */
	back = json_tokener_parse(text);
	assert_non_null(back);
	frames = json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(json_object_object_get(back, "wait"), "waiting_threads"), 0),
	    "kernel_stack");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(frames, 0)), "\\xFF\\xFE\\x0A[mod]");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(frames, 1)), "a\\x5Cx41\"b");
	/* where the stack came from, kept through the round trip */
	assert_string_equal(json_object_get_string(json_object_object_get(
				    json_object_array_get_idx(json_object_object_get(json_object_object_get(back, "wait"),
										     "waiting_threads"),
							      0),
				    "stack_source")),
			    "bpf");
	assert_int_equal(sample_json__parse(back, f->buf, &t), 0);
	assert_non_null(t.wait);
	assert_int_equal(t.wait->t[0].nframes, 2);
	assert_string_equal(t.wait->t[0].frames[0], "\xff\xfe\n[mod]");
	assert_string_equal(t.wait->t[0].frames[1], "a\\x41\"b");
	assert_string_equal(t.wait->t[0].wchan, "io\xff");
	assert_int_equal(t.wait->t[0].stack_source, PL_WAIT_STACK_BPF);
	json_object_put(back);
	json_object_put(rec);
}

static void test_sample_json_parse_keeps_absent_what_the_sample_did_not_know(void **state)
{
	struct fx *f = *state;
	static const unsigned long long zeros[PL_SAMPLE_NR_SYSCALLS];
	struct pl_sample s, back;

	/* nothing known but the moment and the times (and counters, all 0:
	 * the sensor always has them) */
	pl_sample__init(&s, PL_AT_EXEC);
	round_trip(f, &s);
	pl_sample__init(&s, PL_AT_EXIT);
	s.end_ns = s.time_ns = T0;
	s.life.sc = s.life.fail_errno = zeros;
	round_trip(f, &s);
	parse_back(f, &s, &back);
	assert_null(rl_field__str(&back, RL_F_PROC_EXE));
	assert_null(rl_field__str(&back, RL_F_PROC_END_REASON));
	assert_null(rl_field__str(&back, RL_F_BL_KEY));
	assert_false(rl_field__exists(&back, RL_F_PROC_EXIT_CODE, -1));
	assert_false(rl_field__exists(&back, RL_F_BIN_PROCS, -1));
	assert_false(rl_field__exists(&back, RL_F_BL_READY, -1));
	assert_false(rl_field__exists(&back, RL_F_PROC_TOP_FAIL_PATH, -1));
	assert_int_equal(rl_field__list(&back, RL_F_PROC_APATH, (const char *[RL_LIST_MAX]){0}), 0);
	pl_sample__init(&s, PL_AT_WINDOW);
	s.life.sc = s.life.fail_errno = s.win.sc = s.win.fail_errno = zeros;
	s.win_start_ns = T0;
	s.win_end_ns = s.time_ns = T0 + 900000000;
	round_trip(f, &s);

	/* a window without a baseline, without a binary, whose top path has no errno */
	s = f->win;
	s.bl.key = NULL;
	s.bin.present = false;
	f->fails[2].err = 0;
	round_trip(f, &s);
	assert_true(present(&s) > 30);

	/* an unscored window: state, no verdict */
	s = f->win;
	s.bl.scored = false;
	round_trip(f, &s);

	/* a scored exit with nothing ready: no feature, no max, no new members */
	s = f->exit;
	s.bl.ready = s.bl.windows_ready = false;
	s.bl.max_dist = -1;
	s.bl.max_score = NAN;
	s.bl.nnew_fail_paths = s.bl.nnew_syscalls = 0;
	memset(s.bl.f, 0, sizeof(s.bl.f));
	for (int d = 0; d < PL_DIST_MAX; d++)
		s.bl.q[d][0] = s.bl.q[d][1] = s.bl.q[d][2] = NAN;
	round_trip(f, &s);
	parse_back(f, &s, &back);
	assert_true(back.bl.scored);
	assert_false(rl_field__exists(&back, RL_F_BL_MAX_SCORE, -1));
	assert_false(rl_field__exists(&back, RL_F_BL_CPU_MS_P50, -1));
	assert_int_equal(rl_field__list(&back, RL_F_BL_NEW_SYSCALLS, (const char *[RL_LIST_MAX]){0}), 0);
}

/* Rules see the raw bytes, the same at exec, window and exit, whatever the
 * escaping of the record: the parser undoes it once. */
static void test_sample_json_parse_gives_rules_the_raw_bytes_at_every_moment(void **state)
{
	static const char exe[] = "/tmp/q\"uo\\te\r\nALERT\x1b[2J\xc2\x9b\xe2\x80\xae\xff";
	static const char cmd[] = "q\"uo\\te \\x41 \xff";
	static const char comm[] = "a\\b\x1b";
	struct fx *f = *state;
	struct pl_sample *all[] = {&f->exec, &f->win, &f->exit}, back;

	f->fails[2].path = exe;
	for (size_t i = 0; i < 3; i++) {
		all[i]->exe = all[i]->filename = exe;
		all[i]->cmdline = cmd;
		all[i]->comm = comm;
	}
	f->exit.fails = &f->fails[2];
	f->exit.nfails = f->exit.fail_paths = 1;
	for (size_t i = 0; i < 3; i++) {
		parse_back(f, all[i], &back);
		assert_string_equal(rl_field__str(&back, RL_F_PROC_EXE), exe);
		assert_string_equal(rl_field__str(&back, RL_F_PROC_EXE_NAME),
				    "q\"uo\\te\r\nALERT\x1b[2J\xc2\x9b\xe2\x80\xae\xff");
		assert_string_equal(rl_field__str(&back, RL_F_PROC_CMDLINE), cmd);
		assert_string_equal(rl_field__str(&back, RL_F_PROC_FILENAME), exe);
		assert_string_equal(rl_field__str(&back, RL_F_PROC_NAME), comm);
		if (all[i]->moment != PL_AT_EXEC)
			assert_string_equal(rl_field__str(&back, RL_F_PROC_TOP_FAIL_PATH), exe);
		assert_same_to_rules(all[i], &back);
	}
}

static struct json_object *parse_json(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	if (!o)
		fail_msg("not JSON: %s", text);
	return o;
}

/* A window record of an older sensor: its total names the top path and
 * counts the paths, and carries no lifetime counters. */
static void test_sample_json_parse_reads_a_legacy_window_total(void **state)
{
	struct fx *f = *state;
	struct json_object *rec = parse_json(
	    "{\"type\":\"window\",\"pid\":7,\"ppid\":1,\"comm\":\"app\",\"exe\":\"/opt/app\",\"image\":\"exec\","
	    "\"window_start_ns\":1000000000,\"window_end_ns\":2000000000,\"image_start_ns\":500000000,"
	    "\"cpu_ns\":1000,\"syscalls\":400,\"open_failures\":400,"
	    "\"total\":{\"top_fail_path\":\"/etc/app/\\\\xFFflags.json\",\"top_fail_count\":380,\"fail_paths\":2},"
	    "\"busy_s\":0}");
	struct pl_sample s;
	double v;

	assert_int_equal(sample_json__parse(rec, f->buf, &s), 0);
	assert_int_equal(s.moment, PL_AT_WINDOW);
	assert_string_equal(rl_field__str(&s, RL_F_PROC_TOP_FAIL_PATH), "/etc/app/\xff"
									"flags.json");
	assert_true(rl_field__num(&s, RL_F_PROC_TOP_FAIL_COUNT, -1, &v));
	assert_true(v == 380);
	assert_true(rl_field__num(&s, RL_F_PROC_FAIL_PATHS, -1, &v));
	assert_true(v == 2);
	/* no lifetime failed opens to divide by: no share */
	assert_false(rl_field__exists(&s, RL_F_PROC_TOP_FAIL_SHARE, -1));
	/* the window's own counts are there */
	assert_true(rl_field__num(&s, RL_F_WIN_OPEN_FAILURES_PER_S, -1, &v));
	assert_true(v == 400);
	assert_true(rl_field__num(&s, RL_F_WIN_SECONDS, -1, &v));
	assert_true(v == 1);
	assert_true(rl_field__num(&s, RL_F_PROC_WALL_MS, -1, &v));
	assert_true(v == 1500);
	/* counters a record doesn't carry are 0 (counts have no "unknown"), per-number ones unknown */
	assert_true(rl_field__num(&s, RL_F_PROC_CPU_MS, -1, &v));
	assert_true(v == 0);
	assert_false(rl_field__exists(&s, RL_F_PROC_SYSCALL, syscall_number("openat")));
	/* the path has no errno in such a record */
	assert_int_equal(s.nfails, 1);
	assert_int_equal(s.fails[0].err, 0);
	assert_false(s.fails[0].truncated);
	assert_null(rl_field__str(&s, RL_F_BL_KEY));
	assert_false(s.bin.present);
	json_object_put(rec);
}

/* A process record of an older sensor, before exec records existed (no
 * exec_comm, binary, context, baseline; a duration but no image start). */
static void test_sample_json_parse_reads_a_legacy_process_record(void **state)
{
	struct fx *f = *state;
	struct json_object *rec = parse_json(
	    "{\"type\":\"process\",\"pid\":77,\"ppid\":1,\"comm\":\"x\",\"image\":\"exec\",\"partial\":false,"
	    "\"exe\":\"/tmp/x\\\\x0D\\\\x0A\",\"cmdline\":\"/tmp/x --arg \\\\xFF\",\"end_reason\":\"exit\","
	    "\"exit_code\":0,\"end_ns\":1000,\"duration_ns\":10,\"open_failures\":3,"
	    "\"open_fail_paths\":[{\"path\":\"/a\",\"errno\":2,\"count\":2},{\"path\":\"/"
	    "b\",\"errno\":13,\"count\":1}]}");
	struct pl_sample s;
	double v;

	assert_int_equal(sample_json__parse(rec, f->buf, &s), 0);
	assert_int_equal(s.moment, PL_AT_EXIT);
	assert_int_equal(s.image, PL_IMAGE_EXEC);
	assert_string_equal(rl_field__str(&s, RL_F_PROC_EXE), "/tmp/x\r\n");
	assert_string_equal(rl_field__str(&s, RL_F_PROC_CMDLINE), "/tmp/x --arg \xff");
	assert_string_equal(rl_field__str(&s, RL_F_PROC_END_REASON), "exit");
	assert_true(rl_field__num(&s, RL_F_PROC_EXIT_CODE, -1, &v));
	assert_true(v == 0);
	assert_false(rl_field__exists(&s, RL_F_PROC_EXIT_SIGNAL, -1));
	assert_true(rl_field__num(&s, RL_F_PROC_FAIL_PATHS, -1, &v));
	assert_true(v == 2);
	assert_string_equal(rl_field__str(&s, RL_F_PROC_TOP_FAIL_PATH), "/a");
	assert_true(rl_field__num(&s, RL_F_PROC_TOP_FAIL_SHARE, -1, &v));
	assert_true(v == 2.0 / 3);
	/* the image's start is unknown: the wall time is the end stamp, as such records read */
	assert_true(rl_field__num(&s, RL_F_PROC_WALL_MS, -1, &v));
	assert_true(v == 1000 / 1e6);
	assert_null(rl_field__str(&s, RL_F_PROC_BINARY_ID));
	assert_null(rl_field__str(&s, RL_F_PROC_PEXE));
	assert_int_equal(rl_field__list(&s, RL_F_PROC_APATH, (const char *[RL_LIST_MAX]){0}), 0);
	assert_false(rl_field__exists(&s, RL_F_BIN_PROCS, -1));
	assert_null(rl_field__str(&s, RL_F_BL_KEY));
	json_object_put(rec);
}

/* Hostile input: nothing crashes, and a value of the wrong type is unknown. */
static void test_sample_json_parse_survives_hostile_input(void **state)
{
	struct fx *f = *state;
	static const char *const not_samples[] = {
	    "[1,2,3]",
	    "\"process\"",
	    "42",
	    "{}",
	    "{\"type\":7}",
	    "{\"type\":null}",
	    "{\"type\":[\"exec\"]}",
	    "{\"type\":\"alert\"}",
	    "{\"type\":\"stats\"}",
	    "{\"type\":\"Process\"}",
	    "{\"type\":\"exec \"}",
	};
	/* every field of the wrong type, nested objects of the wrong shape */
	static const char *const wrong[] = {
	    "{\"type\":\"process\",\"pid\":\"1\",\"ppid\":[],\"uid\":{},\"comm\":5,\"exe\":true,\"exe_dev\":{\"a\":1},"
	    "\"exe_ino\":-1,\"build_id\":[],\"filename\":{},\"cmdline\":1.5,\"cgroup\":null,\"image\":7,"
	    "\"partial\":\"yes\",\"start_ns\":\"x\",\"image_start_ns\":1e300,\"threads\":-3,\"end_ns\":\"soon\","
	    "\"end_reason\":[\"exit\"],\"exit_code\":\"0\",\"exit_signal\":9.5,\"cpu_ns\":true,"
	    "\"syscalls_by_name\":[\"read\"],\"open_fail_by_errno\":\"ENOENT\",\"open_fail_paths\":{\"path\":\"/x\"},"
	    "\"binary_id\":{},\"parent_exe\":2,\"ancestors\":\"/sbin/init\",\"binary\":[],\"baseline\":\"ready\"}",
	    "{\"type\":\"process\",\"open_fail_paths\":[null,1,\"/x\",[],{\"path\":7,\"errno\":\"ENOENT\",\"count\":-4,"
	    "\"truncated\":1}],\"ancestors\":[1,null,{},[\"/a\"]],\"binary\":{\"procs\":\"many\","
	    "\"open_failures_per_s\":\"fast\",\"top_fail_path\":[],\"top_fail_share\":{}},"
	    "\"baseline\":{\"key\":\"k\",\"ready\":1,\"anomalous\":\"no\",\"max_feature\":\"no_such_feature\","
	    "\"max_score\":\"high\",\"features\":{\"cpu_ns\":5,\"nope\":{},\"wall_ns\":{\"value\":\"x\"}},"
	    "\"new_fail_paths\":\"/x\",\"new_syscalls\":[1,2,null],\"quantiles\":{\"cpu_ms\":[1,2,3],"
	    "\"wall_ms\":{\"p50\":\"1\"}}}}",
	    "{\"type\":\"window\",\"total\":[1],\"busy_s\":\"long\",\"window_start_ns\":5,\"window_end_ns\":1,"
	    "\"syscalls_by_name\":{\"sys_\":1,\"sys_-1\":2,\"sys_99999\":3,\"sys_12abc\":4,\"\":5,\"read\":\"6\","
	    "\"sys_511\":7,\"openat\":-1},\"open_fail_by_errno\":{\"other\":\"x\",\"ENOENT\":[]}}",
	    "{\"type\":\"window\",\"total\":{\"top_fail_path\":{},\"top_fail_count\":\"x\",\"fail_paths\":-1,"
	    "\"cpu_ns\":[]},\"baseline\":{\"key\":7}}",
	    "{\"type\":\"exec\",\"exe_dev\":\"4294967295:4294967295\",\"baseline\":{\"key\":\"k\",\"anomalous\":true,"
	    "\"features\":{\"cpu_ns\":{\"score\":99}},\"max_feature\":\"cpu_ns\",\"max_score\":99}}",
	    "{\"type\":\"exec\",\"exe_dev\":\"-1:-1\",\"time_ns\":99999999999999999999999999,\"pid\":-1,\"uid\":1e400}",
	    "{\"type\":\"process\",\"busy_s\":NaN,\"binary\":{\"open_failures_per_s\":Infinity,\"top_fail_share\":-"
	    "Infinity},"
	    "\"baseline\":{\"key\":\"k\",\"anomalous\":false,\"max_feature\":\"cpu_ns\",\"max_score\":NaN,"
	    "\"quantiles\":{\"cpu_ms\":{\"p50\":Infinity,\"p90\":NaN,\"p99\":-Infinity}}}}",
	};
	struct pl_sample s;

	for (size_t i = 0; i < sizeof(not_samples) / sizeof(not_samples[0]); i++) {
		struct json_object *o = parse_json(not_samples[i]);

		if (sample_json__parse(o, f->buf, &s) != -EINVAL)
			fail_msg("accepted %s", not_samples[i]);
		json_object_put(o);
	}
	assert_int_equal(sample_json__parse(NULL, f->buf, &s), -EINVAL); /* JSON's null */

	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		struct json_object *o = parse_json(wrong[i]);

		assert_int_equal(sample_json__parse(o, f->buf, &s), 0);
		/* no string field has a value taken from a non-string */
		for (int fid = 0; fid < RL_NFIELDS; fid++) {
			const char *l[RL_LIST_MAX];
			int n;

			if (rl_field__info(fid)->type == RL_T_STR && fid != RL_F_EVT_WHEN && fid != RL_F_PROC_IMAGE &&
			    fid != RL_F_BL_KEY && fid != RL_F_BL_MAX_FEATURE && fid != RL_F_BL_MAX_FEATURE_TEXT &&
			    fid != RL_F_BL_DID_FEATURE && fid != RL_F_BL_DID_TEXT && fid != RL_F_BL_CPU_USUAL_TEXT &&
			    fid != RL_F_BL_SOURCE && /* host, prior or fleet: a name of the sensor's */
			    rl_field__str(&s, fid)) /* those are made from numbers */
				fail_msg("record %zu: %s is '%s'", i, rl_field__info(fid)->name,
					 rl_field__str(&s, fid));
			n = rl_field__list(&s, fid, l);
			for (int k = 0; k < n; k++)
				if (l[k])
					fail_msg("record %zu: %s[%d] is '%s'", i, rl_field__info(fid)->name, k, l[k]);
		}
		/* the rest is unknown, 0, or absent */
		assert_int_equal(s.pid, 0);
		assert_int_equal(s.ppid, 0);
		assert_int_equal(s.uid, 0);
		assert_false(s.partial);
		assert_false(rl_field__exists(&s, RL_F_PROC_EXIT_CODE, -1));
		assert_false(rl_field__exists(&s, RL_F_PROC_EXIT_SIGNAL, -1));
		assert_false(rl_field__exists(&s, RL_F_BIN_OPEN_FAILURES_PER_S, -1));
		assert_false(rl_field__exists(&s, RL_F_BIN_TOP_FAIL_SHARE, -1));
		assert_false(rl_field__exists(&s, RL_F_BL_MAX_SCORE, -1));
		assert_false(rl_field__exists(&s, RL_F_BL_CPU_MS_P50, -1));
		assert_false(rl_field__exists(&s, RL_F_BL_CPU_MS_P99, -1));
		assert_false(rl_field__exists(&s, RL_F_BL_WALL_MS_P50, -1));
		assert_true(s.busy_s == 0);
		json_object_put(o);
	}

	/* what the wrong shapes left: the window's per-number counts took only well-formed entries */
	{
		struct json_object *o = parse_json(wrong[2]);

		assert_int_equal(sample_json__parse(o, f->buf, &s), 0);
		assert_non_null(s.win.sc);
		for (int nr = 0; nr < PL_SAMPLE_NR_SYSCALLS; nr++)
			if (s.win.sc[nr] != (nr == 511 ? 7u : 0u))
				fail_msg("syscall %d counted %llu", nr, s.win.sc[nr]);
		/* a window that ends before it starts has no length: no rate */
		assert_false(rl_field__exists(&s, RL_F_WIN_SECONDS, -1));
		assert_false(rl_field__exists(&s, RL_F_WIN_SYSCALLS_PER_S, -1));
		json_object_put(o);
	}
	/* a baseline whose verdict names a feature it doesn't score, at exec: state only */
	{
		struct json_object *o = parse_json(wrong[4]);

		assert_int_equal(sample_json__parse(o, f->buf, &s), 0);
		assert_string_equal(rl_field__str(&s, RL_F_BL_KEY), "k");
		assert_false(s.bl.scored);
		json_object_put(o);
	}
	/* numbers too big for their field are unknown, not wrapped */
	{
		struct json_object *o =
		    parse_json("{\"type\":\"process\",\"pid\":4294967297,\"ppid\":18446744073709551615,"
			       "\"threads\":4294967299,\"open_fail_paths\":[{\"path\":\"/x\","
			       "\"errno\":4294967298,\"count\":1}]}");

		assert_int_equal(sample_json__parse(o, f->buf, &s), 0);
		assert_int_equal(s.pid, 0);
		assert_int_equal(s.ppid, 0);
		assert_int_equal(s.threads, 0);
		assert_int_equal(s.nfails, 1);
		assert_int_equal(s.fails[0].err, 0);
		json_object_put(o);
	}
}

/* A buffer is reused from record to record: the strings of the last parse
 * are the ones that hold. */
static void test_sample_json_parse_reuses_its_buffer(void **state)
{
	struct fx *f = *state;
	struct pl_sample a, b;
	char name[32];

	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "/bin/p%d", i);
		f->exit.exe = name;
		parse_back(f, &f->exit, &a);
		assert_string_equal(a.exe, name);
		assert_string_equal(a.fails[1].path, "/root/secret");
	}
	parse_back(f, &f->win, &b);
	assert_string_equal(b.exe, "/usr/bin/worker");
	assert_int_equal(b.nfails, 1);
	assert_string_equal(b.fails[0].path, "/etc/app/flags.json");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_sample_json_exec_record_has_identity_time_context_and_baseline_state),
	    T(test_sample_json_process_record_has_exact_identity_fields),
	    T(test_sample_json_process_record_has_exit_code_or_signal_never_both),
	    T(test_sample_json_process_record_span_is_exact),
	    T(test_sample_json_syscalls_by_name_sorted_by_count_then_number),
	    T(test_sample_json_syscall_without_a_name_is_sys_nr),
	    T(test_sample_json_open_fail_by_errno_by_name_with_other_last),
	    T(test_sample_json_open_fail_paths_list_every_path_and_say_when_incomplete),
	    T(test_sample_json_window_record_has_deltas_total_busy_and_binary),
	    T(test_sample_json_baseline_is_state_at_exec_and_a_verdict_at_window_and_exit),
	    T(test_sample_json_unknown_strings_are_null_never_empty),
	    T(test_sample_json_hostile_strings_cannot_forge_a_line_or_a_field),
	    T(test_sample_json_cmdline_argument_byte_is_escaped_once),
	    T(test_sample_json_parse_gives_every_rule_field_of_rich_samples),
	    T(test_sample_json_wait_frames_are_escaped_and_read_back_raw),
	    T(test_sample_json_parse_keeps_absent_what_the_sample_did_not_know),
	    T(test_sample_json_parse_gives_rules_the_raw_bytes_at_every_moment),
	    T(test_sample_json_parse_reads_a_legacy_window_total),
	    T(test_sample_json_parse_reads_a_legacy_process_record),
	    T(test_sample_json_parse_survives_hostile_input),
	    T(test_sample_json_parse_reuses_its_buffer),
	};
#undef T

	return cmocka_run_group_tests_name("sample_json", tests, NULL, NULL);
}
