/* SPDX-License-Identifier: MIT */
/*
 * Call stacks per thread (issue 24): shadow stacks from cyg-profile's
 * func_entry/func_exit, resynchronised on lost events, depth-capped; the
 * callstack_user/callstack_kernel contexts of kernel events; segments cut
 * where the stack changes, short ones merged into their callers; the
 * breakdown per innermost function; the same paths with GC on and off.
 *
 * Functions are addresses: RUN (run_task) calls PRICE (compute_price),
 * which calls DISC (apply_discounts). Without a namer, a frame's name is its
 * address in hex.
 *
 * The events are lttng-ust's: lttng_ust_cyg_profile:func_entry/func_exit
 * both carry addr and call_site; lttng_ust_cyg_profile_fast:func_entry
 * carries addr only, and its func_exit no field at all.
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
	T = 10,
	P = 20,
	RUN = 0x1000,
	PRICE = 0x2000,
	DISC = 0x3000,
	LOG = 0x4000,
};

#define ENTRY	   "lttng_ust_cyg_profile:func_entry"
#define EXIT	   "lttng_ust_cyg_profile:func_exit"
#define FAST_ENTRY "lttng_ust_cyg_profile_fast:func_entry"
#define FAST_EXIT  "lttng_ust_cyg_profile_fast:func_exit"

static void fn(struct scn *s, int64_t ts, int cpu, int tid, bool entry, uint64_t addr)
{
	scn_event_v(s, JANK_DOMAIN_UST, ts, cpu, tid, entry ? ENTRY : EXIT,
		    (const struct scn_field[]){ I("addr", (int64_t)addr),
						I("call_site", (int64_t)addr + 8) },
		    2);
}

/* The fast library's events: an entry's address, an exit without any. */
static void fast_entry(struct scn *s, int64_t ts, int cpu, int tid, uint64_t addr)
{
	scn_event_v(s, JANK_DOMAIN_UST, ts, cpu, tid, FAST_ENTRY,
		    (const struct scn_field[]){ I("addr", (int64_t)addr) }, 1);
}

static void fast_exit(struct scn *s, int64_t ts, int cpu, int tid)
{
	scn_event_v(s, JANK_DOMAIN_UST, ts, cpu, tid, FAST_EXIT, NULL, 0);
}

/* A path's segment i's stack as "0x1000>0x2000" (outermost first), "-" when none. */
static const char *stack_text(struct jank_path *p, size_t i, char *buf, size_t len)
{
	uint32_t n;
	const uint32_t *f;
	size_t off = 0;

	jank_path_name_frames(p, NULL, NULL);
	f = jank_path_stack_of(p, p->segs[i].stack, &n);
	snprintf(buf, len, "-");
	for (uint32_t k = 0; f && k < n; k++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", k ? ">" : "",
					jank_path_frame_of(p, f[k])->name);
	return buf;
}

#define assert_stack(p, i, want)                                                                   \
	do {                                                                                       \
		char b_[512];                                                                      \
		assert_string_equal(stack_text((p), (i), b_, sizeof(b_)), (want));                 \
	} while (0)

