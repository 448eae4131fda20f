/* SPDX-License-Identifier: MIT */
/*
 * fuzz-engine: the engine fed arbitrary event sequences, through a compact
 * binary encoding of what the input layer hands it (classes resolved once,
 * fields in the order the engine asked for them, time never going back).
 *
 * Input: a 4-byte header, then records until the data ends.
 *   h0  bit 0: twin run (below); bit 1: report_all; bits 2-3: the trace's
 *       lttng-modules version (2.13, 2.5, 2.7, none); bits 4-5: its kernel
 *       release (none, 4.4, 5.15, junk); bit 6: GC off (not in a twin run)
 *   h1  retention (bits 0-2), memory-limit (bits 3-5), action timeout
 *       (bits 6-7), from the tables below
 *   h2  the rules, one bit each of rule_defs[]
 *   h3  overdue grace (bits 0-1), the flows (bits 2-3, one bit each of flow_defs[])
 * Records, by their first byte `op`:
 *   OP_DISCARDED cpu count   events lost (jank_engine_discarded)
 *   OP_TICK delta            a timer tick
 *   OP_LIMITS h1             new limits (config reload)
 *   OP_RULES h2              new rules (config reload; classes resolved again)
 *   OP_LAYOUT h0             a new trace environment
 *   any other                an event of classes[op % NCLASSES], then
 *     ctx    bits 0-1: cpu; bit 2: cpu unknown; bit 7: a tid context,
 *            tids[bits 3-6] (pid: the tid | 1, as if threads came in pairs)
 *     delta  ts += (delta & 31) << 4 * (delta >> 5): 0 to 8 s
 *     one byte per field the engine asked for: bits 6-7 the type (0, 1: the
 *     field's own; 2: unsigned; 3: absent, or the wrong type when bit 5 is
 *     set), bits 0-5 the value (ints[] or strs[]; for the call stack
 *     contexts of kernel classes, stacks[] by bits 0-2)
 *
 * Checked on every run: each verdict (fuzz-check.c), the memory accounting
 * after every call (check_memory), jankctl's critical-path queries at the
 * end, and in a twin run, that GC changes no verdict: a second engine
 * without GC gets the same calls, and until the memory budget first forces
 * the horizon both must report the same actions with the same paths
 * (lib/engine.c: "the path of any action that ends inside the retention
 * window is the same with GC on or off"), flows and spans included. Twin runs have no action
 * timeout and no overdue reports, which GC runs check at times the twins do not share.
 *
 * JANK_FUZZ_TRACE=1 prints the decoded calls on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "hashmap.h"
#include "fuzz-check.h"

enum {
	OP_DISCARDED = 0xf8,
	OP_TICK,
	OP_LIMITS,
	OP_RULES,
	OP_LAYOUT,
};

static const struct {
	enum jank_domain domain;
	const char *name;
} classes[] = {
	{ JANK_DOMAIN_KERNEL, "sched_switch" },
	{ JANK_DOMAIN_KERNEL, "sched_wakeup" },
	{ JANK_DOMAIN_KERNEL, "sched_waking" },
	{ JANK_DOMAIN_KERNEL, "sched_wakeup_new" },
	{ JANK_DOMAIN_KERNEL, "sched_process_fork" },
	{ JANK_DOMAIN_KERNEL, "sched_process_exec" },
	{ JANK_DOMAIN_KERNEL, "sched_process_exit" },
	{ JANK_DOMAIN_KERNEL, "sched_process_free" },
	{ JANK_DOMAIN_KERNEL, "lttng_statedump_process_state" },
	{ JANK_DOMAIN_KERNEL, "irq_handler_entry" },
	{ JANK_DOMAIN_KERNEL, "irq_handler_exit" },
	{ JANK_DOMAIN_KERNEL, "irq_softirq_entry" },
	{ JANK_DOMAIN_KERNEL, "irq_softirq_exit" },
	{ JANK_DOMAIN_KERNEL, "irq_softirq_raise" },
	{ JANK_DOMAIN_KERNEL, "softirq_entry" },
	{ JANK_DOMAIN_KERNEL, "softirq_exit" },
	{ JANK_DOMAIN_KERNEL, "softirq_raise" },
	{ JANK_DOMAIN_KERNEL, "timer_hrtimer_expire_entry" },
	{ JANK_DOMAIN_KERNEL, "timer_hrtimer_expire_exit" },
	{ JANK_DOMAIN_KERNEL, "hrtimer_expire_entry" },
	{ JANK_DOMAIN_KERNEL, "hrtimer_expire_exit" },
	{ JANK_DOMAIN_KERNEL, "x86_irq_vectors_reschedule_entry" },
	{ JANK_DOMAIN_KERNEL, "x86_irq_vectors_reschedule_exit" },
	{ JANK_DOMAIN_KERNEL, "syscall_entry_read" },
	{ JANK_DOMAIN_KERNEL, "syscall_exit_read" },
	{ JANK_DOMAIN_KERNEL, "syscall_entry_futex" },
	{ JANK_DOMAIN_KERNEL, "syscall_exit_futex" },
	{ JANK_DOMAIN_KERNEL, "sys_read" },
	{ JANK_DOMAIN_KERNEL, "exit_syscall" },
	{ JANK_DOMAIN_KERNEL, "block_rq_issue" },
	{ JANK_DOMAIN_UST, "lttng_ust_pthread:pthread_mutex_lock_req" },
	{ JANK_DOMAIN_UST, "lttng_ust_pthread:pthread_mutex_lock_acq" },
	{ JANK_DOMAIN_UST, "lttng_ust_pthread:pthread_mutex_unlock" },
	{ JANK_DOMAIN_UST, "lttng_ust_pthread:pthread_mutex_trylock" },
	{ JANK_DOMAIN_UST, "jank:action_begin" },
	{ JANK_DOMAIN_UST, "jank:action_end" },
	{ JANK_DOMAIN_UST, "app:begin" },
	{ JANK_DOMAIN_UST, "app:end" },
	{ JANK_DOMAIN_UST, "app:post" },
	{ JANK_DOMAIN_UST, "app:run" },
	{ JANK_DOMAIN_UST, "lttng_ust_cyg_profile:func_entry" },
	{ JANK_DOMAIN_UST, "lttng_ust_cyg_profile:func_exit" },
	{ JANK_DOMAIN_UST, "lttng_ust_cyg_profile_fast:func_entry" },
	{ JANK_DOMAIN_UST, "lttng_ust_cyg_profile_fast:func_exit" },
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

#define MS 1000000LL
#define S  1000000000LL

/* Rules over the classes above: keys, matches, fixed and adaptive thresholds. */
static const struct {
	const char *name, *begin, *end, *keys[2], *match_field;
	struct jank_value match;
	struct jank_threshold t;
} rule_defs[8] = {
	{ "frame",
	  "jank:action_begin",
	  "jank:action_end",
	  { "name", "id" },
	  "name",
	  { .type = JANK_VALUE_STR, .s = "frame" },
	  { .ns = 16 * MS } },
	{ "read", "syscall_entry_read", "syscall_exit_read", { NULL }, NULL, { 0 }, { .ns = MS } },
	{ "futex",
	  "syscall_entry_futex",
	  "syscall_exit_futex",
	  { NULL },
	  NULL,
	  { 0 },
	  { JANK_THRESHOLD_ADAPTIVE, 0, 99, 1.5, 10 } },
	{ "any", "jank:action_begin", "jank:action_end", { "id" }, NULL, { 0 }, { .ns = 1 } },
	{ "wake", "sched_waking", "sched_switch", { NULL }, NULL, { 0 }, { .ns = 10000 } },
	{ "same",
	  "app:begin",
	  "app:begin",
	  { "id" },
	  NULL,
	  { 0 },
	  { JANK_THRESHOLD_ADAPTIVE, 0, 50, 1, 1 } },
	{ "lock",
	  "lttng_ust_pthread:pthread_mutex_lock_req",
	  "lttng_ust_pthread:pthread_mutex_lock_acq",
	  { "mutex" },
	  NULL,
	  { 0 },
	  { .ns = 1000 } },
	{ "app",
	  "app:begin",
	  "app:end",
	  { "tid", "id" },
	  "id",
	  { .type = JANK_VALUE_INT, .i = 3 },
	  { JANK_THRESHOLD_ADAPTIVE, MS, 90, 2, 3 } },
};

