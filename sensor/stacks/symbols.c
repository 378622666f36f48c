// SPDX-License-Identifier: MIT
/*
 * symbols.c - frame names: the objects (a build-id or path to a file, its
 * names read by elfsyms.c once) and /proc/kallsyms.
 */
#include "stacks/symbols.h"

#include <errno.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "hash.h"
#include "identity/identity.h"
#include "stacks/elfsyms.h"
#include "stacks/interp.h"
#include "stacks/vdso.h"

#define TABLE_SIZE (SYMBOLS_MAX_OBJECTS * 2) /* open addressing, at most half full */

struct object {
	uint8_t key[SYMBOLS_BUILD_ID_SIZE];
	bool used;
	bool has_build_id;
	bool loaded; /* symbols read (or tried) */
	char *path;
	char hex[2 * SYMBOLS_BUILD_ID_SIZE + 1];
	struct elfsyms es; /* names and segments, once loaded */
};

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* "[ext4]", or NULL for the kernel itself */
};

struct symbols {
	struct object *objs; /* TABLE_SIZE slots */
	struct ksym *ksyms;
	size_t nksyms;
	char *kstrings;
	bool kloaded;
	struct symbols_stats st;
	/* Names an object was known by before a newer one: frames handed out
	 * (and cached by oncpu.c) point at them, so they live as long as the
	 * symbols do. Bounded: once full, an object keeps its name. */
	char **retired;
	uint32_t nretired;
	char *debug_root; /* NULL: SYMBOLS_DEBUG_ROOT */
};

int symbols__new(struct symbols **ret)
{
	struct symbols *sym = calloc(1, sizeof(*sym));

	if (!sym)
		return -ENOMEM;
	sym->objs = calloc(TABLE_SIZE, sizeof(*sym->objs));
	if (!sym->objs) {
		free(sym);
		return -ENOMEM;
	}
	elf_version(EV_CURRENT);
	*ret = sym;
	return 0;
}

void symbols__free(struct symbols *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < TABLE_SIZE; i++) {
		free(sym->objs[i].path);
		elfsyms__clear(&sym->objs[i].es);
	}
	for (uint32_t i = 0; i < sym->nretired; i++)
		free(sym->retired[i]);
	free(sym->retired);
	free(sym->objs);
	free(sym->ksyms);
	free(sym->kstrings);
	free(sym->debug_root);
	free(sym);
}

int symbols__set_debug_root(struct symbols *sym, const char *dir)
{
	char *d;

	if (!dir || dir[0] != '/' || strlen(dir) >= PATH_MAX / 2)
		return -EINVAL;
	d = strdup(dir);
	if (!d)
		return -ENOMEM;
	free(sym->debug_root);
	sym->debug_root = d;
	return 0;
}

static const char *debug_root(const struct symbols *sym)
{
	return sym->debug_root ? sym->debug_root : SYMBOLS_DEBUG_ROOT;
}

const char *symbols__source_name(enum symbols_source src)
{
	static const char *const names[SYMBOLS_SRC_MAX] = {
		[SYMBOLS_SRC_SYMTAB] = "symtab",	       [SYMBOLS_SRC_DEBUG_BUILD_ID] = "debug_build_id",
		[SYMBOLS_SRC_DEBUGLINK] = "debuglink",	       [SYMBOLS_SRC_MINIDEBUGINFO] = "minidebuginfo",
		[SYMBOLS_SRC_DYNSYM] = "dynsym",	       [SYMBOLS_SRC_NONE] = "none",
	};

	return (unsigned)src < SYMBOLS_SRC_MAX ? names[src] : "?";
}

const struct symbols_stats *symbols__stats(const struct symbols *sym)
{
	return &sym->st;
}

/* An object without a build-id is keyed by its path: a key no build-id
 * takes (0xff in the last bytes, which a zero-padded short id never has,
 * and a 20-byte SHA-1 id has with probability 2^-32). */
