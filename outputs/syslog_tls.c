// SPDX-License-Identifier: MIT
/*
 * syslog_tls.c - syslog over TLS (RFC 5425, tls:HOST:PORT), and the check of
 * every TLS target's files (relp+tls: too) before the sensor starts.
 *
 * The frames are tcp:'s (RFC 6587 octet counting, what RFC 5425 prescribes)
 * inside a TLS 1.2+ session made with OpenSSL. Everything is nonblocking as
 * over TCP (syslog_inet.c's dial and background connect): connect() returns
 * -EINPROGRESS, and send() drives the TCP connect and then the handshake,
 * saying -EAGAIN until both are done (5 s at most), so the sender thread
 * never waits on a slow or silent server. A frame is written through one
 * buffer that stays put while SSL_write() wants to be called again.
 *
 * What is verified, at every handshake: the server's chain leads to a CA of
 * --syslog-ca (and no other: the system's store is not read), and its
 * certificate carries the peer's name (--syslog-peer, else the target's
 * HOST; SubjectAltName DNS or IP entries, CN only without them, as
 * X509_check_host() does). The name goes in SNI too when it is no address.
 * A refusal is said in words: whose CA, or which names the certificate
 * carries instead, with OpenSSL's own words after them. The sensor's
 * certificate and key (--syslog-cert, --syslog-key) are offered to a server
 * that asks for them (mutual TLS).
 *
 * The files are read once, when the output is opened (before the privilege
 * drop): the SSL_CTX built then serves every connection, so a renewed
 * certificate needs a restart. Each file is read bounded (fileread.h).
 *
 * What TLS 1.3 cannot tell a client: a server that refuses our certificate
 * does so after our handshake is complete, so the first frames written may
 * be lost before the refusal is read (the next frame notices it, like a
 * closed TCP connection); relp+tls: does not lose them.
 */
#include "syslog_transport.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "fileread.h"

#define TLS_FILE_MAX	     (1u << 20) /* a PEM file: a CA bundle is ~200 KiB */
#define HANDSHAKE_TIMEOUT_NS (5ull * 1000000000ull)

/* ---- the files ---- */

/* A PEM file read into memory (bounded), and the BIO that reads it. */
struct pem {
	char *buf;
	BIO *bio;
};

