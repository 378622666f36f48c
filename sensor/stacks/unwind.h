/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - user stacks unwound in user space from a copy of the sampled
 * thread's registers and the top of its stack, through each object's own
 * unwind tables (as `perf record --call-graph dwarf` does).
 *
 * The kernel copies, at sample time, the thread's user registers and up to
 * a bounded number of bytes of its user stack from the stack pointer up
 * (bpf/oncpu.bpf.c). This module walks that copy:
 *
 *  - for each frame, the object mapped at the pc (the caller's
 *    unwind_maps) gives the file; the file's call-frame information comes
 *    from elfutils' libdw: `.eh_frame` (every Debian binary and library has
 *    it), else `.debug_frame`, also from the separate debug file under
 *    /usr/lib/debug/.build-id/ when the operator installed `-dbgsym`;
 *  - where an object has no CFI for the pc, the frame-pointer chain is
 *    followed if %rbp points into the copied stack (binaries built with
 *    frame pointers);
 *  - a value the walk needs that lies outside the copy ends the stack
 *    (UNWIND_STOP_TRUNCATED), as does a pc outside every mapping.
 *
 * Objects are cached by build-id, so a frame of a process that has already
 * exited is unwound as long as its mappings are known. Files are
 * untrusted: only regular files of at most UNWIND_MAX_FILE bytes, opened
 * without blocking, whose build-id matches the mapping's (when known), are
 * read; every read of the stack copy is bounds-checked.
 */
#ifndef PL_UNWIND_H
#define PL_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNWIND_MAX_FRAMES 64
#define UNWIND_MAX_OBJECTS 4096
#define UNWIND_MAX_FILE (1ll << 30)
#define UNWIND_BUILD_ID_SIZE 20

/* x86_64 user registers in DWARF numbering (the record's layout):
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then the return address (rip). */
enum {
	UNWIND_REG_RBP = 6,
	UNWIND_REG_RSP = 7,
	UNWIND_REG_RIP = 16,
	UNWIND_NREGS = 17,
};

/* One executable mapping of the process: [start, end) maps the file from
 * file offset pgoff. build_id: UNWIND_BUILD_ID_SIZE bytes, zero-padded;
 * has_build_id false when unknown (then the path alone names the file). */
struct unwind_map {
	uint64_t start, end, pgoff;
	uint8_t build_id[UNWIND_BUILD_ID_SIZE];
	bool has_build_id;
	const char *path; /* absolute */
};

/* The process's executable mappings, sorted by start, not overlapping. */
struct unwind_maps {
	const struct unwind_map *maps;
	size_t n;
};

struct unwind_frame {
	uint64_t pc;       /* the address (for a caller: its return address) */
	int32_t map;       /* index into the maps, or -1 when no mapping holds pc */
	uint64_t file_off; /* pc as an offset into the mapped file (map >= 0) */
};

enum unwind_stop {
	UNWIND_STOP_END,       /* the outermost frame: the CFI says the return address is undefined */
	UNWIND_STOP_TRUNCATED, /* the walk needed a value beyond the stack copy */
	UNWIND_STOP_NO_MAP,    /* a pc no mapping holds */
	UNWIND_STOP_NO_CFI,    /* no CFI for the pc and no usable frame pointer */
	UNWIND_STOP_NO_FILE,   /* the object could not be read (gone, too large, build-id differs) */
	UNWIND_STOP_BAD,       /* the CFI gave something unusable (a loop, an unsupported expression) */
	UNWIND_STOP_DEPTH,     /* UNWIND_MAX_FRAMES reached */
	UNWIND_STOP_COUNT,
};

/* How the stack was walked: frames[0] is the sampled pc (the leaf);
 * by_cfi + by_fp = n - 1. */
struct unwind_result {
	uint32_t n;
	uint32_t by_cfi, by_fp;
	enum unwind_stop stop;
};

struct unwind_stats {
	uint64_t stacks;                      /* unwind__stack() calls */
	uint64_t frames;                      /* frames returned */
	uint64_t stops[UNWIND_STOP_COUNT];    /* why stacks ended */
	uint64_t objects;                     /* objects cached */
	uint64_t objects_refused;             /* new objects beyond UNWIND_MAX_OBJECTS */
	uint64_t debug_frame_objects;         /* ... whose CFI came (also) from .debug_frame */
	uint64_t rows_read;                   /* CFI rows computed by libdw */
	uint64_t rows_cached;                 /* ... and found in the cache instead */
};

struct unwind;

/* 0 or -ENOMEM. */
int unwind__new(struct unwind **ret);
void unwind__free(struct unwind *u);

/*
 * Walk one stack: regs[UNWIND_NREGS] (DWARF order above), stack: the bytes
 * copied from regs[UNWIND_REG_RSP] upwards (len may be 0). Fills
 * frames[0..max) (leaf first) and *ret; returns the number of frames.
 */
uint32_t unwind__stack(struct unwind *u, const struct unwind_maps *maps, const uint64_t *regs, const uint8_t *stack,
		       size_t len, struct unwind_frame *frames, uint32_t max, struct unwind_result *ret);

const struct unwind_stats *unwind__stats(const struct unwind *u);

const char *unwind_stop__name(enum unwind_stop s);

#endif
