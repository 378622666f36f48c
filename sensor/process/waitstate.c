// SPDX-License-Identifier: MIT
/*
 * waitstate.c - what a waiting process waits on, from /proc and the
 * kernel stacks the sensor's BPF programs read (see waitstate.h).
 */
#include "process/waitstate.h"
#include "lineread.h"
#include "plumbline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS_SCANNED 256
/* BPF records read for one process: one per thread, as many as /proc's
 * threads are looked at (a bigger process is cut there too). */
#define MAX_RECS PL_WAIT_MAX_RECS
_Static_assert(PL_WAIT_MAX_RECS == MAX_THREADS_SCANNED, "as many stacks as threads looked at");

/* The state letter after the last ')' of a stat line (comm may hold ')'). */
static char stat_state(const char *path)
{
	char buf[512];
	const char *p;

	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return 0;
	return p[2];
}

char waitstate__proc_state(uint32_t tgid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/stat", tgid);
	return stat_state(path);
}

/* A symbol name: letters, digits, '_' and '.', bounded; "" otherwise. */
static void symbol(char *dst, const char *src, size_t len)
{
	size_t n = 0;

	while (n < len && n < PL_WAIT_NAME - 1 &&
	       ((src[n] >= 'a' && src[n] <= 'z') || (src[n] >= 'A' && src[n] <= 'Z') ||
		(src[n] >= '0' && src[n] <= '9') || src[n] == '_' || src[n] == '.'))
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "[<0>] pipe_read+0x31e/0x420" lines: the names only. */
static void read_stack(const char *dir, struct pl_wait_thread *t)
{
	char path[96], buf[4096], *line, *save = NULL;

	if (snprintf(path, sizeof(path), "%s/stack", dir) >= (int)sizeof(path)) /* never a truncated path */
		return;
	/* nothing read is not an empty stack: without CAP_SYS_ADMIN the open
	 * succeeds and the read fails (EACCES), which read_small_file() ends
	 * as 0 bytes; a waiting user thread always has frames */
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return;
	t->stack_read = true;
	t->stack_source = PL_WAIT_STACK_PROC;
	for (line = strtok_r(buf, "\n", &save); line && t->nframes < PL_WAIT_FRAMES; line = strtok_r(NULL, "\n", &save)) {
		char *name = strchr(line, ']');

		name = name ? name + 1 : line;
		while (*name == ' ')
			name++;
		symbol(t->frames[t->nframes], name, strlen(name));
		if (t->frames[t->nframes][0])
			t->nframes++;
	}
}

size_t waitstate__parse_recs(const void *buf, size_t len, uint32_t tgid, struct pl_wait_rec *recs, size_t max,
			     uint32_t *ret_bad)
{
	const unsigned char *p = buf;
	uint32_t bad = 0;
	size_t n = 0;

	/* fixed-size records: a bad one is skipped whole, the next one still
	 * starts where the kernel wrote it */
	for (size_t off = 0; p && len - off >= sizeof(struct pl_wait_rec) && n < max; off += sizeof(struct pl_wait_rec)) {
		struct pl_wait_rec r;

		memcpy(&r, p + off, sizeof(r)); /* buf need not be aligned */
		if (r.version != PL_ABI_VERSION || r.size != sizeof(r) || r.tgid != tgid || !r.tid ||
		    r.nframes > PL_WAIT_KFRAMES) {
			bad++;
			continue;
		}
		if (r.nframes < 0)
			r.nframes = 0; /* the kernel could not walk it: /proc may */
		recs[n++] = r;
	}
	if (ret_bad)
		*ret_bad = bad;
	return n;
}

static const struct pl_wait_rec *find_rec(const struct pl_wait_rec *recs, size_t n, uint32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (recs[i].tid == tid)
			return &recs[i];
	return NULL;
}

/* The thread's stack from its BPF record, named: false (nothing kept)
 * when it has none, was running when walked, or no frame has a name. */
static bool bpf_stack(const struct waitstate_kstacks *ks, const struct pl_wait_rec *r, struct pl_wait_thread *t)
{
	if (!r || !r->state || r->nframes <= 0)
		return false;
	for (int32_t i = 0; i < r->nframes && i < PL_WAIT_KFRAMES && t->nframes < PL_WAIT_FRAMES; i++) {
		char name[2 * PL_WAIT_NAME] = "";

		ks->name(ks->name_ctx, r->ips[i], name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		/* the same filter as /proc's lines: a name, never an address */
		symbol(t->frames[t->nframes], name, strlen(name));
		if (t->frames[t->nframes][0])
			t->nframes++;
	}
	if (!t->nframes)
		return false;
	t->stack_read = true;
	t->stack_source = PL_WAIT_STACK_BPF;
	return true;
}

/* The BPF records of process tgid into *recs (malloc'd): how many, 0 when
 * there is no BPF source or it failed (then /proc is all there is). */
static size_t read_recs(const struct waitstate_kstacks *ks, uint32_t tgid, struct pl_wait_rec **recs)
{
	void *raw;
	long got;
	size_t n = 0;

	*recs = NULL;
	if (!ks || !ks->read || !ks->name)
		return 0;
	raw = malloc(MAX_RECS * sizeof(struct pl_wait_rec));
	*recs = malloc(MAX_RECS * sizeof(struct pl_wait_rec));
	if (raw && *recs) {
		got = ks->read(ks->read_ctx, tgid, raw, MAX_RECS * sizeof(struct pl_wait_rec));
		if (got > 0)
			n = waitstate__parse_recs(raw, (size_t)got, tgid, *recs, MAX_RECS, NULL);
	}
	free(raw);
	return n;
}

static void read_wchan(const char *dir, struct pl_wait_thread *t)
{
	char path[96], buf[PL_WAIT_NAME];

	if (snprintf(path, sizeof(path), "%s/wchan", dir) >= (int)sizeof(path))
		return;
	if (read_small_file(path, buf, sizeof(buf)) <= 0 || strcmp(buf, "0") == 0)
		return;
	symbol(t->wchan, buf, strlen(buf));
}

/* How telling a thread's state is about why the process waits. */
static int rank(char st)
{
	switch (st) {
	case 'T':
	case 't':
		return 4;
	case 'D':
		return 3;
	case 'R':
		return 2;
	case 'S':
		return 1;
	}
	return 0;
}

int waitstate__read(uint32_t tgid, const struct waitstate_kstacks *ks, struct pl_wait *ret)
{
	struct pl_wait_rec *recs = NULL;
	size_t nrecs;
	char dir[64], tdir[96];
	struct dirent *de;
	char main_state = 0, best = 0;
	uint32_t scanned = 0;
	DIR *d;

	memset(ret, 0, sizeof(*ret));
	snprintf(dir, sizeof(dir), "/proc/%u/task", tgid);
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	nrecs = read_recs(ks, tgid, &recs);
	while ((de = readdir(d)) && scanned < MAX_THREADS_SCANNED) {
		char *end, st;
		unsigned long tid = strtoul(de->d_name, &end, 10);
		struct pl_wait_thread *t;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || tid > UINT32_MAX)
			continue;
		scanned++;
		snprintf(tdir, sizeof(tdir), "%s/%lu", dir, tid);
		snprintf(tdir + strlen(tdir), sizeof(tdir) - strlen(tdir), "/stat");
		st = stat_state(tdir);
		tdir[strlen(tdir) - 5] = '\0';
		if (!st)
			continue; /* gone meanwhile */
		ret->threads++;
		ret->runq += st == 'R';
		ret->blocked += st == 'S' || st == 'D';
		ret->stopped += st == 'T' || st == 't';
		if (tid == tgid)
			main_state = st;
		if (rank(st) > rank(best))
			best = st;
		if (st == 'R' || ret->nt == PL_WAIT_THREADS)
			continue;
		t = &ret->t[ret->nt++];
		t->tid = (uint32_t)tid;
		t->state = st;
		read_wchan(tdir, t);
		if (!bpf_stack(ks, find_rec(recs, nrecs, t->tid), t))
			read_stack(tdir, t);
	}
	closedir(d);
	free(recs);
	if (!ret->threads)
		return -ENOENT;
	ret->state = rank(best) >= 2 ? best : main_state ? main_state : best;
	/* the main thread first when it waits: it names what the process waits on */
	for (uint32_t i = 1; i < ret->nt; i++)
		if (ret->t[i].tid == tgid || rank(ret->t[i].state) > rank(ret->t[0].state)) {
			struct pl_wait_thread tmp = ret->t[0];

			ret->t[0] = ret->t[i];
			ret->t[i] = tmp;
		}
	return 0;
}
