// SPDX-License-Identifier: MIT
/*
 * identity.c - exe paths, the binary_id cache, content hashes, cgroup paths.
 *
 * Build-ids are read by identity_elf.c, with a few bounded preads. Content
 * hashes are computed by one worker thread. The loop and the worker
 * share only the job table below, under `lock`; everything else (the cache,
 * the counters, the cgroup table) is the loop's alone.
 *
 * A job's life: FREE -> QUEUED (the loop, with a dup of the file's fd) ->
 * RUNNING (the worker took it) -> DONE (the worker posted the result and
 * signalled the eventfd) -> FREE (identity__completed(): the fd is closed,
 * the result cached and reported). A job holds its entry until the loop has
 * collected it, so the queue's bound counts every file not yet reported.
 */
#include "identity/identity.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "sha256fd.h"
#include "textsafe.h"
#include "thread.h"

#define BUILDID_CACHE_SIZE 4096 /* power of two */
#define PATH_CACHE_SIZE 4096    /* power of two: (dev, ino) -> canonical path */
#define CGROUP_MAX 65536
#define CGROUP_MAX_DEPTH 32
#define CGROUP_RESCAN_NS 50000000ull

#define HASH_MAX_BYTES (512ull << 20)

/* What a cached binary is known by: a rewrite changes size, mtime or ctime
 * (mtime alone can be set back with utimensat(2); ctime cannot). */
struct file_key {
	dev_t dev;
	ino_t ino;
	uint64_t size;
	uint64_t mtime_ns, ctime_ns;
};

struct buildid_slot {
	bool used;
	struct file_key key;
	char *build_id; /* NULL: the file has none; else what it claims, trusted or not */
	bool trusted;   /* only root could have written it: its build-id is its identity */
	char *sha256;   /* content hash, computed when there is no trusted build-id; NULL
			 * then: the file could not be hashed ("file:" id) */
	char *path;     /* its name as /proc/PID/exe read it, the first time; NULL: not read yet */
	char *binary_id; /* made from the above once (slot_binary_id()) */
};

/* A file's canonical name, verified against its (dev, ino) when it was
 * stored: so a process that ended before the sensor looked is named as the
 * one that lived. */
struct path_slot {
	dev_t dev;
	ino_t ino;
	char *path; /* NULL: free */
};

struct cgroup_ent {
	uint64_t id;
	char *path;
};

