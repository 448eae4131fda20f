/* SPDX-License-Identifier: MIT */
/*
 * Profiles, baselines and suspects (see baseline.h).
 *
 * A profile is built from the breakdown the engine computes anyway: its
 * (tid, state) items become thread components once their tids are named
 * (sorted by key, then merged, so that two threads of a pool with the same
 * names count as one), its locks become lock components. The holder of a
 * lock, for the wording, is the thread of the longest segment that waited
 * for it. Function components come from the breakdown's time per innermost
 * function (the largest JANK_PROFILE_FUNCTIONS), with one more pass over
 * the path for the state most of each one's time was in and the thread of
 * its longest segment.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "array.h"
#include "baseline.h"
#include "textsafe.h"

/* A lock component past this many gets no holder's name: each costs a pass over the path. */
#define HOLDERS_MAX 8
/* A specific suspect replaces a generic one when it explains this share of its increase. */
#define SPECIFIC_SHARE 0.5
/* Ratios are taken against at least this much normal time (ns). */
#define RATIO_FLOOR 1000.0
/* Thread and lock components, and functions, that can be suspects (the largest). */
#define CAND_COMPS 64
#define CAND_FNS   32
/* Open addressing over a profile's function frames: twice JANK_PROFILE_FUNCTIONS. */
#define FN_SLOTS 128

static const char *const jank_comp_kind_names[JANK_COMP_KIND_COUNT] = {
	[JANK_COMP_STATE] = "state",	   [JANK_COMP_HOP] = "hop",
	[JANK_COMP_THREAD] = "thread",	   [JANK_COMP_LOCK] = "lock",
	[JANK_COMP_FUNCTION] = "function",
};

JANK_STRTABLE_DEFINE(jank_comp_kind, enum jank_comp_kind, "?")

bool jank_state_is_hop(enum jank_state s)
{
	return s == JANK_STATE_TIMER || s == JANK_STATE_NETWORK || s == JANK_STATE_BLOCK_DEVICE ||
	       s == JANK_STATE_INTERRUPTED || s == JANK_STATE_IPI;
}

/* FNV-1a over both names, with a separator no name holds. */
uint64_t jank_comp_identity(const char *process, const char *thread)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *s = process; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	h = (h ^ 0xffu) * 0x100000001b3ull;
	for (const char *s = thread; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h ? h : 1;
}

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* FNV-1a over the address, the process and the kernel bit; over the name for address 0. */
uint64_t jank_comp_function_identity(const struct jank_frame *f)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint8_t kernel = f->kernel;

	if (f->addr) {
		h = fnv_bytes(h, &f->addr, sizeof(f->addr));
		h = fnv_bytes(h, &f->pid, sizeof(f->pid));
		h = fnv_bytes(h, &kernel, 1);
		if (f->code) /* an offset in a binary: the same function in any of its processes */
			h = fnv_bytes(h, &f->code, sizeof(f->code));
	} else {
		h = fnv_bytes(h, f->name, strnlen(f->name, sizeof(f->name)));
	}
	return h ? h : 1;
}

bool jank_comp_key_equal(const struct jank_comp_key *a, const struct jank_comp_key *b)
{
	return a->kind == b->kind && a->state == b->state && a->id == b->id;
}

static int cmp_key(const struct jank_comp_key *a, const struct jank_comp_key *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->state != b->state)
		return a->state < b->state ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* ---- Profiles ---- */

void jank_profile_init(struct jank_profile *pf)
{
	memset(pf, 0, sizeof(*pf));
}

void jank_profile_fini(struct jank_profile *pf)
{
	free(pf->comps);
	jank_profile_init(pf);
}

int jank_profile_copy(struct jank_profile *dst, const struct jank_profile *src)
{
	struct jank_comp *comps = dst->comps;
	size_t cap = dst->cap;

	if (cap < src->n) {
		comps = realloc(comps, src->n * sizeof(*comps));
		if (!comps)
			return -ENOMEM;
		cap = src->n;
	}
	*dst = *src;
	dst->comps = comps;
	dst->cap = cap;
	if (src->n)
		memcpy(dst->comps, src->comps, src->n * sizeof(*comps));
	return 0;
}

