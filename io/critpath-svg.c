/* SPDX-License-Identifier: MIT */
/*
 * The critical-path picture (see svg.h), written with fprintf.
 *
 * Layout, top to bottom, 1200 px wide: the title (action, key, duration vs
 * threshold) and a subtitle; the marker labels (begin, threshold, end); one
 * lane per thread of the path, the action's own thread first, then in order
 * of appearance, each labelled with its tid, comm and time on the path; the
 * time axis, in the unit that suits the action (ns, µs, ms, s) from its
 * begin; the legend: each state on the path with its time and share, then
 * the arrow and marker keys.
 *
 * A step (consecutive segments of one thread in one state and one call
 * stack) is one rectangle, at least MIN_SEG_W wide so that a 1 µs step in a
 * 1 s action still shows, with its innermost function, state and duration
 * written inside as far as they fit (the state, then the duration, are left
 * out before the function is cut to the width), and its whole stack in its
 * tooltip ("f ← g ← h", innermost first).
 * A lane's tooltip names the functions its thread spent the most time in on
 * the path. Function names come from the traced binaries: escaped, like
 * every traced string. Where the path moves to another thread there is
 * either a wakeup (a solid arrow from the waker's lane down or up to the
 * woken thread's lane) or the start of a wait (a dashed line from the
 * waiting thread to the one it waits for).
 *
 * Text widths are estimated (EM_RATIO per character), generously, so that
 * labels are only drawn where they fit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "critpath-svg-int.h"

/* ---- Geometry ---- */

static double xof(const struct picture *pic, int64_t t)
{
	double span = (double)(pic->t1 - pic->t0);

	return PLOT_X0 + (double)(t - pic->t0) * (PLOT_X1 - PLOT_X0) / (span > 0 ? span : 1);
}

static double lane_y(size_t lane)
{
	return LANES_Y + (double)lane * LANE_H;
}

/* ---- Drawing ---- */

static void title(FILE *f, const struct picture *pic, const char *subtitle)
{
	const struct jank_verdict *r = pic->r;
	char d[32], t[32], text[512];
	size_t max = (size_t)((WIDTH - 2 * MARGIN) / jank_svg_text_w(1, 18) / 1.08);

	snprintf(text, sizeof(text), "%s %s%s%s%s: %s%s",
		 r->kind == JANK_VERDICT_OVERDUE ? "OVERDUE"
		 : r->over_threshold		 ? "JANK"
						 : "action",
		 r->rule && r->rule->name ? r->rule->name : "?", r->key && r->key[0] ? " [" : "",
		 r->key && r->key[0] ? r->key : "", r->key && r->key[0] ? "]" : "",
		 jank_units_duration(r->duration, d, sizeof(d)),
		 r->kind == JANK_VERDICT_OVERDUE ? " and still open" : "");
	if (r->threshold > 0) {
		size_t n = strlen(text);

		snprintf(text + n, sizeof(text) - n, " (threshold %s, %.1f×)",
			 jank_units_duration(r->threshold, t, sizeof(t)),
			 (double)r->duration / (double)r->threshold);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"18\" font-weight=\"bold\" fill=\"%s\">",
		MARGIN, TITLE_Y, JANK_SVG_INK);
	jank_svg_escape(f, text, max);
	fputs("</text>\n", f);
	if (subtitle && subtitle[0]) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"%s\">", MARGIN, SUB_Y,
			JANK_SVG_MUTED);
		jank_svg_escape(f, subtitle,
				(size_t)((WIDTH - 2 * MARGIN) / jank_svg_text_w(1, 13)));
		fputs("</text>\n", f);
	}
}

/* ---- Functions ---- */

/* A frame's text: its name, or its address while it has none. */
static const char *frame_text(const struct jank_frame *fr, char *buf, size_t len)
{
	if (fr && fr->name[0])
		return fr->name;
	snprintf(buf, len, "0x%" PRIx64, fr ? fr->addr : 0);
	return buf;
}

/* The innermost function of a stack, NULL when none. */
static const char *innermost(const struct picture *pic, uint32_t stack, char *buf, size_t len)
{
	uint32_t id = stack ? jank_path_innermost(pic->p, stack) : 0;

	return id ? frame_text(jank_path_frame_of(pic->p, id), buf, len) : NULL;
}

