// SPDX-License-Identifier: MIT
/*
 * regex_cache.c - a regex's verdicts, remembered by subject string.
 *
 * The same command line, path or name comes back exec after exec (a cron
 * job, a build, an attacker repeating one hostile argument), and a regex
 * gives the same verdict on the same string every time: a hit costs a
 * hash and a compare instead of a PCRE2 run that can take 100 us on a
 * crafted subject.
 *
 * The subjects are the attacker's to choose, so the cache must hold two
 * properties whatever they choose:
 *   - no other string's verdict: a hit compares the whole stored subject,
 *     so a hash collision is a miss, never a wrong answer;
 *   - no aiming: slots are picked by SipHash under a key drawn at random
 *     per regex (siphash.c), so strings can't be crafted to evict one
 *     another from a chosen slot.
 * Memory is bounded: SLOTS entries indexing a ring of ARENA bytes that
 * holds the subjects' copies (a long subject does not cost a whole slot's
 * worth of everyone else's room). An entry is valid while its copy has not
 * been overwritten by the ring: its absolute position is within ARENA of
 * the ring's head. Subjects longer than SUBJECT_MAX are not cached (the
 * regex budget still bounds them). Allocated at a regex's first run, so
 * rules whose regexes never run cost nothing.
 */
#include "expr_internal.h"

#include <stdlib.h>
#include <string.h>

#include "siphash.h"

#define SLOTS	    256u   /* power of two */
#define ARENA	    32768u /* bytes of subject copies, a ring */
#define SUBJECT_MAX 4096u  /* longer subjects are not cached */

struct x_cache_slot {
	uint64_t hash; /* 0: empty */
	uint64_t pos;  /* absolute ring position of the subject's copy */
	uint32_t len;
	uint8_t verdict; /* enum x_verdict */
};

struct x_regex_cache {
	uint8_t key[RL_SIPHASH_KEY_SIZE];
	uint64_t head; /* absolute bytes written into the ring (gaps included) */
	struct x_cache_slot slot[SLOTS];
	char ring[ARENA];
};

static uint64_t hash_of(const struct x_regex_cache *c, const char *s, size_t len)
{
	return rl_siphash24(c->key, s, len) | 1; /* never 0: 0 marks an empty slot */
}

int rl_x__cache_get(struct x_regex *re, const char *s, size_t len, uint64_t *ret_hash)
{
	const struct x_regex_cache *c = re->cache;
	const struct x_cache_slot *e;
	uint64_t h;

	*ret_hash = 0;
	if (!c || len > SUBJECT_MAX)
		return X_VERDICT_NONE;
	h = *ret_hash = hash_of(c, s, len);
	e = &c->slot[h & (SLOTS - 1)];
	/* the copy must still be in the ring, and be the same string */
	if (e->hash != h || e->len != len || c->head - e->pos > ARENA ||
	    memcmp(c->ring + e->pos % ARENA, s, len) != 0)
		return X_VERDICT_NONE;
	return e->verdict;
}

void rl_x__cache_put(struct x_regex *re, const char *s, size_t len, uint64_t hash, int verdict)
{
	struct x_regex_cache *c = re->cache;
	struct x_cache_slot *e;
	uint64_t h, pos;

	if (len > SUBJECT_MAX)
		return;
	if (!c) {
		c = re->cache = malloc(sizeof(*c));
		if (!c)
			return; /* no cache: every match runs (under the budget) */
		memset(c->slot, 0, sizeof(c->slot));
		c->head = 0;
		rl_siphash__random_key(c->key);
	}
	h = hash ? hash : hash_of(c, s, len);
	e = &c->slot[h & (SLOTS - 1)];
	/* a copy never wraps around the ring's end: skip to its start */
	pos = c->head;
	if (pos % ARENA + len > ARENA)
		pos += ARENA - pos % ARENA;
	memcpy(c->ring + pos % ARENA, s, len);
	c->head = pos + len;
	*e = (struct x_cache_slot){ .hash = h, .pos = pos, .len = (uint32_t)len, .verdict = (uint8_t)verdict };
}

void rl_x__cache_free(struct x_regex *re)
{
	free(re->cache);
	re->cache = NULL;
}
