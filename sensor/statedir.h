/* SPDX-License-Identifier: MIT */
/*
 * statedir.h - the state directory, as the sensor and the baseline commands
 * use it: made when missing, refused when others could write it.
 *
 * Baselines decide what the sensor calls normal. A directory that another
 * user could write to could hand it a doctored memory, so it is refused
 * rather than warned about.
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

#endif
