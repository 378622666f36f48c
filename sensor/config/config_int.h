/* SPDX-License-Identifier: MIT */
/*
 * config_int.h - what config.c (the file, merged under run's command line,
 * reloaded) shares with cmd_config.c (`plumbline config check|show`).
 * Internal to those two.
 */
#ifndef PL_CONFIG_INT_H
#define PL_CONFIG_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "conffile.h"
#include "config/options.h"

/* An option of the command line: its key, and its value ("true" for one
 * without a value). */
struct cli_kv {
	const char *key;
	const char *value;
};

#define CLI_MAX 256

struct cli {
	char **argv; /* "run", then the arguments other than --config/--no-config */
	int argc;
	struct cli_kv kv[CLI_MAX];
	size_t n;
	const char *path; /* --config PATH, or NULL */
	bool none;	  /* --no-config */
	bool help;
};

/* One generation: a file read, checked, and merged under the command line. */
struct gen {
	char *path; /* the file read; NULL: none */
	char *text;
	struct conffile cf;
	char **args; /* the "--key=value" strings made of the file's settings */
	size_t nargs;
	char **argv; /* "run", the file's arguments, the command line's */
	int argc;
	struct run_opts opts;
	struct gen *prev;
};

/* Collects the option parser's errors (log_set_sink) while a setting is checked. */
struct sink {
	char msg[192];
	int errors;
};

/* Where a key's values come from. */
enum source { SRC_DEFAULT, SRC_FILE, SRC_CLI };

/* Split run's argv: --config PATH / --no-config out (into c->path, c->none),
 * the keys the rest sets noted. 0, -EINVAL (logged) or -ENOMEM; c->argv
 * is the caller's to free. */
int cli_scan(int argc, char **argv, struct cli *c);
bool cli_has(const struct cli *c, const char *key);

/* Read and check the file at path (NULL: none; required: a missing file is
 * an error), merged under c. 0 and *ret, whose g->cf holds the errors; or
 * -errno. */
int gen_load(const char *path, bool required, const struct cli *c, struct gen **ret);
void gen_free(struct gen *g);

/* run_opts__parse() with its errors collected in *s, not printed. */
int parse_quietly(int argc, char **argv, struct run_opts *o, struct sink *s);

/* parse_quietly(), then run_opts__check_files(): the whole configuration's. */
int parse_whole_quietly(int argc, char **argv, struct run_opts *o, struct sink *s);

/* g's errors as `rules check` prints them, to out; logged when out is NULL. */
void print_errors(struct gen *g, const char *path, FILE *out);

/* The values of key in g under c, joined by '\n' (the default when none),
 * their source and the line of the first in the file. malloc'd; NULL: ENOMEM. */
char *values_of(const struct gen *g, const struct cli *c, const char *key, enum source *ret_src, int *ret_line);

#endif
