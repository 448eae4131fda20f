/* SPDX-License-Identifier: MIT */
/*
 * The byte counts the engine's memory budget sums, kept current by each
 * table as it grows and shrinks (read in place before every event that may
 * free): an open action table's (its free list keeps 1,024 actions: actions.c
 * FREE_LIST_MAX). The graph's: test-graph.c bytes_balance.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "actions.h"
#include "hashmap.h"

#define NOPEN 3000 /* past the table's free list (1,024 kept): the rest are freed */

/* Open NOPEN actions on two rules, then close them, oldest first or newest first. */
static void action_round(struct jank_action_table *t, bool newest_first)
{
	static struct jank_action *open[NOPEN];
	char key[32];
	bool replaced;

	for (int i = 0; i < NOPEN; i++) {
		snprintf(key, sizeof(key), "id=%d", i);
		open[i] = jank_action_open(t, (uint32_t)i % 2, key, i, &replaced);
		assert_non_null(open[i]);
		assert_false(replaced);
	}
	/* A repeated begin replaces: the count stays. */
	assert_non_null(jank_action_open(t, 0, "id=0", NOPEN, &replaced));
	assert_true(replaced);
	open[0] = jank_action_find(t, 0, "id=0");
	for (int i = 0; i < NOPEN; i++)
		jank_action_close(t, open[newest_first ? NOPEN - 1 - i : i]);
	assert_int_equal(jank_action_count(t), 0);
}

static void action_table_bytes(void **state)
{
	struct jank_action_table *t = jank_action_table_new(2);
	size_t b0 = jank_action_table_bytes(t), b1;
	struct jank_hashmap m;

	/* NOPEN actions at once, by NOPEN hashes: what the table's map grows to. */
	jank_hashmap_init(&m);
	for (uint64_t k = 1; k <= NOPEN; k++)
		assert_int_equal(jank_hashmap_put(&m, k, &m), 0);
	action_round(t, false);
	b1 = jank_action_table_bytes(t);
	/* The map, and the free list's actions. */
	assert_int_equal(b1 - b0, jank_hashmap_bytes(&m) + 1024 * sizeof(struct jank_action));
	action_round(t, true);
	assert_int_equal(jank_action_table_bytes(t), b1);
	jank_hashmap_fini(&m);
	jank_action_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(action_table_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
