/* SPDX-License-Identifier: MIT */
/*
 * The picture of a rule's composition over time (composition-svg.h), from
 * its history (comp-history.h), written with fprintf in the style of
 * svg.h: a bar per interval, the newest right, stacked by state or by the
 * thread waited on (the top names, the rest as "other"), a time axis and a
 * legend that wraps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include "composition-svg.h"
#include "svg.h"
#include "units.h"

#define COMP_TOP_NAMES	8 /* names drawn on their own in by=on; the rest as "other" */
#define COMP_OTHER_FILL "#bdbdbd"
/* The fills of the names, the most time first. */
static const char *const name_fills[COMP_TOP_NAMES] = {
	"#1565c0", "#2e7d32", "#d84315", "#6a1b9a", "#00838f", "#f9a825", "#ad1457", "#6d4c41",
};

/* What a bar is stacked by: the states, or the names (the columns drawn, "other" last). */
struct comp_series {
	bool by_on;
	size_t n;
	size_t col[COMP_TOP_NAMES]; /* by_on: the bars' columns drawn on their own */
};

/* The window's time of rule r per state and per column of names. */
static uint64_t comp_window(const struct jank_comp_rule *r, uint64_t *states, uint64_t *names)
{
	const struct jank_comp_bar *b;
	uint64_t all = 0;

	for (size_t i = 0; (b = jank_comp_history_bar(r, i)); i++) {
		for (int s = 0; s < JANK_STATE_COUNT; s++)
			states[s] += b->state[s];
		for (size_t c = 0; c <= JANK_COMP_HISTORY_NAMES; c++)
			names[c] += b->on[c];
		all += jank_comp_bar_total(b);
	}
	return all;
}

/* by=on: the columns with the most time, at most COMP_TOP_NAMES ("other" never among them). */
static void comp_top_names(struct comp_series *cs, const uint64_t *names)
{
	bool taken[JANK_COMP_HISTORY_NAMES + 1] = { true };

	cs->n = 0;
	while (cs->n < COMP_TOP_NAMES) {
		size_t best = 0;

		for (size_t c = 1; c <= JANK_COMP_HISTORY_NAMES; c++)
			if (!taken[c] && names[c] > 0 && (!best || names[c] > names[best]))
				best = c;
		if (!best)
			break;
		taken[best] = true;
		cs->col[cs->n++] = best;
	}
}

/* The ns of series k of bar b; k == cs->n (by=on) is "other": every column not drawn. */
static uint64_t comp_value(const struct comp_series *cs, const struct jank_comp_bar *b, size_t k)
{
	uint64_t v;

	if (!cs->by_on)
		return b->state[k];
	if (k < cs->n)
		return b->on[cs->col[k]];
	v = jank_comp_bar_total(b);
	for (size_t j = 0; j < cs->n; j++)
		v -= b->on[cs->col[j]];
	return v;
}

static size_t comp_nseries(const struct comp_series *cs)
{
	return cs->by_on ? cs->n + 1 : JANK_STATE_COUNT;
}

static const char *comp_fill(const struct comp_series *cs, size_t k)
{
	if (!cs->by_on)
		return jank_svg_state_colour((enum jank_state)k);
	return k < cs->n ? name_fills[k] : COMP_OTHER_FILL;
}

/* Series k's name, escaped. */
static void comp_label(FILE *f, const struct comp_series *cs, const struct jank_comp_rule *r,
		       size_t k, size_t max_chars)
{
	if (!cs->by_on)
		fputs(jank_state_name((enum jank_state)k), f);
	else if (k < cs->n)
		jank_svg_escape(f, jank_comp_history_name(r, cs->col[k]), max_chars);
	else
		fputs(JANK_COMPOSITION_OTHER, f);
}

static const char *comp_duration(uint64_t ns, char *buf, size_t len)
{
	return jank_units_duration(ns > INT64_MAX ? INT64_MAX : (int64_t)ns, buf, len);
}

/* "-2 min 30 s", "-40 s", "now": how long before the last sample, of `s` seconds. */
static void comp_ago(FILE *f, int64_t s)
{
	if (s <= 0)
		fputs("now", f);
	else if (s % 60 == 0)
		fprintf(f, "-%" PRId64 " min", s / 60);
	else if (s > 60)
		fprintf(f, "-%" PRId64 " min %" PRId64 " s", s / 60, s % 60);
	else
		fprintf(f, "-%" PRId64 " s", s);
}

/*
 * One rule's slow critical-path time per interval over the last
 * JANK_COMP_HISTORY_BARS intervals (the newest right), stacked by state or,
 * by=on, by the thread waited on (the top names, the rest as "other").
 */
