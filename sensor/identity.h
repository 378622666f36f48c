/* SPDX-License-Identifier: MIT */
/*
 * identity.h - who a process is, beyond what the kernel record says.
 *
 * The kernel hands us the executable's device and inode, the cgroup id and
 * the exec'd filename. This module turns them into what a person (and a
 * baseline) needs: the canonical exe path, the ELF build-id, the cgroup path.
 * Build-ids are cached by (device, inode) and cgroup paths by id, so a storm
 * of execs of one binary reads its ELF notes once.
 */
#ifndef PL_IDENTITY_H
#define PL_IDENTITY_H

#include <stdint.h>
#include <sys/types.h>

struct identity;

/* cgroup2_root may be "" (no cgroup v2: paths unresolved). 0 or -ENOMEM. */
int identity__new(const char *cgroup2_root, struct identity **ret);
void identity__free(struct identity *id);

/* Kernel dev_t (major << 20 | minor) to a user-space dev_t. */
dev_t identity__dev_from_kernel(uint32_t kdev);

struct exe_info {
	char *path;      /* canonical path, or the exec'd filename when the process is gone (raw bytes,
			  * escaped only where they leave the sensor); may be NULL */
	char *build_id;  /* lowercase hex, NULL if the ELF has none or could not be read */
	char *binary_id; /* the baseline identity: "build-id:<hex>", else "sha256:<hex>" of the
			  * content, else "file:<maj>:<min>:<ino>"; never NULL after resolve */
};

/*
 * Resolve the executable of pid, which the kernel saw as (kdev, ino), with
 * `filename` (may be NULL) the name passed to execve. Prefers /proc/PID/exe,
 * checked against (kdev, ino) so a reused pid can't lend its identity.
 * Fills *ret with malloc'd strings (free with exe_info__clear). Never fails
 * hard: unknown parts are NULL.
 */
void identity__resolve_exe(struct identity *id, pid_t pid, uint32_t kdev, uint64_t ino, const char *filename,
			   struct exe_info *ret);
void exe_info__clear(struct exe_info *e);

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

/* SHA-256 of the file open at fd, as lowercase hex into buf (65 bytes).
 * Files over 512 MiB are not hashed (-EFBIG). 0 or -errno. */
int identity__sha256_fd(int fd, char *buf, size_t size);

/* The cgroup v2 path of cgroup id (relative to the cgroup2 mount, "/" for
 * the root), or NULL. The string is owned by the cache. */
const char *identity__cgroup_path(struct identity *id, uint64_t cgid);

/* Read /proc/PID/cmdline, at most max bytes of it, joined into one string
 * (text_cmdline(): raw bytes, malloc'd). NULL when unavailable. */
char *identity__proc_cmdline(pid_t pid, size_t max);

#endif