/* A stack, innermost first and escaped: "f ← g ← h". */
static void write_stack(FILE *f, const struct picture *pic, uint32_t stack)
{
	uint32_t n = 0;
	const uint32_t *ids = jank_path_stack_of(pic->p, stack, &n);
	char hex[24];

	for (uint32_t k = 0; ids && k < n; k++) {
		if (k == STACK_TITLE_FRAMES) {
			fputs(" ← …", f);
			break;
		}
		if (k)
			fputs(" ← ", f);
		jank_svg_escape(
			f, frame_text(jank_path_frame_of(pic->p, ids[n - 1 - k]), hex, sizeof(hex)),
			0);
	}
}

/* Time of a lane's steps per innermost function. */
struct lane_fn {
	uint32_t frame;
	int64_t ns;
};

static int cmp_lane_fn(const void *a, const void *b)
{
	const struct lane_fn *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/*
 * A lane's tooltip, when its steps were in functions: "tid 42 (app): 30.1 ms
 * on the path, most in apply_discounts 29.8 ms, log_line 100 us".
 */
static void lane_title(FILE *f, const struct picture *pic, size_t lane)
{
	struct lane_fn fns[32];
	size_t n = 0;
	char d[32], hex[24];

	for (size_t i = 0; i < pic->nsteps; i++) {
		const struct step *s = &pic->steps[i];
		uint32_t fr = s->stack ? jank_path_innermost(pic->p, s->stack) : 0;
		size_t k = 0;

		if (!fr || critpath_svg_lane_of(pic, s->host, s->tid) != lane)
			continue;
		while (k < n && fns[k].frame != fr)
			k++;
		if (k == n && n == sizeof(fns) / sizeof(fns[0]))
			continue; /* the lane's 32 first functions are enough to name the top ones
				   */
		if (k == n)
			fns[n++] = (struct lane_fn){ fr, 0 };
		fns[k].ns += s->end - s->begin;
	}
	if (!n)
		return;
	qsort(fns, n, sizeof(*fns), cmp_lane_fn);
	fputs("<title>", f);
	if (pic->lanes[lane].tid < 0) {
		fprintf(f, "%zu other threads", pic->lanes[lane].nthreads);
	} else {
		fprintf(f, "tid %" PRId32 " (", pic->lanes[lane].tid);
		jank_svg_escape(f, pic->lanes[lane].comm, 0);
		fputc(')', f);
	}
	fprintf(f, ": %s on the path, most in ",
		jank_units_duration(pic->lanes[lane].ns, d, sizeof(d)));
	for (size_t k = 0; k < n && k < LANE_FUNCTIONS; k++) {
		fputs(k ? ", " : "", f);
		jank_svg_escape(
			f, frame_text(jank_path_frame_of(pic->p, fns[k].frame), hex, sizeof(hex)),
			0);
		fprintf(f, " %s", jank_units_duration(fns[k].ns, d, sizeof(d)));
	}
	fputs("</title>\n", f);
}

/*
 * A path across hosts: each host's lanes are together, named at their top
 * right, a dashed line between two hosts' lanes.
 */
static void host_separators(FILE *f, const struct picture *pic)
{
	bool multi = false;

	for (size_t i = 1; i < pic->nlanes && !multi; i++)
		multi = pic->lanes[i].tid >= 0 && pic->lanes[i].host != pic->lanes[0].host;
	for (size_t i = 0; multi && i < pic->nlanes; i++) {
		const struct lane *l = &pic->lanes[i];
		double y = lane_y(i);

		if (l->tid < 0 || (i > 0 && l->host == pic->lanes[i - 1].host))
			continue;
		fputs("<g class=\"host-separator\" data-host=\"", f);
		jank_svg_escape(f, critpath_svg_host_name(pic, l->host), 0);
		fputs("\">\n", f);
		if (i > 0)
			fprintf(f,
				"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
				MARGIN - 6, y, WIDTH - MARGIN + 6, y, JANK_SVG_MUTED);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
			"fill=\"%s\">host ",
			WIDTH - MARGIN, y + 9, JANK_SVG_MUTED);
		jank_svg_escape(f, critpath_svg_host_name(pic, l->host), 32);
		fputs("</text>\n</g>\n", f);
	}
}

