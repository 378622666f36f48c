// SPDX-License-Identifier: MIT
/*
 * test_textsafe.c - the one escaping: valid UTF-8 kept, backslashes,
 * controls (C0, DEL, C1), line separators, bidi controls and invalid bytes
 * written as \xNN; the output is always printable UTF-8 and unescapes back
 * to exactly the input; bounded buffers and display cuts never split a unit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "textsafe.h"

/* Escape the first len bytes of in and compare with want. */
static void check_escape(const char *in, size_t len, const char *want)
{
	char *out = text_escape(in, len);

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

#define ESC(lit, want) check_escape((lit), sizeof(lit) - 1, (want))
#define CMD(lit, want) check_cmdline((lit), sizeof(lit) - 1, (want))

/* Strict UTF-8 decoding of the code point at s (the test's own, independent
 * of textsafe.c); 0 when invalid. */
static size_t decode(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0 && (s[1] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return *cp >= 0x80 ? 2 : 0;
	}
	if ((s[0] & 0xf0) == 0xe0 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return *cp >= 0x800 && (*cp < 0xd800 || *cp > 0xdfff) ? 3 : 0;
	}
	if ((s[0] & 0xf8) == 0xf0 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 | (uint32_t)(s[2] & 0x3f) << 6 |
		      (s[3] & 0x3f);
		return *cp >= 0x10000 && *cp <= 0x10ffff ? 4 : 0;
	}
	return 0;
}

/* What the escaped text must never hold. */
static bool forbidden(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* s is valid UTF-8 with nothing that can start a line, drive a terminal or
 * reorder text, and every backslash starts an \xNN escape. */
static void assert_printable(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; u[i];) {
		uint32_t cp = 0;
		size_t l = decode(u + i, &cp);

		if (!l)
			fail_msg("invalid UTF-8 at byte %zu of \"%s\"", i, s);
		if (forbidden(cp))
			fail_msg("U+%04X at byte %zu of the escaped text", (unsigned)cp, i);
		if (cp == '\\' && (u[i + 1] != 'x' || !u[i + 2] || !u[i + 3]))
			fail_msg("a backslash that is not an escape at byte %zu", i);
		i += l;
	}
}

/* escape, check printable, unescape, compare with the input */
static void round_trip(const char *in, size_t len)
{
	char *esc = text_escape(in, len), *back;
	size_t n = 0;

	assert_non_null(esc);
	assert_printable(esc);
	back = text_unescape(esc, strlen(esc), &n);
	assert_non_null(back);
	assert_int_equal(n, len);
	assert_memory_equal(back, in, len);
	assert_int_equal(back[n], '\0');
	free(back);
	free(esc);
}

static void test_text_escape_keeps_printable_ascii_unchanged(void **state)
{
	ESC("/usr/bin/env", "/usr/bin/env");
	ESC("a \"quoted\" {word}", "a \"quoted\" {word}");
	ESC(" ~!@#$%^&*()_+-=[]{};':,./<>?`", " ~!@#$%^&*()_+-=[]{};':,./<>?`");
	ESC("", "");
}

static void test_text_escape_keeps_valid_multibyte_utf8(void **state)
{
	ESC("caf\xc3\xa9", "caf\xc3\xa9");                  /* U+00E9, 2 bytes */
	ESC("\xc2\xa0", "\xc2\xa0");                        /* U+00A0: first after C1 */
	ESC("\xe2\x82\xac", "\xe2\x82\xac");                /* U+20AC, 3 bytes */
	ESC("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");        /* U+1F600, 4 bytes */
	ESC("\xdf\xbf", "\xdf\xbf");                        /* U+07FF: largest 2-byte */
	ESC("\xe0\xa0\x80", "\xe0\xa0\x80");                /* U+0800: smallest 3-byte */
	ESC("\xed\x9f\xbf", "\xed\x9f\xbf");                /* U+D7FF: just below surrogates */
	ESC("\xee\x80\x80", "\xee\x80\x80");                /* U+E000: just above surrogates */
	ESC("\xef\xbf\xbf", "\xef\xbf\xbf");                /* U+FFFF */
	ESC("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");        /* U+10000: smallest 4-byte */
	ESC("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");        /* U+10FFFF: largest code point */
	ESC("\xe2\x80\xa7\xe2\x80\xaf", "\xe2\x80\xa7\xe2\x80\xaf"); /* U+2027, U+202F: neighbours kept */
	ESC("\xe2\x81\xa5\xe2\x81\xaa", "\xe2\x81\xa5\xe2\x81\xaa"); /* U+2065, U+206A */
}

static void test_text_escape_escapes_backslash_and_controls(void **state)
{
	/* a backslash is escaped, so "\x41" in a name can't pass for an escaped byte */
	ESC("back\\slash", "back\\x5Cslash");
	ESC("\\x41", "\\x5Cx41");
	ESC("\\xFF", "\\x5CxFF");
	ESC("a\nb", "a\\x0Ab");
	ESC("x\r\nALERT Emergency forged", "x\\x0D\\x0AALERT Emergency forged");
	ESC("\t\x01\x1f\x7f", "\\x09\\x01\\x1F\\x7F");
	check_escape("a\0b", 3, "a\\x00b"); /* exactly len bytes: a NUL is a byte like any other */
}

static void test_text_escape_escapes_terminal_sequences(void **state)
{
	ESC("x\x1b[2Jy", "x\\x1B[2Jy");                     /* clear screen */
	ESC("\x1b]0;pwned\x07", "\\x1B]0;pwned\\x07");      /* OSC: window title, BEL */
	ESC("\x1b]0;t\x1b\\", "\\x1B]0;t\\x1B\\x5C");       /* OSC ended by ST (ESC \) */
	ESC("a\xc2\x9b" "2Jb", "a\\xC2\\x9B2Jb");           /* C1 CSI as UTF-8 */
	ESC("\xc2\x80\xc2\x9f", "\\xC2\\x80\\xC2\\x9F");    /* the C1 range's ends */
	ESC("\x9b", "\\x9B");                               /* an 8-bit CSI is invalid UTF-8 */
}

static void test_text_escape_escapes_separators_and_bidi_controls(void **state)
{
	ESC("a\xe2\x80\xa8z", "a\\xE2\\x80\\xA8z");         /* U+2028 LINE SEPARATOR */
	ESC("a\xe2\x80\xa9z", "a\\xE2\\x80\\xA9z");         /* U+2029 PARAGRAPH SEPARATOR */
	ESC("evil\xe2\x80\xaetxt.exe", "evil\\xE2\\x80\\xAEtxt.exe"); /* U+202E RLO */
	ESC("\xe2\x80\x8e\xe2\x80\x8f", "\\xE2\\x80\\x8E\\xE2\\x80\\x8F"); /* LRM, RLM */
	ESC("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
	    "\\xE2\\x80\\xAA\\xE2\\x80\\xAB\\xE2\\x80\\xAC\\xE2\\x80\\xAD"); /* LRE RLE PDF LRO */
	ESC("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	    "\\xE2\\x81\\xA6\\xE2\\x81\\xA7\\xE2\\x81\\xA8\\xE2\\x81\\xA9"); /* LRI RLI FSI PDI */
	ESC("\xd8\x9c", "\\xD8\\x9C");                      /* U+061C ARABIC LETTER MARK */
}

static void test_text_escape_escapes_invalid_utf8(void **state)
{
	ESC("\xff", "\\xFF");
	ESC("a\x80z", "a\\x80z");                /* lone continuation byte */
	ESC("\xf5\x80\x80\x80", "\\xF5\\x80\\x80\\x80"); /* lead byte beyond U+10FFFF */
	ESC("\xc3" "A", "\\xC3A");              /* lead byte followed by ASCII */
	ESC("\xc0\xaf", "\\xC0\\xAF");          /* overlong '/' */
	ESC("\xe0\x80\xaf", "\\xE0\\x80\\xAF");
	ESC("\xf0\x8f\xbf\xbf", "\\xF0\\x8F\\xBF\\xBF");
	ESC("\xed\xa0\x80", "\\xED\\xA0\\x80"); /* U+D800 */
	ESC("\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"); /* U+110000 */
	ESC("a\xe2\x82", "a\\xE2\\x82");        /* cut at the end */
	check_escape("\xe2\x82\xac", 2, "\\xE2\\x82"); /* cut by the length */
}

/* Every byte, and every pair of bytes, comes back exactly, through text that
 * is always printable. */
static void test_text_escape_round_trips_every_byte_and_pair(void **state)
{
	for (unsigned a = 0; a < 256; a++) {
		char one = (char)a;

		round_trip(&one, 1);
		for (unsigned b = 0; b < 256; b++) {
			char two[2] = { (char)a, (char)b };

			round_trip(two, 2);
		}
	}
	/* and every 3-byte sequence starting like the escaped 3-byte code points */
	for (unsigned b = 0; b < 256; b++)
		for (unsigned c = 0; c < 256; c++) {
			char e2[3] = { '\xe2', (char)b, (char)c }, d8[2] = { '\xd8', (char)b };

			round_trip(e2, 3);
			round_trip(d8, 2);
		}
}

static void test_text_escape_round_trips_hostile_texts(void **state)
{
	static const char *const hostile[] = {
		"x\r\nALERT Emergency forged",
		"\x1b[2J\x1b[H\x1b]0;owned\x07name",
		"q\"uo\\te",
		"\\x41\\x5C\\\\x",
		"/tmp/\xff\xfe\xc2\x9b" "31m\xe2\x80\xae\xe2\x80\xa8",
		"caf\xc3\xa9 \xf0\x9f\x98\x80",
	};

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		round_trip(hostile[i], strlen(hostile[i]));
}

static void test_text_unescape_keeps_what_is_not_an_escape(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "\\x41", "A" },   { "\\x5c", "\\" },     { "\\xff", "\xff" }, { "\\x4", "\\x4" },
		{ "\\xZZ", "\\xZZ" }, { "\\x", "\\x" },    { "\\", "\\" },       { "a\\", "a\\" },
		{ "\\\\x41", "\\A" }, { "\\X41", "\\X41" }, { "\\x4g", "\\x4g" }, { "plain", "plain" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 99;
		char *out = text_unescape(cases[i].in, strlen(cases[i].in), &n);

		assert_non_null(out);
		assert_string_equal(out, cases[i].want);
		assert_int_equal(n, strlen(cases[i].want));
		free(out);
	}
}

static void test_text_unescape_gives_nul_bytes_with_their_length(void **state)
{
	size_t n = 0;
	char *out = text_unescape("a\\x00b", 6, &n);

	assert_non_null(out);
	assert_int_equal(n, 3);
	assert_memory_equal(out, "a\0b", 4);
	free(out);
}

/* The byte at esc[i] starts a unit: an escape, or a code point (not a
 * UTF-8 continuation byte, not the middle of an escape). */
static bool unit_starts_at(const char *esc, size_t i)
{
	for (size_t k = 1; k <= 3 && k <= i; k++)
		if (esc[i - k] == '\\' && esc[i - k + 1] == 'x')
			return false;
	return ((unsigned char)esc[i] & 0xc0) != 0x80;
}

static void test_text_escape_buf_counts_like_snprintf_and_never_splits(void **state)
{
	static const char in[] = "a\xc3\xa9\x1b[\xe2\x82\xac\\b\xff\xf0\x9f\x98\x80z";
	char *full = text_escape(in, sizeof(in) - 1);
	size_t need = strlen(full);
	char buf[128];

	assert_int_equal(text_escape_buf(NULL, 0, in, sizeof(in) - 1, 0), need);
	for (size_t size = 1; size <= need + 2; size++) {
		size_t got;

		memset(buf, '#', sizeof(buf));
		assert_int_equal(text_escape_buf(buf, size, in, sizeof(in) - 1, 0), need);
		got = strlen(buf);
		assert_true(got < size);
		assert_memory_equal(buf, full, got); /* a prefix of the whole */
		assert_true(got == need || unit_starts_at(full, got));
		/* as much as fits: the next unit would not */
		if (got < need) {
			size_t next = got + 1;

			while (next < need && !unit_starts_at(full, next))
				next++;
			assert_true(next > size - 1);
		}
		assert_printable(buf);
	}
	free(full);
}

static void test_text_escape_buf_quote_flag_escapes_double_quotes(void **state)
{
	char buf[64];

	assert_int_equal(text_escape_buf(buf, sizeof(buf), "q\"uo\\te", 7, TEXT_ESC_QUOTE), 13);
	assert_string_equal(buf, "q\\x22uo\\x5Cte");
	assert_int_equal(text_escape_buf(buf, sizeof(buf), "q\"uo\\te", 7, 0), 10);
	assert_string_equal(buf, "q\"uo\\x5Cte");
}

static void test_text_tail_keeps_whole_units_within_width(void **state)
{
	static const char in[] = "/opt/\xc3\xa9t\xc3\xa9/\x1b\xe2\x82\xac/bin/\xff" "tool";
	char *esc = text_escape(in, sizeof(in) - 1);
	size_t total, cols;

	assert_non_null(esc);
	assert_int_equal(text_tail(esc, 1000, &total), 0);
	assert_int_equal(total, 5 + 4 + 4 + 1 + 5 + 4 + 4); /* é and € are one column, escapes four */
	for (size_t max = 0; max <= total; max++) {
		size_t off = text_tail(esc, max, &cols);

		assert_true(cols <= max);
		assert_true(unit_starts_at(esc, off));
		/* nothing more would fit: the unit before the cut is wider than what is left */
		if (off > 0) {
			size_t prev = off - 1;

			while (prev > 0 && !unit_starts_at(esc, prev))
				prev--;
			assert_true(cols + (esc[prev] == '\\' ? 4 : 1) > max);
		}
	}
	assert_string_equal(esc + text_tail(esc, 8, NULL), "\\xFFtool");
	assert_string_equal(esc + text_tail(esc, 7, NULL), "tool"); /* never half an escape */
	free(esc);
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

static void test_text_cmdline_keeps_the_bytes_raw(void **state)
{
	CMD("a\0\xff\0", "a \xff");
	CMD("x\r\nALERT\0\x1b[2J\0", "x\r\nALERT \x1b[2J");
	CMD("x\xe2\0\x82\xac\0", "x\xe2 \x82\xac"); /* a sequence split by an argument boundary */
}

/* The one decoder: lengths and code points of valid UTF-8, 0 for every
 * invalid form (overlong, surrogate, past U+10FFFF, cut, stray byte). */
static void test_text_utf8_decode_takes_valid_sequences_only(void **state)
{
	static const struct {
		const char *s;
		size_t n, len;
		uint32_t cp;
	} cases[] = {
		{ "A", 1, 1, 0x41 },		 { "\xc3\xa9", 2, 2, 0xe9 },	    { "\xe2\x80\xa8", 3, 3, 0x2028 },
		{ "\xf0\x9f\x98\x80", 4, 4, 0x1f600 }, { "\xc0\xaf", 2, 0, 0 },	    { "\xe0\x80\xaf", 3, 0, 0 },
		{ "\xed\xa0\x80", 3, 0, 0 },	 { "\xf4\x90\x80\x80", 4, 0, 0 }, { "\xe2\x80", 2, 0, 0 },
		{ "\x80", 1, 0, 0 },		 { "\xff", 1, 0, 0 },	    { "", 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t cp = 0xdeadbeef;

		assert_int_equal(text_utf8_decode(cases[i].s, cases[i].n, &cp), cases[i].len);
		assert_int_equal(cp, cases[i].len ? cases[i].cp : 0xdeadbeef); /* untouched when invalid */
		assert_int_equal(text_utf8_decode(cases[i].s, cases[i].n, NULL), cases[i].len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_escape_keeps_printable_ascii_unchanged),
		cmocka_unit_test(test_text_escape_keeps_valid_multibyte_utf8),
		cmocka_unit_test(test_text_escape_escapes_backslash_and_controls),
		cmocka_unit_test(test_text_escape_escapes_terminal_sequences),
		cmocka_unit_test(test_text_escape_escapes_separators_and_bidi_controls),
		cmocka_unit_test(test_text_escape_escapes_invalid_utf8),
		cmocka_unit_test(test_text_escape_round_trips_every_byte_and_pair),
		cmocka_unit_test(test_text_escape_round_trips_hostile_texts),
		cmocka_unit_test(test_text_unescape_keeps_what_is_not_an_escape),
		cmocka_unit_test(test_text_unescape_gives_nul_bytes_with_their_length),
		cmocka_unit_test(test_text_escape_buf_counts_like_snprintf_and_never_splits),
		cmocka_unit_test(test_text_escape_buf_quote_flag_escapes_double_quotes),
		cmocka_unit_test(test_text_tail_keeps_whole_units_within_width),
		cmocka_unit_test(test_text_cmdline_joins_args_with_spaces),
		cmocka_unit_test(test_text_cmdline_drops_all_trailing_nuls),
		cmocka_unit_test(test_text_cmdline_keeps_the_bytes_raw),
		cmocka_unit_test(test_text_utf8_decode_takes_valid_sequences_only),
	};

	return cmocka_run_group_tests_name("textsafe", tests, NULL, NULL);
}
