/* SPDX-License-Identifier: MIT */
/*
 * System model: per-CPU current thread and interrupt-context stack, and the
 * translation of scheduler events into execution-graph operations.
 *
 *  - sched_switch: prev becomes blocked when prev_state has a sleeping bit,
 *    preempted otherwise (0, or the kernel's preemption flag), and ends
 *    when it is exiting (layout.c decodes the bits); next becomes running.
 *    A blocked thread switched in with no wakeup seen keeps its wait
 *    unresolved (no waker).
 *  - The CPU's current thread is what its switches say, corrected by the
 *    `tid` context of kernel events when they disagree: some kernels do not
 *    trace the switch out of the idle task, and events get lost.
 *  - sched_waking / sched_wakeup: the first of the two ends the wait. In an
 *    interrupt context, the wait is labelled by that context (timer,
 *    network, ...), except a NET_RX softirq that a thread raised in its own
 *    context (a local send, on loopback): that thread is the waker, and its
 *    `network` interval shows the hop. In thread context, the thread current
 *    on the event's CPU is the waker: a vertical edge joins them. The wakee
 *    is then preempted (runnable) until it is switched in.
 *  - Wakeups from interrupts the trace does not show (hard IRQs, hrtimers
 *    and vectors are often not traced): they seem to come from the thread
 *    the interrupt landed on. Two cases are told apart, else the thread is
 *    the waker:
 *    . ksoftirqd/N woken on CPU N at most KSOFTIRQD_WINDOW_NS after a
 *      softirq exit that emptied the CPU's context stack: __do_softirq
 *      woke it (the restart limit), the wait is labelled by that vector;
 *    . a waker in user mode (after its last system call exit, before its
 *      next entry, with no kernel event of its own in between) cannot have
 *      called the scheduler: `interrupted`, no link, and `timer` when the
 *      wakee's system call then returns -ETIMEDOUT. Conservative where the
 *      trace cannot tell: user mode is trusted only once the trace records
 *      every system call (JANK_SYSCALL_MIN_CLASSES kinds seen), and from
 *      USER_GRACE_NS after the exit (the way back to user space runs task
 *      work, e.g. a deferred fput that wakes a pipe's reader); a page fault
 *      or a switch-out makes the mode unknown.
 *  - sched_process_fork starts the child in a fork wait that
 *    sched_wakeup_new ends, with the parent as the waker; without
 *    sched_wakeup_new, the child is runnable from its birth. A path that
 *    reaches the child's birth goes on through the parent (critpath.c).
 *  - lttng_statedump_process_state gives the initial state of threads not
 *    seen yet.
 *
 * The per-CPU current thread is a pointer into the graph: the graph's free
 * hook clears it before GC frees that thread record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "locks.h"
#include "model.h"
#include "textsafe.h"

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

/*
 * __do_softirq wakes ksoftirqd right after its last softirq exit: 0.14 to
 * 0.72 us later on many-threads (145 wakeups). 2 us leaves room for a slower
 * CPU; a thread-context wakeup of ksoftirqd (raise_softirq outside an
 * interrupt) does not follow a softirq exit that closely.
 */
#define KSOFTIRQD_WINDOW_NS 2000
/*
 * After a system call exit the thread runs kernel code on its way back to
 * user space (task work: a deferred fput that wakes a pipe's reader, 0.8 us
 * after execve's exit on many-threads; signal delivery). Untraced interrupts
 * there came at least 17 us after the exit.
 */
#define USER_GRACE_NS 10000
/* System call kinds seen before user mode is trusted: a session of rules enables a few. */
#define JANK_SYSCALL_MIN_CLASSES 32
#define ETIMEDOUT_RET		 (-110)

/*
 * A thread the model refers to (a CPU's current thread, a fork parent, the
 * raiser of a softirq), unless retired: GC frees retired threads once they
 * leave the window, and what the model does must not depend on whether it
 * did (without GC, they stay).
 */
static struct jank_thread *live(struct jank_thread *w)
{
	return w && !w->retired ? w : NULL;
}

