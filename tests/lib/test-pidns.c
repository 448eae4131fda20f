/* SPDX-License-Identifier: MIT */
/*
 * The numbers of containers' threads (lib/pidns.c): the host's and the
 * program's own keep their vtid, each other PID namespace gets its own
 * range, hostile vtids are no thread, and past 511 namespaces the least
 * recently seen gives its number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "pidns.h"

#define NS(i) (4026532000u + (i))

static void host_and_containers(void **state)
{
	struct jank_pidns *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	assert_int_equal(jank_pidns_tid(t, 0, 42, 1), 42);
	assert_int_equal(jank_pidns_tid(t, JANK_PID_NS_INIT, 42, 1), 42);
	assert_int_equal(jank_pidns_tid(t, NS(1), 42, 2), 1 << 22 | 42);
	assert_int_equal(jank_pidns_tid(t, NS(2), 42, 3), 2 << 22 | 42);
	assert_int_equal(jank_pidns_tid(t, NS(1), 7, 4), 1 << 22 | 7);
	assert_int_equal(jank_pidns_vtid(2 << 22 | 42), 42);
	assert_int_equal(jank_pidns_number(2 << 22 | 42), 2);
	assert_int_equal(jank_pidns_number(42), 0);
	/* No thread said, or one no kernel gives: none. */
	assert_int_equal(jank_pidns_tid(t, NS(1), -1, 5), -1);
	assert_int_equal(jank_pidns_tid(t, NS(1), 1 << 22, 5), -1);
	assert_int_equal(jank_pidns_tid(t, NS(1), INT32_MAX, 5), -1);
	assert_int_equal(t->n, 2);
	free(t);
}

static void many_namespaces(void **state)
{
	struct jank_pidns *t = calloc(1, sizeof(*t));
	int32_t tid;

	(void)state;
	assert_non_null(t);
	for (uint32_t i = 1; i <= JANK_PIDNS_MAX; i++)
		assert_int_equal(jank_pidns_tid(t, NS(i), 1, i), (int32_t)(i << 22 | 1));
	/* The largest number still makes a positive tid. */
	assert_true(jank_pidns_tid(t, NS(JANK_PIDNS_MAX), (1 << 22) - 1, 600) > 0);
	/* NS(1) is seen again: NS(2) is now the least recently seen. */
	assert_int_equal(jank_pidns_tid(t, NS(1), 1, 700), 1 << 22 | 1);
	tid = jank_pidns_tid(t, NS(1000), 5, 800);
	assert_int_equal(tid, 2 << 22 | 5);
	assert_int_equal(t->reused, 1);
	/* NS(1000) keeps it; NS(1) kept its own. */
	assert_int_equal(jank_pidns_tid(t, NS(1000), 6, 801), 2 << 22 | 6);
	assert_int_equal(jank_pidns_tid(t, NS(1), 6, 802), 1 << 22 | 6);
	assert_int_equal(t->n, JANK_PIDNS_MAX);
	free(t);
}

/* The program's own namespace (a jankd in a container) keeps its vtids too. */
static void home_namespace(void **state)
{
	struct jank_pidns *t = calloc(1, sizeof(*t));

	(void)state;
	assert_non_null(t);
	assert_false(jank_pidns_is_host(NS(7)));
	jank_pidns_set_home(NS(7));
	assert_true(jank_pidns_is_host(NS(7)));
	assert_true(jank_pidns_is_host(JANK_PID_NS_INIT));
	assert_true(jank_pidns_is_host(0));
	assert_false(jank_pidns_is_host(NS(8)));
	assert_int_equal(jank_pidns_tid(t, NS(7), 42, 1), 42);
	assert_int_equal(jank_pidns_tid(t, NS(8), 42, 2), 1 << 22 | 42);
	jank_pidns_set_home(0);
	assert_false(jank_pidns_is_host(NS(7)));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(host_and_containers),
		cmocka_unit_test(many_namespaces),
		cmocka_unit_test(home_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