static void copy_name(char *dst, const char *src)
{
	if (src)
		jank_utf8_copy(dst, JANK_COMM_LEN, src);
	else
		dst[0] = '\0';
}

/* A thread's names: its own (comm, else the graph's), and its pid's thread's. */
static void names_of(const struct jank_graph *g, int32_t tid, const char *comm, char *process,
		     char *thread)
{
	const struct jank_thread *w = tid > 0 ? jank_graph_find(g, tid) : NULL;
	const struct jank_thread *leader = NULL;

	if (w && w->pid > 0)
		leader = w->pid == tid ? w : jank_graph_find(g, w->pid);
	copy_name(thread, comm && comm[0] ? comm : w ? w->comm : "");
	copy_name(process, leader ? leader->comm : "");
}

static struct jank_comp *comp_add(struct jank_profile *pf)
{
	if (pf->n == pf->cap) {
		size_t ncap = jank_array_grow(&pf->comps, sizeof(*pf->comps), pf->cap, 16);

		if (!ncap)
			return NULL;
		pf->cap = ncap;
	}
	memset(&pf->comps[pf->n], 0, sizeof(pf->comps[0]));
	return &pf->comps[pf->n++];
}

static int cmp_comp_key(const void *a, const void *b)
{
	const struct jank_comp *x = a, *y = b;
	int c = cmp_key(&x->key, &y->key);

	return c ? c : (x->ns > y->ns ? -1 : x->ns < y->ns);
}

static int cmp_comp_ns(const void *a, const void *b)
{
	const struct jank_comp *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return cmp_key(&x->key, &y->key);
}

/* Sorted by key, equal keys (threads of a pool) become one, named by the largest. */
static void merge_equal(struct jank_profile *pf)
{
	size_t out = 0;

	jank_sort(pf->comps, pf->n, sizeof(*pf->comps), cmp_comp_key);
	for (size_t i = 0; i < pf->n; i++) {
		if (out && jank_comp_key_equal(&pf->comps[out - 1].key, &pf->comps[i].key)) {
			pf->comps[out - 1].ns += pf->comps[i].ns;
			continue;
		}
		pf->comps[out++] = pf->comps[i];
	}
	pf->n = out;
}

static int add_threads(struct jank_profile *pf, const struct jank_breakdown *b,
		       const struct jank_graph *g)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct jank_breakdown_item *it = &b->items[i];
		struct jank_comp *c = comp_add(pf);

		if (!c)
			return -ENOMEM;
		names_of(g, it->tid, it->comm, c->process, c->thread);
		c->key.kind = JANK_COMP_THREAD;
		c->key.state = it->state;
		c->key.id = jank_comp_identity(c->process, c->thread);
		c->ns = it->ns;
		c->tid = it->tid;
	}
	merge_equal(pf);
	return 0;
}

/* The lock's holder: the thread of the longest segment that waited for it. */
static void name_holder(struct jank_comp *c, const struct jank_path *p, const struct jank_graph *g)
{
	const struct jank_segment *best = NULL;

	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];

		if (s->lock == c->key.id && (!best || s->end - s->begin > best->end - best->begin))
			best = s;
	}
	if (!best)
		return;
	c->tid = best->tid;
	names_of(g, best->tid, best->comm, c->process, c->thread);
}

static int add_locks(struct jank_profile *pf, const struct jank_path *p,
		     const struct jank_breakdown *b, const struct jank_graph *g)
{
	for (size_t i = 0; i < b->nlocks; i++) {
		struct jank_comp *c = comp_add(pf);

		if (!c)
			return -ENOMEM;
		c->key.kind = JANK_COMP_LOCK;
		c->key.id = b->locks[i].lock;
		c->ns = b->locks[i].ns;
		if (i < HOLDERS_MAX)
			name_holder(c, p, g);
	}
	return 0;
}

static size_t fn_slot(const uint32_t *frames, uint32_t frame)
{
	size_t h = (size_t)((frame * 0x9e3779b97f4a7c15ull) >> 32) & (FN_SLOTS - 1);

	while (frames[h] && frames[h] != frame)
		h = (h + 1) & (FN_SLOTS - 1);
	return h;
}