/* path's content, or what is wrong in msg (what: "--syslog-ca"). */
static int pem_open(struct pem *p, const char *what, const char *path, char *msg, size_t msgsize)
{
	struct file_read_error fe = {0};
	size_t len = 0;
	int r = file_read_bounded(path, TLS_FILE_MAX, 0, &p->buf, &len, &fe);

	if (r < 0) {
		if (fe.step == FILE_READ_KIND)
			snprintf(msg, msgsize, "%s %s: not a regular file", what, path);
		else if (fe.step == FILE_READ_SIZE)
			snprintf(msg, msgsize, "%s %s: larger than %u bytes, not a PEM file", what, path, TLS_FILE_MAX);
		else
			snprintf(msg, msgsize, "%s %s: cannot read it: %s", what, path, strerror(-r));
		return -EINVAL;
	}
	p->bio = BIO_new_mem_buf(p->buf, (int)len);
	if (!p->bio) {
		free(p->buf);
		snprintf(msg, msgsize, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void pem_close(struct pem *p)
{
	BIO_free(p->bio);
	free(p->buf);
	*p = (struct pem){0};
}

/* OpenSSL's last words (the queue emptied), into buf. */
static const char *ssl_words(char *buf, size_t size)
{
	unsigned long e, last = 0;

	while ((e = ERR_get_error()) != 0)
		last = e;
	if (!last)
		snprintf(buf, size, "no reason given");
	else
		ERR_error_string_n(last, buf, size);
	return buf;
}

static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf, (void)size, (void)rwflag, (void)u;
	return -1; /* an encrypted key is refused: nobody is there to type its passphrase */
}

static int load_ca(SSL_CTX *ctx, const char *path, char *msg, size_t msgsize)
{
	X509_STORE *store = SSL_CTX_get_cert_store(ctx);
	struct pem b = {0};
	X509 *x;
	char words[160];
	int n = 0, r = pem_open(&b, "--syslog-ca", path, msg, msgsize);

	if (r < 0)
		return r;
	while ((x = PEM_read_bio_X509(b.bio, NULL, no_passphrase, NULL)) != NULL) {
		if (X509_STORE_add_cert(store, x) == 1)
			n++;
		X509_free(x);
	}
	pem_close(&b);
	/* the end of the file reads as an error, kept for the words when nothing was read */
	if (n == 0) {
		snprintf(msg, msgsize, "--syslog-ca %s: holds no PEM certificate (%s)", path,
			 ssl_words(words, sizeof(words)));
		return -EINVAL;
	}
	ERR_clear_error();
	return 0;
}

static int load_own(SSL_CTX *ctx, const char *cert, const char *key, char *msg, size_t msgsize)
{
	struct pem b = {0};
	X509 *x, *leaf;
	EVP_PKEY *pk;
	char words[160];
	int r = pem_open(&b, "--syslog-cert", cert, msg, msgsize);

	if (r < 0)
		return r;
	leaf = PEM_read_bio_X509(b.bio, NULL, no_passphrase, NULL);
	if (!leaf) {
		pem_close(&b);
		snprintf(msg, msgsize, "--syslog-cert %s: holds no PEM certificate (%s)", cert,
			 ssl_words(words, sizeof(words)));
		return -EINVAL;
	}
	r = SSL_CTX_use_certificate(ctx, leaf) == 1 ? 0 : -EINVAL;
	X509_free(leaf);
	/* what follows the leaf is its chain, sent with it */
	while (r == 0 && (x = PEM_read_bio_X509(b.bio, NULL, no_passphrase, NULL)) != NULL)
		if (SSL_CTX_add0_chain_cert(ctx, x) != 1) {
			X509_free(x);
			r = -EINVAL;
		}
	pem_close(&b);
	if (r == 0)
		ERR_clear_error(); /* the end of the file */
	if (r < 0) {
		snprintf(msg, msgsize, "--syslog-cert %s: OpenSSL refuses it (%s)", cert,
			 ssl_words(words, sizeof(words)));
		return r;
	}
	r = pem_open(&b, "--syslog-key", key, msg, msgsize);
	if (r < 0)
		return r;
	pk = PEM_read_bio_PrivateKey(b.bio, NULL, no_passphrase, NULL);
	pem_close(&b);
	if (!pk) {
		snprintf(msg, msgsize, "--syslog-key %s: holds no unencrypted PEM private key (%s)", key,
			 ssl_words(words, sizeof(words)));
		return -EINVAL;
	}
	r = SSL_CTX_use_PrivateKey(ctx, pk) == 1 && SSL_CTX_check_private_key(ctx) == 1 ? 0 : -EINVAL;
	EVP_PKEY_free(pk);
	if (r < 0) {
		snprintf(msg, msgsize, "--syslog-key %s: does not match the certificate of --syslog-cert %s (%s)", key,
			 cert, ssl_words(words, sizeof(words)));
		return r;
	}
	return 0;
}

/* A name or an address a certificate can carry: letters, digits, '-', '.', '_', ':' (IPv6). */
static bool peer_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < PL_SYSLOG_HOST_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-._:") == n;
}

/* TLS_SETTLE: TLS 1.3's handshake is over for us, not yet for the server
 * (which checks our certificate after it): until its session ticket, its
 * refusal, or SETTLE_NS, nothing is written. */
enum tls_phase { TLS_DOWN, TLS_TCP, TLS_HANDSHAKE, TLS_SETTLE, TLS_UP };

#define SETTLE_NS (300000000ull)

struct syslog_tls {
	struct syslog_transport base;
	SSL_CTX *ctx;
	SSL *ssl;
	int fd; /* -1 while down */
	enum tls_phase phase;
	uint64_t start_ns;  /* the connect began: the TCP connect and the handshake have 5 s */
	uint64_t settle_ns; /* TLS_SETTLE began */
	bool ticket;	    /* the server sent a session ticket: it took our certificate */
	char host[PL_SYSLOG_HOST_MAX];
	char port[6];
	char peer[PL_SYSLOG_HOST_MAX];
	char ca[256];			    /* the CA file, for the words */
	char name[PL_SYSLOG_HOST_MAX + 16]; /* "tls:HOST:PORT" */
	char names[160];		    /* the names the refused certificate carries (verify_cb) */
	/* the frame being written: prefix and message, in a buffer that stays put */
	size_t flen, done;
	char frame[PL_SYSLOG_MSG_MAX + 32];
};

/* A TLS 1.3 server's session ticket: it has taken the handshake, our certificate included. */
static int on_session(SSL *ssl, SSL_SESSION *sess)
{
	struct syslog_tls *s = SSL_get_app_data(ssl);

	(void)sess;
	if (s)
		s->ticket = true;
	return 0; /* not kept: the session is freed */
}

/* The SSL_CTX of tls: TLS 1.2+, the peer verified against the CA file alone. */
static int ctx_new(const struct pl_syslog_tls *tls, SSL_CTX **ret, char *msg, size_t msgsize)
{
	SSL_CTX *ctx;
	int r;

	if (!tls->ca || !tls->ca[0]) {
		snprintf(msg, msgsize,
			 "a TLS target needs --syslog-ca FILE: the CA that signs the collector's certificate");
		return -EINVAL;
	}
	if (!tls->cert != !tls->key) {
		snprintf(msg, msgsize,
			 "--syslog-cert and --syslog-key go together (the sensor's certificate and its key)");
		return -EINVAL;
	}
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx) {
		snprintf(msg, msgsize, "out of memory");
		return -ENOMEM;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
	/* the callback is how a client hears of a ticket; nothing is resumed */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(ctx, on_session);
	r = load_ca(ctx, tls->ca, msg, msgsize);
	if (r == 0 && tls->cert)
		r = load_own(ctx, tls->cert, tls->key, msg, msgsize);
	if (r < 0) {
		SSL_CTX_free(ctx);
		return r;
	}
	*ret = ctx;
	return 0;
}

int syslog_tls__check(const struct pl_syslog_target *t, const struct pl_syslog_tls *tls, char *msg, size_t msgsize)
{
	SSL_CTX *ctx = NULL;
	int r;

	if (t->kind == PL_SYSLOG_OFF)
		return 0;
	if (!syslog_kind__tls(t->kind)) {
		if (tls->ca || tls->cert || tls->key || tls->peer) {
			snprintf(msg, msgsize,
				 "--syslog-ca, --syslog-cert, --syslog-key and --syslog-peer are for a tls: or "
				 "relp+tls: target, and --syslog sends in clear");
			return -EINVAL;
		}
		return 0;
	}
	if (tls->peer && !peer_valid(tls->peer)) {
		snprintf(msg, msgsize, "--syslog-peer '%.64s': not a host name or an address", tls->peer);
		return -EINVAL;
	}
	r = ctx_new(tls, &ctx, msg, msgsize);
	SSL_CTX_free(ctx);
	return r;
}

/* ---- the transport ---- */

static void tls_disconnect(struct syslog_tls *s)
{
	if (s->ssl) {
		if (s->phase == TLS_UP)
			SSL_shutdown(s->ssl); /* close_notify, best effort: the socket is nonblocking */
		SSL_free(s->ssl);
	}
	s->ssl = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->phase = TLS_DOWN;
	s->done = s->flen = 0;
	ERR_clear_error();
}

/* The names a certificate carries, 'a', 'b' (SubjectAltName DNS and IP; CN without them), into buf. */
static void cert_names(X509 *x, char *buf, size_t size)
{
	GENERAL_NAMES *gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; gens && i < sk_GENERAL_NAME_num(gens); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
		char one[INET6_ADDRSTRLEN + 1] = "";
		const unsigned char *p = NULL;
		int len = 0;

		if (g->type == GEN_DNS) {
			p = ASN1_STRING_get0_data(g->d.dNSName);
			len = ASN1_STRING_length(g->d.dNSName);
			snprintf(one, sizeof(one), "%.*s", len > 46 ? 46 : len, (const char *)p);
		} else if (g->type == GEN_IPADD) {
			len = ASN1_STRING_length(g->d.iPAddress);
			p = ASN1_STRING_get0_data(g->d.iPAddress);
			if ((len != 4 && len != 16) || !inet_ntop(len == 16 ? AF_INET6 : AF_INET, p, one, sizeof(one)))
				continue;
		} else {
			continue;
		}
		for (char *c = one; *c; c++)
			if (*c < 0x21 || *c > 0x7e || *c == '\'')
				*c = '?';
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s'%s'", n++ ? ", " : "", one);
	}
	GENERAL_NAMES_free(gens);
	if (n == 0) {
		char cn[64] = "";

		if (X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof(cn)) > 0) {
			for (char *c = cn; *c; c++)
				if (*c < 0x21 || *c > 0x7e || *c == '\'')
					*c = '?';
			snprintf(buf, size, "'%s' (its CN, no SubjectAltName)", cn);
		} else {
			snprintf(buf, size, "no name");
		}
	}
}

