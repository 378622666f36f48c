/* SPDX-License-Identifier: MIT */
/*
 * syslog_sender.h - the syslog output's sender thread (not API: syslog_out.c's own).
 *
 * The caller's thread (the sensor's event loop) only pushes formatted
 * messages into a bounded in-order buffer; one thread takes them out, oldest
 * first, and hands them to the transport, which may block (librelp's client
 * waits up to its timeouts, a name costs a DNS query). The two share only
 * the buffer and the counters, under one mutex that neither holds across a
 * transport call, so a push never waits on the collector.
 */
#ifndef PL_SYSLOG_SENDER_H
#define PL_SYSLOG_SENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "syslog_out.h"
#include "syslog_transport.h"

struct syslog_sender;

/* What the sender says about itself (a copy, syslog_sender__state()). */
struct syslog_sender_state {
	struct pl_syslog_stats st; /* sent, queued, the connection's counters, stalls, outages, state, why */
	bool down;		   /* an outage is under way */
	char down_why[384];	   /* why the current (or last) outage began */
};

/*
 * A sender of tr's messages (tr is owned from here on, also on failure),
 * buffering at most max_bytes and max_msgs. relp: the transport keeps what
 * it sent until acknowledged (a reconnect is wanted at exit even with an
 * empty buffer). No thread yet: syslog_sender__start(). 0 and *ret, or
 * -ENOMEM / -errno (*ret untouched).
 */
int syslog_sender__new(struct syslog_transport *tr, bool relp, size_t max_bytes, size_t max_msgs,
		       struct syslog_sender **ret);

/* Start the thread (all signals blocked in it but SIGSYS); the first connect is its first act. 0 or -errno. */
int syslog_sender__start(struct syslog_sender *s);

/* Append a copy of msg (len bytes) and wake the thread; never blocks on the
 * target. 0, -ENOBUFS when the buffer is full (the newest is refused), -ENOMEM. */
int syslog_sender__push(struct syslog_sender *s, const char *msg, size_t len);

/* The counters and the outage now. */
void syslog_sender__state(struct syslog_sender *s, struct syslog_sender_state *ret);

/* Readable (an eventfd) when the thread has news for the caller: an outage began or ended. */
int syslog_sender__event_fd(const struct syslog_sender *s);

/* Clear the eventfd (after it was readable). */
void syslog_sender__ack(struct syslog_sender *s);

/*
 * Stop: the thread sends what it can for at most timeout_ms (retrying a
 * lost connection every 200 ms meanwhile), closes the connection (RELP:
 * waiting for outstanding acknowledgements within what is left), and ends;
 * the caller waits for that at most timeout_ms plus PL_SYSLOG_STOP_GRACE_MS
 * (one transport call in flight). What is still buffered is dropped and
 * returned. A thread that did not end by then is left to the process's
 * exit (*ret_stuck true), and syslog_sender__free() then frees nothing it
 * uses. NULL-safe ret_stuck.
 */
uint64_t syslog_sender__stop(struct syslog_sender *s, int timeout_ms, bool *ret_stuck);

/* Stop (at once, nothing drained) if not stopped, and free. NULL-safe. */
void syslog_sender__free(struct syslog_sender *s);

#endif
