/* SPDX-License-Identifier: MIT */
/*
 * Open-addressing map from a 64-bit integer key to a pointer, for thread ids
 * and thread serials. Linear probing, backward-shift deletion, no tombstones.
 */
#ifndef JANK_HASHMAP_H
#define JANK_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct jank_hashmap_slot {
	uint64_t key;
	void *value; /* NULL marks an empty slot */
};

struct jank_hashmap {
	struct jank_hashmap_slot *slots;
	size_t cap; /* power of two */
	size_t count;
};

void jank_hashmap_init(struct jank_hashmap *m);
void jank_hashmap_fini(struct jank_hashmap *m);
void *jank_hashmap_get(const struct jank_hashmap *m, uint64_t key);
/*
 * Make the room put() makes before it inserts into a map of n entries (it
 * doubles the slots past three quarters): for a map some of whose entries
 * come later. Returns 0 or -ENOMEM.
 */
int jank_hashmap_reserve(struct jank_hashmap *m, size_t n);
/* Insert or replace; value must not be NULL. Returns 0 or -ENOMEM. */
int jank_hashmap_put(struct jank_hashmap *m, uint64_t key, void *value);
/* Returns the removed value, or NULL. */
void *jank_hashmap_remove(struct jank_hashmap *m, uint64_t key);
/*
 * The slot of key, or NULL: its value may be replaced (not by NULL) in
 * place, or the slot removed, until the map is next changed otherwise.
 */
struct jank_hashmap_slot *jank_hashmap_slot(const struct jank_hashmap *m, uint64_t key);
/* Remove the slot jank_hashmap_slot() gave. */
void jank_hashmap_remove_slot(struct jank_hashmap *m, struct jank_hashmap_slot *s);
/* Inline: the engine sums these after every few events. */
static inline size_t jank_hashmap_bytes(const struct jank_hashmap *m)
{
	return m->cap * sizeof(*m->slots);
}

static inline uint64_t jank_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

#endif
