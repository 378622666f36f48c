// SPDX-License-Identifier: MIT
/*
 * elfsyms.c - an object's function names from its .symtab, its debug
 * files, its MiniDebugInfo or its .dynsym (libelf).
 */
#include "stacks/elfsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileread.h"
#include "identity/identity.h"
#include "stacks/debuglink.h"
#include "stacks/minidebug.h"
#include "stacks/vdso.h"

#define MAX_SYMS     (1u << 20) /* symbol entries looked at in one object */
#define MAX_SECTIONS 65536	/* sections looked at in one object */

enum { RANK_GLOBAL, RANK_WEAK, RANK_LOCAL }; /* struct elfsym's rank */

static uint32_t rank_of(int bind)
{
	if (bind == STB_GLOBAL)
		return RANK_GLOBAL;
	return bind == STB_WEAK ? RANK_WEAK : RANK_LOCAL;
}

/* One object being read: where from, and what to count. */
struct reading {
	struct elfsyms *es;
	const char *path, *hex, *root;
	struct elfsyms_counts *counts;
};

/* Aliases at one address (getpid, __getpid, __GI___getpid): a name other
 * objects can call (global or weak) over a local one (glibc's internal
 * __GI_ aliases), then the fewest leading underscores, then global over
 * weak, then the first by byte order, so that a frame reads the same every
 * run. */
static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* A symbol's name without the version a .symtab may append to it
 * (`__libc_start_main@@GLIBC_2.34`, `memcpy@GLIBC_2.2.5`): one function reads
 * one way whichever source named it. */
static size_t name_len(const char *name)
{
	const char *at = strchr(name, '@'), *v;

	if (!at || at == name)
		return strlen(name);
	v = at + (at[1] == '@' ? 2 : 1);
	if (!*v)
		return strlen(name);
	for (const char *p = v; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= 'a' && *p <= 'z')))
			return strlen(name);
	return (size_t)(at - name);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->rank == RANK_LOCAL) != (y->rank == RANK_LOCAL))
		return x->rank == RANK_LOCAL ? 1 : -1;
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

int elfsyms__open_regular(const char *path)
{
	struct stat st;

	return file_open_regular(path, SYMBOLS_MAX_FILE, 0, &st, NULL);
}

/* The function symbols of one or two tables (.dynsym and a MiniDebugInfo
 * .symtab), gathered before they become an object's: the names still
 * point into the tables' memory. At most MAX_SYMS in all. */
struct gather {
	struct elfsym *v;
	size_t n, cap;
	bool oom;
};

/* Append the function symbols of e's first section of type `type`; how
 * many were appended, -1 when e has no such section that can be read. */
static ssize_t gather_table(struct gather *g, Elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t nscn = 0;
	ssize_t added = 0;

	while ((scn = elf_nextscn(e, scn)) && ++nscn <= MAX_SECTIONS) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = d->d_size / sh.sh_entsize; /* what libelf holds, not what the header claims */
		if (n > MAX_SYMS)
			n = MAX_SYMS;
		for (size_t i = 0; i < n && g->n < MAX_SYMS; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
			    s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (g->n == g->cap) {
				size_t ncap = g->cap ? g->cap * 2 : 1024;
				struct elfsym *nv = realloc(g->v, (ncap < MAX_SYMS ? ncap : MAX_SYMS) * sizeof(*nv));

				if (!nv) {
					g->oom = true;
					return added;
				}
				g->v = nv;
				g->cap = ncap < MAX_SYMS ? ncap : MAX_SYMS;
			}
			g->v[g->n++] =
			    (struct elfsym){.addr = s.st_value,
					    .size = s.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)s.st_size,
					    .rank = rank_of(GELF_ST_BIND(s.st_info)),
					    .name = name};
			added++;
		}
		return added;
	}
	return -1;
}

/* The gathered symbols become es's: sorted, one per address, the names
 * copied out of the tables' memory (which goes with their Elf). True when
 * es has any; g is emptied either way. */
static bool settle(struct elfsyms *es, struct gather *g)
{
	size_t k = 0, strbytes = 0;

	free(es->syms);
	free(es->strings);
	es->syms = NULL;
	es->strings = NULL;
	es->nsyms = 0;
	if (g->oom || !g->n) {
		free(g->v);
		*g = (struct gather){0};
		return false;
	}
	qsort(g->v, g->n, sizeof(*g->v), cmp_sym);
	for (size_t i = 0; i < g->n; i++) {
		if (k && g->v[k - 1].addr == g->v[i].addr) {
			/* an alias: the first name, the largest size */
			if (g->v[i].size > g->v[k - 1].size)
				g->v[k - 1].size = g->v[i].size;
			continue;
		}
		g->v[k++] = g->v[i];
		strbytes += strlen(g->v[i].name) + 1;
	}
	es->strings = malloc(strbytes);
	if (!es->strings) {
		free(g->v);
		*g = (struct gather){0};
		return false;
	}
	for (size_t i = 0, at = 0; i < k; i++) {
		size_t l = name_len(g->v[i].name);

		memcpy(es->strings + at, g->v[i].name, l);
		es->strings[at + l] = '\0';
		g->v[i].name = es->strings + at;
		at += l + 1;
	}
	es->syms = g->v;
	es->nsyms = (uint32_t)k;
	*g = (struct gather){0};
	return true;
}

