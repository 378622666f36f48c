/* SPDX-License-Identifier: MIT */
/*
 * syslog_out.h - alerts (and other records) to syslog, as RFC 5424: where
 * (the target), in which words (the format), over what (the transport), and
 * what waits meanwhile (the buffer), kept apart.
 *
 * The target is parsed in one place, syslog_target__parse(), from the
 * --syslog TARGET text: unix:PATH (a local datagram socket, /dev/log by
 * default), tcp:HOST:PORT (octet-counted framing, RFC 6587), udp:HOST:PORT
 * (one datagram a message, RFC 5426), relp:HOST:PORT (librelp: the collector
 * acknowledges each message), tls:HOST:PORT (RFC 5425: tcp:'s framing inside
 * TLS, syslog_tls.c), relp+tls:HOST:PORT (RELP inside librelp's TLS) or off.
 * Every target carries the same RFC 5424 message (syslog_format__5424()). The
 * TLS targets take their files and the peer's name from struct pl_syslog_tls,
 * checked by syslog_tls__check() before anything starts.
 *
 * Messages wait in a bounded in-order buffer while the target cannot take
 * them (down, connecting, or its socket full), and leave it in order once it
 * can. When the buffer is full the newest message is refused: output__write()
 * fails with -ENOBUFS, the loss is counted in `dropped` and reported as an
 * output.h episode. The caller never waits on the target: one sender thread
 * per output connects and sends (syslog_sender.h), and every failure waits
 * a backoff of 1 s, doubling to 30 s, before the next attempt. A target that
 * stops taking messages (a failed connect, a lost connection, a stall) is an
 * outage, reported at its start and at its end (output.h's PL_OUTPUT_DOWN
 * and PL_OUTPUT_UP) when the caller's loop calls output__flush().
 */
#ifndef PL_SYSLOG_OUT_H
#define PL_SYSLOG_OUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

#define PL_SYSLOG_PATH_MAX     108   /* sizeof(sockaddr_un.sun_path), NUL included */
#define PL_SYSLOG_HOST_MAX     256   /* a DNS name (253) or an address, NUL included */
#define PL_SYSLOG_MSG_MAX      8192  /* bytes of one message, header included; longer ones are cut */
#define PL_SYSLOG_PEN	       32473 /* RFC 5612's enterprise number for documentation (docs/outputs.md) */
#define PL_SYSLOG_SD_ID	       "plumbline@32473"
#define PL_SYSLOG_BUFFER_BYTES (4u << 20) /* default bound of the buffer, in message bytes */
#define PL_SYSLOG_BUFFER_MSGS  10000u	  /* and in messages */
#define PL_SYSLOG_STOP_GRACE_MS 5000	  /* at stop, past the drain's time: one transport call in flight */

enum pl_syslog_kind {
	PL_SYSLOG_OFF = 0,  /* no syslog output */
	PL_SYSLOG_UNIX,	    /* datagrams to a local socket (unix:PATH) */
	PL_SYSLOG_TCP,	    /* octet-counted frames over TCP (tcp:HOST:PORT) */
	PL_SYSLOG_UDP,	    /* one datagram a message (udp:HOST:PORT) */
	PL_SYSLOG_RELP,	    /* RELP, acknowledged (relp:HOST:PORT) */
	PL_SYSLOG_TLS,	    /* RFC 5425: octet-counted frames over TLS (tls:HOST:PORT) */
	PL_SYSLOG_RELP_TLS, /* RELP over librelp's TLS (relp+tls:HOST:PORT) */
};

/* The target's kind is one of TLS's (it needs a struct pl_syslog_tls with a CA). */
static inline bool syslog_kind__tls(enum pl_syslog_kind k)
{
	return k == PL_SYSLOG_TLS || k == PL_SYSLOG_RELP_TLS;
}

/* What a TLS target checks and shows: file paths, as given (docs/outputs.md). */
struct pl_syslog_tls {
	const char *ca;	  /* PEM: the CA certificate(s) the collector's certificate must chain to */
	const char *cert; /* PEM: the sensor's own certificate (and its chain), NULL: none (no mutual TLS) */
	const char *key;  /* PEM: its private key, unencrypted; given with cert */
	const char *peer; /* the name the collector's certificate must carry, NULL: the target's HOST */
};

