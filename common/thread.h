/* SPDX-License-Identifier: MIT */
/*
 * thread.h - the one way the sensor starts a worker thread.
 *
 * Signals are the event loop's: it takes them through a signalfd, so no
 * worker may have one delivered to it. All but one: SIGSYS, the seccomp
 * filter's trap (sensor/hardening/privilege.c), which blocked would make
 * the kernel kill the process instead of running its handler. And a thread
 * takes the privileges of the one that made it (capabilities and the
 * seccomp filter are per thread): start workers after the privilege drop.
 */
#ifndef PL_THREAD_H
#define PL_THREAD_H

#include <pthread.h>

/* Start fn(arg) on a new thread with every signal but SIGSYS blocked (the
 * caller's mask is left as it was). 0 and *ret, or -errno from
 * pthread_create(3) (*ret untouched). */
int pl_thread_start(pthread_t *ret, void *(*fn)(void *), void *arg);

#endif