/*
 * The functions with the most time (the breakdown's, largest first), each
 * with the state most of its time was in and the thread of its longest
 * segment: one pass over the path.
 */
static void add_functions(struct jank_profile *pf, const struct jank_path *p,
			  const struct jank_breakdown *b, const struct jank_graph *g)
{
	uint32_t frames[FN_SLOTS] = { 0 };
	uint8_t index[FN_SLOTS];
	int64_t per_state[JANK_PROFILE_FUNCTIONS][JANK_STATE_COUNT];
	const struct jank_segment *longest[JANK_PROFILE_FUNCTIONS] = { NULL };

	for (size_t i = 0; i < b->nfunctions && pf->nfns < JANK_PROFILE_FUNCTIONS; i++) {
		const struct jank_frame *f = jank_path_frame_of(p, b->functions[i].frame);
		struct jank_comp *c = &pf->fns[pf->nfns];
		size_t h;

		if (!f)
			continue;
		memset(c, 0, sizeof(*c));
		c->key.kind = JANK_COMP_FUNCTION;
		c->key.id = jank_comp_function_identity(f);
		c->ns = b->functions[i].ns;
		c->frame = b->functions[i].frame;
		h = fn_slot(frames, c->frame);
		frames[h] = c->frame;
		index[h] = (uint8_t)pf->nfns;
		memset(per_state[pf->nfns], 0, sizeof(per_state[0]));
		pf->nfns++;
	}
	if (!pf->nfns)
		return;
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];
		size_t h, k;

		if (!s->stack)
			continue;
		h = fn_slot(frames, jank_path_innermost(p, s->stack));
		if (!frames[h])
			continue;
		k = index[h];
		per_state[k][s->state] += s->end - s->begin;
		if (!longest[k] || s->end - s->begin > longest[k]->end - longest[k]->begin)
			longest[k] = s;
	}
	for (size_t k = 0; k < pf->nfns; k++) {
		struct jank_comp *c = &pf->fns[k];

		for (int st = 1; st < JANK_STATE_COUNT; st++)
			if (per_state[k][st] > per_state[k][c->fn_state])
				c->fn_state = (uint8_t)st;
		if (longest[k]) {
			c->tid = longest[k]->tid;
			names_of(g, longest[k]->tid, longest[k]->comm, c->process, c->thread);
		}
	}
}

int jank_profile_build(struct jank_profile *pf, const struct jank_path *p,
		       const struct jank_breakdown *b, const struct jank_graph *g, int32_t tid)
{
	char process[JANK_COMM_LEN], thread[JANK_COMM_LEN];
	const char *own = NULL;
	int r;

	pf->n = 0;
	pf->nfns = 0;
	pf->nran = 0;
	pf->tid = tid;
	pf->duration = p->end - p->begin;
	memcpy(pf->per_state, b->per_state, sizeof(pf->per_state));
	/* Named as its own segments are: the path's comm is what its components carry. */
	for (size_t i = 0; i < b->n && !own; i++)
		if (b->items[i].tid == tid)
			own = b->items[i].comm;
	names_of(g, tid, own, process, thread);
	pf->self = jank_comp_identity(process, thread);
	r = add_threads(pf, b, g);
	if (r == 0)
		r = add_locks(pf, p, b, g);
	jank_sort(pf->comps, pf->n, sizeof(*pf->comps), cmp_comp_ns);
	add_functions(pf, p, b, g);
	return r;
}

int64_t jank_profile_ns(const struct jank_profile *pf, const struct jank_comp_key *k)
{
	if (k->kind == JANK_COMP_STATE || k->kind == JANK_COMP_HOP)
		return k->state < JANK_STATE_COUNT ? pf->per_state[k->state] : 0;
	for (size_t i = 0; k->kind == JANK_COMP_FUNCTION && i < pf->nfns; i++)
		if (jank_comp_key_equal(&pf->fns[i].key, k))
			return pf->fns[i].ns;
	for (size_t i = 0; i < pf->n; i++)
		if (jank_comp_key_equal(&pf->comps[i].key, k))
			return pf->comps[i].ns;
	return 0;
}

