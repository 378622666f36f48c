// SPDX-License-Identifier: MIT
/*
 * bpfsensor.c - skeleton lifecycle.
 *
 * Configuration goes in between __open() and __load(): map sizes and the
 * rodata switches. Optional programs whose feature is missing are not loaded
 * at all (autoload off) rather than failing the whole object.
 */
#include "probes/bpfsensor.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "plumbline_bpf.skel.h"

struct bpfsensor {
	struct plumbline_bpf *skel;
	struct ring_buffer *rb;
	struct ring_buffer *srb; /* the on-CPU samples' ring (oncpu.bpf.c) */
	struct bpf_link **perf_links;
	int *perf_fds;
	int ncpus;
	bool open_fail;
	bool refresh;
	bool sync; /* pl_cpu_sync runs on each CPU before a pass */
	bool sample;
	bool wait_iter; /* pl_wait_stacks is attached: kernel stacks of waiting threads */
	bool wait_threads; /* ... pl_wait_threads, one process's threads alone, in its place */
	bool wait_iter_warned;
	struct bpf_link **sample_links;
	int *sample_fds;
	struct perf_buffer *mmaps;
	bpfsensor_mmap_fn mmap_fn;
	void *mmap_ctx;
	uint64_t mmaps_lost;
	struct pl_proc *scratch; /* one procs value: too big for the stack of a callback */
};

/* libbpf's warnings (verifier logs included, which can be long) go to
 * stderr whole; its info and debug chatter only with --verbose. */
__attribute__((format(printf, 2, 0))) static int libbpf_log(enum libbpf_print_level level, const char *fmt,
							   va_list ap)
{
	if (level != LIBBPF_WARN && log_get_level() < LOG_LVL_DEBUG)
		return 0;
	fputs("plumbline: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* A cpu-clock event at hz on every CPU, running prog: fds and links into
 * *fds and *links (ncpus entries each, -1 / NULL where a CPU is offline). */
static int attach_cpu_clock(struct bpfsensor *s, struct bpf_program *prog, uint32_t hz, int **fds,
			    struct bpf_link ***links)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000000ull / hz, /* cpu-clock counts ns */
	};

	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0)
		return s->ncpus ? s->ncpus : -EINVAL;
	*links = calloc(s->ncpus, sizeof(**links));
	*fds = calloc(s->ncpus, sizeof(**fds));
	if (!*links || !*fds)
		return -ENOMEM;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		(*fds)[cpu] = -1;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV) /* possible but offline */
				continue;
			return -errno;
		}
		(*fds)[cpu] = fd;
		(*links)[cpu] = bpf_program__attach_perf_event(prog, fd);
		if (!(*links)[cpu])
			return -errno;
	}
	return 0;
}

