/* SPDX-License-Identifier: MIT */
/*
 * daemon/lttng/sessiond-probe.c: lttng-sessiond, or one of its sessions, is taken
 * for gone on evidence only: three answers in a row, and for the daemon its
 * socket refusing connections too.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "sessiond-probe.h"

static int socket_answers;
static int answers_calls;

static int answers(void)
{
	answers_calls++;
	return socket_answers;
}

static void present_resets(void **state)
{
	struct jank_sessiond_probe p = { 0 };

	(void)state;
	assert_int_equal(jank_sessiond_probe_judge(&p, 1, answers), JANK_SESSIOND_PRESENT);
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, -EIO, answers), JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, 1, answers), JANK_SESSIOND_PRESENT);
	assert_int_equal(p.failed, 0);
	assert_int_equal(p.absent, 0);
	assert_int_equal(p.unconfirmed, 2);
}

/* "Absent" counts after three in a row; a failure or a presence in between starts over. */
static void absent_three_in_a_row(void **state)
{
	struct jank_sessiond_probe p = { 0 };

	(void)state;
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, -ECONNREFUSED, answers),
			 JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_SESSION_LOST);
	/* The next loss needs evidence of its own. */
	assert_int_equal(jank_sessiond_probe_judge(&p, 0, answers), JANK_SESSIOND_ASK_AGAIN);
}

/* Failed calls: gone only when the socket refuses too; else failing. */
static void gone_needs_a_dead_socket(void **state)
{
	struct jank_sessiond_probe p = { 0 };

	(void)state;
	socket_answers = 1;
	answers_calls = 0;
	for (int i = 1; i < JANK_SESSIOND_PROBES; i++)
		assert_int_equal(jank_sessiond_probe_judge(&p, -ECONNREFUSED, answers),
				 JANK_SESSIOND_ASK_AGAIN);
	assert_int_equal(answers_calls, 0); /* asked only when a verdict needs it */
	assert_int_equal(jank_sessiond_probe_judge(&p, -ECONNREFUSED, answers),
			 JANK_SESSIOND_FAILING);
	socket_answers = 0;
	assert_int_equal(jank_sessiond_probe_judge(&p, -ECONNREFUSED, answers), JANK_SESSIOND_GONE);
	/* Still gone at each look, until it answers. */
	assert_int_equal(jank_sessiond_probe_judge(&p, -ECONNREFUSED, answers), JANK_SESSIOND_GONE);
	assert_int_equal(jank_sessiond_probe_judge(&p, 1, answers), JANK_SESSIOND_PRESENT);
	/* Another error than "no session daemon" is never "gone". */
	for (int i = 1; i < JANK_SESSIOND_PROBES; i++)
		jank_sessiond_probe_judge(&p, -EIO, answers);
	assert_int_equal(jank_sessiond_probe_judge(&p, -EIO, answers), JANK_SESSIOND_FAILING);
	/* Without a way to ask the socket, three refusals are the evidence. */
	struct jank_sessiond_probe q = { 0 };

	for (int i = 1; i < JANK_SESSIOND_PROBES; i++)
		jank_sessiond_probe_judge(&q, -ECONNREFUSED, NULL);
	assert_int_equal(jank_sessiond_probe_judge(&q, -ECONNREFUSED, NULL), JANK_SESSIOND_GONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(present_resets),
		cmocka_unit_test(absent_three_in_a_row),
		cmocka_unit_test(gone_needs_a_dead_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
