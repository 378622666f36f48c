// SPDX-License-Identifier: MIT
/*
 * test_waitstate.c - waitstate.c against real processes of its own: a child
 * blocked reading a pipe nobody writes is sleeping, and the same child
 * stopped (SIGSTOP) is stopped, never sleeping; its kernel stack, when
 * readable, is symbol names only. The BPF records (struct pl_wait_rec,
 * bpf/waits.bpf.c) are parsed with their bounds: hostile records are
 * rejected one by one, and a thread's BPF stack is preferred to /proc's, named through the caller's namer and filtered like
 * /proc's lines. (tests/bpf/test_waitstacks.c reads real ones.)
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "process/waitstate.h"
#include "plumbline.h"

struct fx {
	pid_t child;
	int wr;
};

static int setup(void **state)
{
	static struct fx f;
	int p[2];
	char c;

	if (pipe(p) < 0)
		return -1;
	f.child = fork();
	if (f.child < 0)
		return -1;
	if (f.child == 0) {
		close(p[1]);
		(void)!read(p[0], &c, 1); /* blocks: nobody writes */
		_exit(0);
	}
	close(p[0]);
	f.wr = p[1];
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	kill(f->child, SIGKILL);
	waitpid(f->child, NULL, 0);
	close(f->wr);
	return 0;
}