int bpfsensor__open(const struct bpfsensor_opts *opts, const struct pl_features *feat, bpfsensor_record_fn cb,
		    void *ctx, struct bpfsensor **ret)
{
	struct bpfsensor *s;
	int r;

	libbpf_set_print(libbpf_log);
	s = calloc(1, sizeof(*s));
	if (!s)
		return log_error_errno(ENOMEM, "Out of memory");
	s->scratch = malloc(sizeof(*s->scratch));
	if (!s->scratch) {
		r = log_error_errno(ENOMEM, "Out of memory");
		goto fail;
	}
	s->skel = plumbline_bpf__open();
	if (!s->skel) {
		r = log_error_errno(errno, "Failed to open the BPF object: %m");
		goto fail;
	}
	s->open_fail = feat->have[PL_FEAT_SYSCALL_TP];
	s->refresh = feat->have[PL_FEAT_PERF_EVENT] && opts->refresh_hz > 0;
	s->skel->rodata->track_open_fail = s->open_fail;
	s->skel->rodata->wakeup_bytes = (uint64_t)opts->ringbuf_kb * 1024 / 8;
	s->skel->rodata->self_tgid = getpid();
	s->skel->rodata->fail_key_burst = opts->fail_keys_burst;
	s->skel->rodata->fail_key_interval_ns = 1000000000ull / (opts->fail_keys_per_s ? opts->fail_keys_per_s : 1);
	if (!s->open_fail) {
		bpf_program__set_autoload(s->skel->progs.pl_exit_openat, false);
		bpf_program__set_autoload(s->skel->progs.pl_exit_open, false);
		bpf_program__set_autoload(s->skel->progs.pl_exit_openat2, false);
		bpf_program__set_autoload(s->skel->progs.pl_exit_creat, false);
	}
	/* one sched_switch program of two, by the prototype (kfeatures.c) */
	bpf_program__set_autoload(feat->have[PL_FEAT_SCHED_SWITCH_STATE] ? s->skel->progs.pl_switch_3arg
									  : s->skel->progs.pl_sched_switch,
				  false);
	if (!s->refresh)
		bpf_program__set_autoload(s->skel->progs.pl_cpu_refresh, false);
	bpf_program__set_autoattach(s->skel->progs.pl_cpu_sync, false); /* run on demand: bpfsensor__sync_cpu() */
	/* the task iterator: its link is made now, with the others; reading it
	 * later needs no privilege (bpf/waits.bpf.c) */
	s->wait_threads = feat->have[PL_FEAT_THREAD_ITER];
	s->wait_iter = feat->have[PL_FEAT_TASK_ITER] && !s->wait_threads;
	if (!s->wait_iter)
		bpf_program__set_autoload(s->skel->progs.pl_wait_stacks, false);
	if (!s->wait_threads)
		bpf_program__set_autoload(s->skel->progs.pl_wait_threads, false);
	s->ncpus = libbpf_num_possible_cpus();
	s->sync = s->ncpus > 0;
	s->sample = feat->have[PL_FEAT_PERF_EVENT] && opts->sample_hz > 0;
	s->skel->rodata->stack_dump_bytes = opts->stack_bytes & ~7u;
	if (!s->sample)
		bpf_program__set_autoload(s->skel->progs.pl_oncpu_sample, false);
	/* a ring buffer must hold at least a page; unused, it is never touched */
	bpf_map__set_max_entries(s->skel->maps.samples, s->sample ? opts->sample_ring_kb * 1024 : 4096);
	bpf_map__set_max_entries(s->skel->maps.procs, opts->max_procs);
	bpf_map__set_max_entries(s->skel->maps.fail_paths, opts->max_fail_paths);
	bpf_map__set_max_entries(s->skel->maps.events, opts->ringbuf_kb * 1024);

	r = plumbline_bpf__load(s->skel);
	if (r) {
		r = log_error_errno(r, "Failed to load the BPF programs: %m (see the libbpf messages above)");
		goto fail;
	}
	r = plumbline_bpf__attach(s->skel);
	if (r) {
		r = log_error_errno(r, "Failed to attach the BPF programs: %m");
		goto fail;
	}
	if (s->refresh) {
		r = attach_cpu_clock(s, s->skel->progs.pl_cpu_refresh, opts->refresh_hz, &s->perf_fds, &s->perf_links);
		if (r < 0) {
			r = log_error_errno(r, "Failed to attach the CPU refresher to perf events: %m");
			goto fail;
		}
	}
	if (s->sample) {
		r = attach_cpu_clock(s, s->skel->progs.pl_oncpu_sample, opts->sample_hz, &s->sample_fds,
				     &s->sample_links);
		if (r < 0) {
			r = log_error_errno(r, "Failed to attach the on-CPU sampler to perf events: %m");
			goto fail;
		}
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), cb, ctx, NULL);
	if (!s->rb) {
		r = log_error_errno(errno, "Failed to set up the ring buffer: %m");
		goto fail;
	}
	/* its own manager: drained on demand (bpfsensor__drain_samples), and
	 * polled by the loop's timeout, never woken (the program asks for no
	 * wakeup) */
	if (s->sample) {
		s->srb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), cb, ctx, NULL);
		if (!s->srb) {
			r = log_error_errno(errno, "Failed to set up the sample ring buffer: %m");
			goto fail;
		}
	}
	*ret = s;
	return 0;
