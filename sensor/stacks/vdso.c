// SPDX-License-Identifier: MIT
/*
 * vdso.c - the sensor's own vDSO image (vdso.h).
 */
#include "stacks/vdso.h"

#include <elf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

static struct vdso vd;
static int state; /* 0 not looked at, 1 found, -1 none */

/* The image's size from its own header: the section headers come last. */
static size_t image_size(const Elf64_Ehdr *eh)
{
	uint64_t end;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (end < eh->e_shoff || end > VDSO_MAX_SIZE)
		return 0;
	return (size_t)end;
}

/* The GNU build-id note of the image's PT_NOTE segments. */
static void find_build_id(const uint8_t *img, size_t size)
{
	const Elf64_Ehdr *eh = (const void *)img;

	if (eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff + i * sizeof(Elf64_Phdr));
		size_t at, end;

		if (ph->p_type != PT_NOTE || ph->p_offset > size || ph->p_filesz > size - ph->p_offset)
			continue;
		for (at = ph->p_offset, end = ph->p_offset + ph->p_filesz; end - at >= sizeof(Elf64_Nhdr);) {
			const Elf64_Nhdr *nh = (const void *)(img + at);
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;

			if (name > end - at - sizeof(*nh) || desc > end - at - sizeof(*nh) - name)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(img + at + sizeof(*nh), "GNU", 4) && nh->n_descsz &&
			    nh->n_descsz <= sizeof(vd.build_id)) {
				memcpy(vd.build_id, img + at + sizeof(*nh) + name, nh->n_descsz);
				vd.build_id_len = nh->n_descsz;
				return;
			}
			at += sizeof(*nh) + name + desc;
		}
	}
}

const struct vdso *vdso__get(void)
{
	const void *base;

	if (state)
		return state > 0 ? &vd : NULL;
	state = -1;
	base = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!base || !(vd.size = image_size(base)))
		return NULL;
	vd.image = base;
	find_build_id(base, vd.size);
	state = 1;
	return &vd;
}

Elf *vdso__elf(void **image)
{
	const struct vdso *v = vdso__get();
	Elf *e;

	*image = NULL;
	if (!v || !(*image = malloc(v->size)))
		return NULL;
	memcpy(*image, v->image, v->size);
	elf_version(EV_CURRENT);
	e = elf_memory(*image, v->size);
	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		e = NULL;
	}
	return e;
}
