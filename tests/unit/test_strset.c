// SPDX-License-Identifier: MIT
/*
 * test_strset.c - the bounded string set: sorted members with counts and
 * first/last times, refusals counted in overflow, union merges that don't
 * depend on grouping while they fit, and a validated JSON form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "strset.h"

static void test_strset_add_keeps_members_sorted_with_counts(void **state)
{
	struct strset set;

	strset__init(&set, 100);
	assert_int_equal(strset__add(&set, "/usr/bin/b", 1, 100), 1);
	assert_int_equal(strset__add(&set, "/usr/bin/a", 2, 200), 1);
	assert_int_equal(strset__add(&set, "/usr/bin/c", 1, 300), 1);
	assert_int_equal(strset__add(&set, "/usr/bin/a", 5, 50), 0);
	assert_int_equal(strset__add(&set, "/usr/bin/a", 1, 400), 0);
	assert_int_equal(strset__add(&set, "", 1, 1), 1);
	assert_int_equal(set.n, 4);
	assert_string_equal(set.m[0].s, "");
	assert_string_equal(set.m[1].s, "/usr/bin/a");
	assert_string_equal(set.m[2].s, "/usr/bin/b");
	assert_string_equal(set.m[3].s, "/usr/bin/c");
	assert_int_equal(set.m[1].count, 8);
	assert_int_equal(set.m[1].first_ns, 50);
	assert_int_equal(set.m[1].last_ns, 400);
	assert_int_equal(set.m[2].count, 1);
	assert_true(strset__contains(&set, "/usr/bin/a"));
	assert_true(strset__contains(&set, ""));
	assert_false(strset__contains(&set, "/usr/bin/"));
	assert_false(strset__contains(&set, "/usr/bin/d"));
	assert_false(strset__contains(&set, NULL));
	assert_int_equal(set.overflow, 0);
	strset__clear(&set);
	assert_int_equal(set.n, 0);
	assert_int_equal(set.max, 100);
	assert_false(strset__contains(&set, "/usr/bin/a"));
}

static void test_strset_many_members_stay_sorted_and_found(void **state)
{
	struct strset set;
	char buf[32];

	strset__init(&set, 1000);
	for (unsigned k = 0; k < 1000; k++) {
		snprintf(buf, sizeof(buf), "m%u", (k * 7919) % 1000);
		assert_int_equal(strset__add(&set, buf, 1, k), 1);
	}
	for (uint32_t k = 1; k < set.n; k++)
		assert_true(strcmp(set.m[k - 1].s, set.m[k].s) < 0);
	for (unsigned k = 0; k < 1000; k++) {
		snprintf(buf, sizeof(buf), "m%u", k);
		assert_true(strset__contains(&set, buf));
	}
	strset__clear(&set);
}

static void test_strset_count_saturates(void **state)
{
	struct strset set;

	strset__init(&set, 4);
	assert_int_equal(strset__add(&set, "x", UINT64_MAX - 1, 1), 1);
	assert_int_equal(strset__add(&set, "x", 5, 2), 0);
	assert_int_equal(set.m[0].count, UINT64_MAX);
	strset__clear(&set);
}

static void test_strset_bound_refuses_and_counts_overflow(void **state)
{
	struct strset set;

	strset__init(&set, 3);
	assert_int_equal(strset__add(&set, "a", 1, 1), 1);
	assert_int_equal(strset__add(&set, "b", 1, 1), 1);
	assert_int_equal(strset__add(&set, "c", 1, 1), 1);
	assert_int_equal(strset__add(&set, "d", 1, 1), -ENOSPC);
	assert_int_equal(strset__add(&set, "0", 1, 1), -ENOSPC);
	assert_int_equal(set.overflow, 2);
	assert_false(strset__contains(&set, "d"));
	assert_int_equal(strset__add(&set, "b", 1, 2), 0); /* members still counted */
	assert_int_equal(set.m[1].count, 2);
	assert_int_equal(set.n, 3);
	strset__clear(&set);

	strset__init(&set, 0);
	assert_int_equal(strset__add(&set, "a", 1, 1), -ENOSPC);
	assert_int_equal(set.overflow, 1);
	strset__clear(&set);
}

