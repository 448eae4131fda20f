/* SPDX-License-Identifier: MIT */
/*
 * The critical-path picture's content (critpath-svg.c): the path cut into
 * steps (one thread, one state, one call stack), the steps into lanes, one
 * per thread; the wakeups between lanes, found in the graph, and the
 * devices the path waited on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "critpath-svg-int.h"

/* ---- The path as steps and lanes ---- */

static int cmp_ref(const void *a, const void *b)
{
	const struct lane_ref *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

size_t critpath_svg_lane_of(const struct picture *pic, uint32_t host, int32_t tid)
{
	struct lane_ref key = { tid, 0, host }, *r;

	r = bsearch(&key, pic->refs, pic->nrefs, sizeof(*pic->refs), cmp_ref);
	return r ? r->lane : 0;
}

/* Lanes by time on the path, the action's thread first; then by appearance. */
static int cmp_lane_ns(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	if (x->action != y->action)
		return x->action ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_lane_first(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	if (x->action != y->action)
		return x->action ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* A path across hosts: each host's lanes together, the action's host first. */
static int cmp_lane_group(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return cmp_lane_first(a, b);
}

/* Each lane's group: 0 for the action's host, else 1 + its host's first appearance. */
static void group_lanes(struct lane *all, size_t n, uint32_t action_host)
{
	for (size_t i = 0; i < n; i++) {
		all[i].group = all[i].host == action_host ? 0 : all[i].first + 1;
		for (size_t k = 0; k < n && all[i].group; k++)
			if (all[k].host == all[i].host && all[k].first + 1 < all[i].group)
				all[i].group = all[k].first + 1;
	}
	jank_sort(all, n, sizeof(*all), cmp_lane_group);
}

/*
 * One lane per thread of the path, in order of appearance with the action's
 * thread first. Past MAX_LANES threads, those with the least time on the
 * path share one last lane, so that the picture stays a picture.
 */
static int build_lanes(struct picture *pic)
{
	const struct jank_path *p = pic->p;
	/* The action's thread is where its path ends (on its host, when it crosses hosts). */
	uint32_t action_host = p->n ? p->segs[p->n - 1].host : 0;
	struct lane *all;
	size_t n = 0, keep;

	pic->refs = calloc(p->n, sizeof(*pic->refs));
	all = calloc(p->n + 1, sizeof(*all));
	if (!pic->refs || !all) {
		free(all);
		return -ENOMEM;
	}
	/* Distinct threads: sort the (tid, segment) pairs, then merge. */
	for (size_t i = 0; i < p->n; i++)
		pic->refs[i] = (struct lane_ref){ p->segs[i].tid, i, p->segs[i].host };
	jank_sort(pic->refs, p->n, sizeof(*pic->refs), cmp_ref);
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *sg = &p->segs[pic->refs[i].lane];

		if (n == 0 || all[n - 1].tid != sg->tid || all[n - 1].host != sg->host)
			all[n++] = (struct lane){
				sg->tid,  sg->comm,
				0,	  pic->refs[i].lane,
				1,	  sg->tid == pic->r->tid && sg->host == action_host,
				sg->host, 0
			};
		all[n - 1].ns += sg->end - sg->begin;
		if (pic->refs[i].lane < all[n - 1].first)
			all[n - 1].first = pic->refs[i].lane;
		if (!all[n - 1].comm[0] && sg->comm[0])
			all[n - 1].comm = sg->comm;
	}
	keep = n;
	if (n > MAX_LANES) {
		jank_sort(all, n, sizeof(*all), cmp_lane_ns);
		keep = MAX_LANES - 1;
	}
	jank_sort(all, keep, sizeof(*all), cmp_lane_first);
	group_lanes(all, keep, action_host);
	pic->lanes = calloc(keep + 1, sizeof(*pic->lanes));
	if (!pic->lanes) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < keep; i++)
		pic->lanes[pic->nlanes++] = all[i];
	if (keep < n) {
		struct lane *o = &pic->lanes[pic->nlanes++];

		*o = (struct lane){ -1, "", 0, SIZE_MAX, n - keep, false, 0, SIZE_MAX };
		for (size_t i = keep; i < n; i++)
			o->ns += all[i].ns;
	}
	/* The map, by tid. */
	for (size_t i = 0; i < n; i++) {
		pic->refs[i].tid = all[i].tid;
		pic->refs[i].host = all[i].host;
		pic->refs[i].lane = keep < n ? keep : 0;
	}
	pic->nrefs = n;
	jank_sort(pic->refs, n, sizeof(*pic->refs), cmp_ref);
	for (size_t i = 0; i < keep; i++) {
		struct lane_ref key = { pic->lanes[i].tid, 0, pic->lanes[i].host }, *r;

		r = bsearch(&key, pic->refs, n, sizeof(*pic->refs), cmp_ref);
		if (r)
			r->lane = i;
	}
	free(all);
	return 0;
}

int critpath_svg_build(struct picture *pic, const struct jank_verdict *r)
{
	const struct jank_path *p = r->path;
	int ret;

	pic->r = r;
	pic->p = p;
	pic->steps = calloc(p->n, sizeof(*pic->steps));
	if (!pic->steps)
		return -ENOMEM;
	ret = build_lanes(pic);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *sg = &p->segs[i];
		struct step *last = pic->nsteps ? &pic->steps[pic->nsteps - 1] : NULL;

		if (last && last->tid == sg->tid && last->host == sg->host &&
		    last->state == sg->state && last->stack == sg->stack &&
		    last->end == sg->begin) {
			last->end = sg->end;
			continue;
		}
		pic->steps[pic->nsteps++] =
			(struct step){ sg->tid,	 sg->state, sg->begin, sg->end,
				       sg->comm, sg->stack, false,     sg->host };
	}
	return 0;
}

