/* SPDX-License-Identifier: MIT */
/*
 * fileio.h - the files and directories baselines live in: what may be read,
 * how it is replaced, and which directories may hold it.
 *
 * Baselines decide what the sensor calls normal, and the sensor runs as
 * root, so every path here is one someone else might have planted: a read
 * takes only a regular file (checked before the open and again on the fd,
 * which is opened O_NONBLOCK, so a FIFO never makes anyone wait for a
 * writer and a device is never opened), a write never opens what is
 * already there, and a directory that others could write to is refused,
 * not used. No fd outlives a call.
 */
#ifndef PL_FILEIO_H
#define PL_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#define BL_READ_NOFOLLOW 0x1u /* a symlink is refused rather than followed */


/*
 * Read all of path, a regular file of at most max bytes. Returns 0 with *ret
 * (malloc'd, NUL-terminated, the caller frees it) and *ret_len; or -EFBIG
 * when it is larger than max (nothing was read), -EINVAL when it is not a
 * regular file, -ELOOP for a symlink with BL_READ_NOFOLLOW, -ENOMEM, or the
 * -errno of open/read. On failure err says what was wrong in a few words
 * ("not a regular file (a FIFO)", "600000000 bytes, larger than the 512 MiB
 * limit"), and *ret and *ret_len are untouched.
 */
int bl_file__read(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_len, char *err,
		  size_t errlen);

/*
 * Write data to path atomically: a new temp file next to it (created
 * O_EXCL | O_NOFOLLOW, so nothing already there is opened), fsync, rename
 * over path, fsync of the directory. A crash leaves the old file or the new
 * one. 0 or -errno.
 */
int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode);

/*
 * Many files of one directory written atomically with one sync for all
 * (a flood of new baselines would otherwise cost two fsyncs each): every
 * temp file written, the filesystem synced once (syncfs), each renamed over
 * its path, the directory synced once. A crash leaves each file old or new.
 * ret_err[i] gets file i's 0 or -errno.
 */
struct atomic_file {
	const char *path;
	const char *data;
	size_t len;
};
void atomic_write_files(const struct atomic_file *f, size_t n, unsigned mode, int *ret_err);

/*
 * Whether dir may hold baselines: a directory (a symlink to one is
 * followed), owned by the effective uid or by root, and not writable by its
 * group or by others. Returns 0; -ENOTDIR; -EPERM when others could write
 * it, with err saying why and how to fix it ("writable by group or others
 * (mode 0777); fix: chmod 0700 DIR"); or the -errno of stat (err set too).
 */
int bl_dir__check(const char *dir, char *err, size_t errlen);

#endif
