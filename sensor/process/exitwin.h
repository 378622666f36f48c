/* SPDX-License-Identifier: MIT */
/*
 * exitwin.h - failed and successful exits per (binary, user), over the last
 * minute: the rate a password brute force makes.
 *
 * A guess at a password is one process of an authentication binary (sudo -S,
 * su, an sshd connection) that gives up: it exits non-zero without having
 * run anything. One that authenticated runs what it was asked to (sudo's
 * command, su's shell, the session's shell) as a child, whatever that then
 * exits with. So an exit is a *failure* when its code is non-zero and the
 * image executed no child (images.c knows: proc_info.ran_child), a
 * *success* otherwise; a process killed by a signal is neither. Per (exe
 * path, uid of the image at its start: the invoking user of a setuid
 * binary), the times of the last EXITWIN_KEEP failures and successes are
 * kept; rules read how many fell in the last EXITWIN_SPAN_S seconds
 * (auth.* fields, sample.h struct pl_auth).
 *
 * Bounded: at most `max` pairs, the least recently used forgotten first
 * (counted). One hash lookup per exit.
 */
#ifndef PL_EXITWIN_H
#define PL_EXITWIN_H

#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

#define EXITWIN_SPAN_S 60
#define EXITWIN_KEEP 64 /* exits of each kind remembered per pair: more in a minute count as 64 */

struct exitwin;

int exitwin__new(uint32_t max, struct exitwin **ret);
void exitwin__free(struct exitwin *w);

/* One exit of exe by uid at now_ns (monotonic): failed or not; *ret says
 * the pair's last EXITWIN_SPAN_S seconds, this exit included. exe NULL:
 * nothing counted, ret->present false. */
void exitwin__add(struct exitwin *w, const char *exe, uint32_t uid, bool failed, uint64_t now_ns,
		  struct pl_auth *ret);

/* Pairs forgotten to make room. */
uint64_t exitwin__evicted(const struct exitwin *w);

#endif