/* A running thread T: run_task → compute_price → apply_discounts, and back. */
static void nested_calls(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_breakdown b;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, 100, 0, T, true, RUN);
	fn(&s, 200, 0, T, true, PRICE);
	fn(&s, 300, 0, T, true, DISC);
	fn(&s, 3300, 0, T, false, DISC);
	fn(&s, 3500, 0, T, false, PRICE);
	fn(&s, 3600, 0, T, false, RUN);
	scn_path(&s, T, 0, 4000, &p);
	assert_path(&p, { T, "running", 0, 100 }, { T, "running", 100, 200 },
		    { T, "running", 200, 300 }, { T, "running", 300, 3300 },
		    { T, "running", 3300, 3500 }, { T, "running", 3500, 3600 },
		    { T, "running", 3600, 4000 });
	assert_stack(&p, 0, "-");
	assert_stack(&p, 1, "0x1000");
	assert_stack(&p, 2, "0x1000>0x2000");
	assert_stack(&p, 3, "0x1000>0x2000>0x3000");
	assert_stack(&p, 4, "0x1000>0x2000");
	assert_stack(&p, 6, "-");
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_int_equal(b.nfunctions, 3);
	assert_string_equal(jank_path_frame_of(&p, b.functions[0].frame)->name, "0x3000");
	assert_int_equal(b.functions[0].ns, 3000);
	assert_string_equal(jank_path_frame_of(&p, b.functions[1].frame)->name, "0x2000");
	assert_int_equal(b.functions[1].ns, 300);
	assert_string_equal(jank_path_frame_of(&p, b.functions[2].frame)->name, "0x1000");
	assert_int_equal(b.functions[2].ns, 200); /* run_task: 100..200 and 3500..3600 */
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Lost events: an exit whose frame is not the innermost pops to its frame
 * (the inner exits were lost); an exit with no frame (its entry was lost)
 * clears the stack; both are counted.
 */
static void lost_entries_and_exits(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_engine_stats st;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, 100, 0, T, true, RUN);
	fn(&s, 200, 0, T, true, PRICE);
	fn(&s, 300, 0, T, true, DISC);
	fn(&s, 400, 0, T, false, PRICE); /* apply_discounts' exit was lost */
	fn(&s, 500, 0, T, true, LOG);
	fn(&s, 600, 0, T, false, DISC); /* no such frame: its entry was lost; cleared */
	fn(&s, 700, 0, T, true, LOG);
	fn(&s, 800, 0, T, false, LOG);
	fn(&s, 900, 0, T, false, RUN); /* exit without entry on an empty stack: nothing to undo */
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.function_events, 9);
	assert_int_equal(st.function_resyncs, 2);
	scn_path(&s, T, 0, 1000, &p);
	assert_path(&p, { T, "running", 0, 100 }, { T, "running", 100, 200 },
		    { T, "running", 200, 300 }, { T, "running", 300, 400 },
		    { T, "running", 400, 500 }, { T, "running", 500, 600 },
		    { T, "running", 600, 700 }, { T, "running", 700, 800 },
		    { T, "running", 800, 1000 });
	assert_stack(&p, 3, "0x1000>0x2000>0x3000");
	assert_stack(&p, 4, "0x1000");
	assert_stack(&p, 5, "0x1000>0x4000");
	assert_stack(&p, 6, "-");
	assert_stack(&p, 7, "0x4000");
	assert_stack(&p, 8, "-");
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Recursion deeper than the cap: the frames past it are counted, not
 * interned, and the exits find the stack where the entries left it.
 */
static void deep_recursion(void **state)
{
	const int depth = JANK_STACK_DEPTH + 200;
	const int64_t D = 100000, E0 = D * (depth + 2), END = E0 + D * (depth + 2);
	struct scn s;
	struct jank_path p;
	struct jank_engine_stats st;
	uint32_t n;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, 10, 0, T, true, RUN);
	for (int i = 0; i < depth; i++)
		fn(&s, D * (i + 1), 0, T, true, PRICE);
	for (int i = 0; i < depth; i++)
		fn(&s, E0 + D * i, 0, T, false, PRICE);
	fn(&s, E0 + D * depth, 0, T, false, RUN);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.function_resyncs, 0);
	assert_int_equal(st.stacks, JANK_STACK_DEPTH); /* run_task, then price 127 times */
	scn_path(&s, T, 0, END, &p);
	/* Deepest: the cap, until the 201st exit. Then run_task alone, then nothing. */
	assert_stack(&p, p.n - 1, "-");
	assert_stack(&p, p.n - 2, "0x1000");
	assert_int_equal(p.segs[p.n - 2].begin, E0 + D * (depth - 1));
	for (size_t i = 0; i < p.n; i++) {
		jank_path_stack_of(&p, p.segs[i].stack, &n);
		if (n == JANK_STACK_DEPTH)
			break;
	}
	assert_int_equal(n, JANK_STACK_DEPTH);
	for (size_t i = 0; i < p.n; i++) {
		jank_path_stack_of(&p, p.segs[i].stack, &n);
		if (n != JANK_STACK_DEPTH)
			continue;
		assert_int_equal(p.segs[i].begin, D * (JANK_STACK_DEPTH - 1));
		assert_int_equal(p.segs[i].end, E0 + D * (depth - JANK_STACK_DEPTH + 1));
	}
	assert_int_equal(p.n, 2 * JANK_STACK_DEPTH + 1);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * The fast library: its exits say nothing, each pops the innermost frame of
 * its own thread. T (CPU 0) and P (CPU 1) call at once; an exit before any
 * entry has nothing to pop. Both return to no stack.
 */
