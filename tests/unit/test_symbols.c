// SPDX-License-Identifier: MIT
/*
 * test_symbols.c - frame names from real ELF files on this machine: libc,
 * this test binary (linked with a known build-id, TEST_BUILD_ID), files
 * made here, and /proc/kallsyms; objects built for the test the way
 * distributions ship theirs (make_symfixtures.sh: MiniDebugInfo, debug
 * files by .gnu_debuglink and by build-id, corrupt and hostile ones); the
 * evaluation frames of Debian's python3.11, libperl and bash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "cleanup.h"
#include "identity/identity.h"
#include "self_elf.h"
#include "stacks/debuglink.h"
#include "stacks/interp.h"
#include "stacks/minidebug.h"
#include "stacks/symbols.h"

/* Named functions of this binary: non-static and kept out of line, so
 * .symtab names them at addresses of their own. */
int symtest_marker(int x);
int symtest_marker(int x)
{
	static volatile int sink;

	sink += x * 7;
	return sink;
}

static int setup(void **state)
{
	struct symbols *sym = NULL;

	assert_int_equal(symbols__new(&sym), 0);
	*state = sym;
	return 0;
}

static int teardown(void **state)
{
	symbols__free(*state);
	return 0;
}

/* libc's path, build-id and the file offset of getpid, all from
 * /proc/self/maps and libc's own note. */
struct libc_fn {
	char path[4096];
	char hex[2 * SYMBOLS_BUILD_ID_SIZE + 1];
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	size_t bid_len;
	void *addr;
	uint64_t off;
};

