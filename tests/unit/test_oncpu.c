// SPDX-License-Identifier: MIT
/*
 * test_oncpu.c - on-CPU sample records, from the kernel's record to an
 * image's evidence (sensor/stacks/oncpu.h), on this test's own stack.
 *
 * This file is built with -O2 -fomit-frame-pointer (tests/unit/CMakeLists.txt),
 * like Debian's binaries. The chain oncpu_chain1 .. oncpu_chain4 ends in
 * oncpu_leaf, which makes what the kernel makes at a sample: a record with
 * the registers and a copy of the top of the stack, at one of two places of
 * the leaf (the second called from another place of oncpu_chain4). The
 * records are fed to a real struct oncpu: its walk, its names (this binary
 * has the build-id TEST_BUILD_ID and its .symtab; kernel frames come from
 * /proc/kallsyms when its addresses show), its merge by function, its sums.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "self_elf.h"
#include "stacks/oncpu.h"

#define RATE_HZ 99
#define IMAGE 0x1234ull

static struct pl_ev_sample rec[2]; /* the two places of the leaf */

/* What bpf/oncpu.bpf.c sends for a sample in user mode here: %rip, %rsp
 * and %rbp (the others 0), the stack from %rsp up. The copy reads other
 * frames' bytes, ASan's redzones among them: a plain loop in a function it
 * does not instrument. */
__attribute__((noinline, noclone, no_sanitize_address)) static void take(struct pl_ev_sample *ev)
{
	uint64_t sp, bp, ip;
	uintptr_t end = se_stack_end();
	size_t n;

	__asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2" : "=r"(sp), "=r"(bp), "=r"(ip));
	memset(ev, 0, sizeof(*ev));
	ev->regs[UNWIND_REG_RSP] = sp;
	ev->regs[UNWIND_REG_RBP] = bp;
	ev->regs[UNWIND_REG_RIP] = ip;
	n = end > sp && end - sp < PL_STACK_DUMP_MAX ? end - sp : PL_STACK_DUMP_MAX;
	for (size_t i = 0; i < n; i++)
		ev->stack[i] = ((const volatile uint8_t *)(uintptr_t)sp)[i];
	ev->stack_len = (uint32_t)n;
}

/* Non-static, out of line, unlike each other: none folded into another. */
void oncpu_leaf(int where);
void oncpu_chain4(int x);
void oncpu_chain3(int x);
void oncpu_chain2(int x);
void oncpu_chain1(int x);

__attribute__((noinline, noclone)) void oncpu_leaf(int where)
{
	take(&rec[where]);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noclone)) void oncpu_chain4(int x)
{
	oncpu_leaf(0);
	__asm__ volatile("" ::: "memory");
	oncpu_leaf(1); /* another return address into this function */
	__asm__ volatile("" : "+r"(x)::"memory");
}
#define LINK(me, next)                                                \
	__attribute__((noinline, noclone)) void me(int x)              \
	{                                                              \
		next(x + 1);                                           \
		__asm__ volatile("" : "+r"(x)::"memory");             \
	}
LINK(oncpu_chain3, oncpu_chain4)
LINK(oncpu_chain2, oncpu_chain3)
LINK(oncpu_chain1, oncpu_chain2)

/* The images the fake kernel says are alive. */
struct live {
	uint64_t image[4];
	unsigned n;
};

static bool fk_image_live(void *ctx, uint32_t tgid, uint64_t image_id)
{
	const struct live *l = ctx;

	(void)tgid;
	for (unsigned i = 0; i < l->n; i++)
		if (l->image[i] == image_id)
			return true;
	return false;
}

struct ctx {
	struct live live;
	struct symbols *sym;
	struct oncpu *oc;
	char exe[4096];
	uint8_t bid[SYMBOLS_BUILD_ID_SIZE];
	struct se_kallsyms ks;
	const struct se_ksym *kfn[2]; /* kernel functions, or NULL when kallsyms is hidden */
};

