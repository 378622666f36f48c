// SPDX-License-Identifier: MIT
/*
 * test_flamegraph.c - stacks merged by prefix into exactly the boxes and
 * widths they should give; which frames are one box and which are two; the
 * bounds, with a failed add leaving the graph as it was; the width measure
 * (DejaVu Sans's advances); and the SVG: labels whole where they fit and
 * cut where they do not, without splitting an escape, hover titles, the
 * grey boxes' explanations, colours by object, new frames purple, and
 * hostile names that stay text (no element, no control byte, no invalid
 * UTF-8, nothing XML refuses).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flamegraph.h"

#define U(obj, fn) ((struct fg_frame){ .kind = FG_USER, .object = (obj), .function = (fn) })
#define UO(obj, off) ((struct fg_frame){ .kind = FG_USER, .object = (obj), .offset = (off) })
#define K(fn) ((struct fg_frame){ .kind = FG_KERNEL, .object = "[kernel]", .function = (fn) })

static struct flamegraph *new_fg(void)
{
	struct flamegraph *fg = NULL;

	assert_int_equal(flamegraph__new(&fg), 0);
	return fg;
}

static void add(struct flamegraph *fg, uint64_t samples, size_t n, const struct fg_frame *frames)
{
	assert_int_equal(flamegraph__add(fg, frames, n, samples), 0);
}

static void expect_box(struct flamegraph *fg, size_t i, double plot, const char *name, unsigned depth,
		       uint64_t samples, double x, double width)
{
	struct fg_box b;

	assert_int_equal(flamegraph__box(fg, i, plot, &b), 0);
	assert_string_equal(b.name, name);
	assert_int_equal(b.depth, depth);
	assert_int_equal(b.samples, samples);
	/* samples / total * plot with these numbers is exact in binary */
	if (b.x != x || b.width != width)
		fail_msg("box %zu (%s): x %g width %g, want x %g width %g", i, name, b.x, b.width, x, width);
}

