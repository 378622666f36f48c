/* SPDX-License-Identifier: MIT */
/*
 * sample.h - one measurement of one process image at one moment.
 *
 * This is the one typed form a measurement takes on its way from the kernel
 * to an alert. The sensor fills it straight from the kernel's counters and
 * its process table; `plumbline replay` fills it from a JSON record (the one
 * parser of records, outputs/sample_json.c). Rules read it through the field
 * table (rules/fields.c: a getter per field, nothing looked up by name while
 * evaluating), the learner scores and learns from it, and JSON is written
 * from it only at the output edge, when something is written.
 *
 * The moments (a rule's `when`):
 *   exec    an image started: identity and the baseline's state, no counters
 *   window  one second of a running image: `win` is the second, `life` the
 *           image so far
 *   exit    an image ended (exit, or exec of another): `life` is the whole
 *           image; `end_reason` says which. A process still running at
 *           shutdown is an exit sample with end_reason "running" (written,
 *           never judged by rules).
 *
 * Strings are raw bytes (what the process gave; escaped only where they
 * leave the sensor), borrowed from whoever filled the sample: they must
 * outlive its use. NULL means unknown. Times are CLOCK_REALTIME ns.
 */
#ifndef PL_SAMPLE_H
#define PL_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PL_SAMPLE_NR_SYSCALLS 512 /* per-syscall slots, by number (PL_NR_SYSCALLS) */
#define PL_SAMPLE_NR_ERRNO 64     /* failed opens by errno; the last slot is "other" (PL_NR_ERRNO) */
#define PL_SAMPLE_ANCESTORS 8     /* ancestors' exe paths, parent first */
#define PL_SAMPLE_NEW_MAX 8       /* never-seen set members listed in a verdict */

/* When a sample was taken (bits: a rule's `when` is a mask of them). */
enum pl_moment {
	PL_AT_EXEC = 1u << 0,
	PL_AT_WINDOW = 1u << 1,
	PL_AT_EXIT = 1u << 2,
	PL_AT_ALL = 7u, /* the classic moments: what a rule without `when` runs at */
	/* Events of a running image (issue 18): a rule runs at these only when
	 * its `when` names them. */
	PL_AT_FILE = 1u << 3,    /* a watched file was touched (sample.file) */
	PL_AT_MAP = 1u << 4,     /* an executable object was mapped (sample.map) */
	PL_AT_CONNECT = 1u << 5, /* a connection attempt was made or ended (sample.net) */
	PL_AT_EVENTS = 0x38u,
	PL_AT_ANY = 0x3fu,
};
#define PL_MOMENTS 6 /* bits of enum pl_moment */

/* How the image started. */
enum pl_image { PL_IMAGE_EXEC, PL_IMAGE_FORK, PL_IMAGE_PREEXISTING };

/*
 * What baselines learn, and what a verdict scores: LIFE_* one value per
 * process image, WIN_* one per 1-second window (per second).
 */
enum pl_dist {
	PL_LIFE_CPU,       /* on-CPU ns per lifetime */
	PL_LIFE_WALL,      /* wall ns per lifetime */
	PL_LIFE_OFFCPU,    /* off-CPU thread-ns per lifetime */
	PL_LIFE_SYSCALLS,  /* syscalls per lifetime */
	PL_LIFE_OPEN_FAIL, /* failed opens per lifetime */
	PL_WIN_CPU,        /* on-CPU ns per second */
	PL_WIN_SYSCALLS,   /* syscalls per second */
	PL_WIN_OPEN_FAIL,  /* failed opens per second */
	PL_WIN_SC_FILE,    /* syscalls per second by class (syscall_class()) */
	PL_WIN_SC_NET,
	PL_WIN_SC_PROC,
	PL_WIN_SC_MEM,
	PL_WIN_SC_IPC,
	PL_WIN_SC_TIME,
	PL_WIN_SC_OTHER,
	PL_DIST_MAX,
};

