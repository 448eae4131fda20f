/* SPDX-License-Identifier: MIT */
/*
 * The figures of one live input, typed: its state and counters, its
 * engine's (actions, graph, memory), and per rule the counts, the latency
 * histogram and percentiles. A worker fills them (input-status.c) and sends
 * them as JSON with each heartbeat (jank_input_figures_json()); the supervisor
 * decodes them once (jank_worker_proto_figures_decode(), worker-proto.h) and reads
 * the structs from then on: `jankctl status` in JSON and text, the metrics,
 * the final summary.
 *
 * One table (input-figures.c) names each figure, its JSON key, its range,
 * whether it adds up across workers, and its metric (name, type, help): the
 * encoder, the decoder, the fold and the metrics page (http/metrics.c) all
 * walk it. A new figure of the engine (struct jank_engine_stats) is one row
 * there; a new one of the live input is a field here, a row there, and the
 * line of input-status.c that fills it.
 *
 * Over workers: a restarted worker starts a new engine whose counters start
 * at zero. The supervisor folds the last figures of each worker that ended
 * into a sum of the past (jank_input_figures_fold: its counters, and each rule's
 * counts and histogram), and shows the current figures plus that sum
 * (jank_input_figures_merge). The latency percentiles, the graph, the gauges and
 * the rates are the current worker's.
 */
#ifndef JANK_INPUT_FIGURES_H
#define JANK_INPUT_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "engine.h"
#include "histogram.h"

#define JANK_FIGURES_URL_LEN	2048
#define JANK_FIGURES_STATE_LEN	16
#define JANK_FIGURES_ERROR_LEN	512
#define JANK_FIGURES_ACTION_LEN 512
#define JANK_FIGURES_MAX_RULES	4096

struct jank_rule_figures {
	char action[JANK_FIGURES_ACTION_LEN]; /* the rule's name */
	uint64_t count;			      /* actions completed */
	struct jank_rule_stats stats;	      /* janks, overdue, expired, evicted, the last jank */
	struct jank_histogram hist;	      /* its count is `count` */
	int64_t threshold_ns;		      /* 0: an adaptive threshold still learning */
	int threshold_kind;		      /* enum jank_threshold_kind */
	int64_t p50_ns, p90_ns, p99_ns;	      /* the current worker's */
	int64_t max_ns;
	/*
	 * What its slow actions, and the normal ones its baseline learnt, waited
	 * on (composition.h): per thread name, "other" among them, per class
	 * and state. The worker's have at most composition_top + 1 names; the
	 * sum of the past's as many; current and past shown together twice
	 * that. Allocated: copies are deep.
	 */
	uint64_t composition_top;
	struct jank_composition_entry *comp;
	size_t ncomp;
};

struct jank_input_figures {
	/*
	 * reported: a worker sent them, every figure is known; else they are
	 * the supervisor's placeholder until it does (url, state, attached and
	 * the stall only). counted: the counters are known (reported, or the
	 * sum of workers that were).
	 */
	bool reported, counted;
	char url[JANK_FIGURES_URL_LEN];
	char state[JANK_FIGURES_STATE_LEN];	  /* "connecting", "connected", ... */
	char last_error[JANK_FIGURES_ERROR_LEN];  /* "" when none */
	char problem[JANK_FIGURES_STATE_LEN * 2]; /* "relayd unreachable", ...; "" when none */
	int64_t problem_since;			  /* wall clock (ns), 0: no problem */
	bool attached;
	char decoder[JANK_FIGURES_STATE_LEN];	   /* "native", "babeltrace2"; "" unknown */
	char decoder_note[JANK_FIGURES_ERROR_LEN]; /* why the native one was refused, "" */
	uint64_t events_read, disconnects, reconnects;
	double events_per_sec; /* rounded to 0.1 */
	int64_t trace_now;     /* INT64_MIN: unknown */
	int64_t stalled_since; /* Unix ns of its last advance while stalled, 0: not stalled */
	uint64_t stalls;       /* times it stalled */
	int64_t last_event_ns; /* the latest event read, INT64_MIN: none */
	/* The binary opener (binary-opener.h), as the worker's symbolizer saw it. */
	uint64_t opener_opened;	 /* binaries it gave */
	uint64_t opener_refused; /* asked, and refused or unanswered (jankd's log says why) */
	struct jank_engine_stats engine; /* engine.first: the first event read, INT64_MIN: none */
	struct jank_rule_figures *rules;
	size_t nrules;
};

