// SPDX-License-Identifier: MIT
/*
 * syslog_out.c - records to syslog: the --syslog TARGET parser, and the
 * backend that joins the RFC 5424 formatter (syslog_fmt.c), a bounded buffer
 * (syslog_queue.c) and a transport (syslog_unix.c, syslog_inet.c,
 * syslog_relp.c).
 *
 * Every record is formatted when it is written (its TIMESTAMP is when the
 * sensor emitted it, not when the collector came back) and appended to the
 * buffer; then as much of the buffer as the transport takes now is sent,
 * oldest first. output__flush(), called every tick, does only the sending,
 * so a buffer fills while the target is down and empties once it is back
 * even when no new alert comes. A full buffer refuses the newest record
 * (output.h counts it in `dropped` and reports the episode); everything that
 * waits keeps its order. The JSON output stays the record of truth.
 *
 * Connecting: at once at open; after a connection that delivered something
 * is lost, again at once (a restarted daemon is usually back); otherwise
 * after a backoff of 1 s doubling to 30 s, so a dead collector costs one
 * attempt every 30 s, not one per alert.
 */
#include "syslog_out.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "syslog_queue.h"
#include "clock.h"
#include "syslog_transport.h"

#define BACKOFF_MIN_NS	 (1000000000ull)
#define BACKOFF_MAX_NS	 (30ull * 1000000000ull)
#define DRAIN_BACKOFF_NS (200000000ull) /* while draining at exit: try every 200 ms */
#define PUMP_BUDGET	 1024		/* messages sent per call at most: the loop has other work */

/* ---- the target ---- */

static int parse_port(const char *s, char *port, char *msg, size_t msgsize)
{
	unsigned long v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 5 || strspn(s, "0123456789") != n || (v = strtoul(s, NULL, 10)) == 0 || v > 65535) {
		snprintf(msg, msgsize, "PORT must be a number from 1 to 65535");
		return -EINVAL;
	}
	snprintf(port, 6, "%lu", v);
	return 0;
}

/* HOST:PORT, HOST a name, an IPv4 address or [IPv6]. */
static int parse_host_port(const char *s, struct pl_syslog_target *t, char *msg, size_t msgsize)
{
	const char *colon, *host = s;
	size_t hlen;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':') {
			snprintf(msg, msgsize, "an IPv6 HOST is written in brackets: [ADDRESS]:PORT");
			return -EINVAL;
		}
		host = s + 1;
		hlen = (size_t)(close - host);
		colon = close + 1;
		/* an IPv6 address has a colon: without one, the host would be
		 * written back unbracketed, and "86%1" is no host */
		if (hlen == 0 || strspn(host, "0123456789abcdefABCDEF:.%") < hlen || !memchr(host, ':', hlen)) {
			snprintf(msg, msgsize, "not an IPv6 address in brackets");
			return -EINVAL;
		}
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			snprintf(msg, msgsize, "expected HOST:PORT");
			return -EINVAL;
		}
		hlen = (size_t)(colon - s);
		if (memchr(s, ':', hlen)) {
			snprintf(msg, msgsize, "an IPv6 HOST is written in brackets: [ADDRESS]:PORT");
			return -EINVAL;
		}
		for (size_t i = 0; i < hlen; i++) {
			char c = s[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			      c == '.' || c == '_')) {
				snprintf(msg, msgsize, "HOST must be a name or an address");
				return -EINVAL;
			}
		}
	}
	if (hlen == 0) {
		snprintf(msg, msgsize, "expected HOST:PORT, HOST is empty");
		return -EINVAL;
	}
	if (hlen >= sizeof(t->host)) {
		snprintf(msg, msgsize, "HOST is longer than %zu bytes", sizeof(t->host) - 1);
		return -EINVAL;
	}
	memcpy(t->host, host, hlen);
	t->host[hlen] = '\0';
	return parse_port(colon + 1, t->port, msg, msgsize);
}

