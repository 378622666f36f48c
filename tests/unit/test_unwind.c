// SPDX-License-Identifier: MIT
/*
 * test_unwind.c - user stacks walked through the objects' CFI
 * (sensor/stacks/unwind.h), on this test's own stack.
 *
 * This file is built with -O2 -fomit-frame-pointer (tests/unit/CMakeLists.txt):
 * like Debian's binaries, its functions keep no frame pointer, so only the
 * unwind tables (.eh_frame) lead from a function to its caller. The chain
 * chain1 .. chain6 calls libc's qsort(), whose comparator copies the
 * registers and the top of the stack, as the kernel does at a sample, and
 * the walk must come back through libc into every function of the chain,
 * in order, down to the outermost frame. A library built without unwind
 * tables (libunwindfp.so, frame pointers only) is walked by its %rbp chain.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "self_elf.h"
#include "stacks/procmaps.h"
#include "stacks/symbols.h"
#include "stacks/unwind.h"

#define COPY 16384

static uint64_t regs[UNWIND_NREGS];
static uint8_t copy[COPY];
static size_t copied;

/* What the kernel copies at a sample: %rip, %rsp, %rbp here, and the stack
 * from %rsp up. The other registers are given as 0. The copy reads other
 * frames' bytes, ASan's redzones among them: a plain loop, not memcpy (which
 * ASan checks), in a function it does not instrument. */
__attribute__((noinline, noclone, no_sanitize_address)) static void capture(void)
{
	uint64_t sp, bp, ip;
	uintptr_t end = se_stack_end();

	__asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2" : "=r"(sp), "=r"(bp), "=r"(ip));
	memset(regs, 0, sizeof(regs));
	regs[UNWIND_REG_RSP] = sp;
	regs[UNWIND_REG_RBP] = bp;
	regs[UNWIND_REG_RIP] = ip;
	copied = end > sp && end - sp < COPY ? end - sp : COPY;
	for (size_t i = 0; i < copied; i++)
		copy[i] = ((const volatile uint8_t *)(uintptr_t)sp)[i];
}

static int captured;

__attribute__((noinline, noclone)) static int compare(const void *a, const void *b)
{
	if (!captured++)
		capture();
	__asm__ volatile("" ::: "memory");
	return *(const int *)a - *(const int *)b;
}

/* Each calls the next and does work after it: no tail call. */
static __attribute__((noinline, noclone)) void chain6(int *v)
{
	qsort(v, 4, sizeof(*v), compare);
	__asm__ volatile("" ::: "memory");
}
#define LINK(me, next)                               \
	static __attribute__((noinline, noclone)) void me(int *v) \
	{                                            \
		next(v);                             \
		__asm__ volatile("" ::: "memory");   \
	}
LINK(chain5, chain6)
LINK(chain4, chain5)
LINK(chain3, chain4)
LINK(chain2, chain3)
LINK(chain1, chain2)

struct ctx {
	struct procmaps *pm;
	struct unwind *u;
	struct symbols *sym;
	struct unwind_maps maps;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	int v[4] = { 3, 1, 2, 0 };

	assert_non_null(c);
	assert_int_equal(procmaps__new(&c->pm), 0);
	assert_int_equal(unwind__new(&c->u), 0);
	assert_int_equal(symbols__new(&c->sym), 0);
	captured = 0;
	chain1(v);
	assert_int_equal(captured > 0, 1);
	assert_true(procmaps__get(c->pm, (uint32_t)getpid(), 1, false, 1, &c->maps));
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	symbols__free(c->sym);
	unwind__free(c->u);
	procmaps__free(c->pm);
	free(c);
	return 0;
}

static const char *name(struct ctx *c, const struct unwind_frame *f, const char **object)
{
	struct pl_frame pf = { 0 };

	*object = "";
	if (f->map < 0)
		return "[no mapping]";
	const struct unwind_map *m = &c->maps.maps[f->map];

	if (m->has_build_id) {
		symbols__add_mapping(c->sym, m->build_id, UNWIND_BUILD_ID_SIZE, m->path);
		symbols__user(c->sym, m->build_id, f->file_off, &pf);
	} else {
		symbols__user_path(c->sym, m->path, f->file_off, &pf);
	}
	*object = pf.object ? pf.object : "";
	return pf.function ? pf.function : "[unnamed]";
}

