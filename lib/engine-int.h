/* SPDX-License-Identifier: MIT */
/*
 * Inside the engine: its state and what its files (engine.c, engine-*.c)
 * share. Not for use outside lib/engine*.c.
 */
#ifndef JANK_ENGINE_INT_H
#define JANK_ENGINE_INT_H

#include <string.h>
#include "array.h"
#include "discards.h"
#include "engine.h"
#include "locks.h"
#include "model.h"
#include "pidns.h"
#include "textsafe.h"

#define GC_EVERY	   1024
#define GC_BUDGET	   64
#define GC_BUDGET_PRESSURE 1024
#define BUDGET_ROUNDS	   8
#define RAN_SCANS	   32 /* preempted segments looked for on every CPU, per action */

enum {
	POS_NONE = -2,
	POS_TID = -1
};

struct class_role {
	uint32_t rule; /* an index of rules, or of flows */
	bool flow;     /* a flow's from (end false) or to (end true) */
	bool end;
	bool unusable; /* a key or match field the class lacks: its events are ignored */
	int8_t key_pos[JANK_RULE_MAX_KEYS];
	int8_t match_pos;
	struct jank_value match; /* the rule's match value (its string is the rule's) */
	/*
	 * The length of the text before each key value, class_info's key_pre:
	 * "name=", ",id="; 0 past the last key, or for a name too long for it
	 * (format_key() then makes the key a byte at a time).
	 */
	uint8_t pre_len[JANK_RULE_MAX_KEYS];
	/*
	 * Not 0 when value k is the match's field and the match is a string,
	 * so that whenever the value is a string it is the match's (the event
	 * passed the match): key_pre[k] holds it after the name, fold_len[k]
	 * bytes in all ("name=load"). format_key() copies it whole, and an end
	 * compares it with its action's without reading it.
	 */
	uint8_t fold_len[JANK_RULE_MAX_KEYS];
};

/* The room for the text before a key value: ',' + name + '=' (a fixed-size copy). */
#define KEY_PRE_LEN 16

/* What every event reads comes first: one cache line for most classes. */
struct class_info {
	enum jank_event_type type;
	unsigned nroles;
	bool wanted;
	bool may_free; /* its events can free memory (note_peak before them) */
	enum jank_domain domain;
	struct class_role roles[JANK_MAX_RULES_PER_EVENT];
	int8_t cs_user,
		cs_kernel; /* kernel: the callstack contexts' field positions, or POS_NONE */
	char *name;
	const char *fields[JANK_EVENT_MAX_FIELDS + 1];
	unsigned nfields;
	/* By role, then key: the text before the value (its length in the role's pre_len). */
	char key_pre[JANK_MAX_RULES_PER_EVENT][JANK_RULE_MAX_KEYS][KEY_PRE_LEN];
};

struct rule_state {
	struct jank_rule rule;
	size_t name_len; /* strlen(rule.name): its spans' name */
	struct jank_histogram hist;
	struct jank_rule_stats stats;
	struct jank_baseline baseline;
	int64_t learn_at;	      /* the next normal action ending at or after this is learnt */
	struct jank_composition comp; /* what its slow and sampled normal actions waited on */
};

struct flow_state {
	struct jank_flow_rule rule;
	uint16_t id; /* the graph's id of its name */
};

struct jank_engine {
	struct jank_engine_config cfg;
	struct jank_graph *graph;
	struct jank_model model;
	struct jank_layout layout;
	struct rule_state *rules;
	size_t nrules;
	struct jank_action_table *actions;
	struct flow_state *flows;
	size_t nflows;
	struct jank_action_table *pending; /* the flows' `from`s not picked up yet */
	struct class_info *classes;
	size_t nclasses;
	size_t classes_cap;
	jank_verdict_fn report_fn;
	void *report_data;
	jank_frame_namer namer;
	void *namer_data;
	jank_code_locator locator;
	void *locator_data;
	uint64_t stacks_collected_at; /* events at the last collection of stacks */
	jank_flow_note_fn flow_note;  /* who hears of flow events (joins across inputs) */
	void *flow_note_data;
	jank_net_note_fn net_note; /* who hears of TCP segments (engine-net.c) */
	void *net_note_data;
	struct engine_net_rx *net_rx; /* by CPU: the latest TCP segment received there */
	uint32_t net_rx_n;
	struct jank_path path;
	struct jank_breakdown breakdown;
	struct jank_profile profile;
	struct jank_suspects suspects;
	struct jank_engine_stats stats;
	uint64_t since_gc;
	size_t gc_threads; /* thread records after the last GC step */
	uint64_t check_at; /* memory that makes the next event run a GC step */
	bool forced;	   /* over budget: the horizon ignores open actions */
	int64_t first_ts;  /* first event time */
	int64_t loss_ts;   /* latest time events were lost (discarded, disconnected) */
	/* Where and how many: each verdict's discarded_events. */
	struct jank_discards discards;
	bool started;
	bool ctx_stacks; /* a kernel event's callstack context gave some thread its stack */
	uint64_t generation;
	struct jank_pidns pidns; /* the numbers of containers' threads (pidns.h) */
};

/* engine-net.c */
void engine_on_net(struct jank_engine *e, enum jank_event_type type, const struct jank_event *ev);
void engine_net_free(struct jank_engine *e);

