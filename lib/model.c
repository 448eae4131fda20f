/* SPDX-License-Identifier: MIT */
/*
 * System model: per-CPU current thread and interrupt-context stack, and the
 * translation of scheduler events into execution-graph operations.
 *
 *  - sched_switch: prev becomes preempted (prev_state 0) or blocked; next
 *    becomes running. A blocked thread switched in with no wakeup seen keeps
 *    its wait unresolved (no waker).
 *  - sched_waking / sched_wakeup: the first of the two ends the wait. In an
 *    interrupt context, the wait is labelled by that context (timer,
 *    network, ...). In thread context, the thread current on the event's CPU
 *    is the waker: a vertical edge joins them. The wakee is then preempted
 *    (runnable) until it is switched in.
 *  - sched_process_fork starts the child in a fork wait that
 *    sched_wakeup_new ends, with the parent as the waker.
 *  - lttng_statedump_process_state gives the initial state of threads not
 *    seen yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "locks.h"
#include "model.h"

/* Softirq vectors (include/linux/interrupt.h). */
enum {
	SOFTIRQ_HI = 0,
	SOFTIRQ_TIMER = 1,
	SOFTIRQ_NET_TX = 2,
	SOFTIRQ_NET_RX = 3,
	SOFTIRQ_BLOCK = 4,
	SOFTIRQ_IRQ_POLL = 5,
	SOFTIRQ_TASKLET = 6,
	SOFTIRQ_SCHED = 7,
	SOFTIRQ_HRTIMER = 8,
	SOFTIRQ_RCU = 9,
};

/* lttng-modules enum lttng_process_status. */
enum {
	STATEDUMP_WAIT_FORK = 1,
	STATEDUMP_WAIT_CPU = 2,
	STATEDUMP_WAIT = 5,
	STATEDUMP_RUN = 6,
};

#define MAX_CPUS 4096

int jank_model_init(struct jank_model *m, struct jank_graph *g)
{
	memset(m, 0, sizeof(*m));
	m->graph = g;
	m->locks = jank_locks_new(g);
	return m->locks ? 0 : -ENOMEM;
}

void jank_model_fini(struct jank_model *m)
{
	jank_locks_free(m->locks);
	m->locks = NULL;
	free(m->cpus);
	m->cpus = NULL;
	m->ncpus = 0;
}

static struct jank_cpu *cpu_get(struct jank_model *m, int32_t cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if ((uint32_t)cpu >= m->ncpus) {
		uint32_t n = (uint32_t)cpu + 1;
		struct jank_cpu *c = realloc(m->cpus, n * sizeof(*c));

		if (!c)
			return NULL;
		for (uint32_t i = m->ncpus; i < n; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].cur_tid = -1;
		}
		m->cpus = c;
		m->ncpus = n;
	}
	return &m->cpus[cpu];
}

int32_t jank_model_current_tid(const struct jank_model *m, int32_t cpu)
{
	if (cpu < 0 || (uint32_t)cpu >= m->ncpus)
		return -1;
	return m->cpus[cpu].cur_tid;
}

enum jank_state jank_model_context_label(const struct jank_ctx *c)
{
	switch (c->kind) {
	case JANK_CTX_HRTIMER:
		return JANK_STATE_TIMER;
	case JANK_CTX_IRQ:
		return JANK_STATE_INTERRUPTED;
	case JANK_CTX_IPI:
		return JANK_STATE_IPI;
	case JANK_CTX_SOFTIRQ:
		switch (c->vec) {
		case SOFTIRQ_TIMER:
		case SOFTIRQ_HRTIMER:
			return JANK_STATE_TIMER;
		case SOFTIRQ_NET_TX:
		case SOFTIRQ_NET_RX:
			return JANK_STATE_NETWORK;
		case SOFTIRQ_BLOCK:
		case SOFTIRQ_IRQ_POLL:
			return JANK_STATE_BLOCK_DEVICE;
		case SOFTIRQ_SCHED:
			return JANK_STATE_INTERRUPTED;
		default:
			return JANK_STATE_BLOCKED;
		}
	}
	return JANK_STATE_BLOCKED;
}

/* Per event: a bounded copy (cheaper than comparing first), no string comparison. */
static void set_comm(struct jank_worker *w, const struct jank_value *v)
{
	if (v->type == JANK_VALUE_STR && v->s && !memccpy(w->comm, v->s, '\0', JANK_COMM_LEN - 1))
		w->comm[JANK_COMM_LEN - 1] = '\0';
}

