// SPDX-License-Identifier: MIT
/*
 * objects.c - what an executable object is (see objects.h).
 *
 * The ELF reader here reads only the dynamic section of a 64-bit
 * little-endian ELF (the host's: x86_64, aarch64): the ELF header, at most
 * 64 KiB of program headers, at most 64 KiB of the dynamic section and of
 * its string table. The file is anyone's, so every offset is checked
 * against the file's size and nothing else is read.
 */
#include "identity/objects.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TABLE_MAX (64u << 10)

struct objects {
	struct identity *ident;
	struct pkgindex *pkgs;
	struct obj_info slot[OBJECTS_SLOTS];
};

int objects__new(struct identity *ident, struct pkgindex *pkgs, struct objects **ret)
{
	struct objects *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->ident = ident;
	o->pkgs = pkgs;
	*ret = o;
	return 0;
}

static void info_clear(struct obj_info *oi)
{
	free(oi->path);
	free(oi->dir);
	free(oi->build_id);
	free(oi->binary_id);
	free(oi->package);
	free(oi->soname);
	for (uint32_t i = 0; i < oi->nneeded; i++)
		free(oi->needed[i]);
	memset(oi, 0, sizeof(*oi));
}

void objects__free(struct objects *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < OBJECTS_SLOTS; i++)
		info_clear(&o->slot[i]);
	free(o);
}

static bool prefix(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

const char *objects__location(const char *path)
{
	static const char *const tmp[] = { "/tmp", "/var/tmp", "/dev/shm", "/run/shm", "/var/crash" };
	static const char *const home[] = { "/home", "/root", "/run/user" };
	static const char *const sys[] = { "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
					   "/opt", "/etc", "/boot", "/snap", "/nix" };

	if (!path || path[0] != '/')
		return "other";
	for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++)
		if (prefix(path, tmp[i]))
			return "tmp";
	for (size_t i = 0; i < sizeof(home) / sizeof(home[0]); i++)
		if (prefix(path, home[i]))
			return "home";
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (prefix(path, sys[i]))
			return "system";
	return "other";
}

static int read_at(int fd, void *buf, size_t len, uint64_t off, uint64_t size)
{
	size_t got = 0;

	if (off > size || len > size - off)
		return -EINVAL;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		got += (size_t)n;
	}
	return 0;
}

/* The file offset of virtual address va (in a PT_LOAD), or UINT64_MAX. */
static uint64_t va_to_off(const Elf64_Phdr *ph, size_t n, uint64_t va)
{
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz)
			return va - ph[i].p_vaddr + ph[i].p_offset;
	return UINT64_MAX;
}

void objects__read_dynamic(int fd, struct obj_info *oi)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	Elf64_Dyn *dyn = NULL;
	char *str = NULL;
	uint64_t strtab = 0, strsz = 0, stroff, size;
	size_t nph, ndyn = 0;
	const Elf64_Phdr *dp = NULL;
	struct stat st;

	oi->elf_read = true;
	if (fstat(fd, &st) < 0 || st.st_size <= 0)
		return;
	size = (uint64_t)st.st_size;
	if (read_at(fd, &eh, sizeof(eh), 0, size) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum)
		return;
	nph = eh.e_phnum;
	if (nph * sizeof(Elf64_Phdr) > TABLE_MAX)
		return;
	ph = malloc(nph * sizeof(*ph));
	if (!ph || read_at(fd, ph, nph * sizeof(*ph), eh.e_phoff, size) < 0)
		goto out;
	for (size_t i = 0; i < nph; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dp = &ph[i];
	if (!dp || !dp->p_filesz || dp->p_filesz > TABLE_MAX)
		goto out;
	ndyn = dp->p_filesz / sizeof(Elf64_Dyn);
	dyn = malloc(ndyn * sizeof(*dyn));
	if (!dyn || read_at(fd, dyn, ndyn * sizeof(*dyn), dp->p_offset, size) < 0)
		goto out;
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
		else if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
	}
	stroff = va_to_off(ph, nph, strtab);
	if (!strsz || stroff == UINT64_MAX)
		goto out;
	if (strsz > TABLE_MAX)
		strsz = TABLE_MAX;
	if (stroff > size)
		goto out;
	if (strsz > size - stroff)
		strsz = size - stroff;
	str = malloc(strsz + 1);
	if (!str || read_at(fd, str, strsz, stroff, size) < 0)
		goto out;
	str[strsz] = '\0';
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		uint64_t at = dyn[i].d_un.d_val;

		if ((dyn[i].d_tag != DT_NEEDED && dyn[i].d_tag != DT_SONAME) || at >= strsz)
			continue;
		if (dyn[i].d_tag == DT_SONAME && !oi->soname) {
			oi->soname = strdup(str + at);
		} else if (dyn[i].d_tag == DT_NEEDED && oi->nneeded < OBJECTS_NEEDED_MAX) {
			oi->needed[oi->nneeded] = strdup(str + at);
			if (oi->needed[oi->nneeded])
				oi->nneeded++;
		}
	}
	oi->dynamic = oi->nneeded > 0;
