/* SPDX-License-Identifier: MIT */
/*
 * jankctl: the engine, offline, on CTF traces, and the client of jankd.
 *
 *   analyze   apply the action rules of a config file; report janks (analyze.c)
 *   compare   the slow actions of a rule against its normal ones, or two traces (analyze.c)
 *   flame     the flame graph of a rule's critical paths (cmd-flame.c)
 *   critpath  the critical path of one thread over an interval (cmd-graph.c)
 *   graph     the execution graph: state intervals and wakeup links (cmd-graph.c)
 *   status    ask a running jankd, over its control socket (cmd-status.c)
 *   report    analyse a capture of jankd again (captures.c)
 *   captures  list jankd's captures (captures.c)
 *
 * This file is main: the command table, and the time limit on babeltrace2's
 * calls that every command runs under. jankctl.h says what the commands
 * share, and their exit statuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "exit-status.h"
#include "jankctl.h"
#include "pidns-home.h"
#include "time-limit.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

static const char usage_main[] =
	"Usage: jankctl COMMAND [OPTION]... TRACE...\n"
	"Find out why user actions were slow, from LTTng traces (CTF).\n"
	"\n"
	"Commands:\n"
	"  analyze   --config FILE [--all] [--format text|json] TRACE...\n"
	"            apply the [action] rules of FILE; report the actions over threshold\n"
	"  compare   --config FILE [--action NAME] [--before TRACE] [--svg FILE] TRACE...\n"
	"            what the slow actions spend more time on than the normal ones\n"
	"  flame     --config FILE [--action NAME] [--all] [--format folded|svg] TRACE...\n"
	"            the flame graph of the slow actions' critical paths, by call stack\n"
	"  critpath  --tid N [--begin NS] [--end NS] [--format text|json] TRACE...\n"
	"            the critical path of thread N: what it was waiting on\n"
	"  graph     [--tid N] [--format json|text] TRACE...\n"
	"            every thread's state intervals and the wakeup links between them\n"
	"  status    [--socket PATH] [--format text|json|openmetrics|prometheus]\n"
	"            ask the running jankd: counts, latencies, recent janks, inputs\n"
	"  report    CAPTURE_DIR\n"
	"            analyse a capture of jankd: report.json, report.txt, critical-path.svg,\n"
	"            flame.svg, binaries.json\n"
	"  captures  [--dir DIR] [--format text|json]\n"
	"            list jankd's captures: action, duration, size, summary\n"
	"\n"
	"A TRACE is a CTF trace directory or a directory of traces (lttng output):\n"
	"kernel and user-space traces given together are merged in time order.\n"
	"\n"
	"  -h, --help      show this help (jankctl COMMAND --help: the command's)\n"
	"  -V, --version   show the version\n";

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
		{ "analyze", cmd_analyze }, { "compare", cmd_compare },
		{ "flame", cmd_flame },	    { "critpath", cmd_critpath },
		{ "graph", cmd_graph },	    { "status", cmd_status },
		{ "report", cmd_report },   { "captures", cmd_captures },
	};
	const char *cmd = argc > 1 ? argv[1] : NULL;

	jank_pidns_home_init();
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
		errorf("unknown command '%s' (expected analyze, compare, flame, critpath, graph, "
		       "status, report or captures)",
		       cmd);
	return JANK_EXIT_USAGE;
}
