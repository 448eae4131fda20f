/* SPDX-License-Identifier: MIT */
/*
 * The exit statuses of jankd and jankctl: one meaning each, for both
 * programs (jankd(8), jankctl(1)). jankd.service keeps 1 and 2 out of its
 * restarts (RestartPreventExitStatus): they do not get better by themselves.
 */
#ifndef JANK_EXIT_STATUS_H
#define JANK_EXIT_STATUS_H

enum jank_exit_status {
	JANK_EXIT_OK = 0,
	/* Bad input: a configuration file or drop-in, a trace, a capture directory. */
	JANK_EXIT_BAD_INPUT = 1,
	/* Bad usage: an unknown command or option, a missing or bad value on the command line. */
	JANK_EXIT_USAGE = 2,
	/*
	 * A failure of the system, not of the input: jankd cannot create its
	 * sessions or open its sockets, or its loop failed; jankctl cannot
	 * reach jankd, is out of memory, or cannot write its output.
	 */
	JANK_EXIT_FAILURE = 3,
};

#endif
