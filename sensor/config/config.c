// SPDX-License-Identifier: MIT
/*
 * config.c - the config file of `plumbline run`: read, checked, merged
 * under the command line, and reloaded on SIGHUP (`plumbline config
 * check|show` are in cmd_config.c).
 *
 * The file's syntax is common/conffile.c's; its meaning is run_opts__parse()
 * itself: each setting `key = value` becomes the argument `--key=value`
 * (`key = true` becomes `--key` for an option without a value; `false`
 * leaves it out), placed before the command line's own arguments. So a key
 * means exactly what its option means, is checked by the same code, and an
 * option added to options_table.c is a key with no change here. A setting is
 * checked alone first (its error then has its line and column), then the
 * whole file (what only a combination can get wrong, at the file).
 *
 * A reload builds a whole new generation (file, arguments, options) and
 * applies nothing unless all of it is valid. A generation the sensor's
 * options or the rule loader now point into is kept until exit (a reload
 * that changes the rules or the JSON path is an operator's act, not a
 * stream); any other is freed at once.
 */
#include "closest.h"
#include "config/config.h"
#include "config/config_int.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/alerts.h"
#include "cleanup.h"
#include "conffile.h"
#include "filekind.h"
#include "fileread.h"
#include "log.h"
#include "textsafe.h"

/* The table's entry of a config key, or NULL. */
static const struct run_opt *key_info(const char *key)
{
	const struct run_opt *d = run_opts__find(key);

	return d && !(d->flags & RUN_OPT_CLI_ONLY) ? d : NULL;
}

int config__key_info(const char *key, const char **ret_default, bool *ret_live)
{
	const struct run_opt *k = key_info(key);

	if (!k)
		return -ENOENT;
	*ret_default = k->def;
	*ret_live = k->flags & RUN_OPT_LIVE;
	return 0;
}

/* The option that is key, or NULL; --help is none. prefix: also a unique
 * abbreviation, as getopt_long() takes them on the command line. */
static const struct option *find_opt(const char *key, size_t len, bool prefix)
{
	const struct option *o = run_opts__longopts(), *hit = NULL;
	int hits = 0;

	for (; o->name; o++) {
		if (strcmp(o->name, "help") == 0)
			continue;
		if (strlen(o->name) == len && strncmp(o->name, key, len) == 0)
			return o;
		if (prefix && strncmp(o->name, key, len) == 0) {
			hit = o;
			hits++;
		}
	}
	return hits == 1 ? hit : NULL;
}

/* ---- the command line ---- */

static void cli_add(struct cli *c, const char *key, const char *value)
{
	if (c->n < CLI_MAX)
		c->kv[c->n++] = (struct cli_kv){key, value};
}

/* Split argv: the config options out, the keys the rest sets noted (as
 * getopt_long() will read them: long names, unique abbreviations, short
 * options and their clusters). Only the argv array is allocated. */
int cli_scan(int argc, char **argv, struct cli *c)
{
	memset(c, 0, sizeof(*c));
	c->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!c->argv)
		return -ENOMEM;
	c->argv[c->argc++] = argc > 0 ? argv[0] : (char *)"run";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--no-config") == 0) {
			c->none = true;
			continue;
		}
		if (strcmp(a, "--config") == 0 || strncmp(a, "--config=", 9) == 0) {
			if (a[8] == '=')
				c->path = a + 9;
			else if (i + 1 < argc)
				c->path = argv[++i];
			else {
				log_error("--config needs a file");
				return -EINVAL;
			}
			continue;
		}
		c->argv[c->argc++] = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			const struct option *o = find_opt(a + 2, len, true);

			if (strncmp(a + 2, "help", len) == 0 && len)
				c->help = true;
			if (!o)
				continue;
			if (o->has_arg == no_argument)
				cli_add(c, o->name, "true");
			else if (eq)
				cli_add(c, o->name, eq + 1);
			else if (i + 1 < argc) {
				c->argv[c->argc++] = argv[++i];
				cli_add(c, o->name, argv[i]);
			}
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			for (size_t j = 1; a[j]; j++) {
				const struct option *o = run_opts__longopts();

				if (a[j] == 'h')
					c->help = true;
				for (; o->name && !(o->flag == NULL && o->val == a[j]); o++)
					;
				if (!o->name || strcmp(o->name, "help") == 0)
					continue;
				if (o->has_arg == no_argument) {
					cli_add(c, o->name, "true");
					continue;
				}
				if (a[j + 1])
					cli_add(c, o->name, a + j + 1);
				else if (i + 1 < argc) {
					c->argv[c->argc++] = argv[++i];
					cli_add(c, o->name, argv[i]);
				}
				break;
			}
		}
	}
	/* what follows "--" is left for the parser to refuse */
	return 0;
}

