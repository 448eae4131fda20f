/* SPDX-License-Identifier: MIT */
/*
 * Garbage collection: for every action inside the retention window, the
 * critical path is byte-identical with GC on and with GC off, while GC keeps
 * memory bounded; and the hard memory budget holds. Baselines: the engine
 * learns normal actions (at most one a millisecond), and gives slow ones
 * their suspects. The comm a verdict names, across a rename.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"
#include "workload.h"

struct transcript {
	char *buf;
	size_t len, cap;
	unsigned reports;
	unsigned truncated;
	unsigned discarded; /* verdicts with discarded events in their interval */
};

static void append(struct transcript *t, const char *s)
{
	size_t n = strlen(s);

	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		assert_non_null(t->buf);
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

static void record(const struct jank_verdict *r, void *data)
{
	struct transcript *t = data;
	char line[256];

	t->reports++;
	t->truncated += r->path->truncated;
	t->discarded += r->discarded_events > 0;
	snprintf(line, sizeof(line),
		 "%s %s %lld..%lld tid %d pid %d comm %s lost %llu:", r->rule->name, r->key,
		 (long long)r->begin, (long long)r->end, r->tid, r->pid, r->comm ? r->comm : "-",
		 (unsigned long long)r->discarded_events);
	append(t, line);
	for (size_t i = 0; i < r->path->n; i++) {
		const struct jank_segment *s = &r->path->segs[i];

		snprintf(line, sizeof(line), " %d/%s/%s/%lld/%lld", s->tid, s->comm,
			 jank_state_name(s->state), (long long)s->begin, (long long)s->end);
		append(t, line);
	}
	append(t, "\n");
}

/* Add the rule "frame" (jank:action_begin to jank:action_end) to the scenario's engine. */
static void add_frame_rule(struct scn *s, const char *keys, const char *threshold)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = "frame";
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	if (keys)
		assert_int_equal(jank_rule_set_keys(&r, keys), 0);
	assert_int_equal(jank_threshold_parse(threshold, &r.threshold), 0);
	assert_int_equal(jank_engine_add_rule(s->e, &r), 0);
	for (unsigned i = 0; i < r.nkeys; i++)
		free(r.keys[i]);
}

static void run(const struct workload_params *wp, const struct jank_engine_config *cfg,
		struct transcript *t, struct jank_engine_stats *st)
{
	struct scn s;

	scn_init(&s, &scn_layout_current, cfg);
	add_frame_rule(&s, "name, id", "1s");
	jank_engine_set_verdict_cb(s.e, record, t);
	workload_run(&s, wp);
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, st);
	scn_fini(&s);
}

