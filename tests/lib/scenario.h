/* SPDX-License-Identifier: MIT */
/*
 * Scenario helpers: write a synthetic event sequence as a short script and
 * check the critical path against an exact list of segments.
 *
 * Events go through jank_engine_resolve_class() and a field list, exactly as
 * the babeltrace2 input layer feeds them, so the tests exercise the same
 * decode contract. Both kernel layouts are available: the current one
 * (sched_waking, irq_softirq_*, timer_hrtimer_*) and lttng-modules <= 2.5
 * (sched_wakeup only, softirq_*, hrtimer_expire_*).
 */
#ifndef JANK_TEST_SCENARIO_H
#define JANK_TEST_SCENARIO_H

#include <stdint.h>
#include "engine.h"

struct scn_layout {
	const char *label;
	long major, minor;
	bool has_waking;
	const char *softirq_entry, *softirq_exit;
	const char *hrtimer_entry, *hrtimer_exit;
};

extern const struct scn_layout scn_layout_current;
extern const struct scn_layout scn_layout_2_5;

#define SCN_MAX_CLASSES 128

struct scn {
	struct jank_engine *e;
	const struct scn_layout *l;
	struct {
		const char *name;
		enum jank_domain domain;
		uint32_t id;
		const char *const *fields;
		unsigned nfields;
	} classes[SCN_MAX_CLASSES];
	unsigned nclasses;
	int pid;	  /* pid (vpid) of user-space events; 0: each thread is its own process */
	uint32_t pid_ns;  /* their pid_ns context; 0: none */
	const char *comm; /* procname context of user-space events; NULL: none */
};

/* A field for scn_event(): name, then an int or a string. */
struct scn_field {
	const char *name;
	bool is_str;
	int64_t i;
	const char *s;
	const uint64_t *a; /* an array of n (call stacks), when not NULL */
	uint32_t n;
};
#define I(n, v)	      ((struct scn_field){ .name = (n), .i = (v) })
#define S(n, v)	      ((struct scn_field){ .name = (n), .is_str = true, .s = (v) })
#define A(nm, v, cnt) ((struct scn_field){ .name = (nm), .a = (v), .n = (cnt) })

void scn_init(struct scn *s, const struct scn_layout *l, const struct jank_engine_config *cfg);
void scn_fini(struct scn *s);
/* Generic event; tid = -1 when the event has no tid context (kernel). */
void scn_event_v(struct scn *s, enum jank_domain d, int64_t ts, int cpu, int tid, const char *name,
		 const struct scn_field *f, unsigned n);
#define scn_kernel(s, ts, cpu, name, ...)                                                          \
	scn_event_v((s), JANK_DOMAIN_KERNEL, (ts), (cpu), -1, (name),                              \
		    (const struct scn_field[]){ __VA_ARGS__ },                                     \
		    sizeof((const struct scn_field[]){ __VA_ARGS__ }) / sizeof(struct scn_field))
#define scn_ust(s, ts, cpu, tid, name, ...)                                                        \
	scn_event_v((s), JANK_DOMAIN_UST, (ts), (cpu), (tid), (name),                              \
		    (const struct scn_field[]){ __VA_ARGS__ },                                     \
		    sizeof((const struct scn_field[]){ __VA_ARGS__ }) / sizeof(struct scn_field))

void scn_switch(struct scn *s, int64_t ts, int cpu, int prev, int prev_state, int next);
/* A wakeup as the layout writes it: sched_waking then sched_wakeup, or sched_wakeup alone. */
void scn_wake(struct scn *s, int64_t ts, int cpu, int tid);
void scn_wakeup_new(struct scn *s, int64_t ts, int cpu, int tid);
void scn_fork(struct scn *s, int64_t ts, int cpu, int parent, int child);
void scn_softirq(struct scn *s, int64_t ts, int cpu, int vec, bool entry);
void scn_hrtimer(struct scn *s, int64_t ts, int cpu, bool entry);
void scn_irq(struct scn *s, int64_t ts, int cpu, int irq, bool entry);

struct seg {
	int tid;
	const char *state;
	int64_t begin, end;
};

/* Fails the test, printing both paths, unless the path is exactly `want`. */
void scn_assert_path(const struct jank_path *p, const struct seg *want, size_t n);
#define assert_path(p, ...)                                                                        \
	scn_assert_path((p), (const struct seg[]){ __VA_ARGS__ },                                  \
			sizeof((const struct seg[]){ __VA_ARGS__ }) / sizeof(struct seg))
/* Computes the path of tid over [b, e] on the scenario's graph, checks that it tiles. */
void scn_path(struct scn *s, int tid, int64_t b, int64_t e, struct jank_path *out);
void scn_assert_tiles(const struct jank_path *p);

#endif
