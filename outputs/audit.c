// SPDX-License-Identifier: MIT
/*
 * audit.c - the audit log's writer (audit.h; the format in docs/outputs.md).
 *
 * The chain's state is two values, the last seq and hash, read back from the
 * file's last line at open, so a restart continues the chain and the file is
 * its own state. A line is built whole in memory, hashed, and handed to one
 * write(2) loop: it lands whole or is truncated away. What cannot be undone
 * (a crash mid-write, a rollback that failed) is never rewritten either: the
 * torn bytes stay where they are, closed by a '\n', and the next line, a
 * `resumed` event, names them by offset, length and SHA-256, so `verify`
 * tells a crash from an edit.
 *
 * With a key (audit_key.h) each line also carries the MAC of its bytes up
 * to its prev under the key of its seq, and the key is evolved once the
 * line is written: the key file always holds the key of the next seq.
 */
#include "audit.h"
#include "audit_int.h"
#include "audit_key.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdwrite.h"
#include "hex.h"

struct audit_log {
	struct pl_output base;
	int fd;
	uint64_t seq;
	char hash[PL_AUDIT_HEX + 1];
	off_t end;		       /* where the last line we wrote (or found intact) ends */
	bool rescan;		       /* a failed line could not be rolled back: look at the end again */
	uint64_t tear_off, tear_bytes; /* torn bytes to name in a `resumed` line, before the next line */
	char tear_sha[PL_AUDIT_HEX + 1];
	uint64_t lost; /* lines lost since the last line written */
	int lost_err;  /* the first error of those */
	uint64_t sync_errors;
	struct audit_key *key; /* NULL: an unkeyed chain */
};

static const struct pl_output_ops audit_ops;

/* The fixed tail: `,"prev":"<64>","hash":"<64>"}`; the hash covers all but its last 75 bytes. */
#define PREV_KEY    ",\"prev\":\""
#define HASH_KEY    "\",\"hash\":\""
#define TAIL_LEN    (sizeof(PREV_KEY) - 1 + PL_AUDIT_HEX + sizeof(HASH_KEY) - 1 + PL_AUDIT_HEX + 2)
#define HASHED_TAIL (sizeof(HASH_KEY) - 2 + PL_AUDIT_HEX + 2) /* `,"hash":"<64>"}` */
#define HEAD_KEY    "{\"type\":\"audit\",\"seq\":"
#define MAC_KEY	    "\",\"mac\":\""
#define MAC_PART    (sizeof(MAC_KEY) - 1 + PL_AUDIT_HEX) /* `","mac":"<64>` before HASH_KEY */