static void lanes(FILE *f, const struct picture *pic)
{
	char d[32], tid[48];

	fputs("<g id=\"lanes\">\n", f);
	for (size_t i = 0; i < pic->nlanes; i++) {
		const struct lane *l = &pic->lanes[i];
		double y = lane_y(i);

		if (l->tid < 0)
			fprintf(f, "<g class=\"lane-other\" data-threads=\"%zu\">\n", l->nthreads);
		else
			fprintf(f, "<g class=\"lane\" data-tid=\"%" PRId32 "\">\n", l->tid);
		lane_title(f, pic, i);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			MARGIN - 6, y, WIDTH - 2 * MARGIN + 12, LANE_H,
			i % 2 ? "#ffffff" : "#f6f7f9");
		if (l->tid < 0)
			snprintf(tid, sizeof(tid), "%zu other threads", l->nthreads);
		else
			snprintf(tid, sizeof(tid), "tid %" PRId32, l->tid);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\" "
			"fill=\"%s\">%s",
			MARGIN, y + 21, JANK_SVG_INK, tid);
		/* A lane per thread of each host: the host is named (a trace's name: escaped). */
		if (l->tid >= 0 && l->host) {
			fputs(" on ", f);
			jank_svg_escape(f, critpath_svg_host_name(pic, l->host), 0);
		}
		fprintf(f, "%s</text>\n", l->tid >= 0 && l->action ? " (action)" : "");
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">", MARGIN,
			y + 38, JANK_SVG_MUTED);
		jank_svg_escape(f,
				l->tid < 0   ? "the least on the path"
				: l->comm[0] ? l->comm
					     : "?",
				16 + (l->tid < 0) * 8);
		fprintf(f, " · %s</text>\n", jank_units_duration(l->ns, d, sizeof(d)));
		/* The lane's baseline: where the thread is not on the path. */
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#cfd3d8\" "
			"stroke-width=\"1\"/>\n",
			PLOT_X0, y + BAR_Y + BAR_H / 2.0, PLOT_X1, y + BAR_Y + BAR_H / 2.0);
		fputs("</g>\n", f);
	}
	host_separators(f, pic);
	for (size_t k = 0; k < pic->ndevices; k++) {
		size_t lane = pic->nlanes + k;
		double y = lane_y(lane);
		const char *name = "?", *what = "";

		critpath_svg_device_state(pic->devices[k], &name, &what);
		fprintf(f, "<g class=\"device-lane\" data-state=\"%s\">\n",
			jank_state_name(pic->devices[k]));
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			MARGIN - 6, y, WIDTH - 2 * MARGIN + 12, LANE_H,
			lane % 2 ? "#ffffff" : "#f6f7f9");
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\" "
			"font-style=\"italic\" fill=\"%s\">%s</text>\n",
			MARGIN, y + 21, JANK_SVG_INK, name);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s</text>\n",
			MARGIN, y + 38, JANK_SVG_MUTED, what);
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
}

static void grid(FILE *f, const struct picture *pic, int64_t begin, int64_t end)
{
	int64_t step = jank_svg_tick_step(end - begin), div;
	double top = LANES_Y, bottom = pic->lanes_bottom;
	const char *unit;

	jank_svg_tick_unit(step, &div, &unit);
	fputs("<g id=\"axis\">\n", f);
	fprintf(f,
		"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"1\"/>\n",
		PLOT_X0, bottom + 4, PLOT_X1, bottom + 4, JANK_SVG_MUTED);
	for (int64_t k = 0; begin + k * step <= end; k++) {
		double x = xof(pic, begin + k * step);
		int64_t v = k * step / div;

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1\"/>\n",
			x, top, x, bottom, JANK_SVG_GRID);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1\"/>\n",
			x, bottom + 4, x, bottom + 10, JANK_SVG_MUTED);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
			"fill=\"%s\">%" PRId64 " %s</text>\n",
			x, bottom + 25, JANK_SVG_INK, v, unit);
	}
	fprintf(f,
		"<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" fill=\"%s\">time "
		"since the action began</text>\n",
		PLOT_X0 - 12, bottom + 25, JANK_SVG_MUTED);
	fputs("</g>\n", f);
}

