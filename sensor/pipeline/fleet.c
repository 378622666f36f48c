// SPDX-License-Identifier: MIT
/*
 * fleet.c - the fleet's view and the watch on its directory (see fleet.h).
 *
 * Every look at the directory runs on a loader thread of its own: judging
 * a file reads it whole (the signature covers every byte: tens of ms for
 * an ssh role's bundle, some hundreds for a build role's 30 MB) and parses
 * its header; the newest good one is then read whole again, verified and
 * its baselines parsed (hundreds of ms: docs/fleet.md has the figures).
 * The thread hands its verdicts and the new view over through an eventfd;
 * the event loop says them and swaps the view in, and never waits: until a
 * look is done the old view serves, and files that arrive meanwhile are
 * judged in the next look. While a look runs, the table of files judged
 * (seen[]) is the thread's; the event loop touches it only after the join.
 */
#include "pipeline/fleet.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "cleanup.h"
#include "clock.h"
#include "identity/usercache.h"
#include "log.h"
#include "probes/hostctx.h"
#include "signing.h"
#include "textsafe.h"
#include "thread.h"

/* What the directory's watch sees: a file closed after writing or renamed
 * in (not created: a copy under way would be judged before it is whole);
 * the directory itself gone */
#define FLEET_WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* A file judged: what it was when judged, and the results said of it. */
struct seen {
	char name[NAME_MAX + 1];
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	unsigned said; /* 1 << enum fleet_result: each said once */
	bool present;  /* still in the directory at the last look */
};

/* One verdict of a look, found on the loader thread, said on the event loop. */
struct verdict {
	struct seen *s;
	enum fleet_result result; /* FLEET_RESULT_MAX: nothing to say (judged again) */
	bool cand;		  /* good for our role by its header: loaded or not newer */
	bool has_meta;
	struct bl_bundle_meta meta;
	char key_id[17];
	uint64_t arrival_ns, load_ns;
	char why[640];
};

/* A look at the directory on the loader thread: what it was given, and what it found. */
struct scan_job {
	struct fleet *f; /* dir, keys and role read-only; seen[] the thread's while it runs */
	bool threaded;	 /* false: run on the event loop (the thread could not start) */
	/* the view in use when the look began */
	bool loaded;
	uint64_t created_ns;
	char cur[256];
	/* found */
	struct verdict v[FLEET_MAX_FILES];
	size_t nv, passed;
	int dir_errno;	    /* the directory could not be read: nothing judged */
	ssize_t loaded_at;  /* the verdict loaded, -1: none */
	struct baseline **bs; /* its baselines, sorted by key */
	size_t n;
	bool rescan; /* a file changed while it was read */
	uint64_t judged, judge_max_ns;
};

struct fleet {
	char *dir, *keys_path;
	char role[64];
	struct bl_keyring *keys;
	int ifd;   /* inotify */
	int wd;	   /* the directory's watch, -1: lost (removed or moved), looked for each tick */
	int efd;   /* the loader thread's "done" */
	int epfd;  /* both, for the event loop's one fd */
	pthread_t loader;
	struct scan_job *job; /* the look under way, NULL: none */
	bool rescan;	      /* files arrived (or changed under a read) while it ran */
	/* the view: baselines sorted by key */
	struct baseline **bs;
	size_t n;
	uint32_t bundle_hosts; /* the bundle's, for baselines that do not say theirs */
	bool loaded;
	struct fleet_bundle bundle;
	uint64_t generation;
	uint64_t results[FLEET_RESULT_MAX];
	struct seen seen[FLEET_MAX_FILES];
	bool overflow_said, thread_said;
	uint64_t judged, judge_max_ns; /* files judged by their header and signature, and the longest */
};

