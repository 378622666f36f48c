/* SPDX-License-Identifier: MIT */
/*
 * self_elf.h - ground truth about the running test process for the symbol
 * tests: where a function of this binary (or of libc) sits in its file,
 * which file it is, and a few kernel symbols straight from /proc/kallsyms.
 *
 * Each fact is computed from a source other than the one sensor/stacks/symbols.c
 * reads: the dynamic loader's program headers and /proc/self/maps for file
 * offsets, the link-time build-id (TEST_BUILD_ID) for this binary.
 */
#ifndef PL_SELF_ELF_H
#define PL_SELF_ELF_H

#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* hex (2*n digits) into bytes, zero-padding out to size. */
static inline void se_hex_to_bytes(const char *hex, uint8_t *out, size_t size)
{
	memset(out, 0, size);
	for (size_t i = 0; i < size && hex[2 * i] && hex[2 * i + 1]; i++)
		sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

struct se_find {
	uintptr_t addr;
	uint64_t off;
	bool found;
};

static inline int se_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct se_find *f = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= start && f->addr - start < ph->p_filesz) {
			f->off = f->addr - start + ph->p_offset;
			f->found = true;
			return 1;
		}
	}
	return 0;
}

/* The file offset of code address addr, from the loader's program headers. */
static inline uint64_t se_file_offset(const void *addr)
{
	struct se_find f = { .addr = (uintptr_t)addr };

	dl_iterate_phdr(se_phdr_cb, &f);
	if (!f.found) {
		fprintf(stderr, "no PT_LOAD holds %p\n", addr);
		abort();
	}
	return f.off;
}

/* The mapping of /proc/self/maps that holds addr: its file (into path) and
 * the file offset of addr. false when none does. */
static inline bool se_mapping_of(const void *addr, char *path, size_t size, uint64_t *ret_off)
{
	char line[4096 + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char file[4096] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095[^\n]", &start, &end, &pgoff, file) < 3 ||
		    (uintptr_t)addr < start || (uintptr_t)addr >= end)
			continue;
		snprintf(path, size, "%s", file);
		*ret_off = (uintptr_t)addr - start + pgoff;
		found = true;
	}
	fclose(f);
	return found;
}

/* The end of this thread's stack mapping ([stack] in /proc/self/maps), 0 when not found. */
static inline uintptr_t se_stack_end(void)
{
	char line[512];
	unsigned long long a, b;
	uintptr_t end = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &a, &b) == 2)
			end = (uintptr_t)b;
	if (f)
		fclose(f);
	return end;
}

/* The path of this test binary, as the kernel names it. */
static inline void se_exe_path(char *path, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", path, size - 1);

	if (n <= 0) {
		perror("readlink /proc/self/exe");
		abort();
	}
	path[n] = 0;
}

/* ---- /proc/kallsyms, read the way symbols.c keeps it (t, T, w, W) ---- */

struct se_ksym {
	uint64_t addr;
	char name[128];
	char type;
	bool module;
};

struct se_kallsyms {
	struct se_ksym *s;
	size_t n;
	uint64_t min_addr; /* lowest address of any text symbol */
};

static inline int se_cmp_ksym(const void *a, const void *b)
{
	const struct se_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every text symbol, by address; n 0 when the addresses are hidden. */
static inline void se_kallsyms_read(struct se_kallsyms *k)
{
	char line[512];
	size_t cap = 0;
	bool any = false;
	FILE *f = fopen("/proc/kallsyms", "re");

	*k = (struct se_kallsyms){ .min_addr = UINT64_MAX };
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[128], mod[128] = "";

		/* longer names are skipped here: they would not compare whole */
		if (sscanf(line, "%llx %c %127s %127s", &addr, &type, name, mod) < 3 || !strchr("tTwW", type))
			continue;
		if (k->n == cap) {
			cap = cap ? 2 * cap : 65536;
			k->s = realloc(k->s, cap * sizeof(*k->s));
			if (!k->s)
				abort();
		}
		k->s[k->n] = (struct se_ksym){ .addr = addr, .type = type, .module = mod[0] != 0 };
		memcpy(k->s[k->n].name, name, sizeof(name));
		k->n++;
		any |= addr != 0;
		if (addr < k->min_addr)
			k->min_addr = addr;
	}
	if (f)
		fclose(f);
	if (!any)
		k->n = 0;
	qsort(k->s, k->n, sizeof(*k->s), se_cmp_ksym);
}

/* The i-th (from 0) T symbol of the kernel itself whose address no other
 * text symbol shares and whose successor is at least 16 bytes further, so
 * its name is the only right answer for addr .. addr+15; NULL when none. */
static inline const struct se_ksym *se_kallsyms_unique(const struct se_kallsyms *k, unsigned i)
{
	for (size_t j = 1; j + 1 < k->n; j++) {
		const struct se_ksym *s = &k->s[j];

		if (s->type != 'T' || s->module || !s->addr || k->s[j - 1].addr == s->addr ||
		    k->s[j + 1].addr < s->addr + 16 || strlen(s->name) >= sizeof(s->name) - 1)
			continue;
		if (!i--)
			return s;
	}
	return NULL;
}

#endif
