// SPDX-License-Identifier: MIT
/*
 * test_fileread.c - the bounded read of an untrusted file: a regular file
 * read whole; a FIFO, a directory or a device refused without being opened
 * (a FIFO would block the open); a symlink followed or refused; the size
 * bound exact; each refusal naming its step, with the outputs untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileread.h"

struct dir {
	char path[64];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/pl-fileread-XXXXXX");
	if (!mkdtemp(d->path)) {
		free(d);
		return -1;
	}
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	for (const char *const *n = (const char *const[]){ "file", "fifo", "link", "sub", NULL }; *n; n++) {
		snprintf(cmd, sizeof(cmd), "%s/%s", d->path, *n);
		if (unlink(cmd) < 0)
			rmdir(cmd);
	}
	rmdir(d->path);
	free(d);
	return 0;
}

static void put(const struct dir *d, const char *name, const char *text, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", d->path, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_file_read_reads_a_regular_file_whole(void **state)
{
	char path[128], *buf = NULL;
	struct file_read_error why;
	size_t len = 0;

	put(*state, "file", "abc\n", path, sizeof(path));
	assert_int_equal(file_read_bounded(path, 4, 0, &buf, &len, &why), 0); /* exactly at the bound */
	assert_int_equal(len, 4);
	assert_string_equal(buf, "abc\n");
	free(buf);
}

static void test_file_read_refuses_past_the_bound_and_leaves_the_outputs(void **state)
{
	char path[128], *buf = (char *)"untouched";
	struct file_read_error why;
	size_t len = 7;

	put(*state, "file", "abcde", path, sizeof(path));
	assert_int_equal(file_read_bounded(path, 4, 0, &buf, &len, &why), -EFBIG);
	assert_int_equal(why.step, FILE_READ_SIZE);
	assert_int_equal(why.size, 5);
	assert_string_equal(buf, "untouched");
	assert_int_equal(len, 7);
}

static void test_file_read_refuses_a_fifo_without_waiting_for_a_writer(void **state)
{
	const struct dir *d = *state;
	char path[128], *buf = NULL;
	struct file_read_error why;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/fifo", d->path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(file_read_bounded(path, 100, 0, &buf, &len, &why), -EINVAL);
	assert_int_equal(why.step, FILE_READ_KIND);
	assert_true(S_ISFIFO(why.mode));
	snprintf(path, sizeof(path), "%s/sub", d->path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(file_read_bounded(path, 100, 0, &buf, &len, &why), -EINVAL);
	assert_true(S_ISDIR(why.mode));
	assert_int_equal(file_read_bounded("/dev/null", 100, 0, &buf, &len, &why), -EINVAL);
	assert_true(S_ISCHR(why.mode));
	assert_null(buf);
}

static void test_file_read_follows_a_symlink_unless_told_not_to(void **state)
{
	const struct dir *d = *state;
	char path[128], link[128], *buf = NULL;
	struct file_read_error why;
	size_t len = 0;

	put(d, "file", "x", path, sizeof(path));
	snprintf(link, sizeof(link), "%s/link", d->path);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(file_read_bounded(link, 100, 0, &buf, &len, &why), 0);
	assert_string_equal(buf, "x");
	free(buf);
	buf = NULL;
	assert_int_equal(file_read_bounded(link, 100, FILE_READ_NOFOLLOW, &buf, &len, &why), -ELOOP);
	assert_int_equal(why.step, FILE_READ_KIND);
	assert_true(S_ISLNK(why.mode));
	assert_null(buf);
}

static void test_file_read_names_the_step_of_a_missing_file(void **state)
{
	const struct dir *d = *state;
	char path[128], *buf = NULL;
	struct file_read_error why;
	struct stat st;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/none", d->path);
	assert_int_equal(file_read_bounded(path, 100, 0, &buf, &len, &why), -ENOENT);
	assert_int_equal(why.step, FILE_READ_STAT);
	assert_int_equal(file_open_regular(path, 100, 0, &st, &why), -ENOENT);
}

static void test_file_read_fd_bounds_what_fstat_said(void **state)
{
	char path[128], *buf = NULL;
	struct file_read_error why;
	struct stat st;
	size_t len = 0;
	int fd;

	put(*state, "file", "abcdef", path, sizeof(path));
	fd = file_open_regular(path, SIZE_MAX, 0, &st, &why); /* no bound yet: the caller checks first */
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 6);
	assert_int_equal(file_read_fd(fd, &st, 5, &buf, &len, &why), -EFBIG);
	assert_int_equal(why.step, FILE_READ_SIZE);
	assert_int_equal(file_read_fd(fd, &st, 6, &buf, &len, &why), 0);
	assert_string_equal(buf, "abcdef");
	free(buf);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_read_reads_a_regular_file_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_read_refuses_past_the_bound_and_leaves_the_outputs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_file_read_refuses_a_fifo_without_waiting_for_a_writer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_file_read_follows_a_symlink_unless_told_not_to, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_read_names_the_step_of_a_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_read_fd_bounds_what_fstat_said, setup, teardown),
	};

	return cmocka_run_group_tests_name("fileread", tests, NULL, NULL);
}
