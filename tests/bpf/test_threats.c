// SPDX-License-Identifier: MIT
/*
 * test_threats.c - what a monitored process can try against the sensor,
 * run against the real sensor (SECURITY.md, "Threat model"):
 *   - look like sshd: comm and argv[0] renamed; the rules and the baseline
 *     key still see the real binary;
 *   - run code that has no file: a memfd, an unlinked file (named like sshd
 *     for good measure); the shipped rule fires for each, with its exe_kind;
 *   - reuse a pid: a process exits and another gets its pid; their records
 *     are not mixed;
 *   - write hostile bytes into comm, the file name and the command line:
 *     syslog, the live view and JSON carry them escaped, on one line.
 * One sensor for the group, with a rule file of probes plus the shipped
 * rules. Everything is filtered by the test's own pids.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sensor_harness.h"

#define WAIT_MS (10000 * HARNESS_SLOWDOWN)
#define HELPER_BID "build-id:706c756d626c696e652d68656c7065722d303031"
#define HELPER2_BID "build-id:706c756d626c696e652d68656c7065722d303032"

static struct sensor_proc shared;
static char rules_path[128];

/* Two probes: one on the executable's name (how every shipped auth rule
 * decides "this is sshd": the auth_process macro), one on comm. */
static const char probe_rules[] =
	"- rule: threat probe auth by exe\n"
	"  desc: the auth_process test of the shipped rules, at exit\n"
	"  condition: proc.exe_name in (sshd, sshd-session)\n"
	"  output: \"auth-by-exe exe=%proc.exe comm=%proc.name\"\n"
	"  priority: NOTICE\n"
	"- rule: threat probe comm\n"
	"  desc: what a rule keyed on comm (proc.name) would see\n"
	"  condition: proc.name = sshd\n"
	"  output: \"comm-sshd exe=%proc.exe binary=%proc.binary_id\"\n"
	"  priority: NOTICE\n";

static int group_setup(void **state)
{
	const char *extra[] = { "--process-records", "--no-syslog", "--rules", rules_path, "--rules",
				PL_RULES_DEFAULT, NULL };

	FILE *f;

	if (harness_group_setup(state) < 0)
		return -1;
	if (!harness_have_bpf())
		return 0;
	snprintf(rules_path, sizeof(rules_path), "/tmp/plumbline-threats-%d.yaml", (int)getpid());
	f = fopen(rules_path, "we");
	if (!f || fputs(probe_rules, f) < 0 || fclose(f) != 0)
		return -1;
	return harness_group_setup_shared(&shared, extra);
}

static int group_teardown(void **state)
{
	unlink(rules_path);
	return harness_group_teardown(&shared);
}

/* The alerts of rule for pid so far (array, caller puts). */
static struct json_object *alerts_of(const char *rule, pid_t pid)
{
	struct json_object *recs = records_load(&shared), *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type"), *name = rec_str(r, "rule");

		if (t && strcmp(t, "alert") == 0 && name && strcmp(name, rule) == 0 && rec_int(r, "pid") == pid)
			json_object_array_add(out, json_object_get(r));
	}
	json_object_put(recs);
	return out;
}

/* fork + execv(path, argv) and wait; the exit code must be `code`. */
static pid_t run_wait(const char *path, const char *const *argv, int code)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(path, (char **)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), code);
	return pid;
}

static void copy_file(const char *from, int out)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(in >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
}

