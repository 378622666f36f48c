// SPDX-License-Identifier: MIT
/*
 * test_identity.c - build-ids, kernel dev_t, exe resolution, the hash
 * worker's queue, cgroup paths.
 *
 * This executable is linked with a fixed build-id (TEST_BUILD_ID, see
 * CMakeLists.txt), so the reader is checked against a known value.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <elf.h>

#include <json-c/json.h>

#include "identity/identity.h"
#include "sample.h"
#include "sample_json.h"
#include "sha256fd.h"
#include "unit_helpers.h"

struct fixture {
	struct identity *id;
	char tmpdir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->tmpdir, sizeof(f->tmpdir), "/tmp/pl-unit-identity-XXXXXX");
	if (!mkdtemp(f->tmpdir) || identity__new("", &f->id) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	identity__free(f->id);
	ut_rm_rf(f->tmpdir);
	free(f);
	return 0;
}

static uint32_t kernel_dev(dev_t d)
{
	return (uint32_t)(major(d) << 20 | minor(d));
}

static int write_tmp(struct fixture *f, const char *name, const void *data, size_t len)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->tmpdir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void test_identity_read_build_id_of_own_binary(void **state)
{
	char buf[129];
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), 0);
	assert_string_equal(buf, TEST_BUILD_ID);
	close(fd);
}

static void test_identity_read_build_id_needs_room_for_hex_and_nul(void **state)
{
	char buf[129];
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	/* 20 bytes -> 40 hex digits + NUL */
	assert_int_equal(identity__read_build_id(fd, buf, 40), -EINVAL);
	assert_int_equal(identity__read_build_id(fd, buf, 41), 0);
	assert_string_equal(buf, TEST_BUILD_ID);
	close(fd);
}

static void test_identity_read_build_id_of_non_elf_is_einval(void **state)
{
	struct fixture *f = *state;
	char buf[129];
	int fd = write_tmp(f, "text", "#!/bin/sh\necho hello\n", 21);

	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), -EINVAL);
	close(fd);
	fd = write_tmp(f, "empty", "", 0);
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), -EINVAL);
	close(fd);
}

static void test_identity_read_build_id_of_elf_without_note_is_enoent(void **state)
{
	struct fixture *f = *state;
	Elf64_Ehdr eh = { 0 };
	char buf[129];
	int fd;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	/* no sections at all */
	fd = write_tmp(f, "bare.o", &eh, sizeof(eh));
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), -ENOENT);
	close(fd);
}

static void test_identity_dev_from_kernel_splits_major_minor(void **state)
{
	assert_true(identity__dev_from_kernel(8u << 20 | 1) == makedev(8, 1));
	assert_true(identity__dev_from_kernel(0) == makedev(0, 0));
	assert_true(identity__dev_from_kernel(259u << 20 | 0xfffff) == makedev(259, 0xfffff));
	assert_int_equal(major(identity__dev_from_kernel(253u << 20 | 3)), 253);
	assert_int_equal(minor(identity__dev_from_kernel(253u << 20 | 3)), 3);
	assert_int_equal(minor(identity__dev_from_kernel(0 << 20 | 300)), 300);
}

static void test_identity_resolve_exe_of_self(void **state)
{
	struct fixture *f = *state;
	char want[PATH_MAX];
	struct exe_info e;
	struct stat st;

	assert_non_null(realpath(TEST_BINARY, want));
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	identity__resolve_exe(f->id, getpid(), &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino }, NULL, &e);
	assert_non_null(e.path);
	assert_string_equal(e.path, want);
	assert_non_null(e.build_id);
	assert_string_equal(e.build_id, TEST_BUILD_ID);
	exe_info__clear(&e);
	assert_null(e.path);
	assert_null(e.build_id);

	/* second time: from the build-id cache, same answer */
	identity__resolve_exe(f->id, getpid(), &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino }, NULL, &e);
	assert_string_equal(e.build_id, TEST_BUILD_ID);
	assert_string_equal(e.binary_id, "build-id:" TEST_BUILD_ID);
	exe_info__clear(&e);
}

/* The stamp the kernel gives (struct pl_ident) for the file of st. */
static struct exe_stamp stamp_of(const struct stat *st)
{
	return (struct exe_stamp){
		.kdev = kernel_dev(st->st_dev),
		.ino = st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec,
		.ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000ull + (uint64_t)st->st_ctim.tv_nsec,
	};
}

