// SPDX-License-Identifier: MIT
/*
 * test_record.c - record__process / record__window JSON: exact values from a
 * hand-built pl_proc + proc_info, and hostile strings that must not forge a
 * line or a field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "identity.h"
#include "plumbline.h"
#include "proctable.h"
#include "record.h"
#include "record_event.h"
#include "syscalls.h"
#include "textsafe.h"

#define MONO_TO_REAL 1700000000000000000ll
#define TGID 4242

struct fixture {
	struct pl_proc p;
	struct proc_info pi;
	struct fail_ref refs[2];
	struct fail_count fails[2];
	int nr_getppid, nr_openat, nr_read, nr_close;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->nr_getppid = syscall_number("getppid");
	f->nr_openat = syscall_number("openat");
	f->nr_read = syscall_number("read");
	f->nr_close = syscall_number("close");
	if (f->nr_getppid < 0 || f->nr_openat < 0 || f->nr_read < 0 || f->nr_close < 0) {
		free(f);
		return -1;
	}

	f->p.id.ppid = 1;
	f->p.id.uid = 1000;
	memcpy(f->p.id.comm, "worker", 7);
	f->p.id.flags = PL_PROC_EXECED;
	f->p.id.proc_start_ns = 1000;
	f->p.id.image_start_ns = 2000;
	f->p.id.image_id = 99;
	f->p.id.cgroup_id = 77;
	f->p.id.exe_ino = 123456;
	f->p.id.exe_dev = (8u << 20) | 1;
	f->p.id.threads = 3;
	f->p.st.cpu_ns = 5000000;
	f->p.st.offcpu_ns = 3000;
	f->p.st.runq_ns = 1000;
	f->p.st.ctx_switches = 7;
	f->p.st.sc[f->nr_getppid] = 5;
	f->p.st.sc[f->nr_openat] = 9;
	f->p.st.sc[f->nr_read] = 2;
	f->p.st.sc[f->nr_close] = 2;
	f->p.st.sc_other = 4;
	/* 5 ENOENT + 1 EACCES failures, all of them with their path listed */
	f->p.st.open_fail = 6;
	f->p.st.open_fail_errno[2] = 5;  /* ENOENT */
	f->p.st.open_fail_errno[13] = 1; /* EACCES */

	f->pi.tgid = TGID;
	f->pi.image_id = 99;
	memcpy(f->pi.exec_comm, "worker", 7);
	f->pi.exe = strdup("/usr/bin/worker");
	f->pi.build_id = strdup("0123abcd");
	f->pi.filename = strdup("./worker");
	f->pi.cmdline = strdup("worker --serve");

	f->refs[0].key = (struct pl_fail_key){ .image_id = 99, .tgid = TGID, .err = 2 };
	memcpy(f->refs[0].key.path, "/etc/worker.conf", 17);
	f->refs[1].key = (struct pl_fail_key){ .image_id = 99, .tgid = TGID, .err = 13 };
	memcpy(f->refs[1].key.path, "/root/secret", 13);
	f->refs[1].truncated = true;
	f->fails[0] = (struct fail_count){ .ref = &f->refs[0], .count = 5 };
	f->fails[1] = (struct fail_count){ .ref = &f->refs[1], .count = 1 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	free(f->pi.exe);
	free(f->pi.build_id);
	free(f->pi.filename);
	free(f->pi.cmdline);
	free(f);
	return 0;
}

/* --- small accessors that fail the test when the shape is wrong --- */

static struct json_object *field(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("field \"%s\" missing", key);
	return v;
}

static uint64_t u64_field(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("field \"%s\" is not an integer", key);
	return json_object_get_uint64(v);
}

static int64_t i64_field(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("field \"%s\" is not an integer", key);
	return json_object_get_int64(v);
}

static const char *str_field(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	if (!json_object_is_type(v, json_type_string))
		fail_msg("field \"%s\" is not a string", key);
	return json_object_get_string(v);
}

static int bool_field(struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	if (!json_object_is_type(v, json_type_boolean))
		fail_msg("field \"%s\" is not a boolean", key);
	return json_object_get_boolean(v);
}

