// SPDX-License-Identifier: MIT
/*
 * siphash.c - SipHash-2-4 (the reference algorithm, little-endian words),
 * and the random key the regex verdict caches use.
 */
#include "siphash.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND                                                                    \
	do {                                                                        \
		v0 += v1;                                                           \
		v1 = ROTL(v1, 13);                                                  \
		v1 ^= v0;                                                           \
		v0 = ROTL(v0, 32);                                                  \
		v2 += v3;                                                           \
		v3 = ROTL(v3, 16);                                                  \
		v3 ^= v2;                                                           \
		v0 += v3;                                                           \
		v3 = ROTL(v3, 21);                                                  \
		v3 ^= v0;                                                           \
		v2 += v1;                                                           \
		v1 = ROTL(v1, 17);                                                  \
		v1 ^= v2;                                                           \
		v2 = ROTL(v2, 32);                                                  \
	} while (0)

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t rl_siphash24(const uint8_t key[RL_SIPHASH_KEY_SIZE], const void *data, size_t len)
{
	const uint8_t *in = data, *end = in + len - len % 8;
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
	uint64_t b = (uint64_t)len << 56, m;

	for (; in != end; in += 8) {
		m = le64(in);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t i = 0; i < len % 8; i++)
		b |= (uint64_t)in[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

void rl_siphash__random_key(uint8_t key[RL_SIPHASH_KEY_SIZE])
{
	struct timespec ts;
	uint64_t mix[2];

	if (getrandom(key, RL_SIPHASH_KEY_SIZE, GRND_NONBLOCK) == RL_SIPHASH_KEY_SIZE)
		return;
	/* Only the slot placement weakens without it: a cache hit still
	 * compares the whole subject (regex_cache.c). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mix[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
	mix[1] = (uint64_t)(uintptr_t)key * 0xbf58476d1ce4e5b9ull ^ (uint64_t)(uintptr_t)&ts;
	memcpy(key, mix, RL_SIPHASH_KEY_SIZE);
}
