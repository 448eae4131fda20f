/* SPDX-License-Identifier: MIT */
/*
 * Execution graph: one thread record per thread, vertices in time order.
 *
 * Vertex i of a thread starts the horizontal edge (i, i+1); its `state` is the
 * state of that interval. The last vertex starts the open interval, whose
 * state is the thread's current state. A vertex may carry one incoming
 * vertical edge from a waker's vertex (thread serial + absolute index), or
 * from the vertex where a user-level flow handed work over (`flow` != 0: the
 * source vertex may be older than this one).
 *
 * Spans: the innermost open action of a thread, over time, as a list of
 * changes (from ts on, the innermost is span s, or none), beside the ring.
 *
 * Vertices live in a per-thread ring indexed by an absolute, ever-growing
 * index, so that garbage collection can drop old vertices without
 * invalidating references: an index below the thread's base has been freed.
 * Each thread record keeps a current-state record (state, since, cpu) that survives
 * garbage collection.
 */
#ifndef JANK_GRAPH_H
#define JANK_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "stacks.h"
#include "state.h"

#define JANK_COMM_LEN  16
#define JANK_NO_THREAD 0u
/* Names kept for spans and flows: longer ones are cut (the key as actions cut theirs). */
#define JANK_LABEL_NAME_LEN 48
#define JANK_LABEL_KEY_LEN  96
#define JANK_NO_FLOW	    0u

struct jank_vertex {
	int64_t ts;
	uint64_t from_idx;    /* waker's vertex, valid when from_serial != 0 */
	uint32_t from_serial; /* waker's thread serial, JANK_NO_THREAD if none */
	uint8_t state;	      /* state of the interval that starts here */
	uint16_t flow;	      /* the edge is a flow (jank_graph_flow_name), not a wakeup */
};

/*
 * An open or closed action of a thread, as a label of its path segments.
 * Reference-counted: by the thread's open spans, by its span changes, and by
 * whoever opened it (the engine's action) until it closes it. Its name and
 * key follow its six bytes of head (a closed action's span stays until GC
 * drops its changes: with a 16-byte head and a key pointer, a short action's
 * span took a 64-byte slot, 32 now); jank_span_key() gives the key.
 */
struct jank_span {
	uint32_t refs;
	uint8_t size;	/* bytes allocated, as accounted (at most 6 + 48 + 96) */
	uint8_t key_at; /* the key is at name + key_at, after the name's NUL */
	char name[];
};

static inline const char *jank_span_key(const struct jank_span *s)
{
	return s->name + s->key_at;
}

/* From ts on, the thread's call stack is `stack` (stacks.h; JANK_NO_STACK: none known). */
struct jank_stack_change {
	int64_t ts;
	uint32_t stack;
};

/* From ts on, the innermost open span of the thread is `span` (NULL: none). */
struct jank_span_change {
	int64_t ts;
	struct jank_span *span;
};

struct jank_thread {
	int32_t tid;
	int32_t pid;
	uint32_t serial; /* unique for the graph's lifetime, never 0 */
	char comm[JANK_COMM_LEN];

	/* Current-state record, survives GC. */
	uint8_t state;
	bool retired; /* final switch seen, freed by the kernel, or its tid reused */
	int32_t cpu;
	int32_t on_cpu; /* the model's: the CPU it is the current thread of, -1 */
	int64_t since;

	int64_t first_seen;
	int64_t last_seen;

	/* Vertex ring: absolute index i lives at ring[i & (cap - 1)]. */
	struct jank_vertex *ring;
	uint64_t base; /* absolute index of the oldest retained vertex */
	uint64_t next; /* absolute index of the next vertex to append */
	uint32_t cap;  /* power of two, 0 when no ring is allocated */

	/* Graph bookkeeping. */
	uint32_t parent_serial; /* forking parent, the waker at sched_wakeup_new */
	bool exited;		/* sched_process_exit or its final switch seen */
	bool born;		/* forked in the trace: its first vertex is its birth */
	bool fork_wait;		/* forked, not yet woken (sched_wakeup_new) nor run */
	/*
	 * The model's (model.c): in user mode since user_since (its last system
	 * call exit), as far as the trace tells; and 1 + the index of a wait that
	 * an untraced interrupt ended (labelled `interrupted`), until its system
	 * call exits (-ETIMEDOUT: `timer`), 0 when none.
	 */
	bool user_mode;
	/* User-space locks (locks.c): the pending request and the locks held. */
	bool lock_contended;
	uint16_t locks_held;
	int64_t user_since;
	uint64_t irq_wait;

