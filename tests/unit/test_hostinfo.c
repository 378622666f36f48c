// SPDX-License-Identifier: MIT
/*
 * test_hostinfo.c - the host's id and boot id (sensor/identity/hostinfo.h)
 * under a temporary root: /etc/machine-id first, /var/lib/dbus/machine-id
 * when it is missing or not a machine-id (said), then an id of the
 * sensor's own kept in the state directory (made once, then read back),
 * then a random one for the run; the boot id validated; and the sensor's
 * own against this machine's hostname and /etc/machine-id. Also the user
 * cache against getpwuid().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "identity/hostinfo.h"
#include "identity/usercache.h"
#include "unit_helpers.h"

#define ID_A "0123456789abcdef0123456789abcdef"
#define ID_B "fedcba9876543210fedcba9876543210"

struct root {
	char path[64], state[96];
};

static int setup(void **state)
{
	struct root *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	snprintf(r->path, sizeof(r->path), "/tmp/pl-hostinfo-XXXXXX");
	if (!mkdtemp(r->path)) {
		free(r);
		return -1;
	}
	snprintf(r->state, sizeof(r->state), "%s/state", r->path);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct root *r = *state;

	ut_rm_rf(r->path);
	free(r);
	return 0;
}

/* root/rel with text, its directories made. */
static void put(const struct root *r, const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", r->path, rel);
	for (char *p = strchr(path + strlen(r->path) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "we");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void test_hostinfo_valid_id(void **state)
{
	(void)state;
	assert_true(hostinfo__valid_id(ID_A "\n", 33));
	assert_true(hostinfo__valid_id(ID_A, 32));
	assert_false(hostinfo__valid_id(ID_A "\n\n", 34));
	assert_false(hostinfo__valid_id(ID_A, 31));
	assert_false(hostinfo__valid_id("0123456789ABCDEF0123456789abcdef", 32)); /* uppercase */
	assert_false(hostinfo__valid_id("0123456789abcdeg0123456789abcdef", 32));
	assert_false(hostinfo__valid_id("00000000000000000000000000000000", 32)); /* not initialized */
	assert_false(hostinfo__valid_id("uninitialized\n", 14));
	assert_false(hostinfo__valid_id("", 0));
}

static void test_hostinfo_id_chain(void **state)
{
	struct root *r = *state;
	enum hostinfo_id_source src;
	char id[HOSTINFO_ID_LEN + 1], first[HOSTINFO_ID_LEN + 1], why[512], path[160];
	char *kept;
	size_t len;

	/* nothing there, no state directory: a random id for the run, a new one each time */
	assert_int_equal(hostinfo__host_id(r->path, NULL, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_RUN);
	assert_true(hostinfo__valid_id(id, strlen(id)));
	assert_string_equal(why, "");
	memcpy(first, id, sizeof(id));
	assert_int_equal(hostinfo__host_id(r->path, NULL, NULL, 0, id, &src), 0);
	assert_string_not_equal(id, first);

	/* a state directory: an id made once, kept in host-id, read back after */
	assert_int_equal(mkdir(r->state, 0700), 0);
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), first, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_STATE);
	snprintf(path, sizeof(path), "%s/host-id", r->state);
	kept = ut_read_file(path, &len);
	assert_non_null(kept);
	assert_int_equal(len, 33);
	assert_memory_equal(kept, first, 32);
	assert_int_equal(kept[32], '\n');
	free(kept);
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_STATE);
	assert_string_equal(id, first);

	/* dbus's, once there, before the state directory's */
	put(r, "/var/lib/dbus/machine-id", ID_B "\n");
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_DBUS);
	assert_string_equal(id, ID_B);

	/* /etc/machine-id not a machine-id: passed over, said */
	put(r, "/etc/machine-id", "uninitialized\n");
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_DBUS);
	assert_string_equal(id, ID_B);
	snprintf(path, sizeof(path), "%s/etc/machine-id: not 32 hex digits (a machine-id)", r->path);
	assert_string_equal(why, path);

	/* a directory, or a file too long: passed over, said */
	snprintf(path, sizeof(path), "%s/etc/machine-id", r->path);
	unlink(path);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_DBUS);
	assert_non_null(strstr(why, "/etc/machine-id: not a regular file"));
	rmdir(path);
	put(r, "/etc/machine-id", ID_A ID_A ID_A ID_A ID_A "\n");
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_DBUS);
	assert_non_null(strstr(why, "/etc/machine-id: longer than a machine-id"));

	/* /etc/machine-id first */
	put(r, "/etc/machine-id", ID_A "\n");
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_MACHINE_ID);
	assert_string_equal(id, ID_A);
	assert_string_equal(why, "");

	/* a state file gone bad is replaced (said), not believed */
	snprintf(path, sizeof(path), "%s/etc/machine-id", r->path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/var/lib/dbus/machine-id", r->path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/host-id", r->state);
	put(r, "/state/host-id", "not an id\n");
	assert_int_equal(hostinfo__host_id(r->path, r->state, why, sizeof(why), id, &src), 0);
	assert_int_equal(src, HOSTINFO_ID_STATE);
	assert_true(hostinfo__valid_id(id, strlen(id)));
	assert_non_null(strstr(why, "/state/host-id: not 32 hex digits"));
	kept = ut_read_file(path, &len);
	assert_non_null(kept);
	assert_memory_equal(kept, id, 32);
	free(kept);
}