static void test_renaming_comm_and_argv0_to_sshd_does_not_make_it_sshd(void **state)
{
	const char *argv[] = { "sshd", "rename", "sshd", "10", NULL };
	const char *copy_argv[] = { "sshd", "exit", "0", NULL };
	char real[PATH_MAX], copy[256];
	struct json_object *recs, *r, *a;
	pid_t pid, cpid;
	int fd;

	NEED_BPF();
	assert_non_null(realpath(PL_HELPER_BIN, real));
	pid = run_wait(PL_HELPER_BIN, argv, 0);
	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = records_find(recs, pid, "exec");
	assert_non_null(r);
	/* what it forged is shown as such ... */
	assert_string_equal(rec_str(r, "comm"), "sshd");
	assert_non_null(strstr(rec_str(r, "cmdline"), "sshd rename sshd 10"));
	/* ... and the identity is the real binary's: the baseline key too */
	assert_string_equal(rec_str(r, "exe"), real);
	assert_string_equal(rec_str(r, "binary_id"), HELPER_BID);
	json_object_put(recs);
	/* the auth rules' test (proc.exe_name) does not take it for sshd */
	a = alerts_of("threat probe auth by exe", pid);
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(a);
	/* a rule on comm would, and its alert names the real binary */
	a = alerts_of("threat probe comm", pid);
	assert_true(json_object_array_length(a) >= 1);
	r = json_object_array_get_idx(a, 0);
	assert_string_equal(rec_str(r, "exe"), real);
	assert_string_equal(rec_str(r, "binary_id"), HELPER_BID);
	json_object_put(a);

	/* control: the probe does fire for a file named sshd, and still keys it
	 * by its content (the helper's build-id), never by the name */
	snprintf(copy, sizeof(copy), "%s/sshd", shared.dir);
	fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	copy_file(PL_HELPER_BIN, fd);
	assert_int_equal(close(fd), 0);
	cpid = run_wait(copy, copy_argv, 0);
	json_object_put(records_wait_pid(&shared, cpid, 2, WAIT_MS));
	a = alerts_of("threat probe auth by exe", cpid);
	assert_true(json_object_array_length(a) >= 1); /* at exec and at exit */
	for (size_t i = 0; i < json_object_array_length(a); i++)
		assert_string_equal(rec_str(json_object_array_get_idx(a, i), "binary_id"), HELPER_BID);
	json_object_put(a);
	unlink(copy);
}

