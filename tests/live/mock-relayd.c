/* SPDX-License-Identifier: MIT */
/*
 * mock-relayd: a stand-in for lttng-relayd's live port, for tests. It
 * speaks the LTTng live viewer protocol (lttng-tools 2.13, the one
 * babeltrace2's src.ctf.lttng-live talks: CONNECT, CREATE_SESSION,
 * LIST_SESSIONS, ATTACH_SESSION, GET_NEW_STREAMS, GET_METADATA,
 * GET_NEXT_INDEX, GET_PACKET, DETACH_SESSION; every integer big-endian)
 * and serves one live session made of CTF trace directories (one, or
 * several: a kernel trace and a user-space one, as a session of both
 * domains has): each one's metadata file, and each other file as a data
 * stream of that trace. The index of each stream
 * comes from DIR/index/NAME.idx when there is one (relayd's CTF_INDEX
 * format: the files lttng writes), else from the packets themselves: the
 * packet header and context layout is read from the metadata (the plain
 * integer fields sink.ctf.fs writes, as jank-gen's traces have).
 *
 * The whole trace is there from the start, as if the tracer had just
 * flushed it; a viewer that attaches gets each stream from the packet after
 * the last one a viewer read to its end (relayd's "seek last": a viewer
 * that reconnects does not read the same packets again). Once a stream has no packet left, a
 * request for its next index gets an inactivity beacon (--idle beacon, the
 * default: status INACTIVE, timestamp the trace's end plus
 * --beacon-offset, plus the time since the first attach with
 * --beacon-advance yes, as a live timer's beacons do) or "retry" (--idle
 * retry).
 *
 * Faults, on demand: once --after-packets N packet replies were served (over
 * all connections) and --after-ms MS passed since the first attach, at the
 * next request of a viewer (or right after that packet reply), once:
 *   close    every viewer connection is closed; later ones are served
 *   stall    the next reply on that connection stops halfway; the
 *            connection stays open, silent (--for MS: then closed)
 *   vanish   the session is destroyed: no longer listed, its streams hang
 *            up (--for MS: it comes back, under a new id)
 *   quiet    no further packet (index "retry") (--for MS: then resumes)
 *   malformed
 *            from then on, replies of the kind --malformed says are wrong:
 *            metadata-len (metadata OK, length 0), packet-len (packet OK,
 *            length 0), index-size (a packet twice its size, past the end
 *            of its file), index-status (an unknown status),
 *            sessions-count (a list of 1000 sessions, one sent, then
 *            the connection closed)
 * Other options: --session NAME and --hostname HOST (what LIST_SESSIONS
 * says; defaults "mock" and the trace's env hostname), --live-timer US,
 * --metadata-chunk BYTES (the metadata in replies of at most BYTES),
 * --metadata-hold TEXT (each metadata is served only up to the event
 * declaration that names TEXT until --late-after N packets were served: the
 * classes of applications that register later, "new metadata" then),
 * --no-streams MS (the session has no stream for MS ms after the first
 * attach), --late NAME (stream NAME appears once --late-after N packets
 * were served; repeatable), --port-file FILE (where the port goes: the
 * mock listens on an ephemeral port of 127.0.0.1).
 *
 * It logs what it does on stderr, a line each: "conn N: ...", "fault: ...".
 * Runs until SIGTERM or SIGINT; exit 0, or 1 with a message.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The protocol: commands, statuses, sizes (lttng-viewer-abi.h). */
enum {
	CMD_CONNECT = 1,
	CMD_LIST_SESSIONS = 2,
	CMD_ATTACH_SESSION = 3,
	CMD_GET_NEXT_INDEX = 4,
	CMD_GET_PACKET = 5,
	CMD_GET_METADATA = 6,
	CMD_GET_NEW_STREAMS = 7,
	CMD_CREATE_SESSION = 8,
	CMD_DETACH_SESSION = 9,
};
enum {
	FLAG_NEW_METADATA = 1,
	FLAG_NEW_STREAM = 2
};
enum {
	ATTACH_OK = 1,
	ATTACH_UNK = 3,
	ATTACH_SEEK_ERR = 5,
	ATTACH_NO_SESSION = 6
};
enum {
	INDEX_OK = 1,
	INDEX_RETRY = 2,
	INDEX_HUP = 3,
	INDEX_ERR = 4,
	INDEX_INACTIVE = 5
};
enum {
	PACKET_OK = 1,
	PACKET_ERR = 3
};
enum {
	METADATA_OK = 1,
	METADATA_NO_NEW = 2,
	METADATA_ERR = 3
};
enum {
	NEW_STREAMS_OK = 1,
	NEW_STREAMS_NO_NEW = 2,
	NEW_STREAMS_ERR = 3,
	NEW_STREAMS_HUP = 4
};
enum {
	DETACH_OK = 1,
	DETACH_UNK = 2
};
#define HDR_LEN	      16 /* u64 data_size, u32 cmd, u32 cmd_version */
#define HOST_MAX      64
#define NAME_MAX_     255
#define PATH_MAX_     4096
#define SESSION_LEN   (8 + 4 + 4 + 4 + HOST_MAX + NAME_MAX_)
#define STREAM_LEN    (8 + 8 + 4 + PATH_MAX_ + NAME_MAX_)
#define INDEX_LEN     (7 * 8 + 2 * 4)
#define METADATA_ID   1000 /* the viewer stream id of the metadata (+ the trace's index) */
#define MAX_TRACES    4
#define MAX_STREAMS   64
#define MAX_CONNS     32
#define MAX_PACKET    (64u << 20)
#define CTF_IDX_MAGIC 0xC1F1DCC1u

