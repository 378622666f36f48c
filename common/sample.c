// SPDX-License-Identifier: MIT
/*
 * sample.c - what every reader of a sample derives the same way.
 */
#include "sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pl_sample__init(struct pl_sample *s, enum pl_moment m)
{
	memset(s, 0, sizeof(*s));
	s->moment = m;
	s->bl.max_score = NAN;
	s->bl.max_dist = -1;
	s->bin.top_fail_share = NAN;
	for (int d = 0; d < PL_DIST_MAX; d++)
		for (int k = 0; k < 3; k++)
			s->bl.q[d][k] = s->bl.fleet.q[d][k] = NAN;
}

double pl_sample__win_seconds(const struct pl_sample *s)
{
	if (s->moment != PL_AT_WINDOW || s->win_end_ns <= s->win_start_ns)
		return 0;
	return (s->win_end_ns - s->win_start_ns) / 1e9;
}

uint64_t pl_sample__wall_ns(const struct pl_sample *s)
{
	uint64_t end = s->moment == PL_AT_EXIT ? s->end_ns : s->moment == PL_AT_WINDOW ? s->win_end_ns : 0;

	return end > s->image_start_ns ? end - s->image_start_ns : 0;
}

const struct pl_fail *pl_sample__top_fail(const struct pl_sample *s)
{
	const struct pl_fail *top = NULL;

	for (uint32_t i = 0; i < s->nfails; i++)
		if (!top || s->fails[i].count > top->count)
			top = &s->fails[i];
	return top;
}

const char *const pl_moment_names[PL_MOMENTS] = {"exec", "window", "exit", "file", "map", "connect"};

const char *pl_moment__name(enum pl_moment m)
{
	for (int i = 0; i < PL_MOMENTS; i++)
		if (m == 1u << i)
			return pl_moment_names[i];
	return "exit";
}

const char *pl_image__name(enum pl_image i)
{
	return i == PL_IMAGE_EXEC ? "exec" : i == PL_IMAGE_FORK ? "fork" : "preexisting";
}

const char *pl_dist__feature(enum pl_dist d)
{
	static const char *const names[PL_DIST_MAX] = {
		[PL_LIFE_CPU] = "cpu_ns",
		[PL_LIFE_WALL] = "wall_ns",
		[PL_LIFE_OFFCPU] = "offcpu_ns",
		[PL_LIFE_SYSCALLS] = "syscalls",
		[PL_LIFE_OPEN_FAIL] = "open_failures",
		[PL_WIN_CPU] = "cpu_ns_per_s",
		[PL_WIN_SYSCALLS] = "syscalls_per_s",
		[PL_WIN_OPEN_FAIL] = "open_failures_per_s",
		[PL_WIN_SC_FILE] = "sc_file_per_s",
		[PL_WIN_SC_NET] = "sc_net_per_s",
		[PL_WIN_SC_PROC] = "sc_proc_per_s",
		[PL_WIN_SC_MEM] = "sc_mem_per_s",
		[PL_WIN_SC_IPC] = "sc_ipc_per_s",
		[PL_WIN_SC_TIME] = "sc_time_per_s",
		[PL_WIN_SC_OTHER] = "sc_other_per_s",
	};

	return d >= 0 && d < PL_DIST_MAX ? names[d] : "?";
}

/* waiting */
const char *pl_wait__state_name(char state)
{
	switch (state) {
	case 'R':
		return "running";
	case 'S':
		return "sleeping";
	case 'D':
		return "uninterruptible";
	case 'T':
		return "stopped";
	case 't':
		return "traced";
	case 'Z':
		return "zombie";
	case 'I':
		return "idle";
	case 'X':
		return "dead";
	}
	return "unknown";
}

const char *pl_net__class(const uint8_t *a, int family)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t zero[16];

	if (family == 6 && !memcmp(a, mapped, sizeof(mapped)))
		return pl_net__class(a + 12, 4);
	if (family == 6) {
		if (!memcmp(a, zero, 15) && a[15] == 1)
			return "loopback";
		if (!memcmp(a, zero, 16))
			return "unspecified";
		if ((a[0] & 0xfe) == 0xfc)
			return "private";
		if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
			return "link-local";
		if (a[0] == 0xff)
			return "multicast";
		return "public";
	}
	if (a[0] == 127)
		return "loopback";
	if (a[0] == 0)
		return "unspecified";
	if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168) ||
	    (a[0] == 100 && (a[1] & 0xc0) == 64))
		return "private";
	if (a[0] == 169 && a[1] == 254)
		return "link-local";
	if (a[0] >= 224 && a[0] < 240)
		return "multicast";
	return "public";
}

void pl_net__peer(char *buf, size_t size, const char *cls, uint32_t port)
{
	if (port >= 32768)
		snprintf(buf, size, "%s:tcp/ephemeral", cls);
	else
		snprintf(buf, size, "%s:tcp/%u", cls, port);
}