/* Seen once, a binary is known by the kernel's stamp alone: no file is
 * opened (a pid that doesn't exist still gets the canonical path), and a
 * stamp that differs (the file rewritten) is not taken for it. */
static void test_identity_known_stamp_needs_no_syscall(void **state)
{
	struct fixture *f = *state;
	struct exe_stamp k;
	char want[PATH_MAX];
	struct exe_info e;
	struct stat st;

	assert_non_null(realpath(TEST_BINARY, want));
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	k = stamp_of(&st);
	identity__resolve_exe(f->id, getpid(), &k, NULL, &e);
	assert_string_equal(e.path, want);
	exe_info__clear(&e);
	assert_int_equal(identity__stats(f->id)->cache_hits, 0);

	identity__resolve_exe(f->id, 0x7fffff00, &k, "/some/other/name", &e);
	assert_string_equal(e.path, want);
	assert_string_equal(e.build_id, TEST_BUILD_ID);
	assert_string_equal(e.binary_id, "build-id:" TEST_BUILD_ID);
	exe_info__clear(&e);
	assert_int_equal(identity__stats(f->id)->cache_hits, 1);

	/* another stamp (the file rewritten in place): not the cached binary,
	 * but its name is still the verified name of that inode, never the
	 * unverified spelling given to execve */
	k.mtime_ns++;
	identity__resolve_exe(f->id, 0x7fffff00, &k, "/some/other/name", &e);
	assert_string_equal(e.path, want);
	exe_info__clear(&e);
	assert_int_equal(identity__stats(f->id)->cache_hits, 1);
}

static void test_identity_resolve_exe_other_inode_falls_back_to_filename(void **state)
{
	struct fixture *f = *state;
	struct exe_info e;
	struct stat st;

	assert_int_equal(stat("/proc/self/exe", &st), 0);
	/* (dev, ino) don't match: /proc/self/exe is somebody else's now */
	identity__resolve_exe(f->id, getpid(), &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino + 1 }, "/nonexistent/bin/tool", &e);
	assert_string_equal(e.path, "/nonexistent/bin/tool");
	assert_null(e.build_id);
	exe_info__clear(&e);

	/* the filename exists but is not the (dev, ino) the kernel saw: no build-id */
	identity__resolve_exe(f->id, getpid(), &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino + 1 }, TEST_BINARY, &e);
	assert_string_equal(e.path, TEST_BINARY);
	assert_null(e.build_id);
	exe_info__clear(&e);

	/* nothing known at all: the kernel's identity of the file is the binary id */
	identity__resolve_exe(f->id, getpid(), &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino + 1 }, NULL, &e);
	assert_null(e.path);
	assert_null(e.build_id);
	{
		char want[96];

		snprintf(want, sizeof(want), "file:%u:%u:%llu", major(st.st_dev), minor(st.st_dev),
			 (unsigned long long)st.st_ino + 1);
		assert_string_equal(e.binary_id, want);
	}
	exe_info__clear(&e);
}

static void test_identity_resolve_exe_gone_process_uses_filename_and_its_build_id(void **state)
{
	struct fixture *f = *state;
	struct exe_info e;
	struct stat st;

	assert_int_equal(stat(TEST_BINARY, &st), 0);
	/* pid_max is at most 4194304: this pid cannot exist */
	identity__resolve_exe(f->id, 0x7fffff00, &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino }, TEST_BINARY, &e);
	assert_string_equal(e.path, TEST_BINARY);
	assert_non_null(e.build_id);
	assert_string_equal(e.build_id, TEST_BUILD_ID);
	assert_string_equal(e.binary_id, "build-id:" TEST_BUILD_ID);
	exe_info__clear(&e);
}

/* ---- one canonical name per file, however it was exec'd ---- */

