// SPDX-License-Identifier: MIT
/*
 * libplxz.so - a stand-in for the xz-utils backdoor (CVE-2024-3094), for
 * test_sshd_preload.py: preloaded into a real sshd, it burns about 300 ms of
 * CPU in plxz_decode_payload() during a login's authentication, called from
 * a function sshd's own code calls.
 *
 * The real backdoor hooked RSA_public_decrypt, which sshd calls while it
 * checks a key, so its time was spent under sshd's authentication code, not
 * under the loader. This library interposes getpwnam(): OpenSSH 9.2's
 * listener forks and re-executes itself with -R for each connection, and
 * that -R image (the monitor) calls getpwnam() twice per login, measured with
 * an interposer logging its callers: once in main() for the
 * privilege-separation user ("sshd", before any byte of the connection is
 * read) and once in getpwnamallow() when the client names the user it logs in
 * as. The burn is in the second, once per process, so the stack runs
 * sshd's code (.../monitor -> getpwnamallow) -> getpwnam (here) ->
 * plxz_decode_payload, the leaf; then the real getpwnam, found through
 * dlsym(RTLD_NEXT), answers.
 *
 * Only the -R image burns: the constructor notes its pid when the arguments
 * include -R, and getpwnam() burns only in that pid. The listener's own
 * start is not a login, and the -R image's fork children (the unprivileged
 * pre-authentication child, the session) inherit the library but not the
 * pid, so no other process spends time here.
 *
 * Built without frame pointers, as the real liblzma is: the sensor unwinds
 * through .eh_frame. The spin makes no syscall except reading the thread's
 * CPU clock (through the vDSO) every few million iterations.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define PLXZ_BURN_MS	  300.0
#define PLXZ_PRIVSEP_USER "sshd" /* Debian's SSH_PRIVSEP_USER */

static pid_t login_child; /* the -R image's pid, 0 in any other process */
static bool burned;

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
		login_child = getpid();
}

struct passwd *getpwnam(const char *name)
{
	static struct passwd *(*real_getpwnam)(const char *);

	if (!real_getpwnam)
		real_getpwnam = (struct passwd * (*)(const char *)) dlsym(RTLD_NEXT, "getpwnam");
	if (login_child && !burned && getpid() == login_child && strcmp(name, PLXZ_PRIVSEP_USER) != 0) {
		burned = true;
		plxz_decode_payload(PLXZ_BURN_MS);
	}
	if (!real_getpwnam) {
		errno = ENOSYS;
		return NULL;
	}
	return real_getpwnam(name);
}
