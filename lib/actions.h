/* SPDX-License-Identifier: MIT */
/*
 * Action rules and the tracking of open actions; flow rules.
 *
 * A rule names a begin event, an end event, the key fields that pair them,
 * an optional field match and a threshold. Open actions are kept in a table
 * keyed by (rule, key values).
 *
 * A flow rule names a `from` event (a thread hands work over) and a `to`
 * event (a thread picks it up), the key fields that pair them and an
 * optional match. The pending `from`s are kept in a table of the same kind.
 */
#ifndef JANK_ACTIONS_H
#define JANK_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "histogram.h"
#include "strtable.h"

#define JANK_RULE_MAX_KEYS 4
#define JANK_KEY_LEN	   96

enum jank_threshold_kind {
	JANK_THRESHOLD_FIXED = 0,
	JANK_THRESHOLD_ADAPTIVE, /* factor × running percentile, after a warm-up */
};

/* "fixed", "adaptive" ("?" out of range); and back (-1 for no kind). */
JANK_STRTABLE_DECLARE(jank_threshold_kind, enum jank_threshold_kind);
/* The table itself, NULL-terminated, for a schema's enum (jankd's figures). */
extern const char *const jank_threshold_kind_names[];

/* The largest factor of an adaptive threshold: p99*1000 is already never reached. */
#define JANK_THRESHOLD_MAX_FACTOR 1000.0

struct jank_threshold {
	enum jank_threshold_kind kind;
	int64_t ns;	   /* FIXED: the threshold; ADAPTIVE: used during warm-up (0: none) */
	double percentile; /* ADAPTIVE: e.g. 99 */
	double factor;	   /* ADAPTIVE: e.g. 1.5 */
	uint64_t warmup;   /* ADAPTIVE: samples before the percentile is trusted */
};

struct jank_rule {
	char *name;
	char *begin_event;
	char *end_event;
	char *keys[JANK_RULE_MAX_KEYS]; /* "tid" means the emitting thread */
	unsigned nkeys;			/* 0 means the default key: the thread */
	char *match_field;		/* NULL: no match */
	struct jank_value match_value;	/* INT or STR (owned) */
	struct jank_threshold threshold;
	bool capture;
};

/*
 * [flow NAME]: `to` on thread B at t1, paired by key with the latest `from`
 * (on thread A at t0), means that B continues at t1 work that A handed over
 * at t0. Keys as an action's (payload or context fields, "tid" the emitting
 * thread); a flow needs at least one, or every `to` would pair with its
 * own thread. The `to` event reads the same fields, or, with `to_keys`, its
 * own fields in the same order (ROS 2: rmw_publish's timestamp pairs with
 * rmw_take's source_timestamp). The match applies to both events.
 */
struct jank_flow_rule {
	char *name;
	char *from_event;
	char *to_event;
	char *keys[JANK_RULE_MAX_KEYS];
	unsigned nkeys;
	char *to_keys[JANK_RULE_MAX_KEYS]; /* the `to` event's fields; none: keys */
	unsigned nto_keys;		   /* 0, or nkeys */
	char *match_field;		   /* NULL: no match */
	struct jank_value match_value;	   /* INT or STR (owned) */
	/* Across hosts (crosshost.h): the hosts it pairs between, "a,b,c"; NULL: any. */
	char *hosts;
};

/*
 * What the engine can serve per event class: rules that begin or end on it
 * (it decodes each event once for all of them), and the fields their keys
 * and matches read there (an event is decoded into JANK_EVENT_MAX_FIELDS,
 * some of which the model reads itself).
 */
#define JANK_MAX_RULES_PER_EVENT  8
#define JANK_MAX_FIELDS_PER_EVENT 7

/*
 * Whether the engine can serve these rules together. Returns 0, or -E2BIG
 * with *bad the index of the first rule it cannot serve and *event its
 * event that is over a limit.
 */
int jank_rules_check(const struct jank_rule *rules, size_t n, size_t *bad, const char **event);
/*
 * The same for rules and flows together (a flow's `from` and `to` count as a
 * rule's begin and end): *bad is then an index of rules, or nrules plus an
 * index of flows. -ENOMEM too.
 */
int jank_rules_flows_check(const struct jank_rule *rules, size_t nrules,
			   const struct jank_flow_rule *flows, size_t nflows, size_t *bad,
			   const char **event);

void jank_rule_init(struct jank_rule *r);
void jank_rule_fini(struct jank_rule *r);
int jank_rule_copy(struct jank_rule *dst, const struct jank_rule *src);
/* "name, id" → keys. Returns 0 or -EINVAL (empty element, too many keys). */
int jank_rule_set_keys(struct jank_rule *r, const char *list);
/* `name == "frame"` or `id == 3`. Returns 0 or -EINVAL. */
int jank_rule_set_match(struct jank_rule *r, const char *expr);
/* "16ms" (fixed) or "p99*1.5" (adaptive). Returns 0 or -EINVAL. */
int jank_threshold_parse(const char *s, struct jank_threshold *t);
/* Current threshold of a rule given its histogram; 0 means no threshold yet. */
int64_t jank_threshold_current(const struct jank_threshold *t, const struct jank_histogram *h);

