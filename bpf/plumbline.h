/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * plumbline.h - the one contract between the BPF programs and user space.
 *
 * Everything that crosses the kernel/user boundary is declared here and
 * nowhere else: ring-buffer records, map keys and values, drop counters.
 * Both sides compile this header; the BPF side sees it after vmlinux.h, user
 * space after <linux/types.h>. Layouts are fixed-width with explicit padding
 * and _Static_assert'ed sizes, so a change to a layout is a compile error on
 * one side before it is a silent misread on the other. Every ring-buffer
 * record starts with struct pl_hdr, carrying its type and the ABI version.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns(), the clock of
 * task_struct::start_time); user space converts to CLOCK_REALTIME.
 */
#ifndef PLUMBLINE_H
#define PLUMBLINE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PL_ABI_VERSION 6

#define PL_COMM_LEN 16
#define PL_PATH_LEN 256    /* failed-open paths and exec filenames, incl. NUL */
#define PL_ARGS_LEN 256    /* bounded cmdline, NUL-separated as in /proc */
#define PL_CWD_LEN 256     /* working directory at exec, incl. NUL; a power of 2 (a BPF mask) */
#define PL_NR_SYSCALLS 512 /* per-syscall slots; higher numbers go to sc_other */
#define PL_NR_ERRNO 64     /* failed opens by errno; errno >= 63 counts in slot 63 */

/* Ring-buffer record types. */
enum pl_event_type {
	PL_EV_EXEC = 1,      /* an image started by execve: identity follows */
	PL_EV_FORK = 2,      /* a new process by fork/clone: inherits its parent's image */
	PL_EV_SEEN = 3,      /* a process that predates the sensor, first seen */
	PL_EV_END = 4,       /* an image ended (exit or exec): final measurements */
	PL_EV_FAIL_PATH = 5, /* first failure of one (image, path, errno) */
	PL_EV_SAMPLE = 6,    /* one on-CPU sample: registers, kernel stack, a copy of the user stack (pl_ev_sample) */
	PL_EV_FILE = 7,      /* a watched file touched: opened, created, renamed onto (pl_ev_file) */
	PL_EV_MAP = 8,       /* an image mapped an executable object (file) for the first time */
	PL_EV_NET = 9,       /* outcome of an image's first TCP connect to one destination (net.bpf.c) */
};
#define PL_EV_LAST 9 /* the highest record type */

/* How an object became executable in an image (pl_ev_map.how). */
enum pl_map_how {
	PL_MAP_MMAP = 1,     /* mmap(2) of the file with PROT_EXEC */
	PL_MAP_MPROTECT = 2, /* mprotect(2) of a file mapping to PROT_EXEC */
};

/* Why a PL_EV_END was emitted. */
enum pl_end_reason {
	PL_END_EXIT = 1, /* the last thread of the process died */
	PL_END_EXEC = 2, /* the process replaced its image; a PL_EV_EXEC follows */
};

/* pl_proc.flags */
enum pl_proc_flags {
	PL_PROC_PARTIAL = 1u << 0, /* existed before the sensor: counts start at first sight */
	PL_PROC_FORKED = 1u << 1,  /* image inherited through fork, never exec'd by this process */
	PL_PROC_EXECED = 1u << 2,  /* image loaded by execve while the sensor watched */
	/* What the executed file was at exec, set by the exec
	 * program and inherited by fork children of that image: */
	PL_PROC_EXE_MEMFD = 1u << 3,   /* a memfd (memfd_create(2)): fileless execution */
	PL_PROC_EXE_DELETED = 1u << 4, /* no name left in any directory (i_nlink == 0): an unlinked
					* file or an O_TMPFILE; set with EXE_MEMFD for a memfd too */
	PL_PROC_CONNECTED = 1u << 5,   /* the image attempted a TCP connect (set at its first) */
	PL_PROC_EXE_NETWRITTEN = 1u << 6, /* the executed file was opened for write (or was the
					   * stdout) of a connected process in the last
					   * net_written_max_age_ns; inherited like EXE_MEMFD */
};

