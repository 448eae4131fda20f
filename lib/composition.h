/* SPDX-License-Identifier: MIT */
/*
 * What one rule's actions wait on, summed: the time on the critical paths
 * of its slow actions, and of a sample of its normal ones (those its
 * baseline learns, at most one per JANK_BASELINE_GAP_NS), per state and per
 * thread, by name ("process/thread", or one name when they are the same).
 *
 * The counters are for a metrics page: each only grows, and how many there
 * are is bounded. `top` names have their own counters; the time of any
 * other name goes to JANK_COMPOSITION_OTHER. Which names are kept follows
 * their time: each name (kept or not, JANK_COMPOSITION_CANDS of those not
 * kept) has a score, its time with every JANK_COMPOSITION_HALVE samples
 * halving it. A name not kept whose score passes twice the smallest kept
 * one's takes its place: the replaced name's counters go (its series ends),
 * the new name's start at zero, and what it had before stays in "other", so
 * that every counter still only grows and they still add up to the whole.
 *
 * Fixed size, no allocation: a rule's state is copied as it is.
 */
#ifndef JANK_COMPOSITION_H
#define JANK_COMPOSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "baseline.h"
#include "state.h"

#define JANK_COMPOSITION_TOP_DEFAULT 10
#define JANK_COMPOSITION_TOP_MAX     32
/* A name's bytes with its NUL: two comms, '/' and U+FFFD for bad bytes, cut on a character. */
#define JANK_COMPOSITION_NAME_LEN 64
#define JANK_COMPOSITION_CANDS	  (JANK_COMPOSITION_TOP_MAX + 8)
#define JANK_COMPOSITION_HALVE	  64
#define JANK_COMPOSITION_OTHER	  "other"

enum jank_composition_class {
	JANK_CLASS_NORMAL = 0,
	JANK_CLASS_SLOW,
	JANK_CLASS_COUNT,
};

struct jank_composition_entry {
	char on[JANK_COMPOSITION_NAME_LEN];
	uint64_t ns[JANK_CLASS_COUNT][JANK_STATE_COUNT];
};

struct jank_composition_cand {
	char on[JANK_COMPOSITION_NAME_LEN];
	double score;
};

struct jank_composition {
	unsigned top; /* names kept; 0: off */
	uint64_t samples[JANK_CLASS_COUNT];
	/* v[0] is "other"; v[1..n) the kept names, score[i] theirs. */
	struct jank_composition_entry v[JANK_COMPOSITION_TOP_MAX + 1];
	double score[JANK_COMPOSITION_TOP_MAX + 1];
	size_t n;
	struct jank_composition_cand cands[JANK_COMPOSITION_CANDS];
	size_t ncands;
};

/* "normal", "slow"; jank_composition_class_from_name: -1 when neither. */
const char *jank_composition_class_name(enum jank_composition_class c);
int jank_composition_class_from_name(const char *s);

/* Empty, keeping `top` names (at most JANK_COMPOSITION_TOP_MAX). */
void jank_composition_init(struct jank_composition *c, unsigned top);
/*
 * A thread's name for the metrics: "process/thread", or one name when the
 * other is unknown or the same, "?" when both are unknown; never "other" (a
 * thread of that name is "other/other"). Valid UTF-8 with no control
 * character (bad bytes and control characters become U+FFFD), cut on a
 * character boundary to fit `len`.
 */
void jank_composition_name(char *buf, size_t len, const char *process, const char *thread);
/* The thread components of an action's profile, counted in class `cls`. */
void jank_composition_add(struct jank_composition *c, enum jank_composition_class cls,
			  const struct jank_profile *pf);
/* ns of `state` on the thread named `on` (jank_composition_name()), in class `cls`. */
void jank_composition_add_time(struct jank_composition *c, enum jank_composition_class cls,
			       const char *on, enum jank_state state, uint64_t ns);

#endif
