// SPDX-License-Identifier: MIT
/*
 * syslog_out.c - alerts to the local syslog daemon through syslog(3).
 *
 * Each alert record becomes one message at the rule's severity: "<rule>:
 * <output>". The output text is already escaped (rules/expr.h), so a field
 * value can't start a second line. syslog(3) gives no delivery report: when
 * /dev/log is missing at start-up the backend says so, and the sensor's
 * JSON output stays the record of truth. RFC 5424 with structured data and
 * buffering while the collector is down is the next step (ROADMAP).
 */
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

struct syslog_output {
	struct pl_output base;
};

static int syslog_write(struct pl_output *o, struct json_object *rec)
{
	struct json_object *v;
	const char *rule = "?", *text = "";
	int sev = LOG_WARNING;

	if (json_object_object_get_ex(rec, "rule", &v) && json_object_is_type(v, json_type_string))
		rule = json_object_get_string(v);
	if (json_object_object_get_ex(rec, "output", &v) && json_object_is_type(v, json_type_string))
		text = json_object_get_string(v);
	if (json_object_object_get_ex(rec, "severity", &v) && json_object_is_type(v, json_type_int))
		sev = json_object_get_int(v) & 7;
	syslog(sev, "%s: %s", rule, text);
	return 0;
}

static void syslog_free(struct pl_output *o)
{
	closelog();
	free(o);
}

static const struct pl_output_ops syslog_ops = {
	.name = "syslog",
	.write = syslog_write,
	.free = syslog_free,
};

int syslog_output__open(const char *ident, int facility, struct pl_output **ret)
{
	struct syslog_output *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->base.ops = &syslog_ops;
	openlog(ident, LOG_PID | LOG_NDELAY, facility);
	*ret = &s->base;
	return access("/dev/log", W_OK) == 0 ? 0 : -ENOENT;
}