/*
 * Inside a bar, as much as fits of "function · state duration": the
 * function alone, cut to the bar, before the state and duration are left
 * out; without a function, "state duration", or the duration alone.
 */
static void segment_label(FILE *f, const struct picture *pic, const struct step *s, double x,
			  double w, double y)
{
	char d[32], sd[64], hex[24];
	const char *fn = innermost(pic, s->stack, hex, sizeof(hex));
	size_t room = w > 10 ? (size_t)((w - 10) / jank_svg_text_w(1, 12)) : 0, fn_chars = 0;
	const char *rest = NULL;

	jank_units_duration(s->end - s->begin, d, sizeof(d));
	snprintf(sd, sizeof(sd), "%s %s", jank_state_name(s->state), d);
	if (fn) {
		/* " · " is three characters. */
		fn_chars = jank_svg_text_chars(fn);
		if (fn_chars + 3 + strlen(sd) <= room)
			rest = sd;
		else if (fn_chars + 3 + strlen(d) <= room)
			rest = d;
		else if (room >= FN_MIN_CHARS)
			fn_chars = fn_chars < room ? fn_chars : room;
		else
			fn = NULL;
	}
	if (!fn)
		rest = strlen(sd) <= room ? sd : strlen(d) <= room ? d : NULL;
	if (!fn && !rest)
		return;
	fprintf(f,
		"<text %sx=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		"fill=\"%s\" pointer-events=\"none\">",
		fn ? "class=\"function\" " : "", x + w / 2, y + BAR_H / 2.0 + 4.5,
		jank_svg_light_fill(s->state) ? JANK_SVG_INK : "#ffffff");
	if (fn)
		jank_svg_escape(f, fn, fn_chars);
	if (fn && rest)
		fputs(" · ", f);
	if (rest)
		jank_svg_escape(f, rest, 0);
	fputs("</text>\n", f);
}

/*
 * The steps as bars. Steps narrower than MIN_SEG_W are widened, and drawn
 * in a second pass, over their neighbours: else the next bar would hide them.
 */
static void segments(FILE *f, const struct picture *pic)
{
	fputs("<g id=\"segments\">\n", f);
	for (size_t k = 0; k < 2 * pic->nsteps; k++) {
		const struct step *s = &pic->steps[k % pic->nsteps];
		double x = xof(pic, s->begin), w = xof(pic, s->end) - x;
		double y = lane_y(critpath_svg_lane_of(pic, s->host, s->tid)) + BAR_Y;
		char d[32];

		if ((w < MIN_SEG_W) != (k >= pic->nsteps))
			continue;
		jank_units_duration(s->end - s->begin, d, sizeof(d));
		if (w < MIN_SEG_W)
			w = MIN_SEG_W;
		fprintf(f,
			"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"%s>"
			"<title>tid %" PRId32 " (",
			x, y, w, BAR_H, jank_svg_state_colour(s->state),
			s->state == JANK_STATE_UNKNOWN ? " stroke=\"#9e9e9e\" stroke-width=\"0.5\""
						       : "",
			s->tid);
		jank_svg_escape(f, s->comm, 0);
		fprintf(f, "): %s %s", jank_state_name(s->state), d);
		if (s->stack && jank_path_innermost(pic->p, s->stack)) {
			fputs(" in ", f);
			write_stack(f, pic, s->stack);
		}
		fputs("</title></rect>\n", f);
		segment_label(f, pic, s, x, w, y);
	}
	fputs("</g>\n", f);
}

