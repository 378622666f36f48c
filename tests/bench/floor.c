// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_floor [--enter-only | --only PROG,... | --sample-hz N] - load and
 * attach the empty programs of floor.bpf.c (every hook the sensor's
 * per-event paths use; with --enter-only tp_btf/sys_enter alone, with
 * --only the programs named; with --sample-hz the sampler's hook alone: a
 * software cpu-clock event per CPU at N Hz, as the sensor opens them), print
 * "ready" on stdout, wait for SIGINT or SIGTERM, detach and exit 0.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
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

#define MAX_CPUS 1024

/* A cpu-clock event at hz on every online CPU, each running prog. */
static int attach_sampling(struct bpf_program *prog, unsigned long hz, struct bpf_link **links, int *nlinks)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (long cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
					     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_freq = hz, .freq = 1 };
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "bench_floor: perf_event_open(cpu %ld): %s\n", cpu, strerror(errno));
			return -1;
		}
		links[*nlinks] = bpf_program__attach_perf_event(prog, fd);
		if (!links[*nlinks]) {
			fprintf(stderr, "bench_floor: attach to cpu %ld: %s\n", cpu, strerror(errno));
			close(fd);
			return -1;
		}
		(*nlinks)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct bpf_link *links[MAX_CPUS];
	unsigned long hz = 0;
	int nlinks = 0;
	struct floor_bpf *skel = NULL;
	sigset_t set;
	struct bpf_program *prog;
	const char *only = NULL; /* comma-separated program names */
	int sig, r, ret = 1;

	if (argc == 2 && !strcmp(argv[1], "--enter-only"))
		only = "floor_sys_enter";
	else if (argc == 3 && !strcmp(argv[1], "--only"))
		only = argv[2];
	else if (argc == 3 && !strcmp(argv[1], "--sample-hz") && (hz = strtoul(argv[2], NULL, 10)) > 0)
		only = "floor_sample";
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--enter-only | --only PROG,... | --sample-hz N] (stops on SIGINT/SIGTERM)\n",
			argv[0]);
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
				 : !strcmp(bpf_program__name(prog), "floor_enter_mmap") ||
					   !strcmp(bpf_program__name(prog), "floor_sample"))
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
	r = hz ? attach_sampling(skel->progs.floor_sample, hz, links, &nlinks) : floor_bpf__attach(skel);
	if (r) {
		if (!hz)
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
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	floor_bpf__destroy(skel);
	return ret;
}
