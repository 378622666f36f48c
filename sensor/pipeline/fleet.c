// SPDX-License-Identifier: MIT
/*
 * fleet.c - the fleet's view and the watch on its directory (see fleet.h).
 *
 * Judging a file costs a read of it (the signature covers every byte) but
 * parses only its header, on the event loop; only the one file loaded has
 * its baselines parsed, once, on a loader thread of its own (a role bundle
 * of a few MB, hundreds of baselines, takes hundreds of milliseconds to
 * parse: docs/fleet.md has the figures), which hands the new view over
 * through an eventfd. The event loop never waits for it: until it is done
 * the old view serves, and files that arrive meanwhile are judged after.
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

/* A candidate: a file good for our role, by its header. */
struct cand {
	struct seen *s;
	struct bl_bundle_meta meta;
	char key_id[17];
	uint64_t arrival_ns;
};

/* A load on the loader thread: what it was asked, and what it found. */
struct load_job {
	char *path;
	struct cand c;			 /* the candidate, as judged by its header */
	const struct bl_keyring *keys;	 /* read-only while the job runs */
	const char *role;
	/* the thread's */
	int r;
	struct bl_bundle_meta meta;
	enum bl_sig sig;
	char key_id[17];
	struct baseline **bs;
	size_t n;
	char err[512];
	uint64_t load_ns;
	int efd;
};

