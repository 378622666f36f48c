// SPDX-License-Identifier: MIT
/*
 * options_doc.c - what is written of the run options, all of it from the
 * table (options_table.c): `plumbline run --help`, the example config
 * (`plumbline config example`, committed as sensor/dist/plumbline.conf) and
 * the tables of docs/config.md and docs/cli.md (`plumbline config
 * doc-table`). scripts/gen-option-docs.sh writes the committed copies, and
 * its --check, a test, fails on any drift between them and the table.
 */
#include "config/options.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"

#define HELP_COL 25 /* where --help's text starts */

/* A --help text line, "{def}" and "{max}" replaced. */
static void put_help_line(FILE *out, const struct run_opt *d, const char *line, size_t len)
{
	while (len > 0) {
		if (len >= 5 && memcmp(line, "{def}", 5) == 0) {
			fputs(d->def ? d->def : "", out);
			line += 5, len -= 5;
		} else if (len >= 5 && memcmp(line, "{max}", 5) == 0) {
			fprintf(out, "%u", d->max);
			line += 5, len -= 5;
		} else {
			fputc(*line++, out);
			len--;
		}
	}
	fputc('\n', out);
}

static void put_help(FILE *out, const struct run_opt *d)
{
	char left[64];
	const char *p = d->help;

	if (d->usage)
		snprintf(left, sizeof(left), "%s", d->usage);
	else if (d->short_name)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
	else
		snprintf(left, sizeof(left), "--%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
	if (strlen(left) <= HELP_COL - 3)
		fprintf(out, "  %-*s ", HELP_COL - 3, left);
	else
		fprintf(out, "  %s\n%*s", left, HELP_COL, "");
	for (;;) {
		const char *nl = strchr(p, '\n');

		put_help_line(out, d, p, nl ? (size_t)(nl - p) : strlen(p));
		if (!nl)
			break;
		p = nl + 1;
		fprintf(out, "%*s", HELP_COL, "");
	}
}

void run_opts__usage(FILE *out)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);

	fputs("Usage: plumbline run [OPTIONS]\n"
	      "\n"
	      "Watch every process through eBPF and report what each one costs.\n"
	      "Runs in the foreground until SIGINT/SIGTERM (or --duration), then\n"
	      "flushes every record and detaches. SIGHUP reopens the JSON file.\n",
	      out);
	for (int s = 0; s < RUN_SEC_N; s++) {
		const char *title = run_opts__section_title(s);

		fputc('\n', out);
		if (title[0])
			fprintf(out, "%s:\n", title);
		for (size_t i = 0; i < n; i++)
			if (t[i].section == (enum run_opt_section)s && t[i].help)
				put_help(out, &t[i]);
	}
	fputs("\nSee docs/cli.md, docs/config.md and docs/records.md.\n", out);
}

static bool is_key(const struct run_opt *d)
{
	return !(d->flags & RUN_OPT_CLI_ONLY);
}

