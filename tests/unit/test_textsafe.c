// SPDX-License-Identifier: MIT
/*
 * test_textsafe.c - text_sanitize() / text_cmdline(): valid UTF-8 kept,
 * every invalid byte written as \xNN, NUL ends the text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "textsafe.h"

/* Sanitize the first len bytes of in and compare with want. */
static void check_sanitize(const char *in, size_t len, const char *want)
{
	char *out = text_sanitize(in, len);

	assert_non_null(out);
	assert_string_equal(out, want);
	free(out);
}

static void check_cmdline(const char *in, size_t len, const char *want)
{
	char *out = text_cmdline(in, len);

	assert_non_null(out);
	assert_string_equal(out, want);
	free(out);
}

#define SAN(lit, want) check_sanitize((lit), sizeof(lit) - 1, (want))
#define CMD(lit, want) check_cmdline((lit), sizeof(lit) - 1, (want))

static void test_text_sanitize_keeps_ascii_unchanged(void **state)
{
	SAN("/usr/bin/env", "/usr/bin/env");
	SAN("a \"quoted\" newline\n\ttab", "a \"quoted\" newline\n\ttab");
	/* a backslash is escaped, so "\x41" in a name can't pass for an escaped byte */
	SAN("back\\slash", "back\\x5Cslash");
	SAN("\\xFF", "\\x5CxFF");
	SAN("\x01\x1f\x7f", "\x01\x1f\x7f"); /* control bytes are valid UTF-8: json-c escapes them */
}

static void test_text_sanitize_keeps_valid_multibyte_utf8(void **state)
{
	SAN("caf\xc3\xa9", "caf\xc3\xa9");                  /* U+00E9, 2 bytes */
	SAN("\xe2\x82\xac", "\xe2\x82\xac");                /* U+20AC, 3 bytes */
	SAN("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");        /* U+1F600, 4 bytes */
	SAN("\xc2\x80", "\xc2\x80");                        /* U+0080: smallest 2-byte */
	SAN("\xdf\xbf", "\xdf\xbf");                        /* U+07FF: largest 2-byte */
	SAN("\xe0\xa0\x80", "\xe0\xa0\x80");                /* U+0800: smallest 3-byte */
	SAN("\xed\x9f\xbf", "\xed\x9f\xbf");                /* U+D7FF: just below surrogates */
	SAN("\xee\x80\x80", "\xee\x80\x80");                /* U+E000: just above surrogates */
	SAN("\xef\xbf\xbf", "\xef\xbf\xbf");                /* U+FFFF */
	SAN("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");        /* U+10000: smallest 4-byte */
	SAN("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");        /* U+10FFFF: largest code point */
	SAN("/h\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80x", "/h\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80x");
}

static void test_text_sanitize_escapes_invalid_bytes(void **state)
{
	SAN("\xff", "\\xFF");
	SAN("\xfe", "\\xFE");
	SAN("a\x80z", "a\\x80z");                /* lone continuation byte */
	SAN("\xbf\xbf", "\\xBF\\xBF");
	SAN("\xf5\x80\x80\x80", "\\xF5\\x80\\x80\\x80"); /* lead byte beyond U+10FFFF */
	SAN("\xf8\x88\x80\x80\x80", "\\xF8\\x88\\x80\\x80\\x80"); /* 5-byte form */
	SAN("\xc3" "A", "\\xC3A");              /* lead byte followed by ASCII */
}

static void test_text_sanitize_escapes_overlong_encodings(void **state)
{
	SAN("\xc0\xaf", "\\xC0\\xAF");                 /* '/' as 2 bytes */
	SAN("\xc1\xbf", "\\xC1\\xBF");
	SAN("\xc0\x80", "\\xC0\\x80");                 /* "modified UTF-8" NUL */
	SAN("\xe0\x80\xaf", "\\xE0\\x80\\xAF");        /* '/' as 3 bytes */
	SAN("\xe0\x9f\xbf", "\\xE0\\x9F\\xBF");        /* U+07FF as 3 bytes */
	SAN("\xf0\x80\x80\xaf", "\\xF0\\x80\\x80\\xAF"); /* '/' as 4 bytes */
	SAN("\xf0\x8f\xbf\xbf", "\\xF0\\x8F\\xBF\\xBF"); /* U+FFFF as 4 bytes */
}