/* ---- Baselines ---- */

void jank_baseline_init(struct jank_baseline *b)
{
	memset(b, 0, sizeof(*b));
}

static struct jank_baseline_entry *entry_find(struct jank_baseline_entry *v, size_t n,
					      const struct jank_comp_key *k)
{
	for (size_t i = 0; i < n; i++)
		if (jank_comp_key_equal(&v[i].key, k))
			return &v[i];
	return NULL;
}

static const struct jank_baseline_entry *entry_get(const struct jank_baseline_entry *v, size_t n,
						   const struct jank_comp_key *k)
{
	return entry_find((struct jank_baseline_entry *)v, n, k);
}

/*
 * Room in table v (*n of TOP) for a component first seen with `value` (its
 * mean, or its presence when by_presence): a free entry, or the one with
 * the smallest value if smaller. The entry is cleared, its key set.
 */
static struct jank_baseline_entry *entry_make(struct jank_baseline_entry *v, size_t *n,
					      const struct jank_comp_key *k, double value,
					      bool by_presence)
{
	struct jank_baseline_entry *min = NULL;

	if (*n < JANK_BASELINE_TOP) {
		min = &v[(*n)++];
	} else {
		for (size_t i = 0; i < *n; i++)
			if (!min ||
			    (by_presence ? v[i].presence < min->presence : v[i].mean < min->mean))
				min = &v[i];
		if ((by_presence ? min->presence : min->mean) >= value)
			return NULL;
	}
	memset(min, 0, sizeof(*min));
	min->key = *k;
	return min;
}

/* The weight of the n-th action learnt in a window. */
static double weight(uint64_t n, unsigned window)
{
	return n < window ? 1.0 / (double)n : 1.0 / (double)window;
}

/*
 * Functions of a normal action: every kept mean and presence moves towards
 * this action's (0 for a function it lacks) by a; a function not kept
 * enters with a share a of its time, and presence a.
 */
static void learn_functions(struct jank_baseline *b, const struct jank_profile *pf, double a)
{
	bool seen[JANK_BASELINE_TOP] = { false };

	for (size_t i = 0; i < pf->nfns; i++) {
		const struct jank_comp *c = &pf->fns[i];
		struct jank_baseline_entry *e = entry_find(b->fns, b->nfns, &c->key);

		if (e) {
			e->mean += a * ((double)c->ns - e->mean);
			e->presence += a * (1.0 - e->presence);
		} else if ((e = entry_make(b->fns, &b->nfns, &c->key, a * (double)c->ns, false))) {
			e->mean = a * (double)c->ns;
			e->presence = a;
		} else {
			continue;
		}
		seen[e - b->fns] = true;
	}
	for (size_t i = 0; i < b->nfns; i++) {
		if (seen[i])
			continue;
		b->fns[i].mean -= a * b->fns[i].mean;
		b->fns[i].presence -= a * b->fns[i].presence;
	}
}

/*
 * Every kept mean moves towards this action's value by `a` (0 for a
 * component it lacks); a component not kept enters with a share a of it.
 */
void jank_baseline_learn(struct jank_baseline *b, const struct jank_profile *pf)
{
	bool seen[JANK_BASELINE_TOP] = { false };
	double a;

	b->n++;
	a = weight(b->n, JANK_BASELINE_WINDOW);
	b->duration += a * ((double)pf->duration - b->duration);
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		b->per_state[s] += a * ((double)pf->per_state[s] - b->per_state[s]);
	for (size_t i = 0; i < pf->n; i++) {
		const struct jank_comp *c = &pf->comps[i];
		struct jank_baseline_entry *e = entry_find(b->top, b->ntop, &c->key);

		if (e) {
			e->mean += a * ((double)c->ns - e->mean);
		} else if ((e = entry_make(b->top, &b->ntop, &c->key, a * (double)c->ns, false))) {
			e->mean = a * (double)c->ns;
			memcpy(e->process, c->process, JANK_COMM_LEN);
			memcpy(e->thread, c->thread, JANK_COMM_LEN);
		} else {
			continue;
		}
		seen[e - b->top] = true;
	}
	for (size_t i = 0; i < b->ntop; i++)
		if (!seen[i])
			b->top[i].mean -= a * b->top[i].mean;
	learn_functions(b, pf, a);
}

