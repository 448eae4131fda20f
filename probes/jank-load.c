/* SPDX-License-Identifier: MIT */
/*
 * jank-load: a steady stream of jank events, for measuring jankd under load.
 *
 * A load thread (jank-load) emits --rate events per second for --duration,
 * as back-to-back actions --name (begin and end, ids 0, 1, ...), paced every
 * --tick (a millisecond) against CLOCK_MONOTONIC: each tick emits what the
 * elapsed time calls for, so a late tick is made up at the next one. (Many
 * loads on one machine, as a simulated fleet, want longer ticks: each is a
 * wakeup.) A second thread
 * (jank-worker) runs one slow action --jank-name of --slow every --jank-every,
 * sleeping through it.
 *
 * Output (stdout, one flushed line per slow action, then a summary):
 *   slow <id> <jank-name> <end_realtime_ns> <measured_ns>
 *   done <events> <late_ticks>
 * end_realtime_ns is CLOCK_REALTIME just after jank_action_end(), for
 * measuring how long an alert takes to reach its reader. late_ticks counts
 * the ticks that began over a tick late (the pace slipped).
 *
 * Exit status: 0 on success, 1 on a runtime failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jank/jank.h"

#define NSEC_PER_SEC 1000000000ULL
#define MAX_RATE     10000000ULL

struct load_opts {
	uint64_t rate;
	uint64_t duration_ns;
	const char *name;
	const char *jank_name;
	uint64_t jank_every_ns;
	uint64_t slow_ns;
	uint64_t tick_ns;
};

struct load {
	struct load_opts opts;
	uint64_t start_ns;
	uint64_t events;     /* written by the load thread only */
	uint64_t late_ticks; /* idem */
	uint64_t slow_events;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline % NSEC_PER_SEC),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *load_thread(void *arg)
{
	struct load *l = arg;
	uint64_t end = l->start_ns + l->opts.duration_ns;
	uint64_t tick = l->start_ns, id = 0;

	pthread_setname_np(pthread_self(), "jank-load");
	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC), elapsed, due;

		if (now >= end)
			now = end;
		elapsed = now - l->start_ns;
		/* rate * elapsed / 1e9 without overflow for days at MAX_RATE */
		due = l->opts.rate * (elapsed / NSEC_PER_SEC) +
		      l->opts.rate * (elapsed % NSEC_PER_SEC) / NSEC_PER_SEC;
		while (l->events + 2 <= due) {
			jank_action_begin(l->opts.name, id);
			jank_action_end(l->opts.name, id);
			id++;
			l->events += 2;
		}
		if (l->events < due) {
			jank_mark(l->opts.name, (int64_t)id);
			l->events++;
		}
		if (now >= end)
			break;
		tick += l->opts.tick_ns;
		if (clock_ns(CLOCK_MONOTONIC) > tick + l->opts.tick_ns)
			l->late_ticks++;
		sleep_until(tick);
	}
	return NULL;
}

static void *slow_thread(void *arg)
{
	struct load *l = arg;
	uint64_t end = l->start_ns + l->opts.duration_ns;
	uint64_t next = l->start_ns + l->opts.jank_every_ns / 2;

	pthread_setname_np(pthread_self(), "jank-worker");
	for (uint64_t id = 0;; id++) {
		uint64_t t0, t1, rt;

		if (next + l->opts.slow_ns >= end)
			break;
		sleep_until(next);
		t0 = clock_ns(CLOCK_MONOTONIC);
		jank_action_begin(l->opts.jank_name, id);
		sleep_until(t0 + l->opts.slow_ns);
		jank_action_end(l->opts.jank_name, id);
		rt = clock_ns(CLOCK_REALTIME);
		t1 = clock_ns(CLOCK_MONOTONIC);
		l->slow_events += 2;
		printf("slow %" PRIu64 " %s %" PRIu64 " %" PRIu64 "\n", id, l->opts.jank_name, rt,
		       t1 - t0);
		fflush(stdout);
		next += l->opts.jank_every_ns;
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: jank-load [OPTION]...\n"
		   "Emit jank events at a steady rate, with a slow action now and then.\n"
		   "\n"
		   "  --rate N             events per second (default: 100000)\n"
		   "  --duration DUR       how long to run (default: 10s)\n"
		   "  --name NAME          name of the short actions of the load (default: load)\n"
		   "  --jank-name NAME     name of the slow actions (default: frame)\n"
		   "  --jank-every DUR     one slow action per DUR; 0: none (default: 1s)\n"
		   "  --slow DUR           duration of a slow action (default: 50ms)\n"
		   "  --tick DUR           emit what is due this often (default: 1ms)\n"
		   "  -h, --help           show this help and exit\n"
		   "\n"
		   "DUR is an integer with a unit: ns, us, ms or s (e.g. 50ms).\n"
		   "Prints 'slow <id> <name> <end_realtime_ns> <measured_ns>' per slow action,\n"
		   "then 'done <events> <late_ticks>'.\n");
}

/* --rate: a count, at most MAX_RATE. */
static void parse_rate(const char *opt, const char *arg, void *target)
{
	uint64_t *rate = target;

	if (cli_parse_count(arg, rate) < 0)
		cli_usage_error("--%s: invalid number '%s'", opt, arg);
	if (*rate > MAX_RATE)
		cli_usage_error("--%s: at most %llu events per second", opt,
				(unsigned long long)MAX_RATE);
}

static void parse_args(int argc, char **argv, struct load_opts *o)
{
	const struct cli_option opts[] = {
		{ "rate", CLI_CUSTOM, &o->rate, parse_rate },
		{ "duration", CLI_DURATION, &o->duration_ns, NULL },
		{ "name", CLI_NAME, &o->name, NULL },
		{ "jank-name", CLI_NAME, &o->jank_name, NULL },
		{ "jank-every", CLI_DURATION, &o->jank_every_ns, NULL },
		{ "slow", CLI_DURATION, &o->slow_ns, NULL },
		{ "tick", CLI_DURATION, &o->tick_ns, NULL },
	};

	*o = (struct load_opts){
		.rate = 100000,
		.duration_ns = 10 * NSEC_PER_SEC,
		.name = "load",
		.jank_name = "frame",
		.jank_every_ns = NSEC_PER_SEC,
		.slow_ns = 50000000,
		.tick_ns = 1000000,
	};
	cli_parse(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage);
	if (o->jank_every_ns && o->slow_ns >= o->jank_every_ns)
		cli_usage_error("--slow must be shorter than --jank-every");
	if (o->tick_ns == 0 || o->tick_ns > NSEC_PER_SEC)
		cli_usage_error("--tick must be above 0 and at most 1s");
}

int main(int argc, char **argv)
{
	struct load l = { 0 };
	pthread_t load, slow;
	int r;

	cli_prog = "jank-load";
	parse_args(argc, argv, &l.opts);
	l.start_ns = clock_ns(CLOCK_MONOTONIC);
	r = pthread_create(&load, NULL, load_thread, &l);
	if (r != 0) {
		fprintf(stderr, "jank-load: cannot start a thread: %s\n", strerror(r));
		return 1;
	}
	if (l.opts.jank_every_ns) {
		r = pthread_create(&slow, NULL, slow_thread, &l);
		if (r != 0) {
			fprintf(stderr, "jank-load: cannot start a thread: %s\n", strerror(r));
			pthread_join(load, NULL);
			return 1;
		}
		pthread_join(slow, NULL);
	}
	pthread_join(load, NULL);
	printf("done %" PRIu64 " %" PRIu64 "\n", l.events + l.slow_events, l.late_ticks);
	return 0;
}