/* Where the path changes thread: wakeup arrows and wait lines. */
static void handoffs(FILE *f, const struct picture *pic)
{
	fputs("<g id=\"handoffs\">\n", f);
	for (size_t i = 1; i < pic->nsteps; i++) {
		const struct step *a = &pic->steps[i - 1], *b = &pic->steps[i];
		size_t la, lb;
		double x, y1, y2;
		bool other;

		if (a->tid == b->tid && a->host == b->host)
			continue;
		la = critpath_svg_lane_of(pic, a->host, a->tid);
		lb = critpath_svg_lane_of(pic, b->host, b->tid);
		if (la == lb)
			continue; /* two of the other threads */
		/* To or from the other threads' lane: lighter, not to hide the lanes it crosses. */
		other = pic->lanes[la].tid < 0 || pic->lanes[lb].tid < 0;
		/* A hair left of the handoff, on the waker's side: the woken step stays visible. */
		x = xof(pic, b->begin) - 1;
		y1 = lane_y(la) + BAR_Y + (lb > la ? BAR_H : 0);
		y2 = lane_y(lb) + BAR_Y + (lb > la ? -1 : BAR_H + 1);
		if (!b->wakeup && other)
			continue; /* too many to be of use, and they would hide the lanes */
		if (b->wakeup)
			fprintf(f,
				"<line class=\"wakeup\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\" "
				"marker-end=\"url(#%s)\"><title>tid %" PRId32 " wakes tid %" PRId32
				"</title></line>\n",
				x, y1, x, y2, other ? JANK_SVG_MUTED : JANK_SVG_INK,
				other ? "1" : "1.8", other ? "arrow-light" : "arrow", a->tid,
				b->tid);
		else
			fprintf(f,
				"<line class=\"wait\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\" "
				"stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\">"
				"<title>tid %" PRId32 " waits for tid %" PRId32 "</title></line>\n",
				x, y1, x, y2, JANK_SVG_MUTED, a->tid, b->tid);
	}
	fputs("</g>\n", f);
}

/*
 * On a device lane, each wait it ended: a light bar over the wait, and an
 * arrow to the waiting thread where the interrupt woke it.
 */
static void device_waits(FILE *f, const struct picture *pic)
{
	char d[32];

	if (!pic->ndevices)
		return;
	fputs("<g id=\"devices\">\n", f);
	for (size_t i = 0; i < pic->nsteps; i++) {
		const struct step *s = &pic->steps[i];
		double x, w, y, ty;
		char label[64];

		if (!critpath_svg_device_state(s->state, NULL, NULL))
			continue;
		x = xof(pic, s->begin);
		w = xof(pic, s->end) - x;
		if (w < MIN_SEG_W)
			w = MIN_SEG_W;
		y = lane_y(critpath_svg_device_lane(pic, s->state)) + BAR_Y + 4;
		ty = lane_y(critpath_svg_lane_of(pic, s->host, s->tid)) + BAR_Y + BAR_H + 1;
		fprintf(f,
			"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			"fill-opacity=\"0.3\" stroke=\"%s\" stroke-width=\"1\"><title>tid %" PRId32
			" waits %s (%s)</title></rect>\n",
			x, y, w, BAR_H - 8, jank_svg_state_colour(s->state),
			jank_svg_state_colour(s->state), s->tid,
			jank_units_duration(s->end - s->begin, d, sizeof(d)),
			jank_state_name(s->state));
		snprintf(label, sizeof(label), "tid %" PRId32 " waits %s", s->tid, d);
		if (jank_svg_text_w(strlen(label), 12) + 10 <= w)
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
				"text-anchor=\"middle\" "
				"fill=\"%s\">%s</text>\n",
				x + w / 2, y + (BAR_H - 8) / 2.0 + 4.5, JANK_SVG_INK, label);
		/* The wait ended inside the action: the interrupt woke the thread. */
		if (s->end < pic->p->end)
			fprintf(f,
				"<line class=\"wakeup\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.8\" "
				"marker-end=\"url(#arrow)\"><title>%s wakes tid %" PRId32
				"</title></line>\n",
				x + w - 1, y, x + w - 1, ty, JANK_SVG_INK,
				jank_state_name(s->state), s->tid);
	}
	fputs("</g>\n", f);
}

struct mark {
	double x;
	const char *label;
	const char *colour;
	const char *anchor;
	double w;
};

/*
 * The action's begin and end (and threshold) as vertical lines, labelled
 * above the lanes. Begin and end are drawn under the segments (`under`),
 * which they border anyway, so that a tiny step at the edge stays visible;
 * the threshold is drawn over them, with a white halo that keeps its dashes
 * visible on any fill.
 */