static void test_identity_canonical_path_resolves_symlinks_and_relative_names(void **state)
{
	struct fixture *f = *state;
	char real[PATH_MAX], link[PATH_MAX], buf[PATH_MAX], other[PATH_MAX];
	struct stat st;
	int fd;

	assert_non_null(realpath(TEST_BINARY, real));
	assert_int_equal(stat(real, &st), 0);
	snprintf(link, sizeof(link), "%s/cc-link", f->tmpdir);
	assert_int_equal(symlink(TEST_BINARY, link), 0);

	/* through a symlink: the file's own name, as /proc/PID/exe reads it */
	assert_int_equal(identity__canonical_path(link, NULL, st.st_dev, st.st_ino, buf, sizeof(buf)), 0);
	assert_string_equal(buf, real);
	/* a relative name is taken under cwd */
	assert_int_equal(identity__canonical_path("./cc-link", f->tmpdir, st.st_dev, st.st_ino, buf, sizeof(buf)), 0);
	assert_string_equal(buf, real);
	assert_int_equal(identity__canonical_path("cc-link", f->tmpdir, st.st_dev, st.st_ino, buf, sizeof(buf)), 0);
	assert_string_equal(buf, real);
	/* ... and fails without one */
	snprintf(buf, sizeof(buf), "%s", "untouched");
	assert_int_equal(identity__canonical_path("cc-link", NULL, st.st_dev, st.st_ino, buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "untouched");
	/* a name that now leads to another file is not the file's name */
	fd = write_tmp(f, "other", "x", 1);
	close(fd);
	snprintf(other, sizeof(other), "%s/other", f->tmpdir);
	assert_int_equal(identity__canonical_path(other, NULL, st.st_dev, st.st_ino, buf, sizeof(buf)), -ESTALE);
	assert_string_equal(buf, "untouched");
	assert_int_equal(identity__canonical_path("/nonexistent/x", NULL, st.st_dev, st.st_ino, buf, sizeof(buf)),
			 -ENOENT);
	/* no room */
	assert_int_equal(identity__canonical_path(link, NULL, st.st_dev, st.st_ino, buf, 4), -ENAMETOOLONG);
}

static void test_identity_gone_process_is_named_by_canonical_path_not_its_spelling(void **state)
{
	struct fixture *f = *state;
	char real[PATH_MAX], link[PATH_MAX];
	struct exe_info e;
	struct stat st;

	assert_non_null(realpath(TEST_BINARY, real));
	assert_int_equal(stat(real, &st), 0);
	snprintf(link, sizeof(link), "%s/gcc", f->tmpdir);
	assert_int_equal(symlink(real, link), 0);

	/* pid_max is at most 4194304: these pids cannot exist. A relative
	 * name against the cwd the exec record carries (nothing is left in
	 * /proc, and no name is known yet) */
	identity__resolve_exe(f->id, 0x7fffff00,
			      &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino, .cwd = f->tmpdir },
			      "./gcc", &e);
	assert_string_equal(e.path, real);
	exe_info__clear(&e);
	identity__resolve_exe(f->id, 0x7fffff00, &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino }, link, &e);
	assert_string_equal(e.path, real);
	assert_string_equal(e.binary_id, "build-id:" TEST_BUILD_ID);
	exe_info__clear(&e);

	/* a relative spelling that cannot be resolved now (no /proc/PID/cwd):
	 * the name verified before, never the raw spelling */
	identity__resolve_exe(f->id, 0x7fffff01, &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino }, "gcc", &e);
	assert_string_equal(e.path, real);
	exe_info__clear(&e);

	/* the same with a full stamp: the cache's name is the same one */
	identity__resolve_exe(f->id, 0x7fffff02,
			      &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino,
						   .size = (uint64_t)st.st_size,
						   .mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec,
						   .ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000ull + (uint64_t)st.st_ctim.tv_nsec },
			      "gcc", &e);
	assert_string_equal(e.path, real);
	exe_info__clear(&e);
}

/* ---- build-ids from hand-made ELF files: layouts and bounds ---- */

static const unsigned char test_id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
#define TEST_ID_HEX "deadbeef0102030405060708090a0b0c0d0e0f10"

/* A GNU build-id note (name "GNU", desc test_id) at p, aligned to 4. Returns its length. */
static size_t put_note(unsigned char *p, bool big_endian)
{
	uint32_t h[3] = { 4, sizeof(test_id), NT_GNU_BUILD_ID };

	for (int i = 0; i < 3; i++)
		h[i] = big_endian ? __builtin_bswap32(h[i]) : h[i];
	memcpy(p, h, sizeof(h));
	memcpy(p + 12, "GNU", 4);
	memcpy(p + 16, test_id, sizeof(test_id));
	return 16 + sizeof(test_id);
}

static Elf64_Ehdr ehdr64(void)
{
	Elf64_Ehdr eh = { 0 };

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	return eh;
}

