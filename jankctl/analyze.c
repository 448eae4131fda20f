/* SPDX-License-Identifier: MIT */
/*
 * jankctl analyze and compare: the [action] rules of a config file applied
 * to traces, offline. analyze reports the actions over their threshold (or
 * every one) with their critical paths, then a summary per rule; compare
 * gathers the profiles of one rule's actions into two groups (slow and
 * normal, or after and before) and prints what differs (io/compare.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "compare-svg.h"
#include "compare.h"
#include "config-file.h"
#include "engine.h"
#include "exit-status.h"
#include "flame-path.h"
#include "format.h"
#include "jankctl.h"
#include "verdict-json.h"

static const char usage_analyze[] =
	"Usage: jankctl analyze --config FILE [--all] [--format text|json] TRACE...\n"
	"Apply the [action NAME] rules of FILE (see jankd.conf(5)) to the traces. Report each\n"
	"action over its threshold, with its critical path, then a summary per rule.\n"
	"\n"
	"  -c, --config FILE     the rules (the [graph] section applies too)\n"
	"  -a, --all             report every completed action, not only the slow ones\n"
	"  -f, --format FORMAT   text (default) or json (one object per line)\n"
	"      --decoder NAME    auto (default), native or babeltrace2: which CTF decoder reads\n"
	"                        the traces (auto: native unless it cannot, then babeltrace2)\n"
	"  -h, --help            show this help\n";

static const char usage_compare[] =
	"Usage: jankctl compare --config FILE [--action NAME] [--before TRACE] [--svg FILE]\n"
	"                       [--flame FILE] [--format text|json] TRACE...\n"
	"Compare the actions of one [action NAME] rule of FILE, component by component: time per\n"
	"state, per interrupt hop (timer, network, block_device...), per thread (by process and\n"
	"thread name) and state, per lock. Without --before: the slow actions (over the rule's\n"
	"threshold) against the normal ones of TRACE. With --before: the actions of TRACE (after)\n"
	"against those of the --before trace. For each component and group: the mean, p50 and\n"
	"p99 per action, and the difference of the means, largest increase first.\n"
	"\n"
	"  -c, --config FILE     the rules (the [graph] section applies too)\n"
	"  -A, --action NAME     the rule (default: the only rule of FILE)\n"
	"  -B, --before TRACE    the trace to compare with (a directory of traces too)\n"
	"  -o, --svg FILE        also draw the two groups as stacked bars side by side\n"
	"  -F, --flame FILE      also draw the differential flame graph of their critical\n"
	"                        paths: slow (after) by call stack, red where it spends more\n"
	"                        per action than normal (before), blue where less\n"
	"  -f, --format FORMAT   text (default) or json (one object)\n"
	"      --decoder NAME    auto (default), native or babeltrace2: which CTF decoder reads\n"
	"                        the traces (auto: native unless it cannot, then babeltrace2)\n"
	"  -h, --help            show this help\n";

/* ---- The rules of --config, and an engine with them ---- */