void jank_baseline_learn_slow(struct jank_baseline *b, const struct jank_profile *pf)
{
	bool seen[JANK_BASELINE_TOP] = { false };
	double a;

	b->nslow++;
	a = weight(b->nslow, JANK_BASELINE_SLOW_WINDOW);
	for (size_t i = 0; i < pf->nfns; i++) {
		const struct jank_comp *c = &pf->fns[i];
		struct jank_baseline_entry *e = entry_find(b->slow, b->nslowfns, &c->key);

		if (e)
			e->presence += a * (1.0 - e->presence);
		else if ((e = entry_make(b->slow, &b->nslowfns, &c->key, a, true)))
			e->presence = a;
		else
			continue;
		seen[e - b->slow] = true;
	}
	for (size_t i = 0; i < b->nslowfns; i++)
		if (!seen[i])
			b->slow[i].presence -= a * b->slow[i].presence;
}

double jank_baseline_mean(const struct jank_baseline *b, const struct jank_comp_key *k)
{
	const struct jank_baseline_entry *e;

	if (k->kind == JANK_COMP_STATE || k->kind == JANK_COMP_HOP)
		return k->state < JANK_STATE_COUNT ? b->per_state[k->state] : 0.0;
	if (k->kind == JANK_COMP_FUNCTION)
		e = entry_get(b->fns, b->nfns, k);
	else
		e = entry_get(b->top, b->ntop, k);
	return e ? e->mean : 0.0;
}

double jank_baseline_presence(const struct jank_baseline *b, const struct jank_comp_key *k,
			      bool slow)
{
	const struct jank_baseline_entry *e = NULL;

	if (k->kind == JANK_COMP_FUNCTION)
		e = slow ? entry_get(b->slow, b->nslowfns, k) : entry_get(b->fns, b->nfns, k);
	return e ? e->presence : 0.0;
}

/* ---- Suspects ---- */

/* A candidate: a component of the profile (or a state's, in `states`) and how it compares. */
struct cand {
	const struct jank_comp *comp;
	double normal, ratio, ps, pn, rank;
	int64_t delta;
};

struct cands {
	struct cand *v;
	size_t n;
};

static void cand_add(struct cands *c, const struct jank_baseline *b, const struct jank_comp *comp,
		     int64_t floor)
{
	double normal = jank_baseline_mean(b, &comp->key);
	int64_t delta = comp->ns - (int64_t)(normal + 0.5);
	struct cand *s;

	if (delta < floor)
		return;
	s = &c->v[c->n++];
	s->comp = comp;
	s->normal = normal;
	s->delta = delta;
	s->ratio = (double)comp->ns / (normal > RATIO_FLOOR ? normal : RATIO_FLOOR);
	s->ps = s->pn = 0.0;
	s->rank = (double)delta;
	if (comp->key.kind == JANK_COMP_FUNCTION) {
		double inc;

		s->ps = jank_baseline_presence(b, &comp->key, true);
		s->pn = jank_baseline_presence(b, &comp->key, false);
		inc = s->ps - s->pn;
		s->rank = (double)delta * (1.0 + (inc > 0 ? inc : 0.0));
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	const struct jank_comp_key *kx = &x->comp->key, *ky = &y->comp->key;

	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	/* Equal ranks: the more specific first (function, lock, thread, hop, state). */
	if (kx->kind != ky->kind)
		return kx->kind > ky->kind ? -1 : 1;
	return cmp_key(kx, ky);
}

/* Whether candidate o is finer than s: spent within it. */
static bool finer(const struct cand *o, const struct cand *s)
{
	const struct jank_comp *oc = o->comp, *sc = s->comp;

	switch (sc->key.kind) {
	case JANK_COMP_STATE:
	case JANK_COMP_HOP:
		return (oc->key.kind == JANK_COMP_THREAD && oc->key.state == sc->key.state) ||
		       (oc->key.kind == JANK_COMP_FUNCTION && oc->fn_state == sc->key.state);
	case JANK_COMP_THREAD:
		if (oc->key.kind == JANK_COMP_LOCK)
			return jank_comp_identity(oc->process, oc->thread) == sc->key.id;
		return oc->key.kind == JANK_COMP_FUNCTION && oc->fn_state == sc->key.state &&
		       jank_comp_identity(oc->process, oc->thread) == sc->key.id;
	default:
		return false;
	}
}

/* Whether a more specific candidate explains at least SPECIFIC_SHARE of s's increase. */
static bool explained(const struct cands *c, const struct cand *s)
{
	double need = SPECIFIC_SHARE * (double)s->delta;

	for (size_t i = 0; i < c->n; i++)
		if ((double)c->v[i].delta >= need && finer(&c->v[i], s))
			return true;
	return false;
}

static void candidates(const struct jank_baseline *b, const struct jank_profile *pf,
		       struct jank_comp *states, struct cands *c)
{
	int64_t floor = pf->duration / 100 > 1000 ? pf->duration / 100 : 1000;

	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		struct jank_comp *comp = &states[s];

		memset(comp, 0, sizeof(*comp));
		comp->key.kind = jank_state_is_hop(s) ? JANK_COMP_HOP : JANK_COMP_STATE;
		comp->key.state = (uint8_t)s;
		comp->ns = pf->per_state[s];
		comp->tid = pf->tid;
		cand_add(c, b, comp, floor);
	}
	for (size_t i = 0; i < pf->n && i < CAND_COMPS; i++)
		cand_add(c, b, &pf->comps[i], floor);
	for (size_t i = 0; i < pf->nfns && i < CAND_FNS; i++)
		cand_add(c, b, &pf->fns[i], floor);
	jank_sort(c->v, c->n, sizeof(*c->v), cmp_rank);
}