bool cli_has(const struct cli *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->kv[i].key, key) == 0)
			return true;
	return false;
}

/* ---- one generation: a file read, checked, and merged under the command line ---- */

void gen_free(struct gen *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nargs; i++)
		free(g->args[i]);
	free(g->args);
	free(g->argv);
	conffile__free(&g->cf);
	free(g->text);
	free(g->path);
	free(g);
}

/* A config file that could not be opened as one, in g->cf; r as given. */
static int open_failed(struct gen *g, int r, const struct file_read_error *why)
{
	switch (why->step) {
	case FILE_READ_STAT:
	case FILE_READ_OPEN:
		if (r != -ENOENT)
			conffile__error(&g->cf, 0, 0, "cannot open: %s", strerror(-r));
		break;
	case FILE_READ_FSTAT:
		conffile__error(&g->cf, 0, 0, "cannot stat: %s", strerror(-r));
		break;
	case FILE_READ_KIND:
		conffile__error(&g->cf, 0, 0, "it is %s, not a regular file", file_kind(why->mode));
		break;
	default:
		conffile__error(&g->cf, 0, 0, "cannot read: %s", strerror(-r));
		break;
	}
	return r;
}

/*
 * Read path into g->text. The file decides what runs as root, so it must be
 * a regular file owned by root or by the user running plumbline and
 * writable by nobody else (as bl_dir__check() asks of the state
 * directory). A file-level problem is recorded in g->cf at line 0.
 * Returns 0, -ENOENT (missing), or another -errno.
 */
static int read_file(struct gen *g, const char *path)
{
	struct file_read_error why;
	_cleanup_close_ int fd = -1;
	uid_t me = geteuid();
	struct stat st;
	size_t len = 0;
	int r;

	/* the size is checked after the owner, which is the graver problem */
	fd = file_open_regular(path, SIZE_MAX, 0, &st, &why);
	if (fd < 0)
		return open_failed(g, fd, &why);
	if (st.st_uid != 0 && st.st_uid != me) {
		conffile__error(&g->cf, 0, 0,
				"owned by uid %u, not by root or uid %u that runs plumbline: whoever owns it chooses "
				"what plumbline runs; fix: chown %s %s",
				(unsigned)st.st_uid, (unsigned)me, me == 0 ? "root" : "\"$(id -un)\"", path);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		conffile__error(&g->cf, 0, 0, "writable by group or others (mode %04o); fix: chmod go-w %s",
				(unsigned)(st.st_mode & 07777), path);
		return -EPERM;
	}
	r = file_read_fd(fd, &st, CF_FILE_MAX, &g->text, &len, &why);
	if (r == -EFBIG)
		conffile__error(&g->cf, 0, 0, "larger than %u bytes", CF_FILE_MAX);
	else if (r < 0 && r != -ENOMEM)
		conffile__error(&g->cf, 0, 0, "cannot read: %s", strerror(-r));
	if (r < 0)
		return r;
	r = conffile__parse(g->text, len, &g->cf);
	return r == -EINVAL ? 0 : r; /* syntax errors are in g->cf */
}

static void on_log(enum log_level lvl, const char *msg, void *ctx)
{
	struct sink *s = ctx;

	if (lvl != LOG_LVL_ERROR)
		return;
	if (!s->errors++)
		snprintf(s->msg, sizeof(s->msg), "%s", msg);
}

/* run_opts__parse(argv) with its errors collected, not printed; one setting
 * alone: run_opts__parse_setting(). */