static void test_text_sanitize_escapes_surrogates_and_beyond_max(void **state)
{
	SAN("\xed\xa0\x80", "\\xED\\xA0\\x80");        /* U+D800 */
	SAN("\xed\xbf\xbf", "\\xED\\xBF\\xBF");        /* U+DFFF */
	SAN("\xed\xa0\xbd\xed\xb8\x80", "\\xED\\xA0\\xBD\\xED\\xB8\\x80"); /* CESU-8 pair */
	SAN("\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"); /* U+110000 */
}

static void test_text_sanitize_escapes_truncated_sequences(void **state)
{
	SAN("a\xe2\x82", "a\\xE2\\x82");               /* 3-byte cut at end */
	SAN("\xe2\x82z", "\\xE2\\x82z");               /* 3-byte cut by ASCII */
	SAN("\xf0\x9f\x98", "\\xF0\\x9F\\x98");
	SAN("\xc3", "\\xC3");
	/* The length limit cuts a valid sequence: the bytes inside are escaped. */
	check_sanitize("\xe2\x82\xac", 2, "\\xE2\\x82");
	check_sanitize("ab\xf0\x9f\x98\x80", 5, "ab\\xF0\\x9F\\x98");
	/* A NUL cuts a sequence too. */
	check_sanitize("\xe2\x82\0\xac", 4, "\\xE2\\x82");
}

static void test_text_sanitize_stops_at_nul(void **state)
{
	check_sanitize("ab\0cd", 5, "ab");
	check_sanitize("\0abc", 4, "");
	check_sanitize("abc", 0, "");
	check_sanitize("abcdef", 3, "abc");
}

/* Undo text_sanitize: \xNN back to the byte. */
static size_t unescape(const char *s, unsigned char *out)
{
	size_t o = 0;

	while (*s) {
		unsigned v;

		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2X", &v) == 1) {
			out[o++] = (unsigned char)v;
			s += 4;
			continue;
		}
		out[o++] = (unsigned char)*s++;
	}
	return o;
}

static void test_text_sanitize_is_reversible(void **state)
{
	/* every two-byte input decodes back to exactly itself */
	for (unsigned a = 1; a < 256; a++) {
		for (unsigned b = 1; b < 256; b++) {
			char in[3] = { (char)a, (char)b, 0 };
			unsigned char back[16];
			char *once = text_sanitize(in, 2);

			assert_non_null(once);
			assert_true(strlen(once) <= 8); /* at most one \xNN per byte */
			assert_int_equal(unescape(once, back), 2);
			assert_memory_equal(back, in, 2);
			free(once);
		}
	}
}

static void test_text_cmdline_joins_args_with_spaces(void **state)
{
	CMD("ls\0-l\0/tmp\0", "ls -l /tmp");
	CMD("a\0\0b\0", "a  b");                     /* empty argument kept */
	CMD("single", "single");                     /* no trailing NUL */
}

static void test_text_cmdline_drops_all_trailing_nuls(void **state)
{
	CMD("a\0\0\0", "a");
	CMD("\0\0", "");
	check_cmdline("", 0, "");
}

static void test_text_cmdline_sanitizes_after_joining(void **state)
{
	CMD("a\0\xff\0", "a \\xFF");
	/* A sequence split by an argument boundary is invalid once joined. */
	CMD("x\xe2\0\x82\xac\0", "x\\xE2 \\x82\\xAC");
	CMD("caf\xc3\xa9\0--n\0", "caf\xc3\xa9 --n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_sanitize_keeps_ascii_unchanged),
		cmocka_unit_test(test_text_sanitize_keeps_valid_multibyte_utf8),
		cmocka_unit_test(test_text_sanitize_escapes_invalid_bytes),
		cmocka_unit_test(test_text_sanitize_escapes_overlong_encodings),
		cmocka_unit_test(test_text_sanitize_escapes_surrogates_and_beyond_max),
		cmocka_unit_test(test_text_sanitize_escapes_truncated_sequences),
		cmocka_unit_test(test_text_sanitize_stops_at_nul),
		cmocka_unit_test(test_text_sanitize_is_reversible),
		cmocka_unit_test(test_text_cmdline_joins_args_with_spaces),
		cmocka_unit_test(test_text_cmdline_drops_all_trailing_nuls),
		cmocka_unit_test(test_text_cmdline_sanitizes_after_joining),
	};

	return cmocka_run_group_tests_name("textsafe", tests, NULL, NULL);
}
