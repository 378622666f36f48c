// SPDX-License-Identifier: MIT
/*
 * metrics.c - Prometheus text exposition and its HTTP server (see metrics.h).
 *
 * The renderer appends to one buffer; a family's samples follow its HELP
 * and TYPE lines, as the format wants them grouped. The server holds the
 * last published text; libmicrohttpd's thread copies it into each response
 * under a mutex, so the caller may publish while a scrape is answered.
 *
 * libmicrohttpd's timeout is an idle one: a peer that sends one byte of
 * its request head every few seconds keeps a slot for ever, and eight such
 * peers lock every scrape out. So the server tracks each connection (the
 * connection notifications) and whether its request head is complete (the
 * access handler has been called): a head not complete within
 * METRICS_HEAD_DEADLINE_S of accept is cut by a reaper thread (on a
 * kept-alive connection, the next head within one second past the idle
 * timeout of the previous request's end: a connection honestly idle is
 * closed by libmicrohttpd first, one that trickles is cut); and a connection beyond
 * METRICS_MAX_CONNS cuts the oldest one whose head is still incomplete.
 * Cutting is shutdown(2) of the socket, under the lock that the close
 * notification takes, which libmicrohttpd sends before it closes the fd:
 * the fd is never one reused meanwhile. libmicrohttpd then reads the end of
 * the stream and closes the connection itself.
 */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "textsafe.h"

/* ---- the renderer ---- */

static int fail(struct pl_expo *e, int err)
{
	if (!e->err)
		e->err = err;
	return e->err;
}

static int put(struct pl_expo *e, const char *s, size_t n)
{
	if (e->err)
		return e->err;
	if (e->len + n + 1 > e->cap) {
		size_t cap = e->cap ? e->cap : 4096;
		char *b;

		while (cap < e->len + n + 1)
			cap *= 2;
		b = realloc(e->buf, cap);
		if (!b)
			return fail(e, -ENOMEM);
		e->buf = b;
		e->cap = cap;
	}
	memcpy(e->buf + e->len, s, n);
	e->len += n;
	e->buf[e->len] = '\0';
	return 0;
}

static int puts_(struct pl_expo *e, const char *s)
{
	return put(e, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static int putf(struct pl_expo *e, const char *fmt, ...)
{
	char b[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(b))
		return fail(e, -EINVAL);
	return put(e, b, (size_t)n);
}

bool expo__metric_name_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == ':';

		if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
			return false;
	}
	return true;
}

bool expo__label_name_ok(const char *s)
{
	if (!s || !*s || strncmp(s, "__", 2) == 0)
		return false;
	for (const char *p = s; *p; p++) {
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_';

		if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
			return false;
	}
	return true;
}

/* Escape for a label value (quote too) or for help text (only \ and \n). */
static int escape(struct pl_expo *e, const char *v, bool quote)
{
	const unsigned char *s = (const unsigned char *)(v ? v : "");

	while (*s) {
		size_t n = text_utf8_decode(s, strnlen((const char *)s, 4), NULL);

		if (*s == '\\')
			put(e, "\\\\", 2);
		else if (*s == '\n')
			put(e, "\\n", 2);
		else if (*s == '"' && quote)
			put(e, "\\\"", 2);
		else if (n == 0)
			put(e, "\xef\xbf\xbd", 3); /* U+FFFD for a byte that is not UTF-8 */
		else
			put(e, (const char *)s, n);
		s += n ? n : 1;
	}
	return e->err;
}

int expo__escape_label(struct pl_expo *e, const char *v)
{
	return escape(e, v, true);
}

