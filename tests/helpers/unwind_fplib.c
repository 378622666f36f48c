// SPDX-License-Identifier: MIT
/*
 * libunwindfp.so - two functions kept by frame pointers alone, for
 * unit_unwind: built with -fno-omit-frame-pointer and without unwind tables
 * (-fno-asynchronous-unwind-tables -fno-unwind-tables), so no FDE covers
 * them and only the %rbp chain leads from them to their callers.
 */
typedef void (*fplib_cb)(int *);

void fplib_inner(fplib_cb cb, int *v);
void fplib_outer(fplib_cb cb, int *v);

__attribute__((noinline, noclone)) void fplib_inner(fplib_cb cb, int *v)
{
	cb(v);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noclone)) void fplib_outer(fplib_cb cb, int *v)
{
	fplib_inner(cb, v);
	__asm__ volatile("" ::: "memory");
}