static void fast_nested_calls(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_engine_stats st;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	scn_switch(&s, 0, 1, 0, 0, P);
	fast_exit(&s, 50, 0, T); /* its entry came before the trace: nothing to pop */
	fast_entry(&s, 100, 0, T, RUN);
	fast_entry(&s, 150, 1, P, LOG);
	fast_entry(&s, 200, 0, T, PRICE);
	fast_entry(&s, 250, 1, P, DISC);
	fast_entry(&s, 300, 0, T, DISC);
	fast_exit(&s, 350, 1, P);
	fast_exit(&s, 3300, 0, T);
	fast_exit(&s, 3400, 1, P);
	fast_exit(&s, 3500, 0, T);
	fast_exit(&s, 3600, 0, T);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.function_events, 11);
	assert_int_equal(st.function_resyncs, 0);
	scn_path(&s, T, 0, 4000, &p);
	assert_path(&p, { T, "running", 0, 100 }, { T, "running", 100, 200 },
		    { T, "running", 200, 300 }, { T, "running", 300, 3300 },
		    { T, "running", 3300, 3500 }, { T, "running", 3500, 3600 },
		    { T, "running", 3600, 4000 });
	assert_stack(&p, 0, "-");
	assert_stack(&p, 1, "0x1000");
	assert_stack(&p, 2, "0x1000>0x2000");
	assert_stack(&p, 3, "0x1000>0x2000>0x3000");
	assert_stack(&p, 4, "0x1000>0x2000");
	assert_stack(&p, 5, "0x1000");
	assert_stack(&p, 6, "-");
	jank_path_fini(&p);
	scn_path(&s, P, 0, 4000, &p);
	assert_path(&p, { P, "running", 0, 150 }, { P, "running", 150, 250 },
		    { P, "running", 250, 350 }, { P, "running", 350, 3400 },
		    { P, "running", 3400, 4000 });
	assert_stack(&p, 0, "-");
	assert_stack(&p, 1, "0x4000");
	assert_stack(&p, 2, "0x4000>0x3000");
	assert_stack(&p, 3, "0x4000");
	assert_stack(&p, 4, "-");
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Fast events, deep then shallow: recursion past the depth cap, whose exits
 * first undo the frames counted past it, then pop the interned ones, down
 * to no stack; then short calls from run_task, labelled each with its own
 * stack, and no stack again at the end.
 */