enum job_state { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct hash_job {
	enum job_state state;
	uint64_t seq; /* queue order */
	int fd;
	uint32_t kdev; /* as the kernel (and the caller) named the file */
	uint64_t ino;
	struct file_key key; /* the file when it was queued */
	char build_id[129];  /* the build-id it claims (not trusted), "" for none */
	/* set by the worker, with state DONE */
	int result; /* 0, -ESTALE (the file changed), -errno */
	uint64_t ns;
	char sha256[65];
};

struct identity {
	char cgroup2_root[256];
	struct buildid_slot buildids[BUILDID_CACHE_SIZE];
	struct path_slot paths[PATH_CACHE_SIZE];
	struct cgroup_ent *cgroups;
	size_t ncgroups;
	uint64_t last_scan_ns;
	struct identity_stats stats;
	/* shared with the worker: the jobs' states and results under lock */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a job was queued, or stop */
	struct hash_job jobs[IDENTITY_HASH_QUEUE];
	uint64_t next_seq;
	atomic_bool stop;
	int efd; /* the worker's "done" signal to the loop */
	pthread_t worker;
	bool have_worker;
};

static struct file_key key_of(const struct stat *st)
{
	return (struct file_key){ .dev = st->st_dev, .ino = st->st_ino, .size = (uint64_t)st->st_size,
				  .mtime_ns = timespec_ns(&st->st_mtim), .ctime_ns = timespec_ns(&st->st_ctim) };
}

static bool key_equal(const struct file_key *a, const struct file_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

/* ---- the worker ---- */

/* The oldest queued job, or NULL. Under lock. */
static struct hash_job *next_job(struct identity *id)
{
	struct hash_job *next = NULL;

	for (size_t i = 0; i < IDENTITY_HASH_QUEUE; i++)
		if (id->jobs[i].state == JOB_QUEUED && (!next || id->jobs[i].seq < next->seq))
			next = &id->jobs[i];
	return next;
}

/* Hash the file as it was queued: -ESTALE when it is not that file any more
 * (rewritten meanwhile, or during the hash), so a process is never given the
 * hash of content it did not run. */
static int hash_job_file(int fd, const struct file_key *key, const atomic_bool *stop, char *hex)
{
	struct stat st;
	struct file_key now;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	now = key_of(&st);
	if (!key_equal(&now, key))
		return -ESTALE;
	r = sha256_fd(fd, HASH_MAX_BYTES, stop, hex);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return -errno;
	now = key_of(&st);
	return key_equal(&now, key) ? 0 : -ESTALE;
}

static void *hash_worker(void *arg)
{
	struct identity *id = arg;
	const uint64_t one = 1;

	pthread_mutex_lock(&id->lock);
	for (;;) {
		struct hash_job *j = NULL;
		struct file_key key;
		char hex[65] = "";
		uint64_t t0;
		ssize_t w;
		int fd, r;

		while (!atomic_load(&id->stop) && !(j = next_job(id)))
			pthread_cond_wait(&id->wake, &id->lock);
		if (atomic_load(&id->stop))
			break;
		j->state = JOB_RUNNING;
		fd = j->fd;
		key = j->key;
		pthread_mutex_unlock(&id->lock);

		t0 = mono_ns();
		r = hash_job_file(fd, &key, &id->stop, hex);

		pthread_mutex_lock(&id->lock);
		if (r == -ECANCELED)
			break;
		j->result = r;
		j->ns = mono_ns() - t0;
		memcpy(j->sha256, hex, sizeof(hex));
		j->state = JOB_DONE;
		/* cannot fail: the loop resets the counter long before it could overflow */
		w = write(id->efd, &one, sizeof(one));
		(void)w;
	}
	pthread_mutex_unlock(&id->lock);
	return NULL;
}

/* ---- lifecycle ---- */

int identity__new(const char *cgroup2_root, struct identity **ret)
{
	struct identity *id = calloc(1, sizeof(*id));
	int r;

	if (!id)
		return -ENOMEM;
	snprintf(id->cgroup2_root, sizeof(id->cgroup2_root), "%s", cgroup2_root ? cgroup2_root : "");
	for (size_t i = 0; i < IDENTITY_HASH_QUEUE; i++)
		id->jobs[i].fd = -1;
	pthread_mutex_init(&id->lock, NULL);
	pthread_cond_init(&id->wake, NULL);
	atomic_init(&id->stop, false);
	id->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (id->efd < 0) {
		r = -errno;
		identity__free(id);
		return r;
	}
	r = pl_thread_start(&id->worker, hash_worker, id);
	if (r < 0) {
		identity__free(id);
		return r;
	}
	id->have_worker = true;
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
	if (id->have_worker) {
		pthread_mutex_lock(&id->lock);
		atomic_store(&id->stop, true);
		pthread_cond_signal(&id->wake);
		pthread_mutex_unlock(&id->lock);
		pthread_join(id->worker, NULL);
	}
	for (size_t i = 0; i < IDENTITY_HASH_QUEUE; i++)
		if (id->jobs[i].fd >= 0)
			close(id->jobs[i].fd);
	if (id->efd >= 0)
		close(id->efd);
	pthread_cond_destroy(&id->wake);
	pthread_mutex_destroy(&id->lock);
	for (size_t i = 0; i < BUILDID_CACHE_SIZE; i++) {
		free(id->buildids[i].build_id);
		free(id->buildids[i].sha256);
		free(id->buildids[i].path);
		free(id->buildids[i].binary_id);
	}
	for (size_t i = 0; i < PATH_CACHE_SIZE; i++)
		free(id->paths[i].path);
	cgroups_clear(id);
	free(id);
}

dev_t identity__dev_from_kernel(uint32_t kdev)
{
	return makedev(kdev >> 20, kdev & 0xfffff);
}

uint32_t identity__dev_to_kernel(dev_t dev)
{
	return (uint32_t)(major(dev) << 20 | (minor(dev) & 0xfffff));
}

int identity__epoll_fd(const struct identity *id)
{
	return id->efd;
}

const struct identity_stats *identity__stats(const struct identity *id)
{
	return &id->stats;
}

/* ---- the cache and the queue (the loop's side) ---- */

static struct buildid_slot *slot_of(struct identity *id, dev_t dev, ino_t ino)
{
	return &id->buildids[(size_t)((ino * 0x9e3779b97f4a7c15ull) ^ dev) & (BUILDID_CACHE_SIZE - 1)];
}

static struct buildid_slot *cache_get(struct identity *id, const struct file_key *k)
{
	struct buildid_slot *s = slot_of(id, k->dev, k->ino);

	return s->used && key_equal(&s->key, k) ? s : NULL;
}

/* Cache what is known of k (strings copied; trusted: build_id is its
 * identity). Direct-mapped: a colliding binary replaces the slot. NULL when
 * out of memory. */
static struct buildid_slot *cache_put(struct identity *id, const struct file_key *k, const char *build_id,
				      bool trusted, const char *sha256)
{
	struct buildid_slot *s = slot_of(id, k->dev, k->ino);

	free(s->build_id);
	free(s->sha256);
	free(s->path);
	free(s->binary_id);
	*s = (struct buildid_slot){ .used = true,
				    .key = *k,
				    .build_id = build_id ? strdup(build_id) : NULL,
				    .trusted = trusted,
				    .sha256 = sha256 ? strdup(sha256) : NULL };
	if ((build_id && !s->build_id) || (sha256 && !s->sha256)) {
		free(s->build_id);
		free(s->sha256);
		*s = (struct buildid_slot){ 0 };
		return NULL;
	}
	return s;
}

static char *file_id(dev_t dev, uint64_t ino)
{
	char *id = NULL;

	if (asprintf(&id, "file:%u:%u:%llu", major(dev), minor(dev), (unsigned long long)ino) < 0)
		return NULL;
	return id;
}

/* "build-id:", "sha256:" or "file:" id of a cached file (NULL: no memory). */
static char *slot_binary_id(const struct buildid_slot *s)
{
	char *id = NULL;

	if (s->build_id && s->trusted)
		return asprintf(&id, "build-id:%s", s->build_id) < 0 ? NULL : id;
	if (s->sha256)
		return asprintf(&id, "sha256:%s", s->sha256) < 0 ? NULL : id;
	return file_id(s->key.dev, s->key.ino);
}

enum ids {
	IDS_NONE,    /* no file was looked at */
	IDS_KNOWN,   /* filled (binary_id NULL only when out of memory) */
	IDS_PENDING, /* queued, or already in the queue */
	IDS_DEFERRED /* the queue was full */
};

/* Queue the file open at fd for hashing, unless it already is; build_id
 * (NULL: none) is what it claims, kept for its records. */
static enum ids enqueue(struct identity *id, int fd, const struct file_key *k, uint32_t kdev, uint64_t ino,
			const char *build_id)
{
	struct hash_job *j = NULL;
	int dup;

	pthread_mutex_lock(&id->lock);
	for (size_t i = 0; i < IDENTITY_HASH_QUEUE; i++) {
		struct hash_job *x = &id->jobs[i];

		if (x->state != JOB_FREE && x->key.dev == k->dev && x->key.ino == k->ino) {
			pthread_mutex_unlock(&id->lock);
			return IDS_PENDING;
		}
		if (x->state == JOB_FREE && !j)
			j = x;
	}
	dup = j ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (dup < 0) {
		pthread_mutex_unlock(&id->lock);
		id->stats.hash_queue_full++;
		return IDS_DEFERRED;
	}
	*j = (struct hash_job){
		.state = JOB_QUEUED, .seq = id->next_seq++, .fd = dup, .kdev = kdev, .ino = ino, .key = *k
	};
	if (build_id)
		snprintf(j->build_id, sizeof(j->build_id), "%s", build_id);
	pthread_cond_signal(&id->wake);
	pthread_mutex_unlock(&id->lock);
	id->stats.hashes_queued++;
	id->stats.hashes_pending++;
	return IDS_PENDING;
}

/* What is known of the file open at fd (st its fstat, the kernel's (kdev,
 * ino), path its canonical name or NULL), into ret: from the cache, its
 * build-id when only root could have written it, or the queue. */
static enum ids file_ids(struct identity *id, int fd, const struct stat *st, const char *path, uint32_t kdev,
			 uint64_t ino, struct exe_info *ret)
{
	struct file_key k = key_of(st);
	struct buildid_slot *s = cache_get(id, &k);
	char buf[129];

	if (!s) {
		bool has_bid = identity__read_build_id(fd, buf, sizeof(buf)) == 0;
		const char *bid = has_bid ? buf : NULL;

		if (has_bid && identity__file_is_roots(path, st))
			s = cache_put(id, &k, bid, true, NULL);
		else if ((uint64_t)st->st_size > HASH_MAX_BYTES)
			s = cache_put(id, &k, bid, false, NULL); /* never hashed: "file:" */
		else {
			ret->build_id = bid ? strdup(bid) : NULL;
			return enqueue(id, fd, &k, kdev, ino, bid);
		}
	}
	if (s) {
		ret->build_id = s->build_id ? strdup(s->build_id) : NULL;
		ret->binary_id = slot_binary_id(s);
	}
	return IDS_KNOWN;
}

static const char *bid_or_null(const char *bid)
{
	return bid[0] ? bid : NULL;
}

int identity__completed(struct identity *id, identity_hashed_fn fn, void *ctx)
{
	struct hash_job done[IDENTITY_HASH_QUEUE];
	uint64_t signals;
	ssize_t got;
	int n = 0;

	/* reset the eventfd before the scan, so a job finished after the scan
	 * signals again (EAGAIN: nothing signalled; look anyway) */
	got = read(id->efd, &signals, sizeof(signals));
	(void)got;
	pthread_mutex_lock(&id->lock);
	for (size_t i = 0; i < IDENTITY_HASH_QUEUE; i++) {
		if (id->jobs[i].state != JOB_DONE)
			continue;
		done[n++] = id->jobs[i];
		id->jobs[i] = (struct hash_job){ .state = JOB_FREE, .fd = -1 };
	}
	pthread_mutex_unlock(&id->lock);
	for (int i = 0; i < n; i++) {
		struct hash_job *j = &done[i];
		_cleanup_free_ char *bid = NULL;
		struct buildid_slot *s = NULL;

		close(j->fd);
		id->stats.hashes_pending--;
		id->stats.hash_ns += j->ns;
		if (j->result == 0) {
			id->stats.hashes_done++;
			s = cache_put(id, &j->key, bid_or_null(j->build_id), false, j->sha256);
		} else {
			id->stats.hash_failures++;
			/* unreadable: known as such; changed: whatever it is now is another file */
			if (j->result != -ESTALE)
				s = cache_put(id, &j->key, bid_or_null(j->build_id), false, NULL);
		}
		bid = s ? slot_binary_id(s) : file_id(j->key.dev, j->key.ino);
		if (bid)
			fn(ctx, j->kdev, j->ino, bid);
	}
	return n;
}

/* A binary known under the kernel's stamp, its name included. */
static bool from_cache(struct identity *id, const struct file_key *want, struct exe_info *ret)
{
	struct buildid_slot *s = cache_get(id, want);

	if (!s || !s->path)
		return false;
	if (!s->binary_id)
		s->binary_id = slot_binary_id(s);
	ret->path = strdup(s->path);
	ret->build_id = s->build_id ? strdup(s->build_id) : NULL;
	ret->binary_id = s->binary_id ? strdup(s->binary_id) : NULL;
	id->stats.cache_hits++;
	return true;
}

int identity__canonical_path(const char *filename, const char *cwd, dev_t dev, ino_t ino, char *buf,
			     size_t size)
{
	char joined[PATH_MAX], real[PATH_MAX];
	const char *name = filename;
	struct stat st;
	int n;

	if (!filename || !filename[0] || size == 0)
		return -EINVAL;
	if (filename[0] != '/') {
		if (!cwd || !cwd[0])
			return -ENOENT;
		n = snprintf(joined, sizeof(joined), "%s/%s", cwd, filename);
		if (n < 0 || (size_t)n >= sizeof(joined))
			return -ENAMETOOLONG;
		name = joined;
	}
	if (!realpath(name, real))
		return -errno;
	if (stat(real, &st) < 0)
		return -errno;
	if (st.st_dev != dev || st.st_ino != ino)
		return -ESTALE;
	if (strlen(real) >= size)
		return -ENAMETOOLONG;
	memcpy(buf, real, strlen(real) + 1);
	return 0;
}

static struct path_slot *path_slot(struct identity *id, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xff51afd7ed558ccdull);

	return &id->paths[(h >> 17) & (PATH_CACHE_SIZE - 1)];
}

static void path_put(struct identity *id, dev_t dev, ino_t ino, const char *path)
{
	struct path_slot *p = path_slot(id, dev, ino);
	char *copy;

	if (p->path && p->dev == dev && p->ino == ino && strcmp(p->path, path) == 0)
		return;
	copy = strdup(path);
	if (!copy)
		return;
	free(p->path);
	*p = (struct path_slot){ .dev = dev, .ino = ino, .path = copy };
}

/* The name stored for (dev, ino), if that name still leads to that file. */
static const char *path_get(struct identity *id, dev_t dev, ino_t ino)
{
	struct path_slot *p = path_slot(id, dev, ino);
	struct stat st;

	if (!p->path || p->dev != dev || p->ino != ino)
		return NULL;
	if (stat(p->path, &st) < 0 || st.st_dev != dev || st.st_ino != ino)
		return NULL;
	return p->path;
}

/* A name read from /proc/PID/exe for a file that has since been unlinked
 * (or a memfd) ends in " (deleted)": not a name to give other images. */
static bool is_live_name(const char *path)
{
	size_t n = strlen(path), d = sizeof(" (deleted)") - 1;

	return path[0] == '/' && !(n > d && strcmp(path + n - d, " (deleted)") == 0);
}

/* The canonical name of (dev, ino) exec'd under `filename`, when
 * /proc/PID/exe could not say: the filename's realpath (a relative one
 * against cwd, the exec'ing process's working directory at exec) verified
 * to be the file, else the name verified earlier for the file. NULL: no
 * verified name. */
static const char *verified_name(struct identity *id, const char *cwd, const char *filename, dev_t dev,
				 ino_t ino, char *buf, size_t size)
{
	/* /proc/self/..., /dev/fd/N (fexecve, a memfd): the exec'ing process's
	 * own view, which the sensor's realpath would read as its own */
	if (filename && (strncmp(filename, "/proc/", 6) == 0 || strncmp(filename, "/dev/fd/", 8) == 0))
		return path_get(id, dev, ino);
	if (filename && identity__canonical_path(filename, cwd, dev, ino, buf, size) == 0) {
		path_put(id, dev, ino, buf);
		return buf;
	}
	return path_get(id, dev, ino);
}

void identity__resolve_exe(struct identity *id, pid_t pid, const struct exe_stamp *k, const char *filename,
			   struct exe_info *ret)
{
	dev_t dev = identity__dev_from_kernel(k->kdev);
	const struct file_key want = { .dev = dev, .ino = k->ino, .size = k->size, .mtime_ns = k->mtime_ns,
				       .ctime_ns = k->ctime_ns };
	uint32_t kdev = k->kdev;
	uint64_t ino = k->ino;
	char proc[64], link[PATH_MAX], canon[PATH_MAX];
	_cleanup_close_ int fd = -1;
	enum ids got = IDS_NONE;
	const char *name;
	struct stat st;
	ssize_t n;

