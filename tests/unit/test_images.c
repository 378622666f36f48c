// SPDX-License-Identifier: MIT
/*
 * test_images.c - from the kernel's records to samples to JSON records
 * (sensor/pipeline/images.c), without a kernel.
 *
 * Hand-built ring-buffer records (pl_ev_exec, pl_ev_proc, pl_ev_end,
 * pl_ev_fail_path) and process-table entries (pl_proc) go through a real
 * process table, identity, binagg, failpaths over a table in memory that
 * stands in for the kernel's, and a pipeline without learner or rules that
 * writes its records to memory. Both clocks are fixed (clock_gettime is
 * wrapped at link time), so every time in a record is exact: the kernel's
 * monotonic stamp plus REALTIME - MONOTONIC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "process/binagg.h"
#include "process/failpaths.h"
#include "identity/identity.h"
#include "pipeline/images.h"
#include "log.h"
#include "pipeline/pipeline.h"
#include "process/proctable.h"
#include "syscalls.h"

#include "fake_failpaths.h"
#include "record_helpers.h"
#include "unit_helpers.h"

#define SEC	 1000000000ull
#define MS	 1000000ull
#define REAL_NOW 1700000000000000000ull /* CLOCK_REALTIME, fixed */
#define MONO_NOW (5000 * SEC)		/* CLOCK_MONOTONIC, fixed */
#define M2R	 (REAL_NOW - MONO_NOW)
/* pids no process can have (above PID_MAX_LIMIT): /proc/PID never exists */
#define PID(n) (5000000u + (n))
#define KDEV   ((8u << 20) | 1u) /* kernel dev_t of 8:1 */

/* ---- the clocks ---- */

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns;

	if (id == CLOCK_REALTIME)
		ns = REAL_NOW;
	else if (id == CLOCK_MONOTONIC)
		ns = MONO_NOW;
	else
		return __real_clock_gettime(id, ts);
	ts->tv_sec = (time_t)(ns / SEC);
	ts->tv_nsec = (long)(ns % SEC);
	return 0;
}

/* ---- the fixture ---- */

struct fx {
	struct fake_failpaths k; /* the kernel's failed-path table */
	char cgroot[64];
	uint64_t cgroup_id; /* of cgroot/system.slice/app.service */
	struct proctable *procs;
	struct identity *ident;
	struct failpaths *fails;
	struct binagg *bin;
	struct pipeline *pipe;
	struct images *im;
	struct ut_mem_output *recs;
	struct pl_ev_end end; /* big: kept off the stack */
	struct pl_proc p;
};

static int setup_with(void **state, uint32_t max_procs)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct failpaths_table tbl;
	struct pipeline_opts o = {.exec_records = true, .process_records = true, .window_records = true};
	struct images_deps d;
	char path[128];
	struct stat st;

	assert_non_null(f);
	tbl = fake_failpaths__table(&f->k);
	/* a cgroup v2 tree of our own, for the cgroup paths */
	snprintf(f->cgroot, sizeof(f->cgroot), "/tmp/plumbline-images-XXXXXX");
	assert_non_null(mkdtemp(f->cgroot));
	snprintf(path, sizeof(path), "%s/system.slice", f->cgroot);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/system.slice/app.service", f->cgroot);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(stat(path, &st), 0);
	f->cgroup_id = st.st_ino;

	assert_int_equal(proctable__new(max_procs, &f->procs), 0);
	assert_int_equal(identity__new(f->cgroot, &f->ident), 0);
	assert_int_equal(failpaths__new(&tbl, f->procs, &f->fails), 0);
	assert_int_equal(binagg__new(16, &f->bin), 0);
	assert_int_equal(pipeline__new(&o, NULL, NULL, &f->pipe), 0);
	f->recs = ut_mem_output__new();
	pipeline__set_outputs(f->pipe, &f->recs->base, NULL, 0);
	d = (struct images_deps){
	    .procs = f->procs, .ident = f->ident, .fails = f->fails, .bin = f->bin, .pipe = f->pipe};
	assert_int_equal(images__new(&d, &f->im), 0);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, 1024);
}

static int setup_small_table(void **state)
{
	return setup_with(state, 2);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	images__free(f->im);
	pipeline__free(f->pipe);
	output__free(&f->recs->base);
	binagg__free(f->bin);
	failpaths__free(f->fails);
	identity__free(f->ident);
	proctable__free(f->procs);
	ut_rm_rf(f->cgroot);
	free(f);
	return 0;
}

/* ---- records as the kernel sends them ---- */

static struct pl_hdr hdr(enum pl_event_type type, uint32_t size, uint32_t tgid)
{
	return (struct pl_hdr){.type = type, .version = PL_ABI_VERSION, .size = size, .ts_ns = MONO_NOW, .tgid = tgid};
}

/* The identity of image `image_id` of a process, started at start_s (monotonic seconds). */
static struct pl_ident ident(uint32_t ppid, uint64_t image_id, uint32_t flags, uint64_t ino, const char *comm,
			     uint64_t start_s)
{
	struct pl_ident id = {
	    .proc_start_ns = start_s * SEC - 1000,
	    .image_start_ns = start_s * SEC,
	    .image_id = image_id,
	    .cgroup_id = 0,
	    .exe_ino = ino,
	    .exe_dev = KDEV,
	    .ppid = ppid,
	    .uid = 1000,
	    .flags = flags,
	    .threads = 1,
	};

	memcpy(id.comm, comm, strnlen(comm, sizeof(id.comm)));
	return id;
}

