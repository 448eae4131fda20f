/* SPDX-License-Identifier: MIT */
/*
 * User-level flows, spans, and no invented running time without scheduler
 * events.
 *
 * A request thread R (10) posts a task to a pool thread P (20): flow "queue"
 * (app:post → app:run, key task) and, for the reply, flow "done" (app:done →
 * app:joined). The pool's tasks are actions "task" (app:task_begin →
 * app:task_end, key task): its spans.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"

enum {
	R = 10,
	P = 20,
	Q = 30
};

#define M 0x7f0000001000LL

static void add_flow(struct scn *s, const char *name, const char *from, const char *to,
		     const char *keys)
{
	struct jank_flow_rule f;

	jank_flow_rule_init(&f);
	f.name = (char *)name;
	f.from_event = (char *)from;
	f.to_event = (char *)to;
	assert_int_equal(jank_flow_rule_set_keys(&f, keys), 0);
	assert_true(jank_engine_add_flow(s->e, &f) >= 0);
	for (unsigned i = 0; i < f.nkeys; i++)
		free(f.keys[i]);
}

static void add_action(struct scn *s, const char *name, const char *begin, const char *end,
		       const char *keys)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = (char *)name;
	r.begin_event = (char *)begin;
	r.end_event = (char *)end;
	assert_int_equal(jank_rule_set_keys(&r, keys), 0);
	assert_int_equal(jank_threshold_parse("1ns", &r.threshold), 0);
	assert_true(jank_engine_add_rule(s->e, &r) >= 0);
	for (unsigned i = 0; i < r.nkeys; i++)
		free(r.keys[i]);
}

static void setup(struct scn *s, const struct jank_engine_config *cfg)
{
	scn_init(s, &scn_layout_current, cfg);
	s->pid = 1;
	add_flow(s, "queue", "app:post", "app:run", "task");
	add_flow(s, "done", "app:done", "app:joined", "task");
	add_action(s, "task", "app:task_begin", "app:task_end", "task");
	add_action(s, "request", "app:req_begin", "app:req_end", "id");
}

/* A user-space event of the app with an integer field. */
static void app(struct scn *s, int64_t ts, int cpu, int tid, const char *name, const char *field,
		int64_t v)
{
	scn_event_v(s, JANK_DOMAIN_UST, ts, cpu, tid, name,
		    (const struct scn_field[]){ I(field, v) }, 1);
}

/* Segment i's labels: its flow's name and its span's "action key" (NULL: none). */
static void assert_labels(const struct jank_path *p, size_t i, const char *flow, const char *span)
{
	const struct jank_label *f = jank_path_label_of(p, p->segs[i].flow);
	const struct jank_label *sp = jank_path_label_of(p, p->segs[i].span);
	char buf[160];

	assert_true(i < p->n);
	if (!flow)
		assert_null(f);
	else
		assert_string_equal(f ? f->name : "(none)", flow);
	if (!span) {
		assert_null(sp);
		return;
	}
	snprintf(buf, sizeof(buf), "%s %s", sp ? sp->name : "(none)", sp ? sp->key : "");
	assert_string_equal(buf, span);
}

/*
 * The pool is busy with task 0 when R posts task 1: the path stays on the
 * pool from the post to the pick-up (running task 0, labelled "queue"), then
 * the pool runs task 1, and the reply comes back to R through "done".
 */