const char *fleet_result__name(enum fleet_result r)
{
	static const char *const names[FLEET_RESULT_MAX] = {
	    [FLEET_LOADED] = "loaded",	   [FLEET_BAD_SIGNATURE] = "bad_signature", [FLEET_UNKNOWN_KEY] = "unknown_key",
	    [FLEET_UNSIGNED] = "unsigned", [FLEET_OTHER_ROLE] = "other_role",	    [FLEET_NOT_NEWER] = "not_newer",
	    [FLEET_INVALID] = "invalid",
	};

	return (unsigned)r < FLEET_RESULT_MAX ? names[r] : "?";
}

int fleet__open(const char *dir, const char *keys, const char *role, struct fleet **ret)
{
	_cleanup_free_ struct fleet *f = calloc(1, sizeof(*f));
	char err[512];
	int r;

	if (!f || !(f->dir = strdup(dir)) || !(f->keys_path = strdup(keys))) {
		if (f)
			free(f->dir);
		return log_error_errno(ENOMEM, "Out of memory");
	}
	snprintf(f->role, sizeof(f->role), "%s", role);
	r = bl_keyring__load(keys, &f->keys, err, sizeof(err));
	if (r < 0) {
		_cleanup_free_ char *k = text_escape_str(keys);

		log_error("fleet: cannot load the trusted keys %s: %s", k ? k : "?", err);
		goto fail;
	}
	f->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (f->ifd < 0) {
		r = log_error_errno(errno, "fleet: inotify_init1: %m");
		goto fail;
	}
	f->wd = inotify_add_watch(f->ifd, dir, FLEET_WATCH_MASK);
	if (f->wd < 0) {
		_cleanup_free_ char *d = text_escape_str(dir);

		r = log_error_errno(errno, "fleet: cannot watch the fleet directory %s: %m", d ? d : "?");
		close(f->ifd);
		goto fail;
	}
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (f->efd < 0 || f->epfd < 0 ||
	    epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->ifd, &(struct epoll_event){ .events = EPOLLIN }) < 0 ||
	    epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->efd, &(struct epoll_event){ .events = EPOLLIN }) < 0) {
		r = log_error_errno(errno, "fleet: the loader's eventfd and epoll: %m");
		close(f->ifd);
		if (f->efd >= 0)
			close(f->efd);
		if (f->epfd >= 0)
			close(f->epfd);
		goto fail;
	}
	{
		_cleanup_free_ char *d = text_escape_str(dir);

		log_info("fleet: role %s, watching %s, %zu trusted key%s", f->role, d ? d : "?",
			 bl_keyring__count(f->keys), bl_keyring__count(f->keys) == 1 ? "" : "s");
	}
	*ret = f;
	f = NULL;
	return 0;
fail:
	bl_keyring__free(f->keys);
	free(f->dir);
	free(f->keys_path);
	return r;
}

static void free_view(struct baseline **bs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		baseline__free(bs[i]);
	free(bs);
}

static void job_free(struct scan_job *j)
{
	if (!j)
		return;
	free_view(j->bs, j->n);
	free(j);
}

void fleet__free(struct fleet *f)
{
	if (!f)
		return;
	if (f->job) {
		if (f->job->threaded)
			pthread_join(f->loader, NULL); /* one look: at most FLEET_MAX_FILES files */
		job_free(f->job);
	}
	free_view(f->bs, f->n);
	close(f->epfd);
	close(f->efd);
	if (f->ifd >= 0)
		close(f->ifd);
	bl_keyring__free(f->keys);
	free(f->dir);
	free(f->keys_path);
	free(f);
}

int fleet__epoll_fd(const struct fleet *f)
{
	return f->epfd;
}

const char *fleet__role(const struct fleet *f)
{
	return f->role;
}

uint64_t fleet__generation(const struct fleet *f)
{
	return f->generation;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp((*(struct baseline *const *)a)->key, (*(struct baseline *const *)b)->key);
}

static int cmp_find(const void *key, const void *b)
{
	return strcmp(key, (*(struct baseline *const *)b)->key);
}