static int parse_quietly_as(int argc, char **argv, struct run_opts *o, struct sink *s, bool alone)
{
	int r;

	memset(s, 0, sizeof(*s));
	log_set_sink(on_log, s);
	r = alone ? run_opts__parse_setting(argc, argv, o) : run_opts__parse(argc, argv, o);
	log_set_sink(NULL, NULL);
	return r;
}

int parse_quietly(int argc, char **argv, struct run_opts *o, struct sink *s)
{
	return parse_quietly_as(argc, argv, o, s, false);
}

int parse_whole_quietly(int argc, char **argv, struct run_opts *o, struct sink *s)
{
	int r = parse_quietly(argc, argv, o, s);

	if (r == 0) {
		log_set_sink(on_log, s);
		r = run_opts__check_files(o);
		log_set_sink(NULL, NULL);
	}
	return r;
}

/* Check each setting, and make its argument. Errors go to g->cf. */
static int gen_settings(struct gen *g)
{
	g->args = calloc(g->cf.n ? g->cf.n : 1, sizeof(char *));
	if (!g->args)
		return -ENOMEM;
	for (size_t i = 0; i < g->cf.n; i++) {
		const struct cf_entry *e = &g->cf.e[i];
		const struct option *o = find_opt(e->key, strlen(e->key), false);
		const struct run_opt *ki = key_info(e->key);
		struct run_opts scratch;
		struct sink sink;
		char *arg = NULL;
		bool dup = false;

		if (!o) {
			const char *names[128], *near;
			size_t n = 0;

			for (const struct option *x = run_opts__longopts(); x->name && n < ARRAY_SIZE(names); x++)
				if (strcmp(x->name, "help") != 0)
					names[n++] = x->name;
			near = closest_name(e->key, names, n);
			if (strcmp(e->key, "config") == 0 || strcmp(e->key, "no-config") == 0 ||
			    strcmp(e->key, "help") == 0)
				conffile__error(&g->cf, e->line, e->col, "'%s' is a command-line option only", e->key);
			else if (near)
				conffile__error(&g->cf, e->line, e->col, "unknown key '%s' (did you mean '%s'?)",
						e->key, near);
			else
				conffile__error(
				    &g->cf, e->line, e->col,
				    "unknown key '%s': the keys are the long options of `plumbline run --help`",
				    e->key);
			continue;
		}
		for (size_t j = 0; j < i && !(ki && (ki->flags & RUN_OPT_REPEAT)); j++)
			if (strcmp(g->cf.e[j].key, e->key) == 0) {
				conffile__error(&g->cf, e->line, e->col,
						"'%s' is set again (first at line %d); only rules, enable-rule and "
						"disable-rule may repeat",
						e->key, g->cf.e[j].line);
				dup = true;
				break;
			}
		if (dup)
			continue;
		if (o->has_arg == no_argument) {
			if (strcmp(e->value, "false") == 0)
				continue;
			if (strcmp(e->value, "true") != 0) {
				conffile__error(&g->cf, e->line, e->vcol, "'%s' takes true or false", e->key);
				continue;
			}
			if (asprintf(&arg, "--%s", e->key) < 0)
				return -ENOMEM;
		} else if (asprintf(&arg, "--%s=%s", e->key, e->value) < 0) {
			return -ENOMEM;
		}
		g->args[g->nargs++] = arg;
		{
			char *argv[] = {(char *)"run", arg, NULL};

			if (parse_quietly_as(2, argv, &scratch, &sink, true) != 0)
				conffile__error(&g->cf, e->line, e->vcol, "%s",
						sink.errors ? sink.msg : "invalid value");
		}
	}
	return 0;
}

/*
 * Read and check the file at path (NULL: none) and merge it under c's
 * command line into a new generation. required: a missing file is an error.
 * Returns 0 and *ret (a generation whose g->cf may hold errors: check
 * g->cf.errors), or -errno (nothing).
 */