/* Did `from` wake `to` at t? The woken thread's vertex at t has a vertical edge from it. */
static bool graph_wakeup(const struct jank_graph *g, int32_t from, int32_t to, int64_t t)
{
	const struct jank_thread *w = jank_graph_find_any(g, to);
	uint64_t idx;

	if (!w)
		return false;
	idx = jank_thread_find_before(w, t + 1);
	for (int k = 0; idx != UINT64_MAX && k < 4; k++, idx--) {
		const struct jank_vertex *v = jank_thread_vertex(w, idx);
		const struct jank_thread *src;

		if (!v || v->ts != t)
			break;
		src = v->from_serial != JANK_NO_THREAD ? jank_graph_find_serial(g, v->from_serial)
						       : NULL;
		if (src && src->tid == from)
			return true;
		if (idx == 0)
			break;
	}
	return false;
}

/*
 * Without the graph: walk the path backwards as it was computed. Moving
 * (backwards) to a thread that is not on the stack of threads being waited
 * for is a jump to a waker (forwards: a wakeup); moving back to one on the
 * stack ends a wait (forwards: the start of that wait).
 */
/* The name of a host label of the path. */
const char *critpath_svg_host_name(const struct picture *pic, uint32_t host)
{
	const struct jank_label *l = jank_path_label_of(pic->p, host);

	return l ? l->name : "?";
}

/* A thread of a step: its tid and its host's label (tids of two hosts collide). */
int64_t critpath_svg_step_thread(const struct step *s)
{
	return (int64_t)((uint64_t)s->host << 32 | (uint32_t)s->tid);
}

static void order_wakeups(struct picture *pic)
{
	int64_t *stack = calloc(pic->nsteps + 1, sizeof(*stack));
	size_t top = 0;

	if (!stack)
		return;
	stack[top++] = critpath_svg_step_thread(&pic->steps[pic->nsteps - 1]);
	for (size_t i = pic->nsteps - 1; i > 0; i--) {
		int64_t from = critpath_svg_step_thread(&pic->steps[i - 1]);
		size_t k = top;

		if (from == critpath_svg_step_thread(&pic->steps[i]))
			continue;
		while (k > 0 && stack[k - 1] != from)
			k--;
		if (k > 0) {
			top = k; /* back on a waiting thread */
		} else {
			pic->steps[i].wakeup = true;
			stack[top++] = from;
		}
	}
	free(stack);
}

void critpath_svg_find_wakeups(struct picture *pic, const struct jank_graph *g)
{
	/* A graph is one host's: a path across hosts is read as it was computed. */
	for (size_t i = 0; g && i < pic->nsteps; i++)
		if (pic->steps[i].host)
			g = NULL;
	if (!g) {
		order_wakeups(pic);
		return;
	}
	for (size_t i = 1; i < pic->nsteps; i++)
		if (pic->steps[i].tid != pic->steps[i - 1].tid)
			pic->steps[i].wakeup = graph_wakeup(g, pic->steps[i - 1].tid,
							    pic->steps[i].tid, pic->steps[i].begin);
}

/*
 * A wait that an interrupt context ended has no waker thread: its source
 * gets a lane of its own, labelled here (name, then what it stands for).
 */
bool critpath_svg_device_state(enum jank_state s, const char **name, const char **what)
{
	const char *n = NULL, *w = NULL;

	switch (s) {
	case JANK_STATE_TIMER:
		n = "timer", w = "hrtimer, timer softirq";
		break;
	case JANK_STATE_NETWORK:
		n = "network", w = "net softirq";
		break;
	case JANK_STATE_BLOCK_DEVICE:
		n = "disk", w = "block softirq";
		break;
	case JANK_STATE_INTERRUPTED:
		n = "interrupt", w = "hard IRQ";
		break;
	case JANK_STATE_IPI:
		n = "IPI", w = "inter-processor interrupt";
		break;
	default:
		return false;
	}
	if (name)
		*name = n;
	if (what)
		*what = w;
	return true;
}

void critpath_svg_find_devices(struct picture *pic)
{
	for (size_t i = 0; i < pic->nsteps; i++) {
		bool seen = false;

		if (!critpath_svg_device_state(pic->steps[i].state, NULL, NULL))
			continue;
		for (size_t k = 0; k < pic->ndevices; k++)
			seen |= pic->devices[k] == pic->steps[i].state;
		if (!seen)
			pic->devices[pic->ndevices++] = pic->steps[i].state;
	}
}

size_t critpath_svg_device_lane(const struct picture *pic, uint8_t state)
{
	for (size_t k = 0; k < pic->ndevices; k++)
		if (pic->devices[k] == state)
			return pic->nlanes + k;
	return 0;
}