static void libc_getpid(struct libc_fn *l)
{
	char hex[129];
	int fd;

	l->addr = dlsym(RTLD_DEFAULT, "getpid");
	assert_non_null(l->addr);
	assert_true(se_mapping_of(l->addr, l->path, sizeof(l->path), &l->off));
	assert_int_equal(l->path[0], '/');
	fd = open(l->path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(identity__read_build_id(fd, hex, sizeof(hex)), 0);
	close(fd);
	l->bid_len = strlen(hex) / 2;
	assert_true(l->bid_len > 0 && l->bid_len <= SYMBOLS_BUILD_ID_SIZE);
	assert_true(snprintf(l->hex, sizeof(l->hex), "%s", hex) < (int)sizeof(l->hex));
	se_hex_to_bytes(hex, l->bid, sizeof(l->bid));
}

static void test_user_frame_in_libc_is_named_from_its_dynsym(void **state)
{
	struct symbols *sym = *state;
	struct libc_fn l;
	struct pl_frame f;
	Dl_info di;

	libc_getpid(&l);
	symbols__add_mapping(sym, l.bid, l.bid_len, l.path);
	assert_true(symbols__knows(sym, l.bid));
	symbols__user(sym, l.bid, l.off, &f);
	assert_string_equal(f.object, l.path);
	assert_non_null(f.build_id);
	assert_string_equal(f.build_id, l.hex);
	assert_false(f.kernel);
	assert_non_null(f.function);
	assert_int_equal(f.offset, 0);
	/* the name is one the loader resolves to exactly this address (getpid
	 * has aliases: __getpid, and __GI___getpid in libc6-dbg's .symtab),
	 * and the one dladdr gives is its alias; of the aliases, the callable
	 * one with the fewest underscores, every run */
	assert_string_equal(f.function, "getpid");
	assert_ptr_equal(dlsym(RTLD_DEFAULT, f.function), l.addr);
	assert_true(dladdr(l.addr, &di) && di.dli_sname);
	assert_ptr_equal(di.dli_saddr, l.addr);
	assert_ptr_equal(dlsym(RTLD_DEFAULT, di.dli_sname), l.addr);
	/* two bytes in: the same function, offset 2 */
	symbols__user(sym, l.bid, l.off + 2, &f);
	assert_ptr_equal(dlsym(RTLD_DEFAULT, f.function), l.addr);
	assert_int_equal(f.offset, 2);
	assert_int_equal(symbols__stats(sym)->objects, 1);
	assert_int_equal(symbols__stats(sym)->objects_loaded, 1);
	assert_int_equal(symbols__stats(sym)->load_failures, 0);
}

static void test_unknown_build_id_keeps_the_offset_and_names_nothing(void **state)
{
	struct symbols *sym = *state;
	const uint8_t bid[SYMBOLS_BUILD_ID_SIZE] = { 0xde, 0xad, 0xbe, 0xef }; /* a short id, zero-padded */
	struct pl_frame f;

	assert_false(symbols__knows(sym, bid));
	symbols__user(sym, bid, 0x1234, &f);
	assert_string_equal(f.object, "[unknown]");
	assert_null(f.function);
	assert_int_equal(f.offset, 0x1234);
	assert_non_null(f.build_id);
	assert_string_equal(f.build_id, "deadbeef");
	assert_false(f.kernel);
	/* remembered without a file: still not known */
	assert_false(symbols__knows(sym, bid));
	assert_int_equal(symbols__stats(sym)->load_failures, 0);
}

static void test_file_with_another_build_id_is_refused(void **state)
{
	struct symbols *sym = *state;
	const uint8_t fake[SYMBOLS_BUILD_ID_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	struct libc_fn l;
	struct pl_frame f;

	libc_getpid(&l);
	symbols__add_mapping(sym, fake, sizeof(fake), l.path);
	assert_true(symbols__knows(sym, fake));
	symbols__user(sym, fake, l.off, &f);
	assert_string_equal(f.object, l.path);
	assert_null(f.function);
	assert_int_equal(f.offset, l.off);
	assert_string_equal(f.build_id, "0102030405060708090a0b0c0d0e0f1011121314");
	assert_int_equal(symbols__stats(sym)->load_failures, 1);
	assert_int_equal(symbols__stats(sym)->objects_loaded, 0);
	/* tried once: a second frame does not read the file again */
	symbols__user(sym, fake, l.off, &f);
	assert_null(f.function);
	assert_int_equal(symbols__stats(sym)->load_failures, 1);
}

static void test_own_binary_is_named_from_its_symtab(void **state)
{
	struct symbols *sym = *state;
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	char exe[4096];
	uint64_t off = se_file_offset((const void *)symtest_marker);
	struct pl_frame f;

	se_exe_path(exe, sizeof(exe));
	se_hex_to_bytes(TEST_BUILD_ID, bid, sizeof(bid));
	symbols__add_mapping(sym, bid, SYMBOLS_BUILD_ID_SIZE, exe);
	symbols__user(sym, bid, off + 3, &f);
	assert_string_equal(f.object, exe);
	assert_non_null(f.function);
	assert_string_equal(f.function, "symtest_marker");
	assert_int_equal(f.offset, 3);
	assert_string_equal(f.build_id, TEST_BUILD_ID);
}

static void test_user_ip_of_a_live_process_is_named_from_its_maps(void **state)
{
	struct symbols *sym = *state;
	char exe[4096];
	struct pl_frame f;

	se_exe_path(exe, sizeof(exe));
	symbols__user_ip(sym, (uint32_t)getpid(), (uintptr_t)symtest_marker, &f);
	assert_string_equal(f.object, exe);
	assert_non_null(f.function);
	assert_string_equal(f.function, "symtest_marker");
	assert_int_equal(f.offset, 0);
	assert_non_null(f.build_id);
	assert_string_equal(f.build_id, TEST_BUILD_ID);
	symbols__user_ip(sym, (uint32_t)getpid(), (uintptr_t)symtest_marker + 5, &f);
	assert_string_equal(f.function, "symtest_marker");
	assert_int_equal(f.offset, 5);
	/* the file is now known by its build-id */
	{
		uint8_t bid[SYMBOLS_BUILD_ID_SIZE];

		se_hex_to_bytes(TEST_BUILD_ID, bid, sizeof(bid));
		assert_true(symbols__knows(sym, bid));
	}
	/* an address no file backs (the stack): unknown */
	{
		int local = 0;

		symbols__user_ip(sym, (uint32_t)getpid(), (uintptr_t)&local, &f);
		assert_string_equal(f.object, "[unknown]");
		assert_null(f.function);
	}
}

/* Read /proc/kallsyms around the module's own first read of it, into *k,
 * until both of the test's reads agree: BPF programs loaded or unloaded
 * meanwhile by anything else on the machine add and remove bpf_prog_*
 * symbols, and the module's count is only comparable with a table that held
 * still while it read. Returns the module (loaded) or NULL after 20 tries. */
static struct symbols *kernel_symbols_read_still(struct se_kallsyms *k)
{
	for (int tries = 0; tries < 20; tries++) {
		struct symbols *sym = NULL;
		struct se_kallsyms after;

		se_kallsyms_read(k);
		if (!k->n)
			return NULL;
		assert_int_equal(symbols__new(&sym), 0);
		symbols__load_kernel(sym);
		se_kallsyms_read(&after);
		free(after.s);
		if (after.n == k->n && symbols__stats(sym)->kernel_symbols == k->n)
			return sym;
		symbols__free(sym);
		free(k->s);
		usleep(50 * 1000);
	}
	fail_msg("/proc/kallsyms changed during each of 20 reads");
	return NULL;
}

static void test_kernel_frames_are_named_from_kallsyms(void **state)
{
	struct se_kallsyms k;
	const struct se_ksym *a, *b;
	struct symbols *sym;
	struct pl_frame f;

	(void)state;
	sym = kernel_symbols_read_still(&k);
	if (!sym) {
		free(k.s);
		print_message("skipped: /proc/kallsyms shows no addresses (kptr_restrict, not root)\n");
		skip();
	}
	a = se_kallsyms_unique(&k, 0);
	b = se_kallsyms_unique(&k, 100);
	assert_non_null(a);
	assert_non_null(b);
	symbols__kernel(sym, a->addr, &f);
	assert_string_equal(f.object, "[kernel]");
	assert_true(f.kernel);
	assert_null(f.build_id);
	assert_non_null(f.function);
	assert_string_equal(f.function, a->name);
	assert_int_equal(f.offset, 0);
	symbols__kernel(sym, b->addr + 9, &f);
	assert_string_equal(f.function, b->name);
	assert_int_equal(f.offset, 9);
	assert_int_equal(symbols__stats(sym)->kernel_symbols, k.n);
	/* below every symbol: no name, and no address printed */
	assert_true(k.min_addr > 0);
	symbols__kernel(sym, k.min_addr - 1, &f);
	assert_string_equal(f.object, "[kernel]");
	assert_true(f.kernel);
	assert_null(f.function);
	assert_int_equal(f.offset, 0);
	symbols__free(sym);
	free(k.s);
}

static void test_objects_beyond_the_bound_are_refused_and_counted(void **state)
{
	struct symbols *sym = *state;
	const unsigned extra = 37;
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE] = { 0 };
	struct pl_frame f;

	for (uint32_t i = 0; i < SYMBOLS_MAX_OBJECTS + extra; i++) {
		memcpy(bid, &i, sizeof(i));
		bid[SYMBOLS_BUILD_ID_SIZE - 1] = 0x5a;
		symbols__add_mapping(sym, bid, sizeof(bid), "/nonexistent/object");
	}
	assert_int_equal(symbols__stats(sym)->mappings, SYMBOLS_MAX_OBJECTS + extra);
	assert_int_equal(symbols__stats(sym)->objects, SYMBOLS_MAX_OBJECTS);
	assert_int_equal(symbols__stats(sym)->objects_refused, extra);
	/* one remembered is still known, one refused is not */
	{
		uint32_t in = 5, out = SYMBOLS_MAX_OBJECTS + 3;

		memcpy(bid, &in, sizeof(in));
		assert_true(symbols__knows(sym, bid));
		symbols__add_mapping(sym, bid, sizeof(bid), "/nonexistent/object");
		assert_int_equal(symbols__stats(sym)->objects_refused, extra);
		memcpy(bid, &out, sizeof(out));
		assert_false(symbols__knows(sym, bid));
		symbols__user(sym, bid, 77, &f);
		assert_string_equal(f.object, "[unknown]");
		assert_null(f.function);
		assert_int_equal(f.offset, 77);
	}
}

/* A minimal ELF file of our own making: two PT_LOADs and a build-id note,
 * no sections, hence no symbols at all (a fully stripped static binary). */
static void write_symbolless_elf(const char *path, const uint8_t bid[SYMBOLS_BUILD_ID_SIZE])
{
	unsigned char buf[sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr) + 16 + SYMBOLS_BUILD_ID_SIZE] = { 0 };
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	size_t note_at = sizeof(*eh) + 3 * sizeof(*ph);
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(buf + note_at);
	int fd;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 3;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0, .p_vaddr = 0, .p_filesz = 64,
			      .p_memsz = 64, .p_align = 4096 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 64, .p_vaddr = 0x1040,
			      .p_filesz = 128, .p_memsz = 128, .p_align = 4096 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = note_at, .p_vaddr = note_at,
			      .p_filesz = sizeof(buf) - note_at, .p_memsz = sizeof(buf) - note_at, .p_align = 4 };
	nh->n_namesz = 4;
	nh->n_descsz = SYMBOLS_BUILD_ID_SIZE;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(buf + note_at + sizeof(*nh), "GNU", 4);
	memcpy(buf + note_at + sizeof(*nh) + 4, bid, SYMBOLS_BUILD_ID_SIZE);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
}

