/* SPDX-License-Identifier: MIT */
/*
 * fileclass.h - the path classes of watched files (the rules' `path_class.*`
 * lists, docs/rules.md "Path classes"): what the kernel watches, and which
 * class a touched path is in.
 *
 * A pattern is an absolute path whose components may hold `*` and `?`
 * (within one component) and may be `**` (any number of components); a
 * leading `~/` means every home: /root and each account's home directory
 * in /etc/passwd, as they are when the classes are (re)loaded. A pattern
 * matches a path, and every path below one it matches (a directory named
 * stands for its entries).
 *
 * Expansion to what the kernel watches (fileclass__expand()):
 *   - an existing file a pattern names: that inode (PL_WATCH_FILE);
 *   - a directory whose entries a wildcard last component (or `**`) may
 *     name: every entry of it (PL_WATCH_DIR), user space then matching the
 *     name;
 *   - the directory of a literal last component (/etc/ld.so.preload):
 *     entries created in it (PL_WATCH_NEW), so a file that does not exist
 *     yet is seen when it is created;
 *   - /proc patterns: nothing (the kernel recognises other processes'
 *     mem, environ and maps by the filesystem and name).
 */
#ifndef PL_FILECLASS_H
#define PL_FILECLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_path_class;
struct fileclass;

/* kinds of a watch key (bits, as the kernel's enum pl_watch_kind) */
#define FILECLASS_WATCH_FILE 1u
#define FILECLASS_WATCH_DIR 2u
#define FILECLASS_WATCH_NEW 4u

/* Build from the classes (copied). homes: the home directories `~` means,
 * NULL: read them from /etc/passwd (and /root). 0 or -ENOMEM. */
int fileclass__new(const struct rl_path_class *c, size_t n, const char *const *homes, size_t nhomes,
		   struct fileclass **ret);
void fileclass__free(struct fileclass *fc);

size_t fileclass__count(const struct fileclass *fc);

/* The class the path is in (its name), or NULL. The first class in load
 * order whose pattern matches. */
const char *fileclass__match(const struct fileclass *fc, const char *path);

/* Whether glob pattern pat matches path (the language above, without `~`). */
bool fileclass__glob(const char *pat, const char *path);

/* Call fn for each (st_dev, ino, kinds) to watch; the same key may come more
 * than once (kinds to be OR'ed). Walks at most max_entries directory
 * entries. Returns the keys reported. */
typedef void (*fileclass_watch_fn)(void *ctx, uint64_t dev, uint64_t ino, unsigned kinds);
size_t fileclass__expand(const struct fileclass *fc, size_t max_entries, fileclass_watch_fn fn, void *ctx);

#endif