/* The whole SVG of fg as a string (caller frees). */
static char *svg_of(struct flamegraph *fg, const struct fg_svg_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(flamegraph__write_svg(fg, opts, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static void expect_in(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected \"%s\" in:\n%s", needle, hay);
}

/* ---- merging and layout ---- */

static void test_flamegraph_merges_stacks_by_prefix_with_exact_widths(void **state)
{
	struct flamegraph *fg = new_fg();

	add(fg, 100, 3, (struct fg_frame[]){ U("/bin/m", "main"), U("/lib/a.so", "f"), U("/lib/a.so", "g") });
	add(fg, 60, 3, (struct fg_frame[]){ U("/bin/m", "main"), U("/lib/a.so", "f"), U("/lib/a.so", "h") });
	add(fg, 40, 2, (struct fg_frame[]){ U("/bin/m", "main"), U("/lib/a.so", "k") });
	assert_int_equal(flamegraph__count(fg), 6);
	assert_int_equal(flamegraph__total(fg), 200);
	expect_box(fg, 0, 1000, "all", 0, 200, 0, 1000);
	expect_box(fg, 1, 1000, "main", 1, 200, 0, 1000);
	expect_box(fg, 2, 1000, "f", 2, 160, 0, 800);
	expect_box(fg, 3, 1000, "g", 3, 100, 0, 500);
	expect_box(fg, 4, 1000, "h", 3, 60, 500, 300);
	expect_box(fg, 5, 1000, "k", 2, 40, 800, 200);
	/* the same layout at another scale, and the same again after more stacks */
	expect_box(fg, 4, 100, "h", 3, 60, 50, 30);
	add(fg, 200, 1, (struct fg_frame[]){ U("/bin/m", "aaa") });
	expect_box(fg, 1, 1000, "aaa", 1, 200, 0, 500);
	expect_box(fg, 2, 1000, "main", 1, 200, 500, 500);
	expect_box(fg, 6, 1000, "k", 2, 40, 900, 100);
	{
		struct fg_box b = { .name = "untouched" };

		assert_int_equal(flamegraph__box(fg, 7, 1000, &b), -ERANGE);
		assert_string_equal(b.name, "untouched");
	}
	flamegraph__free(fg);
}

static void test_flamegraph_orders_siblings_by_name_not_by_weight(void **state)
{
	struct flamegraph *fg = new_fg();

	add(fg, 90, 1, (struct fg_frame[]){ U("/bin/m", "zeta") });
	add(fg, 10, 1, (struct fg_frame[]){ U("/bin/m", "alpha") });
	expect_box(fg, 1, 1000, "alpha", 1, 10, 0, 100);
	expect_box(fg, 2, 1000, "zeta", 1, 90, 100, 900);
	flamegraph__free(fg);
}

static void test_flamegraph_one_box_per_function_object_and_kind(void **state)
{
	struct flamegraph *fg = new_fg();
	struct fg_frame a1 = U("/lib/a.so", "f"), a2 = U("/lib/a.so", "f"), b = U("/lib/b.so", "f");
	struct fg_box box;

	a1.offset = 0x10;
	a2.offset = 0x20; /* the same function at another instruction: the same box */
	add(fg, 1, 1, &a1);
	add(fg, 2, 1, &a2);
	add(fg, 4, 1, &b); /* the same name in another object: another box */
	add(fg, 8, 1, (struct fg_frame[]){ UO("/lib/a.so", 0x1a2b) });
	add(fg, 16, 1, (struct fg_frame[]){ UO("/lib/a.so", 0x1a2c) }); /* unnamed code of a.so: one box */
	add(fg, 32, 1, (struct fg_frame[]){ K("f") });			/* a kernel f is not a user f */
	add(fg, 64, 1, (struct fg_frame[]){ { .kind = FG_OTHER, .function = "[other stacks]" } });
	assert_int_equal(flamegraph__count(fg), 1 + 5);
	expect_box(fg, 1, 127, "[other stacks]", 1, 64, 0, 64);
	expect_box(fg, 2, 127, "[unknown] (a.so)", 1, 24, 64, 24);
	/* three boxes named f, ordered by object ("/lib/a.so" < "/lib/b.so" < "[kernel]") */
	expect_box(fg, 3, 127, "f", 1, 3, 88, 3);
	assert_int_equal(flamegraph__box(fg, 3, 127, &box), 0);
	assert_string_equal(box.object, "/lib/a.so");
	assert_int_equal(box.kind, FG_USER);
	expect_box(fg, 4, 127, "f", 1, 4, 91, 4);
	assert_int_equal(flamegraph__box(fg, 4, 127, &box), 0);
	assert_string_equal(box.object, "/lib/b.so");
	expect_box(fg, 5, 127, "f", 1, 32, 95, 32);
	assert_int_equal(flamegraph__box(fg, 5, 127, &box), 0);
	assert_int_equal(box.kind, FG_KERNEL);
	flamegraph__free(fg);
}

/* Merged by function under the same parent only: the same function under
 * two callers is two boxes; unnamed code merges per object and kind, and a
 * merged box is new when a frame merged into it was. */
static void test_flamegraph_merges_by_function_under_one_parent_only(void **state)
{
	struct flamegraph *fg = new_fg();
	struct fg_frame f10 = U("/lib/a.so", "f"), f20 = U("/lib/a.so", "f"), fnew = U("/lib/a.so", "g");
	struct fg_box box;
	char *svg;

	f10.offset = 0x10;
	f20.offset = 0x20;
	fnew.is_new = true;
	add(fg, 2, 2, (struct fg_frame[]){ U("/bin/m", "main"), f10 });
	add(fg, 3, 2, (struct fg_frame[]){ U("/bin/m", "main"), f20 });
	add(fg, 5, 2, (struct fg_frame[]){ U("/bin/m", "other"), f10 }); /* another parent: another box */
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), UO("/lib/a.so", 0x100) });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), UO("/lib/a.so", 0x100) });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "other"), UO("/lib/a.so", 0x100) });
	add(fg, 4, 3, (struct fg_frame[]){ U("/bin/m", "main"), f10, fnew });
	add(fg, 4, 3, (struct fg_frame[]){ U("/bin/m", "main"), f20, U("/lib/a.so", "g") });
	/* all, main, other; under main: [unknown] (a.so), f; under f: g; under other: [unknown], f */
	assert_int_equal(flamegraph__count(fg), 8);
	expect_box(fg, 1, 21, "main", 1, 15, 0, 15);
	expect_box(fg, 2, 21, "[unknown] (a.so)", 2, 2, 0, 2);
	expect_box(fg, 3, 21, "f", 2, 13, 2, 13);
	expect_box(fg, 4, 21, "g", 3, 8, 2, 8);
	assert_int_equal(flamegraph__box(fg, 4, 21, &box), 0);
	assert_true(box.is_new);
	assert_int_equal(flamegraph__box(fg, 3, 21, &box), 0);
	assert_false(box.is_new);
	expect_box(fg, 5, 21, "other", 1, 6, 15, 6);
	expect_box(fg, 6, 21, "[unknown] (a.so)", 2, 1, 15, 1);
	expect_box(fg, 7, 21, "f", 2, 5, 16, 5);
	svg = svg_of(fg, NULL);
	/* one offset merged: the hover names it; two: only the function */
	expect_in(svg, "<title>[unknown] (a.so+0x100)\n/lib/a.so\n2 samples, 9.52%</title>");
	expect_in(svg, "<title>f (a.so)\n/lib/a.so\n13 samples, 61.90%</title>");
	expect_in(svg, "<title>f (a.so+0x10)\n/lib/a.so\n5 samples, 23.81%</title>");
	expect_in(svg, "<title>g (a.so+0x0)\n/lib/a.so\n8 samples, 38.10%\nnew: the baseline never saw this function on "
		       "CPU</title>");
	expect_in(svg, "purple: new, a function the baseline never saw on CPU");
	free(svg);
	flamegraph__free(fg);
}

