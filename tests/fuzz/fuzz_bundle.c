// SPDX-License-Identifier: MIT
/*
 * fuzz_bundle.c - libFuzzer target: arbitrary bytes as a bundle of
 * baselines (`baseline import` / `merge` read one from another host).
 *
 * bl_bundle__read() takes a path, so the bytes go to a memfd read through
 * /proc/self/fd (a regular file, as a bundle must be). Whatever the input,
 * the bounded scan and the parse must terminate and free everything; what
 * is read is freed as the caller would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct baseline **bs = NULL;
	char path[64], err[256];
	size_t n = 0;

	if (fd < 0 && (fd = memfd_create("fuzz-bundle", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (bl_bundle__read(path, &bs, &n, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < n; i++)
			baseline__free(bs[i]);
		free(bs);
	}
	return 0;
}
