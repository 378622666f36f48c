/* SPDX-License-Identifier: MIT */
/*
 * pkgindex.h - which installed package owns a file (Debian: dpkg's
 * /var/lib/dpkg/info/<package>.list files).
 *
 * The index is built off the event loop, on a thread of its own, at the
 * first question; until it is built the answer is "unknown". It is rebuilt
 * when dpkg's database changes (the mtime of <info dir> or of its status
 * file, looked at no more than once every PKGINDEX_RECHECK_NS), the old
 * one answering meanwhile. On a host without that directory every answer
 * is "unknown", never "no package".
 *
 * Only paths that can be code are indexed (pkgindex.c, indexable()): a
 * shared object (".so" in its name) or a program (bin, sbin, libexec); any
 * other path is "unknown".
 *
 * A path is looked up as given, and with its /usr prefix added or removed:
 * on a merged-/usr system dpkg lists /lib/x86_64-linux-gnu/libc.so.6 while
 * the kernel names the file /usr/lib/x86_64-linux-gnu/libc.so.6.
 */
#ifndef PL_PKGINDEX_H
#define PL_PKGINDEX_H

#include <stdint.h>

#define PKGINDEX_RECHECK_NS 5000000000ull

struct pkgindex;

/* info_dir: dpkg's info directory (NULL: /var/lib/dpkg/info); status: its
 * status file (NULL: <info_dir>/../status). Nothing is read yet. */
int pkgindex__new(const char *info_dir, const char *status, struct pkgindex **ret);
void pkgindex__free(struct pkgindex *x);

enum pkg_owner { PKG_UNKNOWN = -1, PKG_NONE = 0, PKG_OWNED = 1 };

/* Who owns path (absolute); *pkg (may be NULL) gets the package's name,
 * valid until the next call. now_ns: CLOCK_MONOTONIC, for the recheck.
 * Starts the build when none is there yet. */
enum pkg_owner pkgindex__owner(struct pkgindex *x, const char *path, uint64_t now_ns, const char **pkg);

/* Wait for a build in progress to end (tests, shutdown). */
void pkgindex__wait(struct pkgindex *x);

/* Paths in the index in use (0 before the first build). */
uint64_t pkgindex__paths(const struct pkgindex *x);

/* Build the index from info_dir now, on this thread (tests). 0 or -errno. */
int pkgindex__build_now(struct pkgindex *x);

#endif
