// SPDX-License-Identifier: MIT
/*
 * syslog_inet.c - syslog messages to a collector over TCP or UDP.
 *
 * TCP frames each message with RFC 6587 octet counting ("LEN SP MSG"), what
 * rsyslog's imtcp and imptcp accept by default, and what survives a newline
 * inside a message (not that ours hold one). The socket is nonblocking from
 * the start: connect() completes in the background (send() says -EAGAIN
 * until it does, and gives up after CONNECT_TIMEOUT_NS), a full send buffer
 * is -EAGAIN, and a frame written in part is remembered and finished by the
 * next call, so the sensor never waits on a slow collector. A message counts
 * as delivered once its frame is written whole; a connection lost in the
 * middle of a frame sends the whole message again on the next one.
 *
 * A collector that closed the connection (restarted, stopped) is noticed
 * before the next frame is written, not one frame later: a frame written to
 * a socket whose peer has gone would be accepted by our kernel and lost.
 * What TCP cannot tell us is a frame the collector's kernel took and the
 * collector never read; that residue is what RELP exists for.
 *
 * UDP sends one datagram a message (RFC 5426) and knows of no delivery: an
 * ICMP refusal from a closed port surfaces as ECONNREFUSED on a later send,
 * which is treated as a lost connection (the message waits and is sent
 * again after a reconnect).
 *
 * The dial and the background connect are syslog_tls.c's too (its TLS runs
 * over the same kind of socket).
 *
 * HOST is resolved by getaddrinfo() at every connect attempt, so a name
 * costs a DNS query then (which may block up to the resolver's timeout); a
 * literal address costs nothing.
 */
#include "syslog_transport.h"
#include "clock.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_TIMEOUT_NS (5ull * 1000000000ull)

struct syslog_inet {
	struct syslog_transport base;
	bool tcp;
	char host[PL_SYSLOG_HOST_MAX];
	char port[6];
	char name[PL_SYSLOG_HOST_MAX + 16]; /* "tcp:HOST:PORT", for the words */
	int fd;				    /* -1 while disconnected */
	bool connecting;
	uint64_t connect_start_ns;
	/* TCP: the frame being written */
	char prefix[24];
	size_t plen;
	size_t done; /* bytes of prefix + message written so far */
};

static void inet_disconnect(struct syslog_inet *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	n->connecting = false;
	n->done = 0;
}

int syslog_inet__dial(const char *host, const char *port, int socktype, const char *name, int *ret_fd, char *why,
		      size_t whysize)
{
	struct addrinfo hints = {.ai_socktype = socktype}, *res = NULL;
	int r, err = 0, fd = -1;
	bool connecting = false;

	r = getaddrinfo(host, port, &hints, &res);
	if (r != 0) {
		snprintf(why, whysize, "cannot resolve %s: %s", host, gai_strerror(r));
		return r == EAI_MEMORY ? -ENOMEM : -EHOSTUNREACH;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (socktype == SOCK_STREAM)
			setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &(int){1}, sizeof(int));
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			connecting = true;
			break;
		}
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(why, whysize, "cannot connect to %s: %s", name, strerror(err ? err : ENOTCONN));
		return -(err ? err : ENOTCONN);
	}
	why[0] = '\0';
	*ret_fd = fd;
	return connecting ? -EINPROGRESS : 0;
}

int syslog_inet__connect_done(int fd, uint64_t start_ns, const char *name, char *why, size_t whysize)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	int err = 0;
	socklen_t elen = sizeof(err);

	if (poll(&p, 1, 0) == 0) {
		if (mono_ns() - start_ns < CONNECT_TIMEOUT_NS) {
			snprintf(why, whysize, "connecting to %s", name);
			return -EAGAIN;
		}
		err = ETIMEDOUT;
	} else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0) {
		err = errno;
	}
	if (err) {
		snprintf(why, whysize, "cannot connect to %s: %s", name, strerror(err));
		return -err;
	}
	return 0;
}

static int inet_connect(struct syslog_transport *t, char *why, size_t whysize)
{
	struct syslog_inet *n = (struct syslog_inet *)t;
	int r;

	inet_disconnect(n);
	r = syslog_inet__dial(n->host, n->port, n->tcp ? SOCK_STREAM : SOCK_DGRAM, n->name, &n->fd, why, whysize);
	if (r == -EINPROGRESS) {
		n->connecting = true;
		n->connect_start_ns = mono_ns();
	}
	return r;
}

/* The background connect: 0 when done, -EAGAIN while under way, or -errno (closed). */
static int connect_done(struct syslog_inet *n, char *why, size_t whysize)
{
	int r = syslog_inet__connect_done(n->fd, n->connect_start_ns, n->name, why, whysize);

	if (r == -EAGAIN)
		return r;
	if (r < 0) {
		inet_disconnect(n);
		return r;
	}
	n->connecting = false;
	return 0;
}

