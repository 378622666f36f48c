/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the clocks, one helper each, for every layer.
 *
 * The kernel stamps everything with CLOCK_MONOTONIC (bpf_ktime_get_ns());
 * records carry CLOCK_REALTIME. Intervals, rate limits and timeouts use the
 * monotonic clock, so a step of the wall clock never stretches or skips
 * them. The offset between the two is read fresh for each sample, so a step
 * of the wall clock shows in the samples that follow it. All in uint64_t
 * nanoseconds. Kernel-free, never logs.
 */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* A timespec (a clock's, or a stat's st_mtim) as nanoseconds. */
static inline uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

/* CLOCK_MONOTONIC, ns: the clock of intervals and of the kernel's stamps. */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_ns(&ts);
}

/* CLOCK_BOOTTIME, ns: monotonic, and counts a suspend, so an interval
 * meant in wall time (a throttle) ends after one. */
static inline uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return timespec_ns(&ts);
}

/* CLOCK_REALTIME, ns since the epoch: the clock of records. */
static inline uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return timespec_ns(&ts);
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, ns: add it to a kernel stamp. */
static inline int64_t mono_to_real(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000000ll + ((int64_t)r.tv_nsec - m.tv_nsec);
}

#endif