/* Indexes into the per-CPU `drops` array: every loss is counted here. */
enum pl_drop {
	PL_DROP_RINGBUF = 0,       /* ring buffer full: a record was not emitted */
	PL_DROP_PROC_MAP = 1,      /* process table full: a process was not tracked */
	PL_DROP_FAILPATH_MAP = 2,  /* failed-path table full: path not recorded (count kept) */
	PL_DROP_PATH_TRUNC = 3,    /* a path was longer than PL_PATH_LEN - 1 (a cwd than PL_CWD_LEN - 1)
				    * and was cut */
	PL_DROP_ARGS_TRUNC = 4,    /* a cmdline was longer than PL_ARGS_LEN */
	PL_DROP_THREAD_STATE = 5,  /* task storage allocation failed: thread not accounted */
	PL_DROP_PATH_FAULT = 6,    /* a failed-open path could not be read from user memory */
	PL_DROP_FAILPATH_IMAGE = 7, /* an image over its share of the failed-path table: path not
				     * recorded (count kept) */
	PL_DROP_SAMPLE_RING = 8,   /* sample ring buffer full: sample counted in the image, stack not kept */
	PL_DROP_STACK_COPY = 9,    /* the user stack could not be copied: the sampled pc alone is known */
	PL_DROP_KSTACK = 10,       /* the kernel stack of a sample in the kernel could not be read */
	PL_DROP_FILE_IMAGE = 11,   /* an image over its share of watched-file records: touch not recorded */
	PL_DROP_MAP_IMAGE = 12,    /* an image over its share of new executable objects: object not reported */
	PL_DROP_NET_IMAGE = 13,    /* an image over its share of new destinations: not deduped, no
				    * PL_EV_NET record (its counts kept; counted as a new destination) */
	PL_DROP_MAX = 14,
};

struct pl_hdr {
	__u16 type;    /* enum pl_event_type */
	__u16 version; /* PL_ABI_VERSION */
	__u32 size;    /* sizeof the whole record */
	__u64 ts_ns;   /* when the record was produced */
	__u32 tgid;
	__u32 pad;
};
_Static_assert(sizeof(struct pl_hdr) == 24, "pl_hdr layout");

/*
 * Measurements of one image of one process. All counters are cumulative.
 * Syscalls are counted per CPU in the kernel (the `cpu_sc` slot of the
 * CPU the thread runs on) and folded in here at switch-out, at exec and
 * exit, and by the CPU refresher, with their total.
 */
struct pl_stats {
	__u64 cpu_ns;         /* on-CPU: sum of the threads' se.sum_exec_runtime deltas */
	__u64 offcpu_ns;      /* thread-ns switched out (blocked + runnable-waiting) */
	__u64 runq_ns;        /* of offcpu_ns: runnable but waiting for a CPU (preempted, or woken) */
	__u64 sc_other;       /* entries with a syscall number >= PL_NR_SYSCALLS */
	__u64 open_fail;      /* open/openat/openat2/creat that returned an error */
	__u64 open_fail_unrecorded; /* failures whose path did not fit the path table */
	__u64 ctx_switches;   /* voluntary + involuntary switches out */
	__u64 syscalls;       /* all of sc[] and sc_other: added at each fold, so nobody sums */
	/* TCP connects (net.bpf.c, sock:inet_sock_set_state): attempts (CLOSE -> SYN_SENT),
	 * and of them those that failed (SYN_SENT -> CLOSE: refused, reset, timed out) */
	__u64 net_connects;
	__u64 net_connect_fail;
	/* destinations (address, port) this image tried for the first time; an
	 * attempt of an image over its share of the dedupe table counts as new */
	__u64 net_dests;
	__u64 open_fail_errno[PL_NR_ERRNO];
	__u64 sc[PL_NR_SYSCALLS];
};

/* What identifies one image of one process; start records carry only this. */
struct pl_ident {
	__u64 proc_start_ns;  /* task_struct::start_time of the process */
	__u64 image_start_ns; /* exec (or fork) that started this image */
	__u64 image_id;       /* unique per image: keys the failed-path table */
	__u64 cgroup_id;      /* cgroup v2 id at image start */
	__u64 exe_ino;
	/* The executable's size and times as its inode says at image start:
	 * with dev and ino, what user space caches the binary's identity by,
	 * so a known binary is identified without a syscall (0 when unknown). */
	__u64 exe_size;
	__u64 exe_mtime_ns;   /* CLOCK_REALTIME ns since the epoch */
	__u64 exe_ctime_ns;
	__u32 exe_dev;        /* kernel dev_t of the executable's superblock */
	__u32 ppid;
	__u32 uid;
	__u32 flags;          /* enum pl_proc_flags */
	__u32 threads;        /* threads seen in this image */
	__u32 pad;
	char comm[PL_COMM_LEN];
};