/* An exec record with the working directory the kernel read (NULL: none). */
static void exec_in(struct fx *f, uint32_t tgid, struct pl_ident id, const char *filename, const char *args,
		    size_t args_len, const char *cwd)
{
	struct pl_ev_exec ev = {.hdr = hdr(PL_EV_EXEC, sizeof(ev), tgid), .id = id};

	snprintf(ev.filename, sizeof(ev.filename), "%s", filename);
	ev.filename_len = (uint32_t)strlen(filename) + 1;
	memcpy(ev.args, args, args_len);
	ev.args_len = (uint32_t)args_len;
	if (cwd) {
		snprintf(ev.cwd, sizeof(ev.cwd), "%s", cwd);
		ev.cwd_len = (uint32_t)strlen(cwd) + 1;
	}
	images__on_record(f->im, &ev, sizeof(ev));
}

static void exec_(struct fx *f, uint32_t tgid, struct pl_ident id, const char *filename, const char *args,
		  size_t args_len)
{
	exec_in(f, tgid, id, filename, args, args_len, NULL);
}

static void proc_(struct fx *f, enum pl_event_type type, uint32_t tgid, struct pl_ident id)
{
	struct pl_ev_proc ev = {.hdr = hdr(type, sizeof(ev), tgid), .id = id};

	images__on_record(f->im, &ev, sizeof(ev));
}

static void end_(struct fx *f, uint32_t tgid, const struct pl_proc *p, uint64_t end_ns, uint32_t reason, int32_t status)
{
	memset(&f->end, 0, sizeof(f->end));
	f->end.hdr = hdr(PL_EV_END, sizeof(f->end), tgid);
	f->end.proc = *p;
	f->end.end_ns = end_ns;
	f->end.reason = reason;
	f->end.exit_code = status;
	images__on_record(f->im, &f->end, sizeof(f->end));
}

/* The kernel's first failure of (image, path, errno), counted `count` times in its table. */
static void fail_(struct fx *f, uint32_t tgid, uint64_t image_id, int err, const char *path, bool truncated,
		  uint64_t count)
{
	struct pl_ev_fail_path ev = {.hdr = hdr(PL_EV_FAIL_PATH, sizeof(ev), tgid)};
	bool fresh;

	ev.key = fake_failpaths__key(tgid, image_id, err, path);
	ev.truncated = truncated;
	fake_failpaths__fail(&f->k, &ev.key, count, 0, &fresh);
	assert_true(fresh);
	images__on_record(f->im, &ev, sizeof(ev));
}

/* More failures of a key already in the table. */
static void fail_more(struct fx *f, uint32_t tgid, uint64_t image_id, int err, const char *path, uint64_t more)
{
	struct pl_fail_key k = fake_failpaths__key(tgid, image_id, err, path);
	int i = fake_failpaths__find(&f->k, &k);

	assert_true(i >= 0);
	f->k.vals[i].count += more;
}

static size_t nrecords(struct fx *f)
{
	return f->recs->n;
}

static struct json_object *rec(struct fx *f, size_t i)
{
	return ut_mem_record(f->recs, i);
}

static int nr(const char *name)
{
	int n = syscall_number(name);

	assert_true(n >= 0);
	return n;
}

/* ---- exec, fork, seen ---- */

/* Three generations: the exec record of the youngest carries its parent's
 * exe and the chain of ancestors the process table knows. */
static void test_images_exec_record_has_identity_parent_and_ancestors(void **state)
{
	struct fx *f = *state;
	static const char args[] = "worker\0--serve\0a b\0";
	struct pl_ident id;
	struct json_object *o;
	char binid[64];
	static const char *const anc[] = {"/nonexistent-plumbline/sh", "/nonexistent-plumbline/init", NULL};

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "init", 10), "/nonexistent-plumbline/init", "init", 5);
	exec_(f, PID(2), ident(PID(1), 21, PL_PROC_EXECED, 102, "sh", 20), "/nonexistent-plumbline/sh", "sh", 3);
	id = ident(PID(2), 31, PL_PROC_EXECED, 103, "worker", 30);
	id.cgroup_id = f->cgroup_id;
	id.threads = 4;
	exec_(f, PID(3), id, "/nonexistent-plumbline/worker", args, sizeof(args) - 1);
	assert_int_equal(nrecords(f), 3);
	assert_int_equal(images__stats(f->im)->records[PL_EV_EXEC], 3);
	assert_int_equal(pipeline__stats(f->pipe)->exec_records, 3);

	o = rec(f, 2);
	assert_string_equal(ut_str(o, "type"), "exec");
	assert_int_equal(ut_u64(o, "pid"), PID(3));
	assert_int_equal(ut_u64(o, "ppid"), PID(2));
	assert_int_equal(ut_u64(o, "uid"), 1000);
	assert_string_equal(ut_str(o, "comm"), "worker");
	assert_string_equal(ut_str(o, "exec_comm"), "worker");
	/* the process is gone (never was): the exec'd filename is its path */
	assert_string_equal(ut_str(o, "exe"), "/nonexistent-plumbline/worker");
	assert_string_equal(ut_str(o, "exe_dev"), "8:1");
	assert_int_equal(ut_u64(o, "exe_ino"), 103);
	ut_null(o, "build_id");
	assert_string_equal(ut_str(o, "filename"), "/nonexistent-plumbline/worker");
	assert_false(ut_bool(o, "filename_truncated"));
	assert_string_equal(ut_str(o, "cmdline"), "worker --serve a b");
	assert_int_equal(ut_u64(o, "cgroup_id"), f->cgroup_id);
	assert_string_equal(ut_str(o, "cgroup"), "/system.slice/app.service");
	assert_string_equal(ut_str(o, "image"), "exec");
	assert_false(ut_bool(o, "partial"));
	assert_int_equal(ut_u64(o, "start_ns"), 30 * SEC - 1000 + M2R);
	assert_int_equal(ut_u64(o, "image_start_ns"), 30 * SEC + M2R);
	assert_int_equal(ut_u64(o, "time_ns"), 30 * SEC + M2R);
	assert_int_equal(ut_u64(o, "threads"), 4);
	snprintf(binid, sizeof(binid), "file:8:1:103");
	assert_string_equal(ut_str(o, "binary_id"), binid);
	assert_string_equal(ut_str(o, "parent_exe"), "/nonexistent-plumbline/sh");
	/* parent first, up to (not including) pid 1 */
	ut_strings(ut_arr(o, "ancestors"), anc);
	ut_absent(o, "binary");
	ut_null(o, "baseline");
	json_object_put(o);

	/* the first one's parent is pid 1: no parent known, no ancestors */
	o = rec(f, 0);
	ut_null(o, "parent_exe");
	assert_int_equal(json_object_array_length(ut_arr(o, "ancestors")), 0);
	json_object_put(o);
	assert_int_equal(proctable__count(f->procs), 3);
}