static void fast_deep_then_shallow(void **state)
{
	const int depth = JANK_STACK_DEPTH + 200;
	const int64_t D = 100000, E0 = D * (depth + 2), S0 = E0 + D * (depth + 1), END = S0 + D * 6;
	struct scn s;
	struct jank_path p;
	struct jank_engine_stats st;
	size_t last;
	uint32_t n;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	fast_entry(&s, 10, 0, T, RUN);
	for (int i = 0; i < depth; i++)
		fast_entry(&s, D * (i + 1), 0, T, PRICE);
	for (int i = 0; i <= depth; i++)
		fast_exit(&s, E0 + D * i, 0, T);
	fast_entry(&s, S0, 0, T, RUN);
	fast_entry(&s, S0 + D, 0, T, LOG);
	fast_exit(&s, S0 + 2 * D, 0, T);
	fast_entry(&s, S0 + 3 * D, 0, T, DISC);
	fast_exit(&s, S0 + 4 * D, 0, T);
	fast_exit(&s, S0 + 5 * D, 0, T);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.function_events, 2 * (depth + 1) + 6);
	assert_int_equal(st.function_resyncs, 0);
	assert_int_equal(st.stacks, JANK_STACK_DEPTH + 2); /* and 0x1000>0x4000, 0x1000>0x3000 */
	scn_path(&s, T, 0, END, &p);
	assert_int_equal(p.n, 2 * JANK_STACK_DEPTH + 1 + 6);
	/* The cap, from its entry until the exits undid the frames past it. */
	for (size_t i = 0; i < p.n; i++) {
		jank_path_stack_of(&p, p.segs[i].stack, &n);
		if (n != JANK_STACK_DEPTH)
			continue;
		assert_int_equal(p.segs[i].begin, D * (JANK_STACK_DEPTH - 1));
		assert_int_equal(p.segs[i].end, E0 + D * (depth - JANK_STACK_DEPTH + 1));
	}
	last = p.n - 1;
	assert_stack(&p, last - 7, "0x1000");
	assert_int_equal(p.segs[last - 7].begin, E0 + D * (depth - 1));
	assert_stack(&p, last - 6, "-");
	assert_int_equal(p.segs[last - 6].begin, E0 + D * depth);
	assert_stack(&p, last - 5, "0x1000");
	assert_int_equal(p.segs[last - 5].begin, S0);
	assert_stack(&p, last - 4, "0x1000>0x4000");
	assert_stack(&p, last - 3, "0x1000");
	assert_stack(&p, last - 2, "0x1000>0x3000");
	assert_stack(&p, last - 1, "0x1000");
	assert_stack(&p, last, "-"); /* from its last exit to the end */
	assert_int_equal(p.segs[last].begin, S0 + 5 * D);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * The table of interned stacks holds at most an eighth of the memory budget
 * (about 48 bytes a stack). Past that, a push that needs a new stack is
 * refused and counted (stacks_full): the thread's stack stays its caller's
 * until that function returns (its frames are counted, like those past the
 * depth cap), so its time goes to the caller; stacks already interned still
 * serve. U, of process 2, takes half of the table (its share: all one owner
 * may hold); T, of process 1, calls more distinct functions from run_task
 * than the other half holds.
 */