int jank_svg_composition(FILE *f, const struct jank_comp_rule *r, const char *action, bool by_on)
{
	const int64_t interval_s = JANK_COMP_HISTORY_INTERVAL_NS / 1000000000LL;
	const int64_t span_s = interval_s * JANK_COMP_HISTORY_BARS;
	const double left = 64, top = 34, h = 160, slot = 8, bw = 6,
		     w = slot * JANK_COMP_HISTORY_BARS;
	uint64_t states[JANK_STATE_COUNT] = { 0 }, names[JANK_COMP_HISTORY_NAMES + 1] = { 0 };
	uint64_t all, max = 0, in_series[JANK_STATE_COUNT + COMP_TOP_NAMES + 1] = { 0 };
	struct comp_series cs = { .by_on = by_on };
	const struct jank_comp_bar *b;
	size_t nbars, ns;
	char dv[32];
	double lx, ly, width = left + w + 24;

	all = comp_window(r, states, names);
	if (by_on)
		comp_top_names(&cs, names);
	ns = comp_nseries(&cs);
	nbars = jank_comp_history_bars(r);
	for (size_t i = 0; (b = jank_comp_history_bar(r, i)); i++) {
		if (jank_comp_bar_total(b) > max)
			max = jank_comp_bar_total(b);
		for (size_t k = 0; k < ns; k++)
			in_series[k] += comp_value(&cs, b, k);
	}

	jank_svg_begin(f, (int)width, top + h + 96,
		       by_on ? "slow critical-path time over time, by thread waited on"
			     : "slow critical-path time over time, by state");
	fputs("<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">", f);
	jank_svg_escape(f, action, 48);
	fprintf(f, ": slow critical-path time per %" PRId64 " s, by %s</text>\n", interval_s,
		by_on ? "thread waited on" : "state");
	/* The time axis: the last JANK_COMP_HISTORY_BARS intervals, "now" right. */
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" JANK_SVG_GRID
		"\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>\n"
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">0</text>\n",
		left - 2, top, left + w, top, left - 4, top + 4,
		max ? comp_duration(max, dv, sizeof(dv)) : "0", left - 4, top + h);
	fputs("<g id=\"bars\">\n", f);
	for (size_t i = 0; (b = jank_comp_history_bar(r, i)); i++) {
		double bx = left + slot * (double)(JANK_COMP_HISTORY_BARS - nbars + i) +
			    (slot - bw) / 2;
		double y = top + h;
		int64_t ago = interval_s * (int64_t)(nbars - 1 - i);

		for (size_t k = 0; k < ns && max; k++) {
			uint64_t v = comp_value(&cs, b, k);
			double sh = h * (double)v / (double)max;

			if (!v)
				continue;
			y -= sh;
			fprintf(f,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" "
				"height=\"%.2f\" fill=\"%s\"><title>",
				bx, y, bw, sh, comp_fill(&cs, k));
			comp_ago(f, ago + interval_s);
			fputs(" to ", f);
			comp_ago(f, ago);
			fputs(": ", f);
			comp_label(f, &cs, r, k, 0);
			fprintf(f, " %s</title></rect>\n", comp_duration(v, dv, sizeof(dv)));
		}
	}
	fputs("</g>\n", f);
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" JANK_SVG_INK
		"\"/>\n",
		left - 2, top + h, left + w, top + h);
	for (int t = 0; t <= 3; t++) {
		static const char *const anchor[] = { "start", "middle", "middle", "end" };
		int64_t ago = span_s - span_s * t / 3;
		double x = left + w * (double)t / 3;

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"" JANK_SVG_INK
			"\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			"text-anchor=\"%s\" fill=\"" JANK_SVG_MUTED "\">",
			x, top + h, x, top + h + 4, x, top + h + 15, anchor[t]);
		comp_ago(f, ago);
		fputs("</text>\n", f);
	}
	if (!all)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
			"fill=\"" JANK_SVG_MUTED "\">no slow action %s %" PRId64 " %s</text>\n",
			left + w / 2, top + h / 2,
			nbars ? "in the last" : "yet: the first bar comes within",
			nbars ? span_s / 60 : interval_s, nbars ? "min" : "s");
	/* The legend: the series with time, in the stack's order (bottom first), wrapped. */
	fputs("<g id=\"legend\">\n", f);
	lx = left;
	ly = top + h + 28;
	for (size_t k = 0; k < ns; k++) {
		size_t chars =
			by_on ? (k < cs.n
					 ? jank_svg_text_chars(jank_comp_history_name(r, cs.col[k]))
					 : strlen(JANK_COMPOSITION_OTHER))
			      : strlen(jank_state_name((enum jank_state)k));
		double iw;

		if (!in_series[k])
			continue;
		if (chars > 40)
			chars = 40;
		iw = 24 + jank_svg_text_w(chars, 11);
		if (lx > left && lx + iw > width - 10) {
			lx = left;
			ly += 16;
		}
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
			lx, ly, comp_fill(&cs, k), lx + 14, ly + 9);
		comp_label(f, &cs, r, k, 40);
		fputs("</text>\n", f);
		lx += iw;
	}
	fputs("</g>\n", f);
	jank_svg_end(f);
	return ferror(f) ? -EIO : 0;
}
