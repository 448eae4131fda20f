/* SPDX-License-Identifier: MIT */
/*
 * lib/model.c on what real kernels record (lib/layout.c's notes on prev_state;
 * ARCHITECTURE, step 3):
 * prev_state flags by kernel version, switches the kernel did not trace,
 * fork chains, local network sends; and a CPU's current thread that exits
 * and is freed by GC while the CPU still names it.
 *
 * Threads: A=10, B=20, C=30; times in arbitrary nanoseconds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "layout.h"
#include "model.h"
#include "scenario.h"

enum {
	A = 10,
	B = 20,
	C = 30
};
enum {
	RUNNABLE = 0,
	SLEEPING = 1
};
enum {
	NET_RX = 3
};

/* A kernel event with the tid context, as jankd's sessions record them. */
#define scn_kernel_tid(s, ts, cpu, tid, name, ...)                                                 \
	scn_event_v((s), JANK_DOMAIN_KERNEL, (ts), (cpu), (tid), (name),                           \
		    (const struct scn_field[]){ __VA_ARGS__ },                                     \
		    sizeof((const struct scn_field[]){ __VA_ARGS__ }) / sizeof(struct scn_field))

/* prev_state as the kernel's version writes it. */
static void prev_state_bits(void **state)
{
	struct jank_layout l = { 0 };

	(void)state;
	jank_layout_set_kernel(&l, "6.18.44-fc");
	assert_int_equal(l.kernel_major, 6);
	assert_int_equal(l.kernel_minor, 18);
	assert_int_equal(jank_layout_switch_out(&l, 0), JANK_SWITCH_OUT_PREEMPTED);
	assert_int_equal(jank_layout_switch_out(&l, 256), JANK_SWITCH_OUT_PREEMPTED); /* R+ */
	assert_int_equal(jank_layout_switch_out(&l, 1), JANK_SWITCH_OUT_BLOCKED);
	assert_int_equal(jank_layout_switch_out(&l, 2), JANK_SWITCH_OUT_BLOCKED);
	assert_int_equal(jank_layout_switch_out(&l, 128), JANK_SWITCH_OUT_BLOCKED); /* idle */
	assert_int_equal(jank_layout_switch_out(&l, 64), JANK_SWITCH_OUT_BLOCKED);  /* parked */
	assert_int_equal(jank_layout_switch_out(&l, 16), JANK_SWITCH_OUT_EXITING);
	assert_int_equal(jank_layout_switch_out(&l, 32), JANK_SWITCH_OUT_EXITING);
	assert_int_equal(jank_layout_switch_out(&l, 4), JANK_SWITCH_OUT_PREEMPTED); /* stopped */

	jank_layout_set_kernel(&l, "4.4.3-1-ARCH");
	assert_int_equal(jank_layout_switch_out(&l, 2048), JANK_SWITCH_OUT_PREEMPTED);
	assert_int_equal(jank_layout_switch_out(&l, 4096), JANK_SWITCH_OUT_PREEMPTED);
	assert_int_equal(jank_layout_switch_out(&l, 64), JANK_SWITCH_OUT_EXITING);   /* TASK_DEAD */
	assert_int_equal(jank_layout_switch_out(&l, 130), JANK_SWITCH_OUT_BLOCKED);  /* killable */
	assert_int_equal(jank_layout_switch_out(&l, 1026), JANK_SWITCH_OUT_BLOCKED); /* TASK_IDLE */

	jank_layout_set_kernel(&l, "3.13.0");
	assert_int_equal(jank_layout_switch_out(&l, 1024), JANK_SWITCH_OUT_PREEMPTED);

	/* Unknown kernel: 64 is an exit, the flags of every version are preemptions. */
	jank_layout_set_kernel(&l, "not a version");
	assert_int_equal(l.kernel_major, 0);
	assert_int_equal(jank_layout_switch_out(&l, 64), JANK_SWITCH_OUT_EXITING);
	assert_int_equal(jank_layout_switch_out(&l, 256), JANK_SWITCH_OUT_PREEMPTED);
	assert_int_equal(jank_layout_switch_out(&l, 2048), JANK_SWITCH_OUT_PREEMPTED);
}