/* Counts over a span: an image so far, or one window. */
struct pl_span {
	uint64_t cpu_ns;
	uint64_t offcpu_ns;  /* thread-ns switched out (blocked + run queue) */
	uint64_t runq_ns;    /* of which runnable, waiting for a CPU */
	uint64_t ctx_switches;
	uint64_t syscalls;   /* all of sc[] and sc_other */
	uint64_t sc_other;   /* numbers >= PL_SAMPLE_NR_SYSCALLS */
	uint64_t open_fail;
	uint64_t open_fail_unrecorded;
	/* TCP connects (bpf/net.bpf.c): attempts, failed ones, and destinations
	 * (address, port) the image tried for the first time */
	uint64_t net_connects;
	uint64_t net_connect_fail;
	uint64_t net_dests;
	/* by number and by errno, or NULL when not known; unsigned long long,
	 * the kernel's __u64, so the kernel's counters are read in place */
	const unsigned long long *sc;         /* [PL_SAMPLE_NR_SYSCALLS] calls */
	const unsigned long long *fail_errno; /* [PL_SAMPLE_NR_ERRNO] failed opens */
};

/* One (path, errno) whose open failed in the image. */
struct pl_fail {
	const char *path;
	int32_t err;     /* positive errno */
	bool truncated;  /* path holds only the first 255 bytes */
	uint64_t count;
};

/* The binary's last complete second, across all its processes. */
/* One frame of an on-CPU stack, named (sensor/stacks/symbols.c). */
struct pl_frame {
	const char *object;   /* the file's path, "[kernel]" or "[module]" */
	const char *function; /* NULL when the object names no symbol there */
	const char *build_id; /* hex, NULL when unknown (and for the kernel) */
	uint64_t offset;      /* from the function's start; from the file's start when function is NULL */
	bool kernel;
	/* "python", "perl", "bash", "dash" when the function is that interpreter
	 * evaluating its program (sensor/stacks/interp.h); NULL otherwise */
	const char *interp;
	bool is_new; /* its function never seen on CPU by the baseline, once that has learned functions
		      * (learner__mark_new_frames) */
};

/* The samples of one pair of stacks: user frames, outermost caller first,
 * then kernel frames, the sampled instruction last. */
struct pl_stack {
	uint64_t samples;
	const struct pl_frame *user, *kern;
	uint32_t nuser, nkern;
};

/* Samples by object: the user frame where the sample ran, or that entered
 * the kernel ("[kernel]" only with no user frame at all). */
struct pl_oncpu_obj {
	const char *object;
	const char *build_id;
	uint64_t samples;
	double baseline_share; /* of the baseline's samples, NaN when the baseline has not learned objects */
	bool is_new;           /* never seen on-CPU by the (learned) baseline */
};

/* Samples by the function they ran in (the leaf frame, kernel included). */
struct pl_oncpu_fn {
	const char *object;
	const char *function; /* NULL: unnamed, see offset */
	uint64_t offset;      /* file offset when function is NULL */
	uint64_t samples;
	const char *interp; /* as the leaf frame's (struct pl_frame) */
};

struct pl_oncpu {
	uint64_t samples;      /* all samples of the image (the kernel's count) */
	uint64_t unattributed; /* of which no stack is known: */
	uint64_t unatt_ring;   /* ... the kernel's sample ring was full */
	uint64_t unatt_table;  /* ... a new stack past the stack tables' bounds */
	uint32_t rate_hz;
	struct pl_oncpu_obj *objs; /* by samples, most first */
	uint32_t nobjs;
	const struct pl_oncpu_fn *fns;
	uint32_t nfns;
	const struct pl_stack *stacks; /* the heaviest, most first */
	uint32_t nstacks;
};

/* An exit judged as an authentication attempt (sensor/process/exitwin.h):
 * failures and successes of this binary by this user in the last 60 s,
 * this exit included. Exit samples only. */
