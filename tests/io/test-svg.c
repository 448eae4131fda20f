/* SPDX-License-Identifier: MIT */
/*
 * io/svg.c: state colours, escaped and measured text, time ticks, and the
 * document around a drawing; io/critpath-svg.c: the functions of a path's
 * segments in the critical-path picture.
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
#include "critpath-svg.h"
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
	/* What XML 1.0 cannot carry, and C1 controls: one '?' per character. */
	check_escape("a\xef\xbf\xbf"
		     "b\xef\xbf\xbe"
		     "c\xc2\x85"
		     "d\xc2\x9b",
		     0, "a?b?c?d?");
	check_escape("\xef\xbf\xbd\xf4\x8f\xbf\xbf\xc2\xa0", 0,
		     "\xef\xbf\xbd\xf4\x8f\xbf\xbf\xc2\xa0");
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

/* A segment of tid 42 over [b, e] in stack `stack`, added to p. */
static void add_seg(struct jank_path *p, uint8_t state, int64_t b, int64_t e, uint32_t stack)
{
	struct jank_segment *sg;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->segs = realloc(p->segs, p->cap * sizeof(*p->segs));
		assert_non_null(p->segs);
	}
	sg = &p->segs[p->n++];
	memset(sg, 0, sizeof(*sg));
	sg->tid = 42;
	sg->state = state;
	sg->begin = b;
	sg->end = e;
	sg->stack = stack;
	snprintf(sg->comm, sizeof(sg->comm), "app");
}

/* The critical-path picture of a path whose segments are in functions. */
static char *critpath_picture(const char *inner)
{
	struct jank_rule rule = { .name = "req" };
	struct jank_verdict v = { 0 };
	struct jank_path p;
	uint32_t f[3], outer, deep, hostile;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	jank_path_init(&p);
	f[0] = jank_path_frame(&p, 0, 7, false, "run_task");
	f[1] = jank_path_frame(&p, 0, 7, false, "compute_price");
	f[2] = jank_path_frame(&p, 0, 7, false, "apply_discounts");
	outer = jank_path_stack(&p, f, 1);
	deep = jank_path_stack(&p, f, 3);
	f[2] = jank_path_frame(&p, 0, 7, false, inner);
	hostile = jank_path_stack(&p, f, 3);
	assert_true(outer && deep && hostile);
	p.tid = 42;
	p.begin = 0;
	p.end = 40000000;
	add_seg(&p, JANK_STATE_RUNNING, 0, 5000000, outer);
	add_seg(&p, JANK_STATE_RUNNING, 5000000, 30000000, deep);
	add_seg(&p, JANK_STATE_PREEMPTED, 30000000, 30100000, hostile); /* 3 px: no label */
	add_seg(&p, JANK_STATE_RUNNING, 30100000, 38000000, hostile);
	add_seg(&p, JANK_STATE_TIMER, 38000000, 40000000, 0);
	v.kind = JANK_VERDICT_COMPLETED;
	v.rule = &rule;
	v.key = "id=1";
	v.end = v.duration = 40000000;
	v.threshold = 10000000;
	v.over_threshold = true;
	v.tid = 42;
	v.comm = "app";
	v.path = &p;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(jank_svg_critpath(out, &v, NULL, "sub"), 0);
	assert_int_equal(fclose(out), 0);
	jank_path_fini(&p);
	return buf;
}

static void critpath_functions(void **state)
{
	char *svg = critpath_picture("evil<&>\"'fn");

	(void)state;
	/* Each segment: its innermost function inside, its whole stack in its tooltip. */
	assert_non_null(strstr(svg, ">run_task</text>"));
	assert_non_null(strstr(svg, ">apply_discounts · running 25.0 ms</text>"));
	assert_non_null(strstr(svg, "<title>tid 42 (app): running 25.0 ms in apply_discounts ← "
				    "compute_price ← run_task</title>"));
	assert_non_null(strstr(svg, "<title>tid 42 (app): running 5.00 ms in run_task</title>"));
	/* A traced function name is escaped, in the bar and in the tooltip. */
	assert_non_null(strstr(svg, ">evil&lt;&amp;&gt;&quot;&apos;fn · 7.90 ms</text>"));
	assert_non_null(strstr(svg, "preempted 100 us in evil&lt;&amp;&gt;&quot;&apos;fn ← "
				    "compute_price ← run_task</title>"));
	assert_null(strstr(svg, "evil<"));
	/* A segment without a stack: its state and duration only. */
	assert_non_null(strstr(svg, "<title>tid 42 (app): timer 2.00 ms</title>"));
	/* The lane names the functions its thread spent the most time in. */
	assert_non_null(
		strstr(svg, "<g class=\"lane\" data-tid=\"42\">\n<title>tid 42 (app): "
			    "40.0 ms on the path, most in apply_discounts 25.0 ms, "
			    "evil&lt;&amp;&gt;&quot;&apos;fn 8.00 ms, run_task 5.00 ms</title>"));
	free(svg);
	/* A name too long for its bar is cut to it. */
	svg = critpath_picture("a_function_whose_name_is_much_too_long_for_its_bar_of_eight_"
			       "milliseconds_in_a_forty_millisecond_picture_of_this_width");
	assert_non_null(strstr(svg, "<text class=\"function\" "));
	assert_non_null(strstr(svg, ">a_function_whose_name"));
	assert_non_null(strstr(svg, "…</text>"));
	assert_null(strstr(svg, "this_width</text>"));
	assert_non_null(strstr(svg, "this_width ← compute_price ← run_task</title>"));
	free(svg);
}