	memset(ret, 0, sizeof(*ret));
	if ((k->mtime_ns || k->ctime_ns) && from_cache(id, &want, ret))
		return;
	snprintf(proc, sizeof(proc), "/proc/%d/exe", (int)pid);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino) {
		n = readlink(proc, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			ret->path = strdup(link);
		}
		got = file_ids(id, fd, &st, ret->path, kdev, ino, ret);
		if (ret->path) {
			/* the file is the one the kernel stamped: its name is the
			 * binary's, for every later image of it */
			struct file_key now = key_of(&st);
			struct buildid_slot *s = key_equal(&now, &want) ? cache_get(id, &want) : NULL;

			if (is_live_name(ret->path)) {
				path_put(id, dev, ino, ret->path);
				if (s && !s->path)
					s->path = strdup(ret->path);
			}
			goto done;
		}
	}
	/* The process is gone (or exec'd again): the exec'd name, resolved to
	 * the same canonical name /proc/PID/exe would have given when it can be
	 * verified to be the file; its raw spelling only when nothing else is
	 * known (the file is gone too). */
	if (fd >= 0) {
		close(fd);
		fd = -1;
	}
	name = verified_name(id, k->cwd, filename, dev, ino, canon, sizeof(canon));
	if (name) {
		fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino && got == IDS_NONE)
			got = file_ids(id, fd, &st, name, kdev, ino, ret);
		ret->path = strdup(name);
		if (ret->path && got != IDS_NONE) {
			struct file_key now = key_of(&st);
			struct buildid_slot *s = key_equal(&now, &want) ? cache_get(id, &want) : NULL;

			if (s && !s->path)
				s->path = strdup(ret->path);
		}
	}
	if (!ret->path && filename && filename[0])
		ret->path = strdup(filename);
done:
	ret->hash_pending = got == IDS_PENDING;
	/* the file itself is gone: its kernel identity is all there is */
	if (got == IDS_NONE)
		ret->binary_id = file_id(dev, ino);
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
		now = mono_ns();
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
