/* SPDX-License-Identifier: MIT */
/*
 * exetrust.h - whether an executable could have been placed by an
 * unprivileged user.
 *
 * Allow-lists of "expected CPU-heavy tools" name binaries (xz, cc1); a name
 * is anyone's to give. An exception holds only for a file no unprivileged
 * user could have put there or changed: root-owned, not group- or
 * other-writable, in a chain of root-owned directories none of which is
 * group- or other-writable (a sticky /tmp is writable, so not trusted). The
 * path is checked as the sensor's mount namespace sees it, and must still
 * name the very file the kernel ran (dev, inode): a file in another mount
 * namespace, or one renamed over since, is not trusted.
 */
#ifndef PL_EXETRUST_H
#define PL_EXETRUST_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether path (absolute) is the file the kernel knows as (kdev, ino) and
 * is trusted as above. false when anything cannot be checked (no path, a
 * stat fails, a relative path, the file differs). Reads the file system
 * only (stat(2) of the file and each parent directory); never follows the
 * last component's symlink (the kernel's path is already resolved).
 */
bool exetrust__check(const char *path, uint32_t kdev, uint64_t ino);

#endif
