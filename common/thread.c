// SPDX-License-Identifier: MIT
/*
 * thread.c - worker threads that take no signal but SIGSYS (thread.h).
 */
#include "thread.h"

#include <signal.h>

int pl_thread_start(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	pthread_t t;
	int r;

	sigfillset(&all);
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	*ret = t;
	return 0;
}