/* Empty figures (unknown times, no rules). */
void jank_input_figures_init(struct jank_input_figures *f);
void jank_input_figures_fini(struct jank_input_figures *f);
/* The placeholder of an input whose worker said nothing yet: "connecting", not attached. */
void jank_input_figures_placeholder(struct jank_input_figures *f, const char *url);
/* `to` (initialized) becomes a copy of `from`. Returns 0 or -ENOMEM (`to` is then empty). */
int jank_input_figures_copy(struct jank_input_figures *to, const struct jank_input_figures *from);
/* `f->nrules` rules, zeroed. Returns 0 or -ENOMEM. */
int jank_input_figures_set_rules(struct jank_input_figures *f, size_t n);

/* Add the counters of `status` (when reported) to `past`. Returns 0 or -ENOMEM. */
int jank_input_figures_fold(struct jank_input_figures *past,
			    const struct jank_input_figures *status);
/*
 * `out` (initialized): `status` with the counters of `past` (may be NULL)
 * added, rule by rule of `status` (a rule of the past that the current
 * worker no longer has is not shown). Returns 0 or -ENOMEM.
 */
int jank_input_figures_merge(struct jank_input_figures *out,
			     const struct jank_input_figures *status,
			     const struct jank_input_figures *past);

/*
 * A rule's composition becomes n entries copied from v (NULL, 0: none).
 * Returns 0 or -ENOMEM (then none).
 */
int jank_input_figures_set_composition(struct jank_rule_figures *r,
				       const struct jank_composition_entry *v, size_t n);
/*
 * The entries of `from` added to those of r's composition, name by name;
 * then, past `max` names, the smallest (by time) added to "other". Returns 0
 * or -ENOMEM.
 */
int jank_input_figures_add_composition(struct jank_rule_figures *r,
				       const struct jank_composition_entry *from, size_t n,
				       size_t max);

/* The figures as the worker sends them and `jankctl status` shows them; NULL on allocation failure.
 */
struct json_object *jank_input_figures_json(const struct jank_input_figures *f);

/* ---- The table (for the decoder, worker-proto.c) ---- */

enum jank_figure_type {
	JANK_FIGURE_U64,    /* a count: an integer in [0, INT64_MAX] */
	JANK_FIGURE_I64,    /* an integer in [min, max] */
	JANK_FIGURE_RATE,   /* a number in [0, max], printed to 0.1 */
	JANK_FIGURE_BOOL,   /* true or false */
	JANK_FIGURE_STR,    /* a string shorter than `size` bytes, no control character but tab */
	JANK_FIGURE_ENUM,   /* one of `names`, stored as an int */
	JANK_FIGURE_OBJECT, /* the `size` fields that follow, in an object */
	JANK_FIGURE_HISTOGRAM, /* a rule's struct jank_histogram: sum, min, max, buckets */
	JANK_FIGURE_RULES, /* the rules, an array of objects of jank_input_figures_rule_fields */
	JANK_FIGURE_COMPOSITION, /* a rule's comp and ncomp: [{"on", "slow": {state: ns}, "normal"}]
				  */
};

enum {
	JANK_FIGURE_SUM = 1 << 0,     /* adds up across workers */
	JANK_FIGURE_BASIC = 1 << 1,   /* in the placeholder too (not only when reported) */
	JANK_FIGURE_OPTIONAL = 1 << 2 /* absent when it equals `absent` (strings: "") */
};

/*
 * A figure's metric, one sample per input on jankd's metrics page: the
 * family `name` (without _total), a counter or a gauge, its unit (NULL,
 * "bytes", or "seconds": an I64 figure, a time in ns, shown in whole
 * seconds, 0 when negative), its help. Rows of one family (the same name,
 * the first row's metadata) tell their samples apart by `label`="`value`".
 */
struct jank_figure_metric {
	const char *name;
	bool gauge;
	const char *unit;
	const char *help;
	const char *label, *value;
};

struct jank_figure_field {
	const char *key;
	enum jank_figure_type type;
	size_t offset; /* in struct jank_input_figures or struct jank_rule_figures */
	unsigned flags;
	int64_t min, max;	  /* I64, RATE (max) */
	int64_t absent;		  /* OPTIONAL I64 */
	size_t size;		  /* STR: the buffer; OBJECT: how many fields it holds */
	const char *const *names; /* ENUM, NULL-terminated */
	const struct jank_figure_metric *metric; /* U64, I64; NULL: not on the metrics page */
};

/* The fields of an input, then those of each rule (its histogram and "rules" aside). */
extern const struct jank_figure_field jank_input_figures_input_fields[];
extern const size_t jank_input_figures_input_nfields;
extern const struct jank_figure_field jank_input_figures_rule_fields[];
extern const size_t jank_input_figures_rule_nfields;

#endif
