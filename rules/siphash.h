/* SPDX-License-Identifier: MIT */
/*
 * siphash.h - SipHash-2-4, a keyed hash for tables whose keys an attacker
 * chooses.
 *
 * A table indexed by an unkeyed hash of attacker-chosen strings lets the
 * attacker aim every string at one slot. With a random 128-bit key the
 * slot of a string can't be predicted, so it can't be aimed at.
 * (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012.)
 */
#ifndef PL_RULES_SIPHASH_H
#define PL_RULES_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define RL_SIPHASH_KEY_SIZE 16

/* SipHash-2-4 of data[0..len) under key: the 64-bit output. */
uint64_t rl_siphash24(const uint8_t key[RL_SIPHASH_KEY_SIZE], const void *data, size_t len);

/* Fill key with random bytes (getrandom(2)); falls back to a clock-and-
 * address mix if the kernel has no entropy call, never fails. */
void rl_siphash__random_key(uint8_t key[RL_SIPHASH_KEY_SIZE]);

#endif