int syslog_target__parse(const char *spec, struct pl_syslog_target *ret, char *msg, size_t msgsize)
{
	static const struct {
		const char *prefix;
		enum pl_syslog_kind kind;
	} nets[] = {{"tcp:", PL_SYSLOG_TCP}, {"udp:", PL_SYSLOG_UDP}, {"relp:", PL_SYSLOG_RELP}};
	struct pl_syslog_target t = {.kind = PL_SYSLOG_OFF};
	const char *path;
	int r;

	if (strcmp(spec, "off") == 0) {
		*ret = t;
		return 0;
	}
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		if (strncmp(spec, nets[i].prefix, strlen(nets[i].prefix)) != 0)
			continue;
		r = parse_host_port(spec + strlen(nets[i].prefix), &t, msg, msgsize);
		if (r < 0)
			return r;
		t.kind = nets[i].kind;
		*ret = t;
		return 0;
	}
	if (strncmp(spec, "unix:", 5) != 0) {
		snprintf(msg, msgsize, "expected unix:PATH, tcp:HOST:PORT, udp:HOST:PORT, relp:HOST:PORT or off");
		return -EINVAL;
	}
	path = spec + 5;
	if (path[0] != '/') {
		snprintf(msg, msgsize, "unix:PATH needs an absolute path");
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(t.path)) {
		snprintf(msg, msgsize, "the path is longer than a socket address can hold (%zu bytes)",
			 sizeof(t.path) - 1);
		return -EINVAL;
	}
	t.kind = PL_SYSLOG_UNIX;
	memcpy(t.path, path, strlen(path) + 1);
	*ret = t;
	return 0;
}

void syslog_target__format(const struct pl_syslog_target *t, char *buf, size_t size)
{
	static const char *const scheme[] = {
	    [PL_SYSLOG_TCP] = "tcp", [PL_SYSLOG_UDP] = "udp", [PL_SYSLOG_RELP] = "relp"};

	switch (t->kind) {
	case PL_SYSLOG_UNIX:
		snprintf(buf, size, "unix:%s", t->path);
		break;
	case PL_SYSLOG_TCP:
	case PL_SYSLOG_UDP:
	case PL_SYSLOG_RELP:
		snprintf(buf, size, strchr(t->host, ':') ? "%s:[%s]:%s" : "%s:%s:%s", scheme[t->kind], t->host,
			 t->port);
		break;
	default:
		snprintf(buf, size, "off");
		break;
	}
}

/* ---- the backend ---- */

struct syslog_output {
	struct pl_output base;
	struct syslog_transport *tr;
	struct syslog_queue *q;
	enum pl_syslog_kind kind;
	char target[PL_SYSLOG_HOST_MAX + 16];
	char hostname[256];
	char app_name[49];
	int facility;
	long pid;
	/* the connection */
	uint64_t next_try_ns;
	uint64_t backoff_ns;
	uint64_t sent_on_conn; /* messages delivered on the current connection */
	bool draining;
	struct pl_syslog_stats st;
	char msg[PL_SYSLOG_MSG_MAX + 1];
};

static void connected(struct syslog_output *s)
{
	s->st.state = PL_SYSLOG_CONNECTED;
	s->st.why[0] = '\0';
	if (s->st.connects++ > 0)
		s->st.reconnects++;
	s->sent_on_conn = 0;
	s->backoff_ns = BACKOFF_MIN_NS;
}

/* A connect failed (why in s->st.why): the next attempt after the backoff. */
static void connect_failed(struct syslog_output *s, uint64_t now)
{
	uint64_t max = s->draining ? DRAIN_BACKOFF_NS : BACKOFF_MAX_NS;

	s->st.state = PL_SYSLOG_DISCONNECTED;
	s->st.connect_failures++;
	if (s->backoff_ns > max)
		s->backoff_ns = max;
	s->next_try_ns = now + s->backoff_ns;
	s->backoff_ns = s->backoff_ns * 2 > max ? max : s->backoff_ns * 2;
}

/* A connection that worked was lost (why in s->st.why). */
static void connection_lost(struct syslog_output *s, uint64_t now)
{
	s->st.state = PL_SYSLOG_DISCONNECTED;
	if (s->sent_on_conn > 0) {
		s->next_try_ns = now; /* at once: a restarted daemon is usually back */
		s->backoff_ns = BACKOFF_MIN_NS;
	} else {
		connect_failed(s, now); /* it took nothing: a failed attempt */
	}
}

