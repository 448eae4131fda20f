/* SPDX-License-Identifier: MIT */
/*
 * Traced strings are untrusted: action keys, thread and process names, lock
 * and function names come from the programs jank watches, jankd runs as
 * root, and its outputs are read on terminals, in journals and by scrapers.
 * One place decides how such a string is shown:
 *
 *  - jank_text_escape(), for text outputs (terminals, report.txt, the
 *    journal's MESSAGE, status and listings): as systemd's cescape, control
 *    bytes (C0, DEL, and the C1 characters U+0080..U+009F, which some
 *    terminals obey) and bytes of invalid UTF-8 become \xNN, a backslash
 *    becomes \\, valid UTF-8 stays as it is;
 *  - jank_utf8_sanitize(), for formats that need UTF-8 but escape on their
 *    own (JSON, OpenMetrics labels, XML): invalid sequences become U+FFFD;
 *  - jank_utf8_cut(), the engine's cut of a string at a fixed size, on a
 *    character boundary.
 *
 * Both writers cut on a character boundary after `max_chars` characters (an
 * escaped byte counts as one) or when `len` is full, and then end with "…".
 * Their output is always NUL-terminated when len > 0, and valid UTF-8; the
 * escaper's holds no control byte. Embedded NULs in `src` are bytes like any
 * other (escaped as \x00, sanitized to U+FFFD).
 */
#ifndef JANK_TEXTSAFE_H
#define JANK_TEXTSAFE_H

#include <stddef.h>

/* The most characters of one traced string an output shows by default. */
#define JANK_TEXT_MAX_CHARS 128
/* A buffer that holds any escape of `max_chars` characters, and "…". */
#define JANK_TEXT_SIZE(max_chars) ((size_t)(max_chars)*4 + 4)
#define JANK_TEXT_BUF		  JANK_TEXT_SIZE(JANK_TEXT_MAX_CHARS)

/*
 * The escape of src[0..srclen) in buf (size len), cut after max_chars
 * characters (0: no limit but len). Returns the length written.
 */
size_t jank_text_escape(char *buf, size_t len, const char *src, size_t srclen, size_t max_chars);
/* Its NUL-terminated shorthand, JANK_TEXT_MAX_CHARS at most; NULL is "". Returns buf. */
const char *jank_text(char *buf, size_t len, const char *s);

/*
 * src[0..srclen) as valid UTF-8 in buf (size len): each invalid byte becomes
 * U+FFFD, a NUL too; cut as jank_text_escape(). Returns the length written.
 */
size_t jank_utf8_sanitize(char *buf, size_t len, const char *src, size_t srclen, size_t max_chars);
/* Its NUL-terminated shorthand (no limit but len); NULL is "". Returns buf. */
const char *jank_utf8(char *buf, size_t len, const char *s);
/*
 * The length of the valid UTF-8 character that NUL-terminated s starts with,
 * 0 when it starts none (an invalid byte, or the NUL).
 */
size_t jank_utf8_char(const char *s);
/* Whether s[0..n) is valid UTF-8 with no NUL. */
int jank_utf8_valid(const char *s, size_t n);
/* Whether s[0..n) is valid UTF-8 with no control character: text that is safe as it is. */
int jank_text_is_safe(const char *s, size_t n);

/*
 * The length of s[0..n) cut back so that it does not end inside a UTF-8
 * character: a trailing lead byte whose sequence does not fit goes, with its
 * continuation bytes. Other invalid bytes stay (outputs escape them).
 */
size_t jank_utf8_cut(const char *s, size_t n);
/*
 * Copy NUL-terminated src into dst (size len > 0), cut at len - 1 bytes on a
 * character boundary. Returns the length copied.
 */
size_t jank_utf8_copy(char *dst, size_t len, const char *src);
/*
 * The same, a byte at a time and inline: for short strings (a thread's
 * comm at every action's begin), where strnlen() and memcpy() calls cost
 * more than the bytes. The same string and length as jank_utf8_copy();
 * when src is cut inside a character, the bytes of it that were copied
 * are zeroed after the NUL (jank_utf8_copy() leaves dst's old bytes there).
 */
static inline size_t jank_utf8_copy_short(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	for (; n < len - 1 && src[n]; n++)
		dst[n] = src[n];
	if (n == len - 1 && src[n]) {
		size_t cut = jank_utf8_cut(dst, n); /* dst[0..n) is src's first n bytes */

		while (n > cut)
			dst[--n] = '\0';
	}
	dst[n] = '\0';
	return n;
}

#endif
