// SPDX-License-Identifier: MIT
/*
 * replay_main.c - runs a libFuzzer target over every file of a seed corpus
 * directory, so the corpus replays as an ordinary test under any compiler
 * (and under ASan/UBSan with PL_SANITIZE).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* optional, as in libFuzzer: a target that defines it is initialized once */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap ? cap * 2 : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
			cap = cap ? cap * 2 : 4096;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct dirent *de;
	int files = 0, failed = 0;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d))) {
		char path[4096];

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name) >= (int)sizeof(path))
			continue;
		files++;
		failed += replay(path) < 0;
	}
	closedir(d);
	printf("replayed %d inputs\n", files - failed);
	return failed || files == 0 ? 1 : 0;
}