/* An object without symbols seen under a second path is read again; the
 * second read must start from a clean slate (the asan preset sees a heap
 * overflow in the segment table otherwise). */
static void test_symbolless_object_under_a_new_path_is_read_again_cleanly(void **state)
{
	struct symbols *sym = *state;
	const uint8_t bid[SYMBOLS_BUILD_ID_SIZE] = { 0xab, 0xcd, 0xef, 1, 2, 3, 4, 5, 6, 7,
						     8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };
	char dir[] = "/tmp/pl-symtest-XXXXXX", p1[64], p2[64];
	struct pl_frame f;

	assert_non_null(mkdtemp(dir));
	snprintf(p1, sizeof(p1), "%s/one", dir);
	snprintf(p2, sizeof(p2), "%s/two", dir);
	write_symbolless_elf(p1, bid);
	write_symbolless_elf(p2, bid);
	for (int round = 0; round < 4; round++) {
		symbols__add_mapping(sym, bid, sizeof(bid), round % 2 ? p2 : p1);
		symbols__user(sym, bid, 0x50, &f);
		assert_string_equal(f.object, round % 2 ? p2 : p1);
		assert_null(f.function);
		assert_int_equal(f.offset, 0x50);
		assert_string_equal(f.build_id, "abcdef0102030405060708090a0b0c0d0e0f1011");
	}
	assert_int_equal(symbols__stats(sym)->objects, 1);
	assert_int_equal(symbols__stats(sym)->objects_loaded, 4);
	assert_int_equal(symbols__stats(sym)->load_failures, 0);
	unlink(p1);
	unlink(p2);
	rmdir(dir);
}

/* A frame's strings stay valid until symbols__free(), even once its object
 * is known under a newer name (oncpu.c caches frames across images). */
static void test_frame_handed_out_keeps_its_name_after_a_rename(void **state)
{
	struct symbols *sym = *state;
	const uint8_t bid[SYMBOLS_BUILD_ID_SIZE] = { 0x5e, 0x1f, 7 };
	struct pl_frame before, after;

	symbols__add_mapping(sym, bid, sizeof(bid), "/nonexistent/old-name");
	symbols__user(sym, bid, 0x10, &before);
	symbols__add_mapping(sym, bid, sizeof(bid), "/nonexistent/new-name");
	symbols__user(sym, bid, 0x10, &after);
	assert_string_equal(after.object, "/nonexistent/new-name");
	assert_string_equal(before.object, "/nonexistent/old-name"); /* not freed (ASan) */
	assert_int_equal(symbols__stats(sym)->objects, 1);
}

/* ---- objects built for the test (make_symfixtures.sh) ---- */

struct fixture {
	char path[4096]; /* as /proc/self/maps names it */
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	char hex[2 * SYMBOLS_BUILD_ID_SIZE + 1];
	void *handle;
	uintptr_t base; /* the loader's l_addr */
};

/* The fixture file rel (under SYMFIX_DIR), loaded by the dynamic loader so
 * that its functions' file offsets come from the loader, and reported to
 * sym as a mapping would be. */
