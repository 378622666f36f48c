/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the sensor's two clocks.
 *
 * The kernel stamps everything with CLOCK_MONOTONIC (bpf_ktime_get_ns());
 * records carry CLOCK_REALTIME. The offset is read fresh for each sample,
 * so a step of the wall clock shows in the samples that follow it.
 */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, ns. */
static inline int64_t mono_to_real(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000000ll + ((int64_t)r.tv_nsec - m.tv_nsec);
}

static inline uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
