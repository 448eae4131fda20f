/* SPDX-License-Identifier: MIT */
/*
 * jankctl: the engine, offline, on CTF traces.
 *
 *   analyze   apply the action rules of a config file; report janks
 *   compare   the slow actions of a rule against its normal ones, or two traces
 *   critpath  the critical path of one thread over an interval
 *   graph     the execution graph: state intervals and wakeup links
 *   status    ask a running jankd, over its control socket
 *
 * Exit status: 0 on success, 1 on bad input (trace, config, thread), 2 on a
 * usage error. Every error is one line on stderr that starts with "jankctl: ".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "config-file.h"
#include "engine.h"
#include "trace-reader.h"
#include "format.h"
#include "capture-list.h"
#include "capture-policy.h"
#include "capture-report.h"
#include "compare.h"
#include "compare-svg.h"
#include "exit-status.h"
#include "time-limit.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

#define ERR_LEN		 1024
#define STATUS_SOCKET	 "/run/jankd/control"
#define STATUS_TIMEOUT_S 10

enum format {
	FORMAT_TEXT = 0,
	FORMAT_JSON,
	FORMAT_OPENMETRICS, /* status only */
	FORMAT_PROMETHEUS,  /* status only */
};

struct options {
	const char *config;
	enum format format;
	bool all;
	bool no_gc; /* hidden: keep the whole graph (tests: GC invariance) */
	bool stats; /* hidden: the engine's counters on stderr (benchmarks) */
	bool tid_set, begin_set, end_set;
	int32_t tid;
	int64_t begin, end;
	const char *socket;	   /* status */
	const char *dir;	   /* captures */
	const char *action;	   /* compare: the rule */
	const char *before;	   /* compare: the trace to compare with */
	const char *svg;	   /* compare: the picture's file */
	const char *const *traces; /* the arguments: traces, or report's CAPTURE_DIR */
	size_t ntraces;
};

static const char usage_main[] =
	"Usage: jankctl COMMAND [OPTION]... TRACE...\n"
	"Find out why user actions were slow, from LTTng traces (CTF).\n"
	"\n"
	"Commands:\n"
	"  analyze   --config FILE [--all] [--format text|json] TRACE...\n"
	"            apply the [action] rules of FILE; report the actions over threshold\n"
	"  compare   --config FILE [--action NAME] [--before TRACE] [--svg FILE] TRACE...\n"
	"            what the slow actions spend more time on than the normal ones\n"
	"  critpath  --tid N [--begin NS] [--end NS] [--format text|json] TRACE...\n"
	"            the critical path of thread N: what it was waiting on\n"
	"  graph     [--tid N] [--format json|text] TRACE...\n"
	"            every thread's state intervals and the wakeup links between them\n"
	"  status    [--socket PATH] [--format text|json|openmetrics|prometheus]\n"
	"            ask the running jankd: counts, latencies, recent janks, inputs\n"
	"  report    CAPTURE_DIR\n"
	"            analyse a capture of jankd: report.json, report.txt, critical-path.svg\n"
	"  captures  [--dir DIR] [--format text|json]\n"
	"            list jankd's captures: action, duration, size, summary\n"
	"\n"
	"A TRACE is a CTF trace directory or a directory of traces (lttng output):\n"
	"kernel and user-space traces given together are merged in time order.\n"
	"\n"
	"  -h, --help      show this help (jankctl COMMAND --help: the command's)\n"
	"  -V, --version   show the version\n";

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
	"  -h, --help            show this help\n";

static const char usage_status[] =
	"Usage: jankctl status [--socket PATH] [--format text|json|openmetrics|prometheus]\n"
	"Ask the running jankd for its figures: per-rule counts and latency percentiles,\n"
	"recent janks, events/s, graph memory, GC and drop counters, inputs and their state.\n"
	"openmetrics and prometheus print its metrics as its [metrics] endpoint serves them\n"
	"(node_exporter's textfile collector reads the prometheus format).\n"
	"\n"
	"  -s, --socket PATH     jankd's control socket (default " STATUS_SOCKET ")\n"
	"  -f, --format FORMAT   text (default), json, openmetrics or prometheus\n"
	"  -h, --help            show this help\n";

