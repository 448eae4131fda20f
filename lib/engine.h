/* SPDX-License-Identifier: MIT */
/*
 * The analysis engine: system model + execution graph + action tracking +
 * garbage collection, fed one time-ordered jank_event at a time.
 *
 * The engine is deterministic: the same event stream gives the same reports,
 * whether it comes from a live session or from a trace on disk.
 *
 * Input protocol:
 *  1. For each trace, jank_engine_set_layout() with its environment.
 *  2. For each event class, once: jank_engine_resolve_class() gives a class
 *     id and the list of fields the engine needs, in order.
 *  3. For each event: fill a jank_event and call jank_engine_process().
 *  4. At the end: jank_engine_finish().
 */
#ifndef JANK_ENGINE_H
#define JANK_ENGINE_H

#include <stdint.h>
#include <stdbool.h>
#include "event.h"
#include "actions.h"
#include "baseline.h"
#include "composition.h"
#include "critpath.h"
#include "graph.h"
#include "layout.h"
#include "netmatch.h"
#include "strtable.h"

#define JANK_CLASS_INVALID UINT32_MAX

struct jank_engine_config {
	int64_t retention_ns;  /* keep at least this much graph behind now (default 2 s) */
	uint64_t memory_limit; /* hard budget in bytes for graph + open actions (default 256 MiB) */
	int64_t action_timeout_ns; /* open actions older than this expire (default 60 s) */
	int64_t overdue_grace_ns;  /* report an open action past threshold + this (0: never) */
	bool gc;		   /* false keeps the whole graph (offline critpath/graph) */
	bool report_all;	   /* report every completed action, not only janks */
	bool baseline; /* learn each rule's normal actions, name a slow one's suspects (default on)
			*/
	/* Names each rule's composition keeps (composition.h); 0 (the default): none is kept. */
	unsigned composition_top;
};

enum jank_verdict_kind {
	JANK_VERDICT_COMPLETED = 0, /* the action ended */
	JANK_VERDICT_OVERDUE,	    /* still open past its threshold plus the grace time */
};

/* "completed", "overdue" ("?" out of range); and back (-1 for no kind). */
JANK_STRTABLE_DECLARE(jank_verdict_kind, enum jank_verdict_kind);

struct jank_verdict {
	enum jank_verdict_kind kind;
	const struct jank_rule *rule;
	uint32_t rule_index;
	const char *key;
	int64_t begin;
	int64_t end; /* end event time, or now for an overdue action */
	int64_t duration;
	int64_t threshold; /* 0 when the rule has no threshold yet (adaptive warm-up) */
	bool over_threshold;
	int32_t tid; /* thread the path was computed from (the end thread) */
	int32_t pid;
	const char *comm;
	const struct jank_path *path;
	const struct jank_breakdown *breakdown;
	/* The breakdown in components (baseline.h); NULL with baselines off, but for report_all. */
	const struct jank_profile *profile;
	/* Over threshold or overdue, with baselines on: what differs from the normal actions. */
	const struct jank_suspects *suspects;
	bool incomplete; /* out of memory: the path or breakdown is partial (counted) */
	/*
	 * Events the tracer discarded in ranges overlapping [begin, end]: the
	 * path may miss a wakeup. A range is known to within the packets that
	 * reported it; past JANK_DISCARD_RANGES ranges since begin, merged
	 * ranges may add some discarded just outside (discards.h).
	 */
	uint64_t discarded_events;
};

typedef void (*jank_verdict_fn)(const struct jank_verdict *r, void *data);

/* What became of one rule's actions (its histogram has the completed ones). */
struct jank_rule_stats {
	uint64_t janks;	  /* completed over threshold */
	uint64_t overdue; /* reported overdue */
	uint64_t expired; /* open past action_timeout, dropped */
	uint64_t evicted; /* open, dropped by the memory budget */
	/* The latest jank (completed over threshold), for exemplars: 0 and "" before one. */
	int64_t last_jank_ns;
	char last_jank_key[JANK_KEY_LEN];
};

struct jank_engine_stats {
	uint64_t events;
	uint64_t actions_completed;
	uint64_t janks; /* over threshold */
	uint64_t overdue;
	uint64_t overdue_unsure; /* past threshold + grace, not reported: events lost since begin */
	uint64_t actions_open;
	uint64_t actions_expired;   /* open past action_timeout, dropped */
	uint64_t actions_replaced;  /* begin repeated before end */
	uint64_t actions_unmatched; /* end without begin */
	uint64_t actions_dropped;   /* open when their rule was replaced */
	uint64_t actions_evicted;   /* open, dropped by the memory budget (oldest first) */
	uint64_t rules_unusable;  /* (rule, event class) pairs whose key or match field is absent */
	uint64_t flows_paired;	  /* a `to` found its `from` */
	uint64_t flows_unmatched; /* a `to` without a `from` */
	uint64_t flows_replaced;  /* a `from` whose key was pending already (the latest wins) */
	uint64_t flows_pending;	  /* `from`s waiting for their `to` */
	uint64_t flows_expired;	  /* pending past action_timeout, dropped */
	uint64_t flows_evicted;	  /* pending, dropped by the memory budget (oldest first) */
	uint64_t flows_dropped;	  /* pending when their flow was replaced */
	uint64_t paths_truncated; /* reached freed graph */
	uint64_t paths_incomplete; /* out of memory while computing a path or its breakdown */
	uint64_t budget_forced;	   /* times the memory budget moved the horizon */
	uint64_t discarded_events;
	uint64_t function_events;      /* function entries and exits (cyg-profile) */
	uint64_t function_resyncs;     /* exits that were not the innermost frame's: lost events */
	uint64_t stacks;	       /* distinct call stacks interned, live now */
	uint64_t stacks_full;	       /* frames not interned: the table was full */
	uint64_t stacks_refused_share; /* frames not interned: their binary held its share */
	uint64_t stacks_freed;	       /* stacks no live thread referred to, freed by GC */
	uint64_t memory_bytes;
	uint64_t memory_peak;
	int64_t horizon;
	int64_t first; /* the first event's time, INT64_MIN before any */
	int64_t now;   /* the latest event's time, INT64_MIN before any */
	struct jank_graph_stats graph;
};

