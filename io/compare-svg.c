/* SPDX-License-Identifier: MIT */
/*
 * The comparison as two stacked bars (see compare-svg.h).
 *
 * The thread components tile an action, so their means stack up to the
 * group's mean duration. A component that is under MIN_SHARE of the taller
 * bar in both groups joins the "other" piece, at the top. Each piece is
 * labelled outside its bar (left of the first, right of the second) when it
 * is tall enough for a line; a light band joins it to the same piece of the
 * other bar.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "compare-svg.h"
#include "format.h"
#include "svg.h"
#include "units.h"

#define WIDTH	  1200
#define MARGIN	  16
#define PLOT_Y0	  96  /* top of the plot */
#define PLOT_H	  480 /* the taller bar */
#define AXIS_X	  72
#define BAR_W	  140
#define BAR_A_X	  430 /* the bars, and the bands between them */
#define BAR_B_X	  660
#define LABEL_GAP 8
#define MIN_SHARE 0.015
#define MIN_LABEL 12.0 /* px: a piece shorter than this gets no label */
#define DIFF_ROWS 5
#define OTHER	  "#bdbdbd"

struct piece {
	const struct jank_cmp_row *row; /* NULL: the other components */
	double mean[2];
};

struct bars {
	const struct jank_compare *c;
	struct piece *v;
	size_t n;
	double top; /* ns at the top of the plot */
	int x[2];   /* left of each bar */
};

/* The pieces, bottom up: the thread components, largest increase first, then the rest. */
static int build(struct bars *b, const struct jank_compare *c)
{
	size_t n;
	const struct jank_cmp_row *rows = jank_compare_rows(c, &n);
	double total[2] = { 0, 0 }, tall;
	struct piece other = { NULL, { 0, 0 } };

	b->c = c;
	b->v = calloc(n + 1, sizeof(*b->v));
	if (!b->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (int g = 0; rows[i].key.kind == JANK_COMP_THREAD && g < 2; g++)
			total[g] += rows[i].g[g].mean;
	tall = total[0] > total[1] ? total[0] : total[1];
	for (size_t i = 0; i < n; i++) {
		const struct jank_cmp_row *r = &rows[i];
		bool small = r->g[0].mean < MIN_SHARE * tall && r->g[1].mean < MIN_SHARE * tall;

		if (r->key.kind != JANK_COMP_THREAD)
			continue;
		if (small) {
			other.mean[0] += r->g[0].mean;
			other.mean[1] += r->g[1].mean;
			continue;
		}
		b->v[b->n++] = (struct piece){ r, { r->g[0].mean, r->g[1].mean } };
	}
	if (other.mean[0] > 0 || other.mean[1] > 0)
		b->v[b->n++] = other;
	/* The axis ends on the first tick over the taller bar. */
	b->top = (double)jank_svg_tick_step((int64_t)tall);
	while (b->top < tall)
		b->top += (double)jank_svg_tick_step((int64_t)tall);
	b->x[0] = BAR_A_X;
	b->x[1] = BAR_B_X;
	return 0;
}

static double yof(const struct bars *b, double ns)
{
	return PLOT_Y0 + PLOT_H - ns * PLOT_H / b->top;
}

static void axis(FILE *f, const struct bars *b)
{
	int64_t step = jank_svg_tick_step((int64_t)b->top), div;
	const char *unit;

	jank_svg_tick_unit(step, &div, &unit);
	fputs("<g id=\"axis\">\n", f);
	for (int64_t t = 0; (double)t <= b->top; t += step) {
		double y = yof(b, (double)t);

		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1\"/>\n",
			AXIS_X, y, WIDTH - MARGIN, y, JANK_SVG_GRID);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" "
			"fill=\"%s\">%lld %s</text>\n",
			AXIS_X - 6, y + 4, JANK_SVG_INK, (long long)(t / div), unit);
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">mean time per "
		"action</text>\n",
		MARGIN, PLOT_Y0 - 12, JANK_SVG_MUTED);
	fputs("</g>\n", f);
}

/* "db · block_device 20.0 ms", or "other components 1.20 ms". */
static void piece_label(const struct piece *p, double mean, char *buf, size_t len)
{
	char who[JANK_FORMAT_NAMES_LEN], d[32];

	jank_units_duration((int64_t)(mean + 0.5), d, sizeof(d));
	if (!p->row) {
		snprintf(buf, len, "other components %s", d);
		return;
	}
	jank_format_names(p->row->process, p->row->thread, who, sizeof(who));
	snprintf(buf, len, "%s · %s %s", who, jank_state_name(p->row->key.state), d);
}

/* Where a piece's label goes: outside the bars, so that the bands stay clear. */
static void label_at(const struct bars *b, int g, double *x, const char **anchor, double *w)
{
	*x = g == JANK_CMP_A ? b->x[g] - LABEL_GAP : b->x[g] + BAR_W + LABEL_GAP;
	*anchor = g == JANK_CMP_A ? "end" : "start";
	*w = g == JANK_CMP_A ? BAR_A_X - AXIS_X - 2 * LABEL_GAP
			     : WIDTH - MARGIN - BAR_B_X - BAR_W - LABEL_GAP;
}