static void test_images_exec_filename_truncated_and_arguments_bounded(void **state)
{
	struct fx *f = *state;
	struct pl_ev_exec ev = {.hdr = hdr(PL_EV_EXEC, sizeof(ev), PID(1))};
	char want[PL_PATH_LEN];
	struct json_object *o;

	ev.id = ident(1, 11, PL_PROC_EXECED, 101, "x", 10);
	memset(ev.filename, 'f', sizeof(ev.filename)); /* no NUL: 256 bytes read of a longer name */
	ev.filename[0] = '/';
	ev.filename_len = PL_PATH_LEN + 1;
	memset(ev.args, 'a', sizeof(ev.args));
	ev.args_len = 100000; /* more than the buffer: bounded */
	images__on_record(f->im, &ev, sizeof(ev));
	o = rec(f, 0);
	memset(want, 'f', sizeof(want) - 1);
	want[0] = '/';
	want[sizeof(want) - 1] = '\0';
	assert_string_equal(ut_str(o, "filename"), want);
	assert_true(ut_bool(o, "filename_truncated"));
	assert_int_equal(strlen(ut_str(o, "cmdline")), PL_ARGS_LEN);
	json_object_put(o);
}

/* A fork child runs its parent's image: the same identity, no exec record.
 * Its exec ends that image as a step (written, never judged) and starts one
 * whose parent is the process that forked it. */
static void test_images_fork_child_inherits_its_parent_image_and_its_exec_is_a_step(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "sh", 10), "/nonexistent-plumbline/sh", "sh\0-c\0x", 8);
	proc_(f, PL_EV_FORK, PID(2), ident(PID(1), 21, PL_PROC_FORKED, 101, "sh", 11));
	assert_int_equal(nrecords(f), 1);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(PID(1), 21, PL_PROC_FORKED, 101, "sh", 11);
	f->p.st.cpu_ns = 2 * MS;
	f->p.st.sc[nr("execve")] = 1;
	f->p.st.syscalls = 1; /* the kernel folds the total with the counts */
	end_(f, PID(2), &f->p, 11 * SEC + 5 * MS, PL_END_EXEC, 0);
	exec_(f, PID(2), ident(PID(1), 22, PL_PROC_EXECED, 102, "cat", 12), "/nonexistent-plumbline/cat", "cat", 3);
	assert_int_equal(nrecords(f), 3);

	o = rec(f, 1);
	assert_string_equal(ut_str(o, "type"), "process");
	assert_int_equal(ut_u64(o, "pid"), PID(2));
	assert_string_equal(ut_str(o, "image"), "fork");
	assert_string_equal(ut_str(o, "end_reason"), "exec");
	ut_null(o, "exit_code");
	ut_null(o, "exit_signal");
	assert_int_equal(ut_u64(o, "duration_ns"), 5 * MS);
	assert_int_equal(ut_u64(o, "syscalls"), 1);
	/* the parent's exe, identity and command line */
	assert_string_equal(ut_str(o, "exe"), "/nonexistent-plumbline/sh");
	assert_string_equal(ut_str(o, "binary_id"), "file:8:1:101");
	assert_string_equal(ut_str(o, "cmdline"), "sh -c x");
	ut_null(o, "filename");
	assert_string_equal(ut_str(o, "parent_exe"), "/nonexistent-plumbline/sh");
	json_object_put(o);

	o = rec(f, 2);
	assert_string_equal(ut_str(o, "type"), "exec");
	assert_string_equal(ut_str(o, "exe"), "/nonexistent-plumbline/cat");
	assert_string_equal(ut_str(o, "parent_exe"), "/nonexistent-plumbline/sh");
	{
		static const char *const anc[] = {"/nonexistent-plumbline/sh", NULL};

		ut_strings(ut_arr(o, "ancestors"), anc);
	}
	json_object_put(o);
	/* an exec ends an image, not the process */
	assert_non_null(proctable__get(f->procs, PID(2)));
}

static const char *suffix_of(struct fx *f, uint32_t tgid)
{
	const struct proc_info *pi = proctable__get(f->procs, tgid);

	assert_non_null(pi);
	return pi->script_suffix;
}

/*
 * Build keys come from the records alone: the outermost driver's directory
 * (its exec cwd and -C), handed down by fork and exec, whatever the tools'
 * own cwds, and kept after the driver has exited.
 */
