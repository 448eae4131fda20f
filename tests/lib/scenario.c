/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"

const struct scn_layout scn_layout_current = {
	.label = "lttng-modules 2.13",
	.major = 2,
	.minor = 13,
	.has_waking = true,
	.softirq_entry = "irq_softirq_entry",
	.softirq_exit = "irq_softirq_exit",
	.hrtimer_entry = "timer_hrtimer_expire_entry",
	.hrtimer_exit = "timer_hrtimer_expire_exit",
};

const struct scn_layout scn_layout_2_5 = {
	.label = "lttng-modules 2.5",
	.major = 2,
	.minor = 5,
	.has_waking = false,
	.softirq_entry = "softirq_entry",
	.softirq_exit = "softirq_exit",
	.hrtimer_entry = "hrtimer_expire_entry",
	.hrtimer_exit = "hrtimer_expire_exit",
};

void scn_init(struct scn *s, const struct scn_layout *l, const struct jank_engine_config *cfg)
{
	struct jank_engine_config def;

	memset(s, 0, sizeof(*s));
	if (!cfg) {
		jank_engine_config_defaults(&def);
		def.gc = false;
		cfg = &def;
	}
	s->l = l;
	s->e = jank_engine_new(cfg);
	assert_non_null(s->e);
	jank_engine_set_layout(s->e, l->major, l->minor);
}

void scn_fini(struct scn *s)
{
	jank_engine_free(s->e);
	s->e = NULL;
}

static unsigned class_of(struct scn *s, enum jank_domain d, const char *name)
{
	for (unsigned i = 0; i < s->nclasses; i++) {
		if (s->classes[i].domain != d || strcmp(s->classes[i].name, name) != 0)
			continue;
		/* Again: the engine's table of classes (and their field lists) may have moved. */
		assert_int_equal(jank_engine_resolve_class(s->e, d, name, &s->classes[i].fields,
							   &s->classes[i].nfields),
				 s->classes[i].id);
		return i;
	}
	assert_true(s->nclasses < SCN_MAX_CLASSES);
	s->classes[s->nclasses].name = name;
	s->classes[s->nclasses].domain = d;
	s->classes[s->nclasses].id = jank_engine_resolve_class(
		s->e, d, name, &s->classes[s->nclasses].fields, &s->classes[s->nclasses].nfields);
	assert_int_not_equal(s->classes[s->nclasses].id, JANK_CLASS_INVALID);
	return s->nclasses++;
}

void scn_event_v(struct scn *s, enum jank_domain d, int64_t ts, int cpu, int tid, const char *name,
		 const struct scn_field *f, unsigned n)
{
	unsigned c = class_of(s, d, name);
	struct jank_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.cpu = cpu;
	ev.tid = tid;
	ev.pid = s->pid ? s->pid : tid;
	ev.pid_ns = s->pid_ns;
	if (d == JANK_DOMAIN_UST)
		ev.comm = s->comm;
	ev.class_id = s->classes[c].id;
	ev.nfields = s->classes[c].nfields;
	for (unsigned i = 0; i < ev.nfields; i++) {
		ev.fields[i].type = JANK_VALUE_NONE;
		for (unsigned j = 0; j < n; j++) {
			if (!f[j].name || strcmp(f[j].name, s->classes[c].fields[i]) != 0)
				continue;
			if (f[j].a) {
				ev.fields[i].type = JANK_VALUE_ARRAY;
				ev.fields[i].a.v = f[j].a;
				ev.fields[i].a.n = f[j].n;
			} else if (f[j].is_str) {
				ev.fields[i].type = JANK_VALUE_STR;
				ev.fields[i].s = f[j].s;
			} else {
				ev.fields[i].type = JANK_VALUE_INT;
				ev.fields[i].i = f[j].i;
			}
		}
	}
	jank_engine_process(s->e, &ev);
}

static const char *comm_of(int tid)
{
	static char buf[8][16];
	static unsigned n;
	char *b = buf[n++ % 8];

	if (tid == 0)
		return "swapper";
	snprintf(b, 16, "t%d", tid);
	return b;
}

void scn_switch(struct scn *s, int64_t ts, int cpu, int prev, int prev_state, int next)
{
	scn_kernel(s, ts, cpu, "sched_switch", S("prev_comm", comm_of(prev)), I("prev_tid", prev),
		   I("prev_state", prev_state), S("next_comm", comm_of(next)), I("next_tid", next));
}