/* Keeps the names of a certificate refused for its name, for the words. */
static int verify_cb(int ok, X509_STORE_CTX *x)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx());
	struct syslog_tls *s = ssl ? SSL_get_app_data(ssl) : NULL;
	int err = X509_STORE_CTX_get_error(x);

	if (!ok && s && (err == X509_V_ERR_HOSTNAME_MISMATCH || err == X509_V_ERR_IP_ADDRESS_MISMATCH) &&
	    X509_STORE_CTX_get0_cert(x))
		cert_names(X509_STORE_CTX_get0_cert(x), s->names, sizeof(s->names));
	return ok;
}

static int tls_connect(struct syslog_transport *t, char *why, size_t whysize)
{
	struct syslog_tls *s = (struct syslog_tls *)t;
	int r;

	tls_disconnect(s);
	r = syslog_inet__dial(s->host, s->port, SOCK_STREAM, s->name, &s->fd, why, whysize);
	if (r < 0 && r != -EINPROGRESS)
		return r;
	s->phase = r == -EINPROGRESS ? TLS_TCP : TLS_HANDSHAKE;
	s->start_ns = mono_ns();
	s->ticket = false;
	snprintf(why, whysize, "connecting to %s", s->name);
	return -EINPROGRESS; /* the handshake is send()'s */
}

