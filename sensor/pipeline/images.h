/* SPDX-License-Identifier: MIT */
/*
 * images.h - the life of each process image, from the kernel's records to
 * samples.
 *
 * The BPF side announces every image (EXEC, FORK, SEEN records), every new
 * failing path (FAIL_PATH) and every end (END, with the final counters).
 * This module validates those records (untrusted input: size, type, ABI
 * version), keeps the process table, resolves what only user space can
 * (exe path, build-id, binary_id, cmdline, parent, baseline), and turns each
 * moment into a typed sample for the pipeline:
 *   exec     at the EXEC record: identity and context;
 *   window   once a second, for every process in the kernel's table
 *            (images__window(), with its counters read from the map);
 *   exit     at the END record: the image's final counters;
 *   running  at shutdown, for what still runs (images__running()).
 * It also feeds the live view and the per-binary second.
 */
#ifndef PL_IMAGES_H
#define PL_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "process/binagg.h"
#include "process/failpaths.h"
#include "identity/identity.h"
#include "identity/objects.h"
#include "pipeline/learn.h"
#include "process/live.h"
#include "process/waitstate.h"
#include "stacks/oncpu.h"
#include "pipeline/pipeline.h"
#include "plumbline.h"
#include "process/proctable.h"

/* What images uses; all borrowed (live and learn may be NULL). */
struct images_deps {
	struct proctable *procs;
	struct identity *ident;
	struct failpaths *fails;
	struct binagg *bin;
	struct live *live;
	struct learner *learn;
	struct pipeline *pipe;
	struct oncpu *oncpu; /* NULL: no on-CPU sampling */
	/* the path classes of watched files (process/fileclass.h): where the
	 * current set is (it changes at a reload and a rescan); NULL: none */
	struct fileclass *const *classes;
	struct objects *objects; /* NULL: map records are counted, not judged */
	/* kernel stacks of waiting threads besides /proc (the BPF task
	 * iterator, which survives the privilege drop); NULL: /proc only */
	const struct waitstate_kstacks *kstacks;
	/* whether a connected process lately wrote the file (kernel dev_t,
	 * inode; the file's birth time, CLOCK_REALTIME ns, 0 unknown: a file born
	 * after the write is another on a reused inode number): for a #! script
	 * at exec (NULL: not asked) */
	bool (*net_written)(void *ctx, uint32_t kdev, uint64_t ino, uint64_t btime_real_ns);
	void *net_written_ctx;
};

struct images_stats {
	uint64_t records[PL_EV_LAST + 1]; /* valid ring-buffer records, by type */
	uint64_t invalid;                      /* rejected: size, type or version */
	uint64_t proctable_full;               /* start records with no room in the table */
	/* /proc state reads of idle processes, those left
	 * for a later tick (over the per-tick budget), waits reported */
	uint64_t wait_reads;
	uint64_t wait_skipped;
	uint64_t wait_reports;
	/* watched-file records (PL_EV_FILE): judged as a file sample, in no
	 * class (a directory's other entries, renames elsewhere), and whether
	 * one asks for the watch set to be expanded again (a file created or
	 * replaced where a class looks) */
	uint64_t files_judged;
	uint64_t files_unclassified;
	bool files_rescan;
	uint64_t ended_after_running; /* shutdown: ends of images already written "running", dropped */
};

struct images;

int images__new(const struct images_deps *d, struct images **ret);
void images__free(struct images *im);

/* The type (enum pl_event_type) of the ring-buffer record data, size bytes
 * as the ring buffer hands it over, when it is a whole record of this ABI
 * (its size, type and version checked), else -EINVAL. Touches nothing else:
 * the validation alone, for images__on_record() and the fuzz target. */
int images__record_type(const void *data, size_t size);

/* Whether a watched-file record since the last call asked for the watch set
 * to be expanded again (and forget it). */
bool images__files_rescan(struct images *im);

/* An exec record's strings, decoded as on_exec() takes them: the filename
 * NUL-terminated into filename, whether the kernel cut it, and the bytes of
 * args to read (never more than PL_ARGS_LEN, whatever args_len says). */
size_t images__exec_strings(const struct pl_ev_exec *ev, char filename[PL_PATH_LEN], bool *ret_truncated);

/* An exec record's working directory, NUL-terminated into cwd, and whether
 * the kernel cut it (cwd then holds its last components). false when the
 * kernel could not read it, or it is not an absolute path: cwd is then "". */
bool images__exec_cwd(const struct pl_ev_exec *ev, char cwd[PL_CWD_LEN], bool *ret_cut);

/* An END record's final counters (s->life, its arrays borrowed from ev) and
 * how the image ended (end_reason, exit code or signal), into s. */
void images__end_counts(const struct pl_ev_end *ev, struct pl_sample *s);

/* One ring-buffer record (data, size: as the ring buffer hands it over).
 * Invalid records are counted and dropped. */
void images__on_record(struct images *im, const void *data, size_t size);

/* The window moment of process tgid, whose kernel entry is p, at now_ns
 * (CLOCK_MONOTONIC): the second since its last window. */
void images__window(struct images *im, uint32_t tgid, const struct pl_proc *p, uint64_t now_ns);

/* A process still running at shutdown (now_ns monotonic): scored, written
 * with end_reason "running", never judged or learned. */
void images__running(struct images *im, uint32_t tgid, const struct pl_proc *p, uint64_t now_ns);

/*
 * The shutdown begins: the ring is drained, the kernel's table walked
 * (images__running()), and the ring drained again, for the processes whose
 * final switch came between the first drain and the walk (their end is in
 * the ring, no longer in the table). From now on the end of an image the
 * walk wrote "running" is dropped (counted: ended_after_running), so no
 * image is written twice.
 */
void images__closing(struct images *im);

/* The content hash of the file (kdev, ino) is known (identity__completed()
 * callback; ctx is the images): its images without a binary_id get it, the
 * images whose parent context waited for it get that, and each is attached
 * to its baseline once nothing is left to wait for. */
void images__on_hashed(void *ctx, uint32_t kdev, uint64_t ino, const char *binary_id);

const struct images_stats *images__stats(const struct images *im);

#endif
