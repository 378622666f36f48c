// SPDX-License-Identifier: MIT
/*
 * proctable.c - chained hash table of proc_info keyed by tgid.
 */
#include "process/proctable.h"
#include "baseline.h"
#include "cpuwin.h"
#include "identity/scriptkey.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 16384 /* power of two; pid_max is 4M but live processes are few */

struct proctable {
	struct proc_info *buckets[NBUCKETS];
	uint32_t count;
	uint32_t max;
	uint64_t pass;   /* passes over the kernel's table begun */
	uint64_t swept;  /* entries removed by proctable__sweep() */
};

static size_t bucket(uint32_t tgid)
{
	return (tgid * 2654435761u) & (NBUCKETS - 1);
}

int proctable__new(uint32_t max, struct proctable **ret)
{
	struct proctable *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->max = max;
	*ret = t;
	return 0;
}

/* The image no longer uses its baseline, which the store may then evict
 * (store.h). Not at proctable__free(): the store may be gone already. */
static void release_baseline(struct proc_info *pi)
{
	if (pi->bl && pi->bl->users)
		pi->bl->users--;
	pi->bl = NULL;
}

static void clear_strings(struct proc_info *pi)
{
	free(pi->exe);
	free(pi->build_id);
	free(pi->cmdline);
	free(pi->filename);
	for (uint32_t i = 0; i < pi->nfails; i++)
		free(pi->fails[i].path);
	free(pi->fails);
	free(pi->binary_id);
	free(pi->parent_binary_id);
	free(pi->parent_exe);
	free(pi->script_suffix);
	free(pi->script);
	free(pi->build_dir);
	free(pi->exe_memfd_copy_of);
	pi->exe_memfd_copy_of = NULL;
	free(pi->stdin_writer);
	pi->stdin_writer = NULL;
	pi->stdin_pipe = false;
	pi->script_suffix = pi->script = pi->build_dir = NULL;
	pi->forked = false;
	pi->exe = pi->build_id = pi->cmdline = pi->filename = NULL;
	pi->binary_id = pi->parent_binary_id = pi->parent_exe = NULL;
	pi->bl = NULL;
	pi->parent_new_child = false;
	pi->parent_seen = false;
	pi->ran_child = false;
	pi->parent_bl_ready = false;
	free(pi->cw);
	pi->cw = NULL;
	pi->exe_trusted_known = pi->exe_trusted = false;
	pi->fails = NULL;
	pi->nfails = pi->fails_cap = 0;
	pi->fail_other = 0;
	free(pi->last);
	pi->last = NULL;
	pi->have_last = false;
}

/* The scalar counters lead struct pl_stats; the errno and syscall arrays,
 * both of uint64_t, follow it back to back to its end. */
#define STATS_HEAD offsetof(struct pl_stats, open_fail_errno)
#define STATS_NSLOTS ((sizeof(struct pl_stats) - STATS_HEAD) / sizeof(uint64_t))
_Static_assert(offsetof(struct pl_stats, sc) ==
		       STATS_HEAD + sizeof(((struct pl_stats *)0)->open_fail_errno),
	       "pl_stats: the errno and syscall arrays are contiguous");
_Static_assert(STATS_NSLOTS <= UINT16_MAX, "a slot index fits 16 bits");

struct stats_pack {
	uint32_t n, cap;
	unsigned char head[STATS_HEAD];
	struct {
		uint64_t v;
		uint16_t i;
	} e[];
};

static const uint64_t *slots(const struct pl_stats *st)
{
	return (const uint64_t *)((const char *)st + STATS_HEAD);
}

