// SPDX-License-Identifier: MIT
/*
 * syslog_out.c - records to syslog: the --syslog TARGET parser, and the
 * backend that joins the RFC 5424 formatter (syslog_fmt.c), a bounded buffer
 * (syslog_queue.c) and a transport (syslog_unix.c, syslog_inet.c,
 * syslog_tls.c, syslog_relp.c).
 *
 * Every record is formatted when it is written (its TIMESTAMP is when the
 * sensor emitted it, not when the collector came back) and pushed into the
 * sender's bounded buffer; the sender thread (syslog_sender.c) connects,
 * sends oldest first and backs off, so nothing here waits on a collector.
 * A full buffer refuses the newest record (output.h counts it in `dropped`
 * and reports the episode); everything that waits keeps its order. The
 * JSON output stays the record of truth.
 *
 * What the thread learns comes back through output__flush() (every tick,
 * and whenever the sender's eventfd is readable): an outage's edges are
 * reported through output.h (PL_OUTPUT_DOWN, PL_OUTPUT_UP), and messages
 * the thread had to drop are added to `dropped`.
 */
#include "syslog_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "syslog_sender.h"
#include "syslog_transport.h"

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
	} nets[] = {{"tcp:", PL_SYSLOG_TCP},
		    {"udp:", PL_SYSLOG_UDP},
		    {"relp:", PL_SYSLOG_RELP},
		    {"tls:", PL_SYSLOG_TLS},
		    {"relp+tls:", PL_SYSLOG_RELP_TLS}};
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
		snprintf(msg, msgsize,
			 "expected unix:PATH, tcp:HOST:PORT, udp:HOST:PORT, relp:HOST:PORT, tls:HOST:PORT, "
			 "relp+tls:HOST:PORT or off");
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
	static const char *const scheme[] = {[PL_SYSLOG_TCP] = "tcp",
					     [PL_SYSLOG_UDP] = "udp",
					     [PL_SYSLOG_RELP] = "relp",
					     [PL_SYSLOG_TLS] = "tls",
					     [PL_SYSLOG_RELP_TLS] = "relp+tls"};

	switch (t->kind) {
	case PL_SYSLOG_UNIX:
		snprintf(buf, size, "unix:%s", t->path);
		break;
	case PL_SYSLOG_TCP:
	case PL_SYSLOG_UDP:
	case PL_SYSLOG_RELP:
	case PL_SYSLOG_TLS:
	case PL_SYSLOG_RELP_TLS:
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
	struct syslog_sender *snd;
	char hostname[256];
	char app_name[49];
	int facility;
	long pid;
	/* the loop's own counters */
	uint64_t cut;		 /* messages cut to PL_SYSLOG_MSG_MAX */
	uint64_t overflow;	 /* refused: the buffer was full */
	uint64_t after_stop;	 /* refused: written after syslog_output__drain() */
	uint64_t thread_dropped; /* the sender's drops already added to base.dropped */
	uint64_t outages_said;	 /* the sender's outages already reported */
	char msg[PL_SYSLOG_MSG_MAX + 1];
};

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

/* What the sender learnt, on the loop: the outage's edges, and its drops counted in `dropped`. */
static void catch_up(struct syslog_output *s, struct syslog_sender_state *ret)
{
	uint64_t dropped;

	syslog_sender__state(s->snd, ret);
	dropped = ret->st.dropped_unsendable + ret->st.dropped_at_exit;
	s->base.dropped += dropped - s->thread_dropped;
	s->thread_dropped = dropped;
	/* an outage that began (and perhaps ended) since the last look is said,
	 * both edges, even when the one said before is still the state */
	if (ret->st.outages != s->outages_said) {
		output__set_down(&s->base, false, NULL);
		output__set_down(&s->base, true, ret->down_why);
		s->outages_said = ret->st.outages;
	}
	output__set_down(&s->base, ret->down, ret->down_why);
}

