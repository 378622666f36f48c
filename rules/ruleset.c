// SPDX-License-Identifier: MIT
/*
 * ruleset.c - the public API (ruleset.h), on top of the loader: rule
 * files and directories read and parsed (yaml_doc.c), their items merged
 * (ruleset_items.c) and compiled (ruleset_compile.c) into the
 * evaluation-ready ruleset; rules switched on and off, and evaluated.
 *
 * The load is all-or-nothing: every file is read (bounded), parsed and
 * merged, every rule compiled, and only a load without errors returns a
 * ruleset, so a bad edit can never half-replace a working one. Evaluation
 * walks a per-kind array of the enabled rules in file order, rebuilt
 * whenever rules are switched on or off, so an event only meets the rules
 * that can match it.
 */
#include "ruleset_int.h"
#include "filekind.h"
#include "fileread.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RS_MAX_FILE	 (16u * 1024 * 1024) /* bytes per file */
#define RS_MAX_DIR_FILES 10000u		     /* rule files per directory */

struct rl_ruleset {
	struct rl_rule *rules;
	size_t n;
	struct rl_rule **run[PL_MOMENTS]; /* enabled rules per moment (bit index of enum pl_moment), each of capacity n */
	size_t nrun[PL_MOMENTS];
	unsigned kinds;
	unsigned char sha256[32]; /* of the loaded files' bytes, in load order */
	size_t nfiles;
	struct rl_path_class *classes; /* the `path_class.*` lists, owned copies */
	size_t nclasses;
};

/* Copy the lists named path_class.NAME (marked used: the sensor reads them,
 * no rule needs to). */