static void assert_null_field(struct json_object *o, const char *key)
{
	if (field(o, key) != NULL)
		fail_msg("field \"%s\" should be null", key);
}

/* Assert that object o has exactly the keys in `keys` (NULL-terminated), in order. */
static void assert_keys(struct json_object *o, const char *const *keys)
{
	size_t i = 0;

	json_object_object_foreach(o, k, v)
	{
		(void)v;
		if (!keys[i])
			fail_msg("unexpected extra key \"%s\"", k);
		assert_string_equal(k, keys[i]);
		i++;
	}
	if (keys[i])
		fail_msg("key \"%s\" missing", keys[i]);
}

static const char *const identity_keys[] = { "pid", "ppid", "uid", "comm", "exec_comm", "exe", "exe_dev",
					     "exe_ino", "build_id", "filename", "filename_truncated", "cmdline", "cgroup_id",
					     "cgroup", "image", "partial", "start_ns", "image_start_ns",
					     "threads" };
static const char *const stats_keys[] = { "cpu_ns", "offcpu_ns", "runq_ns", "blocked_ns", "ctx_switches",
					  "syscalls", "syscalls_by_name", "syscalls_other", "open_failures",
					  "open_fail_by_errno", "open_fail_unrecorded" };

static void process_keys(const char **out, size_t cap)
{
	size_t n = 0;

	out[n++] = "type";
	for (size_t i = 0; i < sizeof(identity_keys) / sizeof(identity_keys[0]); i++)
		out[n++] = identity_keys[i];
	out[n++] = "end_ns";
	out[n++] = "duration_ns";
	out[n++] = "end_reason";
	out[n++] = "exit_code";
	out[n++] = "exit_signal";
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++)
		out[n++] = stats_keys[i];
	out[n++] = "open_fail_paths";
	out[n++] = "open_fail_paths_incomplete";
	assert_true(n < cap);
	out[n] = NULL;
}

static struct json_object *make_process(struct fixture *f, const struct proc_info *pi, const char *reason, int has_exit,
					int32_t status)
{
	struct record_end end = { .end_ns = 9000, .reason = reason, .has_exit = has_exit, .exit_status = status };
	struct json_object *o = record__process(TGID, pi, &f->p, "/system.slice/worker.service", f->fails, 2, &end,
						MONO_TO_REAL);

	assert_non_null(o);
	return o;
}

/* --- tests --- */

static void test_record_process_has_exact_identity_fields(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "exit", 1, 3 << 8);
	const char *keys[64];

	process_keys(keys, 64);
	assert_keys(o, keys);
	assert_string_equal(str_field(o, "type"), "process");
	assert_int_equal(u64_field(o, "pid"), TGID);
	assert_int_equal(u64_field(o, "ppid"), 1);
	assert_int_equal(u64_field(o, "uid"), 1000);
	assert_string_equal(str_field(o, "comm"), "worker");
	assert_string_equal(str_field(o, "exec_comm"), "worker");
	assert_string_equal(str_field(o, "exe"), "/usr/bin/worker");
	assert_string_equal(str_field(o, "exe_dev"), "8:1");
	assert_int_equal(u64_field(o, "exe_ino"), 123456);
	assert_string_equal(str_field(o, "build_id"), "0123abcd");
	assert_string_equal(str_field(o, "filename"), "./worker");
	assert_false(bool_field(o, "filename_truncated"));
	assert_string_equal(str_field(o, "cmdline"), "worker --serve");
	assert_int_equal(u64_field(o, "cgroup_id"), 77);
	assert_string_equal(str_field(o, "cgroup"), "/system.slice/worker.service");
	assert_string_equal(str_field(o, "image"), "exec");
	assert_false(bool_field(o, "partial"));
	assert_int_equal(u64_field(o, "start_ns"), (uint64_t)MONO_TO_REAL + 1000);
	assert_int_equal(u64_field(o, "image_start_ns"), (uint64_t)MONO_TO_REAL + 2000);
	assert_int_equal(u64_field(o, "threads"), 3);
	assert_int_equal(u64_field(o, "end_ns"), (uint64_t)MONO_TO_REAL + 9000);
	assert_int_equal(u64_field(o, "duration_ns"), 7000);
	assert_string_equal(str_field(o, "end_reason"), "exit");
	json_object_put(o);
}

