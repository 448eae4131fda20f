/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include "hashmap.h"

void jank_hashmap_init(struct jank_hashmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
}

void jank_hashmap_fini(struct jank_hashmap *m)
{
	free(m->slots);
	jank_hashmap_init(m);
}

static size_t probe_start(const struct jank_hashmap *m, uint64_t key)
{
	return (size_t)jank_hash64(key) & (m->cap - 1);
}

void *jank_hashmap_get(const struct jank_hashmap *m, uint64_t key)
{
	if (m->count == 0)
		return NULL;
	for (size_t i = probe_start(m, key);; i = (i + 1) & (m->cap - 1)) {
		const struct jank_hashmap_slot *s = &m->slots[i];

		if (!s->value)
			return NULL;
		if (s->key == key)
			return s->value;
	}
}

static int grow(struct jank_hashmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 16;
	struct jank_hashmap_slot *old = m->slots;
	size_t ocap = m->cap;

	m->slots = calloc(ncap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->cap = ncap;
	m->count = 0;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].value)
			jank_hashmap_put(m, old[i].key, old[i].value);
	free(old);
	return 0;
}

int jank_hashmap_reserve(struct jank_hashmap *m, size_t n)
{
	return (n + 1) * 4 > m->cap * 3 ? grow(m) : 0;
}

int jank_hashmap_put(struct jank_hashmap *m, uint64_t key, void *value)
{
	int r = jank_hashmap_reserve(m, m->count);

	if (r < 0)
		return r;
	for (size_t i = probe_start(m, key);; i = (i + 1) & (m->cap - 1)) {
		struct jank_hashmap_slot *s = &m->slots[i];

		if (!s->value) {
			s->key = key;
			s->value = value;
			m->count++;
			return 0;
		}
		if (s->key == key) {
			s->value = value;
			return 0;
		}
	}
}

struct jank_hashmap_slot *jank_hashmap_slot(const struct jank_hashmap *m, uint64_t key)
{
	if (m->count == 0)
		return NULL;
	for (size_t i = probe_start(m, key);; i = (i + 1) & (m->cap - 1)) {
		struct jank_hashmap_slot *s = &m->slots[i];

		if (!s->value)
			return NULL;
		if (s->key == key)
			return s;
	}
}

void jank_hashmap_remove_slot(struct jank_hashmap *m, struct jank_hashmap_slot *s)
{
	size_t i = (size_t)(s - m->slots), j;

	/* Backward-shift: move later members of the probe run into the hole. */
	for (j = (i + 1) & (m->cap - 1); m->slots[j].value; j = (j + 1) & (m->cap - 1)) {
		size_t home = probe_start(m, m->slots[j].key);

		/* Move j into i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].value = NULL;
	m->count--;
}

void *jank_hashmap_remove(struct jank_hashmap *m, uint64_t key)
{
	struct jank_hashmap_slot *s = jank_hashmap_slot(m, key);
	void *v;

	if (!s)
		return NULL;
	v = s->value;
	jank_hashmap_remove_slot(m, s);
	return v;
}
