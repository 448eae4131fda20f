/* SPDX-License-Identifier: MIT */
/*
 * Critical paths across hosts, online: jankd's supervisor joins its
 * workers' flows (one worker per host, each with its own engine and graph).
 *
 * Each worker reports its flows' `from` events and the `to`s its own engine
 * could not pair (host, flow, key, tid, time on its own clock). They are kept
 * here in one ring of at most max_events (the oldest overwritten first,
 * counted: a flood of unmatched sends stays bounded), indexed by (flow, key).
 * A `to` meets the `from` of its key on another host, whichever arrives
 * first (the hosts' streams lag differently): the pair is a message between
 * the two hosts, which feeds their clocks' estimate (clocksync.h).
 *
 * A verdict of host A crosses where its path reaches, walking back, such a
 * `to` on the thread it is on (jank_hostjoin_crossing); once its `from` is
 * known, the supervisor asks host B's worker for its path of the `from`'s
 * thread back to the verdict's begin, and splices it in
 * (jank_crosshost_splice). No graph leaves its worker.
 */
#ifndef JANK_HOSTJOIN_H
#define JANK_HOSTJOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clocksync.h"
#include "critpath.h"
#include "graph.h"

#define JANK_HOSTJOIN_MAX_HOSTS	 64
#define JANK_HOSTJOIN_MAX_CLOCKS 256 /* pairs of hosts that exchanged messages */

struct jank_hostjoin;

struct jank_hostjoin_stats {
	uint64_t froms, tos; /* flow events noted */
	uint64_t evicted;    /* overwritten by newer ones before they were paired */
	uint64_t pairs;	     /* `to`s paired with a `from` of another host */
	uint64_t refused;    /* events of an unknown host, or past the hosts' or clocks' bound */
	size_t kept, max_events;
	size_t bytes; /* what the ring, its index and the clocks take */
};

/* A `to` on a path that its own host could not pair, and its `from` once known. */
struct jank_hostjoin_crossing {
	unsigned to_host;
	int32_t to_tid;
	int64_t to_ts;
	bool paired; /* from_* are known */
	unsigned from_host;
	int32_t from_tid;
	int64_t from_ts; /* on from_host's clock */
	char flow[JANK_LABEL_NAME_LEN];
	char key[JANK_LABEL_KEY_LEN];
};

/* At most max_events flow events kept (>= 16). NULL: out of memory. */
struct jank_hostjoin *jank_hostjoin_new(size_t max_events);
void jank_hostjoin_free(struct jank_hostjoin *j);

/* The index of the host of that name, added when new; -E2BIG past JANK_HOSTJOIN_MAX_HOSTS. */
int jank_hostjoin_host(struct jank_hostjoin *j, const char *name);
const char *jank_hostjoin_host_name(const struct jank_hostjoin *j, unsigned host);
size_t jank_hostjoin_host_count(const struct jank_hostjoin *j);

/*
 * Who may pair: fn(flow, host, data) says whether flow pairs on that host
 * (a [flow]'s hosts =); both the `from`'s and the `to`'s hosts must be
 * allowed. NULL: any (the default).
 */
typedef bool (*jank_hostjoin_allow_fn)(const char *flow, const char *host, void *data);
void jank_hostjoin_set_allow(struct jank_hostjoin *j, jank_hostjoin_allow_fn fn, void *data);

/* A flow event a host's worker reported (a `to`: one its engine did not pair). */
void jank_hostjoin_note(struct jank_hostjoin *j, unsigned host, const char *flow, const char *key,
			bool to, int32_t tid, int64_t ts);

/*
 * The latest reported `to` on host's path p, on the thread of the segment
 * it falls in, within (p->begin, p->end]: 1 and *c (paired or not yet), 0
 * when the path crosses nowhere.
 */
int jank_hostjoin_crossing(const struct jank_hostjoin *j, unsigned host, const struct jank_path *p,
			   struct jank_hostjoin_crossing *c);
/* Whether c's `to` is paired now (its `from` arrived since): fills c's from_*. */
bool jank_hostjoin_refresh(const struct jank_hostjoin *j, struct jank_hostjoin_crossing *c);

/*
 * The offset of b's clock to a's (a's time = b's time + offset) at t on b's
 * clock, with its bracket and the messages seen each way (0 and 0: none).
 */
void jank_hostjoin_offset(const struct jank_hostjoin *j, unsigned a, unsigned b, int64_t t,
			  struct jank_clock_offset *out);

/* The pairs of hosts with a clock (that exchanged a message), i < count: *a < *b. */
size_t jank_hostjoin_clock_count(const struct jank_hostjoin *j);
void jank_hostjoin_clock_hosts(const struct jank_hostjoin *j, size_t i, unsigned *a, unsigned *b,
			       int64_t *last_b);

void jank_hostjoin_get_stats(const struct jank_hostjoin *j, struct jank_hostjoin_stats *out);

#endif
