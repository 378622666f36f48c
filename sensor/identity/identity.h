/* SPDX-License-Identifier: MIT */
/*
 * identity.h - who a process is, beyond what the kernel record says.
 *
 * The kernel hands us the executable's device and inode, the cgroup id and
 * the exec'd filename. This module turns them into what a person (and a
 * baseline) needs: the canonical exe path, the ELF build-id, the cgroup path.
 * Build-ids are cached by (device, inode) and cgroup paths by id, so a storm
 * of execs of one binary reads its ELF notes once.
 *
 * A binary without a build-id is known by the SHA-256 of its content, up to
 * 512 MiB of it: seconds of work that must not stall the event loop, which
 * every other process's records wait on. So the hash is computed by one
 * worker thread, off the loop: identity__resolve_exe() never hashes, it
 * queues the file and says the identity is pending; the loop learns of the
 * result through identity__epoll_fd() and identity__completed(). The cache
 * belongs to the loop alone; the worker only reads the files handed to it
 * and posts results to the queue, under its mutex.
 */
#ifndef PL_IDENTITY_H
#define PL_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct identity;

/* Files waiting for their hash, or being hashed, or hashed and not yet
 * collected by identity__completed(): at most this many, one entry each. */
#define IDENTITY_HASH_QUEUE 64

/* cgroup2_root may be "" (no cgroup v2: paths unresolved). Starts the hash
 * worker (with every signal blocked). 0, -ENOMEM, or -errno from eventfd(2)
 * or pthread_create(3). */
int identity__new(const char *cgroup2_root, struct identity **ret);
/* Stop the worker (a hash in progress stops within one 64 KiB read; results
 * not collected are dropped) and free. NULL-safe. */
void identity__free(struct identity *id);

/* Kernel dev_t (major << 20 | minor) to a user-space dev_t. */
dev_t identity__dev_from_kernel(uint32_t kdev);
/* ... and back: what the kernel's s_dev says for a stat(2) st_dev. */
uint32_t identity__dev_to_kernel(dev_t dev);

struct exe_info {
	char *path;        /* canonical path, or the exec'd filename when the process is gone (raw bytes,
			    * escaped only where they leave the sensor); may be NULL */
	char *build_id;    /* lowercase hex, NULL if the ELF has none or could not be read */
	char *binary_id;   /* the baseline identity: "build-id:<hex>" for a file only root could
			    * have written (identity__file_is_roots()), else "sha256:<hex>" of the
			    * content, else "file:<maj>:<min>:<ino>" (the file could not be read or
			    * hashed); NULL while the hash is pending, or when the queue was full */
	bool hash_pending; /* binary_id waits for the hash of the file (kdev, ino) given to
			    * identity__resolve_exe(): identity__completed() will report it */
};

/* What the kernel says of an executable at image start (struct pl_ident):
 * its file, and the size and times its inode had. Times 0: unknown. */
struct exe_stamp {
	uint32_t kdev; /* kernel dev_t */
	uint64_t ino;
	uint64_t size;
	uint64_t mtime_ns, ctime_ns; /* CLOCK_REALTIME ns */
	const char *cwd; /* the exec'ing process's working directory at exec (its exec record),
			  * NULL: unknown. A relative filename is resolved against it, so the
			  * name does not depend on the process still running; the (dev, ino)
			  * check rejects a name that leads elsewhere (another mount namespace) */
};

/*
 * Resolve the executable of pid, which the kernel saw as k, with `filename`
 * (may be NULL) the name passed to execve. A binary seen before under the
 * same stamp (device, inode, size, mtime, ctime) is known at once from the
 * cache, its path included: no syscall. Otherwise it prefers /proc/PID/exe,
 * checked against (kdev, ino) so a reused pid can't lend its identity; the
 * name it reads is cached as the binary's one path, so every image of that
 * binary is named the same way, however it was exec'd.
 * Fills *ret with malloc'd strings (free with exe_info__clear). Never fails
 * hard: unknown parts are NULL.
 *
 * Returns at once: a file with a build-id that only root could have
 * written, or whose hash is cached (by device, inode, size, mtime and ctime:
 * a chown or chmod changes ctime), gets its binary_id now. Any other
 * file is queued for the worker (one entry per file, however many processes
 * run it), and *ret says hash_pending. When IDENTITY_HASH_QUEUE files are
 * already queued, the file is not hashed now: binary_id is NULL, hash_pending
 * false, and hash_queue_full counts it; a later resolve of the file queues it
 * again. A file over 512 MiB is never hashed: "file:..." at once.
 */
void identity__resolve_exe(struct identity *id, pid_t pid, const struct exe_stamp *k, const char *filename,
			   struct exe_info *ret);

/*
 * The canonical name of the file (dev, ino) exec'd as `filename`: its
 * realpath(3) (a relative filename is taken under `cwd`, e.g.
 * "/proc/PID/cwd"; NULL: relative names fail), accepted only when stat(2)
 * of it is that very file. This is the name /proc/PID/exe gives, so an image
 * is named the same whether the sensor looked while it lived or not.
 * Returns 0 with the name in buf; -ESTALE when the name leads to another
 * file, -ENOENT, -ENAMETOOLONG or realpath's -errno otherwise (buf untouched).
 */
