// SPDX-License-Identifier: MIT
/*
 * test_identity_trust.c - which files only root could have written, so that
 * their build-id may name them (identity__file_is_roots()).
 *
 * Needs root to make files of root's and of another user's; skipped
 * otherwise. The temp dir is under /tmp, root's and sticky.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "identity/identity.h"
#include "unit_helpers.h"

#define NOBODY 65534

struct fixture {
	char dir[64];  /* root's, 0755, in /tmp */
	char file[96]; /* dir/prog: root's, 0755 */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/pl-unit-trust-XXXXXX");
	if (!mkdtemp(f->dir) || chmod(f->dir, 0755) < 0) {
		free(f);
		return -1;
	}
	snprintf(f->file, sizeof(f->file), "%s/prog", f->dir);
	fd = open(f->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, "\x7f" "ELF", 4) != 4) {
		free(f);
		return -1;
	}
	close(fd);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ut_rm_rf(f->dir);
	free(f);
	return 0;
}

static bool roots(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return identity__file_is_roots(path, &st);
}

static void test_trust_a_root_file_in_root_dirs_under_sticky_tmp(void **state)
{
	struct fixture *f = *state;

	if (geteuid() != 0)
		skip();
	assert_true(roots(f->file));
	assert_true(roots("/usr/bin/true") || access("/usr/bin/true", F_OK) != 0);
}

static void test_trust_refuses_a_file_others_may_write_or_own(void **state)
{
	struct fixture *f = *state;

	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(f->file, 0775), 0);
	assert_false(roots(f->file));
	assert_int_equal(chmod(f->file, 0757), 0);
	assert_false(roots(f->file));
	assert_int_equal(chmod(f->file, 0755), 0);
	assert_int_equal(chown(f->file, NOBODY, 0), 0);
	assert_false(roots(f->file));
	assert_int_equal(chown(f->file, 0, 0), 0);
	assert_true(roots(f->file));
}

static void test_trust_refuses_a_dir_others_may_write_unless_sticky(void **state)
{
	struct fixture *f = *state;

	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(f->dir, 0777), 0);
	assert_false(roots(f->file));
	assert_int_equal(chmod(f->dir, 01777), 0);
	assert_true(roots(f->file));
	assert_int_equal(chmod(f->dir, 0775), 0);
	assert_false(roots(f->file));
	/* a directory of another user's, however closed */
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chown(f->dir, NOBODY, 0), 0);
	assert_false(roots(f->file));
	assert_int_equal(chown(f->dir, 0, 0), 0);
	assert_true(roots(f->file));
}

static void test_trust_refuses_a_path_that_is_not_the_file(void **state)
{
	struct fixture *f = *state;
	char link[128], other[128], dots[160];
	struct stat st;
	int fd;

	if (geteuid() != 0)
		skip();
	assert_int_equal(stat(f->file, &st), 0);
	/* a symlink, a name with "..", another file, no name */
	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(f->file, link), 0);
	assert_false(identity__file_is_roots(link, &st));
	snprintf(dots, sizeof(dots), "%s/../%s/prog", f->dir, f->dir + strlen("/tmp/"));
	assert_false(identity__file_is_roots(dots, &st));
	snprintf(other, sizeof(other), "%s/other", f->dir);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	close(fd);
	assert_false(identity__file_is_roots(other, &st));
	assert_false(identity__file_is_roots(NULL, &st));
	assert_false(identity__file_is_roots("prog", &st));
	assert_false(identity__file_is_roots("/memfd:sshd (deleted)", &st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trust_a_root_file_in_root_dirs_under_sticky_tmp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_a_file_others_may_write_or_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_a_dir_others_may_write_unless_sticky, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_a_path_that_is_not_the_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
