/* SPDX-License-Identifier: MIT */
/*
 * daemon/fleet/alerted.c: what an input alerted, so that a restarted or
 * reconnected worker that judges the same actions again alerts nothing twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "alerted.h"

#define S 1000000000LL

static struct jank_rule frame = { .name = "frame" }, io = { .name = "io" };

static struct jank_verdict completed(const struct jank_rule *r, const char *key, int64_t begin,
				     int64_t end)
{
	struct jank_verdict v = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = r,
		.key = key,
		.begin = begin,
		.end = end,
		.duration = end - begin,
	};

	return v;
}

static struct jank_verdict overdue(const struct jank_rule *r, const char *key, int64_t begin,
				   int64_t now)
{
	struct jank_verdict v = completed(r, key, begin, now);

	v.kind = JANK_VERDICT_OVERDUE;
	return v;
}

static void init_is_empty(void **state)
{
	struct jank_alerted a;

	(void)state;
	memset(&a, 0x5a, sizeof(a));
	jank_alerted_init(&a);
	assert_int_equal(a.end, 0);
	assert_int_equal(a.noverdue, 0);
	assert_int_equal(a.duplicates, 0);
	assert_string_equal(a.last, "");
}

/* In the order of their ends: each is new. */
static void in_order(void **state)
{
	struct jank_alerted a;
	struct jank_verdict v;

	(void)state;
	jank_alerted_init(&a);
	for (int i = 1; i <= 5; i++) {
		v = completed(&frame, "k", i * S - 100, i * S);
		assert_false(jank_alerted_check(&a, &v));
	}
	assert_int_equal(a.duplicates, 0);
	assert_int_equal(a.end, 5 * S);
}

/* A worker restarted reads the last packets again: what ends before the last alerted is a replay.
 */
static void replay(void **state)
{
	struct jank_alerted a;
	struct jank_verdict v1 = completed(&frame, "k", 1 * S, 2 * S);
	struct jank_verdict v2 = completed(&io, "disk", 2 * S, 3 * S);
	struct jank_verdict v3 = completed(&frame, "k", 3 * S, 4 * S);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &v1));
	assert_false(jank_alerted_check(&a, &v2));
	/* The new worker judges v1 and v2 again, then goes on. */
	assert_true(jank_alerted_check(&a, &v1));
	assert_true(jank_alerted_check(&a, &v2));
	assert_int_equal(a.duplicates, 2);
	assert_false(jank_alerted_check(&a, &v3));
	assert_true(jank_alerted_check(&a, &v3));
	assert_int_equal(a.duplicates, 3);
}

/* Two actions that end at the same time: the same one is a replay, another is not. */
static void same_end(void **state)
{
	struct jank_alerted a;
	struct jank_verdict v = completed(&frame, "a", 1 * S, 2 * S);
	struct jank_verdict other_key = completed(&frame, "b", 1 * S, 2 * S);
	struct jank_verdict other_rule = completed(&io, "b", 1 * S, 2 * S);
	struct jank_verdict other_begin = completed(&io, "b", S / 2, 2 * S);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &v));
	assert_true(jank_alerted_check(&a, &v));
	assert_false(jank_alerted_check(&a, &other_key));
	assert_true(jank_alerted_check(&a, &other_key));
	assert_false(jank_alerted_check(&a, &other_rule));
	assert_false(jank_alerted_check(&a, &other_begin));
	assert_int_equal(a.duplicates, 2);
}

/* A trace clock that moves back by more than JANK_ALERTED_REPLAY_NS: a new trace, not a replay. */
static void clock_back(void **state)
{
	struct jank_alerted a;
	int64_t end = 1000 * S;
	struct jank_verdict last = completed(&frame, "k", end - S, end);
	struct jank_verdict near = completed(&frame, "k", 0, end - JANK_ALERTED_REPLAY_NS + 1);
	struct jank_verdict edge = completed(&frame, "k", 0, end - JANK_ALERTED_REPLAY_NS);
	struct jank_verdict after = completed(&frame, "k", 0, end - JANK_ALERTED_REPLAY_NS + S);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &last));
	assert_true(jank_alerted_check(&a, &near));
	/* Exactly the limit back: new; and now the reference. */
	assert_false(jank_alerted_check(&a, &edge));
	assert_int_equal(a.end, end - JANK_ALERTED_REPLAY_NS);
	assert_false(jank_alerted_check(&a, &after));
	assert_int_equal(a.duplicates, 1);
}

/* The first verdict is new whatever its end, even 0 or negative. */
static void first_at_zero(void **state)
{
	struct jank_alerted a;
	struct jank_verdict v = completed(&frame, "k", -5, 0);
	struct jank_verdict neg = completed(&frame, "k", -10, -5);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &v));
	assert_true(jank_alerted_check(&a, &v));
	assert_true(jank_alerted_check(&a, &neg));
	assert_int_equal(a.duplicates, 2);
}

/* A verdict without a rule name or key still has a signature. */
static void no_name(void **state)
{
	struct jank_alerted a;
	struct jank_rule anon = { .name = NULL };
	struct jank_verdict v = completed(&anon, NULL, 1, 2);
	struct jank_verdict none = completed(NULL, NULL, 1, 2);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &v));
	assert_string_equal(a.last, "1\n\n?");
	/* Same rule name ("?"), key and begin: the same action. */
	assert_true(jank_alerted_check(&a, &none));
}