/* Wait until the child's state letter is st (up to 5 s). */
static char wait_state(pid_t pid, char st)
{
	char got = 0;

	for (int i = 0; i < 500 && (got = waitstate__proc_state((uint32_t)pid)) != st; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	return got;
}

static void test_waitstate_tells_stopped_from_sleeping(void **state)
{
	struct fx *f = *state;
	struct pl_wait w;

	assert_int_equal(wait_state(f->child, 'S'), 'S');
	assert_int_equal(waitstate__read((uint32_t)f->child, NULL, &w), 0);
	assert_int_equal(w.state, 'S');
	assert_string_equal(pl_wait__state_name(w.state), "sleeping");
	assert_int_equal(w.threads, 1);
	assert_int_equal(w.blocked, 1);
	assert_int_equal(w.stopped, 0);
	assert_int_equal(w.nt, 1);
	assert_int_equal(w.t[0].tid, (uint32_t)f->child);
	/* symbol names only: no '+', '/', '[' or address */
	for (uint32_t k = 0; k < w.t[0].nframes; k++)
		assert_int_equal(strcspn(w.t[0].frames[k], "+/[] "), strlen(w.t[0].frames[k]));
	if (w.t[0].stack_read && getuid() == 0 && w.t[0].nframes) {
		bool pipe_frame = false;

		for (uint32_t k = 0; k < w.t[0].nframes; k++)
			pipe_frame |= strstr(w.t[0].frames[k], "pipe") != NULL;
		assert_true(pipe_frame);
	}

	kill(f->child, SIGSTOP);
	assert_int_equal(wait_state(f->child, 'T'), 'T');
	assert_int_equal(waitstate__read((uint32_t)f->child, NULL, &w), 0);
	assert_string_equal(pl_wait__state_name(w.state), "stopped");
	assert_int_equal(w.stopped, 1);
	assert_int_equal(w.blocked, 0);
	kill(f->child, SIGCONT);
}

static void test_waitstate_gone_process_is_enoent(void **state)
{
	struct pl_wait w;

	(void)state;
	/* pid_max is at most 2^22: this pid never exists */
	assert_int_equal(waitstate__read(UINT32_MAX - 1, NULL, &w), -ENOENT);
	assert_int_equal(waitstate__proc_state(UINT32_MAX - 1), 0);
}

static struct pl_wait_rec rec(uint32_t tgid, uint32_t tid, int32_t nframes)
{
	struct pl_wait_rec r = { .version = PL_ABI_VERSION, .size = sizeof(r), .tid = tid, .tgid = tgid,
				 .state = 1, .nframes = nframes };

	for (int i = 0; i < PL_WAIT_KFRAMES; i++)
		r.ips[i] = 0xffffffff81000000ull + (uint64_t)i;
	return r;
}

static void test_waitstate_parse_recs_bounds(void **state)
{
	struct pl_wait_rec in[10], out[10];
	unsigned char raw[sizeof(in) + 1];
	uint32_t bad = 99;
	size_t n;

	(void)state;
	in[0] = rec(100, 100, 3);
	in[1] = rec(100, 101, PL_WAIT_KFRAMES);
	in[2] = rec(100, 102, PL_WAIT_KFRAMES + 1); /* more frames than the record holds */
	in[3] = rec(200, 200, 2);                   /* another process */
	in[4] = rec(100, 104, -14);                 /* the kernel's -EFAULT: kept, no frames */
	in[5] = rec(100, 0, 2);                     /* no tid */
	in[6] = rec(100, 106, 2);
	in[6].version = PL_ABI_VERSION + 1;
	in[7] = rec(100, 107, 2);
	in[7].size = sizeof(in[7]) - 8;
	in[8] = rec(100, 108, INT32_MIN);
	in[9] = rec(100, 109, 1);
	/* unaligned on purpose: the parser copies each record out */
	memcpy(raw + 1, in, sizeof(in));
	n = waitstate__parse_recs(raw + 1, sizeof(in), 100, out, 10, &bad);
	assert_int_equal(n, 5);
	assert_int_equal(bad, 5);
	assert_int_equal(out[0].tid, 100);
	assert_int_equal(out[0].nframes, 3);
	assert_int_equal(out[1].tid, 101);
	assert_int_equal(out[1].nframes, PL_WAIT_KFRAMES);
	assert_int_equal(out[2].tid, 104);
	assert_int_equal(out[2].nframes, 0);
	assert_int_equal(out[3].tid, 108);
	assert_int_equal(out[3].nframes, 0);
	assert_int_equal(out[4].tid, 109);
	assert_int_equal(out[4].ips[0], 0xffffffff81000000ull);

	/* a trailing partial record is not one: the read stopped at its bound */
	n = waitstate__parse_recs(raw + 1, sizeof(in) - 1, 100, out, 10, &bad);
	assert_int_equal(n, 4);
	assert_int_equal(bad, 5);
	n = waitstate__parse_recs(raw + 1, sizeof(in[0]) - 1, 100, out, 10, &bad);
	assert_int_equal(n, 0);
	assert_int_equal(bad, 0);
	/* the output bound */
	n = waitstate__parse_recs(raw + 1, sizeof(in), 100, out, 2, NULL);
	assert_int_equal(n, 2);
	assert_int_equal(out[1].tid, 101);
	/* nothing at all */
	assert_int_equal(waitstate__parse_recs(NULL, 0, 100, out, 10, &bad), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(waitstate__parse_recs(raw, 0, 100, out, 10, NULL), 0);
}

/* A stand-in for the sensor's BPF programs, for waitstate's half of the work:
 * the records it hands over for the real child, as the kernel lays them. */
struct fake_iter {
	struct pl_wait_rec r[2];
	size_t n;
	long err; /* < 0: the read fails so */
	uint32_t asked;
};

static long fake_read(void *ctx, uint32_t tgid, void *buf, size_t size)
{
	struct fake_iter *it = ctx;
	size_t len = it->n * sizeof(it->r[0]);

	it->asked = tgid;
	if (it->err < 0)
		return it->err;
	if (len > size)
		len = size;
	if (len)
		memcpy(buf, it->r, len);
	return (long)len;
}

/* ips 0..5 of rec() named: one unknown, one hostile, one too long. */
static void fake_name(void *ctx, uint64_t ip, char *name, size_t size)
{
	static const char *const names[] = { "anon_pipe_read", "", "vfs_read\n[<0>] 0xffffffff81000000",
					     "ksys_read+0x10/0x20", NULL, "do_syscall_64" };
	size_t i = (size_t)(ip - 0xffffffff81000000ull);

	(void)ctx;
	if (i == 4) { /* a name longer than a frame holds */
		memset(name, 'x', size - 1);
		name[size - 1] = '\0';
		return;
	}
	snprintf(name, size, "%s", i < 6 ? names[i] : "");
}

static void test_waitstate_prefers_bpf_stack(void **state)
{
	struct fx *f = *state;
	struct fake_iter it = { .n = 2 };
	struct waitstate_kstacks ks = { .read = fake_read, .read_ctx = &it, .name = fake_name };
	struct pl_wait w;

	assert_int_equal(wait_state(f->child, 'S'), 'S');
	it.r[0] = rec((uint32_t)f->child + 1, (uint32_t)f->child, 6); /* another tgid: rejected */
	it.r[1] = rec((uint32_t)f->child, (uint32_t)f->child, 6);
	assert_int_equal(waitstate__read((uint32_t)f->child, &ks, &w), 0);
	assert_int_equal(it.asked, (uint32_t)f->child);
	assert_int_equal(w.nt, 1);
	assert_true(w.t[0].stack_read);
	assert_int_equal(w.t[0].stack_source, PL_WAIT_STACK_BPF);
	/* innermost first; the unknown frame dropped, the rest cut at the
	 * first character a symbol name never has, the long one bounded */
	assert_int_equal(w.t[0].nframes, 5);
	assert_string_equal(w.t[0].frames[0], "anon_pipe_read");
	assert_string_equal(w.t[0].frames[1], "vfs_read");
	assert_string_equal(w.t[0].frames[2], "ksys_read");
	assert_int_equal(strlen(w.t[0].frames[3]), PL_WAIT_NAME - 1);
	assert_string_equal(w.t[0].frames[4], "do_syscall_64");

	/* BPF took the thread as running: /proc then */
	it.r[1].state = 0;
	assert_int_equal(waitstate__read((uint32_t)f->child, &ks, &w), 0);
	assert_int_not_equal(w.t[0].stack_source, PL_WAIT_STACK_BPF);
	assert_int_equal(w.t[0].stack_source, w.t[0].stack_read ? PL_WAIT_STACK_PROC : 0);
	/* no frame with a name: /proc */
	it.r[1] = rec((uint32_t)f->child, (uint32_t)f->child, 2);
	it.r[1].ips[0] = it.r[1].ips[1] = 0xffffffff81000001ull;
	assert_int_equal(waitstate__read((uint32_t)f->child, &ks, &w), 0);
	assert_int_not_equal(w.t[0].stack_source, PL_WAIT_STACK_BPF);
	/* the BPF read fails: /proc, and the rest of the read as without it */
	it.err = -EPERM;
	assert_int_equal(waitstate__read((uint32_t)f->child, &ks, &w), 0);
	assert_int_not_equal(w.t[0].stack_source, PL_WAIT_STACK_BPF);
	assert_int_equal(w.state, 'S');
	assert_int_equal(w.threads, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waitstate_tells_stopped_from_sleeping, setup, teardown),
		cmocka_unit_test(test_waitstate_gone_process_is_enoent),
		cmocka_unit_test(test_waitstate_parse_recs_bounds),
		cmocka_unit_test_setup_teardown(test_waitstate_prefers_bpf_stack, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