static void test_images_build_tools_are_keyed_by_the_outermost_driver_from_records(void **state)
{
	struct fx *f = *state;

	exec_in(f, PID(1), ident(1, 11, PL_PROC_EXECED, 201, "make", 10), "/nonexistent-plumbline/make",
		"make\0-C\0proj\0", 13, "/src");
	assert_string_equal(suffix_of(f, PID(1)), "+build:/src/proj");
	proc_(f, PL_EV_FORK, PID(2), ident(PID(1), 21, PL_PROC_FORKED, 201, "make", 11));
	/* the driver is gone before its child execs */
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 201, "make", 10);
	end_(f, PID(1), &f->p, 11 * SEC, PL_END_EXIT, 0);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(PID(1), 21, PL_PROC_FORKED, 201, "make", 11);
	end_(f, PID(2), &f->p, 11 * SEC + MS, PL_END_EXEC, 0);
	exec_in(f, PID(2), ident(PID(1), 22, PL_PROC_EXECED, 202, "gcc", 12), "/nonexistent-plumbline/gcc",
		"gcc\0-c\0x.c\0", 12, "/src/proj/sub");
	assert_string_equal(suffix_of(f, PID(2)), "+build:/src/proj");
	/* a nested driver elsewhere keeps the outer one's directory */
	proc_(f, PL_EV_FORK, PID(3), ident(PID(2), 31, PL_PROC_FORKED, 202, "gcc", 13));
	exec_in(f, PID(3), ident(PID(2), 32, PL_PROC_EXECED, 201, "make", 13), "/nonexistent-plumbline/make",
		"make\0", 5, "/src/proj/sub");
	assert_string_equal(suffix_of(f, PID(3)), "+build:/src/proj");
	/* a tool outside any build, and a driver whose cwd the kernel could not read */
	exec_in(f, PID(4), ident(1, 41, PL_PROC_EXECED, 202, "gcc", 14), "/nonexistent-plumbline/gcc", "gcc\0", 4,
		"/src/proj");
	assert_null(suffix_of(f, PID(4)));
	exec_in(f, PID(5), ident(1, 51, PL_PROC_EXECED, 201, "make", 15), "/nonexistent-plumbline/make", "make\0", 5,
		NULL);
	assert_null(suffix_of(f, PID(5)));
}

/* A child on another executable than its parent's (the parent exec'd since)
 * is resolved by itself; a process seen first after the sensor started is
 * preexisting, and partial. */
static void test_images_fork_of_another_exe_and_seen_process_resolve_themselves(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "sh", 10), "/nonexistent-plumbline/sh", "sh", 3);
	proc_(f, PL_EV_FORK, PID(2), ident(PID(1), 21, PL_PROC_FORKED, 999, "sh", 11));
	proc_(f, PL_EV_SEEN, PID(3), ident(1, 31, PL_PROC_PARTIAL, 555, "old", 12));
	assert_int_equal(images__stats(f->im)->records[PL_EV_FORK], 1);
	assert_int_equal(images__stats(f->im)->records[PL_EV_SEEN], 1);

	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(PID(1), 21, PL_PROC_FORKED, 999, "sh", 11);
	f->p.st.cpu_ns = 1;
	images__window(f->im, PID(2), &f->p, 12 * SEC);
	f->p.id = ident(1, 31, PL_PROC_PARTIAL, 555, "old", 12);
	images__window(f->im, PID(3), &f->p, 13 * SEC);
	assert_int_equal(nrecords(f), 3);

	o = rec(f, 1);
	assert_string_equal(ut_str(o, "image"), "fork");
	ut_null(o, "exe"); /* no /proc/PID/exe, no filename */
	ut_null(o, "cmdline");
	assert_string_equal(ut_str(o, "binary_id"), "file:8:1:999");
	assert_string_equal(ut_str(o, "parent_exe"), "/nonexistent-plumbline/sh");
	json_object_put(o);
	o = rec(f, 2);
	assert_string_equal(ut_str(o, "image"), "preexisting");
	assert_true(ut_bool(o, "partial"));
	assert_string_equal(ut_str(o, "binary_id"), "file:8:1:555");
	ut_null(o, "parent_exe");
	assert_string_equal(ut_str(o, "exec_comm"), "old"); /* its comm when first seen */
	json_object_put(o);
}

/* ---- windows ---- */

