// SPDX-License-Identifier: MIT
/*
 * output.c - backend-independent bookkeeping.
 */
#include "output.h"

int output__write(struct pl_output *o, struct json_object *rec)
{
	int r = o->ops->write(o, rec);

	if (r < 0) {
		o->dropped++;
		o->last_err = r;
		return r;
	}
	o->written++;
	return 0;
}

int output__flush(struct pl_output *o)
{
	return o->ops->flush ? o->ops->flush(o) : 0;
}

void output__free(struct pl_output *o)
{
	if (o)
		o->ops->free(o);
}
