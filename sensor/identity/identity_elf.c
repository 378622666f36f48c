// SPDX-License-Identifier: MIT
/*
 * identity_elf.c - the GNU build-id of an ELF file, read within bounds.
 *
 * The file is any executable a monitored user could run, so it is untrusted
 * input, read on the event loop. libelf is no fit for that: elf_begin()
 * sizes its section table by the header's e_shnum and walks every section,
 * and a note section is read whole, so a hostile 500 MB file makes it touch
 * (page in) the whole file. This reader does what the kernel's own
 * build-id parser (lib/buildid.c) does, with explicit bounds: the ELF
 * header, the program header table (at most 64 KiB, the bound binfmt_elf
 * itself puts on it), the PT_NOTE segments it names, then the section
 * header table and its SHT_NOTE sections for files whose note is in a
 * section only. Each table at most 64 KiB, each note area at most 64 KiB,
 * at most 16 areas, and at most 512 KiB read from the file in all.
 */
#include "identity/identity.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

#define ELF_TABLE_MAX  (64u << 10)  /* program or section header table */
#define ELF_NOTES_MAX  (64u << 10)  /* one PT_NOTE segment or SHT_NOTE section */
#define ELF_NOTE_AREAS 16           /* note segments and sections looked at */
#define ELF_READ_MAX   (512u << 10) /* everything read from the file */

struct elf_file {
	int fd;
	uint64_t size;   /* of the file */
	size_t left;     /* bytes it may still read (ELF_READ_MAX in all) */
	bool is64, swap; /* class, and byte order other than ours */
};

static uint32_t elf_u16(const struct elf_file *e, const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap16(v) : v;
}

static uint32_t elf_u32(const struct elf_file *e, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap32(v) : v;
}

static uint64_t elf_u64(const struct elf_file *e, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap64(v) : v;
}

/* An address-sized field: 8 bytes in ELF64, 4 in ELF32. */
static uint64_t elf_word(const struct elf_file *e, const unsigned char *p)
{
	return e->is64 ? elf_u64(e, p) : elf_u32(e, p);
}

/* len bytes at off into buf: -EINVAL outside the file, -E2BIG past the
 * reader's allowance, -EIO on a short read. */
static int elf_read(struct elf_file *e, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	if (off > e->size || len > e->size - off)
		return -EINVAL;
	if (len > e->left)
		return -E2BIG;
	e->left -= len;
	while (got < len) {
		ssize_t n = pread(e->fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	return 0;
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* The GNU build-id among the notes in buf[0, len), aligned to `align` (4, or
 * 8 for areas aligned so). 0, -ENOENT, -EINVAL when it won't fit out. */
static int find_build_id(const struct elf_file *e, const unsigned char *buf, size_t len, size_t align, char *out,
			 size_t size)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz = elf_u32(e, buf + off), descsz = elf_u32(e, buf + off + 4);
		uint32_t type = elf_u32(e, buf + off + 8);
		size_t name_off = off + 12, desc_off;

		/* len <= ELF_NOTES_MAX: the sums below cannot wrap */
		if (namesz > len || descsz > len)
			return -ENOENT;
		desc_off = align_up(name_off + namesz, align);
		if (desc_off > len || descsz > len - desc_off)
			return -ENOENT;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name_off, "GNU", 4) == 0) {
			if (descsz == 0 || (size_t)descsz * 2 + 1 > size)
				return -EINVAL;
			for (size_t i = 0; i < descsz; i++)
				snprintf(out + i * 2, 3, "%02x", buf[desc_off + i]);
			return 0;
		}
		off = align_up(desc_off + descsz, align);
		if (off > len)
			break;
	}
	return -ENOENT;
}

/* Read one note area (a segment or a section) and look for the build-id. */
static int note_area(struct elf_file *e, uint64_t off, uint64_t len, uint64_t align, char *out, size_t size)
{
	_cleanup_free_ unsigned char *buf = NULL;
	int r;

	if (len < 12 || len > ELF_NOTES_MAX)
		return -ENOENT;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	r = elf_read(e, buf, len, off);
	if (r < 0)
		return r == -E2BIG ? r : -ENOENT;
	return find_build_id(e, buf, len, align == 8 ? 8 : 4, out, size);
}

/* Offset of field f in the ELF header, program header or section header
 * (type T: Ehdr, Phdr, Shdr) of e's class. */
