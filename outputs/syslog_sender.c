// SPDX-License-Identifier: MIT
/*
 * syslog_sender.c - the sender thread of the syslog output (syslog_sender.h).
 *
 * The event loop pushes into the bounded buffer (syslog_queue.c) under
 * `lock` and signals `wake`; the thread peeks the oldest message, lets go of
 * the lock, hands the message to the transport, and takes the lock again to
 * pop it and count. Only the thread pops, so the message it peeked stays
 * valid while it sends. The transport may block: librelp's client waits up
 * to 2 s for room in its window and up to 4 s to connect; none of that
 * reaches the loop any more.
 *
 * Every failure waits a backoff before the next attempt: 1 s, doubling to
 * 30 s, whether a connect failed or a connection that had delivered broke
 * (a collector that takes a session and then never acknowledges would
 * otherwise be reconnected to at once, forever). The backoff is reset only
 * when an outage ends. A stall is a connection that took nothing for
 * STALL_NS while messages waited: a RELP send that failed after waiting out
 * its timeout, or a stream whose socket stayed full. It is counted, and it
 * begins an outage like a failed connect or a lost connection. An outage
 * ends when the buffer has emptied over a working connection. Each edge is
 * signalled on the eventfd; the loop reports it (syslog_out.c).
 */
#include "syslog_sender.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "syslog_queue.h"
#include "thread.h"

#define BACKOFF_MIN_NS	 (1000000000ull)
#define BACKOFF_MAX_NS	 (30ull * 1000000000ull)
#define DRAIN_BACKOFF_NS (200000000ull)	 /* while draining at exit: try every 200 ms */
#define STALL_NS	 (1500000000ull) /* took nothing this long with messages waiting: a stall */
#define FULL_WAIT_NS	 (20000000ull)	 /* the socket is full: look again in 20 ms */

struct syslog_sender {
	struct syslog_transport *tr;
	struct syslog_queue *q;
	bool relp;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a message was pushed, or stop / drain */
	pthread_cond_t done; /* the thread has ended */
	pthread_t thread;
	bool have_thread;
	bool ended;   /* the thread has returned (under lock) */
	bool stuck;   /* left running at stop: free() must not touch what it uses */
	bool stop;    /* end now */
	bool drain;   /* end once the buffer is empty, or at drain_deadline_ns */
	uint64_t drain_deadline_ns;
	int efd;
	/* the thread's, read by the loop under lock */
	struct pl_syslog_stats st;
	bool down;
	char down_why[sizeof(((struct pl_syslog_stats *)0)->why)];
	uint64_t next_try_ns;
	uint64_t backoff_ns;
	uint64_t sent_on_conn;
	uint64_t progress_ns; /* the last message taken, or the connect */
	bool stalled;	      /* this connection's current stall was counted */
};

static void notify(struct syslog_sender *s)
{
	const uint64_t one = 1;
	ssize_t w = write(s->efd, &one, sizeof(one));

	(void)w; /* cannot fail short of overflow, and the loop reads it every tick */
}

/* Under lock: an outage begins (why in s->st.why) or ends. */
static void set_down(struct syslog_sender *s, bool down)
{
	if (down == s->down)
		return;
	s->down = down;
	if (down) {
		s->st.outages++;
		memcpy(s->down_why, s->st.why, sizeof(s->down_why));
	} else {
		s->backoff_ns = BACKOFF_MIN_NS;
	}
	notify(s);
}

static void connected(struct syslog_sender *s, uint64_t now)
{
	s->st.state = PL_SYSLOG_CONNECTED;
	if (s->st.connects++ > 0)
		s->st.reconnects++;
	s->sent_on_conn = 0;
	s->progress_ns = now;
	s->stalled = false;
}

/* Under lock: a connect failed or a connection was lost (why in s->st.why):
 * the next attempt after the backoff. */
static void failed(struct syslog_sender *s, bool connecting, uint64_t now)
{
	uint64_t max = s->drain ? DRAIN_BACKOFF_NS : BACKOFF_MAX_NS;

	if (connecting)
		s->st.connect_failures++;
	s->st.state = PL_SYSLOG_DISCONNECTED;
	if (s->backoff_ns > max)
		s->backoff_ns = max;
	s->next_try_ns = now + s->backoff_ns;
	s->backoff_ns = s->backoff_ns * 2 > max ? max : s->backoff_ns * 2;
	set_down(s, true);
}

/* Under lock: wait for news, at most until deadline_ns (0: no deadline). */
static void wait_until(struct syslog_sender *s, uint64_t deadline_ns)
{
	struct timespec ts;

	if (!deadline_ns) {
		pthread_cond_wait(&s->wake, &s->lock);
		return;
	}
	ts.tv_sec = (time_t)(deadline_ns / 1000000000ull);
	ts.tv_nsec = (long)(deadline_ns % 1000000000ull);
	pthread_cond_timedwait(&s->wake, &s->lock, &ts);
}

