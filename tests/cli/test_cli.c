// SPDX-License-Identifier: MIT
/*
 * test_cli.c - the real `plumbline` binary's commands on what others could
 * plant or inflate: FIFOs where files are expected, oversized inputs, a
 * state directory that is in use or that others could write.
 *
 * No BPF and (except the foreign-owner case) no root: these are the
 * commands people run by hand. Every command runs with a deadline: one
 * that hangs is killed and the test fails, it never stalls ctest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PL_SENSOR_BIN
#error PL_SENSOR_BIN must be defined
#endif

#define DEADLINE_MS 5000
#define MiB (1024L * 1024L)

struct result {
	int status;      /* wait(2) form */
	bool timed_out;  /* killed at the deadline */
	long maxrss_kb;  /* the command's peak RSS */
	char out[8192];  /* stdout, cut at the buffer's size */
	char err[8192];  /* stderr, likewise */
};

struct fixture {
	char dir[64];
	char state[128];
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

static void rm_rf(const char *path)
{
	pid_t pid;

	/* a test tree with FIFOs and changed modes and owners: rm(1), no shell */
	pid = fork();
	if (pid == 0) {
		execl("/bin/rm", "rm", "-rf", "--", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-cli-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->dir);
	free(f);
	return 0;
}

static void append(char *buf, size_t size, size_t *len, const char *data, size_t n)
{
	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(buf + *len, data, n);
	*len += n;
	buf[*len] = '\0';
}

/*
 * Run argv (NULL-terminated) with stdin from in_fd (-1: /dev/null), capture
 * stdout and stderr, kill it at the deadline. Fills *res.
 */
static void run_cmd(const char *const *argv, int in_fd, struct result *res)
{
	int out[2], err[2];
	size_t olen = 0, elen = 0;
	long long deadline = now_ms() + DEADLINE_MS;
	struct rusage ru;
	bool open_out = true, open_err = true;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(in_fd >= 0 ? in_fd : null, STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	while (open_out || open_err) {
		struct pollfd p[2] = { { .fd = open_out ? out[0] : -1, .events = POLLIN },
				       { .fd = open_err ? err[0] : -1, .events = POLLIN } };
		long long left = deadline - now_ms();
		char buf[4096];

		if (left <= 0) {
			res->timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(p, 2, (int)left) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				if (i == 0)
					open_out = false;
				else
					open_err = false;
			} else if (i == 0) {
				append(res->out, sizeof(res->out), &olen, buf, (size_t)n);
			} else {
				append(res->err, sizeof(res->err), &elen, buf, (size_t)n);
			}
		}
	}
	close(out[0]);
	close(err[0]);
	/* the pipes closed: the command is exiting (or was killed) */
	while (wait4(pid, &res->status, 0, &ru) < 0 && errno == EINTR)
		;
	res->maxrss_kb = ru.ru_maxrss;
	if (res->timed_out)
		fprintf(stderr, "timed out after %d ms: %s %s %s\n", DEADLINE_MS, argv[1], argv[2] ? argv[2] : "",
			argv[2] && argv[3] ? argv[3] : "");
}

static int exit_code(const struct result *res)
{
	return WIFEXITED(res->status) ? WEXITSTATUS(res->status) : -1;
}

static void expect_in(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("expected \"%s\" in:\n%s", needle, haystack);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void make_state(const struct fixture *f)
{
	char p[192];

	assert_int_equal(mkdir(f->state, 0700), 0);
	snprintf(p, sizeof(p), "%s/baselines", f->state);
	assert_int_equal(mkdir(p, 0700), 0);
}

static const char rule[] = "- rule: r\n  desc: d\n  condition: proc.exit_code = 7\n  output: o\n  priority: NOTICE\n";

/* ---- 1. FIFOs: no command may wait for a writer ---- */

static void test_rules_check_on_a_fifo_fails_without_waiting(void **state)
{
	struct fixture *f = *state;
	char fifo[128];
	struct result res;

	snprintf(fifo, sizeof(fifo), "%s/f.yaml", f->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "rules", "check", fifo, NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.out, fifo);
	expect_in(res.out, "not a regular file (a FIFO)");
}

static void test_rules_check_reports_a_fifo_in_a_rules_directory(void **state)
{
	struct fixture *f = *state;
	char dir[128], p[192];
	struct result res;

	snprintf(dir, sizeof(dir), "%s/rules.d", f->dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(p, sizeof(p), "%s/10-good.yaml", dir);
	write_file(p, rule);
	snprintf(p, sizeof(p), "%s/20-fifo.yaml", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "rules", "check", dir, NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.out, "20-fifo.yaml");
	expect_in(res.out, "not a regular file (a FIFO)");
}

static void test_baseline_list_reports_a_fifo_in_the_store_and_goes_on(void **state)
{
	struct fixture *f = *state;
	char p[192];
	struct result res;

	make_state(f);
	snprintf(p, sizeof(p), "%s/baselines/0123456789abcdef.json", f->state);
	assert_int_equal(mkfifo(p, 0600), 0);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "list", "--state-dir", f->state, NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 0);
	expect_in(res.err, "0123456789abcdef.json");
	expect_in(res.err, "not a regular file (a FIFO)");
	expect_in(res.out, "-- 0 baselines");
}

static void test_baseline_import_of_a_fifo_fails_without_waiting(void **state)
{
	struct fixture *f = *state;
	char fifo[128];
	struct result res;

	make_state(f);
	snprintf(fifo, sizeof(fifo), "%s/bundle.json", f->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "import", fifo, "--state-dir", f->state, NULL }, -1,
		&res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, fifo);
	expect_in(res.err, "not a regular file (a FIFO)");
	/* merge reads bundles the same way */
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "merge", fifo, "-o", "/dev/null", NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, "not a regular file (a FIFO)");
}

static void test_replay_refuses_what_is_neither_a_file_nor_a_pipe(void **state)
{
	struct fixture *f = *state;
	struct result res;

	run_cmd((const char *const[]){ PL_SENSOR_BIN, "replay", f->dir, NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, f->dir);
	expect_in(res.err, "a directory");
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "replay", "/dev/null", NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, "a character device");
}

/* A FIFO is a stream, as stdin is: replay reads it once a writer comes. */
static void test_replay_reads_a_fifo_from_its_writer(void **state)
{
	static const char rec[] = "{\"type\":\"process\",\"pid\":1,\"exit_code\":7}\n";
	struct fixture *f = *state;
	char fifo[128], rules[128];
	struct result res;
	pid_t w;

	snprintf(fifo, sizeof(fifo), "%s/records.fifo", f->dir);
	snprintf(rules, sizeof(rules), "%s/r.yaml", f->dir);
	write_file(rules, rule);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	w = fork();
	if (w == 0) {
		int fd = -1;

		/* come late, so replay has to wait; give up rather than block if
		 * no reader ever opens the FIFO */
		usleep(300000);
		for (int i = 0; i < 100 && fd < 0; i++) {
			fd = open(fifo, O_WRONLY | O_NONBLOCK);
			if (fd < 0)
				usleep(20000);
		}
		if (fd < 0 || write(fd, rec, sizeof(rec) - 1) != (ssize_t)sizeof(rec) - 1)
			_exit(1);
		_exit(0);
	}
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "replay", fifo, "--rules", rules, NULL }, -1, &res);
	waitpid(w, NULL, 0);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 0);
	expect_in(res.err, "replay: 1 records");
	expect_in(res.out, "ALERT");
}

