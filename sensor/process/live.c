// SPDX-License-Identifier: MIT
/*
 * live.c - per-binary totals over one interval, printed as a small table.
 *
 * Bounded: at most LIVE_MAX distinct binaries per interval; the rest are
 * folded into one "(other)" row so totals stay true. The sensor's own
 * processes are one row apart, below the table: what watching costs is
 * shown, and never crowds out what is watched.
 *
 * Two forms. On a terminal (struct live_screen.tty) the view is redrawn in
 * place like top(1): cursor home, each line cut to the terminal's width and
 * ended with erase-to-end-of-line, the rest of the screen erased; the name
 * column takes the width the numbers leave; as many rows as the height
 * allows; the last alert lines (fed through live__alert_file()) and a
 * legend of the columns below. Elsewhere (a pipe, a file, the journal) the
 * table is appended as plain lines, at a fixed width, the legend once.
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
#include <sys/types.h>

#include <stdarg.h>

#include "textsafe.h"

#define LIVE_MAX 512
#define LIVE_TOP 10
#define NAME_COLS 44	  /* the plain form's name column */
#define NUM_COLS 44	  /* " %6s %7s %9s %9s %5s": the numbers after the name */
#define LIVE_ALERTS 8	  /* alert lines kept for the terminal form */
#define LIVE_ALERT_LEN 512

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
	struct live_row own; /* the sensor's own processes */
	uint64_t intervals;
	bool drawn;	     /* the terminal form was drawn once: the screen is ours */
	/* the alert lines of the terminal form: a ring, and the line being written */
	char alerts[LIVE_ALERTS][LIVE_ALERT_LEN];
	uint64_t nalerts;
	char partial[LIVE_ALERT_LEN];
	size_t npartial;
	FILE *alert_file;
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
	if (!l)
		return;
	if (l->alert_file)
		fclose(l->alert_file);
	free(l);
}

/* fopencookie's write: whole lines into the ring (a line too long is cut). */
static ssize_t alert_write(void *cookie, const char *buf, size_t size)
{
	struct live *l = cookie;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] != '\n') {
			if (l->npartial < sizeof(l->partial) - 1)
				l->partial[l->npartial++] = buf[i];
			continue;
		}
		l->partial[l->npartial] = '\0';
		memcpy(l->alerts[l->nalerts % LIVE_ALERTS], l->partial, l->npartial + 1);
		l->nalerts++;
		l->npartial = 0;
	}
	return (ssize_t)size;
}