/* A thread preempted inside the kernel (R+) is preempted, never blocked. */
static void preempted_in_kernel(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	jank_engine_set_kernel(s.e, "6.18.44");
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, 256, B);
	scn_switch(&s, 30, 0, B, SLEEPING, A);
	scn_switch(&s, 40, 0, A, 16, 0); /* A exits */
	scn_path(&s, A, 0, 40, &p);
	assert_path(&p, { A, "running", 0, 10 }, { A, "preempted", 10, 30 },
		    { A, "running", 30, 40 });
	/* Past its final switch, A is no live thread any more: its tid is free. */
	assert_null(jank_graph_find(jank_engine_graph(s.e), A));
	assert_true(jank_graph_find_any(jank_engine_graph(s.e), A)->exited);
	assert_true(jank_graph_find_any(jank_engine_graph(s.e), A)->retired);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * The kernel did not trace B's switch in out of the idle task. B, woken by
 * a timer on an idle CPU, wakes A: the tid context of sched_waking names B,
 * and the path goes to B's timer.
 */
static void untraced_switch_from_idle(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 1, 1, 0, RUNNABLE, B);
	scn_switch(&s, 5, 1, B, SLEEPING, 0);
	scn_switch(&s, 10, 0, A, SLEEPING, 0);
	scn_hrtimer(&s, 29, 1, true);
	scn_wake(&s, 30, 1, B);
	scn_hrtimer(&s, 31, 1, false);
	/* No sched_switch 0 -> B: B runs, and its waking of A says so. */
	scn_kernel_tid(&s, 40, 1, B, "sched_waking", S("comm", "t10"), I("tid", A),
		       I("target_cpu", 0));
	scn_switch(&s, 45, 0, 0, RUNNABLE, A);
	scn_path(&s, A, 10, 50, &p);
	assert_path(&p, { B, "timer", 10, 30 }, { B, "preempted", 30, 40 },
		    { A, "preempted", 40, 45 }, { A, "running", 45, 50 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Before a child's birth, its path is its parent's: a fork chain. */
static void fork_chain(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_fork(&s, 10, 0, A, B);
	scn_wakeup_new(&s, 12, 0, B);
	scn_switch(&s, 14, 1, 0, RUNNABLE, B);
	scn_fork(&s, 20, 1, B, C);
	scn_wakeup_new(&s, 21, 1, C);
	scn_switch(&s, 22, 1, B, SLEEPING, C);
	scn_path(&s, C, 0, 30, &p);
	assert_path(&p, { A, "running", 0, 12 }, { B, "preempted", 12, 14 },
		    { B, "running", 14, 21 }, { C, "preempted", 21, 22 }, { C, "running", 22, 30 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Without sched_wakeup_new (many-threads has none), a new child is runnable from its birth. */
static void child_without_wakeup_new(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_fork(&s, 10, 0, A, B);
	scn_switch(&s, 25, 1, 0, RUNNABLE, B);
	scn_path(&s, B, 10, 30, &p);
	assert_path(&p, { B, "preempted", 10, 25 }, { B, "running", 25, 30 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Loopback: B sleeps 20, then sends; the NET_RX softirq it raised in its
 * own context wakes A. The path follows B to its timer, and B's time in
 * the softirq shows as the network hop.
 */
static void loopback_sender(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 1, 1, 0, RUNNABLE, B);
	scn_switch(&s, 5, 1, B, SLEEPING, 0);
	scn_switch(&s, 10, 0, A, SLEEPING, 0);
	scn_hrtimer(&s, 29, 1, true);
	scn_wake(&s, 30, 1, B);
	scn_hrtimer(&s, 30, 1, false);
	scn_switch(&s, 31, 1, 0, RUNNABLE, B);
	scn_kernel(&s, 35, 1, "irq_softirq_raise", I("vec", NET_RX));
	scn_softirq(&s, 36, 1, NET_RX, true);
	scn_wake(&s, 37, 1, A);
	scn_softirq(&s, 38, 1, NET_RX, false);
	scn_switch(&s, 40, 0, 0, RUNNABLE, A);
	scn_path(&s, A, 10, 45, &p);
	assert_path(&p, { B, "timer", 10, 30 }, { B, "preempted", 30, 31 },
		    { B, "running", 31, 36 }, { B, "network", 36, 37 }, { A, "preempted", 37, 40 },
		    { A, "running", 40, 45 });
	jank_path_fini(&p);
	/* After the softirq, B runs again. */
	scn_path(&s, B, 36, 45, &p);
	assert_path(&p, { B, "network", 36, 38 }, { B, "running", 38, 45 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* A NET_RX raised under a hard IRQ (a real NIC) stays `network` on the wakee. */
static void nic_receive(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, SLEEPING, 0);
	scn_irq(&s, 20, 1, 30, true);
	scn_kernel(&s, 21, 1, "irq_softirq_raise", I("vec", NET_RX));
	scn_irq(&s, 22, 1, 30, false);
	scn_softirq(&s, 23, 1, NET_RX, true);
	scn_wake(&s, 24, 1, A);
	scn_softirq(&s, 25, 1, NET_RX, false);
	scn_switch(&s, 30, 0, 0, RUNNABLE, A);
	scn_path(&s, A, 10, 35, &p);
	assert_path(&p, { A, "network", 10, 24 }, { A, "preempted", 24, 30 },
		    { A, "running", 30, 35 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * The CPU's current thread exits and is never switched out nor freed by
 * the kernel in the trace. GC once freed its thread record, and the next event on
 * that CPU used it after the free (../shared/repro/uaf-exit). Now a thread
 * without its final switch keeps its last state, as a live one does (an
 * action that ends on its tid reads it): GC keeps one vertex of it, and the
 * next events on the CPU find it. Under ASan (CI), a stale pointer would
 * abort here.
 */
static void current_thread_exited(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;

	(void)state;
	jank_engine_config_defaults(&cfg);
	cfg.retention_ns = 100;
	scn_init(&s, &scn_layout_current, &cfg);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_kernel(&s, 10, 0, "sched_process_exit", S("comm", "t10"), I("tid", A));
	/* Time passes on CPU 1 only, long enough for GC to trim A. */
	scn_switch(&s, 20, 1, 0, RUNNABLE, B);
	for (int64_t t = 1000; t < 3000000; t += 1000) {
		scn_switch(&s, t, 1, B, RUNNABLE, C);
		scn_switch(&s, t + 500, 1, C, RUNNABLE, B);
	}
	jank_engine_get_stats(s.e, &st);
	assert_true(st.graph.freed_vertices > 1000);
	assert_non_null(jank_graph_find_any(jank_engine_graph(s.e), A));
	scn_switch(&s, 4000000, 0, A, SLEEPING, 0);
	scn_wake(&s, 4000010, 0, A);
	scn_fini(&s);
}

/* The same through tid reuse: a fork retires the old thread record of the tid. */
static void current_thread_reused(void **state)
{
	struct jank_engine_config cfg;
	struct scn s;

	(void)state;
	jank_engine_config_defaults(&cfg);
	cfg.retention_ns = 100;
	scn_init(&s, &scn_layout_current, &cfg);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 5, 1, 0, RUNNABLE, B);
	scn_fork(&s, 10, 1, B, A); /* A's tid comes back: the running A's record retires */
	for (int64_t t = 1000; t < 3000000; t += 1000) {
		scn_switch(&s, t, 1, B, RUNNABLE, C);
		scn_switch(&s, t + 500, 1, C, RUNNABLE, B);
	}
	scn_kernel(&s, 4000000, 0, "sched_process_exit", S("comm", "t10"), I("tid", A));
	scn_switch(&s, 4000010, 0, A, SLEEPING, 0);
	scn_fini(&s);
}

/* 300 nested interrupt contexts: the depth does not wrap, and the wakeup is an interrupt's. */
static void deep_interrupt_nesting(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, SLEEPING, B);
	for (int i = 0; i < 300; i++)
		scn_irq(&s, 11, 0, i, true);
	scn_wake(&s, 12, 0, A);
	for (int i = 0; i < 300; i++)
		scn_irq(&s, 13, 0, i, false);
	scn_switch(&s, 20, 0, B, SLEEPING, A);
	scn_path(&s, A, 10, 25, &p);
	assert_path(&p, { A, "interrupted", 10, 12 }, { A, "preempted", 12, 20 },
		    { A, "running", 20, 25 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Issue 21: wakeups by interrupts the trace does not show. K=15 is
 * ksoftirqd/1; the softirq (RCU, vector 9) runs on CPU 1 over A, which is
 * running: after ten passes __do_softirq leaves the rest to ksoftirqd and
 * wakes it itself. K's wait is the softirq's (`blocked`, RCU's label), not A's.
 */
enum {
	K = 15,
	RCU = 9,
	TIMER = 1
};

enum ksoftirqd_case {
	KSOFTIRQD_AFTER_EXIT, /* 0.3 us after the exit: the softirq's */
	KSOFTIRQD_LATE,	      /* 2.5 us after: A's */
	KSOFTIRQD_OTHER_CPU,  /* ksoftirqd/2 woken on CPU 1: A's */
	KSOFTIRQD_NESTED,     /* the exit left an IRQ on the stack: the IRQ's */
};

static void ksoftirqd_run(enum ksoftirqd_case kc, int vec, struct jank_path *p)
{
	struct scn s;

	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 1, K, SLEEPING, A);
	if (kc == KSOFTIRQD_NESTED)
		scn_irq(&s, 50, 1, 30, true);
	for (int i = 0; i < 10; i++) {
		scn_softirq(&s, 100 + 50 * i, 1, vec, true);
		scn_softirq(&s, 140 + 50 * i, 1, vec, false);
	}
	/* The last exit at 590. */
	scn_kernel(&s, kc == KSOFTIRQD_LATE ? 3090 : 890, 1, "sched_waking",
		   S("comm", kc == KSOFTIRQD_OTHER_CPU ? "ksoftirqd/2" : "ksoftirqd/1"),
		   I("tid", K), I("target_cpu", 1));
	if (kc == KSOFTIRQD_NESTED)
		scn_irq(&s, 3100, 1, 30, false);
	scn_switch(&s, 4000, 1, A, RUNNABLE, K);
	scn_path(&s, K, 0, 5000, p);
	scn_fini(&s);
}

static void ksoftirqd_woken_by_softirq(void **state)
{
	struct jank_path p;
	int64_t wake = 890;

	(void)state;
	ksoftirqd_run(KSOFTIRQD_AFTER_EXIT, RCU, &p);
	assert_path(&p, { K, "blocked", 0, wake }, { K, "preempted", wake, 4000 },
		    { K, "running", 4000, 5000 });
	jank_path_fini(&p);
	/* The label is the vector's, as inside the softirq. */
	ksoftirqd_run(KSOFTIRQD_AFTER_EXIT, TIMER, &p);
	assert_path(&p, { K, "timer", 0, wake }, { K, "preempted", wake, 4000 },
		    { K, "running", 4000, 5000 });
	jank_path_fini(&p);
}

/* Where the trace says otherwise, the thread current on the CPU stays the waker. */
static void ksoftirqd_woken_by_thread(void **state)
{
	struct jank_path p;

	(void)state;
	ksoftirqd_run(KSOFTIRQD_LATE, RCU, &p);
	assert_path(&p, { A, "running", 0, 3090 }, { K, "preempted", 3090, 4000 },
		    { K, "running", 4000, 5000 });
	jank_path_fini(&p);
	ksoftirqd_run(KSOFTIRQD_OTHER_CPU, RCU, &p);
	assert_path(&p, { A, "running", 0, 890 }, { K, "preempted", 890, 4000 },
		    { K, "running", 4000, 5000 });
	jank_path_fini(&p);
	ksoftirqd_run(KSOFTIRQD_NESTED, RCU, &p);
	assert_path(&p, { K, "interrupted", 0, 890 }, { K, "preempted", 890, 4000 },
		    { K, "running", 4000, 5000 });
	jank_path_fini(&p);
}

/*
 * A (CPU 0) wakes B (CPU 1), blocked in futex since 20, with no interrupt
 * on the trace. After its system calls A is in user mode: it cannot have
 * called the scheduler, an untraced interrupt did.
 */
enum user_case {
	USER_MODE,	 /* A in user mode: `interrupted`, no link */
	USER_TIMEDOUT,	 /* and B's futex returns -ETIMEDOUT: `timer` */
	USER_UNKNOWN,	 /* A made no system call: its mode is unknown, A's */
	USER_PAGE_FAULT, /* A faults after its system call: A's */
	USER_GRACE,	 /* 1 us after A's exit (task work on the way out): A's */
	USER_FEW_KINDS,	 /* the trace records a few system calls only: A's */
	USER_SWITCHED,	 /* A was switched out and in since: A's */
	USER_IN_SYSCALL, /* A is in a system call: A's */
};

#define USER_KINDS 32

static void syscall_pair(struct scn *s, int64_t ts, int cpu, int kind, int64_t ret)
{
	static char names[USER_KINDS][2][32];

	if (!names[kind][0][0]) {
		snprintf(names[kind][0], sizeof(names[kind][0]), "syscall_entry_k%d", kind);
		snprintf(names[kind][1], sizeof(names[kind][1]), "syscall_exit_k%d", kind);
	}
	scn_kernel(s, ts, cpu, names[kind][0], I("fd", 3));
	scn_kernel(s, ts + 1, cpu, names[kind][1], I("ret", ret));
}

static void user_run(enum user_case uc, struct jank_path *p)
{
	struct scn s;
	int64_t wake = 30000;

	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 0, 1, 0, RUNNABLE, B);
	scn_switch(&s, 0, 2, 0, RUNNABLE, C);
	scn_kernel(&s, 10, 1, "syscall_entry_futex", I("uaddr", 1));
	scn_switch(&s, 20, 1, B, SLEEPING, 0);
	/* Every system call is traced: C (CPU 2) or A make each kind. */
	for (int k = 0; k < (uc == USER_FEW_KINDS ? 3 : USER_KINDS); k++)
		syscall_pair(&s, 100 + 2 * k, uc == USER_UNKNOWN ? 2 : 0, k, 0);
	if (uc == USER_UNKNOWN)
		scn_kernel(&s, 1000, 0, "irq_softirq_raise", I("vec", TIMER)); /* not A's own */
	if (uc == USER_PAGE_FAULT)
		scn_kernel(&s, 1000, 0, "x86_exceptions_page_fault_user", I("address", 4096));
	if (uc == USER_SWITCHED) {
		scn_switch(&s, 1000, 0, A, RUNNABLE, C);
		scn_switch(&s, 2000, 0, C, RUNNABLE, A);
	}
	if (uc == USER_IN_SYSCALL)
		scn_kernel(&s, 1000, 0, "syscall_entry_k0", I("fd", 3));
	if (uc == USER_GRACE)
		wake = 100 + 2 * USER_KINDS + 1000;
	scn_wake(&s, wake, 0, B);
	scn_switch(&s, 40000, 1, 0, RUNNABLE, B);
	scn_kernel(&s, 41000, 1, "syscall_exit_futex", I("ret", uc == USER_TIMEDOUT ? -110 : 0));
	scn_path(&s, B, 0, 42000, p);
	scn_fini(&s);
}

static void user_mode_waker(void **state)
{
	struct jank_path p;

	(void)state;
	user_run(USER_MODE, &p);
	assert_path(&p, { B, "running", 0, 20 }, { B, "interrupted", 20, 30000 },
		    { B, "preempted", 30000, 40000 }, { B, "running", 40000, 42000 });
	jank_path_fini(&p);
	user_run(USER_TIMEDOUT, &p);
	assert_path(&p, { B, "running", 0, 20 }, { B, "timer", 20, 30000 },
		    { B, "preempted", 30000, 40000 }, { B, "running", 40000, 42000 });
	jank_path_fini(&p);
}

/* Where the trace cannot tell that A is in user mode, A stays the waker. */
static void user_mode_unknown(void **state)
{
	static const enum user_case cases[] = { USER_UNKNOWN, USER_PAGE_FAULT, USER_FEW_KINDS,
						USER_SWITCHED, USER_IN_SYSCALL };
	struct jank_path p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		user_run(cases[i], &p);
		if (cases[i] == USER_SWITCHED)
			assert_path(&p, { B, "running", 0, 20 }, { A, "running", 20, 1000 },
				    { A, "preempted", 1000, 2000 }, { A, "running", 2000, 30000 },
				    { B, "preempted", 30000, 40000 },
				    { B, "running", 40000, 42000 });
		else
			assert_path(&p, { B, "running", 0, 20 }, { A, "running", 20, 30000 },
				    { B, "preempted", 30000, 40000 },
				    { B, "running", 40000, 42000 });
		jank_path_fini(&p);
	}
	user_run(USER_GRACE, &p);
	assert_path(&p, { B, "running", 0, 20 }, { A, "running", 20, 1164 },
		    { B, "preempted", 1164, 40000 }, { B, "running", 40000, 42000 });
	jank_path_fini(&p);
}

/* A sched_switch straight into a model (no engine): what the CPU history records. */
static void model_switch(struct jank_model *m, int64_t ts, int cpu, int prev, int state, int next)
{
	struct jank_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.cpu = cpu;
	ev.tid = -1;
	ev.pid = -1;
	ev.nfields = JANK_F_SWITCH_NEXT_TID + 1;
	ev.fields[JANK_F_SWITCH_PREV_COMM] =
		(struct jank_value){ .type = JANK_VALUE_STR, .s = "p" };
	ev.fields[JANK_F_SWITCH_PREV_TID] =
		(struct jank_value){ .type = JANK_VALUE_INT, .i = prev };
	ev.fields[JANK_F_SWITCH_PREV_STATE] =
		(struct jank_value){ .type = JANK_VALUE_INT, .i = state };
	ev.fields[JANK_F_SWITCH_NEXT_COMM] =
		(struct jank_value){ .type = JANK_VALUE_STR, .s = "n" };
	ev.fields[JANK_F_SWITCH_NEXT_TID] =
		(struct jank_value){ .type = JANK_VALUE_INT, .i = next };
	jank_model_process(m, JANK_EVENT_SCHED_SWITCH, &ev);
}

static int64_t share_of(const struct jank_cpu_share *v, size_t n, int32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tid == tid)
			return v[i].ns;
	return 0;
}

/*
 * Who ran on a CPU over an interval, from its last switch-ins: B and C took
 * CPU 0 from A (idle time is not counted); the CPU A came back on is found
 * from its switch-in. Past JANK_CPU_HISTORY switches, an older interval is
 * only partly covered, and says so.
 */
static void cpu_history(void **state)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_layout l;
	struct jank_model m;
	struct jank_cpu_share v[8];
	size_t n = 0;

	(void)state;
	jank_layout_from_env(&l, 2, 13);
	assert_int_equal(jank_model_init(&m, g, &l), 0);
	model_switch(&m, 100, 0, 0, 0, A);
	model_switch(&m, 200, 0, A, RUNNABLE, B);
	model_switch(&m, 1200, 0, B, SLEEPING, 0);
	model_switch(&m, 1300, 0, 0, 0, C);
	model_switch(&m, 1800, 0, C, SLEEPING, A);
	model_switch(&m, 1000, 1, 0, 0, B); /* another CPU */
	assert_true(jank_model_cpu_shares(&m, 0, 200, 1800, v, &n, 8));
	assert_int_equal(n, 2);
	assert_int_equal(share_of(v, n, B), 1000);
	assert_int_equal(share_of(v, n, C), 500);
	/* Merged by tid across calls; a part of an interval counts its part. */
	assert_true(jank_model_cpu_shares(&m, 0, 1000, 1500, v, &n, 8));
	assert_int_equal(share_of(v, n, B), 1200);
	assert_int_equal(share_of(v, n, C), 700);
	assert_int_equal(jank_model_switch_cpu(&m, A, 1800, 1, true), 0);
	assert_int_equal(jank_model_switch_cpu(&m, A, 1800, 1, false), -1);
	assert_int_equal(jank_model_switch_cpu(&m, A, 1800, 0, false), 0);
	assert_int_equal(jank_model_switch_cpu(&m, A, 1700, -1, true), -1);
	assert_int_equal(jank_model_switch_cpu(&m, B, 1000, 0, true), 1);
	/* The ring wraps: the oldest switches are gone. */
	for (int i = 0; i < JANK_CPU_HISTORY; i++)
		model_switch(&m, 2000 + 2 * i, 0, i % 2 ? C : A, RUNNABLE, i % 2 ? A : C);
	assert_true(jank_model_bytes(&m) >= JANK_CPU_HISTORY * sizeof(struct jank_cpu_run));
	n = 0;
	assert_false(jank_model_cpu_shares(&m, 0, 200, 1800, v, &n, 8));
	assert_int_equal(n, 0);
	assert_true(jank_model_cpu_shares(&m, 0, 2100, 2110, v, &n, 8));
	assert_int_equal(share_of(v, n, A) + share_of(v, n, C), 10);
	jank_model_fini(&m);
	jank_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prev_state_bits),
		cmocka_unit_test(preempted_in_kernel),
		cmocka_unit_test(untraced_switch_from_idle),
		cmocka_unit_test(fork_chain),
		cmocka_unit_test(child_without_wakeup_new),
		cmocka_unit_test(loopback_sender),
		cmocka_unit_test(nic_receive),
		cmocka_unit_test(current_thread_exited),
		cmocka_unit_test(current_thread_reused),
		cmocka_unit_test(deep_interrupt_nesting),
		cmocka_unit_test(ksoftirqd_woken_by_softirq),
		cmocka_unit_test(ksoftirqd_woken_by_thread),
		cmocka_unit_test(user_mode_waker),
		cmocka_unit_test(user_mode_unknown),
		cmocka_unit_test(cpu_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
