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
 *
 * relp+tls: is the same session inside librelp's own TLS, with its OpenSSL
 * backend (Debian's librelp links GnuTLS too; the engine is told which):
 * the server's certificate verified against the CA file, its name against
 * the peer (librelp's authmode "name", one permitted peer), our certificate
 * and key offered (mutual TLS). librelp reads the files at its first
 * connect, on the sender thread (after the privilege drop: they must be
 * readable by the sensor's user), and keeps them for its reconnects;
 * syslog_tls__check() read them once at start. A
 * refusal reaches us through librelp's error callbacks, which are turned
 * into the words tls: says (syslog_tls.c): whose CA, or which names.
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
	char err[320]; /* librelp's last words, from on_err() / on_auth_err() */
	bool tls;
	bool worded;  /* err is in our words (a refused certificate, a failed handshake): said as NAME: err */
	bool refused; /* librelp refused the server's certificate (on_auth_err()) */
	char *ca, *cert, *key, *peer;
};

/* librelp's words on one line (its OpenSSL stack ends in a newline). */
static void one_line(char *s)
{
	size_t n;

	for (char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static void on_err(void *usr, char *objinfo, char *errmsg, relpRetVal code)
{
	struct syslog_relp *r = usr;
	char words[160];

	(void)objinfo;
	if (!r || r->worded || r->err[0])
		return; /* the first words of an attempt are the most precise */
	snprintf(words, sizeof(words), "%s", errmsg ? errmsg : "?");
	one_line(words);
	if (r->tls && (code == RELP_RET_ERR_TLS_HANDS || code == RELP_RET_ERR_TLS || code == RELP_RET_ERR_TLS_SETUP)) {
		r->worded = true;
		snprintf(r->err, sizeof(r->err),
			 "the TLS handshake failed, the server may refuse our certificate%s (librelp error %d: %.150s)",
			 r->cert ? "" : " (none given: --syslog-cert, --syslog-key)", (int)code, words);
	} else {
		snprintf(r->err, sizeof(r->err), "%s (librelp error %d)", words, (int)code);
	}
}

/* A name in authinfo ("DNSname: a; DNSname: b; ") as 'a', 'b', into buf. */
static void auth_names(const char *authinfo, char *buf, size_t size)
{
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (const char *p = authinfo; p && (p = strstr(p, "name: ")) != NULL;) {
		size_t len;

		p += 6;
		len = strcspn(p, "; ,'");
		if (len && used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s'%.*s'", n++ ? ", " : "",
						 (int)(len > 64 ? 64 : len), p);
		p += len;
	}
	if (!n)
		snprintf(buf, size, "another name");
}

/* librelp's word for a certificate it refused: say it as tls: does. */
static void on_auth_err(void *usr, char *authinfo, char *errmsg, relpRetVal code)
{
	struct syslog_relp *r = usr;
	char names[160];

	if (!r)
		return;
	(void)code;
	r->worded = r->refused = true;
	/* librelp 1.11 says "no permited name found" for a name, "certificate
	 * validation failed: ..." for a chain that is not the CA's */
	if (errmsg && strstr(errmsg, "name")) {
		auth_names(authinfo, names, sizeof(names));
		snprintf(r->err, sizeof(r->err), "the server's certificate names %s, not '%s' (librelp: %s)", names,
			 r->peer, errmsg);
	} else {
		snprintf(r->err, sizeof(r->err), "the server's certificate is not signed by CA %s (librelp: %s)",
			 r->ca ? r->ca : "?", errmsg ? errmsg : "?");
	}
	one_line(r->err);
}

static void say(struct syslog_relp *r, const char *what, relpRetVal code, char *why, size_t whysize)
{
	if (r->worded)
		snprintf(why, whysize, "%s: %s", r->name, r->err);
	else if (r->err[0])
		snprintf(why, whysize, "%s %s: %s", what, r->name, r->err);
	else
		snprintf(why, whysize, "%s %s: librelp error %d", what, r->name, (int)code);
}

static void relp_close(struct syslog_transport *t, int timeout_ms);

/* The client's TLS: librelp's OpenSSL backend, our files, the peer's name. */
static relpRetVal client_tls(struct syslog_relp *r)
{
	relpRetVal rc = relpCltEnableTLS(r->clt);

	if (rc == RELP_RET_OK)
		rc = relpCltSetCACert(r->clt, r->ca);
	if (rc == RELP_RET_OK && r->cert)
		rc = relpCltSetOwnCert(r->clt, r->cert);
	if (rc == RELP_RET_OK && r->key)
		rc = relpCltSetPrivKey(r->clt, r->key);
	if (rc == RELP_RET_OK)
		rc = relpCltSetAuthMode(r->clt, (char *)"name");
	if (rc == RELP_RET_OK)
		rc = relpCltAddPermittedPeer(r->clt, r->peer);
	return rc;
}

static int relp_connect(struct syslog_transport *t, char *why, size_t whysize)
{
	struct syslog_relp *r = (struct syslog_relp *)t;
	relpRetVal rc;

	r->err[0] = '\0';
	r->worded = r->refused = false;
	if (!r->clt) {
		if (relpEngineCltConstruct(r->eng, &r->clt) != RELP_RET_OK) {
			snprintf(why, whysize, "cannot make a RELP client");
			return -ENOMEM;
		}
		relpCltSetTimeout(r->clt, RELP_TIMEOUT_S);
		relpCltSetConnTimeout(r->clt, RELP_CONN_TIMEOUT_S);
		relpCltSetWindowSize(r->clt, RELP_WINDOW);
		relpCltSetUsrPtr(r->clt, r);
		if (r->tls && (rc = client_tls(r)) != RELP_RET_OK) {
			say(r, "cannot set up TLS for", rc, why, whysize);
			relpEngineCltDestruct(r->eng, &r->clt);
			r->clt = NULL;
			return -EINVAL;
		}
	}
	if (r->session)
		rc = relpCltReconnect(r->clt);
	else
		rc = relpCltConnect(r->clt, AF_UNSPEC, (unsigned char *)r->port, (unsigned char *)r->host);
	if (rc != RELP_RET_OK) {
		say(r, "cannot connect to", rc, why, whysize);
		if (r->tls && !r->worded && strlen(why) + 80 < whysize)
			/* TLS 1.3: a server that refuses our certificate does so after our
			 * handshake, so librelp sees the session break at its "open" */
			snprintf(why + strlen(why), whysize - strlen(why),
				 "; over TLS, the server may refuse our certificate%s",
				 r->cert ? "" : " (none given: --syslog-cert, --syslog-key)");
		return -ECONNREFUSED;
	}
	if (r->refused) {
		/* the session opened though librelp said it refused the peer: not ours */
		say(r, "cannot connect to", rc, why, whysize);
		relp_close(t, 0);
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
	free(r->ca);
	free(r->cert);
	free(r->key);
	free(r->peer);
	free(r);
}

static const struct syslog_transport_ops relp_ops = {
    .connect = relp_connect,
    .send = relp_send,
    .close = relp_close,
    .free = relp_free,
};

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

int syslog_relp__new(const struct pl_syslog_target *t, const struct pl_syslog_tls *tls, struct syslog_transport **ret)
{
	struct syslog_relp *r;
	bool oom = false;

	if (t->kind != PL_SYSLOG_RELP && t->kind != PL_SYSLOG_RELP_TLS)
		return -EINVAL;
	if (t->kind == PL_SYSLOG_RELP_TLS && (!tls || !tls->ca))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base.ops = &relp_ops;
	r->tls = t->kind == PL_SYSLOG_RELP_TLS;
	snprintf(r->host, sizeof(r->host), "%s", t->host);
	snprintf(r->port, sizeof(r->port), "%s", t->port);
	snprintf(r->name, sizeof(r->name), strchr(t->host, ':') ? "%s:[%s]:%s" : "%s:%s:%s",
		 r->tls ? "relp+tls" : "relp", t->host, t->port);
	if (r->tls) {
		r->ca = dup_or_null(tls->ca, &oom);
		r->cert = dup_or_null(tls->cert, &oom);
		r->key = dup_or_null(tls->key, &oom);
		r->peer = dup_or_null(tls->peer ? tls->peer : t->host, &oom);
	}
	if (oom || relpEngineConstruct(&r->eng) != RELP_RET_OK) {
		relp_free(&r->base);
		return -ENOMEM;
	}
	relpEngineSetDbgprint(r->eng, NULL);
	relpEngineSetOnErr(r->eng, on_err);
	relpEngineSetOnAuthErr(r->eng, on_auth_err);
	relpEngineSetEnableCmd(r->eng, (unsigned char *)"syslog", eRelpCmdState_Required);
	if (r->tls && relpEngineSetTLSLibByName(r->eng, "openssl") != RELP_RET_OK) {
		relp_free(&r->base);
		return -EINVAL; /* this librelp was built without OpenSSL */
	}
	*ret = &r->base;
	return 0;
}
