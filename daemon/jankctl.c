/* SPDX-License-Identifier: MIT */
/*
 * jankctl: the engine, offline, on CTF traces.
 *
 *   analyze   apply the action rules of a config file; report janks
 *   critpath  the critical path of one thread over an interval
 *   graph     the execution graph: state intervals and wakeup links
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
#include "config.h"
#include "engine.h"
#include "input.h"
#include "output.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE     2
#define ERR_LEN	       1024

enum format {
	FORMAT_TEXT = 0,
	FORMAT_JSON,
};

struct options {
	const char *config;
	enum format format;
	bool all;
	bool tid_set, begin_set, end_set;
	int32_t tid;
	int64_t begin, end;
	const char *const *traces;
	size_t ntraces;
};

static const char usage_main[] =
    "Usage: jankctl COMMAND [OPTION]... TRACE...\n"
    "Find out why user actions were slow, from LTTng traces (CTF).\n"
    "\n"
    "Commands:\n"
    "  analyze   --config FILE [--all] [--format text|json] TRACE...\n"
    "            apply the [action] rules of FILE; report the actions over threshold\n"
    "  critpath  --tid N [--begin NS] [--end NS] [--format text|json] TRACE...\n"
    "            the critical path of thread N: what it was waiting on\n"
    "  graph     [--tid N] [--format json|text] TRACE...\n"
    "            every thread's state intervals and the wakeup links between them\n"
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

/*
 * Parse a command's options. `allowed` lists the short options of the
 * command. Returns 0, 1 when --help was printed, or EXIT_USAGE.
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	/* Leading ':' reports a missing argument as ':', and opterr = 0 keeps getopt quiet. */
	static const char optstring[] = ":c:af:t:b:e:h";
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
			return EXIT_USAGE;
		}
		li = -1;
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'a':
			o->all = true;
			break;
		case 'f':
			if (!strcmp(optarg, "text")) {
				o->format = FORMAT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				o->format = FORMAT_JSON;
			} else {
				errorf("%s: bad --format '%s' (expected text or json)", cmd,
				       optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (parse_tid(optarg, &o->tid) < 0) {
				errorf("%s: bad --tid '%s' (expected a thread id)", cmd, optarg);
				return EXIT_USAGE;
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
				return EXIT_USAGE;
			}
			*(c == 'b' ? &o->begin_set : &o->end_set) = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case ':':
			errorf("%s: option '%s' needs an argument (see jankctl %s --help)", cmd,
			       argv[optind - 1], cmd);
			return EXIT_USAGE;
		case '?':
		default:
			if (optopt)
				errorf("%s: unknown option '-%c' (see jankctl %s --help)", cmd,
				       optopt, cmd);
			else
				errorf("%s: unknown option '%s' (see jankctl %s --help)", cmd,
				       argv[optind - 1], cmd);
			return EXIT_USAGE;
		}
	}
	o->traces = (const char *const *)argv + optind;
	o->ntraces = (size_t)(argc - optind);
	if (o->ntraces == 0) {
		errorf("%s: no TRACE given (see jankctl %s --help)", cmd, cmd);
		return EXIT_USAGE;
	}
	return 0;
}

/* Run the input to its end. Returns 0 or EXIT_BAD_INPUT (message printed). */
static int run_input(struct jank_engine *e, const struct options *o)
{
	struct jank_input_stats stats;
	struct jank_input *in;
	char err[ERR_LEN];
	int r = 0;

	in = jank_input_new_ctf(o->traces, o->ntraces, e, err, sizeof(err));
	if (!in) {
		errorf("%s", err);
		return EXIT_BAD_INPUT;
	}
	if (jank_input_run_all(in) != JANK_INPUT_STATUS_END) {
		errorf("%s", jank_input_error(in));
		r = EXIT_BAD_INPUT;
		goto end;
	}
	jank_input_get_stats(in, &stats);
	if (stats.events_used == 0) {
		errorf("%s: no events the engine can use (%" PRIu64 " events read)",
		       jank_input_name(in), stats.events);
		r = EXIT_BAD_INPUT;
	}
end:
	jank_input_free(in);
	return r;
}

