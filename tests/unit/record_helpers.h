/* SPDX-License-Identifier: MIT */
/*
 * record_helpers.h - test-only helpers for the suites that look at records
 * and alerts: a pl_output backend that keeps every record in memory as the
 * JSON Lines backend would write it, and accessors that fail the test when
 * a record's shape is wrong. Everything is static inline so each test stays
 * one translation unit (include after <cmocka.h>).
 */
#ifndef PL_RECORD_HELPERS_H
#define PL_RECORD_HELPERS_H

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "test_records.h"

/*
 * Every record a suite's writers produce is also appended to its test's
 * records directory (test_records.h): native records to
 * unit-<program>-<pid>.jsonl, OCSF findings to ocsf/ under the same name.
 * The schema_records test validates them all against docs/schema/.
 */
static inline void ut_keep_record(const struct pl_output *o, const char *line)
{
	static FILE *files[2];
	int k = o->alert_form == PL_ALERT_OCSF;
	const char *dir = test_records__dir(k);

	if (!dir)
		return;
	if (!files[k]) {
		char path[768];

		snprintf(path, sizeof(path), "%s/unit-%s-%d.jsonl", dir, program_invocation_short_name, (int)getpid());
		files[k] = fopen(path, "ae");
		if (!files[k])
			return;
	}
	fprintf(files[k], "%s\n", line);
	fflush(files[k]);
}

/* ---- an output that keeps its records ---- */

struct ut_mem_output {
	struct pl_output base;
	char **lines; /* each record as one JSONL line, without the newline */
	size_t n, cap;
};

static inline int ut_mem_write(struct pl_output *o, const struct pl_record *rec)
{
	struct ut_mem_output *m = (struct ut_mem_output *)o;
	char *s;
	size_t len;
	/* the text the JSONL backend writes, in the output's form (outputs/jsonl.c) */
	int r = pl_record__text(rec, o->alert_form, &s, &len);

	if (r < 0)
		return r;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		char **l = realloc(m->lines, cap * sizeof(*l));

		if (!l) {
			free(s);
			return -ENOMEM;
		}
		m->lines = l;
		m->cap = cap;
	}
	m->lines[m->n++] = s;
	ut_keep_record(o, s);
	return 0;
}

static inline void ut_mem_clear(struct ut_mem_output *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->lines[i]);
	m->n = 0;
}

static inline void ut_mem_free(struct pl_output *o)
{
	struct ut_mem_output *m = (struct ut_mem_output *)o;

	ut_mem_clear(m);
	free(m->lines);
	free(m);
}

static const struct pl_output_ops ut_mem_ops = {
    .name = "memory",
    .write = ut_mem_write,
    .free = ut_mem_free,
};

static inline struct ut_mem_output *ut_mem_output__new(void)
{
	struct ut_mem_output *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->base.ops = &ut_mem_ops;
	return m;
}

/* Record i, parsed back from its line (the caller puts it). */
static inline struct json_object *ut_mem_record(const struct ut_mem_output *m, size_t i)
{
	struct json_object *o;

	assert_true(i < m->n);
	o = json_tokener_parse(m->lines[i]);
	if (!o)
		fail_msg("record %zu is not JSON: %s", i, m->lines[i]);
	return o;
}

/* ---- accessors that fail the test on a wrong shape ---- */

static inline struct json_object *ut_field(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_is_type(o, json_type_object))
		fail_msg("looking up \"%s\" in a non-object", key);
	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("field \"%s\" missing in %s", key, json_object_to_json_string(o));
	return v;
}

static inline uint64_t ut_u64(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("field \"%s\" is not an integer", key);
	return json_object_get_uint64(v);
}

static inline int64_t ut_i64(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("field \"%s\" is not an integer", key);
	return json_object_get_int64(v);
}

static inline double ut_dbl(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		fail_msg("field \"%s\" is not a number", key);
	return json_object_get_double(v);
}

static inline const char *ut_str(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_string))
		fail_msg("field \"%s\" is not a string", key);
	return json_object_get_string(v);
}

static inline int ut_bool(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_boolean))
		fail_msg("field \"%s\" is not a boolean", key);
	return json_object_get_boolean(v);
}

static inline struct json_object *ut_obj(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_object))
		fail_msg("field \"%s\" is not an object", key);
	return v;
}

static inline struct json_object *ut_arr(struct json_object *o, const char *key)
{
	struct json_object *v = ut_field(o, key);

	if (!json_object_is_type(v, json_type_array))
		fail_msg("field \"%s\" is not an array", key);
	return v;
}

static inline void ut_null(struct json_object *o, const char *key)
{
	if (ut_field(o, key) != NULL)
		fail_msg("field \"%s\" should be null, is %s", key, json_object_to_json_string(ut_field(o, key)));
}

static inline void ut_absent(struct json_object *o, const char *key)
{
	if (json_object_object_get_ex(o, key, NULL))
		fail_msg("field \"%s\" should be absent", key);
}

/* o has exactly the keys of the NULL-terminated list, in that order. */
static inline void ut_keys(struct json_object *o, const char *const *keys)
{
	size_t i = 0;

	json_object_object_foreach(o, k, v)
	{
		(void)v;
		if (!keys[i])
			fail_msg("unexpected extra key \"%s\"", k);
		if (strcmp(k, keys[i]) != 0)
			fail_msg("key %zu is \"%s\", expected \"%s\"", i, k, keys[i]);
		i++;
	}
	if (keys[i])
		fail_msg("key \"%s\" missing", keys[i]);
}

/* A string array equals the NULL-terminated list (entries "<null>" stand for null). */
static inline void ut_strings(struct json_object *arr, const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	assert_true(json_object_is_type(arr, json_type_array));
	assert_int_equal(json_object_array_length(arr), n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		if (strcmp(want[i], "<null>") == 0)
			assert_null(e);
		else
			assert_string_equal(json_object_get_string(e), want[i]);
	}
}

/* A record's host object names this machine: gethostname(), /etc/machine-id
 * (the host id's first source: the machine's own ground truth, read here),
 * /proc/sys/kernel/random/boot_id. */
static inline void ut_host_is_this_machine(struct json_object *host)
{
	char name[256] = "", mid[64] = "", boot[64] = "";
	FILE *f;

	assert_int_equal(gethostname(name, sizeof(name) - 1), 0);
	assert_string_equal(ut_str(host, "name"), name);
	f = fopen("/etc/machine-id", "r");
	if (f) {
		assert_non_null(fgets(mid, sizeof(mid), f));
		fclose(f);
		mid[strcspn(mid, "\n")] = '\0';
		assert_string_equal(ut_str(host, "id"), mid);
	} else {
		assert_int_equal(strlen(ut_str(host, "id")), 32);
	}
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	assert_non_null(f);
	assert_non_null(fgets(boot, sizeof(boot), f));
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	assert_string_equal(ut_str(host, "boot_id"), boot);
}

#endif
