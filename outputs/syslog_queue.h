/* SPDX-License-Identifier: MIT */
/*
 * syslog_queue.h - the bounded FIFO of formatted syslog messages that wait
 * for their target (not API: syslog_sender.c's own).
 *
 * Bounded by bytes and by count; a message that would cross either bound is
 * refused (the newest is the one lost: what waits keeps its order, and a
 * collector that comes back gets the oldest alerts of the outage first).
 */
#ifndef PL_SYSLOG_QUEUE_H
#define PL_SYSLOG_QUEUE_H

#include <stddef.h>
#include <stdint.h>

struct syslog_queue;

/* A queue of at most max_bytes message bytes and max_msgs messages. 0 and *ret, or -ENOMEM. */
int syslog_queue__new(size_t max_bytes, size_t max_msgs, struct syslog_queue **ret);
/* NULL-safe. */
void syslog_queue__free(struct syslog_queue *q);

/* Append a copy of msg (len bytes). 0, -ENOBUFS when it would cross a bound, or -ENOMEM. */
int syslog_queue__push(struct syslog_queue *q, const char *msg, size_t len);
/* The oldest message, still owned by q: its length, or 0 (and *ret NULL) when q is empty. */
size_t syslog_queue__peek(const struct syslog_queue *q, const char **ret);
/* Drop the oldest message (none: nothing). */
void syslog_queue__pop(struct syslog_queue *q);

size_t syslog_queue__count(const struct syslog_queue *q);
size_t syslog_queue__bytes(const struct syslog_queue *q);

#endif
