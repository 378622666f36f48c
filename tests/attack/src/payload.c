// SPDX-License-Identifier: MIT
// payload.c - the "downloaded" second stage of the technique suite: with no
// argument, a little recon (its uid, the host name) printed; with `burn SEC`,
// a miner's shape: SEC seconds of hashing on one core, nothing else.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "burn") == 0) {
		double end = now() + atof(argv[2]);
		volatile uint64_t h = 1469598103934665603ull;
		while (now() < end)
			for (int i = 0; i < 1000000; i++)
				h = (h ^ (uint64_t)i) * 1099511628211ull;
		return (int)(h & 0);
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	printf("uid=%d host=%s\n", (int)getuid(), host);
	return 0;
}
