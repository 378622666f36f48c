// SPDX-License-Identifier: MIT
/*
 * jsonfield.c - shared validation of JSON fields for the baselines/ parsers.
 */
#include "jsonfield.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int jf_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int jf_add(struct json_object *o, const char *key, struct json_object *j)
{
	if (!j || json_object_object_add(o, key, j)) {
		json_object_put(j);
		return -ENOMEM;
	}
	return 0;
}

int jf_get_u64(struct json_object *o, const char *key, const char *what, uint64_t *ret, char *err, size_t errlen)
{
	struct json_object *j;

	if (!json_object_object_get_ex(o, key, &j))
		return jf_fail(err, errlen, "%s: missing field \"%s\"", what, key);
	if (!json_object_is_type(j, json_type_int))
		return jf_fail(err, errlen, "%s: \"%s\" is not an integer", what, key);
	if (json_object_get_int64(j) < 0)
		return jf_fail(err, errlen, "%s: \"%s\" is negative", what, key);
	*ret = json_object_get_uint64(j);
	return 0;
}

int jf_check_keys(struct json_object *o, const char *const *keys, const char *what, char *err, size_t errlen)
{
	json_object_object_foreach(o, key, val)
	{
		const char *const *k;

		(void)val;
		for (k = keys; *k && strcmp(*k, key) != 0; k++)
			;
		if (!*k)
			return jf_fail(err, errlen, "%s: unknown field \"%.64s\"", what, key);
	}
	return 0;
}