/* Program headers only (no section table): the note is found in PT_NOTE. */
static void test_identity_read_build_id_from_a_note_segment(void **state)
{
	struct fixture *f = *state;
	unsigned char file[512] = { 0 };
	Elf64_Ehdr eh = ehdr64();
	Elf64_Phdr ph[2] = { { .p_type = PT_LOAD }, { .p_type = PT_NOTE, .p_align = 4 } };
	size_t notes = sizeof(eh) + sizeof(ph);
	char buf[129];
	int fd;

	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	ph[1].p_offset = notes;
	ph[1].p_filesz = put_note(file + notes, false);
	memcpy(file, &eh, sizeof(eh));
	memcpy(file + sizeof(eh), ph, sizeof(ph));
	fd = write_tmp(f, "phdrs-only", file, sizeof(file));
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), 0);
	assert_string_equal(buf, TEST_ID_HEX);
	close(fd);
}

/* Section headers only (a relocatable object): the note is found in SHT_NOTE. */
static void test_identity_read_build_id_from_a_note_section(void **state)
{
	struct fixture *f = *state;
	unsigned char file[512] = { 0 };
	Elf64_Ehdr eh = ehdr64();
	Elf64_Shdr sh[2] = { { .sh_type = SHT_NULL }, { .sh_type = SHT_NOTE, .sh_addralign = 4 } };
	size_t notes = sizeof(eh) + sizeof(sh);
	char buf[129];
	int fd;

	eh.e_type = ET_REL;
	eh.e_shoff = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 2;
	sh[1].sh_offset = notes;
	sh[1].sh_size = put_note(file + notes, false);
	memcpy(file, &eh, sizeof(eh));
	memcpy(file + sizeof(eh), sh, sizeof(sh));
	fd = write_tmp(f, "shdrs-only.o", file, sizeof(file));
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), 0);
	assert_string_equal(buf, TEST_ID_HEX);
	close(fd);
}

static uint16_t be16(uint16_t v)
{
	return __builtin_bswap16(v);
}

static uint32_t be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

/* A 32-bit big-endian ELF (qemu-user runs such binaries through binfmt_misc). */
static void test_identity_read_build_id_of_a_big_endian_elf32(void **state)
{
	struct fixture *f = *state;
	unsigned char file[256] = { 0 };
	Elf32_Ehdr eh = { 0 };
	Elf32_Phdr ph = { 0 };
	size_t notes = sizeof(eh) + sizeof(ph);
	char buf[129];
	int fd;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = be16(ET_EXEC);
	eh.e_machine = be16(EM_MIPS);
	eh.e_phoff = be32(sizeof(eh));
	eh.e_phentsize = be16(sizeof(ph));
	eh.e_phnum = be16(1);
	ph.p_type = be32(PT_NOTE);
	ph.p_offset = be32(notes);
	ph.p_filesz = be32(put_note(file + notes, true));
	ph.p_align = be32(4);
	memcpy(file, &eh, sizeof(eh));
	memcpy(file + sizeof(eh), &ph, sizeof(ph));
	fd = write_tmp(f, "mips32", file, sizeof(file));
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), 0);
	assert_string_equal(buf, TEST_ID_HEX);
	close(fd);
}

/* Bytes this process has read with read(2) and pread(2) so far, or -1. */
static long long rchar(void)
{
	char *io = ut_read_file("/proc/self/io", NULL), *p;
	long long v = -1;

	if (io && (p = strstr(io, "rchar: ")))
		v = strtoll(p + 7, NULL, 10);
	free(io);
	return v;
}

/* Page faults so far: what reading a file through mmap costs. */
static long long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/*
 * A hostile ELF the size of a large binary: a PT_NOTE segment of 400 MB, a
 * program header table past the kernel's bound, 65535 section headers, a
 * note section of 400 MB and notes whose sizes overrun their area. libelf
 * (the reader before) sized its tables by the header and paged in the whole
 * note section: 1.2 s and 420 MB of RSS here, on the event loop. The reader
 * must read a bounded few hundred KiB, through read(2), and find nothing.
 */
