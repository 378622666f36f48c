// SPDX-License-Identifier: MIT
/*
 * fuzz_baseline.c - libFuzzer target: arbitrary bytes as one baseline file
 * of the state directory (bl_store__parse_file(), what the store's load
 * runs on each file).
 *
 * Whatever the input, parsing must terminate, stay within its bounds and
 * free everything (ASan/LSan). A baseline that parses is then used the way
 * the sensor uses one: serialized again, which must parse back to the same
 * text (a file the sensor writes is one it reads), scored against a sample,
 * its quantiles read, and merged with itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *file_text(const struct baseline *b)
{
	struct json_object *o = baseline__to_json(b);
	char *s;

	if (!o)
		return NULL;
	json_object_object_add(o, "format", json_object_new_string("plumbline-baseline"));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

static void use(struct baseline *b)
{
	static const char *const names[] = { "openat", "read" };
	static const char *const paths[] = { "/etc/ld.so.preload" };
	struct bl_process_sample ps = {
		.cpu_ns = 1000000, .wall_ns = 3000000, .offcpu_ns = 2000000, .syscalls = 120, .open_fail = 1,
		.fail_paths = paths, .nfail_paths = 1, .syscall_names = names, .nsyscall_names = 2,
	};
	struct bl_window_sample ws = { .duration_ns = 1000000000ull, .cpu_ns = 100000, .syscalls = 40 };
	struct bl_policy p;
	struct bl_verdict v;

	bl_policy__defaults(&p);
	p.min_samples = 1;
	p.min_windows = 1;
	baseline__score_process(b, b, &ps, &p, &v);
	baseline__score_window(b, NULL, &ws, &p, &v);
	for (int d = 0; d < PL_DIST_MAX; d++)
		(void)sketch__quantile(&b->dist[d], 0.99);
	for (int i = 0; i < BL_SET_MAX; i++)
		(void)baseline__set_ready(b, (enum bl_set)i, &p, b->updated_ns);
	(void)baseline__oncpu_share(b, &p, "/usr/lib/libc.so.6");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct baseline *b = NULL, *again = NULL, *copy = NULL;
	char err[256], *text, *text2;

	if (bl_store__parse_file((const char *)data, size, &b, err, sizeof(err)) != 0)
		return 0;
	use(b);
	text = file_text(b);
	if (text) {
		if (bl_store__parse_file(text, strlen(text), &again, err, sizeof(err)) != 0) {
			fprintf(stderr, "a baseline the sensor wrote does not load back: %s\n%s\n", err, text);
			abort();
		}
		text2 = file_text(again);
		if (text2 && strcmp(text, text2) != 0) {
			fprintf(stderr, "a baseline's file changed through a load:\n%s\n%s\n", text, text2);
			abort();
		}
		/* merged with itself: counts double, still a valid baseline */
		if (bl_store__parse_file(text, strlen(text), &copy, err, sizeof(err)) == 0 &&
		    baseline__merge(again, copy) == 0)
			use(again);
		free(text2);
		free(text);
	}
	baseline__free(copy);
	baseline__free(again);
	baseline__free(b);
	return 0;
}