int stats_pack__set(struct stats_pack **p, const struct pl_stats *st)
{
	const uint64_t *v = slots(st);
	struct stats_pack *k = *p;
	uint32_t n = 0;

	for (size_t i = 0; i < STATS_NSLOTS; i++)
		n += v[i] != 0;
	if (!k || k->cap < n) {
		uint32_t cap = n + 8; /* room to grow by a few syscalls without a realloc */

		k = realloc(k, sizeof(*k) + (size_t)cap * sizeof(k->e[0]));
		if (!k)
			return -ENOMEM;
		k->cap = cap;
		*p = k;
	}
	memcpy(k->head, st, STATS_HEAD);
	k->n = 0;
	for (size_t i = 0; i < STATS_NSLOTS; i++)
		if (v[i]) {
			k->e[k->n].v = v[i];
			k->e[k->n].i = (uint16_t)i;
			k->n++;
		}
	return 0;
}

void stats_pack__get(const struct stats_pack *k, struct pl_stats *ret)
{
	uint64_t *v = (uint64_t *)((char *)ret + STATS_HEAD);

	memset(ret, 0, sizeof(*ret));
	memcpy(ret, k->head, STATS_HEAD);
	for (uint32_t j = 0; j < k->n; j++)
		v[k->e[j].i] = k->e[j].v;
}

void proctable__free(struct proctable *t)
{
	if (!t)
		return;
	for (size_t b = 0; b < NBUCKETS; b++) {
		struct proc_info *pi = t->buckets[b], *n;

		for (; pi; pi = n) {
			n = pi->next;
			clear_strings(pi);
			free(pi);
		}
	}
	free(t);
}

struct proc_info *proctable__get(struct proctable *t, uint32_t tgid)
{
	for (struct proc_info *pi = t->buckets[bucket(tgid)]; pi; pi = pi->next)
		if (pi->tgid == tgid)
			return pi;
	return NULL;
}

struct proc_info *proctable__reset(struct proctable *t, uint32_t tgid, uint64_t image_id)
{
	struct proc_info *pi = proctable__get(t, tgid);

	if (!pi) {
		if (t->count >= t->max)
			return NULL;
		pi = calloc(1, sizeof(*pi));
		if (!pi)
			return NULL;
		pi->tgid = tgid;
		pi->seen_pass = t->pass;
		pi->next = t->buckets[bucket(tgid)];
		t->buckets[bucket(tgid)] = pi;
		t->count++;
	} else {
		release_baseline(pi);
		clear_strings(pi);
	}
	pi->image_id = image_id;
	pi->live_interval = 0; /* a new image is a new binary's process in the live view */
	pi->flags = 0;
	pi->have_last = false;
	pi->exec_comm[0] = '\0';
	pi->exe_dev = 0;
	pi->exe_ino = 0;
	pi->filename_truncated = false;
	pi->hash_wait = false;
	pi->parent_wait = (struct hash_wait){ 0 };
	pi->child_wait = (struct child_wait){ 0 };
	return pi;
}

/* Unlink *pp and free it. */
static void remove_at(struct proctable *t, struct proc_info **pp)
{
	struct proc_info *pi = *pp;

	*pp = pi->next;
	release_baseline(pi);
	clear_strings(pi);
	free(pi);
	t->count--;
}

void proctable__remove(struct proctable *t, uint32_t tgid)
{
	for (struct proc_info **pp = &t->buckets[bucket(tgid)]; *pp; pp = &(*pp)->next)
		if ((*pp)->tgid == tgid) {
			remove_at(t, pp);
			return;
		}
}

void proctable__begin_pass(struct proctable *t)
{
	t->pass++;
}

void proctable__mark(struct proctable *t, uint32_t tgid)
{
	struct proc_info *pi = proctable__get(t, tgid);

	if (pi)
		pi->seen_pass = t->pass;
}

uint32_t proctable__sweep(struct proctable *t, uint64_t passes)
{
	uint32_t n = 0;

	if (!t->count)
		return 0;
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct proc_info **pp = &t->buckets[b]; *pp;) {
			if (t->pass - (*pp)->seen_pass >= passes) {
				remove_at(t, pp);
				n++;
			} else {
				pp = &(*pp)->next;
			}
		}
	t->swept += n;
	return n;
}

