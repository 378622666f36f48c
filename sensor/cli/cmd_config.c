// SPDX-License-Identifier: MIT
/*
 * cmd_config.c - `plumbline config check [PATH]`, `plumbline config show
 * [PATH] [RUN OPTIONS]` and `plumbline config example` (docs/config.md): the
 * config file checked as `run` would read it, its errors printed as `rules
 * check` prints its own; the example file made of the option table.
 */
#include "config/config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "config/config_int.h"
#include "log.h"
#include "ruleset.h"
#include "textsafe.h"

static void config_usage(FILE *f)
{
	fputs("Usage: plumbline config COMMAND [PATH] [RUN OPTIONS]\n"
	      "\n"
	      "  check [PATH]             check a config file (default " PL_CONFIG_DEFAULT "):\n"
	      "                           exit 0 when valid, 1 when not; every problem as\n"
	      "                           FILE:LINE:COL: error: what\n"
	      "  show [PATH] [OPTIONS]    the configuration `plumbline run OPTIONS` would use:\n"
	      "                           every key, its value, and where it comes from\n"
	      "                           (default, file:LINE, command line)\n"
	      "  example                  the example config file: every key commented out\n"
	      "                           at its default, with what it means\n"
	      "\n"
	      "See docs/config.md.\n",
	      f);
}

int config__view(const char *path, bool no_config, struct gen **ret, const struct run_opts **ret_opts)
{
	struct cli c;
	struct gen *g = NULL;
	struct sink sink;
	int r;

	r = cli_scan(1, (char *[]){ (char *)"run", NULL }, &c);
	if (r == 0)
		r = gen_load(no_config ? NULL : path ? path : PL_CONFIG_DEFAULT, path != NULL, &c, &g);
	free(c.argv);
	if (r < 0)
		return log_error_errno(r, "Cannot read %s: %m", path ? path : PL_CONFIG_DEFAULT);
	if (!g->cf.errors && parse_whole_quietly(g->argc, g->argv, &g->opts, &sink) != 0)
		conffile__error(&g->cf, 0, 0, "%s", sink.errors ? sink.msg : "invalid settings");
	if (g->cf.errors) {
		print_errors(g, path ? path : g->path ? g->path : PL_CONFIG_DEFAULT, stderr);
		gen_free(g);
		return 1;
	}
	*ret_opts = &g->opts;
	*ret = g;
	return 0;
}

void config__view_free(struct gen *g)
{
	gen_free(g);
}

/* The rules the file makes `run` load, checked as `run` loads them. */
static size_t check_rules(const struct run_opts *o)
{
	struct rl_ruleset *rs = NULL;
	struct rl_diags d = { 0 };
	size_t errors;
	int r;

	if (!o->rules)
		return 0;
	r = rl_ruleset__load(o->rule_list, o->nrule_list, &rs, &d);
	rl_diags__print(&d, stdout);
	errors = d.errors + (r < 0 && !d.errors);
	if (r == 0) {
		printf("%zu rules OK from", rl_ruleset__count(rs));
		for (size_t i = 0; i < o->nrule_list; i++)
			printf("%s %s", i ? "," : "", o->rule_list[i]);
		printf(" (%zu warnings)\n", d.warnings);
	} else if (r != -EINVAL) {
		printf("cannot load the rules: %s\n", strerror(-r));
	}
	rl_diags__free(&d);
	rl_ruleset__free(rs);
	return errors;
}

static int cmd_check(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : PL_CONFIG_DEFAULT;
	struct cli c;
	struct gen *g = NULL;
	struct sink sink;
	size_t errors;
	int r;

	if (argc > 2) {
		config_usage(stderr);
		return -EINVAL;
	}
	r = cli_scan(1, (char *[]){(char *)"run", NULL}, &c);
	if (r == 0)
		r = gen_load(path, true, &c, &g);
	free(c.argv);
	if (r < 0)
		return log_error_errno(r, "Cannot check %s: %m", path);
	/* the settings together, as run reads them (a combination may be wrong) */
	if (!g->cf.errors && parse_whole_quietly(g->argc, g->argv, &g->opts, &sink) != 0)
		conffile__error(&g->cf, 0, 0, "%s", sink.errors ? sink.msg : "invalid settings");
	print_errors(g, path, stdout);
	errors = g->cf.errors;
	if (!errors) {
		printf("%zu settings OK\n", g->cf.n);
		errors = check_rules(&g->opts); /* what `run` would refuse to start with */
	}
	if (errors)
		printf("%zu errors\n", errors);
	gen_free(g);
	return errors ? 1 : 0;
}

static void print_value(const char *key, const char *v, const char *source)
{
	_cleanup_free_ char *esc = NULL;
	char *q = NULL;
	size_t len = 0;
	FILE *f;

	if (conffile__needs_quotes(v) || strchr(v, '\\')) {
		f = open_memstream(&q, &len);
		if (!f)
			return;
		fputc('"', f);
		for (const char *p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			fputc(*p, f);
		}
		fputc('"', f);
		if (fclose(f) != 0) {
			free(q);
			return;
		}
	}
	esc = text_escape_str(q ? q : v);
	printf("%-20s = %-34s # %s\n", key, esc ? esc : "?", source);
	free(q);
}

