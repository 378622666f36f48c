// SPDX-License-Identifier: MIT
/*
 * runtime.c - the metrics endpoint and status.json (see runtime.h).
 */
#include "telemetry/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "metrics.h"
#include "telemetry/snapshot.h"

struct runtime {
	const struct run_opts *opts;
	struct metrics_server *srv; /* NULL: no --metrics */
	int dirfd;		    /* the runtime directory, -1: no status.json */
	uint64_t start_time_ns;	    /* REALTIME */
	uint64_t last_status_ns;    /* monotonic */
	bool status_failing;	    /* the last write failed (said once per streak) */
	bool publish_failing;
	struct snapshot snap;
};

/* Make dir (0755) when missing and open it; refuse one that another user
 * could write (it could plant a status.json that `status` would believe). */
static int open_dir(const char *dir)
{
	struct stat st;
	bool made = true;
	int fd;

	if (mkdir(dir, 0755) < 0) {
		if (errno != EEXIST)
			return log_warn_errno(errno,
					      "Cannot make the runtime directory %s: %m; no status.json (plumbline "
					      "status will not see this sensor)",
					      dir);
		made = false;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return log_warn_errno(errno, "Cannot open the runtime directory %s: %m; no status.json", dir);
	if (made && fchmod(fd, 0755) < 0) /* 0755 whatever the umask: `status` needs no privilege to find it */
		log_warn_errno(errno, "Cannot chmod 0755 the runtime directory %s: %m", dir);
	if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		log_warn("Refusing runtime directory %s: owned by uid %u with mode %04o, where it must be owned by "
			 "root and writable by no one else (fix: chown root %s; chmod 0755 %s); no status.json",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), dir, dir);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int runtime__open(const struct run_opts *opts, struct runtime **ret)
{
	struct runtime *rt = calloc(1, sizeof(*rt));
	int r;

	if (!rt)
		return log_error_errno(ENOMEM, "Out of memory");
	rt->opts = opts;
	rt->dirfd = -1;
	rt->start_time_ns = real_ns();
	if (opts->metrics) {
		struct metrics_addr a;
		char why[160];

		r = metrics_addr__parse(opts->metrics, &a, why, sizeof(why));
		if (r == 0)
			r = metrics_server__start(&a, &rt->srv);
		if (r == 0)
			metrics_server__set_live(rt->srv, snapshot__process_metrics, NULL);
		if (r < 0) {
			free(rt);
			return log_error_errno(r, "Cannot serve metrics on %s: %s", opts->metrics,
					       r == -EINVAL ? why
					       : r == -EIO  ? "libmicrohttpd would not start"
							    : strerror(-r));
		}
		log_info("metrics at http://%s/metrics", opts->metrics);
	}
	if (opts->runtime_dir && opts->runtime_dir[0]) {
		r = open_dir(opts->runtime_dir);
		rt->dirfd = r < 0 ? -1 : r;
	}
	*ret = rt;
	return 0;
}

/* Replace status.json: a temporary file of our own, then rename(2). */
static int write_status(struct runtime *rt)
{
	struct json_object *o = snapshot__status(&rt->snap, rt->opts->runtime_dir, rt->opts->metrics);
	const char *text;
	char tmp[64];
	size_t len, off = 0;
	int fd, r = 0;

	if (!o)
		return -ENOMEM;
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	/* per pid: two sensors given the same directory never write one temporary file */
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", STATUS_FILE, (int)getpid());
	fd = openat(rt->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		json_object_put(o);
		return -errno;
	}
	if (fchmod(fd, 0640) < 0)
		r = -errno;
	while (!r && off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	if (!r && write(fd, "\n", 1) != 1)
		r = -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(rt->dirfd, tmp, rt->dirfd, STATUS_FILE) < 0)
		r = -errno;
	if (r)
		unlinkat(rt->dirfd, tmp, 0);
	json_object_put(o);
	return r;
}

static void status(struct runtime *rt)
{
	int r = write_status(rt);

	if (r < 0 && !rt->status_failing)
		log_warn_errno(r, "Cannot write %s/%s: %m (plumbline status shows the last one written)",
			       rt->opts->runtime_dir, STATUS_FILE);
	else if (!r && rt->status_failing)
		log_info("%s/%s is written again", rt->opts->runtime_dir, STATUS_FILE);
	rt->status_failing = r < 0;
}

static void publish(struct runtime *rt)
{
	struct pl_expo e = {0};
	int r = snapshot__metrics(&rt->snap, &e);

	if (!r)
		r = metrics_server__publish(rt->srv, e.buf ? e.buf : "", e.len);
	if (r < 0 && !rt->publish_failing)
		log_warn_errno(r, "Cannot render the metrics: %m (the endpoint serves the last ones)");
	rt->publish_failing = r < 0;
	expo__free(&e);
}

static void fill(struct runtime *rt, const struct stats_sources *src)
{
	if (snapshot__fill(&rt->snap, src, rt->start_time_ns, rt->opts->max_procs) < 0)
		log_debug("Out of memory for the counts per rule of the metrics snapshot");
	if (rt->srv) {
		struct metrics_cut_stats cuts = metrics_server__cuts(rt->srv);

		rt->snap.scrapes = metrics_server__scrapes(rt->srv);
		rt->snap.cut_deadline = cuts.deadline;
		rt->snap.cut_evicted = cuts.evicted;
	}
}

void runtime__tick(struct runtime *rt, const struct stats_sources *src, bool now)
{
	uint64_t t = mono_ns();
	bool due =
	    rt && rt->dirfd >= 0 && (now || t - rt->last_status_ns >= STATUS_INTERVAL_S * 1000000000ull - 50000000ull);

	if (!rt || (!rt->srv && !due))
		return;
	fill(rt, src);
	if (rt->srv)
		publish(rt);
	if (due) {
		status(rt);
		rt->last_status_ns = t;
	}
}

void runtime__stop(struct runtime *rt, const struct stats_sources *src)
{
	if (!rt || rt->dirfd < 0)
		return;
	fill(rt, src);
	rt->snap.stopped = true;
	status(rt);
}

void runtime__free(struct runtime *rt)
{
	if (!rt)
		return;
	metrics_server__free(rt->srv);
	if (rt->dirfd >= 0)
		close(rt->dirfd);
	snapshot__clear(&rt->snap);
	free(rt);
}
