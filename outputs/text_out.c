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

struct text_output {
	struct pl_output base;
	FILE *f;
};

static const char *str_field(struct json_object *rec, const char *key, const char *dflt)
{
	struct json_object *v;

	return json_object_object_get_ex(rec, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : dflt;
}

static int text_write(struct pl_output *o, struct json_object *rec)
{
	struct text_output *t = (struct text_output *)o;

	/* an alert_summary: the repeats its dedupe window held back */
	const char *what = strcmp(str_field(rec, "type", "alert"), "alert_summary") == 0 ? "REPEATS" : "ALERT";

	if (fprintf(t->f, "%s %s %s: %s\n", what, str_field(rec, "priority", "?"), str_field(rec, "rule", "?"),
		    str_field(rec, "output", "")) < 0 ||
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
