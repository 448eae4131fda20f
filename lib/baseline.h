/* SPDX-License-Identifier: MIT */
/*
 * What is normal for a kind of action, and what was different this time.
 *
 * A profile says where one action's time went, in components:
 *
 *   state    time per state on the path: running, preempted, blocked,
 *            lock_wait, user_input, unknown
 *   hop      time per interrupt-context label: timer, network, block_device,
 *            interrupted, ipi (the waits an interrupt ended)
 *   thread   time per (process name, thread name, state): the threads the
 *            action waited on, and its own. Names, not tids, so that a
 *            restarted process or another thread of a pool is the same
 *            component.
 *   lock     time waiting for one user-space mutex (by address)
 *   function time per innermost function of the path's stacks (segments'
 *            call stacks, critpath.h), by address in its process (and a
 *            kernel bit; by name for a path rebuilt from names): the
 *            JANK_PROFILE_FUNCTIONS with the most time. A restarted process
 *            (another vpid, another load address) has other components.
 *
 * States and hops together tile the action, and so do the thread
 * components; lock and function time are parts of it.
 *
 * A baseline learns, from the normal actions of a rule (those under its
 * threshold), the mean time per action of each component. The means decay
 * exponentially: each normal action weighs 1/n while fewer than
 * JANK_BASELINE_WINDOW were seen (the plain mean), then 1/WINDOW, so an old
 * habit fades with a half-life of about 69 normal actions. Memory is fixed:
 * every state and hop, the JANK_BASELINE_TOP thread and lock components
 * with the largest means (a new one replaces the smallest when its first
 * share is larger), and, apart, the JANK_BASELINE_TOP functions with the
 * largest means. Learning costs a critical path and O(TOP) per component
 * of a normal action learnt (at most one per JANK_BASELINE_GAP_NS); it
 * never runs per event.
 *
 * For functions the baseline also learns how often each is on the path
 * (the innermost function of a segment): P(f | normal), the fraction of
 * normal actions whose path holds f, decayed like the means (kept with the
 * means of the TOP functions: a function not kept counts as never on a
 * normal path), and P(f | slow), the same over the rule's slow actions
 * (over threshold, completed, whole paths; weight 1/m, then
 * 1/JANK_BASELINE_SLOW_WINDOW: a half-life of about 14 slow actions; the
 * TOP functions most often on them). The increase score of PASD
 * (statistical debugging of performance: how much more often a function is
 * on the path of slow actions than of normal ones) is
 *
 *   increase(f) = P(f | slow) - P(f | normal),   in [-1, 1].
 *
 * The suspects of a slow action are its components whose time exceeds the
 * baseline's mean the most (the difference, and the ratio). They are
 * ranked by
 *
 *   rank = delta * (1 + max(0, increase))
 *
 * for a function, by delta for the others: the time excess leads, and the
 * increase score counts a function's excess up to twice when it is on slow
 * paths and not on normal ones (apply_discounts, called only when the
 * action is slow, before a state that merely grew). A function no more
 * often on slow paths than on normal ones ranks by its excess alone: being
 * on the path of normal actions too does not excuse the time it took this
 * time. The slow action being ranked is learnt first, so with one slow
 * action, P(f | slow) is 1 for each of its functions.
 *
 * A generic component gives way to a specific one that explains at least
 * half of its increase (delta): a state to the thread that spent it, or to
 * a function whose time was mostly in that state; a thread to the lock it
 * held, or to a function whose time was mostly on that thread and in that
 * state. A lock stays beside the function its holder ran: the lock says
 * why the path went to the holder, the function what the holder did. Until
 * JANK_BASELINE_MIN normal actions were seen, there is no baseline: no
 * suspect is named.
 *
 * A function suspect carries its frame in the path the profile was built
 * from; jank_suspects_name() copies that frame's name (given by the
 * symbolizer's namer, jank_path_name_frames()) into the suspect, so that
 * the suspects can be copied and formatted without the path.
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
#define JANK_BASELINE_GAP_NS	  1000000
#define JANK_BASELINE_WINDOW	  100
#define JANK_BASELINE_TOP	  32
#define JANK_BASELINE_SLOW_WINDOW 20
/* Function components per profile: those with the most time on the path. */
#define JANK_PROFILE_FUNCTIONS 64
#define JANK_SUSPECTS_MAX      5
#define JANK_RAN_MAX	       3

enum jank_comp_kind {
	JANK_COMP_STATE = 0,
	JANK_COMP_HOP,
	JANK_COMP_THREAD,
	JANK_COMP_LOCK,
	JANK_COMP_FUNCTION,
	JANK_COMP_KIND_COUNT,
};