/* The graph frees w: no CPU may keep it as its current thread. */
static void forget_thread(struct jank_thread *w, void *data)
{
	struct jank_model *m = data;

	if (w->on_cpu >= 0 && (uint32_t)w->on_cpu < m->ncpus && m->cpus[w->on_cpu].cur == w)
		m->cpus[w->on_cpu].cur = NULL;
	w->on_cpu = -1;
}

int jank_model_init(struct jank_model *m, struct jank_graph *g, const struct jank_layout *layout)
{
	memset(m, 0, sizeof(*m));
	m->graph = g;
	m->layout = layout;
	jank_graph_set_free_hook(g, forget_thread, m);
	m->locks = jank_locks_new(g);
	return m->locks ? 0 : -ENOMEM;
}

void jank_model_fini(struct jank_model *m)
{
	jank_locks_free(m->locks);
	m->locks = NULL;
	for (uint32_t i = 0; i < m->ncpus; i++)
		free(m->cpus[i].runs);
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
static void set_comm(struct jank_thread *w, const struct jank_value *v)
{
	if (v->type == JANK_VALUE_STR && v->s && !memccpy(w->comm, v->s, '\0', JANK_COMM_LEN - 1))
		w->comm[jank_utf8_cut(w->comm, JANK_COMM_LEN - 1)] = '\0'; /* on a character */
}

/* A thread id field; -1 when absent or out of range (Linux tids fit in 31 bits). */
static int32_t field_tid(const struct jank_event *ev, unsigned pos)
{
	int64_t v;

	if (pos >= ev->nfields)
		return -1;
	v = jank_value_as_int(&ev->fields[pos], -1);
	return v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
}

/* The record of a thread, or NULL for the idle thread and invalid ids. */
static struct jank_thread *thread(struct jank_model *m, int32_t tid, int64_t ts)
{
	if (tid <= 0)
		return NULL;
	return jank_graph_get(m->graph, tid, ts);
}

/* The CPU's history is full: double it (it wraps once at JANK_CPU_HISTORY). */
static void runs_grow(struct jank_cpu *c)
{
	uint32_t ncap = c->runs_cap ? c->runs_cap * 2 : 64;
	struct jank_cpu_run *v = malloc(ncap * sizeof(*v));

	if (!v) {
		c->runs_fixed = true; /* out of memory: the ring wraps at its size from now on */
		return;
	}
	/* Not wrapped yet (it grows only when full): runs 0 .. nruns - 1 move as they are. */
	for (uint64_t i = 0; i < c->nruns; i++)
		v[i] = c->runs[i];
	free(c->runs);
	c->runs = v;
	c->runs_cap = ncap;
}

static void record_run(struct jank_cpu *c, int64_t ts, int32_t tid, const struct jank_thread *w)
{
	struct jank_cpu_run *r;

	if (c->nruns >= c->runs_cap && c->runs_cap < JANK_CPU_HISTORY && !c->runs_fixed)
		runs_grow(c);
	if (!c->runs_cap)
		return;
	r = &c->runs[c->nruns++ & (c->runs_cap - 1)];
	r->ts = ts;
	r->tid = tid;
	r->serial = w ? w->serial : JANK_NO_THREAD;
}

/* The CPU's current thread becomes tid (w: its record, NULL for idle or unknown). */
static void set_current(struct jank_model *m, struct jank_cpu *c, int32_t tid,
			struct jank_thread *w, int64_t ts)
{
	int32_t cpu = (int32_t)(c - m->cpus);

	record_run(c, ts, tid, w);

	if (c->cur && c->cur->on_cpu == cpu)
		c->cur->on_cpu = -1;
	if (w && w->on_cpu >= 0 && w->on_cpu != cpu && (uint32_t)w->on_cpu < m->ncpus &&
	    m->cpus[w->on_cpu].cur == w) {
		/* It was the current thread elsewhere: it moved, unseen. */
		m->cpus[w->on_cpu].cur = NULL;
		m->cpus[w->on_cpu].cur_tid = -1;
	}
	c->cur_tid = tid;
	c->cur = w;
	if (w) {
		w->on_cpu = cpu;
		w->cpu = cpu;
	}
}

static void switch_out(struct jank_model *m, struct jank_thread *w, int64_t ts, int64_t prev_state)
{
	switch (jank_layout_switch_out(m->layout, prev_state)) {
	case JANK_SWITCH_OUT_PREEMPTED:
		jank_graph_transition(m->graph, w, ts, JANK_STATE_PREEMPTED);
		break;
	case JANK_SWITCH_OUT_BLOCKED:
		w->irq_wait = 0; /* a new wait: its system call's end is not the old wait's */
		jank_graph_transition(m->graph, w, ts, JANK_STATE_BLOCKED);
		break;
	case JANK_SWITCH_OUT_EXITING:
		/*
		 * Neither waiting nor runnable: its life ends here. The tid, seen
		 * again, is another thread (its fork or the free were not traced):
		 * retired now, the same with GC (which frees it) as without.
		 */
		w->exited = true;
		jank_graph_transition(m->graph, w, ts, JANK_STATE_UNKNOWN);
		jank_graph_retire(m->graph, w->tid);
		break;
	}
}

static void switch_in(struct jank_model *m, struct jank_thread *w, int64_t ts)
{
	/* A child never woken by sched_wakeup_new was runnable since its birth. */
	if (w->fork_wait) {
		w->fork_wait = false;
		if (w->state == JANK_STATE_BLOCKED)
			jank_graph_relabel_open(w, JANK_STATE_PREEMPTED);
	}
	jank_graph_transition(m->graph, w, ts, JANK_STATE_RUNNING);
}

static void on_switch(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	int32_t prev = field_tid(ev, JANK_F_SWITCH_PREV_TID);
	int32_t next = field_tid(ev, JANK_F_SWITCH_NEXT_TID);
	int64_t prev_state = ev->nfields > JANK_F_SWITCH_PREV_STATE
				     ? jank_value_as_int(&ev->fields[JANK_F_SWITCH_PREV_STATE], 1)
				     : 1;
	struct jank_thread *w;

	/* prev is nearly always the CPU's current thread: no need to look it up. */
	if (c->cur && c->cur->tid == prev && !c->cur->retired)
		w = c->cur;
	else
		w = thread(m, prev, ev->ts);
	if (w) {
		set_comm(w, &ev->fields[JANK_F_SWITCH_PREV_COMM]);
		switch_out(m, w, ev->ts, prev_state);
	}
	w = thread(m, next, ev->ts);
	if (w) {
		set_comm(w, &ev->fields[JANK_F_SWITCH_NEXT_COMM]);
		switch_in(m, w, ev->ts);
	}
	set_current(m, c, next, w, ev->ts);
}

/*
 * A kernel event's tid context names the thread that ran it. When the CPU's
 * current thread disagrees, a switch was not traced (the kernel does not
 * trace the idle task's switch-out) or was lost: the one the CPU ran is no
 * longer running (its state from here is unknown), and the thread named is.
 */
static void repair_current(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	struct jank_thread *w = NULL;

	if (c->cur_tid >= 0)
		m->repaired_current++; /* a disagreement, not the first sight of the CPU */
	if (live(c->cur) && c->cur->state == JANK_STATE_RUNNING)
		jank_graph_transition(m->graph, c->cur, ev->ts, JANK_STATE_UNKNOWN);
	if (ev->tid > 0) {
		w = thread(m, ev->tid, ev->ts);
		if (w)
			switch_in(m, w, ev->ts);
	}
	set_current(m, c, ev->tid, w, ev->ts);
}

/*
 * A NET_RX softirq that a thread raised in its own context (a local send:
 * loopback, veth) wakes wakee: the sender is the waker. While the softirq
 * runs on top of the sender's system call, the sender's time shows as
 * `network` (the hop), from the softirq's entry until its exit. False when
 * no thread raised it (a NIC's interrupt did): the wait is labelled then.
 */
static bool wake_from_sender(struct jank_model *m, struct jank_cpu *c, struct jank_ctx *x,
			     struct jank_thread *wakee, int64_t ts)
{
	struct jank_thread *sender;

	if (x->kind != JANK_CTX_SOFTIRQ || !x->sender)
		return false;
	sender = live(jank_graph_find_serial(m->graph, x->sender));
	if (!sender || sender == wakee)
		return false;
	if (sender == c->cur && sender->state == JANK_STATE_RUNNING &&
	    sender->since <= x->entry_ts) {
		jank_graph_transition(m->graph, sender, x->entry_ts, JANK_STATE_NETWORK);
		x->hop = true;
	}
	jank_graph_link(m->graph, sender, wakee, ts, JANK_STATE_PREEMPTED);
	return true;
}

/* Whether w is ksoftirqd/<cpu>. */
static bool is_ksoftirqd(const struct jank_thread *w, int32_t cpu)
{
	static const char prefix[] = "ksoftirqd/";
	const char *p = w->comm + sizeof(prefix) - 1;
	int64_t n = 0;

	if (cpu < 0 || strncmp(w->comm, prefix, sizeof(prefix) - 1) != 0 || !*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n > MAX_CPUS)
			return false;
		n = n * 10 + (*p - '0');
	}
	return n == cpu;
}

