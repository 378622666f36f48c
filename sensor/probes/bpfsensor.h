/* SPDX-License-Identifier: MIT */
/*
 * bpfsensor.h - the BPF side, as one object: open, configure, load, attach.
 *
 * Owns the skeleton, its links and the ring buffer. The daemon owns the event
 * loop: it polls bpfsensor__epoll_fd() and calls bpfsensor__consume().
 */
#ifndef PL_BPFSENSOR_H
#define PL_BPFSENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "process/failpaths.h"
#include "probes/kfeatures.h"
#include "stacks/oncpu.h"
#include "plumbline.h"

struct bpfsensor_opts {
	uint32_t max_procs;      /* entries of the in-kernel process table */
	uint32_t max_fail_paths; /* entries of the failed-open dedupe table */
	uint32_t ringbuf_kb;     /* ring buffer size, power of two */
	uint32_t refresh_hz;     /* CPU refresh frequency per CPU; 0 disables */
	uint32_t fail_keys_burst; /* new failed-path keys one image may insert at once */
	uint32_t fail_keys_per_s; /* ... and then per second */
	uint32_t sample_hz;      /* on-CPU stack samples per second per CPU; 0 disables */
	uint32_t stack_bytes;    /* bytes of user stack copied per sample (PL_STACK_DUMP_MAX at most) */
	uint32_t sample_ring_kb; /* the samples' ring buffer, power of two */
};

/* An executable file mapped by process pid, as the kernel reported it
 * (PERF_RECORD_MMAP2): where ([addr, addr + maplen) from file offset
 * pgoff), its build-id (len 0: the kernel could not read it) and its path.
 * Called from bpfsensor__consume() before any ring-buffer record, so a
 * sample is never unwound before the mapping it runs in is known. */
struct bpfsensor_mapping {
	uint32_t pid;
	uint64_t addr, maplen, pgoff;
	const uint8_t *build_id;
	size_t len;
	const char *path;
};
typedef void (*bpfsensor_mmap_fn)(void *ctx, const struct bpfsensor_mapping *m);

struct bpfsensor;

/*
 * Open, configure from opts and the probed features, load and attach.
 * cb is called for every ring-buffer record with ctx. Logs what fails.
 * Returns 0 and *ret, or -errno.
 */
/* Called for each ring-buffer record (data, size as the kernel wrote them);
 * a negative return stops the current batch (the record is consumed). */
typedef int (*bpfsensor_record_fn)(void *ctx, void *data, size_t size);

int bpfsensor__open(const struct bpfsensor_opts *opts, const struct pl_features *feat, bpfsensor_record_fn cb,
		    void *ctx, struct bpfsensor **ret);

/* Receive the mappings (see bpfsensor_mmap_fn) when sampling is on. Once,
 * after open. 0 or -errno (sampling then names objects from /proc only). */
int bpfsensor__watch_mmaps(struct bpfsensor *s, bpfsensor_mmap_fn fn, void *ctx);
/* PERF_RECORD_LOST: mapping records the kernel could not deliver. */
uint64_t bpfsensor__mmaps_lost(const struct bpfsensor *s);

int bpfsensor__epoll_fd(const struct bpfsensor *s);
/* Deliver every pending record. Returns the number consumed or -errno. */
int bpfsensor__consume(struct bpfsensor *s);
/* Deliver the pending mapping and sample records only (before an image's
 * end is judged, so its last samples are in). */
void bpfsensor__drain_samples(struct bpfsensor *s);

/* Loss counters summed over CPUs. 0 or -errno. */
/* Load the watched files (bpf/files.bpf.h): keys[n] with their kinds (enum
 * pl_watch_kind); keys is sorted in place. Replaces the previous set without
 * a gap. *ret_loaded: how many are in the kernel. 0, -E2BIG (the table's
 * bound) or -errno. */
int bpfsensor__set_watch(struct bpfsensor *s, struct pl_watch_key *keys, const uint32_t *kinds, size_t n,
			 size_t *ret_loaded);

int bpfsensor__drops(const struct bpfsensor *s, uint64_t out[PL_DROP_MAX]);

/*
 * Call fn once for every process in the kernel's table, with its current
 * entry (valid during the call only). The keys are collected first and
 * visited in order: a deletion under the map's cursor (a process exiting
 * meanwhile) would restart the kernel's walk and visit processes twice.
 * At most max keys are collected. 0 when the walk reached the table's end,
 * 1 when it stopped at max keys (some may not have been visited), or
 * -ENOMEM (some were visited).
 */
int bpfsensor__foreach_proc(struct bpfsensor *s, uint32_t max, void (*fn)(void *ctx, uint32_t tgid, const struct pl_proc *p),
			    void *ctx);

/* The failed-path table and the process table, as failpaths.c uses them. */
struct failpaths_table bpfsensor__fail_table(struct bpfsensor *s);
bool bpfsensor__tracks_open_fail(const struct bpfsensor *s);
/* Whether a connected process wrote the file (kernel dev_t kdev, inode ino)
 * in the last PL_NET_WRITTEN_MAX_AGE_S (ctx: the bpfsensor): not when the
 * file was born (btime_real_ns, CLOCK_REALTIME; 0: unknown) after that
 * write, which makes it another file on a reused inode number. */
bool bpfsensor__net_written(void *ctx, uint32_t kdev, uint64_t ino, uint64_t btime_real_ns);
/* Bring every CPU's running thread's CPU time and syscalls into its
 * process now (an IPI per CPU), before a pass over the process table. */
void bpfsensor__sync_cpu(struct bpfsensor *s);
bool bpfsensor__refreshes_cpu(const struct bpfsensor *s);

/* Whether wait stacks can be read from BPF (PL_FEAT_THREAD_ITER or
 * PL_FEAT_TASK_ITER). */
bool bpfsensor__has_wait_stacks(const struct bpfsensor *s);
/*
 * The records (struct pl_wait_rec) of the threads of process tgid, raw,
 * into buf: at most size bytes (more threads than fit are left out). With
 * PL_FEAT_THREAD_ITER, one BPF_PROG_TEST_RUN of pl_wait_threads, which walks
 * that process's threads alone, its output read from the .bss; else an
 * iterator fd made from the task iterator's link attached at start-up,
 * read to its end (BPF_ITER_CREATE, read(2)), which walks every task. No
 * privilege is needed for either, so both work after the drop. One caller
 * at a time (the target is a global of the programs). The bytes, or -errno
 * (-EOPNOTSUPP: neither). ctx: the bpfsensor (waitstate.h's
 * waitstate_kstacks.read).
 */
long bpfsensor__wait_stacks(void *ctx, uint32_t tgid, void *buf, size_t size);
bool bpfsensor__samples(const struct bpfsensor *s);

/* What oncpu.c asks of the kernel's side. */
struct oncpu_table bpfsensor__oncpu_table(struct bpfsensor *s);

/* The bpf(2) commands the sensor makes once attached (on the fds it holds:
 * map reads, deletes and walks, the refresher's test run, object info), and
 * those that load or attach, which it never makes then: privilege.c's
 * seccomp filter allows the first and kills on the second. Static arrays;
 * the count in *ret_n. */
const int *bpfsensor__steady_cmds(size_t *ret_n);
const int *bpfsensor__loader_cmds(size_t *ret_n);

/* "libbpf X.Y", for `plumbline version`. */
const char *bpfsensor__libbpf_version(void);

/* Detach and free. NULL-safe. */
void bpfsensor__free(struct bpfsensor *s);

#endif