int expo__family(struct pl_expo *e, const char *name, enum pl_metric_type type, const char *help)
{
	size_t n = name ? strlen(name) : 0;

	if (!expo__metric_name_ok(name) || n >= sizeof(e->family))
		return fail(e, -EINVAL);
	if (type == PL_METRIC_COUNTER && (n < 6 || strcmp(name + n - 6, "_total") != 0))
		return fail(e, -EINVAL);
	if (type != PL_METRIC_COUNTER && n >= 6 && strcmp(name + n - 6, "_total") == 0)
		return fail(e, -EINVAL);
	memcpy(e->family, name, n + 1);
	puts_(e, "# HELP ");
	puts_(e, name);
	puts_(e, " ");
	escape(e, help, false);
	puts_(e, "\n# TYPE ");
	puts_(e, name);
	puts_(e, type == PL_METRIC_COUNTER ? " counter\n" : " gauge\n");
	return e->err;
}

static int sample_head(struct pl_expo *e, const struct pl_label *labels, size_t n)
{
	if (!e->family[0])
		return fail(e, -EINVAL);
	puts_(e, e->family);
	for (size_t i = 0; i < n; i++) {
		if (!expo__label_name_ok(labels[i].name))
			return fail(e, -EINVAL);
		puts_(e, i ? "," : "{");
		puts_(e, labels[i].name);
		puts_(e, "=\"");
		escape(e, labels[i].value, true);
		puts_(e, "\"");
	}
	return puts_(e, n ? "} " : " ");
}

int expo__u64(struct pl_expo *e, const struct pl_label *labels, size_t n, uint64_t v)
{
	if (sample_head(e, labels, n))
		return e->err;
	return putf(e, "%llu\n", (unsigned long long)v);
}

int expo__double(struct pl_expo *e, const struct pl_label *labels, size_t n, double v)
{
	if (sample_head(e, labels, n))
		return e->err;
	if (isnan(v))
		return puts_(e, "NaN\n");
	if (isinf(v))
		return puts_(e, v > 0 ? "+Inf\n" : "-Inf\n");
	{
		/* the shortest form that reads back as v */
		char b[40];

		for (int prec = 15; prec <= 17; prec++) {
			snprintf(b, sizeof(b), "%.*g", prec, v);
			if (strtod(b, NULL) == v)
				break;
		}
		puts_(e, b);
		return puts_(e, "\n");
	}
}

const char *expo__text(const struct pl_expo *e)
{
	return e->err ? NULL : e->buf ? e->buf : "";
}

void expo__free(struct pl_expo *e)
{
	free(e->buf);
	*e = (struct pl_expo){0};
}

/* ---- the address ---- */

int metrics_addr__parse(const char *s, struct metrics_addr *ret, char *err, size_t errlen)
{
	struct metrics_addr a = {0};
	char host[64];
	const char *colon, *port;
	unsigned long p;
	char *end;
	size_t hlen;
	bool bracketed;

	if (!s || !*s) {
		snprintf(err, errlen, "expected ADDR:PORT");
		return -EINVAL;
	}
	bracketed = s[0] == '[';
	if (bracketed) {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':') {
			snprintf(err, errlen, "expected [IPV6]:PORT");
			return -EINVAL;
		}
		hlen = (size_t)(close - s - 1);
		colon = close + 1;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			snprintf(err, errlen, "expected ADDR:PORT (with a port)");
			return -EINVAL;
		}
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 || hlen >= sizeof(host)) {
		snprintf(err, errlen, "expected a numeric address before the port");
		return -EINVAL;
	}
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	port = colon + 1;
	errno = 0;
	p = strtoul(port, &end, 10);
	if (errno || end == port || *end || port[0] == '-' || port[0] == '+' || p < 1 || p > 65535) {
		snprintf(err, errlen, "the port must be an integer in [1, 65535]");
		return -EINVAL;
	}
	if (!bracketed && inet_pton(AF_INET, host, &((struct sockaddr_in *)&a.sa)->sin_addr) == 1) {
		struct sockaddr_in *in = (struct sockaddr_in *)&a.sa;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)p);
		a.len = sizeof(*in);
		a.loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&a.sa)->sin6_addr) == 1 && bracketed) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a.sa;
		const uint8_t *b = in6->sin6_addr.s6_addr;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		a.len = sizeof(*in6);
		a.loopback =
		    IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127);
	} else {
		snprintf(err, errlen, "'%s' is not a numeric IPv4 address nor a bracketed IPv6 one", host);
		return -EINVAL;
	}
	*ret = a;
	return 0;
}