#define ELF_OFF(e, T, f) ((e)->is64 ? offsetof(Elf64_##T, f) : offsetof(Elf32_##T, f))

/*
 * A header table: num entries of entsize bytes at off, program headers or
 * (sec) section headers. Looks in the note area of each PT_NOTE or SHT_NOTE
 * entry, while *areas < ELF_NOTE_AREAS.
 */
static int note_table(struct elf_file *e, uint64_t off, uint32_t num, uint32_t entsize, bool sec, char *out,
		      size_t size, int *areas)
{
	size_t minsize = sec ? (e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr))
			     : (e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
	_cleanup_free_ unsigned char *tab = NULL;
	int r;

	if (num == 0 || entsize < minsize || (uint64_t)num * entsize > ELF_TABLE_MAX)
		return -ENOENT;
	tab = malloc((size_t)num * entsize);
	if (!tab)
		return -ENOMEM;
	r = elf_read(e, tab, (size_t)num * entsize, off);
	if (r < 0)
		return r == -E2BIG ? r : -ENOENT;
	for (uint32_t i = 0; i < num && *areas < ELF_NOTE_AREAS; i++) {
		const unsigned char *h = tab + (size_t)i * entsize;
		uint64_t aoff, alen, align;

		if (sec) {
			if (elf_u32(e, h + ELF_OFF(e, Shdr, sh_type)) != SHT_NOTE)
				continue;
			aoff = elf_word(e, h + ELF_OFF(e, Shdr, sh_offset));
			alen = elf_word(e, h + ELF_OFF(e, Shdr, sh_size));
			align = elf_word(e, h + ELF_OFF(e, Shdr, sh_addralign));
		} else {
			if (elf_u32(e, h + ELF_OFF(e, Phdr, p_type)) != PT_NOTE)
				continue;
			aoff = elf_word(e, h + ELF_OFF(e, Phdr, p_offset));
			alen = elf_word(e, h + ELF_OFF(e, Phdr, p_filesz));
			align = elf_word(e, h + ELF_OFF(e, Phdr, p_align));
		}
		(*areas)++;
		r = note_area(e, aoff, alen, align, out, size);
		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

int identity__read_build_id(int fd, char *buf, size_t size)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	struct elf_file e = { .fd = fd, .left = ELF_READ_MAX };
	struct stat st;
	int areas = 0, r;

	if (fstat(fd, &st) < 0)
		return -errno;
	e.size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	if (e.size < sizeof(Elf32_Ehdr) ||
	    elf_read(&e, eh, e.size < sizeof(eh) ? sizeof(Elf32_Ehdr) : sizeof(eh), 0) < 0 ||
	    memcmp(eh, ELFMAG, SELFMAG) != 0)
		return -EINVAL;
	if (eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
	if (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)
		return -EINVAL;
	e.is64 = eh[EI_CLASS] == ELFCLASS64;
	e.swap = (eh[EI_DATA] == ELFDATA2LSB) != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
	if (e.is64 && e.size < sizeof(Elf64_Ehdr))
		return -EINVAL;
	/* program headers (what the kernel loaded), then sections */
	r = note_table(&e, elf_word(&e, eh + ELF_OFF(&e, Ehdr, e_phoff)), elf_u16(&e, eh + ELF_OFF(&e, Ehdr, e_phnum)),
		       elf_u16(&e, eh + ELF_OFF(&e, Ehdr, e_phentsize)), false, buf, size, &areas);
	if (r == -ENOENT)
		r = note_table(&e, elf_word(&e, eh + ELF_OFF(&e, Ehdr, e_shoff)),
			       elf_u16(&e, eh + ELF_OFF(&e, Ehdr, e_shnum)),
			       elf_u16(&e, eh + ELF_OFF(&e, Ehdr, e_shentsize)), true, buf, size, &areas);
	/* past the bounds, or out of memory: as good as no note */
	return r == -E2BIG || r == -ENOMEM ? -ENOENT : r;
}

size_t identity__read_build_id_bytes(int fd, uint8_t *bid, size_t max)
{
	char hex[129];
	size_t n = 0;

	if (identity__read_build_id(fd, hex, sizeof(hex)) < 0)
		return 0;
	for (; n < max && hex[2 * n] && hex[2 * n + 1]; n++)
		sscanf(hex + 2 * n, "%2hhx", &bid[n]);
	return n;
}
