// SPDX-License-Identifier: MIT
/*
 * test_cmd_status.c - the human form of `plumbline status` on status files
 * a sensor would not write: members missing or of another type, and names
 * and values holding control bytes (ESC, CR, BEL). It must print, and stay
 * printable text (fuzz_status found both).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli/cmd_status.h"

/* The human form of text, malloc'd. */
static char *render(const char *text)
{
	struct json_object *o = json_tokener_parse(text);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(o);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	cmd_status__print(o, f);
	assert_int_equal(fclose(f), 0);
	json_object_put(o);
	assert_non_null(out);
	return out;
}

static void assert_printable(const char *s)
{
	for (const char *p = s; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f)
			fail_msg("control byte 0x%02x at %zu in:\n%s", (unsigned char)*p, (size_t)(p - s), s);
}

static void test_status_prints_a_file_without_outputs_or_losses(void **state)
{
	char *out = render("{\"pid\":7,\"watching\":{\"features\":[]}}");

	assert_non_null(strstr(out, "outputs       none"));
	assert_non_null(strstr(out, "nothing lost"));
	free(out);
}

static void test_status_prints_outputs_and_losses_of_another_type(void **state)
{
	char *out = render("{\"watching\":{\"outputs\":[\"json\"]},\"losses\":[1,2],\"learning\":5}");

	assert_non_null(strstr(out, "outputs       none"));
	assert_non_null(strstr(out, "nothing lost"));
	free(out);
}

static void test_status_shows_control_bytes_in_names_as_question_marks(void **state)
{
	char *out = render("{\"watching\":{\"outputs\":{\"\\u001b[2Jjson\\r\":{\"state\":\"ok\",\"written\":1}},"
			   "\"features\":[\"ring\\u0007buf\"]},"
			   "\"losses\":{\"\\u001b]0;x\\u0007\":2}}");

	assert_printable(out);
	assert_non_null(strstr(out, "?[2Jjson? ok (1 written, 0 dropped)"));
	assert_non_null(strstr(out, "?]0;x?"));
	assert_non_null(strstr(out, "ring?buf"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_prints_a_file_without_outputs_or_losses),
		cmocka_unit_test(test_status_prints_outputs_and_losses_of_another_type),
		cmocka_unit_test(test_status_shows_control_bytes_in_names_as_question_marks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
