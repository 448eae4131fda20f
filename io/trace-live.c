/* SPDX-License-Identifier: MIT */
/*
 * jank's own lttng-live client: a live session read from lttng-relayd
 * without babeltrace2, its packets decoded by the native CTF decoder
 * (trace-native.c, ctf-plan.c) into the same jank_event the engine gets
 * offline.
 *
 * The viewer protocol (lttng-tools' doc/live-reading-protocol.txt and
 * lttng-viewer-abi.h; relayd 2.13 speaks 2.13, we ask for 2.4 as
 * babeltrace2 does): a 16-byte header (u64 payload size, u32 command, u32
 * version) before each request, every integer big-endian, fixed-size
 * packed replies. CONNECT (version, client type "command") and
 * CREATE_SESSION, then LIST_SESSIONS to find HOSTNAME/SESSION of the URL,
 * ATTACH_SESSION (seek "last", as babeltrace2) to each session of that
 * name, with the streams it has: one metadata stream per trace (its
 * ctf_trace_id), the data streams of each trace. Then, per data stream,
 * GET_NEXT_INDEX and GET_PACKET (those of all the streams a run asks
 * written at once, the replies read in order: trace-live-packets.c), and
 * GET_METADATA until "no new metadata"
 * whenever relayd's flags say there is new metadata (and before the first
 * packet of a trace); GET_NEW_STREAMS when the flags say there are new
 * streams, or while the session has none. An index of status "inactive" is
 * a beacon: the stream has nothing before its time. "hup" and "eof" end a
 * stream; a session whose streams all ended and that relayd no longer
 * serves (destroyed) is looked for again, as babeltrace2 does with
 * session-not-found-action "continue": the caller sees "try again". A
 * rotation or a clear in relayd 2.13 changes nothing here: relayd moves
 * its viewer streams to the new chunk itself, the offsets of its indexes
 * are within the file it reads.
 *
 * The streams are merged in time order, as babeltrace2's lttng-live
 * muxer does: an event is handed over only when every other stream is
 * known to have nothing earlier (its head event is later, or it said so
 * by the end of its last packet or a beacon). A stream that answers
 * "retry" holds the others back: the run says "try again", and the
 * caller's back-off decides when to ask again, as with babeltrace2.
 *
 * Metadata that grows (event classes registered by applications that
 * start later, or new stream classes) is parsed again whole; the classes
 * and stream classes it adds are declared and compiled, the old ones keep
 * their plans (the metadata they were compiled from stays until the end).
 *
 * What the native decoder does not take (CTF 2, a layout the plan
 * compiler refuses, metadata that does not parse within META_GRACE_NS of
 * relayd saying it has no more) ends the run with ERROR and
 * jank_reader_refused(): the caller reads the session through babeltrace2.
 *
 * Everything relayd sends is checked before use: statuses, counts (never
 * more than what the reply can hold, read one entry at a time), lengths
 * (a packet is what was asked, metadata within CTF_META_MAX_BYTES), and
 * the packets go through the native decoder's bounds-checked plans. I/O
 * is blocking, with IO_TIMEOUT_S on every read and write: a relayd that
 * stops halfway blocks the worker, which its supervisor sees, as with
 * babeltrace2.
 */
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "errbuf.h"
#include "trace-live-int.h"
#include "trace-native-int.h"

/* ---- The connection ---- */

static int lost_conn(struct jank_reader *in, const char *what, int err)
{
	if (err)
		jank_errf(in->err, sizeof(in->err), "%s: cannot read the trace: relayd: %s: %s",
			  in->name, what, strerror(err));
	else
		jank_errf(in->err, sizeof(in->err),
			  "%s: cannot read the trace: relayd closed the connection", in->name);
	return -EPIPE;
}

