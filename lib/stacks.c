/* SPDX-License-Identifier: MIT */
/*
 * Interned call stacks (stacks.h): nodes in one array, found by
 * (parent, address, process) through an open-addressing index of ids.
 */
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "hashmap.h"
#include "stacks.h"

void jank_stacks_init(struct jank_stacks *t, uint32_t max_nodes)
{
	memset(t, 0, sizeof(*t));
	t->max_nodes = max_nodes ? max_nodes : 1;
}

void jank_stacks_fini(struct jank_stacks *t)
{
	free(t->nodes);
	free(t->index);
	t->nodes = NULL;
	t->index = NULL;
	t->n = t->cap = t->index_cap = 0;
}

uint64_t jank_stacks_bytes(const struct jank_stacks *t)
{
	return (uint64_t)t->cap * sizeof(*t->nodes) + (uint64_t)t->index_cap * sizeof(*t->index);
}

static inline uint64_t node_hash(uint32_t parent, int32_t pid, uint64_t addr, bool kernel)
{
	return jank_hash64(addr ^ jank_hash64(((uint64_t)parent << 32) ^ (uint32_t)pid ^
					      ((uint64_t)kernel << 31)));
}

static inline bool node_is(const struct jank_stack_node *n, uint32_t parent, int32_t pid,
			   uint64_t addr, bool kernel)
{
	return n->addr == addr && n->parent == parent && n->pid == pid && n->kernel == kernel;
}

static int index_grow(struct jank_stacks *t)
{
	uint32_t ncap = t->index_cap ? t->index_cap * 2 : 64;
	uint32_t *index = calloc(ncap, sizeof(*index));

	if (!index || ncap < t->index_cap)
		return free(index), -1;
	for (uint32_t id = 1; id <= t->n; id++) {
		const struct jank_stack_node *n = &t->nodes[id - 1];
		uint32_t h =
			(uint32_t)node_hash(n->parent, n->pid, n->addr, n->kernel) & (ncap - 1);

		while (index[h])
			h = (h + 1) & (ncap - 1);
		index[h] = id;
	}
	free(t->index);
	t->index = index;
	t->index_cap = ncap;
	return 0;
}

uint32_t jank_stacks_push(struct jank_stacks *t, uint32_t parent, int32_t pid, uint64_t addr,
			  bool kernel)
{
	struct jank_stack_node *n;
	uint32_t h, mask, id;
	unsigned depth = jank_stacks_depth(t, parent);

	if (depth >= JANK_STACK_DEPTH)
		return JANK_NO_STACK;
	if (t->index_cap) {
		mask = t->index_cap - 1;
		for (h = (uint32_t)node_hash(parent, pid, addr, kernel) & mask; (id = t->index[h]);
		     h = (h + 1) & mask)
			if (node_is(&t->nodes[id - 1], parent, pid, addr, kernel))
				return id;
	}
	if (t->n >= t->max_nodes || t->n == UINT32_MAX - 1) {
		t->full++;
		return JANK_NO_STACK;
	}
	if (t->n == t->cap) {
		size_t ncap = jank_array_grow(&t->nodes, sizeof(*t->nodes), t->cap, 64);

		if (!ncap || ncap > UINT32_MAX)
			return JANK_NO_STACK;
		t->cap = (uint32_t)ncap;
	}
	if ((uint64_t)(t->n + 1) * 2 > t->index_cap && index_grow(t) < 0)
		return JANK_NO_STACK;
	n = &t->nodes[t->n++];
	n->addr = addr;
	n->parent = parent;
	n->pid = pid;
	n->kernel = kernel;
	n->depth = (uint16_t)(depth + 1);
	id = t->n;
	mask = t->index_cap - 1;
	for (h = (uint32_t)node_hash(parent, pid, addr, kernel) & mask; t->index[h];
	     h = (h + 1) & mask)
		;
	t->index[h] = id;
	return id;
}

uint32_t jank_stacks_common(const struct jank_stacks *t, uint32_t a, uint32_t b)
{
	unsigned da = jank_stacks_depth(t, a), db = jank_stacks_depth(t, b);

	for (; da > db; da--)
		a = jank_stacks_parent(t, a);
	for (; db > da; db--)
		b = jank_stacks_parent(t, b);
	while (a != b) {
		a = jank_stacks_parent(t, a);
		b = jank_stacks_parent(t, b);
	}
	return a;
}