/* Under lock, released around the call: one connect attempt. */
static void try_connect(struct syslog_sender *s)
{
	char why[sizeof(s->st.why)];
	int r;

	pthread_mutex_unlock(&s->lock);
	r = s->tr->ops->connect(s->tr, why, sizeof(why));
	pthread_mutex_lock(&s->lock);
	snprintf(s->st.why, sizeof(s->st.why), "%s", why);
	if (r == -EINPROGRESS) {
		s->st.state = PL_SYSLOG_CONNECTING;
		s->progress_ns = mono_ns();
	} else if (r < 0) {
		failed(s, true, mono_ns());
	} else {
		connected(s, mono_ns());
	}
}

/* Under lock: the target took nothing for STALL_NS while connected. */
static void stall(struct syslog_sender *s, uint64_t took_ns)
{
	char why[sizeof(s->st.why)];

	if (s->stalled)
		return;
	s->stalled = true;
	s->st.stalls++;
	snprintf(why, sizeof(why), "%.140s (the collector took nothing for %.1f s: a stall)", s->st.why,
		 took_ns / 1e9);
	memcpy(s->st.why, why, sizeof(why));
}

/* Under lock, released around the call: send the oldest message. */
static void send_one(struct syslog_sender *s)
{
	char why[sizeof(s->st.why)] = "";
	const char *m;
	size_t len = syslog_queue__peek(s->q, &m);
	uint64_t t0 = mono_ns(), now;
	int r;

	pthread_mutex_unlock(&s->lock);
	r = s->tr->ops->send(s->tr, m, len, why, sizeof(why));
	pthread_mutex_lock(&s->lock);
	now = mono_ns();
	if (r == 0) {
		if (s->st.state == PL_SYSLOG_CONNECTING)
			connected(s, now);
		syslog_queue__pop(s->q);
		s->st.sent++;
		s->sent_on_conn++;
		s->progress_ns = now;
		s->stalled = false;
		if (syslog_queue__count(s->q) == 0) {
			s->st.why[0] = '\0';
			set_down(s, false);
		}
		return;
	}
	snprintf(s->st.why, sizeof(s->st.why), "%s", why);
	if (r == -EMSGSIZE) {
		/* this one can never go: lost, counted, and the rest goes on */
		syslog_queue__pop(s->q);
		s->st.dropped_unsendable++;
		return;
	}
	if (r == -EAGAIN) {
		/* connecting, or the target's buffer is full: the message waits */
		if (s->st.state == PL_SYSLOG_CONNECTED && now - s->progress_ns >= STALL_NS) {
			stall(s, now - s->progress_ns);
			set_down(s, true);
		}
		wait_until(s, now + FULL_WAIT_NS);
		return;
	}
	if (s->st.state == PL_SYSLOG_CONNECTED && now - t0 >= STALL_NS)
		stall(s, now - t0); /* librelp waited out its timeout: the window stayed full */
	failed(s, s->st.state == PL_SYSLOG_CONNECTING, now);
}

/* Whether the thread may end its drain: nothing waits (RELP: and a session is up to resend on). */
static bool drained(const struct syslog_sender *s)
{
	if (syslog_queue__count(s->q) > 0)
		return false;
	return !s->relp || s->st.connects == 0 || s->st.state == PL_SYSLOG_CONNECTED;
}