/*
 * A wakeup in thread context that an untraced interrupt did (see the top of
 * this file): the label of the wakee's wait, or JANK_STATE_UNKNOWN when the
 * thread current on the CPU is the waker after all.
 */
static enum jank_state untraced_waker(const struct jank_model *m, const struct jank_cpu *c,
				      const struct jank_thread *wakee,
				      const struct jank_thread *waker, int64_t ts)
{
	int32_t cpu = (int32_t)(c - m->cpus);

	if (c->softirq_left && ts >= c->softirq_left_ts &&
	    ts - c->softirq_left_ts <= KSOFTIRQD_WINDOW_NS && is_ksoftirqd(wakee, cpu)) {
		struct jank_ctx x = { .kind = JANK_CTX_SOFTIRQ, .vec = c->softirq_left_vec };

		return jank_model_context_label(&x);
	}
	if (waker && waker != wakee && waker->user_mode && ts - waker->user_since > USER_GRACE_NS &&
	    m->nsyscall_classes >= JANK_SYSCALL_MIN_CLASSES)
		return JANK_STATE_INTERRUPTED;
	return JANK_STATE_UNKNOWN;
}

/* End a wait at ts; the waker is an interrupt context, a thread, or unknown. */
static void end_wait(struct jank_model *m, struct jank_cpu *c, struct jank_thread *wakee,
		     struct jank_thread *waker, int64_t ts)
{
	enum jank_state untraced;

