/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - Prometheus text exposition (format 0.0.4) and the small HTTP
 * server that serves it (Debian's libmicrohttpd).
 *
 * Two halves, both kernel-free:
 *
 *   - a renderer: families (`# HELP`, `# TYPE`) and their samples are
 *     appended to a text buffer, with names checked and label values and
 *     help text escaped as the format says, so that a rule name holding a
 *     quote, a backslash or a newline cannot break the exposition;
 *   - a server: it serves the last text published at /metrics, followed by
 *     the few families a callback renders at the scrape itself (GET and
 *     HEAD only, 404 elsewhere, 405 for other methods), from
 *     libmicrohttpd's own thread. The caller publishes a new text (once per
 *     tick); the server keeps its own copy under a mutex, so a scrape never
 *     reads the caller's state. Bounded: at most METRICS_MAX_CONNS
 *     connections, each closed after METRICS_TIMEOUT_S idle seconds; a
 *     request head (request line and headers) must be complete within
 *     METRICS_HEAD_DEADLINE_S of accept (a kept-alive connection's next one
 *     within METRICS_TIMEOUT_S + 1 of the previous request's end), however
 *     slowly it trickles, and a connection beyond the bound cuts
 *     the oldest one whose head is incomplete, so that slow peers cannot
 *     hold every slot (slowloris).
 *
 * The library never prints; errors are returned (with a message where the
 * errno cannot say it all).
 */
#ifndef PL_METRICS_H
#define PL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum pl_metric_type { PL_METRIC_COUNTER, PL_METRIC_GAUGE };

struct pl_label {
	const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" */
	const char *value; /* any bytes: escaped; invalid UTF-8 becomes U+FFFD */
};

/* A growing text buffer of families and samples. */
struct pl_expo {
	char *buf;
	size_t len, cap;
	int err;	  /* the first error (-ENOMEM, -EINVAL), sticky; the text is unusable then */
	char family[128]; /* the family open for samples */
};

/* Start a family: `# HELP name help` and `# TYPE name type`. A counter's
 * name must end in "_total". Later samples belong to it. Returns 0 or
 * -EINVAL (a bad name) / -ENOMEM; the error sticks in e->err. */
int expo__family(struct pl_expo *e, const char *name, enum pl_metric_type type, const char *help);

/* A sample of the open family, with n labels (n may be 0). */
int expo__u64(struct pl_expo *e, const struct pl_label *labels, size_t n, uint64_t v);
int expo__double(struct pl_expo *e, const struct pl_label *labels, size_t n, double v);

/* The text (NUL-terminated), or NULL after an error. */
const char *expo__text(const struct pl_expo *e);
void expo__free(struct pl_expo *e);

/* Whether s is a valid metric name / label name. */
bool expo__metric_name_ok(const char *s);
bool expo__label_name_ok(const char *s);

/* Append v to e escaped as a label value ("\\", "\"", "\n"; invalid UTF-8
 * replaced by U+FFFD). For the tests, and the renderer. */
int expo__escape_label(struct pl_expo *e, const char *v);

/* ---- the address ---- */

struct metrics_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	bool loopback; /* 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104 */
};

/*
 * Parse "ADDR:PORT": a numeric IPv4 address, or an IPv6 one in brackets
 * ("[::1]:9464"); PORT 1-65535. Returns 0 and *ret, or -EINVAL with the
 * reason in err.
 */
int metrics_addr__parse(const char *s, struct metrics_addr *ret, char *err, size_t errlen);

/* ---- the server ---- */

#define METRICS_MAX_CONNS 8
#define METRICS_TIMEOUT_S 10
#define METRICS_HEAD_DEADLINE_S 3
#define METRICS_MAX_TEXT  (4u << 20) /* a published text beyond this is refused */

struct metrics_server;

/*
 * Bind and listen on a (SO_REUSEADDR; the fd CLOEXEC) and start serving
 * from libmicrohttpd's thread. Until the first publish, /metrics answers
 * 503. Returns 0 and *ret, or -errno (-EADDRINUSE, -EACCES,
 * -EADDRNOTAVAIL, ...; -EIO when libmicrohttpd would not start).
 */
int metrics_server__start(const struct metrics_addr *a, struct metrics_server **ret);

/*
 * Families rendered at each scrape, after the published text, by fn(e, ctx)
 * in the server's thread: only for what is exact at the moment of the
 * scrape and safe to read from any thread (the process's own CPU time and
 * resident memory), never the caller's state. Set before the first
 * publish; NULL: none.
 */
typedef void (*metrics_live_fn)(struct pl_expo *e, void *ctx);
void metrics_server__set_live(struct metrics_server *s, metrics_live_fn fn, void *ctx);

/* Serve text (len bytes, copied) from now on. 0, -ENOMEM or -EFBIG. */
int metrics_server__publish(struct metrics_server *s, const char *text, size_t len);

/* Scrapes answered with 200 so far. */
uint64_t metrics_server__scrapes(struct metrics_server *s);

/* Connections cut before their request head was complete. */
struct metrics_cut_stats {
	uint64_t deadline; /* the head was not complete within METRICS_HEAD_DEADLINE_S */
	uint64_t evicted;  /* cut for a newcomer when all slots were taken */
};
struct metrics_cut_stats metrics_server__cuts(struct metrics_server *s);

/* Stop the threads, close the socket, free. NULL-safe. */
void metrics_server__free(struct metrics_server *s);

#endif