int gen_load(const char *path, bool required, const struct cli *c, struct gen **ret)
{
	struct gen *g = calloc(1, sizeof(*g));
	size_t n = 0;
	int r;

	if (!g)
		return -ENOMEM;
	if (path) {
		g->path = strdup(path);
		if (!g->path) {
			gen_free(g);
			return -ENOMEM;
		}
		r = read_file(g, path);
		if (r == -ENOENT) {
			if (required)
				conffile__error(&g->cf, 0, 0, "cannot open: %s", strerror(ENOENT));
			free(g->path);
			g->path = NULL; /* the shipped defaults */
		} else if (r == -ENOMEM) {
			gen_free(g);
			return r;
		}
	}
	if (!g->path || g->text) { /* read (none: nothing to check): its settings, syntax errors or not */
		r = gen_settings(g);
		if (r < 0) {
			gen_free(g);
			return r;
		}
	}
	g->argv = calloc(g->nargs + (size_t)c->argc + 2, sizeof(char *));
	if (!g->argv) {
		gen_free(g);
		return -ENOMEM;
	}
	g->argv[n++] = (char *)"run";
	if (!g->cf.errors) {
		struct sink sink;

		/* what no setting gets wrong alone, the file's whole may */
		g->argv[0] = (char *)"run";
		for (size_t i = 0; i < g->nargs; i++)
			g->argv[n++] = g->args[i];
		if (parse_quietly((int)n, g->argv, &g->opts, &sink) != 0)
			conffile__error(&g->cf, 0, 0, "%s", sink.errors ? sink.msg : "invalid settings");
		/* then the command line over it: a key it sets is the command line's alone */
		n = 1;
		for (size_t i = 0; i < g->nargs; i++) {
			const char *a = g->args[i] + 2, *eq = strchr(a, '=');
			char key[CF_KEY_MAX + 1];

			snprintf(key, sizeof(key), "%.*s", (int)(eq ? (size_t)(eq - a) : strlen(a)), a);
			if (!cli_has(c, key))
				g->argv[n++] = g->args[i];
		}
	}
	for (int i = 1; i < c->argc; i++)
		g->argv[n++] = c->argv[i];
	g->argc = (int)n;
	*ret = g;
	return 0;
}