/* The words for a handshake that failed (ret, err: SSL_connect's). */
static void handshake_why(struct syslog_tls *s, int ret, int err, char *why, size_t whysize)
{
	long v = SSL_get_verify_result(s->ssl);
	char words[200];

	switch (v) {
	case X509_V_OK:
		break;
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_CERT_SIGNATURE_FAILURE:
		snprintf(why, whysize,
			 "%s: the server's certificate is not signed by CA %s (OpenSSL: certificate verify failed: %s)",
			 s->name, s->ca, X509_verify_cert_error_string(v));
		return;
	case X509_V_ERR_HOSTNAME_MISMATCH:
	case X509_V_ERR_IP_ADDRESS_MISMATCH:
		snprintf(why, whysize, "%s: the server's certificate names %s, not '%s' (OpenSSL: %s)", s->name,
			 s->names[0] ? s->names : "another host", s->peer, X509_verify_cert_error_string(v));
		return;
	default:
		snprintf(why, whysize,
			 "%s: the server's certificate is refused (OpenSSL: certificate verify failed: %s)", s->name,
			 X509_verify_cert_error_string(v));
		return;
	}
	if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
		snprintf(why, whysize, "%s: the server closed the connection in the TLS handshake (%s)", s->name,
			 ret == 0 || errno == 0 ? "end of file" : strerror(errno));
	else
		snprintf(why, whysize, "%s: the TLS handshake failed (OpenSSL: %s)", s->name,
			 ssl_words(words, sizeof(words)));
}

