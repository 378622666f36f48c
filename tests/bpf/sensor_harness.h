/* SPDX-License-Identifier: MIT */
/*
 * sensor_harness.h - what every test in tests/bpf/ shares: the BPF check of
 * a test group (skip without BPF, fail instead under PLUMBLINE_REQUIRE_BPF=1),
 * the real sensor started, stopped and cleaned up (even after a failed
 * assertion), programs run under it, its records read back and kept for
 * schema_records. docs/contributing.md#writing-a-bpf-test shows a test.
 */
#ifndef PL_SENSOR_HARNESS_H
#define PL_SENSOR_HARNESS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/*
 * The sanitized sensor (PL_SANITIZED_BPF_TESTS: this harness is then built
 * with ASan too) takes 2.5 to 10 times the CPU of the optimized one: the
 * tests' deadlines (their WAIT_MS) are this many times longer, and the
 * sensor gets a bigger ring buffer (sensor_start()), so that on a loaded
 * machine it is late rather than short of records.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HARNESS_SLOWDOWN   3
#define HARNESS_RINGBUF_KB "16384"
#else
#define HARNESS_SLOWDOWN 1
#endif

struct sensor_proc {
	pid_t pid;
	char dir[64];		   /* private temp dir */
	char json[128];		   /* the sensor's --json file */
	char log[128];		   /* its stderr */
	char out[128];		   /* its stdout (the live view, with --live) */
	char state[128];	   /* its --state-dir */
	long read_off;		   /* records_load() has parsed the file up to here */
	struct json_object *cache; /* ... into these records */
};

/* Whether this process can load BPF; why not in `why`. */
bool harness_bpf_available(char *why, size_t size);
/* PLUMBLINE_REQUIRE_BPF=1: a BPF skip must be a failure. */
bool harness_require_bpf(void);

/*
 * A cmocka group setup: checks BPF once for the group (the reason on stderr
 * when it is unavailable). 0, or -1 (the group fails) when BPF is
 * unavailable and PLUMBLINE_REQUIRE_BPF=1.
 */
int harness_group_setup(void **state);
/* What harness_group_setup found. */
bool harness_have_bpf(void);
/* First in a test that needs BPF: skips it (cmocka's skip()) without. */
#define NEED_BPF()                                                                                                     \
	do {                                                                                                           \
		if (!harness_have_bpf()) {                                                                             \
			fprintf(stderr, "skipped: BPF unavailable (not root or no BTF)\n");                            \
			skip();                                                                                        \
		}                                                                                                      \
	} while (0)

/*
 * For a group whose tests share one sensor: harness_group_setup, then
 * sensor_start(shared, extra) when BPF is available. 0 or -1. The group
 * teardown stops it: harness_group_teardown(shared), -1 unless it exited 0.
 */
int harness_group_setup_shared(struct sensor_proc *shared, const char *const *extra);
int harness_group_teardown(struct sensor_proc *shared);
/*
 * A cmocka teardown: every sensor the test started and left (a failed
 * assertion jumps past its stop) stopped and removed. The shared sensor
 * stays. Whatever is left at exit is cleaned up too, and a sensor never
 * outlives its test process (PR_SET_PDEATHSIG). 0.
 */
int harness_teardown(void **state);

/* Start `plumbline run --json FILE --no-live --state-dir DIR <extra...>`
 * (extra is NULL-terminated) in a new private temp dir and wait for its
 * READY=1. 0 or -errno. */
int sensor_start(struct sensor_proc *s, const char *const *extra);
/* The same, reusing s's temp dir and state dir (a restart). */
int sensor_restart(struct sensor_proc *s, const char *const *extra);
/* SIGINT, wait. Returns the exit status (wait(2) form) or -errno. */
int sensor_stop(struct sensor_proc *s);
/* Send sig and wait at most timeout_ms for the sensor to exit; past that,
 * SIGKILL it and return -ETIMEDOUT. Else the exit status, or -errno. */
int sensor_stop_within(struct sensor_proc *s, int sig, int timeout_ms);
/* Stop the sensor if it still runs (killed if it does not stop within 30 s),
 * and remove the temp dir and everything in it. */
void sensor_cleanup(struct sensor_proc *s);

/* Run argv (NULL-terminated) with stdout captured into out (NUL-terminated).
 * Returns its pid; *status gets the wait(2) status. */
pid_t run_capture(const char *const *argv, char *out, size_t size, int *status);
/*
 * The same, and the CPU the child used by the kernel's account of it as its
 * parent reaps it (wait4's rusage: user + system, all its images, its exit
 * included) into *ret_cpu_ns (NULL: not wanted). That is the span a
 * process record covers, from fork to the task's last switch; what a child
 * reports of itself (getrusage before it exits) misses its exit, which a
 * busy machine can stretch by milliseconds (interrupts charged to it).
 */
pid_t run_capture_cpu(const char *const *argv, char *out, size_t size, int *status, long long *ret_cpu_ns);
/* user + system time of ru, in ns */
long long rusage_cpu_ns(const struct rusage *ru);
/* The same for stderr, killed (SIGKILL) past timeout_ms: then *status says
 * so (WIFSIGNALED) and the function returns -ETIMEDOUT, else 0. */
int run_capture_err(const char *const *argv, char *err, size_t size, int timeout_ms, int *status);

/* Every record in the sensor's JSON file so far (a json array, caller puts
 * its reference). Reads only what was appended since the last call. */
struct json_object *records_load(struct sensor_proc *s);

/* Wait up to timeout_ms for `count` process records of pid (any image),
 * returning them (array, caller puts) in file order, or NULL on timeout. */
struct json_object *records_wait_pid(struct sensor_proc *s, pid_t pid, int count, int timeout_ms);

/* The record of pid whose "image" is `image` ("exec", "fork"), or NULL. */
struct json_object *records_find(struct json_object *recs, pid_t pid, const char *image);

/* Field accessors (0 / NULL when absent). */
long long rec_int(struct json_object *r, const char *key);
const char *rec_str(struct json_object *r, const char *key);
long long rec_syscall(struct json_object *r, const char *name);

/* The last "stats" record, or NULL. Borrowed from recs. */
struct json_object *records_last_stats(struct json_object *recs);
/* The number of stats records in s's file so far. */
size_t records_count_stats(struct sensor_proc *s);
/* Wait (at most timeout_ms) until s has written more than n stats records:
 * then the last one, whose counters were read after the n-th was written (a
 * reference the caller puts); NULL past the deadline. A test that needs the
 * counters as of now takes n = records_count_stats() first: no sleeping for
 * a stats interval, which a slow (sanitized) sensor on a loaded machine
 * overruns. */
struct json_object *records_wait_stats(struct sensor_proc *s, size_t n, int timeout_ms);

/* Whether a line of the sensor's log (its stderr) contains what. */
bool sensor_log_has(const struct sensor_proc *s, const char *what);
/* The same, waiting up to timeout_ms for it. */
bool sensor_log_wait(const struct sensor_proc *s, const char *what, int timeout_ms);

/* Write text to path (created 0644 or truncated); the test fails if it cannot. */
void harness_write_file(const char *path, const char *text);
/* CLOCK_MONOTONIC in milliseconds. */
long long harness_now_ms(void);

/* A cmocka test entry that runs harness_teardown after the test. */
#define HARNESS_TEST(f) cmocka_unit_test_teardown(f, harness_teardown)

#endif
