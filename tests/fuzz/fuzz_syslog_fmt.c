// SPDX-License-Identifier: MIT
/*
 * fuzz_syslog_fmt.c - libFuzzer target: the RFC 5424 encoder
 * (outputs/syslog_fmt.c) on records whose every key and value the fuzzer
 * chooses, with any header (facility, time, UTC offset, hostname, app name,
 * procid) and any buffer size; and the --syslog TARGET parser.
 *
 * Invariants (syslog_out.h): the message is one line (no byte below 0x20,
 * no DEL, no C1 control) of valid UTF-8, no longer than the buffer nor
 * PL_SYSLOG_MSG_MAX; it starts "<PRI>1 " with PRI in 0..191; the SD element
 * parses back: each PARAM-VALUE escapes '"', '\' and ']', and undoing that
 * escaping gives the value made safe (what the same formatter writes as
 * MSG), whole, or cut on a character boundary when the message was cut;
 * the parameters are the record's valid scalar fields in order.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "fuzz_input.h"
#include "syslog_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FIELDS 24

struct field {
	const char *key;
	const char *text; /* the scalar's text as a PARAM-VALUE takes it, NULL: left out */
};

/* A value made safe as the formatter does outside SD (its MSG form): control
 * bytes and invalid UTF-8 as \xNN, C1 controls as \xC2\xNN. */
static char *safe(const char *s, bool **ret_bounds)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s), o = 0;
	char *out = malloc(n * 8 + 1);
	bool *bounds = calloc(n * 8 + 1, sizeof(bool));

	if (!out || !bounds) {
		free(out);
		free(bounds);
		return NULL;
	}
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = 0;

		bounds[o] = true;
		if (c >= 0x20 && c < 0x7f) {
			k = 1;
		} else if (c >= 0x80) {
			for (size_t len = 2; len <= 4 && !k; len++)
				if (i + len <= n && fz_utf8_valid(s + i, len))
					k = len;
		}
		if (k == 2 && c == 0xc2 && (unsigned char)s[i + 1] <= 0x9f) {
			memcpy(out + o, "\\xC2\\x", 6);
			out[o + 6] = hex[(unsigned char)s[i + 1] >> 4];
			out[o + 7] = hex[(unsigned char)s[i + 1] & 15];
			o += 8;
		} else if (k) {
			memcpy(out + o, s + i, k);
			o += k;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
			k = 1;
		}
		i += k;
	}
	out[o] = '\0';
	bounds[o] = true;
	*ret_bounds = bounds;
	return out;
}

/* One PARAM-VALUE from p (just after its opening quote) up to its closing
 * quote, RFC-unescaped into out. Returns the position after the quote. */
static const char *param_value(const char *p, char *out)
{
	size_t o = 0;

	for (;;) {
		FZ_ASSERT(*p); /* the value is closed */
		if (*p == '"')
			break;
		FZ_ASSERT(*p != ']'); /* ']' only escaped */
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == ']')) {
			out[o++] = p[1];
			p += 2;
			continue;
		}
		/* any other backslash is an \xNN of the safe form */
		if (*p == '\\')
			FZ_ASSERT(p[1] == 'x');
		out[o++] = *p++;
	}
	out[o] = '\0';
	return p + 1;
}

/* got is want cut between two of its units (a character or an escape) */
static bool is_prefix_cut(const char *got, const char *want, const bool *bounds)
{
	size_t n = strlen(got);

	return n <= strlen(want) && strncmp(got, want, n) == 0 && bounds[n];
}

