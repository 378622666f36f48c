/* SPDX-License-Identifier: MIT */
/*
 * statedir.h - the state directory, as the sensor and the baseline commands
 * use it: made when missing, refused when others could write it, and
 * written by one process at a time.
 *
 * Baselines decide what the sensor calls normal. A directory that another
 * user could write to could hand it a doctored memory, so it is refused
 * rather than warned about. Two writers would each save their own copy,
 * and the last save would win, silently: the one that writes takes a lock
 * (flock(2) on DIR/lock, which holds its pid), the other is refused and
 * told who holds it. Readers need no lock: every save is an atomic rename.
 */
#ifndef PL_STATEDIR_H
#define PL_STATEDIR_H

#include <stdbool.h>

/*
 * Check dir and dir/baselines: each must be a directory owned by this
 * process's uid or by root and writable by neither group nor others. With
 * `create`, what is missing is made first (missing parents 0755, dir and
 * baselines/ 0700). Returns 0, or -errno after logging why, with the fix
 * ("refusing state directory /x: writable by group or others (mode 0777);
 * fix: chmod 0700 /x"); -EPERM for a directory others could write.
 */
int statedir__check(const char *dir, bool create);

/*
 * Take dir's writer lock: dir/lock (created 0600, never followed), locked
 * with flock(LOCK_EX | LOCK_NB), our pid written into it. Returns the lock's
 * fd (O_CLOEXEC): the lock lasts until it is closed or the process dies.
 * -EBUSY when another process holds it, logged as "state directory /x is in
 * use by plumbline pid N; stop it, or use --state-dir"; other -errno logged
 * too. dir should have passed statedir__check().
 */
int statedir__lock(const char *dir);

#endif
