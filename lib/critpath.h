/* SPDX-License-Identifier: MIT */
/*
 * Critical path of a thread interval: what it was really waiting on.
 * The segments of a path tile [begin, end] exactly, in time order. Each says
 * which flow brought the path to its thread, and in which of its thread's
 * actions (span) it was.
 */
#ifndef JANK_CRITPATH_H
#define JANK_CRITPATH_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "graph.h"

struct jank_segment {
	int32_t tid;
	uint8_t state;
	int64_t begin;
	int64_t end;
	uint64_t lock; /* user-space mutex the path waited for here, 0 when none */
	char comm[JANK_COMM_LEN];
	/*
	 * Labels (jank_path_label_of), 0 when none. `flow`: the path came to
	 * this thread through that flow (the segment is on the thread that
	 * picked the work up). `span`: the thread's innermost open action.
	 */
	uint32_t flow;
	uint32_t span;
};

/* A flow's name (key ""), or an action's name and key. */
struct jank_label {
	char name[JANK_LABEL_NAME_LEN];
	char key[JANK_LABEL_KEY_LEN];
};

struct jank_path {
	int32_t tid;
	int64_t begin;
	int64_t end;
	bool truncated;	 /* part of the path reached freed graph (an `unknown` segment) */
	bool incomplete; /* out of memory: the segments cover [segs[0].begin, end] only */
	struct jank_segment *segs;
	size_t n;
	size_t cap;
	struct jank_label *labels; /* label id i + 1 */
	size_t nlabels;
	size_t labels_cap;
};

struct jank_breakdown_item {
	int32_t tid;
	uint8_t state;
	int64_t ns;
	char comm[JANK_COMM_LEN];
};

struct jank_breakdown_lock {
	uint64_t lock;
	int64_t ns; /* time the path spent waiting for this mutex */
};

struct jank_breakdown {
	int64_t per_state[JANK_STATE_COUNT];
	struct jank_breakdown_item *items; /* per (tid, state), largest first */
	size_t n;
	size_t cap;
	uint32_t *index;  /* open addressing over items: position + 1, 0 when empty */
	size_t index_cap; /* a power of two, at least twice n */
	struct jank_breakdown_lock *locks; /* per mutex, largest first */
	size_t nlocks;
	size_t locks_cap;
};

void jank_path_init(struct jank_path *p);
void jank_path_fini(struct jank_path *p);
/* The id of a label of the path, added when new; 0 when out of memory. */
uint32_t jank_path_label(struct jank_path *p, const char *name, const char *key);
/* A label by id; NULL for 0 or an unknown id. */
const struct jank_label *jank_path_label_of(const struct jank_path *p, uint32_t id);

/*
 * Compute the path of thread `tid` over [begin, end], walking backwards from
 * (tid, end). Returns 0, -ENOENT when the graph has no such thread (the path
 * is then one `unknown` segment), -EINVAL when end < begin, -ENOMEM: the
 * segments found so far are kept, in time order, and `incomplete` is set.
 */
int jank_critpath_compute(const struct jank_graph *g, int32_t tid, int64_t begin, int64_t end,
			  struct jank_path *out);

/* The same from a given worker (e.g. a retired one, from jank_graph_find_any()). */
int jank_critpath_compute_worker(const struct jank_graph *g, const struct jank_worker *w,
				 int64_t begin, int64_t end, struct jank_path *out);

void jank_breakdown_init(struct jank_breakdown *b);
void jank_breakdown_fini(struct jank_breakdown *b);
int jank_breakdown_compute(const struct jank_path *p, struct jank_breakdown *out);

#endif