static void stacks_table_full(void **state)
{
	const uint64_t limit = 4u << 20;
	const int extra = 100, U = 12;
	const uint64_t F = 0x100000, NEW = 0x900000, US = 1000;
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	const struct jank_stacks *t;
	struct jank_breakdown b;
	struct jank_path p;
	struct scn s;
	int64_t ts = 1000, t1;
	uint32_t half;
	int n;

	(void)state;
	jank_engine_config_defaults(&cfg);
	cfg.memory_limit = limit;
	scn_init(&s, &scn_layout_current, &cfg);
	t = jank_graph_stacks_const(jank_engine_graph(s.e));
	assert_int_equal(t->max_nodes, limit / 8 / 48);
	half = t->max_nodes / 2;
	s.pid = 2;
	scn_switch(&s, 0, 1, 0, 0, U);
	fn(&s, ts, 1, U, true, RUN);
	for (uint32_t i = 0; i < half; i++) { /* run_task>NEW+16i: the last one past the share */
		fn(&s, ts + 10 * i + 1, 1, U, true, NEW + 16 * (uint64_t)i);
		fn(&s, ts + 10 * i + 2, 1, U, false, NEW + 16 * (uint64_t)i);
	}
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.stacks, half);
	assert_int_equal(st.stacks_refused_share, 1);
	assert_int_equal(st.stacks_full, 0);

	s.pid = 1;
	ts += 10 * half;
	n = (int)(t->max_nodes - half) - 1 + extra; /* run_task, then run_task>F+16i */
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, ts, 0, T, true, RUN);
	for (int i = 0; i < n; i++, ts += US) {
		fn(&s, ts + 100, 0, T, true, F + 16 * (uint64_t)i);
		fn(&s, ts + 400, 0, T, false, F + 16 * (uint64_t)i);
	}
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.stacks, t->max_nodes);
	assert_int_equal(st.stacks_full, extra);
	assert_int_equal(st.function_resyncs, 0);
	print_message("# %u stacks (budget %llu KiB): %llu KiB\n", t->max_nodes,
		      (unsigned long long)limit >> 10,
		      (unsigned long long)jank_stacks_bytes(t) >> 10);
	/* An eighth: 16,384 nodes of 24 bytes, 32,768 index slots of 4; and the owners' table. */
	assert_true(jank_stacks_bytes(t) <= limit / 8 + 1024);

	/* A new function, and one called inside it: run_task's. Then an interned one. */
	t1 = ts + 1000 * US;
	fn(&s, t1, 0, T, true, NEW);
	fn(&s, t1 + 100 * US, 0, T, true, F);
	fn(&s, t1 + 200 * US, 0, T, false, F);
	fn(&s, t1 + 300 * US, 0, T, false, NEW);
	fn(&s, t1 + 400 * US, 0, T, true, F);
	fn(&s, t1 + 500 * US, 0, T, false, F);
	fn(&s, t1 + 600 * US, 0, T, false, RUN);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.stacks, t->max_nodes);
	assert_int_equal(st.stacks_full, extra + 1); /* NEW; F inside it is only counted */
	assert_int_equal(st.function_resyncs, 0);
	scn_path(&s, T, t1 - 100 * US, t1 + 700 * US, &p);
	assert_path(&p, { T, "running", t1 - 100 * US, t1 + 400 * US },
		    { T, "running", t1 + 400 * US, t1 + 500 * US },
		    { T, "running", t1 + 500 * US, t1 + 600 * US },
		    { T, "running", t1 + 600 * US, t1 + 700 * US });
	assert_stack(&p, 0, "0x1000");
	assert_stack(&p, 1, "0x1000>0x100000");
	assert_stack(&p, 2, "0x1000");
	assert_stack(&p, 3, "-");
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_int_equal(b.nfunctions, 2);
	assert_string_equal(jank_path_frame_of(&p, b.functions[0].frame)->name, "0x1000");
	assert_int_equal(b.functions[0].ns, 600 * US);
	assert_string_equal(jank_path_frame_of(&p, b.functions[1].frame)->name, "0x100000");
	assert_int_equal(b.functions[1].ns, 100 * US);
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * A thread that exits inside a function has no stack after its exit, and a
 * new thread with its tid starts with none.
 */
static void exit_inside_function(void **state)
{
	struct scn s;
	struct jank_path p;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, 100, 0, T, true, RUN);
	fn(&s, 200, 0, T, true, PRICE);
	scn_kernel(&s, 300, 0, "sched_process_exit", S("comm", "t10"), I("tid", T));
	scn_switch(&s, 400, 0, T, 64 /* TASK_DEAD */, 0);
	scn_kernel(&s, 500, 0, "sched_process_free", S("comm", "t10"), I("tid", T));
	scn_switch(&s, 600, 0, 0, 0, T); /* the tid again: another thread */
	fn(&s, 700, 0, T, true, LOG);
	fn(&s, 800, 0, T, false, LOG);
	fn(&s, 900, 0, T, false, PRICE); /* nothing to pop: cleared, no drift */
	scn_path(&s, T, 600, 1000, &p);
	assert_path(&p, { T, "running", 600, 700 }, { T, "running", 700, 800 },
		    { T, "running", 800, 1000 });
	assert_stack(&p, 0, "-");
	assert_stack(&p, 1, "0x4000");
	assert_stack(&p, 2, "-");
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Kernel events' callstack contexts (innermost first): a system call entry
 * names the code that blocked, the kernel's frames on top of the user ones,
 * until the call exits; then the shadow stack tells again.
 */