static void path_key(const char *path, uint8_t key[SYMBOLS_BUILD_ID_SIZE])
{
	uint64_t h = pl_hash_str(path), h2 = pl_fnv1a(h, path);

	memset(key, 0xff, SYMBOLS_BUILD_ID_SIZE);
	memcpy(key, &h, sizeof(h));
	memcpy(key + 8, &h2, sizeof(h2));
}

/* The slot of key: its object, or the empty slot where it would go, or NULL when full. */
static struct object *slot(struct symbols *sym, const uint8_t key[SYMBOLS_BUILD_ID_SIZE])
{
	uint64_t h = PL_FNV1A_INIT;

	for (int i = 0; i < SYMBOLS_BUILD_ID_SIZE; i++)
		h = (h ^ key[i]) * 0x100000001b3ull;
	for (size_t n = 0, i = h & (TABLE_SIZE - 1); n < TABLE_SIZE; n++, i = (i + 1) & (TABLE_SIZE - 1)) {
		struct object *o = &sym->objs[i];

		if (!o->used || !memcmp(o->key, key, SYMBOLS_BUILD_ID_SIZE))
			return o;
	}
	return NULL;
}

/* Room to keep o's current name alive once it is replaced; false when the
 * names kept are at their bound (the object then keeps its name). */
static bool retire_path(struct symbols *sym, const struct object *o)
{
	char **r;

	if (!o->path)
		return true;
	if (sym->nretired >= SYMBOLS_MAX_OBJECTS)
		return false;
	r = realloc(sym->retired, (sym->nretired + 1) * sizeof(*r));
	if (!r)
		return false;
	sym->retired = r;
	return true;
}

static struct object *remember(struct symbols *sym, const uint8_t key[SYMBOLS_BUILD_ID_SIZE], size_t idlen,
			       const char *path)
{
	struct object *o = slot(sym, key);

	if (o && o->used) {
		/* the same build-id under another name (a hard link, a copy): the
		 * newest name wins for display, the content is the same */
		if (path && (!o->path || strcmp(o->path, path)) && retire_path(sym, o)) {
			char *p = strdup(path);

			if (p) {
				if (o->path)
					sym->retired[sym->nretired++] = o->path;
				o->path = p;
				if (o->loaded && !o->es.nsyms) /* may load now */
					o->loaded = false;
			}
		}
		return o;
	}
	if (!o || sym->st.objects >= SYMBOLS_MAX_OBJECTS) {
		sym->st.objects_refused++;
		return NULL;
	}
	o->path = path ? strdup(path) : NULL;
	if (path && !o->path)
		return NULL;
	memcpy(o->key, key, SYMBOLS_BUILD_ID_SIZE);
	o->used = true;
	o->has_build_id = idlen > 0;
	for (size_t i = 0; i < idlen; i++)
		snprintf(o->hex + 2 * i, 3, "%02x", key[i]);
	sym->st.objects++;
	return o;
}

void symbols__add_mapping(struct symbols *sym, const uint8_t *build_id, size_t len, const char *path)
{
	uint8_t key[SYMBOLS_BUILD_ID_SIZE] = { 0 };

	sym->st.mappings++;
	if (!path || (path[0] != '/' && !vdso__is(path)))
		return;
	if (len > SYMBOLS_BUILD_ID_SIZE)
		len = SYMBOLS_BUILD_ID_SIZE;
	if (len)
		memcpy(key, build_id, len);
	else
		path_key(path, key);
	remember(sym, key, len, path);
}

/* ---- naming frames ---- */

static void load(struct symbols *sym, struct object *o)
{
	struct elfsyms_counts c = { 0 };

	if (o->loaded || !o->path)
		return;
	o->loaded = true;
	if (elfsyms__read(&o->es, o->path, o->has_build_id ? o->hex : NULL, debug_root(sym), &c) < 0) {
		sym->st.load_failures++;
	} else {
		sym->st.objects_loaded++;
		sym->st.named[o->es.source]++;
	}
	sym->st.minidebuginfo_failures += c.minidebuginfo_failures;
	sym->st.debuglink_mismatches += c.debuglink_mismatches;
}

