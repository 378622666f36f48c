// SPDX-License-Identifier: MIT
// hook.c - the preloaded library of the technique suite: an interposer's
// shape (a constructor, a getuid hook that calls the real one), harmless.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static int hooked;

__attribute__((constructor)) static void hook_init(void)
{
	hooked = getenv("PLATTACK_HOOK") != NULL;
}

uid_t getuid(void)
{
	uid_t (*real)(void) = (uid_t (*)(void))dlsym(RTLD_NEXT, "getuid");
	(void)hooked;
	return real ? real() : 0;
}