struct packet {
	uint64_t offset, packet_size, content_size; /* bytes, bits, bits */
	uint64_t ts_begin, ts_end, discarded, class_id;
};

struct stream {
	size_t trace; /* its trace's index (M.traces) */
	char name[256];
	char path[PATH_MAX];
	struct packet *packets;
	size_t npackets;
	size_t served; /* packets some viewer read whole: where the next viewer starts */
	bool late;
};

enum fault {
	F_NONE,
	F_CLOSE,
	F_STALL,
	F_VANISH,
	F_QUIET,
	F_MALFORMED
};

struct conn {
	int fd;
	int id;
	bool viewer;   /* CREATE_SESSION done */
	bool attached; /* to the session (of id session_id) */
	bool stall_next;
	bool stalled;
	int64_t stalled_until; /* ms, 0: forever */
	uint64_t metadata_sent[MAX_TRACES];
	bool announced[MAX_STREAMS];
	bool metadata_announced[MAX_TRACES];
	unsigned metadata_replies; /* with data, since the last "no new metadata" */
	size_t next[MAX_STREAMS];  /* the next packet of each stream */
};

struct trace {
	const char *dir;
	char *metadata;
	size_t metadata_len;
	size_t held_len; /* served while held (--metadata-hold) */
};

static struct {
	const char *dir; /* the first trace's, for messages */
	struct trace traces[MAX_TRACES];
	size_t ntraces;
	char session[NAME_MAX_];
	char hostname[HOST_MAX];
	uint32_t live_timer;
	size_t metadata_chunk;
	struct stream streams[MAX_STREAMS];
	size_t nstreams;
	uint64_t trace_end;
	int64_t beacon_offset;
	bool idle_retry;
	bool beacon_advance;
	/* Faults. */
	uint64_t after_packets;
	int64_t after_ms;
	enum fault then;
	const char *malformed;
	int64_t for_ms;
	bool fired;
	bool malformed_on;
	bool quiet;
	int64_t quiet_until;
	bool gone;
	int64_t gone_until;
	uint64_t session_id;
	int64_t no_streams_ms;
	int64_t first_attach; /* ms, 0: none yet */
	uint64_t late_after;
	const char *metadata_hold;
	/* Counters. */
	uint64_t packets_served;
	int next_conn_id;
	struct conn conns[MAX_CONNS];
	size_t nconns;
} M = { .session = "mock", .live_timer = 100000, .session_id = 1 };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mock-relayd: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mock-relayd: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* ---- The index of a stream ---- */

/* An integer field of the packet header or context, as the metadata declares it. */
struct field {
	char name[64];
	unsigned size, align, count; /* bits, bits, array length (1: scalar) */
};

struct layout {
	struct field f[32];
	size_t n;
	bool big_endian;
};

/* The integer fields of the struct after "KEY := struct {" in the metadata. */
static int parse_struct(const char *meta, const char *key, struct layout *l)
{
	const char *p = strstr(meta, key), *end;

	if (!p || !(p = strchr(p, '{')))
		return -1;
	end = strstr(p, "} align(");
	if (!end)
		end = strstr(p, "};");
	for (p = strchr(p, '\n'); p && ++p < end;) {
		const char *line_end = strchr(p, '\n');
		struct field *f;
		const char *s, *a, *close;

		if (!line_end || line_end > end)
			break;
		s = strstr(p, "size = ");
		close = strchr(p, '}');
		if (strncmp(p + strspn(p, " \t"), "integer {", 9) || !s || s > line_end || !close ||
		    close > line_end || l->n == sizeof(l->f) / sizeof(l->f[0]))
			return -1;
		f = &l->f[l->n++];
		f->size = (unsigned)atoi(s + 7);
		a = strstr(p, "align = ");
		f->align = a && a < close ? (unsigned)atoi(a + 8) : 1;
		f->count = 1;
		if (sscanf(close + 1, " %63[A-Za-z0-9_]", f->name) != 1)
			return -1;
		s = strchr(close, '[');
		if (s && s < line_end)
			f->count = (unsigned)atoi(s + 1);
		if (!f->size || f->size > 64 || !f->align)
			return -1;
		p = line_end;
	}
	return l->n ? 0 : -1;
}

static uint64_t get_uint(const unsigned char *b, unsigned size, bool big)
{
	uint64_t v = 0;
	unsigned n = size / 8;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)b[big ? n - 1 - i : i] << (big ? 8 * i : 8 * i);
	return v;
}

