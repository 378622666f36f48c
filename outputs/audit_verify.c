// SPDX-License-Identifier: MIT
/*
 * audit_verify.c - check an audit log's chain, and read chain heads.
 *
 * Lines are read one ahead: whether a bad line is a crash's torn line
 * depends on the line after it (a `resumed` line naming it), and whether a
 * seq that skips is a removal or a reordering depends on the seq after it.
 * Every line is bounded (PL_AUDIT_LINE_MAX); the file is untrusted input.
 */
#include "audit.h"
#include "audit_int.h"
#include "audit_key.h"

#include <errno.h>
#include <inttypes.h>
#include <openssl/crypto.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *audit_problem__name(enum audit_problem p)
{
	static const char *const names[] = {
	    [AUDIT_OK] = "intact",	     [AUDIT_MODIFIED] = "modified",   [AUDIT_REMOVED] = "removed",
	    [AUDIT_INSERTED] = "inserted",   [AUDIT_REORDERED] = "reordered", [AUDIT_BROKEN] = "chain broken",
	    [AUDIT_REWRITTEN] = "rewritten", [AUDIT_TRUNCATED] = "truncated", [AUDIT_TORN] = "torn",
	    [AUDIT_TOO_LONG] = "too long",   [AUDIT_FORGED] = "forged",	      [AUDIT_UNSEALED] = "unsealed",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* A bounded line reader over an fd. */
struct reader {
	int fd;
	char chunk[65536];
	size_t pos, fill;
	bool eof;
	bool raw;     /* heads: lines are not audit lines, don't parse them */
	uint64_t off; /* file offset (from where reading began) of the next line */
};

struct rline {
	char *buf;	/* PL_AUDIT_LINE_MAX bytes */
	size_t len;	/* bytes kept (without the '\n') */
	uint64_t total; /* bytes of the line, '\n' excluded, even those not kept */
	bool nl;	/* ended by '\n' */
	uint64_t off, no;
	bool have;
	int r; /* audit__parse_line()'s result */
	const char *why;
	struct audit_line l;
};

/* Read the next line into *l. Returns 1, 0 at EOF, or -errno. */
static int read_line(struct reader *rd, struct rline *l, uint64_t no)
{
	l->len = 0;
	l->total = 0;
	l->nl = false;
	l->off = rd->off;
	for (;;) {
		if (rd->pos == rd->fill) {
			ssize_t n;

			if (rd->eof)
				break;
			n = read(rd->fd, rd->chunk, sizeof(rd->chunk));
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0) {
				rd->eof = true;
				break;
			}
			rd->pos = 0;
			rd->fill = (size_t)n;
		}
		{
			char *s = rd->chunk + rd->pos, *nl = memchr(s, '\n', rd->fill - rd->pos);
			size_t take = nl ? (size_t)(nl - s) : rd->fill - rd->pos;
			size_t keep = take < PL_AUDIT_LINE_MAX - l->len ? take : PL_AUDIT_LINE_MAX - l->len;

			memcpy(l->buf + l->len, s, keep);
			l->len += keep;
			l->total += take;
			rd->pos += take + (nl ? 1 : 0);
			if (nl) {
				l->nl = true;
				break;
			}
		}
	}
	if (l->total == 0 && !l->nl)
		return 0;
	rd->off += l->total + (l->nl ? 1 : 0);
	l->no = no;
	l->have = true;
	if (rd->raw) {
		l->r = 0;
	} else if (l->total >= PL_AUDIT_LINE_MAX) {
		l->r = -E2BIG;
		l->why = "longer than any line the sensor writes";
	} else {
		l->r = audit__parse_line(l->buf, l->len, &l->l, &l->why);
		if (l->r == -ENOMEM)
			return -ENOMEM;
	}
	return 1;
}

static bool line_good(const struct rline *l)
{
	return l->have && l->nl && l->r == 0 && l->l.hash_ok;
}

/* Whether next is a `resumed` line naming cur as its torn line. */
static bool tear_named(const struct rline *cur, const struct rline *next)
{
	char sha[PL_AUDIT_HEX + 1];

	if (!line_good(next) || !next->l.names_tear || strcmp(next->l.event, "resumed") != 0 ||
	    cur->total >= PL_AUDIT_LINE_MAX)
		return false;
	if (next->l.torn_offset != cur->off || next->l.torn_bytes != cur->total)
		return false;
	audit__sha256_hex(cur->buf, cur->len, sha);
	return memcmp(sha, next->l.torn_sha, PL_AUDIT_HEX) == 0;
}

static int fail(struct audit_report *rep, enum audit_problem p, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct audit_report *rep, enum audit_problem p, uint64_t line, const char *fmt, ...)
{
	va_list ap;

	rep->problem = p;
	rep->bad_line = line;
	va_start(ap, fmt);
	vsnprintf(rep->detail, sizeof(rep->detail), fmt, ap);
	va_end(ap);
	return 0;
}

static int cmp_head(const void *a, const void *b)
{
	const struct audit_head *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort by seq and drop repeats of one head (sent to several outputs, or
 * read twice); a repeat keeps the latest time. Returns how many are left. */
static size_t sort_heads(struct audit_head *hs, size_t n)
{
	size_t k = 0;

	qsort(hs, n, sizeof(*hs), cmp_head);
	for (size_t i = 0; i < n; i++) {
		if (k && hs[k - 1].seq == hs[i].seq && strcmp(hs[k - 1].hash, hs[i].hash) == 0) {
			if (hs[i].time_ns > hs[k - 1].time_ns)
				hs[k - 1].time_ns = hs[i].time_ns;
			continue;
		}
		hs[k++] = hs[i];
	}
	return k;
}

struct chain {
	uint64_t seq; /* the last good line's */
	char hash[PL_AUDIT_HEX + 1];
	char prev[PL_AUDIT_HEX + 1]; /* ... and its prev */
	uint64_t no;		     /* its line number */
};

/* The key of seq, evolved forward from the last one asked for (seqs only
 * grow along a chain that verifies so far). */
struct verify_key {
	uint8_t k[PL_AUDIT_KEY_LEN];
	uint64_t epoch;
};

/* Whether cur carries the MAC the seed's key of its seq gives; 0 or a fail(). */
static int judge_mac(struct audit_report *rep, struct verify_key *vk, const struct rline *cur)
{
	const struct audit_line *l = &cur->l;
	char mac[PL_AUDIT_MAC_HEX + 1];

	if (!l->keyed)
		return fail(rep, AUDIT_UNSEALED, cur->no,
			    "seq %" PRIu64 " carries no MAC: with a key every line is sealed; an unsealed line "
			    "was written without the key (forged, or the log predates the key)",
			    l->seq);
	if (l->seq < vk->epoch || l->seq - vk->epoch > PL_AUDIT_KEY_MAX_ADVANCE)
		return fail(rep, AUDIT_FORGED, cur->no, "seq %" PRIu64 " is out of the key's reach", l->seq);
	for (; vk->epoch < l->seq; vk->epoch++)
		audit_key__evolve(vk->k);
	audit_key__hmac_hex(vk->k, cur->buf, l->mac_len, mac);
	if (memcmp(mac, l->mac, PL_AUDIT_HEX) != 0)
		return fail(rep, AUDIT_FORGED, cur->no,
			    "seq %" PRIu64 ": its MAC is not the key's: the line was written or changed by someone "
			    "without the key of its seq (or the seed is another log's)",
			    l->seq);
	rep->macs_checked++;
	return 1;
}

/* Judge cur (good in itself) against the chain so far; next for context. */
static int judge(struct audit_report *rep, struct chain *c, const struct rline *cur, const struct rline *next)
{
	const struct audit_line *l = &cur->l;

	if (l->seq == c->seq + 1) {
		if (memcmp(l->prev, c->hash, PL_AUDIT_HEX) == 0)
			return 1;
		return fail(rep, AUDIT_BROKEN, cur->no,
			    "seq %" PRIu64 " follows seq %" PRIu64 ", but its prev is not line %" PRIu64
			    "'s hash: this line or the one before was replaced",
			    l->seq, c->seq, c->no);
	}
	if (l->seq > c->seq + 1) {
		bool next_between = next->have && next->r == 0 && next->l.seq > c->seq && next->l.seq < l->seq;

		if (next_between)
			return fail(rep, AUDIT_REORDERED, cur->no, "seq %" PRIu64 " comes before seq %" PRIu64, l->seq,
				    next->l.seq);
		if (c->seq == 0)
			return fail(rep, AUDIT_REMOVED, cur->no,
				    "the file starts at seq %" PRIu64 ": the %" PRIu64 " lines before it were removed",
				    l->seq, l->seq - 1);
		return fail(rep, AUDIT_REMOVED, cur->no,
			    "seq jumps from %" PRIu64 " to %" PRIu64 ": %" PRIu64 " lines before this one were removed",
			    c->seq, l->seq, l->seq - c->seq - 1);
	}
	/* seq repeats or goes back */
	if (l->seq == c->seq && c->no && memcmp(l->prev, c->prev, PL_AUDIT_HEX) == 0 &&
	    memcmp(l->hash, c->hash, PL_AUDIT_HEX) != 0)
		return fail(rep, AUDIT_INSERTED, c->no,
			    "line %" PRIu64 " carries the same seq %" PRIu64
			    " and chains to the same line: this one was inserted",
			    cur->no, l->seq);
	return fail(rep, AUDIT_INSERTED, cur->no,
		    "seq %" PRIu64 " after seq %" PRIu64 ": this line does not belong here", l->seq, c->seq);
}

int audit_verify(int fd, const struct audit_head *heads, size_t nheads, const uint8_t *seed,
		 struct audit_report *rep)
{
	struct verify_key vk = { .epoch = 1 };
	struct reader *rd = calloc(1, sizeof(*rd));
	struct rline a = {0}, b = {0}, *cur = &a, *next = &b;
	struct audit_head *hs = NULL;
	struct chain c = {.seq = 0, .hash = PL_AUDIT_GENESIS};
	size_t hi = 0;
	uint64_t no = 0;
	int r = 0;

	memset(rep, 0, sizeof(*rep));
	rep->key_given = seed != NULL;
	if (seed)
		memcpy(vk.k, seed, sizeof(vk.k));
	memcpy(rep->head, PL_AUDIT_GENESIS, sizeof(rep->head));
	a.buf = malloc(PL_AUDIT_LINE_MAX);
	b.buf = malloc(PL_AUDIT_LINE_MAX);
	if (nheads)
		hs = malloc(nheads * sizeof(*hs));
	if (!rd || !a.buf || !b.buf || (nheads && !hs)) {
		r = -ENOMEM;
		goto out;
	}
	if (nheads) {
		memcpy(hs, heads, nheads * sizeof(*hs));
		nheads = sort_heads(hs, nheads);
		rep->heads = nheads;
		rep->last_head_seq = hs[nheads - 1].seq;
		rep->last_head_time_ns = hs[nheads - 1].time_ns;
	}
	rd->fd = fd;
	r = read_line(rd, cur, ++no);
	while (r > 0) {
		struct rline *t;

		rep->lines++;
		next->have = false;
		r = read_line(rd, next, no + 1);
		if (r < 0)
			break;
		if (r > 0)
			no++;
		if (!line_good(cur)) {
			if (tear_named(cur, next)) {
				rep->tears++;
			} else if (!cur->nl) {
				fail(rep, AUDIT_TORN, cur->no,
				     "the last line has no newline (%" PRIu64 " bytes): the writer stopped mid-line; "
				     "the chain before it is intact",
				     cur->total);
				break;
			} else if (cur->r == -E2BIG) {
				fail(rep, AUDIT_TOO_LONG, cur->no, "%s (%" PRIu64 " bytes)", cur->why, cur->total);
				break;
			} else if (cur->r < 0) {
				fail(rep, AUDIT_MODIFIED, cur->no, "%s", cur->why);
				break;
			} else {
				fail(rep, AUDIT_MODIFIED, cur->no, "seq %" PRIu64 ": its bytes do not hash to its hash",
				     cur->l.seq);
				break;
			}
		} else {
			if (judge(rep, &c, cur, next) == 0 || (seed && judge_mac(rep, &vk, cur) == 0))
				break;
			if (cur->l.keyed)
				rep->keyed++;
			while (hi < nheads && hs[hi].seq < cur->l.seq)
				hi++; /* a head of a seq not in the file (0, or torn away) is judged at the end */
			for (; hi < nheads && hs[hi].seq == cur->l.seq; hi++) {
				if (memcmp(hs[hi].hash, cur->l.hash, PL_AUDIT_HEX) != 0) {
					fail(rep, AUDIT_REWRITTEN, cur->no,
					     "seq %" PRIu64 " is not the line whose hash was sent off-host (%.16s...): "
					     "the file was rewritten",
					     cur->l.seq, hs[hi].hash);
					break;
				}
				rep->heads_checked++;
			}
			if (rep->problem)
				break;
			if (!rep->entries++) {
				rep->first_seq = cur->l.seq;
				rep->first_time_ns = cur->l.time_ns;
			}
			rep->last_seq = cur->l.seq;
			rep->last_time_ns = cur->l.time_ns;
			memcpy(rep->head, cur->l.hash, sizeof(rep->head));
			memcpy(c.prev, cur->l.prev, sizeof(c.prev));
			memcpy(c.hash, cur->l.hash, sizeof(c.hash));
			c.seq = cur->l.seq;
			c.no = cur->no;
		}
		if (r == 0)
			break;
		t = cur;
		cur = next;
		next = t;
		r = 1;
	}
	if (r < 0)
		goto out;
	r = 0;
	if (rep->problem)
		goto out;
	for (size_t i = 0; i < nheads; i++)
		if (hs[i].seq > c.seq) {
			fail(rep, AUDIT_TRUNCATED, rep->lines + 1,
			     "the file ends at seq %" PRIu64 " but the head of seq %" PRIu64
			     " was sent off-host (and %zu heads after it, the last seq %" PRIu64 "): seq %" PRIu64
			     "..%" PRIu64 " at least are missing: cut off after line %" PRIu64,
			     c.seq, hs[i].seq, nheads - 1 - i, hs[nheads - 1].seq, c.seq + 1, hs[nheads - 1].seq,
			     rep->lines);
			break;
		}
out:
	OPENSSL_cleanse(vk.k, sizeof(vk.k));
	free(hs);
	free(a.buf);
	free(b.buf);
	free(rd);
	return r;
}

/* ---- heads ---- */

#define HEADS_MAX      (16u << 20)

int audit_heads__read(int fd, struct audit_head **ret, size_t *ret_n, size_t *ret_skipped)
{
	struct reader *rd = calloc(1, sizeof(*rd));
	struct rline l = {0};
	struct audit_head *hs = NULL;
	size_t n = 0, cap = 0, skipped = 0;
	int r;

	l.buf = malloc(PL_AUDIT_LINE_MAX + 1); /* read_line() keeps at most PL_AUDIT_LINE_MAX: room for a NUL */
	if (!rd || !l.buf) {
		free(rd);
		free(l.buf);
		return -ENOMEM;
	}
	rd->fd = fd;
	rd->raw = true;
	while ((r = read_line(rd, &l, 0)) > 0) {
		struct audit_head h;

		l.buf[l.len] = '\0';
		if (l.total > PL_AUDIT_HEAD_LINE_MAX || memchr(l.buf, '\0', l.len) ||
		    (r = audit_head__parse(l.buf, l.len, &h)) == 0) {
			skipped++;
			continue;
		}
		if (r < 0)
			break;
		if (n == HEADS_MAX) {
			r = -E2BIG;
			break;
		}
		if (n == cap) {
			struct audit_head *nh = realloc(hs, (cap ? cap * 2 : 64) * sizeof(*nh));

			if (!nh) {
				r = -ENOMEM;
				break;
			}
			hs = nh;
			cap = cap ? cap * 2 : 64;
		}
		hs[n++] = h;
	}
	free(l.buf);
	free(rd);
	if (r < 0) {
		free(hs);
		return r;
	}
	*ret = hs;
	*ret_n = n;
	*ret_skipped = skipped;
	return 0;
}