static void check(const char *msg, size_t len, size_t size, bool cut, const struct pl_syslog_header *h,
		  const struct field *fields, size_t nfields, const char *out_msg)
{
	const char *p = msg, *sd;
	char *val = malloc(len + 1);
	long pri;
	char *end;
	size_t i = 0;

	FZ_ASSERT(val);
	FZ_ASSERT(len == strlen(msg));
	FZ_ASSERT(len <= PL_SYSLOG_MSG_MAX && len < size);
	FZ_ASSERT(fz_utf8_valid(msg, len));
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)msg[k];

		FZ_ASSERT(c >= 0x20 && c != 0x7f);
		if (c == 0xc2 && k + 1 < len)
			FZ_ASSERT((unsigned char)msg[k + 1] > 0x9f); /* no C1 control (NEL) */
	}
	if (len == 0) { /* no room even for a header's first byte */
		FZ_ASSERT(cut && size == 1);
		goto out;
	}
	FZ_ASSERT(msg[0] == '<');
	pri = strtol(msg + 1, &end, 10);
	FZ_ASSERT(cut || (end > msg + 1 && pri >= 0 && pri <= 191));
	if (*end != '>' || strncmp(end, ">1 ", 3) != 0) {
		FZ_ASSERT(cut); /* only a buffer too small for the header cuts it */
		goto out;
	}
	/* the header: PRI VERSION, TIMESTAMP, HOSTNAME, APP-NAME, PROCID, MSGID,
	 * each one token (printable US-ASCII, no space), then the SD element */
	sd = msg;
	for (int k = 0; k < 6 && sd; k++) {
		sd = strchr(sd, ' ');
		if (sd && k < 5)
			sd++;
	}
	if (!sd || strncmp(sd, " [" PL_SYSLOG_SD_ID, 2 + strlen(PL_SYSLOG_SD_ID)) != 0) {
		FZ_ASSERT(cut);
		goto out;
	}
	FZ_ASSERT(pri / 8 == (h->facility >> 3)); /* PRI is facility * 8 + severity */
	p = sd + 2 + strlen(PL_SYSLOG_SD_ID);
	if (!*p) { /* the header fit, its "]" not: the header-too-long case, cut */
		FZ_ASSERT(cut);
		goto out;
	}
	while (*p == ' ') {
		const char *eq = strchr(p + 1, '=');
		size_t klen;

		FZ_ASSERT(eq && eq[1] == '"');
		klen = (size_t)(eq - p - 1);
		/* the next field the formatter takes */
		while (i < nfields && (!fields[i].text || !syslog_sd_name__valid(fields[i].key)))
			i++;
		FZ_ASSERT(i < nfields);
		if (strlen(fields[i].key) != klen || strncmp(fields[i].key, p + 1, klen) != 0)
			fprintf(stderr, "want key '%s' at: %s\n", fields[i].key, p);
		FZ_ASSERT(strlen(fields[i].key) == klen && strncmp(fields[i].key, p + 1, klen) == 0);
		p = param_value(eq + 2, val);
		{
			bool *bounds = NULL;
			char *want = safe(fields[i].text, &bounds);

			if (want) {
				if (*p == ']' && strcmp(val, want) != 0) /* the value that crossed the limit */
					FZ_ASSERT(cut && is_prefix_cut(val, want, bounds));
				else
					FZ_ASSERT(strcmp(val, want) == 0);
				free(want);
				free(bounds);
			}
		}
		i++;
	}
	FZ_ASSERT(*p == ']');
	p++;
	if (!cut) {
		/* every valid scalar field was written */
		while (i < nfields && (!fields[i].text || !syslog_sd_name__valid(fields[i].key)))
			i++;
		FZ_ASSERT(i == nfields);
	}
	if (*p) {
		bool *bounds = NULL;
		char *want;

		FZ_ASSERT(*p == ' ' && out_msg && *out_msg);
		want = safe(out_msg, &bounds);
		if (want) {
			FZ_ASSERT(cut ? is_prefix_cut(p + 1, want, bounds) : strcmp(p + 1, want) == 0);
			free(want);
			free(bounds);
		}
	} else if (!cut) {
		FZ_ASSERT(!out_msg || !*out_msg);
	}
