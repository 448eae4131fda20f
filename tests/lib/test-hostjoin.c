/* SPDX-License-Identifier: MIT */
/*
 * lib/hostjoin.c and jank_crosshost_splice: the online join of two hosts'
 * flows. A client on alpha (tid 100) asks a server on beta (tid 200, the
 * same tid as a thread of alpha) and waits for its reply: the reply's `to`
 * on alpha's path meets beta's `from` whichever comes first, the pairs
 * bound beta's clock (37 ms off), and the spliced path puts the server's
 * time on beta. A `from` that never comes leaves the crossing unpaired: the
 * splice then says beta was not seen. A flood of sends nobody receives stays
 * within the ring, counted, and a real pair after it still joins. A capture's
 * report overlays the live path's other hosts on its replay
 * (jank_crosshost_overlay).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "crosshost.h"
#include "hostjoin.h"

#define MS   1000000LL
#define SKEW (37 * MS) /* beta's clock: the true time + 37 ms */

/* Request i: sent at t (alpha), taken 1 ms later, replied after `work`, received 1 ms later. */
static void request(struct jank_hostjoin *j, int a, int b, int i, int64_t t, int64_t work,
		    bool reply)
{
	char key[32];

	snprintf(key, sizeof(key), "id=%d", i);
	jank_hostjoin_note(j, (unsigned)a, "request", key, false, 100, t);
	jank_hostjoin_note(j, (unsigned)b, "request", key, true, 200, t + MS + SKEW);
	/* alpha's `to` may come before beta's `from`: its stream is ahead. */
	jank_hostjoin_note(j, (unsigned)a, "reply", key, true, 100, t + 2 * MS + work);
	if (reply)
		jank_hostjoin_note(j, (unsigned)b, "reply", key, false, 200, t + MS + work + SKEW);
}

/* alpha's path of request i: the client blocked from t + 10 us to its reply. */
static void client_path(struct jank_path *p, int64_t t, int64_t end)
{
	struct jank_segment s[2] = {
		{ .tid = 100, .state = JANK_STATE_RUNNING, .begin = t, .end = t + 10000 },
		{ .tid = 100, .state = JANK_STATE_BLOCKED, .begin = t + 10000, .end = end },
	};

	jank_path_init(p);
	p->segs = calloc(2, sizeof(*p->segs));
	assert_non_null(p->segs);
	memcpy(p->segs, s, sizeof(s));
	p->n = p->cap = 2;
	p->tid = 100;
	p->begin = t;
	p->end = end;
}

static int64_t on_host(const struct jank_path *p, const char *host)
{
	int64_t ns = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct jank_label *l = jank_path_label_of(p, p->segs[i].host);

		assert_non_null(l);
		if (!strcmp(l->name, host))
			ns += p->segs[i].end - p->segs[i].begin;
	}
	return ns;
}