static void callstack_contexts(void **state)
{
	static const uint64_t user[] = { 0x7000, PRICE, RUN }; /* read() in compute_price */
	static const uint64_t kern[] = { 0xffffffff81000100ull, 0xffffffff81000200ull };
	struct scn s;
	struct jank_path p;
	struct jank_breakdown b;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, 50, 0, T, true, LOG);
	scn_event_v(&s, JANK_DOMAIN_KERNEL, 100, 0, T, "syscall_entry_read",
		    (const struct scn_field[]){ A("callstack_user", user, 3),
						A("callstack_kernel", kern, 2) },
		    2);
	scn_switch(&s, 200, 0, T, 1, 0);
	scn_wake(&s, 5000, 1, T);
	scn_switch(&s, 5100, 0, 0, 0, T);
	scn_event_v(&s, JANK_DOMAIN_KERNEL, 5200, 0, T, "syscall_exit_read",
		    (const struct scn_field[]){ I("ret", 0) }, 1);
	scn_path(&s, T, 0, 6000, &p);
	assert_path(&p, { T, "running", 0, 50 }, { T, "running", 50, 100 },
		    { T, "running", 100, 200 }, { T, "blocked", 200, 5000 },
		    { T, "preempted", 5000, 5100 }, { T, "running", 5100, 5200 },
		    { T, "running", 5200, 6000 });
	assert_stack(&p, 1, "0x4000");
	assert_stack(&p, 3, "0x1000>0x2000>0x7000>0xffffffff81000200>0xffffffff81000100");
	assert_stack(&p, 6, "0x4000");
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_string_equal(jank_path_frame_of(&p, b.functions[0].frame)->name,
			    "0xffffffff81000100");
	assert_int_equal(b.functions[0].ns, 5100);
	assert_true(jank_path_frame_of(&p, b.functions[0].frame)->kernel);
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * Many short calls (shorter than the path's grain) in a row make one
 * segment in their common caller: compute_price, calling log 1000 times.
 */
static void short_calls_merge(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_breakdown b;

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	s.pid = 1;
	scn_switch(&s, 0, 0, 0, 0, T);
	fn(&s, 0, 0, T, true, RUN);
	fn(&s, 0, 0, T, true, PRICE);
	for (int i = 0; i < 1000; i++) {
		fn(&s, 1000 + i * 100, 0, T, true, LOG);
		fn(&s, 1000 + i * 100 + 50, 0, T, false, LOG);
	}
	fn(&s, 200000, 0, T, true, DISC);
	fn(&s, 1000000, 0, T, false, DISC);
	scn_path(&s, T, 0, 1000000, &p);
	/*
	 * Grain: 1 ms / 1024, 976 ns. The 2000 pieces of 50 ns make segments
	 * of about a grain each, in compute_price (what they share).
	 */
	assert_true(p.n < 2000 / 15);
	assert_stack(&p, p.n - 1, "0x1000>0x2000>0x3000");
	assert_int_equal(p.segs[p.n - 1].begin, 200000);
	for (size_t i = 0; i + 1 < p.n; i++)
		assert_stack(&p, i, "0x1000>0x2000");
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_int_equal(b.nfunctions, 2);
	assert_string_equal(jank_path_frame_of(&p, b.functions[0].frame)->name, "0x3000");
	assert_int_equal(b.functions[0].ns, 800000);
	assert_string_equal(jank_path_frame_of(&p, b.functions[1].frame)->name, "0x2000");
	assert_int_equal(b.functions[1].ns, 200000);
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Verdicts as text: each segment with its stack. */
struct transcript {
	char buf[1 << 16];
	size_t len;
	unsigned reports;
};

static void record(const struct jank_verdict *r, void *data)
{
	struct transcript *t = data;

	t->reports++;
	t->len += (size_t)snprintf(t->buf + t->len, sizeof(t->buf) - t->len,
				   "%s %s:", r->rule->name, r->key);
	for (size_t i = 0; i < r->path->n && t->len < sizeof(t->buf) - 600; i++) {
		const struct jank_segment *s = &r->path->segs[i];
		char st[512];

		t->len += (size_t)snprintf(
			t->buf + t->len, sizeof(t->buf) - t->len, " %d/%s/%lld/%lld/%s", s->tid,
			jank_state_name(s->state), (long long)s->begin, (long long)s->end,
			stack_text((struct jank_path *)r->path, i, st, sizeof(st)));
	}
	for (size_t i = 0; i < r->breakdown->nfunctions && t->len < sizeof(t->buf) - 100; i++)
		t->len += (size_t)snprintf(
			t->buf + t->len, sizeof(t->buf) - t->len, " fn %s=%lld",
			jank_path_frame_of(r->path, r->breakdown->functions[i].frame)->name,
			(long long)r->breakdown->functions[i].ns);
	for (size_t i = 0; r->suspects && i < r->suspects->n && t->len < sizeof(t->buf) - 200;
	     i++) {
		const struct jank_suspect *su = &r->suspects->items[i];

		t->len += (size_t)snprintf(
			t->buf + t->len, sizeof(t->buf) - t->len, " suspect %s/%s/%lld/%.3f/%.3f",
			jank_comp_kind_name(su->comp.key.kind), su->function, (long long)su->delta,
			su->presence_slow, su->presence_normal);
	}
	if (t->len < sizeof(t->buf) - 1)
		t->buf[t->len++] = '\n';
	t->buf[t->len < sizeof(t->buf) ? t->len : sizeof(t->buf) - 1] = '\0';
}

static void add_rule(struct scn *s, const char *name, const char *begin, const char *end,
		     const char *keys)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = (char *)name;
	r.begin_event = (char *)begin;
	r.end_event = (char *)end;
	assert_int_equal(jank_rule_set_keys(&r, keys), 0);
	assert_int_equal(jank_threshold_parse("1ms", &r.threshold), 0);
	assert_true(jank_engine_add_rule(s->e, &r) >= 0);
	for (unsigned i = 0; i < r.nkeys; i++)
		free(r.keys[i]);
}

/*
 * A request on R handed to pool thread P (flow), which spends 20 ms in
 * apply_discounts; meanwhile other threads call functions and come and go,
 * so that GC has stacks to free. Before it, 12 normal requests run_task →
 * compute_price on R: the baseline. The verdicts, suspects included, are
 * the same with GC on/off.
 */
static void run_functions(const struct jank_engine_config *cfg, struct transcript *t)
{
	const int64_t B = 1000000000, MS = 1000000;
	struct scn s;
	struct jank_flow_rule f;

	scn_init(&s, &scn_layout_current, cfg);
	s.pid = 1;
	add_rule(&s, "request", "app:req_begin", "app:req_end", "id");
	jank_flow_rule_init(&f);
	f.name = (char *)"queue";
	f.from_event = (char *)"app:post";
	f.to_event = (char *)"app:run";
	assert_int_equal(jank_flow_rule_set_keys(&f, "task"), 0);
	assert_true(jank_engine_add_flow(s.e, &f) >= 0);
	free(f.keys[0]);
	jank_engine_set_verdict_cb(s.e, record, t);
	scn_switch(&s, B - 41 * MS, 0, 0, 0, 10);
	for (int k = 0; k < 12; k++) {
		int64_t at = B - 40 * MS + k * 2 * MS;

		scn_ust(&s, at, 0, 10, "app:req_begin", I("id", 100 + k));
		fn(&s, at + 10, 0, 10, true, RUN);
		fn(&s, at + 20, 0, 10, true, PRICE);
		fn(&s, at + 120, 0, 10, false, PRICE);
		fn(&s, at + 130, 0, 10, false, RUN);
		scn_ust(&s, at + 200, 0, 10, "app:req_end", I("id", 100 + k));
	}
	scn_switch(&s, B - 10 * MS, 0, 10, 1, 0);
	scn_switch(&s, B, 0, 0, 0, 10);
	scn_switch(&s, B, 1, 0, 0, P);
	scn_ust(&s, B + 100, 0, 10, "app:req_begin", I("id", 1));
	fn(&s, B + 150, 0, 10, true, RUN);
	scn_ust(&s, B + 200, 0, 10, "app:post", I("task", 1));
	scn_switch(&s, B + 300, 0, 10, 1, 0);
	for (int i = 0; i < 300; i++) {
		int64_t at = B + (i + 1) * MS / 10;

		scn_switch(&s, at, 2, 0, 0, 100 + i);
		fn(&s, at + 5, 2, 100 + i, true, LOG + (uint64_t)i * 16);
		fn(&s, at + 20, 2, 100 + i, false, LOG + (uint64_t)i * 16);
		scn_switch(&s, at + 50, 2, 100 + i, 16, 0);
		jank_engine_tick(s.e, at + 60);
	}
	scn_ust(&s, B + 10 * MS, 1, P, "app:run", I("task", 1));
	fn(&s, B + 10 * MS, 1, P, true, PRICE);
	fn(&s, B + 10 * MS + 100, 1, P, true, DISC);
	fn(&s, B + 30 * MS, 1, P, false, DISC);
	fn(&s, B + 30 * MS + 10, 1, P, false, PRICE);
	scn_wake(&s, B + 30 * MS + 20, 1, 10);
	scn_switch(&s, B + 30 * MS + 50, 0, 0, 0, 10);
	fn(&s, B + 30 * MS + 60, 0, 10, false, RUN);
	scn_ust(&s, B + 30 * MS + 100, 0, 10, "app:req_end", I("id", 1));
	jank_engine_finish(s.e);
	scn_fini(&s);
}

static void gc_twins(void **state)
{
	struct jank_engine_config on, off;
	static struct transcript a, b;
	struct jank_engine_config *cfgs[] = { &on, &off };

	(void)state;
	(void)cfgs;
	jank_engine_config_defaults(&on);
	on.retention_ns = 1000000; /* 1 ms: the request lasts 30 */
	off = on;
	off.gc = false;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	run_functions(&on, &a);
	run_functions(&off, &b);
	assert_int_equal(a.reports, 1);
	assert_string_equal(a.buf, b.buf);
	/* The pool's 19.9 ms in apply_discounts, reached through the flow, comes first. */
	assert_non_null(strstr(a.buf, " 20/running/1010000100/1030000000/0x2000>0x3000"));
	assert_non_null(strstr(a.buf, " fn 0x3000=19999900 "));
	/* The top suspect: apply_discounts, on no normal path, on the one slow path. */
	assert_non_null(strstr(a.buf, " suspect function/0x3000/19999900/1.000/0.000"));
	print_message("# %.300s\n", a.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested_calls),		  cmocka_unit_test(lost_entries_and_exits),
		cmocka_unit_test(deep_recursion),	  cmocka_unit_test(fast_nested_calls),
		cmocka_unit_test(fast_deep_then_shallow), cmocka_unit_test(stacks_table_full),
		cmocka_unit_test(exit_inside_function),	  cmocka_unit_test(callstack_contexts),
		cmocka_unit_test(short_calls_merge),	  cmocka_unit_test(gc_twins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
