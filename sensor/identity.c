// SPDX-License-Identifier: MIT
/*
 * identity.c - exe paths, build-ids (read by identity_elf.c), content hashes
 * and cgroup paths.
 */
#include "identity.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "textsafe.h"

#define BUILDID_CACHE_SIZE 4096 /* power of two */
#define CGROUP_MAX 65536
#define CGROUP_MAX_DEPTH 32
#define CGROUP_RESCAN_NS 50000000ull

struct buildid_slot {
	bool used;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	char *build_id; /* NULL: the file has none */
	char *sha256;   /* content hash, only computed when there is no build-id */
};

struct cgroup_ent {
	uint64_t id;
	char *path;
};

struct identity {
	char cgroup2_root[256];
	struct buildid_slot buildids[BUILDID_CACHE_SIZE];
	struct cgroup_ent *cgroups;
	size_t ncgroups;
	uint64_t last_scan_ns;
};

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int identity__new(const char *cgroup2_root, struct identity **ret)
{
	struct identity *id = calloc(1, sizeof(*id));

	if (!id)
		return -ENOMEM;
	snprintf(id->cgroup2_root, sizeof(id->cgroup2_root), "%s", cgroup2_root ? cgroup2_root : "");
	*ret = id;
	return 0;
}

static void cgroups_clear(struct identity *id)
{
	for (size_t i = 0; i < id->ncgroups; i++)
		free(id->cgroups[i].path);
	free(id->cgroups);
	id->cgroups = NULL;
	id->ncgroups = 0;
}

void identity__free(struct identity *id)
{
	if (!id)
		return;
	for (size_t i = 0; i < BUILDID_CACHE_SIZE; i++) {
		free(id->buildids[i].build_id);
		free(id->buildids[i].sha256);
	}
	cgroups_clear(id);
	free(id);
}

dev_t identity__dev_from_kernel(uint32_t kdev)
{
	return makedev(kdev >> 20, kdev & 0xfffff);
}

#define HASH_MAX_BYTES (512ull << 20)

int identity__sha256_fd(int fd, char *buf, size_t size)
{
	unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	uint64_t off = 0;
	struct stat st;
	int r = 0;

	if (size < 65)
		return -EINVAL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > HASH_MAX_BYTES)
		return -EFBIG;
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof(chunk), (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		if (!EVP_DigestUpdate(ctx, chunk, (size_t)n)) {
			r = -EIO;
			break;
		}
		off += (uint64_t)n;
		if (off > HASH_MAX_BYTES) {
			r = -EFBIG;
			break;
		}
	}
	if (!r && !EVP_DigestFinal_ex(ctx, md, &mdlen))
		r = -EIO;
	EVP_MD_CTX_free(ctx);
	for (unsigned int i = 0; !r && i < mdlen && i * 2 + 2 < size; i++)
		snprintf(buf + i * 2, 3, "%02x", md[i]);
	return r;
}

/* The cache slot of the file open at fd, filled on first sight. */
static struct buildid_slot *cached_ids(struct identity *id, int fd, const struct stat *st)
{
	size_t h = (size_t)((st->st_ino * 0x9e3779b97f4a7c15ull) ^ st->st_dev) & (BUILDID_CACHE_SIZE - 1);
	struct buildid_slot *s = &id->buildids[h];
	char buf[129];

	if (s->used && s->dev == st->st_dev && s->ino == st->st_ino && s->size == st->st_size &&
	    s->mtime.tv_sec == st->st_mtim.tv_sec && s->mtime.tv_nsec == st->st_mtim.tv_nsec)
		return s;
	/* direct-mapped: a colliding binary replaces the slot */
	free(s->build_id);
	free(s->sha256);
	*s = (struct buildid_slot){ .used = true, .dev = st->st_dev, .ino = st->st_ino, .mtime = st->st_mtim,
				    .size = st->st_size };
	if (identity__read_build_id(fd, buf, sizeof(buf)) == 0)
		s->build_id = strdup(buf);
	else if (identity__sha256_fd(fd, buf, sizeof(buf)) == 0)
		s->sha256 = strdup(buf);
	return s;
}

