// SPDX-License-Identifier: MIT
/*
 * options.c - parse and validate `plumbline run` options.
 *
 * The options, their defaults and checks are options_table.c's; here they
 * become getopt_long()'s tables, the defaults are applied through the same
 * setters as given values, and what only a combination of options can get
 * wrong is checked.
 */
#include "config/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "log.h"
#include "metrics.h"

#define OPT_VAL_BASE 0x100 /* getopt's val of an option without a short name: this + its index */

/*
 * The shipped rules: the source tree's for a binary that runs from its build
 * tree (the tests, a developer), the installed ones for an installed binary.
 * Decided by where the binary is, not by whether the source is there: a
 * package built on this host must not read the source tree it came from.
 */
const char *run_opts__default_rules(void)
{
	static const char *dir;
	char exe[4096];
	ssize_t n;

	if (dir)
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		dir = strncmp(exe, PL_BUILD_DIR "/", strlen(PL_BUILD_DIR) + 1) == 0 &&
				      access(PL_RULES_SOURCE_DIR, R_OK) == 0
			      ? PL_RULES_SOURCE_DIR
			      : PL_RULES_INSTALL_DIR;
	}
	return dir ? dir : PL_RULES_INSTALL_DIR;
}

void run_opts__resolve_rules(struct run_opts *o)
{
	struct stat st;

	o->nrule_list = 0;
	if (!o->rules)
		return;
	if (!o->nrule_paths)
		o->rule_list[o->nrule_list++] = run_opts__default_rules();
	for (size_t i = 0; i < o->nrule_paths; i++)
		o->rule_list[o->nrule_list++] = o->rule_paths[i];
	/* the default local directory only when there is one: a package ships
	 * it empty, a build from source has none */
	if (!o->nlocal_rule_paths && stat(PL_LOCAL_RULES_DEFAULT, &st) == 0 && S_ISDIR(st.st_mode))
		o->rule_list[o->nrule_list++] = PL_LOCAL_RULES_DEFAULT;
	for (size_t i = 0; i < o->nlocal_rule_paths; i++)
		o->rule_list[o->nrule_list++] = o->local_rule_paths[i];
}

/* The entries getopt_long() parses: those with a setter, and --help. */
static bool parsed(const struct run_opt *d)
{
	return d->set || d->short_name == 'h';
}

static struct option longopts[128];
static char shortopts[32];

/* getopt_long()'s tables, made of the table once. */
static void make_getopt_tables(void)
{
	const struct run_opt *t;
	size_t n, k = 0, s = 0;

	if (longopts[0].name)
		return;
	t = run_opts__table(&n);
	for (size_t i = 0; i < n && k + 1 < ARRAY_SIZE(longopts); i++) {
		if (!parsed(&t[i]))
			continue;
		longopts[k++] = (struct option){ t[i].name, t[i].arg ? required_argument : no_argument, NULL,
						 t[i].short_name ? t[i].short_name : OPT_VAL_BASE + (int)i };
		if (t[i].short_name && s + 3 < sizeof(shortopts)) {
			shortopts[s++] = t[i].short_name;
			if (t[i].arg)
				shortopts[s++] = ':';
		}
	}
}

const struct option *run_opts__longopts(void)
{
	make_getopt_tables();
	return longopts;
}

/* The table's entry of getopt's c, or NULL. */
static const struct run_opt *entry_of(int c)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);

	if (c >= OPT_VAL_BASE && (size_t)(c - OPT_VAL_BASE) < n)
		return &t[c - OPT_VAL_BASE];
	for (size_t i = 0; i < n; i++)
		if (t[i].short_name && t[i].short_name == c)
			return &t[i];
	return NULL;
}

/* The defaults, through the setters: what --help and the docs say is what runs. */
static void apply_defaults(struct run_opts *o)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);

	memset(o, 0, sizeof(*o)); /* padding too: two parses of the same options compare equal */
	o->live = LIVE_AUTO;
	o->baselines = o->rules = true; /* what --no-baselines and --no-rules turn off */
	bl_policy__defaults(&o->policy);
	for (size_t i = 0; i < n; i++)
		if (t[i].set && t[i].arg && t[i].def && !(t[i].flags & RUN_OPT_DEF_SHOWN) &&
		    t[i].set(&t[i], t[i].def, o) < 0)
			log_error("the default of --%s is invalid: a bug", t[i].name);
}

/* What no option gets wrong alone, their combination may. */
/* whole: o is every setting (a config file's one setting checked alone is
 * not: what needs another key waits for the whole file). */