void audit__sha256_hex(const void *buf, size_t len, char ret[PL_AUDIT_HEX + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		memset(md, 0, 32); /* only on OpenSSL failure: the line then fails to verify, visibly */
	pl_hex_encode(md, 32, ret);
}

static bool is_hex64(const char *s)
{
	for (int i = 0; i < PL_AUDIT_HEX; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Digits at *p (at most 20, a uint64_t), advancing *p. */
static bool take_u64(const char **p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*ret = v;
	return true;
}

static bool take(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
		return false;
	*p += n;
	return true;
}

bool audit__event_ok(const char *s, size_t n)
{
	if (n == 0 || n > PL_AUDIT_EVENT_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* The torn line a `resumed` record names, if it names one. */
static void resumed_tear(struct json_object *rec, struct audit_line *l)
{
	struct json_object *torn, *v;

	if (!json_object_object_get_ex(rec, "torn", &torn) || !json_object_is_type(torn, json_type_object))
		return;
	if (json_object_object_get_ex(torn, "offset", &v) && json_object_is_type(v, json_type_int))
		l->torn_offset = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(torn, "bytes", &v) && json_object_is_type(v, json_type_int))
		l->torn_bytes = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(torn, "sha256", &v) && json_object_is_type(v, json_type_string) &&
	    json_object_get_string_len(v) == PL_AUDIT_HEX)
		memcpy(l->torn_sha, json_object_get_string(v), PL_AUDIT_HEX + 1);
	l->names_tear = l->torn_bytes > 0 && l->torn_sha[0];
}

int audit__parse_line(const char *buf, size_t len, struct audit_line *l, const char **why)
{
	const char *p = buf, *end = buf + len, *ev;
	struct json_tokener *tok;
	struct json_object *obj, *rec;
	char calc[PL_AUDIT_HEX + 1];
	size_t evlen;

	memset(l, 0, sizeof(*l));
	*why = "not an audit line (it does not start with "
	       "{\"type\":\"audit\",\"seq\":N,\"time_ns\":T,\"event\":\"E\",\"record\":)";
	if (len < sizeof(HEAD_KEY) + TAIL_LEN || !take(&p, end, HEAD_KEY) || !take_u64(&p, end, &l->seq) ||
	    !take(&p, end, ",\"time_ns\":") || !take_u64(&p, end, &l->time_ns) || !take(&p, end, ",\"event\":\""))
		return -EBADMSG;
	ev = p;
	while (p < end && *p != '"')
		p++;
	evlen = (size_t)(p - ev);
	if (!audit__event_ok(ev, evlen) || !take(&p, end, "\",\"record\":{"))
		return -EBADMSG;
	memcpy(l->event, ev, evlen);
	l->event[evlen] = '\0';
	*why = "not an audit line (it does not end with ,\"prev\":\"<64 hex>\",\"hash\":\"<64 hex>\"})";
	p = end - TAIL_LEN;
	if (memcmp(p, PREV_KEY, sizeof(PREV_KEY) - 1) != 0 && (size_t)(p - buf) >= MAC_PART + sizeof(HEAD_KEY)) {
		/* keyed: `,"prev":"<64>","mac":"<64>` then the hash */
		p -= MAC_PART;
		l->keyed = true;
	}
	if (p[-1] != '}' || !take(&p, end, PREV_KEY) || !is_hex64(p))
		return -EBADMSG;
	memcpy(l->prev, p, PL_AUDIT_HEX);
	p += PL_AUDIT_HEX;
	if (l->keyed) {
		l->mac_len = (size_t)(p - buf) + 1; /* through prev's closing quote */
		if (!take(&p, end, MAC_KEY) || !is_hex64(p))
			return -EBADMSG;
		memcpy(l->mac, p, PL_AUDIT_HEX);
		p += PL_AUDIT_HEX;
	}
	if (!take(&p, end, HASH_KEY) || !is_hex64(p) || memcmp(p + PL_AUDIT_HEX, "\"}", 2) != 0)
		return -EBADMSG;
	memcpy(l->hash, p, PL_AUDIT_HEX);
	/* a valid JSON object, whole: JSONL readers must be able to take it */
	*why = "not an audit line (not one valid JSON object)";
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	if (!obj || json_tokener_get_parse_end(tok) != len) {
		json_object_put(obj);
		json_tokener_free(tok);
		return -EBADMSG;
	}
	json_tokener_free(tok);
	if (strcmp(l->event, "resumed") == 0 && json_object_object_get_ex(obj, "record", &rec))
		resumed_tear(rec, l);
	json_object_put(obj);
	audit__sha256_hex(buf, len - HASHED_TAIL, calc);
	l->hash_ok = memcmp(calc, l->hash, PL_AUDIT_HEX) == 0;
	*why = NULL;
	return 0;
}

/* Torn bytes at [from, EOF): remember them for the next `resumed` line. */
static int note_tear(struct audit_log *a, off_t from, off_t size)
{
	size_t n = (size_t)(size - from);
	char *buf;
	ssize_t got;

	if (n > PL_AUDIT_LINE_MAX + 1)
		return -EBADMSG;
	buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	got = pread(a->fd, buf, n, from);
	if (got != (ssize_t)n) {
		free(buf);
		return got < 0 ? -errno : -EIO;
	}
	audit__sha256_hex(buf, n, a->tear_sha);
	free(buf);
	a->tear_off = (uint64_t)from;
	a->tear_bytes = n;
	return 0;
}

/* Append one line: event and rec (an object) at seq+1, chained to the head. */
static int append(struct audit_log *a, const struct pl_record *rec)
{
	_cleanup_free_ char *rs = NULL;
	const char *event = pl_record__type(rec);
	size_t rlen, n, cap;
	char *buf, *line, hash[PL_AUDIT_HEX + 1];
	off_t start;
	int r, h;

	r = pl_record__text(rec, PL_ALERT_NATIVE, &rs, &rlen);
	if (r < 0)
		return r;
	cap = rlen + 256 + TAIL_LEN + MAC_PART;
	if (cap > PL_AUDIT_LINE_MAX + 256)
		return -E2BIG;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	n = 0;
	if (a->tear_bytes) /* close the torn line: the resumed line names it */
		buf[n++] = '\n';
	line = buf + n;
	h = snprintf(line, cap - n,
		     HEAD_KEY "%" PRIu64 ",\"time_ns\":%" PRIu64 ",\"event\":\"%s\",\"record\":", a->seq + 1,
		     real_ns(), event);
	n += (size_t)h;
	memcpy(buf + n, rs, rlen);
	n += rlen;
	n += (size_t)snprintf(buf + n, cap - n, PREV_KEY "%s\"", a->hash);
	if (a->key) {
		char mac[PL_AUDIT_MAC_HEX + 1];

		audit_key__mac(a->key, line, (size_t)(buf + n - line), mac);
		n += (size_t)snprintf(buf + n, cap - n, ",\"mac\":\"%s\"", mac);
	}
	audit__sha256_hex(line, (size_t)(buf + n - line), hash);
	n += (size_t)snprintf(buf + n, cap - n, ",\"hash\":\"%s\"}\n", hash);
	if ((size_t)(buf + n - line) > PL_AUDIT_LINE_MAX) {
		free(buf);
		return -E2BIG;
	}
	start = lseek(a->fd, 0, SEEK_END);
	r = start < 0 ? -errno : fd_write_all(a->fd, buf, n);
	free(buf);
	if (r < 0) {
		/* the chain stays at the head; what was written of the line goes */
		if (start < 0 || ftruncate(a->fd, start) < 0)
			a->rescan = true;
		return r;
	}
	a->seq++;
	memcpy(a->hash, hash, sizeof(hash));
	a->end = start + (off_t)n;
	a->tear_bytes = 0;
	if (fdatasync(a->fd) < 0)
		a->sync_errors++;
	/* the line is sealed: its key goes (a failed write of the key file
	 * leaves an older key there, which the next open evolves forward) */
	if (a->key && audit_key__step(a->key) < 0)
		a->sync_errors++;
	return 0;
}

static int write_resumed(struct audit_log *a)
{
	struct json_object *rec = json_object_new_object(), *torn = json_object_new_object();
	int r = -ENOMEM;

	if (rec && torn) {
		json_object_object_add(rec, "type", json_object_new_string("resumed"));
		json_object_object_add(torn, "offset", json_object_new_uint64(a->tear_off));
		json_object_object_add(torn, "bytes", json_object_new_uint64(a->tear_bytes));
		json_object_object_add(torn, "sha256", json_object_new_string(a->tear_sha));
		json_object_object_add(rec, "torn", torn);
		torn = NULL;
		r = append(a, &(struct pl_record){ .kind = PL_RECORD_EVENT,
						   .event = &(struct pl_event){ .type = "resumed", .body = rec } });
	}
	json_object_put(torn);
	json_object_put(rec);
	return r;
}

static int write_lost(struct audit_log *a)
{
	struct json_object *rec = json_object_new_object();
	const char *name = strerrorname_np(-a->lost_err);
	int r;

	if (!rec)
		return -ENOMEM;
	json_object_object_add(rec, "type", json_object_new_string("audit_lost"));
	json_object_object_add(rec, "lines", json_object_new_uint64(a->lost));
	json_object_object_add(rec, "error", json_object_new_string(name ? name : "?"));
	r = append(a, &(struct pl_record){ .kind = PL_RECORD_EVENT,
					   .event = &(struct pl_event){ .type = "audit_lost", .body = rec } });
	json_object_put(rec);
	if (!r)
		a->lost = 0;
	return r;
}

static int audit_write_line(struct audit_log *a, const struct pl_record *rec)
{
	const char *event = pl_record__type(rec);
	off_t size;
	int r;

	if (!event || !audit__event_ok(event, strlen(event)) ||
	    (rec->kind == PL_RECORD_EVENT && !json_object_is_type(rec->event->body, json_type_object)))
		return -EINVAL;
	if (a->rescan) { /* a failed line may have left bytes behind */
		size = lseek(a->fd, 0, SEEK_END);
		if (size < 0)
			return -errno;
		if (size > a->end && (r = note_tear(a, a->end, size)) < 0)
			return r;
		a->rescan = false;
	}
	if (a->tear_bytes && (r = write_resumed(a)) < 0)
		return r;
	if (a->lost && (r = write_lost(a)) < 0)
		return r;
	return append(a, rec);
}

static int audit_write(struct pl_output *o, const struct pl_record *rec)
{
	struct audit_log *a = (struct audit_log *)o;
	int r = audit_write_line(a, rec);

	if (r < 0) {
		if (!a->lost++)
			a->lost_err = r;
		if (r == -E2BIG)
			snprintf(o->why, sizeof(o->why), "a record longer than the audit log's %u-byte line limit",
				 PL_AUDIT_LINE_MAX);
	}
	return r;
}

static int audit_flush(struct pl_output *o)
{
	struct audit_log *a = (struct audit_log *)o;

	return fdatasync(a->fd) < 0 ? -errno : 0;
}

static void audit_free(struct pl_output *o)
{
	struct audit_log *a = (struct audit_log *)o;

	close(a->fd); /* drops the lock */
	audit_key__free(a->key);
	free(a);
}

static const struct pl_output_ops audit_ops = {
    .name = "audit",
    .write = audit_write,
    .flush = audit_flush,
    .free = audit_free,
};

/* The log as output__open_append() opens files (read-write: the tail is
 * read back at start; 0600), held with an exclusive lock: one writer. */
static int open_file(const char *path)
{
	int fd = output__open_append(path, O_RDWR, 0600);

	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return r;
	}
	return fd;
}

/*
 * Continue the chain from the file's end: its last line ending in '\n' must
 * be a valid audit line (its own hash checked); bytes after it are a torn
 * line. Only the tail is read: at most two maximal lines.
 */
static int resume(struct audit_log *a, bool *ret_keyed)
{
	const size_t window = 2 * ((size_t)PL_AUDIT_LINE_MAX + 1);
	struct audit_line l;
	const char *why;
	off_t size, from;
	size_t n, last_nl, start;
	char *buf;
	ssize_t got;
	int r;

	size = lseek(a->fd, 0, SEEK_END);
	if (size < 0)
		return -errno;
	a->end = size;
	if (size == 0)
		return 0;
	n = (uint64_t)size < window ? (size_t)size : window;
	from = size - (off_t)n;
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	got = pread(a->fd, buf, n, from);
	if (got != (ssize_t)n) {
		free(buf);
		return got < 0 ? -errno : -EIO;
	}
	for (last_nl = n; last_nl > 0 && buf[last_nl - 1] != '\n'; last_nl--)
		;
	if (last_nl == 0) { /* no complete line in reach */
		free(buf);
		return from == 0 && n <= PL_AUDIT_LINE_MAX ? note_tear(a, 0, size) : -EBADMSG;
	}
	for (start = last_nl - 1; start > 0 && buf[start - 1] != '\n'; start--)
		;
	if (start == 0 && from > 0) { /* a complete line longer than any we write */
		free(buf);
		return -EBADMSG;
	}
	r = audit__parse_line(buf + start, last_nl - 1 - start, &l, &why);
	free(buf);
	if (r < 0)
		return r;
	if (!l.hash_ok)
		return -EBADMSG;
	a->seq = l.seq;
	memcpy(a->hash, l.hash, PL_AUDIT_HEX + 1);
	a->end = from + (off_t)last_nl;
	*ret_keyed = l.keyed;
	return size > a->end ? note_tear(a, a->end, size) : 0;
}

/*
 * Line up the key with the log: it must seal seq+1 next. Behind (a crash
 * between a line and its key's step): evolved forward. Ahead (lines it
 * sealed are gone from the file): the chain goes on at the key's epoch, so
 * the gap stays visible to verify as removed lines.
 */
static int align_key(struct audit_log *a, bool last_keyed, struct audit_resume *info)
{
	uint64_t epoch = audit_key__epoch(a->key);

	if (a->seq && !last_keyed)
		return -EKEYREJECTED;
	info->key_epoch = epoch;
	if (epoch > a->seq + 1) {
		info->seq_gap = epoch - 1 - a->seq;
		a->seq = epoch - 1;
		return 0;
	}
	return audit_key__advance_to(a->key, a->seq + 1);
}

int audit_log__open(const char *path, const char *key_path, struct pl_output **ret, struct audit_resume *info)
{
	struct audit_resume res = { 0 };
	struct audit_log *a;
	bool last_keyed = false;
	int fd = open_file(path), r;

	if (fd < 0)
		return fd;
	a = calloc(1, sizeof(*a));
	if (!a) {
		close(fd);
		return -ENOMEM;
	}
	a->base.ops = &audit_ops;
	a->fd = fd;
	memcpy(a->hash, PL_AUDIT_GENESIS, sizeof(a->hash));
	r = resume(a, &last_keyed);
	if (r == 0 && key_path) {
		r = audit_key__open(key_path, &a->key);
		if (r < 0)
			res.key_error = true;
		else
			r = align_key(a, last_keyed, &res);
	} else if (r == 0 && last_keyed) {
		r = -ENOKEY;
	}
	if (r < 0) {
		if (info)
			info->key_error = res.key_error;
		audit_free(&a->base);
		return r;
	}
	if (info) {
		res.seq = a->seq;
		res.torn_offset = a->tear_off;
		res.torn_bytes = a->tear_bytes;
		memcpy(res.hash, a->hash, sizeof(res.hash));
		*info = res;
	}
	*ret = &a->base;
	return 0;
}

static const struct audit_log *as_audit(const struct pl_output *o)
{
	return o && o->ops == &audit_ops ? (const struct audit_log *)o : NULL;
}

int audit_log__head(const struct pl_output *o, uint64_t *ret_seq, char ret_hash[PL_AUDIT_HEX + 1])
{
	const struct audit_log *a = as_audit(o);

	if (!a)
		return -EINVAL;
	*ret_seq = a->seq;
	memcpy(ret_hash, a->hash, PL_AUDIT_HEX + 1);
	return 0;
}

_Static_assert(sizeof(((struct pl_sensor_event *)0)->head.hash) == PL_AUDIT_HEX + 1, "a head event holds a hash");

int audit_log__head_event(const struct pl_output *o, const char *file, uint64_t time_ns,
			  struct pl_sensor_event *ret)
{
	const struct audit_log *a = as_audit(o);

	if (!a)
		return -EINVAL;
	*ret = (struct pl_sensor_event){ .kind = PL_SENSOR_AUDIT_HEAD,
					 .time_ns = time_ns,
					 .head = { .seq = a->seq, .file = file } };
	memcpy(ret->head.hash, a->hash, sizeof(ret->head.hash));
	return 0;
}

uint64_t audit_log__sync_errors(const struct pl_output *o)
{
	const struct audit_log *a = as_audit(o);

	return a ? a->sync_errors : 0;
}