static int32_t field_tid(const struct jank_event *ev, unsigned pos)
{
	if (pos >= ev->nfields)
		return -1;
	return (int32_t)jank_value_as_int(&ev->fields[pos], -1);
}

/* The worker of a thread, or NULL for the idle thread and invalid ids. */
static struct jank_worker *thread(struct jank_model *m, int32_t tid, int64_t ts)
{
	if (tid <= 0)
		return NULL;
	return jank_graph_get(m->graph, tid, ts);
}

static void on_switch(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	int32_t prev = field_tid(ev, JANK_F_SWITCH_PREV_TID);
	int32_t next = field_tid(ev, JANK_F_SWITCH_NEXT_TID);
	int64_t prev_state = ev->nfields > JANK_F_SWITCH_PREV_STATE
				     ? jank_value_as_int(&ev->fields[JANK_F_SWITCH_PREV_STATE], 1)
				     : 1;
	struct jank_worker *w;

	/* prev is nearly always the CPU's current thread: no need to look it up. */
	if (c->cur && c->cur->tid == prev && !c->cur->retired)
		w = c->cur;
	else
		w = thread(m, prev, ev->ts);
	if (w) {
		set_comm(w, &ev->fields[JANK_F_SWITCH_PREV_COMM]);
		jank_graph_transition(m->graph, w, ev->ts,
				      prev_state == 0 ? JANK_STATE_PREEMPTED : JANK_STATE_BLOCKED);
	}
	w = thread(m, next, ev->ts);
	if (w) {
		set_comm(w, &ev->fields[JANK_F_SWITCH_NEXT_COMM]);
		/* A thread that was running elsewhere cannot run here too: it moved. */
		if (w->state == JANK_STATE_RUNNING && w->cpu != ev->cpu && w->cpu >= 0 &&
		    (uint32_t)w->cpu < m->ncpus && m->cpus[w->cpu].cur == w) {
			m->cpus[w->cpu].cur = NULL;
			m->cpus[w->cpu].cur_tid = -1;
		}
		jank_graph_transition(m->graph, w, ev->ts, JANK_STATE_RUNNING);
		w->cpu = ev->cpu;
	}
	c->cur_tid = next;
	c->cur = w;
}

/* End a wait at ts; the waker is an interrupt context, a thread, or unknown. */
static void end_wait(struct jank_model *m, struct jank_cpu *c, struct jank_worker *wakee,
		     struct jank_worker *waker, int64_t ts)
{
	if (wakee->state == JANK_STATE_UNKNOWN && wakee->next == wakee->base) {
		/* First sight: nothing to label, the thread becomes runnable. */
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
		return;
	}
	if (!jank_state_is_wait(wakee->state))
		return; /* already woken (waking then wakeup), or running */
	if (c && c->depth > 0 && c->depth <= JANK_IRQ_STACK_MAX) {
		jank_graph_relabel_open(wakee, jank_model_context_label(&c->stack[c->depth - 1]));
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	} else if (c && c->depth > JANK_IRQ_STACK_MAX) {
		jank_graph_relabel_open(wakee, JANK_STATE_INTERRUPTED);
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	} else if (waker && waker != wakee) {
		jank_graph_link(m->graph, waker, wakee, ts, JANK_STATE_PREEMPTED);
	} else {
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	}
}

static void on_wakeup(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	struct jank_worker *w = thread(m, field_tid(ev, JANK_F_WAKEUP_TID), ev->ts);
	int64_t target;

	if (!w)
		return;
	set_comm(w, &ev->fields[JANK_F_WAKEUP_COMM]);
	end_wait(m, c, w, c ? c->cur : NULL, ev->ts);
	target = jank_value_as_int(&ev->fields[JANK_F_WAKEUP_TARGET_CPU], -1);
	if (target >= 0 && w->state != JANK_STATE_RUNNING)
		w->cpu = (int32_t)target;
}

static void on_wakeup_new(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	struct jank_worker *w = thread(m, field_tid(ev, JANK_F_WAKEUP_TID), ev->ts);
	struct jank_worker *parent;

	if (!w)
		return;
	set_comm(w, &ev->fields[JANK_F_WAKEUP_COMM]);
	parent = jank_graph_find_serial(m->graph, w->parent_serial);
	if (!parent && c)
		parent = c->cur;
	/* The fork wait is ended by the parent even when the event fires in an interrupt. */
	if (parent && parent != w && jank_state_is_wait(w->state))
		jank_graph_link(m->graph, parent, w, ev->ts, JANK_STATE_PREEMPTED);
	else
		end_wait(m, NULL, w, NULL, ev->ts);
}

