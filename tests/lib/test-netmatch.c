/* SPDX-License-Identifier: MIT */
/*
 * lib/netmatch.c and lib/engine-net.c: the kernel network matching. The
 * headers an event's fields carry become a TCP segment (IPv4 and IPv6, the
 * payload less the headers; UDP and values out of range are none). A
 * receive matches the send of another host of its connection whose range
 * holds its sequence number (across the 2^32 wrap), whichever comes first,
 * or through NAT the send of its (seq, ack_seq, flags); not a send of its own
 * host, nor one of another connection or range. A flood of sends nobody
 * receives stays within the ring, counted, and a real pair after it still
 * matches; a chain too long is cut, counted. The engine tells a send queued
 * in a thread's context with that thread, none queued from a softirq, and a
 * reception with the thread its softirq woke, the instant after, once.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "netmatch.h"
#include "scenario.h"

static struct jank_tcp_seg seg4(uint32_t a, uint16_t sp, uint32_t b, uint16_t dp, uint32_t seq,
				uint32_t ack, uint16_t flags, uint32_t len)
{
	struct jank_tcp_seg s;

	memset(&s, 0, sizeof(s));
	s.family = 4;
	for (int i = 0; i < 4; i++) {
		s.saddr[i] = (uint8_t)(a >> (24 - 8 * i));
		s.daddr[i] = (uint8_t)(b >> (24 - 8 * i));
	}
	s.sport = sp;
	s.dport = dp;
	s.seq = seq;
	s.ack_seq = ack;
	s.flags = flags;
	s.len = len;
	return s;
}

#define IP_A 0x0a000001u /* 10.0.0.1 */
#define IP_B 0x0a000002u /* 10.0.0.2 */

/* ---- Decoding ---- */

static void set_u(struct jank_event *ev, unsigned i, uint64_t v)
{
	ev->fields[i].type = JANK_VALUE_UINT;
	ev->fields[i].u = v;
}

static void decode(void **state)
{
	static const uint64_t a4[] = { 10, 0, 0, 1 }, b4[] = { 10, 0, 0, 2 };
	static const uint64_t a6[] = { 0xfd00, 0, 0, 0, 0, 0, 0, 1 };
	static const uint64_t b6[] = { 0xfd00, 0, 0, 0, 0, 0, 0, 2 };
	static const uint64_t big[] = { 256, 0, 0, 1 };
	struct jank_event ev;
	struct jank_tcp_seg s;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	ev.nfields = JANK_F_NET_COUNT;
	ev.fields[JANK_F_NET_SADDR] =
		(struct jank_value){ .type = JANK_VALUE_ARRAY, .a = { a4, 4 } };
	ev.fields[JANK_F_NET_DADDR] =
		(struct jank_value){ .type = JANK_VALUE_ARRAY, .a = { b4, 4 } };
	set_u(&ev, JANK_F_NET_TOT_LEN, 140);
	set_u(&ev, JANK_F_NET_IHL, 5);
	set_u(&ev, JANK_F_NET_SPORT, 40000);
	set_u(&ev, JANK_F_NET_DPORT, 8080);
	set_u(&ev, JANK_F_NET_SEQ, 4294967000u);
	set_u(&ev, JANK_F_NET_ACK_SEQ, 7);
	set_u(&ev, JANK_F_NET_DATA_OFFSET, 8); /* 12 bytes of options */
	set_u(&ev, JANK_F_NET_FLAGS, 0x18);
	assert_true(jank_tcp_seg_from_event(&ev, &s));
	assert_int_equal(s.family, 4);
	assert_int_equal(s.saddr[3], 1);
	assert_int_equal(s.daddr[3], 2);
	assert_int_equal(s.sport, 40000);
	assert_int_equal(s.dport, 8080);
	assert_int_equal(s.seq, 4294967000u);
	assert_int_equal(s.ack_seq, 7);
	assert_int_equal(s.flags, 0x18);
	assert_int_equal(s.len, 140 - 20 - 32);
	/* IPv6: 16-bit words, the payload length less the TCP header. */
	ev.fields[JANK_F_NET_SADDR].a = (typeof(ev.fields[0].a)){ a6, 8 };
	ev.fields[JANK_F_NET_DADDR].a = (typeof(ev.fields[0].a)){ b6, 8 };
	ev.fields[JANK_F_NET_TOT_LEN].type = JANK_VALUE_NONE;
	ev.fields[JANK_F_NET_IHL].type = JANK_VALUE_NONE;
	set_u(&ev, JANK_F_NET_PAYLOAD_LEN, 52);
	assert_true(jank_tcp_seg_from_event(&ev, &s));
	assert_int_equal(s.family, 6);
	assert_int_equal(s.saddr[0], 0xfd);
	assert_int_equal(s.saddr[15], 1);
	assert_int_equal(s.len, 52 - 32);
	/* Two families, a byte past 255, a data offset below 5, no seq (UDP): none. */
	ev.fields[JANK_F_NET_DADDR].a = (typeof(ev.fields[0].a)){ b4, 4 };
	assert_false(jank_tcp_seg_from_event(&ev, &s));
	ev.fields[JANK_F_NET_SADDR].a = (typeof(ev.fields[0].a)){ big, 4 };
	assert_false(jank_tcp_seg_from_event(&ev, &s));
	ev.fields[JANK_F_NET_SADDR].a = (typeof(ev.fields[0].a)){ a6, 8 };
	ev.fields[JANK_F_NET_DADDR].a = (typeof(ev.fields[0].a)){ b6, 8 };
	set_u(&ev, JANK_F_NET_DATA_OFFSET, 4);
	assert_false(jank_tcp_seg_from_event(&ev, &s));
	set_u(&ev, JANK_F_NET_DATA_OFFSET, 5);
	assert_true(jank_tcp_seg_from_event(&ev, &s));
	ev.fields[JANK_F_NET_SEQ].type = JANK_VALUE_NONE;
	assert_false(jank_tcp_seg_from_event(&ev, &s));
	/* A field past its width (a port of 17 bits). */
	set_u(&ev, JANK_F_NET_SEQ, 1);
	set_u(&ev, JANK_F_NET_SPORT, 0x10000);
	assert_false(jank_tcp_seg_from_event(&ev, &s));
}

