/* SPDX-License-Identifier: MIT */
/*
 * What is normal for a kind of action, and what was different this time.
 *
 * A profile says where one action's time went, in components:
 *
 *   state   time per state on the path: running, preempted, blocked,
 *           lock_wait, user_input, unknown
 *   hop     time per interrupt-context label: timer, network, block_device,
 *           interrupted, ipi (the waits an interrupt ended)
 *   thread  time per (process name, thread name, state): the threads the
 *           action waited on, and its own. Names, not tids, so that a
 *           restarted process or another thread of a pool is the same
 *           component.
 *   lock    time waiting for one user-space mutex (by address)
 *
 * States and hops together tile the action, and so do the thread
 * components; lock time is a part of it.
 *
 * A baseline learns, from the normal actions of a rule (those under its
 * threshold), the mean time per action of each component. The means decay
 * exponentially: each normal action weighs 1/n while fewer than
 * JANK_BASELINE_WINDOW were seen (the plain mean), then 1/WINDOW, so an old
 * habit fades with a half-life of about 69 normal actions. Memory is fixed:
 * every state and hop, and the JANK_BASELINE_TOP thread and lock components
 * with the largest means (a new one replaces the smallest when its first
 * share is larger). Learning costs a critical path and O(TOP) per normal
 * action learnt (at most one per JANK_BASELINE_GAP_NS); it never runs per
 * event.
 *
 * The suspects of a slow action are its components whose time exceeds the
 * baseline's mean the most (the difference, and the ratio). A generic
 * component gives way to a specific one that explains at least half of its
 * increase: a state to the thread that spent it, a thread to the lock it
 * held. Until JANK_BASELINE_MIN normal actions were seen, there is no
 * baseline: no suspect is named.
 *
 * Pure C, no I/O.
 */
#ifndef JANK_BASELINE_H
#define JANK_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "critpath.h"
#include "graph.h"
#include "strtable.h"

/*
 * Normal actions before suspects are named: with 10, the mean of a
 * component whose spread is as large as its mean is known to about a third
 * (one standard error, 1/sqrt(10)).
 */
#define JANK_BASELINE_MIN 10
/*
 * The engine learns at most one normal action per rule and this much trace
 * time (1 ms): a rule with 20,000 actions per second learns from 1,000 of
 * them, so what learning costs stays bounded whatever the rate of actions.
 */
#define JANK_BASELINE_GAP_NS 1000000
#define JANK_BASELINE_WINDOW 100
#define JANK_BASELINE_TOP    32
#define JANK_SUSPECTS_MAX    5
#define JANK_RAN_MAX	     3

enum jank_comp_kind {
	JANK_COMP_STATE = 0,
	JANK_COMP_HOP,
	JANK_COMP_THREAD,
	JANK_COMP_LOCK,
	JANK_COMP_KIND_COUNT,
};

struct jank_comp_key {
	uint8_t kind;
	uint8_t state; /* STATE, HOP, THREAD; 0 for LOCK */
	uint64_t id;   /* THREAD: hash of the names; LOCK: the mutex; 0 otherwise */
};

/* A component of one action. */
struct jank_comp {
	struct jank_comp_key key;
	int64_t ns;
	int32_t tid;		     /* THREAD: its thread with the most time; LOCK: the holder's */
	char process[JANK_COMM_LEN]; /* THREAD, LOCK (the holder's); "" when unknown */
	char thread[JANK_COMM_LEN];
};

/* A thread that ran on a CPU while the path waited for it (preempted). */
struct jank_ran {
	int32_t tid;
	int64_t ns;
	char comm[JANK_COMM_LEN];
};

struct jank_profile {
	int32_t tid;   /* the action's thread */
	uint64_t self; /* the identity of its names */
	int64_t duration;
	int64_t per_state[JANK_STATE_COUNT]; /* the state and hop components */
	struct jank_comp *comps;	     /* thread and lock components, largest first */
	size_t n;
	size_t cap;
	struct jank_ran ran[JANK_RAN_MAX]; /* who had the CPU, most time first */
	size_t nran;
};

struct jank_baseline_entry {
	struct jank_comp_key key;
	double mean; /* ns per normal action */
	char process[JANK_COMM_LEN];
	char thread[JANK_COMM_LEN];
};

struct jank_baseline {
	uint64_t n;	 /* normal actions learnt */
	double duration; /* their mean duration */
	double per_state[JANK_STATE_COUNT];
	struct jank_baseline_entry top[JANK_BASELINE_TOP];
	size_t ntop;
};

struct jank_suspect {
	struct jank_comp comp; /* kind, state, names, this action's time */
	double normal;	       /* the baseline's mean, ns */
	int64_t delta;	       /* comp.ns - normal */
	double ratio;	       /* comp.ns / normal, normal counted as at least 1 us */
	bool own;	       /* on the action's own thread (thread components) */
};

struct jank_suspects {
	bool ready;		/* enough normal actions: else "no baseline yet" */
	uint64_t normal;	/* normal actions the baseline learnt */
	double normal_duration; /* their mean duration */
	struct jank_suspect items[JANK_SUSPECTS_MAX]; /* largest increase first */
	size_t n;
	struct jank_ran ran[JANK_RAN_MAX]; /* for preempted suspects: who had the CPU */
	size_t nran;
};

/* "state", "hop", "thread", "lock" ("?" out of range), and back (-1 for no kind). */
JANK_STRTABLE_DECLARE(jank_comp_kind, enum jank_comp_kind);
/* Whether a state is an interrupt-context label (a hop). */
bool jank_state_is_hop(enum jank_state s);
/* The identity of a thread's names: what a thread component's key holds. */
uint64_t jank_comp_identity(const char *process, const char *thread);
bool jank_comp_key_equal(const struct jank_comp_key *a, const struct jank_comp_key *b);

void jank_profile_init(struct jank_profile *pf);
void jank_profile_fini(struct jank_profile *pf);
/* A deep copy; 0 or -ENOMEM. */
int jank_profile_copy(struct jank_profile *dst, const struct jank_profile *src);
/*
 * The profile of an action from its path and breakdown, computed from its
 * end thread `tid`. `g` names the threads: a thread's process is the name
 * of its pid's thread, "" when unknown. Returns 0 or -ENOMEM (then partial).
 */
int jank_profile_build(struct jank_profile *pf, const struct jank_path *p,
		       const struct jank_breakdown *b, const struct jank_graph *g, int32_t tid);
/* The time of one component (0 when absent). */
int64_t jank_profile_ns(const struct jank_profile *pf, const struct jank_comp_key *k);

void jank_baseline_init(struct jank_baseline *b);
/* A normal action: learn its profile. */
void jank_baseline_learn(struct jank_baseline *b, const struct jank_profile *pf);
/* The mean time per normal action of a component (0 when not kept). */
double jank_baseline_mean(const struct jank_baseline *b, const struct jank_comp_key *k);
/* The suspects of a slow action against the baseline. */
void jank_baseline_suspects(const struct jank_baseline *b, const struct jank_profile *pf,
			    struct jank_suspects *out);

#endif
