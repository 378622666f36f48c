// SPDX-License-Identifier: MIT
/*
 * test_live.c - the live table: rows per binary, busiest first, reset after
 * each print, hostile names escaped (one printable row each).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "process/live.h"

#define SEC 1000000000ull

static const char header[] = "\nBINARY (busiest, last interval)                CPU%   WAIT% SYSCALL/s FAILOPN/s PROCS\n";
/* under the first plain table only: what the columns mean */
static const char legend[] = "CPU% and WAIT%: time on CPU and off it (runnable or blocked), per second of the "
			     "interval, summed over the binary's threads and processes:\n"
			     "  100 = one thread all the time, so 12 threads asleep read 1200. SYSCALL/s, FAILOPN/s: "
			     "syscalls, failed opens per second. PROCS: processes seen.\n";

static int setup(void **state)
{
	struct live *l = NULL;

	if (live__new(&l) != 0 || !l)
		return -1;
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	live__free(*state);
	return 0;
}

/* live__print into a string (caller frees). */
static char *print_to_string(struct live *l, uint64_t interval_ns, uint32_t tracked, uint64_t records_lost)
{
	struct live_losses lost = { .records = records_lost };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	live__print(l, f, NULL, interval_ns, tracked, &lost);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

/* One table row: name left-aligned in 44 columns, then the literal rest. */
static void row(char *out, size_t size, const char *name, const char *rest)
{
	snprintf(out, size, "%-44s%s\n", name, rest);
}

/* Concatenate NULL-terminated pieces into out. */
static void join(char *out, size_t size, const char *const *pieces)
{
	size_t n = 0;

	out[0] = '\0';
	for (; *pieces; pieces++) {
		size_t l = strlen(*pieces);

		assert_true(n + l < size);
		memcpy(out + n, *pieces, l + 1);
		n += l;
	}
}

static void test_live_print_orders_rows_by_cpu(void **state)
{
	struct live *l = *state;
	char ra[128], rb[128], rc[128], want[1024];
	char *got;

	live__add(l, "/usr/bin/a", SEC / 2, 0, 100, 0, true, false);
	live__add(l, "/usr/bin/b", SEC, SEC / 2, 300, 2, true, false);
	live__add(l, "/usr/bin/c", 0, 0, 10, 0, true, true);
	live__add(l, "/usr/bin/a", SEC / 4, SEC / 4, 50, 1, true, true);
	got = print_to_string(l, SEC, 7, 3);

	row(rb, sizeof(rb), "/usr/bin/b", "  100.0    50.0       300         2     1");
	row(ra, sizeof(ra), "/usr/bin/a", "   75.0    25.0       150         1     2");
	row(rc, sizeof(rc), "/usr/bin/c", "    0.0     0.0        10         0     1");
	join(want, sizeof(want),
	     (const char *const[]){ header, rb, ra, rc,
				    "-- 7 processes tracked, lost: 3 records, 0 processes untracked, 0 output writes, 0 failed-open paths (counts kept), 0 threads unmeasured so far (CPU%: 100 = one core)\n", legend, NULL });
	assert_string_equal(got, want);
	free(got);
}

/* waiters listed longest first with their state, once */
static void test_live_print_tells_stopped_from_sleeping_waiters(void **state)
{
	struct live *l = *state;
	char *got;

	live__add(l, "/usr/bin/a", SEC, 0, 1, 0, true, false);
	live__waiting(l, "/usr/bin/cat", 41, "sleeping", 7.2, "pipe_read");
	live__waiting(l, "/usr/bin/python3", 42, "stopped", 30, NULL);
	live__waiting(l, "/usr/bin/cat", 41, "sleeping", 8.4, "pipe_read"); /* the same process: updated */
	got = print_to_string(l, SEC, 3, 0);
	assert_non_null(strstr(got, "waiting: /usr/bin/python3 pid 42 stopped for 30 s in -\n"
				    "waiting: /usr/bin/cat pid 41 sleeping for 8 s in pipe_read\n-- 3 processes"));
	free(got);
	got = print_to_string(l, SEC, 3, 0);
	assert_null(strstr(got, "waiting:"));
	free(got);
}

static void test_live_print_scales_by_interval(void **state)
{
	struct live *l = *state;
	char r[128], want[1024];
	char *got;

	live__add(l, "x", SEC, 0, 1000, 10, true, false);
	got = print_to_string(l, 2 * SEC, 1, 0);
	row(r, sizeof(r), "x", "   50.0     0.0       500         5     1");
	join(want, sizeof(want),
	     (const char *const[]){ header, r,
				    "-- 1 processes tracked, nothing lost so far (CPU%: 100 = one core)\n", legend, NULL });
	assert_string_equal(got, want);
	free(got);
}

static void test_live_print_resets_for_next_interval(void **state)
{
	struct live *l = *state;
	char want[512];
	char *got;

	live__add(l, "/usr/bin/a", SEC, 0, 1, 0, true, false);
	free(print_to_string(l, SEC, 1, 0));
	got = print_to_string(l, SEC, 0, 0);
	join(want, sizeof(want),
	     (const char *const[]){ header,
				    "-- 0 processes tracked, nothing lost so far (CPU%: 100 = one core)\n", NULL });
	assert_string_equal(got, want);
	free(got);

	/* and counts start from zero again */
	live__add(l, "/usr/bin/a", SEC / 10, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 0, 0);
	assert_non_null(strstr(got, "   10.0     0.0         1         0     1\n"));
	free(got);
}

static void test_live_print_skips_idle_rows(void **state)
{
	struct live *l = *state;
	char *got;

	live__add(l, "/usr/bin/busy", SEC, 0, 1, 0, true, false);
	live__add(l, "/usr/bin/idle", 0, SEC, 0, 0, true, false);
	got = print_to_string(l, SEC, 2, 0);
	assert_non_null(strstr(got, "/usr/bin/busy"));
	assert_null(strstr(got, "/usr/bin/idle"));
	free(got);
}

static void test_live_print_ties_on_cpu_ordered_by_syscalls(void **state)
{
	struct live *l = *state;
	char *got, *few, *many;

	live__add(l, "few", SEC, 0, 1, 0, true, false);
	live__add(l, "many", SEC, 0, 9, 0, true, false);
	got = print_to_string(l, SEC, 2, 0);
	few = strstr(got, "\nfew ");
	many = strstr(got, "\nmany ");
	assert_non_null(few);
	assert_non_null(many);
	assert_true(many < few);
	free(got);
}

static void test_live_print_shows_top_ten_only(void **state)
{
	struct live *l = *state;
	char name[32], *got;
	int lines = 0;

	for (int i = 1; i <= 12; i++) {
		snprintf(name, sizeof(name), "/bin/p%02d", i);
		live__add(l, name, (uint64_t)i * 1000000, 0, 1, 0, true, false);
	}
	got = print_to_string(l, SEC, 12, 0);
	for (const char *p = got; (p = strchr(p, '\n')); p++)
		lines++;
	/* leading blank, header, 10 rows, footer, the legend's 2 lines (the first table) */
	assert_int_equal(lines, 15);
	assert_non_null(strstr(got, "/bin/p12"));
	assert_non_null(strstr(got, "/bin/p03"));
	assert_null(strstr(got, "/bin/p02"));
	assert_null(strstr(got, "/bin/p01"));
	assert_true(strstr(got, "/bin/p12") < strstr(got, "/bin/p03"));
	free(got);
}

static void test_live_add_without_name_counts_as_question_mark(void **state)
{
	struct live *l = *state;
	char r[128], *got;

	live__add(l, NULL, SEC, 0, 1, 0, true, false);
	live__add(l, "", SEC, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 2, 0);
	row(r, sizeof(r), "?", "  200.0     0.0         2         0     2");
	assert_non_null(strstr(got, r));
	free(got);
}

static void test_live_add_folds_beyond_capacity_into_other(void **state)
{
	struct live *l = *state;
	char name[32], r[128], *got, *first;

	for (int i = 0; i < 512; i++) {
		snprintf(name, sizeof(name), "/bin/n%d", i);
		live__add(l, name, 1000, 0, 1, 0, true, false);
	}
	live__add(l, "/bin/late1", SEC / 2, 0, 1, 0, true, false);
	live__add(l, "/bin/late2", SEC / 2, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 514, 0);
	row(r, sizeof(r), "(other)", "  100.0     0.0         2         0     2");
	first = strchr(got + 1, '\n'); /* end of the header */
	assert_non_null(first);
	assert_true(strncmp(first + 1, r, strlen(r)) == 0);
	assert_null(strstr(got, "/bin/late"));
	free(got);
}

/* A long exe path (longer than the row's name buffer) is still one binary:
 * its processes must add up in one row, not one row per process. */
static void test_live_add_long_name_accumulates_in_one_row(void **state)
{
	struct live *l = *state;
	char name[200], *got;
	int rows = 0;

	memset(name, 'x', sizeof(name));
	memcpy(name, "/opt/", 5);
	memcpy(name + 150, "/bin/longtool", 14); /* 163 chars + NUL */
	live__add(l, name, SEC / 2, 0, 1, 0, true, false);
	live__add(l, name, SEC / 2, 0, 1, 0, true, false);
	live__add(l, name, SEC / 2, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 3, 0);
	for (const char *p = got; (p = strstr(p, "xxxxxxxxxx")); p = strchr(p, '\n'))
		rows++;
	assert_int_equal(rows, 1);
	assert_non_null(strstr(got, "  150.0     0.0         3         0     3\n"));
	free(got);
}

static void test_live_add_counts_a_process_once_per_interval(void **state)
{
	struct live *l = *state;
	char r[128], *got;

	assert_int_equal(live__interval(l), 0);
	live__add(l, "/bin/svc", SEC / 10, 0, 1, 0, true, false); /* first sight this interval */
	live__add(l, "/bin/svc", SEC / 10, 0, 1, 0, false, false); /* same process again */
	live__add(l, "/bin/svc", SEC / 10, 0, 1, 0, false, true);  /* and its exit */
	got = print_to_string(l, SEC, 1, 0);
	row(r, sizeof(r), "/bin/svc", "   30.0     0.0         3         0     1");
	assert_non_null(strstr(got, r));
	free(got);
	assert_int_equal(live__interval(l), 1);
	free(print_to_string(l, SEC, 1, 0));
	assert_int_equal(live__interval(l), 2);
}

/* The table shows the end of a path (tail of 44 columns): for a long path
 * that must still be the binary's own name, not a cut-off middle. */
static void test_live_print_long_name_shows_its_end(void **state)
{
	struct live *l = *state;
	char name[200], *got;

	memset(name, 'x', sizeof(name));
	memcpy(name, "/opt/", 5);
	memcpy(name + 150, "/bin/longtool", 14);
	live__add(l, name, SEC / 2, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 1, 0);
	assert_non_null(strstr(got, "/bin/longtool "));
	free(got);
}

/* What a terminal must not be handed: bytes below 0x20 other than the
 * table's own newlines, DEL, C1 controls (U+0080-U+009F as UTF-8), and
 * U+2028/U+2029 and the bidi controls (E2 80 8E/8F/A8-AE, E2 81 A6-A9). */
static void assert_no_control_bytes(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; u[i]; i++) {
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			fail_msg("control byte 0x%02x at %zu", u[i], i);
		if (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
			fail_msg("C1 control at %zu", i);
		if (u[i] == 0xe2 && ((u[i + 1] == 0x80 && (u[i + 2] == 0x8e || u[i + 2] == 0x8f ||
							    (u[i + 2] >= 0xa8 && u[i + 2] <= 0xae))) ||
				     (u[i + 1] == 0x81 && u[i + 2] >= 0xa6 && u[i + 2] <= 0xa9)))
			fail_msg("separator or bidi control at %zu", i);
		if (u[i] >= 0x80 && u[i] != 0xc3 && u[i] != 0xa9)
			fail_msg("byte 0x%02x at %zu: only the one valid character of the test may be there", u[i], i);
	}
}

/* A process names its binary anything: each name is one row of printable
 * text, and none can forge a line, move the cursor or retitle the terminal. */
static void test_live_print_hostile_names_one_row_each_no_control_bytes(void **state)
{
	static const char *const names[] = {
		"/tmp/x\r\nALERT Emergency forged",
		"/tmp/\x1b[2J\x1b[H\x1b]0;owned\x07name",
		"/tmp/\xc2\x9b" "31m\xe2\x80\xae\xe2\x80\xa8\xff",
		"/tmp/q\"uo\\te",
	};
	struct live *l = *state;
	char *got, *line, *save = NULL;
	int rows = 0, lines = 0;

	for (size_t i = 0; i < 4; i++) {
		live__add(l, names[i], SEC / 10 * (i + 1), 0, 1, 0, true, false);
		live__add(l, names[i], SEC / 10, 0, 1, 0, false, false); /* same binary, same row */
	}
	live__add(l, "/usr/bin/caf\xc3\xa9", SEC / 100, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 5, 0);
	assert_no_control_bytes(got);
	assert_non_null(strstr(got, "/tmp/x\\x0D\\x0AALERT Emergency forged "));
	assert_non_null(strstr(got, "/tmp/\\x1B[2J\\x1B[H\\x1B]0;owned\\x07name "));
	assert_non_null(strstr(got, "/tmp/\\xC2\\x9B31m\\xE2\\x80\\xAE\\xE2\\x80\\xA8\\xFF "));
	assert_non_null(strstr(got, "/tmp/q\"uo\\x5Cte "));
	/* a 2-byte character is one column: the numbers stay in their column */
	assert_non_null(strstr(got, "/usr/bin/caf\xc3\xa9" "                                   1.0 "));
	for (line = strtok_r(got, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines++;
		if (strncmp(line, "ALERT", 5) == 0)
			fail_msg("a forged line: %s", line);
		rows += strncmp(line, "/tmp/", 5) == 0;
	}
	assert_int_equal(rows, 4);
	assert_int_equal(lines, 1 + 5 + 1 + 2); /* header, one row per binary, footer, legend */
	free(got);
}

/* A long hostile name: the tail shown never starts inside an escape. */
static void test_live_print_long_escaped_name_is_cut_between_escapes(void **state)
{
	struct live *l = *state;
	char name[64], *got, *row;

	memset(name, '\x1b', sizeof(name));
	memcpy(name, "/tmp/", 5);
	name[sizeof(name) - 1] = '\0';
	live__add(l, name, SEC, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 1, 0);
	row = strchr(got + 1, '\n') + 1; /* after the header */
	/* 44 columns hold 11 escapes of 4, then the numbers */
	assert_true(strncmp(row, "\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B  100.0 ", 52) == 0);
	free(got);
}

/* live__print on a terminal of cols x rows into a string (caller frees). */
static char *print_on_tty(struct live *l, unsigned cols, unsigned rows)
{
	struct live_losses lost = { 0 };
	struct live_screen sc = { .tty = true, .cols = cols, .rows = rows };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	live__print(l, f, &sc, SEC, 4, &lost);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

/* The columns of a drawn line: its characters up to the erase-to-end, an
 * escape sequence none, a UTF-8 continuation byte none. */
static size_t drawn_cols(const char *l, const char *end)
{
	size_t n = 0;

	for (; l < end; l++) {
		if (*l == '\x1b') {
			while (l < end && !((*l >= 'A' && *l <= 'Z') || (*l >= 'a' && *l <= 'z')))
				l++;
			continue;
		}
		n += ((unsigned char)*l & 0xc0) != 0x80;
	}
	return n;
}

/* On a terminal: drawn in place (home, each line erased to its end, the
 * rest of the screen erased; the screen cleared only the first time), every
 * line within the width, the name column as wide as the numbers leave, as
 * many rows as the height allows, the sensor's own row apart, the last
 * alert lines and the legend below. */
static void test_live_on_a_terminal_redraws_in_place_within_its_size(void **state)
{
	struct live *l = *state;
	char name[128], *got, *p;
	FILE *alerts = live__alert_file(l);
	size_t lines = 0;

	assert_non_null(alerts);
	for (int i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "/usr/lib/very/long/path/to/a/daemon/number/%02d", i);
		live__add(l, name, (uint64_t)(30 - i) * 10000000, 0, 10, 0, true, false);
	}
	live__add_own(l, SEC / 100, SEC / 2, 250, 0, true);
	for (int i = 1; i <= 7; i++)
		fprintf(alerts, "ALERT Warning rule %d: output %d\n", i, i);
	got = print_on_tty(l, 100, 30);
	assert_true(strncmp(got, "\x1b[H\x1b[2J", 7) == 0);
	assert_non_null(strstr(got, "\x1b[J"));
	for (p = got + 7; *p; lines++) {
		char *nl = strchr(p, '\n'), *erase;

		if (!nl)
			break;
		erase = strstr(p, "\x1b[K");
		assert_true(erase && erase < nl); /* every line erased to its end */
		assert_true(drawn_cols(p, erase) < 100);
		p = nl + 1;
	}
	assert_true(lines < 30); /* the last row stays free: nothing scrolls */
	/* the name column is 100 - 1 - 44 wide: a 55-column name whole */
	snprintf(name, sizeof(name), "%-55s %6.1f", "/usr/lib/very/long/path/to/a/daemon/number/00", 30.0);
	assert_non_null(strstr(got, name));
	/* 30 - 16 rows of binaries: number 13 is the last shown */
	assert_non_null(strstr(got, "/number/13 "));
	assert_null(strstr(got, "/number/14 "));
	snprintf(name, sizeof(name), "%-55s %6.1f %7.1f %9.0f", "(plumbline itself)", 1.0, 50.0, 250.0);
	assert_non_null(strstr(got, name));
	assert_non_null(strstr(got, "alerts: 7 so far, the last 5:\x1b[K\nALERT Warning rule 3: output 3\x1b[K\n"));
	assert_non_null(strstr(got, "ALERT Warning rule 7: output 7\x1b[K\n"));
	assert_null(strstr(got, "rule 2:"));
	assert_non_null(strstr(got, "CPU% and WAIT%: time on CPU"));
	free(got);
	/* the next drawing: home, no clear (no flicker), the legend again; a
	 * narrow terminal cuts lines, never wraps them */
	live__add(l, "/usr/bin/a", SEC, 0, 1, 0, true, false);
	got = print_on_tty(l, 60, 24);
	assert_true(strncmp(got, "\x1b[H", 3) == 0 && strncmp(got, "\x1b[H\x1b[2J", 7) != 0);
	for (p = got + 3; (p = strstr(p, "\x1b[K")); p++) {
		char *start = p;

		while (start > got && start[-1] != '\n')
			start--;
		if (start < got + 3)
			start = got + 3;
		assert_true(drawn_cols(start, p) < 60);
	}
	assert_non_null(strstr(got, "CPU% and WAIT%"));
	free(got);
}

/* Plain lines (not a terminal): no escape sequence, the legend only under
 * the first table, the sensor's own row apart. */
static void test_live_plain_has_no_escapes_and_the_legend_once(void **state)
{
	struct live *l = *state;
	char *got;

	live__add(l, "/usr/bin/a", SEC, 0, 1, 0, true, false);
	live__add_own(l, SEC / 10, 0, 5, 0, true);
	got = print_to_string(l, SEC, 1, 0);
	assert_null(strchr(got, '\x1b'));
	assert_non_null(strstr(got, "(plumbline itself)                             10.0     0.0         5         0     1\n"));
	assert_non_null(strstr(got, legend));
	free(got);
	live__add(l, "/usr/bin/a", SEC, 0, 1, 0, true, false);
	got = print_to_string(l, SEC, 1, 0);
	assert_null(strstr(got, "CPU% and WAIT%"));
	assert_null(strstr(got, "plumbline itself"));
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_live_print_orders_rows_by_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_on_a_terminal_redraws_in_place_within_its_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_plain_has_no_escapes_and_the_legend_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_tells_stopped_from_sleeping_waiters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_scales_by_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_resets_for_next_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_skips_idle_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_ties_on_cpu_ordered_by_syscalls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_shows_top_ten_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_add_without_name_counts_as_question_mark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_add_folds_beyond_capacity_into_other, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_add_counts_a_process_once_per_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_add_long_name_accumulates_in_one_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_long_name_shows_its_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_print_hostile_names_one_row_each_no_control_bytes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_live_print_long_escaped_name_is_cut_between_escapes, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("live", tests, NULL, NULL);
}