struct jank_engine;

void jank_engine_config_defaults(struct jank_engine_config *c);
struct jank_engine *jank_engine_new(const struct jank_engine_config *c);
void jank_engine_free(struct jank_engine *e);

/* Rules are copied. Returns the rule index, or -errno. */
int jank_engine_add_rule(struct jank_engine *e, const struct jank_rule *r);
size_t jank_engine_rule_count(const struct jank_engine *e);
const struct jank_rule *jank_engine_rule(const struct jank_engine *e, size_t i);
const struct jank_histogram *jank_engine_rule_histogram(const struct jank_engine *e, size_t i);
uint64_t jank_engine_rule_janks(const struct jank_engine *e, size_t i);
/* NULL past the last rule. */
const struct jank_rule_stats *jank_engine_rule_stats(const struct jank_engine *e, size_t i);
/* What the rule's normal actions look like so far (NULL past the last rule). */
const struct jank_baseline *jank_engine_rule_baseline(const struct jank_engine *e, size_t i);
/*
 * Replace what rule i's normal actions look like (a baseline saved by an
 * earlier engine with the same rule: jankd's state). The caller checked it
 * (io/baseline-file.c). Returns 0, or -EINVAL past the last rule.
 */
int jank_engine_set_rule_baseline(struct jank_engine *e, size_t i, const struct jank_baseline *b);
/* What rule i's slow and sampled normal actions waited on (composition.h). */
const struct jank_composition *jank_engine_rule_composition(const struct jank_engine *e, size_t i);

/*
 * Replace the rules while events flow (config reload). The graph is kept.
 * A rule whose name, events, keys and match are unchanged keeps its open
 * actions and its histogram, and its baseline if its threshold is unchanged
 * too (else which actions are normal changed); the open actions of other
 * rules are dropped and
 * counted in actions_dropped. Class ids are invalidated: the generation
 * changes, and the input must resolve every event class again before it
 * sends more events. Returns 0 or -errno (the old rules stay on error).
 */
int jank_engine_replace_rules(struct jank_engine *e, const struct jank_rule *rules, size_t n);
/* Changes whenever class ids are invalidated. */
uint64_t jank_engine_generation(const struct jank_engine *e);

/*
 * Flows ([flow NAME], actions.h), as rules: copied, added before the first
 * event (-EBUSY after), replaced while events flow (a flow unchanged keeps
 * its pending `from`s; the others' are dropped and counted in
 * flows_dropped; class ids are invalidated as by jank_engine_replace_rules).
 * -EINVAL when a flow lacks a name, an event or a key; -E2BIG when an event
 * would have too many roles or fields with the rules (jank_rules_check()).
 * Returns the flow index, or 0, or -errno.
 *
 * A `to` on thread B at t1 paired with the latest `from` of its key, on
 * thread A at t0, is an edge A@t0 → B@t1: walking a critical path back to
 * t1 on B, the path stays on B back to t0, then goes on through A. Pending
 * `from`s keep the graph from t0 on, count in the memory budget and expire
 * as open actions do.
 */
int jank_engine_add_flow(struct jank_engine *e, const struct jank_flow_rule *f);
int jank_engine_replace_flows(struct jank_engine *e, const struct jank_flow_rule *flows, size_t n);
size_t jank_engine_flow_count(const struct jank_engine *e);
const struct jank_flow_rule *jank_engine_flow(const struct jank_engine *e, size_t i);

void jank_engine_set_verdict_cb(struct jank_engine *e, jank_verdict_fn fn, void *data);

/*
 * A flow event as the engine saw it: a `from` once it waits for its `to`, a
 * `to` (paired or not here). For whoever joins inputs (lib/crosshost.h): a
 * `to` that found no `from` in this engine may have one on another host.
 */
struct jank_flow_note {
	uint32_t flow; /* the flow's index */
	bool to;
	bool paired; /* a `to` whose `from` this engine had */
	int32_t tid;
	int64_t ts;
	const char *key; /* valid during the call */
};
typedef void (*jank_flow_note_fn)(const struct jank_flow_note *n, void *data);
void jank_engine_set_flow_cb(struct jank_engine *e, jank_flow_note_fn fn, void *data);