/* Read one packet's header and context at off; -1 when they do not fit or make no sense. */
static int read_packet(const unsigned char *data, size_t len, size_t off, const struct layout *l,
		       struct packet *pk)
{
	uint64_t bit = 0;
	bool have_size = false;

	memset(pk, 0, sizeof(*pk));
	pk->offset = off;
	for (size_t i = 0; i < l->n; i++) {
		const struct field *f = &l->f[i];

		bit = (bit + f->align - 1) / f->align * f->align;
		for (unsigned k = 0; k < f->count; k++) {
			uint64_t v;

			if (bit % 8 || f->size % 8 || off + (bit + f->size) / 8 > len)
				return -1;
			v = get_uint(data + off + bit / 8, f->size, l->big_endian);
			bit += f->size;
			if (f->count != 1)
				continue;
			if (!strcmp(f->name, "stream_id"))
				pk->class_id = v;
			else if (!strcmp(f->name, "packet_size"))
				pk->packet_size = v, have_size = true;
			else if (!strcmp(f->name, "content_size"))
				pk->content_size = v;
			else if (!strcmp(f->name, "timestamp_begin"))
				pk->ts_begin = v;
			else if (!strcmp(f->name, "timestamp_end"))
				pk->ts_end = v;
			else if (!strcmp(f->name, "events_discarded"))
				pk->discarded = v;
		}
	}
	if (!have_size || !pk->packet_size || pk->packet_size % 8 ||
	    off + pk->packet_size / 8 > len || pk->content_size > pk->packet_size)
		return -1;
	return 0;
}

/* The trace's byte order (its trace block's, not a field's: lttng's network headers are be). */
static bool trace_big_endian(const char *meta)
{
	const char *t = strstr(meta, "trace {"), *be = strstr(meta, "byte_order = be;");
	const char *end = t ? strstr(t, "};") : NULL;

	if (!t || !end)
		return be != NULL;
	be = strstr(t, "byte_order = be;");
	return be && be < end;
}

static void index_from_packets(struct stream *s, const struct layout *l)
{
	size_t len, off = 0, cap = 0;
	unsigned char *data = (unsigned char *)read_file(s->path, &len);

	if (!data)
		die("%s: %s", s->path, strerror(errno));
	while (off < len) {
		struct packet pk;

		if (read_packet(data, len, off, l, &pk) < 0)
			die("%s: no packet of the metadata's layout at offset %zu", s->path, off);
		if (s->npackets == cap) {
			cap = cap ? 2 * cap : 16;
			s->packets = realloc(s->packets, cap * sizeof(*s->packets));
			if (!s->packets)
				die("out of memory");
		}
		s->packets[s->npackets++] = pk;
		off += pk.packet_size / 8;
	}
	free(data);
}

/* relayd's own index file (CTF_INDEX 1.x: big-endian u64 fields after a header). */
static bool index_from_file(struct stream *s)
{
	char path[PATH_MAX + 64];
	size_t len, entry;
	unsigned char *d;

	snprintf(path, sizeof(path), "%s/index/%s.idx", M.traces[s->trace].dir, s->name);
	d = (unsigned char *)read_file(path, &len);
	if (!d)
		return false;
	if (len < 16 || get_uint(d, 32, true) != CTF_IDX_MAGIC ||
	    (entry = (size_t)get_uint(d + 12, 32, true)) < 56)
		die("%s: not a CTF index file", path);
	for (size_t off = 16; off + entry <= len; off += entry) {
		struct packet pk = {
			.offset = get_uint(d + off, 64, true),
			.packet_size = get_uint(d + off + 8, 64, true),
			.content_size = get_uint(d + off + 16, 64, true),
			.ts_begin = get_uint(d + off + 24, 64, true),
			.ts_end = get_uint(d + off + 32, 64, true),
			.discarded = get_uint(d + off + 40, 64, true),
			.class_id = get_uint(d + off + 48, 64, true),
		};

		s->packets = realloc(s->packets, (s->npackets + 1) * sizeof(*s->packets));
		if (!s->packets)
			die("out of memory");
		s->packets[s->npackets++] = pk;
	}
	free(d);
	return true;
}

