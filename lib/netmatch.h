/* SPDX-License-Identifier: MIT */
/*
 * Kernel network matching across hosts: a TCP segment a host sent
 * (lttng-modules' net_dev_queue) with its reception on another host
 * (net_if_receive_skb) that woke a thread there.
 *
 * lttng-modules >= 2.9 writes the IP and TCP headers of each packet. A
 * receive matches a send of another host when they are of the same
 * connection (the 4-tuple, one direction) and the receive's sequence
 * number falls in the range the send carried, [seq, seq + payload): one
 * large send the NIC or GSO split is received as several segments. Through
 * NAT the addresses and ports differ: then a send and a receive of the same
 * (seq, ack_seq, flags) match (Trace Compass's TcpEventMatching key).
 *
 * Both sides are kept in one ring of at most max_events (the oldest
 * overwritten first, counted by side when never matched: a flood of
 * unmatched sends stays bounded), indexed by the 4-tuple and a 64 KiB
 * bucket of the sequence (a send's payload never spans more than two), and
 * by the fallback key. Whichever comes first waits for the other (hosts'
 * streams lag differently); a lookup walks at most a bounded number of
 * events of a chain (counted when cut). A matched pair is a message between
 * the two hosts: the caller feeds it to the flows' join (crosshost.h,
 * hostjoin.h) as a pair of flow events, which bounds their clocks too.
 */
#ifndef JANK_NETMATCH_H
#define JANK_NETMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"

#define JANK_NETMATCH_WALK  256	 /* events of a chain a lookup looks at, at most */
#define JANK_NETMATCH_ADDRS 4096 /* hosts' addresses known, at most */

/* One TCP segment as the kernel tracer wrote its headers. */
struct jank_tcp_seg {
	uint8_t family; /* 4 or 6 */
	uint8_t saddr[16], daddr[16];
	uint16_t sport, dport;
	uint32_t seq, ack_seq;
	uint32_t len; /* payload bytes */
	uint16_t flags;
};

/* The fields of net_dev_queue and net_if_receive_skb the engine asks for (layout.c), in order. */
enum {
	JANK_F_NET_SADDR = 0,
	JANK_F_NET_DADDR,
	JANK_F_NET_TOT_LEN,	/* IPv4 */
	JANK_F_NET_IHL,		/* IPv4 */
	JANK_F_NET_PAYLOAD_LEN, /* IPv6 */
	JANK_F_NET_SPORT,
	JANK_F_NET_DPORT,
	JANK_F_NET_SEQ,
	JANK_F_NET_ACK_SEQ,
	JANK_F_NET_DATA_OFFSET,
	JANK_F_NET_FLAGS,
	JANK_F_NET_COUNT,
};

/*
 * The TCP segment an event's fields describe: false when it has none (no
 * IP header, not TCP, an older layout without the headers, or values out
 * of range). Addresses are IPv4 (4 bytes) or IPv6 (8 16-bit words or 16
 * bytes); the payload is the IP length less the IP and TCP headers.
 */
bool jank_tcp_seg_from_event(const struct jank_event *ev, struct jank_tcp_seg *out);

struct jank_netmatch;

struct jank_netmatch_stats {
	uint64_t sends, recvs; /* noted */
	uint64_t pairs;	       /* receives matched with a send of another host */
	uint64_t fallback;     /* of which by (seq, ack_seq, flags): addresses differed */
	uint64_t evicted_sends, evicted_recvs; /* overwritten before any match */
	uint64_t refused;		       /* of a host past the bound */
	uint64_t walks_cut;		       /* lookups that stopped at JANK_NETMATCH_WALK */
	uint64_t addrs;			       /* hosts' addresses learned */
	uint64_t addrs_refused;		       /* past JANK_NETMATCH_ADDRS */
	size_t kept, max_events;
	size_t bytes;
};

/*
 * A send on from_host matched with a receive on to_host (each on its own
 * clock); recv_id is the receive's id (jank_netmatch_last_id when it was
 * noted), unique over the table's life.
 */
struct jank_netmatch_pair {
	unsigned from_host, to_host;
	int32_t from_tid, to_tid;
	int64_t from_ts, to_ts;
	bool fallback;
	uint64_t recv_id;
};

/* At most max_events segments kept (>= 16). NULL: out of memory. */
struct jank_netmatch *jank_netmatch_new(size_t max_events);
void jank_netmatch_free(struct jank_netmatch *m);

/*
 * A segment host sent (recv false: by thread tid at ts) or received
 * (recv true: the reception that woke thread tid at ts). The pairs it
 * makes go to out (at most max; more are made but not told, counted in
 * pairs all the same). Returns how many were told.
 */
size_t jank_netmatch_note(struct jank_netmatch *m, unsigned host, bool recv, int32_t tid,
			  int64_t ts, const struct jank_tcp_seg *seg,
			  struct jank_netmatch_pair *out, size_t max);

/*
 * Whether the receive recv_id (still kept, not matched yet) came from a
 * peer no traced host is known to send from: its source address is
 * loopback, unknown, or its own host's. A host's addresses are learned
 * from the source of its sends, and, through NAT, from the source its
 * matched segments show on the receiving side (at most
 * JANK_NETMATCH_ADDRS). False when the receive is not known (evicted).
 */
bool jank_netmatch_recv_untraced(const struct jank_netmatch *m, uint64_t recv_id);

/* Whether an address of host's is known (a send of its was noted). */
bool jank_netmatch_host_addressed(const struct jank_netmatch *m, unsigned host);

/* The id of the segment noted last (1, 2...; 0: none yet). */
uint64_t jank_netmatch_last_id(const struct jank_netmatch *m);

void jank_netmatch_get_stats(const struct jank_netmatch *m, struct jank_netmatch_stats *out);

#endif