/* Overdue verdicts are told apart by rule, key and begin, whatever "now" is. */
static void overdue_by_signature(void **state)
{
	struct jank_alerted a;
	struct jank_verdict o1 = overdue(&frame, "k", 5 * S, 10 * S);
	struct jank_verdict o1_later = overdue(&frame, "k", 5 * S, 20 * S);
	struct jank_verdict o2 = overdue(&frame, "k", 6 * S, 10 * S);
	struct jank_verdict o3 = overdue(&io, "k", 5 * S, 10 * S);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &o1));
	assert_true(jank_alerted_check(&a, &o1_later));
	assert_false(jank_alerted_check(&a, &o2));
	assert_false(jank_alerted_check(&a, &o3));
	assert_int_equal(a.noverdue, 3);
	assert_int_equal(a.duplicates, 1);
	/* Overdue verdicts leave the completed ones alone, and back. */
	assert_int_equal(a.end, 0);
	assert_string_equal(a.last, "");
}

/* An overdue action that then completes is alerted twice: two verdicts. */
static void overdue_then_completed(void **state)
{
	struct jank_alerted a;
	struct jank_verdict o = overdue(&frame, "k", 5 * S, 10 * S);
	struct jank_verdict c = completed(&frame, "k", 5 * S, 12 * S);

	(void)state;
	jank_alerted_init(&a);
	assert_false(jank_alerted_check(&a, &o));
	assert_false(jank_alerted_check(&a, &c));
	assert_true(jank_alerted_check(&a, &o));
	assert_true(jank_alerted_check(&a, &c));
	assert_int_equal(a.duplicates, 2);
}

/* The last JANK_ALERTED_OVERDUE are remembered; older ones are forgotten. */
static void overdue_ring(void **state)
{
	struct jank_alerted a;
	struct jank_verdict v;

	(void)state;
	jank_alerted_init(&a);
	for (int i = 0; i < JANK_ALERTED_OVERDUE + 1; i++) {
		v = overdue(&frame, "k", i * S, 1000 * S);
		assert_false(jank_alerted_check(&a, &v));
	}
	/* 1..32 are still known. */
	for (int i = 1; i < JANK_ALERTED_OVERDUE + 1; i++) {
		v = overdue(&frame, "k", i * S, 2000 * S);
		assert_true(jank_alerted_check(&a, &v));
	}
	assert_int_equal(a.duplicates, JANK_ALERTED_OVERDUE);
	/* 0 was overwritten by 32: it is new again (and overwrites 1). */
	v = overdue(&frame, "k", 0, 3000 * S);
	assert_false(jank_alerted_check(&a, &v));
	v = overdue(&frame, "k", 1 * S, 3000 * S);
	assert_false(jank_alerted_check(&a, &v));
	v = overdue(&frame, "k", 0, 3000 * S);
	assert_true(jank_alerted_check(&a, &v));
}

/* A key at the longest: the signature is not cut short of the begin. */
static void long_key(void **state)
{
	struct jank_alerted a;
	char key[JANK_KEY_LEN];
	struct jank_verdict v1, v2;

	(void)state;
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	jank_alerted_init(&a);
	v1 = overdue(&frame, key, 1, 10);
	v2 = overdue(&frame, key, 2, 10);
	assert_false(jank_alerted_check(&a, &v1));
	assert_false(jank_alerted_check(&a, &v2));
	assert_true(jank_alerted_check(&a, &v1));
}

/*
 * Rule names have no length limit ([action NAME]): a long one with a long
 * key must not push the begin out of the signature, or two overdue actions
 * of that key would be taken for one and the second never alerted.
 */
static void long_rule_name(void **state)
{
	struct jank_alerted a;
	struct jank_rule lr = { 0 };
	char name[200], key[JANK_KEY_LEN];
	struct jank_verdict v1, v2, c1, c2;

	(void)state;
	memset(name, 'r', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	lr.name = name;
	jank_alerted_init(&a);
	v1 = overdue(&lr, key, 1 * S, 10 * S);
	v2 = overdue(&lr, key, 2 * S, 10 * S);
	assert_false(jank_alerted_check(&a, &v1));
	assert_false(jank_alerted_check(&a, &v2));
	assert_true(jank_alerted_check(&a, &v2));
	/* Completed ones that end together, of different begins: two actions. */
	c1 = completed(&lr, key, 1 * S, 20 * S);
	c2 = completed(&lr, key, 2 * S, 20 * S);
	assert_false(jank_alerted_check(&a, &c1));
	assert_false(jank_alerted_check(&a, &c2));
	assert_true(jank_alerted_check(&a, &c2));
	assert_int_equal(a.duplicates, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_is_empty),
		cmocka_unit_test(in_order),
		cmocka_unit_test(replay),
		cmocka_unit_test(same_end),
		cmocka_unit_test(clock_back),
		cmocka_unit_test(first_at_zero),
		cmocka_unit_test(no_name),
		cmocka_unit_test(overdue_by_signature),
		cmocka_unit_test(overdue_then_completed),
		cmocka_unit_test(overdue_ring),
		cmocka_unit_test(long_key),
		cmocka_unit_test(long_rule_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