static void on_fork(struct jank_model *m, const struct jank_event *ev)
{
	int32_t ptid = field_tid(ev, JANK_F_FORK_PARENT_TID);
	int32_t ctid = field_tid(ev, JANK_F_FORK_CHILD_TID);
	struct jank_worker *parent = thread(m, ptid, ev->ts);
	struct jank_worker *child;

	if (parent) {
		jank_worker_seen(parent, ev->ts);
		if (parent->pid < 0)
			parent->pid =
				(int32_t)jank_value_as_int(&ev->fields[JANK_F_FORK_PARENT_PID], -1);
	}
	if (ctid <= 0)
		return;
	/* A tid in use again is a new thread: the old worker keeps its history until GC. */
	if (jank_graph_find(m->graph, ctid))
		jank_graph_retire(m->graph, ctid);
	child = thread(m, ctid, ev->ts);
	if (!child)
		return;
	set_comm(child, &ev->fields[JANK_F_FORK_CHILD_COMM]);
	child->pid = (int32_t)jank_value_as_int(&ev->fields[JANK_F_FORK_CHILD_PID], ctid);
	child->parent_serial = parent ? parent->serial : JANK_NO_WORKER;
	jank_graph_transition(m->graph, child, ev->ts, JANK_STATE_BLOCKED);
}

static void on_exec(struct jank_model *m, const struct jank_event *ev)
{
	int32_t tid = field_tid(ev, JANK_F_EXEC_TID);
	const struct jank_value *f = &ev->fields[JANK_F_EXEC_FILENAME];
	struct jank_worker *w;

	if (tid <= 0 && m->ncpus > (uint32_t)(ev->cpu < 0 ? 0 : ev->cpu) && ev->cpu >= 0)
		tid = m->cpus[ev->cpu].cur_tid;
	w = thread(m, tid, ev->ts);
	if (!w)
		return;
	jank_worker_seen(w, ev->ts);
	if (f->type == JANK_VALUE_STR && f->s) {
		const char *base = strrchr(f->s, '/');
		struct jank_value v = { .type = JANK_VALUE_STR, .s = base ? base + 1 : f->s };

		set_comm(w, &v);
	}
}

static void on_statedump(struct jank_model *m, const struct jank_event *ev)
{
	struct jank_worker *w = thread(m, field_tid(ev, JANK_F_STATEDUMP_TID), ev->ts);
	enum jank_state s;

	if (!w)
		return;
	set_comm(w, &ev->fields[JANK_F_STATEDUMP_NAME]);
	if (w->pid < 0)
		w->pid = (int32_t)jank_value_as_int(&ev->fields[JANK_F_STATEDUMP_PID], -1);
	if (w->next > w->base)
		return; /* already known from the trace itself */
	switch (jank_value_as_int(&ev->fields[JANK_F_STATEDUMP_STATUS], -1)) {
	case STATEDUMP_WAIT_CPU:
		s = JANK_STATE_PREEMPTED;
		break;
	case STATEDUMP_WAIT:
	case STATEDUMP_WAIT_FORK:
		s = JANK_STATE_BLOCKED;
		break;
	case STATEDUMP_RUN:
		s = JANK_STATE_RUNNING;
		break;
	default:
		return;
	}
	jank_graph_transition(m->graph, w, ev->ts, s);
}

static void ctx_push(struct jank_model *m, struct jank_cpu *c, enum jank_ctx_kind kind,
		     const struct jank_event *ev)
{
	if (c->depth >= JANK_IRQ_STACK_MAX) {
		c->overflow++;
		c->depth++;
		return;
	}
	c->stack[c->depth].kind = (uint8_t)kind;
	c->stack[c->depth].vec =
		kind == JANK_CTX_SOFTIRQ
			? (uint8_t)jank_value_as_int(&ev->fields[JANK_F_SOFTIRQ_VEC], 255)
			: 0;
	c->depth++;
}

static void ctx_pop(struct jank_model *m, struct jank_cpu *c, enum jank_ctx_kind kind)
{
	if (c->depth == 0) {
		/* The entry was before the trace began, or was lost. */
		m->lost_contexts++;
		return;
	}
	c->depth--;
	if (c->depth >= JANK_IRQ_STACK_MAX) {
		c->overflow--;
		return;
	}
	/* Unwind to the matching kind when an exit was lost in between. */
	while (c->stack[c->depth].kind != kind && c->depth > 0) {
		m->lost_contexts++;
		c->depth--;
	}
}

