/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "html.h"
#include "textsafe.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/*
 * How one markup language writes what a traced string may hold. Both are
 * XML (the web pages are served as HTML but hold inline SVG, and an SVG
 * file is XML): what XML 1.0 cannot carry (C0 controls but tab, newline
 * and return; U+FFFE and U+FFFF; surrogates, which jank_utf8_char() does
 * not take) is replaced, and so are DEL and the C1 controls, which XML
 * discourages and a terminal would obey.
 */
struct markup {
	const char *apos; /* ' */
	const char *bad;  /* one per byte that is not UTF-8, per character XML cannot carry */
	bool newline;	  /* a newline stays */
};

static const struct markup markups[] = {
	[JANK_MARKUP_HTML] = { "&#39;", REPLACEMENT, true },
	[JANK_MARKUP_SVG] = { "&apos;", "?", false },
};

/* Whether the character of length n at s is written as the markup's `bad`. */
static bool is_bad(const struct markup *m, const unsigned char *s, size_t n)
{
	if (n == 0)
		return true;
	if (n == 1)
		return (*s < 0x20 && *s != '\t' && !(m->newline && *s == '\n')) || *s == 0x7f;
	if (n == 2)
		return s[0] == 0xc2 && s[1] < 0xa0;		       /* U+0080 to U+009F */
	return n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe; /* U+FFFE, U+FFFF */
}

size_t jank_html_markup_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = 0;

	while (*p) {
		size_t l = jank_utf8_char((const char *)p);

		p += l ? l : 1;
		n++;
	}
	return n;
}

void jank_html_markup_escape(FILE *f, const char *str, size_t max_chars, enum jank_markup kind)
{
	const struct markup *m = &markups[kind];
	const unsigned char *p = (const unsigned char *)(str ? str : "");
	size_t total = max_chars ? jank_html_markup_chars((const char *)p) : 0;

	for (size_t n = 0; *p; n++) {
		size_t l = jank_utf8_char((const char *)p);

		if (max_chars && total > max_chars && n + 1 == max_chars) {
			fputs("…", f);
			return;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs(m->apos, f);
			break;
		default:
			if (is_bad(m, p, l))
				fputs(m->bad, f); /* one per character, as counted */
			else
				fwrite(p, 1, l, f);
		}
		p += l ? l : 1;
	}
}

void jank_html_escape(FILE *f, const char *str)
{
	if (str)
		jank_html_markup_escape(f, str, 0, JANK_MARKUP_HTML);
}

void jank_html_url_encode(FILE *f, const char *str)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)str;

	for (; s && *s; s++) {
		bool plain = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
			     (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_' ||
			     *s == '~';

		if (plain)
			fputc(*s, f);
		else
			fprintf(f, "%%%c%c", hex[*s >> 4], hex[*s & 15]);
	}
}
