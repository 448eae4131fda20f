/* SPDX-License-Identifier: MIT */
/*
 * lib/comp-history.c: each rule's composition over time, a bar per
 * round: the growth of the inputs' cumulative slow counters, per state and
 * per name; the ring keeps the last JANK_COMP_HISTORY_BARS; a counter that
 * goes down (a worker restart, a name replaced) gives no negative bar; the
 * rules follow the configuration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "comp-history.h"

#define MS 1000000ULL

/* Cumulative figures of one input's rule: up to 4 names. */
struct cum {
	struct jank_composition_entry v[4];
	size_t n;
};

/* Name `on`'s slow ns of `state` becomes `ns` (its normal ns stays as noise). */
static void set(struct cum *c, const char *on, enum jank_state state, uint64_t ns)
{
	size_t i;

	for (i = 0; i < c->n && strcmp(c->v[i].on, on); i++)
		;
	if (i == c->n) {
		memset(&c->v[i], 0, sizeof(c->v[i]));
		snprintf(c->v[i].on, sizeof(c->v[i].on), "%s", on);
		c->n++;
	}
	c->v[i].ns[JANK_CLASS_SLOW][state] = ns;
	c->v[i].ns[JANK_CLASS_NORMAL][state] += 7 * MS;
}

static struct jank_comp_history *history(const char *const *rules, size_t n)
{
	struct jank_comp_history *h = jank_comp_history_new();

	assert_non_null(h);
	assert_int_equal(jank_comp_history_set_rules(h, rules, n), 0);
	return h;
}

/* One round: input "a" reports rule `action` with c (NULL: the input, no rule). */
static void round_of(struct jank_comp_history *h, const char *action, const struct cum *c)
{
	jank_comp_history_begin(h);
	assert_int_equal(jank_comp_history_input(h, "a"), 0);
	if (c)
		assert_int_equal(jank_comp_history_add(h, "a", action, c->v, c->n), 0);
	jank_comp_history_end(h);
}

static const struct jank_comp_bar *last_bar(const struct jank_comp_rule *r)
{
	return jank_comp_history_bar(r, jank_comp_history_bars(r) - 1);
}

/* The bar's ns of the column named `on`. */
static uint64_t on_ns(const struct jank_comp_rule *r, const struct jank_comp_bar *b, const char *on)
{
	for (size_t i = 0; i <= JANK_COMP_HISTORY_NAMES; i++)
		if (!strcmp(jank_comp_history_name(r, i), on))
			return b->on[i];
	return 0;
}

static void test_bars_are_differences(void **state)
{
	const char *rules[] = { "frame" };
	struct jank_comp_history *h = history(rules, 1);
	const struct jank_comp_rule *r = jank_comp_history_find(h, "frame");
	const struct jank_comp_bar *b;
	struct cum c = { .n = 0 };

	(void)state;
	assert_non_null(r);
	assert_null(jank_comp_history_find(h, "other-rule"));
	assert_int_equal(jank_comp_history_bars(r), 0);
	assert_null(jank_comp_history_bar(r, 0));

	/* From nothing: the first bar is all the time so far. */
	set(&c, "app/worker", JANK_STATE_TIMER, 100 * MS);
	set(&c, "app/worker", JANK_STATE_RUNNING, 20 * MS);
	round_of(h, "frame", &c);
	b = last_bar(r);
	assert_int_equal(jank_comp_history_bars(r), 1);
	assert_int_equal(b->state[JANK_STATE_TIMER], 100 * MS);
	assert_int_equal(b->state[JANK_STATE_RUNNING], 20 * MS);
	assert_int_equal(jank_comp_bar_total(b), 120 * MS);
	assert_int_equal(on_ns(r, b, "app/worker"), 120 * MS);

	/* Then the growth only; a second name gets its own column. */
	set(&c, "app/worker", JANK_STATE_TIMER, 130 * MS);
	set(&c, "app/pool", JANK_STATE_LOCK_WAIT, 50 * MS);
	round_of(h, "frame", &c);
	b = last_bar(r);
	assert_int_equal(b->state[JANK_STATE_TIMER], 30 * MS);
	assert_int_equal(b->state[JANK_STATE_RUNNING], 0);
	assert_int_equal(b->state[JANK_STATE_LOCK_WAIT], 50 * MS);
	assert_int_equal(on_ns(r, b, "app/worker"), 30 * MS);
	assert_int_equal(on_ns(r, b, "app/pool"), 50 * MS);
	assert_int_equal(jank_comp_bar_total(b), 80 * MS);

	/* Nothing new: a zero bar; the older bars stay as they were. */
	round_of(h, "frame", &c);
	assert_int_equal(jank_comp_history_bars(r), 3);
	assert_int_equal(jank_comp_bar_total(last_bar(r)), 0);
	assert_int_equal(jank_comp_bar_total(jank_comp_history_bar(r, 0)), 120 * MS);
	assert_int_equal(jank_comp_bar_total(jank_comp_history_bar(r, 1)), 80 * MS);
	assert_int_equal(jank_comp_history_rounds(h), 3);

	/* "other" is column 0. */
	set(&c, JANK_COMPOSITION_OTHER, JANK_STATE_NETWORK, 9 * MS);
	round_of(h, "frame", &c);
	assert_int_equal(last_bar(r)->on[0], 9 * MS);
	assert_string_equal(jank_comp_history_name(r, 0), JANK_COMPOSITION_OTHER);
	jank_comp_history_free(h);
}