/* ---- 3. bounded inputs ---- */

/* Feed `len` bytes of 'x' and a newline between two good records into fd. */
static pid_t feed_long_line(int fd, size_t len)
{
	static const char rec[] = "{\"type\":\"process\",\"pid\":1,\"exit_code\":7}\n";
	pid_t pid = fork();

	if (pid == 0) {
		static char chunk[1 << 16];

		memset(chunk, 'x', sizeof(chunk));
		signal(SIGPIPE, SIG_DFL);
		if (write(fd, rec, sizeof(rec) - 1) < 0)
			_exit(1);
		for (size_t done = 0; done < len;) {
			size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
			ssize_t w = write(fd, chunk, n);

			if (w <= 0)
				_exit(1);
			done += (size_t)w;
		}
		if (write(fd, "\n", 1) < 0 || write(fd, rec, sizeof(rec) - 1) < 0)
			_exit(1);
		_exit(0);
	}
	return pid;
}

static void test_replay_skips_a_line_over_the_limit_in_bounded_memory(void **state)
{
	struct fixture *f = *state;
	char rules[128];
	struct result res;
	int p[2], st;
	pid_t w;

	snprintf(rules, sizeof(rules), "%s/r.yaml", f->dir);
	write_file(rules, rule);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	w = feed_long_line(p[1], 256 * MiB);
	close(p[1]);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "replay", "-", "--rules", rules, NULL }, p[0], &res);
	close(p[0]);
	waitpid(w, &st, 0);
	assert_false(res.timed_out);
	/* the line is reported with its place and the limit, the rest is read */
	expect_in(res.err, "-:2: line longer than the 4 MiB limit");
	expect_in(res.err, "replay: 2 records");
	expect_in(res.err, "1 over the line limit");
	assert_int_equal(exit_code(&res), 1);
	/* never the whole line in memory */
	if (res.maxrss_kb > 100 * 1024)
		fail_msg("replay peaked at %ld KiB for a 256 MiB line", res.maxrss_kb);
}

static void test_baseline_merge_refuses_an_oversized_bundle_before_reading_it(void **state)
{
	struct fixture *f = *state;
	char big[128], out[128];
	struct result res;
	int fd;

	snprintf(big, sizeof(big), "%s/big.json", f->dir);
	snprintf(out, sizeof(out), "%s/out.json", f->dir);
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 600 * MiB), 0); /* sparse: costs no disk */
	close(fd);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "merge", big, "-o", out, NULL }, -1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, big);
	expect_in(res.err, "512 MiB");
	assert_int_equal(access(out, F_OK), -1);
	if (res.maxrss_kb > 100 * 1024)
		fail_msg("merge read %ld KiB of a bundle it should have refused", res.maxrss_kb);
}

