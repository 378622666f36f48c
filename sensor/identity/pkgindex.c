// SPDX-License-Identifier: MIT
/*
 * pkgindex.c - which installed package owns a file (see pkgindex.h).
 *
 * One table per build: open addressing over FNV-1a hashes of the paths,
 * each entry a path and the index of its package's name. A build reads
 * every <pkg>.list of the info directory (a few thousand files, ~100k
 * lines on a desktop, ~100 ms) on its own thread and hands the table over
 * through `done`; the event loop takes it at its next question.
 */
#include "identity/pkgindex.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "thread.h"

struct pkg_table {
	char **paths;   /* slots: NULL empty */
	uint32_t *pkg;  /* the package of each slot */
	size_t cap, n;  /* cap a power of 2 */
	char **pkgs;    /* package names */
	size_t npkgs, pkg_cap;
};

struct pkgindex {
	char *info_dir, *status;
	struct pkg_table *cur;     /* answering (event loop only) */
	struct pkg_table *built;   /* handed over by the builder */
	atomic_bool done;          /* built is set */
	bool running;              /* a builder thread exists (not joined yet) */
	bool absent;               /* no info directory: every answer unknown */
	pthread_t th;
	int64_t stamp_ns;          /* mtimes the current build saw (sum) */
	int64_t building_stamp;
	uint64_t checked_ns;
	char name[256];
};

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/*
 * Whether path is one the index holds: what can be mapped as code, a shared
 * object (a name with ".so": libraries, PAM and NSS modules, plugins,
 * Python extensions) or a program (under a bin, sbin or libexec
 * directory). The rest of a package (documentation, data, Python sources:
 * four fifths of dpkg's paths on a desktop) is never asked about: leaving it
 * out keeps the index a few MB, not 15.
 */
static bool indexable(const char *path, size_t len)
{
	const char *name = memrchr(path, '/', len);

	name = name ? name + 1 : path;
	return memmem(name, len - (size_t)(name - path), ".so", 3) || memmem(path, len, "/bin/", 5) ||
	       memmem(path, len, "/sbin/", 6) || memmem(path, len, "/libexec/", 9);
}

static void table_free(struct pkg_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->paths[i]);
	for (size_t i = 0; i < t->npkgs; i++)
		free(t->pkgs[i]);
	free(t->paths);
	free(t->pkg);
	free(t->pkgs);
	free(t);
}

static int table_grow(struct pkg_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1u << 16;
	char **paths = calloc(cap, sizeof(*paths));
	uint32_t *pkg = calloc(cap, sizeof(*pkg));

	if (!paths || !pkg) {
		free(paths);
		free(pkg);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->paths[i])
			continue;
		for (j = fnv(t->paths[i], strlen(t->paths[i])) & (cap - 1); paths[j]; j = (j + 1) & (cap - 1))
			;
		paths[j] = t->paths[i];
		pkg[j] = t->pkg[i];
	}
	free(t->paths);
	free(t->pkg);
	t->paths = paths;
	t->pkg = pkg;
	t->cap = cap;
	return 0;
}

static long table_find(const struct pkg_table *t, const char *path, size_t len)
{
	if (!t || !t->cap)
		return -1;
	for (size_t j = fnv(path, len) & (t->cap - 1); t->paths[j]; j = (j + 1) & (t->cap - 1))
		if (strlen(t->paths[j]) == len && memcmp(t->paths[j], path, len) == 0)
			return (long)j;
	return -1;
}

static int table_add(struct pkg_table *t, const char *path, size_t len, uint32_t pkg)
{
	size_t j;

	if ((t->n + 1) * 2 > t->cap && table_grow(t) < 0)
		return -ENOMEM;
	if (table_find(t, path, len) >= 0)
		return 0; /* a directory many packages list: the first keeps it */
	for (j = fnv(path, len) & (t->cap - 1); t->paths[j]; j = (j + 1) & (t->cap - 1))
		;
	t->paths[j] = strndup(path, len);
	if (!t->paths[j])
		return -ENOMEM;
	t->pkg[j] = pkg;
	t->n++;
	return 0;
}

static int add_pkg(struct pkg_table *t, const char *name, size_t len, uint32_t *ret)
{
	if (t->npkgs == t->pkg_cap) {
		size_t cap = t->pkg_cap ? t->pkg_cap * 2 : 1024;
		char **p = realloc(t->pkgs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->pkgs = p;
		t->pkg_cap = cap;
	}
	t->pkgs[t->npkgs] = strndup(name, len);
	if (!t->pkgs[t->npkgs])
		return -ENOMEM;
	*ret = (uint32_t)t->npkgs++;
	return 0;
}

static int read_list(struct pkg_table *t, int dfd, const char *file, uint32_t pkg)
{
	char line[4096];
	FILE *f;
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		if (n == 0 || line[0] != '/' || !indexable(line, n))
			continue;
		if (table_add(t, line, n, pkg) < 0) {
			fclose(f);
			return -ENOMEM;
		}
	}
	fclose(f);
	return 0;
}