out:
	free(val);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *rec = json_object_new_object();
	struct field fields[MAX_FIELDS + 1]; /* and severity */
	struct pl_syslog_header h;
	struct pl_syslog_target target;
	const char *out_msg = NULL, *type = NULL, *spec;
	size_t nfields = 0, nnums = 0, bufsize, len;
	char *nums[MAX_FIELDS + 1]; /* the fields' and severity's numbers as text */
	char *buf, err[256];
	bool cut = false;
	struct fz f;

	if (!rec)
		return 0;
	fz_init(&f, data, size);
	/* the --syslog TARGET parser, on a string of its own */
	spec = fz_str(&f, 300, false);
	if (spec && syslog_target__parse(spec, &target, err, sizeof(err)) == 0) {
		char again[512];
		struct pl_syslog_target t2;

		syslog_target__format(&target, again, sizeof(again));
		FZ_ASSERT(syslog_target__parse(again, &t2, err, sizeof(err)) == 0);
		FZ_ASSERT(t2.kind == target.kind && !strcmp(t2.path, target.path) && !strcmp(t2.host, target.host) &&
			  !strcmp(t2.port, target.port));
	}

	h.facility = (int)(fz_uint(&f, 1) % 24) << 3; /* a LOG_* facility, as the header's contract says */
	h.time_us = (int64_t)fz_uint(&f, 8);
	h.utc_off_min = (int)(int16_t)fz_uint(&f, 2);
	h.hostname = fz_str(&f, 300, true);
	h.app_name = fz_str(&f, 64, true);
	h.procid = (long)fz_uint(&f, 8);
	bufsize = (size_t)fz_uint(&f, 2);
	if (fz_bool(&f))
		bufsize = PL_SYSLOG_MSG_MAX + 1;
	/* the sensor's own records: JSON bodies with a type (typed alerts are
	 * test_syslog's); the first choice used to pick an alert */
	if (fz_bool(&f) || fz_bool(&f)) {
		type = fz_str(&f, 40, false);
		if (type)
			json_object_object_add(rec, "type", json_object_new_string(type));
	}
	if (fz_bool(&f)) {
		/* the record's severity, a parameter too (and PRI's severity when 0-7) */
		struct json_object *v = json_object_new_int((int)(int8_t)fz_uint(&f, 1));

		json_object_object_add(rec, "severity", v);
		if (v) {
			nums[nnums] = strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
			fields[nfields++] = (struct field){ .key = "severity", .text = nums[nnums++] };
		}
	}
	/* at most MAX_FIELDS keys tried (repeats included), so nums and fields never overflow */
	for (int tries = 0; f.n > 0 && tries < MAX_FIELDS; tries++) {
		const char *key = fz_str(&f, 40, false), *text = NULL;
		struct json_object *v = NULL;

		if (!key)
			break;
		switch (fz_uint(&f, 1) % 6) {
		case 0:
		case 1:
			text = fz_str(&f, 3000, false);
			v = text ? json_object_new_string(text) : NULL;
			break;
		case 2:
			v = json_object_new_int64((int64_t)fz_uint(&f, 8));
			if (v)
				text = nums[nnums++] = strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
			break;
		case 3:
			v = json_object_new_boolean(fz_bool(&f));
			text = json_object_get_boolean(v) ? "true" : "false";
			break;
		case 4:
			v = json_object_new_array();
			break;
		default:
			v = NULL; /* null */
			break;
		}
		/* a repeated key would replace a value in place: keep the first */
		if (json_object_object_get_ex(rec, key, NULL) || !strcmp(key, "type") || !strcmp(key, "severity")) {
			json_object_put(v);
			continue;
		}
		json_object_object_add(rec, key, v);
		fields[nfields++] = (struct field){ .key = key, .text = text };
	}
	buf = malloc(bufsize ? bufsize : 1);
	if (buf) {
		const struct pl_event ev = { .type = type, .body = rec };

		len = syslog_format__5424(bufsize ? buf : NULL, bufsize, &h,
					  &(struct pl_record){ .kind = PL_RECORD_EVENT, .event = &ev }, &cut);
		if (bufsize)
			check(buf, len, bufsize, cut, &h, fields, nfields, out_msg);
		else
			FZ_ASSERT(len == 0);
		free(buf);
	}
	json_object_put(rec);
	for (size_t k = 0; k < nnums; k++)
		free(nums[k]);
	fz_free(&f);
	return 0;
}