static void test_record_process_exit_status_gives_exit_code(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "exit", 1, 3 << 8);

	assert_int_equal(i64_field(o, "exit_code"), 3);
	assert_null_field(o, "exit_signal");
	json_object_put(o);

	o = make_process(f, &f->pi, "exit", 1, 0);
	assert_int_equal(i64_field(o, "exit_code"), 0);
	assert_null_field(o, "exit_signal");
	json_object_put(o);

	o = make_process(f, &f->pi, "exit", 1, 255 << 8);
	assert_int_equal(i64_field(o, "exit_code"), 255);
	json_object_put(o);
}

static void test_record_process_killed_gives_exit_signal(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "exit", 1, 9);

	assert_null_field(o, "exit_code");
	assert_int_equal(i64_field(o, "exit_signal"), 9);
	json_object_put(o);

	/* SIGSEGV with core dump flag (0x80) */
	o = make_process(f, &f->pi, "exit", 1, 0x80 | 11);
	assert_null_field(o, "exit_code");
	assert_int_equal(i64_field(o, "exit_signal"), 11);
	json_object_put(o);
}

static void test_record_process_without_exit_has_null_code_and_signal(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "running", 0, 3 << 8);

	assert_string_equal(str_field(o, "end_reason"), "running");
	assert_null_field(o, "exit_code");
	assert_null_field(o, "exit_signal");
	json_object_put(o);
}

static void test_record_process_stats_are_exact(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "exit", 1, 0);

	assert_int_equal(u64_field(o, "cpu_ns"), 5000000);
	assert_int_equal(u64_field(o, "offcpu_ns"), 3000);
	assert_int_equal(u64_field(o, "runq_ns"), 1000);
	assert_int_equal(u64_field(o, "blocked_ns"), 2000);
	assert_int_equal(u64_field(o, "ctx_switches"), 7);
	/* 5 getppid + 9 openat + 2 read + 2 close + 4 other */
	assert_int_equal(u64_field(o, "syscalls"), 22);
	assert_int_equal(stats__syscalls(&f->p.st), 22);
	assert_int_equal(u64_field(o, "syscalls_other"), 4);
	assert_int_equal(u64_field(o, "open_failures"), 6);
	assert_int_equal(u64_field(o, "open_fail_unrecorded"), 0);
	json_object_put(o);
}

static void test_record_syscalls_by_name_sorted_by_count_desc(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "exit", 1, 0);
	struct json_object *by = field(o, "syscalls_by_name");
	/* ties (read, close: 2 each) ordered by syscall number: read (0) < close (3) */
	static const char *const want_names[] = { "openat", "getppid", "read", "close", NULL };
	static const uint64_t want_counts[] = { 9, 5, 2, 2 };
	size_t i = 0;

#if defined(__x86_64__)
	assert_int_equal(f->nr_getppid, 110);
	assert_int_equal(f->nr_openat, 257);
#endif
	assert_true(json_object_is_type(by, json_type_object));
	assert_keys(by, want_names);
	json_object_object_foreach(by, k, v)
	{
		(void)k;
		assert_int_equal(json_object_get_uint64(v), want_counts[i]);
		i++;
	}
	json_object_put(o);
}

static void test_record_syscall_without_name_is_sys_nr(void **state)
{
	struct fixture *f = *state;
	struct pl_proc *p = &f->p;
	struct record_end end = { .end_ns = 9000, .reason = "exit" };
	struct json_object *o, *by;
	int nr = -1;

	/* find a slot below PL_NR_SYSCALLS without a name (a hole in the table) */
	for (int i = PL_NR_SYSCALLS - 1; i >= 0; i--) {
		if (!syscall_name((unsigned)i)) {
			nr = i;
			break;
		}
	}
	if (nr < 0)
		skip();
	memset(&p->st, 0, sizeof(p->st));
	p->st.sc[nr] = 1;
	o = record__process(TGID, NULL, p, NULL, NULL, 0, &end, 0);
	assert_non_null(o);
	by = field(o, "syscalls_by_name");
	{
		char want[32];
		const char *const keys[] = { want, NULL };

		snprintf(want, sizeof(want), "sys_%d", nr);
		assert_keys(by, keys);
		assert_int_equal(u64_field(by, want), 1);
	}
	assert_int_equal(u64_field(o, "syscalls"), 1);
	json_object_put(o);
}