static struct pkg_table *build(const char *dir)
{
	struct pkg_table *t = calloc(1, sizeof(*t));
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!t || !d || table_grow(t) < 0) {
		if (d)
			closedir(d);
		table_free(t);
		return NULL;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		uint32_t pkg;

		if (n <= 5 || strcmp(e->d_name + n - 5, ".list") != 0)
			continue;
		if (add_pkg(t, e->d_name, n - 5, &pkg) < 0 || read_list(t, dirfd(d), e->d_name, pkg) < 0) {
			closedir(d);
			table_free(t);
			return NULL;
		}
	}
	closedir(d);
	return t;
}

static void *builder(void *arg)
{
	struct pkgindex *x = arg;

	x->built = build(x->info_dir);
	atomic_store(&x->done, true);
	return NULL;
}

static int64_t stamp_of(const struct pkgindex *x)
{
	struct stat a, b;
	int64_t s = 0;

	if (stat(x->info_dir, &a) == 0)
		s += (int64_t)a.st_mtim.tv_sec * 1000000000 + a.st_mtim.tv_nsec;
	else
		return -1;
	if (stat(x->status, &b) == 0)
		s += (int64_t)b.st_mtim.tv_sec * 1000000000 + b.st_mtim.tv_nsec;
	return s;
}

int pkgindex__new(const char *info_dir, const char *status, struct pkgindex **ret)
{
	struct pkgindex *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->info_dir = strdup(info_dir ? info_dir : "/var/lib/dpkg/info");
	if (status)
		x->status = strdup(status);
	else if (x->info_dir && asprintf(&x->status, "%s/../status", x->info_dir) < 0)
		x->status = NULL;
	if (!x->info_dir || !x->status) {
		free(x->info_dir);
		free(x->status);
		free(x);
		return -ENOMEM;
	}
	x->stamp_ns = -1;
	*ret = x;
	return 0;
}

void pkgindex__wait(struct pkgindex *x)
{
	if (!x || !x->running)
		return;
	pthread_join(x->th, NULL);
	x->running = false;
}

void pkgindex__free(struct pkgindex *x)
{
	if (!x)
		return;
	pkgindex__wait(x);
	table_free(x->built); /* a build nobody took */
	table_free(x->cur);
	free(x->info_dir);
	free(x->status);
	free(x);
}

uint64_t pkgindex__paths(const struct pkgindex *x)
{
	return x && x->cur ? x->cur->n : 0;
}

int pkgindex__build_now(struct pkgindex *x)
{
	struct pkg_table *t;

	pkgindex__wait(x);
	x->stamp_ns = stamp_of(x);
	t = build(x->info_dir);
	if (!t)
		return -errno ? -errno : -ENOMEM;
	table_free(x->cur);
	x->cur = t;
	return 0;
}

/* Take a finished build; start one when there is none or dpkg changed. */
static void refresh(struct pkgindex *x, uint64_t now)
{
	int64_t stamp;

	if (atomic_load(&x->done)) {
		pkgindex__wait(x);
		atomic_store(&x->done, false);
		if (x->built) {
			table_free(x->cur);
			x->cur = x->built;
			x->stamp_ns = x->building_stamp;
		}
		x->built = NULL;
	}
	if (x->running || (x->checked_ns && now - x->checked_ns < PKGINDEX_RECHECK_NS))
		return;
	x->checked_ns = now ? now : 1;
	stamp = stamp_of(x);
	x->absent = stamp < 0;
	if (x->absent || (x->cur && stamp == x->stamp_ns))
		return;
	x->building_stamp = stamp;
	if (pl_thread_start(&x->th, builder, x) == 0)
		x->running = true;
}

static const char *answer(const struct pkgindex *x, long slot)
{
	return x->cur->pkgs[x->cur->pkg[slot]];
}

enum pkg_owner pkgindex__owner(struct pkgindex *x, const char *path, uint64_t now_ns, const char **pkg)
{
	size_t len;
	long slot;

	if (pkg)
		*pkg = NULL;
	if (!x || !path || path[0] != '/')
		return PKG_UNKNOWN;
	refresh(x, now_ns);
	len = strlen(path);
	if (x->absent || !x->cur || !indexable(path, len))
		return PKG_UNKNOWN;
	slot = table_find(x->cur, path, len);
	if (slot < 0 && strncmp(path, "/usr/", 5) == 0)
		slot = table_find(x->cur, path + 4, len - 4);
	if (slot < 0 && len + 4 < sizeof(x->name)) {
		snprintf(x->name, sizeof(x->name), "/usr%s", path);
		slot = table_find(x->cur, x->name, len + 4);
	}
	if (slot < 0)
		return PKG_NONE;
	if (pkg)
		*pkg = answer(x, slot);
	return PKG_OWNED;
}
