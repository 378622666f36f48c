// SPDX-License-Identifier: MIT
/*
 * cmd_status.c - `plumbline status`: status.json, checked and printed.
 *
 * The file is the sensor's word (runtime.h); whether that sensor still runs
 * is checked here: its pid must be alive and be plumbline (a pid reused by
 * another program after a crash is not taken for the sensor). The file is
 * bounded and parsed as untrusted JSON; its strings were escaped by the
 * sensor (text_escape), and are printed as such.
 */
#include "cli/cmd_status.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "lineread.h"
#include "log.h"
#include "telemetry/runtime.h"

#define STATUS_MAX_BYTES (1u << 20)
#define STATUS_STALE_S	 10 /* five missed updates */

static void usage(FILE *f)
{
	fputs("Usage: plumbline status [--runtime-dir DIR] [--json]\n"
	      "\n"
	      "Show what the running sensor watches, what it is learning and how far along,\n"
	      "what it lost, and its last alerts. Read from DIR/status.json, which the sensor\n"
	      "rewrites every 2 seconds: the sensor is not disturbed.\n"
	      "Exits 1, saying why, when no sensor is running (or it stopped updating).\n"
	      "\n"
	      "Options:\n"
	      "  --runtime-dir DIR   the sensor's runtime directory (default /run/plumbline)\n"
	      "  --json              print status.json as it is (fields: docs/status.md)\n"
	      "  -h, --help          this help\n",
	      f);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static uint64_t u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;
}

/* s printable, in buf: control bytes (which the sensor never writes, as it
 * escapes them) are shown as '?'. */
static const char *printable(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/* The string member key of o, printable; NULL when missing or no string. */
static const char *str(struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object *v = get(o, key);
	const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

	return s ? printable(s, buf, size) : NULL;
}

/* o when it is an object (json_object_object_foreach() needs one), else NULL. */
static struct json_object *object(struct json_object *o)
{
	return o && json_object_is_type(o, json_type_object) ? o : NULL;
}

static void when(uint64_t ns, char *buf, size_t size)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, size, "?");
}

static void duration(uint64_t ns, char *buf, size_t size)
{
	uint64_t s = ns / 1000000000ull;

	if (s >= 86400)
		snprintf(buf, size, "%llud %02lluh %02llum", (unsigned long long)(s / 86400),
			 (unsigned long long)(s % 86400 / 3600), (unsigned long long)(s % 3600 / 60));
	else if (s >= 3600)
		snprintf(buf, size, "%lluh %02llum %02llus", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, size, "%llum %02llus", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
}

/* Whether pid runs plumbline: alive, and its comm says so. */
static bool is_sensor(uint64_t pid)
{
	char path[64], comm[32];

	if (pid == 0 || pid > 4194304)
		return false;
	if (kill((pid_t)pid, 0) < 0 && errno != EPERM)
		return false;
	snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)pid);
	if (read_small_file(path, comm, sizeof(comm)) <= 0)
		return false;
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, "plumbline") == 0;
}

static int read_status(const char *path, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	char *buf;
	size_t len = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > STATUS_MAX_BYTES)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

static void print_outputs(FILE *out, struct json_object *outs)
{
	bool first = true;
	char b[64], nb[64];

	fprintf(out, "  %-14s", "outputs");
	if (object(outs)) {
		json_object_object_foreach(outs, name, o)
		{
			fprintf(out, "%s%s %s (%llu written, %llu dropped)", first ? "" : "; ",
				printable(name, nb, sizeof(nb)), str(o, "state", b, sizeof(b)) ?: "?",
				(unsigned long long)u64(o, "written"), (unsigned long long)u64(o, "dropped"));
			first = false;
		}
	}
	fprintf(out, "%s\n", first ? "none" : "");
}