/* fork, and exec /proc/self/fd/FD as "sshd" in the child. */
static pid_t spawn_fd(int fd)
{
	char path[64];
	pid_t pid;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, "sshd", "exit", "0", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * The key a fileless image's baseline gets: its own content hash (a memfd,
 * or a file unlinked before exec, has no name root alone controls, so the
 * helper's build-id in it is a claim), else its own file:DEV:INO (a memfd's
 * inode, an unlinked file's); NULL while the hash is pending. Never another
 * binary's, never a name's, never the build-id it claims.
 */
static void assert_own_identity(struct json_object *r)
{
	const char *bid = rec_str(r, "binary_id");
	char want[96];

	fprintf(stderr, "pid %lld (%s): binary_id %s\n", rec_int(r, "pid"), rec_str(r, "exe_kind"),
		bid ? bid : "null (hash pending)");
	if (!bid)
		return;
	if (strncmp(bid, "sha256:", 7) == 0 && strlen(bid) == 7 + 64)
		return;
	snprintf(want, sizeof(want), "file:%s:%lld", rec_str(r, "exe_dev"), rec_int(r, "exe_ino"));
	assert_string_equal(bid, want);
}

static void assert_fileless_alert(pid_t pid, const char *kind)
{
	struct json_object *recs, *r, *a;
	char want[64], bid[128];

	recs = records_wait_pid(&shared, pid, 2, WAIT_MS);
	assert_non_null(recs);
	r = records_find(recs, pid, "exec");
	assert_non_null(r);
	assert_string_equal(rec_str(r, "exe_kind"), kind);
	assert_own_identity(r);
	snprintf(bid, sizeof(bid), "%s", rec_str(r, "binary_id") ? rec_str(r, "binary_id") : "");
	json_object_put(recs);
	a = alerts_of("Fileless or deleted executable", pid);
	assert_int_equal(json_object_array_length(a), 1);
	r = json_object_array_get_idx(a, 0);
	snprintf(want, sizeof(want), "exec'd a %s executable", kind);
	assert_non_null(strstr(rec_str(r, "output"), want));
	/* the alert names the same binary */
	assert_string_equal(rec_str(r, "binary_id") ? rec_str(r, "binary_id") : "", bid);
	json_object_put(a);
	/* named sshd in every way it can be (memfd name, file name, argv[0]):
	 * still not sshd to the auth rules */
	a = alerts_of("threat probe auth by exe", pid);
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(a);
}

static void test_memfd_and_deleted_executables_alert_with_their_kind(void **state)
{
	char del[256];
	pid_t mpid, dpid;
	int mfd, dfd, st;

	NEED_BPF();
	mfd = (int)syscall(SYS_memfd_create, "sshd", 0u);
	assert_true(mfd >= 0);
	copy_file(PL_HELPER_BIN, mfd);
	mpid = spawn_fd(mfd);
	snprintf(del, sizeof(del), "%s/sshd", shared.dir);
	dfd = open(del, O_RDWR | O_CREAT | O_TRUNC, 0755);
	assert_true(dfd >= 0);
	copy_file(PL_HELPER_BIN, dfd);
	close(dfd);
	dfd = open(del, O_RDONLY);
	assert_true(dfd >= 0);
	assert_int_equal(unlink(del), 0);
	dpid = spawn_fd(dfd);
	assert_int_equal(waitpid(mpid, &st, 0), mpid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(waitpid(dpid, &st, 0), dpid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(mfd);
	close(dfd);
	assert_fileless_alert(mpid, "memfd");
	assert_fileless_alert(dpid, "deleted");
}

/*
 * Fork a child that gets pid `want`: ns_last_pid (the pid namespace's last
 * allocated pid, what CRIU restores pids with) set to want - 1 just before
 * fork. Other processes on the machine may take it first: retried. Returns
 * the child's pid (== want), or -1; the child execs argv.
 */
static pid_t fork_as(pid_t want, const char *path, const char *const *argv)
{
	for (int tries = 0; tries < 50; tries++) {
		int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		char v[32];
		int n = snprintf(v, sizeof(v), "%d", (int)want - 1);
		pid_t pid;

		if (fd < 0)
			return -1;
		if (write(fd, v, (size_t)n) != n) {
			close(fd);
			return -1;
		}
		close(fd);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null >= 0)
				dup2(null, STDOUT_FILENO);
			if (getpid() != want)
				_exit(99); /* someone else took it: not this one */
			execv(path, (char **)argv);
			_exit(127);
		}
		if (pid == want)
			return pid;
		waitpid(pid, NULL, 0);
	}
	return -1;
}

static void test_a_reused_pid_keeps_two_separate_records(void **state)
{
	const char *first[] = { PL_HELPER_BIN, "truth", "111", "0", "/nonexistent/pl-thr", "0", "0", NULL };
	const char *second[] = { PL_HELPER2_BIN, "truth", "222", "0", "/nonexistent/pl-thr", "0", "0", NULL };
	struct json_object *recs, *a = NULL, *b = NULL;
	pid_t p1, p2;
	int st;

	NEED_BPF();
	p1 = run_wait(PL_HELPER_BIN, first, 0);
	json_object_put(records_wait_pid(&shared, p1, 2, WAIT_MS)); /* its end is recorded */
	p2 = fork_as(p1, PL_HELPER2_BIN, second);
	if (p2 < 0) {
		fprintf(stderr, "skipped: could not get pid %d again (ns_last_pid)\n", (int)p1);
		skip();
	}
	assert_int_equal(waitpid(p2, &st, 0), p2);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* four images of one pid: fork and exec of each process */
	recs = records_wait_pid(&shared, p1, 4, WAIT_MS);
	assert_non_null(recs);
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *im = rec_str(r, "image"), *bid = rec_str(r, "binary_id");

		if (!im || strcmp(im, "exec") != 0 || !bid)
			continue;
		if (strcmp(bid, HELPER_BID) == 0) {
			assert_null(a);
			a = r;
		} else if (strcmp(bid, HELPER2_BID) == 0) {
			assert_null(b);
			b = r;
		}
	}
	assert_non_null(a);
	assert_non_null(b);
	/* each one's own counts, exactly: nothing of one in the other */
	assert_int_equal(rec_syscall(a, "getppid"), 111);
	assert_int_equal(rec_syscall(b, "getppid"), 222);
	assert_string_equal(rec_str(a, "end_reason"), "exit");
	assert_string_equal(rec_str(b, "end_reason"), "exit");
	/* two lives: the second starts after the first ended */
	assert_true(rec_int(a, "start_ns") != rec_int(b, "start_ns"));
	assert_true(rec_int(b, "start_ns") >= rec_int(a, "end_ns"));
	/* and two baselines: keyed by binary, never by pid */
	assert_string_not_equal(rec_str(a, "binary_id"), rec_str(b, "binary_id"));
	json_object_put(recs);
}

/*
 * Bytes only a hostile process would choose, where test_escape.c does not
 * reach: comm (prctl), a bidi override, an overlong '/' and a UTF-16
 * surrogate in the file name, ESC and OSC sequences and a newline in comm
 * and the command line; and the syslog output, read from a socket of the
 * test's own.
 */
