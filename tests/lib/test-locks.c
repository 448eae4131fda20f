/* SPDX-License-Identifier: MIT */
/*
 * User-space lock contention (lttng_ust_pthread:* events): lock_wait edges
 * whose waker is the holder's unlock, keyed by (vpid, mutex). Without
 * scheduler events, a holder's time between its events is `unknown`: it
 * may be blocked (in pthread_cond_wait, below), and only events say that a
 * thread ran. Threads T1..T4 = 1..4 in process 100; M and N are mutex
 * addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"

#define M 0x7f0000001000LL
#define N 0x7f0000002000LL
enum {
	T1 = 1,
	T2,
	T3,
	T4
};

static void mutex_ev(struct scn *s, int64_t ts, int tid, const char *what, int64_t mutex,
		     int status)
{
	/* The scenario helper keeps class names by pointer: literals only. */
	const char *name =
		strcmp(what, "lock_req") == 0	? "lttng_ust_pthread:pthread_mutex_lock_req"
		: strcmp(what, "lock_acq") == 0 ? "lttng_ust_pthread:pthread_mutex_lock_acq"
		: strcmp(what, "unlock") == 0	? "lttng_ust_pthread:pthread_mutex_unlock"
						: "lttng_ust_pthread:pthread_mutex_trylock";

	scn_event_v(s, JANK_DOMAIN_UST, ts, tid % 2, tid, name,
		    (const struct scn_field[]){ I("mutex", mutex), I("status", status),
						I("ip", 0x400000) },
		    3);
}

/* lock() as the wrapper traces it: a request, then the acquisition. */
static void lock(struct scn *s, int64_t req, int64_t acq, int tid, int64_t mutex)
{
	mutex_ev(s, req, tid, "lock_req", mutex, 0);
	mutex_ev(s, acq, tid, "lock_acq", mutex, 0);
}

static void unlock(struct scn *s, int64_t ts, int tid, int64_t mutex)
{
	mutex_ev(s, ts, tid, "unlock", mutex, 0);
}

static void path_of(struct scn *s, int tid, int64_t b, int64_t e, struct jank_path *p)
{
	scn_path(s, tid, b, e, p);
}

static bool path_has_tid(const struct jank_path *p, int tid)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->segs[i].tid == tid)
			return true;
	return false;
}