static void fixture_open(struct symbols *sym, const char *rel, struct fixture *fx)
{
	char path[4096], hex[129];
	struct link_map *lm = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", SYMFIX_DIR, rel);
	fx->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!fx->handle)
		fail_msg("dlopen %s: %s", path, dlerror());
	assert_int_equal(dlinfo(fx->handle, RTLD_DI_LINKMAP, &lm), 0);
	fx->base = lm->l_addr;
	assert_non_null(realpath(path, fx->path));
	fd = open(fx->path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(identity__read_build_id(fd, hex, sizeof(hex)), 0);
	close(fd);
	assert_int_equal(strlen(hex), 2 * SYMBOLS_BUILD_ID_SIZE);
	memcpy(fx->hex, hex, sizeof(fx->hex)); /* 40 digits and the NUL, as asserted */
	se_hex_to_bytes(hex, fx->bid, sizeof(fx->bid));
	if (sym)
		symbols__add_mapping(sym, fx->bid, SYMBOLS_BUILD_ID_SIZE, fx->path);
}

static void fixture_close(struct fixture *fx)
{
	dlclose(fx->handle);
}

/* The link-time address of function fn of the fixtures, from nm on the
 * unstripped object (expect.txt). */
static uint64_t fixture_vaddr(const char *fn)
{
	char path[4096], name[128];
	unsigned long long va;
	FILE *f;

	snprintf(path, sizeof(path), "%s/expect.txt", SYMFIX_DIR);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fscanf(f, "%127s %llx", name, &va) == 2)
		if (!strcmp(name, fn)) {
			fclose(f);
			return va;
		}
	fclose(f);
	fail_msg("%s not in %s", fn, path);
	return 0;
}

/* The file offset of function fn in the loaded fixture, from /proc/self/maps. */
static uint64_t fixture_offset(const struct fixture *fx, const char *fn)
{
	char path[4096];
	uint64_t off = 0;

	assert_true(se_mapping_of((const void *)(fx->base + fixture_vaddr(fn)), path, sizeof(path), &off));
	assert_string_equal(path, fx->path);
	return off;
}

/* Name the frame delta bytes into fn of fx. */
static void fixture_frame(struct symbols *sym, const struct fixture *fx, const char *fn, uint64_t delta,
			  struct pl_frame *ret)
{
	symbols__user(sym, fx->bid, fixture_offset(fx, fn) + delta, ret);
	assert_string_equal(ret->object, fx->path);
	assert_string_equal(ret->build_id, fx->hex);
	assert_false(ret->kernel);
}

static void assert_named(const struct pl_frame *f, const char *fn, uint64_t delta)
{
	assert_non_null(f->function);
	assert_string_equal(f->function, fn);
	assert_int_equal(f->offset, delta);
}

/* The file has no .symtab: its names can only come from elsewhere. */
static void assert_no_symtab(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		assert_non_null(gelf_getshdr(scn, &sh));
		assert_int_not_equal(sh.sh_type, SHT_SYMTAB);
	}
	elf_end(e);
	close(fd);
}

static struct symbols *symbols_rooted(const char *rel)
{
	struct symbols *sym = NULL;
	char root[4096];

	snprintf(root, sizeof(root), "%s/%s", SYMFIX_DIR, rel);
	assert_int_equal(symbols__new(&sym), 0);
	assert_int_equal(symbols__set_debug_root(sym, root), 0);
	return sym;
}

/* MiniDebugInfo made as Fedora makes it: a static function, which .dynsym
 * does not have, is named exactly at its offset, and the exported ones
 * still are (the two tables merged). */
static void test_minidebuginfo_names_a_static_function_at_its_offset(void **state)
{
	struct symbols *sym = symbols_rooted("no-such-root");
	struct fixture fx;
	struct pl_frame f;

	(void)state;
	fixture_open(sym, "mdi.so", &fx);
	assert_no_symtab(fx.path);
	fixture_frame(sym, &fx, "fix_hidden_beta", 5, &f);
	assert_named(&f, "fix_hidden_beta", 5);
	assert_null(f.interp);
	fixture_frame(sym, &fx, "fix_hidden_alpha", 0, &f);
	assert_named(&f, "fix_hidden_alpha", 0);
	fixture_frame(sym, &fx, "fix_exported", 3, &f);
	assert_named(&f, "fix_exported", 3);
	/* an executor's name, in an object that is not bash: no interpreter */
	fixture_frame(sym, &fx, "execute_fixture", 1, &f);
	assert_named(&f, "execute_fixture", 1);
	assert_null(f.interp);
	assert_int_equal(symbols__stats(sym)->objects_loaded, 1);
	assert_int_equal(symbols__stats(sym)->named[SYMBOLS_SRC_MINIDEBUGINFO], 1);
	assert_int_equal(symbols__stats(sym)->minidebuginfo_failures, 0);
	fixture_close(&fx);
	symbols__free(sym);
}

/* A .gnu_debugdata that is cut short, not xz, a bomb past the cap, xz of
 * something other than an ELF, or of an ELF cut in half: the object keeps
 * its .dynsym names, the static function is object+offset, and each
 * failure is counted. */
