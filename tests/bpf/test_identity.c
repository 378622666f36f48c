// SPDX-License-Identifier: MIT
/*
 * test_identity.c - the real sensor identifies binaries without stalling.
 *
 * A binary without a build-id is identified by the SHA-256 of its content,
 * up to 512 MiB of it. That hash must never hold up the records of other
 * processes: here four large build-id-less binaries are executed, then an
 * unrelated probe, whose record must arrive as promptly as ever while the
 * hashes are computed in the background. The binaries are a static helper
 * linked without a build-id and extended to 500 MB with a hole (the kernel
 * maps only the segments its program headers name, so the padding is never
 * loaded, but every byte of it is hashed).
 *
 * The last of them lives on, with a child of its own, until the hashes are
 * done: both must then be attached to the right baselines, the child under
 * its parent's sha256 id, never under "-" for a parent not yet known.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sensor_harness.h"

#ifndef PL_HELPER_NOBID_BIN
#error PL_HELPER_NOBID_BIN must be defined
#endif

#define WAIT_MS (20000 * HARNESS_SLOWDOWN)
#define BIG_SIZE (500ll << 20) /* under the 512 MiB cap: hashed, 0.5 to 1.5 s each here */
#define NBIG 4
#define PROMPT_MS 1000 /* how late a record may be, counted from its process's exit */
#define HELPER_BUILD_ID "706c756d626c696e652d68656c7065722d303031"

static struct sensor_proc shared;
static pid_t sleeper, sleeper_child; /* a test's long-lived processes, killed by the teardown */

static int group_setup(void **state)
{
	static const char *const extra[] = { "--process-records", "--stats-interval", "1", "-q", NULL };

	return harness_group_setup_shared(&shared, extra);
}

static int group_teardown(void **state)
{
	return harness_group_teardown(&shared);
}

static int kill_sleeper(void **state)
{
	if (sleeper_child > 0)
		kill(sleeper_child, SIGKILL);
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	sleeper = sleeper_child = 0;
	return 0;
}

/* The one child of pid, waited for (10 s at most). */
static pid_t child_of(pid_t pid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "re");
		long c = 0;

		if (f && fgets(buf, sizeof(buf), f))
			c = strtol(buf, NULL, 10);
		if (f)
			fclose(f);
		if (c > 0)
			return (pid_t)c;
		usleep(20000);
	}
	fail_msg("pid %d has no child", (int)pid);
	return -1;
}

/* A copy of the build-id-less helper at path, padded to `size` bytes with a hole. */
static void make_big(const char *path, long long size)
{
	char buf[65536];
	int in = open(PL_HELPER_NOBID_BIN, O_RDONLY | O_CLOEXEC);
	int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ssize_t n;

	assert_true(in >= 0);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	assert_int_equal(ftruncate(out, size), 0);
	close(in);
	close(out);
}

/* "sha256:<hex>" of the file at path. */
static void sha256_id(const char *path, char *out, size_t size)
{
	static char buf[1 << 20];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t off;

	assert_non_null(ctx);
	assert_true(fd >= 0);
	assert_true(EVP_DigestInit_ex(ctx, EVP_sha256(), NULL));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		assert_true(EVP_DigestUpdate(ctx, buf, (size_t)n));
	assert_int_equal(n, 0);
	assert_true(EVP_DigestFinal_ex(ctx, md, &len));
	EVP_MD_CTX_free(ctx);
	close(fd);
	off = (size_t)snprintf(out, size, "sha256:");
	for (unsigned int i = 0; i < len; i++)
		off += (size_t)snprintf(out + off, size - off, "%02x", md[i]);
}

static pid_t spawn(const char *const *argv)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	return pid;
}

static void run_ok(const char *const *argv, pid_t *ret_pid)
{
	pid_t pid = spawn(argv);
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	*ret_pid = pid;
}

/* The process record of pid's exec'd image, waited for (after the record of
 * the fork child that exec'd it); a new reference. */
