/* SPDX-License-Identifier: MIT */
/*
 * A worker's side of the paths that cross hosts (lib/hostjoin.h): its
 * flows' `from` events and the `to`s its engine could not pair, and the
 * kernel's TCP segments (sent, or received waking a thread: netmatch.h), go
 * to the supervisor in "flows" messages, at most JANK_WHOSTS_BATCH per tick (more
 * are dropped, counted in the next message); the supervisor's "path"
 * requests are answered with this host's path of a thread, once the
 * stream has passed the request's end (at most JANK_WHOSTS_PENDING waiting;
 * a request past that bound, or waiting past JANK_WHOSTS_WAIT_NS, is
 * answered without a path). No graph leaves the worker: only flow events,
 * segments' headers and paths.
 */
#ifndef JANK_WORKER_HOSTS_H
#define JANK_WORKER_HOSTS_H

#include <json-c/json.h>
#include "live-input.h"

#define JANK_WHOSTS_BATCH   4096
#define JANK_WHOSTS_PENDING 64
#define JANK_WHOSTS_WAIT_NS 30000000000LL

struct jank_whosts;
typedef void (*jank_whosts_send_fn)(struct json_object *msg, void *data);

/* For the input's engine (its flow and net callbacks are set). NULL: out of memory. */
struct jank_whosts *jank_whosts_new(struct jank_live_input *in, jank_whosts_send_fn send,
				    void *data);
void jank_whosts_free(struct jank_whosts *wh);
/* Whether the flows go to the supervisor (its inputs are of two hosts or more); off at first. */
void jank_whosts_set_on(struct jank_whosts *wh, bool on);
/* The flow events noted since the last "flows" message go out now (before a verdict). */
void jank_whosts_flush(struct jank_whosts *wh);
/* Every tick: the flows, and the requests the stream has passed (or waited too long). */
void jank_whosts_tick(struct jank_whosts *wh);
/* A "path" request {id, tid, begin, end} of the supervisor. */
void jank_whosts_request(struct jank_whosts *wh, struct json_object *msg);

#endif