/* The widths of DejaVu Sans at 12 px: each advance rounded up to 1/64 px
 * (what Chromium lays out), an escape as its four characters, any other
 * code point one em. */
static void test_fg_text_width_sums_dejavu_sans_advances(void **state)
{
	/* 'a' 1255/2048 em: 7.353 px, 7.359375 rounded up to 1/64 */
	assert_true(fg_text_width("a", 1, 12) == 7.359375);
	/* "abcdefghij": 62.765625 (the sum of the ten rounded advances) */
	assert_true(fg_text_width("abcdefghij", 10, 12) == 62.765625);
	assert_true(fg_text_width("abcdefghij", 3, 12) == fg_text_width("abc", 3, 12));
	/* 'i' is narrow, 'W' wide: a monospace guess gets both wrong */
	assert_true(fg_text_width("i", 1, 12) == 3.34375);
	assert_true(fg_text_width("W", 1, 12) == 11.875);
	/* "\x1B": '\\' 4.046875 + 'x' 7.109375 + '1' 7.640625 + 'B' 8.234375 */
	assert_true(fg_text_width("\\x1B", 4, 12) == 27.03125);
	/* U+00E9 (2 bytes), U+20AC (3 bytes): an em each */
	assert_true(fg_text_width("\xc3\xa9\xe2\x82\xac", 5, 12) == 24);
	/* at 16 px, the title's size */
	assert_true(fg_text_width("a", 1, 16) == 9.8125);
	assert_true(fg_text_width("", 0, 12) == 0);
}

static void test_flamegraph_refuses_bad_frames_and_overflow_unchanged(void **state)
{
	static struct fg_frame deep[FG_MAX_DEPTH + 1];
	struct flamegraph *fg = new_fg();

	for (size_t i = 0; i <= FG_MAX_DEPTH; i++)
		deep[i] = U("/bin/m", "f");
	assert_int_equal(flamegraph__add(fg, deep, FG_MAX_DEPTH + 1, 1), -E2BIG);
	assert_int_equal(flamegraph__add(fg, (struct fg_frame[]){ U(NULL, "f") }, 1, 1), -EINVAL);
	assert_int_equal(flamegraph__add(fg, (struct fg_frame[]){ { .kind = FG_OTHER, .object = "/x", .function = "y" } },
					 1, 1),
			 -EINVAL);
	assert_int_equal(flamegraph__add(fg, (struct fg_frame[]){ { .kind = FG_OTHER } }, 1, 1), -EINVAL);
	assert_int_equal(flamegraph__add(fg, (struct fg_frame[]){ { .kind = 7, .object = "/x", .function = "y" } }, 1, 1),
			 -EINVAL);
	/* a bad frame after good ones: nothing of the stack is kept */
	assert_int_equal(flamegraph__add(fg, (struct fg_frame[]){ U("/bin/m", "main"), U(NULL, "f") }, 2, 1), -EINVAL);
	assert_int_equal(flamegraph__count(fg), 1);
	assert_int_equal(flamegraph__total(fg), 0);
	/* exactly as deep as allowed is fine */
	add(fg, UINT64_MAX / 2 - 1, FG_MAX_DEPTH, deep);
	assert_int_equal(flamegraph__count(fg), 1 + FG_MAX_DEPTH);
	add(fg, 1, 0, NULL); /* samples of the root alone */
	assert_int_equal(flamegraph__total(fg), UINT64_MAX / 2);
	assert_int_equal(flamegraph__add(fg, deep, 1, 1), -EOVERFLOW);
	assert_int_equal(flamegraph__total(fg), UINT64_MAX / 2);
	flamegraph__free(fg);
}