static void name_in(struct symbols *sym, struct object *o, uint64_t off, struct pl_frame *ret)
{
	const struct elfsym *s;
	uint64_t in;

	*ret = (struct pl_frame){ .object = o->path ? o->path : "[unknown]", .build_id = o->has_build_id ? o->hex : NULL,
				  .offset = off };
	load(sym, o);
	s = elfsyms__at(&o->es, off, &in);
	if (s) {
		ret->function = s->name;
		ret->offset = in;
		ret->interp = interp__of(ret->object, s->name);
	}
}

void symbols__user(struct symbols *sym, const uint8_t *build_id, uint64_t off, struct pl_frame *ret)
{
	struct object *o = slot(sym, build_id);

	if (!o || !o->used) {
		/* the mapping was never reported (a lost record): the build-id alone */
		o = remember(sym, build_id, SYMBOLS_BUILD_ID_SIZE, NULL);
		if (o) {
			/* a zero-padded short id: trim the padding from the hex */
			size_t n = SYMBOLS_BUILD_ID_SIZE;

			while (n > 1 && !build_id[n - 1])
				n--;
			o->hex[2 * n] = 0;
		}
	}
	if (!o) {
		*ret = (struct pl_frame){ .object = "[unknown]", .offset = off };
		return;
	}
	name_in(sym, o, off, ret);
}

bool symbols__knows(struct symbols *sym, const uint8_t *build_id)
{
	struct object *o = slot(sym, build_id);

	return o && o->used && o->path;
}

void symbols__user_path(struct symbols *sym, const char *path, uint64_t off, struct pl_frame *ret)
{
	uint8_t key[SYMBOLS_BUILD_ID_SIZE];
	struct object *o;

	symbols__add_mapping(sym, NULL, 0, path);
	path_key(path, key);
	o = slot(sym, key);
	if (!o || !o->used) {
		*ret = (struct pl_frame){ .object = "[unknown]", .offset = off };
		return;
	}
	name_in(sym, o, off, ret);
}

/* The build-id of the file at path into bid (n bytes), 0 when none. */
static size_t file_build_id(const char *path, uint8_t bid[SYMBOLS_BUILD_ID_SIZE])
{
	int fd = elfsyms__open_regular(path);
	size_t n;

	if (fd < 0)
		return 0;
	n = identity__read_build_id_bytes(fd, bid, SYMBOLS_BUILD_ID_SIZE);
	close(fd);
	return n;
}

void symbols__scan_process(struct symbols *sym, uint32_t pid)
{
	char path[64], line[4096 + 128], last[4096] = "";
	_cleanup_fclose_ FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char perms[8], file[4096] = "";
		uint8_t bid[SYMBOLS_BUILD_ID_SIZE] = { 0 };
		size_t n;

		if (sscanf(line, "%*[0-9a-f]-%*[0-9a-f] %7s %*s %*s %*s %4095[^\n]", perms, file) < 2 || file[0] != '/' ||
		    !strchr(perms, 'x') || !strcmp(file, last))
			continue;
		snprintf(last, sizeof(last), "%s", file);
		n = file_build_id(file, bid);
		if (n)
			symbols__add_mapping(sym, bid, n, file);
	}
}

void symbols__user_ip(struct symbols *sym, uint32_t pid, uint64_t ip, struct pl_frame *ret)
{
	char path[64], line[4096 + 128];
	_cleanup_fclose_ FILE *f = NULL;

	*ret = (struct pl_frame){ .object = "[unknown]" };
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], file[4096];
		uint8_t bid[SYMBOLS_BUILD_ID_SIZE] = { 0 }, key[SYMBOLS_BUILD_ID_SIZE];
		size_t n;

		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &pgoff, file) < 4 ||
		    ip < start || ip >= end)
			continue;
		if (file[0] != '/')
			return;
		n = file_build_id(file, bid);
		symbols__add_mapping(sym, bid, n, file);
		if (n)
			memcpy(key, bid, sizeof(key));
		else
			path_key(file, key);
		struct object *o = slot(sym, key);

		if (o && o->used)
			name_in(sym, o, ip - start + pgoff, ret);
		return;
	}
}