static const char usage_report[] =
	"Usage: jankctl report CAPTURE_DIR\n"
	"Analyse a capture taken by jankd: find the flagged action of its capture.json in the\n"
	"captured trace, compute its critical path, and write report.json, report.txt and\n"
	"critical-path.svg into CAPTURE_DIR. jankd does this after each capture; run it again\n"
	"after an upgrade, or on a copy of the capture.\n"
	"\n"
	"  -h, --help            show this help\n";

static const char usage_captures[] =
	"Usage: jankctl captures [--dir DIR] [--format text|json]\n"
	"List the captures of jankd, oldest first: time, action, key, duration, size on disk,\n"
	"state, and the report's one-line summary.\n"
	"\n"
	"  -d, --dir DIR         the capture directory (default " JANK_CAPTURE_DEFAULT_DIR ")\n"
	"  -f, --format FORMAT   text (default) or json (one object per line)\n"
	"  -h, --help            show this help\n";

static const char usage_graph[] =
	"Usage: jankctl graph [--tid N] [--format json|text] TRACE...\n"
	"The execution graph: each thread's state intervals and the wakeup links.\n"
	"\n"
	"  -t, --tid N           only thread N and the links that touch it\n"
	"  -f, --format FORMAT   json (default) or text\n"
	"  -h, --help            show this help\n";

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void errorf(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("jankctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_tid(const char *s, int32_t *out)
{
	int64_t v;

	if (parse_i64(s, &v) < 0 || v < 0 || v > INT32_MAX)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

/* The one-line error for a bad option of a command (getopt returned ':' or '?'). */
static int option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		errorf("%s: option '%s' needs an argument (see jankctl %s --help)", cmd,
		       argv[optind - 1], cmd);
	else if (optopt)
		errorf("%s: unknown option '-%c' (see jankctl %s --help)", cmd, optopt, cmd);
	else
		errorf("%s: unknown option '%s' (see jankctl %s --help)", cmd, argv[optind - 1],
		       cmd);
	return JANK_EXIT_USAGE;
}

/* --format text|json, and for status openmetrics|prometheus: 0, or JANK_EXIT_USAGE after the error.
 */
static int parse_format(const char *cmd, const char *arg, enum format *f)
{
	static const char *const names[] = { "text", "json", "openmetrics", "prometheus" };
	bool status = !strcmp(cmd, "status");

	for (int i = FORMAT_TEXT; i <= (status ? FORMAT_PROMETHEUS : FORMAT_JSON); i++) {
		if (!strcmp(arg, names[i])) {
			*f = i;
			return 0;
		}
	}
	errorf("%s: bad --format '%s' (expected %s)", cmd, arg,
	       status ? "text, json, openmetrics or prometheus" : "text or json");
	return JANK_EXIT_USAGE;
}

/* A command that takes no arguments: 0, or JANK_EXIT_USAGE after the one-line error. */
static int no_arguments(const char *cmd, const struct options *o)
{
	if (o->ntraces == 0)
		return 0;
	errorf("%s: unexpected argument '%s' (see jankctl %s --help)", cmd, o->traces[0], cmd);
	return JANK_EXIT_USAGE;
}

/* Where the value of -c, -s, -d, -A, -B or -o goes. */
static const char **string_option(struct options *o, int c)
{
	switch (c) {
	case 'c':
		return &o->config;
	case 's':
		return &o->socket;
	case 'A':
		return &o->action;
	case 'B':
		return &o->before;
	case 'o':
		return &o->svg;
	default:
		return &o->dir;
	}
}

/* The flag that -a, -G or -S sets. */
static bool *flag_option(struct options *o, int c)
{
	return c == 'a' ? &o->all : c == 'G' ? &o->no_gc : &o->stats;
}

/*
 * Parse a command's options. `allowed` lists the short options of the
 * command. Returns 0, 1 when --help was printed, or JANK_EXIT_USAGE.
 */
static int parse_options(int argc, char **argv, const char *cmd, const char *allowed,
			 const char *usage, struct options *o)
{
	/* clang-format off */
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "tid", required_argument, NULL, 't' },
		{ "begin", required_argument, NULL, 'b' },
		{ "end", required_argument, NULL, 'e' },
		{ "socket", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "action", required_argument, NULL, 'A' },
		{ "before", required_argument, NULL, 'B' },
		{ "svg", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		/* Hidden, for the tests and the benchmarks; analyze only. */
		{ "no-gc", no_argument, NULL, 'G' },
		{ "stats", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	/* Leading ':' reports a missing argument as ':', and opterr = 0 keeps getopt quiet. */
	static const char optstring[] = ":c:af:t:b:e:s:d:A:B:o:h";
	int c, li = -1;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, optstring, longopts, &li)) != -1) {
		if (c != '?' && c != ':' && !strchr(allowed, c)) {
			if (li >= 0)
				errorf("%s: option '--%s' does not apply to this command "
				       "(see jankctl %s --help)",
				       cmd, longopts[li].name, cmd);
			else
				errorf("%s: option '-%c' does not apply to this command "
				       "(see jankctl %s --help)",
				       cmd, c, cmd);
			return JANK_EXIT_USAGE;
		}
		li = -1;
		switch (c) {
		case 'c':
		case 's':
		case 'd':
		case 'A':
		case 'B':
		case 'o':
			*string_option(o, c) = optarg;
			break;
		case 'a':
		case 'G':
		case 'S':
			*flag_option(o, c) = true;
			break;
		case 'f':
			if (parse_format(cmd, optarg, &o->format))
				return JANK_EXIT_USAGE;
			break;
		case 't':
			if (parse_tid(optarg, &o->tid) < 0) {
				errorf("%s: bad --tid '%s' (expected a thread id)", cmd, optarg);
				return JANK_EXIT_USAGE;
			}
			o->tid_set = true;
			break;
		case 'b':
		case 'e':
			if (parse_i64(optarg, c == 'b' ? &o->begin : &o->end) < 0) {
				errorf("%s: bad --%s '%s' (expected nanoseconds from the trace "
				       "clock's "
				       "origin)",
				       cmd, c == 'b' ? "begin" : "end", optarg);
				return JANK_EXIT_USAGE;
			}
			*(c == 'b' ? &o->begin_set : &o->end_set) = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return option_error(cmd, c, argv);
		}
	}
	o->traces = (const char *const *)argv + optind;
	o->ntraces = (size_t)(argc - optind);
	return 0;
}