const struct baseline *fleet__get(const struct fleet *f, const char *key, uint32_t *ret_hosts)
{
	struct baseline **b;

	if (!f || !f->loaded || !key || !f->n)
		return NULL;
	b = bsearch(key, f->bs, f->n, sizeof(f->bs[0]), cmp_find);
	if (!b)
		return NULL;
	if (ret_hosts)
		*ret_hosts = (*b)->hosts ? (*b)->hosts : f->bundle_hosts;
	return *b;
}

void fleet__counts(const struct fleet *f, struct fleet_counts *ret)
{
	*ret = (struct fleet_counts){0};
	if (!f)
		return;
	ret->on = true;
	snprintf(ret->role, sizeof(ret->role), "%s", f->role);
	ret->dir = f->dir;
	memcpy(ret->results, f->results, sizeof(ret->results));
	ret->watching = f->wd >= 0;
	ret->loaded = f->loaded;
	ret->bundle = f->bundle;
	ret->keys = bl_keyring__count(f->keys);
}

/* ---- judging (on the loader thread) ---- */

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

/* The verdict of a header whose signature and role were read. */
static enum fleet_result judge_sig(const struct fleet *f, enum bl_sig sig, const struct bl_bundle_meta *m, char *why,
				   size_t size)
{
	switch (sig) {
	case BL_SIG_BAD:
		snprintf(why, size, "its signature does not match its bytes (altered, or damaged in transit)");
		return FLEET_BAD_SIGNATURE;
	case BL_SIG_UNKNOWN_KEY:
		snprintf(why, size, "signed by a key that is not trusted (--fleet-keys)");
		return FLEET_UNKNOWN_KEY;
	case BL_SIG_NONE:
		snprintf(why, size, "not signed: fleet bundles must be (baseline merge --sign)");
		return FLEET_UNSIGNED;
	case BL_SIG_GOOD:
		break;
	}
	if (strcmp(m->role, f->role) != 0) {
		_cleanup_free_ char *r = text_escape_str(m->role);

		snprintf(why, size, "for role '%s', not ours (%s)", r ? r : "?", f->role);
		return FLEET_OTHER_ROLE;
	}
	return FLEET_LOADED;
}

/* The entry of name, made (or an absent one reused) when new; NULL when the table is full. */
static struct seen *seen_of(struct fleet *f, const char *name, const struct stat *st, bool *ret_changed)
{
	struct seen *free_slot = NULL;

	for (size_t i = 0; i < FLEET_MAX_FILES; i++) {
		struct seen *s = &f->seen[i];

		if (s->name[0] && strcmp(s->name, name) == 0) {
			*ret_changed = s->dev != st->st_dev || s->ino != st->st_ino || s->size != st->st_size ||
				       s->mtime.tv_sec != st->st_mtim.tv_sec || s->mtime.tv_nsec != st->st_mtim.tv_nsec;
			if (*ret_changed)
				s->said = 0; /* another file under the name: its verdicts are news */
			s->dev = st->st_dev, s->ino = st->st_ino, s->size = st->st_size, s->mtime = st->st_mtim;
			s->present = true;
			return s;
		}
		if (!free_slot && !s->name[0])
			free_slot = s; /* those gone from the directory are emptied after the look */
	}
	if (!free_slot)
		return NULL;
	*free_slot = (struct seen){
	    .dev = st->st_dev, .ino = st->st_ino, .size = st->st_size, .mtime = st->st_mtim, .present = true};
	snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
	*ret_changed = true;
	return free_slot;
}

/* Whether name is a file on its way in, passed over: ., .., and names
 * starting with '.' (rsync's temporary files and the like), and NAME.tmp.PID
 * (an atomic write's, plumbline's own `baseline merge -o` into the directory). */
static bool temp_name(const char *name)
{
	const char *t = strstr(name, ".tmp.");

	if (name[0] == '.')
		return true;
	while (t && t[5] && strspn(t + 5, "0123456789") != strlen(t + 5))
		t = strstr(t + 1, ".tmp.");
	return t && t[5];
}

/* Judge one changed file by its header and signature into v: a candidate
 * (v->cand), or refused. */