/* Two inputs add up; a rule the history does not keep is ignored. */
static void test_inputs_add_up(void **state)
{
	const char *rules[] = { "frame" };
	struct jank_comp_history *h = history(rules, 1);
	const struct jank_comp_rule *r = jank_comp_history_find(h, "frame");
	struct cum a = { .n = 0 }, b = { .n = 0 };

	(void)state;
	for (int k = 1; k <= 2; k++) {
		set(&a, "x", JANK_STATE_TIMER, (uint64_t)k * 10 * MS);
		set(&b, "x", JANK_STATE_TIMER, (uint64_t)k * 3 * MS);
		jank_comp_history_begin(h);
		assert_int_equal(jank_comp_history_input(h, "a"), 0);
		assert_int_equal(jank_comp_history_input(h, "b"), 0);
		assert_int_equal(jank_comp_history_add(h, "a", "frame", a.v, a.n), 0);
		assert_int_equal(jank_comp_history_add(h, "b", "frame", b.v, b.n), 0);
		assert_int_equal(jank_comp_history_add(h, "b", "gone", b.v, b.n), 0);
		jank_comp_history_end(h);
		assert_int_equal(last_bar(r)->state[JANK_STATE_TIMER], 13 * MS);
	}
	jank_comp_history_free(h);
}

/* Past JANK_COMP_HISTORY_BARS rounds the oldest bar goes. */
static void test_ring_wraps(void **state)
{
	const char *rules[] = { "frame" };
	struct jank_comp_history *h = history(rules, 1);
	const struct jank_comp_rule *r = jank_comp_history_find(h, "frame");
	struct cum c = { .n = 0 };
	const size_t rounds = JANK_COMP_HISTORY_BARS + 25;
	uint64_t sum = 0;

	(void)state;
	/* Round k (from 1) adds k ms. */
	for (size_t k = 1; k <= rounds; k++) {
		sum += k * MS;
		set(&c, "w", JANK_STATE_RUNNING, sum);
		round_of(h, "frame", &c);
		assert_int_equal(jank_comp_history_bars(r),
				 k < JANK_COMP_HISTORY_BARS ? k : JANK_COMP_HISTORY_BARS);
	}
	for (size_t i = 0; i < JANK_COMP_HISTORY_BARS; i++)
		assert_int_equal(jank_comp_history_bar(r, i)->state[JANK_STATE_RUNNING],
				 (rounds - JANK_COMP_HISTORY_BARS + 1 + i) * MS);
	assert_null(jank_comp_history_bar(r, JANK_COMP_HISTORY_BARS));
	jank_comp_history_free(h);
}

/*
 * A worker restart: while the new worker said nothing the rule is not
 * reported (no bar, the base kept), then its counters come back lower than
 * before (the old worker's last second lost): no negative bar, and the
 * growth after is counted from the lower values.
 */
static void test_counter_reset(void **state)
{
	const char *rules[] = { "frame" };
	struct jank_comp_history *h = history(rules, 1);
	const struct jank_comp_rule *r = jank_comp_history_find(h, "frame");
	struct cum c = { .n = 0 };
	const struct jank_comp_bar *b;

	(void)state;
	set(&c, "w", JANK_STATE_TIMER, 500 * MS);
	set(&c, "p", JANK_STATE_BLOCKED, 300 * MS);
	round_of(h, "frame", &c);
	assert_int_equal(jank_comp_bar_total(last_bar(r)), 800 * MS);

	/* Restarting: the input has no rule to show. */
	round_of(h, "frame", NULL);
	assert_int_equal(jank_comp_bar_total(last_bar(r)), 0);
	/* Back lower for w; p grew. */
	set(&c, "w", JANK_STATE_TIMER, 450 * MS);
	set(&c, "p", JANK_STATE_BLOCKED, 340 * MS);
	round_of(h, "frame", &c);
	b = last_bar(r);
	assert_int_equal(b->state[JANK_STATE_TIMER], 0);
	assert_int_equal(b->state[JANK_STATE_BLOCKED], 40 * MS);
	assert_int_equal(jank_comp_bar_total(b), 40 * MS);
	/* Growth from the lower value. */
	set(&c, "w", JANK_STATE_TIMER, 470 * MS);
	round_of(h, "frame", &c);
	assert_int_equal(last_bar(r)->state[JANK_STATE_TIMER], 20 * MS);

	/* Everything down to zero (a new engine): no bar below zero, nothing counted. */
	c.n = 0;
	set(&c, "w", JANK_STATE_TIMER, 0);
	round_of(h, "frame", &c);
	assert_int_equal(jank_comp_bar_total(last_bar(r)), 0);
	set(&c, "w", JANK_STATE_TIMER, 5 * MS);
	round_of(h, "frame", &c);
	assert_int_equal(jank_comp_bar_total(last_bar(r)), 5 * MS);
	for (size_t i = 0; (b = jank_comp_history_bar(r, i)); i++)
		assert_true(jank_comp_bar_total(b) <= 800 * MS);
	jank_comp_history_free(h);
}