	uint64_t lock_mutex; /* mutex of the pending request, 0 when none */
	int64_t lock_req;    /* time of the pending request */
	/* Which mutex each lock_wait vertex waits for, oldest first. */
	struct jank_lock_note *notes;
	uint32_t nnotes;
	uint32_t notes_cap;
	/* The thread's last user-space event of its own (locks, flows, actions). */
	int64_t ust_last;

	/* Its spans, NULL when it has none (most threads). */
	struct jank_spans *spans;

	/*
	 * Call stacks (engine.c): the shadow stack that function entries and
	 * exits build, the frames entered past JANK_STACK_DEPTH (not interned),
	 * the stack a kernel event's callstack context gave (until the thread's
	 * system call exits; it wins over the shadow stack), and the thread's
	 * stack over time, oldest first.
	 */
	struct jank_thread_stacks *fn; /* NULL until it has one (most threads) */
};

struct jank_thread_stacks {
	uint32_t shadow;
	uint32_t over;
	uint32_t ctx;
	uint32_t n;
	uint32_t cap;
	struct jank_stack_change *v;
};

/* The innermost span of a thread over time (oldest first), and its open spans (innermost last). */
struct jank_spans {
	/*
	 * v[0..n) the changes, room for cap; off changes were dropped before
	 * v (the allocation is v - off, of off + cap): the collector drops old
	 * changes by moving v on, and the array is compacted only when it is
	 * full and at least half dropped, not at each collection.
	 */
	struct jank_span_change *v;
	uint32_t n;
	uint32_t cap;
	uint32_t off;
	struct jank_span **open;
	uint32_t nopen;
	uint32_t open_cap;
};

struct jank_lock_note {
	uint64_t idx;	/* absolute index of a lock_wait vertex */
	uint64_t mutex; /* the mutex it waits for */
};

struct jank_graph;

struct jank_graph_stats {
	uint64_t threads; /* thread records, live and retired */
	uint64_t retired_threads;
	uint64_t vertices;
	uint64_t bytes;		 /* bytes the graph accounts for */
	uint64_t freed_vertices; /* by GC, over the graph's life */
	uint64_t freed_threads;
	uint64_t gc_steps;
};

struct jank_graph *jank_graph_new(void);
void jank_graph_free(struct jank_graph *g);

/* The live record of a thread, or NULL. */
struct jank_thread *jank_graph_find(const struct jank_graph *g, int32_t tid);
/* jank_graph_lookup() (inline, below) is the same, faster when asked for the same thread again. */
/*
 * The live record of a thread; created (state unknown, first seen at ts) if
 * absent. jank_graph_get() (inline, below) is the same, faster when asked
 * for the same thread again.
 */
struct jank_thread *jank_graph_get_slow(struct jank_graph *g, int32_t tid, int64_t ts);
/*
 * The live record of a thread, else the newest retired one with that tid (a
 * thread that exited, or whose tid was reused). O(thread records): for queries.
 */
struct jank_thread *jank_graph_find_any(const struct jank_graph *g, int32_t tid);
/* Any thread record, live or retired, by serial; NULL when freed. */
struct jank_thread *jank_graph_find_serial(const struct jank_graph *g, uint32_t serial);
/* Retire the thread's record (tid reuse, or the kernel freed it); its vertices stay until GC. */
void jank_graph_retire(struct jank_graph *g, int32_t tid);

/*
 * Move a thread to a new state at ts, adding a vertex when the state
 * changes. Returns the vertex's absolute index, or UINT64_MAX when nothing
 * was added (same state, or out of memory).
 */
uint64_t jank_graph_transition(struct jank_graph *g, struct jank_thread *w, int64_t ts,
			       enum jank_state state);
/* Relabel the thread's open interval (the last vertex's state) and its current state. */
void jank_graph_relabel_open(struct jank_thread *w, enum jank_state state);
/*
 * A wakeup in thread context: split the waker's edge with a vertex at ts and
 * end the wakee's wait at ts with a vertex carrying a vertical edge from it.
 * The wakee becomes `wakee_state` (preempted, or running for lock handoff).
 */
void jank_graph_link(struct jank_graph *g, struct jank_thread *waker, struct jank_thread *wakee,
		     int64_t ts, enum jank_state wakee_state);