static void judge(struct scan_job *j, struct seen *s, const struct stat *st, struct verdict *v)
{
	struct fleet *f = j->f;
	_cleanup_free_ char *path = NULL;
	char err[512];
	enum bl_sig sig;
	uint64_t t0;

	*v = (struct verdict){ .s = s, .result = FLEET_INVALID, .arrival_ns = ts_ns(&st->st_ctim) };
	if (st->st_size > (off_t)BL_BUNDLE_MAX) {
		snprintf(v->why, sizeof(v->why), "%lld bytes, over the bound of %u", (long long)st->st_size,
			 BL_BUNDLE_MAX);
		return;
	}
	if (asprintf(&path, "%s/%s", f->dir, s->name) < 0) {
		path = NULL;
		s->mtime = (struct timespec){ 0 }; /* judged again at the next look */
		v->result = FLEET_RESULT_MAX;
		j->rescan = true;
		return;
	}
	t0 = mono_ns();
	if (bl_bundle__read_meta(path, f->keys, &v->meta, &sig, v->key_id, NULL, NULL, err, sizeof(err)) < 0) {
		snprintf(v->why, sizeof(v->why), "not a bundle plumbline can read: %s", err);
		v->key_id[0] = '\0';
	} else {
		v->has_meta = true;
		v->result = judge_sig(f, sig, &v->meta, v->why, sizeof(v->why));
		v->cand = v->result == FLEET_LOADED;
	}
	j->judged++;
	if (mono_ns() - t0 > j->judge_max_ns)
		j->judge_max_ns = mono_ns() - t0;
}

/* Read candidate v whole, verify it again and index it: 1 loaded into j,
 * 0 refused (v says why), or 0 with nothing to say when it was replaced
 * while read (judged again at the next look). */
static int load(struct scan_job *j, struct verdict *v)
{
	struct fleet *f = j->f;
	_cleanup_free_ char *path = NULL;
	struct bl_bundle_meta m;
	struct baseline **bs = NULL;
	size_t n = 0;
	enum bl_sig sig;
	char key_id[17], err[512];
	uint64_t t0 = mono_ns();

	if (asprintf(&path, "%s/%s", f->dir, v->s->name) < 0) {
		path = NULL;
		v->s->mtime = (struct timespec){ 0 }; /* judged again at the next look */
		v->result = FLEET_RESULT_MAX;
		j->rescan = true;
		return 0;
	}
	if (bl_bundle__read_meta(path, f->keys, &m, &sig, key_id, &bs, &n, err, sizeof(err)) < 0) {
		v->result = FLEET_INVALID;
		snprintf(v->why, sizeof(v->why), "not a bundle plumbline can read: %s", err);
		return 0;
	}
	if (judge_sig(f, sig, &m, err, sizeof(err)) != FLEET_LOADED || m.created_ns != v->meta.created_ns ||
	    strcmp(key_id, v->key_id) != 0) {
		free_view(bs, n);
		v->s->mtime = (struct timespec){ 0 }; /* replaced while it was read */
		v->result = FLEET_RESULT_MAX;
		j->rescan = true;
		return 0;
	}
	if (bs)
		qsort(bs, n, sizeof(bs[0]), cmp_key);
	v->meta = m;
	v->result = FLEET_LOADED;
	v->load_ns = mono_ns() - t0;
	j->bs = bs;
	j->n = n;
	return 1;
}

static int cmp_newest(const void *a, const void *b)
{
	const struct verdict *x = *(struct verdict *const *)a, *y = *(struct verdict *const *)b;

	return x->meta.created_ns < y->meta.created_ns ? 1 : x->meta.created_ns > y->meta.created_ns ? -1 : 0;
}

/* The look: every changed file judged, the newest good one newer than the
 * view in use loaded (a failed read makes way for the next newest), the
 * rest of the good ones not newer. */
