/* SPDX-License-Identifier: MIT */
/*
 * config.h - the config file of `plumbline run` (docs/config.md).
 *
 * Every long option of `run` but --help is a key of the file, with the same
 * name and meaning: the file's settings are handed to run_opts__parse() as
 * if they had been typed before the command line, so an option added to
 * options_table.c is a config key at once. The command line overrides the file
 * key by key (a repeated option given on the command line replaces all of
 * the file's values of it).
 */
#ifndef PL_CONFIG_H
#define PL_CONFIG_H

#include <stdbool.h>

#include "config/options.h"

/* SYSCONFDIR/plumbline/plumbline.conf, from CMake (cmake/dist.cmake): the one
 * place that decides where the config is, for the binary, the unit and the
 * man pages. */
#ifndef PL_CONFIG_DEFAULT
#define PL_CONFIG_DEFAULT "/etc/plumbline/plumbline.conf"
#endif

struct alerts;

/*
 * Parse `run`'s command line (argv[0] is "run") over the config file: the
 * one of --config PATH (an error when missing), else PL_CONFIG_DEFAULT when
 * it exists; none with --no-config. Errors are logged (a file's as
 * FILE:LINE:COL). Returns as run_opts__parse(): 0, 1 when --help was
 * printed, or -EINVAL (or another -errno when the file can't be read).
 *
 * The file is remembered for config__reload(), which updates *ret in
 * place: *ret must live as long as the sensor runs.
 */
int config__parse_run(int argc, char **argv, struct run_opts *ret);

/*
 * SIGHUP: read the config file again. What can change live is applied to
 * the run_opts of config__parse_run() (json, stats-interval, quiet,
 * verbose) and, through alerts__reconfigure(), to a (rules, enable-rule,
 * disable-rule, regex-budget-ms); each other changed key is logged as
 * needing a restart. The rules are reloaded (a may be NULL: --no-rules),
 * their result in *ret_rules.
 *
 * Returns 1 when done; 0 when there is no config to reload (--no-config, or
 * config__parse_run() was not used), the caller then reloads the rules
 * itself; or -EINVAL when the file is broken: its errors are logged and
 * nothing changed, the previous configuration keeps running entirely.
 */
int config__reload(struct alerts *a, int *ret_rules);

struct gen;

/*
 * The options `plumbline run --config PATH` would run with, for the other
 * commands (`rules list`, `config check`): path NULL is the default file when
 * it exists (none when it does not); no_config: none. The file's errors are
 * printed to stderr. 0 with *ret_opts (owned by *ret, freed by
 * config__view_free()), 1 when the file has errors, or -errno (logged).
 */
int config__view(const char *path, bool no_config, struct gen **ret, const struct run_opts **ret_opts);
void config__view_free(struct gen *g);
static inline void config_view_freep(struct gen **g)
{
	config__view_free(*g);
}

/* `plumbline config check|show`: argv[0] is "config". 0, 1 when a file has
 * errors (printed), or -errno. */
int cmd_config(int argc, char **argv);

/*
 * A key's built-in default as the file would write it (NULL: not set by
 * default) and whether SIGHUP applies a change of it, from the option table
 * (options_table.c). -ENOENT for a name that is no key.
 */
int config__key_info(const char *key, const char **ret_default, bool *ret_live);

#endif