static void bar(FILE *f, const struct bars *b, int g)
{
	double below = 0, x, w;
	const char *anchor;
	char text[JANK_FORMAT_NAMES_LEN + 64];

	label_at(b, g, &x, &anchor, &w);
	fprintf(f, "<g class=\"bar\" data-group=\"%s\">\n", jank_compare_name(b->c, g));
	for (size_t i = 0; i < b->n; i++) {
		const struct piece *p = &b->v[i];
		double y0 = yof(b, below), y1 = yof(b, below + p->mean[g]);
		const char *fill = p->row ? jank_svg_state_colour(p->row->key.state) : OTHER;

		below += p->mean[g];
		if (y0 - y1 <= 0)
			continue;
		piece_label(p, p->mean[g], text, sizeof(text));
		fprintf(f,
			"<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\" "
			"stroke=\"#ffffff\" stroke-width=\"1\"><title>",
			b->x[g], y1, BAR_W, y0 - y1, fill);
		jank_svg_escape(f, text, 0);
		fputs("</title></rect>\n", f);
		if (y0 - y1 < MIN_LABEL)
			continue;
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"%s\" "
			"fill=\"%s\">",
			x, (y0 + y1) / 2 + 4, anchor, JANK_SVG_INK);
		jank_svg_escape(f, text, (size_t)(w / jank_svg_text_w(1, 12)));
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

/* Between the bars, a band from each piece to the same piece of the other bar. */
static void bands(FILE *f, const struct bars *b)
{
	double below[2] = { 0, 0 };

	fputs("<g id=\"bands\">\n", f);
	for (size_t i = 0; i < b->n; i++) {
		const struct piece *p = &b->v[i];
		double a0 = yof(b, below[0]), b0 = yof(b, below[1]);
		double a1 = yof(b, below[0] + p->mean[0]), b1 = yof(b, below[1] + p->mean[1]);

		below[0] += p->mean[0];
		below[1] += p->mean[1];
		fprintf(f,
			"<polygon points=\"%d,%.2f %d,%.2f %d,%.2f %d,%.2f\" fill=\"%s\" "
			"fill-opacity=\"0.18\"/>\n",
			BAR_A_X + BAR_W, a1, BAR_B_X, b1, BAR_B_X, b0, BAR_A_X + BAR_W, a0,
			p->row ? jank_svg_state_colour(p->row->key.state) : OTHER);
	}
	fputs("</g>\n", f);
}

/* Under each bar, away from the other: its group, how many actions, their mean duration. */
static void captions(FILE *f, const struct bars *b)
{
	char text[128], d[32];

	for (int g = 0; g < 2; g++) {
		size_t n = jank_compare_count(b->c, g);

		snprintf(text, sizeof(text), "%s: %zu action%s, mean %s",
			 jank_compare_name(b->c, g), n, n == 1 ? "" : "s",
			 jank_units_duration((int64_t)(jank_compare_duration(b->c, g)->mean + 0.5),
					     d, sizeof(d)));
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\" "
			"text-anchor=\"%s\" fill=\"%s\">",
			g == JANK_CMP_A ? b->x[g] + BAR_W : b->x[g], PLOT_Y0 + PLOT_H + 22,
			g == JANK_CMP_A ? "end" : "start", JANK_SVG_INK);
		jank_svg_escape(f, text, 0);
		fputs("</text>\n", f);
	}
}

/* The states of the pieces, and the largest differences in words. Returns the bottom. */
static double legend(FILE *f, const struct bars *b, double y)
{
	bool used[JANK_STATE_COUNT] = { false };
	double x = MARGIN;
	size_t n, shown = 0;
	const struct jank_cmp_row *rows = jank_compare_rows(b->c, &n);
	char text[160], label[96], d[32];

	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].row)
			used[b->v[i].row->key.state] = true;
	fputs("<g id=\"legend\">\n", f);
	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		if (!used[s])
			continue;
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s</text>\n",
			x, y - 11, jank_svg_state_colour(s), x + 20, y, JANK_SVG_INK,
			jank_state_name(s));
		x += 20 + jank_svg_text_w(strlen(jank_state_name(s)), 12) + 20;
	}
	y += 30;
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\" fill=\"%s\">",
		MARGIN, y, JANK_SVG_INK);
	snprintf(text, sizeof(text),
		 "The largest differences (%s against %s):", jank_compare_name(b->c, JANK_CMP_A),
		 jank_compare_name(b->c, JANK_CMP_B));
	jank_svg_escape(f, text, 0);
	fputs("</text>\n", f);
	for (size_t i = 0; i < n && shown < DIFF_ROWS && rows[i].diff > 0; i++, shown++) {
		y += 20;
		jank_units_duration((int64_t)(rows[i].diff + 0.5), d, sizeof(d));
		snprintf(text, sizeof(text), "+%s  %s", d,
			 jank_compare_label(&rows[i], label, sizeof(label)));
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">", MARGIN + 12,
			y, JANK_SVG_INK);
		jank_svg_escape(f, text, 0);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
	return y;
}

int jank_svg_compare(FILE *f, const struct jank_compare *c, const char *title)
{
	struct bars b = { 0 };
	double height;
	int r = build(&b, c);

	if (r < 0)
		return r;
	height = PLOT_Y0 + PLOT_H + 60 + 30 + 20 * DIFF_ROWS + 40;
	jank_svg_begin(f, WIDTH, height, title);
	fprintf(f, "<text x=\"%d\" y=\"30\" font-size=\"18\" font-weight=\"bold\" fill=\"%s\">",
		MARGIN, JANK_SVG_INK);
	jank_svg_escape(f, title, (size_t)((WIDTH - 2 * MARGIN) / jank_svg_text_w(1, 18)));
	fputs("</text>\n", f);
	fprintf(f,
		"<text x=\"%d\" y=\"52\" font-size=\"13\" fill=\"%s\">by thread and state; the "
		"same pieces in both bars, the largest increase at the bottom</text>\n",
		MARGIN, JANK_SVG_MUTED);
	axis(f, &b);
	bands(f, &b);
	bar(f, &b, JANK_CMP_A);
	bar(f, &b, JANK_CMP_B);
	captions(f, &b);
	legend(f, &b, PLOT_Y0 + PLOT_H + 56);
	free(b.v);
	return jank_svg_end(f);
}
