/* SPDX-License-Identifier: MIT */
/*
 * What jank's pictures share (critical-path.svg, and the bars of `jankctl
 * compare`): the colours of the states, the ink and the font, text that is
 * escaped and measured, time ticks, and the document around a drawing.
 * Plain SVG 1.1, no script, no external resource.
 */
#ifndef JANK_SVG_H
#define JANK_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "state.h"

#define JANK_SVG_FONT  "DejaVu Sans, Verdana, Arial, sans-serif"
#define JANK_SVG_INK   "#212121"
#define JANK_SVG_MUTED "#5f6368"
#define JANK_SVG_GRID  "#e3e3e3"
#define JANK_SVG_RED   "#d50000" /* the threshold */

/* The fill colour of a state ("#2e7d32"), as README lists them. */
const char *jank_svg_state_colour(enum jank_state s);
/* States whose colour is light: dark text on them. */
bool jank_svg_light_fill(enum jank_state s);

/*
 * Write `s` as XML character data or attribute text: & < > " ' are escaped,
 * bytes that are not UTF-8 and characters XML 1.0 cannot carry or that are
 * controls (C0, DEL, C1, U+FFFE, U+FFFF) become '?' (html.h's escaper). At most
 * `max_chars` characters (0: no limit); a cut string ends with "…".
 */
void jank_svg_escape(FILE *f, const char *s, size_t max_chars);
/* Characters of s as jank_svg_escape() writes them. */
size_t jank_svg_text_chars(const char *s);
/* The width of `chars` characters at font size `size`, estimated generously. */
double jank_svg_text_w(size_t chars, double size);

/* A tick step of 1, 2 or 5 × 10^k ns: at most 8 steps over the span. */
int64_t jank_svg_tick_step(int64_t span);
/* The unit that suits a tick step: its divisor and name ("ms"). */
void jank_svg_tick_unit(int64_t step, int64_t *div, const char **unit);

/* The XML declaration, the <svg> element, its <title> and a white background. */
void jank_svg_begin(FILE *f, int width, double height, const char *title);
/* Closes the document: 0, or -EIO when writing failed. */
int jank_svg_end(FILE *f);

#endif