struct pl_auth {
	bool present;
	bool failed;              /* this exit: non-zero without having run a child */
	uint32_t failures, successes;
	double failures_per_min;  /* over the failures' own span (at least 1 s): a burst reads high */
};

struct pl_bin {
	bool present;
	uint32_t procs;
	double open_failures_per_s;
	const char *top_fail_path;
	double top_fail_share; /* NaN when unknown */
	/* the path new to this binary that the most distinct
	 * processes failed in the last second (binagg.h), NULL when none */
	const char *storm_path;
	const char *storm_paths; /* the new paths failed by >= half as many processes, ", "-joined */
	uint32_t storm_procs;
	double storm_failures_per_s;
	bool storm_new_binary; /* counted while the binary was new to the sensor (binagg.h) */
};

/* One feature of a scored sample against its baseline. */
struct pl_score {
	bool valid;       /* the distribution was ready and scored */
	double value;     /* the sample's value */
	double p50, p99;  /* of the baseline */
	double ratio_p50; /* value / p50 (value when p50 is 0) */
	double ratio_p99;
	double score;     /* robust log-space score, MAD units */
};

/* The fleet's view of a sample's key (fleet.* in rules): the baseline of
 * the same key in the role bundle the sensor loaded (--fleet-dir), beside
 * the host's own. Present whether or not the host's own is ready. */
struct pl_fleet_verdict {
	bool present;        /* the loaded bundle holds this key (every other field 0 when not) */
	bool ready, windows_ready;
	uint64_t samples;    /* process samples behind it, over every host */
	uint32_t hosts;      /* hosts that learned it */
	const char *role;    /* the bundle's role */
	double q[PL_DIST_MAX][3]; /* p50, p90, p99 (NaN when not ready) */
	bool scored;         /* this window or exit was scored against it (it was ready) */
	struct pl_score f[PL_DIST_MAX];
};

/* Which baseline the sample's baseline.* readiness, quantiles and scores
 * are of: its own; the prior of a rebuilt binary; the fleet's, when its
 * own (and any prior) is not ready and the fleet's is. */
enum pl_bl_source { PL_BL_SOURCE_HOST = 0, PL_BL_SOURCE_PRIOR, PL_BL_SOURCE_FLEET };

/* "host", "prior", "fleet" */
static inline const char *pl_bl_source__name(enum pl_bl_source s)
{
	return s == PL_BL_SOURCE_FLEET ? "fleet" : s == PL_BL_SOURCE_PRIOR ? "prior" : "host";
}

/* What the image's baseline says, and, once scored, its verdict. */
struct pl_verdict {
	const char *key;       /* NULL: no baseline attached (every baseline.* field is absent) */
	bool ready;            /* lifetime features ready */
	bool windows_ready;
	uint64_t samples;      /* process samples learned */
	bool parent_ready;     /* the parent's baseline is ready */
	bool parent_new_child; /* ... and had never executed this binary */
	/* at a file moment: the files set (BL_SET_FILES, "class:op") is
	 * saturated, and this touch is not in it */
	bool files_ready;
	bool file_new;
	/* the parent's baseline judged this exec: the two above have values even
	 * when the image has no baseline of its own yet (its hash pending) */
	bool parent_seen;
	/* learned quantiles p50, p90, p99 of each distribution (NaN when not ready) */
	double q[PL_DIST_MAX][3];
	/* the verdict on this sample (window, exit) */
	bool scored;
	bool from_prior;       /* scored against the prior baseline (a rebuilt binary) */
	bool anomalous;
	bool learned;          /* set after the rules: the sample went into the baseline */
	struct pl_score f[PL_DIST_MAX];
	double max_score;      /* NaN when no feature scored */
	int max_dist;          /* enum pl_dist of max_score, -1 when none */
	const char *new_fail_paths[PL_SAMPLE_NEW_MAX];
	uint32_t nnew_fail_paths;
	const char *new_syscalls[PL_SAMPLE_NEW_MAX];
	uint32_t nnew_syscalls;
	/* objects on CPU that the baseline never saw there, once it has
	 * learned objects (exit only), and the samples they took */
	bool oncpu_ready;
	const char *new_oncpu_objects[PL_SAMPLE_NEW_MAX];
	uint32_t nnew_oncpu_objects;
	uint64_t new_oncpu_samples;
	/* TCP peers (BL_SET_PEERS): the set is saturated; it holds only "none"
	 * (the binary's lifetimes never connect); at a connect, this peer is
	 * not in it (valid when peers_ready) */
	bool peers_ready;
	bool peers_never;
	bool peer_new;
	/* PL_BL_SOURCE_FLEET: ready, windows_ready and the quantiles above are
	 * the fleet's (the host's own not ready), and so are the scores */
	enum pl_bl_source source;
	struct pl_fleet_verdict fleet;
};

