// SPDX-License-Identifier: MIT
/*
 * usercache.c - uid to user name, cached (usercache.h).
 */
#include "identity/usercache.h"

#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOKUP_BUF_MAX (64u << 10)

struct slot {
	bool used, found;
	uint32_t uid;
	uint64_t at_ns;
	char name[USERCACHE_NAME_MAX];
};

static struct slot slots[USERCACHE_SLOTS];
static size_t next_slot;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The name of uid from NSS into s (found false when none). */
static void lookup(uint32_t uid, struct slot *s)
{
	long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t size = hint > 0 && hint < (long)LOOKUP_BUF_MAX ? (size_t)hint : 1024;
	struct passwd pw, *res = NULL;

	s->found = false;
	s->name[0] = '\0';
	for (;;) {
		char *buf = malloc(size);
		int r;

		if (!buf)
			return;
		r = getpwuid_r((uid_t)uid, &pw, buf, size, &res);
		if (r == ERANGE && size < LOOKUP_BUF_MAX) {
			free(buf);
			size *= 2;
			continue;
		}
		if (r == 0 && res && res->pw_name && strlen(res->pw_name) < sizeof(s->name)) {
			snprintf(s->name, sizeof(s->name), "%s", res->pw_name);
			s->found = true;
		}
		free(buf);
		return;
	}
}

bool usercache__name(uint32_t uid, uint64_t now_ns, char *ret, size_t size)
{
	struct slot *s = NULL;
	bool found;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < USERCACHE_SLOTS; i++)
		if (slots[i].used && slots[i].uid == uid) {
			s = &slots[i];
			break;
		}
	if (!s || now_ns - s->at_ns > (uint64_t)USERCACHE_TTL_S * 1000000000ull) {
		if (!s) {
			s = &slots[next_slot];
			next_slot = (next_slot + 1) % USERCACHE_SLOTS;
		}
		s->used = true;
		s->uid = uid;
		s->at_ns = now_ns;
		lookup(uid, s);
	}
	found = s->found && strlen(s->name) < size;
	if (size)
		snprintf(ret, size, "%s", found ? s->name : "");
	pthread_mutex_unlock(&lock);
	return found;
}

void usercache__clear(void)
{
	pthread_mutex_lock(&lock);
	memset(slots, 0, sizeof(slots));
	next_slot = 0;
	pthread_mutex_unlock(&lock);
}
