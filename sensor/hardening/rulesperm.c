// SPDX-License-Identifier: MIT
/*
 * rulesperm.c - rule files only another root could have written (see rulesperm.h).
 */
#include "hardening/rulesperm.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool owner_ok(const struct stat *sb)
{
	return sb->st_uid == 0 || sb->st_uid == geteuid();
}

/* The file or directory itself: owner, and no write for group or others. */
static int check_one(const char *path, const struct stat *sb, char *why, size_t whylen)
{
	const char *what = S_ISDIR(sb->st_mode) ? "rule directory" : "rule file";

	if (!owner_ok(sb)) {
		snprintf(why, whylen, "%s %s is owned by uid %u, not by root or the sensor's uid %u: refused; fix: chown root %s",
			 what, path, (unsigned)sb->st_uid, (unsigned)geteuid(), path);
		return -EPERM;
	}
	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, whylen, "%s %s is writable by group or others (mode %04o): refused, anyone could change "
				      "what is detected; fix: chmod go-w %s",
			 what, path, (unsigned)(sb->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

static bool yaml_name(const char *s)
{
	size_t n = strlen(s);

	return (n > 5 && strcmp(s + n - 5, ".yaml") == 0) || (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

static int check_dir(const char *dir, const struct stat *sb, char *why, size_t whylen)
{
	DIR *d;
	struct dirent *e;
	int r = check_one(dir, sb, why, whylen);

	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[PATH_MAX];
		struct stat fs;

		if (e->d_name[0] == '.' || !yaml_name(e->d_name))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p) || lstat(p, &fs) < 0)
			continue;
		if (S_ISREG(fs.st_mode) && (r = check_one(p, &fs, why, whylen)) < 0)
			break;
	}
	closedir(d);
	return r;
}

static int check_file(const char *path, const struct stat *sb, char *why, size_t whylen)
{
	char copy[PATH_MAX];
	const char *dir;
	struct stat ds;
	int r = check_one(path, sb, why, whylen);

	if (r < 0)
		return r;
	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (stat(dir, &ds) < 0)
		return 0;
	/* others may replace the file through its directory, unless it is sticky (/tmp) */
	if ((ds.st_mode & S_IWOTH) && !(ds.st_mode & S_ISVTX)) {
		snprintf(why, whylen, "rule file %s is in %s, which others may write (mode %04o): refused, anyone could "
				      "replace it; fix: chmod o-w %s",
			 path, dir, (unsigned)(ds.st_mode & 07777), dir);
		return -EPERM;
	}
	return 0;
}

int rules_perm__check(const char *const *paths, size_t npaths, char *why, size_t whylen)
{
	if (whylen)
		why[0] = '\0';
	for (size_t i = 0; i < npaths; i++) {
		struct stat sb;
		int r;

		if (stat(paths[i], &sb) < 0)
			continue;
		r = S_ISDIR(sb.st_mode) ? check_dir(paths[i], &sb, why, whylen) : check_file(paths[i], &sb, why, whylen);
		if (r < 0)
			return r;
	}
	return 0;
}