FILE *live__alert_file(struct live *l)
{
	if (!l->alert_file) {
		l->alert_file = fopencookie(l, "w", (cookie_io_functions_t){ .write = alert_write });
		if (l->alert_file)
			setvbuf(l->alert_file, NULL, _IOLBF, 0);
	}
	return l->alert_file;
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

void live__add_own(struct live *l, uint64_t cpu_ns, uint64_t offcpu_ns, uint64_t syscalls, uint64_t open_fail,
		   bool new_proc)
{
	l->own.cpu_ns += cpu_ns;
	l->own.offcpu_ns += offcpu_ns;
	l->own.syscalls += syscalls;
	l->own.open_fail += open_fail;
	l->own.procs += new_proc;
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

/* Where a line goes: the terminal form cuts it to the width (names are
 * escaped: one column per character but for UTF-8 continuation bytes) and
 * erases the rest of the row; the plain form writes it as it is. */
struct screen_out {
	FILE *f;
	const struct live_screen *sc;
	unsigned lines; /* written so far (the terminal form stops at its height) */
};

__attribute__((format(printf, 2, 3))) static void line(struct screen_out *o, const char *fmt, ...)
{
	char buf[2048];
	size_t cols = 0, i = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!o->sc->tty) {
		fprintf(o->f, "%s\n", buf);
		return;
	}
	if (o->lines + 1 >= o->sc->rows) /* the last row stays free: a newline there would scroll */
		return;
	for (; buf[i]; i++) {
		if (((unsigned char)buf[i] & 0xc0) == 0x80)
			continue;
		if (cols + 1 >= o->sc->cols) /* the last column too: some terminals wrap at it */
			break;
		cols++;
	}
	while (buf[i] && ((unsigned char)buf[i] & 0xc0) == 0x80)
		i++;
	buf[i] = '\0';
	fprintf(o->f, "%s\x1b[K\n", buf);
	o->lines++;
}

static const char legend1[] = "CPU% and WAIT%: time on CPU and off it (runnable or blocked), per second of the "
			      "interval, summed over the binary's threads and processes:";
static const char legend2[] = "  100 = one thread all the time, so 12 threads asleep read 1200. SYSCALL/s, "
			      "FAILOPN/s: syscalls, failed opens per second. PROCS: processes seen.";

/* a and b as one text, wrapped at blanks to the terminal's width */
static void wrapped(struct screen_out *o, const char *a, const char *b)
{
	char text[512];
	size_t width = o->sc->cols > 1 ? o->sc->cols - 1 : 1, len, start = 0;

	snprintf(text, sizeof(text), "%s %s", a, b);
	len = strlen(text);
	while (start < len) {
		size_t end = start + width < len ? start + width : len, cut = end;

		if (end < len) {
			while (cut > start && text[cut] != ' ')
				cut--;
			if (cut == start)
				cut = end; /* a word longer than the width: cut it */
		}
		line(o, "%.*s", (int)(cut - start), text + start);
		start = cut;
		while (text[start] == ' ')
			start++;
	}
}

static void print_row(struct screen_out *o, const char *name, const struct live_row *r, double secs, int name_cols)
{
	char esc[4 * sizeof(r->name)]; /* room for every byte escaped */
	size_t cols, off;

	/* escaped, then its last columns: the end of a path names the binary */
	text_escape_buf(esc, sizeof(esc), name, strlen(name), 0);
	off = text_tail(esc, (size_t)name_cols, &cols);
	line(o, "%s%*s %6.1f %7.1f %9.0f %9.0f %5u", esc + off, (int)((size_t)name_cols - cols), "",
	     r->cpu_ns / 1e7 / secs, r->offcpu_ns / 1e7 / secs, r->syscalls / secs, r->open_fail / secs, r->procs);
}

void live__print(struct live *l, FILE *out, const struct live_screen *sc, uint64_t interval_ns, uint32_t tracked,
		 const struct live_losses *lost)
{
	static const struct live_screen plain = { .tty = false };
	struct screen_out o = { .f = out, .sc = sc ? sc : &plain };
	double secs = interval_ns / 1e9;
	uint32_t n = l->n, top = LIVE_TOP;
	int name_cols = NAME_COLS;
	char losses[256];

	if (o.sc->tty) {
		/* the name takes what the numbers leave (at least 20 columns); the
		 * rows what the header, the sensor's row, waits, alerts and legend leave */
		name_cols = (int)o.sc->cols - 1 - NUM_COLS;
		if (name_cols < 20)
			name_cols = 20;
		if (name_cols > 200)
			name_cols = 200;
		top = o.sc->rows > 16 ? o.sc->rows - 16 : 1;
		fputs(l->drawn ? "\x1b[H" : "\x1b[H\x1b[2J", out);
		l->drawn = true;
	} else {
		fputc('\n', out);
	}
	if (l->rows[LIVE_MAX].procs)
		l->rows[n++] = l->rows[LIVE_MAX];
	qsort(l->rows, n, sizeof(l->rows[0]), by_cpu);
	line(&o, "%-*.*s %6s %7s %9s %9s %5s", name_cols, name_cols, "BINARY (busiest, last interval)", "CPU%", "WAIT%",
	     "SYSCALL/s", "FAILOPN/s", "PROCS");
	for (uint32_t i = 0; i < n && i < top; i++) {
		const struct live_row *r = &l->rows[i];

		if (!r->cpu_ns && !r->syscalls)
			break;
		print_row(&o, r->name, r, secs, name_cols);
	}
	if (l->own.cpu_ns || l->own.syscalls)
		print_row(&o, "(plumbline itself)", &l->own, secs, name_cols);
	/* who waits now, and how (stopped is not sleeping) */
	qsort(l->waits, l->nwaits, sizeof(l->waits[0]), by_wait);
	for (uint32_t i = 0; i < l->nwaits; i++) {
		const struct live_wait *w = &l->waits[i];
		char esc[4 * sizeof(w->name)];
		size_t cols, off;

		text_escape_buf(esc, sizeof(esc), w->name, strlen(w->name), 0);
		off = text_tail(esc, NAME_COLS, &cols);
		line(&o, "waiting: %s pid %u %s for %.0f s in %s", esc + off, w->pid, w->state, w->waiting_s, w->wchan);
	}
	if (l->waits_more)
		line(&o, "waiting: %u more", l->waits_more);
	l->nwaits = l->waits_more = 0;
	live__losses_text(lost, losses, sizeof(losses));
	line(&o, "-- %u processes tracked, %s so far (CPU%%: 100 = one core)", tracked, losses);
	if (o.sc->tty) {
		uint64_t k = l->nalerts > 5 ? l->nalerts - 5 : 0;

		line(&o, "%s", "");
		if (!l->nalerts)
			line(&o, "no alerts yet");
		else
			line(&o, "alerts: %llu so far, the last %llu:", (unsigned long long)l->nalerts,
			     (unsigned long long)(l->nalerts - k));
		for (; k < l->nalerts; k++)
			line(&o, "%s", l->alerts[k % LIVE_ALERTS]);
		line(&o, "%s", "");
	}
	if (o.sc->tty)
		wrapped(&o, legend1, legend2 + 2);
	else if (!l->intervals) { /* plain: once, under the first table */
		line(&o, "%s", legend1);
		line(&o, "%s", legend2);
	}
	if (o.sc->tty)
		fputs("\x1b[J", out); /* what an earlier, longer drawing left */
	fflush(out);
	memset(l->rows, 0, sizeof(l->rows));
	memset(&l->own, 0, sizeof(l->own));
	l->n = 0;
	l->intervals++;
}
