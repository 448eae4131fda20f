/* SPDX-License-Identifier: MIT */
/*
 * session-tool: daemon/lttng/lttng-session.c from the command line, for
 * tests/live/test-session.sh.
 *
 *   session-tool live NAME [OPTION]...       jank_lttng_session_create_live
 *   session-tool snapshot NAME [OPTION]...   jank_lttng_session_create_snapshot
 *   session-tool record NAME [DIR]           jank_lttng_session_snapshot_record
 *   session-tool destroy NAME                jank_lttng_session_destroy
 *   session-tool exists NAME                 jank_lttng_session_exists
 *
 * Options: --relayd URL, --live-port N, --timer US, --tracefile-size B,
 * --tracefile-count N, --subbuf-size B, --num-subbuf N, --kernel,
 * --event NAME (repeatable), --output DIR (snapshot).
 *
 * On success: exit 0, and "key value" lines on stdout (rc, url, kernel_ok,
 * note, exists). On failure: exit 1, "rc -ERRNO" on stdout and the message
 * on stderr as one line. Exit 2: usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lttng-session.h"

#define MAX_EVENTS 64

static int usage(void)
{
	fputs("usage: session-tool live|snapshot|record|destroy|exists NAME [OPTION]...\n", stderr);
	return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

static int done(int r, const char *err)
{
	printf("rc %d\n", r);
	if (r < 0) {
		fprintf(stderr, "session-tool: %s\n", err);
		return 1;
	}
	if (err[0])
		printf("note %s\n", err);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "relayd", required_argument, NULL, 'r' },
		{ "live-port", required_argument, NULL, 'p' },
		{ "timer", required_argument, NULL, 't' },
		{ "tracefile-size", required_argument, NULL, 's' },
		{ "tracefile-count", required_argument, NULL, 'c' },
		{ "subbuf-size", required_argument, NULL, 'S' },
		{ "num-subbuf", required_argument, NULL, 'N' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct jank_lttng_session_spec spec = { 0 };
	const char *events[MAX_EVENTS];
	const char *cmd, *output = NULL;
	char err[1024] = "", url[1024] = "";
	bool kernel_ok = false;
	uint64_t v;
	int c, r;

	/* What jankd will do too: a daemon must survive a closed socket. */
	signal(SIGPIPE, getenv("SESSION_TOOL_SIGPIPE") ? SIG_DFL : SIG_IGN);
	if (argc < 3)
		return usage();
	cmd = argv[1];
	spec.name = argv[2];
	spec.ust_events = events;
	optind = 3;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'r':
			spec.relayd_url = optarg;
			break;
		case 'k':
			spec.kernel = true;
			break;
		case 'e':
			if (spec.n_ust_events == MAX_EVENTS)
				return usage();
			events[spec.n_ust_events++] = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'p':
		case 't':
		case 's':
		case 'c':
		case 'S':
		case 'N':
			if (parse_u64(optarg, &v) < 0)
				return usage();
			if (c == 'p')
				spec.relayd_live_port = (unsigned)v;
			else if (c == 't')
				spec.live_timer_us = (int64_t)v;
			else if (c == 's')
				spec.tracefile_size = v;
			else if (c == 'c')
				spec.tracefile_count = v;
			else if (c == 'S')
				spec.subbuf_size = v;
			else
				spec.num_subbuf = v;
			break;
		default:
			return usage();
		}
	}

	if (!strcmp(cmd, "live")) {
		if (optind != argc)
			return usage();
		r = jank_lttng_session_create_live(&spec, url, sizeof(url), &kernel_ok, err,
						   sizeof(err));
		if (r >= 0)
			printf("url %s\nkernel_ok %d\n", url, kernel_ok);
		return done(r, err);
	}
	if (!strcmp(cmd, "snapshot")) {
		if (optind != argc)
			return usage();
		r = jank_lttng_session_create_snapshot(&spec, output, &kernel_ok, err, sizeof(err));
		if (r >= 0)
			printf("kernel_ok %d\n", kernel_ok);
		return done(r, err);
	}
	if (!strcmp(cmd, "record")) {
		if (argc - optind > 1)
			return usage();
		r = jank_lttng_session_snapshot_record(
			spec.name, optind < argc ? argv[optind] : NULL, err, sizeof(err));
		return done(r, err);
	}
	if (!strcmp(cmd, "destroy")) {
		if (optind != argc)
			return usage();
		return done(jank_lttng_session_destroy(spec.name, err, sizeof(err)), err);
	}
	if (!strcmp(cmd, "exists")) {
		if (optind != argc)
			return usage();
		r = jank_lttng_session_exists(spec.name, err, sizeof(err));
		if (r >= 0)
			printf("exists %d\n", r);
		return done(r < 0 ? r : 0, err);
	}
	return usage();
}