/* es's symbols from e's one table of type `type`; true when it had any. */
static bool read_syms(struct elfsyms *es, Elf *e, Elf64_Word type)
{
	struct gather g = {0};

	gather_table(&g, e, type);
	return settle(es, &g);
}

static bool read_segments(struct elfsyms *es, Elf *e)
{
	size_t n;

	/* read again when the object shows up under another path: from scratch */
	free(es->segs);
	es->segs = NULL;
	es->nsegs = 0;
	if (elf_getphdrnum(e, &n) || !n || n > 4096)
		return false;
	es->segs = calloc(n, sizeof(*es->segs));
	if (!es->segs)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD)
			es->segs[es->nsegs++] = (struct elfsym_seg){ph.p_offset, ph.p_vaddr, ph.p_filesz};
	}
	return es->nsegs > 0;
}

/* The ELF open at fd (which the caller keeps), or NULL. */
static Elf *elf_of(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);

	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		e = NULL;
	}
	return e;
}

/* The file at path, when it is the object with build-id hex (any, when
 * NULL); -errno or -EINVAL otherwise. */
static Elf *open_object(const char *hex, const char *path, int *fdp)
{
	char bid[2 * SYMBOLS_BUILD_ID_SIZE + 1];
	Elf *e;
	int fd = elfsyms__open_regular(path);

	*fdp = fd;
	if (fd < 0)
		return NULL;
	if (hex && (identity__read_build_id(fd, bid, sizeof(bid)) < 0 || strcmp(bid, hex))) {
		close(fd);
		*fdp = -EINVAL;
		return NULL;
	}
	e = elf_of(fd);
	if (!e) {
		close(fd);
		*fdp = -EINVAL;
	}
	return e;
}

/* The section of e called name, of type type, or NULL. */
static Elf_Scn *find_section(Elf *e, const char *name, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, nscn = 0;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn)) && ++nscn <= MAX_SECTIONS) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The .symtab of the object's debug file in the debug root's build-id directory. */
static bool from_build_id_file(struct reading *rd)
{
	char dbg[PATH_MAX];
	bool named = false;
	int fd = -1, n;
	Elf *de;

	if (!rd->hex || strlen(rd->hex) <= 2)
		return false;
	n = snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", rd->root, rd->hex, rd->hex + 2);
	if (n < 0 || (size_t)n >= sizeof(dbg))
		return false;
	de = open_object(rd->hex, dbg, &fd);
	if (de) {
		named = read_syms(rd->es, de, SHT_SYMTAB);
		elf_end(de);
		close(fd);
	}
	return named;
}

/* The .symtab of the debug file e's .gnu_debuglink names, found with its
 * CRC; when both files have build-ids they must be the same. */
static bool from_debuglink(struct reading *rd, Elf *e)
{
	Elf_Scn *scn = find_section(e, ".gnu_debuglink", SHT_PROGBITS);
	char name[DEBUGLINK_NAME_MAX + 1], bid[2 * SYMBOLS_BUILD_ID_SIZE + 1];
	const char *ident = elf_getident(e, NULL);
	_cleanup_close_ int fd = -1;
	Elf_Data *d;
	uint32_t crc;
	bool named;
	Elf *de;

	if (!scn || !ident || !(d = elf_rawdata(scn, NULL)) ||
	    debuglink__parse(d->d_buf, d->d_size, ident[EI_DATA] == ELFDATA2MSB, name, sizeof(name), &crc) < 0)
		return false;
	fd = debuglink__open(rd->root, rd->path, name, crc, DEBUGLINK_MAX_FILE);
	if (fd == -EBADMSG)
		rd->counts->debuglink_mismatches++;
	if (fd < 0)
		return false;
	if (rd->hex && identity__read_build_id(fd, bid, sizeof(bid)) == 0 && strcmp(bid, rd->hex)) {
		rd->counts->debuglink_mismatches++;
		return false;
	}
	de = elf_of(fd);
	if (!de)
		return false;
	named = read_syms(rd->es, de, SHT_SYMTAB);
	elf_end(de);
	return named;
}

