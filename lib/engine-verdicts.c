/* SPDX-License-Identifier: MIT */
/*
 * The engine's verdicts: an action's critical path, breakdown and profile,
 * what its baseline learns or says of it (suspects), and who had the CPU
 * while its path was preempted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine-int.h"

/*
 * The pid and comm of an action's thread. An event of the thread marks it
 * seen: a thread that exited without a final switch is then kept by GC
 * while its action is open, as it is without GC.
 */
uint32_t engine_fill_thread_info(struct jank_engine *e, int32_t tid, const struct jank_event *ev,
				 int32_t *pid, char *comm)
{
	return engine_fill_thread_info_w(tid > 0 ? jank_graph_lookup(e->graph, tid) : NULL, ev, pid,
					 comm);
}

/*
 * The path of an action over [begin, end] from thread tid, its breakdown and
 * (for baselines, or every action's report) its profile, in the engine's
 * scratch. Returns true when out of memory made any of them partial.
 * -ENOENT (no such thread) still gives a path: one `unknown` segment.
 */
bool engine_analyse(struct jank_engine *e, int32_t tid, uint32_t serial, int64_t begin, int64_t end)
{
	const struct jank_thread *w = jank_graph_find(e->graph, tid);
	bool incomplete;

	/*
	 * No live thread: it may have ended (final switch) while its action
	 * was open. Its record from the begin, kept by GC as long as the
	 * action is open (it was seen at the begin), tells what it did.
	 */
	if (!w && serial != JANK_NO_THREAD) {
		w = jank_graph_find_serial(e->graph, serial);
		if (w && w->tid != tid)
			w = NULL;
	}
	if (w)
		incomplete =
			jank_critpath_compute_thread(e->graph, w, begin, end, &e->path) == -ENOMEM;
	else
		incomplete = jank_critpath_compute(e->graph, tid, begin, end, &e->path) == -ENOMEM;
	incomplete |= jank_breakdown_compute(&e->path, &e->breakdown) == -ENOMEM;
	if (e->cfg.baseline || e->cfg.report_all)
		incomplete |= jank_profile_build(&e->profile, &e->path, &e->breakdown, e->graph,
						 tid) == -ENOMEM;
	return incomplete;
}

static int cmp_share(const void *a, const void *b)
{
	const struct jank_cpu_share *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The CPU a preempted segment waited for: the one its thread was switched
 * in on at the segment's end. Tried first: the thread's last CPU, then the
 * previous segment's; then every CPU, RAN_SCANS times per action at most
 * (then the thread's last CPU stands).
 */
static int32_t waited_cpu(struct jank_engine *e, const struct jank_segment *s, int32_t *hint,
			  unsigned *scans)
{
	const struct jank_thread *w = jank_graph_find(e->graph, s->tid);
	int32_t last = w ? w->cpu : -1, cpu = -1;

	if (last >= 0)
		cpu = jank_model_switch_cpu(&e->model, s->tid, s->end, last, false);
	if (cpu < 0 && *hint >= 0 && *hint != last)
		cpu = jank_model_switch_cpu(&e->model, s->tid, s->end, *hint, false);
	if (cpu < 0 && *scans < RAN_SCANS) {
		(*scans)++;
		cpu = jank_model_switch_cpu(&e->model, s->tid, s->end, -1, true);
	}
	if (cpu < 0)
		cpu = last;
	if (cpu >= 0)
		*hint = cpu;
	return cpu;
}

/*
 * Who had the CPU while the path was preempted: for each preempted
 * segment, the threads that ran on the CPU its thread waited for, most time
 * first.
 */
static void find_ran(struct jank_engine *e)
{
	struct jank_cpu_share v[32];
	size_t n = 0;
	int32_t hint = -1;
	unsigned scans = 0;

	for (size_t i = 0; i < e->path.n; i++) {
		const struct jank_segment *s = &e->path.segs[i];
		int32_t cpu;

		if (s->state != JANK_STATE_PREEMPTED)
			continue;
		cpu = waited_cpu(e, s, &hint, &scans);
		if (cpu >= 0)
			jank_model_cpu_shares(&e->model, cpu, s->begin, s->end, v, &n, 32);
	}
	jank_sort(v, n, sizeof(*v), cmp_share);
	e->profile.nran = 0;
	for (size_t i = 0; i < n && i < JANK_RAN_MAX; i++) {
		struct jank_ran *r = &e->profile.ran[e->profile.nran++];
		const struct jank_thread *w = jank_graph_find_serial(e->graph, v[i].serial);

		r->tid = v[i].tid;
		r->ns = v[i].ns;
		r->comm[0] = '\0';
		if (w)
			memcpy(r->comm, w->comm, JANK_COMM_LEN);
	}
}

/* A report of the action in the engine's scratch (engine_analyse()); slow ones get suspects. */
void engine_report(struct jank_engine *e, enum jank_verdict_kind kind, uint32_t rule,
		   const struct jank_action *a, int32_t tid, int32_t pid, const char *comm,
		   int64_t end, int64_t threshold, bool over, bool incomplete)
{
	struct jank_verdict rep;

	if (e->path.truncated)
		e->stats.paths_truncated++;
	if (incomplete)
		e->stats.paths_incomplete++;
	memset(&rep, 0, sizeof(rep));
	/* Addresses become names now, for this verdict only (a normal action never needs them). */
	jank_path_name_frames(&e->path, e->namer, e->namer_data);
	if (over && e->cfg.baseline) {
		find_ran(e);
		jank_baseline_suspects(&e->rules[rule].baseline, &e->profile, &e->suspects);
		jank_suspects_name(&e->suspects, &e->path);
		rep.suspects = &e->suspects;
	}
	rep.kind = kind;
	rep.rule = &e->rules[rule].rule;
	rep.rule_index = rule;
	rep.key = a->key;
	rep.begin = a->begin;
	rep.end = end;
	rep.duration = end - a->begin;
	rep.threshold = threshold;
	rep.over_threshold = over;
	rep.tid = tid;
	rep.pid = pid;
	rep.comm = comm;
	rep.path = &e->path;
	rep.breakdown = &e->breakdown;
	rep.profile = e->cfg.baseline || e->cfg.report_all ? &e->profile : NULL;
	rep.incomplete = incomplete;
	rep.discarded_events = jank_discards_in(&e->discards, a->begin, end);
	if (e->report_fn)
		e->report_fn(&rep, e->report_data);
}