static struct json_object *record_of(pid_t pid)
{
	struct json_object *recs = records_wait_pid(&shared, pid, 2, WAIT_MS), *r;

	if (!recs)
		fail_msg("no process records for pid %d within %d ms", (int)pid, WAIT_MS);
	r = json_object_get(records_find(recs, pid, "exec"));
	json_object_put(recs);
	assert_non_null(r);
	return r;
}

static struct json_object *obj(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The last stats record saying that at least `done` files were hashed and
 * none is pending, waited for; a new reference. */
static struct json_object *stats_all_hashed(long long done)
{
	long long deadline = harness_now_ms() + WAIT_MS * 3;

	for (;;) {
		struct json_object *recs = records_load(&shared), *st = records_last_stats(recs), *id = obj(st, "identity");

		if (id && rec_int(id, "hashes_done") >= done && rec_int(id, "hashes_pending") == 0) {
			st = json_object_get(st);
			json_object_put(recs);
			return st;
		}
		json_object_put(recs);
		if (harness_now_ms() > deadline)
			fail_msg("no stats record with identity.hashes_done >= %lld and nothing pending", done);
		usleep(50000);
	}
}

static void test_a_large_binary_without_build_id_does_not_delay_other_records(void **state)
{
	char big[NBIG][128], want[80];
	const char *probe[] = { PL_HELPER_BIN, "exit", "0", NULL };
	struct json_object *r, *st;
	pid_t pids[NBIG], probe_pid, again;
	long long exited, delay;
	int status;

	NEED_BPF();
	for (int i = 0; i < NBIG; i++) {
		snprintf(big[i], sizeof(big[i]), "%s/big%d", shared.dir, i);
		make_big(big[i], BIG_SIZE);
	}
	sha256_id(big[0], want, sizeof(want)); /* the copies are identical */

	/* The last one lives, with a child (the build-id helper), until both
	 * have been identified; then the child is killed, and the parent exits. */
	for (int i = 0; i < NBIG - 1; i++) {
		const char *argv[] = { big[i], "exit", "0", NULL };

		run_ok(argv, &pids[i]);
	}
	{
		const char *argv[] = { big[NBIG - 1], "run", PL_HELPER_BIN, "pl_helper", "truth", "0", "0",
				       "/nonexistent/pl-identity", "0", "300000", NULL };

		pids[NBIG - 1] = sleeper = spawn(argv);
	}
	run_ok(probe, &probe_pid);
	exited = harness_now_ms();
	r = record_of(probe_pid);
	delay = harness_now_ms() - exited;
	fprintf(stderr, "probe record %lld ms after its exit, behind %d execs of %lld MB binaries without build-id\n",
		delay, NBIG, BIG_SIZE >> 20);
	if (delay > PROMPT_MS)
		fail_msg("the probe's record came %lld ms after its exit (at most %d ms): the sensor hashed the large "
			 "binaries on its event loop",
			 delay, PROMPT_MS);
	json_object_put(r);

	/* Short-lived images that ended before their hash was known have no
	 * binary_id (no baseline); never a file:... id, which would split the
	 * binary's baseline. */
	for (int i = 0; i < NBIG - 1; i++) {
		const char *id;

		r = record_of(pids[i]);
		id = rec_str(r, "binary_id");
		if (id && strcmp(id, want) != 0)
			fail_msg("big%d: binary_id %s, expected null or %s", i, id, want);
		json_object_put(r);
	}

	/* The long-lived one got its identity and its baseline once hashed. */
	sleeper_child = child_of(pids[NBIG - 1]);
	st = stats_all_hashed(NBIG);
	json_object_put(st);
	kill(sleeper_child, SIGKILL);
	assert_int_equal(waitpid(pids[NBIG - 1], &status, 0), pids[NBIG - 1]);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGKILL);
	sleeper = 0;
	r = record_of(pids[NBIG - 1]);
	assert_string_equal(rec_str(r, "binary_id"), want);
	assert_non_null(obj(r, "baseline"));
	/* <binary_id>@<parent's binary_id> */
	assert_true(strncmp(rec_str(obj(r, "baseline"), "key"), want, strlen(want)) == 0);
	assert_int_equal(rec_str(obj(r, "baseline"), "key")[strlen(want)], '@');
	json_object_put(r);

	/* Its child, exec'd while the parent's hash was pending, waited for it:
	 * keyed by its own build-id and its parent's sha256 id. */
	r = record_of(sleeper_child);
	sleeper_child = 0;
	{
		char key[192];

		snprintf(key, sizeof(key), "build-id:%s@%s", HELPER_BUILD_ID, want);
		assert_string_equal(rec_str(r, "binary_id"), "build-id:" HELPER_BUILD_ID);
		assert_non_null(obj(r, "baseline"));
		assert_string_equal(rec_str(obj(r, "baseline"), "key"), key);
	}
	json_object_put(r);

	/* Hashed and cached: the next run is identified at once. */
	{
		const char *argv[] = { big[0], "exit", "0", NULL };

		run_ok(argv, &again);
	}
	r = record_of(again);
	assert_string_equal(rec_str(r, "binary_id"), want);
	assert_non_null(obj(r, "baseline"));
	json_object_put(r);

	/* Nothing was lost on the way (the sensor watches the whole host:
	 * others' binaries may have been hashed too). */
	st = stats_all_hashed(NBIG);
	fprintf(stderr, "the sensor hashed %lld files in %lld ms, off its event loop\n",
		rec_int(obj(st, "identity"), "hashes_done"), rec_int(obj(st, "identity"), "hash_ns") / 1000000);
	assert_int_equal(rec_int(obj(st, "kernel_drops"), "ringbuf_full"), 0);
	assert_int_equal(rec_int(st, "invalid_records"), 0);
	assert_int_equal(rec_int(obj(st, "userspace_drops"), "proctable_full"), 0);
	assert_true(rec_int(obj(st, "identity"), "hashes_queued") >= NBIG);
	assert_true(rec_int(obj(st, "identity"), "hashes_done") >= NBIG);
	assert_int_equal(rec_int(obj(st, "identity"), "hash_queue_full"), 0);
	assert_true(rec_int(obj(st, "identity"), "hash_ns") > 0);
	json_object_put(st);
}