static void print_watching(FILE *out, struct json_object *w, uint64_t alerts)
{
	struct json_object *f = get(w, "features");
	size_t n = f && json_object_is_type(f, json_type_array) ? json_object_array_length(f) : 0;

	fprintf(out, "\nWatching\n");
	fprintf(out, "  %-14s%llu tracked (at most %llu)\n", "processes",
		(unsigned long long)u64(w, "tracked_processes"), (unsigned long long)u64(w, "max_procs"));
	fprintf(out, "  %-14s", "features");
	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(f, i));
		char fb[64];

		fprintf(out, "%s%s", i ? ", " : "", s ? printable(s, fb, sizeof(fb)) : "?");
	}
	fprintf(out, "%s\n", n ? "" : "none");
	if (json_object_get_boolean(get(w, "rules")))
		fprintf(out, "  %-14s%llu loaded, %llu enabled; %llu alerts written\n", "rules",
			(unsigned long long)u64(w, "rules_loaded"), (unsigned long long)u64(w, "rules_enabled"),
			(unsigned long long)alerts);
	else
		fprintf(out, "  %-14soff (--no-rules)\n", "rules");
	fprintf(out, "  %-14s%s\n", "baselines",
		json_object_get_boolean(get(w, "baselines")) ? "on" : "off (--no-baselines)");
	fprintf(out, "  %-14s%s\n", "stacks", json_object_get_boolean(get(w, "stack_sampling")) ? "sampled" : "off");
	print_outputs(out, get(w, "outputs"));
}

/* What a family's learning baselines wait for, in words: "waiting: 12 for samples, 3 for quiet time". */
static void print_waiting(FILE *out, const char *family, struct json_object *w, uint64_t learning)
{
	static const struct {
		const char *key, *words;
	} kinds[] = {
		{ "draws", "for samples" },
		{ "procs", "for runs sampled on CPU" },
		{ "chance", "while new set members still arrive" },
		{ "quiet", "for quiet time (--set-quiet)" },
	};
	bool any = false;

	if (!w || !learning)
		return;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		uint64_t n = u64(w, kinds[i].key);

		if (!n)
			continue;
		/* a draw of the windows family is a window, of the on-CPU sets a CPU sample */
		fprintf(out, "%s%llu %s", any ? ", " : "                   waiting: ", (unsigned long long)n,
			i ? kinds[i].words
			: !strcmp(family, "windows")	      ? "for windows"
			: !strncmp(family, "oncpu", 5)	      ? "for CPU samples"
							      : kinds[i].words);
		any = true;
	}
	if (any)
		fputs(" (plumbline baseline list: per baseline)\n", out);
}

/* Per rule family: armed or not, and how many of the running binaries' baselines are ready for it. */
static void print_families(FILE *out, struct json_object *l)
{
	struct json_object *fam = get(l, "families");
	size_t n = fam && json_object_is_type(fam, json_type_array) ? json_object_array_length(fam) : 0;

	if (!n)
		return;
	fprintf(out, "  armed, by rule family (binaries seen in the last 10 minutes; armed at 80%%):\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(fam, i);
		char name[64], rules[256];
		uint64_t r = u64(t, "active_ready"), g = u64(t, "active_learning");

		fprintf(out, "    %-14s %-8s %3llu%% of what runs, %llu of %llu baselines ready  (%s)\n",
			str(t, "family", name, sizeof(name)) ?: "?",
			json_object_get_boolean(get(t, "armed")) ? "armed" : r + g ? "learning" : "idle",
			(unsigned long long)u64(t, "ready_pct"), (unsigned long long)r, (unsigned long long)(r + g),
			str(t, "rules", rules, sizeof(rules)) ?: "");
		print_waiting(out, name, get(t, "waiting_for"), g);
	}
}