static void test_identity_read_build_id_reads_little_of_a_hostile_elf(void **state)
{
	struct fixture *f = *state;
	const off_t big = 1ll << 30;
	unsigned char small[4096] = { 0 };
	Elf64_Ehdr eh = ehdr64();
	Elf64_Phdr ph[4] = { { 0 } };
	Elf64_Shdr sh = { .sh_type = SHT_NOTE, .sh_offset = 4096, .sh_size = 400 << 20, .sh_addralign = 4 };
	uint32_t overrun[3] = { 4, 0xfffffff0u, NT_GNU_BUILD_ID };
	long long before, after, flt;
	char buf[129];
	int fd;

	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 4;
	eh.e_shoff = 8192;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 65535;
	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 4096, .p_filesz = 400 << 20, .p_align = 4 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 2048, .p_filesz = 1024, .p_align = 4 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = big - 100, .p_filesz = 1000, .p_align = 4 };
	ph[3] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 3000, .p_filesz = 12, .p_align = 8 };
	memcpy(small, &eh, sizeof(eh));
	memcpy(small + sizeof(eh), ph, sizeof(ph));
	memcpy(small + 2048, overrun, sizeof(overrun));
	fd = write_tmp(f, "hostile", small, sizeof(small));
	assert_int_equal(pwrite(fd, &sh, sizeof(sh), 8192 + 5 * sizeof(sh)), (ssize_t)sizeof(sh));
	assert_int_equal(ftruncate(fd, big), 0); /* sparse */

	before = rchar();
	flt = faults();
	assert_int_equal(identity__read_build_id(fd, buf, sizeof(buf)), -ENOENT);
	flt = faults() - flt;
	after = rchar();
	if (flt > 256)
		fail_msg("%lld page faults reading a hostile ELF's notes: it was mapped and paged in", flt);
	if (before < 0 || after < 0)
		print_message("no /proc/self/io: read volume not checked\n");
	else if (after - before > (512 << 10) + 4096)
		fail_msg("read %lld bytes of a hostile ELF (at most 512 KiB)", after - before);
	close(fd);
}

/* ---- hashing off the caller's thread ---- */

/* Wait for fd to poll readable, at most timeout_ms. */
static bool wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1;
}

struct done_file {
	uint32_t kdev;
	uint64_t ino;
	char id[80];
};

struct done_list {
	struct done_file files[IDENTITY_HASH_QUEUE + 1];
	int n;
};

static void collect(void *ctx, uint32_t kdev, uint64_t ino, const char *binary_id)
{
	struct done_list *l = ctx;

	assert_true(l->n < (int)(sizeof(l->files) / sizeof(l->files[0])));
	l->files[l->n].kdev = kdev;
	l->files[l->n].ino = ino;
	snprintf(l->files[l->n].id, sizeof(l->files[l->n].id), "%s", binary_id);
	l->n++;
}

/* Collect completions until `want` files have been reported (10 s at most). */
static void collect_until(struct identity *id, struct done_list *l, int want)
{
	for (int i = 0; l->n < want && i < 1000; i++) {
		if (wait_readable(identity__epoll_fd(id), 10))
			identity__completed(id, collect, l);
	}
	assert_int_equal(l->n, want);
}

/* A small file of its own content (no ELF, so no build-id: hashed). */
static void make_plain(struct fixture *f, int i, char *path, size_t size, struct stat *st)
{
	char text[64];
	int fd;

	snprintf(path, size, "%s/plain%d", f->tmpdir, i);
	snprintf(text, sizeof(text), "not a binary, number %d\n", i);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fstat(fd, st), 0);
	close(fd);
}

static void want_sha256_id(const char *path, char *out, size_t size)
{
	char hex[65];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(sha256_fd(fd, UINT64_MAX, NULL, hex), 0);
	snprintf(out, size, "sha256:%s", hex);
	close(fd);
}

#define GONE_PID 0x7fffff00 /* beyond pid_max: the exec'd filename is what is left */