int config_load(const char *cmd, const struct options *o, struct jank_config *conf)
{
	char err[ERR_LEN];

	if (!o->config) {
		errorf("%s: --config FILE is required (see jankctl %s --help)", cmd, cmd);
		return JANK_EXIT_USAGE;
	}
	if (jank_config_load(conf, o->config, err, sizeof(err)) < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	if (jank_config_check(conf, err, sizeof(err)) < 0) {
		errorf("%s", err);
		jank_config_fini(conf);
		return JANK_EXIT_BAD_INPUT;
	}
	if (cli_set_debuginfod(conf) < 0) {
		jank_config_fini(conf);
		return JANK_EXIT_BAD_INPUT;
	}
	return 0;
}

struct jank_engine *config_engine(const struct jank_config *conf, const struct options *o,
				  bool report_all)
{
	struct jank_engine_config ec;
	struct jank_engine *e;
	char err[512];

	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(conf, &ec);
	/* Offline, an action still open at the end is a note, not an overdue report. */
	ec.overdue_grace_ns = 0;
	ec.gc = !o->no_gc;
	ec.report_all = report_all;
	e = jank_engine_new(&ec);
	if (!e) {
		errorf("out of memory");
		return NULL;
	}
	if (jank_config_add_rules(conf, e, err, sizeof(err)) < 0) {
		errorf("%s: %s", o->config, err);
		jank_engine_free(e);
		return NULL;
	}
	return e;
}

int config_rule(const char *cmd, const struct jank_config *conf, const struct options *o,
		size_t *rule)
{
	for (size_t i = 0; o->action && i < conf->nrules; i++)
		if (!strcmp(conf->rules[i].name, o->action)) {
			*rule = i;
			return 0;
		}
	if (o->action) {
		errorf("%s: %s has no [action %s]", cmd, o->config, o->action);
		return JANK_EXIT_BAD_INPUT;
	}
	if (conf->nrules != 1) {
		errorf("%s: %s has %zu rules: name one with --action", cmd, o->config,
		       conf->nrules);
		return JANK_EXIT_USAGE;
	}
	*rule = 0;
	return 0;
}

/* ---- analyze ---- */

/*
 * A slow action before its rule's baseline was ready (fewer than
 * JANK_BASELINE_MIN normal actions before it) is compared, at the end, with
 * the normal actions of the whole trace: its verdict is held (a deep copy),
 * and so is every verdict after it, so that the output keeps the order of
 * the actions. When the held verdicts would take more than HOLD_MAX_BYTES,
 * none is held any more: the rest of the trace only teaches the baselines,
 * then a second pass over the traces prints the verdicts not printed yet,
 * the held ones' suspects against the first pass's final baselines (the
 * engine is deterministic: both passes see the same actions).
 */
#define HOLD_MAX_BYTES (64u << 20)

struct held {
	struct jank_verdict v; /* path, breakdown, profile, suspects and strings point below */
	struct jank_path path;
	struct jank_profile pf;
	struct jank_suspects sus;
	bool has_pf, has_sus;
	char key[JANK_KEY_LEN];
	char comm[JANK_COMM_LEN];
};

struct analyze_ctx {
	const struct analyze_output *out;
	uint64_t reports;
	int err;
	struct held *held; /* in order, from the first that waits for the whole trace */
	size_t nheld, held_cap;
	size_t held_bytes;
	bool overflow;			   /* too many to hold: a second pass prints the rest */
	uint64_t printed;		   /* verdicts printed at once, before holding began */
	uint64_t skip;			   /* second pass: the verdicts the first printed */
	const struct jank_baseline *whole; /* second pass: the first's final baselines */
	size_t nwhole;
	size_t hold_max; /* HOLD_MAX_BYTES, or JANK_ANALYZE_HOLD_BYTES */
};

static void analyze_notes(const struct jank_engine *e)
{
	struct jank_engine_stats s;

	jank_engine_get_stats(e, &s);
	const struct {
		uint64_t n;
		const char *what;
	} notes[] = {
		{ s.actions_unmatched, "action ends had no begin" },
		{ s.actions_replaced, "action begins were repeated before their end" },
		{ s.actions_open, "actions were still open at the end of the trace" },
		{ s.actions_expired, "actions never ended (expired after the action timeout)" },
		{ s.actions_evicted,
		  "open actions were dropped, oldest first, because open actions "
		  "alone took half of the memory limit" },
		{ s.flows_expired, "flow `from`s never met their `to` (expired after the action "
				   "timeout)" },
		{ s.flows_evicted,
		  "pending flow `from`s were dropped, oldest first, because open actions "
		  "and pending flows alone took half of the memory limit" },
		{ s.paths_truncated, "critical paths reached freed graph memory (truncated)" },
		{ s.paths_incomplete, "critical paths are incomplete (out of memory)" },
	};

	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		if (notes[i].n)
			printf("note: %" PRIu64 " %s\n", notes[i].n, notes[i].what);
	if (s.discarded_events)
		printf("note: the tracer discarded %" PRIu64 " events\n", s.discarded_events);
}

/* --stats: "stat NAME VALUE" lines on stderr, for the benchmarks. */
static void print_stats(const struct jank_engine *e)
{
	struct jank_engine_stats s;

	jank_engine_get_stats(e, &s);
	fprintf(stderr,
		"stat events %" PRIu64 "\nstat actions_completed %" PRIu64 "\nstat janks %" PRIu64
		"\nstat actions_open %" PRIu64 "\nstat actions_expired %" PRIu64
		"\nstat actions_evicted %" PRIu64 "\nstat paths_truncated %" PRIu64
		"\nstat budget_forced %" PRIu64 "\nstat memory_bytes %" PRIu64
		"\nstat memory_peak %" PRIu64 "\nstat threads %" PRIu64 "\nstat vertices %" PRIu64
		"\nstat freed_vertices %" PRIu64 "\nstat freed_threads %" PRIu64
		"\nstat gc_steps %" PRIu64 "\n",
		s.events, s.actions_completed, s.janks, s.actions_open, s.actions_expired,
		s.actions_evicted, s.paths_truncated, s.budget_forced, s.memory_bytes,
		s.memory_peak, s.graph.threads, s.graph.vertices, s.graph.freed_vertices,
		s.graph.freed_threads, s.graph.gc_steps);
}

/*
 * analyze's output in one format: each action reported, as the engine
 * reports it (0, or -errno), then the end: what the rules saw.
 */
struct analyze_output {
	int (*verdict)(const struct jank_verdict *r);
	void (*end)(const struct jank_engine *e, const struct analyze_ctx *ctx, bool all);
};

static int verdict_text(const struct jank_verdict *r)
{
	jank_format_verdict_text(stdout, r);
	return 0;
}

/* The per-rule table, and the notes on what the engine could not see whole. */
static void end_text(const struct jank_engine *e, const struct analyze_ctx *ctx, bool all)
{
	if (ctx->reports == 0)
		printf("%s\n\n", all ? "no action completed" : "no action went over its threshold");
	jank_format_summary_text(stdout, e);
	analyze_notes(e);
}

static int verdict_json(const struct jank_verdict *r)
{
	return jank_format_json_print(stdout, jank_verdict_to_json(r, JANK_VERDICT_JSON_FULL));
}

/* One summary object per rule. */
static void end_json(const struct jank_engine *e, const struct analyze_ctx *ctx, bool all)
{
	(void)ctx;
	(void)all;
	for (size_t i = 0; i < jank_engine_rule_count(e); i++)
		jank_format_json_print(stdout, jank_format_summary_json(e, i));
}

static const struct analyze_output analyze_outputs[] = {
	[FORMAT_TEXT] = { verdict_text, end_text },
	[FORMAT_JSON] = { verdict_json, end_json },
};

/* A slow action whose rule had no baseline yet: its suspects wait for the whole trace. */
static bool waits_for_trace(const struct jank_verdict *r)
{
	return r->suspects && !r->suspects->ready && r->profile;
}

/* The suspects of `pf` against the normal actions of the whole trace, `b`. */
static void whole_suspects(const struct jank_baseline *b, const struct jank_profile *pf,
			   struct jank_suspects *sus)
{
	jank_baseline_suspects(b, pf, sus);
	sus->whole = true;
}

static void drop_held(struct analyze_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nheld; i++) {
		jank_path_fini(&ctx->held[i].path);
		jank_profile_fini(&ctx->held[i].pf);
	}
	free(ctx->held);
	ctx->held = NULL;
	ctx->nheld = ctx->held_cap = ctx->held_bytes = 0;
}

