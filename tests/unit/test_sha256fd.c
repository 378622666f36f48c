// SPDX-License-Identifier: MIT
/*
 * test_sha256fd.c - the streamed SHA-256 of an fd: the known digests, more
 * than one chunk, the bound (before and while reading), cancellation, read
 * errors, and ret and the fd's offset left alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "sha256fd.h"

/* A memfd holding len bytes of data (or of 'a' when data is NULL). */
static int memfd_with(const char *data, size_t len)
{
	int fd = memfd_create("sha256fd", MFD_CLOEXEC);

	assert_true(fd >= 0);
	if (data) {
		assert_int_equal(write(fd, data, len), (ssize_t)len);
	} else {
		char *buf = malloc(len);

		assert_non_null(buf);
		memset(buf, 'a', len);
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
		free(buf);
	}
	return fd;
}

static void test_sha256_fd_gives_the_known_digests(void **state)
{
	char hex[SHA256_HEX_LEN + 1];
	int fd;

	(void)state;
	fd = memfd_with("", 0);
	assert_int_equal(sha256_fd(fd, 100, NULL, hex), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	close(fd);
	fd = memfd_with("abc", 3);
	assert_int_equal(sha256_fd(fd, 3, NULL, hex), 0); /* exactly at the bound */
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* from offset 0 whatever the fd's offset, which stays where it was */
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 3);
	close(fd);
}

static void test_sha256_fd_streams_more_than_one_chunk(void **state)
{
	char hex[SHA256_HEX_LEN + 1];
	int fd = memfd_with(NULL, 1000000); /* the FIPS 180-2 "one million a" vector */

	(void)state;
	assert_int_equal(sha256_fd(fd, 1u << 20, NULL, hex), 0);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	close(fd);
}

static void test_sha256_fd_refuses_a_file_over_the_bound_and_leaves_ret(void **state)
{
	char hex[SHA256_HEX_LEN + 1] = "untouched";
	int fd = memfd_with("abcd", 4);

	(void)state;
	assert_int_equal(sha256_fd(fd, 3, NULL, hex), -EFBIG);
	assert_string_equal(hex, "untouched");
	close(fd);
}

static void test_sha256_fd_stops_when_asked(void **state)
{
	char hex[SHA256_HEX_LEN + 1] = "untouched";
	atomic_bool stop = true;
	int fd = memfd_with("abc", 3);

	(void)state;
	assert_int_equal(sha256_fd(fd, 100, &stop, hex), -ECANCELED);
	assert_string_equal(hex, "untouched");
	atomic_store(&stop, false);
	assert_int_equal(sha256_fd(fd, 100, &stop, hex), 0);
	close(fd);
}

static void test_sha256_fd_gives_the_read_error(void **state)
{
	char hex[SHA256_HEX_LEN + 1] = "untouched";
	int p[2];

	(void)state;
	assert_int_equal(sha256_fd(-1, 100, NULL, hex), -EBADF);
	assert_int_equal(pipe(p), 0); /* no pread on a pipe */
	assert_int_equal(sha256_fd(p[0], 100, NULL, hex), -ESPIPE);
	assert_string_equal(hex, "untouched");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_fd_gives_the_known_digests),
		cmocka_unit_test(test_sha256_fd_streams_more_than_one_chunk),
		cmocka_unit_test(test_sha256_fd_refuses_a_file_over_the_bound_and_leaves_ret),
		cmocka_unit_test(test_sha256_fd_stops_when_asked),
		cmocka_unit_test(test_sha256_fd_gives_the_read_error),
	};

	return cmocka_run_group_tests_name("sha256fd", tests, NULL, NULL);
}