/* Per-process entry of the `procs` map (key: tgid). */
struct pl_proc {
	struct pl_ident id;
	__s32 exiting;        /* threads between sched_process_exit and their last switch */
	__u32 pad;
	/*
	 * New failed-path keys this image may insert: a rate limit with a burst
	 * (GCRA), as the time at which the next key would be on schedule. No
	 * image can fill the shared table, whatever it does; its failures are
	 * still counted exactly in st.
	 */
	__u64 fail_key_tat_ns;
	__u64 file_tat_ns;        /* the same for watched-file records (PL_EV_FILE) */
	__u64 net_key_tat_ns;     /* the same for new destinations (PL_EV_NET records) */
	__u64 oncpu_samples;      /* on-CPU samples taken of this image (perf cpu-clock) */
	__u64 oncpu_unattributed; /* of which no record reached user space (sample ring full) */
	struct pl_stats st;
};

struct pl_ev_exec {
	struct pl_hdr hdr;
	struct pl_ident id;  /* the new image; its measurements start at zero */
	__u32 filename_len;  /* bytes read including NUL; PL_PATH_LEN + 1 means truncated */
	__u32 args_len;      /* bytes of args, PL_ARGS_LEN means truncated */
	char filename[PL_PATH_LEN];
	char args[PL_ARGS_LEN];
	/*
	 * The exec'ing task's working directory, as its getcwd(2) says (from its
	 * root, mounts crossed), read at exec so that whatever is keyed by it
	 * never depends on when user space looks. A relative filename or script
	 * path is resolved against it; build tools are keyed by it.
	 */
	__u32 cwd_len;       /* bytes incl. NUL; 0 unknown; PL_CWD_LEN + 1: cut, cwd holds its tail */
	__u32 pad;
	char cwd[PL_CWD_LEN];
	/*
	 * The pipes on the new image's stdin and stdout: the pipefs inode
	 * number of fd 0 and fd 1 when they are anonymous pipes (pipe(2), a
	 * shell's `|`), 0 otherwise (a file, a tty, a socket, a named FIFO).
	 * One pipe inode on a writer's stdout and a reader's stdin is a
	 * pipeline: `curl URL | sh` (sensor/process/pipes.h).
	 */
	__u64 stdin_pipe;
	__u64 stdout_pipe;
};

/* PL_EV_FORK and PL_EV_SEEN share one layout. */
struct pl_ev_proc {
	struct pl_hdr hdr;
	struct pl_ident id;
};

struct pl_ev_end {
	struct pl_hdr hdr;
	struct pl_proc proc;
	__u64 end_ns;
	__u32 reason;    /* enum pl_end_reason */
	__s32 exit_code; /* wait(2) status: (code << 8) | signal; valid for PL_END_EXIT */
};

/* Key of the in-kernel failed-open dedupe table `fail_paths`. */
struct pl_fail_key {
	__u64 image_id;
	__u32 tgid;
	__s32 err; /* positive errno */
	char path[PL_PATH_LEN];
};

struct pl_fail_val {
	__u64 count;
	__u64 first_ns;
};

struct pl_ev_fail_path {
	struct pl_hdr hdr;
	struct pl_fail_key key;
	__u32 truncated;
	__u32 pad;
};

/*
 * Watched files (bpf/files.bpf.h). User space expands the path classes to
 * the (dev, ino) of the files that exist and of the directories whose
 * entries are watched, and loads them into `file_watch`; a bit per hash of
 * (dev, ino) in the `file_bits` bitmap (a global array, no lookup) says
 * whether the exact lookup is worth making. The kernel decides only "maybe
 * watched"; user space classifies the record's path (a directory watch
 * sends every entry it holds).
 */
#define PL_FILE_BITS (1u << 16) /* bits of the prefilter; a power of 2 */

struct pl_watch_key {
	__u64 ino;
	__u32 dev; /* kernel dev_t of the superblock */
	__u32 pad;
};

enum pl_watch_kind {
	PL_WATCH_FILE = 1, /* this inode itself */
	PL_WATCH_DIR = 2,  /* every entry of this directory */
	PL_WATCH_NEW = 4,  /* the entries created in this directory */
};

/* The prefilter's bit of a key: both sides compute it. */
static inline __u32 pl_watch_hash(__u64 ino, __u32 dev)
{
	__u64 h = (ino ^ ((__u64)dev << 32)) * 0x9e3779b97f4a7c15ull;

	return (__u32)(h >> 40) & (PL_FILE_BITS - 1);
}

struct pl_watch_val {
	__u32 kind; /* enum pl_watch_kind (bits) */
	__u32 pad;
};

/* What was done to a watched file. */
enum pl_file_op {
	PL_FOP_READ = 1,   /* opened for reading only */
	PL_FOP_WRITE = 2,  /* opened for writing (or truncated) */
	PL_FOP_CREATE = 3, /* created by this open (FMODE_CREATED) */
	PL_FOP_RENAME = 4, /* renamed onto: path is rename(2)'s new name, as given */
};

