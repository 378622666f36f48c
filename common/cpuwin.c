// SPDX-License-Identifier: MIT
/*
 * cpuwin.c - the busy streak, the recent CPU share and clone CPU of one
 * process (cpuwin.h).
 */
#include "cpuwin.h"

static uint32_t to_us(uint64_t ns)
{
	uint64_t us = ns / 1000;

	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

bool pl_cpuwin__busy(uint64_t cpu_ns, uint64_t runq_ns, uint64_t len_ns)
{
	return len_ns && (cpu_ns + runq_ns) * 10 >= len_ns * 9 && cpu_ns * 5 >= len_ns;
}

static void streak(struct pl_cpuwin *w, bool busy, uint64_t len_ns)
{
	if (busy) {
		w->busy_s += len_ns / 1e9;
		if (w->busy_run < UINT8_MAX)
			w->busy_run++;
	} else if (w->busy_s > 0 && w->busy_run >= PL_CPUWIN_RUN_BEFORE_DIP) {
		w->busy_run = 0; /* forgiven: the streak holds, the next dip ends it */
	} else {
		w->busy_s = 0;
		w->busy_run = 0;
	}
}

void pl_cpuwin__add(struct pl_cpuwin *w, uint64_t cpu_ns, uint64_t runq_ns, uint64_t len_ns)
{
	streak(w, pl_cpuwin__busy(cpu_ns, runq_ns, len_ns), len_ns);
	w->len_us[w->head] = to_us(len_ns);
	w->busy_us[w->head] = to_us(cpu_ns + runq_ns);
	w->cpu_us[w->head] = to_us(cpu_ns);
	w->clone_us[w->head] = to_us(w->pend_clone_ns);
	w->clones[w->head] = w->pend_clones > UINT16_MAX ? UINT16_MAX : (uint16_t)w->pend_clones;
	w->pend_clone_ns = 0;
	w->pend_clones = 0;
	w->head = (uint8_t)((w->head + 1) % PL_CPUWIN_SLOTS);
	if (w->n < PL_CPUWIN_SLOTS)
		w->n++;
}

void pl_cpuwin__charge_clone(struct pl_cpuwin *w, uint64_t wanted_ns)
{
	w->pend_clone_ns += wanted_ns;
	w->pend_clones++;
}

void pl_cpuwin__recent(const struct pl_cpuwin *w, struct pl_cpuwin_recent *ret)
{
	uint64_t len = 0, busy = 0, cpu = 0, clone = 0;
	uint32_t clones = 0;

	/* the slots in use are the last n written; order does not matter for sums */
	for (uint8_t i = 0; i < w->n; i++) {
		len += w->len_us[i];
		busy += w->busy_us[i];
		cpu += w->cpu_us[i];
		clone += w->clone_us[i];
		clones += w->clones[i];
	}
	*ret = (struct pl_cpuwin_recent){
		.span_s = len / 1e6, .busy_ns = busy * 1000, .cpu_ns = cpu * 1000, .clone_ns = clone * 1000, .clones = clones
	};
}
