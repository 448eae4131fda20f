/* SPDX-License-Identifier: MIT */
/*
 * System model: what each CPU runs, its interrupt-context stack, and each
 * thread's state, comm and pid. It turns kernel (and user-space lock) events
 * into execution-graph operations.
 */
#ifndef JANK_MODEL_H
#define JANK_MODEL_H

#include <stdint.h>
#include "event.h"
#include "graph.h"
#include "layout.h"

#define JANK_IRQ_STACK_MAX 8

enum jank_ctx_kind {
	JANK_CTX_IRQ = 1,
	JANK_CTX_SOFTIRQ,
	JANK_CTX_HRTIMER,
	JANK_CTX_IPI,
};

struct jank_ctx {
	uint8_t kind;
	uint8_t vec;	  /* softirq vector */
	bool hop;	  /* NET_RX: the sender's `network` interval was opened here */
	uint32_t sender;  /* NET_RX raised in a thread's context: its serial, else 0 */
	int64_t entry_ts; /* when the context began */
};

struct jank_cpu {
	int32_t cur_tid;	 /* -1 when unknown, 0 for idle */
	struct jank_worker *cur; /* NULL when idle or unknown */
	uint32_t depth;		 /* interrupt contexts entered, including those beyond the stack */
	uint32_t net_raiser;	 /* serial of the thread that raised NET_RX here, 0 */
	struct jank_ctx stack[JANK_IRQ_STACK_MAX];
};

struct jank_model {
	struct jank_graph *graph;
	const struct jank_layout *layout; /* the trace's, for prev_state */
	struct jank_cpu *cpus;
	uint32_t ncpus;
	uint64_t lost_contexts;	   /* exits with no matching entry */
	uint64_t repaired_current; /* CPUs whose current thread the tid context corrected */
	bool kernel;		   /* scheduler events seen: they hold the waits */
	struct jank_locks *locks;
};

/* `layout` is read at each switch: it may change (a trace's environment) after init. */
int jank_model_init(struct jank_model *m, struct jank_graph *g, const struct jank_layout *layout);
void jank_model_fini(struct jank_model *m);
void jank_model_process(struct jank_model *m, enum jank_event_type type,
			const struct jank_event *ev);
/* Thread running on a CPU at the time of the last event, or -1. */
int32_t jank_model_current_tid(const struct jank_model *m, int32_t cpu);
/* Events were lost on a CPU (-1: any): forget what may have changed unseen. */
void jank_model_discarded(struct jank_model *m, int32_t cpu, int64_t ts);
/* State that a wakeup from the given interrupt context gives the wakee's wait. */
enum jank_state jank_model_context_label(const struct jank_ctx *c);

#endif
