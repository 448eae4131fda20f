/* SPDX-License-Identifier: MIT */
/*
 * The engine's function stacks: the shadow stack that function entries and
 * exits keep per thread, and a kernel event's callstack contexts.
 */
#include <stdlib.h>
#include "engine-int.h"

/* The thread's stack from now on: a kernel event's callstack context, else its shadow stack. */
static void stack_now(struct jank_engine *e, struct jank_thread *w, int64_t ts)
{
	jank_graph_stack_set(e->graph, w, ts, w->fn->ctx ? w->fn->ctx : w->fn->shadow);
}

/*
 * Where user code at addr of process pid (in PID namespace pid_ns, 0:
 * unknown) is: an offset in a binary when the locator knows.
 */
static void locate(const struct jank_engine *e, int32_t pid, uint32_t pid_ns, uint64_t addr,
		   struct jank_code_loc *at)
{
	at->addr = addr;
	at->pid = pid;
	at->code = 0;
	if (e->locator &&
	    e->locator(jank_process_key(pid_ns, pid), addr, &at->code, &at->addr,
		       e->locator_data) &&
	    at->code) {
		at->pid = 0;
		return;
	}
	at->addr = addr;
	at->code = 0;
}

/*
 * A function entry pushes its frame on the thread's shadow stack (interned:
 * a lookup, no allocation once the stack was seen); frames past the depth
 * cap, or that a full table cannot hold, are counted only. An exit pops its
 * frame; when it is not the innermost, entries or exits were lost: it pops
 * to the matching frame, or, when no frame matches (its entry was lost),
 * clears the stack, so that a stack never drifts.
 *
 * An exit without an address (lttng_ust_cyg_profile_fast:func_exit has no
 * field: the fast library records only the entries' addresses) pops the
 * innermost frame: there is nothing to check it against, so a lost event
 * shifts the stack until the thread returns to its outermost frame.
 */
void engine_on_function(struct jank_engine *e, bool entry, const struct jank_event *ev)
{
	struct jank_stacks *t = jank_graph_stacks(e->graph);
	int32_t tid = engine_emitting_tid(e, ev);
	struct jank_thread *w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	struct jank_thread_stacks *f;
	bool has_addr = ev->nfields >= 1 && ev->fields[0].type != JANK_VALUE_NONE;
	struct jank_code_loc at, raw;
	uint64_t addr;
	uint32_t id;

	if (!w || (entry && !has_addr) ||
	    (has_addr && ev->fields[0].type != JANK_VALUE_UINT &&
	     ev->fields[0].type != JANK_VALUE_INT))
		return;
	f = w->fn ? w->fn : jank_thread_stacks_of(e->graph, w);
	if (!f)
		return;
	addr = has_addr ? (uint64_t)jank_value_as_int(&ev->fields[0], 0) : 0;
	e->stats.function_events++;
	if (entry) {
		if (f->over) {
			f->over++;
			return;
		}
		locate(e, ev->pid >= 0 ? ev->pid : w->pid, ev->pid >= 0 ? ev->pid_ns : 0, addr,
		       &at);
		id = jank_stacks_push(t, f->shadow, &at, false);
		if (!id) {
			f->over = 1;
			return;
		}
		f->shadow = id;
	} else {
		if (f->over) {
			f->over--;
			return;
		}
		if (!has_addr) {
			if (!f->shadow)
				return; /* nothing to pop: its entry was lost, or came before the
					   trace */
			f->shadow = jank_stacks_parent(t, f->shadow);
			stack_now(e, w, ev->ts);
			return;
		}
		/*
		 * Its entry's frame, as located then or not (its mapping may have
		 * been learnt, or forgotten, in between).
		 */
		raw.addr = addr;
		raw.pid = ev->pid >= 0 ? ev->pid : w->pid;
		raw.code = 0;
		locate(e, raw.pid, ev->pid >= 0 ? ev->pid_ns : 0, addr, &at);
		for (id = f->shadow; id; id = jank_stacks_parent(t, id))
			if (jank_stacks_is(t, id, &at) || jank_stacks_is(t, id, &raw))
				break;
		if (id != f->shadow)
			e->stats.function_resyncs++;
		f->shadow = jank_stacks_parent(t, id); /* 0 when none matched: cleared */
	}
	stack_now(e, w, ev->ts);
}

/* Push a callstack context's frames (innermost first) on `stack`, outermost first. */
static uint32_t push_context(const struct jank_engine *e, struct jank_stacks *t, uint32_t stack,
			     int32_t pid, uint32_t pid_ns, const struct jank_value *v, bool kernel)
{
	for (uint32_t i = v->a.n; i-- > 0;) {
		uint64_t a = v->a.v[i];
		struct jank_code_loc at = { a, pid, 0 };
		uint32_t id;

		if (!a || a == UINT64_MAX) /* padding, or the end marker of some unwinders */
			continue;
		if (!kernel)
			locate(e, pid, pid_ns, a, &at);
		id = jank_stacks_push(t, stack, &at, kernel);
		if (!id)
			break;
		stack = id;
	}
	return stack;
}

/*
 * A kernel event with the callstack_user/callstack_kernel contexts: the
 * stack of the thread that ran it, until its system call exits (e.g. a
 * system call entry's says which code blocked). The kernel's frames go on
 * top of the user ones. A thread that exits has no stack any more.
 * engine_kernel_stacks() (engine-int.h, inline) calls this only when there
 * is something to do: a process exit, a context with frames (u, k), or a
 * system call's exit while some thread has a context's stack.
 */
void engine_kernel_stacks_slow(struct jank_engine *e, const struct class_info *ci,
			       const struct jank_event *ev, const struct jank_value *u,
			       const struct jank_value *k)
{
	struct jank_stacks *t;
	struct jank_thread *w;
	uint32_t stack;
	int32_t tid;

	if (ci->type == JANK_EVENT_PROCESS_EXIT && ev->nfields > JANK_F_EXIT_TID) {
		w = jank_graph_find(e->graph,
				    (int32_t)jank_value_as_int(&ev->fields[JANK_F_EXIT_TID], -1));
		if (w && w->fn) {
			w->fn->shadow = w->fn->ctx = w->fn->over = 0;
			stack_now(e, w, ev->ts);
		}
		return;
	}
	if (!u && !k) {
		/* A system call's exit, and some thread has a context's stack to drop. */
		tid = engine_emitting_tid(e, ev);
		w = tid > 0 ? jank_graph_lookup(e->graph, tid) : NULL;
		if (w && w->fn && w->fn->ctx) {
			w->fn->ctx = 0;
			stack_now(e, w, ev->ts);
		}
		return;
	}
	tid = engine_emitting_tid(e, ev);
	w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	if (!w || !jank_thread_stacks_of(e->graph, w))
		return;
	t = jank_graph_stacks(e->graph);
	stack = u ? push_context(e, t, JANK_NO_STACK, ev->pid >= 0 ? ev->pid : w->pid,
				 ev->pid >= 0 ? ev->pid_ns : 0, u, false)
		  : JANK_NO_STACK;
	if (k)
		stack = push_context(e, t, stack, -1, 0, k, true);
	/* Back in user space after its exit: its shadow stack, if any, tells again. */
	w->fn->ctx = ci->type == JANK_EVENT_SYSCALL_EXIT ? 0 : stack;
	if (w->fn->ctx)
		e->ctx_stacks = true;
	stack_now(e, w, ev->ts);
}