/* The whole chain, in order, through libc's qsort, to the outermost frame. */
static void test_whole_chain_through_libc(void **state)
{
	struct ctx *c = *state;
	struct unwind_frame f[UNWIND_MAX_FRAMES];
	struct unwind_result r;
	static const char *const want[] = { "capture", "compare", "chain6", "chain5", "chain4",
					    "chain3",  "chain2",  "chain1" };
	const char *obj;
	uint32_t n = unwind__stack(c->u, &c->maps, regs, copy, copied, f, UNWIND_MAX_FRAMES, &r), w = 0, i;
	bool libc = false; /* a frame of the sort between compare and chain6 */

	for (i = 0; i < n; i++) {
		const char *fn = name(c, &f[i], &obj);

		fprintf(stderr, "  #%u %s (%s)\n", i, fn, obj);
	}
	assert_int_equal(r.stop, UNWIND_STOP_END);
	assert_int_equal(r.n, n);
	assert_int_equal(r.by_cfi + r.by_fp, n - 1);
	for (i = 0; i < n && w < sizeof(want) / sizeof(*want); i++) {
		const char *fn = name(c, &f[i], &obj);

		assert_true(f[i].map >= 0); /* no frame outside every mapping */
		if (!strcmp(fn, want[w])) {
			w++;
			continue;
		}
		/* between compare and chain6 only the sort: libc's, or in the
		 * sanitized build ASan's interceptor of it */
		assert_int_equal(w, 2);
		assert_true(strstr(obj, "/libc.so") || strstr(obj, "/libasan.so"));
		libc = true;
	}
	assert_int_equal(w, sizeof(want) / sizeof(*want));
	assert_true(libc);
	/* and beyond the test: main, libc's start, _start */
	for (bool seen_main = false; i < n; i++) {
		const char *fn = name(c, &f[i], &obj);

		seen_main |= !strcmp(fn, "main");
		if (i == n - 1) {
			assert_true(seen_main);
			assert_string_equal(fn, "_start");
		}
	}
}

/* A copy too short for the walk: the frames found so far, and why it stopped. */
static void test_short_copy_stops_truncated(void **state)
{
	struct ctx *c = *state;
	struct unwind_frame f[UNWIND_MAX_FRAMES];
	struct unwind_result r;
	const char *obj;
	uint32_t n = unwind__stack(c->u, &c->maps, regs, copy, 64, f, UNWIND_MAX_FRAMES, &r);

	assert_int_equal(r.stop, UNWIND_STOP_TRUNCATED);
	assert_true(n >= 1);
	assert_string_equal(name(c, &f[0], &obj), "capture");
	assert_true(unwind__stats(c->u)->stops[UNWIND_STOP_TRUNCATED] >= 1);
}

/* No mapping holds the pc: one frame, said so. */
static void test_unmapped_pc(void **state)
{
	struct ctx *c = *state;
	struct unwind_frame f[4];
	struct unwind_result r;
	struct unwind_maps none = { 0 };
	uint32_t n = unwind__stack(c->u, &none, regs, copy, copied, f, 4, &r);

	assert_int_equal(n, 1);
	assert_int_equal(f[0].map, -1);
	assert_int_equal(r.stop, UNWIND_STOP_NO_MAP);
}

/* Hostile stacks: random bytes and registers never crash, loop or read
 * outside the copy (ASan in the sanitized build), and stay within max. */
