/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - names for the frames of on-CPU stacks.
 *
 * User frames come from the kernel as build-id + file offset. The kernel
 * also reports, for every executable mapping any process makes, the
 * mapped file's build-id and path (PERF_RECORD_MMAP2): that registry maps a
 * build-id to a file on disk, so a frame of a process long gone is still
 * named. Kernel frames are named from /proc/kallsyms; a kernel address is
 * never printed. A frame without a name is object+offset.
 *
 * An object's names come from the best of what the system has, read
 * (elfsyms.h) once per object and only after the file's build-id has been
 * checked against the frame's. In this order (the first that names
 * any function wins):
 *   1. the file's own .symtab;
 *   2. its debug file by build-id, DEBUG_ROOT/.build-id/xx/yyyy.debug
 *      (Debian's -dbgsym packages), when its build-id is the object's;
 *   3. its debug file by .gnu_debuglink, DEBUG_ROOT/DIR/NAME or
 *      DIR/.debug/NAME (debuglink.h), when its CRC-32 is the one the link
 *      records (and its build-id, when it has one, the object's);
 *   4. its MiniDebugInfo (.gnu_debugdata, minidebug.h: the local functions)
 *      together with its .dynsym (the exported ones);
 *   5. its .dynsym alone (Debian's shared libraries as shipped: their
 *      exported functions only).
 * How many objects were named from each is counted (named[]). Aliases at
 * one address are one name (elfsyms.c says which).
 * A named frame of an interpreter's evaluation says so (interp.h).
 *
 * The files are untrusted (any user can run code from a file of their own
 * making): only regular files of at most SYMBOLS_MAX_FILE bytes are
 * opened, without blocking, and only after the bounded build-id reader
 * (identity_elf.c) has matched the frame's build-id; libelf then reads at
 * most 65536 section headers and 2^20 symbols of an object. A MiniDebugInfo
 * section is decompressed within the bounds of minidebug.h; one that fails
 * is counted and the object named from .dynsym.
 *
 * Bounded: at most SYMBOLS_MAX_OBJECTS objects are remembered (further ones
 * are counted and left unnamed); objects are never forgotten, so every
 * string handed out stays valid until symbols__free().
 */
#ifndef PL_SYMBOLS_H
#define PL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

#define SYMBOLS_MAX_OBJECTS 8192
#define SYMBOLS_BUILD_ID_SIZE 20 /* BPF_BUILD_ID_SIZE: shorter ids are zero-padded */
#define SYMBOLS_MAX_FILE (1ll << 30) /* larger files are not read for symbols */

#define SYMBOLS_DEBUG_ROOT "/usr/lib/debug"

/* Where an object's names came from (symbols.h's order of precedence). */
enum symbols_source {
	SYMBOLS_SRC_SYMTAB,	    /* its own .symtab */
	SYMBOLS_SRC_DEBUG_BUILD_ID, /* a debug file under DEBUG_ROOT/.build-id/ */
	SYMBOLS_SRC_DEBUGLINK,	    /* the debug file its .gnu_debuglink names */
	SYMBOLS_SRC_MINIDEBUGINFO,  /* its .gnu_debugdata, with its .dynsym */
	SYMBOLS_SRC_DYNSYM,	    /* its .dynsym alone */
	SYMBOLS_SRC_NONE,	    /* none of them names a function */
	SYMBOLS_SRC_MAX,
};

struct symbols_stats {
	uint64_t mappings;       /* mappings reported */
	uint64_t objects;        /* distinct objects remembered */
	uint64_t objects_refused; /* new objects beyond the bound */
	uint64_t objects_loaded; /* objects whose symbols were read */
	uint64_t load_failures;  /* ... that could not be read, or whose build-id differed */
	uint64_t kernel_symbols; /* entries read from /proc/kallsyms */
	uint64_t named[SYMBOLS_SRC_MAX]; /* objects loaded, by where their names came from */
	/* .gnu_debugdata sections refused: not xz, corrupt, too large, no ELF or no .symtab in it */
	uint64_t minidebuginfo_failures;
	uint64_t debuglink_mismatches; /* debug files found by .gnu_debuglink with another CRC or build-id */
};

struct symbols;

/* 0 or -ENOMEM. */
int symbols__new(struct symbols **ret);
void symbols__free(struct symbols *sym);

/* Look for debug files under dir (absolute) rather than
 * SYMBOLS_DEBUG_ROOT, for objects loaded from now on. 0, -EINVAL, -ENOMEM. */
int symbols__set_debug_root(struct symbols *sym, const char *dir);

/* The name of a source in records ("symtab", "debug_build_id",
 * "debuglink", "minidebuginfo", "dynsym", "none"). */
const char *symbols__source_name(enum symbols_source src);

/* The file at path (absolute) holds the object with this build-id (len
 * bytes, at most SYMBOLS_BUILD_ID_SIZE; len 0: unknown, then the path
 * alone names the object). */
void symbols__add_mapping(struct symbols *sym, const uint8_t *build_id, size_t len, const char *path);

/* Name the user frame at file offset off of the object with this build-id
 * (SYMBOLS_BUILD_ID_SIZE bytes, zero-padded). */
void symbols__user(struct symbols *sym, const uint8_t *build_id, uint64_t off, struct pl_frame *ret);

/* Name the user frame at file offset off of the file at path, which has no
 * build-id (the path alone names the object). */
void symbols__user_path(struct symbols *sym, const char *path, uint64_t off, struct pl_frame *ret);

/* Whether a file is known for this build-id (zero-padded). */
bool symbols__knows(struct symbols *sym, const uint8_t *build_id);

/* Learn the executable files live process pid has mapped, from its maps
 * (when a mapping report was missed, or came without a build-id). */
void symbols__scan_process(struct symbols *sym, uint32_t pid);

/* Name the user frame at address ip of live process pid, from its maps. */
void symbols__user_ip(struct symbols *sym, uint32_t pid, uint64_t ip, struct pl_frame *ret);

/* Read /proc/kallsyms now (the sensor does at start-up, so the one read
 * is not on the event loop later); otherwise the first kernel frame does. */
void symbols__load_kernel(struct symbols *sym);

/* Name the kernel frame at addr. */
void symbols__kernel(struct symbols *sym, uint64_t addr, struct pl_frame *ret);

const struct symbols_stats *symbols__stats(const struct symbols *sym);

#endif