/* ---- what a process off-CPU waits on, read from /proc
 * (sensor/process/waitstate.c) while it waits; symbol names only, never addresses */
#define PL_WAIT_THREADS 8 /* threads described; the rest only counted */
#define PL_WAIT_FRAMES 12 /* kernel frames kept per thread */
#define PL_WAIT_NAME 64

struct pl_wait_thread {
	uint32_t tid;
	char state;                     /* /proc stat letter: R S D T t Z ... */
	char wchan[PL_WAIT_NAME];       /* "" when the kernel gives none */
	char frames[PL_WAIT_FRAMES][PL_WAIT_NAME]; /* innermost first */
	uint32_t nframes;
	bool stack_read;                /* a stack was read: frames[] is it (maybe empty) */
	char stack_source;              /* where from: PL_WAIT_STACK_BPF or _PROC; 0 when not read */
};

/* pl_wait_thread.stack_source: the sensor's task iterator (bpf/waits.bpf.c),
 * or /proc/PID/task/TID/stack. */
#define PL_WAIT_STACK_BPF 'b'
#define PL_WAIT_STACK_PROC 'p'


struct pl_wait {
	double waiting_s;  /* since the process last used CPU or made a syscall */
	char state;        /* the process's, from its threads (pl_wait__state_name) */
	uint32_t threads;  /* threads seen in /proc */
	uint32_t runq;     /* runnable (R): waiting for a CPU */
	uint32_t blocked;  /* sleeping (S) or uninterruptible (D): waiting for an event */
	uint32_t stopped;  /* stopped (T) or traced (t) */
	struct pl_wait_thread t[PL_WAIT_THREADS]; /* waiting threads, most telling first */
	uint32_t nt;
};

/* "running", "sleeping", "uninterruptible", "stopped", "traced", "zombie",
 * "idle", "dead", or "unknown". */
const char *pl_wait__state_name(char state);

struct pl_sample {
	enum pl_moment moment;
	uint64_t time_ns;         /* the moment: exec time, window end, image end */