/* ---- Matching ---- */

static void by_connection(void **state)
{
	struct jank_netmatch *m = jank_netmatch_new(64);
	struct jank_netmatch_pair p[4];
	struct jank_tcp_seg s = seg4(IP_A, 40000, IP_B, 8080, 4294967000u, 5, 0x18, 3000);
	struct jank_tcp_seg r;
	struct jank_netmatch_stats st;

	(void)state;
	assert_non_null(m);
	/* Host 0 sends 3000 bytes across the wrap; host 1 receives its third segment. */
	assert_int_equal(jank_netmatch_note(m, 0, false, 100, 1000, &s, p, 4), 0);
	r = seg4(IP_A, 40000, IP_B, 8080, 4294967000u + 2896u, 5, 0x18, 104);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 50000, &r, p, 4), 1);
	assert_int_equal(p[0].from_host, 0);
	assert_int_equal(p[0].to_host, 1);
	assert_int_equal(p[0].from_tid, 100);
	assert_int_equal(p[0].to_tid, 200);
	assert_int_equal(p[0].from_ts, 1000);
	assert_int_equal(p[0].to_ts, 50000);
	assert_false(p[0].fallback);
	/* Past the range, another port, the other direction, the same host: none. */
	r.seq = 4294967000u + 3000u;
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 50001, &r, p, 4), 0);
	r = seg4(IP_A, 40001, IP_B, 8080, 4294967000u, 5, 0x10, 10);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 50002, &r, p, 4), 0);
	r = seg4(IP_B, 8080, IP_A, 40000, 4294967000u, 5, 0x19, 10);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 50003, &r, p, 4), 0);
	r = seg4(IP_A, 40000, IP_B, 8080, 4294967000u, 5, 0x1a, 10);
	assert_int_equal(jank_netmatch_note(m, 0, true, 300, 50004, &r, p, 4), 0);
	/* The receive first (its host's stream ahead), then the send: matched all the same. */
	r = seg4(IP_B, 8080, IP_A, 40000, 5, 1000, 0x18, 50);
	assert_int_equal(jank_netmatch_note(m, 0, true, 100, 90000, &r, p, 4), 0);
	s = seg4(IP_B, 8080, IP_A, 40000, 5, 1000, 0x18, 50);
	assert_int_equal(jank_netmatch_note(m, 1, false, 200, 80000, &s, p, 4), 1);
	assert_int_equal(p[0].from_host, 1);
	assert_int_equal(p[0].to_tid, 100);
	assert_int_equal(p[0].to_ts, 90000);
	/* A receive matches once: the same send again finds nothing left. */
	assert_int_equal(jank_netmatch_note(m, 1, false, 200, 80001, &s, p, 4), 0);
	/* No payload (an ACK): the same header only. */
	s = seg4(IP_A, 40000, IP_B, 8080, 77000, 88, 0x10, 0);
	assert_int_equal(jank_netmatch_note(m, 0, false, 100, 100000, &s, p, 4), 0);
	r = s;
	r.ack_seq = 89;
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 100001, &r, p, 4), 0);
	r.ack_seq = 88;
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 100002, &r, p, 4), 1);
	jank_netmatch_get_stats(m, &st);
	assert_int_equal(st.pairs, 3);
	assert_int_equal(st.fallback, 0);
	assert_int_equal(st.sends, 4);
	assert_int_equal(st.recvs, 8);
	jank_netmatch_free(m);
}