/* parse_options() for a command that reads traces: at least one TRACE. */
static int parse_trace_options(int argc, char **argv, const char *cmd, const char *allowed,
			       const char *usage, struct options *o)
{
	int r = parse_options(argc, argv, cmd, allowed, usage, o);

	if (r == 0 && o->ntraces == 0) {
		errorf("%s: no TRACE given (see jankctl %s --help)", cmd, cmd);
		r = JANK_EXIT_USAGE;
	}
	return r;
}

/* Run the traces through the engine to their end. Returns 0 or JANK_EXIT_BAD_INPUT (message
 * printed). */
static int run_traces(struct jank_engine *e, const char *const *traces, size_t ntraces)
{
	struct jank_reader_stats stats;
	struct jank_reader *in;
	char err[ERR_LEN];
	int r = 0;

	in = jank_reader_new_ctf(traces, ntraces, e, err, sizeof(err));
	if (!in) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	/* Offline, a rule that cannot apply is a mistake of the config: say so and stop. */
	jank_reader_set_notices(in, true, NULL, NULL);
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END) {
		errorf("%s", jank_reader_error(in));
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	jank_reader_get_stats(in, &stats);
	if (stats.events_used == 0) {
		errorf("%s: no events the engine can use (%" PRIu64 " events read)",
		       jank_reader_name(in), stats.events);
		r = JANK_EXIT_BAD_INPUT;
	}
end:
	jank_reader_free(in);
	return r;
}

static int run_input(struct jank_engine *e, const struct options *o)
{
	return run_traces(e, o->traces, o->ntraces);
}

static int finish_output(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		errorf("cannot write the output: %s", strerror(errno));
		return JANK_EXIT_FAILURE;
	}
	return 0;
}

/* ---- analyze ---- */

struct analyze_ctx {
	enum format format;
	uint64_t reports;
	int err;
};

static void on_report(const struct jank_verdict *r, void *data)
{
	struct analyze_ctx *ctx = data;

	ctx->reports++;
	if (ctx->format == FORMAT_JSON) {
		if (jank_format_json_print(stdout, jank_format_verdict_json(r)) < 0 && !ctx->err)
			ctx->err = -ENOMEM;
	} else {
		jank_format_verdict_text(stdout, r);
	}
}

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
	for (size_t i = 0; i < conf->nrules; i++) {
		int a = jank_engine_add_rule(e, &conf->rules[i]);

		if (a < 0) {
			errorf("%s: [action %s]: %s", o->config, conf->rules[i].name, strerror(-a));
			jank_engine_free(e);
			return NULL;
		}
	}
	return e;
}