/* Full: the stack that would pass FG_MAX_NODES is undone, and the graph
 * still takes a stack that fits exactly. */
static void test_flamegraph_node_limit_rolls_back_a_stack_that_does_not_fit(void **state)
{
	static struct fg_frame frames[FG_MAX_DEPTH];
	static char names[FG_MAX_DEPTH][24];
	struct flamegraph *fg = new_fg();
	size_t full = (FG_MAX_NODES - 1) / FG_MAX_DEPTH; /* 31 stacks of 512 new frames fit */
	struct fg_box b;

	for (size_t s = 0; s <= full; s++) {
		for (size_t i = 0; i < FG_MAX_DEPTH; i++) {
			snprintf(names[i], sizeof(names[i]), "s%zu_f%zu", s, i);
			frames[i] = U("/bin/m", names[i]);
		}
		if (s < full) {
			add(fg, 1, FG_MAX_DEPTH, frames);
			continue;
		}
		assert_int_equal(flamegraph__count(fg), 1 + full * FG_MAX_DEPTH);
		assert_int_equal(flamegraph__add(fg, frames, FG_MAX_DEPTH, 1), -ENOSPC);
		assert_int_equal(flamegraph__count(fg), 1 + full * FG_MAX_DEPTH);
		assert_int_equal(flamegraph__total(fg), full);
		/* what is left: FG_MAX_NODES - 1 - full * 512 = 511 nodes */
		add(fg, 1, FG_MAX_NODES - 1 - full * FG_MAX_DEPTH, frames);
	}
	assert_int_equal(flamegraph__count(fg), FG_MAX_NODES);
	assert_int_equal(flamegraph__add(fg, (struct fg_frame[]){ U("/bin/m", "one more") }, 1, 1), -ENOSPC);
	/* an existing path takes samples without new nodes */
	add(fg, 1, 1, (struct fg_frame[]){ U("/bin/m", "s0_f0") });
	expect_box(fg, 1, 0, "s0_f0", 1, 2, 0, 0);
	/* the last stack was kept whole: s31_f0 with its 510 callees, one below the other */
	for (size_t i = 0; i < FG_MAX_NODES; i++) {
		assert_int_equal(flamegraph__box(fg, i, 0, &b), 0);
		if (strcmp(b.name, "s31_f0") != 0)
			continue;
		assert_int_equal(b.depth, 1);
		assert_int_equal(b.samples, 1);
		assert_int_equal(flamegraph__box(fg, i + 510, 0, &b), 0);
		assert_string_equal(b.name, "s31_f510");
		assert_int_equal(b.depth, 511);
		assert_int_equal(flamegraph__box(fg, i + 511, 0, &b), 0);
		assert_int_equal(b.depth, 1);
		break;
	}
	assert_int_equal(b.depth, 1);
	flamegraph__free(fg);
}

/* ---- SVG ---- */