#define HOSTILE_FILE "b\xe2\x80\xae" "exe\xc0\xaf\xed\xa0\x80z"
#define HOSTILE_COMM "\x1b]0;t\x07\n\x1b[2J"
#define HOSTILE_RULE "threat hostile bytes"

static struct sensor_proc hostile_sensor;
static char hostile_dir[] = "/tmp/plumbline-thr-XXXXXX";
static int syslog_fd = -1;

static int hostile_teardown(void **state)
{
	char p[256];

	if (hostile_sensor.dir[0])
		sensor_cleanup(&hostile_sensor);
	if (syslog_fd >= 0)
		close(syslog_fd);
	syslog_fd = -1;
	if (hostile_dir[strlen(hostile_dir) - 1] != 'X') {
		static const char *const files[] = { "sock", "rules.yaml", HOSTILE_FILE };

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s", hostile_dir, files[i]);
			unlink(p);
		}
		rmdir(hostile_dir);
	}
	return 0;
}

/* No C0 control but LF (and none at all with no_lf), no DEL, valid UTF-8 with
 * no overlong form, surrogate, C1 control, line separator or bidi control. */
static void assert_clean_text(const char *what, const unsigned char *u, size_t n, bool no_lf)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		unsigned int cp;

		if (c < 0x80) {
			if ((c < 0x20 && (c != '\n' || no_lf)) || c == 0x7f)
				fail_msg("%s: control byte 0x%02x at offset %zu", what, c, i);
			i++;
			continue;
		}
		if (!len || i + len > n)
			fail_msg("%s: invalid UTF-8 lead byte 0x%02x at offset %zu", what, c, i);
		cp = c & (0x7f >> len);
		for (size_t k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				fail_msg("%s: invalid UTF-8 at offset %zu", what, i);
			cp = cp << 6 | (u[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			fail_msg("%s: overlong or surrogate UTF-8 at offset %zu", what, i);
		if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c)
			fail_msg("%s: C1, separator or bidi control U+%04X at offset %zu", what, cp, i);
		i += len;
	}
}

/* The value of SD-PARAM name in an RFC 5424 message, RFC 5424 escapes undone. */
static char *sd_param(const char *msg, const char *name)
{
	char key[64], *out;
	const char *p;
	size_t n = 0;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(msg, key);
	if (!p)
		return NULL;
	p += strlen(key);
	out = malloc(strlen(p) + 1);
	assert_non_null(out);
	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == ']'))
			p++;
		out[n++] = *p;
	}
	out[n] = '\0';
	return out;
}

