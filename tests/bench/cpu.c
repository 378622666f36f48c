// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_cpu FILE PROG [ARG...] - run PROG, wait for it, write the CPU time
 * it and the descendants it waited for used (user + system, ns, from
 * wait4's rusage) to FILE, and exit with PROG's status.
 *
 * The benchmark reports this beside wall time: on a loaded machine wall time
 * also counts what other processes (the sensor's own user space among them)
 * took of the workload's CPUs, while this is what the workload's own
 * threads ran, the syscall path with its tracepoints and BPF programs
 * included.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_cpu FILE PROG [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench_cpu: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "bench_cpu: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "bench_cpu: wait4: %s\n", strerror(errno));
			return 1;
		}
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%lld\n",
			  ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
				  ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "bench_cpu: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