static void test_hostinfo_boot_id(void **state)
{
	struct root *r = *state;
	char boot[HOSTINFO_BOOT_ID_LEN + 1];

	assert_int_equal(hostinfo__boot_id(r->path, boot), -ENOENT);
	assert_string_equal(boot, "");
	put(r, "/proc/sys/kernel/random/boot_id", "0f0e0d0c-0b0a-4908-8706-050403020100\n");
	assert_int_equal(hostinfo__boot_id(r->path, boot), 0);
	assert_string_equal(boot, "0f0e0d0c-0b0a-4908-8706-050403020100");
	put(r, "/proc/sys/kernel/random/boot_id", "0f0e0d0c0b0a49088706050403020100\n");
	assert_int_equal(hostinfo__boot_id(r->path, boot), -EINVAL);
	assert_string_equal(boot, "");
}

/* The sensor's: this machine's name, /etc/machine-id, boot id. */
static void test_hostinfo_of_this_machine(void **state)
{
	const struct hostinfo *h = hostinfo__get();
	char name[256] = "", boot[64] = "";
	char *mid;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(gethostname(name, sizeof(name) - 1), 0);
	assert_string_equal(h->name, name);
	mid = ut_read_file("/etc/machine-id", &len);
	if (mid && hostinfo__valid_id(mid, len)) {
		assert_int_equal(h->id_source, HOSTINFO_ID_MACHINE_ID);
		assert_memory_equal(h->id, mid, 32);
	} else {
		assert_true(hostinfo__valid_id(h->id, strlen(h->id)));
	}
	free(mid);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	assert_non_null(f);
	assert_non_null(fgets(boot, sizeof(boot), f));
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	assert_string_equal(h->boot_id, boot);
}

static void test_usercache_names_as_getpwuid(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	char name[USERCACHE_NAME_MAX], want[USERCACHE_NAME_MAX];

	(void)state;
	assert_non_null(pw);
	snprintf(want, sizeof(want), "%s", pw->pw_name); /* getpwuid()'s is overwritten by the next call */
	assert_true(usercache__name((uint32_t)getuid(), 1, name, sizeof(name)));
	assert_string_equal(name, want);
	/* cached: the same answer */
	assert_true(usercache__name((uint32_t)getuid(), 2, name, sizeof(name)));
	assert_string_equal(name, want);
	/* a uid without a user: no name, "" */
	assert_null(getpwuid(3999999999u));
	assert_false(usercache__name(3999999999u, 3, name, sizeof(name)));
	assert_string_equal(name, "");
	/* a buffer too small for the name: no name */
	assert_false(usercache__name((uint32_t)getuid(), 4, name, 1));
	usercache__clear();
	assert_true(usercache__name((uint32_t)getuid(), 5, name, sizeof(name)));
	assert_string_equal(name, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostinfo_valid_id),
	    cmocka_unit_test_setup_teardown(test_hostinfo_id_chain, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hostinfo_boot_id, setup, teardown),
	    cmocka_unit_test(test_hostinfo_of_this_machine),
	    cmocka_unit_test(test_usercache_names_as_getpwuid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
