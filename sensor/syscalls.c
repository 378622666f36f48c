// SPDX-License-Identifier: MIT
/*
 * syscalls.c - names for syscall numbers and errnos.
 */
#include "syscalls.h"

#include <string.h>

const char *syscall_name(unsigned int nr)
{
	return nr < PL_SYSCALL_TABLE_LEN ? pl_syscall_names[nr] : NULL;
}

int syscall_number(const char *name)
{
	for (int i = 0; i < PL_SYSCALL_TABLE_LEN; i++)
		if (pl_syscall_names[i] && strcmp(pl_syscall_names[i], name) == 0)
			return i;
	return -1;
}

const char *errno_name(int err)
{
	/* strerrorname_np() (glibc 2.32) is the system's own table. */
	return err > 0 ? strerrorname_np(err) : NULL;
}
