/* SPDX-License-Identifier: MIT */
/*
 * Interned call stacks: one id per distinct stack, as a tree of frames.
 *
 * A stack is a node: its innermost frame and its parent, the stack of its
 * callers (0, the empty stack, for an outermost frame). A frame is where the
 * code is: an offset in a binary (`code`, an id the caller's locator gives,
 * see jank_engine_set_locator, shared by every process that maps that
 * binary), else an address in a process (pid, when no binary is known to
 * hold it), user or kernel. Pushing a frame on a stack is one hash lookup of
 * (parent, frame); popping is reading the parent. So a thread's shadow stack
 * is one id, and entering or leaving a function allocates nothing once its
 * stack has been seen.
 *
 * Stacks are at most JANK_STACK_DEPTH frames deep (deeper frames are not
 * interned: whoever pushes counts them, see the engine), and the table holds
 * at most `max_nodes` stacks: past that, a push gives 0 and is counted in
 * `full` (the thread's stack then stays its caller's).
 *
 * Shares: each stack has an owner, the binary of its innermost user frame
 * (or its process, when no binary is known; a kernel frame's is its
 * caller's, the kernel's for a stack of kernel frames only). An owner holds
 * at most half of the table: past that, a push is refused and counted in
 * `refused_share`, so that one app that enters ever new functions leaves the
 * other half to the others.
 *
 * What no live part of the graph refers to is freed by
 * jank_stacks_collect(), which the graph's GC calls with what is alive
 * (graph.c): ids are reused, the table's size follows the live stacks, not
 * the history.
 */
#ifndef JANK_STACKS_H
#define JANK_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_NO_STACK	 0u
#define JANK_STACK_DEPTH 128

/* A frame: an offset in binary `code`, else an address in process pid (-1: the kernel's). */
struct jank_code_loc {
	uint64_t addr; /* the offset in code, or the address */
	int32_t pid;   /* 0 when code is set */
	uint32_t code; /* 0: in no known binary */
};

/*
 * A kernel frame's pid and code are its owner's (its caller's, -1 and 0 for
 * an outermost one): the frame itself is the kernel's.
 */
struct jank_stack_node {
	uint64_t addr;
	uint32_t parent; /* the callers' stack, JANK_NO_STACK for an outermost frame */
	int32_t pid;	 /* the process whose address space addr is in (vpid), 0 in code */
	uint32_t code;	 /* the binary addr is an offset in, 0: none (addr is pid's) */
	uint16_t depth;	 /* frames, 1 for an outermost one; 0: a free node */
	bool kernel;	 /* a kernel address (callstack_kernel) */
	bool mark;	 /* reached from a live stack (jank_stacks_collect) */
};

struct jank_stack_owner {
	uint64_t key;
	uint32_t count; /* its stacks; 0 marks an empty slot */
};

struct jank_stacks {
	struct jank_stack_node *nodes; /* id i + 1; ids up to n were used */
	uint32_t n;
	uint32_t cap;
	uint32_t live;	    /* nodes in use (n minus the free ones) */
	uint32_t free_list; /* a free node's id, its parent the next one; 0: none */
	uint32_t *index;    /* open addressing: id, 0 when empty */
	uint32_t index_cap;
	uint32_t max_nodes;
	struct jank_stack_owner *owners; /* open addressing by key */
	uint32_t owners_n;
	uint32_t owners_cap;
	uint32_t collect_at;	 /* live stacks that make the next GC collect */
	uint64_t full;		 /* pushes refused: the table was full */
	uint64_t refused_share;	 /* pushes refused: their owner held half of the table */
	uint64_t freed;		 /* stacks freed by collections */
	uint64_t refused_before; /* full + refused_share at the last collection */
};

void jank_stacks_init(struct jank_stacks *t, uint32_t max_nodes);
void jank_stacks_fini(struct jank_stacks *t);
/* Bytes the table holds. O(1), inline: the engine reads it before every event that may free. */
static inline uint64_t jank_stacks_bytes(const struct jank_stacks *t)
{
	return (uint64_t)t->cap * sizeof(*t->nodes) + (uint64_t)t->index_cap * sizeof(*t->index) +
	       (uint64_t)t->owners_cap * sizeof(*t->owners);
}

/*
 * The stack `parent` with frame `at` called on top, interned; JANK_NO_STACK
 * when the table is full, its owner holds its share, out of memory, or
 * parent is JANK_STACK_DEPTH deep.
 */
uint32_t jank_stacks_push(struct jank_stacks *t, uint32_t parent, const struct jank_code_loc *at,
			  bool kernel);

static inline const struct jank_stack_node *jank_stacks_node(const struct jank_stacks *t,
							     uint32_t id)
{
	return id && id <= t->n ? &t->nodes[id - 1] : NULL;
}

static inline uint32_t jank_stacks_parent(const struct jank_stacks *t, uint32_t id)
{
	return id && id <= t->n ? t->nodes[id - 1].parent : JANK_NO_STACK;
}

static inline unsigned jank_stacks_depth(const struct jank_stacks *t, uint32_t id)
{
	return id && id <= t->n ? t->nodes[id - 1].depth : 0;
}

/* Whether the innermost frame of stack id is `at` (a user frame). */
static inline bool jank_stacks_is(const struct jank_stacks *t, uint32_t id,
				  const struct jank_code_loc *at)
{
	const struct jank_stack_node *n = jank_stacks_node(t, id);

	return n && !n->kernel && n->addr == at->addr && n->code == at->code && n->pid == at->pid;
}

/* The longest stack both a and b start with (their common callers). */
uint32_t jank_stacks_common(const struct jank_stacks *t, uint32_t a, uint32_t b);

/*
 * Collection, in three calls: jank_stacks_mark() each stack something live
 * refers to (its callers are kept with it), then jank_stacks_sweep() frees
 * every stack left unmarked (ids become free for reuse) and returns how
 * many. jank_stacks_want_collect() says whether it is worth it now: the live
 * stacks doubled since the last collection, or pushes were refused since.
 */
bool jank_stacks_want_collect(const struct jank_stacks *t);
void jank_stacks_mark(struct jank_stacks *t, uint32_t id);
uint32_t jank_stacks_sweep(struct jank_stacks *t);

#endif