static void look(struct scan_job *j)
{
	struct fleet *f = j->f;
	struct verdict *cands[FLEET_MAX_FILES];
	size_t nc = 0;
	bool have = j->loaded;
	uint64_t have_ns = j->created_ns;
	const char *have_name = j->cur;
	DIR *d;
	struct dirent *e;
	int dfd;

	j->loaded_at = -1;
	dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		j->dir_errno = errno;
		if (dfd >= 0)
			close(dfd);
		return;
	}
	for (size_t i = 0; i < FLEET_MAX_FILES; i++)
		f->seen[i].present = false;
	while ((e = readdir(d))) {
		struct stat st;
		struct seen *s;
		bool changed;

		if (temp_name(e->d_name))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue; /* regular files only: no symlink out of the directory, no FIFO to wait on */
		s = seen_of(f, e->d_name, &st, &changed);
		if (!s) {
			j->passed++;
			continue;
		}
		if (!changed)
			continue;
		judge(j, s, &st, &j->v[j->nv]);
		if (j->v[j->nv].cand)
			cands[nc++] = &j->v[j->nv];
		j->nv++;
	}
	closedir(d);
	for (size_t i = 0; i < FLEET_MAX_FILES; i++)
		if (!f->seen[i].present)
			f->seen[i].name[0] = '\0'; /* gone: its slot is free, its verdicts forgotten */
	qsort(cands, nc, sizeof(cands[0]), cmp_newest);
	for (size_t i = 0; i < nc; i++) {
		struct verdict *v = cands[i];
		_cleanup_free_ char *cur = NULL;

		if (!have || v->meta.created_ns > have_ns) {
			if (load(j, v)) {
				j->loaded_at = v - j->v;
				have = true;
				have_ns = v->meta.created_ns;
				have_name = v->s->name;
			}
			continue;
		}
		if (v->meta.created_ns == have_ns && strcmp(v->s->name, have_name) == 0) {
			v->result = FLEET_RESULT_MAX; /* the bundle in use, synced again (a directory replaced whole) */
			continue;
		}
		cur = text_escape_str(have_name);
		v->result = FLEET_NOT_NEWER;
		if (v->meta.created_ns < have_ns)
			snprintf(v->why, sizeof(v->why), "created %.3f s before the bundle in use (%s)",
				 (have_ns - v->meta.created_ns) / 1e9, cur ? cur : "?");
		else
			snprintf(v->why, sizeof(v->why), "created when the bundle in use (%s) was, not after",
				 cur ? cur : "?");
	}
}

static void *look_worker(void *arg)
{
	struct scan_job *j = arg;
	uint64_t one = 1;

	look(j);
	if (write(j->f->efd, &one, sizeof(one)) < 0) {
		/* a full counter is already readable: the loop sees it */
	}
	return NULL;
}

void fleet__scan(struct fleet *f)
{
	struct scan_job *j;
	int r;

	if (f->job) {
		f->rescan = true; /* looked at again once the look under way is done */
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		log_warn("fleet: out of memory for a look at the directory (looked at again at the next change)");
		f->rescan = true;
		return;
	}
	j->f = f;
	j->loaded = f->loaded;
	j->created_ns = f->bundle.created_ns;
	snprintf(j->cur, sizeof(j->cur), "%s", f->bundle.file);
	f->job = j;
	r = pl_thread_start(&f->loader, look_worker, j);
	if (r == 0) {
		j->threaded = true;
		return;
	}
	if (!f->thread_said) {
		log_warn_errno(r, "fleet: cannot start the loader thread: %m (the fleet directory is read on the "
				  "event loop instead)");
		f->thread_said = true;
	}
	look_worker(j); /* its eventfd says it is done */
}

/* ---- the verdicts, on the event loop ---- */

