/* SPDX-License-Identifier: MIT */
/*
 * fdwrite.h - write a whole buffer to an fd: the one write(2) loop of the
 * outputs that write files (JSON Lines, the audit log).
 */
#ifndef PL_FDWRITE_H
#define PL_FDWRITE_H

#include <stddef.h>

/* Write all len bytes of buf to fd, retrying short writes and EINTR.
 * 0, or -errno of the write that failed (some bytes may be written). */
int fd_write_all(int fd, const void *buf, size_t len);

#endif