/* The bytes a held verdict takes, about. */
static size_t held_size(const struct jank_verdict *r)
{
	const struct jank_path *p = r->path;

	return sizeof(struct held) + p->n * sizeof(*p->segs) + p->nlabels * sizeof(*p->labels) +
	       p->nframes * (sizeof(*p->frames) + 64) + p->nstack_frames * sizeof(uint32_t) +
	       p->nstacks * sizeof(*p->stacks) +
	       (r->profile ? r->profile->n * sizeof(*r->profile->comps) : 0);
}

/* Hold a copy of r, or give up holding (overflow). 0 or -ENOMEM. */
static int hold(struct analyze_ctx *ctx, const struct jank_verdict *r)
{
	size_t bytes = held_size(r);
	struct held *h;

	if (ctx->held_bytes + bytes > ctx->hold_max) {
		drop_held(ctx);
		ctx->overflow = true;
		return 0;
	}
	if (ctx->nheld == ctx->held_cap) {
		size_t cap = jank_array_grow(&ctx->held, sizeof(*ctx->held), ctx->held_cap, 16);

		if (!cap)
			return -ENOMEM;
		ctx->held_cap = cap;
	}
	h = &ctx->held[ctx->nheld];
	memset(h, 0, sizeof(*h));
	jank_path_init(&h->path);
	jank_profile_init(&h->pf);
	ctx->nheld++;
	if (jank_path_copy(&h->path, r->path) < 0 ||
	    (r->profile && jank_profile_copy(&h->pf, r->profile) < 0))
		return -ENOMEM;
	h->v = *r;
	h->has_pf = r->profile != NULL;
	h->has_sus = r->suspects != NULL;
	if (r->suspects)
		h->sus = *r->suspects;
	snprintf(h->key, sizeof(h->key), "%s", r->key ? r->key : "");
	snprintf(h->comm, sizeof(h->comm), "%s", r->comm ? r->comm : "");
	ctx->held_bytes += bytes;
	return 0;
}