/* ---- one name per binary, whenever the sensor looks ---- */

#define NSYM 40

/* fork; the child chdirs to dir (if any), then execs argv[0] (as spelled). */
static pid_t spawn_in(const char *dir, const char *const *argv)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (dir && chdir(dir) < 0)
			_exit(126);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	return pid;
}

static void test_a_binary_run_through_a_symlink_has_one_name_whether_it_lived_or_not(void **state)
{
	char link[256], real[4096];
	const char *abs_argv[] = { link, "exit", "0", NULL };
	const char *rel_argv[] = { "./cc-link", "exit", "0", NULL };
	pid_t pids[NSYM];
	struct json_object *recs;
	int st, same = 0, filename_link = 0;

	NEED_BPF();
	assert_non_null(realpath(PL_HELPER_BIN, real));
	snprintf(link, sizeof(link), "%s/cc-link", shared.dir);
	assert_int_equal(symlink(real, link), 0);
	/* back to back: most exit long before the sensor could read /proc/PID/exe */
	for (int i = 0; i < NSYM; i++)
		pids[i] = spawn_in(i % 2 ? shared.dir : NULL, i % 2 ? rel_argv : abs_argv);
	for (int i = 0; i < NSYM; i++) {
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	json_object_put(records_wait_pid(&shared, pids[NSYM - 1], 2, WAIT_MS));
	usleep(300000);
	recs = records_load(&shared);
	for (int i = 0; i < NSYM; i++) {
		struct json_object *r = records_find(recs, pids[i], "exec");
		const char *exe, *fn;

		if (!r)
			fail_msg("no exec record for pid %d", (int)pids[i]);
		exe = rec_str(r, "exe");
		fn = rec_str(r, "filename");
		if (exe && strcmp(exe, real) == 0)
			same++;
		else
			fprintf(stderr, "pid %d: exe \"%s\", filename \"%s\"\n", (int)pids[i], exe ? exe : "(null)",
				fn ? fn : "(null)");
		/* the spelling passed to execve stays available */
		if (fn && strcmp(fn, i % 2 ? "./cc-link" : link) == 0)
			filename_link++;
	}
	json_object_put(recs);
	fprintf(stderr, "%d of %d images named %s (exec'd as %s and ./cc-link)\n", same, NSYM, real, link);
	assert_int_equal(same, NSYM);
	assert_int_equal(filename_link, NSYM);
}

/* ---- what the executed file was ---- */

/* A copy of the file at src in fd (written, rewound). */
static void copy_into(int fd, const char *src)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(in >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(fd, buf, (size_t)n), n);
	close(in);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
}