static int check_combination(struct run_opts *o, bool whole)
{
	if ((o->process_records || o->window_records || o->map_records) && !o->json_path)
		o->json_path = "-";
	if (o->ocsf_path && strcmp(o->ocsf_path, "-") == 0 && o->json_path && strcmp(o->json_path, "-") == 0) {
		log_error("--json and --ocsf cannot both write to standard output");
		return -EINVAL;
	}
	if (o->metrics) {
		struct metrics_addr ma;
		char msg[160];

		/* parsed already: only the address's kind is asked here */
		if (metrics_addr__parse(o->metrics, &ma, msg, sizeof(msg)) == 0 && !ma.loopback &&
		    !o->metrics_allow_remote) {
			log_error("--metrics %s: not a loopback address; the metrics would be served to the network "
				  "(unauthenticated, unencrypted). Give 127.0.0.1:PORT or [::1]:PORT, or add "
				  "--metrics-allow-remote to allow it",
				  o->metrics);
			return -EINVAL;
		}
	}
	if (!whole)
		goto fleet_done;
	if (o->fleet_dir && !o->role) {
		log_error("--fleet-dir needs --role: the bundles taken are the role's");
		return -EINVAL;
	}
	if (o->fleet_dir && !o->baselines) {
		log_error("--fleet-dir gives baselines, and --no-baselines uses none");
		return -EINVAL;
	}
	if (o->fleet_dir && !o->fleet_keys) {
		struct stat st;

		if (stat(PL_FLEET_KEYS_DEFAULT, &st) < 0) {
			log_error(
			    "--fleet-dir needs trusted keys (fleet bundles must be signed): give --fleet-keys, or put "
			    "them at " PL_FLEET_KEYS_DEFAULT " (docs/fleet.md)");
			return -EINVAL;
		}
		o->fleet_keys = PL_FLEET_KEYS_DEFAULT;
	} else if (o->fleet_dir) {
		struct stat st;

		if (stat(o->fleet_keys, &st) < 0) {
			log_error("--fleet-keys %s: %m (the public keys fleet bundles must be signed by)", o->fleet_keys);
			return -EINVAL;
		}
	}
fleet_done:
	if (o->ocsf_path && !o->rules) {
		log_error("--ocsf writes alerts, and --no-rules raises none");
		return -EINVAL;
	}
	if (o->live == LIVE_AUTO)
		o->live = ((o->json_path && strcmp(o->json_path, "-") == 0) ||
			   (o->ocsf_path && strcmp(o->ocsf_path, "-") == 0))
				  ? LIVE_OFF
				  : LIVE_ON;
	return 0;
}

int run_opts__check_files(const struct run_opts *o)
{
	char target[PL_SYSLOG_HOST_MAX + 16], msg[512];

	/* the TLS files read and checked now, as the transport will: before anything starts */
	if (syslog_tls__check(&o->syslog, &o->syslog_tls, msg, sizeof(msg)) < 0) {
		syslog_target__format(&o->syslog, target, sizeof(target));
		log_error("--syslog %s: %s", target, msg);
		return -EINVAL;
	}
	return 0;
}

static int parse(int argc, char **argv, struct run_opts *o, bool whole);

int run_opts__parse(int argc, char **argv, struct run_opts *o)
{
	return parse(argc, argv, o, true);
}

int run_opts__parse_setting(int argc, char **argv, struct run_opts *o)
{
	return parse(argc, argv, o, false);
}

static int parse(int argc, char **argv, struct run_opts *o, bool whole)
{
	int c;

	make_getopt_tables();
	apply_defaults(o);
	optind = 0; /* 0, not 1: glibc then also forgets a half-parsed option cluster */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct run_opt *d = entry_of(c);
		int r;

		if (c == 'h') {
			run_opts__usage(stdout);
			return 1;
		}
		if (!d || !d->set) {
			if (optopt)
				log_error("unknown or incomplete option '%s' (see plumbline run --help)",
					  argv[optind - 1]);
			else
				log_error("unknown option '%s' (see plumbline run --help)", argv[optind - 1]);
			return -EINVAL;
		}
		r = d->set(d, optarg, o);
		if (r)
			return r;
	}
	if (optind < argc) {
		log_error("unexpected argument '%s' (see plumbline run --help)", argv[optind]);
		return -EINVAL;
	}
	run_opts__resolve_rules(o);
	return check_combination(o, whole);
}