	/* identity */
	uint32_t pid, ppid, uid;
	const char *comm;         /* at the moment (renamable) */
	const char *exec_comm;    /* at image start */
	const char *exe;
	const char *filename;     /* as given to execve (exec images) */
	bool filename_truncated;
	const char *cmdline;      /* arguments joined by spaces, bounded */
	const char *build_id;
	const char *binary_id;
	const char *cgroup;
	uint64_t cgroup_id;
	uint32_t exe_dev;         /* kernel dev_t */
	uint64_t exe_ino;
	enum pl_image image;
	bool partial;             /* the sensor saw only part of the image */
	uint64_t start_ns;        /* process start */
	uint64_t image_start_ns;
	uint32_t threads;
	/* what the executed file was at exec, a
	 * static string: "file", "deleted" (no links left: unlinked, O_TMPFILE),
	 * "memfd" (fileless); NULL: not known (preexisting images) */
	const char *exe_kind;
	uint64_t exe_mtime_ns;    /* the executable's mtime at exec (CLOCK_REALTIME), 0: unknown */
	/* the executed file was written lately by a process that had made a TCP
	 * connect (PL_PROC_EXE_NETWRITTEN, bpf/net.bpf.h); known for exec images */
	bool exe_net_written_known, exe_net_written;
	bool connected;           /* the image attempted a TCP connect (PL_PROC_CONNECTED) */
	/* no unprivileged user could have placed the executable (identity__exe_trusted(), sensor/identity/identity.h) */
	bool exe_trusted_known, exe_trusted;
	/* exe_kind "memfd": the trusted on-disk binary (its previous image's or its parent's) that the
	 * sealed memfd is a byte-for-byte copy of (runc's re-exec), NULL otherwise */
	const char *exe_memfd_copy_of;
	/* stdin was an anonymous pipe at exec; the executable exec'd writing
	 * it (`curl URL | sh`: curl), NULL when none is known (yet) */
	bool stdin_pipe;
	const char *stdin_writer;
	const char *parent_exe;
	const char *ancestors[PL_SAMPLE_ANCESTORS]; /* exe paths, parent first; an entry may be NULL */
	/* what an interpreter runs ("/srv/app.py", "-c", "-m http.server"),
	 * NULL for other images (scriptkey.h) */
	const char *script;
	uint32_t nancestors;

	/* the image so far (window), or all of it (exit) */
	struct pl_span life;
	/* the TCP peers it tried (pl_net_ev.peer), at exit; bounded */
	const char *const *peers;
	uint32_t npeers;
	/* the image's failed paths: at exit all it lists; at a window those so
	 * far (from a record, only the top one); fail_paths counts them all */
	const struct pl_fail *fails;
	uint32_t nfails;
	uint32_t fail_paths;

	/* on-CPU samples of the image (exit), NULL when sampling is off */
	struct pl_oncpu *oncpu;

	/* exit */
	uint64_t end_ns;
	const char *end_reason;   /* "exit", "exec" or "running" */
	bool has_exit_code, has_exit_signal;
	int exit_code, exit_signal;

	/* window */
	struct pl_span win;
	uint64_t win_start_ns, win_end_ns;
	double busy_s;            /* the busy streak, seconds (common/cpuwin.h) */
	/* the last whole windows, up to PL_CPUWIN_SLOTS (cpuwin.h): their span,
	 * the image's CPU in them, and its clones' */
	double recent_s;
	uint64_t recent_busy_ns;  /* on-CPU and run queue */
	uint64_t recent_cpu_ns;   /* on-CPU */
	uint64_t clone_ns;
	uint32_t clones;

	struct pl_bin bin;
	struct pl_auth auth;
	struct pl_verdict bl;

	/* set on a window of a process waiting long (NULL otherwise) */
	const struct pl_wait *wait;

	/* the event of an event moment, NULL at the others */
	const struct pl_file_ev *file; /* PL_AT_FILE */
	const struct pl_map_ev *map;   /* PL_AT_MAP */
	const struct pl_net_ev *net;   /* PL_AT_CONNECT */
};

/* The event of an event moment (PL_AT_FILE, PL_AT_MAP, PL_AT_CONNECT);
 * each is defined with its family. */

/* A watched file touched (PL_AT_FILE): the class of its path, what was
 * done, and for another process's /proc file whose it is. */
struct pl_file_ev {
	const char *cls;     /* the path class (rules' path_class.NAME): "credentials", ... */
	const char *op;      /* "read", "write", "create", "rename" (renamed onto) */
	const char *path;    /* as the opener's root names it; a rename's new name as given */
	const char *name;    /* its last component */
	bool path_cut;       /* path holds only its last 255 bytes */
	uint32_t open_flags; /* O_* of the open (0 for a rename) */
	uint32_t target_pid; /* /proc/PID files: PID, else 0 */
	const char *target_exe; /* PID's exe, NULL when unknown */
};
struct pl_map_ev;

