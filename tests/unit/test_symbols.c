// SPDX-License-Identifier: MIT
/*
 * test_symbols.c - frame names from real ELF files on this machine: libc,
 * this test binary (linked with a known build-id, TEST_BUILD_ID), files
 * made here, and /proc/kallsyms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/identity.h"
#include "self_elf.h"
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
	 * has aliases: __getpid), and the one dladdr gives is its alias */
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
