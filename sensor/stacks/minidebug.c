// SPDX-License-Identifier: MIT
/*
 * minidebug.c - the bounded xz decoder of MiniDebugInfo sections (liblzma).
 */
#include "stacks/minidebug.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>

#define FIRST_OUT (256u << 10) /* the output's first size; MiniDebugInfo unpacks to 3-10 times its size */

static int lzma_errno(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR:
		return -ENOMEM;
	case LZMA_MEMLIMIT_ERROR:
		return -E2BIG;
	default: /* LZMA_FORMAT_ERROR, LZMA_OPTIONS_ERROR, LZMA_DATA_ERROR, LZMA_BUF_ERROR (truncated) */
		return -EBADMSG;
	}
}

int minidebug__unxz(const uint8_t *in, size_t len, size_t max_out, void **ret, size_t *ret_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap, limit, by_ratio;
	lzma_ret r;
	int err = 0;

	if (len > MINIDEBUG_MAX_IN)
		return -EFBIG;
	if (max_out > MINIDEBUG_MAX_OUT)
		max_out = MINIDEBUG_MAX_OUT;
	by_ratio = len * MINIDEBUG_MAX_RATIO; /* len <= 32 MiB: no overflow */
	if (by_ratio < MINIDEBUG_RATIO_FLOOR)
		by_ratio = MINIDEBUG_RATIO_FLOOR;
	if (max_out > by_ratio)
		max_out = by_ratio;
	/* one byte past the cap: a stream that fills it produced more than max_out */
	limit = max_out + 1;
	cap = len < limit / 4 ? len * 4 : limit;
	if (cap < FIRST_OUT)
		cap = FIRST_OUT < limit ? FIRST_OUT : limit;
	/* one stream; the memory limit refuses a dictionary too large before allocating it */
	r = lzma_stream_decoder(&s, MINIDEBUG_MEMLIMIT, 0);
	if (r != LZMA_OK)
		return lzma_errno(r);
	buf = malloc(cap);
	if (!buf) {
		lzma_end(&s);
		return -ENOMEM;
	}
	s.next_in = in;
	s.avail_in = len;
	s.next_out = buf;
	s.avail_out = cap;
	for (;;) {
		r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK && !(r == LZMA_BUF_ERROR && !s.avail_out)) {
			err = lzma_errno(r);
			break;
		}
		if (s.avail_out)
			continue; /* LZMA_OK with room left: more to do; no progress ends in LZMA_BUF_ERROR */
		if (cap >= limit) {
			err = -EFBIG;
			break;
		}
		size_t ncap = cap > limit / 2 ? limit : cap * 2;
		uint8_t *nb = realloc(buf, ncap);

		if (!nb) {
			err = -ENOMEM;
			break;
		}
		buf = nb;
		s.next_out = buf + s.total_out;
		s.avail_out = ncap - s.total_out;
		cap = ncap;
	}
	if (!err && s.total_out > max_out)
		err = -EFBIG;
	if (err) {
		free(buf);
		lzma_end(&s);
		return err;
	}
	*ret_len = s.total_out;
	*ret = buf;
	lzma_end(&s);
	return 0;
}
