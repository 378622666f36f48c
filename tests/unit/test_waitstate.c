// SPDX-License-Identifier: MIT
/*
 * test_waitstate.c - waitstate.c against real processes of its own: a child
 * blocked reading a pipe nobody writes is sleeping, and the same child
 * stopped (SIGSTOP) is stopped, never sleeping; its kernel stack, when
 * readable, is symbol names only.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "process/waitstate.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waitstate_tells_stopped_from_sleeping, setup, teardown),
		cmocka_unit_test(test_waitstate_gone_process_is_enoent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
