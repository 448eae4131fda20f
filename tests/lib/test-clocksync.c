/* SPDX-License-Identifier: MIT */
/*
 * lib/clocksync.c: the offset between two hosts' clocks from synthetic
 * messages with a known offset, drift and latencies: the bracket holds the
 * truth, narrows with messages both ways, stays bounded in memory, and every
 * message is received after its send once its times are converted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "clocksync.h"

#define MS 1000000LL
#define US 1000LL

/* B's clock against A's: A's time = t_B + c0 + drift_ppb * (t_B - base) / 1e9. */
struct truth {
	int64_t c0;
	int64_t base;
	double drift; /* per ns */
};

static double true_off(const struct truth *t, int64_t tb)
{
	return (double)t->c0 + t->drift * (double)(tb - t->base);
}

/* B's clock when A's reads ta. */
static int64_t b_of_a(const struct truth *t, int64_t ta)
{
	return (int64_t)(((double)ta - (double)t->c0 + t->drift * (double)t->base) /
			 (1 + t->drift));
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A latency: at least min, up to min + spread. */
static int64_t latency(int64_t min, int64_t spread)
{
	return min + (int64_t)(next_rand() % (uint64_t)(spread + 1));
}

struct msg {
	bool a_to_b;
	int64_t send, recv; /* each on its own host's clock */
};

/* n messages each way, one every `step` ns of A's time from `from`. */
static size_t exchange(struct jank_clocksync *cs, const struct truth *t, int64_t from, int64_t step,
		       size_t n, int64_t min_lat, struct msg *log)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t ta = from + (int64_t)i * step;
		int64_t ra = ta + latency(min_lat, 2 * MS);
		int64_t sb = b_of_a(t, ta + step / 2);
		int64_t rb = b_of_a(t, ra);
		int64_t ra2 = ta + step / 2 + latency(min_lat, 2 * MS);

		jank_clocksync_a_to_b(cs, ta, rb);
		jank_clocksync_b_to_a(cs, sb, ra2);
		if (log) {
			log[k++] = (struct msg){ true, ta, rb };
			log[k++] = (struct msg){ false, sb, ra2 };
		}
	}
	return k;
}

static void assert_brackets(const struct jank_clocksync *cs, const struct truth *t, int64_t tb)
{
	struct jank_clock_offset o;
	double off = true_off(t, tb);

	jank_clocksync_at(cs, tb, &o);
	assert_true(o.consistent);
	assert_true((double)o.lo <= off + 1);
	assert_true((double)o.hi >= off - 1);
	assert_true(o.lo <= o.offset && o.offset <= o.hi);
}

static void no_message(void **state)
{
	struct jank_clocksync cs;
	struct jank_clock_offset o;

	(void)state;
	jank_clocksync_init(&cs);
	jank_clocksync_at(&cs, 123, &o);
	assert_int_equal(o.offset, 0);
	assert_true(o.lo == INT64_MIN && o.hi == INT64_MAX);
	assert_true(jank_clock_offset_width(&o) == INT64_MAX);
}

/* A constant offset of 37 ms: bracketed, to within the fastest messages each way. */
static void constant_offset(void **state)
{
	struct truth t = { 37 * MS, 0, 0 };
	struct jank_clocksync cs;
	struct jank_clock_offset o;

	(void)state;
	jank_clocksync_init(&cs);
	exchange(&cs, &t, 1000 * MS, 10 * MS, 200, 50 * US, NULL);
	for (int64_t tb = 900 * MS; tb < 3200 * MS; tb += 100 * MS)
		assert_brackets(&cs, &t, tb);
	jank_clocksync_at(&cs, 2000 * MS, &o);
	/* The fastest messages took 50 us or little more each way. */
	assert_true(jank_clock_offset_width(&o) < 400 * US);
	assert_true(llabs(o.offset - 37 * MS) < 200 * US);
	assert_int_equal(o.a_to_b, 200);
	assert_int_equal(o.b_to_a, 200);
}