static void busy_pool(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_engine_stats st;

	setup(&s, NULL);
	scn_switch(&s, 0, 0, 0, 0, R);
	scn_switch(&s, 0, 1, 0, 0, P);
	app(&s, 1, 1, P, "app:task_begin", "task", 0);
	app(&s, 100, 0, R, "app:post", "task", 1);
	scn_switch(&s, 110, 0, R, 1, 0);
	app(&s, 500, 1, P, "app:task_end", "task", 0);
	app(&s, 500, 1, P, "app:run", "task", 1);
	app(&s, 500, 1, P, "app:task_begin", "task", 1);
	app(&s, 900, 1, P, "app:task_end", "task", 1);
	app(&s, 900, 1, P, "app:done", "task", 1);
	scn_wake(&s, 905, 1, R);
	scn_switch(&s, 950, 0, 0, 0, R);
	app(&s, 960, 0, R, "app:joined", "task", 1);

	scn_path(&s, R, 0, 1000, &p);
	assert_path(&p, { R, "running", 0, 100 }, { P, "running", 100, 500 },
		    { P, "running", 500, 900 }, { P, "running", 900, 905 },
		    { R, "preempted", 905, 950 }, { R, "running", 950, 960 },
		    { R, "running", 960, 1000 });
	assert_labels(&p, 0, NULL, NULL);
	assert_labels(&p, 1, "queue", "task task=0");
	assert_labels(&p, 2, NULL, "task task=1");
	assert_labels(&p, 3, NULL, NULL);
	assert_labels(&p, 4, "done", NULL);
	assert_labels(&p, 5, "done", NULL);
	assert_labels(&p, 6, NULL, NULL);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_paired, 2);
	assert_int_equal(st.flows_pending, 0);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * R posts to the busy pool, then waits for the reply on a condition variable
 * (no reply flow): P wakes R when it is done. The wait began after the post,
 * in the same run of R: the wait is resolved by the wakeup, and P's time up
 * to the pick-up is labelled with the flow. Not so when R blocked in between
 * (the post is then another run's).
 */
static void post_then_wait(void **state)
{
	struct scn s;
	struct jank_path p;

	for (int blocked = 0; blocked < 2; blocked++) {
		setup(&s, NULL);
		scn_switch(&s, 0, 0, 0, 0, R);
		scn_switch(&s, 0, 1, 0, 0, P);
		app(&s, 100, 0, R, "app:post", "task", 1);
		if (blocked) {
			scn_switch(&s, 102, 0, R, 1, 0);
			scn_wake(&s, 104, 0, R);
			scn_switch(&s, 105, 0, 0, 0, R);
		}
		scn_switch(&s, 110, 0, R, 1, 0);
		app(&s, 500, 1, P, "app:run", "task", 1);
		scn_wake(&s, 905, 1, R);
		scn_switch(&s, 950, 0, 0, 0, R);

		scn_path(&s, R, 0, 1000, &p);
		if (!blocked) {
			assert_path(&p, { R, "running", 0, 110 }, { P, "running", 110, 500 },
				    { P, "running", 500, 905 }, { R, "preempted", 905, 950 },
				    { R, "running", 950, 1000 });
			assert_labels(&p, 1, "queue", NULL);
			assert_labels(&p, 2, NULL, NULL);
		} else {
			assert_path(&p, { R, "running", 0, 102 }, { R, "blocked", 102, 104 },
				    { R, "preempted", 104, 105 }, { R, "running", 105, 110 },
				    { P, "running", 110, 905 }, { R, "preempted", 905, 950 },
				    { R, "running", 950, 1000 });
			assert_labels(&p, 4, NULL, NULL);
		}
		jank_path_fini(&p);
		scn_fini(&s);
	}
}

/*
 * The pool is idle (blocked) when R posts and wakes it: between the post and
 * the pick-up the pool was woken by R, then waited for a CPU.
 */
static void idle_pool(void **state)
{
	struct scn s;
	struct jank_path p;

	setup(&s, NULL);
	scn_switch(&s, 0, 0, 0, 0, R);
	scn_switch(&s, 0, 1, 0, 0, P);
	scn_switch(&s, 50, 1, P, 1, 0);
	app(&s, 100, 0, R, "app:post", "task", 1);
	scn_wake(&s, 101, 0, P);
	scn_switch(&s, 110, 0, R, 1, 0);
	scn_switch(&s, 120, 1, 0, 0, P);
	app(&s, 125, 1, P, "app:run", "task", 1);
	app(&s, 900, 1, P, "app:done", "task", 1);
	scn_wake(&s, 905, 1, R);
	scn_switch(&s, 950, 0, 0, 0, R);
	app(&s, 960, 0, R, "app:joined", "task", 1);

	scn_path(&s, R, 0, 1000, &p);
	assert_path(&p, { R, "running", 0, 101 }, { P, "preempted", 101, 120 },
		    { P, "running", 120, 125 }, { P, "running", 125, 905 },
		    { R, "preempted", 905, 950 }, { R, "running", 950, 960 },
		    { R, "running", 960, 1000 });
	assert_labels(&p, 1, "queue", NULL);
	assert_labels(&p, 2, "queue", NULL);
	assert_labels(&p, 3, NULL, NULL);
	assert_labels(&p, 4, "done", NULL);
	jank_path_fini(&p);

	/* A path that begins after the post: the flow is before the bound, P's time is P's. */
	scn_path(&s, P, 110, 130, &p);
	assert_path(&p, { P, "preempted", 110, 120 }, { P, "running", 120, 130 });
	assert_labels(&p, 0, NULL, NULL);
	jank_path_fini(&p);
	scn_fini(&s);
}

struct transcript {
	char buf[8192];
	size_t len;
	unsigned reports;
};

static void record(const struct jank_verdict *r, void *data)
{
	struct transcript *t = data;

	t->reports++;
	t->len += (size_t)snprintf(t->buf + t->len, sizeof(t->buf) - t->len,
				   "%s %s %lld..%lld:", r->rule->name, r->key, (long long)r->begin,
				   (long long)r->end);
	for (size_t i = 0; i < r->path->n && t->len < sizeof(t->buf); i++) {
		const struct jank_segment *s = &r->path->segs[i];
		const struct jank_label *f = jank_path_label_of(r->path, s->flow);
		const struct jank_label *sp = jank_path_label_of(r->path, s->span);

		t->len += (size_t)snprintf(
			t->buf + t->len, sizeof(t->buf) - t->len, " %d/%s/%lld/%lld/%s/%s%s%s",
			s->tid, jank_state_name(s->state), (long long)s->begin, (long long)s->end,
			f ? f->name : "-", sp ? sp->name : "-", sp ? ":" : "", sp ? sp->key : "");
	}
	if (t->len < sizeof(t->buf) - 1)
		t->buf[t->len++] = '\n';
	t->buf[t->len < sizeof(t->buf) ? t->len : sizeof(t->buf) - 1] = '\0';
}

/*
 * Request and reply through the engine's verdicts: the request action's path
 * goes to the pool and back, with a long wait in the queue, while a tick
 * (and GC, when on) runs in between.
 */
static void run_request(const struct jank_engine_config *cfg, struct transcript *t)
{
	const int64_t T = 1000000000, MS = 1000000;
	struct scn s;

	setup(&s, cfg);
	jank_engine_set_verdict_cb(s.e, record, t);
	scn_switch(&s, T, 0, 0, 0, R);
	scn_switch(&s, T, 1, 0, 0, P);
	app(&s, T + 10, 1, P, "app:task_begin", "task", 0);
	app(&s, T + 100, 0, R, "app:req_begin", "id", 7);
	app(&s, T + 200, 0, R, "app:post", "task", 1);
	scn_switch(&s, T + 300, 0, R, 1, 0);
	/* Other threads come and go while the task waits: GC has work. */
	for (int i = 0; i < 200; i++) {
		scn_switch(&s, T + (i + 1) * MS / 10, 2, 0, 0, 100 + i);
		scn_switch(&s, T + (i + 1) * MS / 10 + 50, 2, 100 + i, 16, 0);
		jank_engine_tick(s.e, T + (i + 1) * MS / 10 + 60);
	}
	app(&s, T + 30 * MS, 1, P, "app:task_end", "task", 0);
	app(&s, T + 30 * MS, 1, P, "app:run", "task", 1);
	app(&s, T + 30 * MS, 1, P, "app:task_begin", "task", 1);
	app(&s, T + 31 * MS, 1, P, "app:task_end", "task", 1);
	app(&s, T + 31 * MS, 1, P, "app:done", "task", 1);
	scn_wake(&s, T + 31 * MS + 5, 1, R);
	scn_switch(&s, T + 31 * MS + 50, 0, 0, 0, R);
	app(&s, T + 31 * MS + 60, 0, R, "app:joined", "task", 1);
	app(&s, T + 31 * MS + 100, 0, R, "app:req_end", "id", 7);
	jank_engine_finish(s.e);
	scn_fini(&s);
}

static void request_reply_gc_twins(void **state)
{
	struct jank_engine_config on, off;
	struct transcript a = { .len = 0 }, b = { .len = 0 };
	const char *req;

	jank_engine_config_defaults(&on);
	on.retention_ns = 1000000; /* 1 ms: the queue wait is 30 times that */
	off = on;
	off.gc = false;
	run_request(&on, &a);
	run_request(&off, &b);
	assert_int_equal(a.reports, 3); /* tasks 0 and 1, the request */
	assert_string_equal(a.buf, b.buf);
	req = strstr(a.buf, "request id=7");
	assert_non_null(req);
	/* The request waited 30 ms in the queue while the pool ran task 0, then ran task 1. */
	assert_non_null(strstr(req, " 20/running/1000000200/1030000000/queue/task:task=0"));
	assert_non_null(strstr(req, " 20/running/1030000000/1031000000/-/task:task=1"));
	assert_non_null(strstr(req, " 10/preempted/1031000005/1031000050/done/request:id=7"));
	print_message("# %s", a.buf);
}

/* A `to` with no `from` makes no edge; a `from` repeated: the latest one pairs, once. */
static void missing_from_and_key_reuse(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_engine_stats st;

	setup(&s, NULL);
	scn_switch(&s, 0, 0, 0, 0, R);
	scn_switch(&s, 0, 1, 0, 0, P);
	scn_switch(&s, 0, 2, 0, 0, Q);
	app(&s, 50, 1, P, "app:run", "task", 9); /* never posted */
	app(&s, 100, 0, R, "app:post", "task", 1);
	app(&s, 200, 2, Q, "app:post", "task", 1); /* the same key again: Q's wins */
	app(&s, 500, 1, P, "app:run", "task", 1);
	app(&s, 600, 1, P, "app:run", "task", 1); /* already picked up */
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_unmatched, 2);
	assert_int_equal(st.flows_replaced, 1);
	assert_int_equal(st.flows_paired, 1);
	assert_int_equal(st.flows_pending, 0);

	scn_path(&s, P, 0, 700, &p);
	assert_path(&p, { Q, "running", 0, 200 }, { P, "running", 200, 500 },
		    { P, "running", 500, 700 });
	assert_labels(&p, 1, "queue", NULL);
	assert_labels(&p, 2, NULL, NULL);
	jank_path_fini(&p);
	/* Before any flow, P's own time. */
	scn_path(&s, P, 0, 100, &p);
	assert_path(&p, { P, "running", 0, 100 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * The user's report, with the lttng-ust pthread wrapper only (no kernel):
 * R takes the mutex, posts, and waits on a condition variable
 * (pthread_cond_wait releases and retakes the mutex inside glibc, unseen);
 * the pool takes the mutex (the trace says R still holds it), signals,
 * releases it; R's unlock comes after. R was not running for 30 ms: it
 * waited for the pool, which released the mutex at 30.01 ms.
 */
static void mutex_ev(struct scn *s, int64_t ts, int tid, const char *name)
{
	scn_event_v(s, JANK_DOMAIN_UST, ts, tid % 2, tid, name,
		    (const struct scn_field[]){ I("mutex", M), I("status", 0) }, 2);
}

static void lock(struct scn *s, int64_t ts, int tid)
{
	mutex_ev(s, ts, tid, "lttng_ust_pthread:pthread_mutex_lock_req");
	mutex_ev(s, ts, tid, "lttng_ust_pthread:pthread_mutex_lock_acq");
}

static void unlock(struct scn *s, int64_t ts, int tid)
{
	mutex_ev(s, ts, tid, "lttng_ust_pthread:pthread_mutex_unlock");
}

static void run_cond_wait(struct scn *s, bool flows)
{
	const int64_t US = 1000;

	setup(s, NULL);
	lock(s, 0, P); /* the pool waits for work in pthread_cond_wait, unseen */
	app(s, 10 * US, 0, R, "app:req_begin", "id", 7);
	lock(s, 20 * US, R);
	if (flows)
		app(s, 25 * US, 0, R, "app:post", "task", 1);
	/* R: pthread_cond_signal, pthread_cond_wait (unseen). */
	unlock(s, 40 * US, P); /* the pool woke, took the task */
	if (flows)
		app(s, 45 * US, 1, P, "app:run", "task", 1);
	lock(s, 30000 * US, P); /* the task is done: P locks, signals R */
	if (flows)
		app(s, 30005 * US, 1, P, "app:done", "task", 1);
	unlock(s, 30010 * US, P);
	if (flows)
		app(s, 31400 * US, 0, R, "app:joined", "task", 1);
	unlock(s, 31500 * US, R); /* R's cond_wait returned with the mutex */
	app(s, 31510 * US, 0, R, "app:req_end", "id", 7);
}

static bool has_state(const struct jank_path *p, int tid, const char *state)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->segs[i].tid == tid && !strcmp(jank_state_name(p->segs[i].state), state))
			return true;
	return false;
}

static void ust_only_cond_wait(void **state)
{
	const int64_t US = 1000;
	struct scn s;
	struct jank_path p;

	/* Mutex events alone: the wait is on the pool, up to its release. */
	run_cond_wait(&s, false);
	scn_path(&s, R, 10 * US, 31510 * US, &p);
	assert_path(&p, { R, "unknown", 10 * US, 20 * US }, { P, "unknown", 20 * US, 30010 * US },
		    { R, "unknown", 30010 * US, 31510 * US });
	assert_false(has_state(&p, R, "running"));
	jank_path_fini(&p);
	scn_fini(&s);

	/* With the flows too: the pool's task, from its pick-up, is what R waited for. */
	run_cond_wait(&s, true);
	scn_path(&s, R, 10 * US, 31510 * US, &p);
	assert_path(&p, { R, "unknown", 10 * US, 25 * US }, { P, "unknown", 25 * US, 45 * US },
		    { P, "unknown", 45 * US, 30005 * US }, { R, "unknown", 30005 * US, 31400 * US },
		    { R, "unknown", 31400 * US, 31510 * US });
	assert_labels(&p, 1, "queue", NULL);
	assert_labels(&p, 2, NULL, NULL);
	assert_labels(&p, 3, "done", "request id=7");
	assert_labels(&p, 4, NULL, "request id=7");
	assert_false(has_state(&p, R, "running") || has_state(&p, P, "running"));
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * jank-demo --cause pool, UST only (tests/live/test-jankd-flows.sh): R posts
 * task 2 under the mutex and waits on a condition variable; the pool, busy
 * with task 1, takes the mutex while the trace says R holds it (R's wait
 * released it unseen), picks task 2 up, runs it, replies under the mutex and
 * unlocks; R's "late" unlock comes after. That lock of the pool's was no
 * handoff from R, and R's wait, which began at its post, is on the pool from
 * the post on, by the flow.
 */
static void ust_only_busy_pool(void **state)
{
	const int64_t US = 1000;
	struct scn s;
	struct jank_path p;
	size_t on_pool = 0;

	(void)state;
	setup(&s, NULL);
	lock(&s, 0, P); /* the pool waits for work, unseen */
	app(&s, 5 * US, 0, R, "app:post", "task", 1);
	unlock(&s, 6 * US, P);
	app(&s, 7 * US, 1, P, "app:run", "task", 1); /* 40 ms of other work */
	app(&s, 10 * US, 0, R, "app:req_begin", "id", 7);
	lock(&s, 20 * US, R);
	app(&s, 21 * US, 0, R, "app:post", "task", 2);
	lock(&s, 40000 * US, P); /* R holds it, for the trace */
	unlock(&s, 40010 * US, P);
	app(&s, 40011 * US, 1, P, "app:run", "task", 2);
	lock(&s, 42000 * US, P);
	unlock(&s, 42010 * US, P); /* the reply */
	unlock(&s, 42020 * US, R); /* R's cond_wait returned with the mutex */
	app(&s, 42030 * US, 0, R, "app:req_end", "id", 7);
	scn_path(&s, R, 10 * US, 42030 * US, &p);
	for (size_t i = 0; i < p.n; i++) {
		const struct jank_segment *g = &p.segs[i];

		/* R only before its post and after the reply; nothing is running. */
		if (g->tid == R)
			assert_true(g->end <= 21 * US || g->begin >= 42010 * US);
		else
			on_pool += (size_t)(g->end - g->begin);
		assert_false(!strcmp(jank_state_name(g->state), "running"));
	}
	assert_int_equal(on_pool, (42010 - 21) * US);
	/* The path came to the pool by the flow, at the post. */
	for (size_t i = 0; i < p.n; i++) {
		if (p.segs[i].tid != P)
			continue;
		assert_int_equal(p.segs[i].begin, 21 * US);
		assert_labels(&p, i, "queue", NULL);
		break;
	}
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Nested actions on one thread: the innermost labels; a non-nested end keeps the inner one. */
static void nested_spans(void **state)
{
	struct scn s;
	struct jank_path p;

	setup(&s, NULL);
	scn_switch(&s, 0, 0, 0, 0, R);
	app(&s, 10, 0, R, "app:req_begin", "id", 1);
	app(&s, 20, 0, R, "app:task_begin", "task", 5);
	app(&s, 30, 0, R, "app:task_end", "task", 5);
	app(&s, 40, 0, R, "app:task_begin", "task", 6);
	app(&s, 50, 0, R, "app:req_end", "id", 1); /* the outer one ends first */
	app(&s, 60, 0, R, "app:task_end", "task", 6);
	scn_path(&s, R, 0, 70, &p);
	assert_path(&p, { R, "running", 0, 10 }, { R, "running", 10, 20 }, { R, "running", 20, 30 },
		    { R, "running", 30, 40 }, { R, "running", 40, 60 }, { R, "running", 60, 70 });
	assert_labels(&p, 0, NULL, NULL);
	assert_labels(&p, 1, NULL, "request id=1");
	assert_labels(&p, 2, NULL, "task task=5");
	assert_labels(&p, 3, NULL, "request id=1");
	assert_labels(&p, 4, NULL, "task task=6");
	assert_labels(&p, 5, NULL, NULL);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * A `from` pending longer than the action timeout is dropped and counted
 * (flows_expired): its `to` afterwards makes no edge (flows_unmatched), and
 * the path of the thread that ran it is its own. A younger `from` stays
 * and pairs.
 */
static void flow_expiry(void **state)
{
	const int64_t MS = 1000000;
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct jank_path p;
	struct scn s;

	jank_engine_config_defaults(&cfg);
	cfg.action_timeout_ns = 1 * MS;
	setup(&s, &cfg);
	scn_switch(&s, 0, 0, 0, 0, R);
	scn_switch(&s, 0, 1, 0, 0, P);
	app(&s, 100, 0, R, "app:post", "task", 1);
	app(&s, MS - 100, 0, R, "app:post", "task", 2);
	jank_engine_tick(s.e, MS + 100); /* task 1: exactly the timeout, kept */
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_expired, 0);
	assert_int_equal(st.flows_pending, 2);
	jank_engine_tick(s.e, MS + 101); /* task 1: past it */
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_expired, 1);
	assert_int_equal(st.flows_pending, 1);

	app(&s, MS + 500, 1, P, "app:run", "task", 1);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_unmatched, 1);
	assert_int_equal(st.flows_paired, 0);
	scn_path(&s, P, 0, MS + 550, &p);
	assert_path(&p, { P, "running", 0, MS + 550 });
	assert_labels(&p, 0, NULL, NULL);
	jank_path_fini(&p);

	app(&s, MS + 600, 1, P, "app:run", "task", 2);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_paired, 1);
	assert_int_equal(st.flows_pending, 0);
	assert_int_equal(st.flows_expired, 1);
	scn_path(&s, P, 0, MS + 700, &p);
	assert_path(&p, { R, "running", 0, MS - 100 }, { P, "running", MS - 100, MS + 600 },
		    { P, "running", MS + 600, MS + 700 });
	assert_labels(&p, 1, "queue", NULL);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Under a tight memory budget, `from`s that never meet their `to` are
 * evicted oldest first once open actions and pending flows take half of it
 * (flows_evicted), long before the 60 s timeout: the memory stays within
 * the budget, the oldest `to` finds nothing, the newest still pairs.
 */
static void flow_eviction(void **state)
{
	const uint64_t limit = 1u << 20;
	const int n = 100000;
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	int64_t t = 1000000;

	jank_engine_config_defaults(&cfg);
	cfg.memory_limit = limit; /* retention and timeout: the defaults, 2 s and 60 s */
	setup(&s, &cfg);
	for (int c = 0; c < 8; c++)
		scn_switch(&s, t, c, 0, 0, 100 + c);
	scn_switch(&s, t, 8, 0, 0, P);
	for (int i = 0; i < n; i++) {
		t += 1000;
		app(&s, t, i % 8, 100 + i % 8, "app:post", "task", i);
	}
	jank_engine_get_stats(s.e, &st);
	print_message("# %d froms, budget %llu KiB: %llu evicted, %llu pending, peak %llu KiB\n", n,
		      (unsigned long long)limit >> 10, (unsigned long long)st.flows_evicted,
		      (unsigned long long)st.flows_pending,
		      (unsigned long long)st.memory_peak >> 10);
	assert_true(st.budget_forced > 0);
	assert_true(st.flows_evicted > (uint64_t)n / 2);
	assert_true(st.flows_pending > 0);
	assert_int_equal(st.flows_evicted + st.flows_pending, n);
	assert_int_equal(st.flows_expired, 0);
	assert_true(st.memory_peak <= limit + limit / 8);

	app(&s, t + 100, 8, P, "app:run", "task", 0);	  /* the oldest: evicted */
	app(&s, t + 200, 8, P, "app:run", "task", n - 1); /* the newest: pending */
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_unmatched, 1);
	assert_int_equal(st.flows_paired, 1);
	scn_fini(&s);
}