static void through_nat(void **state)
{
	struct jank_netmatch *m = jank_netmatch_new(64);
	struct jank_netmatch_pair p[4];
	struct jank_tcp_seg s = seg4(0xc0a8010a, 40000, 0xcb007105, 80, 123456, 654321, 0x18, 100);
	struct jank_tcp_seg r = seg4(0xc6336407, 55555, IP_B, 8080, 123456, 654321, 0x18, 100);
	struct jank_netmatch_stats st;

	(void)state;
	assert_int_equal(jank_netmatch_note(m, 0, false, 100, 1000, &s, p, 4), 0);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 2000, &r, p, 4), 1);
	assert_true(p[0].fallback);
	/* Other flags: no. */
	r.flags = 0x19;
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 2001, &r, p, 4), 0);
	/* The receive first: the send finds it by the same key. */
	r = seg4(IP_B, 8080, 0xc6336407, 55555, 654321, 123556, 0x18, 50);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 3000, &r, p, 4), 0);
	s = seg4(0xcb007105, 80, 0xc0a8010a, 40000, 654321, 123556, 0x18, 50);
	assert_int_equal(jank_netmatch_note(m, 0, false, 100, 2500, &s, p, 4), 1);
	assert_true(p[0].fallback);
	assert_int_equal(p[0].from_host, 0);
	assert_int_equal(p[0].to_host, 1);
	jank_netmatch_get_stats(m, &st);
	assert_int_equal(st.pairs, 2);
	assert_int_equal(st.fallback, 2);
	jank_netmatch_free(m);
}

/*
 * The hosts' addresses: host 0 sends from 192.168.1.10, which a NAT shows
 * host 1 as 198.51.100.7. An unmatched reception on host 1 from an
 * address no host sends from, from loopback, or from host 1's own is
 * untraced; from 198.51.100.7 (learned from the NAT's pair) or from
 * 192.168.1.10, it is not; a matched one is not either.
 */
