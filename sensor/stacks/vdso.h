/* SPDX-License-Identifier: MIT */
/*
 * vdso.h - the kernel's vDSO as an object the unwinder and the symbols can
 * read: no file holds it, but every process on this kernel maps the same
 * image, so the sensor's own copy (AT_SYSINFO_EHDR) stands for theirs.
 *
 * A sample in clock_gettime()'s vDSO code, or a system call made from it
 * (a CPU-time clock falls back to the syscall inside the vDSO), would
 * otherwise end its stack at a pc no file maps. 64-bit processes only: a
 * 32-bit process maps another image (its frames are not walked anyway).
 */
#ifndef PL_VDSO_H
#define PL_VDSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VDSO_PATH "[vdso]" /* how /proc/PID/maps and the mapping reports name it */
#define VDSO_MAX_SIZE (1u << 20)

struct vdso {
	const void *image; /* the sensor's own mapping: never written, never freed */
	size_t size;
	uint8_t build_id[20];
	size_t build_id_len; /* 0 when the image has none */
};

/* The vDSO of this process, found once; NULL when there is none (or it
 * does not read as an ELF image of at most VDSO_MAX_SIZE bytes). */
const struct vdso *vdso__get(void);

/* libelf's handle on a copy of the image, NULL when there is none or
 * memory is short; *image: the copy, the caller's to free after elf_end(). */
typedef struct Elf Elf;
Elf *vdso__elf(void **image);

/* Whether path names the vDSO. */
static inline bool vdso__is(const char *path)
{
	return path && path[0] == '[' && !__builtin_strcmp(path, VDSO_PATH);
}

#endif