/* The outcome of an image's first TCP connect to one destination. */
struct pl_net_ev {
	const char *addr;    /* "127.0.0.1", "2001:db8::1" */
	uint32_t port;
	uint32_t family;     /* 4 or 6 */
	const char *cls;     /* pl_net__class(): loopback, private, link-local, multicast, public */
	const char *outcome; /* "connected" or "failed" */
	const char *peer;    /* the baseline's member: "CLASS:tcp/PORT", PORT "ephemeral" when >= 32768 */
	uint64_t attempt_ns; /* when the attempt started (CLOCK_REALTIME) */
};

/* The class of an address (network order, 4 or 16 bytes): "loopback",
 * "private" (RFC 1918, CGNAT 100.64/10, IPv6 ULA fc00::/7), "link-local",
 * "multicast", "unspecified" or "public". IPv4-mapped IPv6 is judged as IPv4. */
const char *pl_net__class(const uint8_t *addr, int family);
/* The peer member of a destination: "CLASS:tcp/PORT", or "CLASS:tcp/ephemeral"
 * for a port >= 32768 (Linux's ephemeral range: a test server, a peer-to-peer
 * port), so a web client's many servers are one member. */
void pl_net__peer(char *buf, size_t size, const char *cls, uint32_t port);

/*
 * PL_AT_MAP: an executable object (a library, a preload, a PAM or NSS
 * module, a dlopen()ed plugin) the image mapped, once per (image, object):
 * what sensor/identity/objects.h says of the file, and what the image's
 * baseline says of it. Tri-states: -1 unknown, 0 no, 1 yes.
 */
struct pl_map_ev {
	const char *path;      /* as the kernel named the file (mounts crossed) */
	const char *name;      /* its last component */
	const char *dir;       /* path without it ("/" for a file at the root) */
	bool path_cut;         /* path holds only the tail of a longer one */
	const char *build_id;  /* hex, NULL when none or unreadable */
	const char *binary_id; /* its identity (build-id: or sha256:), NULL while its hash is pending */
	int trusted;           /* no unprivileged user could have placed it (identity__file_is_roots) */
	int packaged;          /* an installed package owns it (dpkg) */
	const char *package;   /* that package, NULL otherwise */
	const char *location;  /* "system", "tmp", "home", "other" (objects__location) */
	uint32_t owner_uid;
	uint32_t mode;         /* st_mode */
	bool deleted;          /* no links left (unlinked, O_TMPFILE, memfd) */
	const char *how;       /* "mmap" or "mprotect" */
	/* mapped by an exec'd dynamic image before any library its executable
	 * names in DT_NEEDED, and not one of them: LD_PRELOAD or /etc/ld.so.preload */
	bool preload;
	/* the image's baseline's set of objects (BL_SET_OBJECTS) */
	bool objects_known;    /* a baseline is attached: the two below mean something */
	bool objects_ready;    /* saturated (Good-Turing, docs/baselines.md) */
	bool object_new;       /* ready, and it never held this path */
};

/* Reset s to an empty sample of the given moment: nothing known. */
void pl_sample__init(struct pl_sample *s, enum pl_moment m);

/* The window's length in seconds (0 when not a window). */
double pl_sample__win_seconds(const struct pl_sample *s);

/* The image's age at the moment, ns (exit: its duration). */
uint64_t pl_sample__wall_ns(const struct pl_sample *s);

/* The listed path that failed most, or NULL. */
const struct pl_fail *pl_sample__top_fail(const struct pl_sample *s);

/* "exec", "window", "exit", "file", "map", "connect" */
const char *pl_moment__name(enum pl_moment m);
/* The same names by bit position (pl_moment_names[i] names 1u << i). */
extern const char *const pl_moment_names[PL_MOMENTS];
/* "exec", "fork", "preexisting" */
const char *pl_image__name(enum pl_image i);
/* The name of a distribution in a verdict's `features` ("cpu_ns", ...). */
const char *pl_dist__feature(enum pl_dist d);

#endif