void scn_wake(struct scn *s, int64_t ts, int cpu, int tid)
{
	if (s->l->has_waking)
		scn_kernel(s, ts, cpu, "sched_waking", S("comm", comm_of(tid)), I("tid", tid),
			   I("target_cpu", cpu));
	/* The wakeup proper may fire on the target CPU, later: it must not change the wakee. */
	scn_kernel(s, ts, cpu, "sched_wakeup", S("comm", comm_of(tid)), I("tid", tid),
		   I("target_cpu", cpu));
}

void scn_wakeup_new(struct scn *s, int64_t ts, int cpu, int tid)
{
	scn_kernel(s, ts, cpu, "sched_wakeup_new", S("comm", comm_of(tid)), I("tid", tid),
		   I("target_cpu", cpu));
}

void scn_fork(struct scn *s, int64_t ts, int cpu, int parent, int child)
{
	scn_kernel(s, ts, cpu, "sched_process_fork", S("parent_comm", comm_of(parent)),
		   I("parent_tid", parent), I("parent_pid", parent),
		   S("child_comm", comm_of(child)), I("child_tid", child), I("child_pid", child));
}

void scn_softirq(struct scn *s, int64_t ts, int cpu, int vec, bool entry)
{
	scn_kernel(s, ts, cpu, entry ? s->l->softirq_entry : s->l->softirq_exit, I("vec", vec));
}

void scn_hrtimer(struct scn *s, int64_t ts, int cpu, bool entry)
{
	scn_kernel(s, ts, cpu, entry ? s->l->hrtimer_entry : s->l->hrtimer_exit, I("hrtimer", 1));
}

void scn_irq(struct scn *s, int64_t ts, int cpu, int irq, bool entry)
{
	if (entry)
		scn_kernel(s, ts, cpu, "irq_handler_entry", I("irq", irq), S("name", "eth0"));
	else
		scn_kernel(s, ts, cpu, "irq_handler_exit", I("irq", irq), I("ret", 1));
}

static void print_path(const char *label, const struct seg *want, const struct jank_path *p,
		       size_t n)
{
	fprintf(stderr, "# %s:\n", label);
	if (want)
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "#   tid %d %-12s %lld..%lld\n", want[i].tid, want[i].state,
				(long long)want[i].begin, (long long)want[i].end);
	else
		for (size_t i = 0; i < p->n; i++)
			fprintf(stderr, "#   tid %d %-12s %lld..%lld\n", p->segs[i].tid,
				jank_state_name(p->segs[i].state), (long long)p->segs[i].begin,
				(long long)p->segs[i].end);
}

void scn_assert_path(const struct jank_path *p, const struct seg *want, size_t n)
{
	bool same = p->n == n;

	for (size_t i = 0; same && i < n; i++)
		same = p->segs[i].tid == want[i].tid &&
		       strcmp(jank_state_name(p->segs[i].state), want[i].state) == 0 &&
		       p->segs[i].begin == want[i].begin && p->segs[i].end == want[i].end;
	if (!same) {
		print_path("expected", want, NULL, n);
		print_path("actual", NULL, p, 0);
		fail_msg("critical path differs");
	}
}

void scn_assert_tiles(const struct jank_path *p)
{
	int64_t sum = 0;

	assert_true(p->n > 0);
	assert_int_equal(p->segs[0].begin, p->begin);
	assert_int_equal(p->segs[p->n - 1].end, p->end);
	for (size_t i = 0; i < p->n; i++) {
		assert_true(p->segs[i].end > p->segs[i].begin);
		if (i)
			assert_int_equal(p->segs[i].begin, p->segs[i - 1].end);
		sum += p->segs[i].end - p->segs[i].begin;
	}
	assert_int_equal(sum, p->end - p->begin);
}

void scn_path(struct scn *s, int tid, int64_t b, int64_t e, struct jank_path *out)
{
	/* As `jankctl critpath` does: a thread that has ended is still found. */
	const struct jank_thread *w = jank_graph_find_any(jank_engine_graph(s->e), tid);

	jank_path_init(out);
	assert_non_null(w);
	assert_int_equal(jank_critpath_compute_thread(jank_engine_graph(s->e), w, b, e, out), 0);
	scn_assert_tiles(out);
}
