// SPDX-License-Identifier: MIT
/*
 * buildkey.c - which tools are keyed by their build, and the build
 * directory of a driver from its exec record (buildkey.h). The command
 * line is untrusted: every walk is bounded by its length, every path by
 * PATH_MAX.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/buildkey.h"

#define BUILD_KEY_DIR_MAX 256
#define CUT_MARK "..."

static const char *const build_drivers[] = { "make", "gmake", "ninja", "samu", "cmake", "meson", NULL };
static const char *const build_keyed[] = {
	"make", "gmake", "ninja", "samu", "cmake", "meson", "cc", "gcc", "g++", "c++", "cpp", "clang", "clang++",
	"cc1", "cc1plus", "collect2", "lto1", "lto-wrapper", "as", "ld", "ld.bfd", "ld.gold", "ld.lld", "lld", "ar",
	"ranlib", "strip", "objcopy", "x86_64-linux-gnu-gcc-12", "x86_64-linux-gnu-g++-12", "x86_64-linux-gnu-as",
	"x86_64-linux-gnu-ld", "x86_64-linux-gnu-ld.bfd", "x86_64-linux-gnu-ar", "x86_64-linux-gnu-ranlib",
	"x86_64-linux-gnu-strip", "x86_64-linux-gnu-objcopy", "x86_64-linux-gnu-cpp-12", NULL
};

/* The drivers that chdir(2) to a -C argument, and their short options that
 * take an argument (so "-f -C" is a file named "-C", not a directory). */
static const struct {
	const char *name;
	const char *arg_opts;
	bool long_directory; /* --directory=DIR / --directory DIR */
} chdir_drivers[] = {
	{ "make", "CfIoWE", true }, { "gmake", "CfIoWE", true }, { "ninja", "Cfjkldtw", false },
	{ "samu", "Cfjkldtw", false }, { "meson", "C", false },
};

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

static bool name_in(const char *path, const char *const *names)
{
	const char *b = base_name(path);

	for (size_t i = 0; b && names[i]; i++)
		if (!strcmp(b, names[i]))
			return true;
	return false;
}

bool buildkey__is_driver(const char *path)
{
	return name_in(path, build_drivers);
}

bool buildkey__is_keyed(const char *path)
{
	return name_in(path, build_keyed);
}

/* Apply path p (absolute: from the top; relative: from where dir is) to
 * dir, a normalised path of *used bytes starting at floor ("/" or "..."/).
 * false when it would not fit in size. */
static bool walk_to(char *dir, size_t size, size_t *used, size_t *floor, const char *p)
{
	if (p[0] == '/') {
		dir[0] = '/';
		dir[1] = '\0';
		*used = 1;
		*floor = 0;
	}
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(dir + *floor, '/');

			*used = slash && slash > dir + *floor ? (size_t)(slash - dir) : *floor + 1;
			dir[*used] = '\0';
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			bool sep = dir[*used - 1] != '/';

			if (*used + sep + n + 1 > size)
				return false;
			if (sep)
				dir[(*used)++] = '/';
			memcpy(dir + *used, p, n);
			*used += n;
			dir[*used] = '\0';
		}
		p += n;
		p += *p == '/';
	}
	return true;
}

/* The index of exe's entry in chdir_drivers, or -1. */
static int chdir_driver(const char *exe)
{
	const char *b = base_name(exe);

	for (size_t i = 0; b && i < sizeof(chdir_drivers) / sizeof(chdir_drivers[0]); i++)
		if (!strcmp(b, chdir_drivers[i].name))
			return (int)i;
	return -1;
}

/*
 * The directory argument of option word w (w[0] == '-'), with next the word
 * after it (NULL at the end): "-C DIR", "-CDIR", "-sC DIR", "--directory=DIR",
 * "--directory DIR". *ret_skip: whether next was consumed, by -C or another
 * option's argument. NULL: no directory in w.
 */
static const char *dir_option(int drv, const char *w, const char *next, bool *ret_skip)
{
	const char *arg_opts = chdir_drivers[drv].arg_opts;

	*ret_skip = false;
	if (w[1] == '-') {
		if (!chdir_drivers[drv].long_directory)
			return NULL;
		if (!strncmp(w, "--directory=", 12))
			return w + 12;
		if (!strcmp(w, "--directory")) {
			*ret_skip = next != NULL;
			return next;
		}
		return NULL;
	}
	for (const char *c = w + 1; *c; c++) {
		if (!strchr(arg_opts, *c))
			continue;
		if (c[1]) /* the rest of the word is the argument */
			return *c == 'C' ? c + 1 : NULL;
		*ret_skip = next != NULL;
		return *c == 'C' ? next : NULL;
	}
	return NULL;
}

/* w when a whole word (its NUL) lies in [w, end), else NULL: the kernel
 * cuts a long command line mid-word. */
static const char *word_at(const char *w, const char *end)
{
	return w < end && memchr(w, '\0', (size_t)(end - w)) ? w : NULL;
}

static const char *word_after(const char *w, const char *end)
{
	return w ? word_at(w + strlen(w) + 1, end) : NULL;
}

/* Apply the -C options of args to dir (walk_to's state). false: too long. */
static bool apply_options(int drv, const char *args, size_t len, char *dir, size_t size, size_t *used,
			  size_t *floor)
{
	const char *end = args + len;

	/* the options after argv[0], up to "--" */
	for (const char *w = word_after(word_at(args, end), end), *next; w; w = next) {
		const char *d;
		bool skip;

		next = word_after(w, end);
		if (!strcmp(w, "--"))
			break;
		if (w[0] != '-' || !w[1])
			continue;
		d = dir_option(drv, w, next, &skip);
		if (d && *d && !walk_to(dir, size, used, floor, d))
			return false;
		if (skip)
			next = word_after(next, end);
	}
	return true;
}

int buildkey__driver_dir(const char *exe, const char *cwd, bool cwd_cut, const char *args, size_t len,
			 char **ret_dir)
{
	char dir[PATH_MAX];
	size_t used, floor = cwd_cut ? strlen(CUT_MARK) : 0;
	int drv = chdir_driver(exe);
	char *out;

	if (!cwd || cwd[0] != '/')
		return -EINVAL;
	if (cwd_cut)
		memcpy(dir, CUT_MARK "/", sizeof(CUT_MARK "/"));
	else
		memcpy(dir, "/", 2);
	used = strlen(dir);
	if (!walk_to(dir, sizeof(dir), &used, &floor, cwd_cut ? cwd + 1 : cwd))
		return -ENAMETOOLONG;
	if (drv >= 0 && args && len && !apply_options(drv, args, len, dir, sizeof(dir), &used, &floor))
		return -ENAMETOOLONG;
	out = strdup(dir);
	if (!out)
		return -ENOMEM;
	*ret_dir = out;
	return 0;
}

int buildkey__suffix(const char *dir, char **ret_suffix)
{
	size_t n = strlen(dir);
	/* bounded: a deep directory keeps its last BUILD_KEY_DIR_MAX bytes */
	const char *d = n > BUILD_KEY_DIR_MAX ? dir + n - BUILD_KEY_DIR_MAX : dir;
	char *out;

	if (asprintf(&out, "+build:%s%s", d == dir ? "" : CUT_MARK, d) < 0)
		return -ENOMEM;
	*ret_suffix = out;
	return 0;
}