/* An input gone (not named in a round) loses its base: back, it counts from zero. */
static void test_input_gone(void **state)
{
	const char *rules[] = { "frame" };
	struct jank_comp_history *h = history(rules, 1);
	const struct jank_comp_rule *r = jank_comp_history_find(h, "frame");
	struct cum c = { .n = 0 };

	(void)state;
	set(&c, "w", JANK_STATE_TIMER, 10 * MS);
	round_of(h, "frame", &c);
	jank_comp_history_begin(h);
	jank_comp_history_end(h);
	set(&c, "w", JANK_STATE_TIMER, 4 * MS);
	round_of(h, "frame", &c);
	assert_int_equal(last_bar(r)->state[JANK_STATE_TIMER], 4 * MS);
	jank_comp_history_free(h);
}

/* Names past the columns go to "other"; a column whose name left the window is taken again. */
static void test_columns(void **state)
{
	const char *rules[] = { "frame" };
	struct jank_comp_history *h = history(rules, 1);
	const struct jank_comp_rule *r = jank_comp_history_find(h, "frame");
	struct jank_composition_entry v[JANK_COMP_HISTORY_NAMES + 1];
	const struct jank_comp_bar *b;
	char name[32];

	(void)state;
	memset(v, 0, sizeof(v));
	for (size_t i = 0; i <= JANK_COMP_HISTORY_NAMES; i++) {
		snprintf(v[i].on, sizeof(v[i].on), "n%zu", i);
		v[i].ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING] = (i + 1) * MS;
	}
	jank_comp_history_begin(h);
	jank_comp_history_input(h, "a");
	assert_int_equal(jank_comp_history_add(h, "a", "frame", v, JANK_COMP_HISTORY_NAMES + 1), 0);
	jank_comp_history_end(h);
	b = last_bar(r);
	for (size_t i = 0; i < JANK_COMP_HISTORY_NAMES; i++) {
		snprintf(name, sizeof(name), "n%zu", i);
		assert_int_equal(on_ns(r, b, name), (i + 1) * MS);
	}
	/* The last name found no column. */
	assert_int_equal(b->on[0], (JANK_COMP_HISTORY_NAMES + 1) * MS);

	/* After a window with no time for n0, a new name takes its column. */
	for (size_t k = 0; k < JANK_COMP_HISTORY_BARS; k++)
		round_of(h, "frame", NULL);
	snprintf(v[0].on, sizeof(v[0].on), "newcomer");
	v[0].ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING] = 3 * MS;
	jank_comp_history_begin(h);
	jank_comp_history_input(h, "a");
	assert_int_equal(jank_comp_history_add(h, "a", "frame", v, 1), 0);
	jank_comp_history_end(h);
	assert_int_equal(on_ns(r, last_bar(r), "newcomer"), 3 * MS);
	assert_int_equal(last_bar(r)->on[0], 0);
	jank_comp_history_free(h);
}

/* A reload: a rule kept keeps its bars, one gone goes, a new one starts empty. */
static void test_rules_follow_config(void **state)
{
	const char *before[] = { "frame", "old" }, *after[] = { "new", "frame", "frame" };
	struct jank_comp_history *h = history(before, 2);
	struct cum c = { .n = 0 };
	const struct jank_comp_rule *r;

	(void)state;
	set(&c, "w", JANK_STATE_TIMER, 10 * MS);
	round_of(h, "frame", &c);
	round_of(h, "old", &c);
	assert_int_equal(jank_comp_history_set_rules(h, after, 3), 0);
	assert_int_equal(jank_comp_history_count(h), 2);
	assert_null(jank_comp_history_find(h, "old"));
	assert_string_equal(jank_comp_history_action(jank_comp_history_get(h, 0)), "new");
	assert_int_equal(jank_comp_history_bars(jank_comp_history_find(h, "new")), 0);
	r = jank_comp_history_find(h, "frame");
	assert_int_equal(jank_comp_history_bars(r), 2);
	assert_int_equal(jank_comp_bar_total(jank_comp_history_bar(r, 0)), 10 * MS);
	/* Its base stayed: no jump. */
	round_of(h, "frame", &c);
	assert_int_equal(jank_comp_bar_total(last_bar(r)), 0);
	assert_int_equal(jank_comp_history_set_rules(h, NULL, 0), 0);
	assert_int_equal(jank_comp_history_count(h), 0);
	jank_comp_history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bars_are_differences), cmocka_unit_test(test_inputs_add_up),
		cmocka_unit_test(test_ring_wraps),	     cmocka_unit_test(test_counter_reset),
		cmocka_unit_test(test_input_gone),	     cmocka_unit_test(test_columns),
		cmocka_unit_test(test_rules_follow_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
