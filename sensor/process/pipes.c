// SPDX-License-Identifier: MIT
/*
 * pipes.c - pipelines between exec'd images. See pipes.h.
 */
#include "process/pipes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TTL_NS ((uint64_t)PIPES_TTL_S * 1000000000ull)

struct slot {
	uint64_t ino;     /* 0: empty */
	uint64_t seen_ns; /* last exec on it */
	char *writer;
	struct pipe_reader readers[PIPES_READERS];
	uint32_t nreaders;
};

struct pipes {
	struct slot s[PIPES_SLOTS];
};

int pipes__new(struct pipes **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void pipes__free(struct pipes *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < PIPES_SLOTS; i++)
		free(p->s[i].writer);
	free(p);
}

/* The slot of ino, taken over when it holds another pipe or an old one. */
static struct slot *slot_of(struct pipes *p, uint64_t ino, uint64_t now_ns)
{
	struct slot *s = &p->s[ino % PIPES_SLOTS];

	if (s->ino != ino || now_ns - s->seen_ns > TTL_NS) {
		free(s->writer);
		memset(s, 0, sizeof(*s));
		s->ino = ino;
	}
	s->seen_ns = now_ns;
	return s;
}

size_t pipes__writer(struct pipes *p, uint64_t ino, const char *exe, uint64_t now_ns, struct pipe_reader *readers,
		     size_t n)
{
	struct slot *s;
	char *dup;
	size_t k = 0;

	if (!ino || !exe)
		return 0;
	s = slot_of(p, ino, now_ns);
	dup = strdup(exe);
	if (dup) {
		free(s->writer);
		s->writer = dup;
	}
	for (uint32_t i = 0; i < s->nreaders && k < n; i++)
		readers[k++] = s->readers[i];
	return k;
}

const char *pipes__reader(struct pipes *p, uint64_t ino, uint32_t tgid, uint64_t image_id, uint64_t now_ns)
{
	struct slot *s;

	if (!ino)
		return NULL;
	s = slot_of(p, ino, now_ns);
	if (s->nreaders < PIPES_READERS)
		s->readers[s->nreaders++] = (struct pipe_reader){ .tgid = tgid, .image_id = image_id };
	return s->writer;
}