/* fork, and exec /proc/self/fd/FD in the child (fd left open: not CLOEXEC). */
static pid_t spawn_fd(int fd)
{
	char path[64];
	pid_t pid;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, "pl-fd-child", "exit", "0", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_exe_kind_says_memfd_deleted_or_file_at_exec(void **state)
{
	char del_path[256];
	const char *plain[] = { PL_HELPER_BIN, "exit", "0", NULL };
	pid_t mpid, dpid, fpid;
	int mfd, dfd, st;
	struct json_object *recs, *r;

	NEED_BPF();
	mfd = (int)syscall(SYS_memfd_create, "pl-payload", 0u);
	assert_true(mfd >= 0);
	copy_into(mfd, PL_HELPER_BIN);
	mpid = spawn_fd(mfd);

	snprintf(del_path, sizeof(del_path), "%s/deleted-helper", shared.dir);
	dfd = open(del_path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	assert_true(dfd >= 0);
	copy_into(dfd, PL_HELPER_BIN);
	close(dfd);
	dfd = open(del_path, O_RDONLY);
	assert_true(dfd >= 0);
	assert_int_equal(unlink(del_path), 0);
	dpid = spawn_fd(dfd);

	fpid = spawn(plain);
	assert_int_equal(waitpid(mpid, &st, 0), mpid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(waitpid(dpid, &st, 0), dpid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(waitpid(fpid, &st, 0), fpid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(mfd);
	close(dfd);
	json_object_put(records_wait_pid(&shared, mpid, 2, WAIT_MS));
	json_object_put(records_wait_pid(&shared, dpid, 2, WAIT_MS));
	json_object_put(records_wait_pid(&shared, fpid, 2, WAIT_MS));
	recs = records_load(&shared);
	r = records_find(recs, mpid, "exec");
	assert_non_null(r);
	assert_string_equal(rec_str(r, "exe_kind"), "memfd");
	/* the same code as the helper: its build-id says so (the key is the keys' owner's to decide) */
	fprintf(stderr, "memfd copy: exe \"%s\", binary_id %s\n", rec_str(r, "exe") ? rec_str(r, "exe") : "(null)",
		rec_str(r, "binary_id") ? rec_str(r, "binary_id") : "(null)");
	r = records_find(recs, dpid, "exec");
	assert_non_null(r);
	assert_string_equal(rec_str(r, "exe_kind"), "deleted");
	r = records_find(recs, fpid, "exec");
	assert_non_null(r);
	assert_string_equal(rec_str(r, "exe_kind"), "file");
	/* the fork child that exec'd the memfd ran the test's own image: a file */
	r = records_find(recs, mpid, "fork");
	if (r)
		assert_string_equal(rec_str(r, "exe_kind"), "file");
	json_object_put(recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_large_binary_without_build_id_does_not_delay_other_records, kill_sleeper),
		HARNESS_TEST(test_a_binary_run_through_a_symlink_has_one_name_whether_it_lived_or_not),
		HARNESS_TEST(test_exe_kind_says_memfd_deleted_or_file_at_exec),
	};

	return cmocka_run_group_tests_name("bpf_identity", tests, group_setup, group_teardown);
}
