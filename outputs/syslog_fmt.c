// SPDX-License-Identifier: MIT
/*
 * syslog_fmt.c - the words of a syslog message: RFC 5424, with the record's
 * fields as structured data, and RFC 6587's octet-counting frame. An
 * alert's severity, structured data and message come from the typed alert
 * (alert.h); the sensor's other records from their JSON. An alert's MSG
 * leads with its priority and id ("[WARNING] id=ID OUTPUT"): a collector
 * that keeps only MSG (a traditional line) still has what leads to the
 * record.
 *
 * Every value that reaches a message went through the sensor's text_escape()
 * already (common/textsafe.h: raw bytes of a process as \xNN), and the RFC's
 * own escaping of '"', '\' and ']' goes on top of it here: a collector that
 * undoes the RFC's escaping gets back exactly the string of the JSON record.
 * Whatever else arrives (a control byte, invalid UTF-8 from a record that
 * skipped text_escape()) is written \xNN too, so a message is always valid
 * UTF-8 on one line, whatever a process named itself.
 *
 * The formatter is a pure function of its inputs (the time and the UTC offset
 * are given, not read), so tests assert exact bytes.
 */
#include "syslog_out.h"
#include "textsafe.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "textsafe.h"

#define SEVERITY_DEFAULT 4 /* warning, for a record without one */

/* A bounded writer: never more than cap bytes, one unit at a time. */
struct writer {
	char *buf;
	size_t len, cap;
	bool cut;
};

static bool put(struct writer *w, const char *s, size_t n, size_t reserve)
{
	if (w->len + n + reserve > w->cap)
		return false;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	return true;
}

static bool print_ascii(const char *s, size_t min, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++)
		if ((unsigned char)s[n] < 33 || (unsigned char)s[n] > 126)
			return false;
	return n >= min && n <= max;
}

bool syslog_sd_name__valid(const char *name)
{
	if (!print_ascii(name, 1, 32))
		return false;
	return strpbrk(name, "=]\"") == NULL;
}

/*
 * Append s, made safe unit by unit: a character, an escape, never half of
 * either. sd: also escape '"', '\' and ']' (a PARAM-VALUE). Keeps `reserve`
 * bytes free. False (and w->cut) when s did not fit whole.
 */
static bool put_text(struct writer *w, const char *s, bool sd, size_t reserve)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n > 0) {
		size_t k = text_utf8_decode(p, n, NULL);
		char esc[8];
		size_t elen = 0;

		if (k == 1 && (p[0] < 0x20 || p[0] == 0x7f)) {
			k = 0; /* a control byte: \xNN */
		} else if (k == 2 && p[0] == 0xc2 && p[1] <= 0x9f) {
			/* a C1 control (NEL is a line break to some readers) */
			memcpy(esc, "\\xC2\\x", 6);
			esc[6] = hex[p[1] >> 4];
			esc[7] = hex[p[1] & 15];
			elen = 8;
		} else if (sd && k == 1 && (p[0] == '"' || p[0] == '\\' || p[0] == ']')) {
			esc[0] = '\\';
			esc[1] = (char)p[0];
			elen = 2;
		}
		if (k == 0) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[p[0] >> 4];
			esc[3] = hex[p[0] & 15];
			elen = 4;
			k = 1;
		}
		if (!(elen ? put(w, esc, elen, reserve) : put(w, (const char *)p, k, reserve))) {
			w->cut = true;
			return false;
		}
		p += k;
		n -= k;
	}
	return true;
}

/* A header field: printable US-ASCII of 1..max, else the NILVALUE. */
static const char *field_or_nil(const char *s, size_t max)
{
	return s && print_ascii(s, 1, max) ? s : "-";
}

/* The microseconds of years 0000 and 10000 (the TIMESTAMP's four digits). */
#define TIME_US_MIN (-62167219200LL * 1000000)
#define TIME_US_END (253402300800LL * 1000000)