/* text as comment lines of at most 72 columns, broken at blanks. */
static void put_comment(FILE *out, const char *text)
{
	while (*text) {
		size_t len = strlen(text), cut = len;

		if (len > 70) {
			cut = 70;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = len;
		}
		fprintf(out, "# %.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

/* The sentence of the live keys. */
static void put_live_keys(FILE *out, const struct run_opt *t, size_t n)
{
	char text[512];
	size_t len = 0, left = 0;

	for (size_t i = 0; i < n; i++)
		left += is_key(&t[i]) && (t[i].flags & RUN_OPT_LIVE);
	len += (size_t)snprintf(text, sizeof(text), "SIGHUP re-reads it:");
	for (size_t i = 0; i < n && len < sizeof(text); i++)
		if (is_key(&t[i]) && (t[i].flags & RUN_OPT_LIVE)) {
			left--;
			len += (size_t)snprintf(text + len, sizeof(text) - len, " %s%s", t[i].name,
						left > 1 ? "," : left == 1 ? " and" : "");
		}
	if (len < sizeof(text))
		snprintf(text + len, sizeof(text) - len, " apply at once; any other change is logged as needing a restart.");
	put_comment(out, text);
}

/* What the shipped file sets, for plumbline.service (which passes only
 * --config): the records in their file, no live view in the journal. */
static const struct {
	const char *key, *value;
} service_keys[] = {
	{ "json", "/var/log/plumbline/records.jsonl" },
	{ "no-live", "true" },
};

static const char *service_value(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(service_keys); i++)
		if (strcmp(service_keys[i].key, key) == 0)
			return service_keys[i].value;
	return NULL;
}

void run_opts__example_config(FILE *out)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);

	fputs("# /etc/plumbline/plumbline.conf - the configuration of `plumbline run` (docs/config.md).\n"
	      "#\n"
	      "# Every key is a long option of `plumbline run` with the same name and\n"
	      "# meaning: `key = value` here is `--key=value` there. An option without a\n"
	      "# value is a key set to true or false (false: as if not given). Keys that\n"
	      "# may repeat (rules, enable-rule, disable-rule) are written once per value.\n"
	      "# The command line overrides this file key by key.\n"
	      "#\n"
	      "# Values run to the end of the line or to a '#'; write \"...\" for a value\n"
	      "# with a '#' or blanks at its ends (\\\" and \\\\ are the only escapes).\n"
	      "# The file must be owned by root and writable by nobody else.\n"
	      "#\n"
	      "# Each setting below is commented out at its built-in default (or, for\n"
	      "# a key not set by default, at an example value), but for json and\n"
	      "# no-live, set for plumbline.service, which passes only --config: its\n"
	      "# records go to their file, and no live view to the journal.\n"
	      "# This file is the output\n"
	      "# of `plumbline config example`. `plumbline config check` checks it;\n"
	      "# `plumbline config show` prints what `plumbline run` would use and where\n"
	      "# each value comes from.\n",
	      out);
	put_live_keys(out, t, n);
	for (int s = 0; s < RUN_SEC_N; s++) {
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			const struct run_opt *d = &t[i];

			if (d->section != (enum run_opt_section)s || !is_key(d))
				continue;
			if (!any)
				fprintf(out, "\n## %s\n\n", run_opts__section_title(s));
			any = true;
			fprintf(out, "# %s%s%s\n#%s = %s\n", d->summary, d->unset ? "; not set: " : "",
				d->unset ? d->unset : "", d->name, d->def ? d->def : d->example ? d->example : "");
			if (service_value(d->name))
				fprintf(out, "%s = %s\n", d->name, service_value(d->name));
		}
	}
}

static const char *default_text(const struct run_opt *d, char *buf, size_t size)
{
	if (d->def)
		snprintf(buf, size, "%s", d->def);
	else if (d->unset)
		snprintf(buf, size, "not set (%s)", d->unset);
	else
		snprintf(buf, size, "not set");
	return buf;
}

static void config_table(FILE *out, const struct run_opt *t, size_t n)
{
	char def[128];

	fputs("| key | default | live | meaning |\n|---|---|---|---|\n", out);
	for (size_t i = 0; i < n; i++)
		if (is_key(&t[i]))
			fprintf(out, "| `%s` | %s | %s | %s |\n", t[i].name, default_text(&t[i], def, sizeof(def)),
				t[i].flags & RUN_OPT_LIVE ? "yes" : "", t[i].summary);
}

static void cli_table(FILE *out, const struct run_opt *t, size_t n)
{
	char def[128], range[96], sh[16] = "";

	fputs("| option | default | values | SIGHUP | meaning |\n|---|---|---|---|---|\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct run_opt *d = &t[i];

		if (d->short_name)
			snprintf(sh, sizeof(sh), ", `-%c`", d->short_name);
		else
			sh[0] = '\0';
		fprintf(out, "| `--%s%s", d->name, d->arg ? " " : "");
		for (const char *a = d->arg; a && *a; a++) /* a '|' would end the cell */
			if (*a == '|')
				fputs("\\|", out);
			else
				fputc(*a, out);
		fprintf(out, "`%s | %s | %s | %s | %s |\n", sh,
			d->arg ? default_text(d, def, sizeof(def)) : "", run_opts__range(d, range, sizeof(range)),
			!is_key(d) ? "" : d->flags & RUN_OPT_LIVE ? "applied" : "restart", d->summary);
	}
}

int run_opts__doc_table(const char *which, FILE *out)
{
	size_t n;
	const struct run_opt *t = run_opts__table(&n);

	if (strcmp(which, "config") == 0)
		config_table(out, t, n);
	else if (strcmp(which, "cli") == 0)
		cli_table(out, t, n);
	else
		return -EINVAL;
	return 0;
}