static void test_record_open_fail_by_errno_uses_names(void **state)
{
	struct fixture *f = *state;
	struct json_object *o, *by;
	static const char *const keys[] = { "ENOENT", "EACCES", "other", NULL };

	f->p.st.open_fail_errno[PL_NR_ERRNO - 1] = 1; /* errno >= 63 */
	f->p.st.open_fail_errno[2] = 2;
	o = make_process(f, &f->pi, "exit", 1, 0);
	by = field(o, "open_fail_by_errno");
	assert_keys(by, keys);
	assert_int_equal(u64_field(by, "ENOENT"), 2);
	assert_int_equal(u64_field(by, "EACCES"), 1);
	assert_int_equal(u64_field(by, "other"), 1);
	json_object_put(o);
}

static void test_record_open_fail_paths_entries(void **state)
{
	struct fixture *f = *state;
	struct json_object *o = make_process(f, &f->pi, "exit", 1, 0);
	struct json_object *paths = field(o, "open_fail_paths"), *e;
	static const char *const keys[] = { "path", "errno", "errno_name", "count", "truncated", NULL };

	assert_true(json_object_is_type(paths, json_type_array));
	assert_int_equal(json_object_array_length(paths), 2);
	e = json_object_array_get_idx(paths, 0);
	assert_keys(e, keys);
	assert_string_equal(str_field(e, "path"), "/etc/worker.conf");
	assert_int_equal(i64_field(e, "errno"), 2);
	assert_string_equal(str_field(e, "errno_name"), "ENOENT");
	assert_int_equal(u64_field(e, "count"), 5);
	assert_false(bool_field(e, "truncated"));
	e = json_object_array_get_idx(paths, 1);
	assert_string_equal(str_field(e, "path"), "/root/secret");
	assert_int_equal(i64_field(e, "errno"), 13);
	assert_string_equal(str_field(e, "errno_name"), "EACCES");
	assert_int_equal(u64_field(e, "count"), 1);
	assert_true(bool_field(e, "truncated"));
	assert_false(bool_field(o, "open_fail_paths_incomplete"));
	json_object_put(o);
}

static void test_record_open_fail_paths_incomplete_when_counts_fall_short(void **state)
{
	struct fixture *f = *state;
	struct record_end end = { .end_ns = 9000, .reason = "exit" };
	struct json_object *o;

	/* only the first of the two paths: 5 of 6 failures listed */
	o = record__process(TGID, &f->pi, &f->p, NULL, f->fails, 1, &end, 0);
	assert_non_null(o);
	assert_true(bool_field(o, "open_fail_paths_incomplete"));
	json_object_put(o);

	/* a failure whose path did not fit the kernel table */
	f->p.st.open_fail++;
	f->p.st.open_fail_unrecorded = 1;
	o = make_process(f, &f->pi, "exit", 1, 0);
	assert_true(bool_field(o, "open_fail_paths_incomplete"));
	assert_int_equal(u64_field(o, "open_fail_unrecorded"), 1);
	json_object_put(o);
}

static void test_record_process_without_proc_info_has_null_strings(void **state)
{
	struct fixture *f = *state;
	struct json_object *o;

	f->p.id.flags = PL_PROC_PARTIAL;
	o = make_process(f, NULL, "exit", 1, 0);
	assert_null_field(o, "exec_comm");
	assert_null_field(o, "exe");
	assert_null_field(o, "build_id");
	assert_null_field(o, "filename");
	assert_null_field(o, "cmdline");
	assert_string_equal(str_field(o, "comm"), "worker");
	assert_string_equal(str_field(o, "image"), "preexisting");
	assert_true(bool_field(o, "partial"));
	json_object_put(o);

	f->p.id.flags = PL_PROC_FORKED;
	o = make_process(f, NULL, "exit", 1, 0);
	assert_string_equal(str_field(o, "image"), "fork");
	assert_false(bool_field(o, "partial"));
	json_object_put(o);
}

