// SPDX-License-Identifier: MIT
/*
 * test_buildkey.c - build tools and drivers by name, a driver's directory
 * from its exec cwd and its -C options (normalised, bounded, a cut command
 * line or cwd handled), and the "+build:" suffix (buildkey.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "identity/buildkey.h"

/* argv literals as the kernel hands them: "a\0b\0" (the literal's own NUL
 * not counted) */
#define ARGS(lit) (lit), (sizeof(lit) - 1)

static void expect_dir(const char *exe, const char *cwd, bool cut, const char *args, size_t len,
		       const char *want)
{
	char *dir = NULL;

	assert_int_equal(buildkey__driver_dir(exe, cwd, cut, args, len, &dir), 0);
	assert_string_equal(dir, want);
	free(dir);
}

static void test_tools_and_drivers_are_known_by_base_name(void **state)
{
	(void)state;
	assert_true(buildkey__is_driver("/usr/bin/make"));
	assert_true(buildkey__is_driver("ninja"));
	assert_false(buildkey__is_driver("/usr/bin/gcc"));
	assert_true(buildkey__is_keyed("/usr/lib/gcc/x86_64-linux-gnu/12/cc1"));
	assert_true(buildkey__is_keyed("/usr/bin/make"));
	assert_false(buildkey__is_keyed("/usr/bin/python3"));
	assert_false(buildkey__is_keyed(NULL));
	assert_false(buildkey__is_driver(NULL));
}

static void test_driver_dir_is_its_cwd_without_options(void **state)
{
	(void)state;
	expect_dir("/usr/bin/make", "/src/proj", false, ARGS("make\0-j2\0-s\0all\0"), "/src/proj");
	expect_dir("/usr/bin/make", "/", false, ARGS("make\0"), "/");
	/* cmake -C is a cache file, not a directory */
	expect_dir("/usr/bin/cmake", "/src/b", false, ARGS("cmake\0-C\0init.cmake\0..\0"), "/src/b");
	expect_dir("/usr/bin/make", "/src/proj", false, NULL, 0, "/src/proj");
}

static void test_driver_dir_follows_every_directory_option(void **state)
{
	(void)state;
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-C\0proj\0"), "/src/proj");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-Cproj\0"), "/src/proj");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-sC\0proj\0"), "/src/proj");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0--directory=proj\0"), "/src/proj");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0--directory\0proj\0"), "/src/proj");
	/* several accumulate, as make's chdir()s do; absolute ones restart */
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-C\0a\0-C\0b/\0"), "/src/a/b");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-C\0a\0-C\0/opt/x\0"), "/opt/x");
	/* "." and ".." resolved, "//" folded, never above the root */
	expect_dir("/usr/bin/make", "/src/a", false, ARGS("make\0-C\0..//b/./c/..\0"), "/src/b");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-C\0../../..\0"), "/");
	expect_dir("/usr/bin/ninja", "/src", false, ARGS("ninja\0-C\0build\0"), "/src/build");
	expect_dir("/usr/bin/meson", "/src", false, ARGS("meson\0compile\0-C\0build\0"), "/src/build");
}

static void test_other_options_arguments_are_not_directories(void **state)
{
	(void)state;
	/* -f takes the next word: a makefile named "-C" */
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-f\0-C\0x\0"), "/src");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-fC\0x\0"), "/src");
	/* ninja -j takes a number */
	expect_dir("/usr/bin/ninja", "/src", false, ARGS("ninja\0-j\0-C\0x\0"), "/src");
	/* after "--", nothing is an option */
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0--\0-C\0x\0"), "/src");
	/* -C as the last word has no argument; a cut last word is not one */
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-C\0"), "/src");
	expect_dir("/usr/bin/make", "/src", false, ARGS("make\0-C\0pro"), "/src");
}

static void test_a_cut_cwd_keeps_its_tail_marked(void **state)
{
	(void)state;
	expect_dir("/usr/bin/make", "/deep/proj", true, ARGS("make\0"), ".../deep/proj");
	expect_dir("/usr/bin/make", "/deep/proj", true, ARGS("make\0-C\0../..\0"), ".../");
	expect_dir("/usr/bin/make", "/deep/proj", true, ARGS("make\0-C\0/abs\0"), "/abs");
}

static void test_driver_dir_refuses_what_is_not_a_directory(void **state)
{
	char *dir = (char *)1, big[5000];

	(void)state;
	assert_int_equal(buildkey__driver_dir("/usr/bin/make", NULL, false, ARGS("make\0"), &dir), -EINVAL);
	assert_int_equal(buildkey__driver_dir("/usr/bin/make", "rel", false, ARGS("make\0"), &dir), -EINVAL);
	memcpy(big, "make\0-C\0", 8);
	memset(big + 8, 'x', sizeof(big) - 9);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(buildkey__driver_dir("/usr/bin/make", "/src", false, big, sizeof(big), &dir),
			 -ENAMETOOLONG);
	assert_ptr_equal(dir, (char *)1);
}

static void test_suffix_keeps_the_tail_of_a_deep_directory(void **state)
{
	char dir[400], *s = NULL;

	(void)state;
	assert_int_equal(buildkey__suffix("/src/proj", &s), 0);
	assert_string_equal(s, "+build:/src/proj");
	free(s);
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	assert_int_equal(buildkey__suffix(dir, &s), 0);
	assert_int_equal(strlen(s), strlen("+build:...") + 256);
	assert_int_equal(strncmp(s, "+build:...ddd", 13), 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tools_and_drivers_are_known_by_base_name),
		cmocka_unit_test(test_driver_dir_is_its_cwd_without_options),
		cmocka_unit_test(test_driver_dir_follows_every_directory_option),
		cmocka_unit_test(test_other_options_arguments_are_not_directories),
		cmocka_unit_test(test_a_cut_cwd_keeps_its_tail_marked),
		cmocka_unit_test(test_driver_dir_refuses_what_is_not_a_directory),
		cmocka_unit_test(test_suffix_keeps_the_tail_of_a_deep_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
