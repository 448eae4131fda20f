/* SPDX-License-Identifier: MIT */
/*
 * Critical paths across hosts: the join of several hosts' engines.
 *
 * Each host has its own engine and graph (tids of two hosts collide; no
 * graph is shared). A [flow] whose `from` is on host B and whose `to` is on
 * host A pairs across them here, by key: the hosts' engines tell their flow
 * events (jank_engine_set_flow_cb) and the join pairs a `to` that found no
 * `from` in its own engine with the `from` of its key on another host, the
 * n-th `to` of a key with its n-th `from` (keys are unique across hosts).
 * Every pair is a message between two hosts: it bounds their clocks'
 * offset (clocksync.h), one clock per pair of hosts.
 *
 * A path crosses where a host's path reaches, walking back, the `to` of such
 * a pair on its thread at t1: as a flow within one engine is followed, the
 * path stays on that thread back to t0, the `from`'s time on the other
 * host's clock converted to this one (never after t1: a segment never
 * begins before its cause), and before t0 it is the other host's path of
 * the `from`'s thread back from its own t0, computed by that host's graph
 * and joined again the same way, in that host's clock converted. Each
 * segment names its host (jank_segment.host).
 */
#ifndef JANK_CROSSHOST_H
#define JANK_CROSSHOST_H

#include <stddef.h>
#include <stdint.h>
#include "clocksync.h"
#include "critpath.h"
#include "engine.h"
#include "graph.h"

#define JANK_CROSSHOST_MAX_HOSTS 64
#define JANK_CROSSHOST_MAX_HOPS	 16 /* host changes along one path */

struct jank_crosshost;

struct jank_crosshost_stats {
	uint64_t hosts;
	uint64_t froms, tos; /* flow events kept (tos: not paired within their host) */
	uint64_t dropped;    /* flow events not kept: past the bound */
	uint64_t pairs;	     /* across hosts */
	uint64_t unpaired;   /* kept `to`s with no `from` on another host */
	uint64_t crossings;  /* host changes in the paths joined */
};

/* At most max_events flow events are kept (offline: the whole input's). NULL: out of memory. */
struct jank_crosshost *jank_crosshost_new(size_t max_events);
void jank_crosshost_free(struct jank_crosshost *x);

/*
 * A host, by name, and the graph its engine keeps (NULL until known; it
 * must keep the times the paths reach: no GC offline), and who names its
 * frames (NULL: hex addresses). Returns its index, or -E2BIG, -ENOMEM.
 */
int jank_crosshost_add_host(struct jank_crosshost *x, const char *name);
void jank_crosshost_set_graph(struct jank_crosshost *x, unsigned host, const struct jank_graph *g,
			      jank_frame_namer namer, void *namer_data);
size_t jank_crosshost_host_count(const struct jank_crosshost *x);
const char *jank_crosshost_host_name(const struct jank_crosshost *x, unsigned host);

/*
 * A flow event of a host's engine: flow_name is its flow's name, hosts the
 * hosts it pairs between ("a,b"; NULL: any two), as jank_flow_rule says.
 */
void jank_crosshost_note(struct jank_crosshost *x, unsigned host, const struct jank_flow_note *n,
			 const char *flow_name, const char *hosts);
/* Pair the events noted so far (offline: once, after every input ended). 0 or -ENOMEM. */
int jank_crosshost_pair(struct jank_crosshost *x);

/* The time t of host b's clock on host a's clock. */
int64_t jank_crosshost_convert(const struct jank_crosshost *x, unsigned a, unsigned b, int64_t t);
/* The offset of b's clock to a's (a's time = b's + offset) at t on b's clock, with its bracket. */
void jank_crosshost_offset(const struct jank_crosshost *x, unsigned a, unsigned b, int64_t t,
			   struct jank_clock_offset *out);

/*
 * The path `local` (host's, from its engine: a verdict's) joined across
 * hosts into out (reset first). Every segment names its host. Returns 0,
 * 1 when it crossed, or -ENOMEM (out is then partial: incomplete).
 */
int jank_crosshost_path(struct jank_crosshost *x, unsigned host, const struct jank_path *local,
			struct jank_path *out);

/*
 * A path joined online (hostjoin.h): `local` (host's) reached at t1 the `to`
 * of a flow whose `from` another host, from_host, sent at t0 (on host's
 * clock). Over [local->begin, t0), `remote`: from_host's path of the
 * sending thread, on its clock (host's = from_host's + offset), its last
 * segment stretched to t0; NULL or empty when that host did not answer: one
 * segment of unknown state and tid -1 on from_host ("not yet seen"). From
 * t0 on, local's segments, labelled with the flow up to t1. Every segment
 * names its host. Returns 0 or -ENOMEM (out is then incomplete).
 */
int jank_crosshost_splice(const struct jank_path *local, const char *host,
			  const struct jank_path *remote, const char *from_host, int64_t offset,
			  int64_t t0, int64_t t1, const char *flow, struct jank_path *out);

/*
 * A path recomputed on one host (a capture's report: `local`, of host
 * `host`, whose segments name no host) given the other hosts' parts of the
 * path jankd joined live (`live`, every segment naming its host): into out
 * (reset first), live's segments of other hosts, clipped to local's bounds,
 * and local's segments outside them, in time order, each naming its host.
 * Returns 1 when live had a part on another host, 0 when not (out is
 * local's), or -ENOMEM (out is then incomplete).
 */
int jank_crosshost_overlay(const struct jank_path *local, const char *host,
			   const struct jank_path *live, struct jank_path *out);

void jank_crosshost_get_stats(const struct jank_crosshost *x, struct jank_crosshost_stats *out);

#endif
