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
 * socket: the send fails, the sender (syslog_sender.c) keeps the message and
 * reconnects after a backoff, so a target that stays broken costs one
 * stat(2) and one connect(2) per attempt, not one per alert. A daemon that
 * is not keeping up (EAGAIN) keeps the connection: the message waits in the
 * sender's buffer.
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
#include <unistd.h>

struct syslog_unix {
	struct syslog_transport base;
	struct sockaddr_un sa;
	socklen_t salen;
	int fd;	      /* connected socket, -1 while disconnected */
	int last_err; /* why the last attempt failed */
	char last_why[192];
};

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

static int unix_connect(struct syslog_transport *t, char *why, size_t whysize)
{
	struct syslog_unix *u = (struct syslog_unix *)t;
	int r = try_connect(u);

	snprintf(why, whysize, "%s", r < 0 ? u->last_why : "");
	return r;
}

/* The peer is gone: the daemon closed or restarted. */
static bool peer_gone(int err)
{
	return err == ECONNREFUSED || err == ENOTCONN || err == ECONNRESET || err == EPIPE || err == EDESTADDRREQ;
}

static int unix_send(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize)
{
	struct syslog_unix *u = (struct syslog_unix *)t;
	ssize_t n;
	int err;

	if (u->fd < 0) {
		snprintf(why, whysize, "not connected to %s", u->sa.sun_path);
		return -ENOTCONN;
	}
	do
		n = send(u->fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return 0;
	err = n < 0 ? errno : EMSGSIZE;
	if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) {
		snprintf(why, whysize, "the syslog daemon at %s is not keeping up (its queue is full)", u->sa.sun_path);
		return -EAGAIN;
	}
	if (err == EMSGSIZE) {
		snprintf(why, whysize, "a message of %zu bytes is too long for %s", len, u->sa.sun_path);
		return -EMSGSIZE;
	}
	disconnect(u);
	if (peer_gone(err))
		snprintf(why, whysize, "the syslog daemon at %s went away (send: %s)", u->sa.sun_path, strerror(err));
	else
		snprintf(why, whysize, "send to %s: %s", u->sa.sun_path, strerror(err));
	return -err;
}

static void unix_free(struct syslog_transport *t)
{
	struct syslog_unix *u = (struct syslog_unix *)t;

	disconnect(u);
	free(u);
}

static const struct syslog_transport_ops unix_ops = {
    .connect = unix_connect,
    .send = unix_send,
    .free = unix_free,
};

int syslog_unix__new(const char *path, struct syslog_transport **ret)
{
	struct syslog_unix *u;
	size_t len = strlen(path);

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
	*ret = &u->base;
	return 0;
}
