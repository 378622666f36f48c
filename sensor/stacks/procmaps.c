// SPDX-License-Identifier: MIT
/*
 * procmaps.c - executable mappings per process, from the kernel's reports
 * and /proc/PID/maps (procmaps.h).
 */
#include "stacks/procmaps.h"
#include "stacks/vdso.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileread.h"
#include "hash.h"
#include "identity/identity.h"

#define PROC_BUCKETS 8192
#define PATH_SLOTS (2 * PROCMAPS_MAX_PATHS)
#define BID_SLOTS 16384
#define REREAD_NS 1000000000ull

struct pproc {
	uint32_t tgid;
	uint64_t tried_image; /* the image /proc was last read for, 0: never */
	uint64_t read_ns;     /* when (monotonic) */
	uint64_t used;     /* LRU tick */
	struct unwind_map *maps;
	uint32_t n, cap;
	struct pproc *next;
};

/* The build-id of a file as /proc/PID/maps names it (device, inode, path). */
struct bid_slot {
	bool used, has;
	unsigned long long ino;
	const char *path; /* interned */
	char dev[16];
	uint8_t bid[UNWIND_BUILD_ID_SIZE];
};

struct procmaps {
	struct pproc *buckets[PROC_BUCKETS];
	uint32_t nprocs;
	uint64_t tick;
	char **paths; /* interned, open addressing */
	uint32_t npaths;
	struct bid_slot *bids;
	struct procmaps_stats st;
};

int procmaps__new(struct procmaps **ret)
{
	struct procmaps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return -ENOMEM;
	pm->paths = calloc(PATH_SLOTS, sizeof(*pm->paths));
	pm->bids = calloc(BID_SLOTS, sizeof(*pm->bids));
	if (!pm->paths || !pm->bids) {
		procmaps__free(pm);
		return -ENOMEM;
	}
	*ret = pm;
	return 0;
}

void procmaps__free(struct procmaps *pm)
{
	if (!pm)
		return;
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct pproc *p = pm->buckets[b], *nx; p; p = nx) {
			nx = p->next;
			free(p->maps);
			free(p);
		}
	for (size_t i = 0; pm->paths && i < PATH_SLOTS; i++)
		free(pm->paths[i]);
	free(pm->paths);
	free(pm->bids);
	free(pm);
}

const struct procmaps_stats *procmaps__stats(const struct procmaps *pm)
{
	return &pm->st;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The one copy of path, or NULL when the table is full. */
static const char *intern(struct procmaps *pm, const char *path)
{
	uint64_t h = str_hash(path);

	for (uint32_t i = 0; i < PATH_SLOTS; i++) {
		char **slot = &pm->paths[(h + i) & (PATH_SLOTS - 1)];

		if (*slot && !strcmp(*slot, path))
			return *slot;
		if (*slot)
			continue;
		if (pm->npaths >= PROCMAPS_MAX_PATHS || !(*slot = strdup(path))) {
			pm->st.paths_refused++;
			return NULL;
		}
		pm->npaths++;
		return *slot;
	}
	return NULL;
}

static struct pproc **proc_slot(struct procmaps *pm, uint32_t tgid)
{
	struct pproc **pp = &pm->buckets[(tgid * 2654435761u) & (PROC_BUCKETS - 1)];

	while (*pp && (*pp)->tgid != tgid)
		pp = &(*pp)->next;
	return pp;
}

static void drop(struct procmaps *pm, struct pproc **pp)
{
	struct pproc *p = *pp;

	*pp = p->next;
	free(p->maps);
	free(p);
	pm->nprocs--;
}

/* The least recently used process leaves (only when the table is full). */
static void evict_one(struct procmaps *pm)
{
	struct pproc **victim = NULL;

	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct pproc **pp = &pm->buckets[b]; *pp; pp = &(*pp)->next)
			if (!victim || (*pp)->used < (*victim)->used)
				victim = pp;
	if (victim) {
		drop(pm, victim);
		pm->st.evicted++;
	}
}

static struct pproc *get_proc(struct procmaps *pm, uint32_t tgid, bool create)
{
	struct pproc **pp = proc_slot(pm, tgid), *p = *pp;

	if (!p && create) {
		if (pm->nprocs >= PROCMAPS_MAX_PROCS) {
			evict_one(pm);
			pp = proc_slot(pm, tgid);
		}
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->tgid = tgid;
		*pp = p;
		pm->nprocs++;
	}
	if (p)
		p->used = ++pm->tick;
	return p;
}

/* Insert m in start order; mappings it overlaps leave (the address space
 * changed under them: an munmap the kernel does not report, an exec). */
