// SPDX-License-Identifier: MIT
/*
 * diag.c - rule-file diagnostics: collected, counted, printed.
 *
 * Diagnostics are plain data (file, 1-based line and column, item, message)
 * so `plumbline rules check`, the sensor's reload log and the tests can all
 * format or compare them. The print form is the compiler one editors
 * understand: "file:line:col: error: rule 'x': message". The loader reports
 * through rs_diag() and rs_diag_at(), at a YAML node or a position, into
 * the caller's list.
 */
#include "diag.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml_doc.h"

int rl_diags__add(struct rl_diags *d, enum rl_severity sev, const char *file, int line, int col, const char *item,
		  const char *fmt, ...)
{
	struct rl_diag *x;
	va_list ap;
	int n;

	if (sev == RL_DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
	if (d->n >= RL_DIAGS_MAX)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct rl_diag *nd = realloc(d->d, cap * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		d->d = nd;
		d->cap = cap;
	}
	x = &d->d[d->n];
	memset(x, 0, sizeof(*x));
	x->severity = sev;
	x->line = line;
	x->col = col;
	x->file = strdup(file ? file : "");
	x->item = strdup(item ? item : "");
	va_start(ap, fmt);
	n = vasprintf(&x->msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		x->msg = NULL;
	if (!x->file || !x->item || !x->msg) {
		free(x->file);
		free(x->item);
		free(x->msg);
		return -ENOMEM;
	}
	d->n++;
	return 0;
}

void rs_diag_at(struct rs_report *rep, enum rl_severity sev, const char *file, int line, int col, const char *item,
		const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rl_diags__add(rep->diags, sev, file, line, col, item, "%s", msg) < 0)
		rep->oom = -ENOMEM;
}

void rs_diag(struct rs_report *rep, enum rl_severity sev, const struct yd_file *f, const struct yd_node *n,
	     const char *item, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rs_diag_at(rep, sev, f->name, n ? n->line + 1 : 1, n ? n->col + 1 : 1, item, "%s", msg);
}

void rl_diags__free(struct rl_diags *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->d[i].file);
		free(d->d[i].item);
		free(d->d[i].msg);
	}
	free(d->d);
	memset(d, 0, sizeof(*d));
}

/* A diagnostic about a whole file (it can't be read, it's too big) has no
 * position: it prints as "file: error: message". */
void rl_diags__print(const struct rl_diags *d, FILE *out)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct rl_diag *x = &d->d[i];
		const char *sev = x->severity == RL_DIAG_ERROR ? "error" : "warning";

		if (x->line > 0)
			fprintf(out, "%s:%d:%d: %s: ", x->file, x->line, x->col, sev);
		else
			fprintf(out, "%s: %s: ", x->file, sev);
		if (x->item[0])
			fprintf(out, "%s: ", x->item);
		fprintf(out, "%s\n", x->msg);
	}
	if (d->errors + d->warnings > d->n)
		fprintf(out, "(%zu more diagnostics not shown)\n", d->errors + d->warnings - d->n);
}
