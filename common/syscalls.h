/* SPDX-License-Identifier: MIT */
/*
 * syscalls.h - syscall and errno names for records.
 */
#ifndef PL_SYSCALLS_H
#define PL_SYSCALLS_H

#define PL_SYSCALL_TABLE_LEN 1024

/* Generated from <asm/unistd_64.h>; NULL where the number has no name. */
extern const char *const pl_syscall_names[PL_SYSCALL_TABLE_LEN];

/* The name of syscall nr, or NULL when the build's headers don't know it
 * (a newer kernel); callers then print "sys_<nr>". */
const char *syscall_name(unsigned int nr);

/* Syscall number for name, or -1. */
int syscall_number(const char *name);

/* The symbolic name of a positive errno ("ENOENT"), or NULL. */
const char *errno_name(int err);

#endif