static void test_corrupt_minidebuginfo_leaves_dynsym_names_and_is_counted(void **state)
{
	static const char *const bad[] = { "mdi-trunc.so", "mdi-garbage.so", "mdi-bomb.so", "mdi-notelf.so",
					   "mdi-innercut.so" };
	struct symbols *sym = symbols_rooted("no-such-root");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct fixture fx;
		struct pl_frame f;

		fixture_open(sym, bad[i], &fx);
		fixture_frame(sym, &fx, "fix_hidden_beta", 5, &f);
		assert_null(f.function);
		assert_int_equal(f.offset, fixture_offset(&fx, "fix_hidden_beta") + 5);
		fixture_frame(sym, &fx, "fix_exported", 3, &f);
		assert_named(&f, "fix_exported", 3);
		assert_int_equal(symbols__stats(sym)->minidebuginfo_failures, i + 1);
		assert_int_equal(symbols__stats(sym)->named[SYMBOLS_SRC_DYNSYM], i + 1);
		fixture_close(&fx);
	}
	assert_int_equal(symbols__stats(sym)->named[SYMBOLS_SRC_MINIDEBUGINFO], 0);
	assert_int_equal(symbols__stats(sym)->load_failures, 0);
	symbols__free(sym);
}

/* The whole content of file rel of the fixtures (at most 1 MiB). */
static uint8_t *fixture_bytes(const char *rel, size_t *len)
{
	char path[4096];
	uint8_t *buf = malloc(1 << 20);
	ssize_t n;
	int fd;

	assert_non_null(buf);
	snprintf(path, sizeof(path), "%s/%s", SYMFIX_DIR, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, 1 << 20);
	assert_true(n >= 0 && n < (1 << 20));
	close(fd);
	*len = (size_t)n;
	return buf;
}

/* The decoder itself: the MiniDebugInfo ELF back byte for byte; a bomb
 * refused at the cap, whichever cap, and by its ratio below it; garbage, truncation and a header
 * that asks for a 4 GiB dictionary each with its own error, and nothing
 * handed out. */
static void test_minidebug_unxz_is_exact_and_bounded(void **state)
{
	size_t xlen, mlen, blen, olen = 7;
	uint8_t *xz = fixture_bytes("mdi.xz", &xlen), *mini = fixture_bytes("mdi.full.so.mini", &mlen);
	uint8_t *bomb = fixture_bytes("bomb.xz", &blen);
	void *out = (void *)&olen;

	(void)state;
	assert_int_equal(minidebug__unxz(xz, xlen, MINIDEBUG_MAX_OUT, &out, &olen), 0);
	assert_int_equal(olen, mlen);
	assert_memory_equal(out, mini, mlen);
	free(out);
	/* exactly at its size it fits, one byte less it does not */
	assert_int_equal(minidebug__unxz(xz, xlen, mlen, &out, &olen), 0);
	free(out);
	out = (void *)&olen;
	olen = 7;
	assert_int_equal(minidebug__unxz(xz, xlen, mlen - 1, &out, &olen), -EFBIG);
	assert_int_equal(minidebug__unxz(bomb, blen, MINIDEBUG_MAX_OUT, &out, &olen), -EFBIG);
	assert_int_equal(minidebug__unxz(bomb, blen, 1 << 20, &out, &olen), -EFBIG);
	/* under the 64 MiB cap, by ratio: 2 MiB from ~100 KiB is data, from
	 * ~400 bytes a bomb */
	{
		size_t rlen, zlen;
		uint8_t *r20 = fixture_bytes("ratio20.xz", &rlen), *z = fixture_bytes("zeros2m.xz", &zlen);
		void *o2 = NULL;
		size_t o2len = 0;

		assert_true(rlen * MINIDEBUG_MAX_RATIO > (2u << 20) && zlen * MINIDEBUG_MAX_RATIO < (1u << 20));
		assert_int_equal(minidebug__unxz(r20, rlen, MINIDEBUG_MAX_OUT, &o2, &o2len), 0);
		assert_int_equal(o2len, 2u << 20);
		free(o2);
		assert_int_equal(minidebug__unxz(z, zlen, MINIDEBUG_MAX_OUT, &out, &olen), -EFBIG);
		free(r20);
		free(z);
	}
	assert_int_equal(minidebug__unxz(xz, xlen / 2, MINIDEBUG_MAX_OUT, &out, &olen), -EBADMSG);
	assert_int_equal(minidebug__unxz((const uint8_t *)"hello", 5, MINIDEBUG_MAX_OUT, &out, &olen), -EBADMSG);
	assert_int_equal(minidebug__unxz(xz, 0, MINIDEBUG_MAX_OUT, &out, &olen), -EBADMSG);
	assert_int_equal(minidebug__unxz(xz, MINIDEBUG_MAX_IN + 1, MINIDEBUG_MAX_OUT, &out, &olen), -EFBIG);
	/* a flipped byte in the compressed data: the check catches it */
	xz[xlen / 2] ^= 0x40;
	assert_int_equal(minidebug__unxz(xz, xlen, MINIDEBUG_MAX_OUT, &out, &olen), -EBADMSG);
	xz[xlen / 2] ^= 0x40;
	/* the block header's LZMA2 dictionary size made 4 GiB - 1 (its CRC32
	 * made right): refused by the memory limit, before any allocation */
	{
		uint8_t *bh = xz + 12; /* after the stream header */
		size_t hsize = ((size_t)bh[0] + 1) * 4, at = 2;
		uint32_t crc;

		assert_true(hsize + 12 < xlen);
		assert_int_equal(bh[1] & 0x03, 0); /* one filter */
		for (int vli = 0; vli < ((bh[1] & 0x40) != 0) + ((bh[1] & 0x80) != 0); vli++)
			while (bh[at++] & 0x80)
				;
		assert_int_equal(bh[at], 0x21); /* LZMA2 */
		assert_int_equal(bh[at + 1], 1);
		bh[at + 2] = 40;
		crc = (uint32_t)crc32(0, bh, (uInt)(hsize - 4));
		memcpy(bh + hsize - 4, &crc, 4); /* little-endian, as the format says */
		assert_int_equal(minidebug__unxz(xz, xlen, MINIDEBUG_MAX_OUT, &out, &olen), -E2BIG);
	}
	assert_ptr_equal(out, (void *)&olen); /* untouched on failure */
	assert_int_equal(olen, 7);
	free(xz);
	free(mini);
	free(bomb);
}

