/* SPDX-License-Identifier: MIT */
/*
 * Profiles, baselines and suspects (see baseline.h).
 *
 * A profile is built from the breakdown the engine computes anyway: its
 * (tid, state) items become thread components once their tids are named
 * (sorted by key, then merged, so that two threads of a pool with the same
 * names count as one), its locks become lock components. The holder of a
 * lock, for the wording, is the thread of the longest segment that waited
 * for it.
 */
#include <errno.h>
#include <string.h>
#include "array.h"
#include "baseline.h"

/* A lock component past this many gets no holder's name: each costs a pass over the path. */
#define HOLDERS_MAX 8
/* A specific suspect replaces a generic one when it explains this share of its increase. */
#define SPECIFIC_SHARE 0.5
/* Ratios are taken against at least this much normal time (ns). */
#define RATIO_FLOOR 1000.0

static const char *const jank_comp_kind_names[JANK_COMP_KIND_COUNT] = {
	[JANK_COMP_STATE] = "state",
	[JANK_COMP_HOP] = "hop",
	[JANK_COMP_THREAD] = "thread",
	[JANK_COMP_LOCK] = "lock",
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
	size_t n = src ? strnlen(src, JANK_COMM_LEN - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A thread's names: its own (comm, else the graph's), and its pid's thread's. */
static void names_of(const struct jank_graph *g, int32_t tid, const char *comm, char *process,
		     char *thread)
{
	const struct jank_worker *w = tid > 0 ? jank_graph_find(g, tid) : NULL;
	const struct jank_worker *leader = NULL;

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

int jank_profile_build(struct jank_profile *pf, const struct jank_path *p,
		       const struct jank_breakdown *b, const struct jank_graph *g, int32_t tid)
{
	char process[JANK_COMM_LEN], thread[JANK_COMM_LEN];
	const char *own = NULL;
	int r;

	pf->n = 0;
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
	return r;
}

int64_t jank_profile_ns(const struct jank_profile *pf, const struct jank_comp_key *k)
{
	if (k->kind == JANK_COMP_STATE || k->kind == JANK_COMP_HOP)
		return k->state < JANK_STATE_COUNT ? pf->per_state[k->state] : 0;
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

static struct jank_baseline_entry *entry_find(struct jank_baseline *b,
					      const struct jank_comp_key *k)
{
	for (size_t i = 0; i < b->ntop; i++)
		if (jank_comp_key_equal(&b->top[i].key, k))
			return &b->top[i];
	return NULL;
}

/* Room for a component first seen with mean `mean`: a free entry, or the smallest if smaller. */
static struct jank_baseline_entry *entry_make(struct jank_baseline *b, double mean)
{
	struct jank_baseline_entry *min = NULL;

	if (b->ntop < JANK_BASELINE_TOP)
		return &b->top[b->ntop++];
	for (size_t i = 0; i < b->ntop; i++)
		if (!min || b->top[i].mean < min->mean)
			min = &b->top[i];
	return min->mean < mean ? min : NULL;
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
	a = b->n < JANK_BASELINE_WINDOW ? 1.0 / (double)b->n : 1.0 / JANK_BASELINE_WINDOW;
	b->duration += a * ((double)pf->duration - b->duration);
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		b->per_state[s] += a * ((double)pf->per_state[s] - b->per_state[s]);
	for (size_t i = 0; i < pf->n; i++) {
		const struct jank_comp *c = &pf->comps[i];
		struct jank_baseline_entry *e = entry_find(b, &c->key);

		if (e) {
			e->mean += a * ((double)c->ns - e->mean);
		} else if ((e = entry_make(b, a * (double)c->ns))) {
			e->key = c->key;
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
}

double jank_baseline_mean(const struct jank_baseline *b, const struct jank_comp_key *k)
{
	if (k->kind == JANK_COMP_STATE || k->kind == JANK_COMP_HOP)
		return k->state < JANK_STATE_COUNT ? b->per_state[k->state] : 0.0;
	for (size_t i = 0; i < b->ntop; i++)
		if (jank_comp_key_equal(&b->top[i].key, k))
			return b->top[i].mean;
	return 0.0;
}

/* ---- Suspects ---- */

struct cands {
	struct jank_suspect *v;
	size_t n;
};

static void cand_add(struct cands *c, const struct jank_baseline *b, const struct jank_profile *pf,
		     const struct jank_comp *comp, int64_t floor)
{
	double normal = jank_baseline_mean(b, &comp->key);
	int64_t delta = comp->ns - (int64_t)(normal + 0.5);
	struct jank_suspect *s;

	if (delta < floor)
		return;
	s = &c->v[c->n++];
	s->comp = *comp;
	s->normal = normal;
	s->delta = delta;
	s->ratio = (double)comp->ns / (normal > RATIO_FLOOR ? normal : RATIO_FLOOR);
	s->own = comp->key.kind == JANK_COMP_THREAD && comp->key.id == pf->self;
}

static int cmp_delta(const void *a, const void *b)
{
	const struct jank_suspect *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	/* Equal increases: the more specific first (lock, thread, hop, state). */
	if (x->comp.key.kind != y->comp.key.kind)
		return x->comp.key.kind > y->comp.key.kind ? -1 : 1;
	return cmp_key(&x->comp.key, &y->comp.key);
}

/* Whether a more specific candidate explains at least SPECIFIC_SHARE of s's increase. */
static bool explained(const struct cands *c, const struct jank_suspect *s)
{
	double need = SPECIFIC_SHARE * (double)s->delta;

	for (size_t i = 0; i < c->n; i++) {
		const struct jank_suspect *o = &c->v[i];
		bool finer;

		if ((double)o->delta < need)
			continue;
		if (s->comp.key.kind == JANK_COMP_STATE || s->comp.key.kind == JANK_COMP_HOP)
			finer = o->comp.key.kind == JANK_COMP_THREAD &&
				o->comp.key.state == s->comp.key.state;
		else if (s->comp.key.kind == JANK_COMP_THREAD)
			finer = o->comp.key.kind == JANK_COMP_LOCK &&
				jank_comp_identity(o->comp.process, o->comp.thread) ==
					s->comp.key.id;
		else
			finer = false;
		if (finer)
			return true;
	}
	return false;
}

static size_t candidates(const struct jank_baseline *b, const struct jank_profile *pf,
			 struct cands *c)
{
	int64_t floor = pf->duration / 100 > 1000 ? pf->duration / 100 : 1000;

	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		struct jank_comp comp = { 0 };

		comp.key.kind = jank_state_is_hop(s) ? JANK_COMP_HOP : JANK_COMP_STATE;
		comp.key.state = (uint8_t)s;
		comp.ns = pf->per_state[s];
		comp.tid = pf->tid;
		cand_add(c, b, pf, &comp, floor);
	}
	for (size_t i = 0; i < pf->n; i++)
		cand_add(c, b, pf, &pf->comps[i], floor);
	jank_sort(c->v, c->n, sizeof(*c->v), cmp_delta);
	return c->n;
}

void jank_baseline_suspects(const struct jank_baseline *b, const struct jank_profile *pf,
			    struct jank_suspects *out)
{
	struct jank_suspect stack[JANK_STATE_COUNT + 64];
	struct cands c = { stack, 0 };

	memset(out, 0, sizeof(*out));
	out->normal = b->n;
	out->normal_duration = b->duration;
	out->ready = b->n >= JANK_BASELINE_MIN;
	memcpy(out->ran, pf->ran, sizeof(out->ran));
	out->nran = pf->nran;
	if (!out->ready)
		return;
	/* Candidates: every state, and the largest thread and lock components. */
	if (pf->n > 64) {
		struct jank_profile head = *pf;

		head.n = 64;
		candidates(b, &head, &c);
	} else {
		candidates(b, pf, &c);
	}
	for (size_t i = 0; i < c.n && out->n < JANK_SUSPECTS_MAX; i++)
		if (!explained(&c, &c.v[i]))
			out->items[out->n++] = c.v[i];
}
