/* SPDX-License-Identifier: MIT */
/*
 * HTML out of untrusted strings (jankd's web pages show what traced
 * programs named: actions, keys, threads, hosts): one escaper for text and
 * attribute values, one for URL components.
 */
#ifndef JANK_HTML_H
#define JANK_HTML_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write `s` as HTML text or a quoted attribute's value: & < > " ' become
 * entities, bytes that are not UTF-8 (overlong forms, surrogates, past
 * U+10FFFF, cut sequences), control characters (C0 but tab and newline,
 * DEL, C1) and U+FFFE, U+FFFF become U+FFFD: what is written is well-formed
 * XML character data too. Nothing of `s` can open a tag or end an attribute.
 */
void jank_html_escape(FILE *f, const char *s);

/* The markup languages jank writes traced strings into. */
enum jank_markup {
	JANK_MARKUP_HTML, /* as jank_html_escape() */
	JANK_MARKUP_SVG,  /* ' as &apos;, what HTML makes U+FFFD and newlines as '?' */
};
/*
 * Write `s` (NULL: "") escaped for `kind`; with max_chars, a string of more
 * characters than that is cut to max_chars - 1 of them and "…".
 */
void jank_html_markup_escape(FILE *f, const char *s, size_t max_chars, enum jank_markup kind);
/* The characters of s as jank_html_markup_escape() counts them (a byte that is not UTF-8: one). */
size_t jank_html_markup_chars(const char *s);
/*
 * Write `s` percent-encoded for a URL's path segment or query value: every
 * byte but A-Z a-z 0-9 - . _ ~ as %XX. The result needs no HTML escaping.
 */
void jank_html_url_encode(FILE *f, const char *s);

#endif