int identity__canonical_path(const char *filename, const char *cwd, dev_t dev, ino_t ino, char *buf,
			     size_t size);
void exe_info__clear(struct exe_info *e);

/* The fd (eventfd, CLOEXEC, nonblocking) that polls readable when hashes
 * have completed: then call identity__completed(). */
int identity__epoll_fd(const struct identity *id);

/* What identity__completed() reports: the file the kernel knows as (kdev,
 * ino) now has binary_id ("sha256:<hex>", or "file:..." when it could not be
 * hashed, or changed while it waited), borrowed for the call. */
typedef void (*identity_hashed_fn)(void *ctx, uint32_t kdev, uint64_t ino, const char *binary_id);

/* Collect the hashes the worker has finished: each goes into the cache, then
 * to fn. Returns how many (0 when none). Call it from the thread that calls
 * identity__resolve_exe(), never from fn. */
int identity__completed(struct identity *id, identity_hashed_fn fn, void *ctx);

/* Counters for the stats record (docs/records.md, "identity"). */
struct identity_stats {
	uint64_t hashes_queued;   /* files handed to the worker */
	uint64_t hashes_done;     /* ... hashed: "sha256:" ids */
	uint64_t hash_failures;   /* ... that could not be hashed (read error, changed while queued) */
	uint64_t hash_queue_full; /* files not hashed because the queue was full (or no fd was left) */
	uint64_t hashes_pending;  /* files in the queue now */
	uint64_t hash_ns;         /* the worker's time spent hashing, in total */
	uint64_t cache_hits;      /* executables identified from the cache, without a syscall */
};
const struct identity_stats *identity__stats(const struct identity *id);

/*
 * Build-id of the ELF file open at fd, as lowercase hex into buf (at least
 * 129 bytes). 0, -ENOENT when the file has no GNU build-id note, -EINVAL
 * when it is not ELF (or the note is too long for buf). The file is
 * untrusted: the program headers' PT_NOTE segments are read, then SHT_NOTE
 * sections, within fixed bounds (a 64 KiB table of each, 64 KiB per note
 * area, 16 areas, 512 KiB read in all); notes beyond them are not found.
 * Implemented in identity_elf.c.
 */
int identity__read_build_id(int fd, char *buf, size_t size);

/* The same build-id as bytes: how many of its first bytes (at most max)
 * were put in bid, 0 when the file has none or is not ELF. */
size_t identity__read_build_id_bytes(int fd, uint8_t *bid, size_t max);

/*
 * Whether only root could have written the file st (fstat of the file the
 * caller read) and put it at `path` (canonical, absolute; NULL: false): the
 * file and every directory on the path are owned by root and not writable
 * by group or others (a directory may be, with its sticky bit), and the path
 * still leads to st's device and inode. Only such a file is known by its
 * build-id (a claim anyone can link into a file): any other is hashed.
 * Implemented in identity_trust.c.
 */
bool identity__file_is_roots(const char *path, const struct stat *st);

/*
 * Whether the executable at path (absolute, as the kernel resolved it) is
 * the file the kernel ran as (kdev, ino) and identity__file_is_roots(): no
 * unprivileged user could have placed or changed it. What the rules'
 * allow-lists of tool names hold for (proc.exe_trusted): a name is anyone's
 * to give. false when anything cannot be checked. A few stats, nothing
 * cached (a chmod counts at the next exec). Implemented in identity_trust.c.
 */
bool identity__exe_trusted(const char *path, uint32_t kdev, uint64_t ino);

/*
 * Whether pid's executable, the memfd the kernel knows as (kdev, ino), is a
 * sealed copy of one of the n candidate binaries (absolute paths; NULL
 * entries are skipped): the memfd sealed against write, grow and shrink
 * (F_GET_SEALS: unsealed, what it holds now may not be what ran), the
 * candidate a file only root could have placed (identity__file_is_roots()),
 * the same size and the same SHA-256. What runc does at every container start
 * (re-exec of a sealed copy of itself, its fix for CVE-2019-5736). Returns
 * the candidate's index, or -1: not a copy, or the process is gone or runs
 * another image now. Reads both files (some 10 MiB for runc) when the seals
 * and sizes match, nothing otherwise. Implemented in identity_memfd.c.
 */
int identity__memfd_copy_of(pid_t pid, uint32_t kdev, uint64_t ino, const char *const *cands, size_t n);

/* The cgroup v2 path of cgroup id (relative to the cgroup2 mount, "/" for
 * the root), or NULL. The string is owned by the cache. */
const char *identity__cgroup_path(struct identity *id, uint64_t cgid);

/* Read /proc/PID/cmdline, at most max bytes of it, joined into one string
 * (text_cmdline(): raw bytes, malloc'd). NULL when unavailable. */
char *identity__proc_cmdline(pid_t pid, size_t max);

#endif