static struct oncpu *make(struct ctx *c, uint32_t max_stacks)
{
	struct oncpu_table tbl = { .ctx = &c->live, .image_live = fk_image_live };
	struct oncpu *oc;

	assert_int_equal(oncpu__new(&tbl, c->sym, max_stacks, RATE_HZ, &oc), 0);
	return oc;
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	se_exe_path(c->exe, sizeof(c->exe));
	se_hex_to_bytes(TEST_BUILD_ID, c->bid, sizeof(c->bid));
	assert_int_equal(symbols__new(&c->sym), 0);
	c->oc = make(c, 16384);
	se_kallsyms_read(&c->ks);
	for (unsigned i = 0; i < 2 && c->ks.n; i++)
		c->kfn[i] = se_kallsyms_unique(&c->ks, 50 * i);
	oncpu_chain1(0);
	for (int i = 0; i < 2; i++) {
		rec[i].hdr = (struct pl_hdr){ .type = PL_EV_SAMPLE, .version = PL_ABI_VERSION, .tgid = (uint32_t)getpid() };
		rec[i].hdr.size = (uint32_t)(offsetof(struct pl_ev_sample, stack) + rec[i].stack_len);
		rec[i].image_id = IMAGE;
		rec[i].tid = (uint32_t)getpid();
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	oncpu__free(c->oc);
	symbols__free(c->sym);
	free(c->ks.s);
	free(c);
	return 0;
}

static void feed(struct oncpu *oc, const struct pl_ev_sample *ev, unsigned times)
{
	for (unsigned i = 0; i < times; i++)
		oncpu__on_sample(oc, ev, ev->hdr.size);
}

static const char *fn(const struct pl_frame *f)
{
	return f->function ? f->function : "";
}

/* The user frames of s end ... chain1 chain2 chain3 chain4 leaf take, and
 * begin at the outermost frame (_start): the walk finished. */
static void assert_whole_chain(const struct pl_stack *s)
{
	static const char *const want[] = { "oncpu_chain1", "oncpu_chain2", "oncpu_chain3",
					    "oncpu_chain4", "oncpu_leaf",   "take" };
	const size_t nw = sizeof(want) / sizeof(*want);

	assert_true(s->nuser > nw);
	for (size_t i = 0; i < nw; i++)
		assert_string_equal(fn(&s->user[s->nuser - nw + i]), want[i]);
	assert_string_equal(fn(&s->user[0]), "_start");
	for (uint32_t i = 0; i < s->nuser; i++)
		assert_false(s->user[i].kernel);
}

/* ---- tests ---- */

/*
 * One image: 5 samples at the leaf's first place, 2 at its second (another
 * return address into chain4, another instruction of take): one stack, by
 * function, of 7 samples; the kernel counted 10, 2 of them lost to a full
 * ring: 3 unattributed, 2 of them by the ring.
 */
static void test_samples_merge_by_function_with_exact_sums(void **state)
{
	struct ctx *c = *state;
	struct oncpu_result *r;

	assert_int_not_equal(rec[0].regs[UNWIND_REG_RIP], 0);
	feed(c->oc, &rec[0], 5);
	feed(c->oc, &rec[1], 2);
	assert_int_equal(oncpu__stats(c->oc)->samples, 7);
	assert_int_equal(oncpu__stats(c->oc)->stacks_held, 1);
	assert_int_equal(oncpu__stats(c->oc)->stacks_cut, 0);
	assert_int_equal(oncpu__unwind_stats(c->oc)->stops[UNWIND_STOP_END], 7);

	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE, 10, 2, ONCPU_EXIT);
	assert_non_null(r);
	assert_int_equal(r->oc.samples, 10);
	assert_int_equal(r->oc.unattributed, 3);
	assert_int_equal(r->oc.unatt_ring, 2);
	assert_int_equal(r->oc.unatt_table, 0);
	assert_int_equal(r->oc.rate_hz, RATE_HZ);
	assert_int_equal(r->oc.nstacks, 1);
	assert_int_equal(r->oc.stacks[0].samples, 7);
	assert_int_equal(r->oc.stacks[0].nkern, 0);
	assert_whole_chain(&r->oc.stacks[0]);
	/* named by build-id: this binary, its path and hex id */
	const struct pl_frame *leaf = &r->oc.stacks[0].user[r->oc.stacks[0].nuser - 1];

