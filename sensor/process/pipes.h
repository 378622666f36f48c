/* SPDX-License-Identifier: MIT */
/*
 * pipes.h - pipelines between exec'd images: who writes the pipe a process
 * reads its stdin from (`curl URL | sh`).
 *
 * The exec record carries the pipefs inode of the new image's stdin and
 * stdout (struct pl_ev_exec, 0: not a pipe). A shell's `a | b` forks both
 * sides and each execs, in either order; so both are remembered per pipe
 * inode for a while: the writer's executable (the last one exec'd with
 * that pipe on its stdout: `sh -c 'curl ...' | bash` ends with curl), and
 * up to PIPES_READERS readers (tgid and image). A reader exec'd after the
 * writer learns it at once (pipes__reader()); one exec'd before is handed
 * back to the caller when the writer comes (pipes__writer()), to be told.
 *
 * Bounded and cheap: PIPES_SLOTS slots direct-mapped by inode number (a
 * newer pipe takes an older one's slot), an entry forgotten after
 * PIPES_TTL_S seconds; nothing done for an exec without a pipe.
 */
#ifndef PL_PIPES_H
#define PL_PIPES_H

#include <stddef.h>
#include <stdint.h>

#define PIPES_SLOTS 1024
#define PIPES_READERS 4
#define PIPES_TTL_S 60

struct pipe_reader {
	uint32_t tgid;
	uint64_t image_id;
};

struct pipes;

int pipes__new(struct pipes **ret);
void pipes__free(struct pipes *p);

/* exe (an image's path; NULL: nothing) was exec'd with pipe ino on its
 * stdout, at now_ns. The readers exec'd before it on that pipe, at most n,
 * into readers: their count. */
size_t pipes__writer(struct pipes *p, uint64_t ino, const char *exe, uint64_t now_ns, struct pipe_reader *readers,
		     size_t n);

/* (tgid, image_id) was exec'd with pipe ino on its stdin: the writer's
 * exe when one is known (borrowed until the next call), else NULL, and the
 * reader is remembered for a later writer. */
const char *pipes__reader(struct pipes *p, uint64_t ino, uint32_t tgid, uint64_t image_id, uint64_t now_ns);

#endif
