// SPDX-License-Identifier: MIT
/*
 * fleet_gen.c - per-host baseline exports of a fleet, for the fleet merge
 * benchmark (fleet_merge.sh): each host's store is learned with the real
 * baseline code (baseline__observe_process/window/child/learn_object, learn
 * mode) and written as a signed export with bl_bundle__write_meta, as
 * `baseline export --role --host --sign` writes it.
 *
 * Two shapes, after what the sensor learned on real machines:
 *   build  a build host: about 1,300 baselines (compilers, assemblers,
 *          linkers, shells -c, make, scripts), most learned from a few
 *          samples to a few hundred, a compiler's failed opens many (the
 *          include search: up to hundreds of distinct paths);
 *   ssh    an SSH server: about 75 baselines (sshd and its privilege-
 *          separated children, the login shells, PAM helpers, cron, the
 *          system's timers), learned from tens to thousands of samples.
 * Every host of a role shares most keys (the same packages: the same
 * build-ids), holds some of its own (about 3 %: local tools), and learns
 * its own counts and costs (a host factor on every value), so a merge
 * does real work per key.
 *
 * Learning 1,000 build hosts would take this machine longer than the merge
 * it measures, so DISTINCT hosts (default 50) are learned, and host h is
 * host h % DISTINCT's export under its own name, signed anew: the merge
 * still reads, verifies, parses and merges 1,000 files, 50 different ones.
 *
 * Usage: bench_fleet_gen build|ssh NHOSTS OUTDIR PRIVATE_KEY [DISTINCT]
 * writes OUTDIR/HOST.json (HOST = build-0000 ...), prints the total bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle.h"
#include "fileio.h"
#include "signing.h"

#define NOW0 1796300000000000000ull
#define SEC  1000000000ull

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static double unif(void)
{
	return (double)(rnd() >> 11) / (double)(1ull << 53);
}

/* roughly log-normal around m: a cost as a binary's cost spreads */
static uint64_t around(double m)
{
	double z = (unif() + unif() + unif() - 1.5) * 1.2;
	double v = m * __builtin_exp(z);

	return v < 1 ? 1 : (uint64_t)v;
}

static const char *const sys_pool[] = {
    "read",
    "write",
    "openat",
    "close",
    "fstat",
    "newfstatat",
    "mmap",
    "mprotect",
    "munmap",
    "brk",
    "pread64",
    "access",
    "execve",
    "arch_prctl",
    "set_tid_address",
    "set_robust_list",
    "rseq",
    "prlimit64",
    "getrandom",
    "lseek",
    "ioctl",
    "getdents64",
    "readlink",
    "getcwd",
    "rt_sigaction",
    "rt_sigprocmask",
    "clone3",
    "wait4",
    "pipe2",
    "dup2",
    "fcntl",
    "unlink",
    "rename",
    "futex",
    "sysinfo",
    "uname",
    "statx",
    "socket",
    "connect",
    "sendto",
    "recvfrom",
    "poll",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getpid",
    "exit_group",
    "chdir",
    "umask",
    "mkdir",
    "faccessat2",
};

struct kind {
	const char *exe, *parent;
	double cpu_ns;	     /* median lifetime CPU */
	unsigned fail_paths; /* distinct failed opens of its vocabulary */
	unsigned syscalls;   /* distinct syscalls it uses */
	unsigned objects;    /* objects mapped */
	unsigned children;   /* distinct children */
	unsigned samples;    /* median samples a host learns */
	unsigned weight;     /* keys of this kind, per 100 */
};

/* Most of a build host's baselines are small tools run a few times; a few
 * compilers carry the large failed-path sets (a real store: the median
 * baseline 5.9 KB, the mean 6.7 KB, the largest, cc1's, 74 KB). */
