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
 * Supervisor to worker:
 *   start     {mode: "input" or "discover", url, config (the text of the
 *             configuration file), config_name, margin_ns, interval_ns}
 *   reload    {config, config_name}: new rules and [graph] limits
 *   retry     attach now, whatever the back-off says (the session was
 *             created again)
 *   stop      finish: a last status, then exit
 */
#ifndef JANK_WORKER_PROTO_H
#define JANK_WORKER_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <event2/buffer.h>
#include <json-c/json.h>
#include "actions.h"
#include "input-figures.h"
#include "verdict-json.h"

#define JANK_PROTO_MAX_FRAME (64u << 20) /* a verdict with a very long path fits */

/* A new message {"type": type}; NULL on allocation failure. */
struct json_object *jank_proto_new(const char *type);
/* The type of a message, "" when it has none. */
const char *jank_proto_type(struct json_object *msg);

/* Append `msg` to `out` as one frame. Returns 0 or -ENOMEM. */
int jank_proto_put(struct evbuffer *out, struct json_object *msg);
/*
 * Take the next whole frame from `in`: 1 and a new object in *msg (put it),
 * 0 when the frame is not all there yet, -EPROTO for a frame too big or not
 * a JSON object.
 */
int jank_proto_take(struct evbuffer *in, struct json_object **msg);

/*
 * The figures of a "status" message's "input" object `o` into `out`
 * (initialized; what it held is replaced). Every field of input-figures.h's
 * table must be there (but the optional ones), of its type and in its range:
 * the worker is not trusted. Returns 0, or -EINVAL (what is wrong in err) or
 * -ENOMEM; `out` is then empty.
 */
int jank_proto_figures_decode(struct json_object *o, struct jank_input_figures *out, char *err,
			      size_t len);

/*
 * Rebuild the verdict of a "verdict" message's object `o`
 * (jank_verdict_from_json(), which checks every field), bound to the one of
 * `rules` of the same name; when there is none (the rule was removed
 * meanwhile), to a stub of that name, which captures nothing, and
 * rule_index UINT32_MAX. Its breakdown is computed again from the path, as
 * the engine does. Returns 0, or -EINVAL (err says which field and why) or
 * -ENOMEM. Free with jank_verdict_decoded_fini() either way.
 */
int jank_proto_verdict_decode(struct json_object *o, const struct jank_rule *rules, size_t nrules,
			      struct jank_verdict_decoded *out, char *err, size_t errlen);

#endif