static void test_flamegraph_svg_cuts_labels_to_fit_without_splitting_an_escape(void **state)
{
	struct flamegraph *fg = new_fg();
	char *svg;

	/* plot 1000 px, total 100: 8 samples are 80 px, 74 px between the paddings */
	add(fg, 8, 1, (struct fg_frame[]){ U("/bin/m", "WWWWWWWWWW") });	     /* 118.75 px: cut */
	add(fg, 8, 1, (struct fg_frame[]){ U("/bin/m", "abcdef\x1bxyz") });	     /* 88.41 px escaped */
	add(fg, 8, 1, (struct fg_frame[]){ U("/bin/m", "iiiiiiiiiiiiiiiiiiiiii") }); /* 22 i: 73.56 px, fits */
	add(fg, 76, 1, (struct fg_frame[]){ U("/bin/m", "other") });
	svg = svg_of(fg, &(struct fg_svg_opts){ .width = 1020 });
	expect_in(svg, "<rect x=\"10.00\" y=\"60\" width=\"80.00\" height=\"15\"");
	/* 74 - 7.66 for "..": five W (59.38 px), not six (71.25) */
	expect_in(svg, "<text x=\"13.00\" y=\"71.5\">WWWWW..</text>");
	/* "abcdef" is 40.84 px, the escape 27.03 more: past 66.34, so it goes whole */
	expect_in(svg, "<text x=\"93.00\" y=\"71.5\">abcdef..</text>");
	expect_in(svg, "<text x=\"173.00\" y=\"71.5\">iiiiiiiiiiiiiiiiiiiiii</text>");
	/* the hover text has it all */
	expect_in(svg, "<title>abcdef\\x1Bxyz (m+0x0)\n/bin/m\n8 samples, 8.00%</title>");
	expect_in(svg, "<title>all\n100 samples, 100.00%</title>");
	expect_in(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"1020\" height=\"122\"");
	free(svg);
	flamegraph__free(fg);
}

/* "rgb(r,g,b)" of the box whose title starts with title. */
static void fill_of(const char *svg, const char *title, unsigned rgb[3])
{
	const char *p = strstr(svg, title);

	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%u,%u,%u)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

static void test_flamegraph_svg_colours_by_object_kernel_blue(void **state)
{
	struct flamegraph *fg = new_fg();
	unsigned f[3], g[3], m[3], k[3];
	char *svg;

	add(fg, 1, 3, (struct fg_frame[]){ U("/bin/m", "main"), U("/lib/a.so", "f"), K("irq") });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), U("/lib/a.so", "g") });
	svg = svg_of(fg, NULL);
	fill_of(svg, "<title>f (a.so", f);
	fill_of(svg, "<title>g (a.so", g);
	fill_of(svg, "<title>main (m", m);
	fill_of(svg, "<title>irq ([kernel]", k);
	assert_memory_equal(f, g, sizeof(f));			 /* one object, one colour */
	assert_memory_not_equal(f, m, sizeof(f));		 /* another object, another */
	assert_true(f[0] >= 205 && f[2] <= 55 && m[0] >= 205); /* warm */
	assert_true(k[2] >= 215 && k[0] <= 110);		 /* blue */
	assert_false(strstr(svg, "purple")); /* the legend names only the colours drawn */
	/* and the same next time: the hash is stable */
	{
		char *again = svg_of(fg, NULL);

		assert_string_equal(svg, again);
		free(again);
	}
	free(svg);
	flamegraph__free(fg);
}

/* Every '<' of svg opens or closes one of the writer's own elements. */
static void expect_only_own_elements(const char *svg)
{
	static const char *const ok[] = { "<?xml ", "<svg ", "</svg>", "<style>", "</style>", "<rect ", "<text ",
					  "</text>", "<g class=\"n\">", "</g>", "<title>", "</title>" };

	for (const char *p = strchr(svg, '<'); p; p = strchr(p + 1, '<')) {
		bool known = false;

		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]) && !known; i++)
			known = strncmp(p, ok[i], strlen(ok[i])) == 0;
		if (!known)
			fail_msg("unexpected markup at: %.40s", p);
	}
}