static void test_strset_rejects_too_long_and_zero_count(void **state)
{
	struct strset set;
	char *s = malloc(STRSET_MAX_LEN + 2);

	assert_non_null(s);
	memset(s, 'a', STRSET_MAX_LEN + 1);
	s[STRSET_MAX_LEN + 1] = '\0';
	strset__init(&set, 10);
	assert_int_equal(strset__add(&set, s, 1, 1), -EINVAL);
	assert_int_equal(set.n, 0);
	assert_int_equal(set.overflow, 0);
	s[STRSET_MAX_LEN] = '\0';
	assert_int_equal(strset__add(&set, s, 1, 1), 1);
	assert_int_equal(strset__add(&set, "z", 0, 1), -EINVAL);
	assert_int_equal(strset__add(&set, NULL, 1, 1), -EINVAL);
	assert_int_equal(set.n, 1);
	strset__clear(&set);
	free(s);
}

static void add_all(struct strset *set, const char *const *s, size_t n, uint64_t count, uint64_t ns)
{
	for (size_t k = 0; k < n; k++)
		assert_true(strset__add(set, s[k], count, ns + k) >= 0);
}

static void test_strset_merge_is_union_with_counts_and_times(void **state)
{
	static const char *const as[] = { "a", "b" }, *const bs[] = { "b", "c" };
	struct strset a, b;

	strset__init(&a, 10);
	strset__init(&b, 10);
	add_all(&a, as, 2, 1, 10); /* a@10, b@11 */
	add_all(&b, bs, 2, 3, 5);  /* b@5, c@6 */
	assert_int_equal(strset__add(&b, "b", 1, 30), 0);
	b.overflow = 4;
	assert_int_equal(strset__merge(&a, &b), 0);
	assert_int_equal(a.n, 3);
	assert_string_equal(a.m[0].s, "a");
	assert_string_equal(a.m[1].s, "b");
	assert_string_equal(a.m[2].s, "c");
	assert_int_equal(a.m[0].count, 1);
	assert_int_equal(a.m[1].count, 5);
	assert_int_equal(a.m[1].first_ns, 5);
	assert_int_equal(a.m[1].last_ns, 30);
	assert_int_equal(a.m[2].count, 3);
	assert_int_equal(a.overflow, 4);
	/* src untouched and independent */
	assert_int_equal(b.n, 2);
	strset__clear(&b);
	assert_string_equal(a.m[2].s, "c");
	strset__clear(&a);
}

static void test_strset_merge_over_bound_keeps_dst_and_counts_overflow(void **state)
{
	static const char *const bs[] = { "b", "c", "d" };
	struct strset a, b;

	strset__init(&a, 2);
	strset__init(&b, 10);
	assert_int_equal(strset__add(&a, "z", 1, 1), 1);
	add_all(&b, bs, 3, 1, 1);
	b.overflow = 1;
	assert_int_equal(strset__merge(&a, &b), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.m[0].s, "b");
	assert_string_equal(a.m[1].s, "z");
	assert_int_equal(a.overflow, 1 + 2);
	strset__clear(&a);
	strset__clear(&b);
}

static void test_strset_merge_with_itself_doubles_counts(void **state)
{
	static const char *const as[] = { "p", "q" };
	struct strset a;

	strset__init(&a, 10);
	add_all(&a, as, 2, 3, 1);
	assert_int_equal(strset__merge(&a, &a), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.m[0].count, 6);
	assert_int_equal(a.m[1].count, 6);
	strset__clear(&a);
}