/* Three threads, one mutex, each holding it for 100: waits 0, 100, 200. */
static void three_threads_one_mutex(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_breakdown b;

	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 100;
	lock(&s, 0, 0, T1, M);
	mutex_ev(&s, 1, T2, "lock_req", M, 0);
	mutex_ev(&s, 2, T3, "lock_req", M, 0);
	unlock(&s, 100, T1, M);
	mutex_ev(&s, 101, T2, "lock_acq", M, 0);
	unlock(&s, 200, T2, M);
	mutex_ev(&s, 201, T3, "lock_acq", M, 0);
	unlock(&s, 300, T3, M);

	path_of(&s, T3, 2, 201, &p);
	assert_path(&p, { T1, "unknown", 2, 100 }, { T2, "preempted", 100, 101 },
		    { T2, "unknown", 101, 200 }, { T3, "preempted", 200, 201 });
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(p.segs[i].lock, M);
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_int_equal(b.nlocks, 1);
	assert_int_equal(b.locks[0].lock, M);
	assert_int_equal(b.locks[0].ns, 198);
	jank_breakdown_fini(&b);
	jank_path_fini(&p);

	/* T2 waited for T1 only. */
	path_of(&s, T2, 1, 101, &p);
	assert_path(&p, { T1, "unknown", 1, 100 }, { T2, "preempted", 100, 101 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Two mutexes, two pairs of threads: no edge crosses from one pair to the other. */
static void independent_mutexes(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 100;
	lock(&s, 0, 0, T1, M);
	lock(&s, 1, 1, T3, N);
	mutex_ev(&s, 2, T2, "lock_req", M, 0);
	mutex_ev(&s, 3, T4, "lock_req", N, 0);
	unlock(&s, 50, T3, N);
	mutex_ev(&s, 51, T4, "lock_acq", N, 0);
	unlock(&s, 60, T1, M);
	mutex_ev(&s, 61, T2, "lock_acq", M, 0);
	path_of(&s, T2, 2, 61, &p);
	assert_path(&p, { T1, "unknown", 2, 60 }, { T2, "preempted", 60, 61 });
	jank_path_fini(&p);
	path_of(&s, T4, 3, 51, &p);
	assert_path(&p, { T3, "unknown", 3, 50 }, { T4, "preempted", 50, 51 });
	assert_false(path_has_tid(&p, T1) || path_has_tid(&p, T2));
	jank_path_fini(&p);
	scn_fini(&s);
}

/* The same address in two processes is two locks. */
static void same_address_other_process(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, &scn_layout_current, NULL);
	lock(&s, 0, 0, T1, M);
	/* T2 belongs to another process (pid = tid here). */
	lock(&s, 5, 6, T2, M);
	path_of(&s, T2, 5, 6, &p);
	assert_path(&p, { T2, "unknown", 5, 6 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Two containers, each a process 1 with threads 1 and 2, and a mutex at the
 * same address (pidns.h): their threads and locks stay apart. In A, T1
 * holds M 0-100 and T2 waits for it; in B, T1 holds it 10-30 and T2 waits
 * 11-30. The engine numbers A's threads 1 << 22 | vtid, B's 2 << 22 | vtid.
 */
#define NS_A 4026532001u
#define NS_B 4026532002u
static void in_ns(struct scn *s, uint32_t ns, int64_t ts, int tid, const char *what)
{
	s->pid_ns = ns;
	mutex_ev(s, ts, tid, what, M, 0);
}

static void same_threads_other_container(void **state)
{
	const int a1 = 1 << 22 | T1, a2 = 1 << 22 | T2, b1 = 2 << 22 | T1, b2 = 2 << 22 | T2;
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	in_ns(&s, NS_A, 0, T1, "lock_req");
	in_ns(&s, NS_A, 0, T1, "lock_acq");
	in_ns(&s, NS_A, 1, T2, "lock_req");
	in_ns(&s, NS_B, 10, T1, "lock_req");
	in_ns(&s, NS_B, 10, T1, "lock_acq");
	in_ns(&s, NS_B, 11, T2, "lock_req");
	in_ns(&s, NS_B, 30, T1, "unlock");
	in_ns(&s, NS_B, 30, T2, "lock_acq");
	in_ns(&s, NS_A, 100, T1, "unlock");
	in_ns(&s, NS_A, 101, T2, "lock_acq");
	path_of(&s, a2, 1, 101, &p);
	assert_path(&p, { a1, "unknown", 1, 100 }, { a2, "preempted", 100, 101 });
	jank_path_fini(&p);
	path_of(&s, b2, 11, 30, &p);
	assert_path(&p, { b1, "unknown", 11, 30 });
	jank_path_fini(&p);
	/* The host's own threads keep their numbers. */
	s.pid_ns = 0xEFFFFFFCu;
	lock(&s, 200, 200, T1, M);
	unlock(&s, 300, T1, M);
	path_of(&s, T1, 200, 300, &p);
	assert_true(path_has_tid(&p, T1));
	assert_false(path_has_tid(&p, a1) || path_has_tid(&p, b1));
	jank_path_fini(&p);
	scn_fini(&s);
}

/* An uncontended lock adds no wait edge. */
static void uncontended(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 100;
	lock(&s, 0, 1, T1, M);
	unlock(&s, 10, T1, M);
	lock(&s, 20, 21, T2, M);
	unlock(&s, 30, T2, M);
	path_of(&s, T2, 20, 30, &p);
	assert_path(&p, { T2, "unknown", 20, 30 });
	assert_false(path_has_tid(&p, T1));
	jank_path_fini(&p);
	scn_fini(&s);
}

/* A failed trylock (EBUSY) never makes the thread the holder. */
static void trylock_ebusy(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 100;
	lock(&s, 0, 0, T1, M);
	mutex_ev(&s, 5, T2, "trylock", M, 16);
	unlock(&s, 6, T2, M); /* a bogus unlock by the non-holder changes nothing */
	mutex_ev(&s, 10, T3, "lock_req", M, 0);
	unlock(&s, 50, T1, M);
	mutex_ev(&s, 52, T3, "lock_acq", M, 0);
	path_of(&s, T3, 10, 52, &p);
	assert_path(&p, { T1, "unknown", 10, 50 }, { T3, "preempted", 50, 52 });
	jank_path_fini(&p);

	/* Once T3 releases it, a successful trylock makes T2 the holder. */
	unlock(&s, 55, T3, M);
	mutex_ev(&s, 60, T2, "trylock", M, 0);
	mutex_ev(&s, 62, T4, "lock_req", M, 0);
	unlock(&s, 90, T2, M);
	mutex_ev(&s, 91, T4, "lock_acq", M, 0);
	path_of(&s, T4, 62, 91, &p);
	assert_path(&p, { T2, "unknown", 62, 90 }, { T4, "preempted", 90, 91 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * The unlock tracepoint fires after the real unlock: T2's acquisition (100)
 * is traced before T1's unlock (102). The handoff is still T1 -> T2, and
 * T1's late unlock does not release T2's hold.
 */
static void unlock_after_acquire(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 100;
	lock(&s, 0, 0, T1, M);
	mutex_ev(&s, 10, T2, "lock_req", M, 0);
	mutex_ev(&s, 100, T2, "lock_acq", M, 0);
	unlock(&s, 102, T1, M);
	mutex_ev(&s, 150, T3, "lock_req", M, 0);
	unlock(&s, 200, T2, M);
	mutex_ev(&s, 205, T3, "lock_acq", M, 0);
	path_of(&s, T2, 10, 100, &p);
	assert_path(&p, { T1, "unknown", 10, 100 });
	assert_int_equal(p.segs[0].lock, M);
	jank_path_fini(&p);
	path_of(&s, T3, 150, 205, &p);
	assert_path(&p, { T2, "unknown", 150, 200 }, { T3, "preempted", 200, 205 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * With scheduler events the futex wait and its waker come from the kernel;
 * the lock events relabel that wait as lock_wait on M.
 */
static void refines_kernel_wait(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_breakdown b;

	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 100;
	scn_switch(&s, 0, 0, 0, 0, T1);
	scn_switch(&s, 0, 1, 0, 0, T2);
	lock(&s, 1, 1, T1, M);
	mutex_ev(&s, 10, T2, "lock_req", M, 0);
	scn_switch(&s, 12, 1, T2, 1, 0); /* T2 sleeps on the futex */
	unlock(&s, 50, T1, M);
	scn_wake(&s, 50, 0, T2); /* T1's futex wake */
	scn_switch(&s, 55, 1, 0, 0, T2);
	mutex_ev(&s, 56, T2, "lock_acq", M, 0);
	path_of(&s, T2, 10, 60, &p);
	assert_path(&p, { T2, "running", 10, 12 }, { T1, "running", 12, 50 },
		    { T2, "preempted", 50, 55 }, { T2, "running", 55, 60 });
	assert_int_equal(p.segs[1].lock, M);
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_int_equal(b.nlocks, 1);
	assert_int_equal(b.locks[0].ns, 38);
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_threads_one_mutex),
		cmocka_unit_test(independent_mutexes),
		cmocka_unit_test(same_address_other_process),
		cmocka_unit_test(same_threads_other_container),
		cmocka_unit_test(uncontended),
		cmocka_unit_test(trylock_ebusy),
		cmocka_unit_test(unlock_after_acquire),
		cmocka_unit_test(refines_kernel_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