static int syslog_write(struct pl_output *o, const struct pl_record *rec)
{
	struct syslog_output *s = (struct syslog_output *)o;
	struct syslog_sender_state ss;
	struct pl_syslog_header h;
	bool cut = false;
	size_t len;
	int r;

	header(s, &h);
	len = syslog_format__5424(s->msg, sizeof(s->msg), &h, rec, &cut);
	if (cut)
		s->cut++;
	r = syslog_sender__push(s->snd, s->msg, len);
	if (r == -ESHUTDOWN) {
		s->after_stop++;
		snprintf(o->why, sizeof(o->why), "the syslog output was closed at exit");
	}
	if (r != -ENOBUFS)
		return r;
	s->overflow++;
	syslog_sender__state(s->snd, &ss);
	snprintf(o->why, sizeof(o->why), "the syslog buffer is full (%llu messages, %llu bytes) while %s: %.120s",
		 (unsigned long long)ss.st.queued, (unsigned long long)ss.st.queued_bytes,
		 syslog_state__name(ss.st.state), ss.st.why[0] ? ss.st.why : "the target is not taking messages");
	return r;
}

static int syslog_flush(struct pl_output *o)
{
	struct syslog_output *s = (struct syslog_output *)o;
	struct syslog_sender_state ss;

	syslog_sender__ack(s->snd);
	catch_up(s, &ss);
	return 0;
}

static void syslog_free(struct pl_output *o)
{
	struct syslog_output *s = (struct syslog_output *)o;

	syslog_sender__free(s->snd);
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
	struct syslog_output *s = (struct syslog_output *)o;
	struct syslog_sender_state ss;

	syslog_sender__state(s->snd, &ss);
	*ret = ss.st;
	ret->cut = s->cut;
	ret->dropped_overflow = s->overflow;
	ret->dropped_at_exit += s->after_stop;
}

int syslog_output__start(struct pl_output *o)
{
	return syslog_sender__start(((struct syslog_output *)o)->snd);
}

int syslog_output__event_fd(const struct pl_output *o)
{
	return syslog_sender__event_fd(((const struct syslog_output *)o)->snd);
}

uint64_t syslog_output__drain(struct pl_output *o, int timeout_ms, bool *ret_stuck)
{
	struct syslog_output *s = (struct syslog_output *)o;
	struct syslog_sender_state ss;
	uint64_t lost = syslog_sender__stop(s->snd, timeout_ms, ret_stuck);

	catch_up(s, &ss);
	return lost;
}

int syslog_output__open(const struct pl_syslog_target *t, const struct pl_syslog_opts *opts, struct pl_output **ret)
{
	struct syslog_transport *tr = NULL;
	struct syslog_output *s;
	int r;

	if (t->kind == PL_SYSLOG_OFF)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base.ops = &syslog_ops;
	snprintf(s->app_name, sizeof(s->app_name), "%s", opts->app_name ? opts->app_name : "plumbline");
	s->facility = opts->facility;
	s->pid = (long)getpid();
	if (opts->hostname)
		snprintf(s->hostname, sizeof(s->hostname), "%s", opts->hostname);
	else if (gethostname(s->hostname, sizeof(s->hostname) - 1) < 0)
		snprintf(s->hostname, sizeof(s->hostname), "-");
	if (t->kind == PL_SYSLOG_UNIX)
		r = syslog_unix__new(t->path, &tr);
	else if (t->kind == PL_SYSLOG_RELP || t->kind == PL_SYSLOG_RELP_TLS)
		r = syslog_relp__new(t, &opts->tls, &tr);
	else if (t->kind == PL_SYSLOG_TLS)
		r = syslog_tls__new(t, &opts->tls, &tr);
	else
		r = syslog_inet__new(t, &tr);
	if (r == 0)
		r = syslog_sender__new(tr, t->kind == PL_SYSLOG_RELP || t->kind == PL_SYSLOG_RELP_TLS,
				       opts->buffer_bytes ? opts->buffer_bytes : PL_SYSLOG_BUFFER_BYTES,
				       opts->buffer_msgs ? opts->buffer_msgs : PL_SYSLOG_BUFFER_MSGS, &s->snd);
	if (r < 0) {
		free(s);
		return r;
	}
	*ret = &s->base;
	return 0;
}