	assert_string_equal(leaf->object, c->exe);
	assert_non_null(leaf->build_id);
	assert_string_equal(leaf->build_id, TEST_BUILD_ID);
	assert_int_equal(r->oc.nobjs, 1);
	assert_string_equal(r->oc.objs[0].object, c->exe);
	assert_int_equal(r->oc.objs[0].samples, 7);
	assert_true(isnan(r->oc.objs[0].baseline_share));
	assert_int_equal(r->oc.nfns, 1);
	assert_string_equal(r->oc.fns[0].function, "take");
	assert_int_equal(r->oc.fns[0].samples, 7);
	oncpu_result__free(r);
	/* consumed: the image is gone */
	assert_int_equal(oncpu__stats(c->oc)->stacks_held, 0);
	assert_null(oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE, 0, 0, ONCPU_EXIT));
}

/*
 * A copy too short for the walk: the frames found, rooted under
 * "[stack cut]" "truncated", never posing as a whole stack; a sample in
 * the kernel adds its kernel frames after the user ones; one whose user
 * registers could not be read is its kernel frames alone.
 */
static void test_cut_and_kernel_stacks(void **state)
{
	struct ctx *c = *state;
	static struct pl_ev_sample ev;
	struct oncpu_result *r;
	const struct pl_stack *cut = NULL, *kern = NULL, *noregs = NULL;

	ev = rec[0];
	ev.stack_len = 64;
	ev.hdr.size = (uint32_t)(offsetof(struct pl_ev_sample, stack) + 64);
	feed(c->oc, &ev, 3);
	ev = rec[0];
	ev.flags = PL_SAMPLE_IN_KERNEL;
	ev.nkern = 2; /* the leaf first */
	ev.kern[0] = c->kfn[0] ? c->kfn[0]->addr + 4 : 0xffffffff81001000ull;
	ev.kern[1] = c->kfn[1] ? c->kfn[1]->addr + 8 : 0xffffffff81002000ull;
	feed(c->oc, &ev, 4);
	ev.flags = PL_SAMPLE_IN_KERNEL | PL_SAMPLE_NO_REGS;
	feed(c->oc, &ev, 1);
	assert_int_equal(oncpu__stats(c->oc)->stacks_cut, 3);
	assert_int_equal(oncpu__stats(c->oc)->kernel_frames, 10);

	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE, 8, 0, ONCPU_RUNNING);
	assert_non_null(r);
	assert_int_equal(r->oc.samples, 8);
	assert_int_equal(r->oc.unattributed, 0);
	assert_int_equal(r->oc.nstacks, 3);
	for (uint32_t i = 0; i < r->oc.nstacks; i++) {
		const struct pl_stack *s = &r->oc.stacks[i];

		if (s->samples == 3)
			cut = s;
		else if (s->samples == 4)
			kern = s;
		else if (s->samples == 1)
			noregs = s;
	}
	assert_non_null(cut);
	assert_non_null(kern);
	assert_non_null(noregs);
	/* most samples first */
	assert_ptr_equal(&r->oc.stacks[0], kern);
	assert_string_equal(cut->user[0].object, "[stack cut]");
	assert_string_equal(fn(&cut->user[0]), "truncated");
	assert_string_equal(fn(&cut->user[cut->nuser - 1]), "take");
	assert_int_equal(cut->nkern, 0);
	assert_whole_chain(kern);
	assert_int_equal(kern->nkern, 2);
	assert_true(kern->kern[0].kernel && kern->kern[1].kernel);
	if (c->kfn[0]) { /* outermost first: kern[1] of the record, then kern[0] */
		assert_string_equal(fn(&kern->kern[0]), c->kfn[1]->name);
		assert_int_equal(kern->kern[0].offset, 8);
		assert_string_equal(fn(&kern->kern[1]), c->kfn[0]->name);
		assert_int_equal(kern->kern[1].offset, 4);
	}
	assert_int_equal(noregs->nuser, 0);
	assert_int_equal(noregs->nkern, 2);
	/* the function where each ran: the leaf, kernel included */
	assert_int_equal(r->oc.nfns, 2);
	assert_int_equal(r->oc.fns[0].samples, 5);
	assert_string_equal(r->oc.fns[0].object, "[kernel]");
	assert_non_null(r->oc.fns[1].function);
	assert_string_equal(r->oc.fns[1].function, "take");
	assert_int_equal(r->oc.fns[1].samples, 3);
	/* and the object: where user code ran or entered the kernel */
	assert_int_equal(r->oc.nobjs, 2);
	assert_string_equal(r->oc.objs[0].object, c->exe);
	assert_int_equal(r->oc.objs[0].samples, 7);
	assert_string_equal(r->oc.objs[1].object, "[kernel]");
	assert_int_equal(r->oc.objs[1].samples, 1);
	oncpu_result__free(r);
	/* not consumed: still there, with the same figures */
	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE, 8, 0, ONCPU_RUNNING);
	assert_non_null(r);
	assert_int_equal(r->oc.nstacks, 3);
	oncpu_result__free(r);
	assert_int_equal(oncpu__stats(c->oc)->stacks_held, 3);
}