static void addresses(void **state)
{
	struct jank_netmatch *m = jank_netmatch_new(64);
	struct jank_netmatch_pair p[4];
	struct jank_tcp_seg s = seg4(0xc0a8010a, 40000, 0xcb007105, 80, 123456, 654321, 0x18, 100);
	struct jank_tcp_seg r = seg4(0xc6336407, 55555, IP_B, 8080, 123456, 654321, 0x18, 100);
	const uint32_t from[] = { 0x0a090909, 0x7f000001, IP_B, 0xc6336407, 0xc0a8010a };
	const bool untraced[] = { true, true, true, false, false };
	struct jank_netmatch_stats st;

	(void)state;
	assert_false(jank_netmatch_host_addressed(m, 0));
	assert_int_equal(jank_netmatch_note(m, 0, false, 100, 1000, &s, p, 4), 0);
	assert_true(jank_netmatch_host_addressed(m, 0));
	assert_false(jank_netmatch_host_addressed(m, 1));
	/* Host 1's own address, from a send of its. */
	s = seg4(IP_B, 8080, 0x0a000009, 9, 1, 1, 0x10, 0);
	assert_int_equal(jank_netmatch_note(m, 1, false, 200, 1500, &s, p, 4), 0);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 2000, &r, p, 4), 1);
	assert_false(jank_netmatch_recv_untraced(m, jank_netmatch_last_id(m))); /* matched */
	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		r = seg4(from[i], 7, IP_B, 8080, 999000 + (uint32_t)i, 5, 0x18, 10);
		assert_int_equal(jank_netmatch_note(m, 1, true, 200, 3000, &r, p, 4), 0);
		assert_int_equal(jank_netmatch_recv_untraced(m, jank_netmatch_last_id(m)),
				 untraced[i]);
	}
	jank_netmatch_get_stats(m, &st);
	assert_int_equal(st.addrs, 3); /* 192.168.1.10, 10.0.0.2, 198.51.100.7 */
	assert_false(jank_netmatch_recv_untraced(m, 0));
	jank_netmatch_free(m);
}

/* 10000 sends to a host not traced, in a ring of 64: bounded, counted, then a pair still matches.
 */
static void flood(void **state)
{
	struct jank_netmatch *m = jank_netmatch_new(64);
	struct jank_netmatch_pair p[4];
	struct jank_netmatch_stats st, st2;
	struct jank_tcp_seg s;

	(void)state;
	for (uint32_t i = 0; i < 10000; i++) {
		s = seg4(IP_A, 50000, 0x0a090909, 9, i * 1000, 1, 0x18, 1000);
		assert_int_equal(jank_netmatch_note(m, 0, false, 100, i, &s, p, 4), 0);
	}
	jank_netmatch_get_stats(m, &st);
	assert_int_equal(st.sends, 10000);
	assert_int_equal(st.kept, 64);
	assert_int_equal(st.max_events, 64);
	assert_int_equal(st.evicted_sends, 10000 - 64);
	assert_int_equal(st.pairs, 0);
	s = seg4(IP_A, 40000, IP_B, 8080, 1, 2, 0x18, 10);
	assert_int_equal(jank_netmatch_note(m, 0, false, 100, 20000, &s, p, 4), 0);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 20001, &s, p, 4), 1);
	/* More sends: the bytes do not grow with them. */
	for (uint32_t i = 0; i < 10000; i++) {
		s = seg4(IP_A, 50000, 0x0a090909, 9, i * 1000 + 7, 1, 0x18, 1000);
		jank_netmatch_note(m, 0, false, 100, 30000 + i, &s, p, 4);
	}
	jank_netmatch_get_stats(m, &st2);
	assert_int_equal(st2.kept, 64);
	assert_true(st2.bytes <= st.bytes * 2);
	printf("# 20001 sends in a ring of 64: %zu bytes, %" PRIu64 " evicted unmatched\n",
	       st2.bytes, st2.evicted_sends);
	jank_netmatch_free(m);
}

/* 300 sends of one connection in one sequence bucket: a lookup stops after JANK_NETMATCH_WALK. */
static void long_chain(void **state)
{
	struct jank_netmatch *m = jank_netmatch_new(1024);
	struct jank_netmatch_pair p[4];
	struct jank_netmatch_stats st;
	struct jank_tcp_seg s;

	(void)state;
	for (uint32_t i = 0; i < 300; i++) {
		s = seg4(IP_A, 40000, IP_B, 8080, 1000 + i * 10, 1, 0x18, 10);
		jank_netmatch_note(m, 0, false, 100, i, &s, p, 4);
	}
	/* The newest is found at once; the oldest is past the walk. */
	s = seg4(IP_A, 40000, IP_B, 8080, 1000 + 299 * 10, 1, 0x18, 10);
	assert_int_equal(jank_netmatch_note(m, 1, true, 200, 1000, &s, p, 4), 1);
	s = seg4(IP_A, 40000, IP_B, 8080, 1000, 1, 0x18, 10);
	jank_netmatch_note(m, 1, true, 200, 1001, &s, p, 4);
	jank_netmatch_get_stats(m, &st);
	assert_true(st.walks_cut >= 1);
	jank_netmatch_free(m);
}

