// SPDX-License-Identifier: MIT
/*
 * syslog_queue.c - a bounded FIFO of messages (syslog_queue.h): one
 * allocation a message, a singly linked list with a tail pointer. At most
 * 10,000 messages of at most 8 KiB wait by default, so the list is never
 * walked, only pushed at the tail and popped at the head.
 */
#include "syslog_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct msg {
	struct msg *next;
	size_t len;
	char data[];
};

struct syslog_queue {
	struct msg *head, *tail;
	size_t count, bytes;
	size_t max_bytes, max_msgs;
};

int syslog_queue__new(size_t max_bytes, size_t max_msgs, struct syslog_queue **ret)
{
	struct syslog_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->max_bytes = max_bytes;
	q->max_msgs = max_msgs;
	*ret = q;
	return 0;
}

void syslog_queue__free(struct syslog_queue *q)
{
	if (!q)
		return;
	while (q->head)
		syslog_queue__pop(q);
	free(q);
}

int syslog_queue__push(struct syslog_queue *q, const char *data, size_t len)
{
	struct msg *m;

	if (q->count + 1 > q->max_msgs || len > q->max_bytes || q->bytes > q->max_bytes - len)
		return -ENOBUFS;
	m = malloc(sizeof(*m) + len);
	if (!m)
		return -ENOMEM;
	m->next = NULL;
	m->len = len;
	memcpy(m->data, data, len);
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	q->count++;
	q->bytes += len;
	return 0;
}

size_t syslog_queue__peek(const struct syslog_queue *q, const char **ret)
{
	*ret = q->head ? q->head->data : NULL;
	return q->head ? q->head->len : 0;
}

void syslog_queue__pop(struct syslog_queue *q)
{
	struct msg *m = q->head;

	if (!m)
		return;
	q->head = m->next;
	if (!q->head)
		q->tail = NULL;
	q->count--;
	q->bytes -= m->len;
	free(m);
}

size_t syslog_queue__count(const struct syslog_queue *q)
{
	return q->count;
}

size_t syslog_queue__bytes(const struct syslog_queue *q)
{
	return q->bytes;
}
