// SPDX-License-Identifier: MIT
/*
 * evidence.c - an alert's stack evidence from its record (evidence.h).
 *
 * Optional fields may be absent or null; a field that is there must have
 * its type, or the whole evidence is refused with the field's path: a
 * picture drawn from half-understood data would mislead more than an error.
 */
#include "evidence.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "textsafe.h"

/* json-c's lookup, with a null value counted as absent. */
static struct json_object *field(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static int bad(char *err, size_t errlen, const char *path, const char *key, const char *what)
{
	snprintf(err, errlen, "%s%s%s: %s", path, *path && *key ? "." : "", key, what);
	return -EINVAL;
}

/* The string at key, unescaped, into *ret (NULL when absent or null). */
static int get_str(struct json_object *o, const char *key, bool required, char **ret, const char *path, char *err,
		   size_t errlen)
{
	struct json_object *v = field(o, key);

	*ret = NULL;
	if (!v)
		return required ? bad(err, errlen, path, key, "missing") : 0;
	if (!json_object_is_type(v, json_type_string))
		return bad(err, errlen, path, key, "not a string");
	*ret = text_unescape(json_object_get_string(v), (size_t)json_object_get_string_len(v), NULL);
	return *ret ? 0 : -ENOMEM;
}

/* A non-negative integer at key into *ret (dflt when absent and optional). */
static int get_count(struct json_object *o, const char *key, bool required, uint64_t dflt, uint64_t *ret,
		     const char *path, char *err, size_t errlen)
{
	struct json_object *v = field(o, key);
	int64_t n;

	if (!v) {
		*ret = dflt;
		return required ? bad(err, errlen, path, key, "missing") : 0;
	}
	n = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || n < 0)
		return bad(err, errlen, path, key, "not a non-negative integer");
	/* json-c clamps what does not fit an int64; unsigned values past it are read as such */
	*ret = n == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)n;
	return 0;
}

static int get_share(struct json_object *o, const char *key, double *ret, const char *path, char *err,
		     size_t errlen)
{
	struct json_object *v = field(o, key);

	*ret = NAN;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return bad(err, errlen, path, key, "not a number");
	*ret = json_object_get_double(v);
	if (!isfinite(*ret) || *ret < 0)
		return bad(err, errlen, path, key, "not a finite non-negative number");
	return 0;
}

static int get_bool(struct json_object *o, const char *key, bool *ret, const char *path, char *err, size_t errlen)
{
	struct json_object *v = field(o, key);

	*ret = false;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return bad(err, errlen, path, key, "not a boolean");
	*ret = json_object_get_boolean(v);
	return 0;
}

/* The array at key (NULL with 0 when absent). */
static int get_array(struct json_object *o, const char *key, struct json_object **ret, const char *path, char *err,
		     size_t errlen)
{
	struct json_object *v = field(o, key);

	*ret = NULL;
	if (v && !json_object_is_type(v, json_type_array))
		return bad(err, errlen, path, key, "not an array");
	*ret = v;
	return 0;
}

static int parse_frame(struct json_object *o, struct ev_frame *f, const char *path, char *err, size_t errlen)
{
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, errlen, path, "", "not an object");
	if ((r = get_str(o, "object", true, &f->object, path, err, errlen)) < 0 ||
	    (r = get_str(o, "function", false, &f->function, path, err, errlen)) < 0 ||
	    (r = get_str(o, "build_id", false, &f->build_id, path, err, errlen)) < 0 ||
	    (r = get_count(o, "offset", false, 0, &f->offset, path, err, errlen)) < 0 ||
	    (r = get_bool(o, "kernel", &f->kernel, path, err, errlen)) < 0 ||
	    (r = get_str(o, "interp", false, &f->interp, path, err, errlen)) < 0 ||
	    (r = get_bool(o, "new", &f->is_new, path, err, errlen)) < 0)
		return r;
	return 0;
}

/* unattributed_by, optional as a whole (records written before it), both
 * counts required when it is there. */
static int parse_unatt_by(struct json_object *st, struct evidence *ev, char *err, size_t errlen)
{
	static const char path[] = "evidence.stacks.unattributed_by";
	struct json_object *o = field(st, "unattributed_by");
	int r;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(err, errlen, path, "", "not an object");
	if ((r = get_count(o, "sample_ring_full", true, 0, &ev->unatt_ring, path, err, errlen)) < 0 ||
	    (r = get_count(o, "stack_table_full", true, 0, &ev->unatt_table, path, err, errlen)) < 0)
		return r;
	ev->has_unatt_by = true;
	return 0;
}

