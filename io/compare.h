/* SPDX-License-Identifier: MIT */
/*
 * Two groups of actions of one rule, compared component by component
 * (`jankctl compare`): the slow actions of a trace against its normal ones,
 * or the actions of a trace against those of another (after, before).
 *
 * Each action's profile (lib/baseline.h) adds its time per component to its
 * group; a component that an action lacks counts 0 for it. For each
 * component and group: the mean, p50 and p99 (nearest rank) over the
 * group's actions; and the difference of the means. Rows come largest
 * increase first. Offline: every action's values are kept until the end.
 */
#ifndef JANK_COMPARE_H
#define JANK_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "baseline.h"

enum jank_cmp_group {
	JANK_CMP_A = 0, /* the slow actions, or the trace after */
	JANK_CMP_B = 1, /* the normal actions, or the trace before */
};

struct jank_cmp_stats {
	double mean;
	int64_t p50;
	int64_t p99;
};

struct jank_cmp_row {
	struct jank_comp_key key;
	char process[JANK_COMM_LEN]; /* thread and lock components (the holder's) */
	char thread[JANK_COMM_LEN];
	struct jank_cmp_stats g[2];
	double diff; /* g[A].mean - g[B].mean */
};

struct jank_compare;

/* `names`: what the groups are called ("slow", "normal"; "after", "before"). */
struct jank_compare *jank_compare_new(const char *name_a, const char *name_b);
void jank_compare_free(struct jank_compare *c);
/* One action of a group. Returns 0 or -ENOMEM. */
int jank_compare_add(struct jank_compare *c, enum jank_cmp_group g, const struct jank_profile *pf);
/* The statistics, once every action was added. Returns 0 or -ENOMEM. */
int jank_compare_finish(struct jank_compare *c);

const char *jank_compare_name(const struct jank_compare *c, enum jank_cmp_group g);
size_t jank_compare_count(const struct jank_compare *c, enum jank_cmp_group g);
const struct jank_cmp_stats *jank_compare_duration(const struct jank_compare *c,
						   enum jank_cmp_group g);
/* The rows, largest increase first (after jank_compare_finish). */
const struct jank_cmp_row *jank_compare_rows(const struct jank_compare *c, size_t *n);
/* "hop block_device", "thread db: block_device", "lock 0x55d0 (held by db)". */
const char *jank_compare_label(const struct jank_cmp_row *r, char *buf, size_t len);

/*
 * The table for humans: `title` first, then the duration and the rows whose
 * means are not both under 1 us, at most `max_rows` of them.
 */
void jank_compare_text(FILE *f, const struct jank_compare *c, const char *title, size_t max_rows);
/*
 * {"type":"compare","action","groups":[{"name","count","duration":{"mean_ns",
 * "p50_ns","p99_ns"}}, ...],"components":[{"kind","state"|"lock","process",
 * "thread",NAME_A:{...},NAME_B:{...},"difference_ns"}, ...]}
 */
struct json_object *jank_compare_json(const struct jank_compare *c, const char *action);

#endif
