/* SPDX-License-Identifier: MIT */
/*
 * hex.h - bytes as lowercase hex and hex digits back: the one encoder of
 * the digests the sensor prints (SHA-256s, MACs, ruleset ids).
 */
#ifndef PL_HEX_H
#define PL_HEX_H

#include <stddef.h>
#include <stdint.h>

/* b[n] as 2n lowercase hex digits and a NUL into ret[2n + 1]. */
static inline void pl_hex_encode(const uint8_t *b, size_t n, char *ret)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		ret[2 * i] = digits[b[i] >> 4];
		ret[2 * i + 1] = digits[b[i] & 15];
	}
	ret[2 * n] = '\0';
}

/* A hex digit's value (either case), or -1. */
static inline int pl_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
