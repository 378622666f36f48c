// SPDX-License-Identifier: MIT
/*
 * syslog_unix.c - syslog messages as datagrams to a local socket (/dev/log).
 *
 * syslog(3) cannot say that a message was lost, and when /dev/log is not a
 * socket (a regular file put in its place, a daemon not started yet) every
 * alert vanishes without a trace. This sender owns its socket (SOCK_DGRAM,
 * CLOEXEC, nonblocking, so a stalled daemon never stalls the sensor), checks
 * what the path is before connecting, and reports each failure with the
 * reason. A daemon that restarts leaves our connection pointing at a dead
 * socket: the send fails, and we reconnect and send again, as glibc does.
 * Reconnecting is tried at most once a second, so a target that stays
 * broken costs one stat(2) and one connect(2) a second, not one per alert.
 */
#include "syslog_transport.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define RETRY_NS 1000000000ull /* at most one connect attempt a second */

struct syslog_unix {
	struct syslog_transport base;
	struct sockaddr_un sa;
	socklen_t salen;
	int fd;		  /* connected socket, -1 while disconnected */
	bool tried;	  /* a connect was attempted (last_try_ns is valid) */
	uint64_t last_try_ns;
	int last_err;	  /* why the last attempt failed */
	char last_why[192];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *file_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a socket";
}

static void disconnect(struct syslog_unix *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

/* Look at the path, then connect. 0, or -errno with u->last_why filled. */
static int try_connect(struct syslog_unix *u)
{
	const char *path = u->sa.sun_path;
	struct stat st;
	int fd;

	u->tried = true;
	u->last_try_ns = mono_ns();
	disconnect(u);
	if (stat(path, &st) < 0) {
		u->last_err = -errno;
		if (errno == ENOENT)
			snprintf(u->last_why, sizeof(u->last_why), "%s does not exist", path);
		else
			snprintf(u->last_why, sizeof(u->last_why), "%s: %s", path, strerror(errno));
		return u->last_err;
	}
	if (!S_ISSOCK(st.st_mode)) {
		u->last_err = -ENOTSOCK;
		snprintf(u->last_why, sizeof(u->last_why), "%s is %s, not a socket", path, file_kind(st.st_mode));
		return u->last_err;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		u->last_err = -errno;
		snprintf(u->last_why, sizeof(u->last_why), "socket: %s", strerror(errno));
		return u->last_err;
	}
	if (connect(fd, (struct sockaddr *)&u->sa, u->salen) < 0) {
		u->last_err = -errno;
		if (errno == ECONNREFUSED)
			snprintf(u->last_why, sizeof(u->last_why), "nobody listens on %s (connect: %s)", path,
				 strerror(errno));
		else if (errno == EPROTOTYPE)
			snprintf(u->last_why, sizeof(u->last_why), "%s is not a datagram socket", path);
		else
			snprintf(u->last_why, sizeof(u->last_why), "connect to %s: %s", path, strerror(errno));
		close(fd);
		return u->last_err;
	}
	u->fd = fd;
	u->last_err = 0;
	u->last_why[0] = '\0';
	return 0;
}

/* The peer is gone: the daemon closed or restarted. */
static bool peer_gone(int err)
{
	return err == ECONNREFUSED || err == ENOTCONN || err == ECONNRESET || err == EPIPE || err == EDESTADDRREQ;
}

static int unix_send(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize)
{
	struct syslog_unix *u = (struct syslog_unix *)t;

	for (int attempt = 0; attempt < 2; attempt++) {
		ssize_t n;
		int err;

		if (u->fd < 0) {
			/* refused in between attempts: the reason stays the last one */
			if (u->tried && mono_ns() - u->last_try_ns < RETRY_NS) {
				snprintf(why, whysize, "%s", u->last_why);
				return u->last_err ? u->last_err : -ENOTCONN;
			}
			if (try_connect(u) < 0) {
				snprintf(why, whysize, "%s", u->last_why);
				return u->last_err;
			}
		}
		n = send(u->fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == (ssize_t)len)
			return 0;
		err = n < 0 ? errno : EMSGSIZE;
		if (err == EINTR) {
			attempt--;
			continue;
		}
		if (peer_gone(err)) {
			/* reconnect (if a second has passed) and send once more */
			disconnect(u);
			u->last_err = -err;
			snprintf(u->last_why, sizeof(u->last_why), "the syslog daemon at %s went away (send: %s)",
				 u->sa.sun_path, strerror(err));
			continue;
		}
		if (err == EAGAIN || err == EWOULDBLOCK)
			snprintf(why, whysize, "the syslog daemon at %s is not keeping up (its queue is full)",
				 u->sa.sun_path);
		else if (err == EMSGSIZE)
			snprintf(why, whysize, "a message of %zu bytes is too long for %s", len, u->sa.sun_path);
		else
			snprintf(why, whysize, "send to %s: %s", u->sa.sun_path, strerror(err));
		return -err;
	}
	snprintf(why, whysize, "%s", u->last_why);
	return u->last_err ? u->last_err : -ENOTCONN;
}

static void unix_free(struct syslog_transport *t)
{
	struct syslog_unix *u = (struct syslog_unix *)t;

	disconnect(u);
	free(u);
}

static const struct syslog_transport_ops unix_ops = {
	.send = unix_send,
	.free = unix_free,
};

int syslog_unix__open(const char *path, struct syslog_transport **ret, int *ret_err, char *why, size_t whysize)
{
	struct syslog_unix *u;
	size_t len = strlen(path);
	int r;

	if (len == 0 || len >= sizeof(u->sa.sun_path))
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->base.ops = &unix_ops;
	u->fd = -1;
	u->sa.sun_family = AF_UNIX;
	memcpy(u->sa.sun_path, path, len + 1);
	u->salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
	r = try_connect(u);
	snprintf(why, whysize, "%s", r < 0 ? u->last_why : "");
	*ret_err = r;
	*ret = &u->base;
	return 0;
}
