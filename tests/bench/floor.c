// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_floor - load and attach the empty tp_btf/sys_enter program, print
 * "ready" on stdout, wait for SIGINT or SIGTERM, detach and exit 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "floor_bpf.skel.h"

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = NULL;
	sigset_t set;
	int sig, r, ret = 1;

	if (argc != 1) {
		fprintf(stderr, "usage: %s (no arguments; stops on SIGINT/SIGTERM)\n", argv[0]);
		return 2;
	}
	/* Block the stop signals before anything else so none is lost. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	r = sigprocmask(SIG_BLOCK, &set, NULL);
	if (r) {
		fprintf(stderr, "bench_floor: sigprocmask: %s\n", strerror(errno));
		return 1;
	}
	libbpf_set_print(print_libbpf);

	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "bench_floor: cannot open/load the BPF program: %s (needs root and a BTF kernel)\n",
			strerror(errno));
		goto out;
	}
	r = floor_bpf__attach(skel);
	if (r) {
		fprintf(stderr, "bench_floor: cannot attach tp_btf/sys_enter: %s\n", strerror(-r));
		goto out;
	}
	if (printf("ready\n") < 0 || fflush(stdout) == EOF) {
		fprintf(stderr, "bench_floor: cannot write to stdout: %s\n", strerror(errno));
		goto out;
	}
	r = sigwait(&set, &sig);
	if (r) {
		fprintf(stderr, "bench_floor: sigwait: %s\n", strerror(r));
		goto out;
	}
	ret = 0;
out:
	floor_bpf__destroy(skel);
	return ret;
}
