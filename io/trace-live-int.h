/* SPDX-License-Identifier: MIT */
/*
 * What the three files of jank's lttng-live client share (trace-live.c:
 * the connection, sessions, streams and the run; trace-live-meta.c: the
 * metadata streams; trace-live-packets.c: indexes, packets and the merge of
 * the streams in time order): the viewer protocol's numbers and sizes, the
 * reader's state, and the helpers each calls in the others.
 */
#ifndef JANK_TRACE_LIVE_INT_H
#define JANK_TRACE_LIVE_INT_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "trace-native-int.h"

#include "trace-native.h"

enum {
	CMD_CONNECT = 1,
	CMD_LIST_SESSIONS = 2,
	CMD_ATTACH_SESSION = 3,
	CMD_GET_NEXT_INDEX = 4,
	CMD_GET_PACKET = 5,
	CMD_GET_METADATA = 6,
	CMD_GET_NEW_STREAMS = 7,
	CMD_CREATE_SESSION = 8,
};

enum {
	FLAG_NEW_METADATA = 1,
	FLAG_NEW_STREAM = 2
};
enum {
	ATTACH_OK = 1,
	ATTACH_ALREADY = 2,
	ATTACH_UNK = 3
};
enum {
	INDEX_OK = 1,
	INDEX_RETRY,
	INDEX_HUP,
	INDEX_ERR,
	INDEX_INACTIVE,
	INDEX_EOF
};
enum {
	PACKET_OK = 1,
	PACKET_RETRY,
	PACKET_ERR,
	PACKET_EOF
};
enum {
	METADATA_OK = 1,
	METADATA_NO_NEW,
	METADATA_ERR,
	METADATA_HUP
};
enum {
	NEW_STREAMS_OK = 1,
	NEW_STREAMS_NO_NEW,
	NEW_STREAMS_ERR,
	NEW_STREAMS_HUP
};

#define VIEWER_MAJOR   2
#define VIEWER_MINOR   4
#define CLIENT_COMMAND 1
#define SEEK_LAST      2
#define HOST_LEN       64
#define NAME_LEN       255
#define PATH_LEN       4096
#define SESSION_LEN    (8 + 4 + 4 + 4 + HOST_LEN + NAME_LEN)
#define STREAM_LEN     (8 + 8 + 4 + PATH_LEN + NAME_LEN)
#define INDEX_LEN      (7 * 8 + 2 * 4)
#define MAX_SESSIONS   100000
#define MAX_STREAMS    65536
#define MAX_TRACES     1024
#define MAX_PACKET     (64u << 20)
#define META_ROUNDS    4096	 /* GET_METADATA replies per fetch, at most */
#define DELIVER_MAX    1024	 /* events per run */
#define PULL_BATCH     64	 /* requests written at once, at most */
#define PULL_MIN       3	 /* streams asked at once, at least (else one by one) */
#define ASK_HOLD_NS    5000000LL /* a stream's newest packet read: not asked again sooner */
#define IO_TIMEOUT_S   30
#define META_GRACE_NS  2000000000LL
#define DEFAULT_PORT   "5344"

struct ltrace {
	uint64_t id; /* relayd's ctf_trace_id */
	uint64_t meta_stream;
	bool has_meta_stream;
	bool need_meta; /* ask relayd before the next packet */
	bool loaded;	/* tr is read from */
	uint8_t *raw;	/* the metadata stream's bytes so far */
	size_t nraw, cap, parsed;
	int64_t bad_since; /* monotonic ns since the metadata does not parse, 0: it does */
	struct ntrace tr;
	struct ctf_meta **old; /* metadata replaced: earlier plans point into it */
	size_t nold;
	char name[PATH_LEN + 32];
};

struct lstream {
	struct nstream ns;
	uint64_t id;
	struct ltrace *lt;
	bool in_heap, gone;
	int64_t horizon; /* nothing before this time is still to come from it */
	int64_t pkt_end; /* the end of the packet being read (index), INT64_MIN: unknown */
	uint8_t *buf;	 /* the packet */
	size_t cap;
	bool pending;	    /* its index came, its packet was "retry": ask for it again */
	bool caught_up;	    /* its last index was "retry" or a beacon: relayd had nothing newer */
	int64_t hold_until; /* monotonic ns: not asked for its next index before (ASK_HOLD_NS) */
	uint64_t pending_off;
	uint32_t pending_len;
};

struct live_reader {
	char host[256], port[8];
	int family;
	char hostname[HOST_LEN + 1];
	char session[NAME_LEN + 1];
	int fd;
	bool attached;
	uint64_t *sessions; /* attached to */
	size_t nsessions;
	bool *session_gone;
	struct ltrace **traces;
	size_t ntraces;
	struct lstream **streams;
	size_t nstreams;
	struct lstream **heap;
	size_t nheap;
	struct lstream **ask; /* the streams a run asks relayd about */
	uint8_t *batch;	      /* the requests written at once, their replies */
	size_t batch_cap;
	bool quickack;	   /* replies of a batch outstanding: acknowledge at once */
	size_t next_index; /* stream order, for ties */
	bool new_streams;
	uint64_t generation;
};

/* Big-endian integers of the protocol; the monotonic clock. */

static inline void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static inline int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- trace-live.c: the connection ---- */

/* Send n bytes (requests), or say the connection was lost (-errno). */
int live_send(struct jank_reader *in, struct live_reader *lr, const uint8_t *p, size_t n);
/* Receive exactly n bytes, or say the connection was lost (-errno). */
int live_recv_all(struct jank_reader *in, struct live_reader *lr, void *buf, size_t n);
/* Receive n bytes of a packet or metadata, in as few calls as it can. */
int live_recv_bulk(struct jank_reader *in, struct live_reader *lr, void *buf, size_t n);
/* Send a command and its payload (at most 32 bytes). */
int live_request(struct jank_reader *in, struct live_reader *lr, uint32_t cmd,
		 const uint8_t *payload, size_t n);
/* Say relayd's reply was malformed (fmt has one %llu, or none): -EPROTO. */
int live_malformed(struct jank_reader *in, const char *fmt, unsigned long long v);

/* ---- trace-live-meta.c ---- */

/* Fetch what relayd has of a trace's metadata, parse and compile what it adds. */
int live_meta_fetch(struct jank_reader *in, struct live_reader *lr, struct ltrace *lt);

/* ---- trace-live-packets.c ---- */

/* Restore the heap of streams below position i. */
void live_heap_sift_down(struct live_reader *lr, size_t i);
/* The stream's packet is read: its buffer is free for the next one. */
void live_packet_done(struct lstream *ls);
/*
 * Ask relayd for the next index of each stream of ask[0..n) and for the
 * packets they announce (ask is reordered); *retry: one said "retry".
 */
int live_streams_pull(struct jank_reader *in, struct live_reader *lr, struct lstream **ask,
		      size_t n, bool *retry);

#endif