/*
 * Bounds: with room for 2 stacks in all, a third distinct stack's samples
 * are unattributed ("stack_table_full"), counted, and the kept ones keep
 * counting.
 */
static void test_table_bound_counts_what_it_cannot_keep(void **state)
{
	struct ctx *c = *state;
	struct oncpu *oc = make(c, 2);
	static struct pl_ev_sample ev;
	struct oncpu_result *r;

	ev = rec[0];
	feed(oc, &ev, 2);
	ev.flags = PL_SAMPLE_IN_KERNEL | PL_SAMPLE_NO_REGS;
	ev.nkern = 1;
	ev.kern[0] = 0xffffffff81001000ull;
	feed(oc, &ev, 3);
	/* another stack: a named kernel function, or (kallsyms hidden: every
	 * kernel frame unnamed and alike) a deeper one */
	if (c->kfn[1]) {
		ev.kern[0] = c->kfn[1]->addr;
	} else {
		ev.nkern = 2;
		ev.kern[1] = 0xffffffff81003000ull;
	}
	feed(oc, &ev, 4);
	feed(oc, &rec[0], 1);
	assert_int_equal(oncpu__stats(oc)->table_full, 4);
	assert_int_equal(oncpu__stats(oc)->stacks_held, 2);

	r = oncpu__collect(oc, (uint32_t)getpid(), IMAGE, 10, 0, ONCPU_EXIT);
	assert_non_null(r);
	assert_int_equal(r->oc.samples, 10);
	assert_int_equal(r->oc.unattributed, 4);
	assert_int_equal(r->oc.unatt_table, 4);
	assert_int_equal(r->oc.unatt_ring, 0);
	assert_int_equal(r->oc.nstacks, 2);
	assert_int_equal(r->oc.stacks[0].samples, 3);
	assert_int_equal(r->oc.stacks[1].samples, 3);
	oncpu_result__free(r);
	oncpu__free(oc);
}

/* Records whose sizes do not add up are refused and counted; an image the
 * kernel counted samples of but none reached user space is all unattributed. */