/* .gnu_debuglink: the debug file in the object's .debug/ directory, and
 * one under the debug root's copy of the object's directory. */
static void test_debuglink_debug_file_is_found_beside_and_under_the_debug_root(void **state)
{
	struct symbols *sym = symbols_rooted("root");
	struct fixture dot, root;
	struct pl_frame f;

	(void)state;
	fixture_open(sym, "link/dot.so", &dot);
	fixture_open(sym, "link/root.so", &root);
	assert_no_symtab(dot.path);
	assert_no_symtab(root.path);
	fixture_frame(sym, &dot, "fix_hidden_alpha", 7, &f);
	assert_named(&f, "fix_hidden_alpha", 7);
	fixture_frame(sym, &root, "fix_hidden_beta", 2, &f);
	assert_named(&f, "fix_hidden_beta", 2);
	assert_int_equal(symbols__stats(sym)->named[SYMBOLS_SRC_DEBUGLINK], 2);
	assert_int_equal(symbols__stats(sym)->debuglink_mismatches, 0);
	fixture_close(&dot);
	fixture_close(&root);
	symbols__free(sym);
}

/* A debug file changed since it was linked (its CRC differs), and the
 * debug file of another object (its CRC right, its build-id not ours):
 * neither is used, each is counted, .dynsym names the object. */
static void test_debuglink_with_another_crc_or_build_id_is_refused(void **state)
{
	static const char *const bad[] = { "link/stale.so", "link/foreign.so" };
	struct symbols *sym = symbols_rooted("root");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct fixture fx;
		struct pl_frame f;

		fixture_open(sym, bad[i], &fx);
		fixture_frame(sym, &fx, "fix_hidden_alpha", 1, &f);
		assert_null(f.function);
		fixture_frame(sym, &fx, "fix_exported", 0, &f);
		assert_named(&f, "fix_exported", 0);
		assert_int_equal(symbols__stats(sym)->debuglink_mismatches, i + 1);
		assert_int_equal(symbols__stats(sym)->named[SYMBOLS_SRC_DYNSYM], i + 1);
		fixture_close(&fx);
	}
	symbols__free(sym);
}

static void test_build_id_debug_file_under_the_debug_root_names_the_object(void **state)
{
	struct symbols *sym = symbols_rooted("root");
	struct fixture fx;
	struct pl_frame f;

	(void)state;
	fixture_open(sym, "bid.so", &fx);
	assert_no_symtab(fx.path);
	fixture_frame(sym, &fx, "fix_hidden_beta", 9, &f);
	assert_named(&f, "fix_hidden_beta", 9);
	assert_int_equal(symbols__stats(sym)->named[SYMBOLS_SRC_DEBUG_BUILD_ID], 1);
	fixture_close(&fx);
	symbols__free(sym);
}

/* One object with a build-id debug file, a debuglink and MiniDebugInfo:
 * each source is used exactly when those before it are missing, and the
 * unstripped file's .symtab comes before all of them. */
static void test_names_come_from_the_best_source_there_is(void **state)
{
	static const struct {
		const char *root, *file;
		enum symbols_source src;
	} cases[] = {
		{ "root-bid", "prec.full.so", SYMBOLS_SRC_SYMTAB },
		{ "root-bid", "prec.so", SYMBOLS_SRC_DEBUG_BUILD_ID },
		{ "root", "prec.so", SYMBOLS_SRC_DEBUGLINK },
		{ "no-such-root", "prec.so", SYMBOLS_SRC_MINIDEBUGINFO },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct symbols *sym = symbols_rooted(cases[i].root);
		struct fixture fx;
		struct pl_frame f;

		fixture_open(sym, cases[i].file, &fx);
		fixture_frame(sym, &fx, "fix_hidden_alpha", 4, &f);
		assert_named(&f, "fix_hidden_alpha", 4);
		for (int s = 0; s < SYMBOLS_SRC_MAX; s++)
			assert_int_equal(symbols__stats(sym)->named[s], s == (int)cases[i].src);
		fixture_close(&fx);
		symbols__free(sym);
	}
	assert_string_equal(symbols__source_name(SYMBOLS_SRC_DEBUGLINK), "debuglink");
	assert_string_equal(symbols__source_name(SYMBOLS_SRC_NONE), "none");
}

static void test_debug_root_must_be_absolute(void **state)
{
	struct symbols *sym = *state;

	assert_int_equal(symbols__set_debug_root(sym, "usr/lib/debug"), -EINVAL);
	assert_int_equal(symbols__set_debug_root(sym, ""), -EINVAL);
	assert_int_equal(symbols__set_debug_root(sym, NULL), -EINVAL);
	assert_int_equal(symbols__set_debug_root(sym, "/srv/debug"), 0);
}

/* A .gnu_debuglink section as objcopy lays it out: name, NUL, padding to
 * 4, CRC; a name that is a path or a directory, and a section cut short,
 * are refused. */
