/* SPDX-License-Identifier: MIT */
/*
 * What jankd's supervisor and its worker processes say to each other over
 * their socketpair (see worker.h and fleet.h).
 *
 * A message is a frame: its length, 4 bytes in network order, then that many
 * bytes of JSON text, one object whose "type" says what it is.
 *
 * Worker to supervisor (any message is a heartbeat; one comes every second):
 *   status    {input: the per-input object of `jankctl status`}, when it
 *             changed and at least every 5 s; without "input", a heartbeat
 *   verdict   {verdict: the verdict as `jankctl analyze --format json` prints
 *             it}: a jank or an overdue action, to alert and maybe capture
 *   log       {priority, message}: one of the worker's log lines
 *   sessions  {ok, sessions: [[host, session]...] or error}: a discovery
 *             worker's list of relayd's live sessions
 *   flows     {flows: [[flow, key, to, tid, ts]...], dropped}: its flows'
 *             sends and the receptions it could not pair (worker-hosts.h);
 *             a TCP segment of the kernel's is ["", "", recv, tid, ts, tcp]
 *             (tcp: [family, saddr, sport, daddr, dport, seq, ack_seq,
 *             flags, len], the addresses in hex)
 *   path      {id, answered, verdict?}: the answer to a path request
 *   fetch     {build_id: HEX}: a binary no local file names, for the
 *             supervisor's debuginfod fetcher (fetcher.h)
 *   names     {names: [[frame, name]...]}: frames of its recent verdicts
 *             that said binary+0xOFFSET, named now that their binary's
 *             symbols came (a debuginfod download): for the supervisor to
 *             rewrite what it keeps of those verdicts
 * Supervisor to worker:
 *   start     {mode: "input" or "discover", url, config (the text of the
 *             configuration file), config_name, margin_ns, interval_ns}
 *   reload    {config, config_name}: new rules and [graph] limits
 *   path      {id, tid, begin, end}: this host's path of a thread (the
 *             other side of a flow that crossed hosts)
 *   crosshost {on}: whether to send "flows" (the inputs are of two hosts or
 *             more); also "crosshost" in start
 *   retry     attach now, whatever the back-off says (the session was
 *             created again)
 *   stop      finish: a last status, then exit
 */
#ifndef JANK_WORKER_PROTO_H
#define JANK_WORKER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/buffer.h>
#include <json-c/json.h>
#include "actions.h"
#include "input-figures.h"
#include "netmatch.h"
#include "verdict-json.h"

/*
 * The longest frame either side sends, and reads: a worker is not trusted,
 * and the supervisor parses its frames on its main loop. A verdict whose
 * path makes it longer goes without its path (worker.c).
 */
#define JANK_PROTO_MAX_FRAME	  (4u << 20)
#define JANK_PROTO_MAX_FRAME_TEXT "4 MiB"
#define JANK_PROTO_HEAD		  4u /* the length before each frame */

/* A new message {"type": type}; NULL on allocation failure. */
struct json_object *jank_worker_proto_new(const char *type);
/* The type of a message, "" when it has none. */
const char *jank_worker_proto_type(struct json_object *msg);

/* Append `msg` to `out` as one frame. Returns 0, -EMSGSIZE (too long: nothing added) or -ENOMEM. */
int jank_worker_proto_put(struct evbuffer *out, struct json_object *msg);
/*
 * Take the next whole frame from `in`: 1 and a new object in *msg (put it),
 * 0 when the frame is not all there yet, -EMSGSIZE for a frame longer than
 * JANK_PROTO_MAX_FRAME (known from its length, before it is read), -EPROTO
 * for one that is not exactly one JSON object. After an error, `in` is not
 * to be read further.
 */
int jank_worker_proto_take(struct evbuffer *in, struct json_object **msg);

/*
 * The reader of one connection's frames: its JSON parser and a buffer for
 * a frame that spans the input's chunks, made once and kept, rather than
 * allocated and freed for every frame (a few KB of the heap each time: the
 * supervisor reads its workers' frames all along). Zeroed is ready.
 */
struct jank_worker_proto_reader {
	struct json_tokener *tok;
	char *buf;
	size_t cap;
};

/* As jank_worker_proto_take(), the same checks, with `rd`'s parser and buffer. */
int jank_worker_proto_read(struct jank_worker_proto_reader *rd, struct evbuffer *in,
			   struct json_object **msg);
/* Free what `rd` holds; it is zeroed, ready again. */
void jank_worker_proto_reader_fini(struct jank_worker_proto_reader *rd);

/*
 * The figures of a "status" message's "input" object `o` into `out`
 * (initialized; what it held is replaced). Every field of input-figures.h's
 * table must be there (but the optional ones), of its type and in its range:
 * the worker is not trusted. Returns 0, or -EINVAL (what is wrong in err:
 * "input.rules[0].histogram.buckets[0]: not an array", json-read.h) or
 * -ENOMEM; `out` is then empty.
 */
int jank_worker_proto_figures_decode(struct json_object *o, struct jank_input_figures *out,
				     char *err, size_t len);

/*
 * A "sessions" message of the discovery worker: ok, and then every
 * [host, session] relayd lists (at most JANK_PROTO_MAX_SESSIONS, each name
 * text without '/' or control characters, that fits), or the error it
 * gave. The names are the message's own (valid while it is).
 */
