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
#include <string.h>
#include "compare-svg.h"
#include "compare.h"
#include "config-file.h"
#include "engine.h"
#include "exit-status.h"
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
	"  -h, --help            show this help\n";

static const char usage_compare[] =
	"Usage: jankctl compare --config FILE [--action NAME] [--before TRACE] [--svg FILE]\n"
	"                       [--format text|json] TRACE...\n"
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
	"  -f, --format FORMAT   text (default) or json (one object)\n"
	"  -h, --help            show this help\n";

/* ---- The rules of --config, and an engine with them ---- */

/* The rules of --config, loaded and checked. Returns 0, or EXIT_* after the message. */
static int config_load(const char *cmd, const struct options *o, struct jank_config *conf)
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
	return 0;
}

/* An engine with the config's limits and rules. NULL after the message. */
static struct jank_engine *config_engine(const struct jank_config *conf, const struct options *o,
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

/* ---- analyze ---- */

struct analyze_ctx {
	const struct analyze_output *out;
	uint64_t reports;
	int err;
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
		"\nstat memory_peak %" PRIu64 "\nstat workers %" PRIu64 "\nstat vertices %" PRIu64
		"\nstat freed_vertices %" PRIu64 "\nstat freed_workers %" PRIu64
		"\nstat gc_steps %" PRIu64 "\n",
		s.events, s.actions_completed, s.janks, s.actions_open, s.actions_expired,
		s.actions_evicted, s.paths_truncated, s.budget_forced, s.memory_bytes,
		s.memory_peak, s.graph.workers, s.graph.vertices, s.graph.freed_vertices,
		s.graph.freed_workers, s.graph.gc_steps);
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

static void on_report(const struct jank_verdict *r, void *data)
{
	struct analyze_ctx *ctx = data;

	ctx->reports++;
	if (ctx->out->verdict(r) < 0 && !ctx->err)
		ctx->err = -ENOMEM;
}

int cmd_analyze(int argc, char **argv)
{
	struct options o = { .format = FORMAT_TEXT };
	struct analyze_ctx ctx = { 0 };
	struct jank_engine *e = NULL;
	struct jank_config conf;
	int r;

	r = parse_trace_options(argc, argv, "analyze", "cafhGS", usage_analyze, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = config_load("analyze", &o, &conf);
	if (r)
		return r;
	e = config_engine(&conf, &o, o.all);
	if (!e) {
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	ctx.out = &analyze_outputs[o.format];
	jank_engine_set_verdict_cb(e, on_report, &ctx);
	r = run_traces(e, o.traces, o.ntraces);
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
}

/* The rule to compare: --action, or the only one. Returns 0, or EXIT_* after the message. */
static int compare_rule(const struct jank_config *conf, const struct options *o, size_t *rule)
{
	for (size_t i = 0; o->action && i < conf->nrules; i++)
		if (!strcmp(conf->rules[i].name, o->action)) {
			*rule = i;
			return 0;
		}
	if (o->action) {
		errorf("compare: %s has no [action %s]", o->config, o->action);
		return JANK_EXIT_BAD_INPUT;
	}
	if (conf->nrules != 1) {
		errorf("compare: %s has %zu rules: name one with --action", o->config,
		       conf->nrules);
		return JANK_EXIT_USAGE;
	}
	*rule = 0;
	return 0;
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

static int compare_svg(const struct jank_compare *cmp, const char *path, const char *title)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f) {
		errorf("compare: cannot write %s: %s", path, strerror(errno));
		return JANK_EXIT_BAD_INPUT;
	}
	r = jank_svg_compare(f, cmp, title);
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r < 0) {
		errorf("compare: cannot write %s: %s", path, strerror(-r));
		return JANK_EXIT_BAD_INPUT;
	}
	return 0;
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

static int compare_output(const struct jank_compare *cmp, const struct options *o,
			  const char *action)
{
	char title[512];
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
	if (o->svg)
		r = compare_svg(cmp, o->svg, title);
	return r ? r : finish_output();
}

int cmd_compare(int argc, char **argv)
{
	struct options o = { .format = FORMAT_TEXT };
	struct compare_ctx ctx = { 0 };
	struct jank_config conf;
	const char *action;
	int r;

	r = parse_trace_options(argc, argv, "compare", "cABofh", usage_compare, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = config_load("compare", &o, &conf);
	if (r)
		return r;
	r = compare_rule(&conf, &o, &ctx.rule);
	if (r)
		goto end;
	action = conf.rules[ctx.rule].name;
	ctx.split = !o.before;
	ctx.cmp =
		o.before ? jank_compare_new("after", "before") : jank_compare_new("slow", "normal");
	r = ctx.cmp ? compare_pass(&conf, &o, &ctx, o.traces, o.ntraces) : JANK_EXIT_BAD_INPUT;
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
		r = compare_output(ctx.cmp, &o, action);
end:
	jank_compare_free(ctx.cmp);
	jank_config_fini(&conf);
	return r;
}