/* A set of up to 40 members drawn from 60 names, fixed seed. */
static void make_set(struct strset *set, unsigned seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	char buf[16];

	strset__init(set, 1000);
	for (int k = 0; k < 40; k++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		snprintf(buf, sizeof(buf), "n%02u", (unsigned)((x * 2685821657736338717ull) >> 58) % 60);
		assert_true(strset__add(set, buf, 1 + x % 5, x % 1000) >= 0);
	}
}

static void copy_set(struct strset *ret, const struct strset *src)
{
	strset__init(ret, src->max);
	assert_int_equal(strset__merge(ret, src), 0);
	assert_true(strset__equal(ret, src));
}

static void test_strset_merge_associative_and_commutative_while_fitting(void **state)
{
	struct strset a, b, c, ab, ba, ab_c, bc, a_bc;

	make_set(&a, 1);
	make_set(&b, 2);
	make_set(&c, 3);
	assert_false(strset__equal(&a, &b));
	copy_set(&ab, &a);
	assert_int_equal(strset__merge(&ab, &b), 0);
	copy_set(&ba, &b);
	assert_int_equal(strset__merge(&ba, &a), 0);
	assert_true(strset__equal(&ab, &ba));
	copy_set(&ab_c, &ab);
	assert_int_equal(strset__merge(&ab_c, &c), 0);
	copy_set(&bc, &b);
	assert_int_equal(strset__merge(&bc, &c), 0);
	copy_set(&a_bc, &a);
	assert_int_equal(strset__merge(&a_bc, &bc), 0);
	assert_true(strset__equal(&ab_c, &a_bc));
	assert_true(ab_c.n > a.n);
	strset__clear(&a);
	strset__clear(&b);
	strset__clear(&c);
	strset__clear(&ab);
	strset__clear(&ba);
	strset__clear(&ab_c);
	strset__clear(&bc);
	strset__clear(&a_bc);
}

static struct json_object *reparse(const struct strset *set)
{
	struct json_object *o = strset__to_json(set), *back;

	assert_non_null(o);
	back = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_non_null(back);
	json_object_put(o);
	return back;
}

static void test_strset_json_round_trip_is_equal(void **state)
{
	struct strset set, back;
	struct json_object *o;
	char err[256], *big = malloc(STRSET_MAX_LEN + 1);

	assert_non_null(big);
	memset(big, 'x', STRSET_MAX_LEN);
	big[STRSET_MAX_LEN] = '\0';
	strset__init(&set, 8);
	o = reparse(&set);
	assert_int_equal(strset__from_json(o, 8, &back, err, sizeof(err)), 0);
	assert_true(strset__equal(&set, &back));
	json_object_put(o);
	strset__clear(&back);

	assert_int_equal(strset__add(&set, "/tmp/a \"quoted\"\n", 3, 10), 1);
	assert_int_equal(strset__add(&set, "caf\xc3\xa9", 1, UINT64_MAX), 1);
	assert_int_equal(strset__add(&set, big, UINT64_MAX, 0), 1);
	set.overflow = 17;
	o = reparse(&set);
	if (strset__from_json(o, 8, &back, err, sizeof(err)))
		fail_msg("from_json: %s", err);
	assert_true(strset__equal(&set, &back));
	json_object_put(o);
	strset__clear(&back);
	strset__clear(&set);
	free(big);
}

/* {"max":10,"overflow":0,"members":[...]} from member JSON text */
static struct json_object *set_json(const char *members)
{
	char buf[1024];
	struct json_object *o;

	snprintf(buf, sizeof(buf), "{\"max\":10,\"overflow\":0,\"members\":[%s]}", members);
	o = json_tokener_parse(buf);
	assert_non_null(o);
	return o;
}