static void test_record_comm_without_nul_is_bounded(void **state)
{
	struct fixture *f = *state;
	struct json_object *o;

	memset(f->p.id.comm, 'A', sizeof(f->p.id.comm)); /* no terminator */
	o = make_process(f, &f->pi, "exit", 1, 0);
	assert_string_equal(str_field(o, "comm"), "AAAAAAAAAAAAAAAA");
	json_object_put(o);
}

static void test_record_window_is_delta_against_prev(void **state)
{
	struct fixture *f = *state;
	struct pl_stats *prev = calloc(1, sizeof(*prev));
	struct json_object *o, *by;
	static const char *const by_keys[] = { "openat", "read", "close", NULL };
	static const char *const errno_keys[] = { "ENOENT", "other", NULL };

	f->p.st.open_fail_errno[PL_NR_ERRNO - 1] = 1;
	f->p.st.open_fail = 7;
	const char *keys[64];
	size_t n = 0;

	assert_non_null(prev);
	prev->cpu_ns = 2000000;
	prev->offcpu_ns = 5000; /* greater than now: counter went back, delta clamps to 0 */
	prev->runq_ns = 500;
	prev->ctx_switches = 3;
	prev->sc[f->nr_getppid] = 5; /* unchanged: absent from syscalls_by_name */
	prev->sc[f->nr_openat] = 4;
	prev->sc_other = 1;
	prev->open_fail = 1;
	prev->open_fail_errno[13] = 1;

	o = record__window(TGID, &f->pi, &f->p, "/c", prev, 100, 1100, MONO_TO_REAL);
	assert_non_null(o);
	keys[n++] = "type";
	for (size_t i = 0; i < sizeof(identity_keys) / sizeof(identity_keys[0]); i++)
		keys[n++] = identity_keys[i];
	keys[n++] = "window_start_ns";
	keys[n++] = "window_end_ns";
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++)
		keys[n++] = stats_keys[i];
	keys[n] = NULL;
	assert_keys(o, keys);

	assert_string_equal(str_field(o, "type"), "window");
	assert_int_equal(u64_field(o, "pid"), TGID);
	assert_int_equal(u64_field(o, "start_ns"), (uint64_t)MONO_TO_REAL + 1000);
	assert_int_equal(u64_field(o, "window_start_ns"), (uint64_t)MONO_TO_REAL + 100);
	assert_int_equal(u64_field(o, "window_end_ns"), (uint64_t)MONO_TO_REAL + 1100);
	assert_int_equal(u64_field(o, "cpu_ns"), 3000000);
	assert_int_equal(u64_field(o, "offcpu_ns"), 0);
	assert_int_equal(u64_field(o, "runq_ns"), 500);
	assert_int_equal(u64_field(o, "blocked_ns"), 0);
	assert_int_equal(u64_field(o, "ctx_switches"), 4);
	/* (9-4) openat + 2 read + 2 close + (4-1) other */
	assert_int_equal(u64_field(o, "syscalls"), 12);
	assert_int_equal(u64_field(o, "syscalls_other"), 3);
	by = field(o, "syscalls_by_name");
	assert_keys(by, by_keys);
	assert_int_equal(u64_field(by, "openat"), 5);
	assert_int_equal(u64_field(by, "read"), 2);
	assert_int_equal(u64_field(by, "close"), 2);
	assert_int_equal(u64_field(o, "open_failures"), 6);
	by = field(o, "open_fail_by_errno");
	assert_keys(by, errno_keys);
	assert_int_equal(u64_field(by, "ENOENT"), 5);
	assert_int_equal(u64_field(by, "other"), 1);
	json_object_put(o);

	/* prev NULL: since image start, i.e. the totals */
	o = record__window(TGID, &f->pi, &f->p, NULL, NULL, 100, 1100, 0);
	assert_non_null(o);
	assert_int_equal(u64_field(o, "cpu_ns"), 5000000);
	assert_int_equal(u64_field(o, "syscalls"), 22);
	assert_int_equal(u64_field(o, "window_start_ns"), 100);
	assert_null_field(o, "cgroup");
	json_object_put(o);
	free(prev);
}