static int copy_classes(struct rs_loader *L, struct rl_ruleset *rs)
{
	static const char prefix[] = "path_class.";

	for (size_t i = 0; i < L->nlists; i++) {
		const struct rs_list *l = &L->lists[i];
		struct rl_path_class *c;

		if (strncmp(l->name, prefix, sizeof(prefix) - 1) || !l->name[sizeof(prefix) - 1])
			continue;
		L->lists[i].used = true;
		if (l->bad)
			continue;
		c = realloc(rs->classes, (rs->nclasses + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		rs->classes = c;
		c = &rs->classes[rs->nclasses];
		memset(c, 0, sizeof(*c));
		c->name = strdup(l->name + sizeof(prefix) - 1);
		c->paths = calloc(l->n ? l->n : 1, sizeof(*c->paths));
		rs->nclasses++;
		if (!c->name || !c->paths)
			return -ENOMEM;
		for (size_t j = 0; j < l->n; j++, c->n++)
			if (!(c->paths[j] = strdup(l->items[j])))
				return -ENOMEM;
	}
	return 0;
}

size_t rl_ruleset__path_classes(const struct rl_ruleset *rs, const struct rl_path_class **ret)
{
	*ret = rs ? rs->classes : NULL;
	return rs ? rs->nclasses : 0;
}

static const char *const prio_names[] = {"Emergency", "Alert",	"Critical",	 "Error",
					 "Warning",   "Notice", "Informational", "Debug"};

const char *rl_priority__name(enum rl_priority p)
{
	return (unsigned)p < sizeof(prio_names) / sizeof(prio_names[0]) ? prio_names[p] : "Unknown";
}

/* Parse a file the loader now owns (buf, name) and merge its items. */
static int add_parsed(struct rs_loader *L, char *name, char *buf, size_t len)
{
	struct yd_file *f = calloc(1, sizeof(*f));
	struct yd_error err;
	int r;

	if (!f) {
		free(name);
		free(buf);
		return -ENOMEM;
	}
	f->name = name;
	f->buf = buf;
	f->len = len;
	r = yd_file__parse(f, &err);
	if (r < 0) {
		/* a file that doesn't parse contributes nothing */
		if (r == -EINVAL) {
			rs_diag_at(&L->rep, RL_DIAG_ERROR, f->name, err.line + 1, err.col + 1, "", "%s", err.msg);
			r = L->rep.oom;
		}
		yd_file__release(f);
		free(f);
		return r;
	}
	return rs_loader__add_file(L, f);
}

/*
 * A rule file is read only when it is a regular file (fileread.h: a device
 * is never opened, a FIFO swapped in cannot make the loader, the sensor on
 * SIGHUP, wait forever for a writer). Symlinks are followed: rule files are
 * often links into a package's directory.
 */
static int load_file(struct rs_loader *L, const char *path)
{
	static const char *const what[] = {
		[FILE_READ_STAT] = "cannot open", [FILE_READ_OPEN] = "cannot open",
		[FILE_READ_FSTAT] = "cannot read", [FILE_READ_READ] = "cannot read",
	};
	struct file_read_error why;
	char *buf = NULL, *name;
	size_t len;
	int r;

	r = file_read_bounded(path, RS_MAX_FILE, 0, &buf, &len, &why);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (why.step == FILE_READ_KIND)
			rs_diag_at(&L->rep, RL_DIAG_ERROR, path, 0, 0, "", "not a regular file (%s)",
				   file_kind(why.mode));
		else if (why.step == FILE_READ_SIZE)
			rs_diag_at(&L->rep, RL_DIAG_ERROR, path, 0, 0, "", "larger than %u bytes", RS_MAX_FILE);
		else
			rs_diag_at(&L->rep, RL_DIAG_ERROR, path, 0, 0, "", "%s: %s", what[why.step], strerror(-r));
		return L->rep.oom;
	}
	if (!(name = strdup(path))) {
		free(buf);
		return -ENOMEM;
	}
	return add_parsed(L, name, buf, len);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool yaml_name(const char *s)
{
	size_t n = strlen(s);

	return (n > 5 && strcmp(s + n - 5, ".yaml") == 0) || (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

/* A directory: its *.yaml and *.yml files, in strcmp order. */
static int load_dir(struct rs_loader *L, const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r = 0;

	if (!d) {
		rs_diag_at(&L->rep, RL_DIAG_ERROR, dir, 0, 0, "", "cannot open: %s", strerror(errno));
		return L->rep.oom;
	}
	while ((de = readdir(d))) {
		char *s;

		if (de->d_name[0] == '.' || !yaml_name(de->d_name))
			continue;
		if (n == RS_MAX_DIR_FILES) {
			rs_diag_at(&L->rep, RL_DIAG_ERROR, dir, 0, 0, "", "more than %u rule files", RS_MAX_DIR_FILES);
			break;
		}
		if (n == cap) {
			char **nn = realloc(names, (cap ? cap * 2 : 16) * sizeof(*nn));

			if (!nn) {
				r = -ENOMEM;
				break;
			}
			names = nn;
			cap = cap ? cap * 2 : 16;
		}
		if (asprintf(&s, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		names[n++] = s;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (r == 0)
			r = load_file(L, names[i]);
		free(names[i]);
	}
	free(names);
	return r;
}

/* The per-kind arrays of enabled rules, rebuilt after rules are switched
 * on or off. */
static void select_rules(struct rl_ruleset *rs)
{
	rs->kinds = 0;
	for (int k = 0; k < PL_MOMENTS; k++)
		rs->nrun[k] = 0;
	for (size_t i = 0; i < rs->n; i++) {
		struct rl_rule *r = &rs->rules[i];

		if (!r->enabled)
			continue;
		for (int k = 0; k < PL_MOMENTS; k++)
			if (r->kinds & 1u << k)
				rs->run[k][rs->nrun[k]++] = r;
		rs->kinds |= r->kinds;
	}
}

/* The ruleset's identity for audit records: SHA-256 over the bytes of the
 * files exactly as they were read and parsed, in load order (so the same as
 * `cat FILES... | sha256sum`), never over a second read that could differ. */
static int digest_files(const struct rs_loader *L, struct rl_ruleset *rs)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int mdlen = 0;
	int ok;

	if (!ctx)
		return -ENOMEM;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (size_t i = 0; ok && i < L->nfiles; i++)
		ok = EVP_DigestUpdate(ctx, L->files[i]->buf, L->files[i]->len);
	ok = ok && EVP_DigestFinal_ex(ctx, rs->sha256, &mdlen) && mdlen == sizeof(rs->sha256);
	EVP_MD_CTX_free(ctx);
	rs->nfiles = L->nfiles;
	return ok ? 0 : -ENOMEM;
}

/* Compile what L loaded and make the evaluation-ready ruleset of it.
 * Returns 0 and *ret, -EINVAL (errors were reported) or -ENOMEM. */
static int finish(struct rs_loader *L, struct rl_ruleset **ret)
{
	struct rl_ruleset *rs = calloc(1, sizeof(*rs));
	int r;

	if (!rs)
		return -ENOMEM;
	r = copy_classes(L, rs);
	if (r == 0)
		r = rs_loader__compile(L, &rs->rules, &rs->n);
	if (r < 0) {
		rl_ruleset__free(rs);
		return r;
	}
	for (int k = 0; k < PL_MOMENTS; k++)
		if (!(rs->run[k] = calloc(rs->n ? rs->n : 1, sizeof(*rs->run[k])))) {
			rl_ruleset__free(rs);
			return -ENOMEM;
		}
	select_rules(rs);
	r = digest_files(L, rs);
	if (r < 0) {
		rl_ruleset__free(rs);
		return r;
	}
	*ret = rs;
	return 0;
}

int rl_ruleset__load(const char *const *paths, size_t npaths, struct rl_ruleset **ret, struct rl_diags *diags)
{
	struct rs_loader L = {.rep.diags = diags, .errors0 = diags->errors};
	int r = 0;

	for (size_t i = 0; i < npaths && r == 0; i++) {
		struct stat st;

		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			r = load_dir(&L, paths[i]);
		else
			r = load_file(&L, paths[i]);
	}
	if (r == 0)
		r = finish(&L, ret);
	rs_loader__free(&L);
	return r;
}

int rl_ruleset__load_buffer(const char *name, const char *buf, size_t len, struct rl_ruleset **ret,
			    struct rl_diags *diags)
{
	struct rs_loader L = {.rep.diags = diags, .errors0 = diags->errors};
	char *copy = NULL, *n;
	int r;

	if (len > RS_MAX_FILE) {
		rs_diag_at(&L.rep, RL_DIAG_ERROR, name, 0, 0, "", "larger than %u bytes", RS_MAX_FILE);
		return L.rep.oom ? L.rep.oom : -EINVAL;
	}
	copy = malloc(len + 1);
	n = strdup(name);
	if (!copy || !n) {
		free(copy);
		free(n);
		return -ENOMEM;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	r = add_parsed(&L, n, copy, len);
	if (r == 0)
		r = finish(&L, ret);
	rs_loader__free(&L);
	return r;
}

void rl_ruleset__free(struct rl_ruleset *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++)
		rs_rule__release(&rs->rules[i]);
	free(rs->rules);
	for (int k = 0; k < PL_MOMENTS; k++)
		free(rs->run[k]);
	for (size_t i = 0; i < rs->nclasses; i++) {
		for (size_t j = 0; j < rs->classes[i].n; j++)
			free((char *)rs->classes[i].paths[j]);
		free(rs->classes[i].paths);
		free((char *)rs->classes[i].name);
	}
	free(rs->classes);
	free(rs);
}

void rl_ruleset__digest(const struct rl_ruleset *rs, unsigned char ret_sha256[32], size_t *ret_files)
{
	memcpy(ret_sha256, rs->sha256, sizeof(rs->sha256));
	*ret_files = rs->nfiles;
}

size_t rl_ruleset__enable_name(struct rl_ruleset *rs, const char *name, bool enabled)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->rules[i].name, name) == 0) {
			rs->rules[i].enabled = enabled;
			n++;
		}
	if (n)
		select_rules(rs);
	return n;
}

size_t rl_ruleset__enable_tag(struct rl_ruleset *rs, const char *tag, bool enabled)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		for (size_t j = 0; j < rs->rules[i].ntags; j++)
			if (strcmp(rs->rules[i].tags[j], tag) == 0) {
				rs->rules[i].enabled = enabled;
				n++;
				break;
			}
	if (n)
		select_rules(rs);
	return n;
}

size_t rl_ruleset__switch(struct rl_ruleset *rs, const char *what, bool enabled)
{
	return strncmp(what, "tag:", 4) == 0 ? rl_ruleset__enable_tag(rs, what + 4, enabled)
					     : rl_ruleset__enable_name(rs, what, enabled);
}

size_t rl_ruleset__count(const struct rl_ruleset *rs)
{
	return rs->n;
}

const struct rl_rule *rl_ruleset__rule(const struct rl_ruleset *rs, size_t i)
{
	return i < rs->n ? &rs->rules[i] : NULL;
}

unsigned rl_ruleset__kinds(const struct rl_ruleset *rs)
{
	return rs->kinds;
}

size_t rl_ruleset__eval(const struct rl_ruleset *rs, const struct pl_sample *ev, rl_match_fn fn, void *ctx,
			struct rl_eval_stats *stats)
{
	size_t k, matches = 0;

	if (!ev->moment || (ev->moment & (ev->moment - 1)) || ev->moment > PL_AT_ANY)
		return 0; /* one moment, a known one */
	k = (size_t)__builtin_ctz((unsigned)ev->moment);
	for (size_t i = 0; i < rs->nrun[k]; i++) {
		const struct rl_rule *r = rs->run[k][i];
		enum rl_truth t = rl_expr__decide(r->cond, ev, stats);

		/* undecided is a match: fail closed (rl_expr__eval()) */
		if (t == RL_FALSE)
			continue;
		matches++;
		if (stats && t == RL_UNDECIDED)
			stats->undecided++;
		if (stats)
			stats->match_undecided = t == RL_UNDECIDED;
		if (fn)
			fn(r, ev, ctx);
		if (stats)
			stats->match_undecided = false;
	}
	return matches;
}