static void markers(FILE *f, const struct picture *pic, bool under)
{
	const struct jank_verdict *r = pic->r;
	char thr[48], d[32];
	struct mark m[3];
	size_t n = 0;
	int top[3] = { MARK_Y + 4, MARK_Y + 4, MARK_Y + 4 },
	    label_y[3] = { MARK_Y, MARK_Y, MARK_Y };

	m[n++] = (struct mark){ xof(pic, r->begin), "begin", JANK_SVG_INK, "start", 0 };
	m[n++] = (struct mark){ xof(pic, r->end),
				r->kind == JANK_VERDICT_OVERDUE ? "last event" : "end",
				JANK_SVG_INK, "end", 0 };
	if (r->threshold > 0 && r->threshold < r->duration) {
		snprintf(thr, sizeof(thr), "threshold %s",
			 jank_units_duration(r->threshold, d, sizeof(d)));
		m[n++] = (struct mark){ xof(pic, r->begin + r->threshold), thr, JANK_SVG_RED,
					"middle", 0 };
	}
	for (size_t i = 0; i < n; i++)
		m[i].w = jank_svg_text_w(strlen(m[i].label), 12);
	/*
	 * Begin reads rightwards, end leftwards; the threshold is centred on its
	 * line between them, or on a row above them when it would touch either.
	 */
	if (n == 3) {
		double left = m[2].x - m[2].w / 2, right = m[2].x + m[2].w / 2;

		if (left < m[0].x + m[0].w + 8 || right > m[1].x - m[1].w - 8) {
			label_y[2] = MARK_Y - 15;
			top[2] = MARK_Y - 11;
			if (left < PLOT_X0)
				m[2].x = PLOT_X0 + m[2].w / 2;
			if (right > PLOT_X1)
				m[2].x = PLOT_X1 - m[2].w / 2;
		}
	}
	fprintf(f, "<g id=\"markers%s\">\n", under ? "-under" : "");
	for (size_t i = 0; i < n; i++) {
		double x = i < 2 ? m[i].x : xof(pic, r->begin + r->threshold);

		if (under != (i < 2))
			continue;
		if (!under)
			fprintf(f,
				"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\" "
				"stroke=\"#ffffff\" stroke-width=\"4\" stroke-opacity=\"0.85\"/>\n",
				x, MARK_Y + 4, x, pic->lanes_bottom);
		fprintf(f,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
			x, top[i], x, pic->lanes_bottom, m[i].colour);
	}
	for (size_t i = 0; !under && i < n; i++)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"%s\" "
			"fill=\"%s\">%s</text>\n",
			m[i].x, label_y[i], m[i].anchor, m[i].colour, m[i].label);
	fputs("</g>\n", f);
}

/*
 * One legend entry; returns the x after it, wrapping to a new row when
 * needed. With f NULL, only the layout is done (to size the picture).
 */
static double legend_item(FILE *f, double x, double *y, const char *swatch, const char *text)
{
	double w = 22 + jank_svg_text_w(jank_svg_text_chars(text), 12) + 24;

	if (x + w > WIDTH - MARGIN && x > MARGIN) {
		x = MARGIN;
		*y += 22;
	}
	if (!f)
		return x + w; /* layout only */
	if (!strcmp(swatch, "wakeup"))
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1.8\" marker-end=\"url(#arrow)\"/>\n",
			x, *y - 4, x + 15, *y - 4, JANK_SVG_INK);
	else if (!strcmp(swatch, "wait"))
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1.2\" stroke-dasharray=\"4 3\"/>\n",
			x, *y - 4, x + 16, *y - 4, JANK_SVG_MUTED);
	else if (!strcmp(swatch, "device"))
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"10\" fill=\"%s\" "
			"fill-opacity=\"0.3\" stroke=\"%s\" stroke-width=\"1\"/>\n",
			x, *y - 9, JANK_SVG_MUTED, JANK_SVG_MUTED);
	else if (!strcmp(swatch, "threshold"))
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
			x + 8, *y - 13, x + 8, *y + 4, JANK_SVG_RED);
	else
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" "
			"stroke=\"#9e9e9e\" stroke-width=\"0.5\"/>\n",
			x, *y - 11, swatch);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">", x + 22, *y,
		JANK_SVG_INK);
	jank_svg_escape(f, text, 0);
	fputs("</text>\n", f);
	return x + w;
}

