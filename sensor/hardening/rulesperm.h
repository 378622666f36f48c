/* SPDX-License-Identifier: MIT */
/*
 * rulesperm.h - rule files only another root could have written.
 *
 * The sensor runs as root and its rules decide what is alerted on: a rule
 * file someone else can write is a way to switch detection off. So, like the
 * state directory (bl_dir__check()), a rule file or directory is refused
 * when it is owned by a uid other than root or the sensor's, or when group or
 * others may write it; and a rule file is refused when others may replace it
 * through its directory (writable by others without the sticky bit). A
 * directory of rules is refused when group or others may write it (they
 * could add a file), sticky or not; every *.yaml / *.yml in it is checked.
 */
#ifndef PL_RULESPERM_H
#define PL_RULESPERM_H

#include <stddef.h>

/* 0 when every path is safe to load; -EPERM with what is wrong and the fix
 * in why (always NUL-terminated) otherwise. A path that cannot be read is
 * left to the loader to report (0). */
int rules_perm__check(const char *const *paths, size_t npaths, char *why, size_t whylen);

#endif
