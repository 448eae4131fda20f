/* SPDX-License-Identifier: MIT */
/*
 * Indexes and packets of jank's lttng-live client (trace-live-int.h):
 * GET_NEXT_INDEX and GET_PACKET per data stream, each length and status
 * checked, the packet handed to the native decoder; and the heap that
 * merges the streams in time order (a stream's head event, or the horizon
 * its last packet or beacon promised).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "errbuf.h"
#include "trace-live-int.h"
#include "trace-native-int.h"
#include "trace-native.h"

/* ---- Packets ---- */

static int64_t raw_ns(const struct ltrace *lt, uint64_t v)
{
	int64_t ns;

	if (v > INT64_MAX || __builtin_add_overflow(lt->tr.clock_base, (int64_t)v, &ns))
		return INT64_MAX;
	return ns;
}

static void heap_swap(struct live_reader *lr, size_t a, size_t b)
{
	struct lstream *t = lr->heap[a];

	lr->heap[a] = lr->heap[b];
	lr->heap[b] = t;
}

static bool earlier(const struct lstream *a, const struct lstream *b)
{
	return a->ns.ts < b->ns.ts || (a->ns.ts == b->ns.ts && a->ns.index < b->ns.index);
}

void live_heap_sift_down(struct live_reader *lr, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < lr->nheap && earlier(lr->heap[l], lr->heap[min]))
			min = l;
		if (r < lr->nheap && earlier(lr->heap[r], lr->heap[min]))
			min = r;
		if (min == i)
			return;
		heap_swap(lr, i, min);
		i = min;
	}
}

static void heap_push(struct live_reader *lr, struct lstream *ls)
{
	size_t i = lr->nheap++;

	lr->heap[i] = ls;
	ls->in_heap = true;
	while (i > 0 && earlier(lr->heap[i], lr->heap[(i - 1) / 2])) {
		heap_swap(lr, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* The stream read its packet: nothing of it before its end is still to come. */
void live_packet_done(struct lstream *ls)
{
	if (ls->pkt_end > ls->horizon)
		ls->horizon = ls->pkt_end;
	if (ls->ns.last_ts > ls->horizon)
		ls->horizon = ls->ns.last_ts;
}

/* A packet arrived: its first item to the heap, or, empty, its end as the horizon. */
static int packet_start(struct jank_reader *in, struct live_reader *lr, struct lstream *ls,
			size_t len)
{
	struct nstream *s = &ls->ns;
	int r;

	s->map = ls->buf;
	s->size = len;
	s->pkt = 0;
	s->pkt_len = 0;
	s->released = 0;
	r = native_stream_next(in, s);
	if (r < 0)
		return r;
	if (s->kind == ITEM_END)
		live_packet_done(ls);
	else
		heap_push(lr, ls);
	return 0;
}

static int get_packet(struct jank_reader *in, struct live_reader *lr, struct lstream *ls,
		      uint64_t offset, uint32_t len, bool *retry)
{
	uint8_t p[20], rep[12];
	int r;

	for (int tries = 0; tries < 2; tries++) {
		uint32_t status, got, flags;

		put64(p, ls->id);
		put64(p + 8, offset);
		put32(p + 16, len);
		if ((r = live_request(in, lr, CMD_GET_PACKET, p, 20)) < 0 ||
		    (r = live_recv_all(in, lr, rep, 12)) < 0)
			return r;
		status = get32(rep);
		got = get32(rep + 4);
		flags = get32(rep + 8);
		if (flags & FLAG_NEW_STREAM)
			lr->new_streams = true;
		switch (status) {
		case PACKET_OK:
			if (got != len)
				return live_malformed(
					in, "a packet of %llu bytes (not the index's)", got);
			if (len > ls->cap) {
				uint8_t *v = realloc(ls->buf, len);

				if (!v) {
					jank_errf(in->err, sizeof(in->err), "out of memory");
					return -ENOMEM;
				}
				ls->buf = v;
				ls->cap = len;
			}
			if ((r = live_recv_all(in, lr, ls->buf, len)) < 0)
				return r;
			return packet_start(in, lr, ls, len);
		case PACKET_RETRY:
			*retry = true;
			ls->pending = true;
			ls->pending_off = offset;
			ls->pending_len = len;
			return 0;
		case PACKET_EOF:
			ls->gone = true;
			return 0;
		case PACKET_ERR:
			if (flags & FLAG_NEW_METADATA) {
				r = live_meta_fetch(in, lr, ls->lt);
				if (r < 0)
					return r;
				continue;
			}
			jank_errf(in->err, sizeof(in->err),
				  "%s: cannot read the trace: relayd: cannot read a packet",
				  ls->ns.path);
			return -EPROTO;
		default:
			return live_malformed(in, "a packet of status %llu", status);
		}
	}
	jank_errf(in->err, sizeof(in->err),
		  "%s: cannot read the trace: relayd keeps asking for new metadata", ls->ns.path);
	return -EPROTO;
}

/* Ask relayd for the stream's next index, and its packet. */
int live_stream_pull(struct jank_reader *in, struct live_reader *lr, struct lstream *ls,
		     bool *retry)
{
	uint8_t p[8], rep[INDEX_LEN];
	uint64_t psize, csize;
	uint32_t status, flags;
	int r;

	if (ls->pending) {
		ls->pending = false;
		return get_packet(in, lr, ls, ls->pending_off, ls->pending_len, retry);
	}
	put64(p, ls->id);
	if ((r = live_request(in, lr, CMD_GET_NEXT_INDEX, p, 8)) < 0 ||
	    (r = live_recv_all(in, lr, rep, INDEX_LEN)) < 0)
		return r;
	psize = get64(rep + 8);
	csize = get64(rep + 16);
	status = get32(rep + 56);
	flags = get32(rep + 60);
	if (flags & FLAG_NEW_STREAM)
		lr->new_streams = true;
	if (flags & FLAG_NEW_METADATA)
		ls->lt->need_meta = true;
	switch (status) {
	case INDEX_OK:
		if (psize == 0 || psize % 8 || psize / 8 > MAX_PACKET || csize > psize)
			return live_malformed(in, "an index of a packet of %llu bits", psize);
		if (ls->lt->need_meta && (r = live_meta_fetch(in, lr, ls->lt)) < 0)
			return r;
		ls->pkt_end = raw_ns(ls->lt, get64(rep + 32));
		return get_packet(in, lr, ls, get64(rep), (uint32_t)(psize / 8), retry);
	case INDEX_RETRY:
		*retry = true;
		return 0;
	case INDEX_INACTIVE: {
		int64_t t = raw_ns(ls->lt, get64(rep + 32));

		if (t != INT64_MAX && t > ls->horizon)
			ls->horizon = t;
		return 0;
	}
	case INDEX_HUP:
	case INDEX_EOF:
		ls->gone = true;
		return 0;
	case INDEX_ERR:
		jank_errf(in->err, sizeof(in->err),
			  "%s: cannot read the trace: relayd: cannot read the index", ls->ns.path);
		return -EPROTO;
	default:
		return live_malformed(in, "an index of status %llu", status);
	}
}
