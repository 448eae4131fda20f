/* SPDX-License-Identifier: MIT */
/*
 * fuzz-text: lib/textsafe.c on arbitrary bytes, the escaping of traced
 * strings for text and their UTF-8 sanitizing, and the engine's cut on
 * character boundaries; io/format.c's thread names through it.
 *
 * Input: byte 0 is the output buffer's size (1..256), byte 1 the most
 * characters (0: no limit), the rest the untrusted string (NULs included).
 * Checked, for the escape: the output fits, is NUL-terminated at the length
 * returned, is valid UTF-8 with no control character, has at most
 * max_chars characters before its "…", and unescapes to the string (or, cut,
 * to a prefix of it). For the sanitizer: fits, valid UTF-8, and the string
 * itself when it was valid UTF-8 and fits. For the cut: at most 3 bytes go,
 * and a valid string stays valid.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "fuzz-check.h"
#include "textsafe.h"

static const char ellipsis[] = "\xe2\x80\xa6";

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The bytes an escape stands for; its \xNN are lower-case. Returns their count. */
static size_t unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		if (s[i] != '\\') {
			out[o++] = s[i++];
			continue;
		}
		FUZZ_ASSERT(i + 1 < n);
		if (s[i + 1] == '\\') {
			out[o++] = '\\';
			i += 2;
			continue;
		}
		FUZZ_ASSERT(s[i + 1] == 'x' && i + 3 < n && hex(s[i + 2]) >= 0 &&
			    hex(s[i + 3]) >= 0);
		out[o++] = (char)(hex(s[i + 2]) << 4 | hex(s[i + 3]));
		i += 4;
	}
	return o;
}

/* Characters of valid UTF-8 s[0..n): the bytes that do not continue one. */
static size_t chars(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

static bool cut_ellipsis(const char *out, size_t *n)
{
	if (*n >= 3 && !memcmp(out + *n - 3, ellipsis, 3)) {
		*n -= 3;
		return true;
	}
	return false;
}

static void check_escape(const char *src, size_t n, size_t len, size_t max)
{
	char *out = malloc(len), *raw = malloc(len + 1);
	size_t w = jank_text_escape(out, len, src, n, max), body = w, k;
	bool cut;

	FUZZ_ASSERT(w < len);
	FUZZ_ASSERT(out[w] == '\0' && strlen(out) == w);
	FUZZ_ASSERT(jank_text_is_safe(out, w));
	cut = cut_ellipsis(out, &body);
	k = unescape(out, body, raw);
	FUZZ_ASSERT(k <= n && !memcmp(raw, src, k));
	/*
	 * Not cut: all of it (a buffer under 4 bytes has no room for "…"; a
	 * string that ends in "…" may look cut: then k is n).
	 */
	FUZZ_ASSERT(cut || k == n || len < 4);
	FUZZ_ASSERT(!cut || k < n || (n >= 3 && !memcmp(src + n - 3, ellipsis, 3)));
	/* At most max units: a character, or an escaped byte, each. */
	if (max) {
		size_t units = 0;

		for (size_t i = 0; i < body; units++)
			i += out[i] == '\\' ? (out[i + 1] == '\\' ? 2 : 4)
					    : ((unsigned char)out[i] < 0x80   ? 1
					       : (unsigned char)out[i] < 0xe0 ? 2
					       : (unsigned char)out[i] < 0xf0 ? 3
									      : 4);
		FUZZ_ASSERT(units <= max);
	}
	/* A big enough buffer cuts only at max_chars: all of it unescapes to the string. */
	if (!max && len >= JANK_TEXT_SIZE(n)) {
		k = unescape(out, w, raw);
		FUZZ_ASSERT(k == n && !memcmp(raw, src, n));
	}
	free(out);
	free(raw);
}

static void check_sanitize(const char *src, size_t n, size_t len, size_t max)
{
	char *out = malloc(len);
	size_t w = jank_utf8_sanitize(out, len, src, n, max);

	FUZZ_ASSERT(w < len && out[w] == '\0' && strlen(out) == w);
	FUZZ_ASSERT(jank_utf8_valid(out, w));
	if (max) {
		size_t body = w;

		cut_ellipsis(out, &body);
		FUZZ_ASSERT(chars(out, body) <= max);
	}
	if (jank_utf8_valid(src, n) && !max && len > n + 3)
		FUZZ_ASSERT(w == n && !memcmp(out, src, n));
	free(out);
}

static void check_cut(const char *src, size_t n)
{
	size_t nul = strnlen(src, n);
	bool valid = jank_utf8_valid(src, nul);

	for (size_t k = 0; k <= nul; k++) {
		size_t c = jank_utf8_cut(src, k);

		FUZZ_ASSERT(c <= k && k - c <= 3);
		if (valid)
			FUZZ_ASSERT(jank_utf8_valid(src, c));
	}
	for (size_t len = 1; len <= 20; len++) {
		char dst[20];
		size_t c = jank_utf8_copy(dst, len, src);

		FUZZ_ASSERT(c < len && dst[c] == '\0' && !memcmp(dst, src, c));
		if (valid)
			FUZZ_ASSERT(jank_utf8_valid(dst, c));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src, names[JANK_FORMAT_NAMES_LEN];
	size_t len, max, n;

	if (size < 2)
		return 0;
	len = (size_t)data[0] + 1;
	max = data[1] % 160;
	n = size - 2;
	src = malloc(n + 1);
	memcpy(src, data + 2, n);
	src[n] = '\0';
	check_escape(src, n, len, max);
	check_escape(src, n, JANK_TEXT_SIZE(n) + 1, 0);
	check_sanitize(src, n, len, max);
	check_sanitize(src, n, n * 3 + 4, 0);
	check_cut(src, n);
	/* A thread's names, as the text outputs show them: one safe line. */
	jank_format_names(src, src + strnlen(src, n) / 2, names, sizeof(names));
	FUZZ_ASSERT(strlen(names) < sizeof(names));
	FUZZ_ASSERT(jank_text_is_safe(names, strlen(names)));
	free(src);
	return 0;
}
