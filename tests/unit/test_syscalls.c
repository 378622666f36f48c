// SPDX-License-Identifier: MIT
/*
 * test_syscalls.c - syscall and errno names.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "plumbline.h"
#include "syscalls.h"

static void test_syscall_name_known_numbers(void **state)
{
	assert_string_equal(syscall_name(0), "read");
	assert_string_equal(syscall_name(1), "write");
#if defined(__x86_64__)
	assert_string_equal(syscall_name(39), "getpid");
	assert_string_equal(syscall_name(110), "getppid");
	assert_string_equal(syscall_name(257), "openat");
	assert_string_equal(syscall_name(59), "execve");
	assert_string_equal(syscall_name(334), "rseq");
#endif
}

static void test_syscall_number_is_inverse_of_name(void **state)
{
#if defined(__x86_64__)
	assert_int_equal(syscall_number("openat"), 257);
	assert_int_equal(syscall_number("getpid"), 39);
	assert_int_equal(syscall_number("getppid"), 110);
#endif
	assert_int_equal(syscall_number("read"), 0);
	for (unsigned i = 0; i < PL_SYSCALL_TABLE_LEN; i++) {
		const char *n = syscall_name(i);

		if (n)
			assert_int_equal(syscall_number(n), (int)i);
	}
}

static void test_syscall_name_out_of_range_or_hole_is_null(void **state)
{
	assert_null(syscall_name(PL_SYSCALL_TABLE_LEN));
	assert_null(syscall_name(PL_SYSCALL_TABLE_LEN + 1));
	assert_null(syscall_name(UINT_MAX));
	assert_null(syscall_name((unsigned)-1));
#if defined(__x86_64__)
	assert_null(syscall_name(400)); /* x86_64 leaves 335..423 unassigned */
#endif
}

static void test_syscall_number_unknown_is_minus_one(void **state)
{
	assert_int_equal(syscall_number("no_such_syscall"), -1);
	assert_int_equal(syscall_number(""), -1);
	assert_int_equal(syscall_number("OPENAT"), -1);
}

static void test_errno_name_gives_symbolic_names(void **state)
{
	assert_string_equal(errno_name(2), "ENOENT");
	assert_string_equal(errno_name(ENOENT), "ENOENT");
	assert_string_equal(errno_name(EACCES), "EACCES");
	assert_string_equal(errno_name(EPERM), "EPERM");
	assert_string_equal(errno_name(ENAMETOOLONG), "ENAMETOOLONG");
}

static void test_errno_name_non_positive_or_unknown_is_null(void **state)
{
	assert_null(errno_name(0));
	assert_null(errno_name(-2));
	assert_null(errno_name(100000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscall_name_known_numbers),
		cmocka_unit_test(test_syscall_number_is_inverse_of_name),
		cmocka_unit_test(test_syscall_name_out_of_range_or_hole_is_null),
		cmocka_unit_test(test_syscall_number_unknown_is_minus_one),
		cmocka_unit_test(test_errno_name_gives_symbolic_names),
		cmocka_unit_test(test_errno_name_non_positive_or_unknown_is_null),
	};

	return cmocka_run_group_tests_name("syscalls", tests, NULL, NULL);
}
