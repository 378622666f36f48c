/* SPDX-License-Identifier: MIT */
/*
 * elfsyms.h - the function names of one ELF object, from the best source
 * the system has for it (symbols.h gives the order), and the load
 * segments that turn a file offset into the address the names are at.
 *
 * Read with elfutils' libelf. The files are untrusted: only regular files
 * of at most SYMBOLS_MAX_FILE bytes are opened, without blocking; the
 * object itself and a debug file found by build-id only when their
 * build-id (read by the bounded reader of identity_elf.c) is the
 * object's; at most 65536 section headers, 4096 program headers and 2^20
 * symbols are looked at. One object is read at a time, on the caller's
 * thread.
 */
#ifndef PL_ELFSYMS_H
#define PL_ELFSYMS_H

#include <stdbool.h>
#include <stdint.h>

#include "stacks/symbols.h"

struct elfsym {
	uint64_t addr;
	const char *name; /* in the object's strings */
	uint32_t size;	  /* a function larger than 4 GiB reads as 4 GiB; 0: up to the next symbol */
	uint32_t rank;	  /* of its binding (global, weak, local), while aliases are sorted out */
};

struct elfsym_seg {
	uint64_t off, vaddr, filesz;
};

struct elfsyms {
	struct elfsym *syms; /* by address, one per address */
	uint32_t nsyms;
	char *strings;		 /* the names, one block */
	struct elfsym_seg *segs; /* the PT_LOAD segments */
	uint32_t nsegs;
	enum symbols_source source; /* where the names came from */
};

/* What reading found wrong in the debug data of objects (symbols_stats). */
struct elfsyms_counts {
	uint64_t minidebuginfo_failures;
	uint64_t debuglink_mismatches;
};

/*
 * Read the object at path (absolute) into *es, cleared first: its load
 * segments and its function names from the first source that has any.
 * hex is the object's build-id in lowercase hex (the file, and a debug
 * file found by build-id, must have it), NULL when the object has none.
 * Debug files are looked for under debug_root. Returns 0, with es->source
 * saying where the names came from (SYMBOLS_SRC_NONE: nowhere); -ENOENT
 * when the file cannot be opened, -EINVAL when it is not the object (not a
 * regular file, too large, another build-id, not ELF, no load segment),
 * es then holding nothing. Failures of debug data are added to *counts.
 */
int elfsyms__read(struct elfsyms *es, const char *path, const char *hex, const char *debug_root,
		  struct elfsyms_counts *counts);

/* Free what es holds and zero it. */
void elfsyms__clear(struct elfsyms *es);

/* The function of es at file offset off, into *ret_off its offset from the
 * function's start; NULL when no load segment holds off or no symbol
 * covers it. */
const struct elfsym *elfsyms__at(const struct elfsyms *es, uint64_t off, uint64_t *ret_off);

/* path opened read-only, close-on-exec and without blocking (a FIFO put in
 * its place), when it is a regular file of at most SYMBOLS_MAX_FILE bytes:
 * the fd, else -errno or -EINVAL. */
int elfsyms__open_regular(const char *path);

#endif
