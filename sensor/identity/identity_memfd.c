// SPDX-License-Identifier: MIT
/*
 * identity_memfd.c - a sealed memfd that is a copy of a trusted binary.
 *
 * runc (since its fix for CVE-2019-5736) and a few other programs protect
 * their own binary from being overwritten through /proc/self/exe: they copy
 * it into a memfd, seal the memfd against any change, and re-exec it. That is
 * an exec from a file with no name, like a fileless payload's, but what runs
 * is byte for byte a binary that only root could have placed. Told apart
 * here: the seals (F_GET_SEALS of the running executable), then the size,
 * then the SHA-256 of both.
 */
#include "identity/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sha256fd.h"

#define COPY_MAX_BYTES (256ull << 20) /* runc is some 10 MiB; a larger memfd is no copy we hash */
#define COPY_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK)

static int open_exe(pid_t pid, uint32_t kdev, uint64_t ino, struct stat *st)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || st->st_dev != identity__dev_from_kernel(kdev) || st->st_ino != ino) {
		close(fd); /* the pid is another image now: not the one judged */
		return -ESTALE;
	}
	return fd;
}

int identity__memfd_copy_of(pid_t pid, uint32_t kdev, uint64_t ino, const char *const *cands, size_t n)
{
	char memfd_hash[SHA256_HEX_LEN + 1], cand_hash[SHA256_HEX_LEN + 1];
	bool hashed = false;
	struct stat st, cst;
	int fd, seals, r = -1;

	fd = open_exe(pid, kdev, ino, &st);
	if (fd < 0)
		return -1;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & COPY_SEALS) != COPY_SEALS || (uint64_t)st.st_size > COPY_MAX_BYTES)
		goto out; /* unsealed: whatever it holds now may not be what ran */
	for (size_t i = 0; i < n && r < 0; i++) {
		int cfd;

		if (!cands[i] || cands[i][0] != '/')
			continue;
		cfd = open(cands[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (cfd < 0)
			continue;
		if (fstat(cfd, &cst) == 0 && S_ISREG(cst.st_mode) && cst.st_size == st.st_size &&
		    identity__file_is_roots(cands[i], &cst)) {
			if (!hashed)
				hashed = sha256_fd(fd, COPY_MAX_BYTES, NULL, memfd_hash) == 0;
			if (hashed && sha256_fd(cfd, COPY_MAX_BYTES, NULL, cand_hash) == 0 &&
			    strcmp(memfd_hash, cand_hash) == 0)
				r = (int)i;
		}
		close(cfd);
	}
out:
	close(fd);
	return r;
}
