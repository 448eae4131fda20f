/* SPDX-License-Identifier: MIT */
/* Untrusted (traced) strings, escaped for text and made valid UTF-8: see textsafe.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "textsafe.h"

static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
#define ELLIPSIS_LEN (sizeof(ellipsis) - 1)

/*
 * The length of the valid UTF-8 sequence at s[0..n), 0 when s[0] starts none:
 * no overlong forms, surrogates or code points past U+10FFFF. *cp gets it.
 */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t need;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2, c = s[0] & 0x1f, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3, c = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return need;
}

/* Whether code point c is shown escaped in text: C0, DEL and C1 controls. */
static bool is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/*
 * The shared writer. Each unit of src (a valid character, or one byte that
 * is not) is written as given by `escape`: the character as is, or its
 * replacement. Before a unit that would pass max_chars or leave no room for
 * the ellipsis while more follows, the output ends with "…".
 */
static size_t write_safe(char *buf, size_t len, const char *src, size_t srclen, size_t max_chars,
			 bool escape)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t out = 0, chars = 0, i = 0;

	if (!len)
		return 0;
	if (!src)
		srclen = 0;
	while (i < srclen) {
		char unit[12];
		size_t ulen = 0, n, uchars;
		uint32_t c;

		n = utf8_seq(s + i, srclen - i, &c);
		if (escape && n && c == '\\') {
			unit[ulen++] = '\\';
			unit[ulen++] = '\\';
		} else if (n && c && !(escape && is_control(c))) {
			memcpy(unit, s + i, n);
			ulen = n;
		} else if (escape) {
			/* A control character is escaped byte by byte, as invalid bytes. */
			if (!n)
				n = 1;
			for (size_t k = 0; k < n; k++) {
				unit[ulen++] = '\\';
				unit[ulen++] = 'x';
				unit[ulen++] = hex[s[i + k] >> 4];
				unit[ulen++] = hex[s[i + k] & 15];
			}
		} else {
			n = n ? n : 1;
			memcpy(unit, "\xef\xbf\xbd", 3); /* U+FFFD */
			ulen = 3;
		}
		/* An escaped character counts as its bytes; the ellipsis must fit if more follows.
		 */
		uchars = escape && unit[0] == '\\' && unit[1] == 'x' ? n : 1;
		if ((max_chars && chars + uchars > max_chars) ||
		    out + ulen + (i + n < srclen ? ELLIPSIS_LEN : 0) > len - 1) {
			if (out + ELLIPSIS_LEN <= len - 1) {
				memcpy(buf + out, ellipsis, ELLIPSIS_LEN);
				out += ELLIPSIS_LEN;
			}
			break;
		}
		memcpy(buf + out, unit, ulen);
		out += ulen;
		chars += uchars;
		i += n;
	}
	buf[out] = '\0';
	return out;
}

size_t jank_text_escape(char *buf, size_t len, const char *src, size_t srclen, size_t max_chars)
{
	return write_safe(buf, len, src, srclen, max_chars, true);
}

const char *jank_text(char *buf, size_t len, const char *s)
{
	jank_text_escape(buf, len, s, s ? strlen(s) : 0, JANK_TEXT_MAX_CHARS);
	return buf;
}

size_t jank_utf8_sanitize(char *buf, size_t len, const char *src, size_t srclen, size_t max_chars)
{
	return write_safe(buf, len, src, srclen, max_chars, false);
}

const char *jank_utf8(char *buf, size_t len, const char *s)
{
	jank_utf8_sanitize(buf, len, s, s ? strlen(s) : 0, 0);
	return buf;
}

size_t jank_utf8_char(const char *s)
{
	uint32_t c;

	/* A NUL ends a sequence early, at the continuation check: never read past it. */
	return *s ? utf8_seq((const unsigned char *)s, 4, &c) : 0;
}

int jank_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i, n - i, &c);

		if (!k || !c)
			return 0;
		i += k;
	}
	return 1;
}

int jank_text_is_safe(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i, n - i, &c);

		if (!k || is_control(c))
			return 0;
		i += k;
	}
	return 1;
}

size_t jank_utf8_cut(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	/* A lead byte among the last three whose sequence ends past n goes. */
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char b = u[n - back];
		size_t need;

		if ((b & 0xc0) == 0x80)
			continue; /* a continuation byte: look further back */
		if (b < 0xc2 || b > 0xf4)
			return n; /* ASCII, or no lead byte: nothing is split */
		need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
		return need > back ? n - back : n;
	}
	return n;
}

size_t jank_utf8_copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	if (src[n])
		n = jank_utf8_cut(src, n);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}