static void test_debuglink_section_is_parsed_and_checked(void **state)
{
	uint8_t sec[16] = "dash.debug"; /* 10 bytes, NUL, pad to 12, then the CRC */
	char name[64] = "untouched";
	uint32_t crc = 0, le = 0x11223344;

	(void)state;
	memcpy(sec + 12, &le, 4);
	assert_int_equal(debuglink__parse(sec, 16, false, name, sizeof(name), &crc), 0);
	assert_string_equal(name, "dash.debug");
	assert_int_equal(crc, 0x11223344);
	assert_int_equal(debuglink__parse(sec, 16, true, name, sizeof(name), &crc), 0);
	assert_int_equal(crc, 0x44332211);
	assert_int_equal(debuglink__parse(sec, 15, false, name, sizeof(name), &crc), -EINVAL);
	assert_int_equal(debuglink__parse(sec, 16, false, name, 10, &crc), -EINVAL);
	memcpy(sec, "../x\0\0\0\0", 8);
	assert_int_equal(debuglink__parse(sec, 16, false, name, sizeof(name), &crc), -EINVAL);
	memcpy(sec, "..\0\0", 4);
	assert_int_equal(debuglink__parse(sec, 16, false, name, sizeof(name), &crc), -EINVAL);
	memset(sec, 'a', sizeof(sec)); /* no NUL */
	assert_int_equal(debuglink__parse(sec, 16, false, name, sizeof(name), &crc), -EINVAL);
	sec[0] = 0; /* empty name */
	assert_int_equal(debuglink__parse(sec, 16, false, name, sizeof(name), &crc), -EINVAL);
	assert_string_equal(name, "dash.debug");
}

/* ---- interpreter frames ---- */

/* CPython's evaluation loop in Debian's python3.11, found by the loader
 * of a live python3.11 (ctypes), named from .dynsym and marked python. */
static void test_python_eval_loop_frames_are_marked_python(void **state)
{
	static const char py[] = "/usr/bin/python3.11";
	static const char script[] =
		"import ctypes, sys\n"
		"a = lambda n: ctypes.cast(getattr(ctypes.pythonapi, n), ctypes.c_void_p).value\n"
		"print(a('_PyEval_EvalFrameDefault'), a('PyEval_EvalCode'), flush=True)\n"
		"sys.stdin.read()\n";
	struct symbols *sym = *state;
	int in[2], out[2], status;
	unsigned long long loop = 0, code = 0;
	char line[128] = "";
	struct pl_frame f;
	FILE *rd;
	pid_t pid;

	if (access(py, X_OK)) {
		print_message("skipped: no %s\n", py);
		skip();
	}
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(py, "python3.11", "-I", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	rd = fdopen(out[0], "r");
	assert_non_null(rd);
	assert_non_null(fgets(line, sizeof(line), rd));
	assert_int_equal(sscanf(line, "%llu %llu", &loop, &code), 2);
	symbols__user_ip(sym, (uint32_t)pid, loop + 16, &f);
	assert_string_equal(f.object, py);
	assert_named(&f, "_PyEval_EvalFrameDefault", 16);
	assert_non_null(f.interp);
	assert_string_equal(f.interp, "python");
	symbols__user_ip(sym, (uint32_t)pid, code, &f);
	assert_named(&f, "PyEval_EvalCode", 0);
	assert_string_equal(f.interp, "python");
	close(in[1]);
	fclose(rd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Perl's run loop and an op of Debian's libperl, found by the loader. */
static void test_perl_runops_and_ops_are_marked_perl(void **state)
{
	static const char *const fns[] = { "Perl_runops_standard", "Perl_pp_add" };
	struct symbols *sym = *state;
	void *h = dlopen("libperl.so.5.36", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		print_message("skipped: no libperl.so.5.36 (%s)\n", dlerror());
		skip();
	}
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		char path[4096], hex[129];
		uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
		uint64_t off = 0;
		struct pl_frame f;
		void *addr = dlsym(h, fns[i]);
		int fd;

		assert_non_null(addr);
		assert_true(se_mapping_of(addr, path, sizeof(path), &off));
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(identity__read_build_id(fd, hex, sizeof(hex)), 0);
		close(fd);
		se_hex_to_bytes(hex, bid, sizeof(bid));
		symbols__add_mapping(sym, bid, strlen(hex) / 2, path);
		symbols__user(sym, bid, off + 1, &f);
		assert_named(&f, fns[i], 1);
		assert_non_null(f.interp);
		assert_string_equal(f.interp, "perl");
	}
	dlclose(h);
}

/* The file offset of exported function fn of the ELF file at path, read
 * from its .dynsym and program headers with libelf. */
static bool dynsym_offset(const char *path, const char *fn, uint64_t *ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	uint64_t va = 0;
	size_t nph;
	bool found = false;
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while (!va && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (gelf_getsym(d, (int)i, &s) && (n = elf_strptr(e, sh.sh_link, s.st_name)) && !strcmp(n, fn))
				va = s.st_value;
		}
	}
	assert_int_equal(elf_getphdrnum(e, &nph), 0);
	for (size_t i = 0; va && i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && va >= ph.p_vaddr &&
		    va - ph.p_vaddr < ph.p_filesz) {
			*ret = va - ph.p_vaddr + ph.p_offset;
			found = true;
		}
	}
	elf_end(e);
	close(fd);
	return found;
}

static void file_mapping(struct symbols *sym, const char *path, uint8_t bid[SYMBOLS_BUILD_ID_SIZE])
{
	char hex[129];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(identity__read_build_id(fd, hex, sizeof(hex)), 0);
	close(fd);
	se_hex_to_bytes(hex, bid, SYMBOLS_BUILD_ID_SIZE);
	symbols__add_mapping(sym, bid, strlen(hex) / 2, path);
}

/* bash exports its executor (for loadable builtins): named, and marked
 * bash because the object is bash. */