static void test_identity_hash_queue_holds_each_file_once_and_is_bounded(void **state)
{
	struct fixture *f = *state;
	enum { N = IDENTITY_HASH_QUEUE + 1 };
	static struct done_list done;
	char path[N][128], want[80];
	struct stat st[N];
	struct exe_info e;

	memset(&done, 0, sizeof(done));
	for (int i = 0; i < N; i++)
		make_plain(f, i, path[i], sizeof(path[i]), &st[i]);

	/* a queue entry per file, whatever the worker has finished: entries
	 * are held until collected */
	for (int i = 0; i < IDENTITY_HASH_QUEUE; i++) {
		identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st[i].st_dev), .ino = st[i].st_ino }, path[i], &e);
		assert_true(e.hash_pending);
		assert_null(e.binary_id);
		assert_null(e.build_id);
		assert_string_equal(e.path, path[i]);
		exe_info__clear(&e);
	}
	/* the same file again: waits for the same entry */
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st[0].st_dev), .ino = st[0].st_ino }, path[0], &e);
	assert_true(e.hash_pending);
	assert_null(e.binary_id);
	exe_info__clear(&e);
	assert_int_equal(identity__stats(f->id)->hashes_queued, IDENTITY_HASH_QUEUE);
	assert_int_equal(identity__stats(f->id)->hashes_pending, IDENTITY_HASH_QUEUE);

	/* one file more: not hashed now, and no identity (not a file: id) */
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st[N - 1].st_dev), .ino = st[N - 1].st_ino }, path[N - 1], &e);
	assert_false(e.hash_pending);
	assert_null(e.binary_id);
	assert_string_equal(e.path, path[N - 1]);
	exe_info__clear(&e);
	assert_int_equal(identity__stats(f->id)->hash_queue_full, 1);

	/* every queued file is reported once, by the kernel's (dev, ino), with its hash */
	collect_until(f->id, &done, IDENTITY_HASH_QUEUE);
	for (int i = 0; i < IDENTITY_HASH_QUEUE; i++) {
		int found = 0;

		want_sha256_id(path[i], want, sizeof(want));
		for (int j = 0; j < done.n; j++) {
			if (done.files[j].ino != st[i].st_ino)
				continue;
			found++;
			assert_int_equal(done.files[j].kdev, kernel_dev(st[i].st_dev));
			assert_string_equal(done.files[j].id, want);
		}
		assert_int_equal(found, 1);
	}
	assert_int_equal(identity__stats(f->id)->hashes_done, IDENTITY_HASH_QUEUE);
	assert_int_equal(identity__stats(f->id)->hashes_pending, 0);
	assert_int_equal(identity__stats(f->id)->hash_failures, 0);

	/* ... and cached: identified at once from now on */
	want_sha256_id(path[0], want, sizeof(want));
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st[0].st_dev), .ino = st[0].st_ino }, path[0], &e);
	assert_false(e.hash_pending);
	assert_string_equal(e.binary_id, want);
	assert_null(e.build_id);
	exe_info__clear(&e);
	assert_int_equal(identity__stats(f->id)->hashes_queued, IDENTITY_HASH_QUEUE);

	/* the file the full queue turned away is queued at its next sight */
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st[N - 1].st_dev), .ino = st[N - 1].st_ino }, path[N - 1], &e);
	assert_true(e.hash_pending);
	exe_info__clear(&e);
	done.n = 0;
	collect_until(f->id, &done, 1);
	want_sha256_id(path[N - 1], want, sizeof(want));
	assert_string_equal(done.files[0].id, want);
	assert_int_equal(identity__stats(f->id)->hashes_queued, IDENTITY_HASH_QUEUE + 1);
	assert_true(identity__stats(f->id)->hash_ns > 0);
}

/* A sparse file of size bytes, no build-id: hashing it reads every byte. */
static void make_sparse(struct fixture *f, const char *name, off_t size, char *path, size_t psize, struct stat *st)
{
	int fd;

	snprintf(path, psize, "%s/%s", f->tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "sparse", 6), 6);
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(fstat(fd, st), 0);
	close(fd);
}

/* A file rewritten after it was queued is never given the new content's
 * hash (nor the old one's): it is reported as a file: id, and not cached. */
static void test_identity_file_changed_while_queued_is_not_hashed(void **state)
{
	struct fixture *f = *state;
	static struct done_list done;
	char big[128], small[128], want[96];
	struct stat st_big, st_small;
	struct exe_info e;
	int fd;

	memset(&done, 0, sizeof(done));
	/* keeps the worker busy for a while (hundreds of ms) first */
	make_sparse(f, "big", 256 << 20, big, sizeof(big), &st_big);
	make_plain(f, 0, small, sizeof(small), &st_small);
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st_big.st_dev), .ino = st_big.st_ino }, big, &e);
	assert_true(e.hash_pending);
	exe_info__clear(&e);
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st_small.st_dev), .ino = st_small.st_ino }, small, &e);
	assert_true(e.hash_pending);
	exe_info__clear(&e);
	fd = open(small, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "changed\n", 8), 8);
	close(fd);

	collect_until(f->id, &done, 2);
	snprintf(want, sizeof(want), "file:%u:%u:%llu", major(st_small.st_dev), minor(st_small.st_dev),
		 (unsigned long long)st_small.st_ino);
	for (int i = 0; i < 2; i++)
		if (done.files[i].ino == st_small.st_ino)
			assert_string_equal(done.files[i].id, want);
	assert_int_equal(identity__stats(f->id)->hash_failures, 1);
	assert_int_equal(identity__stats(f->id)->hashes_done, 1);
	/* the file as it is now is queued afresh */
	identity__resolve_exe(f->id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st_small.st_dev), .ino = st_small.st_ino }, small, &e);
	assert_true(e.hash_pending);
	exe_info__clear(&e);
}