/* The bytes a hostile process controls, and what they must become. */
static const char hostile[] = "/tmp/a\nb\"c\\d\xff\xfe{\"pid\":1,\"x\":\"\n{\"type\":\"forged\"}";
static const char hostile_escaped[] = "/tmp/a\\x0Ab\"c\\x5Cd\\xFF\\xFE{\"pid\":1,\"x\":\"\\x0A{\"type\":\"forged\"}";

static void test_record_hostile_strings_cannot_forge_line_or_field(void **state)
{
	struct fixture *f = *state;
	struct json_object *o, *back, *paths, *e;
	struct json_tokener *tok;
	const char *line;
	const char *keys[64];
	size_t len;

	_Static_assert(sizeof(hostile) <= PL_PATH_LEN, "hostile path fits");
	memcpy(f->refs[0].key.path, hostile, sizeof(hostile));
	free(f->pi.exe);
	f->pi.exe = strdup(hostile);
	free(f->pi.cmdline);
	f->pi.cmdline = strdup(hostile);
	o = make_process(f, &f->pi, "exit", 1, 0);

	/* the same flags as the JSONL backend */
	line = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	assert_non_null(line);
	assert_int_equal(strlen(line), len);
	assert_null(memchr(line, '\n', len));
	assert_null(memchr(line, '\r', len));

	tok = json_tokener_new();
	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, line, (int)len);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	assert_int_equal(json_tokener_get_parse_end(tok), len); /* nothing after the object */
	json_tokener_free(tok);
	assert_non_null(back);

	process_keys(keys, 64);
	assert_keys(back, keys);
	assert_string_equal(str_field(back, "type"), "process");
	assert_int_equal(u64_field(back, "pid"), TGID);
	assert_string_equal(str_field(back, "exe"), hostile_escaped);
	assert_string_equal(str_field(back, "cmdline"), hostile_escaped);
	paths = field(back, "open_fail_paths");
	assert_int_equal(json_object_array_length(paths), 2);
	e = json_object_array_get_idx(paths, 0);
	{
		static const char *const ekeys[] = { "path", "errno", "errno_name", "count", "truncated", NULL };

		assert_keys(e, ekeys);
	}
	assert_string_equal(str_field(e, "path"), hostile_escaped);
	assert_int_equal(i64_field(e, "errno"), 2);

	/* json_tokener_parse (the simple API) agrees */
	json_object_put(back);
	back = json_tokener_parse(line);
	assert_non_null(back);
	assert_string_equal(str_field(back, "exe"), hostile_escaped);
	json_object_put(back);
	json_object_put(o);
}

/* An exe path as identity.c resolves it (here: the process is gone, so the
 * exec'd filename) is written escaped exactly once. */
static void test_record_exe_from_identity_is_escaped_once(void **state)
{
	struct fixture *f = *state;
	struct identity *id = NULL;
	struct exe_info exe;
	struct json_object *o;

	assert_int_equal(identity__new("", &id), 0);
	/* no such pid: /proc/PID/exe can't be read, the filename is the path */
	identity__resolve_exe(id, 1073741823, f->p.id.exe_dev, f->p.id.exe_ino, "/nonexistent-plumbline/q\"uo\\te", &exe);
	assert_non_null(exe.path);
	free(f->pi.exe);
	f->pi.exe = exe.path;
	exe.path = NULL;
	o = make_process(f, &f->pi, "exit", 1, 0);
	/* the JSON string decodes to q"uo\x5Cte: one backslash escaped once */
	assert_string_equal(str_field(o, "exe"), "/nonexistent-plumbline/q\"uo\\x5Cte");
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "q\\\"uo\\\\x5Cte"));
	json_object_put(o);
	exe_info__clear(&exe);
	identity__free(id);
}

/* An argument byte that is not UTF-8 is \xFF in the record, not \x5CxFF. */
static void test_record_cmdline_argument_byte_is_escaped_once(void **state)
{
	static const char args[] = "/bin/tool\0--x\0\xff\0";
	struct fixture *f = *state;
	struct json_object *o;

	free(f->pi.cmdline);
	f->pi.cmdline = text_cmdline(args, sizeof(args) - 1);
	assert_non_null(f->pi.cmdline);
	o = make_process(f, &f->pi, "exit", 1, 0);
	assert_string_equal(str_field(o, "cmdline"), "/bin/tool --x \\xFF");
	json_object_put(o);
}

