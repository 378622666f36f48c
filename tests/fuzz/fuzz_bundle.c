// SPDX-License-Identifier: MIT
/*
 * fuzz_bundle.c - libFuzzer target: arbitrary bytes as a bundle of
 * baselines (`baseline import` / `merge` / `verify` read one from another
 * host, the sensor one from its fleet directory).
 *
 * bl_bundle__read_meta() takes a path, so the bytes go to a memfd read
 * through /proc/self/fd (a regular file, as a bundle must be). Each input
 * is read three ways: without a keyring (the baselines parsed, signed or
 * not), with the keyring of the seeds' key (the signature checked, the
 * baselines parsed only when it is good: the seeds signed_*.json are, so
 * the good path is fuzzed too), and header only. Whatever the input, the
 * bounded scan, the signature's parse and check and the baselines' parse
 * must terminate and free everything, and a verdict must be one of the four.
 *
 * The seeds were signed by a throwaway key made with `plumbline baseline
 * keygen`; only its public half is kept (below). New signed seeds need a new
 * pair and that constant replaced.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char seed_pub[] = "-----BEGIN PUBLIC KEY-----\n"
			       "MCowBQYDK2VwAyEARa1+DsYIL7Hp58k5i40NoeybknkjImwPFkTm8fAUXy4=\n"
			       "-----END PUBLIC KEY-----\n";

/* The seeds' public key, through a file of mode 0644 as a keyring wants. */
static struct bl_keyring *seed_keyring(void)
{
	char dir[] = "/tmp/pl-fuzz-bundle-XXXXXX", path[64], err[256];
	struct bl_keyring *r = NULL;
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/seed.pub", dir);
	f = fopen(path, "we");
	if (!f || fputs(seed_pub, f) < 0 || fclose(f) != 0 || chmod(path, 0644) < 0)
		abort();
	if (bl_keyring__load(path, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_bundle: %s\n", err);
		abort();
	}
	unlink(path);
	rmdir(dir);
	return r;
}

static void read_as(const char *path, const struct bl_keyring *trust, int want_baselines)
{
	struct bl_bundle_meta m;
	struct baseline **bs = NULL;
	enum bl_sig sig = BL_SIG_NONE;
	char err[256], id[BL_KEY_ID_LEN + 1];
	size_t n = 0;

	if (bl_bundle__read_meta(path, trust, &m, &sig, id, want_baselines ? &bs : NULL, want_baselines ? &n : NULL,
				 err, sizeof(err)) != 0)
		return;
	if (sig > BL_SIG_UNKNOWN_KEY || strlen(m.role) > BL_ROLE_MAX || m.hosts == 0 ||
	    (trust && sig != BL_SIG_GOOD && bs) || (sig == BL_SIG_NONE) != (id[0] == '\0'))
		abort();
	for (size_t i = 0; i < n; i++)
		baseline__free(bs[i]);
	free(bs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bl_keyring *trust;
	static int fd = -1;
	char path[64];

	if (fd < 0 && (fd = memfd_create("fuzz-bundle", MFD_CLOEXEC)) < 0)
		abort();
	if (!trust)
		trust = seed_keyring();
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	read_as(path, NULL, 1);
	read_as(path, trust, 1);
	read_as(path, trust, 0);
	return 0;
}