/* 80 ppm of drift over 20 s: the bracket follows the line, and holds past the last message. */
static void drift(void **state)
{
	struct truth t = { -37 * MS, 5000 * MS, 80e-6 };
	struct jank_clocksync cs;
	struct jank_clock_offset a, b;

	(void)state;
	jank_clocksync_init(&cs);
	exchange(&cs, &t, 5000 * MS, 100 * MS, 200, 20 * US, NULL);
	for (int64_t tb = 5000 * MS; tb < 26000 * MS; tb += 250 * MS)
		assert_brackets(&cs, &t, tb);
	jank_clocksync_at(&cs, 5100 * MS, &a);
	jank_clocksync_at(&cs, 24900 * MS, &b);
	/* The drift shows: 80 ppm of 19.8 s is 1.58 ms. */
	assert_true(llabs((b.offset - a.offset) - 1584 * US) < 300 * US);
	assert_true(jank_clock_offset_width(&a) < 500 * US);
}

/* One way only: a bound, and an estimate on it (a message takes no time). */
static void one_way(void **state)
{
	struct truth t = { 37 * MS, 0, 0 };
	struct jank_clocksync cs;
	struct jank_clock_offset o;

	(void)state;
	jank_clocksync_init(&cs);
	for (int i = 0; i < 50; i++) {
		int64_t ta = 1000 * MS + i * 10 * MS;

		jank_clocksync_a_to_b(&cs, ta, b_of_a(&t, ta + latency(100 * US, MS)));
	}
	jank_clocksync_at(&cs, b_of_a(&t, 1200 * MS), &o);
	assert_true(o.consistent);
	assert_true(o.hi == INT64_MAX);
	assert_true(o.lo <= 37 * MS);
	assert_int_equal(o.offset, o.lo);
	assert_true(37 * MS - o.lo < 2 * MS);
}

/* Messages that no clock fits: a pairing was wrong. */
static void inconsistent(void **state)
{
	struct jank_clocksync cs;
	struct jank_clock_offset o;

	(void)state;
	jank_clocksync_init(&cs);
	jank_clocksync_a_to_b(&cs, 1000 * MS, 990 * MS);  /* off > 10 ms */
	jank_clocksync_b_to_a(&cs, 1000 * MS, 1000 * MS); /* off < 0 */
	jank_clocksync_at(&cs, 1000 * MS, &o);
	assert_false(o.consistent);
	assert_int_equal(o.offset, 5 * MS);
}

/* 100,000 messages each way: the hulls stay bounded, and still bracket the truth. */
static void bounded(void **state)
{
	struct truth t = { 37 * MS, 0, 30e-6 };
	struct jank_clocksync cs;

	(void)state;
	jank_clocksync_init(&cs);
	exchange(&cs, &t, 0, 1 * MS, 100000, 30 * US, NULL);
	assert_true(cs.nlower <= JANK_CLOCKSYNC_HULL);
	assert_true(cs.nupper <= JANK_CLOCKSYNC_HULL);
	for (int64_t tb = 90000 * MS; tb < 101000 * MS; tb += 500 * MS)
		assert_brackets(&cs, &t, tb);
	assert_int_equal(cs.a_to_b, 100000);
}

/* Converted with the estimate, every message is received after it was sent. */
static void causal(void **state)
{
	struct truth t = { 37 * MS, 0, 20e-6 };
	struct msg log[2 * 300];
	struct jank_clocksync cs;
	size_t n;

	(void)state;
	jank_clocksync_init(&cs);
	n = exchange(&cs, &t, 1000 * MS, 7 * MS, 300, 5 * US, log);
	assert_int_equal(cs.dropped, 0);
	for (size_t i = 0; i < n; i++) {
		struct jank_clock_offset o;

		if (log[i].a_to_b) {
			jank_clocksync_at(&cs, log[i].recv, &o);
			assert_true(log[i].recv + o.offset >= log[i].send);
		} else {
			jank_clocksync_at(&cs, log[i].send, &o);
			assert_true(log[i].send + o.offset <= log[i].recv);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_message),	cmocka_unit_test(constant_offset),
		cmocka_unit_test(drift),	cmocka_unit_test(one_way),
		cmocka_unit_test(inconsistent), cmocka_unit_test(bounded),
		cmocka_unit_test(causal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