/* Sort errors by position: the file's own first, then by line and column. */
static int cmp_err(const void *a, const void *b)
{
	const struct cf_error *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* Print g's errors as `rules check` prints its diagnostics (rules/diag.c):
 * "FILE:LINE:COL: error: message", or "FILE: error: message" for the whole
 * file; to out, or logged when out is NULL. Untrusted text is escaped. */
void print_errors(struct gen *g, const char *path, FILE *out)
{
	_cleanup_free_ char *file = text_escape_str(path);

	if (g->cf.nerr) /* qsort(NULL, 0, ...) is undefined */
		qsort(g->cf.err, g->cf.nerr, sizeof(*g->cf.err), cmp_err);
	for (size_t i = 0; i < g->cf.nerr; i++) {
		const struct cf_error *x = &g->cf.err[i];
		_cleanup_free_ char *msg = text_escape_str(x->msg);
		char where[64] = "";

		if (x->line > 0)
			snprintf(where, sizeof(where), ":%d:%d", x->line, x->col);
		if (out)
			fprintf(out, "%s%s: error: %s\n", file ? file : "?", where, msg ? msg : "?");
		else
			log_error("%s%s: %s", file ? file : "?", where, msg ? msg : "?");
	}
	if (g->cf.errors > g->cf.nerr) {
		if (out)
			fprintf(out, "(%zu more errors not shown)\n", g->cf.errors - g->cf.nerr);
		else
			log_error("(%zu more errors not shown)", g->cf.errors - g->cf.nerr);
	}
}

/* ---- the running sensor's config ---- */

static struct {
	struct run_opts *cur; /* the sensor's options, updated in place by reloads */
	struct cli cli;
	const char *path; /* NULL: --no-config */
	bool required;
	struct gen *gen;  /* the newest generation applied; older ones in ->prev */
	char *inuse[128]; /* per key (run_opts__longopts() order): the values in effect */
} run_cfg;

char *values_of(const struct gen *g, const struct cli *c, const char *key, enum source *ret_src, int *ret_line)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	bool any = false;

	if (!f)
		return NULL;
	*ret_src = SRC_DEFAULT;
	*ret_line = 0;
	if (cli_has(c, key)) {
		*ret_src = SRC_CLI;
		for (size_t i = 0; i < c->n; i++)
			if (strcmp(c->kv[i].key, key) == 0) {
				fprintf(f, "%s%s", any ? "\n" : "", c->kv[i].value);
				any = true;
			}
	} else {
		for (size_t i = 0; i < g->cf.n; i++)
			if (strcmp(g->cf.e[i].key, key) == 0) {
				if (!any)
					*ret_line = g->cf.e[i].line;
				*ret_src = SRC_FILE;
				fprintf(f, "%s%s", any ? "\n" : "", g->cf.e[i].value);
				any = true;
			}
	}
	if (!any) {
		const struct run_opt *ki = key_info(key);

		fputs(ki && ki->def ? ki->def : "", f);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

int config__parse_run(int argc, char **argv, struct run_opts *ret)
{
	struct gen *g = NULL;
	size_t k = 0;
	int r;

	/* what an earlier parse kept (tests parse more than once; its options are being replaced) */
	free(run_cfg.cli.argv);
	run_cfg.cli.argv = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(run_cfg.inuse); i++) {
		free(run_cfg.inuse[i]);
		run_cfg.inuse[i] = NULL;
	}
	while (run_cfg.gen) {
		struct gen *prev = run_cfg.gen->prev;

		gen_free(run_cfg.gen);
		run_cfg.gen = prev;
	}
	run_cfg.cur = NULL;
	r = cli_scan(argc, argv, &run_cfg.cli);
	if (r < 0)
		return r == -ENOMEM ? log_error_errno(r, "Out of memory") : r;
	if (run_cfg.cli.help)
		return run_opts__parse(run_cfg.cli.argc, run_cfg.cli.argv, ret);
	run_cfg.path = run_cfg.cli.none ? NULL : run_cfg.cli.path ? run_cfg.cli.path : PL_CONFIG_DEFAULT;
	run_cfg.required = run_cfg.cli.path != NULL && !run_cfg.cli.none;
	r = gen_load(run_cfg.path, run_cfg.required, &run_cfg.cli, &g);
	if (r < 0)
		return log_error_errno(r, "Cannot read the config file %s: %m", run_cfg.path);
	if (g->cf.errors) {
		print_errors(g, run_cfg.path, NULL);
		log_error("not starting with a config file that has errors (`plumbline config check %s` lists them)",
			  run_cfg.path);
		gen_free(g);
		return -EINVAL;
	}
	r = run_opts__parse(g->argc, g->argv, ret);
	if (r == 0)
		r = run_opts__check_files(ret);
	if (r) {
		gen_free(g);
		return r;
	}
	if (g->path)
		log_debug("config: read %s (%zu settings)", g->path, g->cf.n);
	run_cfg.cur = ret;
	run_cfg.gen = g;
	for (const struct option *o = run_opts__longopts(); o->name && k < ARRAY_SIZE(run_cfg.inuse); o++, k++) {
		enum source src;
		int line;

		run_cfg.inuse[k] = values_of(g, &run_cfg.cli, o->name, &src, &line);
	}
	return 0;
}

/* A key's values for a message: "a, b", or "the default" when none. */
static const char *shown(const char *v, char *buf, size_t size)
{
	size_t o = 0;

	if (!v || !v[0])
		return "no value: the default";
	for (size_t i = 0; v[i] && o + 5 < size; i++)
		if (v[i] == '\n') {
			buf[o++] = ',';
			buf[o++] = ' ';
		} else {
			buf[o++] = v[i];
		}
	buf[o] = '\0';
	return buf;
}

static void log_level_of(const struct run_opts *o)
{
	log_set_level(o->verbose ? LOG_LVL_DEBUG : o->quiet ? LOG_LVL_ERROR : LOG_LVL_INFO);
}

int config__reload(struct alerts *a, int *ret_rules)
{
	struct run_opts *cur = run_cfg.cur;
	bool rules_changed = false, keep = false; /* keep: the options now point into g */
	struct gen *g = NULL;
	size_t k = 0;
	int r;

	if (!cur || !run_cfg.path)
		return 0;
	r = gen_load(run_cfg.path, run_cfg.required, &run_cfg.cli, &g);
	if (r < 0)
		return log_error_errno(r, "config: cannot read %s (%m): the previous configuration keeps running",
				       run_cfg.path);
	if (!g->cf.errors) {
		struct sink sink;

		if (parse_whole_quietly(g->argc, g->argv, &g->opts, &sink) != 0)
			conffile__error(&g->cf, 0, 0, "with the command line: %s",
					sink.errors ? sink.msg : "invalid settings");
	}
	if (g->cf.errors) {
		print_errors(g, run_cfg.path, NULL);
		log_error("config: %s has errors: nothing of it is applied, the previous configuration keeps running",
			  run_cfg.path);
		gen_free(g);
		return -EINVAL;
	}
	for (const struct option *o = run_opts__longopts(); o->name && k < ARRAY_SIZE(run_cfg.inuse); o++, k++) {
		const struct run_opt *ki = key_info(o->name);
		enum source src;
		int line;
		_cleanup_free_ char *v = values_of(g, &run_cfg.cli, o->name, &src, &line);
		bool applied = false;
		char old[256];

		if (strcmp(o->name, "help") == 0 || !v || strcmp(v, run_cfg.inuse[k] ? run_cfg.inuse[k] : "") == 0)
			continue;
		if (ki && (ki->flags & RUN_OPT_LIVE)) {
			if (strcmp(o->name, "json") == 0) {
				/* a new file for the JSON output is a reopen; to or from stdout, or
				 * none, changes what the sensor prints: a restart */
				if (cur->json_path && g->opts.json_path && strcmp(cur->json_path, "-") != 0 &&
				    strcmp(g->opts.json_path, "-") != 0) {
					cur->json_path = g->opts.json_path;
					applied = keep = true;
				}
			} else if (strcmp(o->name, "stats-interval") == 0) {
				cur->stats_interval_s = g->opts.stats_interval_s;
				applied = true;
			} else if (strcmp(o->name, "quiet") == 0 || strcmp(o->name, "verbose") == 0) {
				cur->quiet = g->opts.quiet;
				cur->verbose = g->opts.verbose;
				log_level_of(cur);
				applied = true;
			} else if (a) { /* the rules' keys: applied together below */
				rules_changed = true;
				applied = true;
			}
		}
		if (applied) {
			log_info("config: %s changed: now %s", o->name, shown(v, old, sizeof(old)));
			free(run_cfg.inuse[k]);
			run_cfg.inuse[k] = TAKE_PTR(v);
		} else {
			log_warn("config: %s changed: needs a restart (still using %s)", o->name,
				 shown(run_cfg.inuse[k], old, sizeof(old)));
		}
	}
	if (a && rules_changed) {
		struct alerts_opts ao = {
		    .paths = g->opts.rule_list, /* kept by alerts: g is kept */
		    .npaths = g->opts.nrule_list,
		    .enable = g->opts.enable,
		    .nenable = g->opts.nenable,
		    .disable = g->opts.disable,
		    .ndisable = g->opts.ndisable,
		    .regex_budget_ns = (uint64_t)g->opts.regex_budget_ms * 1000000ull,
		};

		r = alerts__reconfigure(a, &ao);
		keep = true; /* the rule loader holds g's lists (restored to the old ones on failure) */
		/* the options say what runs: the new lists only once they loaded */
		cur->regex_budget_ms = g->opts.regex_budget_ms;
		if (r == 0) {
			memcpy(cur->rule_paths, g->opts.rule_paths, sizeof(cur->rule_paths));
			cur->nrule_paths = g->opts.nrule_paths;
			memcpy(cur->local_rule_paths, g->opts.local_rule_paths, sizeof(cur->local_rule_paths));
			cur->nlocal_rule_paths = g->opts.nlocal_rule_paths;
			memcpy(cur->rule_list, g->opts.rule_list, sizeof(cur->rule_list));
			cur->nrule_list = g->opts.nrule_list;
			memcpy(cur->enable, g->opts.enable, sizeof(cur->enable));
			memcpy(cur->disable, g->opts.disable, sizeof(cur->disable));
			cur->nenable = g->opts.nenable;
			cur->ndisable = g->opts.ndisable;
		}
		*ret_rules = r;
	} else if (a) {
		*ret_rules = alerts__reload(a);
	}
	if (!keep) { /* nothing points into it: a SIGHUP a day for log rotation costs nothing */
		gen_free(g);
		return 1;
	}
	g->prev = run_cfg.gen;
	run_cfg.gen = g;
	return 1;
}
