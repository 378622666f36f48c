/* SPDX-License-Identifier: MIT */
/*
 * syslog_transport.h - how formatted syslog messages travel (not API).
 *
 * One small vtable per transport, so the backend (syslog_out.c) never knows
 * whether a message goes to a local datagram socket or, later, over TCP or
 * RELP. A transport says in words what is wrong with its target when it
 * cannot deliver, and decides itself how often to try reconnecting.
 */
#ifndef PL_SYSLOG_TRANSPORT_H
#define PL_SYSLOG_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

struct syslog_transport;

struct syslog_transport_ops {
	/* Deliver one message of len bytes. 0, or -errno with what is wrong in why. */
	int (*send)(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize);
	void (*free)(struct syslog_transport *t);
};

struct syslog_transport {
	const struct syslog_transport_ops *ops;
};

/*
 * Datagrams to the AF_UNIX socket at path (what /dev/log is). Connects at
 * once: *ret_err gets 0, or -errno with what is wrong in why when the target
 * cannot take messages now (missing, not a socket, nobody listening). While
 * disconnected, each send tries again at most once a second and is refused
 * in between. Returns 0 and *ret, or -ENOMEM / -EINVAL (path too long)
 * with *ret untouched.
 */
int syslog_unix__open(const char *path, struct syslog_transport **ret, int *ret_err, char *why, size_t whysize);

#endif