static void test_flamegraph_svg_keeps_hostile_names_as_text(void **state)
{
	static const char evil_obj[] = "/tmp/evil&\"q'/lib<x>.so";
	struct flamegraph *fg = new_fg();
	char *svg;

	add(fg, 5, 2,
	    (struct fg_frame[]){ U("/bin/m", "main"), U(evil_obj, "<script>alert(1)</script>") });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), U("/bin/m", "esc\x1b[31m&;'\"") });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), U("/bin/m", "nc\xef\xbf\xbe\xef\xbf\xbf") });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), U("/bin/m", "bad\xff\xc0 utf8") });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), U("/bin/m", "line\nbreak]]>") });
	add(fg, 1, 2, (struct fg_frame[]){ U("/bin/m", "main"), UO("/x/<img src=x>", 0x10) });
	svg = svg_of(fg, &(struct fg_svg_opts){ .title = "<svg onload=alert(1)>", .subtitle = "a&b \x07 \"c\"" });
	expect_only_own_elements(svg);
	for (const unsigned char *p = (const unsigned char *)svg; *p; p++)
		if (*p != '\n' && (*p < 0x20 || *p >= 0x7f))
			fail_msg("byte 0x%02x in the SVG at offset %td", *p, (const char *)p - svg);
	expect_in(svg, "&lt;script&gt;alert(1)&lt;/script&gt; (lib&lt;x&gt;.so+0x0)\n"
		       "/tmp/evil&amp;&quot;q&apos;/lib&lt;x&gt;.so\n5 samples, 50.00%");
	expect_in(svg, "<title>esc\\x1B[31m&amp;;&apos;&quot; (m+0x0)");
	expect_in(svg, "<title>nc\\xEF\\xBF\\xBE\\xEF\\xBF\\xBF (m+0x0)");
	expect_in(svg, "<title>bad\\xFF\\xC0 utf8 (m+0x0)");
	expect_in(svg, "<title>line\\x0Abreak]]&gt; (m+0x0)");
	expect_in(svg, "<title>[unknown] (&lt;img src=x&gt;+0x10)\n/x/&lt;img src=x&gt;\n");
	expect_in(svg, ">[unknown] (&lt;im..</text>"); /* 118 px: cut, never inside an entity */
	expect_in(svg, ">&lt;svg onload=alert(1)&gt;</text>");
	expect_in(svg, ">a&amp;b \\x07 &quot;c&quot;</text>");
	free(svg);
	flamegraph__free(fg);
}

/* A grey box says what it holds in its hover text, never in an attribute. */
static void test_flamegraph_svg_grey_boxes_explain_themselves(void **state)
{
	struct flamegraph *fg = new_fg();
	char *svg;

	add(fg, 6, 1, (struct fg_frame[]){ U("/bin/m", "main") });
	add(fg, 3, 1,
	    (struct fg_frame[]){ { .kind = FG_OTHER, .function = "[stack not kept]", .detail = "2 ring <full>, 1 table" } });
	add(fg, 1, 1, (struct fg_frame[]){ { .kind = FG_OTHER, .function = "[other stacks]" } });
	svg = svg_of(fg, NULL);
	expect_in(svg, "<title>[stack not kept]\n2 ring &lt;full&gt;, 1 table\n3 samples, 30.00%</title>");
	expect_in(svg, "<title>[other stacks]\n1 sample, 10.00%</title>");
	expect_only_own_elements(svg);
	free(svg);
	flamegraph__free(fg);
}

static void test_fg_xml_text_escapes_markup_controls_and_xml_nonchars(void **state)
{
	static const char in[] = "a<b>&\"'\x1b\\\xef\xbf\xbf\xe2\x82\xac";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fg_xml_text(f, in, sizeof(in) - 1), 0);
	assert_int_equal(fclose(f), 0);
	/* the euro sign is valid UTF-8 and an XML character: kept */
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;&apos;\\x1B\\x5C\\xEF\\xBF\\xBF\xe2\x82\xac");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flamegraph_merges_stacks_by_prefix_with_exact_widths),
		cmocka_unit_test(test_flamegraph_orders_siblings_by_name_not_by_weight),
		cmocka_unit_test(test_flamegraph_one_box_per_function_object_and_kind),
		cmocka_unit_test(test_flamegraph_merges_by_function_under_one_parent_only),
		cmocka_unit_test(test_fg_text_width_sums_dejavu_sans_advances),
		cmocka_unit_test(test_flamegraph_refuses_bad_frames_and_overflow_unchanged),
		cmocka_unit_test(test_flamegraph_node_limit_rolls_back_a_stack_that_does_not_fit),
		cmocka_unit_test(test_flamegraph_svg_cuts_labels_to_fit_without_splitting_an_escape),
		cmocka_unit_test(test_flamegraph_svg_colours_by_object_kernel_blue),
		cmocka_unit_test(test_flamegraph_svg_keeps_hostile_names_as_text),
		cmocka_unit_test(test_flamegraph_svg_grey_boxes_explain_themselves),
		cmocka_unit_test(test_fg_xml_text_escapes_markup_controls_and_xml_nonchars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
