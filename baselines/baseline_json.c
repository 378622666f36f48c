// SPDX-License-Identifier: MIT
/*
 * baseline_json.c - the on-disk form of a baseline, and its validation.
 *
 * Every field is checked for type and bound on the way in; a file that
 * fails any check is rejected whole (the store moves it aside), because a
 * baseline that is half-trusted is worse than one relearned.
 *
 * Strings (the key and ids, the exe labels, set members) are raw bytes in
 * memory; a file holds them escaped (text_escape()) and loading unescapes
 * them, so files are printable text and labels learned from a hostile
 * process come back byte for byte. Files written when only invalid UTF-8
 * and backslashes were escaped read the same way.
 */
#include "baseline.h"

#include "jsonfield.h"
#include "textsafe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 4096

/* o[key] = s escaped (null for NULL); -ENOMEM. */
static int add_text(struct json_object *o, const char *key, const char *s)
{
	char *esc;
	int r;

	if (!s)
		return json_object_object_add(o, key, NULL) ? -ENOMEM : 0;
	esc = text_escape_str(s);
	r = esc ? jf_add(o, key, json_object_new_string(esc)) : -ENOMEM;
	free(esc);
	return r;
}

struct json_object *baseline__to_json(const struct baseline *b)
{
	struct json_object *o = json_object_new_object(), *d = json_object_new_object(), *s = json_object_new_object();

	if (!o || !d || !s)
		goto fail;
	json_object_object_add(o, "version", json_object_new_int(BL_FORMAT_VERSION));
	if (add_text(o, "key", b->key) || add_text(o, "binary_id", b->binary_id) ||
	    add_text(o, "parent_id", b->parent_id) || add_text(o, "exe", b->exe) ||
	    add_text(o, "parent_exe", b->parent_exe) || add_text(o, "prior_key", b->prior_key))
		goto fail;
	json_object_object_add(o, "created_ns", json_object_new_uint64(b->created_ns));
	json_object_object_add(o, "updated_ns", json_object_new_uint64(b->updated_ns));
	json_object_object_add(o, "seen_ns", json_object_new_uint64(b->seen_ns));
	if (b->uid != BL_UID_NONE)
		json_object_object_add(o, "uid", json_object_new_uint64(b->uid));
	json_object_object_add(o, "hosts", json_object_new_uint64(b->hosts));
	json_object_object_add(o, "samples", json_object_new_uint64(b->samples));
	json_object_object_add(o, "windows", json_object_new_uint64(b->windows));
	json_object_object_add(o, "oncpu_samples", json_object_new_uint64(b->oncpu_samples));
	json_object_object_add(o, "oncpu_procs", json_object_new_uint64(b->oncpu_procs));
	json_object_object_add(o, "oncpu_fn_samples", json_object_new_uint64(b->oncpu_fn_samples));
	json_object_object_add(o, "oncpu_fn_procs", json_object_new_uint64(b->oncpu_fn_procs));
	json_object_object_add(o, "quarantined", json_object_new_uint64(b->quarantined));
	json_object_object_add(o, "rate_limited", json_object_new_uint64(b->rate_limited));
	json_object_object_add(o, "tokens", json_object_new_double(b->tokens));
	json_object_object_add(o, "tokens_ns", json_object_new_uint64(b->tokens_ns));
	/* learning by recurrence (optional when reading) */
	json_object_object_add(o, "recurred", json_object_new_uint64(b->recurred));
	json_object_object_add(o, "recur_tokens", json_object_new_double(b->recur_tokens));
	json_object_object_add(o, "recur_tokens_ns", json_object_new_uint64(b->recur_tokens_ns));
	for (int i = 0; i < PL_DIST_MAX; i++) {
		struct json_object *x = sketch__to_json(&b->dist[i]);

		if (!x)
			goto fail;
		json_object_object_add(d, bl_dist__name(i), x);
	}
	json_object_object_add(o, "dists", d);
	d = NULL;
	for (int i = 0; i < BL_SET_MAX; i++) {
		struct json_object *x = strset__to_json(&b->set[i]);

		if (!x)
			goto fail;
		json_object_object_add(s, bl_set__name(i), x);
	}
	json_object_object_add(o, "sets", s);
	return o;
fail:
	json_object_put(o);
	json_object_put(d);
	json_object_put(s);
	return NULL;
}


