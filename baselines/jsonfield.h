/* SPDX-License-Identifier: MIT */
/*
 * jsonfield.h - the checks every baselines/ parser makes on untrusted JSON:
 * one place for the field-by-field validation of sketches, sets, baselines.
 */
#ifndef PL_JSONFIELD_H
#define PL_JSONFIELD_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* Format a message into err (when err is not NULL) and return -EINVAL. */
int jf_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* o[key] = j, consuming j. -ENOMEM when j is NULL (an allocation failed) or the add fails. */
int jf_add(struct json_object *o, const char *key, struct json_object *j);

/* o[key] as a non-negative integer into *ret. Messages start with `what`. */
int jf_get_u64(struct json_object *o, const char *key, const char *what, uint64_t *ret, char *err, size_t errlen);

/* Only the keys listed (NULL-terminated) may appear in o. */
int jf_check_keys(struct json_object *o, const char *const *keys, const char *what, char *err, size_t errlen);

#endif