static int cmd_show(int argc, char **argv)
{
	struct cli c;
	struct gen *g = NULL;
	const char *path;
	struct run_opts o;
	struct sink sink;
	size_t nopts;
	const struct run_opt *table = run_opts__table(&nopts);
	int r, first = 1;

	/* a first argument that is no option is the file */
	if (argc > 1 && argv[1][0] != '-') {
		first = 2;
	}
	{
		char **av = calloc((size_t)argc + 1, sizeof(char *));

		if (!av)
			return log_error_errno(ENOMEM, "Out of memory");
		av[0] = (char *)"run";
		for (int i = first; i < argc; i++)
			av[i - first + 1] = argv[i];
		r = cli_scan(argc - first + 1, av, &c);
		free(av);
		if (r < 0) {
			free(c.argv);
			return r;
		}
	}
	path = first == 2 ? argv[1] : c.none ? NULL : c.path ? c.path : PL_CONFIG_DEFAULT;
	r = gen_load(path, first == 2 || (c.path && !c.none), &c, &g);
	if (r < 0) {
		free(c.argv);
		return log_error_errno(r, "Cannot read %s: %m", path);
	}
	if (g->cf.errors) {
		print_errors(g, path, stderr);
		gen_free(g);
		free(c.argv);
		return 1;
	}
	r = parse_whole_quietly(g->argc, g->argv, &o, &sink);
	if (r) {
		log_error("%s", sink.errors ? sink.msg : "invalid options");
		gen_free(g);
		free(c.argv);
		return -EINVAL;
	}
	printf("# the configuration of `plumbline run`: %s%s\n", g->path ? "file " : "",
	       g->path ? g->path : "no config file, the built-in defaults");
	for (size_t i = 0; i < nopts; i++) {
		const struct run_opt *x = &table[i];
		enum source src;
		int line;
		char source[64];
		_cleanup_free_ char *v = NULL;
		char *p;

		if (x->flags & RUN_OPT_CLI_ONLY)
			continue;
		v = values_of(g, &c, x->name, &src, &line);
		if (!v)
			continue;
		if (src == SRC_FILE)
			snprintf(source, sizeof(source), "file:%d", line);
		else
			snprintf(source, sizeof(source), "%s", src == SRC_CLI ? "command line" : "default");
		if (src == SRC_DEFAULT && strcmp(x->name, "live") == 0) {
			/* its default depends on json and ocsf: say what it comes to */
			print_value(x->name, o.live == LIVE_ON ? "true" : "false",
				    o.live == LIVE_ON ? "default: on, no JSON or OCSF to stdout"
						      : "default: off, JSON or OCSF go to stdout");
			continue;
		}
		if (src == SRC_DEFAULT && !v[0]) {
			bool local = strcmp(x->name, "local-rules") == 0,
			     read = local && o.nrule_list && !strcmp(o.rule_list[o.nrule_list - 1], PL_LOCAL_RULES_DEFAULT);

			printf("# %-18s   (not set)%*s # default%s%s%s\n", x->name, 25, "",
			       strcmp(x->name, "rules") == 0 ? ": the shipped rules in "
			       : local			      ? ": " PL_LOCAL_RULES_DEFAULT
							      : "",
			       strcmp(x->name, "rules") == 0 ? run_opts__default_rules() : "",
			       !local ? "" : read ? ", read" : ", not read: no such directory");
			continue;
		}
		if (src == SRC_FILE) { /* each value with its own line */
			for (size_t j = 0; j < g->cf.n; j++)
				if (strcmp(g->cf.e[j].key, x->name) == 0) {
					snprintf(source, sizeof(source), "file:%d", g->cf.e[j].line);
					print_value(x->name, g->cf.e[j].value, source);
				}
			continue;
		}
		for (char *s = v; s; s = p) {
			p = strchr(s, '\n');
			if (p)
				*p++ = '\0';
			print_value(x->name, s, source);
		}
	}
	gen_free(g);
	free(c.argv);
	return 0;
}

int cmd_config(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	if (strcmp(sub, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(sub, "show") == 0)
		return cmd_show(argc - 1, argv + 1);
	if (strcmp(sub, "example") == 0 && argc == 2) {
		run_opts__example_config(stdout);
		return 0;
	}
	/* for scripts/gen-option-docs.sh: the tables of docs/config.md and docs/cli.md */
	if (strcmp(sub, "doc-table") == 0 && argc == 3)
		return run_opts__doc_table(argv[2], stdout) < 0 ? (config_usage(stderr), -EINVAL) : 0;
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
		config_usage(stdout);
		return 0;
	}
	config_usage(stderr);
	return -EINVAL;
}
