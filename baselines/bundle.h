/* SPDX-License-Identifier: MIT */
/*
 * bundle.h - many baselines in one file, to move them between hosts
 * (`baseline export`, `import`, `merge`):
 *
 *   {"format":"plumbline-baselines","version":1,"baselines":[...]}
 *
 * where each member is a baseline in its file format (without "format").
 *
 * A bundle comes from another host, so it is bounded before anything in it
 * is parsed: the file's size, the number of baselines and each one's size.
 * Its outer structure is then scanned without building anything, and the
 * baselines are parsed one at a time: json-c's tree of a whole bundle would
 * cost 15 to 20 times the text, while this costs the text plus the
 * baselines themselves.
 */
#ifndef PL_BUNDLE_H
#define PL_BUNDLE_H

#include <stddef.h>

#include "baseline.h"

/*
 * The largest bundle read or written: a full store (BL_STORE_MAX, 65536
 * baselines) of baselines averaging 8 KiB. Baseline files measured on a
 * real host average 6.7 KB (p90 8.5 KB, largest 74 KB), so a full store of
 * them is about 440 MB. docs/baselines.md has the measurements.
 */
#define BL_BUNDLE_MAX (512u << 20)

/*
 * Write the n baselines (not consumed) as one bundle at path, atomically,
 * mode 0600. The baselines are serialized one at a time. 0, -EFBIG when the
 * bundle would be larger than BL_BUNDLE_MAX (nothing is written: no
 * plumbline could read it), -ENOMEM, or the -errno of the write.
 */
int bl_bundle__write(const char *path, struct baseline *const *bs, size_t n);

/*
 * Read and validate the bundle at path: a regular file (a symlink to one is
 * followed; a FIFO or device is refused, never waited on) of at most
 * BL_BUNDLE_MAX bytes, holding at most BL_STORE_MAX baselines of at most
 * BL_FILE_MAX bytes each, every one valid. Returns 0 with *ret, an array of
 * *n baselines (free each, and the array); or -EFBIG, -EINVAL, -ENOMEM or
 * the -errno of the read, with err saying what and where (the byte offset,
 * or "baseline #i: ..."), and *ret and *n untouched.
 */
int bl_bundle__read(const char *path, struct baseline ***ret, size_t *n, char *err, size_t errlen);

#endif