/* A held verdict, its suspects against the whole trace if it waited for them. 0 or -errno. */
static int print_held(struct analyze_ctx *ctx, struct held *h, const struct jank_engine *e)
{
	struct jank_breakdown bd;
	int r = -ENOMEM;

	jank_breakdown_init(&bd);
	if (jank_breakdown_compute(&h->path, &bd) == 0) {
		if (h->has_sus && !h->sus.ready && h->has_pf)
			whole_suspects(jank_engine_rule_baseline(e, h->v.rule_index), &h->pf,
				       &h->sus);
		h->v.path = &h->path;
		h->v.breakdown = &bd;
		h->v.profile = h->has_pf ? &h->pf : NULL;
		h->v.suspects = h->has_sus ? &h->sus : NULL;
		h->v.key = h->key;
		h->v.comm = h->comm;
		r = ctx->out->verdict(&h->v);
	}
	jank_breakdown_fini(&bd);
	return r;
}

static void on_report(const struct jank_verdict *r, void *data)
{
	struct analyze_ctx *ctx = data;
	int e = 0;

	ctx->reports++;
	if (ctx->whole) {
		/* The second pass: the verdicts the first did not print. */
		struct jank_verdict v = *r;
		struct jank_suspects sus;

		if (ctx->skip) {
			ctx->skip--;
			return;
		}
		if (waits_for_trace(r) && r->rule_index < ctx->nwhole) {
			whole_suspects(&ctx->whole[r->rule_index], r->profile, &sus);
			v.suspects = &sus;
		}
		e = ctx->out->verdict(&v);
	} else if (ctx->overflow) {
		return;
	} else if (ctx->nheld || waits_for_trace(r)) {
		e = hold(ctx, r);
	} else {
		ctx->printed++;
		e = ctx->out->verdict(r);
	}
	if (e < 0 && !ctx->err)
		ctx->err = -ENOMEM;
}

/*
 * The held verdicts were too many: run the traces again in a new engine
 * (*e replaced), and print the verdicts the first pass did not, the held
 * ones' suspects against the first pass's final baselines. 0 or EXIT_*.
 */
static int second_pass(const struct jank_config *conf, const struct options *o,
		       struct analyze_ctx *ctx, struct jank_engine **e)
{
	size_t n = jank_engine_rule_count(*e);
	struct jank_baseline *bl = calloc(n ? n : 1, sizeof(*bl));
	struct jank_engine *e2;
	int r;

