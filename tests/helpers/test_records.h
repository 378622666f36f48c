/* SPDX-License-Identifier: MIT */
/*
 * test_records.h - where a test keeps the records it produced for the
 * schema_records test: $PLUMBLINE_TEST_RECORDS_DIR, one directory per test
 * (set by ctest, tests/CMakeLists.txt), native records in it and OCSF
 * findings in its ocsf/. The first call in a process empties both, so what an
 * earlier run left is never validated again. Shared by the unit tests
 * (record_helpers.h) and the BPF harness; scenario_lib.py does the same for
 * the python tests. Static inline: each test stays one translation unit.
 */
#ifndef PL_TEST_RECORDS_H
#define PL_TEST_RECORDS_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p of path's last two components (test-records/<test>). */
static inline void test_records__mkdirs(const char *path)
{
	char parent[512];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		mkdir(parent, 0755);
	}
	mkdir(path, 0755);
}

/* Remove the *.jsonl files of dir (regular files and symlinks alike:
 * unlink never follows). */
static inline void test_records__empty(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[1024];

		if (n < 6 || strcmp(de->d_name + n - 6, ".jsonl") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

/*
 * The directory to keep native records in (ocsf: OCSF findings, its ocsf/),
 * or NULL when this test keeps none (no PLUMBLINE_TEST_RECORDS_DIR).
 * Borrowed, static storage.
 */
static inline const char *test_records__dir(bool ocsf)
{
	static char dirs[2][512];
	static bool ready;
	const char *base = getenv("PLUMBLINE_TEST_RECORDS_DIR");

	if (!base || !base[0])
		return NULL;
	if (!ready) {
		snprintf(dirs[0], sizeof(dirs[0]), "%s", base);
		snprintf(dirs[1], sizeof(dirs[1]), "%s/ocsf", base);
		test_records__mkdirs(dirs[0]);
		mkdir(dirs[1], 0755);
		test_records__empty(dirs[0]);
		test_records__empty(dirs[1]);
		ready = true;
	}
	return dirs[ocsf];
}

#endif