/* ---- the server ---- */

/* libmicrohttpd's own bound: room for METRICS_MAX_CONNS and as many cut
 * ones not yet closed, so that a newcomer is accepted and can cut. */
#define MHD_CONNS (2 * METRICS_MAX_CONNS)
#define REAP_EVERY_NS 200000000ull

struct conn_slot {
	bool used;
	bool head_done; /* the request head is in: the access handler ran */
	bool cut;       /* shut down, its close not yet notified */
	int fd;
	uint64_t since_ns; /* accept, or the end of the previous request */
	uint64_t allow_ns; /* for the head from since_ns */
};

struct metrics_server {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *text; /* the last published text, NULL before the first */
	size_t len;
	uint64_t scrapes;
	struct metrics_cut_stats cuts;
	metrics_live_fn live; /* set before the first publish, then only read */
	void *live_ctx;
	/* the connections, under lock */
	struct conn_slot conns[MHD_CONNS];
	pthread_cond_t wake; /* stop */
	bool stop;
	pthread_t reaper;
	bool have_reaper;
};

/* Cut slot c (under lock): libmicrohttpd sees the end of the stream. */
static void conn_cut(struct conn_slot *c, uint64_t *counter)
{
	shutdown(c->fd, SHUT_RDWR);
	c->cut = true;
	(*counter)++;
}

/* A new connection takes a slot; when METRICS_MAX_CONNS are live, the
 * oldest whose request head is incomplete is cut (else the newcomer: every
 * other one is being answered). A closed one gives its slot back. */
static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct metrics_server *s = cls;
	const union MHD_ConnectionInfo *info;
	struct conn_slot *c = *socket_context, *free_slot = NULL, *oldest = NULL;
	size_t live = 0;

	pthread_mutex_lock(&s->lock);
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c)
			*c = (struct conn_slot){ 0 };
		*socket_context = NULL;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (size_t i = 0; i < MHD_CONNS; i++) {
		struct conn_slot *x = &s->conns[i];

		if (!x->used) {
			if (!free_slot)
				free_slot = x;
			continue;
		}
		if (x->cut)
			continue;
		live++;
		if (!x->head_done && (!oldest || x->since_ns < oldest->since_ns))
			oldest = x;
	}
	if (info && free_slot) {
		*free_slot = (struct conn_slot){ .used = true,
						 .fd = info->connect_fd,
						 .since_ns = mono_ns(),
						 .allow_ns = METRICS_HEAD_DEADLINE_S * 1000000000ull };
		*socket_context = free_slot;
		if (live >= METRICS_MAX_CONNS)
			conn_cut(oldest ? oldest : free_slot, &s->cuts.evicted);
	} else if (info) {
		shutdown(info->connect_fd, SHUT_RDWR);
		s->cuts.evicted++;
	}
	pthread_mutex_unlock(&s->lock);
}

/* The connection's request head is complete (done false), or its request
 * ended (done: a kept-alive connection waits for a new head from now). */
static void conn_mark(struct metrics_server *s, struct MHD_Connection *mc, bool done)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_slot *c = info ? info->socket_context : NULL;

	if (!c)
		return;
	pthread_mutex_lock(&s->lock);
	if (c->used) {
		c->head_done = !done;
		if (done) {
			c->since_ns = mono_ns();
			c->allow_ns = (METRICS_TIMEOUT_S + 1) * 1000000000ull;
		}
	}
	pthread_mutex_unlock(&s->lock);
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls, enum MHD_RequestTerminationCode toe)
{
	(void)req_cls;
	(void)toe;
	conn_mark(cls, mc, true);
}

/* Cut every connection whose request head is overdue, every
 * REAP_EVERY_NS, until stop. */
