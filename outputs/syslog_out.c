// SPDX-License-Identifier: MIT
/*
 * syslog_out.c - alerts to a syslog daemon: the --syslog TARGET parser and
 * the backend that joins a formatter (syslog_fmt.c) to a transport
 * (syslog_unix.c).
 *
 * Each alert record becomes one message at the rule's severity: "<rule>:
 * <output>". The output text is already escaped (rules/expr.h), and the
 * formatter escapes any control byte left (a rule's name), so a field value
 * can't start a second line. Unlike syslog(3), every alert that does not
 * reach the daemon is counted in `dropped`, with what is wrong in `why`
 * (output.h reports it once, and the recovery); the JSON output stays the
 * record of truth.
 */
#include "syslog_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "syslog_transport.h"

#define SEVERITY_DEFAULT 4 /* LOG_WARNING, for a record without one */

int syslog_target__parse(const char *spec, struct pl_syslog_target *ret, char *msg, size_t msgsize)
{
	struct pl_syslog_target t = { .kind = PL_SYSLOG_OFF };
	const char *path;

	if (strcmp(spec, "off") == 0) {
		*ret = t;
		return 0;
	}
	if (strncmp(spec, "unix:", 5) != 0) {
		snprintf(msg, msgsize, "expected unix:PATH or off");
		return -EINVAL;
	}
	path = spec + 5;
	if (path[0] != '/') {
		snprintf(msg, msgsize, "unix:PATH needs an absolute path");
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(t.path)) {
		snprintf(msg, msgsize, "the path is longer than a socket address can hold (%zu bytes)",
			 sizeof(t.path) - 1);
		return -EINVAL;
	}
	t.kind = PL_SYSLOG_UNIX;
	memcpy(t.path, path, strlen(path) + 1);
	*ret = t;
	return 0;
}

void syslog_target__format(const struct pl_syslog_target *t, char *buf, size_t size)
{
	if (t->kind == PL_SYSLOG_UNIX)
		snprintf(buf, size, "unix:%s", t->path);
	else
		snprintf(buf, size, "off");
}

struct syslog_output {
	struct pl_output base;
	struct syslog_transport *tr;
	char ident[64];
	int facility;
	long pid;
	char msg[PL_SYSLOG_MSG_MAX];
};

static const char *str_field(struct json_object *rec, const char *key, const char *dflt)
{
	struct json_object *v;

	return json_object_object_get_ex(rec, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : dflt;
}

static int syslog_write(struct pl_output *o, struct json_object *rec)
{
	struct syslog_output *s = (struct syslog_output *)o;
	char text[PL_SYSLOG_MSG_MAX];
	struct json_object *v;
	int sev = SEVERITY_DEFAULT;
	size_t len;

	if (json_object_object_get_ex(rec, "severity", &v) && json_object_is_type(v, json_type_int))
		sev = json_object_get_int(v) & 7;
	snprintf(text, sizeof(text), "%s: %s", str_field(rec, "rule", "?"), str_field(rec, "output", ""));
	len = syslog_format__local(s->msg, sizeof(s->msg), s->facility, sev, time(NULL), s->ident, s->pid, text);
	return s->tr->ops->send(s->tr, s->msg, len, o->why, sizeof(o->why));
}

static void syslog_free(struct pl_output *o)
{
	struct syslog_output *s = (struct syslog_output *)o;

	if (s->tr)
		s->tr->ops->free(s->tr);
	free(s);
}

static const struct pl_output_ops syslog_ops = {
	.name = "syslog",
	.write = syslog_write,
	.free = syslog_free,
};

int syslog_output__open(const struct pl_syslog_target *t, const char *ident, int facility, struct pl_output **ret)
{
	struct syslog_output *s;
	char why[sizeof(s->base.why)];
	int r, err = 0;

	if (t->kind != PL_SYSLOG_UNIX)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base.ops = &syslog_ops;
	snprintf(s->ident, sizeof(s->ident), "%s", ident);
	s->facility = facility;
	s->pid = (long)getpid();
	r = syslog_unix__open(t->path, &s->tr, &err, why, sizeof(why));
	if (r < 0) {
		free(s);
		return r;
	}
	if (err < 0)
		output__fail_at_open(&s->base, err, why);
	*ret = &s->base;
	return 0;
}