void jank_flow_rule_init(struct jank_flow_rule *r);
void jank_flow_rule_fini(struct jank_flow_rule *r);
int jank_flow_rule_copy(struct jank_flow_rule *dst, const struct jank_flow_rule *src);
/* As jank_rule_set_keys() and jank_rule_set_match(). */
int jank_flow_rule_set_keys(struct jank_flow_rule *r, const char *list);
/* The `to` event's own key fields (to-key). Their count must be the key's: jank_flow_rule_ok(). */
int jank_flow_rule_set_to_keys(struct jank_flow_rule *r, const char *list);
/* The key fields that the flow's `to` (to != 0) or `from` event reads. */
char *const *jank_flow_rule_keys(const struct jank_flow_rule *r, int to);
/* Whether to-key, when given, names as many fields as key. */
bool jank_flow_rule_ok(const struct jank_flow_rule *r);
int jank_flow_rule_set_match(struct jank_flow_rule *r, const char *expr);

struct jank_span;

/* An open action (or a pending flow `from`: `rule` is then the flow's index). */
struct jank_action {
	uint32_t rule;
	/*
	 * Where each value of the key ends in key[] ("name=frame,id=3": 10,
	 * 15), for the first key_n values, when the engine made the key from
	 * an event; key_n 0 otherwise. The engine then keeps the values that
	 * are numbers after the text's NUL in key[] (engine-events.c
	 * key_keep()), and an end compares its values with them in place. In
	 * what would be padding: the size is the same.
	 */
	uint8_t key_end[JANK_RULE_MAX_KEYS];
	uint64_t hash;
	int64_t begin;
	int32_t tid;
	int32_t pid;
	uint32_t serial; /* the graph's thread serial of tid at the begin; 0: none */
	bool overdue_reported;
	uint8_t key_n;
	bool unhashed; /* the table's: its rule's latest begun, not in the table's map yet */
	union {
		struct jank_span *span; /* an action's: as its thread's span (graph.h), NULL */
		uint64_t vertex; /* a flow's: the vertex of `serial` where the work was handed over
				  */
	};
	char comm[16];
	char key[JANK_KEY_LEN]; /* NUL-terminated; what follows is the engine's (key_n) */
	/* Table links: hash chain, and the rule's list in begin order. */
	struct jank_action *chain;
	struct jank_action *prev;
	struct jank_action *next;
};

struct jank_action_table;

struct jank_action_table *jank_action_table_new(uint32_t nrules);
/* Calls the close hook on every action still open. */
void jank_action_table_free(struct jank_action_table *t);
/*
 * Called whenever an action leaves the table: closed, replaced by a new
 * begin with its key, or left open when the table is freed.
 */
typedef void (*jank_action_close_fn)(struct jank_action *a, void *data);
void jank_action_table_set_close_hook(struct jank_action_table *t, jank_action_close_fn fn,
				      void *data);
/*
 * Open an action. When one with the same rule and key is already open, it is
 * replaced (the begin was repeated) and *replaced is set. Returns the slot,
 * or NULL on allocation failure.
 */
struct jank_action *jank_action_open(struct jank_action_table *t, uint32_t rule, const char *key,
				     int64_t begin, bool *replaced);
struct jank_action *jank_action_find(struct jank_action_table *t, uint32_t rule, const char *key);
/*
 * The same with key[0..n) a key as the table keeps it (n < JANK_KEY_LEN, not
 * inside a character: as jank_utf8_cut() leaves it), NUL or not after it.
 */
struct jank_action *jank_action_open_n(struct jank_action_table *t, uint32_t rule, const char *key,
				       size_t n, int64_t begin, bool *replaced);
struct jank_action *jank_action_find_n(struct jank_action_table *t, uint32_t rule, const char *key,
				       size_t n);
void jank_action_close(struct jank_action_table *t, struct jank_action *a);
size_t jank_action_count(const struct jank_action_table *t);
/* The oldest open action of all rules, or NULL. */
struct jank_action *jank_action_oldest(const struct jank_action_table *t);
/* The open action of a rule begun last (its list's tail), or NULL. */
struct jank_action *jank_action_last(const struct jank_action_table *t, uint32_t rule);
/* A rule's open actions in begin order: the oldest, then ->next. */
struct jank_action *jank_action_first(const struct jank_action_table *t, uint32_t rule);
/* Its first member, kept current: the engine reads it before every event that may free. */
static inline size_t jank_action_table_bytes(const struct jank_action_table *t)
{
	return *(const size_t *)(const void *)t;
}

#endif
