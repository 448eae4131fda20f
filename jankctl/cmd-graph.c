/* SPDX-License-Identifier: MIT */
/*
 * jankctl critpath and graph: the whole execution graph of traces (an
 * engine without rules or garbage collection, run to their end), and what
 * it says: the critical path of one thread over an interval, or every
 * thread's state intervals and the wakeup links between them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "engine.h"
#include "exit-status.h"
#include "format.h"
#include "jankctl.h"
#include "symbols.h"
#include "verdict-json.h"

static const char usage_critpath[] =
	"Usage: jankctl critpath --tid N [--begin NS] [--end NS] [--format text|json] TRACE...\n"
	"The critical path of thread N over [begin, end]: what it was running or waiting on.\n"
	"Times are nanoseconds from the trace clock's origin; the default interval is the\n"
	"thread's whole life in the trace.\n"
	"\n"
	"  -t, --tid N           the thread\n"
	"  -b, --begin NS        start of the interval\n"
	"  -e, --end NS          end of the interval\n"
	"  -f, --format FORMAT   text (default) or json\n"
	"      --decoder NAME    auto (default), native or babeltrace2: which CTF decoder reads\n"
	"                        the traces (auto: native unless it cannot, then babeltrace2)\n"
	"  -h, --help            show this help\n";

static const char usage_graph[] =
	"Usage: jankctl graph [--tid N] [--format json|text] TRACE...\n"
	"The execution graph: each thread's state intervals and the wakeup links.\n"
	"\n"
	"  -t, --tid N           only thread N and the links that touch it\n"
	"  -f, --format FORMAT   json (default) or text\n"
	"      --decoder NAME    auto (default), native or babeltrace2: which CTF decoder reads\n"
	"                        the traces (auto: native unless it cannot, then babeltrace2)\n"
	"  -h, --help            show this help\n";

/* ---- The whole graph ---- */

/*
 * The whole graph of the traces, for critpath and graph: an engine without
 * GC or rules, run to the end. Returns 0 with *e set (the caller frees it,
 * whatever the result), or JANK_EXIT_BAD_INPUT after the message.
 */
static int whole_graph(const struct options *o, struct jank_engine **e)
{
	struct jank_engine_config ec;

	jank_engine_config_defaults(&ec);
	ec.gc = false;
	ec.report_all = false;
	*e = jank_engine_new(&ec);
	if (!*e) {
		errorf("out of memory");
		return JANK_EXIT_FAILURE;
	}
	return run_traces(*e, o->traces, o->ntraces);
}

/* --begin and --end within the traces: a path outside them would be all unknown. */
static int check_range(const struct jank_engine *e, const struct options *o)
{
	struct jank_engine_stats s;

	jank_engine_get_stats(e, &s);
	if (o->begin_set && o->begin > s.now) {
		errorf("critpath: --begin %" PRId64 " is after the end of the traces (%" PRId64 ")",
		       o->begin, s.now);
		return JANK_EXIT_BAD_INPUT;
	}
	if (o->end_set && o->end < s.first) {
		errorf("critpath: --end %" PRId64 " is before the start of the traces (%" PRId64
		       ")",
		       o->end, s.first);
		return JANK_EXIT_BAD_INPUT;
	}
	if (o->end_set && o->end > s.now) {
		errorf("critpath: --end %" PRId64 " is after the end of the traces (%" PRId64 ")",
		       o->end, s.now);
		return JANK_EXIT_BAD_INPUT;
	}
	return 0;
}

/* ---- critpath ---- */

/* critpath's output in one format: the path and its breakdown. */
struct critpath_output {
	void (*path)(const struct jank_path *p, const struct jank_breakdown *b);
};

static void critpath_text(const struct jank_path *p, const struct jank_breakdown *b)
{
	jank_format_critpath_text(stdout, p, b);
}

static void critpath_json(const struct jank_path *p, const struct jank_breakdown *b)
{
	jank_format_json_print(stdout, jank_critpath_to_json(p, b));
}

static const struct critpath_output critpath_outputs[] = {
	[FORMAT_TEXT] = { critpath_text },
	[FORMAT_JSON] = { critpath_json },
};

int cmd_critpath(int argc, char **argv)
{
	struct options o = { .format = FORMAT_TEXT };
	const struct jank_thread *w;
	struct jank_breakdown b;
	struct jank_engine *e;
	struct jank_path p;
	int64_t begin, end;
	int r;

	jank_path_init(&p);
	jank_breakdown_init(&b);
	r = parse_trace_options(argc, argv, "critpath", "tbefh", usage_critpath, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (!o.tid_set) {
		errorf("critpath: --tid N is required (see jankctl critpath --help)");
		return JANK_EXIT_USAGE;
	}
	if ((o.begin_set && o.begin < 0) || (o.end_set && o.end < 0)) {
		errorf("critpath: --%s %" PRId64 " is negative (times are nanoseconds from the "
		       "trace clock's origin)",
		       o.begin_set && o.begin < 0 ? "begin" : "end",
		       o.begin_set && o.begin < 0 ? o.begin : o.end);
		return JANK_EXIT_USAGE;
	}
	if (o.begin_set && o.end_set && o.begin > o.end) {
		errorf("critpath: --begin %" PRId64 " is after --end %" PRId64, o.begin, o.end);
		return JANK_EXIT_USAGE;
	}
	r = whole_graph(&o, &e);
	if (r)
		goto end;
	r = check_range(e, &o);
	if (r)
		goto end;
	w = jank_graph_find_any(jank_engine_graph(e), o.tid);
	if (!w) {
		errorf("thread %" PRId32 " not found in the trace", o.tid);
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	begin = o.begin_set ? o.begin : w->first_seen;
	end = o.end_set ? o.end : w->last_seen;
	if (begin > end) {
		errorf("the interval [%" PRId64 ", %" PRId64 "] is empty: thread %" PRId32
		       " was seen from %" PRId64 " to %" PRId64,
		       begin, end, o.tid, w->first_seen, w->last_seen);
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	r = jank_critpath_compute_thread(jank_engine_graph(e), w, begin, end, &p);
	jank_path_name_frames(&p, jank_symbols_frame_namer, cli_symbols());
	if (r == 0)
		r = jank_breakdown_compute(&p, &b);
	if (r < 0) {
		errorf("cannot compute the critical path of thread %" PRId32 ": %s", o.tid,
		       strerror(-r));
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	critpath_outputs[o.format].path(&p, &b);
	r = finish_output();
end:
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	jank_engine_free(e);
	return r;
}

/* ---- graph ---- */

/* graph's output in one format: the graph, written as it is walked (io/format.h). */
struct graph_output {
	int (*graph)(FILE *f, const struct jank_graph *g, int32_t tid);
};

static const struct graph_output graph_outputs[] = {
	[FORMAT_TEXT] = { jank_format_graph_text },
	[FORMAT_JSON] = { jank_format_graph_json },
};

int cmd_graph(int argc, char **argv)
{
	struct options o = { .format = FORMAT_JSON };
	struct jank_engine *e;
	int r;

	r = parse_trace_options(argc, argv, "graph", "tfh", usage_graph, &o);
	if (r)
		return r == 1 ? 0 : r;
	r = whole_graph(&o, &e);
	if (r)
		goto end;
	r = graph_outputs[o.format].graph(stdout, jank_engine_graph(e), o.tid_set ? o.tid : -1);
	if (r == -ENOENT) {
		errorf("thread %" PRId32 " not found in the trace", o.tid);
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	if (r < 0) {
		errorf("cannot write the graph: %s", strerror(-r));
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	r = finish_output();
end:
	jank_engine_free(e);
	return r;
}