static void test_images_window_is_the_delta_since_the_last_window(void **state)
{
	struct fx *f = *state;
	struct pl_stats *st = &f->p.st;
	struct json_object *o, *by, *t;
	static const char *const first_sc[] = {"read", "openat", NULL};
	static const char *const second_sc[] = {"openat", "write", NULL};

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "app", 10), "/nonexistent-plumbline/app", "app", 3);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "app", 10);
	st->cpu_ns = 300 * MS;
	st->offcpu_ns = 50 * MS;
	st->runq_ns = 20 * MS;
	st->ctx_switches = 10;
	st->sc[nr("read")] = 40;
	st->sc[nr("openat")] = 30;
	st->sc_other = 2;
	st->syscalls = 72;
	st->open_fail = 5;
	st->open_fail_errno[2] = 5;
	/* the first window: since the image started, 0.5 s ago */
	images__window(f->im, PID(1), &f->p, 10 * SEC + 500 * MS);
	assert_int_equal(nrecords(f), 2);
	o = rec(f, 1);
	assert_string_equal(ut_str(o, "type"), "window");
	assert_int_equal(ut_u64(o, "window_start_ns"), 10 * SEC + M2R);
	assert_int_equal(ut_u64(o, "window_end_ns"), 10 * SEC + 500 * MS + M2R);
	assert_int_equal(ut_u64(o, "cpu_ns"), 300 * MS);
	assert_int_equal(ut_u64(o, "blocked_ns"), 30 * MS);
	assert_int_equal(ut_u64(o, "syscalls"), 72);
	assert_int_equal(ut_u64(o, "syscalls_other"), 2);
	ut_keys(ut_obj(o, "syscalls_by_name"), first_sc);
	assert_true(ut_dbl(o, "busy_s") == 0); /* a first window starts no streak */
	json_object_put(o);

	/* one second later: only what changed */
	st->cpu_ns += 950 * MS;
	st->offcpu_ns = 40 * MS; /* read lower than before (counters read apart): 0, never wrapped */
	st->ctx_switches += 3;
	st->sc[nr("openat")] += 100;
	st->sc[nr("write")] += 7;
	st->syscalls += 107;
	st->open_fail += 100;
	st->open_fail_errno[2] += 60;
	st->open_fail_errno[13] += 40;
	st->open_fail_unrecorded += 4;
	images__window(f->im, PID(1), &f->p, 11 * SEC + 500 * MS);
	o = rec(f, 2);
	assert_int_equal(ut_u64(o, "window_start_ns"), 10 * SEC + 500 * MS + M2R);
	assert_int_equal(ut_u64(o, "window_end_ns"), 11 * SEC + 500 * MS + M2R);
	assert_int_equal(ut_u64(o, "cpu_ns"), 950 * MS);
	assert_int_equal(ut_u64(o, "offcpu_ns"), 0);
	assert_int_equal(ut_u64(o, "ctx_switches"), 3);
	assert_int_equal(ut_u64(o, "syscalls"), 107);
	assert_int_equal(ut_u64(o, "syscalls_other"), 0);
	by = ut_obj(o, "syscalls_by_name");
	ut_keys(by, second_sc);
	assert_int_equal(ut_u64(by, "openat"), 100);
	assert_int_equal(ut_u64(by, "write"), 7);
	assert_int_equal(ut_u64(o, "open_failures"), 100);
	assert_int_equal(ut_u64(ut_obj(o, "open_fail_by_errno"), "ENOENT"), 60);
	assert_int_equal(ut_u64(ut_obj(o, "open_fail_by_errno"), "EACCES"), 40);
	assert_int_equal(ut_u64(o, "open_fail_unrecorded"), 4);
	/* >= 90 % of a core for the whole second: the streak starts */
	assert_true(ut_dbl(o, "busy_s") == 1);
	/* the image so far */
	t = ut_obj(o, "total");
	assert_int_equal(ut_u64(t, "cpu_ns"), 1250 * MS);
	assert_int_equal(ut_u64(t, "syscalls"), 179);
	assert_int_equal(ut_u64(t, "open_failures"), 105);
	assert_int_equal(ut_u64(t, "ctx_switches"), 13);
	assert_int_equal(ut_u64(ut_obj(t, "syscalls_by_name"), "openat"), 130);
	/* no FAIL_PATH record reached user space: no path known */
	assert_int_equal(ut_u64(t, "fail_paths"), 0);
	ut_null(t, "top_fail_path");
	json_object_put(o);

	/* two more busy seconds, then a quiet one ends the streak */
	st->cpu_ns += 2 * SEC;
	images__window(f->im, PID(1), &f->p, 13 * SEC + 500 * MS);
	o = rec(f, 3);
	assert_true(ut_dbl(o, "busy_s") == 3);
	json_object_put(o);
	st->cpu_ns += 100 * MS;
	images__window(f->im, PID(1), &f->p, 14 * SEC + 500 * MS);
	o = rec(f, 4);
	assert_true(ut_dbl(o, "busy_s") == 0);
	json_object_put(o);

	/* an idle second (no CPU, no syscall) is no record */
	images__window(f->im, PID(1), &f->p, 15 * SEC + 500 * MS);
	assert_int_equal(nrecords(f), 5);
	assert_int_equal(pipeline__stats(f->pipe)->window_records, 4);
}

/* The failed paths come from the kernel's table, with their counts; the
 * binary's last second is the one closed by the last tick. */
static void test_images_window_reads_failed_paths_and_the_binary_second(void **state)
{
	struct fx *f = *state;
	struct pl_stats *st = &f->p.st;
	struct json_object *o, *t, *b;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "app", 10), "/nonexistent-plumbline/app", "app", 3);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "app", 10);
	fail_(f, PID(1), 11, 2, "/etc/app/flags.json", true, 300);
	fail_(f, PID(1), 11, 13, "/etc/app/secret", false, 20);
	st->cpu_ns = 10 * MS;
	st->sc[nr("openat")] = 320;
	st->syscalls = 320;
	st->open_fail = 320;
	images__window(f->im, PID(1), &f->p, 11 * SEC);
	o = rec(f, 1);
	t = ut_obj(o, "total");
	assert_int_equal(ut_u64(t, "fail_paths"), 2);
	assert_string_equal(ut_str(t, "top_fail_path"), "/etc/app/flags.json");
	assert_int_equal(ut_u64(t, "top_fail_count"), 300);
	assert_int_equal(ut_i64(t, "top_fail_errno"), 2);
	assert_true(ut_bool(t, "top_fail_truncated"));
	ut_null(o, "binary"); /* no second closed yet */
	json_object_put(o);
	/* a window doesn't consume the table */
	assert_int_equal(fake_failpaths__size(&f->k), 2);

	/* the second closes: it held this process, its 320 failures, 300 of them
	 * on its top path (no more than that path's own count: the other 20
	 * were another path's) */
	binagg__tick(f->bin, 1.0);
	fail_more(f, PID(1), 11, 13, "/etc/app/secret", 400);
	st->sc[nr("openat")] += 400;
	st->syscalls += 400;
	st->open_fail += 400;
	images__window(f->im, PID(1), &f->p, 12 * SEC);
	o = rec(f, 2);
	t = ut_obj(o, "total");
	assert_string_equal(ut_str(t, "top_fail_path"), "/etc/app/secret");
	assert_int_equal(ut_u64(t, "top_fail_count"), 420);
	assert_int_equal(ut_i64(t, "top_fail_errno"), 13);
	assert_false(ut_bool(t, "top_fail_truncated"));
	b = ut_obj(o, "binary");
	assert_int_equal(ut_u64(b, "procs"), 1);
	assert_true(ut_dbl(b, "open_failures_per_s") == 320);
	assert_string_equal(ut_str(b, "top_fail_path"), "/etc/app/flags.json");
	assert_true(ut_dbl(b, "top_fail_share") == 300.0 / 320);
	json_object_put(o);
}

/* A window of an image user space doesn't know (its start record is still
 * in the ring buffer, or was lost) is skipped, and so is one of another
 * image of a known process. */
