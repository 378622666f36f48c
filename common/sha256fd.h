/* SPDX-License-Identifier: MIT */
/*
 * sha256fd.h - the SHA-256 of what an fd holds, streamed and bounded.
 *
 * Binaries without a build-id, interpreted scripts and imported baseline
 * bundles are identified by the hash of their content; the files are
 * anyone's, so the read is bounded (a caller's cap, checked before the
 * first read and again as the file grows) and may be cancelled between two
 * reads (the identity worker at shutdown). OpenSSL's EVP digest does the
 * hashing. Kernel-free, never logs.
 */
#ifndef PL_SHA256FD_H
#define PL_SHA256FD_H

#include <stdatomic.h>
#include <stdint.h>

#define SHA256_HEX_LEN 64 /* hex digits of a SHA-256 */

/*
 * The SHA-256 of fd's content, read with pread() from offset 0 to its end
 * (fd's own offset is left alone), as SHA256_HEX_LEN lower-case hex digits
 * and a NUL in ret. At most max_bytes are read: a file larger than that,
 * said by fstat() or found while reading (it grew), is -EFBIG. stop (may be
 * NULL) is looked at before each read: -ECANCELED once it is set.
 * Returns 0; -EFBIG; -ECANCELED; the -errno of fstat() or pread(); -ENOMEM
 * when the digest cannot be set up, -EIO when it fails. ret is untouched on
 * failure.
 */
int sha256_fd(int fd, uint64_t max_bytes, const atomic_bool *stop, char ret[SHA256_HEX_LEN + 1]);

#endif
