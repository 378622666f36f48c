// SPDX-License-Identifier: MIT
/*
 * privilege.c - the sensor's drop to least privilege after attach.
 *
 * Three steps, in this order, each all or nothing:
 *
 * 1. Capabilities (libcap-ng): keep CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH
 *    in the effective and permitted sets and in the bounding set; empty the
 *    inheritable and ambient sets. The bounding set is dropped first, while
 *    CAP_SETPCAP is still effective (capng_apply() does it in that order).
 * 2. PR_SET_NO_NEW_PRIVS: no exec can ever give the process, or a thread,
 *    more privilege (and seccomp may then be installed without
 *    CAP_SYS_ADMIN).
 * 3. A seccomp filter, on every thread (TSYNC), for the steady state: the
 *    syscalls the event loop, the hash worker, the outputs and the readers
 *    of /proc and of executables make are allowed; a short list that only an
 *    attacker in the sensor would want kills the process at once; anything
 *    else raises SIGSYS, whose handler prints the syscall's number once and
 *    makes the call fail with ENOSYS, so a rare path the list missed fails
 *    loudly instead of killing a security sensor. ENOSYS rather than EPERM:
 *    glibc falls back to an older syscall on ENOSYS (clone3, statx, ...),
 *    and says plainly "not implemented" to the operator.
 *
 * The lists were taken from `strace -f -c` of the sensor under its tests
 * (see SECURITY.md, "Privilege model").
 */
#include "hardening/privilege.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cap-ng.h>
#include <seccomp.h>

#include "probes/bpfsensor.h"
#include "cleanup.h"
#include "log.h"

/* LeakSanitizer checks for leaks at exit from a helper task that lists the
 * sensor's threads (/proc/self/task with getdents: the old syscall, which
 * the sanitizer runtime makes on x86_64), ptraces them and waits for them:
 * in a sanitizer build (the asan preset, CI) those syscalls are allowed, not
 * fatal. The shipped filter allows none of them (ptrace is killed). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_LEAK__)
#define PL_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define PL_LSAN 1
#endif
#endif

/* What the steady state needs, and why (logged at the drop). */
static const struct {
	unsigned int cap;
	const char *why;
} kept[] = {
	{ CAP_SYS_PTRACE, "/proc/PID/exe, maps, cwd and root/ of other users' and privileged processes" },
	{ CAP_DAC_READ_SEARCH, "executables and libraries of other users, for build-ids, hashes and symbols" },
};

/* Allowed whatever their arguments. */
static const int allowed[] = {
	/* files: outputs, state directory, /proc, executables */
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
	SCMP_SYS(pwrite64), SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(close_range), SCMP_SYS(open),
	SCMP_SYS(openat), SCMP_SYS(creat), SCMP_SYS(stat), SCMP_SYS(fstat), SCMP_SYS(lstat), SCMP_SYS(newfstatat),
	SCMP_SYS(statx), SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
	SCMP_SYS(getdents64), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(fcntl),
	SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(pipe2), SCMP_SYS(fsync), SCMP_SYS(fdatasync),
	SCMP_SYS(syncfs), /* baseline saves: one sync for a batch of files (saver.h) */
	SCMP_SYS(inotify_add_watch), SCMP_SYS(inotify_rm_watch), /* a fleet directory removed and made again */
	SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(unlink), SCMP_SYS(unlinkat),
	SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(fchmod), SCMP_SYS(flock), SCMP_SYS(ftruncate),
	SCMP_SYS(fallocate), SCMP_SYS(fadvise64), SCMP_SYS(getcwd), SCMP_SYS(umask), SCMP_SYS(utimensat),
	/* memory */
	SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(mprotect), SCMP_SYS(madvise), SCMP_SYS(brk),
	SCMP_SYS(membarrier),
	/* threads: the hash worker, libmicrohttpd's threads */
	SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq), SCMP_SYS(clone),
	SCMP_SYS(clone3), SCMP_SYS(set_tid_address), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(sched_yield),
	SCMP_SYS(sched_getaffinity), SCMP_SYS(gettid), SCMP_SYS(tgkill), SCMP_SYS(prctl),
	/* signals, the event loop, timers */
	SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
	SCMP_SYS(restart_syscall), SCMP_SYS(epoll_create), SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl),
	SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(poll), SCMP_SYS(ppoll),
	SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(eventfd2), SCMP_SYS(signalfd4), SCMP_SYS(timerfd_create),
	SCMP_SYS(timerfd_settime), SCMP_SYS(timerfd_gettime), SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
	SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday), SCMP_SYS(time),
	/* identity and accounting */
	SCMP_SYS(getpid), SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
	SCMP_SYS(getegid), SCMP_SYS(getresuid), SCMP_SYS(getresgid), SCMP_SYS(getgroups), SCMP_SYS(getrusage),
	SCMP_SYS(times), SCMP_SYS(sysinfo), SCMP_SYS(uname), SCMP_SYS(getrlimit), SCMP_SYS(getrandom),
	SCMP_SYS(capget),
	/* sockets: syslog (unix, udp, tcp, RELP), sd_notify, metrics */
	SCMP_SYS(connect), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg), SCMP_SYS(recvfrom),
	SCMP_SYS(recvmsg), SCMP_SYS(recvmmsg), SCMP_SYS(shutdown), SCMP_SYS(getsockopt), SCMP_SYS(setsockopt),
	SCMP_SYS(getsockname), SCMP_SYS(getpeername), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
	SCMP_SYS(accept4), SCMP_SYS(socketpair),
