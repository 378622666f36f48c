// SPDX-License-Identifier: MIT
/*
 * saver.c - the save thread: a FIFO of jobs under one lock, results back
 * through an eventfd (the identity hash worker's pattern, identity.c).
 */
#include "pipeline/saver.h"
#include "cleanup.h"
#include "fileio.h"
#include "thread.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct job {
	char *key;  /* NULL: a removal */
	char *path;
	char *data;
	size_t len;
	uint64_t batch;
	int err;
	struct job *next;
};

struct queue {
	struct job *head, *tail;
};

struct saver {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a job was queued, or stop */
	pthread_cond_t taken; /* jobs were taken from todo */
	struct queue todo, done;
	size_t bytes;        /* data of the jobs in todo */
	uint64_t pending;    /* jobs in todo, and the one running */
	bool stop;           /* finish todo, then exit */
	int efd;
	pthread_t worker;
	bool have_worker;
};

static void push(struct queue *q, struct job *j)
{
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
}

static struct job *pop(struct queue *q)
{
	struct job *j = q->head;

	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
	}
	return j;
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->key);
	free(j->path);
	free(j->data);
	free(j);
}

/* Write the batch (jobs with a key, in order), with one sync for all (fileio.h). */
static void write_batch(struct job **b, size_t n)
{
	struct atomic_file f[SAVER_BATCH];
	int err[SAVER_BATCH];

	for (size_t i = 0; i < n; i++)
		f[i] = (struct atomic_file){ .path = b[i]->path, .data = b[i]->data, .len = b[i]->len };
	atomic_write_files(f, n, 0600, err);
	for (size_t i = 0; i < n; i++) {
		b[i]->err = err[i];
		free(b[i]->data);
		b[i]->data = NULL;
	}
}

/* The next jobs to run, under lock: the writes at the head of the queue
 * (at most SAVER_BATCH), or the removal there. Their number. */
static size_t take(struct saver *sv, struct job **b)
{
	size_t n = 0;

	while (n < SAVER_BATCH && sv->todo.head && (sv->todo.head->key || !n)) {
		bool removal = !sv->todo.head->key;

		b[n] = pop(&sv->todo);
		sv->bytes -= b[n++]->len;
		if (removal)
			break; /* a removal runs alone, after the writes before it */
	}
	return n;
}

/* Run jobs in order until stopped (the worker), or until none waits
 * (until_empty: the caller's own thread, before the worker is started). */
static void work(struct saver *sv, bool until_empty)
{
	const uint64_t one = 1;
	struct job *b[SAVER_BATCH];

	pthread_mutex_lock(&sv->lock);
	for (;;) {
		size_t n;
		ssize_t w;

		while (!sv->stop && !until_empty && !sv->todo.head)
			pthread_cond_wait(&sv->wake, &sv->lock);
		n = take(sv, b);
		if (!n)
			break; /* stopping, and nothing left */
		pthread_cond_broadcast(&sv->taken);
		pthread_mutex_unlock(&sv->lock);

		if (b[0]->key)
			write_batch(b, n);
		else /* a file already gone is what was wanted */
			b[0]->err = unlink(b[0]->path) < 0 && errno != ENOENT ? -errno : 0;

		pthread_mutex_lock(&sv->lock);
		sv->pending -= n;
		if (b[0]->key) {
			for (size_t i = 0; i < n; i++)
				push(&sv->done, b[i]);
			/* cannot fail: the loop resets the counter long before it could overflow */
			w = write(sv->efd, &one, sizeof(one));
			(void)w;
		} else {
			job_free(b[0]);
		}
	}
	pthread_mutex_unlock(&sv->lock);
}

static void *save_worker(void *arg)
{
	work(arg, false);
	return NULL;
}

int saver__new(struct saver **ret)
{
	struct saver *sv = calloc(1, sizeof(*sv));
	int r;

	if (!sv)
		return -ENOMEM;
	pthread_mutex_init(&sv->lock, NULL);
	pthread_cond_init(&sv->wake, NULL);
	pthread_cond_init(&sv->taken, NULL);
	sv->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sv->efd < 0) {
		r = -errno;
		saver__free(sv, NULL, NULL);
		return r;
	}
	*ret = sv;
	return 0;
}