#define JANK_PROTO_MAX_SESSIONS	      4096
#define JANK_PROTO_HOST_LEN	      256 /* a host name, with its NUL */
#define JANK_PROTO_SESSIONS_ERROR_LEN 512

struct jank_worker_proto_sessions {
	bool ok;
	char error[JANK_PROTO_SESSIONS_ERROR_LEN]; /* !ok: the worker's error, made one line */
	size_t n;
	struct {
		const char *host, *session;
	} * v;
};

/* Returns 0, or -EINVAL (what is wrong in err) or -ENOMEM; fini either way. */
int jank_worker_proto_sessions_decode(struct json_object *msg,
				      struct jank_worker_proto_sessions *out, char *err,
				      size_t len);
void jank_worker_proto_sessions_fini(struct jank_worker_proto_sessions *s);

#define JANK_PROTO_LOG_LEN 2048 /* a worker's log line, at most (longer: cut) */

/*
 * A "log" message's line and priority, as the supervisor logs them: a
 * worker is not trusted to make a line look like jankd's own. The priority
 * is between LOG_ERR and LOG_DEBUG (higher ones are LOG_ERR); the line is
 * one line, its control characters made '?', cut to JANK_PROTO_LOG_LEN - 1
 * bytes (not inside a UTF-8 character). Returns 0, or -EINVAL when the
 * message has no "message" string (without NUL) or a "priority" that is not
 * an integer of syslog's (0 to 7).
 */
int jank_worker_proto_log_decode(struct json_object *msg, int *priority, char *line, size_t len);

/*
 * Rebuild the verdict of a "verdict" message's object `o`
 * (jank_verdict_from_json(), which checks every field), bound to the one of
 * `rules` of the same name; when there is none (the rule was removed
 * meanwhile), to a stub of that name, which captures nothing, and
 * rule_index UINT32_MAX. Its breakdown is computed again from the path, as
 * the engine does. Returns 0, or -EINVAL (err says which field and why) or
 * -ENOMEM. Free with jank_verdict_decoded_fini() either way.
 */
int jank_worker_proto_verdict_decode(struct json_object *o, const struct jank_rule *rules,
				     size_t nrules, struct jank_verdict_decoded *out, char *err,
				     size_t errlen);

/*
 * A "flows" message of an input's worker (worker-hosts.h): its flows' `from`
 * events and the `to`s its engine did not pair, [flow, key, to, tid, ts]
 * each, at most JANK_PROTO_MAX_FLOWS, and how many it dropped past that.
 * The strings are the message's own (valid while it is).
 */
#define JANK_PROTO_MAX_FLOWS 4096

struct jank_worker_proto_flow {
	const char *flow, *key;
	bool to;
	int32_t tid;
	int64_t ts;
	bool is_tcp; /* a TCP segment (a send, or a reception that woke tid: `to`) */
	struct jank_tcp_seg tcp;
};

/* A TCP segment as a "flows" entry's sixth element. NULL: out of memory. */
struct json_object *jank_worker_proto_tcp_json(const struct jank_tcp_seg *s);

struct jank_worker_proto_flows {
	uint64_t dropped;
	size_t n;
	struct jank_worker_proto_flow *v;
};

/* Returns 0, or -EINVAL (what is wrong in err) or -ENOMEM; fini either way. */
int jank_worker_proto_flows_decode(struct json_object *msg, struct jank_worker_proto_flows *out,
				   char *err, size_t len);
void jank_worker_proto_flows_fini(struct jank_worker_proto_flows *f);

/*
 * A "path" message, the answer to the supervisor's request {id, tid, begin,
 * end}: its id, whether the worker answered with a path, and that path, in a
 * verdict of no action (jank_verdict_from_json checks it). Returns 0,
 * -EINVAL (err) or -ENOMEM; jank_verdict_decoded_fini() either way.
 */
int jank_worker_proto_path_decode(struct json_object *msg, int64_t *id, bool *answered,
				  struct jank_verdict_decoded *out, char *err, size_t len);

/*
 * A "names" message: at most JANK_PROTO_MAX_NAMES pairs [frame, name], each
 * frame as the symbolizer prints an unnamed one, "BINARY+0xHEX" (BINARY not
 * empty, without spaces, "/" or control bytes; HEX lowercase, 1 to 16
 * digits), each name a non-empty string without control bytes, both
 * shorter than JANK_FRAME_NAME_LEN bytes, and a name not itself of the
 * frame form. The strings are the message's own (valid while it is).
 * Returns 0, or -EINVAL (err says which and why; n is 0 then).
 */
#define JANK_PROTO_MAX_NAMES 256

struct jank_worker_proto_name {
	const char *frame, *name;
};

struct jank_worker_proto_names {
	size_t n;
	struct jank_worker_proto_name v[JANK_PROTO_MAX_NAMES];
};

int jank_worker_proto_names_decode(struct json_object *msg, struct jank_worker_proto_names *out,
				   char *err, size_t len);
/* Whether TEXT is an unnamed frame as the symbolizer prints it ("BINARY+0xHEX"). */
bool jank_worker_proto_is_offset_frame(const char *text);

#endif
