/* SPDX-License-Identifier: MIT */
/*
 * buildkey.h - build tools keyed by the build they work for.
 *
 * A compiler, assembler, linker or build driver run under a build driver
 * (make, ninja, cmake, meson) is keyed "<binary>+build:DIR", DIR the
 * directory of the outermost build driver among its ancestors (the project's
 * top, where `make -C sub` nests), so that one project's tools don't make
 * another's look new (docs/baselines.md "Keys"). Outside a build, no suffix.
 *
 * DIR is a pure function of records the kernel wrote when the processes
 * exec'd: the driver's working directory at its exec (struct pl_ev_exec's
 * cwd) and its command line. images.c hands it down the process tree as
 * processes fork and exec; nothing here reads /proc, so a key never depends
 * on whether the driver still runs when its tools' records are handled.
 * Kernel-free: strings in, strings out.
 */
#ifndef PL_BUILDKEY_H
#define PL_BUILDKEY_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the executable at path (its base name) is a build driver / a tool
 * keyed by its build (drivers included). path may be NULL: false. */
bool buildkey__is_driver(const char *path);
bool buildkey__is_keyed(const char *path);

/*
 * The directory a build driver exe works in, exec'd in cwd with argv args
 * (len bytes, NUL-separated as in /proc/PID/cmdline, untrusted): cwd, then
 * every -C/--directory option of make, ninja or meson applied in turn (as
 * they chdir(2) before building), lexically normalised ("." and ".."
 * resolved, "//" folded; symlinks are not followed). cwd_cut says cwd is
 * only the tail of a longer path: the result then starts with "..." unless
 * an absolute -C replaced it. *ret_dir is malloc'd. 0; -EINVAL when cwd is
 * NULL or not absolute; -ENAMETOOLONG past PATH_MAX; -ENOMEM (*ret_dir
 * untouched on failure).
 */
int buildkey__driver_dir(const char *exe, const char *cwd, bool cwd_cut, const char *args, size_t len,
			 char **ret_dir);

/* "+build:DIR" for dir (a deep one keeps its last 256 bytes after "..."),
 * malloc'd into *ret_suffix. 0 or -ENOMEM (untouched). */
int buildkey__suffix(const char *dir, char **ret_suffix);

#endif