/* What the engine accepts as a flow, and a reload that keeps pending `from`s. */
static void flow_rules(void **state)
{
	struct jank_flow_rule f;
	struct jank_engine_stats st;
	struct scn s;

	scn_init(&s, &scn_layout_current, NULL);
	jank_flow_rule_init(&f);
	f.name = "queue";
	f.from_event = "app:post";
	f.to_event = "app:run";
	assert_int_equal(jank_engine_add_flow(s.e, &f), -EINVAL); /* no key */
	assert_int_equal(jank_flow_rule_set_keys(&f, "task"), 0);
	assert_int_equal(jank_flow_rule_set_match(&f, "kind == \"io\""), 0);
	assert_int_equal(jank_engine_add_flow(s.e, &f), 0);
	assert_int_equal(jank_engine_flow_count(s.e), 1);
	assert_string_equal(jank_engine_flow(s.e, 0)->match_field, "kind");
	scn_event_v(&s, JANK_DOMAIN_UST, 100, 0, R, "app:post",
		    (const struct scn_field[]){ I("task", 1), S("kind", "io") }, 2);
	scn_event_v(&s, JANK_DOMAIN_UST, 110, 0, R, "app:post",
		    (const struct scn_field[]){ I("task", 2), S("kind", "cpu") }, 2);
	assert_int_equal(jank_engine_add_flow(s.e, &f), -EBUSY);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_pending, 1); /* the match kept task 2 out */
	/* The same flow again: its pending `from` stays. Another one: dropped. */
	assert_int_equal(jank_engine_replace_flows(s.e, &f, 1), 0);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_pending, 1);
	f.name = "other";
	assert_int_equal(jank_engine_replace_flows(s.e, &f, 1), 0);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_pending, 0);
	assert_int_equal(st.flows_dropped, 1);
	for (unsigned i = 0; i < f.nkeys; i++)
		free(f.keys[i]);
	free(f.match_field);
	free((char *)f.match_value.s);
	scn_fini(&s);
}

