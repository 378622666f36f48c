// SPDX-License-Identifier: MIT
/*
 * text_out.c - alerts as one human line each ("ALERT Warning rule: output";
 * "REPEATS Warning rule: ..." for what a dedupe window held back),
 * for the live view and `plumbline replay`.
 */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "textsafe.h"

struct text_output {
	struct pl_output base;
	FILE *f;
};

static int text_write(struct pl_output *o, const struct pl_record *rec)
{
	struct text_output *t = (struct text_output *)o;
	const struct pl_alert *a = rec->kind == PL_RECORD_ALERT ? rec->alert : NULL;
	_cleanup_free_ char *rule = NULL;

	if (!a)
		return 0; /* alerts only */
	rule = text_escape_str(a->rule); /* as the JSON record has it */
	/* an alert_summary: the repeats its dedupe window held back */
	if (fprintf(t->f, "%s %s %s: %s\n", a->kind == PL_ALERT_SUMMARY ? "REPEATS" : "ALERT",
		    a->priority ? a->priority : "?", rule ? rule : "?", a->output) < 0 ||
	    fflush(t->f) == EOF)
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