/* ---- 4. one writer per state directory ---- */

/* Hold the state directory's lock as a sensor would, with pid in the file. */
static int hold_lock(const struct fixture *f, pid_t pid)
{
	char p[192], buf[32];
	int fd;

	snprintf(p, sizeof(p), "%s/lock", f->state);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	assert_int_equal(pwrite(fd, buf, strlen(buf), 0), (ssize_t)strlen(buf));
	return fd;
}

static void test_baseline_writers_refuse_a_locked_state_dir_and_name_the_holder(void **state)
{
	struct fixture *f = *state;
	char bundle[128], want[256];
	struct result res;
	int fd;

	make_state(f);
	snprintf(bundle, sizeof(bundle), "%s/b.json", f->dir);
	write_file(bundle, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[]}");
	fd = hold_lock(f, 4242);
	snprintf(want, sizeof(want), "state directory %s is in use by plumbline pid 4242; stop it, or use --state-dir",
		 f->state);

	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "import", bundle, "--state-dir", f->state, NULL },
		-1, &res);
	assert_false(res.timed_out);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, want);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "forget", "x", "--state-dir", f->state, NULL }, -1,
		&res);
	assert_int_equal(exit_code(&res), 1);
	expect_in(res.err, want);
	/* readers need no lock: saves are atomic renames */
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "list", "--state-dir", f->state, NULL }, -1, &res);
	assert_int_equal(exit_code(&res), 0);
	expect_in(res.out, "-- 0 baselines");

	/* once the holder is gone (its fd closed, as at death), writers go on */
	close(fd);
	run_cmd((const char *const[]){ PL_SENSOR_BIN, "baseline", "import", bundle, "--state-dir", f->state, NULL },
		-1, &res);
	assert_int_equal(exit_code(&res), 0);
}

/* ---- 5. a state directory others could write is refused ---- */

static void expect_refused(const struct fixture *f, const char *dir, const char *why, const char *fix)
{
	static const char *const cmds[] = { "list", "export", "import" };
	char bundle[128], want[256];
	struct result res;

	snprintf(bundle, sizeof(bundle), "%s/b.json", f->dir);
	write_file(bundle, "{\"format\":\"plumbline-baselines\",\"version\":1,\"baselines\":[]}");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *argv[] = { PL_SENSOR_BIN, "baseline", cmds[i], "--state-dir", f->state, NULL, NULL };
		char out[160];

		if (strcmp(cmds[i], "export") == 0) {
			snprintf(out, sizeof(out), "%s/out.json", f->dir);
			argv[5] = out;
		} else if (strcmp(cmds[i], "import") == 0) {
			argv[5] = bundle;
		}
		run_cmd(argv, -1, &res);
		assert_false(res.timed_out);
		if (exit_code(&res) != 1)
			fail_msg("baseline %s accepted %s (%s)", cmds[i], dir, why);
		snprintf(want, sizeof(want), "refusing state directory %s: %s", dir, why);
		expect_in(res.err, want);
		expect_in(res.err, fix);
	}
}

static void test_baseline_commands_refuse_a_state_dir_others_can_write(void **state)
{
	struct fixture *f = *state;
	char fix[256], sub[160];

	make_state(f);
	assert_int_equal(chmod(f->state, 0777), 0);
	snprintf(fix, sizeof(fix), "fix: chmod 0700 %s", f->state);
	expect_refused(f, f->state, "writable by group or others (mode 0777)", fix);

	/* the same for baselines/ inside it */
	assert_int_equal(chmod(f->state, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/baselines", f->state);
	assert_int_equal(chmod(sub, 0775), 0);
	snprintf(fix, sizeof(fix), "fix: chmod 0700 %s", sub);
	expect_refused(f, sub, "writable by group or others (mode 0775)", fix);
}

static void test_baseline_commands_refuse_a_state_dir_owned_by_another_user(void **state)
{
	struct fixture *f = *state;
	char why[128], fix[256];

	if (geteuid() != 0)
		skip(); /* making a directory another user owns needs root */
	make_state(f);
	assert_int_equal(chown(f->state, 65534, 65534), 0);
	snprintf(why, sizeof(why), "owned by uid 65534, not by uid 0 that runs plumbline");
	snprintf(fix, sizeof(fix), "fix: chown root %s", f->state);
	expect_refused(f, f->state, why, fix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rules_check_on_a_fifo_fails_without_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_check_reports_a_fifo_in_a_rules_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_list_reports_a_fifo_in_the_store_and_goes_on, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_import_of_a_fifo_fails_without_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_refuses_what_is_neither_a_file_nor_a_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_reads_a_fifo_from_its_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_skips_a_line_over_the_limit_in_bounded_memory, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_merge_refuses_an_oversized_bundle_before_reading_it, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_writers_refuse_a_locked_state_dir_and_name_the_holder,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_commands_refuse_a_state_dir_others_can_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_commands_refuse_a_state_dir_owned_by_another_user, setup,
						teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("cli_files", tests, NULL, NULL);
}