static int by_name(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;

	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Trace t's metadata and streams (their packets later, in load_traces()). */
static void load_one(size_t t, struct layout *l, bool *have_layout)
{
	struct trace *tr = &M.traces[t];
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	const char *h;

	snprintf(path, sizeof(path), "%s/metadata", tr->dir);
	tr->metadata = read_file(path, &tr->metadata_len);
	if (!tr->metadata || !tr->metadata_len)
		die("%s: cannot read the metadata", path);
	l->big_endian = trace_big_endian(tr->metadata);
	*have_layout = parse_struct(tr->metadata, "packet.header :=", l) == 0 &&
		       parse_struct(tr->metadata, "packet.context :=", l) == 0;
	tr->held_len = tr->metadata_len;
	if (M.metadata_hold && (h = strstr(tr->metadata, M.metadata_hold))) {
		while (h > tr->metadata && strncmp(h, "\nevent {", 8))
			h--;
		tr->held_len = (size_t)(h - tr->metadata) + 1;
	}
	if (!M.hostname[0] && (h = strstr(tr->metadata, "hostname = \"")))
		sscanf(h + 12, "%63[^\"]", M.hostname);
	if (!(d = opendir(tr->dir)))
		die("%s: %s", tr->dir, strerror(errno));
	while ((e = readdir(d))) {
		struct stream *s;
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", tr->dir, e->d_name);
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata") || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (M.nstreams == MAX_STREAMS)
			die("%s: more than %d streams", tr->dir, MAX_STREAMS);
		s = &M.streams[M.nstreams++];
		s->trace = t;
		snprintf(s->name, sizeof(s->name), "%s", e->d_name);
		snprintf(s->path, sizeof(s->path), "%s", path);
	}
	closedir(d);
}

static void load_traces(void)
{
	struct layout l[MAX_TRACES] = { { .n = 0 } };
	bool have_layout[MAX_TRACES];

	for (size_t t = 0; t < M.ntraces; t++)
		load_one(t, &l[t], &have_layout[t]);
	if (!M.hostname[0])
		snprintf(M.hostname, sizeof(M.hostname), "mock-host");
	qsort(M.streams, M.nstreams, sizeof(M.streams[0]), by_name);
	for (size_t i = 0; i < M.nstreams; i++) {
		struct stream *s = &M.streams[i];

		if (!index_from_file(s)) {
			if (!have_layout[s->trace])
				die("%s: no index/%s.idx, and the metadata's packet layout is "
				    "not one of plain integers",
				    M.traces[s->trace].dir, s->name);
			index_from_packets(s, &l[s->trace]);
		}
		for (size_t k = 0; k < s->npackets; k++)
			if (s->packets[k].ts_end > M.trace_end)
				M.trace_end = s->packets[k].ts_end;
		say("stream %zu: %s, %zu packets", i + 1, s->name, s->npackets);
	}
}

/* ---- Replies ---- */

struct buf {
	unsigned char *d;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->d = realloc(b->d, b->cap);
		if (!b->d)
			die("out of memory");
	}
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
	v = htobe32(v);
	put(b, &v, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	v = htobe64(v);
	put(b, &v, 8);
}

/* A string in a fixed-size field, NUL-padded. */
static void put_str(struct buf *b, const char *s, size_t field)
{
	char tmp[PATH_MAX_] = { 0 };

	snprintf(tmp, field, "%s", s);
	put(b, tmp, field);
}

static bool send_all(int fd, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool recv_all(int fd, void *p, size_t n)
{
	unsigned char *c = p;

	while (n) {
		ssize_t r = recv(fd, c, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}

static void close_conn(struct conn *c, const char *why)
{
	say("conn %d: closed (%s)", c->id, why);
	close(c->fd);
	c->fd = -1;
}

/* Send a reply, or, when a stall is due, half of it; false: the connection is done. */
static bool reply(struct conn *c, struct buf *b)
{
	bool ok;

	if (c->stall_next) {
		c->stall_next = false;
		c->stalled = true;
		c->stalled_until = M.for_ms ? now_ms() + M.for_ms : 0;
		say("fault: stall: conn %d gets %zu of the %zu bytes of its reply, then nothing",
		    c->id, b->len / 2, b->len);
		ok = send_all(c->fd, b->d, b->len / 2);
	} else {
		ok = send_all(c->fd, b->d, b->len);
	}
	free(b->d);
	return ok;
}

/* How much of trace t's metadata is served now (--metadata-hold). */
static size_t metadata_visible(size_t t)
{
	if (M.metadata_hold && M.packets_served < M.late_after)
		return M.traces[t].held_len;
	return M.traces[t].metadata_len;
}

static bool session_listed(void)
{
	return !M.gone;
}

static bool streams_visible(void)
{
	return !M.no_streams_ms || (M.first_attach && now_ms() - M.first_attach >= M.no_streams_ms);
}

static bool stream_visible(size_t i)
{
	return streams_visible() && (!M.streams[i].late || M.packets_served >= M.late_after);
}

static void put_stream(struct buf *b, uint64_t id, size_t trace, bool metadata, const char *channel)
{
	char path[PATH_MAX_];

	if (trace == 0)
		snprintf(path, sizeof(path), "%s/%s/ust/uid/0/64-bit", M.hostname, M.session);
	else
		snprintf(path, sizeof(path), "%s/%s/trace-%zu", M.hostname, M.session, trace);
	put64(b, id);
	put64(b, trace + 1); /* ctf_trace_id */
	put32(b, metadata);
	put_str(b, path, PATH_MAX_);
	put_str(b, channel, NAME_MAX_);
}

/* The streams c was not told of yet (all of them with all): their count, and them in b. */
static uint32_t put_new_streams(struct conn *c, struct buf *b, bool all)
{
	uint32_t n = 0;

	if (!streams_visible())
		return 0;
	for (size_t t = 0; t < M.ntraces; t++) {
		if (!all && c->metadata_announced[t])
			continue;
		put_stream(b, METADATA_ID + t, t, true, "metadata");
		c->metadata_announced[t] = true;
		n++;
	}
	for (size_t i = 0; i < M.nstreams; i++) {
		if (!stream_visible(i) || (c->announced[i] && !all))
			continue;
		put_stream(b, i + 1, M.streams[i].trace, false, M.streams[i].name);
		c->announced[i] = true;
		n++;
	}
	return n;
}

static bool pending_streams(const struct conn *c)
{
	for (size_t i = 0; i < M.nstreams; i++)
		if (stream_visible(i) && !c->announced[i])
			return true;
	return false;
}

static void fire(struct conn *c)
{
	if (M.fired || M.then == F_NONE || M.packets_served < M.after_packets ||
	    (M.after_ms && (!M.first_attach || now_ms() - M.first_attach < M.after_ms)))
		return;
	M.fired = true;
	switch (M.then) {
	case F_NONE:
		break;
	case F_CLOSE:
		say("fault: close: every viewer connection closed after %" PRIu64 " packets",
		    M.packets_served);
		for (size_t i = 0; i < M.nconns; i++)
			if (M.conns[i].fd >= 0 && M.conns[i].viewer)
				close_conn(&M.conns[i], "fault");
		break;
	case F_STALL:
		c->stall_next = true;
		break;
	case F_VANISH:
		say("fault: vanish: the session is destroyed after %" PRIu64 " packets",
		    M.packets_served);
		M.gone = true;
		M.gone_until = M.for_ms ? now_ms() + M.for_ms : 0;
		break;
	case F_QUIET:
		say("fault: quiet: no packet after %" PRIu64 " packets", M.packets_served);
		M.quiet = true;
		M.quiet_until = M.for_ms ? now_ms() + M.for_ms : 0;
		break;
	case F_MALFORMED:
		say("fault: malformed %s replies from now on", M.malformed);
		M.malformed_on = true;
		break;
	}
}

static bool malformed(const char *kind)
{
	return M.malformed_on && !strcmp(M.malformed, kind);
}

static bool do_connect(struct conn *c, const unsigned char *p)
{
	struct buf b = { 0 };

	if (be32toh(*(const uint32_t *)(p + 8)) != 2)
		return false; /* major version 2 only */
	put64(&b, (uint64_t)c->id);
	put32(&b, 2);
	put32(&b, 13);
	put32(&b, be32toh(*(const uint32_t *)(p + 16)));
	return reply(c, &b);
}

static bool do_list_sessions(struct conn *c)
{
	struct buf b = { 0 };
	bool listed = session_listed();

	put32(&b, malformed("sessions-count") ? 1000 : listed);
	if (listed) {
		uint32_t n = 0;

		for (size_t i = 0; streams_visible() && i < M.nstreams; i++)
			n += stream_visible(i);
		put64(&b, M.session_id);
		put32(&b, M.live_timer);
		put32(&b, 0);
		put32(&b, n);
		put_str(&b, M.hostname, HOST_MAX);
		put_str(&b, M.session, NAME_MAX_);
	}
	/* A list shorter than its count: then the end of the connection. */
	return reply(c, &b) && !malformed("sessions-count");
}

static bool do_create_session(struct conn *c)
{
	struct buf b = { 0 };

	c->viewer = true;
	put32(&b, 1); /* OK */
	return reply(c, &b);
}

static bool do_attach(struct conn *c, const unsigned char *p)
{
	struct buf b = { 0 }, s = { 0 };
	uint64_t id = be64toh(*(const uint64_t *)p);
	uint32_t seek = be32toh(*(const uint32_t *)(p + 16)), n;
	bool ok;

	if (!c->viewer) {
		put32(&b, ATTACH_NO_SESSION);
		put32(&b, 0);
		return reply(c, &b);
	}
	if (id != M.session_id || !session_listed()) {
		put32(&b, ATTACH_UNK);
		put32(&b, 0);
		return reply(c, &b);
	}
	if (seek != 1 && seek != 2) {
		put32(&b, ATTACH_SEEK_ERR);
		put32(&b, 0);
		return reply(c, &b);
	}
	if (!M.first_attach)
		M.first_attach = now_ms();
	c->attached = true;
	memset(c->metadata_sent, 0, sizeof(c->metadata_sent));
	memset(c->metadata_announced, 0, sizeof(c->metadata_announced));
	for (size_t i = 0; i < M.nstreams; i++) {
		c->announced[i] = false;
		c->next[i] = M.streams[i].served;
	}
	n = put_new_streams(c, &s, true);
	say("conn %d: attached to session %" PRIu64 ", %u streams", c->id, id, n);
	put32(&b, ATTACH_OK);
	put32(&b, n);
	if (s.len)
		put(&b, s.d, s.len);
	free(s.d);
	ok = reply(c, &b);
	return ok;
}

static bool do_detach(struct conn *c)
{
	struct buf b = { 0 };

	put32(&b, c->attached ? DETACH_OK : DETACH_UNK);
	c->attached = false;
	return reply(c, &b);
}

static bool do_new_streams(struct conn *c, const unsigned char *p)
{
	struct buf b = { 0 }, s = { 0 };
	uint64_t id = be64toh(*(const uint64_t *)p);
	uint32_t n;

	if (!c->attached || id != M.session_id) {
		put32(&b, c->attached && M.gone ? NEW_STREAMS_HUP : NEW_STREAMS_ERR);
		put32(&b, 0);
		return reply(c, &b);
	}
	if (M.gone) {
		put32(&b, NEW_STREAMS_HUP);
		put32(&b, 0);
		return reply(c, &b);
	}
	n = put_new_streams(c, &s, false);
	if (n)
		say("conn %d: %u new streams", c->id, n);
	put32(&b, n ? NEW_STREAMS_OK : NEW_STREAMS_NO_NEW);
	put32(&b, n);
	if (s.len)
		put(&b, s.d, s.len);
	free(s.d);
	return reply(c, &b);
}

static bool do_metadata(struct conn *c, const unsigned char *p)
{
	struct buf b = { 0 };
	uint64_t id = be64toh(*(const uint64_t *)p);
	struct trace *tr;
	size_t n, t;

	if (id < METADATA_ID || id - METADATA_ID >= M.ntraces || !c->attached) {
		put64(&b, 0);
		put32(&b, METADATA_ERR);
		return reply(c, &b);
	}
	if (malformed("metadata-len")) {
		put64(&b, 0);
		put32(&b, METADATA_OK);
		return reply(c, &b);
	}
	t = (size_t)(id - METADATA_ID);
	tr = &M.traces[t];
	n = metadata_visible(t) - c->metadata_sent[t];
	if (M.metadata_chunk && n > M.metadata_chunk)
		n = M.metadata_chunk;
	if (n) {
		c->metadata_replies++;
	} else if (c->metadata_replies) {
		say("conn %d: metadata: %" PRIu64 " bytes in %u replies", c->id,
		    c->metadata_sent[t], c->metadata_replies);
		c->metadata_replies = 0;
	}
	put64(&b, n);
	put32(&b, n ? METADATA_OK : METADATA_NO_NEW);
	put(&b, tr->metadata + c->metadata_sent[t], n);
	c->metadata_sent[t] += n;
	return reply(c, &b);
}

static void put_index(struct buf *b, const struct packet *pk, uint32_t status, uint32_t flags)
{
	put64(b, pk ? pk->offset : 0);
	put64(b, pk ? pk->packet_size : 0);
	put64(b, pk ? pk->content_size : 0);
	put64(b, pk ? pk->ts_begin : 0);
	put64(b, pk ? pk->ts_end : 0);
	put64(b, pk ? pk->discarded : 0);
	put64(b, pk ? pk->class_id : 0);
	put32(b, status);
	put32(b, flags);
}

static bool do_next_index(struct conn *c, const unsigned char *p)
{
	struct buf b = { 0 };
	uint64_t id = be64toh(*(const uint64_t *)p);
	uint32_t flags = 0;
	struct stream *s;
	size_t i;

	if (!c->attached || id < 1 || id > M.nstreams || !c->announced[id - 1]) {
		put_index(&b, NULL, INDEX_ERR, 0);
		return reply(c, &b);
	}
	i = id - 1;
	s = &M.streams[i];
	if (M.gone) {
		put_index(&b, NULL, INDEX_HUP, 0);
		return reply(c, &b);
	}
	if (c->metadata_sent[s->trace] < metadata_visible(s->trace))
		flags |= FLAG_NEW_METADATA;
	if (pending_streams(c))
		flags |= FLAG_NEW_STREAM;
	if (malformed("index-status")) {
		put_index(&b, NULL, 77, flags);
		return reply(c, &b);
	}
	if (c->next[i] < s->npackets && !M.quiet) {
		struct packet pk = s->packets[c->next[i]++];

		if (malformed("index-size"))
			pk.packet_size = pk.content_size = 2 * pk.packet_size;
		put_index(&b, &pk, INDEX_OK, flags);
	} else if (c->next[i] >= s->npackets && !M.idle_retry && s->npackets) {
		struct packet pk = { .ts_end = M.trace_end + (uint64_t)M.beacon_offset,
				     .class_id = s->packets[0].class_id };

		if (M.beacon_advance)
			pk.ts_end += (uint64_t)(now_ms() - M.first_attach) * 1000000;

		put_index(&b, &pk, INDEX_INACTIVE, flags);
	} else {
		put_index(&b, NULL, INDEX_RETRY, flags);
	}
	return reply(c, &b);
}

static bool do_get_packet(struct conn *c, const unsigned char *p)
{
	struct buf b = { 0 };
	uint64_t id = be64toh(*(const uint64_t *)p), off = be64toh(*(const uint64_t *)(p + 8));
	uint32_t len = be32toh(*(const uint32_t *)(p + 16));
	struct stream *s;
	char *data;
	size_t flen;
	bool ok;

	if (!c->attached || id < 1 || id > M.nstreams || !c->announced[id - 1] ||
	    len > MAX_PACKET) {
		put32(&b, PACKET_ERR);
		put32(&b, 0);
		put32(&b, 0);
		return reply(c, &b);
	}
	s = &M.streams[id - 1];
	data = read_file(s->path, &flen);
	if (!data || off > flen || len > flen - off) {
		/* What relayd does when the read fails: an error, no payload. */
		free(data);
		put32(&b, PACKET_ERR);
		put32(&b, 0);
		put32(&b, 0);
		return reply(c, &b);
	}
	put32(&b, PACKET_OK);
	if (malformed("packet-len")) {
		put32(&b, 0);
		put32(&b, 0);
		free(data);
		return reply(c, &b);
	}
	put32(&b, len);
	put32(&b, 0);
	put(&b, data + off, len);
	free(data);
	ok = reply(c, &b);
	/* A packet read to its end is served: the next viewer starts after it. */
	for (size_t k = s->served; ok && k < s->npackets; k++)
		if (s->packets[k].offset + s->packets[k].packet_size / 8 == off + len)
			s->served = k + 1;
	M.packets_served++;
	fire(c);
	return ok;
}

/* One request of c; false: close the connection. */
static bool serve(struct conn *c)
{
	unsigned char hdr[HDR_LEN], p[64];
	uint64_t size;
	uint32_t cmd;
	static const size_t want[] = {
		[CMD_CONNECT] = 20,	   [CMD_LIST_SESSIONS] = 0,  [CMD_ATTACH_SESSION] = 20,
		[CMD_GET_NEXT_INDEX] = 8,  [CMD_GET_PACKET] = 20,    [CMD_GET_METADATA] = 8,
		[CMD_GET_NEW_STREAMS] = 8, [CMD_CREATE_SESSION] = 0, [CMD_DETACH_SESSION] = 8,
	};

	if (!recv_all(c->fd, hdr, sizeof(hdr)))
		return false;
	size = be64toh(*(uint64_t *)hdr);
	cmd = be32toh(*(uint32_t *)(hdr + 8));
	if (cmd < CMD_CONNECT || cmd > CMD_DETACH_SESSION || size != want[cmd]) {
		say("conn %d: bad command %u (payload of %" PRIu64 " bytes)", c->id, cmd, size);
		return false;
	}
	if (size && !recv_all(c->fd, p, size))
		return false;
	if (c->viewer) {
		fire(c);
		if (c->fd < 0)
			return true; /* closed by the fault */
	}
	switch (cmd) {
	case CMD_CONNECT:
		return do_connect(c, p);
	case CMD_LIST_SESSIONS:
		return do_list_sessions(c);
	case CMD_CREATE_SESSION:
		return do_create_session(c);
	case CMD_ATTACH_SESSION:
		return do_attach(c, p);
	case CMD_DETACH_SESSION:
		return do_detach(c);
	case CMD_GET_NEW_STREAMS:
		return do_new_streams(c, p);
	case CMD_GET_METADATA:
		return do_metadata(c, p);
	case CMD_GET_NEXT_INDEX:
		return do_next_index(c, p);
	case CMD_GET_PACKET:
		return do_get_packet(c, p);
	}
	return false;
}

/* ---- The loop ---- */

static void timers(void)
{
	int64_t now = now_ms();

	if (M.gone && M.gone_until && now >= M.gone_until) {
		M.gone = false;
		M.session_id++;
		say("the session is back, id %" PRIu64, M.session_id);
	}
	if (M.quiet && M.quiet_until && now >= M.quiet_until) {
		M.quiet = false;
		say("packets again");
	}
	for (size_t i = 0; i < M.nconns; i++) {
		struct conn *c = &M.conns[i];

		if (c->fd >= 0 && c->stalled && c->stalled_until && now >= c->stalled_until)
			close_conn(c, "end of the stall");
	}
}

static void accept_one(int lfd)
{
	int fd = accept(lfd, NULL, NULL), one = 1;
	struct timeval tv = { .tv_sec = 2 };
	struct conn *c = NULL;

	if (fd < 0)
		return;
	for (size_t i = 0; i < M.nconns && !c; i++)
		if (M.conns[i].fd < 0)
			c = &M.conns[i];
	if (!c && M.nconns < MAX_CONNS)
		c = &M.conns[M.nconns++];
	if (!c) {
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* A request comes whole: a client that sends half of one is dropped. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->id = ++M.next_conn_id;
	say("conn %d: accepted", c->id);
}

static const char *const fault_names[] = {
	[F_NONE] = "none",     [F_CLOSE] = "close", [F_STALL] = "stall",
	[F_VANISH] = "vanish", [F_QUIET] = "quiet", [F_MALFORMED] = "malformed",
};

static void usage(void)
{
	fprintf(stderr, "usage: mock-relayd [--port-file FILE] [--session NAME] [--hostname HOST]\n"
			"       [--live-timer US] [--idle beacon|retry] [--beacon-offset NS]\n"
			"       [--beacon-advance yes|no]\n"
			"       [--metadata-chunk BYTES] [--metadata-hold TEXT] [--no-streams MS]\n"
			"       [--late NAME]... [--late-after "
			"N]\n"
			"       [--after-packets N] [--after-ms MS]\n"
			"       [--then close|stall|vanish|quiet|malformed [--for MS]\n"
			"        [--malformed metadata-len|packet-len|index-size|index-status|"
			"sessions-count]] TRACE_DIR...\n");
	exit(2);
}

static long long number(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (end == s || *end || v < 0)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct sigaction act = { .sa_handler = on_signal };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	const char *port_file = NULL, *late[MAX_STREAMS];
	size_t nlate = 0;
	int lfd, one = 1, i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(o, "--port-file"))
			port_file = v;
		else if (!strcmp(o, "--session"))
			snprintf(M.session, sizeof(M.session), "%s", v);
		else if (!strcmp(o, "--hostname"))
			snprintf(M.hostname, sizeof(M.hostname), "%s", v);
		else if (!strcmp(o, "--live-timer"))
			M.live_timer = (uint32_t)number(v);
		else if (!strcmp(o, "--idle") && (!strcmp(v, "beacon") || !strcmp(v, "retry")))
			M.idle_retry = !strcmp(v, "retry");
		else if (!strcmp(o, "--beacon-advance") && (!strcmp(v, "yes") || !strcmp(v, "no")))
			M.beacon_advance = !strcmp(v, "yes");
		else if (!strcmp(o, "--beacon-offset"))
			M.beacon_offset = number(v);
		else if (!strcmp(o, "--metadata-hold"))
			M.metadata_hold = v;
		else if (!strcmp(o, "--metadata-chunk"))
			M.metadata_chunk = (size_t)number(v);
		else if (!strcmp(o, "--no-streams"))
			M.no_streams_ms = number(v);
		else if (!strcmp(o, "--late") && nlate < MAX_STREAMS)
			late[nlate++] = v;
		else if (!strcmp(o, "--late-after"))
			M.late_after = (uint64_t)number(v);
		else if (!strcmp(o, "--after-packets"))
			M.after_packets = (uint64_t)number(v);
		else if (!strcmp(o, "--after-ms"))
			M.after_ms = number(v);
		else if (!strcmp(o, "--for"))
			M.for_ms = number(v);
		else if (!strcmp(o, "--malformed"))
			M.malformed = v;
		else if (!strcmp(o, "--then")) {
			M.then = F_NONE;
			for (size_t k = 1; k < sizeof(fault_names) / sizeof(fault_names[0]); k++)
				if (!strcmp(v, fault_names[k]))
					M.then = (enum fault)k;
			if (M.then == F_NONE)
				usage();
		} else
			usage();
	}
	if (i >= argc || argc - i > MAX_TRACES || (M.then == F_MALFORMED) != (M.malformed != NULL))
		usage();
	M.dir = argv[i];
	for (; i < argc; i++)
		M.traces[M.ntraces++].dir = argv[i];
	load_traces();
	for (size_t k = 0; k < nlate; k++) {
		size_t j;

		for (j = 0; j < M.nstreams && strcmp(M.streams[j].name, late[k]); j++)
			;
		if (j == M.nstreams)
			die("--late %s: no such stream in %s", late[k], M.dir);
		M.streams[j].late = true;
	}

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen))
		die("cannot listen on 127.0.0.1: %s", strerror(errno));
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	say("listening on 127.0.0.1:%u: session %s of host %s", ntohs(sa.sin_port), M.session,
	    M.hostname);
	if (port_file) {
		char tmp[PATH_MAX];
		FILE *f;

		/* Written whole, then renamed: a reader never sees half a port. */
		snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%u\n", ntohs(sa.sin_port)) < 0 || fclose(f) ||
		    rename(tmp, port_file))
			die("%s: %s", port_file, strerror(errno));
	}

	while (!stop) {
		struct pollfd pfd[MAX_CONNS + 1];
		struct conn *who[MAX_CONNS + 1];
		nfds_t n = 0;

		pfd[n].fd = lfd;
		pfd[n].events = POLLIN;
		who[n++] = NULL;
		for (size_t k = 0; k < M.nconns; k++) {
			if (M.conns[k].fd < 0 || M.conns[k].stalled)
				continue;
			pfd[n].fd = M.conns[k].fd;
			pfd[n].events = POLLIN;
			who[n++] = &M.conns[k];
		}
		if (poll(pfd, n, 50) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		timers();
		for (nfds_t k = 0; k < n && !stop; k++) {
			if (!pfd[k].revents)
				continue;
			if (!who[k])
				accept_one(lfd);
			else if (who[k]->fd >= 0 && !serve(who[k]))
				close_conn(who[k], "by the viewer, or a bad request");
		}
	}
	for (size_t k = 0; k < M.nconns; k++)
		if (M.conns[k].fd >= 0)
			close(M.conns[k].fd);
	close(lfd);
	say("stopped: %" PRIu64 " packets served", M.packets_served);
	return 0;
}
