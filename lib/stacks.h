/* SPDX-License-Identifier: MIT */
/*
 * Interned call stacks: one id per distinct stack, as a tree of frames.
 *
 * A stack is a node: its innermost frame (a function's address, in a
 * process, user or kernel) and its parent, the stack of its callers (0, the
 * empty stack, for an outermost frame). Pushing a frame on a stack is one
 * hash lookup of (parent, address, process); popping is reading the parent.
 * So a thread's shadow stack is one id, and entering or leaving a function
 * allocates nothing once its stack has been seen.
 *
 * Stacks are at most JANK_STACK_DEPTH frames deep (deeper frames are not
 * interned: whoever pushes counts them, see the engine), and the table holds
 * at most `max_nodes` stacks: past that, a push gives 0 and is counted in
 * `full` (the thread's stack then stays its caller's). Stacks are never
 * freed before the table is: what interns them depends on the events only,
 * never on garbage collection, so paths are the same with GC on or off.
 */
#ifndef JANK_STACKS_H
#define JANK_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_NO_STACK	 0u
#define JANK_STACK_DEPTH 128

struct jank_stack_node {
	uint64_t addr;
	uint32_t parent; /* the callers' stack, JANK_NO_STACK for an outermost frame */
	int32_t pid;	 /* the process whose address space addr is in (vpid) */
	uint16_t depth;	 /* frames, 1 for an outermost one */
	bool kernel;	 /* a kernel address (callstack_kernel) */
};

struct jank_stacks {
	struct jank_stack_node *nodes; /* id i + 1 */
	uint32_t n;
	uint32_t cap;
	uint32_t *index; /* open addressing: id, 0 when empty */
	uint32_t index_cap;
	uint32_t max_nodes;
	uint64_t full; /* pushes refused: the table was full */
};

void jank_stacks_init(struct jank_stacks *t, uint32_t max_nodes);
void jank_stacks_fini(struct jank_stacks *t);
/* Bytes the table holds. O(1). */
uint64_t jank_stacks_bytes(const struct jank_stacks *t);

/*
 * The stack `parent` with `addr` called on top, interned; JANK_NO_STACK when
 * the table is full, out of memory, or parent is JANK_STACK_DEPTH deep.
 */
uint32_t jank_stacks_push(struct jank_stacks *t, uint32_t parent, int32_t pid, uint64_t addr,
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

/* The longest stack both a and b start with (their common callers). */
uint32_t jank_stacks_common(const struct jank_stacks *t, uint32_t a, uint32_t b);

#endif