static void print_learning(FILE *out, struct json_object *l)
{
	struct json_object *top = get(l, "closest_to_ready");
	size_t n = top && json_object_is_type(top, json_type_array) ? json_object_array_length(top) : 0;

	if (!l) {
		fprintf(out, "\nLearning\n  off (--no-baselines)\n");
		return;
	}
	fprintf(out, "\nLearning\n");
	fprintf(out,
		"  %-14s%llu: %llu ready, %llu learning (ready at %llu process samples); %llu with window scores "
		"ready\n",
		"baselines", (unsigned long long)u64(l, "baselines"), (unsigned long long)u64(l, "ready"),
		(unsigned long long)u64(l, "learning"), (unsigned long long)u64(l, "min_samples"),
		(unsigned long long)u64(l, "windows_ready"));
	if (n)
		fprintf(out, "  closest to ready:\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(top, i);
		char exe[256], parent[256], id[32];
		uint64_t have = u64(t, "samples"), need = u64(t, "needed");

		/* the id tells apart two baselines of one exe and parent label (versions, parents) */
		fprintf(out, "    %7llu/%-7llu %3u%%  %s (parent %s) %s\n", (unsigned long long)have,
			(unsigned long long)need, need ? (unsigned)(have * 100 / need) : 0,
			str(t, "exe", exe, sizeof(exe)) ?: "?", str(t, "parent_exe", parent, sizeof(parent)) ?: "?",
			str(t, "id", id, sizeof(id)) ?: "");
	}
	print_families(out, l);
}

/* The fleet's view: the role, the bundle in use, what was refused. */
static void print_fleet(FILE *out, struct json_object *f)
{
	struct json_object *b = get(f, "bundle"), *refused = get(f, "refused");
	char role[80], dir[300], file[300], key[40], made[40], rb[64];
	bool any = false;

	if (!f)
		return;
	fprintf(out, "\nFleet\n  role %s, directory %s, %llu trusted key%s\n",
		str(f, "role", role, sizeof(role)) ?: "?", str(f, "dir", dir, sizeof(dir)) ?: "?",
		(unsigned long long)u64(f, "keys"), u64(f, "keys") == 1 ? "" : "s");
	if (json_object_is_type(get(f, "watching"), json_type_boolean) &&
	    !json_object_get_boolean(get(f, "watching")))
		fprintf(out, "  the directory was removed or moved away: looked for each second, the view in use stays\n");
	if (b) {
		when(u64(b, "created_ns"), made, sizeof(made));
		fprintf(out, "  in use: %s, %llu baselines from %llu hosts, made %s, key %s (read in %.1f ms)\n",
			str(b, "file", file, sizeof(file)) ?: "?", (unsigned long long)u64(b, "baselines"),
			(unsigned long long)u64(b, "hosts"), made, str(b, "key_id", key, sizeof(key)) ?: "?",
			u64(b, "load_ns") / 1e6);
	} else {
		fprintf(out, "  in use: none yet (no good bundle for the role)\n");
	}
	fprintf(out, "  refused:");
	if (object(refused)) {
		json_object_object_foreach(refused, why, v)
		{
			uint64_t n = json_object_get_uint64(v);

			if (!n)
				continue;
			fprintf(out, " %s %llu", printable(why, rb, sizeof(rb)), (unsigned long long)n);
			any = true;
		}
	}
	fprintf(out, "%s\n", any ? "" : " none");
}

static void print_losses(FILE *out, struct json_object *losses)
{
	bool any = false;
	char cb[64];

	fprintf(out, "\nLosses\n");
	if (object(losses)) {
		json_object_object_foreach(losses, cause, v)
		{
			uint64_t n = json_object_get_uint64(v);

			if (!n)
				continue;
			fprintf(out, "  %-24s%llu\n", printable(cause, cb, sizeof(cb)), (unsigned long long)n);
			any = true;
		}
	}
	if (!any)
		fprintf(out, "  nothing lost\n");
}

static void print_alerts(FILE *out, struct json_object *alerts)
{
	size_t n = alerts && json_object_is_type(alerts, json_type_array) ? json_object_array_length(alerts) : 0;

	fprintf(out, "\nLast alerts%s\n", n ? " (newest first)" : "");
	if (!alerts) {
		fprintf(out, "  rules off (--no-rules)\n");
		return;
	}
	if (!n)
		fprintf(out, "  none\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(alerts, i);
		char t[40], rule[160], prio[32], exe[300];

		when(u64(a, "time_ns"), t, sizeof(t));
		fprintf(out, "  %s  %-13s %-40s %s (pid %llu)\n", t, str(a, "priority", prio, sizeof(prio)) ?: "?",
			str(a, "rule", rule, sizeof(rule)) ?: "?", str(a, "exe", exe, sizeof(exe)) ?: "?",
			(unsigned long long)u64(a, "pid"));
	}
}

