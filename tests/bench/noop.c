// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_noop - does nothing and exits 0. Linked statically (see
 * CMakeLists.txt): no dynamic loader, no libraries to map, so a process
 * running it lives for as few syscalls as static glibc's start-up makes.
 */
int main(void)
{
	return 0;
}