static double legend(FILE *f, const struct picture *pic, double y)
{
	int64_t per[JANK_STATE_COUNT] = { 0 }, total = pic->p->end - pic->p->begin;
	int order[JANK_STATE_COUNT], n = 0;
	bool waits = false, wakeups = false;
	double x = MARGIN;
	char text[96], d[32];

	for (size_t i = 0; i < pic->nsteps; i++) {
		per[pic->steps[i].state] += pic->steps[i].end - pic->steps[i].begin;
		if (i && critpath_svg_step_thread(&pic->steps[i]) !=
				 critpath_svg_step_thread(&pic->steps[i - 1]))
			*(pic->steps[i].wakeup ? &wakeups : &waits) = true;
	}
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		if (per[s] > 0)
			order[n++] = s;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && per[order[j]] > per[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (f)
		fputs("<g id=\"legend\">\n", f);
	for (int i = 0; i < n; i++) {
		double pc = total > 0 ? 100.0 * (double)per[order[i]] / (double)total : 0.0;

		if (pc < 0.05)
			snprintf(text, sizeof(text), "%s %s (<0.1%%)", jank_state_name(order[i]),
				 jank_units_duration(per[order[i]], d, sizeof(d)));
		else
			snprintf(text, sizeof(text), "%s %s (%.1f%%)", jank_state_name(order[i]),
				 jank_units_duration(per[order[i]], d, sizeof(d)), pc);
		x = legend_item(f, x, &y, jank_svg_state_colour(order[i]), text);
	}
	x = MARGIN;
	y += 24;
	if (wakeups)
		x = legend_item(f, x, &y, "wakeup", "wakeup: the waker's lane → the woken thread");
	if (waits)
		x = legend_item(f, x, &y, "wait", "waits for: the path follows the other thread");
	if (pic->ndevices)
		x = legend_item(f, x, &y, "device",
				"italic lanes: what a wait ended by an interrupt waited for");
	if (pic->r->threshold > 0 && pic->r->threshold < pic->r->duration)
		x = legend_item(f, x, &y, "threshold", "the threshold, from the action's begin");
	if (f)
		fputs("</g>\n", f);
	return y;
}

int jank_svg_critpath(FILE *f, const struct jank_verdict *r, const struct jank_graph *g,
		      const char *subtitle)
{
	struct picture pic = { 0 };
	char doc_title[128];
	int64_t begin, end, pad;
	double height, y;
	int ret;

	if (!r->path || r->path->n == 0)
		return -EINVAL;
	ret = critpath_svg_build(&pic, r);
	if (ret < 0)
		goto end;
	critpath_svg_find_wakeups(&pic, g);
	critpath_svg_find_devices(&pic);
	begin = r->path->begin;
	end = r->path->end;
	pad = (end - begin) / 60 + 1;
	pic.t0 = begin - pad;
	pic.t1 = end + pad;
	pic.lanes_bottom = lane_y(pic.nlanes + pic.ndevices);
	y = pic.lanes_bottom + 62; /* the legend's first row, under the axis */
	height = legend(NULL, &pic, y) + 18;

	snprintf(doc_title, sizeof(doc_title), "%s: critical path",
		 r->rule && r->rule->name ? r->rule->name : "action");
	jank_svg_begin(f, WIDTH, height, doc_title);
	fprintf(f,
		"<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
		"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
		"<path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>"
		"<marker id=\"arrow-light\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
		"markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\">"
		"<path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker></defs>\n",
		JANK_SVG_INK, JANK_SVG_MUTED);
	title(f, &pic, subtitle);
	lanes(f, &pic);
	grid(f, &pic, begin, end);
	markers(f, &pic, true);
	segments(f, &pic);
	handoffs(f, &pic);
	device_waits(f, &pic);
	markers(f, &pic, false);
	legend(f, &pic, y);
	ret = jank_svg_end(f);
end:
	free(pic.steps);
	free(pic.lanes);
	free(pic.refs);
	return ret;
}
