/* SPDX-License-Identifier: MIT */
/*
 * Indexes and packets of jank's lttng-live client (trace-live-int.h):
 * GET_NEXT_INDEX and GET_PACKET per data stream, each length and status
 * checked, the packet handed to the native decoder; and the heap that
 * merges the streams in time order (a stream's head event, or the horizon
 * its last packet or beacon promised).
 *
 * A run that asks about PULL_MIN streams or more asks them at once: their
 * GET_NEXT_INDEX written in one send and the replies (fixed-size) read
 * together, then the GET_PACKET of those with a packet, in one send too,
 * the replies read in order. relayd serves a connection's requests one after the other, so the
 * replies come in the order asked; a round trip (relayd woken, the worker
 * waiting) per batch, not per stream: a kernel trace has a stream per CPU.
 * What needs the connection to itself (the metadata relayd asks to be read
 * first) is done between batches, when no reply is outstanding.
 *
 * A stream whose packet was the first after relayd said it had nothing
 * newer ("retry", a beacon) has sent its newest packet: the next one is a
 * flush of the live timer or a filled sub-buffer away, and it is not asked
 * again for ASK_HOLD_NS (trace-live.c's run). A stream read packet after
 * packet (relayd has more of it) is asked at every run, and so is one that
 * said "retry": the others' events wait for its next packet, which comes
 * from the same flush as theirs, often a millisecond later.
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

/* GET_PACKET's payload: stream, offset, length. */
static void packet_req(uint8_t *b, const struct lstream *ls, uint64_t offset, uint32_t len)
{
	put64(b, 16 + 4);
	put32(b + 8, CMD_GET_PACKET);
	put32(b + 12, 0);
	put64(b + 16, ls->id);
	put64(b + 24, offset);
	put32(b + 32, len);
}

/*
 * The reply to a GET_PACKET sent (its packet, if it came, to the decoder);
 * *meta: relayd wants the trace's new metadata read first, then the packet
 * asked again.
 */
static int packet_reply(struct jank_reader *in, struct live_reader *lr, struct lstream *ls,
			uint64_t offset, uint32_t len, bool *retry, bool *meta)
{
	uint8_t rep[12];
	uint32_t status, got, flags;
	int r;

	*meta = false;
	if ((r = live_recv_all(in, lr, rep, 12)) < 0)
		return r;
	status = get32(rep);
	got = get32(rep + 4);
	flags = get32(rep + 8);
	if (flags & FLAG_NEW_STREAM)
		lr->new_streams = true;
	switch (status) {
	case PACKET_OK:
		if (got != len)
			return live_malformed(in, "a packet of %llu bytes (not the index's)", got);
		if (len > ls->cap) {
			uint8_t *v = realloc(ls->buf, len);

			if (!v) {
				jank_errf(in->err, sizeof(in->err), "out of memory");
				return -ENOMEM;
			}
			ls->buf = v;
			ls->cap = len;
		}
		if ((r = live_recv_bulk(in, lr, ls->buf, len)) < 0)
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
			*meta = true;
			return 0;
		}
		jank_errf(in->err, sizeof(in->err),
			  "%s: cannot read the trace: relayd: cannot read a packet", ls->ns.path);
		return -EPROTO;
	default:
		return live_malformed(in, "a packet of status %llu", status);
	}
}

/* Ask for a packet and read it, the new metadata first if relayd says so. */
static int get_packet(struct jank_reader *in, struct live_reader *lr, struct lstream *ls,
		      uint64_t offset, uint32_t len, bool *retry, int tries)
{
	uint8_t b[36];
	bool meta;
	int r;

	for (; tries < 2; tries++) {
		packet_req(b, ls, offset, len);
		if ((r = live_send(in, lr, b, sizeof(b))) < 0 ||
		    (r = packet_reply(in, lr, ls, offset, len, retry, &meta)) < 0)
			return r;
		if (!meta)
			return 0;
		if ((r = live_meta_fetch(in, lr, ls->lt)) < 0)
			return r;
	}
	jank_errf(in->err, sizeof(in->err),
		  "%s: cannot read the trace: relayd keeps asking for new metadata", ls->ns.path);
	return -EPROTO;
}