static void report(struct fleet *f, const struct verdict *v, fleet_report_fn fn, void *ctx)
{
	struct seen *s = v->s;
	enum fleet_result res = v->result;
	const struct bl_bundle_meta *m = v->has_meta ? &v->meta : NULL;
	_cleanup_free_ char *name = text_escape_str(s->name);

	f->results[res]++;
	if (s->said & (1u << res))
		return; /* once per file and reason */
	s->said |= 1u << res;
	if (res == FLEET_LOADED)
		log_info("fleet: loaded %s: role %s, %zu baseline%s from %u host%s, key %s; read in %.1f ms on the loader "
			 "thread, in use %.0f ms after it arrived (files judged: %llu, the longest in %.1f ms)",
			 name ? name : "?", f->role, v->meta.nbaselines, v->meta.nbaselines == 1 ? "" : "s",
			 v->meta.hosts, v->meta.hosts == 1 ? "" : "s", v->key_id, v->load_ns / 1e6,
			 v->arrival_ns && real_ns() > v->arrival_ns ? (real_ns() - v->arrival_ns) / 1e6 : 0.0,
			 (unsigned long long)f->judged, f->judge_max_ns / 1e6);
	else
		log_warn("fleet: refused %s: %s", name ? name : "?", v->why);
	if (fn)
		fn(ctx, &(struct fleet_report){
			    .file = s->name,
			    .result = res,
			    .why = v->why,
			    .has_meta = m != NULL,
			    .role = m ? m->role : NULL,
			    .host = m ? m->host : NULL,
			    .created_ns = m ? m->created_ns : 0,
			    .hosts = m ? m->hosts : 0,
			    .baselines = m ? m->nbaselines : 0,
			    .key_id = v->key_id,
			    .arrival_ns = v->arrival_ns,
			    .load_ns = v->load_ns,
			});
}

/* The look is done: its view in use, its verdicts said. */
static void look_done(struct fleet *f, fleet_report_fn fn, void *ctx)
{
	struct scan_job *j = f->job;

	if (j->threaded)
		pthread_join(f->loader, NULL);
	f->job = NULL;
	f->rescan |= j->rescan;
	f->judged += j->judged;
	if (j->judge_max_ns > f->judge_max_ns)
		f->judge_max_ns = j->judge_max_ns;
	if (j->dir_errno) {
		_cleanup_free_ char *dn = text_escape_str(f->dir);

		errno = j->dir_errno;
		log_warn_errno(j->dir_errno, "fleet: cannot read the fleet directory %s: %m (the view loaded stays)",
			       dn ? dn : "?");
	}
	if (j->passed && !f->overflow_said) {
		log_warn("fleet: more than %d files in the fleet directory: %zu passed over", FLEET_MAX_FILES,
			 j->passed);
		f->overflow_said = true;
	}
	if (j->loaded_at >= 0) {
		const struct verdict *v = &j->v[j->loaded_at];

		free_view(f->bs, f->n);
		f->bs = j->bs;
		f->n = j->n;
		j->bs = NULL;
		j->n = 0;
		f->bundle_hosts = v->meta.hosts;
		f->loaded = true;
		f->generation++;
		f->bundle = (struct fleet_bundle){
			.created_ns = v->meta.created_ns,
			.hosts = v->meta.hosts,
			.baselines = f->n,
			.loaded_ns = real_ns(),
			.arrival_ns = v->arrival_ns,
			.load_ns = v->load_ns,
		};
		snprintf(f->bundle.file, sizeof(f->bundle.file), "%s", v->s->name);
		snprintf(f->bundle.role, sizeof(f->bundle.role), "%s", v->meta.role);
		snprintf(f->bundle.key_id, sizeof(f->bundle.key_id), "%s", v->key_id);
	}
	for (size_t i = 0; i < j->nv; i++)
		if (j->v[i].result < FLEET_RESULT_MAX)
			report(f, &j->v[i], fn, ctx);
	job_free(j);
}

bool fleet__busy(const struct fleet *f)
{
	return f && f->job;
}

/* The directory's events: whether any file event came, and the watch lost
 * when the directory itself was removed or moved away. */