out:
	free(ph);
	free(dyn);
	free(str);
}

static size_t slot_of(const struct obj_stamp *k)
{
	uint64_t h = k->ino * 0x9e3779b97f4a7c15ull ^ k->kdev ^ (k->mtime_ns >> 7) ^ (k->ctime_ns << 3) ^ k->size;

	return (size_t)(h ^ h >> 29) % OBJECTS_SLOTS;
}

static bool same(const struct obj_stamp *a, const struct obj_stamp *b)
{
	return a->kdev == b->kdev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

/* An fd of path, only when it is the very file k. */
static int open_verified(const char *path, const struct obj_stamp *k, struct stat *st)
{
	int fd;

	if (!path || path[0] != '/')
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || st->st_ino != k->ino || st->st_dev != identity__dev_from_kernel(k->kdev)) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct obj_info *lookup(struct objects *o, const struct obj_stamp *k, const char *path, uint64_t now)
{
	struct obj_info *oi = &o->slot[slot_of(k)];
	struct exe_stamp es = { .kdev = k->kdev, .ino = k->ino, .size = k->size, .mtime_ns = k->mtime_ns,
				.ctime_ns = k->ctime_ns };
	struct exe_info ei;
	const char *pkg = NULL;
	struct stat st;
	int fd;

	if (oi->path && same(&oi->k, k) && (!path || strcmp(oi->path, path) == 0)) {
		oi->used_ns = now;
		if (!oi->binary_id) { /* a hash that was pending may be in the cache now */
			identity__resolve_exe(o->ident, 0, &es, oi->path, &ei);
			oi->binary_id = ei.binary_id;
			ei.binary_id = NULL;
			exe_info__clear(&ei);
		}
		return oi;
	}
	info_clear(oi);
	oi->k = *k;
	oi->used_ns = now;
	oi->path = strdup(path ? path : "?");
	if (!oi->path)
		return NULL;
	oi->name = strrchr(oi->path, '/') ? strrchr(oi->path, '/') + 1 : oi->path;
	oi->dir = oi->name > oi->path + 1 ? strndup(oi->path, (size_t)(oi->name - oi->path - 1)) : strdup("/");
	oi->location = objects__location(oi->path);
	fd = open_verified(path, k, &st);
	if (fd >= 0) {
		oi->trusted_known = true;
		oi->trusted = identity__file_is_roots(oi->path, &st);
		close(fd);
	}
	identity__resolve_exe(o->ident, 0, &es, oi->path, &ei);
	oi->build_id = ei.build_id;
	oi->binary_id = ei.binary_id;
	ei.build_id = ei.binary_id = NULL;
	exe_info__clear(&ei);
	oi->packaged = pkgindex__owner(o->pkgs, oi->path, now, &pkg);
	if (pkg)
		oi->package = strdup(pkg);
	return oi;
}

const struct obj_info *objects__get(struct objects *o, const struct obj_stamp *k, const char *path, uint64_t now_ns)
{
	struct obj_info *oi = lookup(o, k, path, now_ns);

	/* the package index may have been built since */
	if (oi && oi->packaged == PKG_UNKNOWN) {
		const char *pkg = NULL;

		oi->packaged = pkgindex__owner(o->pkgs, oi->path, now_ns, &pkg);
		free(oi->package);
		oi->package = pkg ? strdup(pkg) : NULL;
	}
	return oi;
}

void objects__elf(struct objects *o, struct obj_info *oi)
{
	struct stat st;
	int fd;

	(void)o;
	if (oi->elf_read)
		return;
	oi->elf_read = true;
	fd = open_verified(oi->path, &oi->k, &st);
	if (fd < 0)
		return;
	objects__read_dynamic(fd, oi);
	close(fd);
}

bool objects__exe_needs(struct objects *o, const struct obj_stamp *exe, const char *exe_path, const char *name,
			bool *dynamic, uint64_t now_ns)
{
	struct obj_info *oi = lookup(o, exe, exe_path, now_ns);

	*dynamic = false;
	if (!oi || !name)
		return false;
	objects__elf(o, oi);
	*dynamic = oi->dynamic;
	for (uint32_t i = 0; i < oi->nneeded; i++)
		if (strcmp(oi->needed[i], name) == 0)
			return true;
	return false;
}