/*
 * A key named per event (to-key), as ROS 2 pairs a publication with its take:
 * rmw_publish's timestamp is rmw_take's source_timestamp.
 */
static void keys_per_event(void **state)
{
	struct jank_flow_rule f;
	struct jank_engine_stats st;
	struct jank_path p;
	struct scn s;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	jank_flow_rule_init(&f);
	f.name = "ros2-message";
	f.from_event = "ros2:rmw_publish";
	f.to_event = "ros2:rmw_take";
	assert_int_equal(jank_flow_rule_set_keys(&f, "timestamp"), 0);
	assert_int_equal(jank_flow_rule_set_to_keys(&f, "source_timestamp, taken"), 0);
	assert_false(jank_flow_rule_ok(&f)); /* two fields for one */
	assert_int_equal(jank_engine_add_flow(s.e, &f), -EINVAL);
	assert_int_equal(jank_flow_rule_set_to_keys(&f, "source_timestamp"), 0);
	assert_true(jank_flow_rule_ok(&f));
	assert_string_equal(jank_flow_rule_keys(&f, 0)[0], "timestamp");
	assert_string_equal(jank_flow_rule_keys(&f, 1)[0], "source_timestamp");
	assert_int_equal(jank_engine_add_flow(s.e, &f), 0);
	free(f.keys[0]);
	free(f.to_keys[0]);

	scn_switch(&s, 0, 0, 0, 0, R);
	scn_switch(&s, 0, 1, 0, 0, P);
	scn_event_v(&s, JANK_DOMAIN_UST, 100, 0, R, "ros2:rmw_publish",
		    (const struct scn_field[]){ I("message", 0x1000), I("timestamp", 7) }, 2);
	/* The take's own timestamp field is not its key: no pairing by it. */
	scn_event_v(&s, JANK_DOMAIN_UST, 300, 1, P, "ros2:rmw_take",
		    (const struct scn_field[]){ I("timestamp", 7), I("source_timestamp", 6) }, 2);
	scn_event_v(&s, JANK_DOMAIN_UST, 500, 1, P, "ros2:rmw_take",
		    (const struct scn_field[]){ I("message", 0x2000), I("source_timestamp", 7) },
		    2);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.flows_unmatched, 1);
	assert_int_equal(st.flows_paired, 1);
	assert_int_equal(st.flows_pending, 0);
	scn_path(&s, P, 0, 700, &p);
	assert_path(&p, { R, "running", 0, 100 }, { P, "running", 100, 500 },
		    { P, "running", 500, 700 });
	assert_labels(&p, 1, "ros2-message", NULL);
	jank_path_fini(&p);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(busy_pool),
		cmocka_unit_test(post_then_wait),
		cmocka_unit_test(idle_pool),
		cmocka_unit_test(request_reply_gc_twins),
		cmocka_unit_test(missing_from_and_key_reuse),
		cmocka_unit_test(ust_only_cond_wait),
		cmocka_unit_test(ust_only_busy_pool),
		cmocka_unit_test(nested_spans),
		cmocka_unit_test(flow_rules),
		cmocka_unit_test(keys_per_event),
		cmocka_unit_test(flow_expiry),
		cmocka_unit_test(flow_eviction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