/* Stopping must not wait for the queue: a 500 MiB hash in progress, seven
 * more queued (seconds of work), and identity__free() returns at once. */
static void test_identity_free_with_a_hash_in_flight_returns_promptly(void **state)
{
	struct fixture *f = *state;
	struct identity *id = NULL;
	struct timespec t0, t1;
	char path[128], name[16];
	struct stat st;
	struct exe_info e;
	long long ms;
	int before;

	before = ut_count_fds();
	assert_int_equal(identity__new("", &id), 0);
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "huge%d", i);
		make_sparse(f, name, 500ll << 20, path, sizeof(path), &st);
		identity__resolve_exe(id, GONE_PID, &(struct exe_stamp){ .kdev = kernel_dev(st.st_dev), .ino = st.st_ino }, path, &e);
		assert_true(e.hash_pending);
		exe_info__clear(&e);
	}
	usleep(50000); /* the worker is into the first one */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	identity__free(id);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000ll + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	print_message("identity__free with 8 x 500 MiB queued: %lld ms\n", ms);
	if (ms > 500)
		fail_msg("identity__free took %lld ms with hashes queued (at most 500)", ms);
	/* the queued files' fds and the eventfd are closed */
	assert_int_equal(ut_count_fds(), before);
}

/* The cgroup2 mount point from /proc/self/mountinfo, or "" when none. */
static void find_cgroup2(char *out, size_t size)
{
	char *mi = ut_read_file("/proc/self/mountinfo", NULL), *line, *next;

	out[0] = '\0';
	if (!mi)
		return;
	for (line = mi; line && *line; line = next) {
		char *sep, *p = line, *mnt;
		size_t len;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		sep = strstr(line, " - ");

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		/* fields: id parent maj:min root mountpoint ... */
		for (int i = 0; i < 4 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (!p)
			continue;
		mnt = p;
		len = strcspn(mnt, " ");
		if (len + 1 > size || memchr(mnt, '\\', len)) /* skip escaped (odd) paths */
			continue;
		memcpy(out, mnt, len);
		out[len] = '\0';
		break;
	}
	free(mi);
}

static void test_identity_cgroup_path_of_root_is_slash(void **state)
{
	char root[PATH_MAX];
	struct identity *id = NULL;
	struct stat st;

	find_cgroup2(root, sizeof(root));
	if (!root[0]) {
		print_message("no cgroup2 mount in /proc/self/mountinfo: skipping\n");
		skip();
	}
	assert_int_equal(stat(root, &st), 0);
	assert_int_equal(identity__new(root, &id), 0);
	assert_non_null(identity__cgroup_path(id, st.st_ino));
	assert_string_equal(identity__cgroup_path(id, st.st_ino), "/");
	/* an id that no cgroup has */
	assert_null(identity__cgroup_path(id, UINT64_MAX));
	identity__free(id);
}

static void test_identity_cgroup_path_without_root_is_null(void **state)
{
	struct identity *id = NULL;

	assert_int_equal(identity__new("", &id), 0);
	assert_null(identity__cgroup_path(id, 1));
	identity__free(id);
	assert_int_equal(identity__new(NULL, &id), 0);
	assert_null(identity__cgroup_path(id, 1));
	identity__free(id);
	identity__free(NULL);
}

/* A directory tree stands in for the cgroup2 hierarchy: ids are inodes. */
static void test_identity_cgroup_path_of_nested_dir_and_no_fd_leak(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], w32[PATH_MAX];
	struct identity *id = NULL;
	struct stat st2, st32, st33;
	size_t off, n32 = 0;
	int before, after;

	off = (size_t)snprintf(path, sizeof(path), "%s/cg", f->tmpdir);
	assert_int_equal(mkdir(path, 0700), 0);
	/* 34 levels: deeper than the scanner's depth limit (32) */
	for (int i = 1; i <= 34; i++) {
		off += (size_t)snprintf(path + off, sizeof(path) - off, "/d%d", i);
		if (i <= 32)
			n32 += (size_t)snprintf(w32 + n32, sizeof(w32) - n32, "/d%d", i);
		assert_int_equal(mkdir(path, 0700), 0);
		if (i == 2)
			assert_int_equal(stat(path, &st2), 0);
		if (i == 32)
			assert_int_equal(stat(path, &st32), 0);
		if (i == 33)
			assert_int_equal(stat(path, &st33), 0);
	}
	snprintf(path, sizeof(path), "%s/cg", f->tmpdir);
	assert_int_equal(identity__new(path, &id), 0);

	before = ut_count_fds();
	assert_non_null(identity__cgroup_path(id, st2.st_ino)); /* first lookup scans the tree */
	after = ut_count_fds();
	assert_string_equal(identity__cgroup_path(id, st2.st_ino), "/d1/d2");
	assert_non_null(identity__cgroup_path(id, st32.st_ino));
	assert_string_equal(identity__cgroup_path(id, st32.st_ino), w32);
	assert_null(identity__cgroup_path(id, st33.st_ino)); /* beyond the depth limit */
	identity__free(id);
	/* the scan must close every directory it opened, the deepest ones too */
	assert_int_equal(after, before);
}