static void join(void **state)
{
	struct jank_hostjoin *j = jank_hostjoin_new(4096);
	struct jank_hostjoin_crossing c;
	struct jank_clock_offset o;
	struct jank_path local, remote, out;
	int a, b;
	int64_t t = 1000 * MS;

	(void)state;
	assert_non_null(j);
	a = jank_hostjoin_host(j, "alpha");
	b = jank_hostjoin_host(j, "beta");
	assert_int_equal(jank_hostjoin_host(j, "beta"), b);
	for (int i = 0; i < 10; i++)
		request(j, a, b, i, t + i * 100 * MS, i == 5 ? 60 * MS : 2 * MS, true);
	/* The offset of beta's clock to alpha's brackets the truth (alpha = beta - 37 ms). */
	jank_hostjoin_offset(j, (unsigned)a, (unsigned)b, t + 500 * MS + SKEW, &o);
	assert_int_equal(o.a_to_b, 10);
	assert_int_equal(o.b_to_a, 10);
	assert_true(o.lo <= -SKEW && -SKEW <= o.hi);
	assert_true(o.hi - o.lo <= 2 * MS);
	assert_int_equal(jank_hostjoin_clock_count(j), 1);

	/* Request 5's path on alpha crosses at its reply, paired with beta's send. */
	client_path(&local, t + 500 * MS, t + 500 * MS + 62 * MS);
	assert_int_equal(jank_hostjoin_crossing(j, (unsigned)a, &local, &c), 1);
	assert_true(c.paired);
	assert_int_equal(c.from_host, b);
	assert_int_equal(c.from_tid, 200);
	assert_int_equal(c.from_ts, t + 500 * MS + 61 * MS + SKEW);
	assert_string_equal(c.flow, "reply");
	/* Not on a segment of its thread: no crossing. */
	local.segs[1].tid = 101;
	assert_int_equal(jank_hostjoin_crossing(j, (unsigned)a, &local, &c), 0);
	local.segs[1].tid = 100;
	assert_int_equal(jank_hostjoin_crossing(j, (unsigned)a, &local, &c), 1);

	/* beta's path of its server thread, on its clock: waiting 1 ms, then 60 ms running. */
	jank_path_init(&remote);
	remote.segs = calloc(2, sizeof(*remote.segs));
	assert_non_null(remote.segs);
	remote.segs[0] = (struct jank_segment){ .tid = 200,
						.state = JANK_STATE_BLOCKED,
						.begin = local.begin + SKEW,
						.end = local.begin + MS + SKEW };
	remote.segs[1] = (struct jank_segment){ .tid = 200,
						.state = JANK_STATE_RUNNING,
						.begin = local.begin + MS + SKEW,
						.end = c.from_ts };
	remote.n = remote.cap = 2;
	remote.begin = remote.segs[0].begin;
	remote.end = c.from_ts;
	jank_path_init(&out);
	assert_int_equal(jank_crosshost_splice(&local, "alpha", &remote, "beta", o.offset,
					       c.from_ts + o.offset, c.to_ts, c.flow, &out),
			 0);
	/* Tiles the action, beta's share over 80%, the server's running time on beta. */
	assert_true(out.n >= 3);
	assert_int_equal(out.segs[0].begin, local.begin);
	assert_int_equal(out.segs[out.n - 1].end, local.end);
	for (size_t i = 1; i < out.n; i++)
		assert_int_equal(out.segs[i].begin, out.segs[i - 1].end);
	assert_true(on_host(&out, "beta") * 10 >= (local.end - local.begin) * 8);
	assert_true(on_host(&out, "alpha") + on_host(&out, "beta") == local.end - local.begin);
	assert_int_equal(out.segs[1].tid, 200);
	assert_int_equal(out.segs[1].state, JANK_STATE_RUNNING);
	jank_path_fini(&out);
	jank_path_fini(&remote);
	jank_path_fini(&local);
	jank_hostjoin_free(j);
}

