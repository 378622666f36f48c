/* SPDX-License-Identifier: MIT */
/*
 * fuzz_input.h - typed values taken from the front of a fuzzer's input, for
 * the targets that build a structure (a sample, a record) from bytes rather
 * than parse the bytes themselves. An input that runs out yields zeros and
 * empty strings, so every input builds something.
 *
 * Strings are malloc'd and kept until fz_free(): a sample borrows them.
 */
#ifndef PL_FUZZ_INPUT_H
#define PL_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_MAX_STRS 256

/* The harness's own checks of every byte get no coverage instrumentation:
 * their branches are no code under test, and traced they cost a quarter of
 * an input's time (perf, fuzz_json_out). Kept out of inlining, so that the
 * attribute holds whatever calls them. */
#if defined(__clang__)
#define FZ_NOCOV __attribute__((no_sanitize("coverage"), noinline))
#else
#define FZ_NOCOV
#endif

struct fz {
	const uint8_t *p;
	size_t n;
	char *strs[FZ_MAX_STRS];
	size_t nstrs;
};

static inline void fz_init(struct fz *f, const uint8_t *data, size_t size)
{
	memset(f, 0, sizeof(*f));
	f->p = data;
	f->n = size;
}

static inline uint64_t fz_uint(struct fz *f, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && f->n; i++, f->p++, f->n--)
		v = v << 8 | *f->p;
	return v;
}

static inline bool fz_bool(struct fz *f)
{
	return fz_uint(f, 1) & 1;
}

/* A string of at most max bytes: a length byte (or two when max > 255),
 * then the bytes; a NUL among them ends the C string early. NULL when the
 * length says 0 and null_ok, so "unknown" is reached too. */
static inline const char *fz_str(struct fz *f, size_t max, bool null_ok)
{
	size_t len = (size_t)fz_uint(f, max > 255 ? 2 : 1);
	char *s;

	if (len == 0 && null_ok)
		return NULL;
	if (len > max)
		len = len % (max + 1);
	if (len > f->n)
		len = f->n;
	if (f->nstrs == FZ_MAX_STRS || !(s = malloc(len + 1)))
		return NULL;
	memcpy(s, f->p, len);
	s[len] = '\0';
	f->p += len;
	f->n -= len;
	f->strs[f->nstrs++] = s;
	return s;
}

static inline void fz_free(struct fz *f)
{
	for (size_t i = 0; i < f->nstrs; i++)
		free(f->strs[i]);
	f->nstrs = 0;
}

/* Whether the n bytes at s are valid UTF-8 (no surrogates, no overlongs, at most U+10FFFF). */
FZ_NOCOV static inline bool fz_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		unsigned c = p[i], need, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, cp = c & 0x07;
		else
			return false;
		if (n - i <= need)
			return false;
		for (unsigned k = 1; k <= need; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

/* A failed invariant: say which, then abort() (libFuzzer keeps the input). */
#define FZ_ASSERT(cond)                                                                                      \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);         \
			abort();                                                                             \
		}                                                                                            \
	} while (0)

#endif
