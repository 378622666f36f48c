/* SPDX-License-Identifier: MIT */
/*
 * usercache.h - a uid's user name for alerts: getpwuid_r(3), cached.
 *
 * An alert names the user its process ran as. The lookup goes through NSS
 * (a file read, or a socket to sssd or systemd-userdbd), so it is done once
 * per uid and kept: USERCACHE_SLOTS uids, each for USERCACHE_TTL_S seconds
 * (a user renamed or made later is seen within that), a uid with no user
 * remembered too. Bounded: the lookup's buffer is at most 64 KiB, a name
 * at most USERCACHE_NAME_MAX bytes (a longer one counts as unknown).
 */
#ifndef PL_USERCACHE_H
#define PL_USERCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USERCACHE_SLOTS	   64
#define USERCACHE_TTL_S	   300
#define USERCACHE_NAME_MAX 64 /* with its NUL */

/* uid's user name into ret (size bytes), raw. False when the uid has no
 * user (or its name does not fit): ret is then "". now_ns: monotonic. */
bool usercache__name(uint32_t uid, uint64_t now_ns, char *ret, size_t size);

/* Forget every name (SIGHUP). */
void usercache__clear(void);

#endif