#ifdef PL_LSAN
	SCMP_SYS(ptrace), SCMP_SYS(wait4), SCMP_SYS(waitid), SCMP_SYS(sched_setaffinity), SCMP_SYS(getdents),
#endif
};

/* Never made by the sensor after the drop; made by an attacker who has taken
 * it over, to run code, tamper with other processes or the kernel. */
static const int killed[] = {
	SCMP_SYS(execve), SCMP_SYS(execveat),
#ifndef PL_LSAN
	SCMP_SYS(ptrace),
#endif
	SCMP_SYS(process_vm_readv),
	SCMP_SYS(process_vm_writev), SCMP_SYS(process_madvise), SCMP_SYS(pidfd_getfd), SCMP_SYS(init_module),
	SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load),
	SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(move_mount), SCMP_SYS(fsopen), SCMP_SYS(fsmount),
	SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(setns), SCMP_SYS(unshare), SCMP_SYS(reboot),
	SCMP_SYS(swapon), SCMP_SYS(swapoff), SCMP_SYS(iopl), SCMP_SYS(ioperm), SCMP_SYS(open_by_handle_at),
	SCMP_SYS(name_to_handle_at), SCMP_SYS(personality), SCMP_SYS(userfaultfd), SCMP_SYS(keyctl),
	SCMP_SYS(add_key), SCMP_SYS(request_key),
};

/* One line per refused syscall number (x86_64 numbers are below 512). */
static atomic_uchar reported[512];

/* SIGSYS from SCMP_ACT_TRAP: the syscall fails with ENOSYS, said once per
 * number. Only async-signal-safe calls (write) in here. */
static void on_sigsys(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	int nr = si->si_syscall;
	char msg[128], num[12];
	size_t n = 0, k = 0;

	(void)sig;
	uc->uc_mcontext.gregs[REG_RAX] = -ENOSYS;
	if (nr < 0 || nr >= (int)ARRAY_SIZE(reported) || atomic_exchange(&reported[nr], 1))
		return;
	do
		num[k++] = (char)('0' + nr % 10);
	while ((nr /= 10) && k < sizeof(num));
	{
		static const char head[] = "plumbline: warning: seccomp refused syscall ";
		static const char tail[] = " (ENOSYS): not in the steady-state allowlist, see SECURITY.md\n";

		memcpy(msg, head, sizeof(head) - 1);
		n = sizeof(head) - 1;
		while (k)
			msg[n++] = num[--k];
		memcpy(msg + n, tail, sizeof(tail) - 1);
		n += sizeof(tail) - 1;
	}
	if (write(STDERR_FILENO, msg, n) < 0) {
		/* nowhere else to say it */
	}
}