/* e's MiniDebugInfo .symtab (the local functions) with its .dynsym (the
 * exported ones): false, and no symbols, when e has no
 * .gnu_debugdata or it names no function; a section that cannot be
 * decompressed, or does not hold an ELF, is counted. */
static bool from_minidebuginfo(struct reading *rd, Elf *e)
{
	Elf_Scn *scn = find_section(e, ".gnu_debugdata", SHT_PROGBITS);
	struct gather g = {0};
	_cleanup_free_ void *buf = NULL;
	size_t len = 0;
	ssize_t mini;
	Elf_Data *d;
	Elf *me;

	if (!scn)
		return false;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || minidebug__unxz(d->d_buf, d->d_size, MINIDEBUG_MAX_OUT, &buf, &len) < 0) {
		rd->counts->minidebuginfo_failures++;
		return false;
	}
	me = elf_memory(buf, len);
	if (!me || elf_kind(me) != ELF_K_ELF) {
		if (me)
			elf_end(me);
		rd->counts->minidebuginfo_failures++;
		return false;
	}
	mini = gather_table(&g, me, SHT_SYMTAB);
	if (mini < 0)
		rd->counts->minidebuginfo_failures++; /* an ELF, but no table libelf can read (cut short) */
	if (mini > 0)
		gather_table(&g, e, SHT_DYNSYM);
	/* the names are copied out of buf before it goes */
	bool named = mini > 0 && settle(rd->es, &g);

	free(g.v);
	elf_end(me);
	return named;
}

/* Name the object from the best source there is, in this order: the file's
 * .symtab; a debug file by build-id; a debug file by .gnu_debuglink; its
 * MiniDebugInfo with .dynsym; .dynsym alone. */
static enum symbols_source name_object(struct reading *rd, Elf *e)
{
	if (read_syms(rd->es, e, SHT_SYMTAB))
		return SYMBOLS_SRC_SYMTAB;
	if (from_build_id_file(rd))
		return SYMBOLS_SRC_DEBUG_BUILD_ID;
	if (from_debuglink(rd, e))
		return SYMBOLS_SRC_DEBUGLINK;
	if (from_minidebuginfo(rd, e))
		return SYMBOLS_SRC_MINIDEBUGINFO;
	if (read_syms(rd->es, e, SHT_DYNSYM))
		return SYMBOLS_SRC_DYNSYM;
	return SYMBOLS_SRC_NONE;
}

int elfsyms__read(struct elfsyms *es, const char *path, const char *hex, const char *debug_root,
		  struct elfsyms_counts *counts)
{
	struct reading rd = {.es = es, .path = path, .hex = hex, .root = debug_root, .counts = counts};
	_cleanup_free_ void *image = NULL;
	int fd = -1;
	Elf *e;

	elfsyms__clear(es);
	/* the vDSO is no file: the sensor's own image stands for it */
	e = vdso__is(path) ? vdso__elf(&image) : open_object(hex, path, &fd);
	if (!e) /* open_object() says -EINVAL for a file that is not the object, -errno for an open that failed */
		return fd == -EINVAL ? -EINVAL : -ENOENT;
	if (!read_segments(es, e)) {
		elf_end(e);
		if (fd >= 0)
			close(fd);
		elfsyms__clear(es);
		return -EINVAL;
	}
	es->source = name_object(&rd, e);
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return 0;
}

void elfsyms__clear(struct elfsyms *es)
{
	free(es->syms);
	free(es->strings);
	free(es->segs);
	*es = (struct elfsyms){.source = SYMBOLS_SRC_NONE};
}

const struct elfsym *elfsyms__at(const struct elfsyms *es, uint64_t off, uint64_t *ret_off)
{
	uint64_t va = 0;
	bool placed = false;
	uint32_t lo = 0, hi = es->nsyms;

	for (uint32_t i = 0; i < es->nsegs; i++)
		if (off >= es->segs[i].off && off - es->segs[i].off < es->segs[i].filesz) {
			va = off - es->segs[i].off + es->segs[i].vaddr;
			placed = true;
			break;
		}
	if (!placed || !es->nsyms)
		return NULL;
	/* the last symbol at or below va */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= va)
			lo = mid;
		else
			hi = mid;
	}
	const struct elfsym *s = &es->syms[lo];

	if (s->addr > va)
		return NULL;
	/* inside its size; a symbol of size 0 holds up to the next one */
	if (s->size ? va - s->addr < s->size : (lo + 1 < es->nsyms && va < es->syms[lo + 1].addr)) {
		*ret_off = va - s->addr;
		return s;
	}
	return NULL;
}
