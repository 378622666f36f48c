// SPDX-License-Identifier: MIT
/*
 * pipeline.c - score, judge, learn, record (see pipeline.h).
 */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <stdlib.h>


#define MAX_ALERT_OUTS 8

struct pipeline {
	struct pipeline_opts o;
	struct learner *learn;
	struct alerts *alerts;
	struct pl_output *json;
	struct pl_output *alert_outs[MAX_ALERT_OUTS];
	size_t nalert_outs;
	struct pipeline_stats st;
	bool last_alerted; /* the last run's sample matched a rule at Warning or above */
};

int pipeline__new(const struct pipeline_opts *o, struct learner *l, struct alerts *a, struct pipeline **ret)
{
	struct pipeline *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->learn = l;
	p->alerts = a;
	*ret = p;
	return 0;
}

void pipeline__free(struct pipeline *p)
{
	free(p);
}

void pipeline__set_outputs(struct pipeline *p, struct pl_output *json, struct pl_output *const *alert_outs, size_t n)
{
	p->json = json;
	p->nalert_outs = n < MAX_ALERT_OUTS ? n : MAX_ALERT_OUTS;
	for (size_t i = 0; i < p->nalert_outs; i++)
		p->alert_outs[i] = alert_outs[i];
}

static bool records_of(const struct pipeline *p, enum pl_moment m)
{
	if (!p->json)
		return false;
	if (m == PL_AT_MAP)
		return p->o.map_records;
	return m == PL_AT_EXEC ? p->o.exec_records : m == PL_AT_WINDOW ? p->o.window_records : p->o.process_records;
}

bool pipeline__wants(const struct pipeline *p, enum pl_moment m)
{
	return records_of(p, m) || (p->alerts && (alerts__kinds(p->alerts) & (unsigned)m));
}

bool pipeline__run(struct pipeline *p, struct pl_sample *s, struct proc_info *pi, unsigned steps, uint64_t now_ns)
{
	bool record = (steps & PIPE_RECORD) && records_of(p, s->moment);
	bool judge = (steps & PIPE_JUDGE) && p->alerts;
	bool alerted = false;

	if (p->learn) {
		if (steps & PIPE_SCORE)
			learner__score(p->learn, pi, s, steps & PIPE_LEARN);
		else if (record || judge)
			learner__state(p->learn, pi, s);
	}
	if (judge)
		/* only a rule at Warning or above forbids learning the sample */
		alerted = alerts__eval(p->alerts, s, now_ns, p->alert_outs, p->nalert_outs) > 0 &&
			  alerts__matched_warning(p->alerts) > 0;
	p->last_alerted = alerted;
	if (alerted && pi)
		pi->warned_image = pi->image_id;
	if (p->learn && (steps & PIPE_SCORE))
		/* an image that alerted at any moment (a storm's window, a scan's
		 * connect) is not learned at its exit either: repeating an attack
		 * must not make it normal */
		learner__commit(p->learn, alerted || (s->moment == PL_AT_EXIT && pi && pi->image_id &&
						      pi->warned_image == pi->image_id), s);
	if (!record)
		return alerted;
	output__write_sample(p->json, s);
	p->st.map_records += s->moment == PL_AT_MAP;
	p->st.exec_records += s->moment == PL_AT_EXEC;
	p->st.window_records += s->moment == PL_AT_WINDOW;
	p->st.process_records += s->moment == PL_AT_EXIT;
	return alerted;
}

void pipeline__tick(struct pipeline *p, uint64_t now_ns)
{
	if (p->alerts)
		alerts__tick(p->alerts, now_ns, p->alert_outs, p->nalert_outs);
}

void pipeline__finish(struct pipeline *p, uint64_t now_ns)
{
	if (p->alerts)
		alerts__finish(p->alerts, now_ns, p->alert_outs, p->nalert_outs);
}

bool pipeline__last_alerted(const struct pipeline *p)
{
	return p->last_alerted;
}

const struct pipeline_stats *pipeline__stats(const struct pipeline *p)
{
	return &p->st;
}