/* pl_ev_file.flags */
enum pl_file_flags {
	PL_FILEF_PROC = 1u << 0,     /* the /proc/PID/mem of another process */
	PL_FILEF_BY_DIR = 1u << 1,   /* matched through its directory, not its own inode */
	PL_FILEF_RELATIVE = 1u << 2, /* path as given, relative to the cwd (rename) */
};

struct pl_ev_file {
	struct pl_hdr hdr;
	__u64 image_id;
	__u64 ino;
	__u32 dev;
	__u32 op;         /* enum pl_file_op */
	__u32 flags;      /* enum pl_file_flags */
	__u32 open_flags; /* the file's f_flags (O_*) */
	__u32 target_pid; /* PL_FILEF_PROC: whose /proc file */
	__u32 path_len;   /* bytes incl. NUL; PL_PATH_LEN + 1: cut, path holds its tail */
	char path[PL_PATH_LEN];
};

/* pl_ev_net.outcome */
enum pl_net_outcome {
	PL_NET_CONNECTED = 1, /* SYN_SENT -> ESTABLISHED */
	PL_NET_FAILED = 2,    /* SYN_SENT -> CLOSE: refused (RST), reset, timed out, unreachable */
};

/* Key of the per-image destination dedupe table `net_dests` (LRU). */
struct pl_net_key {
	__u64 image_id;
	__u8 addr[16]; /* network order; IPv4 in the first 4 bytes, the rest zero */
	__u16 port;    /* host order */
	__u16 family;  /* AF_INET (2) or AF_INET6 (10) */
	__u32 pad;
};

/*
 * The outcome of an image's first TCP connect to one destination: emitted
 * when the attempt ends (which may be in softirq context), so it carries
 * the image's identity as the process table holds it.
 */
struct pl_ev_net {
	struct pl_hdr hdr;
	struct pl_ident id;
	struct pl_net_key key;
	__u64 attempt_ns; /* CLOSE -> SYN_SENT */
	__u32 outcome;    /* enum pl_net_outcome */
	__u32 pad;
};

/* Key and value of `net_written` (bpf/net.bpf.h): files a connected process
 * opened for write, by inode; user space reads it for #! scripts at exec. */
struct pl_written_key {
	__u64 ino;
	__u32 dev;  /* kernel dev_t of the superblock */
	__u32 pad;
};

struct pl_written_val {
	__u64 written_ns; /* CLOCK_MONOTONIC */
	__u32 tgid;
	__u32 gen;        /* the inode's i_generation then: an inode number freed and reused for
			   * another file (ext4 reuses them at once) gets a new one */
};

/* How long a written file counts as just downloaded for an exec. */
#define PL_NET_WRITTEN_MAX_AGE_S 600ull

/*
 * One on-CPU sample (PL_EV_SAMPLE, in its own ring buffer `samples`): the
 * thread's user registers, its kernel stack when the sample hit the kernel,
 * and a copy of the top of its user stack, from the stack pointer up, which
 * user space unwinds through the objects' unwind tables (.eh_frame; Debian's
 * binaries have no frame pointers). The record is as long as what was
 * copied: hdr.size = offsetof(stack) + stack_len.
 */
#define PL_KSTACK_DEPTH 32
#define PL_SAMPLE_NREGS 17          /* x86_64 DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
#define PL_STACK_DUMP_MAX 28672     /* bytes of user stack at most (the per-CPU scratch fits 32 KiB) */
#define PL_STACK_DUMP_DEFAULT 16384

enum pl_sample_flags {
	PL_SAMPLE_IN_KERNEL = 1, /* the sample hit the kernel: kern[] holds its stack */
	PL_SAMPLE_NO_REGS = 2,   /* the user registers could not be read: no user stack */
};

struct pl_ev_sample {
	struct pl_hdr hdr;
	__u64 image_id;
	__u32 tid;
	__u32 flags;     /* enum pl_sample_flags */
	__u64 regs[PL_SAMPLE_NREGS];
	__u32 nkern;     /* entries of kern[], the leaf first */
	__u32 stack_len; /* bytes of stack[] */
	__u64 kern[PL_KSTACK_DEPTH];
	__u8 stack[PL_STACK_DUMP_MAX];
};

/*
 * An executable object mapped by an image (PL_EV_MAP): the file an
 * mmap(PROT_EXEC) or an mprotect(PROT_EXEC) of a file mapping made code of
 * the process, once per (image, file) (the kernel's `map_seen`, an LRU:
 * an evicted pair may be reported again; user space dedupes too).
 */
