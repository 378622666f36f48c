// SPDX-License-Identifier: MIT
/*
 * fileclass.c - path classes: matching and expansion (see fileclass.h).
 */
#include "process/fileclass.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ruleset.h"

#define FC_MAX_DEPTH 6 /* `**` descends at most this many directories */

struct fc_pat {
	size_t cls;
	char *pat; /* `~` expanded */
};

struct fileclass {
	char **names;
	size_t nnames;
	struct fc_pat *pats;
	size_t npats;
};

/* ---- matching ---- */

/* One component: `*` and `?` within it. */
static bool match_comp(const char *p, const char *pe, const char *s, const char *se)
{
	while (p < pe) {
		if (*p == '*') {
			for (size_t k = (size_t)(se - s) + 1; k-- > 0;)
				if (match_comp(p + 1, pe, s + k, se))
					return true;
			return false;
		}
		if (s == se || (*p != '?' && *p != *s))
			return false;
		p++;
		s++;
	}
	return s == se;
}

static const char *comp_end(const char *s)
{
	const char *e = strchr(s, '/');

	return e ? e : s + strlen(s);
}

static bool match_path(const char *p, const char *s)
{
	for (;;) {
		const char *pe, *se;

		while (*p == '/')
			p++;
		while (*s == '/')
			s++;
		if (!*p) /* the whole pattern matched: the path or an entry below it */
			return true;
		pe = comp_end(p);
		if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
			/* any number of components, none included */
			for (const char *t = s;; t = comp_end(t)) {
				while (*t == '/')
					t++;
				if (match_path(pe, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (!*s)
			return false;
		se = comp_end(s);
		if (!match_comp(p, pe, s, se))
			return false;
		p = pe;
		s = se;
	}
}

bool fileclass__glob(const char *pat, const char *path)
{
	if (!pat || !path || *pat != '/' || *path != '/')
		return false;
	return match_path(pat, path);
}

const char *fileclass__match(const struct fileclass *fc, const char *path)
{
	for (size_t i = 0; fc && i < fc->npats; i++)
		if (fileclass__glob(fc->pats[i].pat, path))
			return fc->names[fc->pats[i].cls];
	return NULL;
}

size_t fileclass__count(const struct fileclass *fc)
{
	return fc ? fc->nnames : 0;
}

/* ---- building ---- */

static int add_pat(struct fileclass *fc, size_t cls, const char *home, const char *rest)
{
	struct fc_pat *p = realloc(fc->pats, (fc->npats + 1) * sizeof(*p));
	char *s;

	if (!p)
		return -ENOMEM;
	fc->pats = p;
	if (home) {
		size_t hl = strlen(home);

		while (hl > 1 && home[hl - 1] == '/')
			hl--;
		if (asprintf(&s, "%.*s/%s", (int)hl, home, rest) < 0)
			return -ENOMEM;
	} else if (!(s = strdup(rest))) {
		return -ENOMEM;
	}
	fc->pats[fc->npats++] = (struct fc_pat){.cls = cls, .pat = s};
	return 0;
}

static bool listed(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* /root and the home of each account, once each ("/" and missing ones not). */
static int read_homes(char ***ret, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0;
	struct passwd *pw;
	struct stat st;
	int r = 0;

	if (!(v = calloc(1, sizeof(*v))) || !(v[0] = strdup("/root"))) {
		free(v);
		return -ENOMEM;
	}
	n = 1;
	setpwent();
	while ((pw = getpwent())) {
		char **nv;

		if (!pw->pw_dir || pw->pw_dir[0] != '/' || !strcmp(pw->pw_dir, "/") || listed(v, n, pw->pw_dir) ||
		    stat(pw->pw_dir, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(pw->pw_dir))) {
			v = nv ? nv : v;
			r = -ENOMEM;
			break;
		}
		v = nv;
		n++;
	}
	endpwent();
	*ret = v;
	*ret_n = n;
	return r;
}

int fileclass__new(const struct rl_path_class *c, size_t n, const char *const *homes, size_t nhomes,
		   struct fileclass **ret)
{
	struct fileclass *fc = calloc(1, sizeof(*fc));
	char **own = NULL;
	size_t nown = 0;
	int r = 0;

	if (!fc)
		return -ENOMEM;
	if (!homes) {
		r = read_homes(&own, &nown);
		homes = (const char *const *)own;
		nhomes = nown;
	}
	fc->names = calloc(n ? n : 1, sizeof(*fc->names));
	if (!fc->names)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (!(fc->names[i] = strdup(c[i].name))) {
			r = -ENOMEM;
			break;
		}
		fc->nnames++;
		for (size_t j = 0; r == 0 && j < c[i].n; j++) {
			const char *p = c[i].paths[j];

			if (p[0] == '~' && p[1] == '/')
				for (size_t h = 0; r == 0 && h < nhomes; h++)
					r = add_pat(fc, i, homes[h], p + 2);
			else if (p[0] == '/')
				r = add_pat(fc, i, NULL, p);
		}
	}
	for (size_t i = 0; i < nown; i++)
		free(own[i]);
	free(own);
	if (r < 0) {
		fileclass__free(fc);
		return r;
	}
	*ret = fc;
	return 0;
}

void fileclass__free(struct fileclass *fc)
{
	if (!fc)
		return;
	for (size_t i = 0; i < fc->nnames; i++)
		free(fc->names[i]);
	for (size_t i = 0; i < fc->npats; i++)
		free(fc->pats[i].pat);
	free(fc->names);
	free(fc->pats);
	free(fc);
}

/* ---- expansion ---- */

struct walk {
	fileclass_watch_fn fn;
	void *ctx;
	size_t budget, keys;
};

static void report(struct walk *w, const struct stat *st, unsigned kinds)
{
	w->fn(w->ctx, st->st_dev, st->st_ino, kinds);
	w->keys++;
}

static bool has_wild(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?')
			return true;
	return false;
}

static void walk(struct walk *w, const char *dir, const char *p, int depth);

/* Every subdirectory of dir, walked with pattern p. */
static void each_subdir(struct walk *w, const char *dir, const char *p, const char *pe, int depth, bool any)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && w->budget) {
		char sub[PATH_MAX];
		struct stat st;

		w->budget--;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!any && !match_comp(p, pe, e->d_name, e->d_name + strlen(e->d_name)))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) >= (int)sizeof(sub))
			continue;
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		walk(w, sub, any ? p : pe, depth + 1);
	}
	closedir(d);
}