static void not_seen(void **state)
{
	struct jank_hostjoin *j = jank_hostjoin_new(4096);
	struct jank_hostjoin_crossing c;
	struct jank_path local, out;
	int a = jank_hostjoin_host(j, "alpha"), b = jank_hostjoin_host(j, "beta");
	int64_t t = 1000 * MS;

	(void)state;
	request(j, a, b, 1, t, 60 * MS, false);
	client_path(&local, t, t + 62 * MS);
	assert_int_equal(jank_hostjoin_crossing(j, (unsigned)a, &local, &c), 1);
	assert_false(c.paired);
	assert_false(jank_hostjoin_refresh(j, &c));
	/* The timeout: beta's part is one segment, not seen. */
	jank_path_init(&out);
	assert_int_equal(jank_crosshost_splice(&local, "alpha", NULL, "beta", 0, t + 61 * MS,
					       c.to_ts, c.flow, &out),
			 0);
	assert_int_equal(out.segs[0].tid, -1);
	assert_int_equal(out.segs[0].state, JANK_STATE_UNKNOWN);
	assert_string_equal(jank_path_label_of(&out, out.segs[0].host)->name, "beta");
	assert_int_equal(out.segs[0].end - out.segs[0].begin, 61 * MS);
	/* beta's send comes late: the crossing pairs now. */
	jank_hostjoin_note(j, (unsigned)b, "reply", "id=1", false, 200, t + 61 * MS + SKEW);
	assert_true(jank_hostjoin_refresh(j, &c));
	assert_int_equal(c.from_ts, t + 61 * MS + SKEW);
	/* A `from` of another flow or on the same host pairs nothing. */
	jank_hostjoin_note(j, (unsigned)a, "reply", "id=2", true, 100, t + 200 * MS);
	jank_hostjoin_note(j, (unsigned)a, "reply", "id=2", false, 300, t + 199 * MS);
	jank_hostjoin_note(j, (unsigned)b, "other", "id=2", false, 200, t + 199 * MS);
	jank_path_fini(&local);
	client_path(&local, t + 100 * MS, t + 200 * MS);
	assert_int_equal(jank_hostjoin_crossing(j, (unsigned)a, &local, &c), 1);
	assert_false(jank_hostjoin_refresh(j, &c));
	jank_path_fini(&out);
	jank_path_fini(&local);
	jank_hostjoin_free(j);
}

static void flood(void **state)
{
	struct jank_hostjoin *j = jank_hostjoin_new(1024);
	struct jank_hostjoin_stats st;
	struct jank_hostjoin_crossing c;
	struct jank_path local;
	int a = jank_hostjoin_host(j, "alpha"), b = jank_hostjoin_host(j, "beta");
	int64_t t = 1000 * MS;
	size_t bytes;
	char key[32];

	(void)state;
	for (int i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "flood=%d", i);
		jank_hostjoin_note(j, (unsigned)a, "request", key, false, 100, t + i);
	}
	jank_hostjoin_get_stats(j, &st);
	bytes = st.bytes;
	for (int i = 2000; i < 200000; i++) {
		snprintf(key, sizeof(key), "flood=%d", i);
		jank_hostjoin_note(j, (unsigned)a, "request", key, false, 100, t + i);
	}
	jank_hostjoin_get_stats(j, &st);
	assert_int_equal(st.froms, 200000);
	assert_int_equal(st.kept, 1024);
	assert_int_equal(st.evicted, 200000 - 1024);
	assert_int_equal(st.pairs, 0);
	assert_true(st.bytes <= bytes);
	print_message("flood: 200000 unmatched sends, %zu kept, %zu bytes\n", st.kept, st.bytes);
	/* An evicted send pairs no more; a recent one still does. */
	jank_hostjoin_note(j, (unsigned)b, "request", "flood=5", true, 200, t + MS);
	jank_hostjoin_note(j, (unsigned)b, "request", "flood=199990", true, 200, t + MS + 1);
	jank_hostjoin_get_stats(j, &st);
	assert_int_equal(st.pairs, 1);
	client_path(&local, t, t + 2 * MS);
	local.segs[0].tid = local.segs[1].tid = 200;
	assert_int_equal(jank_hostjoin_crossing(j, (unsigned)b, &local, &c), 1);
	assert_true(c.paired);
	assert_string_equal(c.key, "flood=199990");
	/* Unknown hosts are refused, counted. */
	jank_hostjoin_note(j, 7, "request", "x", false, 1, 1);
	jank_hostjoin_get_stats(j, &st);
	assert_int_equal(st.refused, 1);
	jank_path_fini(&local);
	jank_hostjoin_free(j);
}