/* Flows: a queue between threads, and one from an action's begin, keyed by its id. */
static const struct {
	const char *name, *from, *to, *keys[2];
} flow_defs[2] = {
	{ "queue", "app:post", "app:run", { "id", NULL } },
	{ "handoff", "jank:action_begin", "app:run", { "id", "name" } },
};

static const int64_t retentions[8] = { 1, 100, 10000, MS, 20 * MS, 100 * MS, S, 2 * S };
static const uint64_t limits[8] = { 1, 4096, 16384, 65536, 262144, 1 << 20, 16 << 20, 256 << 20 };
static const int64_t timeouts[4] = { 0, MS, 100 * MS, 60 * S };
static const int64_t graces[4] = { 0, 1000, MS, S };
static const long tracer_minor[4] = { 13, 5, 7, -1 };
static const char *const kernels[4] = { NULL, "4.4.0-1-amd64", "5.15.0", "x.y" };

/* Thread ids: small ones collide with the field values below, on purpose. */
static const int32_t tids[16] = { 0, 1,	  2,   3,    4,	   5,	  6,	     7,
				  8, 100, 101, 4312, 4377, 65535, INT32_MAX, -5 };

static const int64_t ints[64] = {
	0,
	1,
	2,
	3,
	4,
	5,
	6,
	7,
	8,
	9,
	10,
	11,
	12,
	13,
	14,
	15,
	16, /* prev_state bits, old and new kernels */
	32,
	64,
	128,
	256,
	512,
	1024,
	2048,
	4096,
	0x402,
	0x81,
	100, /* tids */
	101,
	4312,
	4377,
	65535,
	-1, /* out of range */
	-2,
	-100,
	INT32_MIN,
	(int64_t)INT32_MIN - 1,
	INT64_MIN,
	INT64_MIN + 1,
	INT32_MAX,
	(int64_t)INT32_MAX + 1,
	0xffffffffLL,
	0x100000005LL,
	INT64_MAX,
	INT64_MAX - 1,
	0x1000, /* mutexes, pointers */
	0x2000,
	0x7fff0000,
	(int64_t)0xffff880000001000ULL,
	255, /* irq, softirq vectors */
	256,
	4095,
	1000,
	MS,
	S,
	17,
	18,
	19,
	20,
	21,
	30,
	40,
	50,
	60,
};