static void expect_reject(struct json_object *o, uint32_t max, const char *want)
{
	struct strset set;
	char err[256] = "";

	assert_int_equal(strset__from_json(o, max, &set, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != '\0');
	if (!strstr(err, want))
		fail_msg("err \"%s\" does not mention \"%s\"", err, want);
	json_object_put(o);
}

#define M(s, c, f, l) "{\"s\":\"" s "\",\"count\":" #c ",\"first_ns\":" #f ",\"last_ns\":" #l "}"

/* Members are raw bytes; the file holds them escaped, printable. */
static void test_strset_json_escapes_members_and_reads_old_files(void **state)
{
	static const char hostile[] = "/tmp/x\r\nALERT forged\x1b[2J\xc2\x9b\xff\\x41";
	struct strset set, back;
	struct json_object *o, *members, *m, *js;
	char err[256];

	strset__init(&set, 8);
	assert_int_equal(strset__add(&set, hostile, 1, 5), 1);
	o = strset__to_json(&set);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "members", &members));
	m = json_object_array_get_idx(members, 0);
	assert_true(json_object_object_get_ex(m, "s", &js));
	assert_string_equal(json_object_get_string(js),
			    "/tmp/x\\x0D\\x0AALERT forged\\x1B[2J\\xC2\\x9B\\xFF\\x5Cx41");
	assert_int_equal(strset__from_json(o, 8, &back, err, sizeof(err)), 0);
	assert_true(strset__equal(&set, &back));
	json_object_put(o);
	strset__clear(&back);
	strset__clear(&set);

	/* a file written by the former sanitizer: invalid bytes and backslashes
	 * escaped, controls left to json-c, sorted by that form */
	o = set_json(M("/a\\\\x5Cb\\n", 1, 1, 2) "," M("/a\\\\xFF", 1, 1, 2) "," M("/a]", 1, 1, 2));
	assert_int_equal(strset__from_json(o, 10, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, 3);
	assert_string_equal(back.m[0].s, "/a\\b\n");
	assert_string_equal(back.m[1].s, "/a]");
	assert_string_equal(back.m[2].s, "/a\xff");
	json_object_put(o);
	strset__clear(&back);
}

/* Escaping changes the order of some strings, so the loader sorts what it
 * reads (files written before escaping are sorted by their old form). */