static void test_garbage_stacks(void **state)
{
	struct ctx *c = *state;
	struct unwind_frame f[UNWIND_MAX_FRAMES];
	struct unwind_result r;
	uint64_t g[UNWIND_NREGS];
	static uint8_t junk[4096];

	srandom(19);
	for (int it = 0; it < 2000; it++) {
		size_t len = (size_t)random() % sizeof(junk);
		const struct unwind_map *m = &c->maps.maps[(size_t)random() % c->maps.n];

		for (size_t i = 0; i < len; i++)
			junk[i] = (uint8_t)random();
		/* half of the time the stack holds addresses inside real code */
		for (size_t i = 0; it % 2 && i + 8 <= len; i += 8) {
			uint64_t a = m->start + (uint64_t)random() % (m->end - m->start);

			memcpy(junk + i, &a, 8);
		}
		for (int i = 0; i < UNWIND_NREGS; i++)
			g[i] = (uint64_t)random() << 32 | (uint64_t)random();
		g[UNWIND_REG_RIP] = m->start + (uint64_t)random() % (m->end - m->start);
		g[UNWIND_REG_RSP] = 0x7ff000000000ull + (uint64_t)(random() & ~7l);
		uint32_t n = unwind__stack(c->u, &c->maps, g, junk, len, f, UNWIND_MAX_FRAMES, &r);

		assert_true(n >= 1 && n <= UNWIND_MAX_FRAMES);
		assert_int_equal(r.n, n);
		assert_true(r.stop < UNWIND_STOP_COUNT);
	}
}

/* Called by the library: the copy is taken here, two frames below it. */
static __attribute__((noinline, noclone)) void fp_callback(int *v)
{
	capture();
	__asm__ volatile("" ::: "memory");
	(*v)++;
}

static __attribute__((noinline, noclone)) void fp_caller(void (*outer)(void (*)(int *), int *), int *v)
{
	outer(fp_callback, v);
	__asm__ volatile("" ::: "memory");
}

/*
 * Through code no CFI covers: capture and fp_callback by this binary's CFI,
 * then fplib_inner and fplib_outer by their frame pointers, then fp_caller
 * and the rest by CFI again, to the outermost frame.
 */
static void test_frame_pointers_where_there_is_no_cfi(void **state)
{
	struct ctx *c = *state;
	void *h = dlopen(PL_UNWINDFP_LIB, RTLD_NOW);
	void (*outer)(void (*)(int *), int *);
	struct unwind_frame f[UNWIND_MAX_FRAMES];
	struct unwind_result r;
	struct unwind_maps maps;
	static const char *const want[] = { "capture", "fp_callback", "fplib_inner", "fplib_outer", "fp_caller" };
	const char *obj;
	int v = 0;
	uint32_t n, w = 0;

	if (!h)
		fprintf(stderr, "%s\n", dlerror());
	assert_non_null(h);
	*(void **)&outer = dlsym(h, "fplib_outer");
	assert_non_null(outer);
	fp_caller(outer, &v);
	assert_int_equal(v, 1);
	/* the library was mapped after setup read the maps */
	assert_true(procmaps__get(c->pm, (uint32_t)getpid(), 2, false, 2, &maps));
	c->maps = maps;
	n = unwind__stack(c->u, &c->maps, regs, copy, copied, f, UNWIND_MAX_FRAMES, &r);
	for (uint32_t i = 0; i < n; i++) {
		const char *fn = name(c, &f[i], &obj);

		fprintf(stderr, "  #%u %s (%s)\n", i, fn, obj);
	}
	for (uint32_t i = 0; i < n && w < sizeof(want) / sizeof(*want); i++) {
		const char *fn = name(c, &f[i], &obj);

		assert_string_equal(fn, want[w]);
		if (w == 2 || w == 3)
			assert_non_null(strstr(obj, "/libunwindfp.so"));
		w++;
	}
	assert_int_equal(w, sizeof(want) / sizeof(*want));
	assert_true(r.by_fp >= 2);
	assert_int_equal(r.stop, UNWIND_STOP_END);
	assert_string_equal(name(c, &f[n - 1], &obj), "_start");
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_chain_through_libc),
		cmocka_unit_test(test_short_copy_stops_truncated),
		cmocka_unit_test(test_unmapped_pc),
		cmocka_unit_test(test_garbage_stacks),
		cmocka_unit_test(test_frame_pointers_where_there_is_no_cfi),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