static const char *const strs[16] = {
	"",
	"frame",
	"swapper/0",
	"worker",
	"db",
	"backup",
	"t1",
	"a",
	"0123456789abcdefXYZ", /* longer than a comm */
	"/usr/bin/cat",
	"name=frame,id=3",
	"tid",
	"?",
	"frame\\",
	"\xc3\xa9",
	"jank",
};

static bool string_field(const char *name)
{
	static const char *const names[] = { "comm",	    "prev_comm", "next_comm", "child_comm",
					     "parent_comm", "name",	 "filename",  "procname" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

struct input {
	const uint8_t *p;
	size_t n;
};

/* The next byte; 0 once the input is used up. */
static uint8_t next(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* One record of an engine's verdicts, for comparing the twins. */
struct record {
	int kind;
	uint32_t rule;
	int64_t begin, end, threshold;
	int32_t tid, pid;
	bool over, incomplete, truncated;
	size_t nsegs;
	char key[JANK_KEY_LEN];
	char comm[JANK_COMM_LEN];
};

/* A segment as recorded: the segment, and its flow's and span's names as text. */
struct seg_record {
	struct jank_segment s;
	char labels[JANK_LABEL_NAME_LEN * 2 + JANK_LABEL_KEY_LEN + 3];
};

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void buf_put(struct buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		FUZZ_ASSERT(b->p);
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

/* One engine under test and what the harness knows of it. */
struct side {
	struct jank_engine *e;
	bool gc;
	uint64_t generation;
	bool resolved[NCLASSES];
	uint32_t ids[NCLASSES];
	const char *const *fields[NCLASSES];
	unsigned nfields[NCLASSES];
	struct buf verdicts;
	uint64_t nverdicts;
	/* The memory budget, as the engine's collect() keeps it (check_memory). */
	uint64_t limit;
	uint64_t check_at;
	uint64_t forced;
	uint64_t peak;
	unsigned over_calls;
	bool unbased; /* events discarded or limits changed since the last call within check_at */
};

static bool trace_on;

static void on_verdict(const struct jank_verdict *r, void *data)
{
	struct side *s = data;
	struct record rec;

	fuzz_check_verdict(s->e, r);
	memset(&rec, 0, sizeof(rec));
	rec.kind = r->kind;
	rec.rule = r->rule_index;
	rec.begin = r->begin;
	rec.end = r->end;
	rec.threshold = r->threshold;
	rec.tid = r->tid;
	rec.pid = r->pid;
	rec.over = r->over_threshold;
	rec.incomplete = r->incomplete;
	rec.truncated = r->path->truncated;
	rec.nsegs = r->path->n;
	snprintf(rec.key, sizeof(rec.key), "%s", r->key);
	snprintf(rec.comm, sizeof(rec.comm), "%s", r->comm ? r->comm : "");
	buf_put(&s->verdicts, &rec, sizeof(rec));
	for (size_t i = 0; i < r->path->n; i++) {
		const struct jank_segment *g = &r->path->segs[i];
		const struct jank_label *flow = jank_path_label_of(r->path, g->flow);
		const struct jank_label *span = jank_path_label_of(r->path, g->span);
		struct seg_record seg;

		/* What a user sees of it: no padding, nothing after the strings' NULs. */
		memset(&seg, 0, sizeof(seg));
		seg.s.tid = g->tid;
		seg.s.state = g->state;
		seg.s.begin = g->begin;
		seg.s.end = g->end;
		seg.s.lock = g->lock;
		snprintf(seg.s.comm, sizeof(seg.s.comm), "%s", g->comm);
		FUZZ_ASSERT(!g->flow || flow);
		FUZZ_ASSERT(!g->span || span);
		snprintf(seg.labels, sizeof(seg.labels), "%s|%s|%s", flow ? flow->name : "",
			 span ? span->name : "", span ? jank_span_key(span) : "");
		buf_put(&s->verdicts, &seg, sizeof(seg));
	}
	s->nverdicts++;
	if (trace_on)
		fprintf(stderr,
			"  verdict %s rule %" PRIu32 " key %s [%" PRId64 ", %" PRId64
			"] tid %" PRId32 " %zu segments%s\n",
			jank_verdict_kind_name(r->kind), r->rule_index, r->key, r->begin, r->end,
			r->tid, r->path->n, r->path->truncated ? " truncated" : "");
}

/*
 * What 3 events can add besides doubling what exists: each makes at most 3
 * threads (a switch or a fork, and the thread a tid context names) whose
 * rings and lock notes are small, opens an action per rule role (8 at most),
 * adds a lock record, and may make the first table of each of the 4 maps or
 * double a small one (up to 64 slots).
 */
#define THREAD_GROWTH                                                                              \
	(sizeof(struct jank_thread) + 16 * sizeof(struct jank_vertex) +                            \
	 8 * sizeof(struct jank_lock_note))
/*
 * And the table of call stacks: an event's callstack contexts intern up to
 * 2 * JANK_STACK_DEPTH stacks, whose nodes (24 bytes) and index slots (up to
 * four each) may double; and a few owners.
 */
#define STACK_GROWTH                                                                               \
	(2 * 3 * 2 * JANK_STACK_DEPTH * (sizeof(struct jank_stack_node) + 2 * sizeof(uint32_t)) +  \
	 64 * sizeof(struct jank_stack_owner))
#define GROWTH_SLACK                                                                               \
	(3 * (3 * THREAD_GROWTH + 8 * sizeof(struct jank_action) + 64) +                           \
	 4 * 64 * sizeof(struct jank_hashmap_slot) + STACK_GROWTH)

struct sum {
	uint64_t bytes;
	uint64_t vertices;
};

static void sum_thread(const struct jank_thread *w, void *data)
{
	struct sum *s = data;

	FUZZ_ASSERT(w->base <= w->next && w->next - w->base <= w->cap);
	FUZZ_ASSERT(w->nnotes <= w->notes_cap);
	s->bytes += sizeof(*w) + (uint64_t)w->cap * sizeof(struct jank_vertex) +
		    (uint64_t)w->notes_cap * sizeof(struct jank_lock_note);
	s->vertices += w->next - w->base;
}

/*
 * The memory budget (lib/engine.c collect()). The engine does not promise
 * memory_bytes <= memory-limit + a constant: when what a sweep cannot free
 * (the live threads, threads seen at the current instant, open actions up to
 * half the budget) is over the limit, it sweeps again only once memory has
 * grown by limit/32 more (check_at). What it does promise, and what this
 * checks, with check_at mirrored from the outside (never below the engine's:
 * a sweep is seen in budget_forced, after which check_at is memory + limit/32,
 * or the limit when memory fits):
 *  - memory is checked every 4 events, and acted on at once: of any 4
 *    calls (events, ticks) in a row, one ends with memory <= check_at;
 *  - in between, memory grows by what 3 events add: at most a doubling of
 *    the rings and maps that exist, lock notes (up to one per retained
 *    vertex, and an event can add many), and GROWTH_SLACK for new objects
 *    (call stacks included).
 *    Hence memory <= 4 * check_at + GROWTH_SLACK, counted from a call that
 *    ended within check_at (not from a discarded call, which relabels every
 *    thread without a check, nor from new limits);
 *  - memory_peak never decreases and is at least memory_bytes, and the
 *    graph accounts for at least its threads' rings and notes.
 */
static void check_memory(struct side *s, bool counted)
{
	struct jank_engine_stats st;
	struct sum sum = { 0, 0 };

	jank_engine_get_stats(s->e, &st);
	FUZZ_ASSERT(st.memory_peak >= st.memory_bytes);
	FUZZ_ASSERT(st.memory_peak >= s->peak);
	s->peak = st.memory_peak;
	FUZZ_ASSERT(st.memory_bytes >= st.graph.bytes);
	jank_graph_foreach(jank_engine_graph(s->e), sum_thread, &sum);
	FUZZ_ASSERT(sum.bytes <= st.graph.bytes);
	FUZZ_ASSERT(sum.vertices == st.graph.vertices);
	FUZZ_ASSERT(st.graph.retired_threads <= st.graph.threads);
	FUZZ_ASSERT(st.now == INT64_MIN || st.horizon <= st.now);
	if (!s->gc) {
		FUZZ_ASSERT(st.budget_forced == 0 && st.graph.freed_vertices == 0);
		return;
	}
	if (st.budget_forced != s->forced) {
		FUZZ_ASSERT(st.budget_forced == s->forced + 1); /* one collect() per call */
		s->forced = st.budget_forced;
		s->check_at =
			st.memory_bytes > s->limit ? st.memory_bytes + s->limit / 32 : s->limit;
	}
	if (trace_on)
		fprintf(stderr,
			"  memory %" PRIu64 " check_at %" PRIu64 " forced %" PRIu64
			" threads %" PRIu64 " vertices %" PRIu64 " horizon %" PRId64
			" open %" PRIu64 "\n",
			st.memory_bytes, s->check_at, st.budget_forced, st.graph.threads,
			st.graph.vertices, st.horizon, st.actions_open);
	if (!counted) {
		s->unbased = true;
		return;
	}
	if (st.memory_bytes <= s->check_at) {
		s->over_calls = 0;
		s->unbased = false;
		return;
	}
	FUZZ_ASSERT(++s->over_calls < 4);
	FUZZ_ASSERT(s->unbased || st.memory_bytes <= 4 * s->check_at + GROWTH_SLACK);
}

static void set_limits(struct side *s, struct jank_engine_config *c, uint8_t h1, uint8_t h3,
		       bool twin)
{
	c->retention_ns = retentions[h1 & 7];
	c->memory_limit = limits[(h1 >> 3) & 7];
	c->action_timeout_ns = twin ? 0 : timeouts[h1 >> 6];
	c->overdue_grace_ns = twin ? 0 : graces[h3 & 3];
	s->limit = c->memory_limit;
	s->check_at = c->memory_limit;
	s->over_calls = 0;
	s->unbased = true;
}

/* The rules of mask; n of them. */
static size_t make_rules(uint8_t mask, struct jank_rule *out)
{
	size_t n = 0;

	for (unsigned i = 0; i < 8; i++) {
		struct jank_rule *r = &out[n];

		if (!(mask & (1u << i)))
			continue;
		jank_rule_init(r);
		r->name = (char *)rule_defs[i].name;
		r->begin_event = (char *)rule_defs[i].begin;
		r->end_event = (char *)rule_defs[i].end;
		for (unsigned k = 0; k < 2 && rule_defs[i].keys[k]; k++)
			r->keys[r->nkeys++] = (char *)rule_defs[i].keys[k];
		r->match_field = (char *)rule_defs[i].match_field;
		r->match_value = rule_defs[i].match;
		r->threshold = rule_defs[i].t;
		n++;
	}
	return n;
}

static void set_layout(struct side *s, uint8_t h0)
{
	jank_engine_set_layout(s->e, tracer_minor[(h0 >> 2) & 3] < 0 ? -1 : 2,
			       tracer_minor[(h0 >> 2) & 3]);
	jank_engine_set_kernel(s->e, kernels[(h0 >> 4) & 3]);
}

/* The flows of mask (h3 bits 2-3); n of them. Keys point into flow_defs. */
static size_t make_flows(uint8_t mask, struct jank_flow_rule *out)
{
	size_t n = 0;

	for (unsigned i = 0; i < 2; i++) {
		struct jank_flow_rule *f = &out[n];

		if (!(mask & (1u << i)))
			continue;
		jank_flow_rule_init(f);
		f->name = (char *)flow_defs[i].name;
		f->from_event = (char *)flow_defs[i].from;
		f->to_event = (char *)flow_defs[i].to;
		for (unsigned k = 0; k < 2 && flow_defs[i].keys[k]; k++)
			f->keys[f->nkeys++] = (char *)flow_defs[i].keys[k];
		n++;
	}
	return n;
}

static bool side_init(struct side *s, const struct jank_engine_config *c, uint8_t h0, uint8_t mask,
		      uint8_t flow_mask)
{
	struct jank_rule rules[8];
	struct jank_flow_rule flows[2];
	size_t n = make_rules(mask, rules), nf = make_flows(flow_mask, flows);

	memset(s, 0, sizeof(*s));
	s->e = jank_engine_new(c);
	FUZZ_ASSERT(s->e);
	s->gc = c->gc;
	s->limit = s->check_at = c->memory_limit;
	jank_engine_set_verdict_cb(s->e, on_verdict, s);
	set_layout(s, h0);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(jank_engine_add_rule(s->e, &rules[i]) == (int)i);
	/* A flow may not fit beside the rules (too many roles on an event): then it is left out. */
	for (size_t i = 0; i < nf; i++) {
		int r = jank_engine_add_flow(s->e, &flows[i]);

		FUZZ_ASSERT(r >= 0 || r == -E2BIG);
	}
	s->generation = jank_engine_generation(s->e);
	return true;
}

static void side_fini(struct side *s)
{
	jank_engine_free(s->e);
	free(s->verdicts.p);
}

/* The class id of c for this engine, resolved once per generation. */
static bool resolve(struct side *s, size_t c)
{
	if (jank_engine_generation(s->e) != s->generation) {
		s->generation = jank_engine_generation(s->e);
		memset(s->resolved, 0, sizeof(s->resolved));
	}
	if (!s->resolved[c]) {
		s->ids[c] = jank_engine_resolve_class(s->e, classes[c].domain, classes[c].name,
						      &s->fields[c], &s->nfields[c]);
		FUZZ_ASSERT(s->ids[c] != JANK_CLASS_INVALID);
		FUZZ_ASSERT(s->nfields[c] <= JANK_EVENT_MAX_FIELDS);
		FUZZ_ASSERT(!strcmp(jank_engine_class_name(s->e, s->ids[c]), classes[c].name));
		s->resolved[c] = true;
	}
	return true;
}

/*
 * Call stacks for the callstack_user and callstack_kernel contexts (every
 * kernel class has them): innermost frame first, as lttng records them;
 * empty, shared prefixes, a repeated frame, a kernel one, the zero address,
 * and one deeper than any table should take.
 */
static const uint64_t stack_a[] = { 0x401000, 0x402000, 0x403000 };
static const uint64_t stack_b[] = { 0x401010, 0x402000, 0x403000 };
static const uint64_t stack_c[] = { 0x402000, 0x402000 };
static const uint64_t stack_d[] = { 0xffffffff81000010, 0xffffffff81001000 };
static const uint64_t stack_e[] = { 0 };
static uint64_t stack_deep[300];

static const struct {
	const uint64_t *v;
	uint32_t n;
} stacks[8] = {
	{ stack_a, 0 }, { stack_a, 3 }, { stack_b, 3 }, { stack_a, 1 },
	{ stack_c, 2 }, { stack_d, 2 }, { stack_e, 1 }, { stack_deep, 300 },
};

static bool stack_field(const char *name)
{
	return !strcmp(name, "callstack_user") || !strcmp(name, "callstack_kernel");
}

static void decode_value(uint8_t b, const char *field, struct jank_value *v)
{
	bool str = string_field(field);
	unsigned sel = b >> 6, idx = b & 63;

	if (sel == 3 && !(idx & 32)) {
		v->type = JANK_VALUE_NONE;
		return;
	}
	if (sel != 3 && stack_field(field)) {
		if (!stack_deep[0])
			for (size_t i = 0; i < sizeof(stack_deep) / sizeof(stack_deep[0]); i++)
				stack_deep[i] = 0x500000 + 16 * i;
		v->type = JANK_VALUE_ARRAY;
		v->a.v = stacks[idx & 7].v;
		v->a.n = stacks[idx & 7].n;
		return;
	}
	if (sel == 3)
		str = !str;
	if (str) {
		v->type = JANK_VALUE_STR;
		v->s = strs[idx & 15];
	} else if (sel == 2) {
		v->type = JANK_VALUE_UINT;
		v->u = (uint64_t)ints[idx];
	} else {
		v->type = JANK_VALUE_INT;
		v->i = ints[idx];
	}
}

static void trace_event(const struct jank_event *ev, size_t c, const char *const *fields)
{
	fprintf(stderr, "%" PRId64 " cpu %" PRId32 " tid %" PRId32 " %s", ev->ts, ev->cpu, ev->tid,
		classes[c].name);
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct jank_value *v = &ev->fields[i];

		if (v->type == JANK_VALUE_STR)
			fprintf(stderr, " %s=\"%s\"", fields[i], v->s);
		else if (v->type == JANK_VALUE_INT)
			fprintf(stderr, " %s=%" PRId64, fields[i], v->i);
		else if (v->type == JANK_VALUE_UINT)
			fprintf(stderr, " %s=0x%" PRIx64, fields[i], v->u);
		else if (v->type == JANK_VALUE_ARRAY)
			fprintf(stderr, " %s=[%" PRIu32 " frames]", fields[i], v->a.n);
	}
	fputc('\n', stderr);
}

static void event(struct side *sides, size_t nsides, struct input *in, uint8_t op, int64_t *ts)
{
	size_t c = op % NCLASSES;
	uint8_t ctx = next(in), d = next(in);
	struct jank_event ev;
	struct side *a = &sides[0];

	*ts += (int64_t)(d & 31) << (4 * (d >> 5));
	memset(&ev, 0, sizeof(ev));
	ev.ts = *ts;
	ev.cpu = ctx & 4 ? -1 : ctx & 3;
	ev.tid = ctx & 0x80 ? tids[(ctx >> 3) & 15] : -1;
	ev.pid = ev.tid > 0 ? ev.tid | 1 : -1;
	ev.comm = classes[c].domain == JANK_DOMAIN_UST && ev.tid >= 0 ? "app" : NULL;
	resolve(a, c);
	ev.nfields = a->nfields[c];
	for (unsigned i = 0; i < ev.nfields; i++)
		decode_value(next(in), a->fields[c][i], &ev.fields[i]);
	if (trace_on)
		trace_event(&ev, c, a->fields[c]);
	for (size_t k = 0; k < nsides; k++) {
		struct side *s = &sides[k];

		resolve(s, c);
		/* Same rules, same fields: the engine is deterministic. */
		FUZZ_ASSERT(s->nfields[c] == ev.nfields);
		for (unsigned i = 0; i < ev.nfields; i++)
			FUZZ_ASSERT(!strcmp(s->fields[c][i], a->fields[c][i]));
		ev.class_id = s->ids[c];
		jank_engine_process(s->e, &ev);
		check_memory(s, true);
	}
}

static void print_verdict(const char *who, const uint8_t *p)
{
	const struct record *r = (const struct record *)p;
	const struct seg_record *s = (const struct seg_record *)(p + sizeof(*r));

	fprintf(stderr,
		"%s: rule %" PRIu32 " key %s [%" PRId64 ", %" PRId64 "] tid %" PRId32
		" pid %" PRId32 " comm %s%s\n",
		who, r->rule, r->key, r->begin, r->end, r->tid, r->pid, r->comm,
		r->truncated ? " truncated" : "");
	for (size_t i = 0; i < r->nsegs; i++)
		fprintf(stderr,
			"  %" PRId64 "..%" PRId64 " tid %" PRId32 " %s %s lock %" PRIx64 " %s\n",
			s[i].s.begin, s[i].s.end, s[i].s.tid, jank_state_name(s[i].s.state),
			s[i].s.comm, s[i].s.lock, s[i].labels);
}

/* Verdicts reported before the first forced sweep: the same with GC on and off. */
static void compare_twins(const struct side *gc, const struct side *nogc, size_t valid)
{
	size_t at = 0;

	FUZZ_ASSERT(valid <= gc->verdicts.n);
	while (at < valid) {
		const struct record *r = (const struct record *)(gc->verdicts.p + at);
		size_t len = sizeof(*r) + r->nsegs * sizeof(struct seg_record);

		if (at + len > nogc->verdicts.n ||
		    memcmp(gc->verdicts.p + at, nogc->verdicts.p + at, len)) {
			print_verdict("with GC", gc->verdicts.p + at);
			if (at + sizeof(*r) <= nogc->verdicts.n)
				print_verdict("without GC", nogc->verdicts.p + at);
			FUZZ_ASSERT(!"GC changed a verdict");
		}
		at += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t h0 = next(&in), h1 = next(&in), h2 = next(&in), h3 = next(&in);
	bool twin = h0 & 1;
	struct jank_engine_config c;
	struct side sides[2];
	size_t nsides = twin ? 2 : 1, valid = SIZE_MAX;
	int64_t ts = S;

	trace_on = getenv("JANK_FUZZ_TRACE") != NULL;
	jank_engine_config_defaults(&c);
	c.report_all = h0 & 2;
	c.gc = twin || !(h0 & 0x40);
	set_limits(&sides[0], &c, h1, h3, twin);
	side_init(&sides[0], &c, h0, h2, (h3 >> 2) & 3);
	if (twin) {
		c.gc = false;
		side_init(&sides[1], &c, h0, h2, (h3 >> 2) & 3);
	}
	while (in.n) {
		uint8_t op = next(&in), b;
		struct jank_engine_config nc;
		struct jank_rule rules[8];
		size_t n;

		switch (op) {
		case OP_DISCARDED: {
			uint8_t cpu = next(&in), count = next(&in);

			if (trace_on)
				fprintf(stderr, "%" PRId64 " discarded cpu %d count %u\n", ts,
					cpu & 4 ? -1 : cpu & 3, count);
			for (size_t k = 0; k < nsides; k++) {
				jank_engine_discarded(sides[k].e, cpu & 4 ? -1 : cpu & 3, ts,
						      count);
				check_memory(&sides[k], false);
			}
			break;
		}
		case OP_TICK:
			b = next(&in);
			ts += (int64_t)(b & 31) << (4 * (b >> 5));
			if (trace_on)
				fprintf(stderr, "%" PRId64 " tick\n", ts);
			for (size_t k = 0; k < nsides; k++) {
				jank_engine_tick(sides[k].e, ts);
				check_memory(&sides[k], true);
			}
			break;
		case OP_LIMITS:
			b = next(&in);
			if (trace_on)
				fprintf(stderr, "limits 0x%02x\n", b);
			for (size_t k = 0; k < nsides; k++) {
				nc = c;
				set_limits(&sides[k], &nc, b, h3, twin);
				jank_engine_set_limits(sides[k].e, &nc);
			}
			break;
		case OP_RULES:
			b = next(&in);
			if (trace_on)
				fprintf(stderr, "rules 0x%02x\n", b);
			n = make_rules(b, rules);
			for (size_t k = 0; k < nsides; k++)
				FUZZ_ASSERT(jank_engine_replace_rules(sides[k].e, rules, n) == 0);
			break;
		case OP_LAYOUT:
			b = next(&in);
			if (trace_on)
				fprintf(stderr, "layout 0x%02x\n", b);
			for (size_t k = 0; k < nsides; k++)
				set_layout(&sides[k], b);
			break;
		default:
			event(sides, nsides, &in, op, &ts);
			break;
		}
		if (twin && valid == SIZE_MAX && sides[0].forced)
			valid = sides[0].verdicts.n;
	}
	for (size_t k = 0; k < nsides; k++) {
		struct jank_engine_stats st;

		jank_engine_finish(sides[k].e);
		check_memory(&sides[k], true);
		jank_engine_get_stats(sides[k].e, &st);
		FUZZ_ASSERT(st.janks <= st.actions_completed);
		if (st.events)
			fuzz_check_queries(jank_engine_graph(sides[k].e), 4, S, ts);
	}
	if (twin)
		compare_twins(&sides[0], &sides[1],
			      valid == SIZE_MAX ? sides[0].verdicts.n : valid);
	if (twin && valid == SIZE_MAX)
		FUZZ_ASSERT(sides[0].verdicts.n == sides[1].verdicts.n);
	for (size_t k = 0; k < nsides; k++)
		side_fini(&sides[k]);
	return 0;
}