static int parse_stack(struct json_object *o, struct ev_stack *s, const char *path, char *err, size_t errlen)
{
	struct json_object *frames;
	char fpath[96];
	size_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, errlen, path, "", "not an object");
	if ((r = get_count(o, "samples", true, 0, &s->samples, path, err, errlen)) < 0 ||
	    (r = get_array(o, "frames", &frames, path, err, errlen)) < 0)
		return r;
	if (!frames)
		return bad(err, errlen, path, "frames", "missing");
	n = json_object_array_length(frames);
	if (n > FG_MAX_DEPTH) {
		snprintf(err, errlen, "%s.frames: %zu frames, more than the %d a stack may have", path, n, FG_MAX_DEPTH);
		return -E2BIG;
	}
	s->frames = calloc(n ? n : 1, sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	s->nframes = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(fpath, sizeof(fpath), "%s.frames[%zu]", path, i);
		if ((r = parse_frame(json_object_array_get_idx(frames, i), &s->frames[i], fpath, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int parse_objects(struct json_object *arr, struct evidence *ev, char *err, size_t errlen)
{
	size_t n = arr ? json_object_array_length(arr) : 0;
	char path[64];
	int r;

	n = n < EV_MAX_LIST ? n : EV_MAX_LIST;
	if (!n)
		return 0;
	ev->objects = calloc(n, sizeof(*ev->objects));
	if (!ev->objects)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct ev_object *ob = &ev->objects[i];

		ev->nobjects = i + 1;
		snprintf(path, sizeof(path), "evidence.stacks.objects[%zu]", i);
		if (!json_object_is_type(o, json_type_object))
			return bad(err, errlen, path, "", "not an object");
		if ((r = get_str(o, "object", true, &ob->object, path, err, errlen)) < 0 ||
		    (r = get_str(o, "build_id", false, &ob->build_id, path, err, errlen)) < 0 ||
		    (r = get_count(o, "samples", true, 0, &ob->samples, path, err, errlen)) < 0 ||
		    (r = get_share(o, "share", &ob->share, path, err, errlen)) < 0 ||
		    (r = get_share(o, "baseline_share", &ob->baseline_share, path, err, errlen)) < 0 ||
		    (r = get_bool(o, "new", &ob->is_new, path, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int parse_functions(struct json_object *arr, struct evidence *ev, char *err, size_t errlen)
{
	size_t n = arr ? json_object_array_length(arr) : 0;
	char path[64];
	int r;

	n = n < EV_MAX_LIST ? n : EV_MAX_LIST;
	if (!n)
		return 0;
	ev->functions = calloc(n, sizeof(*ev->functions));
	if (!ev->functions)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct ev_function *fn = &ev->functions[i];

		ev->nfunctions = i + 1;
		snprintf(path, sizeof(path), "evidence.stacks.functions[%zu]", i);
		if (!json_object_is_type(o, json_type_object))
			return bad(err, errlen, path, "", "not an object");
		if ((r = get_str(o, "object", true, &fn->object, path, err, errlen)) < 0 ||
		    (r = get_str(o, "function", false, &fn->function, path, err, errlen)) < 0 ||
		    (r = get_count(o, "offset", false, 0, &fn->offset, path, err, errlen)) < 0 ||
		    (r = get_str(o, "interp", false, &fn->interp, path, err, errlen)) < 0 ||
		    (r = get_count(o, "samples", true, 0, &fn->samples, path, err, errlen)) < 0 ||
		    (r = get_share(o, "share", &fn->share, path, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int parse_alert(struct json_object *rec, struct evidence *ev, char *err, size_t errlen)
{
	struct json_object *pid = field(rec, "pid"), *t = field(rec, "time_ns");
	int r;

	if ((r = get_str(rec, "id", false, &ev->id, "", err, errlen)) < 0 ||
	    (r = get_str(rec, "rule", false, &ev->rule, "", err, errlen)) < 0 ||
	    (r = get_str(rec, "priority", false, &ev->priority, "", err, errlen)) < 0 ||
	    (r = get_str(rec, "when", false, &ev->when, "", err, errlen)) < 0 ||
	    (r = get_str(rec, "exe", false, &ev->exe, "", err, errlen)) < 0)
		return r;
	ev->pid = json_object_is_type(pid, json_type_int) ? json_object_get_int64(pid) : -1;
	ev->time_ns = json_object_is_type(t, json_type_int) ? json_object_get_int64(t) : 0;
	return 0;
}

static bool has_str(struct json_object *o, const char *key, const char *want)
{
	struct json_object *v = field(o, key);

	return json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), want) == 0;
}

static bool has_int(struct json_object *o, const char *key, int64_t want)
{
	struct json_object *v = field(o, key);

	return json_object_is_type(v, json_type_int) && json_object_get_int64(v) == want;
}

/* Copy o's key (when there, non-null) into dst as name. */
static void copy(struct json_object *dst, const char *name, struct json_object *o, const char *key)
{
	struct json_object *v = field(o, key);

	if (v)
		json_object_object_add(dst, name, json_object_get(v));
}

struct json_object *evidence__alert_record(struct json_object *rec)
{
	static const char *const unmapped[] = { "time_ns",   "priority",	  "severity",	  "when",
						"pid",	     "exe",		  "binary_id",	  "evidence",
						"host",	     "output_fields",	  "rule_file",	  "rule_line",
						"suppressed_before", "regex_skipped" };
	struct json_object *um, *o, *ev, *u, *uid;

	if (has_str(rec, "type", "alert"))
		return json_object_get(rec);
	/* OCSF: a Detection Finding that creates (an alert; an Update is a summary) */
	if (!has_int(rec, "class_uid", 2004) || !has_int(rec, "activity_id", 1) ||
	    !json_object_is_type(field(field(rec, "metadata"), "uid"), json_type_string))
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string("alert"));
	copy(o, "id", field(rec, "metadata"), "uid");
	copy(o, "rule", field(rec, "finding_info"), "title");
	copy(o, "output", rec, "message");
	um = field(rec, "unmapped");
	for (size_t i = 0; i < sizeof(unmapped) / sizeof(unmapped[0]); i++)
		copy(o, unmapped[i], um, unmapped[i]);
	copy(o, "rule_desc", field(rec, "finding_info"), "desc");
	/* the user: evidences[0].actor.user, its uid a string in OCSF */
	ev = field(rec, "evidences");
	u = json_object_is_type(ev, json_type_array) && json_object_array_length(ev) > 0
		    ? field(field(json_object_array_get_idx(ev, 0), "actor"), "user")
		    : NULL;
	if (json_object_is_type(u, json_type_object)) {
		struct json_object *nu = json_object_new_object();
		const char *s = json_object_is_type(uid = field(u, "uid"), json_type_string)
					? json_object_get_string(uid)
					: NULL;
		char *end;
		unsigned long long n = s && *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;

		if (nu) {
			if (s && *s >= '0' && *s <= '9' && !*end && n <= UINT32_MAX)
				json_object_object_add(nu, "uid", json_object_new_int64((int64_t)n));
			copy(nu, "name", u, "name");
			json_object_object_add(o, "user", nu);
		}
	}
	return o;
}

int evidence__parse(struct json_object *rec, struct evidence *ret, char *err, size_t errlen)
{
	static const char sp[] = "evidence.stacks";
	struct json_object *st = field(field(rec, "evidence"), "stacks"), *top, *objs, *fns;
	char path[64];
	size_t n;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->pid = -1;
	snprintf(err, errlen, "no stack samples");
	if ((r = parse_alert(rec, ret, err, errlen)) < 0)
		return r;
	if (!st)
		return -ENODATA;
	if (!json_object_is_type(st, json_type_object))
		return bad(err, errlen, "evidence", "stacks", "not an object");
	if ((r = get_count(st, "samples", false, 0, &ret->samples, sp, err, errlen)) < 0 ||
	    (r = get_count(st, "rate_hz", false, 0, &ret->rate_hz, sp, err, errlen)) < 0 ||
	    (r = get_count(st, "unattributed", false, 0, &ret->unattributed, sp, err, errlen)) < 0 ||
	    (r = parse_unatt_by(st, ret, err, errlen)) < 0 ||
	    (r = get_array(st, "top", &top, sp, err, errlen)) < 0 ||
	    (r = get_array(st, "objects", &objs, sp, err, errlen)) < 0 ||
	    (r = get_array(st, "functions", &fns, sp, err, errlen)) < 0)
		return r;
	n = top ? json_object_array_length(top) : 0;
	if (n == 0) {
		snprintf(err, errlen, "no stack samples");
		return -ENODATA;
	}
	ret->stacks_dropped = n > EV_MAX_STACKS ? n - EV_MAX_STACKS : 0;
	n -= ret->stacks_dropped;
	ret->stacks = calloc(n, sizeof(*ret->stacks));
	if (!ret->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		ret->nstacks = i + 1;
		snprintf(path, sizeof(path), "%s.top[%zu]", sp, i);
		if ((r = parse_stack(json_object_array_get_idx(top, i), &ret->stacks[i], path, err, errlen)) < 0)
			return r;
	}
	if ((r = parse_objects(objs, ret, err, errlen)) < 0 || (r = parse_functions(fns, ret, err, errlen)) < 0)
		return r;
	return 0;
}

uint64_t evidence__shown(const struct evidence *ev)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < ev->nstacks; i++)
		sum = ev->stacks[i].samples > UINT64_MAX - sum ? UINT64_MAX : sum + ev->stacks[i].samples;
	return sum;
}

void evidence__free(struct evidence *ev)
{
	for (size_t i = 0; i < ev->nstacks; i++) {
		for (size_t j = 0; j < ev->stacks[i].nframes; j++) {
			free(ev->stacks[i].frames[j].object);
			free(ev->stacks[i].frames[j].function);
			free(ev->stacks[i].frames[j].build_id);
			free(ev->stacks[i].frames[j].interp);
		}
		free(ev->stacks[i].frames);
	}
	for (size_t i = 0; i < ev->nobjects; i++) {
		free(ev->objects[i].object);
		free(ev->objects[i].build_id);
	}
	for (size_t i = 0; i < ev->nfunctions; i++) {
		free(ev->functions[i].object);
		free(ev->functions[i].function);
		free(ev->functions[i].interp);
	}
	free(ev->stacks);
	free(ev->objects);
	free(ev->functions);
	free(ev->id);
	free(ev->rule);
	free(ev->priority);
	free(ev->when);
	free(ev->exe);
	memset(ev, 0, sizeof(*ev));
}
