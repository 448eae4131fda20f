/* SPDX-License-Identifier: MIT */
/*
 * Paths that cross hosts, in jankd's supervisor (lib/hostjoin.h): the
 * workers' "flows" messages feed the join; a verdict whose path reaches a
 * `to` its host could not pair is held until the `from` of its key is known
 * on another host, then the worker of that host is asked for its path of
 * the sending thread ("path" request), which it answers once its stream has
 * passed the send. The answer is spliced into the verdict's path, each
 * segment naming its host; past the timeout ([live] crossing-timeout,
 * default JANK_CROSSING_TIMEOUT_NS) without it, the
 * other host's part is one segment, `waiting on HOST (not yet seen)`. At
 * most JANK_CROSSING_HELD verdicts are held: past that, one goes out as its
 * host saw it (counted).
 */
#ifndef JANK_CROSSING_H
#define JANK_CROSSING_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>
#include "engine.h"
#include "hostjoin.h"
#include "verdict-json.h"

#define JANK_CROSSING_TIMEOUT_NS 5000000000LL
#define JANK_CROSSING_HELD	 256
#define JANK_CROSSING_EVENTS	 65536 /* flow events the join keeps, all hosts */
#define JANK_CROSSING_SEGMENTS	 65536 /* TCP segments the kernel matching keeps, all hosts */
#define JANK_CROSSING_HOPS	 4     /* host changes followed along one path */

struct jank_crossing;

/* A verdict (held or not) goes to the alerter: `in` is the input it came from. */
typedef void (*jank_crossing_deliver_fn)(void *in, const struct jank_verdict *v, void *data);
/* Send msg (taken) to a worker of host `host`; false when it has none running. */
typedef bool (*jank_crossing_ask_fn)(const char *host, struct json_object *msg, void *data);

struct jank_crossing_stats {
	uint64_t held;	    /* verdicts held for another host's part */
	uint64_t joined;    /* ... that got it */
	uint64_t timed_out; /* ... that did not in time: "not yet seen" */
	uint64_t overflow;  /* past JANK_CROSSING_HELD: sent as their host saw them */
	uint64_t dropped;   /* flow events the workers dropped (their batch's bound) */
	uint64_t untraced;  /* paths that reached a reception from no traced host: not held */
	size_t pending;
	struct jank_hostjoin_stats join;
	struct jank_netmatch_stats tcp; /* the kernel's TCP segments (netmatch.h) */
};

struct jank_crossing *jank_crossing_new(jank_crossing_deliver_fn deliver, jank_crossing_ask_fn ask,
					void *data);
void jank_crossing_free(struct jank_crossing *c);
/* The configuration's flows (kept, not copied): their hosts = restrict who pairs. */
void jank_crossing_set_flows(struct jank_crossing *c, const struct jank_flow_rule *flows, size_t n);
/* The timeout: [live] crossing-timeout (ns <= 0: JANK_CROSSING_TIMEOUT_NS); held verdicts keep
 * theirs. */
void jank_crossing_set_timeout(struct jank_crossing *c, int64_t ns);
/*
 * A host of the fleet's inputs, known before its first flows arrive: a
 * verdict that reaches an unpaired `to` is held as soon as two hosts are
 * watched, not only once the other host's worker has sent its flows (its
 * stream may be read later than this one's).
 */
void jank_crossing_add_host(struct jank_crossing *c, const char *host);

/* A "flows" message of a worker of `host`. 0, or -EINVAL (err: a frame to refuse), -ENOMEM. */
int jank_crossing_flows(struct jank_crossing *c, const char *host, struct json_object *msg,
			char *err, size_t len);
/*
 * A verdict of input `in` on `host`: 1 when held (*pv taken: a heap
 * verdict, delivered and freed later), 0 when it crosses nowhere (the
 * caller delivers it; *pv stays the caller's).
 */
int jank_crossing_verdict(struct jank_crossing *c, void *in, const char *host,
			  struct jank_verdict_decoded *pv);
/* A "path" answer of a worker of `host`. 0, or -EINVAL (err: a frame to refuse), -ENOMEM. */
int jank_crossing_path(struct jank_crossing *c, const char *host, struct json_object *msg,
		       char *err, size_t len);
/* Timeouts, and the crossings still waiting for their `from`. */
void jank_crossing_tick(struct jank_crossing *c);
/* Input `in` goes: its held verdicts go out now, as far as they were joined. */
void jank_crossing_input_gone(struct jank_crossing *c, void *in);

const struct jank_hostjoin *jank_crossing_join(const struct jank_crossing *c);
void jank_crossing_get_stats(const struct jank_crossing *c, struct jank_crossing_stats *out);

/* The pairs of hosts whose clocks are known: host's clock against reference's, at its latest
 * message. */
size_t jank_crossing_clock_count(const struct jank_crossing *c);
void jank_crossing_clock(const struct jank_crossing *c, size_t i, const char **host,
			 const char **reference, struct jank_clock_offset *o);
/*
 * `jankctl status`'s fleet.crossing: {clocks: [{host, reference, offset_ns,
 * lo_ns?, hi_ns?, messages_to, messages_from, consistent}], timeout_ns, held, joined,
 * timed_out, overflow, pending, flow_events, flow_events_kept,
 * flow_events_max, flow_events_evicted, flow_events_dropped, pairs,
 * tcp_segments: {sends, receives, pairs, pairs_fallback, sends_evicted,
 * receives_evicted, kept, max}, memory_bytes}; NULL when out of memory.
 */
struct json_object *jank_crossing_json(const struct jank_crossing *c);

#endif