	if (wakee->state == JANK_STATE_UNKNOWN && wakee->next == wakee->base) {
		/* First sight: nothing to label, the thread becomes runnable. */
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
		return;
	}
	if (!jank_state_is_wait(wakee->state))
		return; /* already woken (waking then wakeup), or running */
	if (c && c->depth > 0 && c->depth <= JANK_IRQ_STACK_MAX) {
		struct jank_ctx *x = &c->stack[c->depth - 1];

		if (wake_from_sender(m, c, x, wakee, ts))
			return;
		jank_graph_relabel_open(wakee, jank_model_context_label(x));
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	} else if (c && c->depth > JANK_IRQ_STACK_MAX) {
		jank_graph_relabel_open(wakee, JANK_STATE_INTERRUPTED);
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	} else if (c && (untraced = untraced_waker(m, c, wakee, waker, ts))) {
		m->untraced_wakeups++;
		jank_graph_relabel_open(wakee, untraced);
		/* Its system call may say a timer ended it (on_syscall). */
		wakee->irq_wait = untraced == JANK_STATE_INTERRUPTED && wakee->next > wakee->base
					  ? wakee->next
					  : 0;
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	} else if (waker && waker != wakee) {
		jank_graph_link(m->graph, waker, wakee, ts, JANK_STATE_PREEMPTED);
	} else {
		jank_graph_transition(m->graph, wakee, ts, JANK_STATE_PREEMPTED);
	}
}