/* ---- the kernel ---- */

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line of /proc/kallsyms, "ADDR TYPE NAME[\t[MODULE]]", parsed in
 * place (120,000 lines: sscanf would cost the start-up tenths of a
 * second). False when it is not a text symbol. */
static bool parse_ksym(char *line, uint64_t *addr, char **name, char **mod)
{
	char *p = line, *end;
	char type;

	*addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	type = end[1];
	if ((type != 't' && type != 'T' && type != 'w' && type != 'W') || end[2] != ' ')
		return false;
	*name = end + 3;
	*mod = NULL;
	for (p = *name; *p && *p != '\t' && *p != ' ' && *p != '\n'; p++)
		;
	if (*p == '\t' || *p == ' ') {
		*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			*mod = p;
			p += strcspn(p, "\n");
		}
	}
	*p = 0;
	return **name != 0;
}

static void load_kallsyms(struct symbols *sym)
{
	_cleanup_fclose_ FILE *f = NULL;
	size_t cap = 0, scap = 0, sused = 0;
	char line[512];
	bool any_addr = false;

	sym->kloaded = true;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char *name, *mod;
		size_t ln, lm;

		if (!parse_ksym(line, &addr, &name, &mod))
			continue;
		any_addr |= addr != 0;
		ln = strlen(name) + 1;
		lm = mod ? strlen(mod) + 1 : 0;
		if (sused + ln + lm > scap) {
			size_t ncap = scap ? scap * 2 : 1 << 20;
			char *ns = realloc(sym->kstrings, ncap);

			if (!ns)
				break;
			/* rebase the names already taken */
			for (size_t i = 0; i < sym->nksyms; i++) {
				sym->ksyms[i].name = ns + (sym->ksyms[i].name - sym->kstrings);
				if (sym->ksyms[i].module)
					sym->ksyms[i].module = ns + (sym->ksyms[i].module - sym->kstrings);
			}
			sym->kstrings = ns;
			scap = ncap;
		}
		if (sym->nksyms == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			struct ksym *nk = realloc(sym->ksyms, ncap * sizeof(*nk));

			if (!nk)
				break;
			sym->ksyms = nk;
			cap = ncap;
		}
		memcpy(sym->kstrings + sused, name, ln);
		sym->ksyms[sym->nksyms] = (struct ksym){ .addr = addr, .name = sym->kstrings + sused };
		sused += ln;
		if (lm) {
			memcpy(sym->kstrings + sused, mod, lm);
			sym->ksyms[sym->nksyms].module = sym->kstrings + sused;
			sused += lm;
		}
		sym->nksyms++;
	}
	if (!any_addr) /* kptr_restrict: names without addresses are no use */
		sym->nksyms = 0;
	qsort(sym->ksyms, sym->nksyms, sizeof(*sym->ksyms), cmp_ksym);
	sym->st.kernel_symbols = sym->nksyms;
}

void symbols__load_kernel(struct symbols *sym)
{
	if (!sym->kloaded)
		load_kallsyms(sym);
}

void symbols__kernel(struct symbols *sym, uint64_t addr, struct pl_frame *ret)
{
	size_t lo = 0, hi;

	*ret = (struct pl_frame){ .object = "[kernel]", .kernel = true };
	if (!sym->kloaded)
		load_kallsyms(sym);
	hi = sym->nksyms;
	if (!hi || addr < sym->ksyms[0].addr)
		return;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (sym->ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	ret->function = sym->ksyms[lo].name;
	ret->offset = addr - sym->ksyms[lo].addr;
	if (sym->ksyms[lo].module)
		ret->object = sym->ksyms[lo].module;
}
