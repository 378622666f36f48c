// SPDX-License-Identifier: MIT
/*
 * libplxz.so - a stand-in for the xz-utils backdoor (CVE-2024-3094), for
 * test_sshd_preload.py: preloaded into a real sshd, it burns about 300 ms of
 * CPU in plxz_decode_payload() when a login starts.
 *
 * The real backdoor's cost showed in sshd's per-connection process, where
 * liblzma's hooks ran during key exchange. OpenSSH 9.2's listener forks and
 * re-executes itself with -R for each connection, so the constructor burns
 * only in an image whose arguments include -R: the listener's own start is
 * not a login, and its fork children (privilege separation, the session)
 * run no constructors.
 *
 * Built with frame pointers (the kernel's walk then reaches the
 * constructor); the spin makes no syscall except reading the thread's CPU
 * clock (through the vDSO) every few million iterations.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PLXZ_BURN_MS 300.0

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Exported, so its name is in .dynsym: what the alert must show. */
__attribute__((noinline)) unsigned long plxz_decode_payload(double ms)
{
	volatile unsigned long x = 0;
	double end = thread_cpu_ms() + ms;

	do {
		for (unsigned long i = 0; i < 2000000; i++)
			x += i ^ (x >> 7);
	} while (thread_cpu_ms() < end);
	return x;
}

/* Is "-R" one of this process's arguments? */
static bool rexeced_for_connection(void)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *a = buf; a < buf + n; a += strlen(a) + 1)
		if (strcmp(a, "-R") == 0)
			return true;
	return false;
}

__attribute__((constructor)) static void plxz_init(void)
{
	if (rexeced_for_connection())
		plxz_decode_payload(PLXZ_BURN_MS);
}
