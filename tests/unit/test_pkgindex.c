// SPDX-License-Identifier: MIT
/*
 * test_pkgindex.c - which package owns a file (sensor/identity/pkgindex.h),
 * and the ELF names an object answers to (objects__read_dynamic()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "unit_helpers.h"
#include <time.h>
#include <unistd.h>

#include "identity/objects.h"
#include "identity/pkgindex.h"

struct fx {
	char dir[64], info[96], status[96];
};

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	snprintf(x->dir, sizeof(x->dir), "%s", "/tmp/plpkg.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->info, sizeof(x->info), "%s/info", x->dir);
	snprintf(x->status, sizeof(x->status), "%s/status", x->dir);
	assert_int_equal(mkdir(x->info, 0755), 0);
	put(x->dir, "status", "Package: libc6\n");
	put(x->info, "libc6:amd64.list", "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libc.so.6\n");
	put(x->info, "libpam-modules:amd64.list",
	    "/lib/x86_64-linux-gnu/security/pam_unix.so\n/usr/lib/x86_64-linux-gnu/security/pam_env.so\n");
	put(x->info, "libpam-modules:amd64.md5sums", "0123 lib/x86_64-linux-gnu/security/pam_evil.so\n");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	ut_rm_rf(x->dir);
	free(x);
	return 0;
}

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_pkgindex_owner_with_and_without_usr(void **state)
{
	struct fx *x = *state;
	struct pkgindex *p;
	const char *pkg;

	assert_int_equal(pkgindex__new(x->info, x->status, &p), 0);
	assert_int_equal(pkgindex__build_now(p), 0);
	assert_int_equal(pkgindex__paths(p), 3); /* directories are no code: not indexed */
	assert_int_equal(pkgindex__owner(p, "/lib/x86_64-linux-gnu", now(), &pkg), PKG_UNKNOWN);
	assert_int_equal(pkgindex__owner(p, "/lib/x86_64-linux-gnu/libc.so.6", now(), &pkg), PKG_OWNED);
	assert_string_equal(pkg, "libc6:amd64");
	/* merged /usr: the kernel's name has the prefix, dpkg's list not, and the other way round */
	assert_int_equal(pkgindex__owner(p, "/usr/lib/x86_64-linux-gnu/libc.so.6", now(), &pkg), PKG_OWNED);
	assert_string_equal(pkg, "libc6:amd64");
	assert_int_equal(pkgindex__owner(p, "/lib/x86_64-linux-gnu/security/pam_env.so", now(), &pkg), PKG_OWNED);
	assert_string_equal(pkg, "libpam-modules:amd64");
	/* a module dropped beside them: no package (only .list files count) */
	assert_int_equal(pkgindex__owner(p, "/usr/lib/x86_64-linux-gnu/security/pam_evil.so", now(), &pkg), PKG_NONE);
	assert_null(pkg);
	assert_int_equal(pkgindex__owner(p, "relative.so", now(), &pkg), PKG_UNKNOWN);
	pkgindex__free(p);
}

static void test_pkgindex_built_off_thread_then_refreshed_when_dpkg_changes(void **state)
{
	struct fx *x = *state;
	const char *evil = "/usr/lib/x86_64-linux-gnu/security/pam_evil.so";
	struct pkgindex *p;
	uint64_t t = now();
	enum pkg_owner o;

	assert_int_equal(pkgindex__new(x->info, x->status, &p), 0);
	/* the first question starts the build and is answered "unknown" */
	assert_int_equal(pkgindex__owner(p, evil, t, NULL), PKG_UNKNOWN);
	pkgindex__wait(p);
	assert_int_equal(pkgindex__owner(p, evil, t + 1, NULL), PKG_NONE);
	/* dpkg installs a package that owns it: seen after the recheck interval */
	put(x->info, "evil.list", "/lib/x86_64-linux-gnu/security/pam_evil.so\n");
	put(x->dir, "status", "Package: libc6\n\nPackage: evil\n"); /* a new entry moved the info dir's mtime too */
	assert_int_equal(pkgindex__owner(p, evil, t + 2, NULL), PKG_NONE); /* not rechecked yet */
	o = pkgindex__owner(p, evil, t + PKGINDEX_RECHECK_NS + 2, NULL);  /* starts the rebuild; old answer */
	assert_int_equal(o, PKG_NONE);
	pkgindex__wait(p);
	assert_int_equal(pkgindex__owner(p, evil, t + PKGINDEX_RECHECK_NS + 3, NULL), PKG_OWNED);
	pkgindex__free(p);
}

static void test_pkgindex_no_dpkg_is_unknown(void **state)
{
	struct pkgindex *p;

	(void)state;
	assert_int_equal(pkgindex__new("/nonexistent/dpkg/info", NULL, &p), 0);
	assert_int_equal(pkgindex__owner(p, "/usr/lib/libc.so.6", now(), NULL), PKG_UNKNOWN);
	pkgindex__wait(p);
	assert_int_equal(pkgindex__owner(p, "/usr/lib/libc.so.6", now() + PKGINDEX_RECHECK_NS * 2, NULL),
			 PKG_UNKNOWN);
	pkgindex__free(p);
}

static void test_objects_location_classes(void **state)
{
	(void)state;
	assert_string_equal(objects__location("/tmp/x.so"), "tmp");
	assert_string_equal(objects__location("/dev/shm/x.so"), "tmp");
	assert_string_equal(objects__location("/var/tmp/a/b.so"), "tmp");
	assert_string_equal(objects__location("/home/u/.cache/x.so"), "home");
	assert_string_equal(objects__location("/root/x.so"), "home");
	assert_string_equal(objects__location("/usr/lib/x86_64-linux-gnu/libc.so.6"), "system");
	assert_string_equal(objects__location("/tmpfoo/x.so"), "other");
	assert_string_equal(objects__location("/srv/app/lib.so"), "other");
}

/* The test binary itself: dynamic, needs libc; libc has a soname. */
static void test_objects_read_dynamic_of_real_files(void **state)
{
	struct obj_info oi = { 0 };
	bool libc = false;
	int fd = open("/proc/self/exe", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	objects__read_dynamic(fd, &oi);
	close(fd);
	assert_true(oi.elf_read);
	assert_true(oi.dynamic);
	for (uint32_t i = 0; i < oi.nneeded; i++) {
		libc |= strcmp(oi.needed[i], "libc.so.6") == 0;
		free(oi.needed[i]);
	}
	assert_true(libc);
	free(oi.soname);
	/* not an ELF: nothing, no harm */
	memset(&oi, 0, sizeof(oi));
	fd = open("/etc/hostname", O_RDONLY);
	if (fd >= 0) {
		objects__read_dynamic(fd, &oi);
		close(fd);
		assert_false(oi.dynamic);
		assert_null(oi.soname);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pkgindex_owner_with_and_without_usr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pkgindex_built_off_thread_then_refreshed_when_dpkg_changes, setup,
						teardown),
		cmocka_unit_test(test_pkgindex_no_dpkg_is_unknown),
		cmocka_unit_test(test_objects_location_classes),
		cmocka_unit_test(test_objects_read_dynamic_of_real_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