static void seccomp_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static int add_rules(scmp_filter_ctx ctx)
{
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6 };
	const int *cmds;
	size_t n;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
		/* -EFAULT: a name this libseccomp does not know on this arch */
		if (r < 0 && r != -EFAULT)
			return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(killed); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, killed[i], 0);
		if (r < 0 && r != -EFAULT)
			return r;
	}
	/* bpf(2): what the sensor does on the fds it holds, allowed; what a
	 * loader does, killed (bpfsensor.c knows which is which) */
	cmds = bpfsensor__steady_cmds(&n);
	for (size_t i = 0; i < n; i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(bpf), 1, SCMP_A0(SCMP_CMP_EQ, cmds[i]));
		if (r < 0)
			return r;
	}
	cmds = bpfsensor__loader_cmds(&n);
	for (size_t i = 0; i < n; i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(bpf), 1, SCMP_A0(SCMP_CMP_EQ, cmds[i]));
		if (r < 0)
			return r;
	}
	/* sockets of the families the outputs use; a netlink socket only for
	 * NETLINK_ROUTE (getaddrinfo's AI_ADDRCONFIG, when a collector is
	 * resolved again at a reconnect) */
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, families[i]));
		if (r < 0)
			return r;
	}
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2, SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
			     SCMP_A2(SCMP_CMP_EQ, 0));
	if (r < 0)
		return r;
	/* getrlimit through prlimit64(0, res, NULL, old): reading only */
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0));
	if (r < 0)
		return r;
	/* ioctl: isatty's TCGETS, FIONREAD...; but not faking terminal input
	 * to a shell that shares our terminal */
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_NE, TIOCSTI));
	if (r < 0)
		return r;
	return seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TIOCSTI));
}

static int install_seccomp(void)
{
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	int r;

#ifdef PL_LSAN
	/* LeakSanitizer's tracer blocks every signal: a trap there would kill
	 * it and leave the sensor waiting for it at exit */
	ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
#else
	ctx = seccomp_init(SCMP_ACT_TRAP);
#endif
	if (!ctx)
		return -ENOMEM;
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (r < 0)
		return r;
	r = add_rules(ctx);
	if (r < 0)
		return r;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0)
		return -errno;
	return seccomp_load(ctx);
}

static int drop_caps(char *kept_names, size_t size)
{
	bool have[ARRAY_SIZE(kept)], setpcap;
	size_t used = 0;

	kept_names[0] = '\0';
	if (capng_get_caps_process() < 0)
		return -EIO;
	/* keep what we have of the kept ones; never ask for one we lack */
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		have[i] = capng_have_capability(CAPNG_PERMITTED, kept[i].cap);
	setpcap = capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(CAPNG_SELECT_ALL);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		int n;

		if (!have[i])
			continue;
		if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET, kept[i].cap) < 0)
			return -EINVAL;
		n = snprintf(kept_names + used, size - used, "%s%s (%s)", used ? "; " : "",
			     capng_capability_to_name(kept[i].cap), kept[i].why);
		if (n > 0)
			used = (size_t)n + used < size ? used + (size_t)n : size - 1;
	}
	/* bounding set first: dropping it needs CAP_SETPCAP, which the
	 * capability step then drops. Without CAP_SETPCAP (a service manager's
	 * bounding set without it) the bounding set stays as it was given:
	 * NoNewPrivs, set next, keeps any exec from gaining from it anyway. */
	if (setpcap && capng_apply(CAPNG_SELECT_BOUNDS) < 0)
		return -EPERM;
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	/* the ambient set is empty after capset() took the permitted ones away
	 * only for the dropped ones: clear it outright (EINVAL: no ambient
	 * capabilities in this kernel, nothing to clear) */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

int privilege__drop(bool keep)
{
	char names[512];
	int r;

	if (keep) {
		log_info("--keep-privileges: keeping every capability, no NoNewPrivs, no seccomp filter");
		return 0;
	}
	r = drop_caps(names, sizeof(names));
	if (r < 0)
		return log_error_errno(r, "Cannot drop capabilities after attach: %m (--keep-privileges runs without "
					  "dropping them)");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return log_error_errno(errno, "Cannot set no_new_privs: %m");
	r = install_seccomp();
	if (r < 0)
		return log_error_errno(r, "Cannot install the seccomp filter: %m (--keep-privileges runs without it)");
	log_info("privileges dropped after attach: keeping %s; NoNewPrivs; seccomp filter on every thread",
		 names[0] ? names : "no capability");
	return 0;
}

void privilege__selftest(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .config = PERF_COUNT_SW_CPU_CLOCK };
	long fd;

	if (!getenv("PLUMBLINE_PRIVILEGE_SELFTEST"))
		return;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		log_warn("privilege self-test: perf_event_open succeeded (fd %ld)", fd);
		close((int)fd);
		return;
	}
	log_info("privilege self-test: perf_event_open refused: %m");
}
