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
	/* The thread's call stack here (jank_path_stack_of), 0 when unknown. */
	uint32_t stack;
	/*
	 * The host the thread is on, a label (jank_path_host) when the path
	 * crosses hosts (pids and tids of two hosts collide), 0: the one host.
	 */
	uint32_t host;
};

/*
 * A function of a path's stacks: its address in process pid (or a kernel
 * address), and its name once jank_path_name_frames() gave it one (a path
 * rebuilt from names has names and address 0).
 */
#define JANK_FRAME_NAME_LEN 128
struct jank_frame {
	uint64_t addr; /* in process pid, or an offset in binary `code` */
	int32_t pid;
	uint32_t code; /* the binary (jank_engine_set_locator), 0: addr is pid's */
	bool kernel;
	char name[JANK_FRAME_NAME_LEN];
};

/* A stack of a path: frames[first .. first + n) of jank_path.stack_frames, outermost first. */
struct jank_path_stack {
	uint32_t first;
	uint32_t n;
};

/*
 * Segments are cut where the thread's stack changes, but pieces shorter than
 * the path's duration / JANK_PATH_FN_GRAIN in a row make one segment, whose
 * stack is what theirs have in common (their callers): a path over a thread
 * that calls many short functions has at most about 2 * JANK_PATH_FN_GRAIN
 * segments for them, and their time goes to the callers.
 */
#define JANK_PATH_FN_GRAIN 1024

/* Names a frame: writes its text in buf (always terminated). */
typedef void (*jank_frame_namer)(const struct jank_frame *f, char *buf, size_t len, void *data);

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
	struct jank_frame *frames; /* frame id i + 1 */
	size_t nframes;
	size_t frames_cap;
	uint32_t *frame_index; /* open addressing over frames: id, 0 when empty */
	size_t frame_index_cap;
	uint32_t *stack_frames; /* frame ids of the stacks, each outermost first */
	size_t nstack_frames;
	size_t stack_frames_cap;
	struct jank_path_stack *stacks; /* stack id i + 1 */
	size_t nstacks;
	size_t stacks_cap;
};

struct jank_breakdown_item {
	int32_t tid;
	uint8_t state;
	int64_t ns;
	char comm[JANK_COMM_LEN];
	uint32_t host; /* the segments' host label (of breakdown.path), 0: the one host */
};

struct jank_breakdown_lock {
	uint64_t lock;
	int64_t ns; /* time the path spent waiting for this mutex */
};

/* Time on the path per innermost function (a frame of the path). */
struct jank_breakdown_fn {
	uint32_t frame;
	int64_t ns;
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
	struct jank_breakdown_fn *functions; /* per innermost function, largest first */
	const struct jank_path *path; /* the path computed from: its frames name the functions */
	size_t nfunctions;
	size_t functions_cap;
};

void jank_path_init(struct jank_path *p);
void jank_path_fini(struct jank_path *p);
/* The id of a label of the path, added when new; 0 when out of memory. */
uint32_t jank_path_label(struct jank_path *p, const char *name, const char *key);
/* The label id of a host name (for jank_segment.host), added when new; 0 when out of memory. */
uint32_t jank_path_host(struct jank_path *p, const char *host);
/* A label by id; NULL for 0 or an unknown id. */
const struct jank_label *jank_path_label_of(const struct jank_path *p, uint32_t id);

/*
 * Frames and stacks of a path. jank_path_frame: the id of a frame, added
 * when new (frames are the same when their address, process and kind are,
 * or, for address 0, their names); 0 when out of memory. jank_path_stack:
 * the id of a stack of n frame ids (outermost first), 0 when out of memory.
 * jank_path_stack_of: a stack's frame ids (n of them), NULL for 0 or an
 * unknown id. jank_path_innermost: the frame id of a stack's innermost
 * frame, 0 when none.
 */
uint32_t jank_path_frame(struct jank_path *p, uint64_t addr, int32_t pid, bool kernel,
			 const char *name);
/* The same, for an offset addr in binary `code` (0: an address of pid). */
uint32_t jank_path_frame_in(struct jank_path *p, uint64_t addr, int32_t pid, uint32_t code,
			    bool kernel, const char *name);
const struct jank_frame *jank_path_frame_of(const struct jank_path *p, uint32_t id);
uint32_t jank_path_stack(struct jank_path *p, const uint32_t *frames, uint32_t n);
const uint32_t *jank_path_stack_of(const struct jank_path *p, uint32_t id, uint32_t *n);
uint32_t jank_path_innermost(const struct jank_path *p, uint32_t stack);
/*
 * Give every frame without a name one: namer's, or with no namer, the
 * address in hex ("0x4011d6"). Frames never stay nameless.
 */
void jank_path_name_frames(struct jank_path *p, jank_frame_namer namer, void *data);
/* dst becomes a copy of src (segments, labels, frames and stacks). 0 or -ENOMEM. */
int jank_path_copy(struct jank_path *dst, const struct jank_path *src);

/*
 * Compute the path of thread `tid` over [begin, end], walking backwards from
 * (tid, end). Returns 0, -ENOENT when the graph has no such thread (the path
 * is then one `unknown` segment), -EINVAL when end < begin, -ENOMEM: the
 * segments found so far are kept, in time order, and `incomplete` is set.
 */
int jank_critpath_compute(const struct jank_graph *g, int32_t tid, int64_t begin, int64_t end,
			  struct jank_path *out);

/* The same from a given thread record (e.g. a retired one, from jank_graph_find_any()). */
int jank_critpath_compute_thread(const struct jank_graph *g, const struct jank_thread *w,
				 int64_t begin, int64_t end, struct jank_path *out);

void jank_breakdown_init(struct jank_breakdown *b);
void jank_breakdown_fini(struct jank_breakdown *b);
int jank_breakdown_compute(const struct jank_path *p, struct jank_breakdown *out);

#endif