static void on_wakeup(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	struct jank_thread *w = thread(m, field_tid(ev, JANK_F_WAKEUP_TID), ev->ts);
	int64_t target;

	if (!w)
		return;
	set_comm(w, &ev->fields[JANK_F_WAKEUP_COMM]);
	end_wait(m, c, w, c ? live(c->cur) : NULL, ev->ts);
	target = jank_value_as_int(&ev->fields[JANK_F_WAKEUP_TARGET_CPU], -1);
	if (target >= 0 && w->state != JANK_STATE_RUNNING)
		w->cpu = (int32_t)target;
}

static void on_wakeup_new(struct jank_model *m, struct jank_cpu *c, const struct jank_event *ev)
{
	struct jank_thread *w = thread(m, field_tid(ev, JANK_F_WAKEUP_TID), ev->ts);
	struct jank_thread *parent;

	if (!w)
		return;
	set_comm(w, &ev->fields[JANK_F_WAKEUP_COMM]);
	w->fork_wait = false;
	parent = live(jank_graph_find_serial(m->graph, w->parent_serial));
	if (!parent && c)
		parent = live(c->cur);
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
	struct jank_thread *parent = thread(m, ptid, ev->ts);
	struct jank_thread *child;

	if (parent) {
		jank_thread_seen(parent, ev->ts);
		if (parent->pid < 0)
			parent->pid =
				(int32_t)jank_value_as_int(&ev->fields[JANK_F_FORK_PARENT_PID], -1);
	}
	if (ctid <= 0)
		return;
	/* A tid in use again is a new thread: the old record keeps its history until GC. */
	if (jank_graph_find(m->graph, ctid))
		jank_graph_retire(m->graph, ctid);
	child = thread(m, ctid, ev->ts);
	if (!child)
		return;
	set_comm(child, &ev->fields[JANK_F_FORK_CHILD_COMM]);
	child->pid = (int32_t)jank_value_as_int(&ev->fields[JANK_F_FORK_CHILD_PID], ctid);
	child->parent_serial = parent ? parent->serial : JANK_NO_THREAD;
	/* Born here, unless the child was seen before (events out of order, tid reuse missed). */
	child->born = child->next == child->base && child->first_seen == ev->ts;
	child->fork_wait = true;
	jank_graph_transition(m->graph, child, ev->ts, JANK_STATE_BLOCKED);
}

static void on_exec(struct jank_model *m, const struct jank_event *ev)
{
	int32_t tid = field_tid(ev, JANK_F_EXEC_TID);
	const struct jank_value *f = &ev->fields[JANK_F_EXEC_FILENAME];
	struct jank_thread *w;

	if (tid <= 0 && m->ncpus > (uint32_t)(ev->cpu < 0 ? 0 : ev->cpu) && ev->cpu >= 0)
		tid = m->cpus[ev->cpu].cur_tid;
	w = thread(m, tid, ev->ts);
	if (!w)
		return;
	jank_thread_seen(w, ev->ts);
	if (f->type == JANK_VALUE_STR && f->s) {
		const char *base = strrchr(f->s, '/');
		struct jank_value v = { .type = JANK_VALUE_STR, .s = base ? base + 1 : f->s };

		set_comm(w, &v);
	}
}