static void format_time(char *buf, size_t size, int64_t time_us, int off_min)
{
	int64_t local_us;
	time_t secs;
	long us;
	int aoff = off_min < 0 ? -off_min : off_min;
	struct tm tm;

	/* a time or an offset beyond what a TIMESTAMP says is the NILVALUE; the
	 * check comes first, so no sum below can overflow */
	if (time_us < TIME_US_MIN || time_us >= TIME_US_END || aoff >= 24 * 60) {
		snprintf(buf, size, "-");
		return;
	}
	local_us = time_us + (int64_t)off_min * 60 * 1000000;
	secs = (time_t)(local_us >= 0 ? local_us / 1000000 : (local_us - 999999) / 1000000);
	us = (long)(local_us - (int64_t)secs * 1000000);
	if (!gmtime_r(&secs, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ld%c%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us, off_min < 0 ? '-' : '+', aoff / 60 % 100, aoff % 60);
}

/* A scalar's text as a PARAM-VALUE takes it; NULL for what is left out. */
static const char *scalar_text(struct json_object *v, char *buf, size_t size)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
		return json_object_get_string(v);
	case json_type_boolean:
		return json_object_get_boolean(v) ? "true" : "false";
	case json_type_int:
	case json_type_double:
		snprintf(buf, size, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		return buf;
	default:
		return NULL;
	}
}

/* One PARAM: name="text" (text escaped already, as in the JSON record).
 * False when nothing more fits (w->cut): the element is to be closed. */
static bool sd_param(struct writer *w, const char *name, const char *text)
{
	/* ' name="' and, at the least, '"]' after it */
	if (w->len + 1 + strlen(name) + 2 + 2 > w->cap) {
		w->cut = true;
		return false;
	}
	put(w, " ", 1, 0);
	put(w, name, strlen(name), 0);
	put(w, "=\"", 2, 0);
	if (!put_text(w, text, true, 2)) {
		put(w, "\"", 1, 1);
		return false;
	}
	put(w, "\"", 1, 1);
	return true;
}

/* A raw string of a process or a rule file, escaped as in the JSON record
 * (text_escape()); NULL (unknown) is left out, as the record's null is. */
static bool sd_raw(struct writer *w, const char *name, const char *raw)
{
	_cleanup_free_ char *esc = NULL;

	if (!raw)
		return true;
	esc = text_escape_str(raw);
	return esc ? sd_param(w, name, esc) : true;
}

static bool sd_u64(struct writer *w, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	return sd_param(w, name, num);
}

/* The scalars of an alert's record, in its order (docs/records.md). */
static void alert_params(struct writer *w, const struct pl_alert *a)
{
	bool sum = a->kind == PL_ALERT_SUMMARY;

	if (!sd_param(w, "id", a->id) || !sd_u64(w, "time_ns", a->time_ns) || !sd_raw(w, "rule", a->rule) ||
	    !sd_param(w, "priority", a->priority) || !sd_u64(w, "severity", (uint64_t)a->severity))
		return;
	if (sum) {
		const struct pl_alert_summary *m = &a->summary;

		if (sd_param(w, "output", a->output) && (!m->alert_id || sd_param(w, "alert_id", m->alert_id)) &&
		    sd_raw(w, "exe", a->exe) && sd_raw(w, "binary_id", a->binary_id) && sd_u64(w, "count", m->count) &&
		    sd_u64(w, "first_ns", m->first_ns) && sd_u64(w, "last_ns", m->last_ns) &&
		    sd_u64(w, "window_start_ns", m->window_start_ns) && sd_u64(w, "window_end_ns", m->window_end_ns))
			sd_param(w, "reason", m->reason ? m->reason : "");
		return;
	}
	if (sd_param(w, "when", a->when) && sd_u64(w, "pid", a->pid) && sd_raw(w, "exe", a->exe) &&
	    sd_raw(w, "binary_id", a->binary_id) && sd_u64(w, "suppressed_before", a->suppressed_before) &&
	    sd_param(w, "regex_skipped", a->regex_skipped ? "true" : "false") &&
	    sd_raw(w, "rule_file", a->rule_file ? a->rule_file : "") &&
	    sd_u64(w, "rule_line", (uint64_t)(int64_t)a->rule_line) && a->desc) {
		_cleanup_free_ char *d = strndup(a->desc, pl_alert__desc_len(a));

		if (d)
			sd_raw(w, "rule_desc", d);
	}
}

/* MSG's lead, for a reader that sees only MSG (a traditional RFC 3164 line,
 * `%msg%`): "[WARNING] id=<alert id>", the output after it. */