static int finish_output(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		errorf("cannot write the output: %s", strerror(errno));
		return EXIT_BAD_INPUT;
	}
	return 0;
}

/* ---- analyze ---- */

struct analyze_ctx {
	enum format format;
	uint64_t reports;
	int err;
};

static void on_report(const struct jank_report *r, void *data)
{
	struct analyze_ctx *ctx = data;

	ctx->reports++;
	if (ctx->format == FORMAT_JSON) {
		if (jank_output_json_print(stdout, jank_output_report_json(r)) < 0 && !ctx->err)
			ctx->err = -ENOMEM;
	} else {
		jank_output_report_text(stdout, r);
	}
}

static void analyze_notes(const struct jank_engine *e)
{
	struct jank_engine_stats s;

	jank_engine_get_stats(e, &s);
	if (s.actions_unmatched)
		printf("note: %" PRIu64 " action ends had no begin\n", s.actions_unmatched);
	if (s.actions_replaced)
		printf("note: %" PRIu64 " action begins were repeated before their end\n",
		       s.actions_replaced);
	if (s.actions_open)
		printf("note: %" PRIu64 " actions were still open at the end of the trace\n",
		       s.actions_open);
	if (s.actions_expired)
		printf("note: %" PRIu64 " actions never ended (expired after the action timeout)\n",
		       s.actions_expired);
	if (s.paths_truncated)
		printf("note: %" PRIu64 " critical paths reached freed graph memory (truncated)\n",
		       s.paths_truncated);
	if (s.discarded_events)
		printf("note: the tracer discarded %" PRIu64 " events\n", s.discarded_events);
}

