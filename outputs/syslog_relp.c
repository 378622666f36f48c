// SPDX-License-Identifier: MIT
/*
 * syslog_relp.c - syslog messages over RELP, through librelp (the rsyslog
 * project's own client, what omrelp uses).
 *
 * RELP is why a compliance deployment loses nothing across a collector
 * restart: the collector acknowledges each message, and librelp keeps every
 * message it sent until its acknowledgement comes (a window of RELP_WINDOW
 * messages). When the session breaks, relpCltReconnect() opens a new one and
 * sends the unacknowledged messages again before anything new, so what the
 * collector lost in its restart arrives again (and what it had taken but not
 * acknowledged may arrive twice: RELP is at-least-once). Messages librelp
 * has not taken yet wait in the sender's buffer (syslog_sender.c), in order.
 * So a message is counted `sent` once librelp took it, and delivered once
 * acknowledged, which librelp does not report one by one.
 *
 * librelp's client is synchronous. Its calls block, bounded by its timeouts:
 * a connect waits at most RELP_CONN_TIMEOUT_S for TCP and RELP_TIMEOUT_S for
 * the collector's answer to "open"; a send waits at most RELP_TIMEOUT_S for
 * room in the window (acknowledgements) or in the socket, and then the
 * session is broken. These calls are made on the syslog sender thread
 * (syslog_sender.c), which counts a send that waited its timeout out as a
 * stall and spaces the attempts with its backoff (1 s doubling to 30 s);
 * the event loop never waits on them. librelp sends without MSG_NOSIGNAL
 * (the sensor ignores SIGPIPE) and its sockets are not close-on-exec.
 */
#include "syslog_transport.h"

#include <errno.h>
#include <librelp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define RELP_TIMEOUT_S	    2
#define RELP_CONN_TIMEOUT_S 2
#define RELP_WINDOW	    128

struct syslog_relp {
	struct syslog_transport base;
	relpEngine_t *eng;
	relpClt_t *clt;
	bool session; /* a session was opened once: reconnect it (and resend what was not acknowledged) */
	bool up;
	char host[PL_SYSLOG_HOST_MAX];
	char port[6];
	char name[PL_SYSLOG_HOST_MAX + 16];
	char err[160]; /* librelp's last words, from on_err() */
};

static void on_err(void *usr, char *objinfo, char *errmsg, relpRetVal code)
{
	struct syslog_relp *r = usr;

	if (r)
		snprintf(r->err, sizeof(r->err), "%s (librelp error %d)", errmsg ? errmsg : "?", (int)code);
}

static void say(struct syslog_relp *r, const char *what, relpRetVal code, char *why, size_t whysize)
{
	if (r->err[0])
		snprintf(why, whysize, "%s %s: %s", what, r->name, r->err);
	else
		snprintf(why, whysize, "%s %s: librelp error %d", what, r->name, (int)code);
}

static int relp_connect(struct syslog_transport *t, char *why, size_t whysize)
{
	struct syslog_relp *r = (struct syslog_relp *)t;
	relpRetVal rc;

	r->err[0] = '\0';
	if (!r->clt) {
		if (relpEngineCltConstruct(r->eng, &r->clt) != RELP_RET_OK) {
			snprintf(why, whysize, "cannot make a RELP client");
			return -ENOMEM;
		}
		relpCltSetTimeout(r->clt, RELP_TIMEOUT_S);
		relpCltSetConnTimeout(r->clt, RELP_CONN_TIMEOUT_S);
		relpCltSetWindowSize(r->clt, RELP_WINDOW);
		relpCltSetUsrPtr(r->clt, r);
	}
	if (r->session)
		rc = relpCltReconnect(r->clt);
	else
		rc = relpCltConnect(r->clt, AF_UNSPEC, (unsigned char *)r->port, (unsigned char *)r->host);
	if (rc != RELP_RET_OK) {
		say(r, "cannot connect to", rc, why, whysize);
		return -ECONNREFUSED;
	}
	r->session = true;
	r->up = true;
	why[0] = '\0';
	return 0;
}

static int relp_send(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize)
{
	struct syslog_relp *r = (struct syslog_relp *)t;
	relpRetVal rc;

	if (!r->up) {
		snprintf(why, whysize, "not connected to %s", r->name);
		return -ENOTCONN;
	}
	r->err[0] = '\0';
	rc = relpCltSendSyslog(r->clt, (unsigned char *)msg, len);
	if (rc == RELP_RET_OK)
		return 0;
	r->up = false;
	say(r, "the session with", rc, why, whysize);
	return -ECONNRESET;
}

static void relp_close(struct syslog_transport *t, int timeout_ms)
{
	struct syslog_relp *r = (struct syslog_relp *)t;

	/* a session still up says "close" and waits (RELP_TIMEOUT_S at most)
	 * for its answer, which comes after the acknowledgements of all sent */
	if (r->clt)
		relpEngineCltDestruct(r->eng, &r->clt);
	r->clt = NULL;
	r->up = false;
	r->session = false;
}

static void relp_free(struct syslog_transport *t)
{
	struct syslog_relp *r = (struct syslog_relp *)t;

	relp_close(t, 0);
	if (r->eng)
		relpEngineDestruct(&r->eng);
	free(r);
}

static const struct syslog_transport_ops relp_ops = {
    .connect = relp_connect,
    .send = relp_send,
    .close = relp_close,
    .free = relp_free,
};

int syslog_relp__new(const struct pl_syslog_target *t, struct syslog_transport **ret)
{
	struct syslog_relp *r;

	if (t->kind != PL_SYSLOG_RELP)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base.ops = &relp_ops;
	snprintf(r->host, sizeof(r->host), "%s", t->host);
	snprintf(r->port, sizeof(r->port), "%s", t->port);
	snprintf(r->name, sizeof(r->name), strchr(t->host, ':') ? "relp:[%s]:%s" : "relp:%s:%s", t->host, t->port);
	if (relpEngineConstruct(&r->eng) != RELP_RET_OK) {
		free(r);
		return -ENOMEM;
	}
	relpEngineSetDbgprint(r->eng, NULL);
	relpEngineSetOnErr(r->eng, on_err);
	relpEngineSetEnableCmd(r->eng, (unsigned char *)"syslog", eRelpCmdState_Required);
	*ret = &r->base;
	return 0;
}
