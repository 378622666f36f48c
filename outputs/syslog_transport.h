/* SPDX-License-Identifier: MIT */
/*
 * syslog_transport.h - how formatted syslog messages travel (not API).
 *
 * One small vtable per transport, so the sender (syslog_sender.c) never
 * knows whether a message goes to a local datagram socket, over TCP, UDP,
 * TLS or RELP. The sender owns the buffer, the order and the backoff; a transport
 * only connects, sends one message, and says in words what is wrong when it
 * cannot. Every call is made on the sender thread, never on the event loop,
 * and none blocks for long: sockets are nonblocking and connects complete in
 * the background, except RELP's and a name's resolution, bounded by
 * librelp's and the resolver's timeouts (syslog_relp.c says how long).
 */
#ifndef PL_SYSLOG_TRANSPORT_H
#define PL_SYSLOG_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "syslog_out.h"

struct syslog_transport;

struct syslog_transport_ops {
	/*
	 * Connect. 0 when connected, -EINPROGRESS when a nonblocking connect
	 * is under way (send() returns -EAGAIN until it completes, and an
	 * error if it fails), or -errno with what is wrong in why.
	 */
	int (*connect)(struct syslog_transport *t, char *why, size_t whysize);
	/*
	 * Deliver one message of len bytes. 0: delivered (a stream transport:
	 * written whole), the next message may go. -EAGAIN: not now (the
	 * connection stays up; call again with the same message: a stream
	 * transport remembers how much of it was written). -EMSGSIZE: this
	 * message can never be delivered (too long for a datagram), the
	 * connection stays up. Any other -errno: the connection is lost (the
	 * transport closed it) and the message is to be sent again after a
	 * reconnect; why says what happened.
	 */
	int (*send)(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize);
	/*
	 * Stop: say goodbye properly, waiting at most timeout_ms (RELP: for the
	 * acknowledgements of what was sent). NULL when closing is immediate.
	 */
	void (*close)(struct syslog_transport *t, int timeout_ms);
	void (*free)(struct syslog_transport *t);
};

struct syslog_transport {
	const struct syslog_transport_ops *ops;
};

/*
 * Datagrams to the AF_UNIX socket at path (what /dev/log is). Nothing is
 * tried before connect(). Returns 0 and *ret, or -ENOMEM / -EINVAL (path
 * too long) with *ret untouched.
 */
int syslog_unix__new(const char *path, struct syslog_transport **ret);

/*
 * TCP (octet-counted frames) or UDP (one datagram a message) to t's host and
 * port (kind PL_SYSLOG_TCP or PL_SYSLOG_UDP). Returns 0 and *ret, -EINVAL,
 * or -ENOMEM (*ret untouched).
 */
int syslog_inet__new(const struct pl_syslog_target *t, struct syslog_transport **ret);

/*
 * syslog_inet.c's TCP (or UDP: socktype) dial, which syslog_tls.c's
 * connections begin with: a nonblocking, close-on-exec socket to the first
 * address of host:port that takes it, into *ret_fd. 0 when connected,
 * -EINPROGRESS when the connect goes on in the background
 * (syslog_inet__connect_done() says when it is over), or -errno with what is
 * wrong in why (name is the target as the words say it).
 */
int syslog_inet__dial(const char *host, const char *port, int socktype, const char *name, int *ret_fd, char *why,
		      size_t whysize);

/*
 * Whether fd's background connect, begun at start_ns (mono_ns()), is over:
 * 0 connected, -EAGAIN not yet, or -errno (failed, or no answer within 5 s)
 * with why. fd is left to the caller, also on failure.
 */
int syslog_inet__connect_done(int fd, uint64_t start_ns, const char *name, char *why, size_t whysize);

/*
 * RFC 5425: tcp:'s octet-counted frames inside TLS (1.2 or later, OpenSSL)
 * to t's host and port, the server's certificate verified against tls->ca
 * and its name against tls->peer (or t's HOST), tls->cert and tls->key
 * offered to a server that asks. The files are read here, once. 0 and
 * *ret, -EINVAL (a file does not pass syslog_tls__check()), or -ENOMEM.
 */
int syslog_tls__new(const struct pl_syslog_target *t, const struct pl_syslog_tls *tls, struct syslog_transport **ret);

/* RELP (relp+tls: inside librelp's TLS, the OpenSSL backend, with tls's
 * files and peer) to t's host and port, through librelp. 0 and *ret,
 * -EINVAL (librelp has no TLS), or -ENOMEM. */
int syslog_relp__new(const struct pl_syslog_target *t, const struct pl_syslog_tls *tls, struct syslog_transport **ret);

#endif