/* Send what the transport takes now, oldest first, at most budget messages. */
static void pump(struct syslog_output *s, int budget)
{
	while (budget-- > 0 && syslog_queue__count(s->q) > 0) {
		const char *m;
		size_t len;
		int r;

		if (s->st.state == PL_SYSLOG_DISCONNECTED) {
			uint64_t now = mono_ns();

			if (now < s->next_try_ns)
				return;
			r = s->tr->ops->connect(s->tr, s->st.why, sizeof(s->st.why));
			if (r == -EINPROGRESS) {
				s->st.state = PL_SYSLOG_CONNECTING;
			} else if (r < 0) {
				connect_failed(s, now);
				return;
			} else {
				connected(s);
			}
		}
		len = syslog_queue__peek(s->q, &m);
		r = s->tr->ops->send(s->tr, m, len, s->st.why, sizeof(s->st.why));
		if (r == 0) {
			if (s->st.state == PL_SYSLOG_CONNECTING)
				connected(s);
			syslog_queue__pop(s->q);
			s->st.sent++;
			s->sent_on_conn++;
			continue;
		}
		if (r == -EAGAIN)
			return; /* connecting, or the target's buffer is full: the message waits */
		if (r == -EMSGSIZE) {
			/* this one can never go: lost, counted, and the rest goes on */
			syslog_queue__pop(s->q);
			s->st.dropped_unsendable++;
			s->base.dropped++;
			continue;
		}
		if (s->st.state == PL_SYSLOG_CONNECTING)
			connect_failed(s, mono_ns());
		else
			connection_lost(s, mono_ns());
		if (s->st.state == PL_SYSLOG_DISCONNECTED && s->next_try_ns > mono_ns())
			return;
	}
}

static void header(const struct syslog_output *s, struct pl_syslog_header *h)
{
	struct timespec ts;
	struct tm tm;
	time_t secs;

	clock_gettime(CLOCK_REALTIME, &ts);
	secs = ts.tv_sec;
	*h = (struct pl_syslog_header){
	    .facility = s->facility,
	    .time_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000,
	    .utc_off_min = localtime_r(&secs, &tm) ? (int)(tm.tm_gmtoff / 60) : 0,
	    .hostname = s->hostname,
	    .app_name = s->app_name,
	    .procid = s->pid,
	};
}

static int syslog_write(struct pl_output *o, const struct pl_record *rec)
{
	struct syslog_output *s = (struct syslog_output *)o;
	struct pl_syslog_header h;
	bool cut = false;
	size_t len;
	int r;

	header(s, &h);
	len = syslog_format__5424(s->msg, sizeof(s->msg), &h, rec, &cut);
	if (cut)
		s->st.cut++;
	r = syslog_queue__push(s->q, s->msg, len);
	if (r == -ENOBUFS) {
		pump(s, PUMP_BUDGET); /* room may come from sending */
		r = syslog_queue__push(s->q, s->msg, len);
	}
	if (r == -ENOBUFS) {
		s->st.dropped_overflow++;
		snprintf(o->why, sizeof(o->why), "the syslog buffer is full (%zu messages, %zu bytes) while %s: %.120s",
			 syslog_queue__count(s->q), syslog_queue__bytes(s->q), syslog_state__name(s->st.state),
			 s->st.why[0] ? s->st.why : "the target is not taking messages");
		return r;
	}
	if (r < 0)
		return r;
	pump(s, PUMP_BUDGET);
	return 0;
}

static int syslog_flush(struct pl_output *o)
{
	pump((struct syslog_output *)o, PUMP_BUDGET);
	return 0;
}

static void syslog_free(struct pl_output *o)
{
	struct syslog_output *s = (struct syslog_output *)o;

	if (s->tr)
		s->tr->ops->free(s->tr);
	syslog_queue__free(s->q);
	free(s);
}

static const struct pl_output_ops syslog_ops = {
    .name = "syslog",
    .write = syslog_write,
    .flush = syslog_flush,
    .free = syslog_free,
};

