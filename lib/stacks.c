/* SPDX-License-Identifier: MIT */
/*
 * Interned call stacks (stacks.h): nodes in one array, found by (parent,
 * frame) through an open-addressing index of ids; freed nodes chained by
 * their parent field for reuse; each owner's count in a small table. A
 * collection rebuilds the index and the owners' table from the live nodes
 * (no tombstones: lookups stay one probe sequence).
 */
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "hashmap.h"
#include "stacks.h"

#define OWNER_CODE  (1ull << 33)
#define COLLECT_MIN 1024u

void jank_stacks_init(struct jank_stacks *t, uint32_t max_nodes)
{
	memset(t, 0, sizeof(*t));
	t->max_nodes = max_nodes ? max_nodes : 1;
	t->collect_at = COLLECT_MIN;
}

void jank_stacks_fini(struct jank_stacks *t)
{
	free(t->nodes);
	free(t->index);
	free(t->owners);
	t->nodes = NULL;
	t->index = NULL;
	t->owners = NULL;
	t->n = t->cap = t->index_cap = t->live = t->free_list = 0;
	t->owners_n = t->owners_cap = 0;
}

static inline uint64_t node_hash(uint32_t parent, const struct jank_code_loc *at, bool kernel)
{
	return jank_hash64(at->addr ^
			   jank_hash64(((uint64_t)parent << 32) ^ (uint32_t)at->pid ^
				       ((uint64_t)kernel << 31) ^ ((uint64_t)at->code << 40)));
}

static inline uint64_t hash_of(const struct jank_stack_node *n)
{
	struct jank_code_loc at = { n->addr, n->pid, n->code };

	return node_hash(n->parent, &at, n->kernel);
}

static inline bool node_is(const struct jank_stack_node *n, uint32_t parent,
			   const struct jank_code_loc *at, bool kernel)
{
	return n->addr == at->addr && n->parent == parent && n->pid == at->pid &&
	       n->code == at->code && n->kernel == kernel;
}

static void index_insert(uint32_t *index, uint32_t cap, const struct jank_stack_node *n,
			 uint32_t id)
{
	uint32_t h = (uint32_t)hash_of(n) & (cap - 1);

	while (index[h])
		h = (h + 1) & (cap - 1);
	index[h] = id;
}

/* The index for the live nodes, at ncap slots (a power of two, at least twice live). */
static int index_build(struct jank_stacks *t, uint32_t ncap)
{
	uint32_t *index = calloc(ncap, sizeof(*index));

	if (!index)
		return -1;
	for (uint32_t id = 1; id <= t->n; id++)
		if (t->nodes[id - 1].depth)
			index_insert(index, ncap, &t->nodes[id - 1], id);
	free(t->index);
	t->index = index;
	t->index_cap = ncap;
	return 0;
}

/* ---- Owners ---- */

/* A binary's, or a process's (-1: the kernel's, for kernel frames only). */
static uint64_t owner_of(const struct jank_stack_node *n)
{
	return n->code ? OWNER_CODE | n->code : (uint64_t)(uint32_t)n->pid;
}

/* The owner's slot: found, or the empty one where it goes. */
static struct jank_stack_owner *owner_slot(const struct jank_stacks *t, uint64_t key)
{
	uint32_t mask = t->owners_cap - 1, h = (uint32_t)jank_hash64(key) & mask;

	while (t->owners[h].count && t->owners[h].key != key)
		h = (h + 1) & mask;
	return &t->owners[h];
}

static int owners_resize(struct jank_stacks *t, uint32_t ncap)
{
	struct jank_stack_owner *old = t->owners;
	uint32_t ocap = t->owners_cap;

	t->owners = calloc(ncap, sizeof(*t->owners));
	if (!t->owners) {
		t->owners = old;
		return -1;
	}
	t->owners_cap = ncap;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].count)
			*owner_slot(t, old[i].key) = old[i];
	free(old);
	return 0;
}

/* The owner's count, made room for when new; NULL when out of memory. */
static struct jank_stack_owner *owner_get(struct jank_stacks *t, uint64_t key)
{
	struct jank_stack_owner *o;

	if ((uint64_t)(t->owners_n + 1) * 2 > t->owners_cap &&
	    owners_resize(t, t->owners_cap ? t->owners_cap * 2 : 16) < 0)
		return NULL;
	o = owner_slot(t, key);
	if (!o->count)
		o->key = key;
	return o;
}

/* ---- Pushing ---- */

static uint32_t node_alloc(struct jank_stacks *t)
{
	uint32_t id = t->free_list;

	if (id) {
		t->free_list = t->nodes[id - 1].parent;
		return id;
	}
	if (t->n == t->cap) {
		size_t ncap = jank_array_grow(&t->nodes, sizeof(*t->nodes), t->cap, 64);

		if (!ncap || ncap > UINT32_MAX)
			return 0;
		t->cap = (uint32_t)ncap;
	}
	return ++t->n;
}