static int cmd_analyze(int argc, char **argv)
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
	ctx.format = o.format;
	jank_engine_set_verdict_cb(e, on_report, &ctx);
	r = run_input(e, &o);
	if (r)
		goto end;
	if (ctx.err) {
		errorf("out of memory");
		r = JANK_EXIT_FAILURE;
		goto end;
	}
	if (o.format == FORMAT_JSON) {
		for (size_t i = 0; i < jank_engine_rule_count(e); i++)
			jank_format_json_print(stdout, jank_format_summary_json(e, i));
	} else {
		if (ctx.reports == 0)
			printf("%s\n\n",
			       o.all ? "no action completed" : "no action went over its threshold");
		jank_format_summary_text(stdout, e);
		analyze_notes(e);
	}
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
	if (o->format == FORMAT_JSON)
		jank_format_json_print(stdout, jank_compare_json(cmp, action));
	else
		jank_compare_text(stdout, cmp, title, 25);
	if (o->svg)
		r = compare_svg(cmp, o->svg, title);
	return r ? r : finish_output();
}

static int cmd_compare(int argc, char **argv)
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

/* ---- critpath ---- */

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
	return run_input(*e, o);
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

static int cmd_critpath(int argc, char **argv)
{
	struct options o = { .format = FORMAT_TEXT };
	const struct jank_worker *w;
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
	r = jank_critpath_compute_worker(jank_engine_graph(e), w, begin, end, &p);
	if (r == 0)
		r = jank_breakdown_compute(&p, &b);
	if (r < 0) {
		errorf("cannot compute the critical path of thread %" PRId32 ": %s", o.tid,
		       strerror(-r));
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	if (o.format == FORMAT_JSON)
		jank_format_json_print(stdout, jank_format_critpath_json(&p, &b));
	else
		jank_format_critpath_text(stdout, &p, &b);
	r = finish_output();
end:
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	jank_engine_free(e);
	return r;
}

/* ---- graph ---- */

static int cmd_graph(int argc, char **argv)
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
	if (o.format == FORMAT_JSON)
		r = jank_format_graph_json(stdout, jank_engine_graph(e), o.tid_set ? o.tid : -1);
	else
		r = jank_format_graph_text(stdout, jank_engine_graph(e), o.tid_set ? o.tid : -1);
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

/* ---- status ---- */

/* Connect to jankd's control socket. Returns the fd, or -1 (message printed). */
static int status_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { STATUS_TIMEOUT_S, 0 };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errorf("status: socket path too long: %s", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		errorf("status: cannot create a socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	err = errno;
	close(fd);
	if (err == ENOENT || err == ECONNREFUSED)
		errorf("cannot connect to %s: %s (is jankd running?)", path, strerror(err));
	else if (err == EACCES || err == EPERM)
		errorf("cannot connect to %s: %s (jankd's control socket is for root)", path,
		       strerror(err));
	else
		errorf("cannot connect to %s: %s", path, strerror(err));
	return -1;
}

static int cmd_status(int argc, char **argv)
{
	static const char *const status_requests[] = {
		[FORMAT_TEXT] = "status\n",
		[FORMAT_JSON] = "status json\n",
		[FORMAT_OPENMETRICS] = "status openmetrics\n",
		[FORMAT_PROMETHEUS] = "status prometheus\n",
	};
	struct options o = { .socket = STATUS_SOCKET };
	const char *path, *req;
	char *reply = NULL;
	size_t len = 0, cap = 0;
	int fd, r;

	r = parse_options(argc, argv, "status", "sfh", usage_status, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (no_arguments("status", &o))
		return JANK_EXIT_USAGE;
	path = o.socket;
	req = status_requests[o.format];
	r = JANK_EXIT_FAILURE; /* jankd cannot be reached, or did not answer */
	fd = status_connect(path);
	if (fd < 0)
		return JANK_EXIT_FAILURE;
	/* A refusal may come before the request is read: still read the reply then. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req) && errno != EPIPE &&
	    errno != ECONNRESET) {
		errorf("cannot send to %s: %s", path, strerror(errno));
		goto end;
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *b = realloc(reply, cap = cap ? cap * 2 : 8192);

			if (!b) {
				errorf("out of memory");
				goto end;
			}
			reply = b;
		}
		n = read(fd, reply + len, cap - len - 1);
		if (n == 0 || (n < 0 && errno == ECONNRESET && len > 0))
			break;
		if (n < 0) {
			errorf("no answer from jankd on %s: %s", path,
			       errno == EAGAIN ? "timed out" : strerror(errno));
			goto end;
		}
		len += (size_t)n;
	}
	/* The loop always allocates before it reads: reply is not NULL here. */
	reply[len] = '\0';
	if (len == 0) {
		errorf("jankd closed %s without an answer", path);
		goto end;
	}
	if (!strncmp(reply, "error: ", 7)) {
		reply[strcspn(reply, "\n")] = '\0';
		errorf("jankd: %s", reply + 7);
		goto end;
	}
	fputs(reply, stdout);
	r = finish_output();
end:
	free(reply);
	close(fd);
	return r;
}

/* ---- report, captures ---- */

static int cmd_report(int argc, char **argv)
{
	struct jank_capture_report_result res;
	struct options o = { 0 };
	char err[ERR_LEN];
	const char *dir;
	int r;

	r = parse_options(argc, argv, "report", "h", usage_report, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (o.ntraces != 1) {
		errorf("report: %s (see jankctl report --help)",
		       o.ntraces ? "one CAPTURE_DIR at a time" : "no CAPTURE_DIR given");
		return JANK_EXIT_USAGE;
	}
	dir = o.traces[0];
	r = jank_capture_report_write(dir, &res, err, sizeof(err));
	if (r < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	printf("%s\n", res.summary);
	printf("wrote %s/{%s,%s,%s}\n", dir, JANK_CAPTURE_REPORT_JSON, JANK_CAPTURE_REPORT_TEXT,
	       JANK_CAPTURE_REPORT_SVG);
	return finish_output();
}

static int cmd_captures(int argc, char **argv)
{
	struct options o = { .dir = JANK_CAPTURE_DEFAULT_DIR };
	char err[ERR_LEN];
	int r;

	r = parse_options(argc, argv, "captures", "dfh", usage_captures, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (no_arguments("captures", &o))
		return JANK_EXIT_USAGE;
	if (jank_capture_list_print(stdout, o.dir, o.format == FORMAT_JSON, err, sizeof(err)) < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	return finish_output();
}

/*
 * babeltrace2 did not return (a corrupt trace it loops on): say so and exit,
 * since the stuck call can never be taken back.
 */
static void stuck(const char *what, unsigned seconds)
{
	char line[700];
	int n = snprintf(line, sizeof(line),
			 "jankctl: babeltrace2 did not return within %u s while %s: is the trace "
			 "corrupt or truncated? (JANKCTL_TIME_LIMIT sets the limit)\n",
			 seconds, what);

	if (n > 0 &&
	    write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		_exit(JANK_EXIT_BAD_INPUT);
	_exit(JANK_EXIT_BAD_INPUT);
}

/* The time limit on babeltrace2's calls: JANKCTL_TIME_LIMIT seconds, 30 by default. */
static void set_time_limit(void)
{
	const char *env = getenv("JANKCTL_TIME_LIMIT");
	unsigned long s = 30;
	char *end;

	if (env && *env) {
		s = strtoul(env, &end, 10);
		if (*end || s == 0 || s > 86400)
			s = 30;
	}
	jank_time_limit_set((unsigned)s, stuck);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "analyze", cmd_analyze },   { "compare", cmd_compare },
		{ "critpath", cmd_critpath }, { "graph", cmd_graph },
		{ "status", cmd_status },     { "report", cmd_report },
		{ "captures", cmd_captures },
	};
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		errorf("no command given (see jankctl --help)");
		return JANK_EXIT_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help") ||
	    !strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		if (argc > 2) {
			errorf("%s: unexpected argument '%s' (see jankctl --help)", cmd, argv[2]);
			return JANK_EXIT_USAGE;
		}
		if (cmd[1] == 'V' || !strcmp(cmd, "--version"))
			printf("jankctl (jank) %s\n", JANK_VERSION);
		else
			fputs(usage_main, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i].name)) {
			set_time_limit();
			return cmds[i].fn(argc - 1, argv + 1);
		}
	if (cmd[0] == '-')
		errorf("unknown option '%s' (see jankctl --help)", cmd);
	else
		errorf("unknown command '%s' (expected analyze, compare, critpath, graph, status, "
		       "report or captures)",
		       cmd);
	return JANK_EXIT_USAGE;
}
