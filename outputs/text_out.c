// SPDX-License-Identifier: MIT
/*
 * text_out.c - alerts as one human line each ("ALERT Warning rule: output
 * (id ID, host NAME, user NAME uid N)"; "REPEATS Warning rule: ... (id ID,
 * host NAME)" for what a dedupe window held back), for the live view and
 * `plumbline replay`. An output that starts with the rule's name already
 * is not prefixed with it again; absent values are said in words
 * (rl_template__render_text()).
 */
#include "output.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "textsafe.h"

struct text_output {
	struct pl_output base;
	FILE *f;
};

/* Whether output starts with the rule's name (then ':', ' ' or its end). */
static bool starts_with_rule(const char *output, const char *rule)
{
	size_t n = rule ? strlen(rule) : 0;

	return n && strncmp(output, rule, n) == 0 && (output[n] == ':' || output[n] == ' ' || output[n] == '\0');
}

/* " (id ID, host NAME, user NAME uid N)": what the line is about, what leads to its record. */
static int put_context(FILE *f, const struct pl_alert *a)
{
	_cleanup_free_ char *host = a->host.name ? text_escape_str(a->host.name) : NULL;
	_cleanup_free_ char *user = a->user ? text_escape_str(a->user) : NULL;

	if (fprintf(f, " (id %s", a->id) < 0 || (host && fprintf(f, ", host %s", host) < 0))
		return -EIO;
	if (a->has_user &&
	    (user ? fprintf(f, ", user %s uid %u", user, a->uid) : fprintf(f, ", user uid %u", a->uid)) < 0)
		return -EIO;
	return fputs(")\n", f) == EOF ? -EIO : 0;
}

static int text_write(struct pl_output *o, const struct pl_record *rec)
{
	struct text_output *t = (struct text_output *)o;
	const struct pl_alert *a = rec->kind == PL_RECORD_ALERT ? rec->alert : NULL;
	_cleanup_free_ char *rule = NULL;
	const char *out;

	if (!a)
		return 0; /* alerts only */
	rule = text_escape_str(a->rule); /* as the JSON record has it */
	out = a->output_text ? a->output_text : a->output;
	/* an alert_summary: the repeats its dedupe window held back */
	if (fprintf(t->f, "%s %s ", a->kind == PL_ALERT_SUMMARY ? "REPEATS" : "ALERT",
		    a->priority ? a->priority : "?") < 0 ||
	    (!starts_with_rule(out, rule) && fprintf(t->f, "%s: ", rule ? rule : "?") < 0) || fputs(out, t->f) == EOF ||
	    put_context(t->f, a) < 0 || fflush(t->f) == EOF)
		return -EIO;
	return 0;
}

static void text_free(struct pl_output *o)
{
	free(o);
}

static const struct pl_output_ops text_ops = {
	.name = "text",
	.write = text_write,
	.free = text_free,
};

int text_output__open(FILE *f, struct pl_output **ret)
{
	struct text_output *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->base.ops = &text_ops;
	t->f = f;
	*ret = &t->base;
	return 0;
}