static void suspect_set(struct jank_suspect *s, const struct cand *c, const struct jank_profile *pf)
{
	const struct jank_comp_key *k = &c->comp->key;

	memset(s, 0, sizeof(*s));
	s->comp = *c->comp;
	s->normal = c->normal;
	s->delta = c->delta;
	s->ratio = c->ratio;
	s->rank = c->rank;
	if (k->kind == JANK_COMP_THREAD)
		s->own = k->id == pf->self;
	if (k->kind == JANK_COMP_FUNCTION) {
		s->own = jank_comp_identity(c->comp->process, c->comp->thread) == pf->self;
		s->presence_slow = c->ps;
		s->presence_normal = c->pn;
		s->increase = c->ps - c->pn;
	}
}

void jank_baseline_suspects(const struct jank_baseline *b, const struct jank_profile *pf,
			    struct jank_suspects *out)
{
	struct cand v[JANK_STATE_COUNT + CAND_COMPS + CAND_FNS];
	struct jank_comp states[JANK_STATE_COUNT];
	struct cands c = { v, 0 };

	memset(out, 0, sizeof(*out));
	out->normal = b->n;
	out->normal_duration = b->duration;
	out->ready = b->n >= JANK_BASELINE_MIN;
	memcpy(out->ran, pf->ran, sizeof(out->ran));
	out->nran = pf->nran;
	if (!out->ready)
		return;
	/* Candidates: every state, the largest thread and lock components, the largest functions.
	 */
	candidates(b, pf, states, &c);
	for (size_t i = 0; i < c.n && out->n < JANK_SUSPECTS_MAX; i++)
		if (!explained(&c, &c.v[i]))
			suspect_set(&out->items[out->n++], &c.v[i], pf);
}

void jank_suspects_name(struct jank_suspects *ss, const struct jank_path *p)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct jank_suspect *s = &ss->items[i];
		const struct jank_frame *f;

		if (s->comp.key.kind != JANK_COMP_FUNCTION)
			continue;
		f = jank_path_frame_of(p, s->comp.frame);
		if (!f || jank_comp_function_identity(f) != s->comp.key.id)
			continue;
		if (f->name[0])
			snprintf(s->function, sizeof(s->function), "%s", f->name);
		else
			snprintf(s->function, sizeof(s->function), "0x%" PRIx64, f->addr);
	}
}
