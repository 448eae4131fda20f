/* SPDX-License-Identifier: MIT */
/*
 * The recent history of each rule's composition (composition.h), for the
 * web page's picture (/composition.svg): every JANK_COMP_HISTORY_INTERVAL_NS
 * the supervisor reads each input's cumulative counters of slow critical-path
 * time (input-figures.h: each rule's comp, the class "slow"), and the history
 * keeps, per rule, one bar per interval: how much those counters grew since
 * the round before, summed over the inputs, per state and per thread name.
 * The last JANK_COMP_HISTORY_BARS bars are kept (a ring).
 *
 * A round: jank_comp_history_begin(), then for each input
 * jank_comp_history_input() and jank_comp_history_add() per rule it reports,
 * then jank_comp_history_end(), which appends the bars.
 *
 * Counters only grow, but what the supervisor shows of them may go down: a
 * name replaced in a worker's top names loses its counters (composition.h),
 * and while a worker restarts its rules are not shown until the new one
 * reports (input-figures.h). So the growth is taken per input, per rule, per
 * name and per state, and a counter that went down counts as no growth (its
 * new value is the base of the next round): no bar is ever negative. A rule
 * an input did not report in a round keeps its last values as the base; the
 * base of an input that is gone (not named by jank_comp_history_input() in a
 * round) is forgotten.
 *
 * Bounded: per rule, JANK_COMP_HISTORY_BARS bars of JANK_STATE_COUNT states
 * and JANK_COMP_HISTORY_NAMES names plus "other" (allocated once the rule
 * has any slow time); per rule and input, the base: at most
 * JANK_COMP_HISTORY_MAX_BASE names. A name gets a column of its own while
 * there is one free, or one whose name had no time in any bar kept; past
 * that its time goes to "other" (column 0).
 */
#ifndef JANK_COMP_HISTORY_H
#define JANK_COMP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "composition.h"
#include "state.h"

#define JANK_COMP_HISTORY_INTERVAL_NS 10000000000LL /* a bar per 10 s */
#define JANK_COMP_HISTORY_BARS	      90	    /* the last 15 minutes */
#define JANK_COMP_HISTORY_NAMES	      16	    /* names with a column, per rule */
/* Names of one input's rule whose last values are kept as the base. */
#define JANK_COMP_HISTORY_MAX_BASE (4 * (JANK_COMPOSITION_TOP_MAX + 1))

/* One interval of one rule: the growth of its slow critical-path ns. */
struct jank_comp_bar {
	uint64_t state[JANK_STATE_COUNT];
	uint64_t on[JANK_COMP_HISTORY_NAMES + 1]; /* [0] "other", [i] jank_comp_history_name(i) */
};

struct jank_comp_history;
struct jank_comp_rule;

struct jank_comp_history *jank_comp_history_new(void);
void jank_comp_history_free(struct jank_comp_history *h);

/*
 * The rules kept: those named in `names` (n of them). A rule no longer
 * there goes, with its bars; a new one starts empty. Returns 0 or -ENOMEM
 * (then the rules kept are those that were, and the new ones that fit).
 */
int jank_comp_history_set_rules(struct jank_comp_history *h, const char *const *names, size_t n);

/* A round, as above. */
void jank_comp_history_begin(struct jank_comp_history *h);
/* The input `input` exists (its base is kept), whatever rules it reports. Returns 0 or -ENOMEM. */
int jank_comp_history_input(struct jank_comp_history *h, const char *input);
/*
 * The cumulative composition of rule `action` on `input` (jank_rule_figures'
 * comp, ncomp): only its class "slow" is read. A rule not kept is ignored.
 * Returns 0 or -ENOMEM (the growth of that input is then not counted).
 */
int jank_comp_history_add(struct jank_comp_history *h, const char *input, const char *action,
			  const struct jank_composition_entry *v, size_t n);
/* Each rule kept gets one bar more: the growth added in the round (maybe zero). */
void jank_comp_history_end(struct jank_comp_history *h);
/* Rounds ended since the history was made. */
uint64_t jank_comp_history_rounds(const struct jank_comp_history *h);

/* The rules kept, in the order set; the rule of `action`, or NULL. */
size_t jank_comp_history_count(const struct jank_comp_history *h);
const struct jank_comp_rule *jank_comp_history_get(const struct jank_comp_history *h, size_t i);
const struct jank_comp_rule *jank_comp_history_find(const struct jank_comp_history *h,
						    const char *action);
const char *jank_comp_history_action(const struct jank_comp_rule *r);
/* Its bars (at most JANK_COMP_HISTORY_BARS), i = 0 the oldest; NULL past the end. */
size_t jank_comp_history_bars(const struct jank_comp_rule *r);
const struct jank_comp_bar *jank_comp_history_bar(const struct jank_comp_rule *r, size_t i);
/* The name of column i of the bars' `on` (0: "other"); "" for a column unused. */
const char *jank_comp_history_name(const struct jank_comp_rule *r, size_t i);
/* The sum of one bar's states (equal to that of its names). */
uint64_t jank_comp_bar_total(const struct jank_comp_bar *b);

#endif