static void gc_invariance(void **state)
{
	struct workload_params wp = {
		.seed = 42,
		.cpus = 4,
		.threads = 300,
		.events = 400000,
		.short_lived = 3000,
	};
	struct jank_engine_config on, off;
	struct transcript a = { 0 }, b = { 0 };
	struct jank_engine_stats sa, sb;

	jank_engine_config_defaults(&on);
	on.report_all = true;
	on.retention_ns = 200000;	/* ~2000 events of the workload */
	on.action_timeout_ns = 2000000; /* actions of freed threads never end */
	off = on;
	off.gc = false;
	run(&wp, &on, &a, &sa);
	run(&wp, &off, &b, &sb);
	print_message("# %u actions; GC freed %llu vertices, %llu threads; peak %llu KiB with GC, "
		      "%llu KiB without\n",
		      a.reports, (unsigned long long)sa.graph.freed_vertices,
		      (unsigned long long)sa.graph.freed_threads,
		      (unsigned long long)sa.memory_peak >> 10,
		      (unsigned long long)sb.memory_bytes >> 10);
	assert_true(a.reports > 10000);
	assert_int_equal(a.reports, b.reports);
	assert_int_equal(a.truncated, 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	assert_true(sa.graph.freed_vertices > 100000);
	assert_true(sa.graph.freed_threads > 1000);
	assert_true(sa.memory_peak * 4 < sb.memory_bytes);
	assert_int_equal(sa.budget_forced, 0);
	free(a.buf);
	free(b.buf);
}

/*
 * Discarded events every 3000 events, on a CPU, in ranges of up to 400 us
 * (twice the retention: many begin behind the horizon and end after it,
 * while actions that overlap them end):
 * every verdict counts the same discarded events in its interval with GC on
 * and off (the GC drops the ranges that end behind the horizon only), and
 * the ring of ranges never merges within an action's interval here.
 */
static void gc_invariance_discards(void **state)
{
	struct workload_params wp = {
		.seed = 9,
		.cpus = 4,
		.threads = 200,
		.events = 150000,
		.short_lived = 1000,
		.discard_every = 3000,
		.discard_span = 400000,
	};
	struct jank_engine_config on, off;
	struct transcript a = { 0 }, b = { 0 };
	struct jank_engine_stats sa, sb;

	jank_engine_config_defaults(&on);
	on.report_all = true;
	on.retention_ns = 200000;
	on.action_timeout_ns = 2000000;
	off = on;
	off.gc = false;
	run(&wp, &on, &a, &sa);
	run(&wp, &off, &b, &sb);
	print_message("# %u actions, %u with discarded events in their interval\n", a.reports,
		      a.discarded);
	assert_true(a.reports > 3000);
	assert_true(a.discarded > 100);
	assert_true(a.discarded < a.reports);
	assert_int_equal(a.discarded, b.discarded);
	assert_int_equal(sa.discarded_events, sb.discarded_events);
	assert_true(sa.discarded_events > 0);
	assert_int_equal(a.reports, b.reports);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	assert_int_equal(sa.budget_forced, 0);
	free(a.buf);
	free(b.buf);
}

/* A tiny budget: the horizon is forced forward, memory stays near the limit, it is counted. */
static void memory_budget(void **state)
{
	struct workload_params wp = {
		.seed = 7,
		.cpus = 8,
		.threads = 2000,
		.events = 300000,
		.short_lived = 20000,
	};
	struct jank_engine_config cfg;
	struct transcript t = { 0 };
	struct jank_engine_stats st;

	jank_engine_config_defaults(&cfg);
	cfg.report_all = true;
	cfg.retention_ns = 1000000000; /* everything would be kept... */
	cfg.memory_limit = 1 << 20;    /* ...but 1 MiB is all there is */
	run(&wp, &cfg, &t, &st);
	print_message("# graph %llu KiB, %llu threads, %llu vertices, %llu actions open\n",
		      (unsigned long long)st.graph.bytes >> 10,
		      (unsigned long long)st.graph.threads, (unsigned long long)st.graph.vertices,
		      (unsigned long long)st.actions_open);
	print_message("# peak %llu KiB for a %llu KiB budget, forced %llu times, %u/%u paths "
		      "truncated\n",
		      (unsigned long long)st.memory_peak >> 10,
		      (unsigned long long)cfg.memory_limit >> 10,
		      (unsigned long long)st.budget_forced, t.truncated, t.reports);
	assert_true(st.budget_forced > 0);
	assert_true(st.memory_peak <= cfg.memory_limit + cfg.memory_limit / 4);
	assert_int_equal(st.paths_truncated, t.truncated);
	free(t.buf);
}

/*
 * Limits changed while events flow (a config reload): a smaller budget is
 * enforced at the next tick, and a shorter retention moves the horizon.
 */
static void limits_at_runtime(void **state)
{
	struct workload_params wp = {
		.seed = 9,
		.cpus = 4,
		.threads = 300,
		.events = 200000,
		.short_lived = 2000,
	};
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	int64_t last;
	uint64_t before;

	jank_engine_config_defaults(&cfg);
	cfg.retention_ns = 1000000000; /* the whole workload is kept */
	scn_init(&s, &scn_layout_current, &cfg);
	last = workload_run(&s, &wp);
	jank_engine_get_stats(s.e, &st);
	before = st.memory_bytes;
	assert_int_equal(st.budget_forced, 0);
	assert_true(before > 1 << 20);

	cfg.memory_limit = before / 4;
	jank_engine_set_limits(s.e, &cfg);
	jank_engine_tick(s.e, last);
	jank_engine_get_stats(s.e, &st);
	print_message("# %llu KiB, then %llu KiB under a %llu KiB budget set at run time\n",
		      (unsigned long long)before >> 10, (unsigned long long)st.memory_bytes >> 10,
		      (unsigned long long)cfg.memory_limit >> 10);
	assert_true(st.budget_forced > 0);
	assert_true(st.memory_bytes <= cfg.memory_limit);

	cfg.memory_limit = 256ull << 20;
	cfg.retention_ns = 100000;
	jank_engine_set_limits(s.e, &cfg);
	jank_engine_tick(s.e, last);
	jank_engine_get_stats(s.e, &st);
	assert_true(st.horizon >= last - cfg.retention_ns);
	scn_fini(&s);
}

enum {
	UI = 10,
	HOG = 20
};

struct seen {
	unsigned reports, with_suspects;
	struct jank_suspects last;
	bool last_profile;
};

static void seen_cb(const struct jank_verdict *r, void *data)
{
	struct seen *v = data;

	v->reports++;
	v->last_profile = r->profile != NULL;
	if (r->suspects) {
		v->with_suspects++;
		v->last = *r->suspects;
	}
}

/* A frame of UI on CPU 0 from t: `hog` ns of it preempted by HOG. Returns its end. */
static int64_t ui_frame(struct scn *s, int64_t t, int64_t len, int64_t hog)
{
	scn_switch(s, t, 0, 0, 1, UI);
	scn_ust(s, t + 10000, 0, UI, "jank:action_begin", S("name", "frame"));
	if (hog) {
		scn_switch(s, t + 100000, 0, UI, 0, HOG);
		scn_switch(s, t + 100000 + hog, 0, HOG, 1, UI);
	}
	scn_ust(s, t + len, 0, UI, "jank:action_end", S("name", "frame"));
	scn_switch(s, t + len + 1000, 0, UI, 1, 0);
	return t + len + 1000;
}

static void suspects_engine(struct scn *s, bool baseline, bool all, struct seen *v)
{
	struct jank_engine_config cfg;

	jank_engine_config_defaults(&cfg);
	cfg.gc = false;
	cfg.baseline = baseline;
	cfg.report_all = all;
	scn_init(s, &scn_layout_current, &cfg);
	add_frame_rule(s, NULL, "5ms");
	memset(v, 0, sizeof(*v));
	jank_engine_set_verdict_cb(s->e, seen_cb, v);
}

static void suspects(void **state)
{
	const int64_t MS = 1000000;
	struct seen v;
	struct scn s;
	int64_t t = 1000 * MS;
	struct jank_rule r;

	suspects_engine(&s, true, false, &v);
	/* Slow before 10 normal frames: no baseline yet. */
	for (int i = 0; i < 5; i++)
		t = ui_frame(&s, t + 2 * MS, 2 * MS, 0);
	t = ui_frame(&s, t + 2 * MS, 12 * MS, 10 * MS);
	assert_int_equal(v.with_suspects, 1);
	assert_false(v.last.ready);
	assert_int_equal(v.last.normal, 5);
	for (int i = 0; i < 7; i++)
		t = ui_frame(&s, t + 2 * MS, 2 * MS, 0);
	assert_int_equal(jank_engine_rule_baseline(s.e, 0)->n, 12);
	/* Two normal frames less than 1 ms apart: only the first is learnt. */
	t = ui_frame(&s, t + 2 * MS, 200000, 0);
	t = ui_frame(&s, t + 100000, 200000, 0);
	assert_int_equal(jank_engine_rule_baseline(s.e, 0)->n, 13);
	/* The hog preempts a frame: its own preemption, and who took the CPU. */
	t = ui_frame(&s, t + 2 * MS, 12 * MS, 10 * MS);
	assert_int_equal(v.reports, 2);
	assert_true(v.last.ready);
	assert_int_equal(v.last.items[0].comp.key.kind, JANK_COMP_THREAD);
	assert_int_equal(v.last.items[0].comp.key.state, JANK_STATE_PREEMPTED);
	assert_true(v.last.items[0].own);
	assert_int_equal(v.last.items[0].delta, 10 * MS);
	assert_int_equal(v.last.nran, 1);
	assert_int_equal(v.last.ran[0].tid, HOG);
	assert_int_equal(v.last.ran[0].ns, 10 * MS);
	/* Slow frames teach nothing; a reload that keeps the rule keeps what was learnt. */
	assert_int_equal(jank_engine_rule_baseline(s.e, 0)->n, 13);
	memcpy(&r, jank_engine_rule(s.e, 0), sizeof(r));
	assert_int_equal(jank_engine_replace_rules(s.e, &r, 1), 0);
	assert_int_equal(jank_engine_rule_baseline(s.e, 0)->n, 13);
	/* A reload that changes its threshold: what was normal may not be; it starts afresh. */
	assert_int_equal(jank_rule_copy(&r, jank_engine_rule(s.e, 0)), 0);
	r.threshold.ns *= 2;
	assert_int_equal(jank_engine_replace_rules(s.e, &r, 1), 0);
	assert_int_equal(jank_engine_rule_baseline(s.e, 0)->n, 0);
	jank_rule_fini(&r);
	scn_fini(&s);

	/* Off: no suspects. --all: normal actions have a profile, no suspects. */
	suspects_engine(&s, false, false, &v);
	for (int i = 0; i < 12; i++)
		t = ui_frame(&s, t + 2 * MS, 2 * MS, 0);
	t = ui_frame(&s, t + 2 * MS, 12 * MS, 10 * MS);
	assert_int_equal(v.reports, 1);
	assert_int_equal(v.with_suspects, 0);
	assert_int_equal(jank_engine_rule_baseline(s.e, 0)->n, 0);
	scn_fini(&s);
	suspects_engine(&s, true, true, &v);
	t = ui_frame(&s, t + 2 * MS, 2 * MS, 0);
	assert_int_equal(v.reports, 1);
	assert_int_equal(v.with_suspects, 0);
	assert_true(v.last_profile);
	scn_fini(&s);
}

/* The events of the fuzz-engine reproducer (tests/fuzz/corpus/engine/regress-exited-thread). */
static void run_exited(const struct jank_engine_config *cfg, struct transcript *t)
{
	struct scn s;

	scn_init(&s, &scn_layout_current, cfg);
	add_frame_rule(&s, NULL, "1s");
	jank_engine_set_verdict_cb(s.e, record, t);
	scn_wake(&s, 1000000001, 1, 1);
	scn_kernel(&s, 1000000007, 0, "sched_process_exit", S("comm", "app"), I("tid", 1),
		   I("prio", 120));
	scn_ust(&s, 1000000008, 0, 1, "jank:action_begin", S("name", "frame"), I("id", 1));
	jank_engine_tick(s.e, 1016777224);
	scn_ust(&s, 8532969992, 1, 1, "jank:action_end", S("name", "frame"), I("id", 1));
	jank_engine_finish(s.e);
	scn_fini(&s);
}

/*
 * A thread that exited with no final switch, then opened an action: GC
 * must keep it while the action is open (it freed it whole, and the path
 * said `unknown` where the run without GC said `preempted`).
 */
/*
 * Runs a scenario with GC and without (retention 1 ms, which its tick is
 * past): one verdict each, the same. Returns the verdict, to free.
 */
static char *twins(void (*scenario)(const struct jank_engine_config *, struct transcript *))
{
	struct jank_engine_config on, off;
	struct transcript a = { 0 }, b = { 0 };

	jank_engine_config_defaults(&on);
	on.report_all = true;
	on.retention_ns = 1000000;
	off = on;
	off.gc = false;
	scenario(&on, &a);
	scenario(&off, &b);
	assert_int_equal(a.reports, 1);
	assert_int_equal(b.reports, 1);
	assert_string_equal(a.buf, b.buf);
	free(b.buf);
	return a.buf;
}

static void gc_keeps_exited_thread_of_open_action(void **state)
{
	free(twins(run_exited));
}

/*
 * The same, when another thread began the action (a key pairs them): the
 * exited thread that ends it was seen long before the horizon, and GC must
 * still keep its last state (it freed it whole: `unknown` with GC,
 * `running` without).
 */
static void run_exited_other(const struct jank_engine_config *cfg, struct transcript *t)
{
	const int64_t T = 1000000000;
	struct scn s;

	scn_init(&s, &scn_layout_current, cfg);
	add_frame_rule(&s, "id", "1s");
	jank_engine_set_verdict_cb(s.e, record, t);
	scn_switch(&s, T, 0, 0, 0, 1);
	scn_switch(&s, T, 1, 0, 0, 3);
	scn_kernel(&s, T + 1000, 2, "sched_process_exit", S("comm", "app"), I("tid", 1),
		   I("prio", 120));
	scn_ust(&s, T + 100000000, 1, 3, "jank:action_begin", I("id", 7));
	jank_engine_tick(s.e, T + 100000050);
	scn_ust(&s, T + 100000100, 0, 1, "jank:action_end", I("id", 7));
	jank_engine_finish(s.e);
	scn_fini(&s);
}

static void gc_keeps_exited_thread_that_ends_an_action(void **state)
{
	char *verdict = twins(run_exited_other);

	assert_non_null(strstr(verdict, "/running/"));
	free(verdict);
}

/*
 * Thread 1 is forked from (its pid 1 known from there), then ends: by
 * sched_process_exit alone, or by its final switch too. GC runs past it,
 * and thread 1 runs again and does an action with no tid context.
 */
static void run_tid_again(const struct jank_engine_config *cfg, struct transcript *t,
			  bool final_switch)
{
	const int64_t T = 1000000000;
	struct scn s;

	scn_init(&s, &scn_layout_current, cfg);
	jank_engine_set_kernel(s.e, "6.18.44");
	add_frame_rule(&s, NULL, "1s");
	jank_engine_set_verdict_cb(s.e, record, t);
	scn_fork(&s, T, 1, 1, 5);
	if (final_switch) {
		scn_switch(&s, T + 10, 0, 0, 0, 1);
		scn_switch(&s, T + 20, 0, 1, 16, 0);
	} else {
		scn_kernel(&s, T, 1, "sched_process_exit", S("comm", "t1"), I("tid", 1),
			   I("prio", 120));
	}
	jank_engine_tick(s.e, T + 2000000);
	scn_switch(&s, T + 2000000, 0, 0, 0, 1);
	scn_ust(&s, T + 2000010, 0, -1, "jank:action_begin", S("name", "frame"), I("id", 1));
	scn_ust(&s, T + 2000020, 0, -1, "jank:action_end", S("name", "frame"), I("id", 1));
	jank_engine_finish(s.e);
	scn_fini(&s);
}

/*
 * The fuzz-engine reproducer regress-exited-parent: GC freed the thread
 * (it had exited, its state unknown), and the action said pid -1 where the
 * run without GC said 1. A thread without its final switch stays.
 */
static void run_exited_parent(const struct jank_engine_config *cfg, struct transcript *t)
{
	run_tid_again(cfg, t, false);
}

static void gc_keeps_exited_fork_parent(void **state)
{
	char *verdict = twins(run_exited_parent);

	assert_non_null(strstr(verdict, "tid 1 pid 1 "));
	free(verdict);
}

/*
 * Past its final switch, a thread is gone: its tid seen again is another
 * thread, with GC (which freed the first) as without. The second knows
 * nothing of the first's pid.
 */
static void run_dead_tid_again(const struct jank_engine_config *cfg, struct transcript *t)
{
	run_tid_again(cfg, t, true);
}

static void dead_tid_seen_again_is_another_thread(void **state)
{
	char *verdict = twins(run_dead_tid_again);

	assert_non_null(strstr(verdict, "tid 1 pid -1 "));
	free(verdict);
}

/*
 * A thread begins an action and ends (its final switch) before the end: the
 * overdue report still follows what it did until then, from its thread record of
 * the begin, with GC as without.
 */
static void run_overdue_dead(const struct jank_engine_config *cfg, struct transcript *t)
{
	const int64_t T = 1000000000;
	struct jank_engine_config c = *cfg;
	struct scn s;

	c.overdue_grace_ns = 1000000;
	scn_init(&s, &scn_layout_current, &c);
	jank_engine_set_kernel(s.e, "6.18.44");
	add_frame_rule(&s, NULL, "1ms");
	jank_engine_set_verdict_cb(s.e, record, t);
	scn_switch(&s, T, 0, 0, 0, 1);
	scn_ust(&s, T + 10, 0, 1, "jank:action_begin", S("name", "frame"), I("id", 1));
	scn_switch(&s, T + 500000, 0, 1, 16, 0); /* 1's final switch */
	jank_engine_tick(s.e, T + 1000000000);
	jank_engine_finish(s.e);
	scn_fini(&s);
}

static void overdue_path_of_dead_thread(void **state)
{
	char *verdict = twins(run_overdue_dead);

	assert_non_null(strstr(verdict, " 1/t1/running/1000000010/1000500000"));
	free(verdict);
}

/*
 * The comm a verdict names: the end event's procname, else the thread's
 * current name, else the begin's procname. An overdue action (no end) names
 * the begin's, even when the thread's events were renamed since.
 */
static void run_comms(struct transcript *t, const char *end_comm)
{
	const int64_t T = 1000000000;
	struct jank_engine_config c;
	struct scn s;

	jank_engine_config_defaults(&c);
	c.report_all = true;
	c.overdue_grace_ns = 1000000;
	scn_init(&s, &scn_layout_current, &c);
	add_frame_rule(&s, "id", "1ms");
	jank_engine_set_verdict_cb(s.e, record, t);
	s.comm = "before";
	scn_ust(&s, T, 0, 7, "jank:action_begin", I("id", 1));
	scn_ust(&s, T + 10, 0, 7, "jank:action_begin", I("id", 2));
	s.comm = "after"; /* prctl(PR_SET_NAME) or exec */
	scn_ust(&s, T + 20, 0, 7, "jank:action_begin", I("id", 3));
	s.comm = end_comm;
	scn_ust(&s, T + 30, 0, 7, "jank:action_end", I("id", 1));
	jank_engine_tick(s.e, T + 1000000000);
	jank_engine_finish(s.e);
	scn_fini(&s);
}

static void verdict_comms(void **state)
{
	struct transcript t = { 0 };

	run_comms(&t, "ended");
	assert_int_equal(t.reports, 3);
	assert_non_null(strstr(t.buf, "frame id=1 1000000000..1000000030 tid 7 pid 7 comm ended "));
	assert_non_null(strstr(t.buf, "frame id=2 1000000010..")); /* overdue */
	assert_non_null(strstr(t.buf, "tid 7 pid 7 comm before "));
	assert_non_null(strstr(t.buf, "frame id=3 1000000020.."));
	assert_non_null(strstr(t.buf, "tid 7 pid 7 comm after "));
	assert_null(strstr(t.buf, "comm -"));
	free(t.buf);
	/* No procname at the end, no name on the thread's record: the begin's. */
	t = (struct transcript){ 0 };
	run_comms(&t, NULL);
	assert_non_null(
		strstr(t.buf, "frame id=1 1000000000..1000000030 tid 7 pid 7 comm before "));
	free(t.buf);
}

/*
 * A hostile procname at the begin of an action that never ends (its
 * overdue verdict names the begin's comm): cut at 15 bytes on a character
 * boundary, invalid bytes and control bytes kept as they are (outputs
 * escape them), and a new name on the same thread between two begins.
 */
static void verdict_hostile_comms(void **state)
{
	static const char *const comms[] = {
		"0123456789abcd\xe2\x82\xac", /* the euro sign straddles byte 15 */
		"\xff\x01\x1b[2Jx\xc3",	      /* invalid, control, a lead byte at the end */
		"0123456789abcdefghij",	      /* no NUL within 16 bytes */
		"ok",
	};
	static const char *const want[] = {
		"comm 0123456789abcd lost",
		"comm \xff\x01\x1b[2Jx\xc3 lost",
		"comm 0123456789abcde lost",
		"comm ok lost",
	};
	const int64_t T = 1000000000;
	struct transcript t = { 0 };
	struct jank_engine_config c;
	struct scn s;

	(void)state;
	jank_engine_config_defaults(&c);
	c.overdue_grace_ns = 1000000;
	scn_init(&s, &scn_layout_current, &c);
	add_frame_rule(&s, "id", "1ms");
	jank_engine_set_verdict_cb(s.e, record, &t);
	for (int i = 0; i < 4; i++) {
		s.comm = comms[i];
		scn_ust(&s, T + i * 10, 0, 7, "jank:action_begin", I("id", i + 1));
	}
	jank_engine_tick(s.e, T + 1000000000);
	jank_engine_finish(s.e);
	scn_fini(&s);
	assert_int_equal(t.reports, 4);
	for (int i = 0; i < 4; i++) {
		char line[128];

		snprintf(line, sizeof(line), "frame id=%d %lld..", i + 1, (long long)(T + i * 10));
		const char *at = strstr(t.buf, line), *w;

		assert_non_null(at);
		w = strstr(at, want[i]);
		assert_non_null(w);
		assert_true(w < strchr(at, '\n')); /* in its own verdict's line */
	}
	free(t.buf);
}

/* memory_peak never goes down, even when memory is freed between two collections. */
static void peak_never_decreases(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	uint64_t peak;

	jank_engine_config_defaults(&cfg);
	scn_init(&s, &scn_layout_current, &cfg);
	add_frame_rule(&s, "id", "1s");
	for (int i = 0; i < 2000; i++)
		scn_ust(&s, 1000 + i, 0, 7, "jank:action_begin", I("id", i));
	jank_engine_get_stats(s.e, &st);
	peak = st.memory_peak;
	assert_true(peak >= st.memory_bytes);
	/* New rules drop the open actions: memory goes down, the peak stays. */
	assert_int_equal(jank_engine_replace_rules(s.e, NULL, 0), 0);
	jank_engine_get_stats(s.e, &st);
	print_message("# %llu KiB after the rules went, peak %llu KiB\n",
		      (unsigned long long)st.memory_bytes >> 10,
		      (unsigned long long)st.memory_peak >> 10);
	assert_true(st.memory_bytes < peak);
	assert_true(st.memory_peak >= peak);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gc_invariance),
		cmocka_unit_test(gc_invariance_discards),
		cmocka_unit_test(memory_budget),
		cmocka_unit_test(limits_at_runtime),
		cmocka_unit_test(suspects),
		cmocka_unit_test(gc_keeps_exited_thread_of_open_action),
		cmocka_unit_test(gc_keeps_exited_thread_that_ends_an_action),
		cmocka_unit_test(gc_keeps_exited_fork_parent),
		cmocka_unit_test(dead_tid_seen_again_is_another_thread),
		cmocka_unit_test(overdue_path_of_dead_thread),
		cmocka_unit_test(peak_never_decreases),
		cmocka_unit_test(verdict_comms),
		cmocka_unit_test(verdict_hostile_comms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
