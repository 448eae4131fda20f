/* SPDX-License-Identifier: MIT */
/*
 * The live session jankd owns ([live] create = yes), kept alive: created at
 * start, created again whenever lttng-sessiond or lttng-relayd lost it, and
 * destroyed at exit.
 *
 * A keeper thread does the lttng-ctl work, off the event loop. It asks
 * lttng-sessiond every second whether the session exists, and learns from
 * the session's input (its worker asks relayd) whether relayd lists it:
 *
 *   sessiond does not answer      "sessiond unreachable": wait for it
 *   sessiond has no such session  it restarted: create the session again
 *   relayd does not list it, but  relayd restarted: the session streams
 *   sessiond still has it         nowhere (lttng-sessiond still lists it as
 *                                 active; only its destruction fails,
 *                                 "Rotation failure on consumer"): destroy
 *                                 it and create it again
 *   relayd does not answer        "relayd unreachable": wait for it (a
 *                                 creation would fail)
 *
 * None of these is concluded from one answer (daemon/lttng/sessiond-probe.h):
 * "no such session" must come three times in a row, and lttng-sessiond is
 * taken for gone only after three failed calls in a row while its socket
 * does not answer a connection; in between, the keeper asks again after
 * 250 ms. A daemon that answers but whose calls keep failing is "sessiond
 * failing": nothing is made again. A creation again never replaces a
 * session that is there after all (keep_existing): that would lose its
 * events; it is counted instead (session_recreate_refused).
 *
 * While a daemon stays away, the attempts back off: 1 s, doubling up to
 * 30 s. Each outage is logged once, and its end once. After a creation, the
 * loop tells the input to attach at once (the retry callback).
 */
#ifndef JANK_LIVE_KEEPER_H
#define JANK_LIVE_KEEPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>
#include <json-c/json.h>
#include "config-file.h"
#include "fleet.h"
#include "live-input.h"

struct jank_live_keeper;

/* On the loop thread, after the session was created again: `url` is its input's. */
typedef void (*jank_live_keeper_retry_fn)(const char *url, void *data);

/*
 * The keeper of the session that [live] of `c` describes, with the events
 * of its rules. NULL on allocation failure.
 */
struct jank_live_keeper *jank_live_keeper_new(struct event_base *base, const struct jank_config *c,
					      jank_live_keeper_retry_fn retry, void *data);
/*
 * Create the session now (jankd is starting: synchronously), and start the
 * keeper thread. Returns 0, or -errno with a message in `err` (nothing is
 * left behind).
 */
int jank_live_keeper_start(struct jank_live_keeper *k, char *err, size_t len);
/* The live URL of the session (valid once started). */
const char *jank_live_keeper_url(const struct jank_live_keeper *k);
bool jank_live_keeper_kernel(const struct jank_live_keeper *k);

/*
 * What the session's input says now (loop thread): its problem, and since
 * when (wall clock, ns).
 */
void jank_live_keeper_input(struct jank_live_keeper *k, enum jank_live_input_problem p,
			    int64_t since);

/*
 * What the keeper knows now, for `jankctl status`, into the input's
 * figures: when lttng-sessiond is away, or the session cannot be created,
 * that is the input's problem (and since when, and its last error); and
 * how often the session was created again.
 */
void jank_live_keeper_status(struct jank_live_keeper *k, struct jank_fleet_figures *x);

/* Stop the thread: the session is no longer created again (jankd is stopping). */
void jank_live_keeper_halt(struct jank_live_keeper *k);
/*
 * Stop the thread, then destroy the session, and say what happened
 * (destroyed, already gone, or could not). Safe to call twice.
 */
void jank_live_keeper_stop(struct jank_live_keeper *k);
/* Stops first when needed. */
void jank_live_keeper_free(struct jank_live_keeper *k);

#endif