static void test_identity_proc_cmdline_of_self(void **state)
{
	char *s = identity__proc_cmdline(getpid(), 4096);
	size_t n;

	assert_non_null(s);
	/* ctest runs us with no arguments: the line is argv[0], no trailing space */
	n = strlen(s);
	assert_true(n >= strlen("unit_identity"));
	assert_string_equal(s + n - strlen("unit_identity"), "unit_identity");
	free(s);
	assert_null(identity__proc_cmdline(0x7fffff00, 4096));
}

/* An exe path as identity__resolve_exe gives it (the process is gone: the
 * exec'd filename) is written by sample_json escaped exactly once. */
static void test_identity_resolved_exe_is_escaped_once_in_the_record(void **state)
{
	struct identity *id = NULL;
	struct exe_info exe;
	struct pl_sample s;
	struct json_object *o, *back, *v;

	assert_int_equal(identity__new("", &id), 0);
	pl_sample__init(&s, PL_AT_EXIT);
	s.exe_dev = 0x801;
	s.exe_ino = 4242;
	/* no such pid: /proc/PID/exe can't be read, the filename is the path */
	identity__resolve_exe(id, 1073741823, &(struct exe_stamp){ .kdev = s.exe_dev, .ino = s.exe_ino },
			      "/nonexistent-plumbline/q\"uo\\te", &exe);
	assert_non_null(exe.path);
	s.exe = exe.path;
	o = sample_json__record(&s);
	assert_non_null(o);
	/* the JSON string decodes to q"uo\x5Cte: one backslash, escaped once */
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "q\\\"uo\\\\x5Cte"));
	back = json_tokener_parse(
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "exe", &v));
	assert_string_equal(json_object_get_string(v), "/nonexistent-plumbline/q\"uo\\x5Cte");
	json_object_put(back);
	json_object_put(o);
	exe_info__clear(&exe);
	identity__free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_of_own_binary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_known_stamp_needs_no_syscall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_needs_room_for_hex_and_nul, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_of_non_elf_is_einval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_of_elf_without_note_is_enoent, setup,
						teardown),
		cmocka_unit_test(test_identity_dev_from_kernel_splits_major_minor),
		cmocka_unit_test_setup_teardown(test_identity_resolve_exe_of_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_resolve_exe_other_inode_falls_back_to_filename, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_identity_resolve_exe_gone_process_uses_filename_and_its_build_id,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_canonical_path_resolves_symlinks_and_relative_names, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_identity_gone_process_is_named_by_canonical_path_not_its_spelling,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_from_a_note_segment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_from_a_note_section, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_of_a_big_endian_elf32, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_read_build_id_reads_little_of_a_hostile_elf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_hash_queue_holds_each_file_once_and_is_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_identity_file_changed_while_queued_is_not_hashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_free_with_a_hash_in_flight_returns_promptly, setup,
						teardown),
		cmocka_unit_test(test_identity_cgroup_path_of_root_is_slash),
		cmocka_unit_test(test_identity_cgroup_path_without_root_is_null),
		cmocka_unit_test_setup_teardown(test_identity_cgroup_path_of_nested_dir_and_no_fd_leak, setup,
						teardown),
		cmocka_unit_test(test_identity_proc_cmdline_of_self),
		cmocka_unit_test(test_identity_resolved_exe_is_escaped_once_in_the_record),
	};

	return cmocka_run_group_tests_name("identity", tests, NULL, NULL);
}