/* Tid 42 of two hosts: a lane each, named with its host (escaped: a trace's name). */
static void critpath_hosts(void **state)
{
	struct jank_rule rule = { .name = "req" };
	struct jank_verdict v = { 0 };
	struct jank_path p;
	uint32_t alpha, beta;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	jank_path_init(&p);
	alpha = jank_path_host(&p, "alpha");
	beta = jank_path_host(&p, "be<ta");
	assert_true(alpha && beta);
	p.tid = 42;
	p.end = 40000000;
	add_seg(&p, JANK_STATE_RUNNING, 0, 5000000, 0);
	add_seg(&p, JANK_STATE_RUNNING, 5000000, 30000000, 0);
	add_seg(&p, JANK_STATE_BLOCKED, 30000000, 40000000, 0);
	p.segs[0].host = alpha;
	p.segs[1].host = beta;
	p.segs[2].host = alpha;
	v.kind = JANK_VERDICT_COMPLETED;
	v.rule = &rule;
	v.end = v.duration = 40000000;
	v.tid = 42;
	v.comm = "app";
	v.path = &p;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(jank_svg_critpath(out, &v, NULL, "hosts"), 0);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(buf, ">tid 42 on alpha (action)</text>"));
	assert_non_null(strstr(buf, ">tid 42 on be&lt;ta</text>"));
	assert_null(strstr(buf, "be<ta"));
	/* Two lanes, each with its own time on the path. */
	assert_non_null(strstr(buf, "app · 15.0 ms</text>"));
	assert_non_null(strstr(buf, "app · 25.0 ms</text>"));
	free(buf);
	jank_path_fini(&p);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/*
 * A path over three hosts: each host's lanes together, the action's host
 * first, then by appearance; named at their top, a dashed line between two
 * hosts' lanes.
 */
static void critpath_host_groups(void **state)
{
	static const struct {
		const char *host;
		int32_t tid;
		int64_t b, e;
	} segs[] = {
		{ "alpha", 5, 0, 2 },  { "beta", 42, 2, 10 },	{ "gamma", 7, 10, 20 },
		{ "beta", 9, 20, 25 }, { "alpha", 42, 25, 40 },
	};
	static const char *const order[] = { ">tid 42 on alpha (action)<", ">tid 5 on alpha<",
					     ">tid 42 on beta<", ">tid 9 on beta<",
					     ">tid 7 on gamma<" };
	struct jank_rule rule = { .name = "req" };
	struct jank_verdict v = { 0 };
	struct jank_path p;
	const char *at;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	jank_path_init(&p);
	for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
		add_seg(&p, JANK_STATE_RUNNING, segs[i].b * 1000000, segs[i].e * 1000000, 0);
		p.segs[i].tid = segs[i].tid;
		p.segs[i].host = jank_path_host(&p, segs[i].host);
		assert_true(p.segs[i].host);
	}
	p.tid = 42;
	p.end = 40000000;
	v.kind = JANK_VERDICT_COMPLETED;
	v.rule = &rule;
	v.end = v.duration = 40000000;
	v.tid = 42;
	v.comm = "app";
	v.path = &p;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(jank_svg_critpath(out, &v, NULL, "groups"), 0);
	assert_int_equal(fclose(out), 0);
	at = buf;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *x = strstr(buf, order[i]);

		assert_non_null(x);
		assert_true(x > at);
		at = x;
	}
	assert_int_equal(count(buf, "class=\"host-separator\""), 3);
	assert_int_equal(count(buf, "stroke-dasharray=\"6 3\""), 2);
	assert_non_null(strstr(buf, "data-host=\"gamma\""));
	assert_non_null(strstr(buf, ">host beta</text>"));
	free(buf);
	/* One host: no separator. */
	for (size_t i = 0; i < p.n; i++)
		p.segs[i].host = 0;
	buf = NULL;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(jank_svg_critpath(out, &v, NULL, "one"), 0);
	assert_int_equal(fclose(out), 0);
	assert_null(strstr(buf, "host-separator"));
	free(buf);
	jank_path_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(colours),
		cmocka_unit_test(escape),
		cmocka_unit_test(escape_cut),
		cmocka_unit_test(text_chars),
		cmocka_unit_test(ticks),
		cmocka_unit_test(document),
		cmocka_unit_test(critpath_functions),
		cmocka_unit_test(critpath_hosts),
		cmocka_unit_test(critpath_host_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