static void on_statedump(struct jank_model *m, const struct jank_event *ev)
{
	struct jank_thread *w = thread(m, field_tid(ev, JANK_F_STATEDUMP_TID), ev->ts);
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
	case STATEDUMP_WAIT_FORK:
		/* lttng-modules 2.13 reports a runnable task as "wait fork" too. */
		s = JANK_STATE_PREEMPTED;
		break;
	case STATEDUMP_WAIT:
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

/* The interrupt context an entry or exit event belongs to. */
static enum jank_ctx_kind context_kind(enum jank_event_type type)
{
	switch (type) {
	case JANK_EVENT_SOFTIRQ_ENTRY:
	case JANK_EVENT_SOFTIRQ_EXIT:
		return JANK_CTX_SOFTIRQ;
	case JANK_EVENT_HRTIMER_ENTRY:
	case JANK_EVENT_HRTIMER_EXIT:
		return JANK_CTX_HRTIMER;
	case JANK_EVENT_IPI_ENTRY:
	case JANK_EVENT_IPI_EXIT:
		return JANK_CTX_IPI;
	default:
		return JANK_CTX_IRQ;
	}
}

static uint8_t softirq_vec(const struct jank_event *ev)
{
	int64_t v = jank_value_as_int(&ev->fields[JANK_F_SOFTIRQ_VEC], 255);

	return v < 0 || v > 255 ? 255 : (uint8_t)v;
}

/* A softirq raised: remember who raised NET_RX in thread context (a local send). */
static void on_raise(struct jank_cpu *c, const struct jank_event *ev)
{
	if (softirq_vec(ev) == SOFTIRQ_NET_RX)
		c->net_raiser = c->depth == 0 && live(c->cur) ? c->cur->serial : JANK_NO_THREAD;
}

static void ctx_push(struct jank_cpu *c, enum jank_ctx_kind kind, const struct jank_event *ev)
{
	struct jank_ctx *x;

	/* Deeper than the stack: counted, so that the exits match; saturates. */
	if (c->depth >= JANK_IRQ_STACK_MAX) {
		if (c->depth < UINT32_MAX)
			c->depth++;
		return;
	}
	x = &c->stack[c->depth++];
	memset(x, 0, sizeof(*x));
	x->kind = (uint8_t)kind;
	x->entry_ts = ev->ts;
	if (kind == JANK_CTX_SOFTIRQ) {
		x->vec = softirq_vec(ev);
		if (x->vec == SOFTIRQ_NET_RX) {
			x->sender = c->net_raiser;
			c->net_raiser = JANK_NO_THREAD;
		}
	}
}

/* The sender's `network` hop (wake_from_sender) ends with the softirq. */
static void end_hop(struct jank_model *m, const struct jank_ctx *x, int64_t ts)
{
	struct jank_thread *sender = live(jank_graph_find_serial(m->graph, x->sender));

	if (sender && sender->state == JANK_STATE_NETWORK)
		jank_graph_transition(m->graph, sender, ts, JANK_STATE_RUNNING);
}

static void ctx_pop(struct jank_model *m, struct jank_cpu *c, enum jank_ctx_kind kind, int64_t ts)
{
	if (c->depth == 0) {
		/* The entry was before the trace began, or was lost. */
		m->lost_contexts++;
		return;
	}
	c->depth--;
	if (c->depth >= JANK_IRQ_STACK_MAX)
		return;
	/* Unwind to the matching kind when an exit was lost in between. */
	while (c->stack[c->depth].kind != kind && c->depth > 0) {
		m->lost_contexts++;
		c->depth--;
	}
	if (c->stack[c->depth].hop)
		end_hop(m, &c->stack[c->depth], ts);
	/* The stack is empty: __do_softirq may wake ksoftirqd now (untraced_waker). */
	c->softirq_left = c->depth == 0 && kind == JANK_CTX_SOFTIRQ;
	c->softirq_left_vec = c->stack[0].vec;
	c->softirq_left_ts = ts;
}

/* A kind of system call entry seen, by its class (the trace records it). */
static void note_syscall_class(struct jank_model *m, uint32_t class_id)
{
	uint64_t bit = UINT64_C(1) << (class_id % 64);

	if (class_id >= JANK_SYSCALL_CLASSES || (m->syscall_classes[class_id / 64] & bit))
		return;
	m->syscall_classes[class_id / 64] |= bit;
	m->nsyscall_classes++;
}

/* The wait an untraced interrupt ended (end_wait) was a timer's: relabel it. */
static void relabel_timer(struct jank_thread *w, uint64_t idx)
{
	struct jank_vertex *v;

	if (idx < w->base || idx >= w->next)
		return; /* freed by GC: outside every path that can still be asked for */
	if (idx + 1 == w->next) {
		jank_graph_relabel_open(w, JANK_STATE_TIMER);
		return;
	}
	v = &w->ring[idx & (w->cap - 1)];
	/* Adjacent intervals differ in state: a neighbour that is a timer's keeps it `interrupted`.
	 */
	if (v->state != JANK_STATE_INTERRUPTED ||
	    (idx > w->base && w->ring[(idx - 1) & (w->cap - 1)].state == JANK_STATE_TIMER) ||
	    w->ring[(idx + 1) & (w->cap - 1)].state == JANK_STATE_TIMER)
		return;
	v->state = JANK_STATE_TIMER;
}

/*
 * A system call entry or exit of the CPU's current thread: its mode, and the
 * end of a wait an untraced interrupt ended.
 */
static void on_syscall(struct jank_model *m, struct jank_cpu *c, enum jank_event_type type,
		       const struct jank_event *ev)
{
	struct jank_thread *w = c->depth == 0 ? live(c->cur) : NULL;

	if (type == JANK_EVENT_SYSCALL_ENTRY)
		note_syscall_class(m, ev->class_id);
	if (!w)
		return;
	if (type == JANK_EVENT_SYSCALL_ENTRY) {
		w->user_mode = false;
		w->irq_wait = 0;
		return;
	}
	if (w->irq_wait &&
	    jank_value_as_int(&ev->fields[JANK_F_SYSCALL_EXIT_RET], 0) == ETIMEDOUT_RET)
		relabel_timer(w, w->irq_wait - 1);
	w->irq_wait = 0;
	w->user_mode = true;
	w->user_since = ev->ts;
}

/*
 * Whether an event in a thread's context (at depth 0) shows it in the
 * kernel: anything but its system calls (on_syscall), interrupts and what
 * they do (wakeups, raises), and user-space events.
 */
static bool shows_kernel_mode(enum jank_event_type type)
{
	switch (type) {
	case JANK_EVENT_SCHED_SWITCH:
	case JANK_EVENT_SCHED_WAKEUP_NEW:
	case JANK_EVENT_PROCESS_FORK:
	case JANK_EVENT_PROCESS_EXEC:
	case JANK_EVENT_PROCESS_EXIT:
	case JANK_EVENT_PROCESS_FREE:
	case JANK_EVENT_STATEDUMP_PROCESS:
	case JANK_EVENT_PAGE_FAULT:
		return true;
	default:
		return false;
	}
}

/* Kernel events whose tid context, when present, names the thread on the CPU. */
static bool names_current(enum jank_event_type type)
{
	switch (type) {
	case JANK_EVENT_USER: /* may be a user-space event: its vtid is not a tid */
	case JANK_EVENT_MUTEX_REQ:
	case JANK_EVENT_MUTEX_ACQ:
	case JANK_EVENT_MUTEX_UNLOCK:
	case JANK_EVENT_MUTEX_TRYLOCK:
	case JANK_EVENT_TYPE_COUNT:
		return false;
	default:
		return true;
	}
}

static void on_thread_exit(struct jank_model *m, const struct jank_event *ev)
{
	struct jank_thread *w = jank_graph_find(m->graph, field_tid(ev, JANK_F_EXIT_TID));

	if (w) {
		w->exited = true;
		jank_thread_seen(w, ev->ts);
	}
}

/* The kernel freed the thread: its tid may come back as another thread. */
static void on_free(struct jank_model *m, const struct jank_event *ev)
{
	int32_t tid = field_tid(ev, JANK_F_EXIT_TID);
	struct jank_thread *w = jank_graph_find(m->graph, tid);

	if (!w)
		return;
	if (w->on_cpu >= 0 && (uint32_t)w->on_cpu < m->ncpus && m->cpus[w->on_cpu].cur == w)
		m->cpus[w->on_cpu].cur = NULL;
	w->on_cpu = -1;
	jank_graph_retire(m->graph, tid);
}

void jank_model_process(struct jank_model *m, enum jank_event_type type,
			const struct jank_event *ev)
{
	struct jank_cpu *c = cpu_get(m, ev->cpu);

	if (c && ev->tid >= 0 && ev->tid != c->cur_tid && names_current(type))
		repair_current(m, c, ev);
	if (c && live(c->cur)) {
		jank_thread_seen(c->cur, ev->ts);
		if (c->cur->user_mode && c->depth == 0 && shows_kernel_mode(type))
			c->cur->user_mode = false;
	}
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
	case JANK_EVENT_PROCESS_EXIT:
		on_thread_exit(m, ev);
		break;
	case JANK_EVENT_PROCESS_FREE:
		on_free(m, ev);
		break;
	case JANK_EVENT_STATEDUMP_PROCESS:
		on_statedump(m, ev);
		break;
	case JANK_EVENT_IRQ_ENTRY:
	case JANK_EVENT_SOFTIRQ_ENTRY:
	case JANK_EVENT_HRTIMER_ENTRY:
	case JANK_EVENT_IPI_ENTRY:
		if (c)
			ctx_push(c, context_kind(type), ev);
		break;
	case JANK_EVENT_IRQ_EXIT:
	case JANK_EVENT_SOFTIRQ_EXIT:
	case JANK_EVENT_HRTIMER_EXIT:
	case JANK_EVENT_IPI_EXIT:
		if (c)
			ctx_pop(m, c, context_kind(type), ev->ts);
		break;
	case JANK_EVENT_SOFTIRQ_RAISE:
		if (c)
			on_raise(c, ev);
		break;
	case JANK_EVENT_SYSCALL_ENTRY:
	case JANK_EVENT_SYSCALL_EXIT:
		if (c)
			on_syscall(m, c, type, ev);
		break;
	case JANK_EVENT_PAGE_FAULT:
	case JANK_EVENT_FUNC_ENTRY:
	case JANK_EVENT_FUNC_EXIT:
	case JANK_EVENT_NET_SEND: /* the engine's (engine-net.c) */
	case JANK_EVENT_NET_RECV:
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

static void discard_thread(struct jank_thread *w, void *data)
{
	struct discard_ctx *d = data;

	/* Its system call entry may be among the lost events, on whatever CPU. */
	w->user_mode = false;
	w->irq_wait = 0;
	if (w->retired || (d->cpu >= 0 && w->cpu != d->cpu && w->cpu >= 0))
		return;
	jank_graph_transition(d->m->graph, w, d->ts, JANK_STATE_UNKNOWN);
}

void jank_model_discarded(struct jank_model *m, int32_t cpu, int64_t ts)
{
	struct discard_ctx d = { .m = m, .cpu = cpu, .ts = ts };

	jank_graph_foreach_mut(m->graph, discard_thread, &d);
	for (uint32_t i = 0; i < m->ncpus; i++) {
		if (cpu >= 0 && (uint32_t)cpu != i)
			continue;
		if (m->cpus[i].cur)
			m->cpus[i].cur->on_cpu = -1;
		record_run(&m->cpus[i], ts, -1, NULL);
		m->cpus[i].cur = NULL;
		m->cpus[i].cur_tid = -1;
		m->cpus[i].depth = 0;
		m->cpus[i].net_raiser = JANK_NO_THREAD;
		m->cpus[i].softirq_left = false;
	}
}

uint64_t jank_model_bytes(const struct jank_model *m)
{
	uint64_t bytes = (uint64_t)m->ncpus * sizeof(*m->cpus);

	for (uint32_t i = 0; i < m->ncpus; i++)
		bytes += (uint64_t)m->cpus[i].runs_cap * sizeof(struct jank_cpu_run);
	return bytes;
}
