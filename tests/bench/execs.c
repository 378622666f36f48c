// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* bench_execs N PROG - N sequential fork + execve(PROG) + waitpid. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int parse_count(const char *s, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *ret == 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 3 || parse_count(argv[1], &n) || !argv[2][0]) {
		fprintf(stderr, "usage: bench_execs N PROG (N > 0; PROG an absolute path, e.g. /bin/true)\n");
		return 2;
	}
	for (unsigned long i = 0; i < n; i++) {
		char *args[] = { argv[2], NULL };
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "bench_execs: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			execve(argv[2], args, environ);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				fprintf(stderr, "bench_execs: waitpid: %s\n", strerror(errno));
				return 1;
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "bench_execs: %s failed (status 0x%x) on run %lu\n", argv[2], status, i + 1);
			return 1;
		}
	}
	return 0;
}
