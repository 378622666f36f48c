// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_floor [--enter-only | --only PROG,...] - load and attach the empty
 * programs of floor.bpf.c (every hook the sensor's per-event paths use;
 * with --enter-only tp_btf/sys_enter alone, with --only the programs
 * named), print "ready" on stdout, wait for
 * SIGINT or SIGTERM, detach and exit 0.
 */
#include <errno.h>
#include <stdbool.h>
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

/* Whether name is one of the comma-separated names of list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = NULL;
	sigset_t set;
	struct bpf_program *prog;
	const char *only = NULL; /* comma-separated program names */
	int sig, r, ret = 1;

	if (argc == 2 && !strcmp(argv[1], "--enter-only"))
		only = "floor_sys_enter";
	else if (argc == 3 && !strcmp(argv[1], "--only"))
		only = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--enter-only | --only PROG,...] (stops on SIGINT/SIGTERM)\n", argv[0]);
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

	skel = floor_bpf__open();
	if (skel) {
		/* floor_enter_mmap is a hook the sensor does not use (bench_hooks
		 * measures what it would cost): loaded only when named */
		bpf_object__for_each_program(prog, skel->obj)
			if (only ? !listed(only, bpf_program__name(prog))
				 : !strcmp(bpf_program__name(prog), "floor_enter_mmap"))
				bpf_program__set_autoload(prog, false);
	}
	if (skel && floor_bpf__load(skel)) {
		floor_bpf__destroy(skel);
		skel = NULL;
	}
	if (!skel) {
		fprintf(stderr, "bench_floor: cannot open/load the BPF program: %s (needs root and a BTF kernel)\n",
			strerror(errno));
		goto out;
	}
	r = floor_bpf__attach(skel);
	if (r) {
		fprintf(stderr, "bench_floor: cannot attach its programs: %s\n", strerror(-r));
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