/* ---- The engine's notes ---- */

struct notes {
	struct jank_net_note n[8];
	struct jank_tcp_seg seg[8];
	unsigned count;
};

static void on_net(const struct jank_net_note *n, void *data)
{
	struct notes *ns = data;

	if (ns->count < 8) {
		ns->seg[ns->count] = *n->seg;
		ns->n[ns->count++] = *n;
	}
}

static void net_event(struct scn *s, int64_t ts, int cpu, const char *name, uint64_t seq)
{
	static const uint64_t a[] = { 10, 0, 0, 1 }, b[] = { 10, 0, 0, 2 };

	scn_kernel(s, ts, cpu, name, A("network_header.saddr", a, 4),
		   A("network_header.daddr", b, 4), I("network_header.tot_len", 140),
		   I("network_header.ihl", 5), I("network_header.transport_header.source_port", 1),
		   I("network_header.transport_header.dest_port", 2),
		   I("network_header.transport_header.seq", (int64_t)seq),
		   I("network_header.transport_header.ack_seq", 3),
		   I("network_header.transport_header.data_offset", 5),
		   I("network_header.transport_header.flags", 0x18));
}

static void engine_notes(void **state)
{
	struct scn s;
	struct notes ns = { .count = 0 };

	(void)state;
	scn_init(&s, &scn_layout_current, NULL);
	jank_engine_set_net_cb(s.e, on_net, &ns);
	scn_switch(&s, 100, 0, 0, 0, 100);
	scn_switch(&s, 100, 1, 0, 0, 300);
	net_event(&s, 200, 0, "net_dev_queue", 1000); /* tid 100's */
	/* From a softirq (an ACK, a retransmission): no sender thread. */
	scn_softirq(&s, 300, 0, 3, true);
	net_event(&s, 310, 0, "net_dev_queue", 2000);
	scn_softirq(&s, 320, 0, 3, false);
	/* CPU 1: a reception wakes tid 200 (waking, then wakeup: once). */
	scn_softirq(&s, 400, 1, 3, true);
	net_event(&s, 410, 1, "net_if_receive_skb", 3000);
	scn_wake(&s, 420, 1, 200);
	scn_softirq(&s, 430, 1, 3, false);
	/* A wakeup in another softirq, or in no softirq: not of that reception. */
	scn_softirq(&s, 500, 1, 3, true);
	scn_wake(&s, 510, 1, 201);
	scn_softirq(&s, 520, 1, 3, false);
	scn_wake(&s, 600, 1, 202);
	/*
	 * A hostile trace: after a reception, a wakeup without any field, one
	 * without its tid, one whose tid is past 32 bits: nothing told.
	 */
	scn_softirq(&s, 700, 1, 3, true);
	net_event(&s, 710, 1, "net_if_receive_skb", 4000);
	scn_event_v(&s, JANK_DOMAIN_KERNEL, 720, 1, -1, "sched_wakeup", NULL, 0);
	scn_kernel(&s, 730, 1, "sched_wakeup", S("comm", "x"));
	scn_kernel(&s, 740, 1, "sched_wakeup", S("comm", "x"), I("tid", ((int64_t)1 << 32) + 200));
	scn_softirq(&s, 750, 1, 3, false);
	assert_int_equal(ns.count, 2);
	assert_false(ns.n[0].recv);
	assert_int_equal(ns.n[0].tid, 100);
	assert_int_equal(ns.n[0].ts, 200);
	assert_int_equal(ns.seg[0].seq, 1000);
	assert_int_equal(ns.seg[0].len, 100);
	assert_true(ns.n[1].recv);
	assert_int_equal(ns.n[1].tid, 200);
	assert_int_equal(ns.n[1].ts, 421);
	assert_int_equal(ns.seg[1].seq, 3000);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode),      cmocka_unit_test(by_connection),
		cmocka_unit_test(through_nat), cmocka_unit_test(flood),
		cmocka_unit_test(long_chain),  cmocka_unit_test(engine_notes),
		cmocka_unit_test(addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
