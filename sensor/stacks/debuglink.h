/* SPDX-License-Identifier: MIT */
/*
 * debuglink.h - the separate debug file a `.gnu_debuglink` section names.
 *
 * `objcopy --add-gnu-debuglink=FILE` records FILE's base name and the
 * CRC-32 of its whole content; debuggers look for that name in a few
 * places and use the file only when the CRC matches. The sensor looks, in
 * this order, in ROOT/DIR/NAME and DIR/.debug/NAME, where DIR is the
 * directory of the object's path and ROOT the debug root
 * (/usr/lib/debug); the build-id directory (ROOT/.build-id/) is tried
 * before any of these (elfsyms.c).
 *
 * The section is untrusted: the name must be a plain file name (no '/',
 * not "." or "..", at most DEBUGLINK_NAME_MAX bytes, NUL-terminated inside
 * the section) or nothing is looked up. A candidate is opened without
 * blocking, must be a regular file of at most max_size bytes, and is read
 * once, whole, for its CRC.
 */
#ifndef PL_DEBUGLINK_H
#define PL_DEBUGLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DEBUGLINK_NAME_MAX    255
#define DEBUGLINK_SECTION_MAX 4096 /* a longer section is not a debuglink */
/* A debug file is read whole for its CRC, on the event loop: larger ones
 * are not used (Debian's are found by build-id, without a CRC). */
#define DEBUGLINK_MAX_FILE (256ll << 20)

/*
 * The file name and CRC of a .gnu_debuglink section's content (len bytes,
 * the CRC in big-endian byte order when big_endian) into name (size bytes)
 * and *ret_crc. Returns 0, or -EINVAL when the section is malformed or the
 * name is not a plain file name (nothing written then).
 */
int debuglink__parse(const void *data, size_t len, bool big_endian, char *name, size_t size, uint32_t *ret_crc);

/*
 * Open the debug file named name with CRC crc for the object at obj_path
 * (absolute), looked up under root (absolute) as the header says. Returns
 * an fd (O_CLOEXEC, the caller closes it); -ENOENT when no candidate
 * exists; -EBADMSG when one exists and none has the CRC (a stale or
 * foreign debug file, or something else put in its place); -ENAMETOOLONG;
 * else the -errno of a candidate that could not be opened or read.
 */
int debuglink__open(const char *root, const char *obj_path, const char *name, uint32_t crc, off_t max_size);

/* The CRC-32 (zlib's, as objcopy computes it) of the whole file fd, from
 * its start; -EIO on a read error, -EFBIG past max_size bytes. */
int debuglink__crc(int fd, off_t max_size, uint32_t *ret_crc);

#endif