struct pl_syslog_target {
	enum pl_syslog_kind kind;
	char path[PL_SYSLOG_PATH_MAX]; /* PL_SYSLOG_UNIX: an absolute path */
	char host[PL_SYSLOG_HOST_MAX]; /* network kinds: a name, an IPv4 or an IPv6 address (no brackets) */
	char port[6];		       /* network kinds: 1-65535, decimal */
};

/*
 * Parse a --syslog TARGET: "unix:PATH" (PATH absolute, shorter than
 * PL_SYSLOG_PATH_MAX), "tcp:HOST:PORT", "udp:HOST:PORT", "relp:HOST:PORT",
 * "tls:HOST:PORT", "relp+tls:HOST:PORT" (HOST a name, an IPv4 address or an IPv6 address in brackets, PORT
 * 1-65535) or "off". Returns 0 and *ret, or -EINVAL with what is wrong in
 * msg (*ret untouched).
 */
int syslog_target__parse(const char *spec, struct pl_syslog_target *ret, char *msg, size_t msgsize);

/* The target as --syslog takes it ("unix:/dev/log", "tcp:[::1]:514", "off"), into buf. */
void syslog_target__format(const struct pl_syslog_target *t, char *buf, size_t size);

/*
 * Check what a TLS target t will use, as the transport will (syslog_tls.c),
 * before anything starts: a CA file is given; each file is a regular,
 * readable file of at most 1 MiB; the CA file holds PEM certificates; cert
 * and key come together, cert holds a PEM certificate, key an unencrypted
 * PEM private key that matches it; peer (or t's HOST) is a name or an
 * address. Files given for a target that is not TLS are an error too (the
 * operator believes the alerts are encrypted). An `off` target checks
 * nothing. Returns 0, or -EINVAL with what is wrong, in words naming the
 * option and the file, in msg.
 */
int syslog_tls__check(const struct pl_syslog_target *t, const struct pl_syslog_tls *tls, char *msg, size_t msgsize);

/* ---- the format (syslog_fmt.c) ---- */

/* What the RFC 5424 header says besides the record itself. */
struct pl_syslog_header {
	int facility;	      /* a <syslog.h> LOG_* facility (already shifted: LOG_DAEMON is 3 << 3) */
	int64_t time_us;      /* CLOCK_REALTIME, microseconds since the epoch */
	int utc_off_min;      /* the local offset from UTC, minutes (the TIMESTAMP says it) */
	const char *hostname; /* NULL or invalid: "-" */
	const char *app_name; /* NULL or invalid: "-" */
	long procid;	      /* <= 0: "-" */
};

/*
 * True when name may be an RFC 5424 SD-NAME (PARAM-NAME, the name part of an
 * SD-ID): 1-32 printable US-ASCII characters (33-126) other than '=', ']'
 * and '"' (space is not printable here).
 */
bool syslog_sd_name__valid(const char *name);

/*
 * One RFC 5424 message for rec, into buf (size bytes, at most
 * PL_SYSLOG_MSG_MAX + 1 are used; NUL-terminated):
 *
 *   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [plumbline@32473 k="v" ...] MSG
 *
 * PRI is facility | severity: an alert's severity (0-7, else 4: warning),
 * another record's numeric `severity` field, 4 when it has none. MSGID is
 * the record's type with '_' written '-' ("alert", "audit-head"), "-" when
 * it is not a valid MSGID. The SD element holds every top-level string,
 * integer, double and boolean field of the record's JSON form in its
 * order (objects, arrays and nulls are left out; so are `type`, and
 * `output` for an alert), names that are not valid SD-NAMEs skipped; an
 * alert's come from the typed alert, the same values as its JSON record.
 * Values escape '"', '\' and ']' with a backslash (RFC 5424 6.3.3); a
 * control byte or a byte of invalid UTF-8 becomes \xNN, so the message is
 * valid UTF-8 on one line. MSG is an alert's `output` (likewise made safe),
 * nothing for other records (a summary's output is a parameter); no BOM.
 * Alerts are always in the native form here (alert_form is not read).
 *
 * A message longer than PL_SYSLOG_MSG_MAX is cut: MSG first, then, if the
 * SD element alone is too long, the value that crosses the limit (and the
 * parameters after it are left out), always on a UTF-8 boundary and never
 * inside an escape, the SD element still closed. Returns the length, and
 * *ret_cut (may be NULL) says whether anything was cut.
 */
size_t syslog_format__5424(char *buf, size_t size, const struct pl_syslog_header *h, const struct pl_record *rec,
			   bool *ret_cut);

