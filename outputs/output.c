// SPDX-License-Identifier: MIT
/*
 * output.c - backend-independent bookkeeping: the written and dropped
 * counters, and the failure episode that decides when a failure is worth
 * reporting (output.h): its start once, a reminder at most once a minute,
 * its end once with the count. One rule for every backend, so no caller
 * reports a full disk 590 times, and none stays silent.
 */
#include "output.h"

#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void say(struct pl_output *o, enum pl_output_event ev, uint64_t now)
{
	o->last_word_ns = now;
	if (o->report)
		o->report(o, ev, o->report_ctx);
}

int output__write(struct pl_output *o, const struct pl_record *rec)
{
	int r;

	o->why[0] = '\0';
	r = o->ops->write(o, rec);
	if (r < 0) {
		uint64_t now = mono_ns();

		o->dropped++;
		o->last_err = r;
		if (!o->failing) {
			o->failing = true;
			o->episode_base = o->dropped - 1;
			say(o, PL_OUTPUT_FAILING, now);
		} else if (now - o->last_word_ns >= (o->reminder_ns ? o->reminder_ns : PL_OUTPUT_REMINDER_NS)) {
			say(o, PL_OUTPUT_STILL_FAILING, now);
		}
		return r;
	}
	o->written++;
	if (o->failing) {
		o->failing = false;
		say(o, PL_OUTPUT_RECOVERED, mono_ns());
	}
	return 0;
}

void output__write_all(struct pl_output *const *outs, size_t n, const struct pl_record *rec)
{
	for (size_t i = 0; i < n; i++)
		if (outs[i])
			output__write(outs[i], rec);
}

int output__write_alert(struct pl_output *o, const struct pl_alert *a)
{
	return output__write(o, &(struct pl_record){ .kind = PL_RECORD_ALERT, .alert = a });
}

int output__write_sample(struct pl_output *o, const struct pl_sample *s)
{
	return output__write(o, &(struct pl_record){ .kind = PL_RECORD_SAMPLE, .sample = s });
}

int output__write_stats(struct pl_output *o, const struct pl_sensor_stats *st)
{
	return output__write(o, &(struct pl_record){ .kind = PL_RECORD_STATS, .stats = st });
}

int output__write_sensor(struct pl_output *o, const struct pl_sensor_event *ev)
{
	return output__write(o, &(struct pl_record){ .kind = PL_RECORD_SENSOR, .sensor = ev });
}

int output__write_event(struct pl_output *o, const char *type, struct json_object *body)
{
	const struct pl_event ev = { .type = type, .body = body };

	return output__write(o, &(struct pl_record){ .kind = PL_RECORD_EVENT, .event = &ev });
}

void output__set_reporter(struct pl_output *o, pl_output_report_fn fn, void *ctx)
{
	o->report = fn;
	o->report_ctx = ctx;
	if (o->failing && fn)
		say(o, PL_OUTPUT_FAILING, mono_ns());
}

uint64_t output__lost(const struct pl_output *o)
{
	return o->dropped - o->episode_base;
}

void output__fail_at_open(struct pl_output *o, int err, const char *why)
{
	o->failing = true;
	o->last_err = err;
	o->episode_base = o->dropped;
	snprintf(o->why, sizeof(o->why), "%s", why ? why : "");
}

void output__set_down(struct pl_output *o, bool down, const char *why)
{
	uint64_t now = mono_ns();

	if (down == o->down)
		return;
	o->down = down;
	if (down) {
		o->down_since_ns = now;
		snprintf(o->why, sizeof(o->why), "%s", why ? why : "");
		say(o, PL_OUTPUT_DOWN, now);
	} else {
		o->down_ns = now - o->down_since_ns;
		say(o, PL_OUTPUT_UP, now);
	}
}

void output__carry(struct pl_output *to, const struct pl_output *from)
{
	to->written = from->written;
	to->dropped = from->dropped;
	to->last_err = from->last_err;
	to->failing = from->failing;
	to->episode_base = from->episode_base;
	to->down = from->down;
	to->down_since_ns = from->down_since_ns;
	to->down_ns = from->down_ns;
	to->last_word_ns = from->last_word_ns;
	to->reminder_ns = from->reminder_ns;
	to->report = from->report;
	to->report_ctx = from->report_ctx;
	to->alert_form = from->alert_form;
}

int output__flush(struct pl_output *o)
{
	return o->ops->flush ? o->ops->flush(o) : 0;
}

void output__free(struct pl_output *o)
{
	if (o)
		o->ops->free(o);
}

/*
 * The sensor appends as root: a symlink at path could send that to any
 * file, and a FIFO would block the open until a reader came, then the
 * sensor whenever the reader stalled. So only a regular file, or a new one,
 * is taken: what is there is checked before the open (a device is never
 * opened) and what was opened is checked again (the open is O_NOFOLLOW and
 * O_NONBLOCK, so a swap in between can neither redirect nor block it).
 */
int output__open_append(const char *path, int access, mode_t mode)
{
	struct stat st;
	int fd, r = 0;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
	} else if (errno != ENOENT) {
		return -errno;
	}
	fd = open(path, access | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, mode);
	if (fd < 0)
		return errno == ENXIO ? -EINVAL : -errno; /* ENXIO: a FIFO with no reader */
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode)) /* replaced since the lstat() */
		r = -EINVAL;
	else if (fcntl(fd, F_SETFL, O_APPEND) < 0) /* blocking again: O_NONBLOCK was for the open */
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}