fail:
	bpfsensor__free(s);
	return r;
}

int bpfsensor__epoll_fd(const struct bpfsensor *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

int bpfsensor__consume(struct bpfsensor *s)
{
	/* mappings first: a stack record may name an object mapped just before */
	if (s->mmaps)
		perf_buffer__consume(s->mmaps);
	if (s->srb)
		ring_buffer__consume(s->srb);
	return ring_buffer__consume(s->rb);
}

void bpfsensor__drain_samples(struct bpfsensor *s)
{
	if (s->mmaps)
		perf_buffer__consume(s->mmaps);
	if (s->srb)
		ring_buffer__consume(s->srb);
}

/* PERF_RECORD_MMAP2 as the kernel lays it out with attr.build_id set. */
struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint8_t build_id_size;
	uint8_t reserved1;
	uint16_t reserved2;
	uint8_t build_id[20];
	uint32_t prot, flags;
	char filename[];
};

static enum bpf_perf_event_ret on_mmap(void *ctx, int cpu, struct perf_event_header *h)
{
	struct bpfsensor *s = ctx;
	const struct mmap2_rec *m = (const void *)h;
	size_t max;

	(void)cpu;
	if (h->type == PERF_RECORD_LOST) {
		const struct {
			struct perf_event_header h;
			uint64_t id, lost;
		} *l = (const void *)h;

		if (h->size >= sizeof(*l))
			s->mmaps_lost += l->lost;
		return LIBBPF_PERF_EVENT_CONT;
	}
	if (h->type != PERF_RECORD_MMAP2 || h->size <= sizeof(*m))
		return LIBBPF_PERF_EVENT_CONT;
	max = h->size - sizeof(*m);
	if (!memchr(m->filename, 0, max) || m->filename[0] != '/')
		return LIBBPF_PERF_EVENT_CONT; /* anonymous, [vdso], or cut */
	struct bpfsensor_mapping bm = { .pid = m->pid, .addr = m->addr, .maplen = m->len, .pgoff = m->pgoff,
					.path = m->filename };

	if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && m->build_id_size <= sizeof(m->build_id)) {
		bm.build_id = m->build_id;
		bm.len = m->build_id_size;
	}
	s->mmap_fn(s->mmap_ctx, &bm);
	return LIBBPF_PERF_EVENT_CONT;
}

int bpfsensor__watch_mmaps(struct bpfsensor *s, bpfsensor_mmap_fn fn, void *ctx)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.mmap = 1,
		.mmap2 = 1,
		.build_id = 1,
		.watermark = 1,
		.wakeup_watermark = 1u << 30, /* never wakes: consumed with every ring-buffer batch */
	};
	struct perf_buffer_raw_opts o = { .sz = sizeof(o) };

	if (!s->sample || s->mmaps)
		return -EINVAL;
	s->mmap_fn = fn;
	s->mmap_ctx = ctx;
	s->mmaps = perf_buffer__new_raw(bpf_map__fd(s->skel->maps.mmap_events), 128, &attr, on_mmap, s, &o);
	if (!s->mmaps)
		return -errno;
	return 0;
}

uint64_t bpfsensor__mmaps_lost(const struct bpfsensor *s)
{
	return s->mmaps_lost;
}