static int cmd_analyze(int argc, char **argv)
{
	struct options o = {.format = FORMAT_TEXT};
	struct analyze_ctx ctx = {0};
	struct jank_engine_config ec;
	struct jank_engine *e = NULL;
	struct jank_config conf;
	char err[ERR_LEN];
	int r;

	r = parse_options(argc, argv, "analyze", "cafh", usage_analyze, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (!o.config) {
		errorf("analyze: --config FILE is required (see jankctl analyze --help)");
		return EXIT_USAGE;
	}
	if (jank_config_load(&conf, o.config, err, sizeof(err)) < 0) {
		errorf("%s", err);
		return EXIT_BAD_INPUT;
	}
	if (conf.nrules == 0) {
		errorf("%s: no [action ...] section", o.config);
		r = EXIT_BAD_INPUT;
		goto end;
	}
	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(&conf, &ec);
	ec.gc = true;
	ec.report_all = o.all;
	e = jank_engine_new(&ec);
	if (!e) {
		errorf("out of memory");
		r = EXIT_BAD_INPUT;
		goto end;
	}
	for (size_t i = 0; i < conf.nrules; i++) {
		int a = jank_engine_add_rule(e, &conf.rules[i]);

		if (a < 0) {
			errorf("%s: [action %s]: %s", o.config, conf.rules[i].name, strerror(-a));
			r = EXIT_BAD_INPUT;
			goto end;
		}
	}
	ctx.format = o.format;
	jank_engine_set_report_cb(e, on_report, &ctx);
	r = run_input(e, &o);
	if (r)
		goto end;
	if (ctx.err) {
		errorf("out of memory");
		r = EXIT_BAD_INPUT;
		goto end;
	}
	if (o.format == FORMAT_JSON) {
		for (size_t i = 0; i < jank_engine_rule_count(e); i++)
			jank_output_json_print(stdout, jank_output_summary_json(e, i));
	} else {
		if (ctx.reports == 0)
			printf("%s\n\n",
			       o.all ? "no action completed" : "no action went over its threshold");
		jank_output_summary_text(stdout, e);
		analyze_notes(e);
	}
	r = finish_output();
end:
	jank_engine_free(e);
	jank_config_fini(&conf);
	return r;
}

/* ---- critpath ---- */


static struct jank_engine *offline_engine(void)
{
	struct jank_engine_config ec;

	jank_engine_config_defaults(&ec);
	ec.gc = false;
	ec.report_all = false;
	return jank_engine_new(&ec);
}

static int cmd_critpath(int argc, char **argv)
{
	struct options o = {.format = FORMAT_TEXT};
	const struct jank_worker *w;
	struct jank_breakdown b;
	struct jank_engine *e;
	struct jank_path p;
	int64_t begin, end;
	int r;

	jank_path_init(&p);
	jank_breakdown_init(&b);
	r = parse_options(argc, argv, "critpath", "tbefh", usage_critpath, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (!o.tid_set) {
		errorf("critpath: --tid N is required (see jankctl critpath --help)");
		return EXIT_USAGE;
	}
	if (o.begin_set && o.end_set && o.begin > o.end) {
		errorf("critpath: --begin %" PRId64 " is after --end %" PRId64, o.begin, o.end);
		return EXIT_USAGE;
	}
	e = offline_engine();
	if (!e) {
		errorf("out of memory");
		return EXIT_BAD_INPUT;
	}
	r = run_input(e, &o);
	if (r)
		goto end;
	w = jank_graph_find_any(jank_engine_graph(e), o.tid);
	if (!w) {
		errorf("thread %" PRId32 " not found in the trace", o.tid);
		r = EXIT_BAD_INPUT;
		goto end;
	}
	begin = o.begin_set ? o.begin : w->first_seen;
	end = o.end_set ? o.end : w->last_seen;
	if (begin > end) {
		errorf("the interval [%" PRId64 ", %" PRId64 "] is empty: thread %" PRId32
		       " was seen from %" PRId64 " to %" PRId64,
		       begin, end, o.tid, w->first_seen, w->last_seen);
		r = EXIT_BAD_INPUT;
		goto end;
	}
	r = jank_critpath_compute_worker(jank_engine_graph(e), w, begin, end, &p);
	if (r == 0)
		r = jank_breakdown_compute(&p, &b);
	if (r < 0) {
		errorf("cannot compute the critical path of thread %" PRId32 ": %s", o.tid,
			       strerror(-r));
		r = EXIT_BAD_INPUT;
		goto end;
	}
	if (o.format == FORMAT_JSON)
		jank_output_json_print(stdout, jank_output_critpath_json(&p, &b));
	else
		jank_output_critpath_text(stdout, &p, &b);
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
	struct options o = {.format = FORMAT_JSON};
	struct jank_engine *e;
	int r;

	r = parse_options(argc, argv, "graph", "tfh", usage_graph, &o);
	if (r)
		return r == 1 ? 0 : r;
	e = offline_engine();
	if (!e) {
		errorf("out of memory");
		return EXIT_BAD_INPUT;
	}
	r = run_input(e, &o);
	if (r)
		goto end;
	if (o.format == FORMAT_JSON)
		r = jank_output_graph_json(stdout, jank_engine_graph(e), o.tid_set ? o.tid : -1);
	else
		r = jank_output_graph_text(stdout, jank_engine_graph(e), o.tid_set ? o.tid : -1);
	if (r == -ENOENT) {
		errorf("thread %" PRId32 " not found in the trace", o.tid);
		r = EXIT_BAD_INPUT;
		goto end;
	}
	if (r < 0) {
		errorf("cannot write the graph: %s", strerror(-r));
		r = EXIT_BAD_INPUT;
		goto end;
	}
	r = finish_output();
end:
	jank_engine_free(e);
	return r;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
	    {"analyze", cmd_analyze},
	    {"critpath", cmd_critpath},
	    {"graph", cmd_graph},
	};
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		errorf("no command given (see jankctl --help)");
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("jankctl (jank) %s\n", JANK_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	if (cmd[0] == '-')
		errorf("unknown option '%s' (see jankctl --help)", cmd);
	else
		errorf("unknown command '%s' (expected analyze, critpath or graph)", cmd);
	return EXIT_USAGE;
}
