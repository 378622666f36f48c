/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - names for the frames of on-CPU stacks.
 *
 * User frames come from the kernel as build-id + file offset. The kernel
 * also reports, for every executable mapping any process makes, the
 * mapped file's build-id and path (PERF_RECORD_MMAP2): that registry maps a
 * build-id to a file on disk, so a frame of a process long gone is still
 * named. Names come from the file's own symbol table (.symtab, else the
 * one in /usr/lib/debug/.build-id/ when a debug file is installed, else
 * .dynsym: Debian's shared libraries carry only the exported names), read
 * with elfutils' libelf once per object and only after the file's build-id
 * has been checked against the frame's. A frame without a name is
 * object+offset. Kernel frames are named from /proc/kallsyms; a kernel
 * address is never printed.
 *
 * The files are untrusted (any user can run code from a file of their own
 * making): only regular files of at most SYMBOLS_MAX_FILE bytes are
 * opened, without blocking, and only after the bounded build-id reader
 * (identity_elf.c) has matched the frame's build-id; libelf then reads at
 * most 65536 section headers and 2^20 symbols of one table.
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
#define SYMBOLS_BUILD_ID_SIZE 20
#define SYMBOLS_MAX_FILE (1ll << 30) /* larger files are not read for symbols */ /* BPF_BUILD_ID_SIZE: shorter ids are zero-padded */

struct symbols_stats {
	uint64_t mappings;       /* mappings reported */
	uint64_t objects;        /* distinct objects remembered */
	uint64_t objects_refused; /* new objects beyond the bound */
	uint64_t objects_loaded; /* objects whose symbols were read */
	uint64_t load_failures;  /* ... that could not be read, or whose build-id differed */
	uint64_t kernel_symbols; /* entries read from /proc/kallsyms */
};

struct symbols;

/* 0 or -ENOMEM. */
int symbols__new(struct symbols **ret);
void symbols__free(struct symbols *sym);

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