/*
 * A TCP segment of the kernel tracer's (netmatch.h), for whoever matches
 * hosts' packets: a send (net_dev_queue in a thread's context: that thread,
 * at the event), or a reception whose softirq then woke a thread: that
 * thread, the instant after the wakeup (within the woken thread's wait,
 * where a path walking back meets it). Told only with a listener set.
 */
struct jank_net_note {
	bool recv;
	int32_t tid;
	int64_t ts;
	const struct jank_tcp_seg *seg; /* valid during the call */
};
typedef void (*jank_net_note_fn)(const struct jank_net_note *n, void *data);
void jank_engine_set_net_cb(struct jank_engine *e, jank_net_note_fn fn, void *data);
/*
 * Who names the frames of a verdict's path (io's symbolizer), called before
 * the verdict callback for the frames not named yet; without one, frames are
 * hex addresses.
 */
void jank_engine_set_namer(struct jank_engine *e, jank_frame_namer fn, void *data);
/*
 * Who says where user code is (io's symbolizer: the binary that process
 * `process` maps at addr; a key of jank_process_key(): the event's pid and
 * PID namespace): true with *code (a nonzero id of the binary, the same for
 * every process that maps it, never reused for another) and *offset (addr
 * in the binary's own terms). Then call stacks are interned by binary and
 * offset, shared by every process of that binary, and frames carry them
 * for the namer (jank_frame.code). Without one, or where it says false,
 * frames are addresses of their process.
 */
typedef bool (*jank_code_locator)(int64_t process, uint64_t addr, uint32_t *code, uint64_t *offset,
				  void *data);
void jank_engine_set_locator(struct jank_engine *e, jank_code_locator fn, void *data);

/*
 * The input layer found no field `index` of the fields it was asked for
 * (jank_engine_resolve_class) in `class_id`, whose fields are `available`
 * (a comma-separated list, for the message). A rule whose key or match
 * reads that field cannot apply to the class: it ignores the class's events
 * (rather than matching or pairing them all), and it is counted in
 * rules_unusable. Returns 1 with a one-line message in `msg` when a rule
 * was concerned (say it once: it is not repeated), 0 otherwise.
 */
int jank_engine_field_missing(struct jank_engine *e, uint32_t class_id, unsigned index,
			      const char *available, char *msg, size_t len);

/* Trace environment (kernel domain): tracer_major/minor, -1 when absent. */
void jank_engine_set_layout(struct jank_engine *e, long tracer_major, long tracer_minor);
/* Trace environment (kernel domain): kernel_release, which decides how prev_state reads. */
void jank_engine_set_kernel(struct jank_engine *e, const char *kernel_release);
const struct jank_layout *jank_engine_layout(const struct jank_engine *e);

/*
 * Resolve an event class once. Returns its class id (JANK_CLASS_INVALID on
 * allocation failure) and the payload/context field names the engine needs,
 * in the order jank_event.fields must hold them. Classes the engine does not
 * care about get a valid id and no fields; their events may be skipped by the
 * caller when jank_engine_class_wanted() is false.
 */
uint32_t jank_engine_resolve_class(struct jank_engine *e, enum jank_domain domain, const char *name,
				   const char *const **fields, unsigned *nfields);
bool jank_engine_class_wanted(const struct jank_engine *e, uint32_t class_id);
const char *jank_engine_class_name(const struct jank_engine *e, uint32_t class_id);

/* Process one event. Events must come in time order. */
void jank_engine_process(struct jank_engine *e, const struct jank_event *ev);
/*
 * `count` events were lost on `cpu` (-1: unknown CPU) between begin and end,
 * told at begin (no event after begin was processed yet; end may be ahead):
 * threads whose state may have changed unseen become `unknown` from begin
 * until their next state-setting event, an action open at end is not
 * reported overdue, and each verdict whose interval overlaps [begin, end]
 * counts them in its discarded_events (a count of 0, as for a
 * disconnection, only makes threads unknown).
 */
void jank_engine_discarded_range(struct jank_engine *e, int32_t cpu, int64_t begin, int64_t end,
				 uint64_t count);
/* The same with begin = end = ts. */
void jank_engine_discarded(struct jank_engine *e, int32_t cpu, int64_t ts, uint64_t count);
/*
 * Change the limits while events flow (config reload): retention_ns,
 * memory_limit, action_timeout_ns and overdue_grace_ns of c; the rest of c is
 * ignored. They take effect at the next maintenance (a tick, or a few events):
 * a shorter retention or a smaller budget frees the older graph then.
 */
void jank_engine_set_limits(struct jank_engine *e, const struct jank_engine_config *c);
/* Check open actions against thresholds and timeouts at `now`. */
void jank_engine_tick(struct jank_engine *e, int64_t now);
/* End of input: run a last tick at the last event time. */
void jank_engine_finish(struct jank_engine *e);

void jank_engine_get_stats(const struct jank_engine *e, struct jank_engine_stats *out);
const struct jank_graph *jank_engine_graph(const struct jank_engine *e);

#endif