static int cmp_watch(const void *a, const void *b)
{
	const struct pl_watch_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * Make the watch set keys[n] (sorted here): insert the new keys and set the
 * union of old and new bits first, delete what is gone, then leave only the
 * new bits, so no watched file is missed while the set changes.
 */
int bpfsensor__set_watch(struct bpfsensor *s, struct pl_watch_key *keys, const uint32_t *kinds, size_t n,
			 size_t *ret_loaded)
{
	int fd = bpf_map__fd(s->skel->maps.file_watch);
	size_t max = bpf_map__max_entries(s->skel->maps.file_watch), loaded = 0;
	static uint64_t bits[PL_FILE_BITS / 64];
	struct pl_watch_key k, next, *stale = NULL;
	size_t nstale = 0, capstale = 0;
	bool more;
	int r = 0;

	memset(bits, 0, sizeof(bits));
	for (size_t i = 0; i < n && loaded < max; i++) {
		struct pl_watch_val v = {.kind = kinds[i]};
		uint32_t h = pl_watch_hash(keys[i].ino, keys[i].dev);

		keys[i].pad = 0;
		if (bpf_map_update_elem(fd, &keys[i], &v, BPF_ANY)) {
			r = -errno;
			continue;
		}
		loaded++;
		bits[h / 64] |= 1ull << (h % 64);
		__atomic_fetch_or(&s->skel->bss->file_bits[h / 64], 1ull << (h % 64), __ATOMIC_RELAXED);
	}
	if (n) /* qsort() and bsearch() of NULL: undefined even for 0 elements */
		qsort(keys, n, sizeof(*keys), cmp_watch);
	for (more = bpf_map_get_next_key(fd, NULL, &next) == 0; more;) {
		k = next;
		more = bpf_map_get_next_key(fd, &k, &next) == 0;
		if (n && bsearch(&k, keys, n, sizeof(*keys), cmp_watch))
			continue;
		if (nstale == capstale) {
			struct pl_watch_key *ns = realloc(stale, (capstale = capstale ? 2 * capstale : 64) * sizeof(*ns));

			if (!ns)
				break;
			stale = ns;
		}
		stale[nstale++] = k;
	}
	for (size_t i = 0; i < nstale; i++)
		bpf_map_delete_elem(fd, &stale[i]);
	free(stale);
	for (size_t i = 0; i < PL_FILE_BITS / 64; i++)
		__atomic_store_n(&s->skel->bss->file_bits[i], bits[i], __ATOMIC_RELAXED);
	if (ret_loaded)
		*ret_loaded = loaded;
	return loaded < n && !r ? -E2BIG : r;
}

int bpfsensor__drops(const struct bpfsensor *s, uint64_t out[PL_DROP_MAX])
{
	int ncpus = libbpf_num_possible_cpus();
	_cleanup_free_ uint64_t *vals = NULL;

	if (ncpus <= 0)
		return -EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < PL_DROP_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.drops), &k, vals))
			return -errno;
		for (int c = 0; c < ncpus; c++)
			out[k] += vals[c];
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int bpfsensor__foreach_proc(struct bpfsensor *s, uint32_t max, void (*fn)(void *ctx, uint32_t tgid, const struct pl_proc *p),
			    void *ctx)
{
	int fd = bpf_map__fd(s->skel->maps.procs), r = 0;
	uint32_t key, next, *keys = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0 && n < max) {
		key = next;
		prev = &key;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			uint32_t *k = realloc(keys, ncap * sizeof(*k));

			if (!k) {
				r = -ENOMEM;
				break;
			}
			keys = k;
			cap = ncap;
		}
		keys[n++] = key;
	}
	if (!r && n >= max)
		r = 1;
	if (n)
		qsort(keys, n, sizeof(*keys), cmp_u32);
	for (size_t i = 0; i < n; i++) {
		if (i && keys[i] == keys[i - 1])
			continue;
		if (bpf_map_lookup_elem(fd, &keys[i], s->scratch) == 0)
			fn(ctx, keys[i], s->scratch);
	}
	free(keys);
	return r;
}

static int fail_lookup(void *ctx, const struct pl_fail_key *k, struct pl_fail_val *ret)
{
	struct bpfsensor *s = ctx;

	return bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.fail_paths), k, ret) ? -errno : 0;
}

static int fail_remove(void *ctx, const struct pl_fail_key *k)
{
	struct bpfsensor *s = ctx;

	return bpf_map_delete_elem(bpf_map__fd(s->skel->maps.fail_paths), k) ? -errno : 0;
}

