/* SPDX-License-Identifier: MIT */
/* The style and the helpers of jank's pictures (see svg.h). */
#include <errno.h>
#include "html.h"
#include "svg.h"
#include "textsafe.h"

#define EM_RATIO 0.62 /* average glyph width / font size, a little wide on purpose */

/* clang-format off */
static const char *const colours[JANK_STATE_COUNT] = {
	[JANK_STATE_UNKNOWN] = "#e0e0e0",
	[JANK_STATE_RUNNING] = "#2e7d32",
	[JANK_STATE_PREEMPTED] = "#f9a825",
	[JANK_STATE_BLOCKED] = "#757575",
	[JANK_STATE_TIMER] = "#1565c0",
	[JANK_STATE_NETWORK] = "#00838f",
	[JANK_STATE_BLOCK_DEVICE] = "#d84315",
	[JANK_STATE_INTERRUPTED] = "#6d4c41",
	[JANK_STATE_IPI] = "#5e35b1",
	[JANK_STATE_USER_INPUT] = "#f06292",
	[JANK_STATE_LOCK_WAIT] = "#ad1457",
};
/* clang-format on */

bool jank_svg_light_fill(enum jank_state s)
{
	return s == JANK_STATE_UNKNOWN || s == JANK_STATE_PREEMPTED || s == JANK_STATE_USER_INPUT;
}

const char *jank_svg_state_colour(enum jank_state s)
{
	return (unsigned)s < JANK_STATE_COUNT ? colours[s] : colours[JANK_STATE_UNKNOWN];
}

/* ---- Text ---- */

size_t jank_svg_text_chars(const char *s)
{
	return jank_html_markup_chars(s);
}

void jank_svg_escape(FILE *f, const char *s, size_t max_chars)
{
	jank_html_markup_escape(f, s, max_chars, JANK_MARKUP_SVG);
}

double jank_svg_text_w(size_t chars, double size)
{
	return (double)chars * size * EM_RATIO;
}

/* ---- Time ---- */

int64_t jank_svg_tick_step(int64_t span)
{
	/* Up to p = 10^18: 5 × 10^18 still fits, and 2 × 10^18 suits any span. */
	for (int64_t p = 1;; p *= 10) {
		static const int m[] = { 1, 2, 5 };

		for (size_t i = 0; i < 3; i++)
			if (span / (m[i] * p) <= 8)
				return m[i] * p;
		if (p > INT64_MAX / 10)
			break;
	}
	return span > 0 ? span : 1;
}

void jank_svg_tick_unit(int64_t step, int64_t *div, const char **unit)
{
	if (step >= 1000000000) {
		*div = 1000000000;
		*unit = "s";
	} else if (step >= 1000000) {
		*div = 1000000;
		*unit = "ms";
	} else if (step >= 1000) {
		*div = 1000;
		*unit = "µs";
	} else {
		*div = 1;
		*unit = "ns";
	}
}

void jank_svg_begin(FILE *f, int width, double height, const char *title)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"%s\">\n",
		width, height, width, height, JANK_SVG_FONT);
	fputs("<title>", f);
	jank_svg_escape(f, title, 0);
	fputs("</title>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width, height);
}

int jank_svg_end(FILE *f)
{
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