/* A vertex at ts that keeps the thread's state (a waker's point). Returns its index. */
uint64_t jank_graph_split_slow(struct jank_graph *g, struct jank_thread *w, int64_t ts);
static inline uint64_t jank_graph_split(struct jank_graph *g, struct jank_thread *w, int64_t ts)
{
	struct jank_vertex *v;

	/* Inline when the ring has room (a user-space event's vertex: one an event). */
	if (w->next == w->base || w->next - w->base == w->cap)
		return jank_graph_split_slow(g, w, ts);
	if (w->ring[(w->next - 1) & (w->cap - 1)].ts >= ts)
		return w->next - 1;
	v = &w->ring[w->next & (w->cap - 1)];
	v->ts = ts;
	v->state = w->state;
	v->from_serial = JANK_NO_THREAD;
	v->from_idx = 0;
	v->flow = JANK_NO_FLOW;
	w->since = ts;
	if (ts > w->last_seen)
		w->last_seen = ts;
	return w->next++;
}
/* A wakeup from an existing vertex of the waker (user-space lock handoff). */
void jank_graph_link_from(struct jank_graph *g, struct jank_thread *waker, uint64_t waker_idx,
			  struct jank_thread *wakee, int64_t ts, enum jank_state wakee_state);
/*
 * Relabel the thread's wait edges (blocked) that start at or after `since`
 * as lock_wait on `mutex`, keeping their wakers. Returns how many.
 */
unsigned jank_graph_relabel_waits(struct jank_graph *g, struct jank_thread *w, int64_t since,
				  uint64_t mutex);
/*
 * Relabel the thread's edges that start at or after `since` and are in state
 * `from` (the open one too) as `to`. Returns how many.
 */
unsigned jank_graph_relabel_since(struct jank_thread *w, int64_t since, enum jank_state from,
				  enum jank_state to);
/* Remember that the lock_wait vertex idx waits for mutex. */
void jank_graph_note_lock(struct jank_graph *g, struct jank_thread *w, uint64_t idx,
			  uint64_t mutex);
/* The mutex a lock_wait vertex waits for, 0 when unknown. */
uint64_t jank_thread_lock_of(const struct jank_thread *w, uint64_t idx);

/*
 * A flow: the work `from` handed over at its vertex from_idx is picked up by
 * `to` at ts. Adds a vertex on `to` at ts that keeps its state and carries
 * the edge. `flow` is an id from jank_graph_flow_id().
 */
void jank_graph_flow(struct jank_graph *g, struct jank_thread *from, uint64_t from_idx,
		     struct jank_thread *to, int64_t ts, uint16_t flow);
/* The id of a flow name, made on first use (JANK_NO_FLOW when out of ids or memory). */
uint16_t jank_graph_flow_id(struct jank_graph *g, const char *name);
/* The name of a flow id, "" when unknown. */
const char *jank_graph_flow_name(const struct jank_graph *g, uint16_t flow);

/*
 * Open a span on w at ts: it becomes the thread's innermost. Returns it with
 * a reference for the caller, who must close it; NULL when out of memory or
 * when the thread has JANK_SPAN_DEPTH spans open already (actions that never
 * end: the deeper ones label nothing).
 */
#define JANK_SPAN_DEPTH 32
struct jank_span *jank_graph_span_open(struct jank_graph *g, struct jank_thread *w, int64_t ts,
				       const char *name, const char *key);
/* The same with nlen and klen the lengths (strlen()) of name and key, as the caller knows them. */
struct jank_span *jank_graph_span_open_n(struct jank_graph *g, struct jank_thread *w, int64_t ts,
					 const char *name, size_t nlen, const char *key,
					 size_t klen);
/*
 * Close a span at ts on the thread record `serial` it was opened on (which may be
 * gone), and drop the caller's reference. When it was the innermost, the
 * next open one (or none) takes over at ts.
 */
void jank_graph_span_close(struct jank_graph *g, uint32_t serial, struct jank_span *s, int64_t ts);
/*
 * The innermost span of w over the instant just before t (NULL: none), and
 * since when it has been (*since; INT64_MIN when none is known).
 */
const struct jank_span *jank_thread_span_before(const struct jank_thread *w, int64_t t,
						int64_t *since);

/*
 * Call stacks. The graph's table of interned stacks (its bytes count in
 * jank_graph_bytes). jank_graph_stack_set: from ts on, w's stack is `stack`
 * (nothing is stored when it is already). jank_thread_stack_before: w's
 * stack over the instant just before t, and since when (*since; INT64_MIN
 * when none is known).
 */
