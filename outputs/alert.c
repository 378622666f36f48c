// SPDX-License-Identifier: MIT
/*
 * alert.c - the one constructor of alerts and the one generator of their
 * ids (alert.h).
 *
 * Ids are unique across restarts without any state on disk: the instance
 * half is random per generator (two instances share it with probability
 * 2^-64 per pair), the sequence half counts from 1.
 */
#include "alert.h"

#include "clock.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

const char *pl_alert__type(const struct pl_alert *a)
{
	return a->kind == PL_ALERT_SUMMARY ? "alert_summary" : "alert";
}

size_t pl_alert__desc_len(const struct pl_alert *a)
{
	size_t n = a->desc ? strlen(a->desc) : 0;

	while (n && (a->desc[n - 1] == '\n' || a->desc[n - 1] == ' '))
		n--;
	return n;
}

bool pl_alert_ids__init(struct pl_alert_ids *ids, uint64_t instance)
{
	uint64_t v = instance;

	ids->seq = 0;
	if (v || (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v) && v)) {
		ids->instance = v;
		return true;
	}
	/* no entropy yet: the clock and the pid still differ across restarts */
	ids->instance = real_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return false;
}

void pl_alert_ids__peek(const struct pl_alert_ids *ids, char ret[PL_ALERT_ID_LEN + 1])
{
	snprintf(ret, PL_ALERT_ID_LEN + 1, "%016llx-%016llx", (unsigned long long)ids->instance,
		 (unsigned long long)(ids->seq + 1));
}

void pl_alert__init(struct pl_alert *ret, enum pl_alert_kind kind, struct pl_alert_ids *ids, uint64_t time_ns,
		    const char *rule, const char *priority, int severity)
{
	memset(ret, 0, sizeof(*ret));
	ret->kind = kind;
	pl_alert_ids__peek(ids, ret->id);
	ids->seq++;
	ret->time_ns = time_ns;
	ret->rule = rule;
	ret->priority = priority;
	ret->severity = severity;
	ret->when = "sensor";
	ret->rule_file = "";
}