/* TLS 1.3, our handshake done: the server's ticket (up), its refusal, or SETTLE_NS of silence (up). */
static int tls_settle(struct syslog_tls *s, char *why, size_t whysize)
{
	char junk[256], words[200];
	int r, err;

	for (;;) {
		ERR_clear_error();
		errno = 0;
		r = SSL_read(s->ssl, junk, sizeof(junk));
		if (r > 0)
			continue; /* data from a syslog server: ignored */
		err = SSL_get_error(s->ssl, r);
		if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
			break;
		if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
			snprintf(words, sizeof(words), "it closed the connection");
		else
			ssl_words(words, sizeof(words));
		snprintf(why, whysize, "%s: the server ended the session after the TLS handshake: %s (OpenSSL: %s)",
			 s->name,
			 SSL_get_certificate(s->ssl) ? "it refuses our certificate"
						     : "it wants our certificate (--syslog-cert, --syslog-key)",
			 words);
		tls_disconnect(s);
		return -ECONNREFUSED;
	}
	if (!s->ticket && mono_ns() - s->settle_ns < SETTLE_NS) {
		snprintf(why, whysize, "%s: TLS handshake under way (the server's answer to it)", s->name);
		return -EAGAIN;
	}
	s->phase = TLS_UP;
	why[0] = '\0';
	return 0;
}

/* Drive the TCP connect and the handshake: 0 up, -EAGAIN not yet, -errno failed (closed). */
static int tls_progress(struct syslog_tls *s, char *why, size_t whysize)
{
	int r, err;

	if (s->phase == TLS_SETTLE)
		return tls_settle(s, why, whysize);
	if (s->phase == TLS_TCP) {
		r = syslog_inet__connect_done(s->fd, s->start_ns, s->name, why, whysize);
		if (r == -EAGAIN)
			return r;
		if (r < 0) {
			tls_disconnect(s);
			return r;
		}
		s->phase = TLS_HANDSHAKE;
	}
	if (!s->ssl) {
		s->ssl = SSL_new(s->ctx);
		if (!s->ssl || SSL_set_fd(s->ssl, s->fd) != 1) {
			snprintf(why, whysize, "%s: cannot make a TLS session: out of memory", s->name);
			tls_disconnect(s);
			return -ENOMEM;
		}
		SSL_set_app_data(s->ssl, s);
		SSL_set_verify(s->ssl, SSL_VERIFY_PEER, verify_cb);
		s->names[0] = '\0';
		/* an address is checked as one (and is no SNI, RFC 6066); a name as a host name */
		if (strchr(s->peer, ':') || strspn(s->peer, "0123456789.") == strlen(s->peer)) {
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s->ssl), s->peer);
		} else {
			SSL_set1_host(s->ssl, s->peer);
			SSL_set_tlsext_host_name(s->ssl, s->peer);
		}
	}
	ERR_clear_error();
	errno = 0;
	r = SSL_connect(s->ssl);
	if (r == 1) {
		if (SSL_version(s->ssl) == TLS1_3_VERSION) {
			s->phase = TLS_SETTLE;
			s->settle_ns = mono_ns();
			return tls_settle(s, why, whysize);
		}
		s->phase = TLS_UP;
		why[0] = '\0';
		return 0;
	}
	err = SSL_get_error(s->ssl, r);
	if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
		if (mono_ns() - s->start_ns < HANDSHAKE_TIMEOUT_NS) {
			snprintf(why, whysize, "%s: TLS handshake under way", s->name);
			return -EAGAIN;
		}
		snprintf(why, whysize, "%s: the server did not finish the TLS handshake within 5 s", s->name);
		tls_disconnect(s);
		return -ETIMEDOUT;
	}
	handshake_why(s, r, err, why, whysize);
	r = SSL_get_verify_result(s->ssl) != X509_V_OK ? -ECONNREFUSED : -EPROTO;
	tls_disconnect(s);
	return r;
}