static int fail_next_key(void *ctx, const struct pl_fail_key *prev, struct pl_fail_key *ret)
{
	struct bpfsensor *s = ctx;

	return bpf_map_get_next_key(bpf_map__fd(s->skel->maps.fail_paths), prev, ret) ? -errno : 0;
}

static bool image_live(void *ctx, uint32_t tgid, uint64_t image_id)
{
	struct bpfsensor *s = ctx;
	struct pl_proc *p = s->scratch;

	return bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.procs), &tgid, p) == 0 && p->id.image_id == image_id;
}

struct failpaths_table bpfsensor__fail_table(struct bpfsensor *s)
{
	return (struct failpaths_table){
		.ctx = s,
		.lookup = fail_lookup,
		.remove = fail_remove,
		.next_key = fail_next_key,
		.max_entries = bpf_map__max_entries(s->skel->maps.fail_paths),
		.image_live = image_live,
	};
}

bool bpfsensor__tracks_open_fail(const struct bpfsensor *s)
{
	return s->open_fail;
}

bool bpfsensor__net_written(void *ctx, uint32_t kdev, uint64_t ino, uint64_t btime_real_ns)
{
	const struct bpfsensor *s = ctx;
	struct pl_written_key k = {.ino = ino, .dev = kdev};
	struct pl_written_val v;
	struct timespec now, real;
	uint64_t mono_ns, real_ns;

	if (!s || bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.net_written), &k, &v) < 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &real);
	mono_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	real_ns = (uint64_t)real.tv_sec * 1000000000ull + (uint64_t)real.tv_nsec;
	if (mono_ns - v.written_ns > PL_NET_WRITTEN_MAX_AGE_S * 1000000000ull)
		return false;
	/* a file born after the write was noted is another file on a reused
	 * inode number. A download is born before its write (the open that
	 * created it is the one noted, and a file system's coarse clock only
	 * makes the birth earlier); 10 ms of slack for the two clocks. With 1 s,
	 * scripts of two quiet workloads run side by side looked downloaded: a
	 * file git-remote-http had just written and freed gave its number to
	 * a script born within that second. */
	return !btime_real_ns || btime_real_ns <= real_ns - (mono_ns - v.written_ns) + 10000000ull;
}

void bpfsensor__sync_cpu(struct bpfsensor *s)
{
	int fd = bpf_program__fd(s->skel->progs.pl_cpu_sync);

	if (!s->sync)
		return;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (uint32_t)cpu);

		if (bpf_prog_test_run_opts(fd, &o) == 0 || errno == ENXIO)
			continue; /* ENXIO: the CPU is offline, nothing runs there */
		log_warn_errno(errno,
				  "Cannot bring the CPU counters up to date on CPU %d before a pass (%m): "
				  "windows see CPU as of the last refresh (1/--refresh-hz s) from now on",
				  cpu);
		s->sync = false;
		return;
	}
}

bool bpfsensor__has_wait_stacks(const struct bpfsensor *s)
{
	return s && (s->wait_iter || s->wait_threads);
}

static void wait_warn(struct bpfsensor *s, int r)
{
	if (!s->wait_iter_warned)
		log_warn_errno(r, "Cannot read the kernel stacks of waiting threads from BPF (%m): "
				  "from /proc only (wchan only once privileges are dropped)");
	s->wait_iter_warned = true;
}

/* pl_wait_threads run once (an IPI-free test run on this CPU), its output
 * copied out of the mmap()ed .bss. */
static long wait_threads(struct bpfsensor *s, uint32_t tgid, void *buf, size_t size)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	size_t n, len;

	s->skel->bss->wait_tgid = tgid;
	if (bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.pl_wait_threads), &o) < 0) {
		int r = -errno;

		s->skel->bss->wait_tgid = 0;
		wait_warn(s, r);
		return r;
	}
	s->skel->bss->wait_tgid = 0;
	n = s->skel->bss->wait_nout;
	if (n > PL_WAIT_MAX_RECS)
		n = PL_WAIT_MAX_RECS; /* never more than the array, whatever the word says */
	len = n * sizeof(struct pl_wait_rec);
	if (len > size)
		len = size - size % sizeof(struct pl_wait_rec);
	if (len)
		memcpy(buf, (const void *)s->skel->bss->wait_out, len);
	return (long)len;
}