static void insert(struct procmaps *pm, struct pproc *p, const struct unwind_map *m)
{
	uint32_t at = 0, out = 0;

	if (m->end <= m->start)
		return;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->maps[i].end <= m->start || p->maps[i].start >= m->end)
			p->maps[out++] = p->maps[i];
	p->n = out;
	if (p->n == p->cap) {
		uint32_t ncap = p->cap ? 2 * p->cap : 16;
		struct unwind_map *nm;

		if (p->n >= PROCMAPS_MAX_MAPS || !(nm = realloc(p->maps, ncap * sizeof(*nm)))) {
			pm->st.maps_refused++;
			return;
		}
		p->maps = nm;
		p->cap = ncap;
	}
	while (at < p->n && p->maps[at].start < m->start)
		at++;
	memmove(&p->maps[at + 1], &p->maps[at], (p->n - at) * sizeof(*p->maps));
	p->maps[at] = *m;
	p->n++;
}

/* The vDSO's build-id: the sensor's own image stands for every process's. */
static void vdso_id(struct unwind_map *m)
{
	const struct vdso *v = vdso__get();

	if (v && v->build_id_len) {
		memcpy(m->build_id, v->build_id, v->build_id_len);
		m->has_build_id = true;
	}
}

void procmaps__on_mmap(struct procmaps *pm, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		       const uint8_t *build_id, size_t bid_len, const char *path)
{
	struct unwind_map m = { .start = addr, .end = addr + len, .pgoff = pgoff };
	struct pproc *p;

	pm->st.reports++;
	if (!path || (path[0] != '/' && !vdso__is(path)) || addr + len < addr || !(m.path = intern(pm, path)))
		return;
	if (build_id && bid_len && bid_len <= UNWIND_BUILD_ID_SIZE) {
		memcpy(m.build_id, build_id, bid_len);
		m.has_build_id = true;
	} else if (vdso__is(path)) {
		vdso_id(&m);
	}
	p = get_proc(pm, pid, true);
	if (p)
		insert(pm, p, &m);
}

/* The build-id of the file at path (as /proc names it: dev, ino), cached. */
static bool build_id_of(struct procmaps *pm, const char *path, const char *dev, unsigned long long ino,
			uint8_t bid[UNWIND_BUILD_ID_SIZE])
{
	uint64_t h = str_hash(path) ^ (ino * 0x9e3779b97f4a7c15ull) ^ str_hash(dev);
	struct bid_slot *s = &pm->bids[h & (BID_SLOTS - 1)];
	struct stat st;
	int fd;

	if (s->used && s->ino == ino && s->path == path && !strcmp(s->dev, dev))
		goto out;
	*s = (struct bid_slot){ .used = true, .ino = ino, .path = path };
	snprintf(s->dev, sizeof(s->dev), "%s", dev);
	fd = file_open_regular(path, SIZE_MAX, 0, &st, NULL); /* a regular file, never a device */
	if (fd >= 0) {
		s->has = identity__read_build_id_bytes(fd, s->bid, UNWIND_BUILD_ID_SIZE) > 0;
		close(fd);
	}
out:
	memcpy(bid, s->bid, UNWIND_BUILD_ID_SIZE);
	return s->has;
}

/* Read /proc/TGID/maps into p (its executable file mappings replace what
 * was known). false when the process is gone (p unchanged). */
static bool read_proc(struct procmaps *pm, struct pproc *p)
{
	char path[64], line[4096 + 160];
	_cleanup_fclose_ FILE *f = NULL;
	uint32_t n = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", p->tgid);
	f = fopen(path, "re");
	pm->st.proc_reads++;
	if (!f) {
		pm->st.proc_gone++;
		return false;
	}
	p->n = 0;
	while (fgets(line, sizeof(line), f) && n < PROCMAPS_MAX_MAPS) {
		unsigned long long start, end, pgoff, ino;
		char perms[8], dev[16], file[4096] = "";
		struct unwind_map m = { 0 };

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %4095[^\n]", &start, &end, perms, &pgoff, dev, &ino,
			   file) < 7 ||
		    (file[0] != '/' && !vdso__is(file)) || !strchr(perms, 'x'))
			continue;
		m = (struct unwind_map){ .start = start, .end = end, .pgoff = pgoff, .path = intern(pm, file) };
		if (!m.path)
			continue;
		if (vdso__is(file))
			vdso_id(&m);
		else
			m.has_build_id = build_id_of(pm, m.path, dev, ino, m.build_id);
		insert(pm, p, &m);
		n++;
	}
	return true;
}

bool procmaps__get(struct procmaps *pm, uint32_t tgid, uint64_t image_id, bool refresh, uint64_t now_ns,
		   struct unwind_maps *ret)
{
	struct pproc *p = get_proc(pm, tgid, true);

	*ret = (struct unwind_maps){ 0 };
	if (!p)
		return false;
	/* once per image, and again for an address not found at most once a
	 * second; what the reports said stays when /proc cannot be read (gone) */
	if (p->tried_image != image_id || (refresh && now_ns - p->read_ns >= REREAD_NS)) {
		p->tried_image = image_id;
		p->read_ns = now_ns;
		read_proc(pm, p);
	}
	ret->maps = p->maps;
	ret->n = p->n;
	return p->n > 0;
}

void procmaps__forget(struct procmaps *pm, uint32_t tgid)
{
	struct pproc **pp = proc_slot(pm, tgid);

	if (*pp)
		drop(pm, pp);
}
