/* SPDX-License-Identifier: MIT */
/*
 * lib/composition.c: what a rule's actions wait on, per name, class and
 * state, with `top` names and "other". Every counter only grows, they add up
 * to all the time given, and a name that takes much more time than a kept
 * one takes its place. Names are valid UTF-8 text, never "other".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "composition.h"
#include "textsafe.h"

static uint64_t total(const struct jank_composition *c)
{
	uint64_t t = 0;

	for (size_t i = 0; i < c->n; i++)
		for (int k = 0; k < JANK_CLASS_COUNT; k++)
			for (int s = 0; s < JANK_STATE_COUNT; s++)
				t += c->v[i].ns[k][s];
	return t;
}

static const struct jank_composition_entry *named(const struct jank_composition *c, const char *on)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].on, on))
			return &c->v[i];
	return NULL;
}

static uint64_t ns_of(const struct jank_composition *c, const char *on, int cls, int state)
{
	const struct jank_composition_entry *e = named(c, on);

	return e ? e->ns[cls][state] : 0;
}

/* K names kept, the rest in "other": at most K + 1 names, whatever comes. */
static void top_and_other(void **state)
{
	struct jank_composition c;
	char on[16];
	uint64_t given = 0;

	(void)state;
	jank_composition_init(&c, 3);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0].on, "other");
	for (int i = 0; i < 100; i++) {
		snprintf(on, sizeof(on), "t%d", i);
		jank_composition_add_time(&c, JANK_CLASS_SLOW, on, JANK_STATE_RUNNING, 10);
		given += 10;
		assert_true(c.n <= 4);
	}
	assert_int_equal(c.n, 4);
	assert_non_null(named(&c, "t0"));
	assert_non_null(named(&c, "t2"));
	assert_int_equal(ns_of(&c, "other", JANK_CLASS_SLOW, JANK_STATE_RUNNING), 970);
	assert_int_equal(total(&c), given);
	/* Off: nothing is kept. */
	jank_composition_init(&c, 0);
	jank_composition_add_time(&c, JANK_CLASS_SLOW, "a", JANK_STATE_RUNNING, 10);
	assert_int_equal(total(&c), 0);
	/* At most JANK_COMPOSITION_TOP_MAX. */
	jank_composition_init(&c, 1000);
	assert_int_equal(c.top, JANK_COMPOSITION_TOP_MAX);
}

/*
 * A name that takes over replaces the smallest kept one; the counters of
 * the names still kept, and "other", never go back; the whole is kept.
 */
static void promotion(void **state)
{
	struct jank_composition c, before;
	uint64_t given = 0;

	(void)state;
	jank_composition_init(&c, 2);
	for (int i = 0; i < 10; i++) {
		jank_composition_add_time(&c, JANK_CLASS_NORMAL, "sleeper", JANK_STATE_TIMER, 50);
		jank_composition_add_time(&c, JANK_CLASS_NORMAL, "main", JANK_STATE_RUNNING, 100);
		given += 150;
	}
	assert_non_null(named(&c, "sleeper"));
	for (int i = 0; i < 200; i++) {
		before = c;
		jank_composition_add_time(&c, JANK_CLASS_SLOW, "holder", JANK_STATE_LOCK_WAIT, 100);
		jank_composition_add_time(&c, JANK_CLASS_SLOW, "main", JANK_STATE_RUNNING, 10);
		given += 110;
		for (size_t k = 0; k < before.n; k++) {
			const struct jank_composition_entry *now = named(&c, before.v[k].on);

			if (!now)
				continue; /* replaced: its series ends */
			for (int cl = 0; cl < JANK_CLASS_COUNT; cl++)
				for (int s = 0; s < JANK_STATE_COUNT; s++)
					assert_true(now->ns[cl][s] >= before.v[k].ns[cl][s]);
		}
	}
	/*
	 * holder took sleeper's place (main had more time) once it had more than
	 * twice its time: 11 times 100; that stayed in other.
	 */
	assert_non_null(named(&c, "holder"));
	assert_non_null(named(&c, "main"));
	assert_null(named(&c, "sleeper"));
	assert_true(ns_of(&c, "holder", JANK_CLASS_SLOW, JANK_STATE_LOCK_WAIT) > 150 * 100);
	assert_int_equal(ns_of(&c, "other", JANK_CLASS_SLOW, JANK_STATE_LOCK_WAIT), 1100);
	assert_int_equal(ns_of(&c, "holder", JANK_CLASS_SLOW, JANK_STATE_LOCK_WAIT) +
				 ns_of(&c, "other", JANK_CLASS_SLOW, JANK_STATE_LOCK_WAIT),
			 200 * 100);
	/* sleeper's past is gone with its series: the rest is all there. */
	assert_int_equal(total(&c), given - 500);
}

static void name_is(const char *process, const char *thread, const char *want)
{
	char buf[JANK_COMPOSITION_NAME_LEN];

	jank_composition_name(buf, sizeof(buf), process, thread);
	assert_string_equal(buf, want);
	assert_true(jank_text_is_safe(buf, strlen(buf)));
}

static void names(void **state)
{
	char small[8];

	(void)state;
	name_is("db", "io", "db/io");
	name_is("db", "db", "db");
	name_is("", "worker", "worker");
	name_is("db", "", "db");
	name_is("", "", "?");
	name_is(NULL, NULL, "?");
	name_is("", "other", "other/other");
	name_is("other", "other", "other/other");
	name_is("x", "bad\xff", "x/bad\xef\xbf\xbd");
	name_is("x", "a\nb\x1b",
		"x/a\xef\xbf\xbd"
		"b\xef\xbf\xbd");
	name_is("x", "c1\xc2\x85", "x/c1\xef\xbf\xbd");
	name_is("0123456789abcde", "0123456789abcde", "0123456789abcde");
	/* Cut on a character boundary. */
	jank_composition_name(small, sizeof(small), "", "abcde\xe2\x82\xac");
	assert_string_equal(small, "abcde");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(top_and_other),
		cmocka_unit_test(promotion),
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
