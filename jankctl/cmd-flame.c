/* SPDX-License-Identifier: MIT */
/*
 * jankctl flame: the flame graph of a rule's critical paths. The [action]
 * rule of a config file is applied to traces, as analyze does; the paths of
 * its slow actions (or of every completed one) go into one flame, by thread
 * and call stack, the wait states as leaf frames (io/flame-path.h), written
 * as folded stacks or as an SVG (io/flame.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "config-file.h"
#include "engine.h"
#include "exit-status.h"
#include "flame-path.h"
#include "jankctl.h"

static const char usage_flame[] =
	"Usage: jankctl flame --config FILE [--action NAME] [--all] [--format folded|svg]\n"
	"                     [--svg FILE] TRACE...\n"
	"The flame graph of the critical paths of one [action NAME] rule of FILE: where the\n"
	"time of its slow actions (over the rule's threshold) went, by thread and call stack,\n"
	"each wait state a leaf frame (\"[blocked]\") above the function that waited.\n"
	"Folded stacks on standard output (what flamegraph.pl, inferno and speedscope read):\n"
	"a line per stack, \"thread;outer;...;inner;[state] NS\".\n"
	"\n"
	"  -c, --config FILE     the rules (the [graph] section applies too)\n"
	"  -A, --action NAME     the rule (default: the only rule of FILE)\n"
	"  -a, --all             every completed action's path, not only the slow ones\n"
	"  -f, --format FORMAT   folded (default) or svg: the picture on standard output\n"
	"  -o, --svg FILE        also draw the flame graph into FILE\n"
	"      --decoder NAME    auto (default), native or babeltrace2: which CTF decoder reads\n"
	"                        the traces (auto: native unless it cannot, then babeltrace2)\n"
	"  -h, --help            show this help\n";

struct flame_ctx {
	size_t rule;
	bool all;
	struct jank_flame *flame;
	uint64_t actions; /* whose paths are in the flame */
	int err;
};

static void on_verdict(const struct jank_verdict *r, void *data)
{
	struct flame_ctx *ctx = data;

	if (r->rule_index != ctx->rule || r->kind != JANK_VERDICT_COMPLETED || !r->path)
		return;
	if (!ctx->all && !r->over_threshold)
		return;
	if (jank_flame_add_path(ctx->flame, r->path) < 0)
		ctx->err = -ENOMEM;
	ctx->actions++;
}

struct flame_picture {
	struct jank_flame *flame;
	const char *title;
};

static int flame_svg(FILE *f, void *data)
{
	const struct flame_picture *p = data;

	return jank_flame_write_svg(p->flame, f, p->title);
}

static int flame_output(struct flame_ctx *ctx, const struct options *o, const char *action)
{
	char title[512];
	struct flame_picture pic = { .flame = ctx->flame, .title = title };
	int r = 0;

	jank_flame_set_actions(ctx->flame, ctx->actions);
	snprintf(title, sizeof(title), "%s: the critical paths of %" PRIu64 " %saction%s", action,
		 ctx->actions, ctx->all ? "" : "slow ", ctx->actions == 1 ? "" : "s");
	if (o->format == FORMAT_SVG)
		r = jank_flame_write_svg(ctx->flame, stdout, title);
	else
		r = jank_flame_write_folded(ctx->flame, stdout);
	if (r == -ENOMEM) {
		errorf("out of memory");
		return JANK_EXIT_FAILURE;
	}
	if (o->svg && (r = write_file("flame", o->svg, flame_svg, &pic)) != 0)
		return r;
	r = finish_output();
	if (r == 0 && ctx->actions == 0)
		errorf("flame: no %s'%s' action in the traces: the flame graph is empty",
		       ctx->all ? "completed " : "slow ", action);
	return r;
}

int cmd_flame(int argc, char **argv)
{
	struct options o = { .format = FORMAT_FOLDED };
	struct flame_ctx ctx = { 0 };
	struct jank_engine *e = NULL;
	struct jank_config conf;
	int r;

	r = parse_trace_options(argc, argv, "flame", "cAafoh", usage_flame, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = config_load("flame", &o, &conf);
	if (r)
		return r;
	r = config_rule("flame", &conf, &o, &ctx.rule);
	if (r)
		goto end;
	ctx.all = o.all;
	ctx.flame = jank_flame_new();
	e = ctx.flame ? config_engine(&conf, &o, o.all) : NULL;
	if (!e) {
		if (!ctx.flame)
			errorf("out of memory");
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	jank_engine_set_verdict_cb(e, on_verdict, &ctx);
	r = run_traces(e, o.traces, o.ntraces);
	if (r == 0 && ctx.err) {
		errorf("out of memory");
		r = JANK_EXIT_FAILURE;
	}
	if (r == 0)
		r = flame_output(&ctx, &o, conf.rules[ctx.rule].name);
end:
	jank_engine_free(e);
	jank_flame_free(ctx.flame);
	jank_config_fini(&conf);
	return r;
}