uint64_t proctable__swept(const struct proctable *t)
{
	return t->swept;
}

uint32_t proctable__count(const struct proctable *t)
{
	return t->count;
}

static int set_fail(struct fail_ref *f, const struct pl_fail_key *k, bool truncated)
{
	char *path = strndup(k->path, sizeof(k->path));

	if (!path)
		return -ENOMEM;
	free(f->path);
	*f = (struct fail_ref){ .key = *k, .path = path, .truncated = truncated, .in_kernel = true };
	return 0;
}

bool proc_info__add_fail(struct proc_info *pi, const struct pl_fail_key *k, bool truncated)
{
	if (pi->nfails == pi->fails_cap) {
		uint32_t cap = pi->fails_cap ? pi->fails_cap * 2 : 4;
		struct fail_ref *n;

		if (cap > PROC_MAX_FAIL_KEYS)
			return false;
		n = realloc(pi->fails, cap * sizeof(*n));
		if (!n)
			return false;
		pi->fails = n;
		pi->fails_cap = cap;
	}
	pi->fails[pi->nfails].path = NULL;
	if (set_fail(&pi->fails[pi->nfails], k, truncated) < 0)
		return false;
	pi->nfails++;
	return true;
}

static bool same_key(const struct pl_fail_key *a, const struct pl_fail_key *b)
{
	return a->image_id == b->image_id && a->tgid == b->tgid && a->err == b->err &&
	       strncmp(a->path, b->path, sizeof(a->path)) == 0;
}

struct fail_ref *proc_info__find_fail(struct proc_info *pi, const struct pl_fail_key *k)
{
	for (uint32_t i = 0; i < pi->nfails; i++)
		if (same_key(&pi->fails[i].key, k))
			return &pi->fails[i];
	return NULL;
}

int proc_info__replace_fail(struct proc_info *pi, struct fail_ref *f, const struct pl_fail_key *k, bool truncated)
{
	return set_fail(f, k, truncated);
}

void proctable__foreach(struct proctable *t, void (*fn)(struct proc_info *pi, void *ctx), void *ctx)
{
	for (size_t b = 0; b < NBUCKETS; b++)
		for (struct proc_info *pi = t->buckets[b]; pi; pi = pi->next)
			fn(pi, ctx);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool is_shell(const struct proc_info *pi)
{
	return pi->exe && scriptkey__interpreter(pi->exe) == INTERP_SHELL;
}

#define CLONE_DEPTH_MAX 16

struct proc_info *proctable__clone_root(struct proctable *t, const struct proc_info *pi)
{
	struct proc_info *root = NULL;
	uint32_t ppid = pi->ppid;

	if (!pi->binary_id || is_shell(pi))
		return NULL;
	for (int depth = 0; depth < CLONE_DEPTH_MAX && ppid > 1; depth++) {
		struct proc_info *a = proctable__get(t, ppid);

		if (!a || a->ppid == ppid)
			break;
		if (same_str(a->binary_id, pi->binary_id) && same_str(a->script_suffix, pi->script_suffix))
			root = a;
		else if (!is_shell(a))
			break;
		ppid = a->ppid;
	}
	return root;
}

#define CLONE_WALL_MAX_NS 5000000000ull

void proctable__charge_clone(struct proctable *t, const struct proc_info *pi, uint64_t wall_ns, uint64_t wanted_ns)
{
	struct proc_info *root;

	if (!wall_ns || wall_ns >= CLONE_WALL_MAX_NS || wanted_ns * 2 < wall_ns)
		return;
	root = proctable__clone_root(t, pi);
	if (root && proc_info__cpuwin(root))
		pl_cpuwin__charge_clone(root->cw, wanted_ns);
}

struct pl_cpuwin *proc_info__cpuwin(struct proc_info *pi)
{
	if (!pi->cw)
		pi->cw = calloc(1, sizeof(*pi->cw));
	return pi->cw;
}