static void test_hostile_bytes_reach_syslog_live_and_json_escaped(void **state)
{
	char sock[128], rules[128], exe[256], target[160], yaml[1024], dgram[9000], *msg = NULL, *live;
	const char *extra[] = { "--process-records", "--syslog", target, "--rules", rules, "--live", "--interval", "1",
				NULL };
	const char *argv[] = { exe, "rename", HOSTILE_COMM, "3", NULL };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct json_object *recs, *r, *alert = NULL;
	size_t len;
	pid_t pid;
	int st;

	NEED_BPF();
	assert_non_null(mkdtemp(hostile_dir));
	snprintf(sock, sizeof(sock), "%s/sock", hostile_dir);
	snprintf(rules, sizeof(rules), "%s/rules.yaml", hostile_dir);
	snprintf(exe, sizeof(exe), "%s/" HOSTILE_FILE, hostile_dir);
	snprintf(target, sizeof(target), "unix:%s", sock);
	snprintf(yaml, sizeof(yaml),
		 "- rule: " HOSTILE_RULE "\n"
		 "  desc: prints every string the process chose\n"
		 "  condition: 'proc.exe startswith \"%s/\"'\n"
		 "  output: \"name=%%proc.name exe=%%proc.exe cmd=%%proc.cmdline\"\n"
		 "  priority: NOTICE\n"
		 "  when: exit\n",
		 hostile_dir);
	{
		FILE *f = fopen(rules, "we");
		int fd;

		assert_non_null(f);
		assert_true(fputs(yaml, f) >= 0);
		assert_int_equal(fclose(f), 0);
		fd = open(exe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
		assert_true(fd >= 0);
		copy_file(PL_HELPER_BIN, fd);
		assert_int_equal(close(fd), 0);
	}
	syslog_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(syslog_fd >= 0);
	assert_true(strlen(sock) < sizeof(a.sun_path));
	memcpy(a.sun_path, sock, strlen(sock) + 1);
	assert_int_equal(bind(syslog_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(sensor_start(&hostile_sensor, extra), 0);

	pid = run_wait(exe, argv, 0);
	recs = records_wait_pid(&hostile_sensor, pid, 2, WAIT_MS);
	assert_non_null(recs);
	json_object_put(recs);
	recs = records_load(&hostile_sensor);
	r = records_find(recs, pid, "exec");
	assert_non_null(r);
	/* JSON: every hostile byte written as \xNN, once */
	assert_string_equal(rec_str(r, "comm"), "\\x1B]0;t\\x07\\x0A\\x1B[2J");
	assert_non_null(strstr(rec_str(r, "exe"), "/b\\xE2\\x80\\xAEexe\\xC0\\xAF\\xED\\xA0\\x80z"));
	assert_non_null(strstr(rec_str(r, "cmdline"), " rename \\x1B]0;t\\x07\\x0A\\x1B[2J 3"));
	for (size_t i = 0; i < json_object_array_length(recs); i++) {
		struct json_object *x = json_object_array_get_idx(recs, i);

		if (rec_str(x, "rule") && strcmp(rec_str(x, "rule"), HOSTILE_RULE) == 0 && rec_int(x, "pid") == pid)
			alert = x;
	}
	assert_non_null(alert);
	assert_non_null(strstr(rec_str(alert, "output"), "name=\\x1B]0;t\\x07\\x0A\\x1B[2J exe="));

	/* syslog: one datagram for the alert, one clean line, its SD exe the JSON string */
	for (int tries = 0; tries < 100 && !msg; tries++) {
		ssize_t n = recv(syslog_fd, dgram, sizeof(dgram) - 1, MSG_DONTWAIT);

		if (n < 0) {
			assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
			usleep(100000);
			continue;
		}
		dgram[n] = '\0';
		assert_clean_text("syslog message", (const unsigned char *)dgram, (size_t)n, true);
		if (strstr(dgram, " rule=\"" HOSTILE_RULE "\""))
			msg = dgram;
	}
	assert_non_null(msg);
	{
		char *v = sd_param(msg, "exe"), lead[96];
		/* inside the SD element " and ] are always escaped: the first "] ends it */
		const char *body = strstr(msg, "\"] ");

		assert_non_null(v);
		assert_string_equal(v, rec_str(alert, "exe"));
		free(v);
		assert_non_null(body);
		/* "] " then MSG: the priority and the alert's id, then its output */
		snprintf(lead, sizeof(lead), "[NOTICE] id=%s ", rec_str(alert, "id"));
		assert_memory_equal(body + 3, lead, strlen(lead));
		assert_string_equal(body + 3 + strlen(lead), rec_str(alert, "output"));
	}
	json_object_put(recs);

	/* the JSON file and the live view: no raw control byte, valid UTF-8 */
	usleep(1500000); /* a live table after the run */
	st = sensor_stop(&hostile_sensor);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	{
		FILE *f = fopen(hostile_sensor.json, "re");
		char *buf = NULL;
		size_t cap = 0;
		ssize_t n;

		assert_non_null(f);
		n = getdelim(&buf, &cap, '\0', f);
		fclose(f);
		assert_true(n > 0);
		assert_clean_text("JSON output", (const unsigned char *)buf, (size_t)n, false);
		free(buf);
	}
	{
		FILE *f = fopen(hostile_sensor.out, "re");
		size_t cap = 0;
		ssize_t n;

		live = NULL;
		assert_non_null(f);
		n = getdelim(&live, &cap, '\0', f);
		fclose(f);
		assert_true(n > 0);
		len = (size_t)n;
	}
	assert_clean_text("live view", (const unsigned char *)live, len, false);
	assert_non_null(strstr(live, "ALERT Notice " HOSTILE_RULE ": name=\\x1B]0;t\\x07\\x0A\\x1B[2J exe="));
	free(live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_renaming_comm_and_argv0_to_sshd_does_not_make_it_sshd),
		HARNESS_TEST(test_memfd_and_deleted_executables_alert_with_their_kind),
		HARNESS_TEST(test_a_reused_pid_keeps_two_separate_records),
		cmocka_unit_test_teardown(test_hostile_bytes_reach_syslog_live_and_json_escaped, hostile_teardown),
	};

	return cmocka_run_group_tests_name("bpf_threats", tests, group_setup, group_teardown);
}