long bpfsensor__wait_stacks(void *ctx, uint32_t tgid, void *buf, size_t size)
{
	struct bpfsensor *s = ctx;
	size_t got = 0;
	int fd, r = 0;

	if (!s || !bpfsensor__has_wait_stacks(s) || !tgid)
		return -EOPNOTSUPP;
	if (s->wait_threads)
		return wait_threads(s, tgid, buf, size);
	/* the one reader: the program reads it while the fd below is read */
	s->skel->bss->wait_tgid = tgid;
	fd = bpf_iter_create(bpf_link__fd(s->skel->links.pl_wait_stacks));
	if (fd < 0)
		r = -errno;
	while (fd >= 0 && got < size) {
		ssize_t n = read(fd, (char *)buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	/* at size: more threads than the caller's bound, the rest unread */
	if (fd >= 0)
		close(fd);
	s->skel->bss->wait_tgid = 0;
	if (r < 0 && !got) {
		wait_warn(s, r);
		return r;
	}
	return (long)got;
}

bool bpfsensor__refreshes_cpu(const struct bpfsensor *s)
{
	return s->refresh;
}

bool bpfsensor__samples(const struct bpfsensor *s)
{
	return s->sample;
}

static void st_drain(void *ctx)
{
	bpfsensor__drain_samples(ctx);
}

struct oncpu_table bpfsensor__oncpu_table(struct bpfsensor *s)
{
	return (struct oncpu_table){
		.ctx = s,
		.image_live = image_live,
		.drain = st_drain,
	};
}

const char *bpfsensor__libbpf_version(void)
{
	return libbpf_version_string();
}

void bpfsensor__free(struct bpfsensor *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	ring_buffer__free(s->srb);
	perf_buffer__free(s->mmaps);
	for (int i = 0; s->sample_links && i < s->ncpus; i++)
		bpf_link__destroy(s->sample_links[i]);
	for (int i = 0; s->sample_fds && i < s->ncpus; i++)
		if (s->sample_fds[i] >= 0)
			close(s->sample_fds[i]);
	free(s->sample_links);
	free(s->sample_fds);
	for (int i = 0; s->perf_links && i < s->ncpus; i++)
		bpf_link__destroy(s->perf_links[i]);
	for (int i = 0; s->perf_fds && i < s->ncpus; i++)
		if (s->perf_fds[i] >= 0)
			close(s->perf_fds[i]);
	free(s->perf_links);
	free(s->perf_fds);
	plumbline_bpf__destroy(s->skel);
	free(s->scratch);
	free(s);
}

const int *bpfsensor__steady_cmds(size_t *ret_n)
{
	static const int cmds[] = {
		BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM, BPF_MAP_DELETE_ELEM, BPF_MAP_GET_NEXT_KEY,
		BPF_PROG_TEST_RUN, BPF_OBJ_GET_INFO_BY_FD, BPF_MAP_LOOKUP_AND_DELETE_ELEM, BPF_MAP_LOOKUP_BATCH,
		BPF_MAP_LOOKUP_AND_DELETE_BATCH, BPF_MAP_DELETE_BATCH,
		BPF_ITER_CREATE, /* a read of the wait-stack iterator's link (bpf/waits.bpf.c) */
	};

	*ret_n = ARRAY_SIZE(cmds);
	return cmds;
}

const int *bpfsensor__loader_cmds(size_t *ret_n)
{
	static const int cmds[] = {
		BPF_PROG_LOAD, BPF_BTF_LOAD, BPF_LINK_CREATE, BPF_RAW_TRACEPOINT_OPEN, BPF_PROG_ATTACH, BPF_LINK_UPDATE,
	};

	*ret_n = ARRAY_SIZE(cmds);
	return cmds;
}
