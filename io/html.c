/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "html.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also the terminating NUL: a cut sequence */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 controls (U+0080 to U+009F) */
	if (n == 2 && cp < 0xa0)
		return 0;
	return n;
}

void jank_html_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s)
		return;
	while (*s) {
		size_t n = utf8_len(s);

		switch (n ? *s : 0) {
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
			fputs("&#39;", f);
			break;
		case 0:
			fputs(REPLACEMENT, f);
			n = 1;
			break;
		default:
			if ((*s < 0x20 && *s != '\t' && *s != '\n') || *s == 0x7f)
				fputs(REPLACEMENT, f);
			else
				fwrite(s, 1, n, f);
		}
		s += n;
	}
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