static void msg_lead(char *buf, size_t size, const struct pl_alert *a)
{
	char prio[24];
	size_t i = 0;

	for (const char *p = a->priority ? a->priority : "?"; *p && i + 1 < sizeof(prio); p++)
		prio[i++] = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
	prio[i] = '\0';
	snprintf(buf, size, "[%s] id=%s", prio, a->id);
}

/* The top-level scalars of another record's JSON, in its order. */
static void json_params(struct writer *w, struct json_object *j)
{
	if (!json_object_is_type(j, json_type_object))
		return;
	json_object_object_foreach(j, key, val)
	{
		char num[64];
		const char *text;

		if (strcmp(key, "type") == 0 || !syslog_sd_name__valid(key))
			continue;
		text = scalar_text(val, num, sizeof(num));
		if (text && !sd_param(w, key, text))
			break;
	}
}

/* The severity of a record: an alert's own; another record's numeric `severity`, if any. */
static int severity_of(const struct pl_record *rec, struct json_object *j)
{
	struct json_object *v;
	int64_t sev = -1;

	if (rec->kind == PL_RECORD_ALERT)
		sev = rec->alert->severity;
	else if (j && json_object_object_get_ex(j, "severity", &v) && json_object_is_type(v, json_type_int))
		sev = json_object_get_int64(v);
	return sev >= 0 && sev <= 7 ? (int)sev : SEVERITY_DEFAULT;
}

size_t syslog_format__5424(char *buf, size_t size, const struct pl_syslog_header *h, const struct pl_record *rec,
			   bool *ret_cut)
{
	struct writer w = {.buf = buf, .cap = size ? size - 1 : 0};
	const struct pl_alert *alert = rec->kind == PL_RECORD_ALERT ? rec->alert : NULL;
	const char *type = pl_record__type(rec), *msg = NULL;
	struct json_object *j = alert ? NULL : pl_record__json(rec, PL_ALERT_NATIVE);
	char ts[96], msgid[33] = "-", head[512];
	int sev = severity_of(rec, j), n;

	if (size == 0) {
		json_object_put(j);
		return 0;
	}
	if (w.cap > PL_SYSLOG_MSG_MAX)
		w.cap = PL_SYSLOG_MSG_MAX;
	if (type && print_ascii(type, 1, 32)) {
		snprintf(msgid, sizeof(msgid), "%s", type);
		for (char *c = msgid; *c; c++)
			if (*c == '_')
				*c = '-';
	}
	format_time(ts, sizeof(ts), h->time_us, h->utc_off_min);
	n = snprintf(head, sizeof(head), "<%d>1 %s %s %s ", ((h->facility >> 3) & 0x7f) * 8 + sev, ts,
		     field_or_nil(h->hostname, 255), field_or_nil(h->app_name, 48));
	if (h->procid > 0)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "%ld", h->procid);
	else
		n += snprintf(head + n, sizeof(head) - (size_t)n, "-");
	n += snprintf(head + n, sizeof(head) - (size_t)n, " %s [" PL_SYSLOG_SD_ID, msgid);
	if (!put(&w, head, (size_t)n, 1)) {
		/* a buffer too small for a header: what fits, marked cut */
		size_t k = (size_t)n < w.cap ? (size_t)n : w.cap;

		memcpy(buf, head, k);
		buf[k] = '\0';
		if (ret_cut)
			*ret_cut = true;
		json_object_put(j);
		return k;
	}
	if (alert)
		alert_params(&w, alert);
	else
		json_params(&w, j);
	json_object_put(j);
	put(&w, "]", 1, 0); /* always room: reserved above */
	if (alert) {
		char lead[96];

		msg = alert->output;
		msg_lead(lead, sizeof(lead), alert);
		if (!put(&w, " ", 1, 0) || !put_text(&w, lead, false, 0) || (*msg && !put(&w, " ", 1, 0)))
			w.cut = true;
		else if (*msg)
			put_text(&w, msg, false, 0);
	}
	buf[w.len] = '\0';
	if (ret_cut)
		*ret_cut = w.cut;
	return w.len;
}

size_t syslog_frame__octet_prefix(char *buf, size_t size, size_t len)
{
	int n = snprintf(buf, size, "%zu ", len);

	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
