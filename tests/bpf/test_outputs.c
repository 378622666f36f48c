// SPDX-License-Identifier: MIT
/*
 * test_outputs.c - the real sensor's outputs: alerts to a syslog socket of
 * the test's own, as RFC 5424 with no control byte whatever the process's
 * name; a regular file where the syslog socket should be (said once at
 * start-up, alerts wait and are all delivered once a socket is there); and a
 * JSON file on a full filesystem, where the sensor must say it once, count
 * every lost record, and say when delivery works again with how many were
 * lost; and every alert's context held to the machine's ground truth: the
 * host name and /etc/machine-id, the user of the process (root, and nobody
 * for a helper run as uid 65534) in the JSON record, the OCSF finding, the
 * syslog MSG and the live view's line. (tests/syslog/ has the same against a
 * real rsyslogd.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <grp.h>
#include <pwd.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sensor_harness.h"

/* What a test started, for teardown to stop and remove even after a failed
 * assertion (a sensor left running would hold ctest's output pipe open). */
static struct sensor_proc sensor;
static char tmpfs_dir[64];
static char work_dir[64]; /* the syslog tests' socket, rules and renamed helper */
static int log_sock = -1;

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static int teardown(void **state)
{
	if (sensor.pid > 0 || sensor.dir[0])
		sensor_cleanup(&sensor);
	memset(&sensor, 0, sizeof(sensor));
	if (log_sock >= 0)
		close(log_sock);
	log_sock = -1;
	if (work_dir[0]) {
		nftw(work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		work_dir[0] = '\0';
	}
	if (tmpfs_dir[0]) {
		umount2(tmpfs_dir, MNT_DETACH);
		rmdir(tmpfs_dir);
		tmpfs_dir[0] = '\0';
	}
	return 0;
}

static int group_setup(void **state)
{
	if (harness_group_setup(state) < 0)
		return -1;
	if (!harness_have_bpf())
		return 0;
	/* a private mount namespace: the test's tmpfs never shows on the host,
	 * and the sensor (our child) sees it */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "cannot make a private mount namespace: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Lines of the file at path containing what (0 when unreadable). */
static int count_lines(const char *path, const char *what)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen(path, "re");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* The first line of path containing what, into line; false if none. */
static bool find_line(const char *path, const char *what, char *line, size_t size)
{
	bool found = false;
	FILE *f = fopen(path, "re");

	while (f && !found && fgets(line, (int)size, f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

static bool wait_line(const char *path, const char *what, int timeout_ms)
{
	long long deadline = harness_now_ms() + timeout_ms;

	while (count_lines(path, what) == 0) {
		if (harness_now_ms() > deadline)
			return false;
		usleep(50000);
	}
	return true;
}

/* Records of type `type` in a JSON Lines file; the last one into *last (a new reference). */
static int count_records(const char *path, const char *type, struct json_object **last)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f = fopen(path, "re");

	if (last)
		*last = NULL;
	while (f && getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line);
		const char *t = rec_str(o, "type");

		if (t && strcmp(t, type) == 0) {
			n++;
			if (last) {
				json_object_put(*last);
				*last = json_object_get(o);
			}
		}
		json_object_put(o);
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

/* ---- syslog ---- */

#define WAIT_MS (10000 * HARNESS_SLOWDOWN)

/* An exit rule on the helper's exit code, NOTICE (PRI 29 with daemon). */
static const char exit42_rule[] = "- rule: exit 42\n"
				  "  desc: the helper exited 42\n"
				  "  condition: proc.exit_code = 42 and proc.exe_name endswith helper\n"
				  "  output: \"ran %proc.exe_name (pid %proc.pid)\"\n"
				  "  priority: NOTICE\n";

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A datagram socket of our own at path, standing in for the syslog daemon. */
static int bind_log_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/*
 * The next datagram of an alert about a process, within timeout_ms. The
 * sensor's alerts about itself (when="sensor", such as "Sensor lost
 * events") are skipped: they tell of whatever else the shared machine runs
 * (another test's storm of failed opens over its image's share), not of
 * this test's processes.
 */
static ssize_t recv_datagram(int fd, char *buf, size_t size, int timeout_ms)
{
	long long deadline = harness_now_ms() + timeout_ms;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		long long left = deadline - harness_now_ms();

		if (left < 0 || poll(&p, 1, (int)left) != 1)
			return -1;
		n = recv(fd, buf, size - 1, MSG_DONTWAIT);
		if (n < 0)
			return n;
		buf[n] = '\0';
		if (!strstr(buf, " when=\"sensor\" "))
			return n;
	}
}

/* Copy the static helper to dir under a hostile name; its path into out. */
static void hostile_helper(const char *dir, char *out, size_t size)
{
	char *bin;
	size_t len = 0;
	FILE *f = fopen(PL_HELPER_BIN, "re");
	int fd;

	assert_non_null(f);
	bin = malloc(8 << 20);
	assert_non_null(bin);
	len = fread(bin, 1, 8 << 20, f);
	fclose(f);
	assert_true(len > 0);
	/* CR LF, ESC and a quote: a name that would split or forge a log line */
	snprintf(out, size, "%s/pl\r\n\x1b\"helper", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bin, len), (ssize_t)len);
	close(fd);
	free(bin);
}

/* Run prog exit 42 and wait for the sensor to write its alert (JSON first,
 * then syslog, in that order). Returns the pid. */
static pid_t run_exit42(const char *prog, const char *json, int alerts_before)
{
	const char *argv[] = { prog, "exit", "42", NULL };
	long long deadline = harness_now_ms() + WAIT_MS;
	char out[64];
	int st;
	pid_t pid = run_capture(argv, out, sizeof(out), &st);

	assert_true(pid > 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 42);
	while (count_records(json, "alert", NULL) <= alerts_before && harness_now_ms() < deadline)
		usleep(20000);
	assert_int_equal(count_records(json, "alert", NULL), alerts_before + 1);
	return pid;
}

static void syslog_setup(char *sock, char *rules, char *helper, size_t size)
{
	snprintf(work_dir, sizeof(work_dir), "/tmp/pl-bpf-syslog-XXXXXX");
	assert_non_null(mkdtemp(work_dir));
	snprintf(sock, size, "%s/log", work_dir);
	snprintf(rules, size, "%s/rules.yaml", work_dir);
	write_file(rules, exit42_rule, 0644);
	hostile_helper(work_dir, helper, size);
}

/* The alert of pid in the JSON output (a new reference), or NULL. */
static struct json_object *alert_of(struct sensor_proc *s, pid_t pid)
{
	struct json_object *recs = records_load(s), *found = NULL;

	for (size_t i = 0; recs && i < json_object_array_length(recs) && !found; i++) {
		struct json_object *r = json_object_array_get_idx(recs, i);
		const char *t = rec_str(r, "type");

		if (t && strcmp(t, "alert") == 0 && rec_int(r, "pid") == pid)
			found = json_object_get(r);
	}
	json_object_put(recs);
	return found;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return v;
}

static const char *member_str(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

/* This machine's ground truth: its name, /etc/machine-id; the test's user. */
static void machine_truth(char *name, size_t nsize, char *mid, size_t msize, char *user, size_t usize)
{
	FILE *f = fopen("/etc/machine-id", "re");
	struct passwd *pw = getpwuid(getuid());

	assert_int_equal(gethostname(name, nsize - 1), 0);
	name[nsize - 1] = '\0';
	assert_non_null(f);
	assert_non_null(fgets(mid, (int)msize, f));
	fclose(f);
	mid[strcspn(mid, "\n")] = '\0';
	assert_non_null(pw);
	snprintf(user, usize, "%s", pw->pw_name);
}

/* The alert's host, user and rule desc in the JSON record and its OCSF
 * finding, against the machine (the helper runs as the test's uid). */
static void check_context(struct json_object *a, const char *ocsf_path)
{
	char name[256], mid[64], user[64], uid[16];
	struct json_object *host = member(a, "host"), *u = member(a, "user"), *fnd = NULL, *ev;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	machine_truth(name, sizeof(name), mid, sizeof(mid), user, sizeof(user));
	assert_string_equal(member_str(host, "name"), name);
	assert_string_equal(member_str(host, "id"), mid);
	assert_int_equal(json_object_get_int64(member(u, "uid")), getuid());
	assert_string_equal(member_str(u, "name"), user);
	assert_string_equal(member_str(a, "rule_desc"), "the helper exited 42");
	/* the same alert's OCSF finding: device, actor.user, finding_info.desc */
	f = fopen(ocsf_path, "re");
	assert_non_null(f);
	while (!fnd && getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line), *md;

		if (o && json_object_object_get_ex(o, "metadata", &md) &&
		    strcmp(member_str(md, "uid"), member_str(a, "id")) == 0)
			fnd = json_object_get(o);
		json_object_put(o);
	}
	free(line);
	fclose(f);
	if (!fnd)
		fail_msg("no finding %s in %s", member_str(a, "id"), ocsf_path);
	assert_string_equal(member_str(member(fnd, "device"), "hostname"), name);
	assert_string_equal(member_str(member(fnd, "device"), "uid"), mid);
	ev = json_object_array_get_idx(member(fnd, "evidences"), 0);
	snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
	assert_string_equal(member_str(member(member(ev, "actor"), "user"), "uid"), uid);
	assert_string_equal(member_str(member(member(ev, "actor"), "user"), "name"), user);
	assert_string_equal(member_str(member(fnd, "finding_info"), "desc"), "the helper exited 42");
	json_object_put(fnd);
}

static void test_syslog_alert_is_one_clean_rfc5424_datagram(void **state)
{
	static const char header[] = "^<29>1 [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\\.[0-9]{6}"
				     "[+-][0-9]{2}:[0-9]{2} [!-~]+ plumbline [0-9]+ alert \\[plumbline@32473 ";
	char sock[128], rules[128], helper[128], target[160], dgram[8192], want[512], ocsf[160];
	const char *extra[] = {"--syslog", target, "--rules", rules, "--ocsf", ocsf, NULL};
	struct json_object *a;
	size_t wlen;
	regex_t re;
	ssize_t n;
	pid_t pid;

	NEED_BPF();
	syslog_setup(sock, rules, helper, sizeof(sock));
	log_sock = bind_log_socket(sock);
	snprintf(target, sizeof(target), "unix:%s", sock);
	snprintf(ocsf, sizeof(ocsf), "%s/ocsf.jsonl", work_dir);
	assert_int_equal(sensor_start(&sensor, extra), 0);

	pid = run_exit42(helper, sensor.json, 0);
	a = alert_of(&sensor, pid);
	assert_non_null(a);
	check_context(a, ocsf);
	n = recv_datagram(log_sock, dgram, sizeof(dgram), WAIT_MS);
	assert_true(n > 0);
	/* no control byte anywhere: one datagram, one line */
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)dgram[i] < 0x20 || dgram[i] == 0x7f)
			fail_msg("control byte 0x%02x at %zd in the datagram: %s", (unsigned char)dgram[i], i, dgram);
	/* <PRI>1 TIMESTAMP HOST APP PROCID MSGID [SD] MSG (daemon.notice = 29) */
	assert_int_equal(regcomp(&re, header, REG_EXTENDED | REG_NOSUB), 0);
	if (regexec(&re, dgram, 0, NULL, 0) != 0)
		fail_msg("not an RFC 5424 header: %s", dgram);
	regfree(&re);
	snprintf(want, sizeof(want), " plumbline %d alert [", (int)sensor.pid);
	assert_non_null(strstr(dgram, want));
	/* the exe as the JSON has it (escaped once), with RFC 5424's escaping of '"' on top */
	snprintf(want, sizeof(want), " exe=\"%s/pl\\\\x0D\\\\x0A\\\\x1B\\\"helper\" ", work_dir);
	if (!strstr(dgram, want))
		fail_msg("no %s in %s", want, dgram);
	snprintf(want, sizeof(want), " pid=\"%d\" ", (int)pid);
	assert_non_null(strstr(dgram, want));
	/* the alert's id in SD and, with its priority, leading MSG (what a plain line keeps) */
	snprintf(want, sizeof(want), "[plumbline@32473 id=\"%s\" ", member_str(a, "id"));
	assert_non_null(strstr(dgram, want));
	snprintf(want, sizeof(want),
		 " rule_desc=\"the helper exited 42\"] [NOTICE] id=%s ran pl\\x0D\\x0A\\x1B\\x22helper (pid %d)",
		 member_str(a, "id"), (int)pid);
	json_object_put(a);
	wlen = strlen(want);
	assert_true((size_t)n > wlen);
	assert_string_equal(dgram + n - wlen, want);
	/* exactly one datagram for the one alert */
	assert_int_equal(recv_datagram(log_sock, dgram, sizeof(dgram), 500), -1);
	assert_int_equal(count_lines(sensor.log, "syslog"), 0); /* nothing to complain about */
}

/* An alert about a process of another user names that user: the helper run
 * as nobody (uid 65534), its alert's user the uid and getpwuid()'s name, in
 * the JSON record, the OCSF finding and the live view's line. */
static void test_alert_names_the_user_of_its_process(void **state)
{
	char sock[128], rules[128], helper[128], ocsf[160], line[512], user[64];
	const char *extra[] = {"--no-syslog", "--rules", rules, "--ocsf", ocsf, "--live", NULL};
	struct json_object *a, *fnd = NULL;
	struct passwd *pw;
	char *buf = NULL;
	size_t cap = 0;
	int st;
	pid_t pid;
	FILE *f;

	NEED_BPF();
	pw = getpwuid(65534);
	if (!pw)
		skip();
	snprintf(user, sizeof(user), "%s", pw->pw_name);
	syslog_setup(sock, rules, helper, sizeof(sock));
	assert_int_equal(chmod(work_dir, 0755), 0);
	snprintf(ocsf, sizeof(ocsf), "%s/ocsf.jsonl", work_dir);
	assert_int_equal(sensor_start(&sensor, extra), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(126);
		execl(helper, helper, "exit", "42", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 42);
	for (int i = 0; i < 250 && !(a = alert_of(&sensor, pid)); i++)
		usleep(20000);
	assert_non_null(a);
	assert_int_equal(json_object_get_int64(member(member(a, "user"), "uid")), 65534);
	assert_string_equal(member_str(member(a, "user"), "name"), user);
	/* the OCSF finding's actor */
	f = fopen(ocsf, "re");
	assert_non_null(f);
	while (!fnd && getline(&buf, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(buf), *md;

		if (o && json_object_object_get_ex(o, "metadata", &md) &&
		    strcmp(member_str(md, "uid"), member_str(a, "id")) == 0)
			fnd = json_object_get(o);
		json_object_put(o);
	}
	fclose(f);
	assert_non_null(fnd);
	{
		struct json_object *u =
		    member(member(json_object_array_get_idx(member(fnd, "evidences"), 0), "actor"), "user");

		assert_string_equal(member_str(u, "uid"), "65534");
		assert_string_equal(member_str(u, "name"), user);
	}
	json_object_put(fnd);
	/* the live view's line ends in the id, the host and the user */
	assert_int_equal(sensor_stop(&sensor), 0);
	{
		char host[256] = "";

		assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
		snprintf(line, sizeof(line), "(pid %d) (id %s, host %s, user %s uid 65534)\n", (int)pid,
			 member_str(a, "id"), host, user);
	}
	f = fopen(sensor.out, "re");
	assert_non_null(f);
	assert_true(getdelim(&buf, &cap, '\0', f) > 0);
	fclose(f);
	if (!strstr(buf, line))
		fail_msg("no '%s' in the live view", line);
	free(buf);
	json_object_put(a);
}

static void test_syslog_regular_file_warns_once_alerts_wait_and_arrive(void **state)
{
	char sock[128], rules[128], helper[128], target[160], dgram[8192];
	const char *extra[] = { "--syslog", target, "--rules", rules, NULL };
	struct json_object *stats = NULL, *sl;
	long long sensor_alerts;
	pid_t pids[4];

	NEED_BPF();
	syslog_setup(sock, rules, helper, sizeof(sock));
	write_file(sock, "not a socket\n", 0644); /* what an attacker leaves at /dev/log */
	snprintf(target, sizeof(target), "unix:%s", sock);
	assert_int_equal(sensor_start(&sensor, extra), 0);
	/* said at start-up, before any alert */
	assert_true(wait_line(sensor.log, "is a regular file, not a socket", 2000));

	for (int i = 0; i < 3; i++)
		pids[i] = run_exit42(helper, sensor.json, i);
	usleep(200000);
	assert_int_equal(count_lines(sensor.log, "not a socket"), 1);

	/* a daemon appears; the alerts that waited arrive, in order, with the next */
	unlink(sock);
	log_sock = bind_log_socket(sock);
	sleep(1);
	pids[3] = run_exit42(helper, sensor.json, 3);
	for (int i = 0; i < 4; i++) {
		char want[64];

		do
			assert_true(recv_datagram(log_sock, dgram, sizeof(dgram), WAIT_MS) > 0);
		while (strstr(dgram, "Sensor lost events"));
		snprintf(want, sizeof(want), " pid=\"%d\" ", (int)pids[i]);
		if (!strstr(dgram, want))
			fail_msg("datagram %d is not the alert of pid %d: %s", i, (int)pids[i], dgram);
	}

	assert_true(WIFEXITED(sensor_stop(&sensor)));
	count_records(sensor.json, "stats", &stats);
	assert_non_null(stats);
	assert_true(json_object_object_get_ex(stats, "syslog", &sl));
	/* the sensor's own loss alerts (when="sensor": other tests' load on a
	 * shared machine) go to syslog too: counted beside the four */
	sensor_alerts = count_lines(sensor.json, "\"when\":\"sensor\"");
	assert_int_equal(rec_int(sl, "dropped"), 0);
	assert_int_equal(rec_int(sl, "written"), 4 + sensor_alerts);
	assert_int_equal(rec_int(sl, "sent"), 4 + sensor_alerts);
	assert_int_equal(rec_int(sl, "queued"), 0);
	assert_int_equal(rec_int(sl, "connects"), 1);
	assert_true(rec_int(sl, "connect_failures") >= 1);
	assert_int_equal(count_lines(sensor.log, "not a socket"), 1);
	assert_int_equal(count_lines(sensor.log, "Recovered:"), 0); /* nothing was lost */
	json_object_put(stats);
}

/* ---- JSON output ---- */

/* Take every free block of the filesystem: a file written until ENOSPC. */
static void fill(const char *path)
{
	static char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	while (write(fd, block, 1) == 1)
		;
	close(fd);
}

static void test_json_on_full_disk_says_once_and_counts_the_loss(void **state)
{
	char *dir = tmpfs_dir, json[128], filler[128], line[4096], want[128];
	const char *extra[] = { "--json", json, "--stats-interval", "1", "--no-rules", "--no-baselines", NULL };
	struct json_object *stats = NULL, *out;
	struct sensor_proc *s = &sensor;
	long long dropped, lost = 0;
	int episodes, sensor_alerts;
	FILE *f;
	long long deadline;
	int st;

	NEED_BPF();
	snprintf(dir, sizeof(tmpfs_dir), "/tmp/pl-bpf-full-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700"), 0);
	snprintf(json, sizeof(json), "%s/records.jsonl", dir);
	snprintf(filler, sizeof(filler), "%s/filler", dir);

	/* only stats records, one a second: each is at least as long as the one
	 * before (its counters only grow), so once one does not fit, none does
	 * until space is freed, whatever a page's slack */
	assert_int_equal(sensor_start(s, extra), 0);
	deadline = harness_now_ms() + 10000;
	while (count_records(json, "stats", NULL) < 2 && harness_now_ms() < deadline)
		usleep(100000);
	assert_true(count_records(json, "stats", NULL) >= 2);

	fill(filler);
	assert_true(wait_line(s->log, "Cannot write records", 5000));
	sleep(3); /* a few more records lost, and nothing more said */
	assert_int_equal(unlink(filler), 0);
	assert_true(wait_line(s->log, "Recovered:", 5000));
	sleep(1);
	st = sensor_stop(s);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* the shutdown stats record counts exactly what was lost */
	count_records(json, "stats", &stats);
	assert_non_null(stats);
	assert_true(json_object_object_get_ex(stats, "output", &out));
	dropped = rec_int(out, "dropped");
	assert_true(dropped >= 3);
	/* one warning, one recovery line, with that number. The sensor's own
	 * loss alert (when="sensor": other tests' load on a shared machine) is
	 * shorter than the stats record that failed and may fit a page's slack:
	 * each one written ends an episode, and the next lost record begins one */
	sensor_alerts = count_lines(json, "\"when\":\"sensor\"");
	episodes = count_lines(s->log, "Cannot write records");
	assert_true(episodes >= 1 && episodes <= 1 + sensor_alerts);
	assert_int_equal(count_lines(s->log, "Recovered:"), episodes);
	assert_int_equal(count_lines(s->log, "Still cannot write"), 0); /* less than a minute */
	f = fopen(s->log, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "Recovered:");

		if (p && (p = strstr(p, "; ")))
			lost += strtoll(p + 2, NULL, 10);
	}
	fclose(f);
	snprintf(want, sizeof(want), "%lld records lost", dropped);
	if (lost != dropped)
		fail_msg("the recovery lines count %lld lost, not %s", lost, want);
	assert_non_null(find_line(s->log, "No space left on device", line, sizeof(line)) ? line : NULL);
	json_object_put(stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_syslog_alert_is_one_clean_rfc5424_datagram, teardown),
	    cmocka_unit_test_teardown(test_alert_names_the_user_of_its_process, teardown),
	    cmocka_unit_test_teardown(test_syslog_regular_file_warns_once_alerts_wait_and_arrive, teardown),
	    cmocka_unit_test_teardown(test_json_on_full_disk_says_once_and_counts_the_loss, teardown),
	};

	return cmocka_run_group_tests_name("bpf_outputs", tests, group_setup, NULL);
}