/* A segment of host h (a label of p, made here; NULL: none) appended to p. */
static void seg(struct jank_path *p, const char *h, int32_t tid, uint8_t state, int64_t b,
		int64_t e)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->segs = realloc(p->segs, p->cap * sizeof(*p->segs));
		assert_non_null(p->segs);
	}
	p->segs[p->n] = (struct jank_segment){ .tid = tid, .state = state, .begin = b, .end = e };
	p->segs[p->n].host = h ? jank_path_host(p, h) : 0;
	p->n++;
	if (p->n == 1)
		p->begin = b;
	p->end = e;
}

/*
 * A capture's report: alpha's path replayed from its trace (no hosts, its
 * clock a few microseconds off the live one), given the path jankd joined
 * live. The other hosts' segments go in where they were, alpha's own
 * around them; a live path of alpha alone changes nothing but the names.
 */
static void overlay(void **state)
{
	struct jank_path local, live, out;
	const int64_t us = 1000;

	(void)state;
	jank_path_init(&local);
	jank_path_init(&live);
	jank_path_init(&out);
	seg(&local, NULL, 100, JANK_STATE_RUNNING, 3 * us, 13 * us);
	seg(&local, NULL, 100, JANK_STATE_BLOCKED, 13 * us, 61 * MS + 3 * us);
	seg(&local, NULL, 100, JANK_STATE_RUNNING, 61 * MS + 3 * us, 62 * MS + 3 * us);
	local.tid = 100;
	seg(&live, "alpha", 100, JANK_STATE_RUNNING, 0, 10 * us);
	seg(&live, "beta", 200, JANK_STATE_BLOCKED, 10 * us, MS);
	seg(&live, "beta", 200, JANK_STATE_RUNNING, MS, 60 * MS);
	seg(&live, "gamma", 7, JANK_STATE_RUNNING, 60 * MS, 60 * MS + 500 * us);
	seg(&live, "alpha", 100, JANK_STATE_BLOCKED, 60 * MS + 500 * us, 61 * MS);
	seg(&live, "alpha", 100, JANK_STATE_RUNNING, 61 * MS, 62 * MS);
	assert_int_equal(jank_crosshost_overlay(&local, "alpha", &live, &out), 1);
	assert_int_equal(out.begin, local.begin);
	assert_int_equal(out.end, local.end);
	assert_int_equal(out.segs[0].begin, local.begin);
	assert_int_equal(out.segs[out.n - 1].end, local.end);
	for (size_t i = 1; i < out.n; i++)
		assert_int_equal(out.segs[i].begin, out.segs[i - 1].end);
	for (size_t i = 0; i < out.n; i++)
		assert_non_null(jank_path_label_of(&out, out.segs[i].host));
	assert_int_equal(on_host(&out, "beta"), 60 * MS - 10 * us);
	assert_int_equal(on_host(&out, "gamma"), 500 * us);
	assert_int_equal(on_host(&out, "alpha"),
			 local.end - local.begin - 60 * MS - 500 * us + 10 * us);
	/* alpha's part is the replay's: its running segment, then blocked up to 61 ms. */
	assert_int_equal(out.segs[0].tid, 100);
	assert_int_equal(out.segs[0].state, JANK_STATE_RUNNING);
	assert_int_equal(out.segs[1].tid, 200);
	assert_int_equal(out.segs[out.n - 1].state, JANK_STATE_RUNNING);
	assert_int_equal(out.segs[out.n - 1].begin, 61 * MS + 3 * us);
	/* Alpha alone live: the replay, named. */
	jank_path_fini(&live);
	jank_path_init(&live);
	seg(&live, "alpha", 100, JANK_STATE_RUNNING, 0, 62 * MS);
	assert_int_equal(jank_crosshost_overlay(&local, "alpha", &live, &out), 0);
	assert_int_equal(out.n, local.n);
	assert_int_equal(on_host(&out, "alpha"), local.end - local.begin);
	jank_path_fini(&out);
	jank_path_fini(&live);
	jank_path_fini(&local);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(join),
		cmocka_unit_test(not_seen),
		cmocka_unit_test(flood),
		cmocka_unit_test(overlay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
