/* SPDX-License-Identifier: MIT */
/* lib/textsafe.c: traced strings escaped for text, made valid UTF-8, cut on characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "textsafe.h"

static const char *esc(const char *s, size_t max)
{
	static char buf[1024];

	jank_text_escape(buf, sizeof(buf), s, strlen(s), max);
	return buf;
}

static const char *san(const char *s, size_t max)
{
	static char buf[1024];

	jank_utf8_sanitize(buf, sizeof(buf), s, strlen(s), max);
	return buf;
}

static void escape(void **state)
{
	(void)state;
	assert_string_equal(esc("frame", 0), "frame");
	assert_string_equal(esc("", 0), "");
	assert_string_equal(esc("a\nb", 0), "a\\x0ab");
	assert_string_equal(esc("\x1b[31mRED", 0), "\\x1b[31mRED");
	assert_string_equal(esc("back\\slash", 0), "back\\\\slash");
	assert_string_equal(esc("<script>\"'", 0), "<script>\"'");
	assert_string_equal(esc("\x7f", 0), "\\x7f");
	/* C1 controls are valid UTF-8 that terminals obey: escaped byte by byte. */
	assert_string_equal(esc("\xc2\x9b"
				"2J",
				0),
			    "\\xc2\\x9b2J");
	/* Valid UTF-8 is kept: 2, 3 and 4 bytes. */
	assert_string_equal(esc("é€😀", 0), "é€😀");
	/* Invalid: a lone continuation, a truncated sequence, overlong, surrogate, > U+10FFFF. */
	assert_string_equal(esc("\x80", 0), "\\x80");
	assert_string_equal(esc("a\xe2\x82", 0), "a\\xe2\\x82");
	assert_string_equal(esc("\xc0\xaf", 0), "\\xc0\\xaf");
	assert_string_equal(esc("\xed\xa0\x80", 0), "\\xed\\xa0\\x80");
	assert_string_equal(esc("\xf4\x90\x80\x80", 0), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(esc("\xff", 0), "\\xff");
	/* An embedded NUL is a byte like any other. */
	{
		char buf[32];

		jank_text_escape(buf, sizeof(buf), "a\0b", 3, 0);
		assert_string_equal(buf, "a\\x00b");
	}
	assert_string_equal(jank_text((char[8]){ 0 }, 8, NULL), "");
}

static void cut(void **state)
{
	char small[8];

	(void)state;
	/* After max_chars characters, then "…"; not when it just fits. */
	assert_string_equal(esc("abcdef", 3), "abc…");
	assert_string_equal(esc("abc", 3), "abc");
	assert_string_equal(esc("€€€€", 2), "€€…");
	assert_string_equal(esc("\n\n\n", 2), "\\x0a\\x0a…");
	/* A full buffer cuts on a unit, with room for the ellipsis. */
	assert_int_equal(jank_text_escape(small, sizeof(small), "abcdefghij", 10, 0), 7);
	assert_string_equal(small, "abcd…");
	jank_text_escape(small, sizeof(small), "\x01\x02", 2, 0);
	assert_string_equal(small, "\\x01…");
	jank_text_escape(small, sizeof(small), "€€€", 9, 0);
	assert_string_equal(small, "€…");
	jank_text_escape(small, 1, "abc", 3, 0);
	assert_string_equal(small, "");
	assert_int_equal(jank_text_escape(small, 0, "abc", 3, 0), 0);
}

static void sanitize(void **state)
{
	(void)state;
	assert_string_equal(san("frame €", 0), "frame €");
	assert_string_equal(san("a\xff"
				"b",
				0),
			    "a\xef\xbf\xbd"
			    "b");
	assert_string_equal(san("\xe2\x82", 0), "\xef\xbf\xbd\xef\xbf\xbd");
	/* Control characters are valid: the formats escape them. */
	assert_string_equal(san("a\nb\x1b", 0), "a\nb\x1b");
	assert_string_equal(san("abcd", 2), "ab…");
	assert_true(jank_utf8_valid("é€😀", strlen("é€😀")));
	assert_false(jank_utf8_valid("a\xff", 2));
	assert_false(jank_utf8_valid("a\0", 2));
	assert_true(jank_text_is_safe("é €", strlen("é €")));
	assert_false(jank_text_is_safe("a\n", 2));
	assert_false(jank_text_is_safe("\xc2\x85", 2));
}

static void boundary(void **state)
{
	const char *e = "a€€"; /* 1 + 3 + 3 bytes */
	char buf[16];

	(void)state;
	assert_int_equal(jank_utf8_cut(e, 7), 7);
	assert_int_equal(jank_utf8_cut(e, 6), 4);
	assert_int_equal(jank_utf8_cut(e, 5), 4);
	assert_int_equal(jank_utf8_cut(e, 4), 4);
	assert_int_equal(jank_utf8_cut(e, 3), 1);
	assert_int_equal(jank_utf8_cut(e, 0), 0);
	assert_int_equal(jank_utf8_cut("😀", 3), 0);
	/* Invalid bytes before the cut stay: outputs escape them. */
	assert_int_equal(jank_utf8_cut("ab\xff", 3), 3);
	assert_int_equal(jank_utf8_cut("\x80\x80\x80\x80", 4), 4);
	/* The copy cuts at len - 1 bytes on a character. */
	assert_int_equal(jank_utf8_copy(buf, 6, e), 4);
	assert_string_equal(buf, "a€");
	assert_int_equal(jank_utf8_copy(buf, sizeof(buf), e), 7);
	assert_string_equal(buf, e);
}

/*
 * jank_utf8_copy_short() (inline, the engine's comm at every begin) gives
 * jank_utf8_copy()'s string and length for any bytes: invalid UTF-8,
 * control bytes, a character cut at the size, no NUL within it.
 */
static void copy_short_same(void **state)
{
	static const unsigned char alphabet[] = { 'a',	0x01, 0x1f, 0x7f, 0x80, 0x9f,
						  0xbf, 0xc2, 0xdf, 0xe0, 0xe2, 0xef,
						  0xf0, 0xf4, 0xf5, 0xff, 0xa4, 0x82 };
	uint32_t x = 12345;
	unsigned cuts = 0;

	(void)state;
	for (int round = 0; round < 200000; round++) {
		char src[40], a[24], b[24];
		size_t n, len, ra, rb;

		x = x * 1103515245u + 12345u;
		n = (x >> 8) % 24;
		len = 1 + (x >> 16) % 20;
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			src[i] = (char)alphabet[(x >> 16) % sizeof(alphabet)];
		}
		src[n] = '\0';
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		ra = jank_utf8_copy(a, len, src);
		rb = jank_utf8_copy_short(b, len, src);
		assert_int_equal(ra, rb);
		assert_memory_equal(a, b, sizeof(a)); /* zeros after the NUL either way */
		cuts += ra < len - 1 && ra < n;
	}
	assert_true(cuts > 1000); /* the cut inside a character was exercised */
	/* A comm of 16 bytes or more: 15 kept, or fewer when a character straddles them. */
	{
		char b[16];

		assert_int_equal(jank_utf8_copy_short(b, sizeof(b), "0123456789abcdefgh"), 15);
		assert_string_equal(b, "0123456789abcde");
		assert_int_equal(jank_utf8_copy_short(b, sizeof(b), "0123456789abcd\xe2\x82\xac"),
				 14);
		assert_string_equal(b, "0123456789abcd");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape),	   cmocka_unit_test(cut),
		cmocka_unit_test(sanitize),	   cmocka_unit_test(boundary),
		cmocka_unit_test(copy_short_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