/* Has the server closed the session (close_notify, FIN, an alert)? What it sent is read and ignored. */
static bool tls_peer_closed(struct syslog_tls *s)
{
	struct pollfd p = {.fd = s->fd, .events = POLLIN | POLLRDHUP};
	char junk[256];

	if (poll(&p, 1, 0) != 1)
		return false;
	if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
		return true;
	for (;;) {
		int r = SSL_read(s->ssl, junk, sizeof(junk)), err;

		if (r > 0)
			continue; /* a TLS 1.3 session ticket is no data; data from a server is ignored */
		err = SSL_get_error(s->ssl, r);
		ERR_clear_error();
		return err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE;
	}
}

static int tls_send(struct syslog_transport *t, const char *msg, size_t len, char *why, size_t whysize)
{
	struct syslog_tls *s = (struct syslog_tls *)t;
	char words[200];

	if (s->phase == TLS_DOWN) {
		snprintf(why, whysize, "not connected to %s", s->name);
		return -ENOTCONN;
	}
	if (s->phase != TLS_UP) {
		int r = tls_progress(s, why, whysize);

		if (r < 0)
			return r;
	}
	if (s->done == 0) {
		size_t plen;

		if (tls_peer_closed(s)) {
			snprintf(why, whysize, "%s closed the TLS session", s->name);
			tls_disconnect(s);
			return -ECONNRESET;
		}
		if (len > PL_SYSLOG_MSG_MAX + 1)
			len = PL_SYSLOG_MSG_MAX + 1; /* never: the formatter cuts at PL_SYSLOG_MSG_MAX */
		plen = syslog_frame__octet_prefix(s->frame, sizeof(s->frame), len);
		memcpy(s->frame + plen, msg, len);
		s->flen = plen + len;
	}
	while (s->done < s->flen) {
		int w, err;

		ERR_clear_error();
		errno = 0;
		w = SSL_write(s->ssl, s->frame + s->done, (int)(s->flen - s->done));
		if (w > 0) {
			s->done += (size_t)w;
			continue;
		}
		err = SSL_get_error(s->ssl, w);
		if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
			snprintf(why, whysize, "%s is not keeping up (the connection's buffer is full)", s->name);
			return -EAGAIN;
		}
		if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
			snprintf(why, whysize, "%s closed the connection (send: %s)", s->name,
				 strerror(errno ? errno : EPIPE));
		else
			snprintf(why, whysize, "%s: the TLS session broke (OpenSSL: %s)", s->name,
				 ssl_words(words, sizeof(words)));
		tls_disconnect(s);
		return -ECONNRESET;
	}
	s->done = s->flen = 0;
	return 0;
}

static void tls_close(struct syslog_transport *t, int timeout_ms)
{
	(void)timeout_ms;
	tls_disconnect((struct syslog_tls *)t);
}

static void tls_free(struct syslog_transport *t)
{
	struct syslog_tls *s = (struct syslog_tls *)t;

	tls_disconnect(s);
	SSL_CTX_free(s->ctx);
	free(s);
}

static const struct syslog_transport_ops tls_ops = {
    .connect = tls_connect,
    .send = tls_send,
    .close = tls_close,
    .free = tls_free,
};

int syslog_tls__new(const struct pl_syslog_target *t, const struct pl_syslog_tls *tls, struct syslog_transport **ret)
{
	_cleanup_free_ struct syslog_tls *s = NULL;
	char msg[256];
	int r;

	if (t->kind != PL_SYSLOG_TLS)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = ctx_new(tls, &s->ctx, msg, sizeof(msg));
	if (r < 0)
		return r;
	s->base.ops = &tls_ops;
	s->fd = -1;
	snprintf(s->host, sizeof(s->host), "%s", t->host);
	snprintf(s->port, sizeof(s->port), "%s", t->port);
	snprintf(s->peer, sizeof(s->peer), "%s", tls->peer ? tls->peer : t->host);
	snprintf(s->ca, sizeof(s->ca), "%s", tls->ca);
	snprintf(s->name, sizeof(s->name), strchr(t->host, ':') ? "tls:[%s]:%s" : "tls:%s:%s", t->host, t->port);
	*ret = &TAKE_PTR(s)->base;
	return 0;
}
