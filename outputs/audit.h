/* SPDX-License-Identifier: MIT */
/*
 * audit.h - the tamper-evident audit log: append-only, hash-chained JSON
 * Lines (docs/outputs.md, "Audit log", has the format byte for byte).
 *
 * Every line is
 *
 *   {"type":"audit","seq":N,"time_ns":T,"event":"E","record":{...},"prev":"P","hash":"H"}\n
 *
 * where P is the previous line's H (64 '0's before the first line) and H is
 * the lowercase hex SHA-256 of the line's bytes from its '{' up to, not
 * including, the `,"hash":"` that starts its fixed 75-byte tail. Hashing the
 * bytes as written, not a re-serialisation, leaves nothing for a verifier to
 * interpret: `prev` is inside the hashed bytes, so each line seals the one
 * before it.
 *
 * The log is a struct pl_output: output__write(o, rec) appends one line
 * with event = the record's type (pl_record__type()) and the record's
 * native JSON, whole, as "record" (an alert, or the sensor's own records:
 * start, stop, rules, ...). Each line is
 * written by one write(2) loop and fdatasync()ed; a failed write is rolled
 * back with ftruncate(), so a full disk costs lines (counted, and said in
 * an `audit_lost` line once writing works again), never the chain. The
 * module never prints.
 */
#ifndef PL_AUDIT_H
#define PL_AUDIT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"
#include "sensor_event.h"

#define PL_AUDIT_HEX	   64	      /* a SHA-256 in lowercase hex */
#define PL_AUDIT_LINE_MAX  (1u << 20) /* longest line written or read, '\n' included */
#define PL_AUDIT_EVENT_MAX 32	      /* longest event name: [a-z0-9_]{1,32} */
#define PL_AUDIT_GENESIS   "0000000000000000000000000000000000000000000000000000000000000000"

/* What audit_log__open() found in an existing file. */
struct audit_resume {
	uint64_t seq;		     /* the last intact line's seq; 0: a new or empty file */
	char hash[PL_AUDIT_HEX + 1]; /* its hash, or PL_AUDIT_GENESIS */
	uint64_t torn_offset;	     /* where a torn last line starts (bytes after the last '\n') */
	uint64_t torn_bytes;	     /* its length; 0: no torn line */
	uint64_t key_epoch;	     /* with a key: the epoch the key file held (0: no key) */
	uint64_t seq_gap;	     /* with a key ahead of the file: seqs skipped to meet it */
	bool key_error;		     /* the error is the key file's (audit_key__open()) */
};

/*
 * Open path for appending (created 0600 when missing), and take an
 * exclusive flock(2) on it for as long as it is open. Like the JSON output,
 * only a regular file is taken: a symlink is refused with -ELOOP (never
 * followed), a directory with -EISDIR, a FIFO, device or socket with
 * -EINVAL, and the open never blocks. Another holder of the lock (a running
 * sensor) is -EBUSY.
 *
 * The chain continues from the file's last intact line. A last line cut off
 * by a crash (no '\n') is left in place and named, by offset, length and
 * SHA-256, in a `resumed` line written before the next line (*info says
 * so); a last complete line that is not a valid audit line is -EBADMSG
 * (the file is not an audit log, or its end was damaged: `audit verify`
 * says where), and nothing is written to it.
 *
 * With key_path (audit_key.h), every line is sealed with the key in that
 * file, which must seal a keyed log: a non-empty log whose last line is
 * unkeyed is -EKEYREJECTED (a key seals a log from its first line), a keyed
 * log opened without a key is -ENOKEY. A key behind the log is evolved to
 * it; a key ahead of it (its lines were cut off) continues the seqs at the
 * key's epoch, leaving the gap in the chain (info->seq_gap). A key file
 * that cannot be opened is its -errno with info->key_error set.
 *
 * Returns 0, *ret and *info (info may be NULL), or -errno with *ret
 * untouched (and only info->key_error set).
 */
int audit_log__open(const char *path, const char *key_path, struct pl_output **ret, struct audit_resume *info);

/* The chain's head: the seq and hash of the last line written (seq 0 and
 * the genesis before any). -EINVAL when o is not an audit log. */
int audit_log__head(const struct pl_output *o, uint64_t *ret_seq, char ret_hash[PL_AUDIT_HEX + 1]);

/* The `audit_head` event of the current head, for a place off this host
 * (syslog): {"type":"audit_head","time_ns":T,"seq":N,"hash":"H","file":F}
 * once formatted. time_ns: CLOCK_REALTIME; file is pointed to, not copied.
 * 0 and *ret, or -EINVAL (untouched) when o is not an audit log. */
int audit_log__head_event(const struct pl_output *o, const char *file, uint64_t time_ns,
			  struct pl_sensor_event *ret);

