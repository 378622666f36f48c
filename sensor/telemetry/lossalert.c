// SPDX-License-Identifier: MIT
/*
 * lossalert.c - the sensor's own alert when it loses anything (see lossalert.h).
 *
 * The causes are the loss counters of the stats record (docs/records.md),
 * under the same names, of class lost (pl_loss__class(), the one table in
 * outputs/stats_json.c): bounded detail (a stack not stored, an image over
 * its share of a table) is counted there and never raises this alert, and
 * truncations (path_truncated, args_truncated) are not losses at all.
 */
#include "telemetry/lossalert.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alert.h"
#include "clock.h"
#include "identity/usercache.h"
#include "probes/hostctx.h"

#define C_MAX PL_LOSS_MAX /* every cause; those of class detail count 0 here */

struct lossalert {
	uint64_t interval_ns;
	uint64_t reported[C_MAX]; /* the counts the last alert brought us to */
	uint64_t last_seen[C_MAX]; /* the counts at the last tick */
	uint64_t last_alert_ns;	   /* CLOCK_MONOTONIC of the last alert, 0: none yet */
	uint64_t since_ns;	   /* CLOCK_REALTIME of the last alert, or of the start */
	uint64_t folded;	   /* ticks with new losses since the last alert */
	struct pl_alert_ids *ids;  /* the sensor's one id generator */
	uint64_t raised;
	char exe[PATH_MAX];
};

int lossalert__open(uint32_t interval_s, struct pl_alert_ids *ids, struct lossalert **ret)
{
	struct lossalert *la = calloc(1, sizeof(*la));
	ssize_t n;

	if (!la)
		return -ENOMEM;
	la->interval_ns = (uint64_t)interval_s * 1000000000ull;
	la->since_ns = real_ns();
	la->ids = ids;
	n = readlink("/proc/self/exe", la->exe, sizeof(la->exe) - 1);
	la->exe[n > 0 ? n : 0] = '\0';
	*ret = la;
	return 0;
}

void lossalert__free(struct lossalert *la)
{
	free(la);
}

uint64_t lossalert__raised(const struct lossalert *la)
{
	return la ? la->raised : 0;
}

static void counts(const struct pl_sensor_stats *st, uint64_t c[C_MAX])
{
	for (int i = 0; i < C_MAX; i++)
		c[i] = pl_loss__class(i) == PL_LOSS_LOST ? st->loss[i] : 0;
}

static void raise_alert(struct lossalert *la, const uint64_t c[C_MAX], uint64_t now_mono_ns,
			struct pl_output *const *outs, size_t nouts)
{
	static const char *const tags[] = { "sensor", "losses" };
	struct pl_loss_cause causes[C_MAX];
	struct pl_sample self = { .pid = (uint32_t)getpid(),
				  .uid = (uint32_t)getuid(),
				  .comm = "plumbline",
				  .exe = la->exe[0] ? la->exe : NULL };
	char user[USERCACHE_NAME_MAX];
	uint64_t now = real_ns(), sum = 0;
	struct pl_alert al;
	size_t off;

	pl_alert__init(&al, PL_ALERT_LOSS, la->ids, now, LOSSALERT_RULE, "Warning", 4 /* syslog LOG_WARNING */);
	al.desc = "The sensor lost events: what it saw is incomplete. Counts by cause are in unmapped.evidence.";
	off = (size_t)snprintf(al.output, sizeof(al.output), "the sensor lost events:");
	for (int i = 0; i < C_MAX; i++) {
		uint64_t d = c[i] - la->reported[i];

		causes[i] = (struct pl_loss_cause){ .name = pl_loss__name(i), .lost = d, .total = c[i] };
		if (!d)
			continue;
		sum += d;
		if (off < sizeof(al.output))
			off += (size_t)snprintf(al.output + off, sizeof(al.output) - off, " %s %llu", pl_loss__name(i),
						(unsigned long long)d);
	}
	if (off < sizeof(al.output))
		snprintf(al.output + off, sizeof(al.output) - off, " (%llu in all, over %.1f s)", (unsigned long long)sum,
			 (double)(now - la->since_ns) / 1e9);
	al.tags = tags;
	al.ntags = 2;
	al.pid = self.pid;
	al.exe = self.exe;
	al.has_user = true;
	al.uid = self.uid;
	al.user = usercache__name(self.uid, now_mono_ns, user, sizeof(user)) ? user : NULL;
	al.suppressed_before = la->folded ? la->folded - 1 : 0;
	al.sample = &self;
	al.loss = (struct pl_alert_loss){
		.causes = causes,
		.ncauses = C_MAX,
		.since_ns = la->since_ns,
		.ticks_folded = la->folded ? la->folded - 1 : 0,
	};
	hostctx__alert(now_mono_ns, NULL, &al.host); /* the sensor's own: no cgroup of a process */
	/* before writing: what writing this alert loses is the next alert's */
	memcpy(la->reported, c, sizeof(la->reported));
	la->last_alert_ns = now_mono_ns;
	la->since_ns = now;
	la->folded = 0;
	la->raised++;
	output__write_all(outs, nouts, &(struct pl_record){ .kind = PL_RECORD_ALERT, .alert = &al });
}

static bool grew(const uint64_t a[C_MAX], const uint64_t b[C_MAX])
{
	for (int i = 0; i < C_MAX; i++)
		if (a[i] > b[i])
			return true;
	return false;
}

void lossalert__tick(struct lossalert *la, const struct pl_sensor_stats *st, uint64_t now_mono_ns,
		     struct pl_output *const *outs, size_t nouts)
{
	uint64_t c[C_MAX];

	if (!la || !la->interval_ns)
		return;
	counts(st, c);
	if (grew(c, la->last_seen))
		la->folded++;
	memcpy(la->last_seen, c, sizeof(c));
	if (!grew(c, la->reported))
		return;
	if (la->last_alert_ns && now_mono_ns - la->last_alert_ns < la->interval_ns)
		return;
	raise_alert(la, c, now_mono_ns, outs, nouts);
}

void lossalert__flush(struct lossalert *la, const struct pl_sensor_stats *st, struct pl_output *const *outs,
		      size_t nouts)
{
	uint64_t c[C_MAX];

	if (!la || !la->interval_ns)
		return;
	counts(st, c);
	if (grew(c, la->last_seen))
		la->folded++;
	memcpy(la->last_seen, c, sizeof(c));
	if (grew(c, la->reported))
		raise_alert(la, c, mono_ns(), outs, nouts);
}