void syslog_output__stats(const struct pl_output *o, struct pl_syslog_stats *ret)
{
	const struct syslog_output *s = (const struct syslog_output *)o;

	*ret = s->st;
	ret->queued = syslog_queue__count(s->q);
	ret->queued_bytes = syslog_queue__bytes(s->q);
}

uint64_t syslog_output__drain(struct pl_output *o, int timeout_ms)
{
	struct syslog_output *s = (struct syslog_output *)o;
	uint64_t deadline = mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull, now, lost;
	/* RELP: librelp may hold sent but unacknowledged messages: they go
	 * again only over a connection, so one is wanted even with none queued */
	bool want_conn = s->kind == PL_SYSLOG_RELP && s->st.connects > 0;

	s->draining = true;
	if (s->backoff_ns > DRAIN_BACKOFF_NS)
		s->backoff_ns = DRAIN_BACKOFF_NS;
	if (s->next_try_ns > mono_ns() + DRAIN_BACKOFF_NS)
		s->next_try_ns = mono_ns() + DRAIN_BACKOFF_NS;
	for (;;) {
		pump(s, PUMP_BUDGET);
		if (want_conn && syslog_queue__count(s->q) == 0 && s->st.state == PL_SYSLOG_DISCONNECTED) {
			/* reconnecting resends what the collector did not acknowledge */
			now = mono_ns();
			if (now >= s->next_try_ns) {
				if (s->tr->ops->connect(s->tr, s->st.why, sizeof(s->st.why)) == 0)
					connected(s);
				else
					connect_failed(s, now);
			}
		}
		if (syslog_queue__count(s->q) == 0 && (!want_conn || s->st.state == PL_SYSLOG_CONNECTED))
			break;
		now = mono_ns();
		if (now >= deadline)
			break;
		poll(NULL, 0, 10);
	}
	now = mono_ns();
	if (s->tr->ops->close)
		s->tr->ops->close(s->tr, now < deadline ? (int)((deadline - now) / 1000000) : 0);
	lost = syslog_queue__count(s->q);
	while (syslog_queue__count(s->q) > 0)
		syslog_queue__pop(s->q);
	s->st.dropped_at_exit += lost;
	s->base.dropped += lost;
	s->st.state = PL_SYSLOG_DISCONNECTED;
	snprintf(s->st.why, sizeof(s->st.why), "closed at exit");
	s->next_try_ns = UINT64_MAX; /* and stays closed */
	return lost;
}

int syslog_output__open(const struct pl_syslog_target *t, const struct pl_syslog_opts *opts, struct pl_output **ret)
{
	struct syslog_output *s;
	int r;

	if (t->kind == PL_SYSLOG_OFF)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base.ops = &syslog_ops;
	s->kind = t->kind;
	syslog_target__format(t, s->target, sizeof(s->target));
	snprintf(s->app_name, sizeof(s->app_name), "%s", opts->app_name ? opts->app_name : "plumbline");
	s->facility = opts->facility;
	s->pid = (long)getpid();
	if (gethostname(s->hostname, sizeof(s->hostname) - 1) < 0)
		snprintf(s->hostname, sizeof(s->hostname), "-");
	s->backoff_ns = BACKOFF_MIN_NS;
	r = syslog_queue__new(opts->buffer_bytes ? opts->buffer_bytes : PL_SYSLOG_BUFFER_BYTES,
			      opts->buffer_msgs ? opts->buffer_msgs : PL_SYSLOG_BUFFER_MSGS, &s->q);
	if (r == 0) {
		if (t->kind == PL_SYSLOG_UNIX)
			r = syslog_unix__new(t->path, &s->tr);
		else if (t->kind == PL_SYSLOG_RELP)
			r = syslog_relp__new(t, &s->tr);
		else
			r = syslog_inet__new(t, &s->tr);
	}
	if (r < 0) {
		syslog_free(&s->base);
		return r;
	}
	/* the first attempt now, so that a target unusable already is known at start-up */
	r = s->tr->ops->connect(s->tr, s->st.why, sizeof(s->st.why));
	if (r == 0)
		connected(s);
	else if (r == -EINPROGRESS)
		s->st.state = PL_SYSLOG_CONNECTING;
	else
		connect_failed(s, mono_ns());
	*ret = &s->base;
	return 0;
}