static void test_bash_executor_frames_are_marked_bash(void **state)
{
	static const char bash[] = "/usr/bin/bash";
	struct symbols *sym = *state;
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	uint64_t off = 0;
	struct pl_frame f;

	if (!dynsym_offset(bash, "execute_command_internal", &off)) {
		print_message("skipped: %s exports no execute_command_internal\n", bash);
		skip();
	}
	file_mapping(sym, bash, bid);
	symbols__user(sym, bid, off + 8, &f);
	assert_string_equal(f.object, bash);
	assert_named(&f, "execute_command_internal", 8);
	assert_non_null(f.interp);
	assert_string_equal(f.interp, "bash");
}

/* dash exports nothing: its frames are dash+offset, each offset its own,
 * never an interpreter's (that needs dash-dbgsym). */
static void test_stripped_dash_frames_keep_object_and_offset(void **state)
{
	static const char dash[] = "/usr/bin/dash";
	struct symbols *sym = symbols_rooted("no-such-root"); /* whatever debug files the machine has */
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	struct pl_frame a, b;

	(void)state;
	if (access(dash, R_OK)) {
		symbols__free(sym);
		print_message("skipped: no %s\n", dash);
		skip();
	}
	file_mapping(sym, dash, bid);
	symbols__user(sym, bid, 0x5000, &a);
	symbols__user(sym, bid, 0x5400, &b);
	assert_string_equal(a.object, dash);
	assert_string_equal(b.object, dash);
	assert_null(a.function);
	assert_null(b.function);
	assert_int_equal(a.offset, 0x5000);
	assert_int_equal(b.offset, 0x5400);
	assert_null(a.interp);
	assert_int_equal(symbols__stats(sym)->objects_loaded, 1);
	symbols__free(sym);
}

/* Which names are which interpreter's: by name for CPython and Perl, in
 * objects of their name for the shells, through gcc's clone suffixes. */
static void test_interp_names_each_interpreter_and_nothing_else(void **state)
{
	static const struct {
		const char *object, *function, *interp;
	} cases[] = {
		{ "/usr/bin/python3.11", "_PyEval_EvalFrameDefault", "python" },
		{ "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "_PyEval_EvalFrameDefault.cold", "python" },
		{ "/usr/bin/python3.11", "_PyEval_Vector", "python" },
		{ "/usr/bin/python3.11", "PyEval_EvalCode", "python" },
		{ "/usr/bin/python3.11", "PyEval_EvalCodeExtra", NULL },
		{ "/usr/bin/python3.11", "PyObject_Vectorcall", NULL },
		{ "/usr/bin/python3.11", "_PyEval_EvalFrameDefault.foo", NULL },
		{ "/usr/lib/x86_64-linux-gnu/libperl.so.5.36", "Perl_pp_entersub", "perl" },
		{ "/usr/lib/x86_64-linux-gnu/libperl.so.5.36", "Perl_runops_standard", "perl" },
		{ "/usr/lib/x86_64-linux-gnu/libperl.so.5.36", "Perl_pp_", NULL },
		{ "/usr/lib/x86_64-linux-gnu/libperl.so.5.36", "Perl_sv_setsv_flags", NULL },
		{ "/usr/bin/bash", "execute_command_internal", "bash" },
		{ "/usr/bin/rbash", "execute_builtin.isra.0", "bash" },
		{ "/usr/bin/bash", "reader_loop", "bash" },
		{ "/usr/bin/bash", "rl_execute_next", NULL },
		{ "/usr/lib/libjob.so", "execute_command", NULL },
		{ "/usr/bin/dash", "evaltree", "dash" },
		{ "/usr/bin/dash", "cmdloop", "dash" },
		{ "/usr/bin/dashboard", "evaltree", NULL },
		{ "/usr/bin/python3.11", NULL, NULL },
		{ NULL, "evaltree", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = interp__of(cases[i].object, cases[i].function);

		if (!cases[i].interp)
			assert_null(got);
		else
			assert_string_equal(got ? got : "(null)", cases[i].interp);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_user_frame_in_libc_is_named_from_its_dynsym, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_build_id_keeps_the_offset_and_names_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_file_with_another_build_id_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_binary_is_named_from_its_symtab, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_ip_of_a_live_process_is_named_from_its_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_frames_are_named_from_kallsyms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_objects_beyond_the_bound_are_refused_and_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symbolless_object_under_a_new_path_is_read_again_cleanly, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frame_handed_out_keeps_its_name_after_a_rename, setup, teardown),
		cmocka_unit_test(test_minidebuginfo_names_a_static_function_at_its_offset),
		cmocka_unit_test(test_corrupt_minidebuginfo_leaves_dynsym_names_and_is_counted),
		cmocka_unit_test(test_minidebug_unxz_is_exact_and_bounded),
		cmocka_unit_test(test_debuglink_debug_file_is_found_beside_and_under_the_debug_root),
		cmocka_unit_test(test_debuglink_with_another_crc_or_build_id_is_refused),
		cmocka_unit_test(test_build_id_debug_file_under_the_debug_root_names_the_object),
		cmocka_unit_test(test_names_come_from_the_best_source_there_is),
		cmocka_unit_test_setup_teardown(test_debug_root_must_be_absolute, setup, teardown),
		cmocka_unit_test(test_debuglink_section_is_parsed_and_checked),
		cmocka_unit_test_setup_teardown(test_python_eval_loop_frames_are_marked_python, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perl_runops_and_ops_are_marked_perl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bash_executor_frames_are_marked_bash, setup, teardown),
		cmocka_unit_test(test_stripped_dash_frames_keep_object_and_offset),
		cmocka_unit_test(test_interp_names_each_interpreter_and_nothing_else),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