uint32_t jank_stacks_push(struct jank_stacks *t, uint32_t parent, const struct jank_code_loc *at,
			  bool kernel)
{
	struct jank_stack_node *n, key;
	struct jank_stack_owner *o;
	struct jank_code_loc kat;
	uint32_t h, mask, id;
	unsigned depth = jank_stacks_depth(t, parent);

	if (depth >= JANK_STACK_DEPTH)
		return JANK_NO_STACK;
	if (kernel) {
		/* Its owner's process and binary: the caller's. */
		const struct jank_stack_node *p = jank_stacks_node(t, parent);

		kat.addr = at->addr;
		kat.pid = p ? p->pid : -1;
		kat.code = p ? p->code : 0;
		at = &kat;
	}
	if (t->index_cap) {
		mask = t->index_cap - 1;
		for (h = (uint32_t)node_hash(parent, at, kernel) & mask; (id = t->index[h]);
		     h = (h + 1) & mask)
			if (node_is(&t->nodes[id - 1], parent, at, kernel))
				return id;
	}
	if (t->live >= t->max_nodes || t->live == UINT32_MAX - 1) {
		t->full++;
		return JANK_NO_STACK;
	}
	key.pid = at->pid;
	key.code = at->code;
	o = owner_get(t, owner_of(&key));
	if (!o)
		return JANK_NO_STACK;
	if (o->count >= t->max_nodes / 2 && t->max_nodes >= 2) {
		t->refused_share++;
		return JANK_NO_STACK;
	}
	if ((uint64_t)(t->live + 1) * 2 > t->index_cap &&
	    index_build(t, t->index_cap ? t->index_cap * 2 : 64) < 0)
		return JANK_NO_STACK;
	id = node_alloc(t);
	if (!id)
		return JANK_NO_STACK;
	if (!o->count++)
		t->owners_n++;
	t->live++;
	n = &t->nodes[id - 1];
	n->addr = at->addr;
	n->pid = at->pid;
	n->code = at->code;
	n->parent = parent;
	n->kernel = kernel;
	n->mark = false;
	n->depth = (uint16_t)(depth + 1);
	index_insert(t->index, t->index_cap, n, id);
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

/* ---- Collection ---- */

bool jank_stacks_want_collect(const struct jank_stacks *t)
{
	return t->live >= t->collect_at || t->full + t->refused_share > t->refused_before;
}

void jank_stacks_mark(struct jank_stacks *t, uint32_t id)
{
	for (; id && id <= t->n && !t->nodes[id - 1].mark; id = t->nodes[id - 1].parent)
		t->nodes[id - 1].mark = true;
}

uint32_t jank_stacks_sweep(struct jank_stacks *t)
{
	uint32_t freed = 0, icap = 64, ocap = 16;

	t->free_list = 0;
	t->owners_n = 0;
	if (t->owners)
		memset(t->owners, 0, (size_t)t->owners_cap * sizeof(*t->owners));
	/* Free ids chained from the highest, so that the lowest are reused first. */
	for (uint32_t id = t->n; id >= 1; id--) {
		struct jank_stack_node *n = &t->nodes[id - 1];

		if (n->depth && n->mark) {
			struct jank_stack_owner *o = owner_slot(t, owner_of(n));

			n->mark = false;
			if (!o->count++) {
				o->key = owner_of(n);
				t->owners_n++;
			}
			continue;
		}
		if (n->depth) {
			freed++;
			t->live--;
		}
		n->depth = 0;
		n->parent = t->free_list;
		t->free_list = id;
	}
	/* Trailing free nodes go back: the array's end is the highest live id. */
	while (t->n && !t->nodes[t->n - 1].depth)
		t->n--;
	t->free_list = 0;
	for (uint32_t id = t->n; id >= 1; id--)
		if (!t->nodes[id - 1].depth) {
			t->nodes[id - 1].parent = t->free_list;
			t->free_list = id;
		}
	t->freed += freed;
	while (icap < (uint64_t)t->live * 2 + 2)
		icap *= 2;
	if (freed && t->index) {
		/* In place first (no allocation can fail), then smaller if it may. */
		memset(t->index, 0, (size_t)t->index_cap * sizeof(*t->index));
		for (uint32_t id = 1; id <= t->n; id++)
			if (t->nodes[id - 1].depth)
				index_insert(t->index, t->index_cap, &t->nodes[id - 1], id);
	}
	if (icap < t->index_cap)
		index_build(t, icap);
	while (ocap < t->owners_n * 2 + 2)
		ocap *= 2;
	if (ocap < t->owners_cap)
		owners_resize(t, ocap);
	if (t->n * 4 <= t->cap && t->cap > 64) {
		uint32_t ncap = t->cap;
		struct jank_stack_node *v;

		while (ncap > 64 && t->n * 4 <= ncap)
			ncap /= 2;
		v = realloc(t->nodes, (size_t)ncap * sizeof(*v));
		if (v) {
			t->nodes = v;
			t->cap = ncap;
		}
	}
	t->collect_at = t->live * 2 > COLLECT_MIN ? t->live * 2 : COLLECT_MIN;
	t->refused_before = t->full + t->refused_share;
	return freed;
}