/* Has the collector closed its end? Anything it sent us is read and ignored. */
static bool peer_closed(struct syslog_inet *n)
{
	struct pollfd p = {.fd = n->fd, .events = POLLIN | POLLRDHUP};
	char junk[256];

	if (poll(&p, 1, 0) != 1)
		return false;
	if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
		return true;
	for (;;) {
		ssize_t r = recv(n->fd, junk, sizeof(junk), MSG_DONTWAIT);

		if (r == 0)
			return true;
		if (r < 0)
			return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
	}
}

static int lost(struct syslog_inet *n, int err, char *why, size_t whysize)
{
	if (err == EPIPE || err == ECONNRESET)
		snprintf(why, whysize, "%s closed the connection (send: %s)", n->name, strerror(err));
	else
		snprintf(why, whysize, "send to %s: %s", n->name, strerror(err));
	inet_disconnect(n);
	return -err;
}

static int tcp_send(struct syslog_inet *n, const char *msg, size_t len, char *why, size_t whysize)
{
	if (n->done == 0) {
		if (peer_closed(n)) {
			snprintf(why, whysize, "%s closed the connection", n->name);
			inet_disconnect(n);
			return -ECONNRESET;
		}
		n->plen = syslog_frame__octet_prefix(n->prefix, sizeof(n->prefix), len);
	}
	while (n->done < n->plen + len) {
		struct iovec iov[2];
		struct msghdr mh = {.msg_iov = iov};
		ssize_t w;

		if (n->done < n->plen) {
			iov[0] = (struct iovec){n->prefix + n->done, n->plen - n->done};
			iov[1] = (struct iovec){(char *)msg, len};
			mh.msg_iovlen = 2;
		} else {
			iov[0] = (struct iovec){(char *)msg + (n->done - n->plen), n->plen + len - n->done};
			mh.msg_iovlen = 1;
		}
		w = sendmsg(n->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				snprintf(why, whysize, "%s is not keeping up (the connection's buffer is full)",
					 n->name);
				return -EAGAIN;
			}
			return lost(n, errno, why, whysize);
		}
		n->done += (size_t)w;
	}
	n->done = 0;
	return 0;
}

static int udp_send(struct syslog_inet *n, const char *msg, size_t len, char *why, size_t whysize)
{
	ssize_t w;

	do
		w = send(n->fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)len)
		return 0;
	if (w >= 0 || errno == EMSGSIZE) {
		snprintf(why, whysize, "a message of %zu bytes is too long for a datagram to %s", len, n->name);
		return -EMSGSIZE;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
		snprintf(why, whysize, "the socket to %s is full", n->name);
		return -EAGAIN;
	}
	if (errno == ECONNREFUSED) {
		snprintf(why, whysize, "nobody listens at %s (an earlier datagram was refused)", n->name);
		inet_disconnect(n);
		return -ECONNREFUSED;
	}
	return lost(n, errno, why, whysize);
}

static int inet_send(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize)
{
	struct syslog_inet *n = (struct syslog_inet *)t;

	if (n->fd < 0) {
		snprintf(why, whysize, "not connected to %s", n->name);
		return -ENOTCONN;
	}
	if (n->connecting) {
		int r = connect_done(n, why, whysize);

		if (r < 0)
			return r;
	}
	return n->tcp ? tcp_send(n, msg, len, why, whysize) : udp_send(n, msg, len, why, whysize);
}

static void inet_free(struct syslog_transport *t)
{
	struct syslog_inet *n = (struct syslog_inet *)t;

	inet_disconnect(n);
	free(n);
}

static const struct syslog_transport_ops inet_ops = {
    .connect = inet_connect,
    .send = inet_send,
    .free = inet_free,
};

int syslog_inet__new(const struct pl_syslog_target *t, struct syslog_transport **ret)
{
	struct syslog_inet *n;

	if (t->kind != PL_SYSLOG_TCP && t->kind != PL_SYSLOG_UDP)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->base.ops = &inet_ops;
	n->tcp = t->kind == PL_SYSLOG_TCP;
	n->fd = -1;
	snprintf(n->host, sizeof(n->host), "%s", t->host);
	snprintf(n->port, sizeof(n->port), "%s", t->port);
	snprintf(n->name, sizeof(n->name), strchr(t->host, ':') ? "%s:[%s]:%s" : "%s:%s:%s", n->tcp ? "tcp" : "udp",
		 t->host, t->port);
	*ret = &n->base;
	return 0;
}