static void test_images_window_of_an_unknown_image_is_skipped(void **state)
{
	struct fx *f = *state;

	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "app", 10);
	f->p.st.cpu_ns = SEC;
	images__window(f->im, PID(1), &f->p, 11 * SEC);
	exec_(f, PID(1), ident(1, 12, PL_PROC_EXECED, 101, "app", 10), "/nonexistent-plumbline/app", "app", 3);
	images__window(f->im, PID(1), &f->p, 11 * SEC);
	assert_int_equal(nrecords(f), 1); /* the exec record only */
}

/* ---- ends ---- */

static void test_images_end_gives_exit_code_or_signal_and_consumes_failed_paths(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *paths, *e;
	static const struct {
		int32_t status;
		int code, sig;
	} ends[] = {
	    {3 << 8, 3, -1}, {0, 0, -1}, {255 << 8, 255, -1}, {9, -1, 9}, {0x80 | 11, -1, 11},
	};

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		uint32_t tgid = PID(10 + i);

		ut_mem_clear(f->recs);
		exec_(f, tgid, ident(1, 100 + i, PL_PROC_EXECED, 101, "job", 10), "/nonexistent-plumbline/job", "job",
		      3);
		if (i == 0) {
			fail_(f, tgid, 100, 2, "/etc/job.conf", false, 5);
			fail_(f, tgid, 100, 13, "/root/secret", true, 1);
		}
		memset(&f->p, 0, sizeof(f->p));
		f->p.id = ident(1, 100 + i, PL_PROC_EXECED, 101, "job", 10);
		f->p.st.cpu_ns = 7 * MS;
		f->p.st.open_fail = i == 0 ? 7 : 0;
		f->p.st.open_fail_unrecorded = i == 0 ? 1 : 0;
		end_(f, tgid, &f->p, 10 * SEC + 30 * MS, PL_END_EXIT, ends[i].status);
		assert_int_equal(nrecords(f), 2);
		o = rec(f, 1);
		assert_string_equal(ut_str(o, "type"), "process");
		assert_string_equal(ut_str(o, "end_reason"), "exit");
		assert_int_equal(ut_u64(o, "end_ns"), 10 * SEC + 30 * MS + M2R);
		assert_int_equal(ut_u64(o, "duration_ns"), 30 * MS);
		assert_int_equal(ut_u64(o, "cpu_ns"), 7 * MS);
		if (ends[i].code >= 0)
			assert_int_equal(ut_i64(o, "exit_code"), ends[i].code);
		else
			ut_null(o, "exit_code");
		if (ends[i].sig >= 0)
			assert_int_equal(ut_i64(o, "exit_signal"), ends[i].sig);
		else
			ut_null(o, "exit_signal");
		paths = ut_arr(o, "open_fail_paths");
		if (i == 0) {
			assert_int_equal(json_object_array_length(paths), 2);
			e = json_object_array_get_idx(paths, 0);
			assert_string_equal(ut_str(e, "path"), "/etc/job.conf");
			assert_int_equal(ut_i64(e, "errno"), 2);
			assert_int_equal(ut_u64(e, "count"), 5);
			assert_false(ut_bool(e, "truncated"));
			e = json_object_array_get_idx(paths, 1);
			assert_string_equal(ut_str(e, "path"), "/root/secret");
			assert_int_equal(ut_u64(e, "count"), 1);
			assert_true(ut_bool(e, "truncated"));
			/* 5 + 1 of 7: one failure's path didn't fit the table */
			assert_true(ut_bool(o, "open_fail_paths_incomplete"));
			/* the image has ended: its keys left the table */
			assert_int_equal(fake_failpaths__size(&f->k), 0);
		} else {
			assert_int_equal(json_object_array_length(paths), 0);
			assert_false(ut_bool(o, "open_fail_paths_incomplete"));
		}
		json_object_put(o);
		/* an exit ends the process */
		assert_null(proctable__get(f->procs, tgid));
	}
	assert_int_equal(images__stats(f->im)->records[PL_EV_END], 5);
	assert_int_equal(pipeline__stats(f->pipe)->process_records, 5);
}

/* A process's failures since its last window count for its binary's
 * second; an ended one's top path with its count over the image. */
static void test_images_end_adds_to_the_binary_second(void **state)
{
	struct fx *f = *state;
	struct pl_bin b;

	for (int i = 0; i < 3; i++) {
		exec_(f, PID(i), ident(1, 10 + i, PL_PROC_EXECED, 101, "job", 10), "/nonexistent-plumbline/job", "job",
		      3);
		fail_(f, PID(i), 10 + i, 2, "/etc/job.conf", false, 10);
		memset(&f->p, 0, sizeof(f->p));
		f->p.id = ident(1, 10 + i, PL_PROC_EXECED, 101, "job", 10);
		f->p.st.open_fail = 10;
		end_(f, PID(i), &f->p, 10 * SEC + MS, PL_END_EXIT, 0);
	}
	binagg__tick(f->bin, 2.0);
	binagg__get(f->bin, "file:8:1:101", &b);
	assert_true(b.present);
	assert_int_equal(b.procs, 3);
	assert_true(b.open_failures_per_s == 15);
	assert_string_equal(b.top_fail_path, "/etc/job.conf");
	assert_true(b.top_fail_share == 1);
}

/* What the kernel says of a process user space never knew: the record's own
 * identity, and null for all the strings only user space could resolve. */
