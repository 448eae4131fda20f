/* SPDX-License-Identifier: MIT */
/* lib/layout.c: the lttng-modules event layouts, from the trace environment and names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "layout.h"
#include "state.h"

static void layouts(void **state)
{
	struct jank_layout l = { 0 };

	jank_layout_from_env(&l, 2, 5);
	assert_int_equal(l.version, JANK_LAYOUT_2_5);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "sys_read"),
			 JANK_EVENT_SYSCALL_ENTRY);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "exit_syscall"),
			 JANK_EVENT_SYSCALL_EXIT);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "softirq_entry"),
			 JANK_EVENT_SOFTIRQ_ENTRY);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "hrtimer_expire_entry"),
			 JANK_EVENT_HRTIMER_ENTRY);
	memset(&l, 0, sizeof(l));
	jank_layout_from_env(&l, 2, 13);
	assert_int_equal(l.version, JANK_LAYOUT_2_8);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "sys_read"), JANK_EVENT_USER);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "syscall_exit_read"),
			 JANK_EVENT_SYSCALL_EXIT);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "irq_softirq_entry"),
			 JANK_EVENT_SOFTIRQ_ENTRY);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "sched_waking"),
			 JANK_EVENT_SCHED_WAKING);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_UST, "sched_switch"),
			 JANK_EVENT_USER);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_UST,
					      "lttng_ust_pthread:pthread_mutex_lock_req"),
			 JANK_EVENT_MUTEX_REQ);
	/* No environment: detected from the names. */
	memset(&l, 0, sizeof(l));
	jank_layout_observe(&l, "sched_switch");
	assert_int_equal(l.version, JANK_LAYOUT_UNKNOWN);
	jank_layout_observe(&l, "exit_syscall");
	assert_int_equal(l.version, JANK_LAYOUT_2_5);
	memset(&l, 0, sizeof(l));
	jank_layout_observe(&l, "syscall_entry_read");
	jank_layout_observe(&l, "irq_softirq_raise");
	assert_int_equal(l.version, JANK_LAYOUT_2_7);
	jank_layout_observe(&l, "sched_waking");
	assert_int_equal(l.version, JANK_LAYOUT_2_8);
	assert_string_equal(jank_state_name(JANK_STATE_BLOCK_DEVICE), "block_device");
	assert_int_equal(jank_state_from_name("lock_wait"), JANK_STATE_LOCK_WAIT);
	assert_int_equal(jank_state_from_name("nope"), -1);
}

/* The ring grows, GC drops old vertices but keeps the one that straddles the horizon. */
/* The events a session enables: the names of each layout, that mean something in it. */
static void kernel_events(void **state)
{
	const char *names[JANK_LAYOUT_MAX_KERNEL_EVENTS];
	struct jank_layout l = { 0 };
	bool types[JANK_EVENT_TYPE_COUNT] = { false };
	size_t n;

	(void)state;
	n = jank_layout_kernel_events(JANK_LAYOUT_2_8, true, names, JANK_LAYOUT_MAX_KERNEL_EVENTS);
	assert_true(n > 10 && n < JANK_LAYOUT_MAX_KERNEL_EVENTS);
	assert_null(names[n]);
	jank_layout_from_env(&l, 2, 13);
	for (size_t i = 0; i < n; i++) {
		enum jank_event_type t = jank_layout_classify(&l, JANK_DOMAIN_KERNEL, names[i]);

		if (!strcmp(names[i], "x86_irq_vectors_*")) { /* a wildcard: its events */
			assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL,
							      "x86_irq_vectors_reschedule_entry"),
					 JANK_EVENT_IPI_ENTRY);
			t = jank_layout_classify(&l, JANK_DOMAIN_KERNEL,
						 "x86_irq_vectors_reschedule_exit");
			types[JANK_EVENT_IPI_ENTRY] = true;
		}
		if (t == JANK_EVENT_USER)
			fail_msg("%s: enabled, but means nothing in the 2.8 layout", names[i]);
		types[t] = true;
	}
	/* Every kernel event the model reads, but the system calls (the rules' own). */
	for (int t = JANK_EVENT_SCHED_SWITCH; t <= JANK_EVENT_IPI_EXIT; t++)
		if (!types[t])
			fail_msg("event type %d: no event of the 2.8 layout enables it", t);
	/* Names of other layouts stay out. */
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(names[i], "softirq_entry");
		assert_string_not_equal(names[i], "exit_syscall");
	}
	n = jank_layout_kernel_events(JANK_LAYOUT_2_5, true, names, JANK_LAYOUT_MAX_KERNEL_EVENTS);
	memset(&l, 0, sizeof(l));
	jank_layout_from_env(&l, 2, 5);
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, names[i]),
				     JANK_EVENT_USER);
		assert_string_not_equal(names[i], "sched_waking");
		assert_string_not_equal(names[i], "irq_softirq_entry");
	}
	/* A short array: what fits, NULL-terminated. */
	assert_int_equal(jank_layout_kernel_events(JANK_LAYOUT_2_8, true, names, 3), 2);
	assert_null(names[2]);
}

/* [live] network = no: the same events but the TCP segments' two. */
static void kernel_events_no_network(void **state)
{
	const char *with[JANK_LAYOUT_MAX_KERNEL_EVENTS], *without[JANK_LAYOUT_MAX_KERNEL_EVENTS];
	size_t n, m, j = 0, net = 0;

	(void)state;
	n = jank_layout_kernel_events(JANK_LAYOUT_2_8, true, with, JANK_LAYOUT_MAX_KERNEL_EVENTS);
	m = jank_layout_kernel_events(JANK_LAYOUT_2_8, false, without,
				      JANK_LAYOUT_MAX_KERNEL_EVENTS);
	assert_int_equal(m + 2, n);
	assert_null(without[m]);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(with[i], "net_dev_queue") || !strcmp(with[i], "net_if_receive_skb")) {
			net++;
			continue;
		}
		assert_true(j < m);
		assert_string_equal(with[i], without[j++]);
	}
	assert_int_equal(net, 2);
	assert_int_equal(j, m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(kernel_events),
		cmocka_unit_test(kernel_events_no_network),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