struct jank_comp_key {
	uint8_t kind;
	uint8_t state; /* STATE, HOP, THREAD; 0 for LOCK and FUNCTION */
	/* THREAD: hash of the names; LOCK: the mutex; FUNCTION: jank_comp_function_identity */
	uint64_t id;
};

/* A component of one action. */
struct jank_comp {
	struct jank_comp_key key;
	int64_t ns;
	/* THREAD: its thread with the most time; LOCK: the holder's; FUNCTION: see thread */
	int32_t tid;
	/* THREAD, LOCK (the holder's), FUNCTION (the thread of its longest segment); "" if unknown
	 */
	char process[JANK_COMM_LEN];
	char thread[JANK_COMM_LEN];
	uint32_t frame;	  /* FUNCTION: its frame in the path the profile was built from */
	uint8_t fn_state; /* FUNCTION: the state most of its time was in */
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
	struct jank_comp fns[JANK_PROFILE_FUNCTIONS]; /* function components, largest first */
	size_t nfns;
	struct jank_ran ran[JANK_RAN_MAX]; /* who had the CPU, most time first */
	size_t nran;
};

struct jank_baseline_entry {
	struct jank_comp_key key;
	double mean;	 /* ns per normal action (0 in the slow table) */
	double presence; /* FUNCTION: the fraction of (normal, or slow) actions it is on */
	char process[JANK_COMM_LEN];
	char thread[JANK_COMM_LEN];
};

struct jank_baseline {
	uint64_t n;	 /* normal actions learnt */
	double duration; /* their mean duration */
	double per_state[JANK_STATE_COUNT];
	struct jank_baseline_entry top[JANK_BASELINE_TOP]; /* thread and lock components */
	size_t ntop;
	struct jank_baseline_entry fns[JANK_BASELINE_TOP]; /* functions of normal actions */
	size_t nfns;
	uint64_t nslow; /* slow actions learnt (jank_baseline_learn_slow) */
	struct jank_baseline_entry slow[JANK_BASELINE_TOP]; /* functions of slow actions */
	size_t nslowfns;
};

struct jank_suspect {
	struct jank_comp comp; /* kind, state, names, this action's time */
	double normal;	       /* the baseline's mean, ns */
	int64_t delta;	       /* comp.ns - normal */
	double ratio;	       /* comp.ns / normal, normal counted as at least 1 us */
	bool own;	       /* on the action's own thread (thread and function components) */
	/* FUNCTION: P(f | slow), P(f | normal), their difference (baseline.h); 0 otherwise. */
	double presence_slow;
	double presence_normal;
	double increase;
	double rank; /* what the suspects are sorted by: delta, weighed by the increase */
	char function[JANK_FRAME_NAME_LEN]; /* FUNCTION: its name (jank_suspects_name), or "" */
};

struct jank_suspects {
	bool ready; /* enough normal actions: else "no baseline yet" */
	/*
	 * Against all the normal actions of the input (the whole trace,
	 * offline), not only those before the action: set by the caller that
	 * compared the action afterwards (jankctl analyze).
	 */
	bool whole;
	uint64_t normal;			      /* normal actions the baseline learnt */
	double normal_duration;			      /* their mean duration */
	struct jank_suspect items[JANK_SUSPECTS_MAX]; /* highest rank first */
	size_t n;
	struct jank_ran ran[JANK_RAN_MAX]; /* for preempted suspects: who had the CPU */
	size_t nran;
};

/* "state", "hop", "thread", "lock", "function". */
const char *jank_comp_kind_name(enum jank_comp_kind k);
/* Whether a state is an interrupt-context label (a hop). */
bool jank_state_is_hop(enum jank_state s);
/* The identity of a thread's names: what a thread component's key holds. */
uint64_t jank_comp_identity(const char *process, const char *thread);
/* The identity of a function: what a function component's key holds. */
uint64_t jank_comp_function_identity(const struct jank_frame *f);
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
/* A slow action: learn which functions are on its path (P(f | slow)). */
void jank_baseline_learn_slow(struct jank_baseline *b, const struct jank_profile *pf);
/* The mean time per normal action of a component (0 when not kept). */
double jank_baseline_mean(const struct jank_baseline *b, const struct jank_comp_key *k);
/* P(f | slow) (slow) or P(f | normal) of a function component (0 when not kept). */
double jank_baseline_presence(const struct jank_baseline *b, const struct jank_comp_key *k,
			      bool slow);
/* The suspects of a slow action against the baseline. */
void jank_baseline_suspects(const struct jank_baseline *b, const struct jank_profile *pf,
			    struct jank_suspects *out);
/*
 * Name the function suspects from p, the path (its frames named) that the
 * profile was built from: a suspect whose frame p does not hold keeps "".
 */
void jank_suspects_name(struct jank_suspects *ss, const struct jank_path *p);

#endif
