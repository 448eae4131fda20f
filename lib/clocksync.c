/* SPDX-License-Identifier: MIT */
/*
 * The clock offset between two hosts from their messages (clocksync.h):
 * two convex hulls of bounds, kept small, and a bracket at a given time,
 * the extremes of a two-variable linear program whose optimum is a line
 * through two hull points or through one at the drift bound.
 */
#include <math.h>
#include <string.h>
#include "clocksync.h"

void jank_clocksync_init(struct jank_clocksync *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->max_drift_ppb = JANK_CLOCKSYNC_DRIFT_PPB;
}

/* (a - o) x (b - o): > 0 when o, a, b turn left. Differences are exact; the product is rounded. */
static double cross(const struct jank_clocksync_point *o, const struct jank_clocksync_point *a,
		    const struct jank_clocksync_point *b)
{
	double ax = (double)(a->x - o->x), ay = (double)(a->y - o->y);
	double bx = (double)(b->x - o->x), by = (double)(b->y - o->y);

	return ax * by - ay * bx;
}

/*
 * Insert p into the sorted points v[0..*n) and keep the hull only: the upper
 * hull (`upper`: the line must pass above the points) or the lower one. Of
 * two points at one x, the binding one stays. Past the bound, the oldest
 * point goes (a lost constraint only widens the bracket).
 */
static void hull_add(struct jank_clocksync_point *v, unsigned *n, struct jank_clocksync_point p,
		     bool upper, uint64_t *dropped)
{
	unsigned i = *n, k = 0;

	while (i > 0 && v[i - 1].x > p.x) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = p;
	(*n)++;
	/* Monotone chain over the sorted points, in place (k <= j always). */
	for (unsigned j = 0; j < *n; j++) {
		struct jank_clocksync_point q = v[j];

		if (k > 0 && v[k - 1].x == q.x) {
			if (upper ? q.y <= v[k - 1].y : q.y >= v[k - 1].y)
				continue;
			k--;
		}
		while (k >= 2 && (upper ? cross(&v[k - 2], &v[k - 1], &q) >= 0
					: cross(&v[k - 2], &v[k - 1], &q) <= 0))
			k--;
		v[k++] = q;
	}
	*n = k;
	if (*n > JANK_CLOCKSYNC_HULL) {
		memmove(v, v + 1, (*n - 1) * sizeof(*v));
		(*n)--;
		(*dropped)++;
	}
}

void jank_clocksync_a_to_b(struct jank_clocksync *cs, int64_t send_a, int64_t recv_b)
{
	struct jank_clocksync_point p = { recv_b, send_a - recv_b };

	cs->a_to_b++;
	hull_add(cs->lower, &cs->nlower, p, true, &cs->dropped);
}

void jank_clocksync_b_to_a(struct jank_clocksync *cs, int64_t send_b, int64_t recv_a)
{
	struct jank_clocksync_point p = { send_b, recv_a - send_b };

	cs->b_to_a++;
	hull_add(cs->upper, &cs->nupper, p, false, &cs->dropped);
}

/* The problem at one time: points relative to t (X = x - t), so a line's value at t is c. */
struct lp {
	const struct jank_clocksync *cs;
	int64_t t;
	double m_max;
	double lo, hi; /* the extremes of c over the feasible candidates */
	bool any;
};

#define LP_EPS 0.5 /* ns: a bound met to within rounding */

static double px(const struct lp *lp, const struct jank_clocksync_point *p)
{
	return (double)(p->x - lp->t);
}

/* Does the line c + m X pass above every lower bound and below every upper bound? */
static bool feasible(const struct lp *lp, double m, double c)
{
	const struct jank_clocksync *cs = lp->cs;

	if (fabs(m) > lp->m_max * (1 + 1e-12))
		return false;
	for (unsigned i = 0; i < cs->nlower; i++)
		if (c + m * px(lp, &cs->lower[i]) < (double)cs->lower[i].y - LP_EPS)
			return false;
	for (unsigned i = 0; i < cs->nupper; i++)
		if (c + m * px(lp, &cs->upper[i]) > (double)cs->upper[i].y + LP_EPS)
			return false;
	return true;
}

static void candidate(struct lp *lp, double m, double c)
{
	if (!feasible(lp, m, c))
		return;
	if (!lp->any || c < lp->lo)
		lp->lo = c;
	if (!lp->any || c > lp->hi)
		lp->hi = c;
	lp->any = true;
}

/* The point of all (lower first, then upper) at index i. */
static const struct jank_clocksync_point *point(const struct jank_clocksync *cs, unsigned i)
{
	return i < cs->nlower ? &cs->lower[i] : &cs->upper[i - cs->nlower];
}

/* Every vertex of the feasible region: lines through two points, or one at the drift bound. */
static void solve(struct lp *lp)
{
	const struct jank_clocksync *cs = lp->cs;
	unsigned n = cs->nlower + cs->nupper;

	for (unsigned i = 0; i < n; i++) {
		const struct jank_clocksync_point *p = point(cs, i);
		double xp = px(lp, p), yp = (double)p->y;

		candidate(lp, lp->m_max, yp - lp->m_max * xp);
		candidate(lp, -lp->m_max, yp + lp->m_max * xp);
		for (unsigned j = i + 1; j < n; j++) {
			const struct jank_clocksync_point *q = point(cs, j);
			double xq = px(lp, q), m;

			if (q->x == p->x)
				continue;
			m = ((double)q->y - yp) / (xq - xp);
			if (fabs(m) <= lp->m_max)
				candidate(lp, m, yp - m * xp);
		}
	}
}

/* No clock fits: the middle of the loosest bounds, for lack of better. */
static int64_t inconsistent_estimate(const struct jank_clocksync *cs)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	for (unsigned i = 0; i < cs->nlower; i++)
		if (cs->lower[i].y > lo)
			lo = cs->lower[i].y;
	for (unsigned i = 0; i < cs->nupper; i++)
		if (cs->upper[i].y < hi)
			hi = cs->upper[i].y;
	if (lo == INT64_MIN)
		return hi == INT64_MAX ? 0 : hi;
	if (hi == INT64_MAX)
		return lo;
	return lo + (hi - lo) / 2;
}

void jank_clocksync_at(const struct jank_clocksync *cs, int64_t t_b, struct jank_clock_offset *out)
{
	struct lp lp = { .cs = cs, .t = t_b, .m_max = (double)cs->max_drift_ppb * 1e-9 };

	memset(out, 0, sizeof(*out));
	out->a_to_b = cs->a_to_b;
	out->b_to_a = cs->b_to_a;
	out->lo = INT64_MIN;
	out->hi = INT64_MAX;
	out->consistent = true;
	if (cs->nlower + cs->nupper == 0)
		return;
	solve(&lp);
	if (!lp.any) {
		out->consistent = false;
		out->offset = inconsistent_estimate(cs);
		return;
	}
	/* Inside the bracket: lo rounded up, hi down (a receive stays after its send). */
	if (cs->nlower)
		out->lo = (int64_t)ceil(lp.lo - LP_EPS);
	if (cs->nupper)
		out->hi = (int64_t)floor(lp.hi + LP_EPS);
	if (out->hi < out->lo) /* within rounding of a single line */
		out->hi = out->lo;
	if (cs->nlower && cs->nupper)
		out->offset = out->lo + (out->hi - out->lo) / 2;
	else
		out->offset = cs->nlower ? out->lo : out->hi;
}

int64_t jank_clock_offset_width(const struct jank_clock_offset *o)
{
	if (o->lo == INT64_MIN || o->hi == INT64_MAX)
		return INT64_MAX;
	return o->hi - o->lo;
}