/* fdatasync() failures so far (the line was written, its durability is not
 * known). */
uint64_t audit_log__sync_errors(const struct pl_output *o);

/* SHA-256 of a byte string, as lowercase hex. */
void audit__sha256_hex(const void *buf, size_t len, char ret[PL_AUDIT_HEX + 1]);

/* ---- verification (audit_verify.c) ---- */

/* Chain heads sent off-host: the file must hold line `seq` with `hash`. */
struct audit_head {
	uint64_t seq;
	uint64_t time_ns; /* when it was sent (CLOCK_REALTIME); 0 when the line did not say */
	char hash[PL_AUDIT_HEX + 1];
};

#define PL_AUDIT_HEAD_LINE_MAX 65536 /* a longer line of a heads file is no head */

/*
 * The head in one line of a collector's file (s[n], without its '\n'), in
 * any of the forms a collector writes (docs/outputs.md, "Chain heads
 * off-host"): the RFC 5424 message (MSGID `audit-head`, SD-ID
 * `plumbline@32473` with seq, hash, time_ns), alone or behind a traditional
 * prefix (rsyslog's file formats, journald's short output), or escaped in
 * JSON strings (rsyslog's jsonmesg, journald's JSON), or the sensor's own
 * `audit_head` JSON record. Matched on the MSGID and SD-ID (or the record
 * type), never on a substring of the message. s is untrusted; lines over
 * PL_AUDIT_HEAD_LINE_MAX are not read. Returns 1 and *ret, 0 when the line
 * holds no head (*ret untouched), or -ENOMEM.
 */
int audit_head__parse(const char *s, size_t n, struct audit_head *ret);

enum audit_problem {
	AUDIT_OK = 0,
	AUDIT_MODIFIED,	 /* its bytes do not hash to its hash, or it is no audit line */
	AUDIT_REMOVED,	 /* its seq skips: the lines before it are missing */
	AUDIT_INSERTED,	 /* its seq repeats or goes back: it does not belong here */
	AUDIT_REORDERED, /* a later line comes before an earlier one */
	AUDIT_BROKEN,	 /* well-formed and in sequence, but its prev is not the line before's hash */
	AUDIT_REWRITTEN, /* a head names this seq with another hash */
	AUDIT_TRUNCATED, /* a head names a seq past the end: the newest lines were cut off */
	AUDIT_TORN,	 /* the last line has no '\n': the writer stopped mid-line */
	AUDIT_TOO_LONG,	 /* longer than PL_AUDIT_LINE_MAX */
	AUDIT_FORGED,	 /* (with a key) its MAC is not that of its seq's key */
	AUDIT_UNSEALED,	 /* (with a key) it carries no MAC */
};

/* "modified", "removed", ... */
const char *audit_problem__name(enum audit_problem p);

struct audit_report {
	uint64_t lines;	  /* lines read (a torn one included) */
	uint64_t entries; /* lines verified as links of the chain */
	uint64_t first_seq, last_seq;
	uint64_t first_time_ns, last_time_ns;
	char head[PL_AUDIT_HEX + 1]; /* the last verified line's hash */
	uint64_t tears;		     /* torn lines named by the `resumed` line after them */
	uint64_t heads;		     /* distinct heads given */
	uint64_t heads_checked;	     /* heads whose line was found with that hash */
	uint64_t last_head_seq;	     /* the newest head's seq (0: none given) ... */
	uint64_t last_head_time_ns;  /* ... and when it was sent (0: not known) */
	uint64_t keyed;		     /* verified lines that carry a MAC */
	uint64_t macs_checked;	     /* ... whose MAC the key confirmed (with a seed) */
	bool key_given;
	enum audit_problem problem;
	uint64_t bad_line; /* 1-based line number of the first bad line; 0 when intact */
	char detail[256];  /* what is wrong there, in words */
};

/*
 * Verify the audit log read from fd (from its current offset to EOF)
 * against heads[n] (may be NULL, 0) and, given the seed of its key
 * (PL_AUDIT_KEY_LEN bytes, audit_key.h; NULL: MACs not checked), every
 * line's MAC. The first problem ends the check.
 * Returns 0 with *ret filled (ret->problem AUDIT_OK when the chain is
 * intact), or -errno (read error, -ENOMEM) with *ret undefined.
 */
int audit_verify(int fd, const struct audit_head *heads, size_t n, const uint8_t *seed, struct audit_report *ret);

/*
 * Heads from a file of lines: each line audit_head__parse() finds a head
 * in (a collector's file, the JSON output); other lines are skipped and
 * counted in *ret_skipped; at most 16M heads. Returns 0, *ret (malloc'd,
 * caller frees; NULL when none) and *ret_n, or -errno.
 */
int audit_heads__read(int fd, struct audit_head **ret, size_t *ret_n, size_t *ret_skipped);

#endif
