/* SPDX-License-Identifier: MIT */
/*
 * minidebug.h - MiniDebugInfo: the xz-compressed ELF some distributions
 * (Fedora, RHEL, CentOS Stream, openSUSE for some packages) put in a
 * stripped binary's `.gnu_debugdata` section, holding a `.symtab` of the
 * functions `.dynsym` does not name (the file's local functions).
 *
 * The section is untrusted (anyone can build a file with one), and xz is a
 * format where a few KiB can claim gigabytes: the decoder runs with a memory
 * limit (a header asking for a larger dictionary is refused before any
 * allocation), the output grows by doubling from a small start and is
 * refused once it would pass its cap (MINIDEBUG_MAX_OUT, or 32 times the
 * input), and nothing is kept from a stream that failed.
 */
#ifndef PL_MINIDEBUG_H
#define PL_MINIDEBUG_H

#include <stddef.h>
#include <stdint.h>

#define MINIDEBUG_MAX_IN   (32u << 20) /* compressed bytes: larger sections are not read */
#define MINIDEBUG_MAX_OUT  (64u << 20) /* decompressed bytes: a MiniDebugInfo ELF larger is refused */
#define MINIDEBUG_MEMLIMIT (80u << 20) /* decoder memory: enough for xz -9 (a 64 MiB dictionary) */
/* A symbol table compresses 3-5 times (Fedora's and a CentOS-built
 * libffi's measured: 3.8): a stream that unpacks to more than 32 times its
 * size is a bomb, refused once it has produced that much (at least 1 MiB
 * is always allowed), so a bomb costs milliseconds, not the 64 MiB cap. */
#define MINIDEBUG_MAX_RATIO   32
#define MINIDEBUG_RATIO_FLOOR (1u << 20)

/*
 * Decompress the xz stream in[0..len) into a new buffer: *ret (the caller
 * frees it) of *ret_len bytes, both untouched on failure. At most max_out
 * bytes (at most MINIDEBUG_MAX_OUT, and at most MINIDEBUG_MAX_RATIO times
 * len or MINIDEBUG_RATIO_FLOOR, whichever is more) are produced. Returns 0;
 * -EFBIG when the input is larger than MINIDEBUG_MAX_IN or the output
 * would pass that bound (a bomb); -E2BIG when decoding needs more memory than
 * MINIDEBUG_MEMLIMIT; -EBADMSG when the data is not xz, is corrupt or
 * truncated, or fails its check; -ENOMEM.
 */
int minidebug__unxz(const uint8_t *in, size_t len, size_t max_out, void **ret, size_t *ret_len);

#endif