void cmd_status__print(struct json_object *o, FILE *out)
{
	char ver[32], started[40], up[40], metrics[96], dir[256], host[256];
	uint64_t now = real_ns(), t = u64(o, "time_ns");

	when(u64(o, "start_time_ns"), started, sizeof(started));
	duration(u64(o, "uptime_ns"), up, sizeof(up));
	fprintf(out, "plumbline %s, pid %llu, running for %s (since %s)%s%s\n",
		str(o, "version", ver, sizeof(ver)) ?: "?", (unsigned long long)u64(o, "pid"), up, started,
		str(o, "host_name", host, sizeof(host)) ? " on " : "", str(o, "host_name", host, sizeof(host)) ?: "");
	fprintf(out, "  CPU %.1f s, RSS %.1f MiB; metrics %s; status of %llu s ago (%s)\n", u64(o, "cpu_ns") / 1e9,
		u64(o, "rss_bytes") / 1048576.0, str(o, "metrics", metrics, sizeof(metrics)) ? metrics : "off",
		(unsigned long long)(now > t ? (now - t) / 1000000000ull : 0),
		str(o, "runtime_dir", dir, sizeof(dir)) ?: "?");
	print_watching(out, get(o, "watching"), u64(o, "alerts"));
	print_learning(out, get(o, "learning"));
	print_fleet(out, get(o, "fleet"));
	print_losses(out, get(o, "losses"));
	print_alerts(out, get(o, "last_alerts"));
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"runtime-dir", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	const char *dir = "/run/plumbline";
	bool as_json = false;
	char path[4096], *text = NULL, st[16];
	struct json_object *o;
	size_t len = 0;
	uint64_t pid, t, now = real_ns();
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			log_error("unknown or incomplete option '%s' (see plumbline status --help)", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument '%s' (see plumbline status --help)", argv[optind]);
		return -EINVAL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, STATUS_FILE) >= sizeof(path))
		return log_error_errno(ENAMETOOLONG, "--runtime-dir: too long");
	r = read_status(path, &text, &len);
	if (r == -ENOENT) {
		fprintf(stderr,
			"plumbline status: no sensor running: %s does not exist (no sensor has run with "
			"--runtime-dir %s)\n",
			path, dir);
		return 1;
	}
	if (r < 0)
		return log_error_errno(r, "Cannot read %s: %m", path);
	o = json_tokener_parse(text);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		free(text);
		return log_error_errno(EINVAL, "Cannot read %s: not a status file (not a JSON object)", path);
	}
	pid = u64(o, "pid");
	t = u64(o, "time_ns");
	r = 0;
	if (str(o, "state", st, sizeof(st)) && strcmp(st, "stopped") == 0) {
		char at[40];

		when(t, at, sizeof(at));
		fprintf(stderr, "plumbline status: no sensor running: the last one (pid %llu) stopped at %s\n",
			(unsigned long long)pid, at);
		r = 1;
	} else if (!is_sensor(pid)) {
		char at[40];

		when(t, at, sizeof(at));
		fprintf(stderr,
			"plumbline status: no sensor running: pid %llu of %s is gone or is not plumbline (the "
			"sensor ended without stopping: killed or crashed); its last status was at %s\n",
			(unsigned long long)pid, path, at);
		r = 1;
	}
	if (r == 0) {
		if (as_json)
			fwrite(text, 1, len, stdout);
		else
			cmd_status__print(o, stdout);
		if (now > t && now - t > STATUS_STALE_S * 1000000000ull) {
			fprintf(stderr,
				"plumbline status: the sensor (pid %llu) has not updated %s for %llu s: it may be "
				"stuck\n",
				(unsigned long long)pid, path, (unsigned long long)((now - t) / 1000000000ull));
			r = 1;
		}
	}
	json_object_put(o);
	free(text);
	return r;
}