struct pl_ev_map {
	struct pl_hdr hdr;
	__u64 image_id;
	__u64 ino;
	__u64 size;     /* the inode's, at the mapping */
	__u64 mtime_ns; /* CLOCK_REALTIME ns since the epoch */
	__u64 ctime_ns;
	__u32 dev;      /* kernel dev_t of the file's superblock */
	__u32 uid;      /* the file's owner */
	__u32 mode;     /* i_mode: type and permission bits */
	__u32 nlink;    /* 0: unlinked, O_TMPFILE or memfd */
	__u32 prot;     /* PROT_* asked for */
	__u32 how;      /* enum pl_map_how */
	__u32 path_len; /* bytes incl. NUL; 0 unknown; PL_PATH_LEN + 1: cut, path holds its tail */
	__u32 pad;
	char path[PL_PATH_LEN]; /* from the root of the mount namespace, mounts crossed */
};

/*
 * One thread of the process user space asked about, as bpf/waits.bpf.c
 * writes it: not a ring-buffer record (no pl_hdr), but an entry of the
 * program's wait_out[] (.bss), or the text of the task iterator's
 * seq_file, which user space read(2)s from the fd BPF_ITER_CREATE gave it. User space checks version and size of each
 * (sensor/process/waitstate.c: waitstate__parse_recs()).
 */
#define PL_WAIT_KFRAMES 16 /* kernel frames taken per thread (the evidence keeps fewer) */
#define PL_WAIT_MAX_RECS 256 /* threads read per process (a power of 2: a BPF mask) */

struct pl_wait_rec {
	__u16 version;  /* PL_ABI_VERSION */
	__u16 size;     /* sizeof(struct pl_wait_rec) */
	__u32 tid;
	__u32 tgid;
	__u32 state;    /* task_struct::__state; 0 (TASK_RUNNING): no stack taken */
	__s32 nframes;  /* ips[] filled, innermost first; < 0: bpf_get_task_stack()'s -errno */
	__u32 pad;
	__u64 ips[PL_WAIT_KFRAMES];
};

_Static_assert(sizeof(struct pl_ev_map) == 24 + 40 + 32 + PL_PATH_LEN, "pl_ev_map layout");
_Static_assert((PL_PATH_LEN & (PL_PATH_LEN - 1)) == 0, "PL_PATH_LEN a power of 2");
_Static_assert(sizeof(struct pl_ev_sample) == 24 + 16 + 8 * PL_SAMPLE_NREGS + 8 + 8 * PL_KSTACK_DEPTH + PL_STACK_DUMP_MAX,
	       "pl_ev_sample layout");
_Static_assert(sizeof(struct pl_stats) == (11 + PL_NR_ERRNO + PL_NR_SYSCALLS) * 8, "pl_stats layout");
_Static_assert(sizeof(struct pl_ident) == 104, "pl_ident layout");
_Static_assert(sizeof(struct pl_proc) % 8 == 0, "pl_proc alignment");
_Static_assert(sizeof(struct pl_ev_exec) % 8 == 0, "pl_ev_exec alignment");
_Static_assert(sizeof(struct pl_ev_exec) == 24 + 104 + 8 + PL_PATH_LEN + PL_ARGS_LEN + 8 + PL_CWD_LEN + 16,
	       "pl_ev_exec layout");
_Static_assert((PL_CWD_LEN & (PL_CWD_LEN - 1)) == 0, "PL_CWD_LEN a power of 2");
_Static_assert(sizeof(struct pl_ev_end) % 8 == 0, "pl_ev_end alignment");
_Static_assert(sizeof(struct pl_fail_key) == 16 + PL_PATH_LEN, "pl_fail_key layout");
_Static_assert(sizeof(struct pl_ev_file) == 24 + 40 + PL_PATH_LEN, "pl_ev_file layout");
_Static_assert(sizeof(struct pl_watch_key) == 16, "pl_watch_key layout");
_Static_assert((PL_FILE_BITS & (PL_FILE_BITS - 1)) == 0, "PL_FILE_BITS a power of 2");
_Static_assert(sizeof(struct pl_net_key) == 32, "pl_net_key layout");
_Static_assert(sizeof(struct pl_ev_net) == 24 + 104 + 32 + 16, "pl_ev_net layout");
_Static_assert(sizeof(struct pl_wait_rec) == 24 + 8 * PL_WAIT_KFRAMES, "pl_wait_rec layout");
_Static_assert((PL_WAIT_MAX_RECS & (PL_WAIT_MAX_RECS - 1)) == 0, "PL_WAIT_MAX_RECS a power of 2");

#endif /* PLUMBLINE_H */