struct fleet {
	char *dir, *keys_path;
	char role[64];
	struct bl_keyring *keys;
	int ifd;   /* inotify */
	int efd;   /* the loader thread's "done" */
	int epfd;  /* both, for the event loop's one fd */
	pthread_t loader;
	struct load_job *job; /* the load under way, NULL: none */
	bool rescan;	      /* files arrived (or were put off) while it ran */
	/* the view: baselines sorted by key */
	struct baseline **bs;
	size_t n;
	uint32_t bundle_hosts; /* the bundle's, for baselines that do not say theirs */
	bool loaded;
	struct fleet_bundle bundle;
	uint64_t generation;
	uint64_t results[FLEET_RESULT_MAX];
	struct seen seen[FLEET_MAX_FILES];
	bool overflow_said;
	uint64_t judged, judge_ns, judge_max_ns; /* headers judged on the event loop, and their time */
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
	if (inotify_add_watch(f->ifd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ONLYDIR) < 0) {
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

static void job_free(struct load_job *j)
{
	if (!j)
		return;
	free_view(j->bs, j->n);
	free(j->path);
	free(j);
}

void fleet__free(struct fleet *f)
{
	if (!f)
		return;
	if (f->job) {
		pthread_join(f->loader, NULL); /* a parse of a few MB at most */
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
	ret->loaded = f->loaded;
	ret->bundle = f->bundle;
	ret->keys = bl_keyring__count(f->keys);
}

/* ---- judging ---- */


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

static void report(struct fleet *f, struct seen *s, enum fleet_result res, const char *why,
		   const struct bl_bundle_meta *m, const char *key_id, uint64_t arrival_ns, uint64_t load_ns,
		   fleet_report_fn fn, void *ctx)
{
	_cleanup_free_ char *name = text_escape_str(s->name);

	f->results[res]++;
	if (s->said & (1u << res))
		return; /* once per file and reason */
	s->said |= 1u << res;
	if (res == FLEET_LOADED)
		log_info("fleet: loaded %s: role %s, %zu baselines from %u hosts, key %s; read in %.1f ms on the loader "
			 "thread, in use %.0f ms after it arrived (headers judged on the event loop: %llu, %.1f ms at "
			 "most)",
			 name ? name : "?", f->role, m->nbaselines, m->hosts, key_id, load_ns / 1e6,
			 arrival_ns && real_ns() > arrival_ns ? (real_ns() - arrival_ns) / 1e6 : 0.0,
			 (unsigned long long)f->judged, f->judge_max_ns / 1e6);
	else
		log_warn("fleet: refused %s: %s", name ? name : "?", why);
	if (fn)
		fn(ctx, &(struct fleet_report){
			    .file = s->name,
			    .result = res,
			    .why = why,
			    .has_meta = m != NULL,
			    .role = m ? m->role : NULL,
			    .host = m ? m->host : NULL,
			    .created_ns = m ? m->created_ns : 0,
			    .hosts = m ? m->hosts : 0,
			    .baselines = m ? m->nbaselines : 0,
			    .key_id = key_id ? key_id : "",
			    .arrival_ns = arrival_ns,
			    .load_ns = load_ns,
			});
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

/* The loader thread: read the candidate whole, verify it again, index it. */
static void *load_worker(void *arg)
{
	struct load_job *j = arg;
	uint64_t t0 = mono_ns(), one = 1;

	j->r = bl_bundle__read_meta(j->path, j->keys, &j->meta, &j->sig, j->key_id, &j->bs, &j->n, j->err,
				    sizeof(j->err));
	if (j->r == 0 && j->bs)
		qsort(j->bs, j->n, sizeof(j->bs[0]), cmp_key);
	j->load_ns = mono_ns() - t0;
	if (write(j->efd, &one, sizeof(one)) < 0) {
		/* a full counter is already readable: the loop sees it */
	}
	return NULL;
}

/* Start loading c on the loader thread. 0, or -errno (c is then looked at again at the next change). */
static int load_start(struct fleet *f, const struct cand *c)
{
	struct load_job *j = calloc(1, sizeof(*j));
	int r;

	if (!j || asprintf(&j->path, "%s/%s", f->dir, c->s->name) < 0) {
		free(j);
		return -ENOMEM;
	}
	j->c = *c;
	j->keys = f->keys;
	j->role = f->role;
	j->efd = f->efd;
	r = pl_thread_start(&f->loader, load_worker, j);
	if (r < 0) {
		job_free(j);
		return r;
	}
	f->job = j;
	return 0;
}

static int cmp_newest(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->meta.created_ns < y->meta.created_ns ? 1 : x->meta.created_ns > y->meta.created_ns ? -1 : 0;
}

/* Judge one changed file by its header: a candidate into c (1), or refused and reported (0). */
static int judge(struct fleet *f, int dfd, struct seen *s, const struct stat *st, struct cand *c, fleet_report_fn fn,
		 void *ctx)
{
	_cleanup_free_ char *path = NULL;
	char why[640], err[512];
	enum fleet_result res;
	enum bl_sig sig;
	uint64_t t0;
	int r;

	(void)dfd;
	*c = (struct cand){.s = s, .arrival_ns = ts_ns(&st->st_ctim)};
	if (st->st_size > (off_t)BL_BUNDLE_MAX) {
		snprintf(why, sizeof(why), "%lld bytes, over the bound of %u", (long long)st->st_size, BL_BUNDLE_MAX);
		report(f, s, FLEET_INVALID, why, NULL, NULL, c->arrival_ns, 0, fn, ctx);
		return 0;
	}
	if (asprintf(&path, "%s/%s", f->dir, s->name) < 0)
		return 0;
	t0 = mono_ns();
	r = bl_bundle__read_meta(path, f->keys, &c->meta, &sig, c->key_id, NULL, NULL, err, sizeof(err));
	f->judged++;
	f->judge_ns += mono_ns() - t0;
	if (mono_ns() - t0 > f->judge_max_ns)
		f->judge_max_ns = mono_ns() - t0;
	if (r < 0) {
		snprintf(why, sizeof(why), "not a bundle plumbline can read: %s", err);
		report(f, s, FLEET_INVALID, why, NULL, NULL, c->arrival_ns, 0, fn, ctx);
		return 0;
	}
	res = judge_sig(f, sig, &c->meta, why, sizeof(why));
	if (res != FLEET_LOADED) {
		report(f, s, res, why, &c->meta, c->key_id, c->arrival_ns, 0, fn, ctx);
		return 0;
	}
	return 1;
}

void fleet__scan(struct fleet *f, fleet_report_fn fn, void *ctx)
{
	struct cand cands[FLEET_MAX_FILES];
	size_t nc = 0, passed = 0;
	_cleanup_close_ int dfd = -1;
	DIR *d;
	struct dirent *e;

	dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		_cleanup_free_ char *dn = text_escape_str(f->dir);

		log_warn_errno(errno, "fleet: cannot read the fleet directory %s: %m (the view loaded stays)",
			       dn ? dn : "?");
		return;
	}
	dfd = -1; /* the DIR's now */
	for (size_t i = 0; i < FLEET_MAX_FILES; i++)
		f->seen[i].present = false;
	while ((e = readdir(d))) {
		struct stat st;
		struct seen *s;
		bool changed;

		if (e->d_name[0] == '.')
			continue; /* ., .., and the temporary files of rsync and the like */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue; /* regular files only: no symlink out of the directory, no FIFO to wait on */
		s = seen_of(f, e->d_name, &st, &changed);
		if (!s) {
			passed++;
			continue;
		}
		if (!changed)
			continue;
		if (judge(f, dirfd(d), s, &st, &cands[nc], fn, ctx) == 1)
			nc++;
	}
	closedir(d);
	for (size_t i = 0; i < FLEET_MAX_FILES; i++)
		if (!f->seen[i].present)
			f->seen[i].name[0] = '\0'; /* gone: its slot is free, its verdicts forgotten */
	if (passed && !f->overflow_said) {
		log_warn("fleet: more than %d files in the fleet directory: %zu passed over", FLEET_MAX_FILES, passed);
		f->overflow_said = true;
	}
	/* the newest first: loaded if newer than what is in use, the rest not newer */
	qsort(cands, nc, sizeof(cands[0]), cmp_newest);
	for (size_t i = 0; i < nc; i++) {
		struct cand *c = &cands[i];
		char why[640] = "";

		if (!f->loaded || c->meta.created_ns > f->bundle.created_ns) {
			int r = f->job ? -EBUSY : load_start(f, c);

			if (r < 0) {
				/* judged again once the load under way is done (or at the next change) */
				c->s->mtime = (struct timespec){ 0 };
				f->rescan = true;
				if (r != -EBUSY)
					log_warn_errno(r, "fleet: cannot start the loader thread: %m");
			}
			continue;
		}
		{
			_cleanup_free_ char *cur = text_escape_str(f->bundle.file);

			if (c->meta.created_ns < f->bundle.created_ns)
				snprintf(why, sizeof(why), "created %.3f s before the bundle in use (%s)",
					 (f->bundle.created_ns - c->meta.created_ns) / 1e9, cur ? cur : "?");
			else
				snprintf(why, sizeof(why), "created when the bundle in use (%s) was, not after",
					 cur ? cur : "?");
		}
		report(f, c->s, FLEET_NOT_NEWER, why, &c->meta, c->key_id, c->arrival_ns, 0, fn, ctx);
	}
}

/* The loader thread is done: the new view in use, or the file refused. */
static void load_done(struct fleet *f, fleet_report_fn fn, void *ctx)
{
	struct load_job *j = f->job;
	struct seen *s = NULL;
	char why[640] = "";

	pthread_join(f->loader, NULL);
	f->job = NULL;
	for (size_t i = 0; i < FLEET_MAX_FILES && !s; i++)
		if (f->seen[i].name[0] && strcmp(f->seen[i].name, j->c.s->name) == 0)
			s = &f->seen[i];
	if (!s) {
		job_free(j); /* gone from the directory meanwhile */
		return;
	}
	if (j->r < 0) {
		snprintf(why, sizeof(why), "not a bundle plumbline can read: %s", j->err);
		report(f, s, FLEET_INVALID, why, &j->c.meta, j->c.key_id, j->c.arrival_ns, 0, fn, ctx);
	} else if (judge_sig(f, j->sig, &j->meta, why, sizeof(why)) != FLEET_LOADED ||
		   j->meta.created_ns != j->c.meta.created_ns) {
		s->mtime = (struct timespec){ 0 }; /* replaced while it was read: judged again */
		f->rescan = true;
	} else {
		free_view(f->bs, f->n);
		f->bs = j->bs;
		f->n = j->n;
		j->bs = NULL;
		j->n = 0;
		f->bundle_hosts = j->meta.hosts;
		f->loaded = true;
		f->generation++;
		f->bundle = (struct fleet_bundle){
			.created_ns = j->meta.created_ns,
			.hosts = j->meta.hosts,
			.baselines = f->n,
			.loaded_ns = real_ns(),
			.arrival_ns = j->c.arrival_ns,
			.load_ns = j->load_ns,
		};
		snprintf(f->bundle.file, sizeof(f->bundle.file), "%s", s->name);
		snprintf(f->bundle.role, sizeof(f->bundle.role), "%s", j->meta.role);
		snprintf(f->bundle.key_id, sizeof(f->bundle.key_id), "%s", j->key_id);
		report(f, s, FLEET_LOADED, "", &j->meta, j->key_id, j->c.arrival_ns, j->load_ns, fn, ctx);
	}
	job_free(j);
}

void fleet__changed(struct fleet *f, fleet_report_fn fn, void *ctx)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	uint64_t done;
	ssize_t n;

	while ((n = read(f->ifd, buf, sizeof(buf))) > 0)
		any = true;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		log_warn_errno(errno, "fleet: reading the directory's events: %m");
	if (f->job && read(f->efd, &done, sizeof(done)) == sizeof(done))
		load_done(f, fn, ctx);
	if (f->job) {
		f->rescan |= any; /* judged once the load under way is done */
		return;
	}
	if (any || f->rescan) {
		f->rescan = false;
		fleet__scan(f, fn, ctx);
	}
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