/* The record as written, then read back as replay reads it. */
static struct json_object *written_and_read(struct json_object *o)
{
	struct json_object *back =
		json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

	assert_non_null(back);
	json_object_put(o);
	return back;
}

static void assert_event_raw(const struct rl_event *e, enum rl_field fld, const char *want)
{
	if (!rl_event__has(e, fld))
		fail_msg("field %d absent", (int)fld);
	assert_string_equal(e->str[fld], want);
}

/* Rules see the raw bytes, the same at exec, window and exit, whatever the
 * escaping of the record: record_event undoes it once. */
static void test_record_event_sees_raw_bytes_at_every_moment(void **state)
{
	static const char exe[] = "/tmp/q\"uo\\te\r\nALERT\x1b[2J\xc2\x9b\xe2\x80\xae\xff";
	static const char cmd[] = "q\"uo\\te \\x41 \xff";
	struct fixture *f = *state;
	struct rl_record_event re = { 0 };
	struct json_object *proc, *win;
	struct pl_stats prev = f->p.st;

	free(f->pi.exe);
	f->pi.exe = strdup(exe);
	free(f->pi.cmdline);
	f->pi.cmdline = strdup(cmd);
	free(f->pi.filename);
	f->pi.filename = strdup(exe);
	memcpy(f->p.id.comm, "a\\b\x1b", 5);
	memcpy(f->refs[0].key.path, exe, sizeof(exe));
	proc = written_and_read(make_process(f, &f->pi, "exit", 1, 0));
	prev.cpu_ns -= 1000;
	win = written_and_read(record__window(TGID, &f->pi, &f->p, "/", &prev, 1000, 1000 + 1000000000ull, 0));

	assert_int_equal(rl_record_event__fill(&re, proc, RL_KIND_EXEC), 0);
	assert_event_raw(&re.ev, RL_F_PROC_EXE, exe);
	assert_event_raw(&re.ev, RL_F_PROC_EXE_NAME, "q\"uo\\te\r\nALERT\x1b[2J\xc2\x9b\xe2\x80\xae\xff");
	assert_event_raw(&re.ev, RL_F_PROC_CMDLINE, cmd);
	assert_event_raw(&re.ev, RL_F_PROC_FILENAME, exe);
	assert_event_raw(&re.ev, RL_F_PROC_NAME, "a\\b\x1b");
	assert_int_equal(rl_record_event__fill(&re, proc, RL_KIND_EXIT), 0);
	assert_event_raw(&re.ev, RL_F_PROC_EXE, exe);
	assert_event_raw(&re.ev, RL_F_PROC_CMDLINE, cmd);
	assert_event_raw(&re.ev, RL_F_PROC_TOP_FAIL_PATH, exe);
	assert_int_equal(rl_record_event__fill(&re, win, RL_KIND_WINDOW), 0);
	assert_event_raw(&re.ev, RL_F_PROC_EXE, exe);
	assert_event_raw(&re.ev, RL_F_PROC_CMDLINE, cmd);
	assert_event_raw(&re.ev, RL_F_PROC_NAME, "a\\b\x1b");
	rl_record_event__release(&re);
	json_object_put(proc);
	json_object_put(win);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record_process_has_exact_identity_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_process_exit_status_gives_exit_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_process_killed_gives_exit_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_process_without_exit_has_null_code_and_signal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_record_process_stats_are_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_syscalls_by_name_sorted_by_count_desc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_syscall_without_name_is_sys_nr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_open_fail_by_errno_uses_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_open_fail_paths_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_open_fail_paths_incomplete_when_counts_fall_short,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_process_without_proc_info_has_null_strings, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_record_comm_without_nul_is_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_window_is_delta_against_prev, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_exe_from_identity_is_escaped_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_cmdline_argument_byte_is_escaped_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_event_sees_raw_bytes_at_every_moment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_hostile_strings_cannot_forge_line_or_field, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