/* The reply to a GET_NEXT_INDEX: 1, a packet to ask for; 0, none. */
static int index_reply(struct jank_reader *in, struct live_reader *lr, struct lstream *ls,
		       const uint8_t *rep, bool *retry)
{
	uint64_t psize = get64(rep + 8), csize = get64(rep + 16);
	uint32_t status = get32(rep + 56), flags = get32(rep + 60);

	if (flags & FLAG_NEW_STREAM)
		lr->new_streams = true;
	if (flags & FLAG_NEW_METADATA)
		ls->lt->need_meta = true;
	switch (status) {
	case INDEX_OK:
		if (psize == 0 || psize % 8 || psize / 8 > MAX_PACKET || csize > psize)
			return live_malformed(in, "an index of a packet of %llu bits", psize);
		/* The newest packet: the next is a flush (the live timer) or a sub-buffer away. */
		if (ls->caught_up)
			ls->hold_until = mono_ns() + ASK_HOLD_NS;
		ls->caught_up = false;
		ls->pkt_end = raw_ns(ls->lt, get64(rep + 32));
		ls->pending = true; /* its packet, asked next */
		ls->pending_off = get64(rep);
		ls->pending_len = (uint32_t)(psize / 8);
		return 1;
	case INDEX_RETRY:
		*retry = true;
		ls->caught_up = true;
		return 0;
	case INDEX_INACTIVE: {
		int64_t t = raw_ns(ls->lt, get64(rep + 32));

		ls->caught_up = true;
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

/* The batch's buffer: n bytes at least. */
static uint8_t *batch_buf(struct jank_reader *in, struct live_reader *lr, size_t n)
{
	if (n > lr->batch_cap) {
		uint8_t *v = realloc(lr->batch, n);

		if (!v) {
			jank_errf(in->err, sizeof(in->err), "out of memory");
			return NULL;
		}
		lr->batch = v;
		lr->batch_cap = n;
	}
	return lr->batch;
}

/*
 * GET_NEXT_INDEX for each of ask[0..n), written at once, and the replies
 * (each INDEX_LEN bytes, whatever the status) read at once: a round trip
 * to relayd for all the streams, not one each. Those with a packet to ask
 * for stay first in ask: *nok of them.
 */
static int pull_indexes(struct jank_reader *in, struct live_reader *lr, struct lstream **ask,
			size_t n, size_t *nok, bool *retry)
{
	uint8_t *b = batch_buf(in, lr, n * (16 + 8) > n * INDEX_LEN ? n * (16 + 8) : n * INDEX_LEN);
	size_t k = 0;
	int r;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint8_t *q = b + i * (16 + 8);

		put64(q, 8);
		put32(q + 8, CMD_GET_NEXT_INDEX);
		put32(q + 12, 0);
		put64(q + 16, ask[i]->id);
	}
	if ((r = live_send(in, lr, b, n * (16 + 8))) < 0 ||
	    (r = live_recv_all(in, lr, b, n * INDEX_LEN)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		r = index_reply(in, lr, ask[i], b + i * INDEX_LEN, retry);
		if (r < 0)
			return r;
		if (r)
			ask[k++] = ask[i];
	}
	*nok = k;
	return 0;
}

/*
 * GET_PACKET for the pending packet of each of ask[0..n), written at once,
 * the replies read in order; those relayd sends back for new metadata are
 * asked again, one at a time, once it is read.
 */
static int pull_packets(struct jank_reader *in, struct live_reader *lr, struct lstream **ask,
			size_t n, bool *retry)
{
	uint8_t *b;
	size_t again = 0;
	int r;

	for (size_t i = 0; i < n; i++)
		if (ask[i]->lt->need_meta && (r = live_meta_fetch(in, lr, ask[i]->lt)) < 0)
			return r;
	if (!(b = batch_buf(in, lr, n * 36)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		ask[i]->pending = false;
		packet_req(b + i * 36, ask[i], ask[i]->pending_off, ask[i]->pending_len);
	}
	if ((r = live_send(in, lr, b, n * 36)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		bool meta;

		r = packet_reply(in, lr, ask[i], ask[i]->pending_off, ask[i]->pending_len, retry,
				 &meta);
		if (r < 0)
			return r;
		if (meta)
			ask[again++] = ask[i];
	}
	for (size_t i = 0; i < again; i++) {
		struct lstream *ls = ask[i];

		if ((r = live_meta_fetch(in, lr, ls->lt)) < 0 ||
		    (r = get_packet(in, lr, ls, ls->pending_off, ls->pending_len, retry, 1)) < 0)
			return r;
	}
	return 0;
}

/*
 * Ask relayd for the next index of each stream of ask[0..n), and the
 * packets they announce (or the packet a stream was told to ask for again):
 * two round trips for all of them.
 */
static int pull_batch(struct jank_reader *in, struct live_reader *lr, struct lstream **ask,
		      size_t n, bool *retry)
{
	size_t npend = 0, nidx, nok;
	int r;

	/* Those whose packet was "retry" first: they ask for it again, not for an index. */
	for (size_t i = 0; i < n; i++)
		if (ask[i]->pending) {
			struct lstream *t = ask[npend];

			ask[npend++] = ask[i];
			ask[i] = t;
		}
	for (size_t at = npend; at < n; at += nidx) {
		nidx = n - at < PULL_BATCH ? n - at : PULL_BATCH;
		if ((r = pull_indexes(in, lr, ask + at, nidx, &nok, retry)) < 0)
			return r;
		/* Keep the streams with a packet next to those before. */
		memmove(ask + npend, ask + at, nok * sizeof(*ask));
		npend += nok;
	}
	for (size_t at = 0; at < npend; at += PULL_BATCH) {
		size_t m = npend - at < PULL_BATCH ? npend - at : PULL_BATCH;

		if ((r = pull_packets(in, lr, ask + at, m, retry)) < 0)
			return r;
	}
	return 0;
}

/*
 * Two streams or fewer are asked one after the other: relayd's second reply
 * of a batch waits for an acknowledgement (live_recv_all), which costs
 * about what the request it saves did (bench-live, two streams: no gain).
 */
int live_streams_pull(struct jank_reader *in, struct live_reader *lr, struct lstream **ask,
		      size_t n, bool *retry)
{
	int r;

	if (n >= PULL_MIN) {
		lr->quickack = true;
		r = pull_batch(in, lr, ask, n, retry);
		lr->quickack = false;
		return r;
	}
	for (size_t i = 0; i < n; i++)
		if ((r = pull_batch(in, lr, ask + i, 1, retry)) < 0)
			return r;
	return 0;
}