static int get_str(struct json_object *o, const char *key, bool nullable, char **ret, char *err, size_t errlen)
{
	struct json_object *v;
	const char *s;
	char *raw;
	size_t len;

	if (!json_object_object_get_ex(o, key, &v))
		return jf_fail(err, errlen, "missing \"%s\"", key);
	if (!v && nullable) {
		*ret = NULL;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return jf_fail(err, errlen, "\"%s\" is not a string", key);
	/* escaped, at most 4 bytes per byte of the string */
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (len > 4 * LABEL_MAX || strlen(s) != len)
		return jf_fail(err, errlen, "\"%s\" is longer than %d bytes or holds a NUL", key, LABEL_MAX);
	raw = text_unescape(s, len, &len);
	if (!raw)
		return -ENOMEM;
	if (len > LABEL_MAX || strlen(raw) != len) {
		free(raw);
		return jf_fail(err, errlen, "\"%s\" is longer than %d bytes or holds a NUL", key, LABEL_MAX);
	}
	*ret = raw;
	return 0;
}

static int get_u64(struct json_object *o, const char *key, uint64_t *ret, char *err, size_t errlen)
{
	return jf_get_u64(o, key, "baseline", ret, err, errlen);
}

/*
 * The on-CPU objects' counts are draws of oncpu_samples, so they sum to no
 * more than it (overflowed members and refused merges only lower the sum).
 * Merges once did not add oncpu_samples and oncpu_procs: a store
 * merged by `baseline import`, or a bundle, then held counts above them and
 * shares above 1. Raise the draws to what the counts show; nothing else is
 * lost (a low oncpu_procs only delays readiness).
 */
static void repair_oncpu_draws(struct baseline *b)
{
	const struct strset *set = &b->set[BL_SET_ONCPU];
	uint64_t sum = 0;

	for (uint32_t i = 0; i < set->n; i++)
		sum = set->m[i].count > UINT64_MAX - sum ? UINT64_MAX : sum + set->m[i].count;
	if (sum > b->oncpu_samples)
		b->oncpu_samples = sum;
}

int baseline__from_json(struct json_object *o, struct baseline **ret, char *err, size_t errlen)
{
	struct baseline *b = baseline__new("x", "x", "", "", 0);
	struct json_object *v, *d, *s;
	uint64_t ver;
	char *expect;
	int r;

	if (!b)
		return -ENOMEM;
	free(b->key);
	free(b->binary_id);
	free(b->parent_id);
	free(b->exe);
	free(b->parent_exe);
	b->key = b->binary_id = b->parent_id = b->exe = b->parent_exe = NULL;
	if (!json_object_is_type(o, json_type_object)) {
		r = jf_fail(err, errlen, "not a JSON object");
		goto fail;
	}
	if ((r = get_u64(o, "version", &ver, err, errlen)) < 0)
		goto fail;
	if (ver != BL_FORMAT_VERSION) {
		r = jf_fail(err, errlen, "format version %llu, this plumbline reads version %d", (unsigned long long)ver,
			BL_FORMAT_VERSION);
		goto fail;
	}
	if ((r = get_str(o, "key", false, &b->key, err, errlen)) < 0 ||
	    (r = get_str(o, "binary_id", false, &b->binary_id, err, errlen)) < 0 ||
	    (r = get_str(o, "parent_id", false, &b->parent_id, err, errlen)) < 0 ||
	    (r = get_str(o, "exe", false, &b->exe, err, errlen)) < 0 ||
	    (r = get_str(o, "parent_exe", false, &b->parent_exe, err, errlen)) < 0 ||
	    (r = get_str(o, "prior_key", true, &b->prior_key, err, errlen)) < 0 ||
	    (r = get_u64(o, "created_ns", &b->created_ns, err, errlen)) < 0 ||
	    (r = get_u64(o, "updated_ns", &b->updated_ns, err, errlen)) < 0 ||
	    (r = get_u64(o, "samples", &b->samples, err, errlen)) < 0 ||
	    (r = get_u64(o, "windows", &b->windows, err, errlen)) < 0 ||
	    (r = get_u64(o, "quarantined", &b->quarantined, err, errlen)) < 0 ||
	    (r = get_u64(o, "rate_limited", &b->rate_limited, err, errlen)) < 0 ||
	    (r = get_u64(o, "tokens_ns", &b->tokens_ns, err, errlen)) < 0)
		goto fail;
	/* newer than the format: absent from files written before on-CPU sampling */
	if ((json_object_object_get_ex(o, "oncpu_samples", NULL) &&
	     (r = get_u64(o, "oncpu_samples", &b->oncpu_samples, err, errlen)) < 0) ||
	    (json_object_object_get_ex(o, "oncpu_procs", NULL) &&
	     (r = get_u64(o, "oncpu_procs", &b->oncpu_procs, err, errlen)) < 0) ||
	    (json_object_object_get_ex(o, "oncpu_fn_samples", NULL) &&
	     (r = get_u64(o, "oncpu_fn_samples", &b->oncpu_fn_samples, err, errlen)) < 0) ||
	    (json_object_object_get_ex(o, "oncpu_fn_procs", NULL) &&
	     (r = get_u64(o, "oncpu_fn_procs", &b->oncpu_fn_procs, err, errlen)) < 0))
		goto fail;
	/* newer still: absent from files written before learning by recurrence */
	if ((json_object_object_get_ex(o, "recurred", NULL) &&
	     (r = get_u64(o, "recurred", &b->recurred, err, errlen)) < 0) ||
	    (json_object_object_get_ex(o, "recur_tokens_ns", NULL) &&
	     (r = get_u64(o, "recur_tokens_ns", &b->recur_tokens_ns, err, errlen)) < 0))
		goto fail;
	/* absent from files written before eviction; then the last change is the last sight */
	b->seen_ns = b->updated_ns;
	if (json_object_object_get_ex(o, "seen_ns", NULL) && (r = get_u64(o, "seen_ns", &b->seen_ns, err, errlen)) < 0)
		goto fail;
	b->seen_saved_ns = b->seen_ns;
	/* absent from files written before the per-user bound: made by someone unknown */
	b->uid = BL_UID_NONE;
	if (json_object_object_get_ex(o, "uid", NULL)) {
		uint64_t uid;

		if ((r = get_u64(o, "uid", &uid, err, errlen)) < 0)
			goto fail;
		if (uid >= BL_UID_NONE) {
			r = jf_fail(err, errlen, "\"uid\" is not a user id");
			goto fail;
		}
		b->uid = (uint32_t)uid;
	}
	/* absent from files written before fleets: learned on one host */
	b->hosts = 1;
	if (json_object_object_get_ex(o, "hosts", NULL)) {
		uint64_t hosts;

		if ((r = get_u64(o, "hosts", &hosts, err, errlen)) < 0)
			goto fail;
		if (hosts == 0 || hosts > UINT32_MAX) {
			r = jf_fail(err, errlen, "\"hosts\" is not a count of hosts (1 to %u)", UINT32_MAX);
			goto fail;
		}
		b->hosts = (uint32_t)hosts;
	}
	if (json_object_object_get_ex(o, "recur_tokens", &v)) {
		if (!(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
		    !(json_object_get_double(v) >= -1 && json_object_get_double(v) <= 1)) {
			r = jf_fail(err, errlen, "\"recur_tokens\" is not a number in [-1, 1]");
			goto fail;
		}
		b->recur_tokens = json_object_get_double(v);
	}
	if (!b->binary_id[0] || !b->parent_id[0] || strchr(b->binary_id, '@') || strchr(b->parent_id, '@')) {
		r = jf_fail(err, errlen, "binary_id and parent_id must be non-empty and hold no '@'");
		goto fail;
	}
	if (asprintf(&expect, "%s@%s", b->binary_id, b->parent_id) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	r = strcmp(expect, b->key) ? jf_fail(err, errlen, "\"key\" is not binary_id@parent_id") : 0;
	free(expect);
	if (r)
		goto fail;
	if (b->created_ns > b->updated_ns) {
		r = jf_fail(err, errlen, "created_ns is after updated_ns");
		goto fail;
	}
	if (!json_object_object_get_ex(o, "tokens", &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    !(json_object_get_double(v) >= -1 && json_object_get_double(v) <= 1e6)) {
		r = jf_fail(err, errlen, "\"tokens\" is missing or out of [-1, 1e6]");
		goto fail;
	}
	b->tokens = json_object_get_double(v);

	if (!json_object_object_get_ex(o, "dists", &d) || !json_object_is_type(d, json_type_object) ||
	    json_object_object_length(d) != PL_DIST_MAX) {
		r = jf_fail(err, errlen, "\"dists\" must be an object of exactly %d distributions", PL_DIST_MAX);
		goto fail;
	}
	for (int i = 0; i < PL_DIST_MAX; i++) {
		char e[160];

		sketch__clear(&b->dist[i]);
		if (!json_object_object_get_ex(d, bl_dist__name(i), &v)) {
			r = jf_fail(err, errlen, "distribution \"%s\" is missing", bl_dist__name(i));
			goto fail;
		}
		if (sketch__from_json(v, &b->dist[i], e, sizeof(e)) < 0) {
			r = jf_fail(err, errlen, "distribution \"%s\": %s", bl_dist__name(i), e);
			goto fail;
		}
	}
	if (!json_object_object_get_ex(o, "sets", &s) || !json_object_is_type(s, json_type_object) ||
	    json_object_object_length(s) > BL_SET_MAX) {
		r = jf_fail(err, errlen, "\"sets\" must be an object of at most %d sets", BL_SET_MAX);
		goto fail;
	}
	for (int i = 0; i < BL_SET_MAX; i++) {
		uint32_t max = b->set[i].max;
		char e[160];

		strset__clear(&b->set[i]);
		if (!json_object_object_get_ex(s, bl_set__name(i), &v)) {
			if (i >= BL_SET_ONCPU)
				continue; /* written before on-CPU sampling, issue 18's sets or on-CPU functions */
			r = jf_fail(err, errlen, "set \"%s\" is missing", bl_set__name(i));
			goto fail;
		}
		if (strset__from_json(v, max, &b->set[i], e, sizeof(e)) < 0) {
			r = jf_fail(err, errlen, "set \"%s\": %s", bl_set__name(i), e);
			goto fail;
		}
	}
	if (b->dist[PL_LIFE_CPU].count != b->samples || b->dist[PL_WIN_CPU].count != b->windows) {
		r = jf_fail(err, errlen, "sample counts disagree with the distributions");
		goto fail;
	}
	repair_oncpu_draws(b);
	b->dirty = false;
	*ret = b;
	return 0;
fail:
	baseline__free(b);
	return r;
}