struct jank_stacks *jank_graph_stacks(struct jank_graph *g);
const struct jank_stacks *jank_graph_stacks_const(const struct jank_graph *g);
void jank_graph_stack_set(struct jank_graph *g, struct jank_thread *w, int64_t ts, uint32_t stack);
/* w's call stack record, made on first use; NULL when out of memory. */
struct jank_thread_stacks *jank_thread_stacks_of(struct jank_graph *g, struct jank_thread *w);
uint32_t jank_thread_stack_before(const struct jank_thread *w, int64_t t, int64_t *since);
/*
 * Free the stacks no thread refers to any more (its shadow stack, its
 * context's, its stack over the time GC kept), when the table says it is
 * worth it (jank_stacks_want_collect) or `force`. O(stacks + threads' stack
 * changes). Returns the stacks freed.
 */
uint32_t jank_graph_collect_stacks(struct jank_graph *g, bool force);

/* Vertex access by absolute index; NULL when freed or not yet written. */
const struct jank_vertex *jank_thread_vertex(const struct jank_thread *w, uint64_t idx);
/*
 * Absolute index of the last vertex with ts < t (the start of the edge that
 * covers the instant just before t). UINT64_MAX when no retained vertex is
 * that old.
 */
uint64_t jank_thread_find_before(const struct jank_thread *w, int64_t t);
/* Updated by the model on every event that shows the thread alive. */
static inline void jank_thread_seen(struct jank_thread *w, int64_t ts)
{
	if (ts > w->last_seen)
		w->last_seen = ts;
}

/* Iteration over live and retired thread records, in no particular order. */
typedef void (*jank_graph_thread_fn)(const struct jank_thread *w, void *data);
void jank_graph_foreach(const struct jank_graph *g, jank_graph_thread_fn fn, void *data);
typedef void (*jank_graph_thread_mut_fn)(struct jank_thread *w, void *data);
void jank_graph_foreach_mut(struct jank_graph *g, jank_graph_thread_mut_fn fn, void *data);

/*
 * Called before GC frees a thread record, so that whoever keeps a pointer to it
 * (the model's per-CPU current thread) lets go. One hook per graph.
 */
typedef void (*jank_graph_free_fn)(struct jank_thread *w, void *data);
void jank_graph_set_free_hook(struct jank_graph *g, jank_graph_free_fn fn, void *data);

/*
 * Garbage collection: free vertices older than the horizon, keeping for each
 * thread the last vertex at or before it (so the edge that straddles the
 * horizon keeps its label). Visits at most `budget` thread records per call,
 * resuming where the last call stopped. Retired threads whose last vertex is
 * older than the horizon are freed whole. Returns the number of threads visited.
 */
size_t jank_graph_gc_step(struct jank_graph *g, int64_t horizon, size_t budget);
size_t jank_graph_thread_count(const struct jank_graph *g);
void jank_graph_get_stats(const struct jank_graph *g, struct jank_graph_stats *out);
/*
 * Of those, what the open spans hold (about: each, and its changes): GC
 * cannot free it before their actions end. O(1).
 */
uint64_t jank_graph_open_span_bytes(const struct jank_graph *g);
/*
 * The graph's first member, read in place by the inline functions below
 * (the engine asks for them at nearly every event): what the graph accounts
 * for, kept current as it grows and shrinks, and the thread last found by
 * tid (an event's model, actions and spans ask for the same thread several
 * times).
 */
struct jank_graph_head {
	uint64_t bytes;			  /* rings, thread records, maps, the record */
	const struct jank_stacks *stacks; /* its table of stacks, counted apart */
	struct jank_thread *last;	  /* NULL; reset whenever a thread loses its tid */
};

/* Bytes the graph accounts for (rings, thread records, maps, stacks); O(1). */
static inline uint64_t jank_graph_bytes(const struct jank_graph *g)
{
	const struct jank_graph_head *h = (const struct jank_graph_head *)(const void *)g;

	return h->bytes + jank_stacks_bytes(h->stacks);
}

struct jank_thread *jank_graph_lookup_slow(struct jank_graph *g, int32_t tid);
/* The live record of a thread, or NULL: jank_graph_find(), with a cache of one. */
static inline struct jank_thread *jank_graph_lookup(struct jank_graph *g, int32_t tid)
{
	struct jank_thread *w = ((const struct jank_graph_head *)(const void *)g)->last;

	return w && w->tid == tid ? w : jank_graph_lookup_slow(g, tid);
}

/* jank_graph_get_slow(), with jank_graph_lookup()'s cache of one inline. */
static inline struct jank_thread *jank_graph_get(struct jank_graph *g, int32_t tid, int64_t ts)
{
	struct jank_thread *w = ((const struct jank_graph_head *)(const void *)g)->last;

	return w && w->tid == tid ? w : jank_graph_get_slow(g, tid, ts);
}

#endif