/*
 * RFC 6587 octet counting: the "LEN " that goes before a message of len
 * bytes on a stream, into buf (at least 12 bytes). Returns its length.
 */
size_t syslog_frame__octet_prefix(char *buf, size_t size, size_t len);

/* ---- the backend (syslog_out.c) ---- */

struct pl_syslog_opts {
	const char *app_name; /* APP-NAME, "plumbline" */
	int facility;	      /* LOG_DAEMON */
	size_t buffer_bytes;  /* 0: PL_SYSLOG_BUFFER_BYTES */
	size_t buffer_msgs;   /* 0: PL_SYSLOG_BUFFER_MSGS */
	struct pl_syslog_tls tls; /* a TLS target's files and peer (syslog_tls__check() passed) */
	const char *hostname; /* HOSTNAME (--host-name); NULL: gethostname() */
};

enum pl_syslog_state {
	PL_SYSLOG_DISCONNECTED = 0, /* not connected; the next attempt after the backoff */
	PL_SYSLOG_CONNECTING,	    /* a nonblocking connect under way */
	PL_SYSLOG_CONNECTED,
};

struct pl_syslog_stats {
	uint64_t sent;		     /* messages delivered (see docs/outputs.md for what that means per transport) */
	uint64_t queued;	     /* messages waiting in the buffer now */
	uint64_t queued_bytes;	     /* their bytes */
	uint64_t dropped_overflow;   /* refused: the buffer was full */
	uint64_t dropped_unsendable; /* the target refused the message itself (too long for a datagram) */
	uint64_t dropped_at_exit;    /* still in the buffer when the sensor stopped */
	uint64_t cut;		     /* messages cut to PL_SYSLOG_MSG_MAX */
	uint64_t connects;	     /* connections made, the first one included */
	uint64_t reconnects;	     /* connections made after one was lost or failed */
	uint64_t connect_failures;   /* attempts that failed */
	uint64_t stalls;	     /* connections that took nothing for 1.5 s while messages waited */
	uint64_t outages;	     /* times the target stopped taking messages (failed, lost or stalled) */
	enum pl_syslog_state state;
	char why[384]; /* why the target is not connected, "" when it is */
};

/* "connected", "connecting", "disconnected". */
static inline const char *syslog_state__name(enum pl_syslog_state s)
{
	return s == PL_SYSLOG_CONNECTED ? "connected" : s == PL_SYSLOG_CONNECTING ? "connecting" : "disconnected";
}

/*
 * Records to the syslog target t (not `off`), as RFC 5424 messages. Returns 0
 * and *ret, -EINVAL for an `off` target or a TLS target whose files do not
 * pass syslog_tls__check() (read here, once: a TLS target's connections use
 * what was read now), or -ENOMEM (*ret untouched).
 * Nothing is sent before syslog_output__start(): records written until then
 * wait in the buffer. output__write() only formats and buffers a record;
 * output__flush() reports what the sender thread learnt (an outage's edges,
 * messages it dropped): call it every tick and when
 * syslog_output__event_fd() is readable.
 */
int syslog_output__open(const struct pl_syslog_target *t, const struct pl_syslog_opts *opts, struct pl_output **ret);

/*
 * Start the sender thread; its first act is a connect. Capabilities are per
 * thread: start it after the process has dropped its privileges, so the
 * thread has no more than the loop. 0 or -errno.
 */
int syslog_output__start(struct pl_output *o);

/* An eventfd, readable when the sender has news for output__flush(). Owned by o. */
int syslog_output__event_fd(const struct pl_output *o);

/* The counters of o, a syslog output. */
void syslog_output__stats(const struct pl_output *o, struct pl_syslog_stats *ret);

/*
 * Before stopping: the sender delivers what waits, for at most timeout_ms,
 * and closes the connection (RELP: waits for the acknowledgements of what
 * was sent, within the same time); this waits for that at most timeout_ms +
 * PL_SYSLOG_STOP_GRACE_MS. What is still in the buffer then is lost:
 * counted in `dropped` and in dropped_at_exit, and so is every record
 * written afterwards (-ESHUTDOWN). Returns how many were lost; *ret_stuck
 * (may be NULL) says the thread was still in a transport call at the
 * deadline and is left to the process's exit.
 */
uint64_t syslog_output__drain(struct pl_output *o, int timeout_ms, bool *ret_stuck);

#endif