static bool read_events(struct fleet *f)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false, lost = false;
	ssize_t n;

	while ((n = read(f->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & IN_Q_OVERFLOW) {
				any = true; /* events lost: look at everything */
			} else if (f->wd >= 0 && ev->wd == f->wd) {
				lost |= (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) != 0;
				any |= (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0;
			}
			p += sizeof(*ev) + ev->len;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		log_warn_errno(errno, "fleet: reading the directory's events: %m");
	if (lost) {
		_cleanup_free_ char *d = text_escape_str(f->dir);

		inotify_rm_watch(f->ifd, f->wd); /* a directory moved away keeps its watch: not ours any more */
		f->wd = -1;
		log_warn("fleet: the fleet directory %s was removed or moved away: the view in use stays; looking for "
			 "the directory again every second",
			 d ? d : "?");
	}
	return any;
}

void fleet__changed(struct fleet *f, fleet_report_fn fn, void *ctx)
{
	bool any = read_events(f);
	uint64_t done;

	if (f->job && read(f->efd, &done, sizeof(done)) == sizeof(done))
		look_done(f, fn, ctx);
	if (any || f->rescan) {
		f->rescan = false;
		fleet__scan(f); /* or, with a look under way, once it is done */
	}
}

void fleet__tick(struct fleet *f)
{
	_cleanup_free_ char *d = NULL;

	if (!f || f->wd >= 0)
		return;
	f->wd = inotify_add_watch(f->ifd, f->dir, FLEET_WATCH_MASK);
	if (f->wd < 0)
		return; /* not back yet */
	d = text_escape_str(f->dir);
	log_info("fleet: the fleet directory %s is back: watching it again", d ? d : "?");
	fleet__scan(f);
}

/* ---- the alert ---- */

void fleet__alert(const struct fleet_report *r, const char *dir, struct pl_alert_ids *ids,
		  struct pl_output *const *outs, size_t nouts)
{
	static const char *const tags[] = {"sensor", "fleet", "integrity"};
	char exe[PATH_MAX], user[USERCACHE_NAME_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct pl_sample self;
	struct pl_alert al;
	struct pl_alert_field fields[3];
	uint64_t now = real_ns();
	_cleanup_free_ char *name = text_escape_str(r->file), *d = text_escape_str(dir),
			    *k = text_escape_str(r->key_id);

	exe[len > 0 ? len : 0] = '\0';
	self = (struct pl_sample){
	    .pid = (uint32_t)getpid(), .uid = (uint32_t)getuid(), .comm = "plumbline", .exe = exe[0] ? exe : NULL};
	pl_alert__init(&al, PL_ALERT_RULE, ids, now, FLEET_BAD_SIG_RULE, "Warning", 4 /* syslog LOG_WARNING */);
	al.desc = "A baseline bundle in the fleet directory is signed by a trusted key but its bytes do not match "
		  "the signature: altered after signing, or damaged. It was refused; the fleet view in use stays.";
	snprintf(al.output, sizeof(al.output), "fleet bundle %s in %s refused: %s (key %s)", name ? name : "?",
		 d ? d : "?", r->why, k && k[0] ? k : "none");
	fields[0] = (struct pl_alert_field){.name = "fleet.file", .type = PL_VALUE_STR, .s = r->file};
	fields[1] = (struct pl_alert_field){.name = "fleet.dir", .type = PL_VALUE_STR, .s = dir};
	fields[2] = (struct pl_alert_field){.name = "fleet.key_id", .type = PL_VALUE_STR, .s = r->key_id};
	al.fields = fields;
	al.nfields = 3;
	al.tags = tags;
	al.ntags = 3;
	al.pid = self.pid;
	al.exe = self.exe;
	al.has_user = true;
	al.uid = self.uid;
	al.user = usercache__name(self.uid, mono_ns(), user, sizeof(user)) ? user : NULL;
	al.sample = &self;
	hostctx__alert(mono_ns(), NULL, &al.host);
	output__write_all(outs, nouts, &(struct pl_record){.kind = PL_RECORD_ALERT, .alert = &al});
}