static void test_images_end_without_proc_info_has_null_strings(void **state)
{
	struct fx *f = *state;
	struct json_object *o;
	static const char *const strs[] = {"exec_comm", "exe",	     "build_id",   "filename",
					   "cmdline",	"binary_id", "parent_exe", NULL};

	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(77, 11, PL_PROC_PARTIAL, 101, "worker", 10);
	f->p.st.cpu_ns = MS;
	end_(f, PID(1), &f->p, 11 * SEC, PL_END_EXIT, 0);
	f->p.id.flags = PL_PROC_FORKED;
	end_(f, PID(2), &f->p, 11 * SEC, PL_END_EXIT, 0);
	assert_int_equal(nrecords(f), 2);
	o = rec(f, 0);
	for (size_t i = 0; strs[i]; i++)
		ut_null(o, strs[i]);
	assert_string_equal(ut_str(o, "comm"), "worker");
	assert_int_equal(ut_u64(o, "ppid"), 77);
	assert_string_equal(ut_str(o, "image"), "preexisting");
	assert_true(ut_bool(o, "partial"));
	assert_int_equal(json_object_array_length(ut_arr(o, "ancestors")), 0);
	ut_null(o, "binary");
	json_object_put(o);
	o = rec(f, 1);
	assert_string_equal(ut_str(o, "image"), "fork");
	assert_false(ut_bool(o, "partial"));
	json_object_put(o);
}

static void test_images_comm_without_nul_is_bounded(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "", 10);
	memset(f->p.id.comm, 'A', sizeof(f->p.id.comm)); /* no terminator */
	end_(f, PID(1), &f->p, 11 * SEC, PL_END_EXIT, 0);
	o = rec(f, 0);
	/* the kernel's comm is at most 15 bytes: the 16th is where its NUL belongs */
	assert_string_equal(ut_str(o, "comm"), "AAAAAAAAAAAAAAA");
	json_object_put(o);
}

/* At shutdown: the totals so far, end_reason running, no exit status; the
 * process stays in the table and its keys in the kernel's. */
static void test_images_running_at_shutdown_is_written_with_its_totals(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "svc", 10), "/nonexistent-plumbline/svc", "svc", 3);
	fail_(f, PID(1), 11, 2, "/etc/svc.conf", false, 3);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "svc", 10);
	f->p.st.cpu_ns = 4 * SEC;
	f->p.st.open_fail = 3;
	images__running(f->im, PID(1), &f->p, 100 * SEC);
	o = rec(f, 1);
	assert_string_equal(ut_str(o, "type"), "process");
	assert_string_equal(ut_str(o, "end_reason"), "running");
	assert_int_equal(ut_u64(o, "end_ns"), 100 * SEC + M2R);
	assert_int_equal(ut_u64(o, "duration_ns"), 90 * SEC);
	ut_null(o, "exit_code");
	ut_null(o, "exit_signal");
	assert_int_equal(ut_u64(o, "cpu_ns"), 4 * SEC);
	assert_int_equal(ut_u64(json_object_array_get_idx(ut_arr(o, "open_fail_paths"), 0), "count"), 3);
	assert_false(ut_bool(o, "open_fail_paths_incomplete"));
	assert_string_equal(ut_str(o, "exe"), "/nonexistent-plumbline/svc");
	json_object_put(o);
	assert_non_null(proctable__get(f->procs, PID(1)));
	assert_int_equal(fake_failpaths__size(&f->k), 1);
}

/* Shutdown: the walk writes what still runs; the ring is then drained
 * again, and the end of an image the walk wrote is dropped (counted), while
 * the end of one the walk no longer found (its final switch came between
 * the first drain and the walk) is written as any end is. */
static void test_images_end_after_the_shutdown_walk_is_written_once(void **state)
{
	struct fx *f = *state;
	struct json_object *o;
	struct pl_proc q;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "svc", 10), "/nonexistent-plumbline/svc", "svc", 3);
	exec_(f, PID(2), ident(1, 12, PL_PROC_EXECED, 102, "job", 10), "/nonexistent-plumbline/job", "job", 3);
	assert_int_equal(nrecords(f), 2);
	images__closing(f->im);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "svc", 10);
	f->p.st.cpu_ns = 4 * SEC;
	images__running(f->im, PID(1), &f->p, 100 * SEC);
	assert_int_equal(nrecords(f), 3);
	/* svc ends after the walk: already written */
	end_(f, PID(1), &f->p, 100 * SEC + MS, PL_END_EXIT, 0);
	assert_int_equal(nrecords(f), 3);
	assert_int_equal(images__stats(f->im)->ended_after_running, 1);
	/* job ended before the walk, its end read only now: written */
	memset(&q, 0, sizeof(q));
	q.id = ident(1, 12, PL_PROC_EXECED, 102, "job", 10);
	q.st.cpu_ns = 2 * SEC;
	end_(f, PID(2), &q, 99 * SEC, PL_END_EXIT, 0);
	assert_int_equal(nrecords(f), 4);
	o = rec(f, 3);
	assert_string_equal(ut_str(o, "type"), "process");
	assert_string_equal(ut_str(o, "end_reason"), "exit");
	assert_int_equal(ut_u64(o, "pid"), PID(2));
	assert_int_equal(ut_u64(o, "cpu_ns"), 2 * SEC);
	json_object_put(o);
	/* another image of the walked pid (an exec after the walk) is not the one written */
	f->p.id.image_id = 13;
	end_(f, PID(1), &f->p, 100 * SEC + 2 * MS, PL_END_EXIT, 0);
	assert_int_equal(nrecords(f), 5);
	assert_int_equal(images__stats(f->im)->ended_after_running, 1);
}

/* ---- what the ring buffer must not be trusted with ---- */

