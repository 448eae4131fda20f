/* SPDX-License-Identifier: MIT */
/*
 * The clock offset between two hosts, from the messages they exchange.
 *
 * Host A is the reference; B's clock reads t_B when A's reads
 * t_B + off(t_B), off a line (an offset and a drift). A message A sent at
 * s_A (A's clock) and B received at r_B (B's clock) was received after it
 * was sent: off(r_B) > s_A - r_B, a lower bound at r_B. A message B sent at
 * s_B and A received at r_A: off(s_B) < r_A - s_B, an upper bound at s_B.
 * The lines above every lower bound and below every upper bound are the
 * possible clocks: only the upper convex hull of the lower bounds and the
 * lower convex hull of the upper bounds matter (Jabbarifar, Dagenais and
 * Shameli-Sendi's streaming synchronisation keeps those hulls). At a time
 * t_B, the possible offsets are a bracket [lo, hi]; the estimate is its
 * middle, so that every message still kept is received after its send.
 *
 * Online and bounded: a point that is not on its hull is dropped at once,
 * and past JANK_CLOCKSYNC_HULL points a hull drops its oldest one (its
 * constraint is lost, the bracket can only widen: never wrong). The drift
 * is bounded by max_drift_ppb (clocks disciplined or not, crystals are
 * within a few hundred ppm), so that a bracket far from the points widens
 * rather than becomes a line through two points that are close together.
 */
#ifndef JANK_CLOCKSYNC_H
#define JANK_CLOCKSYNC_H

#include <stdbool.h>
#include <stdint.h>

#define JANK_CLOCKSYNC_HULL	 32
#define JANK_CLOCKSYNC_DRIFT_PPB 500000 /* 500 ppm, the default bound */

struct jank_clocksync_point {
	int64_t x; /* B's clock */
	int64_t y; /* a bound on off(x) = A's clock - B's clock */
};

struct jank_clocksync {
	int64_t max_drift_ppb;
	/* Lower bounds (A to B), their upper hull; upper bounds (B to A), their lower hull; by x.
	 */
	struct jank_clocksync_point lower[JANK_CLOCKSYNC_HULL + 1];
	struct jank_clocksync_point upper[JANK_CLOCKSYNC_HULL + 1];
	unsigned nlower, nupper;
	uint64_t a_to_b, b_to_a; /* messages seen each way */
	uint64_t dropped;	 /* hull points dropped for the bound (oldest first) */
};

/* What the messages say about off(t) at one time t of B's clock. */
struct jank_clock_offset {
	int64_t offset;	 /* the estimate: A's time = B's time + offset */
	int64_t lo, hi;	 /* the bracket; INT64_MIN / INT64_MAX when a direction has no message */
	bool consistent; /* false: no clock fits every message (a wrong pairing) */
	uint64_t a_to_b, b_to_a;
};

void jank_clocksync_init(struct jank_clocksync *cs);
/* A message A sent at send_a (A's clock) that B received at recv_b (B's clock). */
void jank_clocksync_a_to_b(struct jank_clocksync *cs, int64_t send_a, int64_t recv_b);
/* A message B sent at send_b (B's clock) that A received at recv_a (A's clock). */
void jank_clocksync_b_to_a(struct jank_clocksync *cs, int64_t send_b, int64_t recv_a);
/*
 * The offset at t_b. Without any message: offset 0, an unbounded bracket.
 * With messages one way only: the estimate is the bound (a message takes no
 * time), the other side of the bracket unbounded. O(hull^3): a few 100k
 * operations at most.
 */
void jank_clocksync_at(const struct jank_clocksync *cs, int64_t t_b, struct jank_clock_offset *out);
/* The width of a bracket (its quality), INT64_MAX when unbounded. */
int64_t jank_clock_offset_width(const struct jank_clock_offset *o);

#endif
