/* SPDX-License-Identifier: MIT */
/*
 * io/svg.c: state colours, escaped and measured text, time ticks, and the
 * document around a drawing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "svg.h"

/* What jank_svg_escape() writes for s; the caller frees it. */
static char *escaped(const char *s, size_t max_chars)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	jank_svg_escape(f, s, max_chars);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void check_escape(const char *s, size_t max_chars, const char *want)
{
	char *got = escaped(s, max_chars);

	assert_string_equal(got, want);
	free(got);
}

static void colours(void **state)
{
	(void)state;
	assert_string_equal(jank_svg_state_colour(JANK_STATE_UNKNOWN), "#e0e0e0");
	assert_string_equal(jank_svg_state_colour(JANK_STATE_RUNNING), "#2e7d32");
	assert_string_equal(jank_svg_state_colour(JANK_STATE_PREEMPTED), "#f9a825");
	assert_string_equal(jank_svg_state_colour(JANK_STATE_BLOCK_DEVICE), "#d84315");
	assert_string_equal(jank_svg_state_colour(JANK_STATE_LOCK_WAIT), "#ad1457");
	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		const char *c = jank_svg_state_colour(s);

		assert_non_null(c);
		assert_int_equal(strlen(c), 7);
		assert_int_equal(c[0], '#');
		for (int t = 0; t < s; t++)
			assert_string_not_equal(c, jank_svg_state_colour(t));
	}
	/* Out of range: the colour of unknown. */
	assert_string_equal(jank_svg_state_colour(JANK_STATE_COUNT), "#e0e0e0");
	assert_string_equal(jank_svg_state_colour((enum jank_state) - 1), "#e0e0e0");
	assert_true(jank_svg_light_fill(JANK_STATE_UNKNOWN));
	assert_true(jank_svg_light_fill(JANK_STATE_PREEMPTED));
	assert_true(jank_svg_light_fill(JANK_STATE_USER_INPUT));
	assert_false(jank_svg_light_fill(JANK_STATE_RUNNING));
	assert_false(jank_svg_light_fill(JANK_STATE_BLOCKED));
	assert_false(jank_svg_light_fill(JANK_STATE_LOCK_WAIT));
}

static void escape(void **state)
{
	(void)state;
	check_escape("a&b<c>d\"e'f", 0, "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	check_escape("", 0, "");
	check_escape(NULL, 0, "");
	check_escape(NULL, 3, "");
	/* Tab stays; other controls and DEL become '?'. */
	check_escape("a\tb\nc\rd\x01"
		     "e\x7f",
		     0, "a\tb?c?d?e?");
	/* Valid UTF-8 of 2, 3 and 4 bytes stays. */
	check_escape("é€😀", 0, "é€😀");
	/* Invalid bytes: a stray continuation, 0xff, an overlong form, a surrogate, a cut sequence.
	 */
	check_escape("a\x80z", 0, "a?z");
	check_escape("\xff", 0, "?");
	check_escape("\xc0\xaf", 0, "??");
	check_escape("\xe0\x80\xaf", 0, "???");
	check_escape("\xed\xa0\x80", 0, "???");
	check_escape("\xf4\x90\x80\x80", 0, "????");
	check_escape("x\xe2\x82", 0, "x??");
}

static void escape_cut(void **state)
{
	(void)state;
	check_escape("abcdef", 4, "abc…");
	check_escape("abcdef", 5, "abcd…");
	check_escape("abcdef", 6, "abcdef"); /* fits exactly: no cut */
	check_escape("abcdef", 7, "abcdef");
	check_escape("abcdef", 1, "…");
	check_escape("abcdef", 0, "abcdef");
	/* Characters, not bytes; an escape counts as one. */
	check_escape("ééé€", 3, "éé…");
	check_escape("a&b&c", 3, "a&amp;…");
	check_escape("\xff\xff\xff", 2, "?…");
}

static void text_chars(void **state)
{
	(void)state;
	assert_int_equal(jank_svg_text_chars(""), 0);
	assert_int_equal(jank_svg_text_chars("abc"), 3);
	assert_int_equal(jank_svg_text_chars("é€😀"), 3);
	assert_int_equal(jank_svg_text_chars("a&<"), 3);
	assert_int_equal(jank_svg_text_chars("\xff\xfe"), 2);
	assert_int_equal(jank_svg_text_chars("x\xe2\x82"), 3);
	assert_true(jank_svg_text_w(0, 12) == 0.0);
	assert_true(jank_svg_text_w(10, 10) > 61.99 && jank_svg_text_w(10, 10) < 62.01);
	assert_true(jank_svg_text_w(5, 0) == 0.0);
	assert_true(jank_svg_text_w(20, 11) > jank_svg_text_w(19, 11));
}

static void ticks(void **state)
{
	static const struct {
		int64_t span;
		int64_t step;
	} cases[] = {
		{ 0, 1 },
		{ -5, 1 },
		{ INT64_MIN, 1 },
		{ 1, 1 },
		{ 8, 1 },
		{ 9, 2 },
		{ 16, 2 },
		{ 18, 5 },
		{ 40, 5 },
		{ 45, 10 },
		{ 80, 10 },
		{ 81, 10 },
		{ 90, 20 },
		{ 1000000000, 200000000 },
		{ 16000000, 2000000 },
		{ 4000000000000000000, 500000000000000000 },
		{ 4500000000000000000, 1000000000000000000 },
		{ INT64_MAX, 2000000000000000000 },
	};
	int64_t div;
	const char *unit;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t step = jank_svg_tick_step(cases[i].span);

		if (step != cases[i].step)
			fail_msg("span %lld: step %lld, want %lld", (long long)cases[i].span,
				 (long long)step, (long long)cases[i].step);
	}
	jank_svg_tick_unit(0, &div, &unit);
	assert_int_equal(div, 1);
	assert_string_equal(unit, "ns");
	jank_svg_tick_unit(999, &div, &unit);
	assert_int_equal(div, 1);
	assert_string_equal(unit, "ns");
	jank_svg_tick_unit(1000, &div, &unit);
	assert_int_equal(div, 1000);
	assert_string_equal(unit, "µs");
	jank_svg_tick_unit(999999, &div, &unit);
	assert_int_equal(div, 1000);
	jank_svg_tick_unit(1000000, &div, &unit);
	assert_int_equal(div, 1000000);
	assert_string_equal(unit, "ms");
	jank_svg_tick_unit(1000000000, &div, &unit);
	assert_int_equal(div, 1000000000);
	assert_string_equal(unit, "s");
	jank_svg_tick_unit(INT64_MAX, &div, &unit);
	assert_string_equal(unit, "s");
}

static void document(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	jank_svg_begin(f, 640, 120.4, "a<b & \"c\"");
	assert_int_equal(jank_svg_end(f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
				 "width=\"640\" height=\"120\" viewBox=\"0 0 640 120\" "
				 "font-family=\"" JANK_SVG_FONT "\">\n"
				 "<title>a&lt;b &amp; &quot;c&quot;</title>\n"
				 "<rect width=\"640\" height=\"120\" fill=\"#ffffff\"/>\n"
				 "</svg>\n");
	free(buf);
	/* A stream that cannot be written: -EIO. */
	f = fopen("/dev/null", "r");
	assert_non_null(f);
	jank_svg_begin(f, 1, 1, "");
	assert_int_equal(jank_svg_end(f), -EIO);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(colours),    cmocka_unit_test(escape),
		cmocka_unit_test(escape_cut), cmocka_unit_test(text_chars),
		cmocka_unit_test(ticks),      cmocka_unit_test(document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