static void test_malformed_records_and_an_image_without_stacks(void **state)
{
	struct ctx *c = *state;
	static struct pl_ev_sample ev;
	struct oncpu_result *r;

	ev = rec[0];
	oncpu__on_sample(c->oc, &ev, offsetof(struct pl_ev_sample, stack) - 1);
	oncpu__on_sample(c->oc, &ev, offsetof(struct pl_ev_sample, stack) + ev.stack_len - 1);
	ev.nkern = PL_KSTACK_DEPTH + 1;
	oncpu__on_sample(c->oc, &ev, ev.hdr.size);
	ev = rec[0];
	ev.stack_len = PL_STACK_DUMP_MAX + 1;
	oncpu__on_sample(c->oc, &ev, sizeof(ev));
	assert_int_equal(oncpu__stats(c->oc)->samples, 4);
	assert_int_equal(oncpu__stats(c->oc)->malformed, 4);
	assert_int_equal(oncpu__stats(c->oc)->stacks_held, 0);

	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE + 1, 6, 6, ONCPU_EXIT);
	assert_non_null(r);
	assert_int_equal(r->oc.samples, 6);
	assert_int_equal(r->oc.unattributed, 6);
	assert_int_equal(r->oc.unatt_ring, 6);
	assert_int_equal(r->oc.nstacks, 0);
	assert_int_equal(r->oc.nobjs, 0);
	oncpu_result__free(r);
	assert_null(oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE + 2, 0, 0, ONCPU_EXIT));
}

/* The sweep drops images the kernel no longer has, and keeps live ones. */
static void test_sweep_forgets_ended_images_and_keeps_live_ones(void **state)
{
	struct ctx *c = *state;
	static struct pl_ev_sample ev;
	struct oncpu_result *r;

	ev = rec[0];
	feed(c->oc, &ev, 2);
	ev.image_id = IMAGE + 7;
	feed(c->oc, &ev, 3);
	c->live = (struct live){ .image = { IMAGE + 7 }, .n = 1 };
	oncpu__sweep(c->oc, 1);
	assert_int_equal(oncpu__stats(c->oc)->orphans_swept, 1);
	assert_int_equal(oncpu__stats(c->oc)->stacks_held, 1);
	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE, 2, 0, ONCPU_EXIT);
	assert_non_null(r);
	assert_int_equal(r->oc.unattributed, 2); /* its stacks went with the sweep */
	oncpu_result__free(r);
	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE + 7, 3, 0, ONCPU_EXIT);
	assert_non_null(r);
	assert_int_equal(r->oc.nstacks, 1);
	assert_int_equal(r->oc.stacks[0].samples, 3);
	oncpu_result__free(r);
}

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Many samples of the same place: every one walked to the end and counted
 * in the one stack (the caches give the walk's own answer). Prints the
 * CPU time per sample, first and at steady state: a figure for
 * docs/performance.md, not a bound (timing is never gated here).
 */
static void test_repeated_samples_agree(void **state)
{
	struct ctx *c = *state;
	struct oncpu_result *r;
	const unsigned n = 20000;
	uint64_t t0 = thread_ns(), t1, t2;

	feed(c->oc, &rec[0], 1);
	t1 = thread_ns();
	feed(c->oc, &rec[0], n);
	feed(c->oc, &rec[1], n);
	t2 = thread_ns();
	fprintf(stderr, "  first sample %.1f us; then %.2f us per sample (%u user frames each)\n", (t1 - t0) / 1e3,
		(t2 - t1) / 1e3 / (2 * n), (unsigned)(oncpu__stats(c->oc)->user_frames / (2 * n + 1)));
	assert_int_equal(oncpu__unwind_stats(c->oc)->stops[UNWIND_STOP_END], 2 * n + 1);
	assert_true(oncpu__unwind_stats(c->oc)->rows_cached > 0);
	assert_true(oncpu__stats(c->oc)->names_cached > 0);
	r = oncpu__collect(c->oc, (uint32_t)getpid(), IMAGE, 2 * n + 1, 0, ONCPU_EXIT);
	assert_non_null(r);
	assert_int_equal(r->oc.nstacks, 1);
	assert_int_equal(r->oc.stacks[0].samples, 2 * n + 1);
	assert_int_equal(r->oc.unattributed, 0);
	assert_whole_chain(&r->oc.stacks[0]);
	oncpu_result__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_samples_merge_by_function_with_exact_sums, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_and_kernel_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_bound_counts_what_it_cannot_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_records_and_an_image_without_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_forgets_ended_images_and_keeps_live_ones, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeated_samples_agree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