static const struct kind build_kinds[] = {
    {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/usr/bin/x86_64-linux-gnu-gcc-12", 80e6, 300, 24, 6, 0, 30, 2},
    {"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "/usr/bin/x86_64-linux-gnu-g++-12", 300e6, 300, 24, 7, 0, 15, 1},
    {"/usr/bin/x86_64-linux-gnu-as", "/usr/bin/x86_64-linux-gnu-gcc-12", 6e6, 2, 18, 5, 0, 20, 6},
    {"/usr/bin/x86_64-linux-gnu-ld.bfd", "/usr/lib/gcc/x86_64-linux-gnu/12/collect2", 40e6, 30, 26, 8, 0, 8, 3},
    {"/usr/bin/x86_64-linux-gnu-gcc-12", "/usr/bin/make", 2e6, 10, 30, 4, 3, 20, 5},
    {"/usr/bin/make", "/usr/bin/bash", 10e6, 12, 32, 4, 5, 6, 5},
    {"/usr/bin/dash -c", "/usr/bin/make", 1e6, 3, 18, 3, 3, 8, 33},
    {"/usr/bin/python3.11 /usr/share/meson/meson.py", "/usr/bin/bash", 200e6, 40, 36, 20, 3, 3, 3},
    {"/usr/bin/sed", "/usr/bin/dash", 0.8e6, 2, 16, 4, 0, 5, 40},
    {"/usr/bin/cmake", "/usr/bin/bash", 60e6, 30, 34, 10, 4, 3, 2},
};

static const struct kind ssh_kinds[] = {
    {"/usr/sbin/sshd", "/usr/sbin/sshd", 12e6, 6, 40, 25, 2, 300, 6},
    {"/usr/sbin/sshd (fork)", "/usr/sbin/sshd", 3e6, 3, 30, 25, 0, 300, 6},
    {"/usr/bin/bash", "/usr/sbin/sshd", 4e6, 10, 32, 8, 10, 150, 10},
    {"/usr/bin/ls", "/usr/bin/bash", 0.6e6, 2, 16, 6, 0, 60, 30},
    {"/usr/sbin/unix_chkpwd", "/usr/sbin/sshd", 0.9e6, 1, 20, 6, 0, 80, 6},
    {"/usr/sbin/cron", "/usr/sbin/cron", 1e6, 2, 26, 6, 2, 200, 6},
    {"/usr/bin/dash -c", "/usr/sbin/cron", 0.5e6, 3, 24, 3, 3, 200, 16},
    {"/usr/bin/systemctl", "/usr/lib/systemd/systemd", 5e6, 12, 36, 12, 0, 30, 20},
};

struct shape {
	const char *role;
	const struct kind *kinds;
	size_t nkinds;
	unsigned shared; /* keys every host may have */
	unsigned own;	 /* keys of the host's own */
	double keep;	 /* share of the shared keys a host has */
};

static const struct shape shapes[] = {
    {"build", build_kinds, sizeof(build_kinds) / sizeof(build_kinds[0]), 1300, 40, 0.93},
    {"ssh", ssh_kinds, sizeof(ssh_kinds) / sizeof(ssh_kinds[0]), 78, 3, 0.95},
};

/* The kind of key k: by the weights, the same on every host. */
static const struct kind *kind_of(const struct shape *sh, unsigned k)
{
	unsigned w = (k * 2654435761u) % 100, acc = 0;

	for (size_t i = 0; i < sh->nkinds; i++) {
		acc += sh->kinds[i].weight;
		if (w < acc)
			return &sh->kinds[i];
	}
	return &sh->kinds[sh->nkinds - 1];
}

/* A key's learning on one host: n samples whose values carry the host's factor. */
static struct baseline *learn_key(const struct shape *sh, unsigned k, unsigned host, int own)
{
	const struct kind *kd = kind_of(sh, k);
	char bid[96], pid[96], exe[256], buf[64][80];
	const char *fails[64], *sys[64];
	struct bl_policy p;
	struct baseline *b;
	double hf = 0.8 + 0.4 * unif(); /* this host's speed */
	unsigned n = (unsigned)around(kd->samples), nf, ns;

	snprintf(bid, sizeof(bid), "build-id:%016" PRIx64 "%08x", own ? (uint64_t)host * 7919u + 1 : (uint64_t)0x5eed,
		 k);
	snprintf(pid, sizeof(pid), "build-id:%016x", (unsigned)(kd - sh->kinds));
	snprintf(exe, sizeof(exe), "%s", kd->exe);
	b = baseline__new(bid, pid, exe, kd->parent, NOW0);
	if (!b)
		return NULL;
	bl_policy__defaults(&p);
	p.mode = BL_MODE_LEARN;
	if (n > 2000)
		n = 2000;
	for (unsigned i = 0; i < n; i++) {
		uint64_t now = NOW0 + (uint64_t)i * 60 * SEC;
		uint64_t cpu = around(kd->cpu_ns * hf);
		struct bl_verdict v;

		/* each sample fails a few paths of the kind's vocabulary, uses most of its syscalls */
		nf = kd->fail_paths ? 1 + (unsigned)(rnd() % (kd->fail_paths < 64 ? kd->fail_paths : 64)) : 0;
		for (unsigned j = 0; j < nf; j++) {
			snprintf(buf[j], sizeof(buf[j]), "/usr/include/x86_64-linux-gnu/h%03u/%u.h", k % 7,
				 (unsigned)(rnd() % kd->fail_paths));
			fails[j] = buf[j];
		}
		ns = kd->syscalls - (unsigned)(rnd() % 4);
		for (unsigned j = 0; j < ns; j++)
			sys[j] = sys_pool[j];
		struct bl_process_sample s = {.cpu_ns = cpu,
					      .wall_ns = cpu * 2 + around(1e6),
					      .offcpu_ns = cpu + around(5e5),
					      .syscalls = around(cpu / 20000.0 + 50),
					      .open_fail = nf + rnd() % 3,
					      .fail_paths = fails,
					      .nfail_paths = nf,
					      .syscall_names = sys,
					      .nsyscall_names = ns};
		struct bl_window_sample w = {.duration_ns = SEC,
					     .cpu_ns = cpu < SEC ? cpu : SEC,
					     .syscalls = s.syscalls,
					     .open_fail = s.open_fail,
					     .sc_class = {[BL_SC_FILE] = s.syscalls / 2, [BL_SC_MEM] = s.syscalls / 4}};

		if (baseline__observe_process(b, NULL, &s, &p, now, &v) < 0 ||
		    baseline__observe_window(b, NULL, &w, &p, now, &v) < 0)
			goto fail;
		for (unsigned j = 0; j < kd->children && i % 4 == 0; j++) {
			snprintf(buf[0], sizeof(buf[0]), "/usr/bin/child%u", (unsigned)(rnd() % kd->children));
			if (baseline__observe_child(b, buf[0], NULL, &p, now) < 0)
				goto fail;
		}
		for (unsigned j = 0; j < kd->objects && i < 3; j++) {
			snprintf(buf[0], sizeof(buf[0]), "/usr/lib/x86_64-linux-gnu/lib%u.so.%u", j, k % 3);
			if (baseline__learn_object(b, buf[0], &p, now, false) < 0)
				goto fail;
		}
	}
	return b;
fail:
	baseline__free(b);
	return NULL;
}

/*
 * Host h as a copy of the export at from (host name of the same length):
 * the name replaced in the header, the signature made anew over the bytes
 * before its comma, as the writer does (docs/baselines.md).
 */
static int copy_as(const char *from, const char *from_host, const char *host, const char *path,
		   const struct bl_signkey *key)
{
	char *buf, *p, *sig, err[256], id[BL_KEY_ID_LEN + 1], b64[BL_SIG_B64_LEN + 1], tail[200], pat[300];
	uint8_t raw[BL_SIG_LEN];
	size_t len, at;
	int r = bl_file__read(from, BL_BUNDLE_MAX, 0, &buf, &len, err, sizeof(err));

	if (r < 0)
		return r;
	snprintf(pat, sizeof(pat), "\"host\":\"%s\"", from_host);
	p = strstr(buf, pat);
	sig = NULL;
	for (char *q = buf; (q = strstr(q, ",\"signature\":")); q++)
		sig = q;
	if (!p || !sig || strlen(host) != strlen(from_host)) {
		free(buf);
		return -EINVAL;
	}
	memcpy(p + 8, host, strlen(host));
	at = (size_t)(sig - buf);
	r = bl_signkey__sign(key, buf, at, raw);
	bl_signkey__id(key, id);
	bl_sig__encode(raw, b64);
	snprintf(tail, sizeof(tail), ",\"signature\":{\"alg\":\"ed25519\",\"key_id\":\"%s\",\"value\":\"%s\"}}", id,
		 b64);
	if (!r && len - at >= strlen(tail)) {
		memcpy(buf + at, tail, strlen(tail));
		r = atomic_write_file(path, buf, at + strlen(tail), 0600);
	} else if (!r) {
		r = -EINVAL;
	}
	free(buf);
	return r;
}

int main(int argc, char **argv)
{
	const struct shape *sh = NULL;
	struct bl_signkey *key;
	char err[512];
	uint64_t total = 0;
	unsigned nhosts, distinct = 50;

	if (argc == 6)
		distinct = (unsigned)strtoul(argv[5], NULL, 10);
	if ((argc != 5 && argc != 6) || !distinct) {
		fprintf(stderr, "usage: %s build|ssh NHOSTS OUTDIR PRIVATE_KEY [DISTINCT]\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (strcmp(argv[1], shapes[i].role) == 0)
			sh = &shapes[i];
	nhosts = (unsigned)strtoul(argv[2], NULL, 10);
	if (!sh || !nhosts) {
		fprintf(stderr, "%s: bad shape or count\n", argv[0]);
		return 2;
	}
	if (bl_signkey__load(argv[4], &key, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	mkdir(argv[3], 0700);
	for (unsigned h = 0; h < nhosts; h++) {
		struct baseline **bs = calloc(sh->shared + sh->own, sizeof(*bs));
		struct bl_bundle_meta *m = calloc(1, sizeof(*m));
		char path[4096];
		size_t n = 0;
		struct stat st;
		int r;

		if (!bs || !m)
			return 1;
		snprintf(m->host, sizeof(m->host), "%s-%04u", sh->role, h);
		snprintf(path, sizeof(path), "%s/%s.json", argv[3], m->host);
		if (h >= distinct) {
			char from[4096], from_host[64];

			snprintf(from_host, sizeof(from_host), "%s-%04u", sh->role, h % distinct);
			snprintf(from, sizeof(from), "%s/%s.json", argv[3], from_host);
			r = copy_as(from, from_host, m->host, path, key);
			if (r < 0) {
				fprintf(stderr, "%s: %s: %s\n", argv[0], path, strerror(-r));
				return 1;
			}
			goto written;
		}
		rng_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)h * 0x2545f4914f6cdd1dull) ^ (sh->kinds == ssh_kinds);
		for (unsigned k = 0; k < sh->shared + sh->own; k++) {
			int own = k >= sh->shared;

			if (!own && unif() > sh->keep)
				continue;
			if (!(bs[n] = learn_key(sh, k, h, own))) {
				fprintf(stderr, "%s: learning failed\n", argv[0]);
				return 1;
			}
			n++;
		}
		snprintf(m->role, sizeof(m->role), "%s", sh->role);
		m->created_ns = NOW0 + h;
		m->hosts = 1;
		r = bl_bundle__write_meta(path, bs, n, m, key);
		if (r < 0) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], path, strerror(-r));
			return 1;
		}
	written:
		if (stat(path, &st) == 0)
			total += (uint64_t)st.st_size;
		for (size_t i = 0; i < n; i++)
			baseline__free(bs[i]);
		free(bs);
		free(m);
	}
	bl_signkey__free(key);
	printf("%" PRIu64 "\n", total);
	return 0;
}