int live_send(struct jank_reader *in, struct live_reader *lr, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(lr->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return lost_conn(in, "cannot send", w < 0 ? errno : 0);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * relayd writes the replies of requests written at once one after the
 * other, with Nagle's algorithm on: a small reply waits until what it sent
 * before is acknowledged, and our side, which answers quickly, delays its
 * acknowledgements (40 ms at least). So, while replies of a batch are
 * outstanding (lr->quickack), a read that stops short acknowledges what
 * came at once (TCP_QUICKACK, with the receive queue drained) before
 * waiting for the rest. One request at a time needs none (an acknowledgement
 * costs about what a request does).
 */
int live_recv_all(struct jank_reader *in, struct live_reader *lr, void *buf, size_t n)
{
	uint8_t *p = buf;
	int one = 1;

	while (n) {
		ssize_t r = recv(lr->fd, p, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return lost_conn(in, "cannot receive",
					 r < 0 ? (errno == EAGAIN ? ETIMEDOUT : errno) : 0);
		p += r;
		n -= (size_t)r;
		if (n && lr->quickack)
			setsockopt(lr->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	}
	return 0;
}

/* A command and its payload (at most 20 bytes). */
int live_request(struct jank_reader *in, struct live_reader *lr, uint32_t cmd,
		 const uint8_t *payload, size_t n)
{
	uint8_t b[16 + 32];

	put64(b, n);
	put32(b + 8, cmd);
	put32(b + 12, 0);
	if (n)
		memcpy(b + 16, payload, n);
	return live_send(in, lr, b, 16 + n);
}

int live_malformed(struct jank_reader *in, const char *fmt, unsigned long long v)
{
	char what[128];

	snprintf(what, sizeof(what), fmt, v);
	jank_errf(in->err, sizeof(in->err),
		  "%s: cannot read the trace: relayd sent a malformed reply: %s", in->name, what);
	return -EPROTO;
}

static void disconnect(struct live_reader *lr)
{
	if (lr->fd >= 0)
		close(lr->fd);
	lr->fd = -1;
	lr->attached = false;
}

static int open_socket(struct jank_reader *in, struct live_reader *lr)
{
	struct addrinfo hints = { .ai_family = lr->family, .ai_socktype = SOCK_STREAM }, *res, *a;
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
	int r, one = 1, err = 0;

	r = getaddrinfo(lr->host, lr->port, &hints, &res);
	if (r) {
		jank_errf(in->err, sizeof(in->err), "%s: %s: %s", in->name, lr->host,
			  gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);

		if (fd < 0) {
			err = errno;
			continue;
		}
		/*
		 * The options after connect(): in jankd's worker, the socket is
		 * the one the supervisor connected (daemon/relayd-broker.h).
		 */
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			lr->fd = fd;
			break;
		}
		err = errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (lr->fd < 0) {
		jank_errf(in->err, sizeof(in->err), "%s: cannot connect to relayd: %s", in->name,
			  strerror(err ? err : ECONNREFUSED));
		return -ECONNREFUSED;
	}
	return 0;
}

/* Connect, agree on the version, and create the viewer session. */
static int viewer_connect(struct jank_reader *in, struct live_reader *lr)
{
	uint8_t p[20], rep[20];
	int r = open_socket(in, lr);

	if (r < 0)
		return r;
	put64(p, 0);
	put32(p + 8, VIEWER_MAJOR);
	put32(p + 12, VIEWER_MINOR);
	put32(p + 16, CLIENT_COMMAND);
	if ((r = live_request(in, lr, CMD_CONNECT, p, 20)) < 0 ||
	    (r = live_recv_all(in, lr, rep, sizeof(rep))) < 0)
		return r;
	if (get32(rep + 8) != VIEWER_MAJOR) {
		jank_errf(in->err, sizeof(in->err),
			  "%s: relayd speaks version %u of the live protocol (2 expected)",
			  in->name, get32(rep + 8));
		return -EPROTO;
	}
	if ((r = live_request(in, lr, CMD_CREATE_SESSION, NULL, 0)) < 0 ||
	    (r = live_recv_all(in, lr, rep, 4)) < 0)
		return r;
	if (get32(rep) != 1) {
		jank_errf(in->err, sizeof(in->err), "%s: relayd refuses a viewer session",
			  in->name);
		return -EPROTO;
	}
	return 0;
}

/* ---- Traces and streams ---- */

static struct ltrace *trace_get(struct jank_reader *in, struct live_reader *lr, uint64_t id,
				const char *path)
{
	struct ltrace *lt, **v;

	for (size_t i = 0; i < lr->ntraces; i++)
		if (lr->traces[i]->id == id)
			return lr->traces[i];
	if (lr->ntraces >= MAX_TRACES) {
		live_malformed(in, "more than %llu traces", MAX_TRACES);
		return NULL;
	}
	v = realloc(lr->traces, (lr->ntraces + 1) * sizeof(*v));
	lt = calloc(1, sizeof(*lt));
	if (v)
		lr->traces = v;
	if (!v || !lt) {
		free(lt);
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return NULL;
	}
	lt->id = id;
	snprintf(lt->name, sizeof(lt->name), "%s (live trace %llu)", path, (unsigned long long)id);
	lr->traces[lr->ntraces++] = lt;
	return lt;
}

static int stream_add(struct jank_reader *in, struct live_reader *lr, uint64_t id,
		      struct ltrace *lt, const char *channel)
{
	struct lstream *ls, **v;
	char name[PATH_LEN + NAME_LEN + 64];

	for (size_t i = 0; i < lr->nstreams; i++)
		if (lr->streams[i]->id == id)
			return 0; /* already known */
	if (lr->nstreams >= MAX_STREAMS)
		return live_malformed(in, "more than %llu streams", MAX_STREAMS);
	v = realloc(lr->streams, (lr->nstreams + 1) * sizeof(*v));
	if (v)
		lr->streams = v;
	ls = calloc(1, sizeof(*ls));
	if (v && (v = realloc(lr->heap, (lr->nstreams + 1) * sizeof(*v))))
		lr->heap = v;
	if (v && (v = realloc(lr->ask, (lr->nstreams + 1) * sizeof(*v))))
		lr->ask = v;
	if (!v || !ls) {
		free(ls);
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "%s: stream %llu (%s)", lt->name, (unsigned long long)id,
		 channel);
	ls->ns.path = strdup(name);
	if (!ls->ns.path) {
		free(ls);
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	ls->id = id;
	ls->lt = lt;
	ls->horizon = INT64_MIN;
	ls->pkt_end = INT64_MIN;
	ls->ns.tr = &lt->tr;
	ls->ns.index = lr->next_index++;
	ls->ns.cpu = ls->ns.prev_cpu = -1;
	ls->ns.prev_disc = ls->ns.prev_seq = ls->ns.prev_end = NO_SNAPSHOT;
	ls->ns.last_ts = INT64_MIN;
	ls->ns.kind = ITEM_END;
	lr->streams[lr->nstreams++] = ls;
	return 0;
}

/* `count` stream entries of a reply (ATTACH_SESSION, GET_NEW_STREAMS), one at a time. */
static int read_streams(struct jank_reader *in, struct live_reader *lr, uint32_t count)
{
	uint8_t *e = malloc(STREAM_LEN);
	int r = 0;

	if (!e) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	if (count > MAX_STREAMS)
		r = live_malformed(in, "a list of %llu streams", count);
	for (uint32_t i = 0; r == 0 && i < count; i++) {
		char path[PATH_LEN + 1], channel[NAME_LEN + 1];
		uint64_t id, trace;
		struct ltrace *lt;

		r = live_recv_all(in, lr, e, STREAM_LEN);
		if (r < 0)
			break;
		id = get64(e);
		trace = get64(e + 8);
		memcpy(path, e + 20, PATH_LEN);
		path[PATH_LEN] = '\0';
		memcpy(channel, e + 20 + PATH_LEN, NAME_LEN);
		channel[NAME_LEN] = '\0';
		lt = trace_get(in, lr, trace, path);
		if (!lt) {
			r = -EPROTO;
			break;
		}
		if (get32(e + 16)) {
			if (!lt->has_meta_stream) {
				lt->meta_stream = id;
				lt->has_meta_stream = true;
				lt->need_meta = true;
			}
			continue;
		}
		r = stream_add(in, lr, id, lt, channel);
	}
	free(e);
	return r;
}

/* Find HOSTNAME/SESSION, attach to each session of that name: 1, 0: none listed. */
static int attach(struct jank_reader *in, struct live_reader *lr)
{
	uint8_t rep[SESSION_LEN], p[20];
	uint32_t count;
	int r;

	if ((r = live_request(in, lr, CMD_LIST_SESSIONS, NULL, 0)) < 0 ||
	    (r = live_recv_all(in, lr, rep, 4)) < 0)
		return r;
	count = get32(rep);
	if (count > MAX_SESSIONS)
		return live_malformed(in, "a list of %llu sessions", count);
	free(lr->sessions);
	free(lr->session_gone);
	lr->sessions = NULL;
	lr->session_gone = NULL;
	lr->nsessions = 0;
	for (uint32_t i = 0; i < count; i++) {
		char host[HOST_LEN + 1], name[NAME_LEN + 1];
		uint64_t *v;

		if ((r = live_recv_all(in, lr, rep, SESSION_LEN)) < 0)
			return r;
		memcpy(host, rep + 20, HOST_LEN);
		host[HOST_LEN] = '\0';
		memcpy(name, rep + 20 + HOST_LEN, NAME_LEN);
		name[NAME_LEN] = '\0';
		if (strcmp(host, lr->hostname) || strcmp(name, lr->session))
			continue;
		v = realloc(lr->sessions, (lr->nsessions + 1) * sizeof(*v));
		if (!v) {
			jank_errf(in->err, sizeof(in->err), "out of memory");
			return -ENOMEM;
		}
		lr->sessions = v;
		v[lr->nsessions++] = get64(rep);
	}
	lr->session_gone = calloc(lr->nsessions + 1, sizeof(*lr->session_gone));
	if (!lr->session_gone) {
		jank_errf(in->err, sizeof(in->err), "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < lr->nsessions; i++) {
		uint32_t status;

		put64(p, lr->sessions[i]);
		put64(p + 8, 0);
		put32(p + 16, SEEK_LAST);
		if ((r = live_request(in, lr, CMD_ATTACH_SESSION, p, 20)) < 0 ||
		    (r = live_recv_all(in, lr, rep, 8)) < 0)
			return r;
		status = get32(rep);
		if (status == ATTACH_UNK) {
			lr->session_gone[i] = true; /* destroyed since the list */
			continue;
		}
		if (status == ATTACH_ALREADY) {
			jank_errf(in->err, sizeof(in->err),
				  "%s: cannot read the trace: another viewer is attached to the "
				  "session (relayd takes one)",
				  in->name);
			return -EBUSY;
		}
		if (status != ATTACH_OK) {
			jank_errf(in->err, sizeof(in->err),
				  "%s: cannot read the trace: relayd refuses to attach to the "
				  "session (status %u)",
				  in->name, status);
			return -EPROTO;
		}
		r = read_streams(in, lr, get32(rep + 4));
		if (r < 0)
			return r;
		lr->attached = true;
	}
	return lr->attached ? 1 : 0;
}

static int new_streams(struct jank_reader *in, struct live_reader *lr)
{
	uint8_t p[8], rep[8];
	int r;

	lr->new_streams = false;
	for (size_t i = 0; i < lr->nsessions; i++) {
		uint32_t status;

		if (lr->session_gone[i])
			continue;
		put64(p, lr->sessions[i]);
		if ((r = live_request(in, lr, CMD_GET_NEW_STREAMS, p, 8)) < 0 ||
		    (r = live_recv_all(in, lr, rep, 8)) < 0)
			return r;
		status = get32(rep);
		if (status == NEW_STREAMS_HUP) {
			lr->session_gone[i] = true;
			continue;
		}
		if (status == NEW_STREAMS_ERR) {
			jank_errf(in->err, sizeof(in->err),
				  "%s: cannot read the trace: relayd: cannot list new streams",
				  in->name);
			return -EPROTO;
		}
		if (status != NEW_STREAMS_OK && status != NEW_STREAMS_NO_NEW)
			return live_malformed(in, "new streams of status %llu", status);
		r = read_streams(in, lr, get32(rep + 4));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- The run ---- */

/* Forget the attachment (the session ended): look for it again on the next run. */
static void session_ended(struct live_reader *lr)
{
	disconnect(lr);
	for (size_t i = 0; i < lr->nstreams; i++)
		lr->streams[i]->gone = true;
	lr->nheap = 0;
}

static bool all_ended(const struct live_reader *lr)
{
	for (size_t i = 0; i < lr->nsessions; i++)
		if (!lr->session_gone[i])
			return false;
	return true;
}

/* Hand over what every stream agrees on; the number of events handed. */
static int deliver(struct jank_reader *in, struct live_reader *lr, int *n)
{
	int64_t limit = INT64_MAX, frontier;

	for (size_t i = 0; i < lr->nstreams; i++) {
		const struct lstream *ls = lr->streams[i];

		if (!ls->gone && !ls->in_heap && ls->horizon < limit)
			limit = ls->horizon;
	}
	while (lr->nheap && *n < DELIVER_MAX) {
		struct lstream *ls = lr->heap[0];
		int r;

		if (ls->ns.ts > limit)
			break;
		if ((r = native_deliver_next(in, &ls->ns)) < 0)
			return r;
		(*n)++;
		if (ls->ns.kind == ITEM_END) {
			ls->in_heap = false;
			lr->heap[0] = lr->heap[--lr->nheap];
			live_packet_done(ls);
			if (ls->horizon < limit)
				limit = ls->horizon;
		}
		live_heap_sift_down(lr, 0);
	}
	frontier = limit;
	if (lr->nheap && lr->heap[0]->ns.ts - 1 < frontier)
		frontier = lr->heap[0]->ns.ts - 1;
	if (frontier != INT64_MAX && frontier > in->advanced_ts && lr->nstreams)
		in->advanced_ts = frontier;
	return 0;
}

static void forget_classes(struct live_reader *lr)
{
	for (size_t t = 0; t < lr->ntraces; t++) {
		struct ntrace *tr = &lr->traces[t]->tr;

		for (size_t k = 0; k < tr->nscs; k++)
			for (size_t i = 0; i < tr->scs[k].nclasses; i++)
				native_class_free(&tr->scs[k].classes[i]);
	}
}

static int run(struct jank_reader *in, struct live_reader *lr, int *n)
{
	bool retry = false;
	size_t live = 0, nask = 0;
	int r;

	if (lr->fd < 0 && (r = viewer_connect(in, lr)) < 0)
		return r;
	if (!lr->attached) {
		r = attach(in, lr);
		if (r <= 0)
			return r;
	}
	for (size_t i = 0; i < lr->nstreams; i++)
		live += !lr->streams[i]->gone;
	if ((lr->new_streams || !live) && (r = new_streams(in, lr)) < 0)
		return r;
	for (size_t t = 0; t < lr->ntraces; t++) {
		struct ltrace *lt = lr->traces[t];

		/* Until its metadata is read, a trace's streams are not asked: ask relayd. */
		if ((lt->need_meta || !lt->loaded || lt->bad_since) && lt->has_meta_stream &&
		    (r = live_meta_fetch(in, lr, lt)) < 0)
			return r;
	}
	for (size_t i = 0; i < lr->nstreams; i++) {
		struct lstream *ls = lr->streams[i];

		if (ls->gone || ls->in_heap || !ls->lt->loaded)
			continue;
		/*
		 * A stream that holds nothing back (what it sends next comes after
		 * its horizon, and the heap's head is before that) is asked once the
		 * head passes its horizon: an idle stream (a CPU that traces little)
		 * is then not a round trip to relayd at every run.
		 */
		if (lr->nheap && !ls->pending && ls->horizon >= lr->heap[0]->ns.ts)
			continue;
		lr->ask[nask++] = ls;
	}
	if (nask && (r = live_streams_pull(in, lr, lr->ask, nask, &retry)) < 0)
		return r;
	r = deliver(in, lr, n);
	if (r < 0)
		return r;
	live = 0;
	for (size_t i = 0; i < lr->nstreams; i++)
		live += !lr->streams[i]->gone;
	if (!live && lr->nstreams && all_ended(lr))
		session_ended(lr);
	return 0;
}

enum jank_reader_status live_run_once(struct jank_reader *in)
{
	struct live_reader *lr = in->live;
	int n = 0, r;

	if (lr->generation != jank_engine_generation(in->engine)) {
		forget_classes(lr);
		lr->generation = jank_engine_generation(in->engine);
	}
	r = run(in, lr, &n);
	if (r < 0) {
		in->failed = true;
		disconnect(lr);
		return JANK_READER_STATUS_ERROR;
	}
	return n ? JANK_READER_STATUS_OK : JANK_READER_STATUS_AGAIN;
}

void live_free(struct live_reader *lr)
{
	if (!lr)
		return;
	disconnect(lr);
	for (size_t i = 0; i < lr->nstreams; i++) {
		free(lr->streams[i]->ns.path);
		free(lr->streams[i]->ns.scratch);
		free(lr->streams[i]->buf);
		free(lr->streams[i]);
	}
	for (size_t t = 0; t < lr->ntraces; t++) {
		struct ltrace *lt = lr->traces[t];

		native_trace_fini(&lt->tr);
		for (size_t i = 0; i < lt->nold; i++)
			ctf_meta_free(lt->old[i]);
		free(lt->old);
		free(lt->raw);
		free(lt);
	}
	free(lr->streams);
	free(lr->heap);
	free(lr->ask);
	free(lr->batch);
	free(lr->traces);
	free(lr->sessions);
	free(lr->session_gone);
	free(lr);
}

/* net[4|6]://HOST[:PORT]/host/HOSTNAME/SESSION */
static int parse_url(struct live_reader *lr, const char *url)
{
	const char *p = url, *end, *h, *s;
	size_t n;

	lr->family = AF_UNSPEC;
	if (!strncmp(p, "net://", 6)) {
		p += 6;
	} else if (!strncmp(p, "net4://", 7)) {
		p += 7;
		lr->family = AF_INET;
	} else if (!strncmp(p, "net6://", 7)) {
		p += 7;
		lr->family = AF_INET6;
	} else {
		return -EINVAL;
	}
	end = strchr(p, '/');
	if (!end || strncmp(end, "/host/", 6))
		return -EINVAL;
	h = end + 6;
	s = strchr(h, '/');
	if (!s || (size_t)(s - h) > HOST_LEN || !s[1] || strlen(s + 1) > NAME_LEN ||
	    strchr(s + 1, '/'))
		return -EINVAL;
	snprintf(lr->hostname, sizeof(lr->hostname), "%.*s", (int)(s - h), h);
	snprintf(lr->session, sizeof(lr->session), "%s", s + 1);
	snprintf(lr->port, sizeof(lr->port), DEFAULT_PORT);
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (!close || (size_t)(close - p - 1) >= sizeof(lr->host))
			return -EINVAL;
		snprintf(lr->host, sizeof(lr->host), "%.*s", (int)(close - p - 1), p + 1);
		p = close + 1;
	} else {
		const char *colon = memchr(p, ':', (size_t)(end - p));
		const char *hend = colon ? colon : end;

		if ((size_t)(hend - p) >= sizeof(lr->host) || hend == p)
			return -EINVAL;
		snprintf(lr->host, sizeof(lr->host), "%.*s", (int)(hend - p), p);
		p = hend;
	}
	if (*p == ':') {
		n = (size_t)(end - p - 1);
		if (n == 0 || n >= sizeof(lr->port) || strspn(p + 1, "0123456789") < n)
			return -EINVAL;
		snprintf(lr->port, sizeof(lr->port), "%.*s", (int)n, p + 1);
	} else if (p != end) {
		return -EINVAL;
	}
	return 0;
}

int live_open(struct jank_reader *in, const char *url, char *err, size_t errlen)
{
	struct live_reader *lr = calloc(1, sizeof(*lr));

	if (!lr) {
		jank_errf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	lr->fd = -1;
	if (parse_url(lr, url) < 0) {
		jank_errf(err, errlen,
			  "%s: not a live URL (net://HOST[:PORT]/host/HOSTNAME/SESSION)", url);
		free(lr);
		return -EINVAL;
	}
	lr->generation = jank_engine_generation(in->engine);
	in->live = lr;
	return 0;
}