/* engine-rules.c */
struct jank_action_table *engine_new_action_table(struct jank_engine *e, size_t n);
void engine_free_rules(struct rule_state *rs, size_t n);
void engine_free_flows(struct flow_state *fs, size_t n);

/* engine-verdicts.c */
uint32_t engine_fill_thread_info(struct jank_engine *e, int32_t tid, const struct jank_event *ev,
				 int32_t *pid, char *comm);
/*
 * The same with w the thread's record, looked up already (NULL: none).
 * Inline: every action's begin.
 */
static inline uint32_t engine_fill_thread_info_w(struct jank_thread *w, const struct jank_event *ev,
						 int32_t *pid, char *comm)
{
	if (w && ev)
		jank_thread_seen(w, ev->ts);
	if (ev && ev->pid >= 0)
		*pid = ev->pid;
	else if (w && w->pid >= 0)
		*pid = w->pid;
	if (ev && ev->comm) {
		jank_utf8_copy_short(comm, JANK_COMM_LEN, ev->comm);
	} else if (w && w->comm[0]) {
		memcpy(comm, w->comm, JANK_COMM_LEN);
	}
	return w ? w->serial : JANK_NO_THREAD;
}
bool engine_analyse(struct jank_engine *e, int32_t tid, uint32_t serial, int64_t begin,
		    int64_t end);
void engine_report(struct jank_engine *e, enum jank_verdict_kind kind, uint32_t rule,
		   const struct jank_action *a, int32_t tid, int32_t pid, const char *comm,
		   int64_t end, int64_t threshold, bool over, bool incomplete);

/*
 * engine-gc.c. The memory the budget counts: every table keeps its own
 * count current as it grows and shrinks, and this sums them (a few loads:
 * it is read before every event that may free, and every 4 events). The
 * CPUs' histories are a fixed cost (jank_model_bytes), outside the budget.
 */
static inline uint64_t engine_memory_bytes(const struct jank_engine *e)
{
	return jank_graph_bytes(e->graph) + jank_locks_bytes(e->model.locks) +
	       (e->actions ? jank_action_table_bytes(e->actions) : 0) +
	       (e->pending ? jank_action_table_bytes(e->pending) : 0);
}

/*
 * Every call that can free memory (an event ends an action or a lock
 * record, new rules, a collection) notes the peak first, so that
 * jank_engine_get_stats() never reports a peak lower than an earlier one.
 */
static inline void engine_note_peak(struct jank_engine *e)
{
	uint64_t bytes = engine_memory_bytes(e);

	if (bytes > e->stats.memory_peak)
		e->stats.memory_peak = bytes;
}

void engine_maintain(struct jank_engine *e);

/* engine-stacks.c */
void engine_on_function(struct jank_engine *e, bool entry, const struct jank_event *ev);
void engine_kernel_stacks_slow(struct jank_engine *e, const struct class_info *ci,
			       const struct jank_event *ev, const struct jank_value *u,
			       const struct jank_value *k);

/* A callstack context of the event at position pos, when it has frames; else NULL. */
static inline const struct jank_value *engine_stack_ctx(const struct jank_event *ev, int8_t pos)
{
	const struct jank_value *v;

	if (pos < 0 || (unsigned)pos >= ev->nfields)
		return NULL;
	v = &ev->fields[pos];
	return v->type == JANK_VALUE_ARRAY && v->a.n ? v : NULL;
}

/*
 * A kernel event's callstack contexts (engine-stacks.c). Inline, what
 * most kernel events come to: no context with frames, nothing to drop.
 */
static inline void engine_kernel_stacks(struct jank_engine *e, const struct class_info *ci,
					const struct jank_event *ev)
{
	const struct jank_value *u, *k;

	if (ci->type == JANK_EVENT_PROCESS_EXIT && ev->nfields > JANK_F_EXIT_TID) {
		engine_kernel_stacks_slow(e, ci, ev, NULL, NULL);
		return;
	}
	u = engine_stack_ctx(ev, ci->cs_user);
	k = engine_stack_ctx(ev, ci->cs_kernel);
	if (u || k || (ci->type == JANK_EVENT_SYSCALL_EXIT && e->ctx_stacks))
		engine_kernel_stacks_slow(e, ci, ev, u, k);
}
/*
 * The thread ran at its own user-space event: a wait inferred later (a
 * condition wait, locks.c) starts after it. Without scheduler events, a
 * vertex marks it. Inline: every user-space event of a class with roles.
 */
static inline void engine_note_ust_event(struct jank_engine *e, const struct jank_event *ev)
{
	struct jank_thread *w = jank_graph_lookup(e->graph, ev->tid);

	if (!w)
		return;
	if (!e->model.kernel)
		jank_graph_split(e->graph, w, ev->ts);
	if (ev->ts > w->ust_last)
		w->ust_last = ev->ts;
}

/* engine-classes.c */
void engine_forget_classes(struct jank_engine *e);
int engine_start(struct jank_engine *e);

/* engine-events.c. The thread an event is of: its context's, else the one its CPU runs. */
static inline int32_t engine_emitting_tid(const struct jank_engine *e, const struct jank_event *ev)
{
	return ev->tid >= 0 ? ev->tid : jank_model_current_tid(&e->model, ev->cpu);
}

#endif
