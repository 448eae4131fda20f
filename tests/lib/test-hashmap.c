/* SPDX-License-Identifier: MIT */
/* lib/hashmap.c: the open-addressing map of the engine's tables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hashmap.h"

static void hashmap(void **state)
{
	struct jank_hashmap m;
	static int vals[5000];

	jank_hashmap_init(&m);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(jank_hashmap_put(&m, (uint64_t)i * 7, &vals[i]), 0);
	for (int i = 0; i < 5000; i += 2)
		assert_ptr_equal(jank_hashmap_remove(&m, (uint64_t)i * 7), &vals[i]);
	assert_int_equal(m.count, 2500);
	for (int i = 0; i < 5000; i++)
		assert_ptr_equal(jank_hashmap_get(&m, (uint64_t)i * 7), i % 2 ? &vals[i] : NULL);
	assert_null(jank_hashmap_remove(&m, 3));
	jank_hashmap_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hashmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