static void *reaper(void *arg)
{
	struct metrics_server *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		uint64_t now = mono_ns(), until = now + REAP_EVERY_NS;
		struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ull),
				       .tv_nsec = (long)(until % 1000000000ull) };

		for (size_t i = 0; i < MHD_CONNS; i++) {
			struct conn_slot *c = &s->conns[i];

			if (c->used && !c->cut && !c->head_done && now - c->since_ns >= c->allow_ns)
				conn_cut(c, &s->cuts.deadline);
		}
		pthread_cond_timedwait(&s->wake, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
			      const char *ctype)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (!r)
		return MHD_NO; /* out of memory: the connection is closed */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **req_cls)
{
	static const char plain[] = "text/plain; charset=utf-8";
	struct metrics_server *s = cls;
	enum MHD_Result ok;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	if (!*req_cls) {
		/* the first call for this request: its head is complete */
		*req_cls = s;
		conn_mark(s, c, false);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n", 18, plain);
	if (strcmp(url, "/metrics") != 0)
		return answer(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", 39, plain);
	{
		struct pl_expo e = { 0 };
		bool have;

		pthread_mutex_lock(&s->lock);
		have = s->text;
		if (have)
			put(&e, s->text, s->len);
		pthread_mutex_unlock(&s->lock);
		if (!have)
			return answer(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no metrics yet\n", 15, plain);
		if (s->live && !e.err)
			s->live(&e, s->live_ctx);
		ok = e.err ? MHD_NO : answer(c, MHD_HTTP_OK, e.buf, e.len, "text/plain; version=0.0.4; charset=utf-8");
		expo__free(&e);
	}
	if (ok == MHD_YES) {
		pthread_mutex_lock(&s->lock);
		s->scrapes++;
		pthread_mutex_unlock(&s->lock);
	}
	return ok;
}

void metrics_server__set_live(struct metrics_server *s, metrics_live_fn fn, void *ctx)
{
	pthread_mutex_lock(&s->lock);
	s->live = fn;
	s->live_ctx = ctx;
	pthread_mutex_unlock(&s->lock);
}

int metrics_server__start(const struct metrics_addr *a, struct metrics_server **ret)
{
	struct metrics_server *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	sigset_t all, old;
	int fd, one = 1, r;

	if (!s)
		return -ENOMEM;
	fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		free(s);
		return r;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (a->sa.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(fd, (const struct sockaddr *)&a->sa, a->len) < 0 || listen(fd, 16) < 0) {
		r = -errno;
		close(fd);
		free(s);
		return r;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* the server's threads inherit a mask that blocks every signal: signals
	 * stay with the thread that reads them (the sensor's signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC, 0, NULL, NULL,
				on_request, s, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)MHD_CONNS, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MHD_CONNS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_NOTIFY_CONNECTION,
				on_connection, s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
	r = s->d ? -pthread_create(&s->reaper, NULL, reaper, s) : -EIO;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	s->have_reaper = r == 0;
	if (r < 0) {
		if (!s->d)
			close(fd);
		metrics_server__free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int metrics_server__publish(struct metrics_server *s, const char *text, size_t len)
{
	char *copy, *old;

	if (len > METRICS_MAX_TEXT)
		return -EFBIG;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	pthread_mutex_lock(&s->lock);
	old = s->text;
	s->text = copy;
	s->len = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

uint64_t metrics_server__scrapes(struct metrics_server *s)
{
	uint64_t n;

	pthread_mutex_lock(&s->lock);
	n = s->scrapes;
	pthread_mutex_unlock(&s->lock);
	return n;
}

struct metrics_cut_stats metrics_server__cuts(struct metrics_server *s)
{
	struct metrics_cut_stats n;

	pthread_mutex_lock(&s->lock);
	n = s->cuts;
	pthread_mutex_unlock(&s->lock);
	return n;
}

void metrics_server__free(struct metrics_server *s)
{
	if (!s)
		return;
	if (s->have_reaper) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->reaper, NULL);
	}
	if (s->d)
		MHD_stop_daemon(s->d); /* joins the thread, closes the listening socket */
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	free(s);
}
