/* SPDX-License-Identifier: MIT */
/*
 * saver.h - baseline files written off the event loop.
 *
 * A save is an encode (on the loop, a bounded number per tick: learn.h)
 * and a write, fsync, rename and directory fsync (slow: milliseconds each
 * on a loaded disk, and a flood of new binaries makes thousands; the
 * worker writes up to SAVER_BATCH at once with one sync for all,
 * atomic_write_files()). One worker thread takes jobs in
 * order from a bounded queue: a write of bytes the loop encoded (an
 * immutable snapshot, owned by the job: nothing mutable is shared) or the
 * removal of a file (eviction, aging), ordered with the writes before it so
 * that a removed baseline's file is never written back by an earlier save
 * still in flight. Finished writes come back to the loop through an eventfd
 * (saver__epoll_fd, saver__completed), where their failures are reported.
 */
#ifndef PL_SAVER_H
#define PL_SAVER_H

#include <stddef.h>
#include <stdint.h>

#define SAVER_QUEUE_BYTES (64u << 20) /* bytes of encoded baselines waiting, at most */
#define SAVER_BATCH 256               /* writes made durable by one sync */

struct saver;

/* A saver whose jobs wait for saver__start() (or are run by the caller's
 * thread in saver__wait() and saver__free() if it never starts). 0 and
 * *ret, or -errno. */
int saver__new(struct saver **ret);

/* Start the worker (every signal blocked in it, as the loop's are its
 * signalfd's, but SIGSYS). After the privilege drop: capabilities and the
 * seccomp filter are per thread, and a thread made before would keep every
 * capability and run unfiltered. 0, or -errno from pthread_create(3). */
int saver__start(struct saver *sv);

/* Finish every queued job, stop the worker and free. Results not yet taken
 * are handed to fn (may be NULL) as saver__completed() would. NULL-safe. */
void saver__free(struct saver *sv, void (*fn)(void *ctx, const char *key, const char *path, uint64_t batch, int err),
		 void *ctx);

/* Readable when saver__completed() has results. */
int saver__epoll_fd(const struct saver *sv);

/*
 * Queue the write of data (len bytes) to path, atomically (0600): path and
 * data are taken (freed by the saver) on success, left to the caller on
 * failure. key and batch come back with the result. 0, -ENOBUFS when
 * SAVER_QUEUE_BYTES are waiting already, or -ENOMEM.
 */
int saver__write(struct saver *sv, const char *key, char *path, char *data, size_t len, uint64_t batch);

/* Queue the removal of path (never refused for space). On ENOMEM the file
 * is unlinked here instead. */
void saver__remove(struct saver *sv, const char *path);

/* Every write finished since the last call: fn(ctx, key, path, batch, 0 or
 * -errno), in the order they were queued. */
void saver__completed(struct saver *sv, void (*fn)(void *ctx, const char *key, const char *path, uint64_t batch, int err),
		      void *ctx);

/* Wait until no job waits (the one running may still be). */
void saver__wait(struct saver *sv);

/* Jobs waiting or running now. */
uint64_t saver__pending(const struct saver *sv);

#endif
