/* SPDX-License-Identifier: MIT */
/*
 * bench-probe-cost: what an instrumented application pays per action when
 * nobody traces it.
 *
 * Calls jank_action_begin()/jank_action_end() pairs in a loop and prints the
 * mean time per pair. Run it with no session enabling jank:* (otherwise it
 * measures tracing, and floods the session). Tests do not assert on the
 * figure: timings depend on the machine.
 *
 * Usage: bench-probe-cost [--pairs N] [--note]
 * Prints exactly one line:
 *   probe-cost: N pairs, X ns per begin/end pair (tracing off)
 * --note is accepted for scripts that pass it and changes nothing: the output
 * is always that one line.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jank/jank.h"

#define DEFAULT_PAIRS 10000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int parse_pairs(const char *s, uint64_t *n)
{
	char *end;

	if (*s < '1' || *s > '9')
		return -1;
	*n = strtoull(s, &end, 10);
	return *end == '\0' ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t pairs = DEFAULT_PAIRS, i, t0, t1;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--note") == 0)
			continue;
		if (strcmp(argv[a], "--pairs") == 0 && a + 1 < argc &&
		    parse_pairs(argv[a + 1], &pairs) == 0) {
			a++;
			continue;
		}
		fprintf(stderr,
			"bench-probe-cost: bad argument '%s' (usage: bench-probe-cost "
			"[--pairs N] [--note])\n",
			argv[a]);
		return 2;
	}

	/* Warm up the PLT and the caches, outside the measurement. */
	for (i = 0; i < 1000; i++) {
		jank_action_begin("bench", i);
		jank_action_end("bench", i);
	}
	t0 = now_ns();
	for (i = 0; i < pairs; i++) {
		jank_action_begin("bench", i);
		jank_action_end("bench", i);
	}
	t1 = now_ns();
	printf("probe-cost: %" PRIu64 " pairs, %.2f ns per begin/end pair (tracing off)\n", pairs,
	       (double)(t1 - t0) / (double)pairs);
	return 0;
}