	if (!bl) {
		ctx->err = -ENOMEM;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		bl[i] = *jank_engine_rule_baseline(*e, i);
	e2 = config_engine(conf, o, o->all);
	if (!e2) {
		free(bl);
		return JANK_EXIT_BAD_INPUT;
	}
	jank_engine_free(*e);
	*e = e2;
	ctx->whole = bl;
	ctx->nwhole = n;
	ctx->skip = ctx->printed;
	ctx->reports = 0;
	jank_engine_set_verdict_cb(e2, on_report, ctx);
	r = run_traces(e2, o->traces, o->ntraces);
	ctx->whole = NULL;
	free(bl);
	return r;
}

int cmd_analyze(int argc, char **argv)
{
	struct options o = { .format = FORMAT_TEXT };
	struct analyze_ctx ctx = { .hold_max = HOLD_MAX_BYTES };
	struct jank_engine *e = NULL;
	struct jank_config conf;
	const char *hold_max = getenv("JANK_ANALYZE_HOLD_BYTES"); /* for the tests */
	bool hosts;
	int r;

	if (hold_max && *hold_max)
		ctx.hold_max = strtoull(hold_max, NULL, 10);
	r = parse_trace_options(argc, argv, "analyze", "cafhGS", usage_analyze, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = config_load("analyze", &o, &conf);
	if (r)
		return r;
	/* The traces of several hosts: an engine per host, joined (analyze-hosts.c). */
	r = analyze_maybe_hosts(&conf, &o, &hosts);
	if (hosts)
		goto end;
	e = config_engine(&conf, &o, o.all);
	if (!e) {
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	ctx.out = &analyze_outputs[o.format];
	jank_engine_set_verdict_cb(e, on_report, &ctx);
	r = run_traces(e, o.traces, o.ntraces);
	if (r == 0 && !ctx.err && ctx.overflow)
		r = second_pass(&conf, &o, &ctx, &e);
	for (size_t i = 0; r == 0 && !ctx.err && i < ctx.nheld; i++)
		if (print_held(&ctx, &ctx.held[i], e) < 0)
			ctx.err = -ENOMEM;
	if (r)
		goto end;
	if (ctx.err) {
		errorf("out of memory");
		r = JANK_EXIT_FAILURE;
		goto end;
	}
	ctx.out->end(e, &ctx, o.all);
	if (o.stats)
		print_stats(e);
	r = finish_output();
end:
	drop_held(&ctx);
	jank_engine_free(e);
	jank_config_fini(&conf);
	return r;
}

/* ---- compare ---- */

struct compare_ctx {
	size_t rule;
	bool split; /* slow against normal; else every action goes to `group` */
	enum jank_cmp_group group;
	struct jank_compare *cmp;
	struct jank_flame *flame[2]; /* --flame: each group's paths, by JANK_CMP_* */
	uint64_t flame_actions[2];
	int err;
};

static void on_compare(const struct jank_verdict *r, void *data)
{
	struct compare_ctx *ctx = data;
	enum jank_cmp_group g = ctx->group;

	if (r->rule_index != ctx->rule || r->kind != JANK_VERDICT_COMPLETED || !r->profile ||
	    r->incomplete)
		return;
	if (ctx->split)
		g = r->over_threshold ? JANK_CMP_A : JANK_CMP_B;
	if (jank_compare_add(ctx->cmp, g, r->profile) < 0)
		ctx->err = -ENOMEM;
	if (ctx->flame[g]) {
		if (jank_flame_add_path(ctx->flame[g], r->path) < 0)
			ctx->err = -ENOMEM;
		ctx->flame_actions[g]++;
	}
}

/* The actions of the rule in the traces, into the comparison. Returns 0 or EXIT_*. */
static int compare_pass(const struct jank_config *conf, const struct options *o,
			struct compare_ctx *ctx, const char *const *traces, size_t n)
{
	struct jank_engine *e = config_engine(conf, o, true);
	int r;

	if (!e)
		return JANK_EXIT_BAD_INPUT;
	jank_engine_set_verdict_cb(e, on_compare, ctx);
	r = run_traces(e, traces, n);
	jank_engine_free(e);
	if (r == 0 && ctx->err) {
		errorf("out of memory");
		r = JANK_EXIT_BAD_INPUT;
	}
	return r;
}

/* Both groups have actions, or the one-line error says which is empty. */
static int compare_groups(const struct jank_compare *cmp, const char *action)
{
	size_t a = jank_compare_count(cmp, JANK_CMP_A), b = jank_compare_count(cmp, JANK_CMP_B);

	if (a && b)
		return 0;
	errorf("compare: no %s '%s' action (%zu %s): nothing to compare",
	       jank_compare_name(cmp, a ? JANK_CMP_B : JANK_CMP_A), action, a ? a : b,
	       jank_compare_name(cmp, a ? JANK_CMP_A : JANK_CMP_B));
	return JANK_EXIT_BAD_INPUT;
}

struct compare_picture {
	const struct compare_ctx *ctx;
	const char *title;
};

static int compare_svg(FILE *f, void *data)
{
	const struct compare_picture *p = data;

	return jank_svg_compare(f, p->ctx->cmp, p->title);
}

static int compare_flame(FILE *f, void *data)
{
	const struct compare_picture *p = data;

	return jank_flame_write_diff_svg(p->ctx->flame[JANK_CMP_A], p->ctx->flame[JANK_CMP_B], f,
					 p->title);
}

/* The comparison as a table for humans, `title` first. */
static void compare_text(const struct jank_compare *cmp, const char *action, const char *title)
{
	(void)action;
	jank_compare_text(stdout, cmp, title, 25);
}

/* The comparison as one JSON object. */
static void compare_json(const struct jank_compare *cmp, const char *action, const char *title)
{
	(void)title;
	jank_format_json_print(stdout, jank_compare_json(cmp, action));
}

/* compare's output in one format: the comparison of the two groups. */
struct compare_output {
	void (*comparison)(const struct jank_compare *cmp, const char *action, const char *title);
};

static const struct compare_output compare_outputs[] = {
	[FORMAT_TEXT] = { compare_text },
	[FORMAT_JSON] = { compare_json },
};

static int compare_output(struct compare_ctx *ctx, const struct options *o, const char *action)
{
	const struct jank_compare *cmp = ctx->cmp;
	struct compare_picture pic = { .ctx = ctx };
	char title[512], flame_title[512];
	int r = 0;

	if (o->before)
		snprintf(title, sizeof(title), "%s: %zu actions after against %zu before", action,
			 jank_compare_count(cmp, JANK_CMP_A), jank_compare_count(cmp, JANK_CMP_B));
	else
		snprintf(title, sizeof(title),
			 "%s: %zu slow actions (over the threshold) against %zu normal ones",
			 action, jank_compare_count(cmp, JANK_CMP_A),
			 jank_compare_count(cmp, JANK_CMP_B));
	compare_outputs[o->format].comparison(cmp, action, title);
	pic.title = title;
	if (o->svg)
		r = write_file("compare", o->svg, compare_svg, &pic);
	if (r == 0 && o->flame) {
		jank_flame_set_actions(ctx->flame[JANK_CMP_A], ctx->flame_actions[JANK_CMP_A]);
		jank_flame_set_actions(ctx->flame[JANK_CMP_B], ctx->flame_actions[JANK_CMP_B]);
		snprintf(flame_title, sizeof(flame_title),
			 "%s: the critical paths of the %s actions against the %s ones", action,
			 jank_compare_name(cmp, JANK_CMP_A), jank_compare_name(cmp, JANK_CMP_B));
		pic.title = flame_title;
		r = write_file("compare", o->flame, compare_flame, &pic);
	}
	return r ? r : finish_output();
}

int cmd_compare(int argc, char **argv)
{
	struct options o = { .format = FORMAT_TEXT };
	struct compare_ctx ctx = { 0 };
	struct jank_config conf;
	const char *action;
	int r;

	r = parse_trace_options(argc, argv, "compare", "cABoFfh", usage_compare, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = config_load("compare", &o, &conf);
	if (r)
		return r;
	r = config_rule("compare", &conf, &o, &ctx.rule);
	if (r)
		goto end;
	action = conf.rules[ctx.rule].name;
	ctx.split = !o.before;
	ctx.cmp =
		o.before ? jank_compare_new("after", "before") : jank_compare_new("slow", "normal");
	if (o.flame) {
		ctx.flame[JANK_CMP_A] = jank_flame_new();
		ctx.flame[JANK_CMP_B] = jank_flame_new();
	}
	if (!ctx.cmp || (o.flame && (!ctx.flame[JANK_CMP_A] || !ctx.flame[JANK_CMP_B]))) {
		errorf("out of memory");
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	r = compare_pass(&conf, &o, &ctx, o.traces, o.ntraces);
	if (r == 0 && o.before) {
		ctx.group = JANK_CMP_B;
		r = compare_pass(&conf, &o, &ctx, &o.before, 1);
	}
	if (r == 0)
		r = compare_groups(ctx.cmp, action);
	if (r == 0 && jank_compare_finish(ctx.cmp) < 0) {
		errorf("out of memory");
		r = JANK_EXIT_BAD_INPUT;
	}
	if (r == 0)
		r = compare_output(&ctx, &o, action);
end:
	jank_compare_free(ctx.cmp);
	jank_flame_free(ctx.flame[JANK_CMP_A]);
	jank_flame_free(ctx.flame[JANK_CMP_B]);
	jank_config_fini(&conf);
	return r;
}