void jank_model_process(struct jank_model *m, enum jank_event_type type,
			const struct jank_event *ev)
{
	struct jank_cpu *c = cpu_get(m, ev->cpu);

	if (c && c->cur)
		jank_worker_seen(c->cur, ev->ts);
	switch (type) {
	case JANK_EVENT_SCHED_SWITCH:
		m->kernel = true;
		if (c)
			on_switch(m, c, ev);
		break;
	case JANK_EVENT_MUTEX_REQ:
	case JANK_EVENT_MUTEX_ACQ:
	case JANK_EVENT_MUTEX_UNLOCK:
	case JANK_EVENT_MUTEX_TRYLOCK:
		jank_locks_process(m->locks, type, ev, m->kernel);
		break;
	case JANK_EVENT_SCHED_WAKEUP:
	case JANK_EVENT_SCHED_WAKING:
		on_wakeup(m, c, ev);
		break;
	case JANK_EVENT_SCHED_WAKEUP_NEW:
		on_wakeup_new(m, c, ev);
		break;
	case JANK_EVENT_PROCESS_FORK:
		on_fork(m, ev);
		break;
	case JANK_EVENT_PROCESS_EXEC:
		on_exec(m, ev);
		break;
	case JANK_EVENT_PROCESS_EXIT: {
		struct jank_worker *w = jank_graph_find(m->graph, field_tid(ev, JANK_F_EXIT_TID));

		if (w) {
			w->exited = true;
			jank_worker_seen(w, ev->ts);
		}
		break;
	}
	case JANK_EVENT_PROCESS_FREE: {
		int32_t tid = field_tid(ev, JANK_F_EXIT_TID);
		struct jank_worker *w = jank_graph_find(m->graph, tid);

		if (!w)
			break;
		for (uint32_t i = 0; i < m->ncpus; i++)
			if (m->cpus[i].cur == w)
				m->cpus[i].cur = NULL;
		jank_graph_retire(m->graph, tid);
		break;
	}
	case JANK_EVENT_STATEDUMP_PROCESS:
		on_statedump(m, ev);
		break;
	case JANK_EVENT_IRQ_ENTRY:
		if (c)
			ctx_push(m, c, JANK_CTX_IRQ, ev);
		break;
	case JANK_EVENT_SOFTIRQ_ENTRY:
		if (c)
			ctx_push(m, c, JANK_CTX_SOFTIRQ, ev);
		break;
	case JANK_EVENT_HRTIMER_ENTRY:
		if (c)
			ctx_push(m, c, JANK_CTX_HRTIMER, ev);
		break;
	case JANK_EVENT_IPI_ENTRY:
		if (c)
			ctx_push(m, c, JANK_CTX_IPI, ev);
		break;
	case JANK_EVENT_IRQ_EXIT:
		if (c)
			ctx_pop(m, c, JANK_CTX_IRQ);
		break;
	case JANK_EVENT_SOFTIRQ_EXIT:
		if (c)
			ctx_pop(m, c, JANK_CTX_SOFTIRQ);
		break;
	case JANK_EVENT_HRTIMER_EXIT:
		if (c)
			ctx_pop(m, c, JANK_CTX_HRTIMER);
		break;
	case JANK_EVENT_IPI_EXIT:
		if (c)
			ctx_pop(m, c, JANK_CTX_IPI);
		break;
	case JANK_EVENT_SOFTIRQ_RAISE:
	case JANK_EVENT_SYSCALL_ENTRY:
	case JANK_EVENT_SYSCALL_EXIT:
	case JANK_EVENT_USER:
	case JANK_EVENT_TYPE_COUNT:
		break;
	}
}

struct discard_ctx {
	struct jank_model *m;
	int32_t cpu;
	int64_t ts;
};

static void discard_worker(struct jank_worker *w, void *data)
{
	struct discard_ctx *d = data;

	if (w->retired || (d->cpu >= 0 && w->cpu != d->cpu && w->cpu >= 0))
		return;
	jank_graph_transition(d->m->graph, w, d->ts, JANK_STATE_UNKNOWN);
}

void jank_model_discarded(struct jank_model *m, int32_t cpu, int64_t ts)
{
	struct discard_ctx d = { .m = m, .cpu = cpu, .ts = ts };

	jank_graph_foreach_mut(m->graph, discard_worker, &d);
	for (uint32_t i = 0; i < m->ncpus; i++) {
		if (cpu >= 0 && (uint32_t)cpu != i)
			continue;
		m->cpus[i].cur = NULL;
		m->cpus[i].cur_tid = -1;
		m->cpus[i].depth = 0;
		m->cpus[i].overflow = 0;
	}
}
