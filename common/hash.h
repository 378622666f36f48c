/* SPDX-License-Identifier: MIT */
/*
 * hash.h - the string hash for the sensor's own tables (FNV-1a, 64 bits).
 *
 * For tables whose keys the monitored processes don't choose, or whose
 * worst case is only slower, never wrong (a collision compares the key).
 * Where an attacker picks the strings and a collision would change a
 * verdict, use a keyed hash instead (rules/siphash.h).
 */
#ifndef PL_HASH_H
#define PL_HASH_H

#include <stdint.h>

#define PL_FNV1A_INIT 0xcbf29ce484222325ull

/* h extended with the bytes of s (NULL adds nothing). */
static inline uint64_t pl_fnv1a(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The hash of s alone. */
static inline uint64_t pl_hash_str(const char *s)
{
	return pl_fnv1a(PL_FNV1A_INIT, s);
}

#endif
