// SPDX-License-Identifier: MIT
/*
 * live.c - per-binary totals over one interval, printed as a small table.
 *
 * Bounded: at most LIVE_MAX distinct binaries per interval; the rest are
 * folded into one "(other)" row so totals stay true.
 *
 * Rows are keyed by the raw name (the exe path as the process gave it);
 * names are escaped (text_escape()) only when printed, so a binary named
 * "x\r\nALERT ..." or holding terminal sequences is one row of printable
 * text, never a forged line, a moved cursor or a cleared screen.
 */
#include "process/live.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"

#define LIVE_MAX 512
#define LIVE_TOP 10
#define NAME_COLS 44

struct live_row {
	char name[256]; /* raw; the end of a longer path (more than NAME_COLS columns show) */
	uint64_t cpu_ns, offcpu_ns, syscalls, open_fail;
	uint32_t procs, ended;
};

/* waiting */
#define LIVE_WAITING 5

struct live_wait {
	char name[256], state[24], wchan[64];
	uint32_t pid;
	double waiting_s;
};

struct live {
	struct live_wait waits[LIVE_WAITING];
	uint32_t nwaits, waits_more;
	struct live_row rows[LIVE_MAX + 1]; /* last one: (other) */
	uint32_t n;
	uint64_t intervals;
};

int live__new(struct live **ret)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	*ret = l;
	return 0;
}

void live__free(struct live *l)
{
	free(l);
}

static struct live_row *row(struct live *l, const char *name)
{
	size_t len = strlen(name), keep = sizeof(l->rows[0].name) - 1;

	/* the end of a path names the binary: keep that when it is too long */
	if (len > keep)
		name += len - keep;
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->rows[i].name, name) == 0)
			return &l->rows[i];
	if (l->n == LIVE_MAX) {
		snprintf(l->rows[LIVE_MAX].name, sizeof(l->rows[LIVE_MAX].name), "(other)");
		return &l->rows[LIVE_MAX];
	}
	snprintf(l->rows[l->n].name, sizeof(l->rows[l->n].name), "%s", name);
	return &l->rows[l->n++];
}

uint64_t live__interval(const struct live *l)
{
	return l->intervals;
}

void live__add(struct live *l, const char *name, uint64_t cpu_ns, uint64_t offcpu_ns, uint64_t syscalls,
	       uint64_t open_fail, bool new_proc, bool ended)
{
	struct live_row *r = row(l, name && name[0] ? name : "?");

	r->cpu_ns += cpu_ns;
	r->offcpu_ns += offcpu_ns;
	r->syscalls += syscalls;
	r->open_fail += open_fail;
	r->procs += new_proc;
	r->ended += ended;
}

void live__waiting(struct live *l, const char *name, uint32_t pid, const char *state, double waiting_s,
		   const char *wchan)
{
	struct live_wait *w = NULL;

	for (uint32_t i = 0; i < l->nwaits; i++)
		if (l->waits[i].pid == pid)
			w = &l->waits[i];
	if (!w && l->nwaits < LIVE_WAITING)
		w = &l->waits[l->nwaits++];
	if (!w) {
		l->waits_more++;
		return;
	}
	snprintf(w->name, sizeof(w->name), "%s", name && name[0] ? name : "?");
	snprintf(w->state, sizeof(w->state), "%s", state ? state : "?");
	snprintf(w->wchan, sizeof(w->wchan), "%s", wchan ? wchan : "-");
	w->pid = pid;
	w->waiting_s = waiting_s;
}

static int by_wait(const void *a, const void *b)
{
	const struct live_wait *x = a, *y = b;

	return x->waiting_s < y->waiting_s ? 1 : x->waiting_s > y->waiting_s ? -1 : 0;
}

static int by_cpu(const void *a, const void *b)
{
	const struct live_row *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	return x->syscalls < y->syscalls ? 1 : (x->syscalls > y->syscalls ? -1 : 0);
}

void live__losses_text(const struct live_losses *lost, char *buf, size_t size)
{
	int n;

	if (!lost->records && !lost->processes && !lost->output_writes && !lost->fail_paths && !lost->threads &&
	    !lost->other) {
		snprintf(buf, size, "nothing lost");
		return;
	}
	n = snprintf(buf, size,
		     "lost: %llu records, %llu processes untracked, %llu output writes, %llu failed-open paths "
		     "(counts kept), %llu threads unmeasured",
		     (unsigned long long)lost->records, (unsigned long long)lost->processes,
		     (unsigned long long)lost->output_writes, (unsigned long long)lost->fail_paths,
		     (unsigned long long)lost->threads);
	if (lost->other && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", %llu other (see the stats record)",
			 (unsigned long long)lost->other);
}

void live__print(struct live *l, FILE *out, uint64_t interval_ns, uint32_t tracked, const struct live_losses *lost)
{
	double secs = interval_ns / 1e9;
	uint32_t n = l->n;
	char losses[256];

	if (l->rows[LIVE_MAX].procs)
		l->rows[n++] = l->rows[LIVE_MAX];
	qsort(l->rows, n, sizeof(l->rows[0]), by_cpu);
	fprintf(out, "\n%-44s %6s %7s %9s %9s %5s\n", "BINARY (busiest, last interval)", "CPU%", "WAIT%", "SYSCALL/s",
		"FAILOPN/s", "PROCS");
	for (uint32_t i = 0; i < n && i < LIVE_TOP; i++) {
		const struct live_row *r = &l->rows[i];
		char esc[4 * sizeof(r->name)]; /* room for every byte escaped */
		size_t cols, off;

		if (!r->cpu_ns && !r->syscalls)
			break;
		/* escaped, then its last columns: the end of a path names the binary */
		text_escape_buf(esc, sizeof(esc), r->name, strlen(r->name), 0);
		off = text_tail(esc, NAME_COLS, &cols);
		fprintf(out, "%s%*s %6.1f %7.1f %9.0f %9.0f %5u\n", esc + off, (int)(NAME_COLS - cols), "",
			r->cpu_ns / 1e7 / secs, r->offcpu_ns / 1e7 / secs, r->syscalls / secs, r->open_fail / secs,
			r->procs);
	}
	/* who waits now, and how (stopped is not sleeping) */
	qsort(l->waits, l->nwaits, sizeof(l->waits[0]), by_wait);
	for (uint32_t i = 0; i < l->nwaits; i++) {
		const struct live_wait *w = &l->waits[i];
		char esc[4 * sizeof(w->name)];
		size_t cols, off;

		text_escape_buf(esc, sizeof(esc), w->name, strlen(w->name), 0);
		off = text_tail(esc, NAME_COLS, &cols);
		fprintf(out, "waiting: %s pid %u %s for %.0f s in %s\n", esc + off, w->pid, w->state, w->waiting_s,
			w->wchan);
	}
	if (l->waits_more)
		fprintf(out, "waiting: %u more\n", l->waits_more);
	l->nwaits = l->waits_more = 0;
	live__losses_text(lost, losses, sizeof(losses));
	fprintf(out, "-- %u processes tracked, %s so far (CPU%%: 100 = one core)\n", tracked, losses);
	fflush(out);
	memset(l->rows, 0, sizeof(l->rows));
	l->n = 0;
	l->intervals++;
}
