// SPDX-License-Identifier: MIT
/*
 * syscalls.c - names for syscall numbers and errnos.
 */
#include "syscalls.h"

#include <stdlib.h>
#include <string.h>

const char *syscall_name(unsigned int nr)
{
	return nr < PL_SYSCALL_TABLE_LEN ? pl_syscall_names[nr] : NULL;
}

/* Numbers of the named syscalls, sorted by name, built on first use:
 * replaying records maps names back to numbers for every record. */
static short by_name[PL_SYSCALL_TABLE_LEN];
static int nnamed = -1;

static int cmp_nr(const void *a, const void *b)
{
	return strcmp(pl_syscall_names[*(const short *)a], pl_syscall_names[*(const short *)b]);
}

int syscall_number(const char *name)
{
	int lo = 0, hi;

	if (nnamed < 0) {
		nnamed = 0;
		for (int i = 0; i < PL_SYSCALL_TABLE_LEN; i++)
			if (pl_syscall_names[i])
				by_name[nnamed++] = (short)i;
		qsort(by_name, nnamed, sizeof(by_name[0]), cmp_nr);
	}
	hi = nnamed - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(pl_syscall_names[by_name[mid]], name);

		if (c == 0)
			return by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

const char *errno_name(int err)
{
	/* strerrorname_np() (glibc 2.32) is the system's own table. */
	return err > 0 ? strerrorname_np(err) : NULL;
}
