/* SPDX-License-Identifier: MIT */
/*
 * objects.h - what an executable object an image mapped is: its identity,
 * whether only root could have placed it, which package owns it, where it
 * lies, and (for telling a preload from a library the program asked for)
 * the ELF names it answers to and the libraries an executable needs.
 *
 * Everything is cached per file, keyed by what the kernel said of it
 * (device, inode, size, mtime, ctime: a rewrite, chmod or chown makes a new
 * entry), so libc mapped by every process costs one lookup, no syscall.
 * The cache is bounded (OBJECTS_SLOTS, direct-mapped: a collision
 * recomputes).
 */
#ifndef PL_OBJECTS_H
#define PL_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "identity/identity.h"
#include "identity/pkgindex.h"

#define OBJECTS_SLOTS 4096
#define OBJECTS_NEEDED_MAX 64 /* DT_NEEDED names kept per executable */

/* The file as the kernel stamped it. */
struct obj_stamp {
	uint32_t kdev;
	uint64_t ino, size, mtime_ns, ctime_ns;
};

struct obj_info {
	struct obj_stamp k;
	char *path;       /* as the kernel named it */
	const char *name; /* its last component, in path */
	char *dir;        /* path without it */
	char *build_id;   /* hex, NULL: none or unreadable */
	char *binary_id;  /* identity__resolve_exe()'s, NULL while its hash is pending */
	bool trusted_known, trusted; /* identity__file_is_roots() */
	enum pkg_owner packaged;
	char *package;    /* the owner's name when PKG_OWNED */
	const char *location; /* "system", "tmp" (/tmp, /var/tmp, /dev/shm), "home", "other" */
	char *soname;     /* DT_SONAME, NULL: none */
	bool elf_read;    /* its dynamic section was looked at */
	bool dynamic;     /* an ELF with a dynamic section naming libraries it needs */
	char *needed[OBJECTS_NEEDED_MAX];
	uint32_t nneeded;
	uint64_t used_ns; /* CLOCK_MONOTONIC of the last lookup */
};

struct objects;

/* ident, pkgs: borrowed (pkgs may be NULL: packages unknown). */
int objects__new(struct identity *ident, struct pkgindex *pkgs, struct objects **ret);
void objects__free(struct objects *o);

/* The object (k) the kernel named path (NULL: unknown), described; valid
 * until the next call. now_ns: CLOCK_MONOTONIC. NULL on ENOMEM. */
const struct obj_info *objects__get(struct objects *o, const struct obj_stamp *k, const char *path, uint64_t now_ns);

/* The dynamic section of the cached object: its soname and needed list
 * (read at the first call, bounded). */
void objects__elf(struct objects *o, struct obj_info *oi);

/* Whether the executable (k, path) lists `name` (a DT_SONAME, or a file
 * name) among its DT_NEEDED; *dynamic says whether it needs any library
 * at all (false: static, or unreadable). */
bool objects__exe_needs(struct objects *o, const struct obj_stamp *exe, const char *exe_path, const char *name,
			bool *dynamic, uint64_t now_ns);

/* Where a path lies: "tmp" (/tmp, /var/tmp, /dev/shm), "home" (/home,
 * /root, /run/user), "system" (/usr, /lib*, /bin, /sbin, /opt, /etc,
 * /boot), "other". */
const char *objects__location(const char *path);

/* Read the soname and DT_NEEDED names of the ELF file fd into oi (pure
 * parsing within bounds; a non-ELF or foreign ELF: nothing). For tests. */
void objects__read_dynamic(int fd, struct obj_info *oi);

#endif