static void *sender_main(void *arg)
{
	struct syslog_sender *s = arg;
	uint64_t now;

	pthread_mutex_lock(&s->lock);
	try_connect(s);
	while (!s->stop) {
		now = mono_ns();
		if (s->drain && (drained(s) || now >= s->drain_deadline_ns))
			break;
		if (syslog_queue__count(s->q) == 0 && !(s->drain && !drained(s))) {
			wait_until(s, 0);
			continue;
		}
		if (s->st.state == PL_SYSLOG_DISCONNECTED) {
			if (now < s->next_try_ns) {
				uint64_t until = s->next_try_ns;

				if (s->drain && s->drain_deadline_ns < until)
					until = s->drain_deadline_ns;
				wait_until(s, until);
				continue;
			}
			try_connect(s);
			continue;
		}
		if (syslog_queue__count(s->q) == 0) {
			wait_until(s, now + FULL_WAIT_NS); /* RELP drain: connecting still */
			continue;
		}
		send_one(s);
	}
	if (s->tr->ops->close) {
		int left_ms = 0;

		now = mono_ns();
		if (s->drain && s->drain_deadline_ns > now)
			left_ms = (int)((s->drain_deadline_ns - now) / 1000000ull);
		pthread_mutex_unlock(&s->lock);
		s->tr->ops->close(s->tr, left_ms);
		pthread_mutex_lock(&s->lock);
	}
	s->st.state = PL_SYSLOG_DISCONNECTED;
	s->ended = true;
	pthread_cond_broadcast(&s->done);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* ---- the caller's side ---- */

int syslog_sender__new(struct syslog_transport *tr, bool relp, size_t max_bytes, size_t max_msgs,
		       struct syslog_sender **ret)
{
	struct syslog_sender *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	int r;

	if (!s) {
		tr->ops->free(tr);
		return -ENOMEM;
	}
	s->tr = tr;
	s->relp = relp;
	s->backoff_ns = BACKOFF_MIN_NS;
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&s->lock, NULL);
	/* timed waits on the monotonic clock: a step of the wall clock must not stretch a backoff */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_cond_init(&s->done, &ca);
	pthread_condattr_destroy(&ca);
	r = s->efd < 0 ? -errno : syslog_queue__new(max_bytes, max_msgs, &s->q);
	if (r < 0) {
		syslog_sender__free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int syslog_sender__start(struct syslog_sender *s)
{
	int r;

	if (s->have_thread)
		return 0;
	r = pl_thread_start(&s->thread, sender_main, s);
	if (r == 0)
		s->have_thread = true;
	return r;
}

int syslog_sender__push(struct syslog_sender *s, const char *msg, size_t len)
{
	int r;

	pthread_mutex_lock(&s->lock);
	r = s->stop || s->drain || s->ended ? -ESHUTDOWN : syslog_queue__push(s->q, msg, len);
	if (r == 0)
		pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	return r;
}

void syslog_sender__state(struct syslog_sender *s, struct syslog_sender_state *ret)
{
	pthread_mutex_lock(&s->lock);
	ret->st = s->st;
	ret->st.queued = syslog_queue__count(s->q);
	ret->st.queued_bytes = syslog_queue__bytes(s->q);
	ret->down = s->down;
	memcpy(ret->down_why, s->down_why, sizeof(ret->down_why));
	pthread_mutex_unlock(&s->lock);
}

int syslog_sender__event_fd(const struct syslog_sender *s)
{
	return s->efd;
}

void syslog_sender__ack(struct syslog_sender *s)
{
	uint64_t n;
	ssize_t r = read(s->efd, &n, sizeof(n));

	(void)r; /* EAGAIN: nothing new */
}

uint64_t syslog_sender__stop(struct syslog_sender *s, int timeout_ms, bool *ret_stuck)
{
	uint64_t deadline, lost;
	struct timespec ts;

	timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	pthread_mutex_lock(&s->lock);
	deadline = mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	if (s->have_thread && !s->ended) {
		s->drain = true;
		s->drain_deadline_ns = deadline;
		if (s->backoff_ns > DRAIN_BACKOFF_NS)
			s->backoff_ns = DRAIN_BACKOFF_NS;
		if (s->next_try_ns > mono_ns() + DRAIN_BACKOFF_NS)
			s->next_try_ns = mono_ns() + DRAIN_BACKOFF_NS;
		pthread_cond_signal(&s->wake);
		deadline += PL_SYSLOG_STOP_GRACE_MS * 1000000ull;
		ts.tv_sec = (time_t)(deadline / 1000000000ull);
		ts.tv_nsec = (long)(deadline % 1000000000ull);
		while (!s->ended && pthread_cond_timedwait(&s->done, &s->lock, &ts) != ETIMEDOUT)
			;
		s->stuck = !s->ended;
		s->stop = true; /* a stuck thread ends at its next look */
	}
	s->stop = true;
	lost = syslog_queue__count(s->q);
	if (!s->stuck)
		while (syslog_queue__count(s->q) > 0)
			syslog_queue__pop(s->q);
	s->st.dropped_at_exit += lost;
	snprintf(s->st.why, sizeof(s->st.why), "closed at exit");
	s->st.state = PL_SYSLOG_DISCONNECTED;
	pthread_mutex_unlock(&s->lock);
	if (s->have_thread && !s->stuck) {
		pthread_join(s->thread, NULL);
		s->have_thread = false;
	}
	if (ret_stuck)
		*ret_stuck = s->stuck;
	return lost;
}

void syslog_sender__free(struct syslog_sender *s)
{
	if (!s)
		return;
	if (s->have_thread && !s->stuck)
		syslog_sender__stop(s, 0, NULL);
	if (s->stuck)
		return; /* its thread still runs; the process is exiting */
	if (s->tr)
		s->tr->ops->free(s->tr);
	syslog_queue__free(s->q);
	if (s->efd >= 0)
		close(s->efd);
	pthread_cond_destroy(&s->done);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
