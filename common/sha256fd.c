// SPDX-License-Identifier: MIT
/*
 * sha256fd.c - the SHA-256 of an fd's content (sha256fd.h).
 *
 * One chunk a read, so that a cancellation waits for one read at most and
 * a file that grows while it is read is caught at the bound, not after.
 */
#include "sha256fd.h"
#include "hex.h"

#include <errno.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (64u << 10)

/* Feed fd's content to ctx: 0, or the -errno of the read, -EFBIG past
 * max_bytes, -ECANCELED, -EIO. */
static int feed(EVP_MD_CTX *ctx, int fd, uint64_t max_bytes, const atomic_bool *stop)
{
	unsigned char chunk[CHUNK];
	uint64_t off = 0;

	for (;;) {
		ssize_t n;

		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return -ECANCELED;
		n = pread(fd, chunk, sizeof(chunk), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (!EVP_DigestUpdate(ctx, chunk, (size_t)n))
			return -EIO;
		off += (uint64_t)n;
		if (off > max_bytes)
			return -EFBIG;
	}
}

int sha256_fd(int fd, uint64_t max_bytes, const atomic_bool *stop, char ret[SHA256_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > max_bytes)
		return -EFBIG;
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return -ENOMEM;
	}
	r = feed(ctx, fd, max_bytes, stop);
	if (!r && (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != SHA256_HEX_LEN / 2))
		r = -EIO;
	EVP_MD_CTX_free(ctx);
	if (r < 0)
		return r;
	pl_hex_encode(md, mdlen, ret);
	return 0;
}