static void take_ids(struct exe_info *ret, const struct buildid_slot *s)
{
	char *id = NULL;

	if (ret->binary_id)
		return;
	ret->build_id = s->build_id ? strdup(s->build_id) : NULL;
	if (s->build_id && asprintf(&id, "build-id:%s", s->build_id) < 0)
		id = NULL;
	else if (!s->build_id && s->sha256 && asprintf(&id, "sha256:%s", s->sha256) < 0)
		id = NULL;
	free(ret->binary_id);
	ret->binary_id = id;
}

void identity__resolve_exe(struct identity *id, pid_t pid, uint32_t kdev, uint64_t ino, const char *filename,
			   struct exe_info *ret)
{
	dev_t dev = identity__dev_from_kernel(kdev);
	char proc[64], link[PATH_MAX];
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t n;

	memset(ret, 0, sizeof(*ret));
	snprintf(proc, sizeof(proc), "/proc/%d/exe", (int)pid);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino) {
		n = readlink(proc, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			ret->path = strdup(link);
		}
		take_ids(ret, cached_ids(id, fd, &st));
		if (ret->path)
			goto done;
	}
	/* The process is gone (or exec'd again): fall back to the exec'd name. */
	if (fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (filename && filename[0] == '/') {
		fd = open(filename, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino && !ret->binary_id)
			take_ids(ret, cached_ids(id, fd, &st));
	}
	if (!ret->path && filename && filename[0])
		ret->path = strdup(filename);
done:
	/* the file itself is gone: its kernel identity is all there is */
	if (!ret->binary_id && asprintf(&ret->binary_id, "file:%u:%u:%llu", major(dev), minor(dev),
					(unsigned long long)ino) < 0)
		ret->binary_id = NULL;
}

void exe_info__clear(struct exe_info *e)
{
	free(e->path);
	free(e->build_id);
	free(e->binary_id);
	memset(e, 0, sizeof(*e));
}

static void cgroup_scan(struct identity *id, int dfd, char *rel, size_t rel_len, size_t cap, int depth)
{
	_cleanup_(closedirp_) DIR *d = NULL;
	struct dirent *de;
	struct stat st;

	if (fstat(dfd, &st) == 0 && id->ncgroups < CGROUP_MAX) {
		struct cgroup_ent *n = realloc(id->cgroups, (id->ncgroups + 1) * sizeof(*n));

		if (n) {
			id->cgroups = n;
			n[id->ncgroups].id = st.st_ino;
			n[id->ncgroups].path = strdup(rel_len ? rel : "/");
			if (n[id->ncgroups].path)
				id->ncgroups++;
		}
	}
	if (depth >= CGROUP_MAX_DEPTH) {
		close(dfd);
		return;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		int sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.' || rel_len + 1 + l + 1 > cap)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (sub < 0)
			continue;
		rel[rel_len] = '/';
		memcpy(rel + rel_len + 1, de->d_name, l + 1);
		cgroup_scan(id, sub, rel, rel_len + 1 + l, cap, depth + 1);
		rel[rel_len] = '\0';
	}
}

const char *identity__cgroup_path(struct identity *id, uint64_t cgid)
{
	char rel[PATH_MAX];
	uint64_t now;
	int fd;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < id->ncgroups; i++)
			if (id->cgroups[i].id == cgid)
				return id->cgroups[i].path;
		now = now_mono_ns();
		if (pass || !id->cgroup2_root[0] || now - id->last_scan_ns < CGROUP_RESCAN_NS)
			return NULL;
		id->last_scan_ns = now;
		cgroups_clear(id);
		fd = open(id->cgroup2_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		rel[0] = '\0';
		cgroup_scan(id, fd, rel, 0, sizeof(rel), 0);
	}
	return NULL;
}

char *identity__proc_cmdline(pid_t pid, size_t max)
{
	char p[64];
	_cleanup_free_ char *buf = malloc(max);
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (!buf)
		return NULL;
	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, max);
	if (n <= 0)
		return NULL;
	return text_cmdline(buf, (size_t)n);
}
