/* SPDX-License-Identifier: MIT */
/*
 * What jankctl's commands share. One file per group of commands, each with
 * its usage text and its output per --format:
 *
 *   analyze.c    analyze, compare: the [action] rules of a config over traces
 *   cmd-flame.c  flame: the flame graph of a rule's critical paths
 *   cmd-graph.c  critpath, graph: the whole execution graph of traces
 *   captures.c   report, captures: jankd's captures on disk
 *   cmd-status.c status: the client of jankd's control socket
 *   cli.c        errors, options, running traces to their end, the output
 *   jankctl.c    main: the command table, the time limit on babeltrace2
 *
 * Exit status: 0 on success, 1 on bad input (trace, config, thread), 2 on a
 * usage error, 3 when jankd cannot be reached (io/exit-status.h). Every
 * error is one line on stderr that starts with "jankctl: ".
 */
#ifndef JANKCTL_H
#define JANKCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "engine.h"

struct jank_config;

#define ERR_LEN 1024

enum format {
	FORMAT_TEXT = 0,
	FORMAT_JSON,
	FORMAT_OPENMETRICS, /* status only */
	FORMAT_PROMETHEUS,  /* status only */
	FORMAT_FOLDED,	    /* flame only */
	FORMAT_SVG,	    /* flame only */
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
	const char *svg;	   /* compare, flame: the picture's file */
	const char *flame;	   /* compare: the differential flame graph's file */
	const char *const *traces; /* the arguments: traces, or report's CAPTURE_DIR */
	size_t ntraces;
};

/* The commands: argv[0] is the command's name. Each returns the exit status. */
int cmd_analyze(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_critpath(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_captures(int argc, char **argv);

/* ---- analyze.c: what analyze, compare and flame share ---- */

/* The rules of --config, loaded and checked. Returns 0, or EXIT_* after the message. */
int config_load(const char *cmd, const struct options *o, struct jank_config *conf);
/* An engine with the config's limits and rules. NULL after the message. */
struct jank_engine *config_engine(const struct jank_config *conf, const struct options *o,
				  bool report_all);
/* The rule of --action, or the only one. Returns 0, or EXIT_* after the message. */
int config_rule(const char *cmd, const struct jank_config *conf, const struct options *o,
		size_t *rule);

/* ---- analyze-hosts.c: analyze over the traces of several hosts ---- */

/*
 * When the traces are of several hosts (their hostnames differ), analyze
 * them with an engine per host joined across hosts, and set *done; else
 * leave it to the one-engine analysis. Returns 0 or EXIT_* (message printed).
 */
int analyze_maybe_hosts(const struct jank_config *conf, const struct options *o, bool *done);

/* ---- cli.c ---- */

/* "jankctl: " and the message, one line on stderr (stdout flushed first). */
void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a command's options. `allowed` lists the short options of the
 * command. Returns 0, 1 when --help was printed, or JANK_EXIT_USAGE.
 */
int parse_options(int argc, char **argv, const char *cmd, const char *allowed, const char *usage,
		  struct options *o);
/* parse_options() for a command that reads traces: at least one TRACE. */
int parse_trace_options(int argc, char **argv, const char *cmd, const char *allowed,
			const char *usage, struct options *o);
/* A command that takes no arguments: 0, or JANK_EXIT_USAGE after the one-line error. */
int no_arguments(const char *cmd, const struct options *o);

/* Run the traces through the engine to their end. Returns 0 or JANK_EXIT_BAD_INPUT (message
 * printed). */
int run_traces(struct jank_engine *e, const char *const *traces, size_t ntraces);
/* The symbolizer run_traces() gives its readers (NULL: out of memory), freed at exit. */
struct jank_symbols *cli_symbols(void);
/* Fetch binaries from the debuginfod servers conf's [symbols] lists (none: never). 0 or -errno
 * (said). */
int cli_set_debuginfod(const struct jank_config *conf);
/*
 * Write the file `path` (an option's argument) whole through fn (0 or
 * -errno), by jank_dirtree_write_file(). Returns 0, or JANK_EXIT_BAD_INPUT
 * after "CMD: cannot write PATH: why".
 */
int write_file(const char *cmd, const char *path, int (*fn)(FILE *f, void *data), void *data);
/* Flush stdout: 0, or JANK_EXIT_FAILURE after the message. */
int finish_output(void);

#endif