/* dir exists; p: the rest of the pattern (no leading '/'). */
static void walk(struct walk *w, const char *dir, const char *p, int depth)
{
	const char *pe;
	struct stat st;
	bool last;

	while (*p == '/')
		p++;
	if (!*p || depth > FC_MAX_DEPTH || !w->budget || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	pe = comp_end(p);
	last = !*pe || !pe[1];
	if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
		report(w, &st, FILECLASS_WATCH_DIR);
		walk(w, dir, pe, depth);
		each_subdir(w, dir, p, pe, depth, true);
		return;
	}
	if (has_wild(p, (size_t)(pe - p))) {
		if (last)
			report(w, &st, FILECLASS_WATCH_DIR);
		else
			each_subdir(w, dir, p, pe, depth, false);
		return;
	}
	{
		char path[PATH_MAX];
		struct stat fs;

		if (snprintf(path, sizeof(path), "%s/%.*s", strcmp(dir, "/") ? dir : "", (int)(pe - p), p) >=
		    (int)sizeof(path))
			return;
		if (last)
			report(w, &st, FILECLASS_WATCH_NEW);
		if (stat(path, &fs) < 0)
			return;
		if (last && S_ISDIR(fs.st_mode)) /* a directory named: every entry in it */
			report(w, &fs, FILECLASS_WATCH_DIR);
		else if (last)
			report(w, &fs, FILECLASS_WATCH_FILE);
		else if (S_ISDIR(fs.st_mode))
			walk(w, path, pe, depth + 1);
	}
}

size_t fileclass__expand(const struct fileclass *fc, size_t max_entries, fileclass_watch_fn fn, void *ctx)
{
	struct walk w = {.fn = fn, .ctx = ctx, .budget = max_entries};

	for (size_t i = 0; fc && i < fc->npats; i++) {
		const char *p = fc->pats[i].pat;

		if (!strncmp(p, "/proc/", 6))
			continue; /* the kernel recognises these itself */
		walk(&w, "/", p + 1, 0);
	}
	return w.keys;
}