static void test_images_invalid_records_are_counted_and_ignored(void **state)
{
	struct fx *f = *state;
	struct pl_ev_exec ev = {.hdr = hdr(PL_EV_EXEC, sizeof(ev), PID(1))};
	struct pl_ev_proc pr = {.hdr = hdr(PL_EV_FORK, sizeof(pr), PID(2))};
	const struct images_stats *st = images__stats(f->im);

	ev.id = ident(1, 11, PL_PROC_EXECED, 101, "x", 10);
	pr.id = ident(1, 21, PL_PROC_FORKED, 101, "x", 10);
	/* shorter than a header */
	images__on_record(f->im, &ev, sizeof(ev.hdr) - 1);
	images__on_record(f->im, &ev, 0);
	/* shorter than its type says */
	images__on_record(f->im, &ev, sizeof(ev) - 8);
	/* another ABI */
	ev.hdr.version = PL_ABI_VERSION + 1;
	images__on_record(f->im, &ev, sizeof(ev));
	ev.hdr.version = PL_ABI_VERSION;
	/* types that don't exist */
	ev.hdr.type = 0;
	images__on_record(f->im, &ev, sizeof(ev));
	ev.hdr.type = PL_EV_FAIL_PATH + 1;
	images__on_record(f->im, &ev, sizeof(ev));
	ev.hdr.type = 0xffff;
	images__on_record(f->im, &ev, sizeof(ev));
	ev.hdr.type = PL_EV_EXEC;
	/* a size field that isn't its type's */
	ev.hdr.size = sizeof(ev) + 8;
	images__on_record(f->im, &ev, sizeof(ev));
	/* an exec record that says it is a fork: the sizes disagree */
	ev.hdr.size = sizeof(ev);
	ev.hdr.type = PL_EV_FORK;
	images__on_record(f->im, &ev, sizeof(ev));
	/* a fork record that says it is an exec: too short for one */
	pr.hdr.type = PL_EV_EXEC;
	images__on_record(f->im, &pr, sizeof(pr));
	assert_int_equal(st->invalid, 10);
	for (int t = 0; t <= PL_EV_FAIL_PATH; t++)
		assert_int_equal(st->records[t], 0);
	assert_int_equal(proctable__count(f->procs), 0);
	assert_int_equal(nrecords(f), 0);

	/* the same records, valid, are taken */
	ev.hdr.type = PL_EV_EXEC;
	images__on_record(f->im, &ev, sizeof(ev));
	pr.hdr.type = PL_EV_FORK;
	images__on_record(f->im, &pr, sizeof(pr));
	assert_int_equal(st->invalid, 10);
	assert_int_equal(st->records[PL_EV_EXEC], 1);
	assert_int_equal(st->records[PL_EV_FORK], 1);
	assert_int_equal(proctable__count(f->procs), 2);
	assert_int_equal(nrecords(f), 1);
}

/* A FAIL_PATH record of an image user space doesn't know is not remembered. */
static void test_images_fail_path_of_an_unknown_image_is_not_remembered(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "app", 10), "/nonexistent-plumbline/app", "app", 3);
	fail_(f, PID(1), 99, 2, "/old-image", false, 1);
	fail_(f, PID(2), 11, 2, "/other-process", false, 1);
	assert_int_equal(images__stats(f->im)->records[PL_EV_FAIL_PATH], 2);
	assert_int_equal(failpaths__stats(f->fails)->unremembered, 2);
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 11, PL_PROC_EXECED, 101, "app", 10);
	f->p.st.open_fail = 1;
	end_(f, PID(1), &f->p, 11 * SEC, PL_END_EXIT, 0);
	o = rec(f, 1);
	assert_int_equal(json_object_array_length(ut_arr(o, "open_fail_paths")), 0);
	assert_true(ut_bool(o, "open_fail_paths_incomplete"));
	json_object_put(o);
}

static void test_images_start_records_beyond_the_table_are_counted(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	exec_(f, PID(1), ident(1, 11, PL_PROC_EXECED, 101, "a", 10), "/nonexistent-plumbline/a", "a", 1);
	exec_(f, PID(2), ident(1, 21, PL_PROC_EXECED, 102, "b", 10), "/nonexistent-plumbline/b", "b", 1);
	exec_(f, PID(3), ident(1, 31, PL_PROC_EXECED, 103, "c", 10), "/nonexistent-plumbline/c", "c", 1);
	proc_(f, PL_EV_SEEN, PID(4), ident(1, 41, PL_PROC_PARTIAL, 104, "d", 10));
	assert_int_equal(images__stats(f->im)->proctable_full, 2);
	assert_int_equal(proctable__count(f->procs), 2);
	assert_int_equal(nrecords(f), 2); /* no image, no exec record */
	/* its end is still written, with what the kernel said */
	memset(&f->p, 0, sizeof(f->p));
	f->p.id = ident(1, 31, PL_PROC_EXECED, 103, "c", 10);
	end_(f, PID(3), &f->p, 11 * SEC, PL_END_EXIT, 0);
	o = rec(f, 2);
	assert_string_equal(ut_str(o, "comm"), "c");
	ut_null(o, "exe");
	json_object_put(o);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_images_exec_record_has_identity_parent_and_ancestors),
	    T(test_images_exec_filename_truncated_and_arguments_bounded),
	    T(test_images_fork_child_inherits_its_parent_image_and_its_exec_is_a_step),
	    T(test_images_build_tools_are_keyed_by_the_outermost_driver_from_records),
	    T(test_images_fork_of_another_exe_and_seen_process_resolve_themselves),
	    T(test_images_window_is_the_delta_since_the_last_window),
	    T(test_images_window_reads_failed_paths_and_the_binary_second),
	    T(test_images_window_of_an_unknown_image_is_skipped),
	    T(test_images_end_gives_exit_code_or_signal_and_consumes_failed_paths),
	    T(test_images_end_adds_to_the_binary_second),
	    T(test_images_end_without_proc_info_has_null_strings),
	    T(test_images_comm_without_nul_is_bounded),
	    T(test_images_running_at_shutdown_is_written_with_its_totals),
	    T(test_images_end_after_the_shutdown_walk_is_written_once),
	    T(test_images_invalid_records_are_counted_and_ignored),
	    T(test_images_fail_path_of_an_unknown_image_is_not_remembered),
	    cmocka_unit_test_setup_teardown(test_images_start_records_beyond_the_table_are_counted, setup_small_table,
					    teardown),
	};
#undef T

	log_set_level(LOG_LVL_WARN);
	return cmocka_run_group_tests_name("images", tests, NULL, NULL);
}