static void test_strset_from_json_sorts_and_rejects_duplicate_oversized(void **state)
{
	struct strset set;
	char err[256];
	struct json_object *o;

	o = set_json(M("a", 1, 1, 2) "," M("b", 1, 1, 2));
	assert_int_equal(strset__from_json(o, 10, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 2);
	strset__clear(&set);
	json_object_put(o);

	o = set_json(M("c", 1, 1, 2) "," M("a", 2, 1, 2) "," M("b", 3, 1, 2));
	assert_int_equal(strset__from_json(o, 10, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.m[0].s, "a");
	assert_int_equal(set.m[0].count, 2);
	assert_string_equal(set.m[2].s, "c");
	assert_true(strset__contains(&set, "b"));
	strset__clear(&set);
	json_object_put(o);

	expect_reject(set_json(M("a", 1, 1, 2) "," M("a", 1, 1, 2)), 10, "twice");
	/* the same bytes, once escaped and once not */
	expect_reject(set_json(M("A", 1, 1, 2) "," M("\\\\x41", 1, 1, 2)), 10, "twice");
	/* a NUL byte, even escaped, can't be in a member */
	expect_reject(set_json(M("a\\\\x00b", 1, 1, 2)), 10, "NUL");
	expect_reject(set_json(M("a", 1, 1, 2) "," M("b", 1, 1, 2) "," M("c", 1, 1, 2)), 2, "bound");
	expect_reject(set_json(M("a", 1, 1, 2) "," M("b", 1, 1, 2)), 1, "bound");
	{
		struct json_object *big = set_json(""), *members, *m;
		char *s = malloc(STRSET_MAX_LEN + 2);

		assert_non_null(s);
		memset(s, 'y', STRSET_MAX_LEN + 1);
		s[STRSET_MAX_LEN + 1] = '\0';
		json_object_object_get_ex(big, "members", &members);
		m = json_tokener_parse(M("", 1, 1, 2));
		json_object_object_add(m, "s", json_object_new_string(s));
		json_object_array_add(members, m);
		expect_reject(big, 10, "longer than");
		free(s);
	}
}

static void test_strset_from_json_rejects_bad_members(void **state)
{
	expect_reject(set_json(M("a", 0, 1, 2)), 10, "count is 0");
	expect_reject(set_json(M("a", 1, 3, 2)), 10, "first_ns > last_ns");
	expect_reject(set_json(M("a", -1, 1, 2)), 10, "negative");
	expect_reject(set_json(M("a", 1, -1, 2)), 10, "negative");
	expect_reject(set_json(M("a\\u0000b", 1, 1, 2)), 10, "NUL");
	expect_reject(set_json("{\"count\":1,\"first_ns\":1,\"last_ns\":2}"), 10, "\"s\"");
	expect_reject(set_json("{\"s\":5,\"count\":1,\"first_ns\":1,\"last_ns\":2}"), 10, "\"s\"");
	expect_reject(set_json("{\"s\":\"a\",\"first_ns\":1,\"last_ns\":2}"), 10, "count");
	expect_reject(set_json("{\"s\":\"a\",\"count\":\"1\",\"first_ns\":1,\"last_ns\":2}"), 10, "not an integer");
	expect_reject(set_json("{\"s\":\"a\",\"count\":1.5,\"first_ns\":1,\"last_ns\":2}"), 10, "not an integer");
	expect_reject(set_json(M("a", 1, 1, 2) ",\"a\""), 10, "members[1]");
	expect_reject(set_json("{\"s\":\"a\",\"count\":1,\"first_ns\":1,\"last_ns\":2,\"x\":1}"), 10, "unknown");
}

static void test_strset_from_json_rejects_bad_envelope(void **state)
{
	expect_reject(json_tokener_parse("[]"), 10, "object");
	expect_reject(json_tokener_parse("{\"max\":10,\"members\":[]}"), 10, "overflow");
	expect_reject(json_tokener_parse("{\"overflow\":0,\"members\":[]}"), 10, "max");
	expect_reject(json_tokener_parse("{\"max\":10,\"overflow\":0}"), 10, "members");
	expect_reject(json_tokener_parse("{\"max\":10,\"overflow\":0,\"members\":{}}"), 10, "members");
	expect_reject(json_tokener_parse("{\"max\":10,\"overflow\":-1,\"members\":[]}"), 10, "negative");
	expect_reject(json_tokener_parse("{\"max\":10,\"overflow\":0,\"members\":[],\"y\":0}"), 10, "unknown");
	/* more members than the file's own bound */
	expect_reject(
		json_tokener_parse("{\"max\":1,\"overflow\":0,\"members\":[" M("a", 1, 1, 2) "," M("b", 1, 1, 2) "]}"),
		10, "bound");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strset_add_keeps_members_sorted_with_counts),
		cmocka_unit_test(test_strset_many_members_stay_sorted_and_found),
		cmocka_unit_test(test_strset_count_saturates),
		cmocka_unit_test(test_strset_bound_refuses_and_counts_overflow),
		cmocka_unit_test(test_strset_rejects_too_long_and_zero_count),
		cmocka_unit_test(test_strset_merge_is_union_with_counts_and_times),
		cmocka_unit_test(test_strset_merge_over_bound_keeps_dst_and_counts_overflow),
		cmocka_unit_test(test_strset_merge_with_itself_doubles_counts),
		cmocka_unit_test(test_strset_merge_associative_and_commutative_while_fitting),
		cmocka_unit_test(test_strset_json_round_trip_is_equal),
		cmocka_unit_test(test_strset_from_json_sorts_and_rejects_duplicate_oversized),
		cmocka_unit_test(test_strset_json_escapes_members_and_reads_old_files),
		cmocka_unit_test(test_strset_from_json_rejects_bad_members),
		cmocka_unit_test(test_strset_from_json_rejects_bad_envelope),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