int saver__start(struct saver *sv)
{
	int r;

	if (sv->have_worker)
		return 0;
	r = pl_thread_start(&sv->worker, save_worker, sv);
	if (r < 0)
		return r;
	sv->have_worker = true;
	return 0;
}

void saver__free(struct saver *sv, void (*fn)(void *ctx, const char *key, const char *path, uint64_t batch, int err),
		 void *ctx)
{
	struct job *j;

	if (!sv)
		return;
	if (sv->have_worker) {
		pthread_mutex_lock(&sv->lock);
		sv->stop = true;
		pthread_cond_signal(&sv->wake);
		pthread_mutex_unlock(&sv->lock);
		pthread_join(sv->worker, NULL);
	} else {
		work(sv, true); /* never started: what was queued is done here */
	}
	if (fn)
		saver__completed(sv, fn, ctx);
	while ((j = pop(&sv->todo)))
		job_free(j);
	while ((j = pop(&sv->done)))
		job_free(j);
	if (sv->efd >= 0)
		close(sv->efd);
	pthread_cond_destroy(&sv->wake);
	pthread_cond_destroy(&sv->taken);
	pthread_mutex_destroy(&sv->lock);
	free(sv);
}

int saver__epoll_fd(const struct saver *sv)
{
	return sv->efd;
}

/* Queue j; false when it does not fit (a write beyond the byte bound). */
static bool enqueue(struct saver *sv, struct job *j)
{
	bool ok;

	pthread_mutex_lock(&sv->lock);
	ok = !j->len || sv->bytes + j->len <= SAVER_QUEUE_BYTES;
	if (ok) {
		push(&sv->todo, j);
		sv->bytes += j->len;
		sv->pending++;
		pthread_cond_signal(&sv->wake);
	}
	pthread_mutex_unlock(&sv->lock);
	return ok;
}

int saver__write(struct saver *sv, const char *key, char *path, char *data, size_t len, uint64_t batch)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j || !(j->key = strdup(key))) {
		free(j);
		return -ENOMEM;
	}
	/* an empty write still counts as one job; its bytes are len */
	j->path = path;
	j->data = data;
	j->len = len;
	j->batch = batch;
	if (!enqueue(sv, j)) {
		free(j->key);
		free(j);
		return -ENOBUFS;
	}
	return 0;
}

void saver__remove(struct saver *sv, const char *path)
{
	struct job *j = calloc(1, sizeof(*j));

	if (j && (j->path = strdup(path)) && enqueue(sv, j))
		return;
	job_free(j);
	(void)unlink(path);
}

void saver__completed(struct saver *sv, void (*fn)(void *ctx, const char *key, const char *path, uint64_t batch, int err),
		      void *ctx)
{
	struct queue done;
	struct job *j;
	uint64_t n;

	if (read(sv->efd, &n, sizeof(n)) < 0) {
		/* nothing signalled (EAGAIN): the results may still be there */
	}
	pthread_mutex_lock(&sv->lock);
	done = sv->done;
	sv->done = (struct queue){ 0 };
	pthread_mutex_unlock(&sv->lock);
	while ((j = pop(&done))) {
		fn(ctx, j->key, j->path, j->batch, j->err);
		job_free(j);
	}
}

void saver__wait(struct saver *sv)
{
	if (!sv->have_worker) {
		work(sv, true);
		return;
	}
	pthread_mutex_lock(&sv->lock);
	while (sv->todo.head && sv->have_worker)
		pthread_cond_wait(&sv->taken, &sv->lock);
	pthread_mutex_unlock(&sv->lock);
}

uint64_t saver__pending(const struct saver *sv)
{
	struct saver *m = (struct saver *)sv;
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = m->pending;
	pthread_mutex_unlock(&m->lock);
	return n;
}
