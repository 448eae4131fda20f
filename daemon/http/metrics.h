/* SPDX-License-Identifier: MIT */
/*
 * jankd's metrics, named the Prometheus way, as text: the OpenMetrics format
 * (with exemplars and "# EOF") or the Prometheus text format 0.0.4. One
 * renderer serves the HTTP endpoint (metrics-server.h) and `jankctl status
 * --format openmetrics|prometheus` (over the control socket).
 *
 * The figures are the counters the engine, the alerter and the capture
 * policy keep anyway; the caller gathers them at scrape time into a struct
 * jank_metrics, and nothing is rendered between scrapes.
 *
 * Latency histograms: the bucket bounds are edges of the engine's own
 * log-scaled buckets (lib/histogram.h), so each count is exact: one bound
 * per power of two (2^k - 1 ns, k = 10..36), plus the two edges around the
 * rule's threshold (the engine's bucket that holds it is 1/16 of an octave
 * wide). jank_janks_total counts the janks exactly.
 */
#ifndef JANK_METRICS_H
#define JANK_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "alert.h"
#include "capture-policy.h"
#include "engine.h"
#include "input-figures.h"
#include "journal.h"

enum jank_metrics_format {
	JANK_METRICS_OPENMETRICS = 0, /* application/openmetrics-text 1.0.0 */
	JANK_METRICS_PROMETHEUS,      /* text/plain 0.0.4 */
};

/* At most this many finite bucket bounds per histogram. */
#define JANK_METRICS_MAX_BOUNDS 32

struct jank_metrics_rule {
	const char *action;
	const struct jank_histogram *hist;
	const struct jank_rule_stats *stats;
	int64_t threshold_ns; /* 0: an adaptive threshold still learning */
	/* jank_critical_path_seconds: per name, class and state (input-figures.h). */
	const struct jank_composition_entry *comp;
	size_t ncomp;
};

/*
 * An input: the figures its workers sent (input-figures.h), whose table
 * says which are metrics and how, and what the supervisor knows of it.
 */
struct jank_metrics_input {
	const char *url;
	bool connected;
	const struct jank_input_figures *fig;
	uint64_t worker_restarts;  /* its worker process started again */
	uint64_t worker_rss_bytes; /* its worker's resident memory, 0 while none runs */
	int64_t skipped_ns;	   /* of events its worker restarts skipped */
	uint64_t actions_lost;	   /* open when a worker was replaced: never judged */
	/* Blind (no events: not connected): why ("" when not known yet), since (Unix time, 0: not
	 * known). */
	bool blind;
	const char *blind_reason;
	uint64_t blind_since_s;
	const struct jank_metrics_rule *rules;
	size_t nrules;
};

/* The endpoint's own counters. */
struct jank_metrics_http_stats {
	uint64_t requests;  /* answered */
	uint64_t rejected;  /* connections over the limit, closed at once */
	uint64_t timed_out; /* connections closed at their deadline */
	uint64_t evicted;   /* idle connections closed for a new one, or over a peer's share */
};

struct jank_metrics_process {
	uint64_t rss_bytes;
	int64_t cpu_ns;	       /* user and system time, all threads */
	int64_t start_time_ns; /* wall clock, ns since the epoch */
	int64_t open_fds;      /* -1: unknown */
};

/* A pair of hosts' clocks (daemon/fleet/crossing.h): host's against reference's. */
struct jank_metrics_clock {
	const char *host, *reference;
	int64_t offset_ns;
	int64_t lo_ns, hi_ns; /* INT64_MIN, INT64_MAX: unbounded (no message that way) */
	uint64_t messages_to, messages_from;
};

struct jank_metrics {
	const char *version;
	const struct jank_metrics_input *inputs;
	size_t ninputs;
	uint64_t memory_limit; /* [graph] memory-limit, per input */
	struct jank_alerter_stats alerts;
	const struct jank_journal_stats *journal;   /* NULL: leave the journald metrics out */
	const struct jank_capture_stats *captures;  /* NULL: leave the capture metrics out */
	const struct jank_metrics_http_stats *http; /* NULL: no endpoint */
	struct jank_metrics_process process;
	/* The workers' CPU: the running ones', and every reaped child's. */
	int64_t workers_cpu_ns;
	/* Discovery: sessions not watched past [live] max-inputs; 1 while at the limit. */
	uint64_t sessions_refused;
	bool inputs_at_limit;
	/* Paths across hosts: each pair of hosts' clock, the held verdicts and flow events. */
	const struct jank_metrics_clock *clocks;
	size_t nclocks;
	uint64_t crossing_held, crossing_joined, crossing_timed_out;
	uint64_t flow_events_evicted, flow_events_dropped;
	/* The kernel's TCP segments (netmatch.h): sent, received waking a thread, matched, let go.
	 */
	uint64_t tcp_sent, tcp_received, tcp_pairs, tcp_evicted;
};

/* The exposition, malloc'ed, its length in *len; NULL when out of memory. */
char *jank_metrics_render(const struct jank_metrics *m, enum jank_metrics_format f, size_t *len);
/* The Content-Type of a format. */
const char *jank_metrics_content_type(enum jank_metrics_format f);
/* The format an HTTP Accept header prefers (NULL: none sent): OpenMetrics when asked for. */
enum jank_metrics_format jank_metrics_negotiate(const char *accept);

/*
 * The finite bucket bounds of a histogram whose rule's threshold is
 * `threshold_ns` (0: none), in ns, ascending: each is the largest value of
 * one of the engine's buckets. Returns how many (at most JANK_METRICS_MAX_BOUNDS).
 */
size_t jank_metrics_bucket_bounds(int64_t threshold_ns, uint64_t *bounds);

/* This process's figures from /proc and its clocks; `start_time_ns` is passed through. */
void jank_metrics_process_read(struct jank_metrics_process *p, int64_t start_time_ns);
/* Resident memory of process pid (/proc/PID/statm); 0 when it is gone. */
uint64_t jank_metrics_pid_rss(pid_t pid);
/* User and system CPU time of process pid (/proc/PID/stat), in ns; 0 when it is gone. */
int64_t jank_metrics_pid_cpu_ns(pid_t pid);
/* User and system CPU time of the children this process has reaped, in ns. */
int64_t jank_metrics_children_cpu_ns(void);

#endif
