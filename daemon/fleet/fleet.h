/* SPDX-License-Identifier: MIT */
/*
 * jankd's inputs, each run by a worker process (worker.h, worker-proc.h),
 * and the discovery of a relayd's sessions ([live] discover).
 *
 * An input is one live session: a URL of [live] url, the session jankd
 * created, or a (host, session) that the discovery worker found on relayd
 * and that [live] hosts and sessions match. The discovery worker lists
 * relayd's sessions every [live] discover-interval: a new one gets its input
 * and worker at once; one missing from two lists in a row is let go (its
 * worker stops, the input is forgotten).
 *
 * What the supervisor keeps of an input: the last status its worker sent
 * (the heartbeat), for `jankctl status` and the final summary, and the
 * verdicts it alerted, so that nothing alerts twice (alerted.h): a worker
 * restarted, or reconnected, may read again the last packets it had read.
 */
#ifndef JANK_FLEET_H
#define JANK_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>
#include <json-c/json.h>
#include "config-file.h"
#include "engine.h"
#include "input-figures.h"
#include "worker-proc.h"

struct jank_fleet;
struct jank_fleet_input;

/* A verdict of `in` to alert (never a duplicate). */
typedef void (*jank_fleet_verdict_fn)(const struct jank_fleet_input *in,
				      const struct jank_verdict *r, void *data);
/* Something that READY=1 waits for happened: an input attached, relayd's first list came. */
typedef void (*jank_fleet_change_fn)(void *data);

struct jank_fleet *jank_fleet_new(struct event_base *base, jank_fleet_verdict_fn verdict,
				  jank_fleet_change_fn change, void *data);
/* Kills the workers still running: jank_fleet_stop() first for a clean stop. */
void jank_fleet_free(struct jank_fleet *f);

/*
 * The configuration: its text goes to the workers, which read their rules
 * and [graph] limits from it; `c` gives the rules verdicts are rebuilt with,
 * [live] (which must live as long as the fleet) and the worker timeout. At a
 * reload, the running workers get the new text. Returns 0 or -ENOMEM.
 */
int jank_fleet_set_config(struct jank_fleet *f, const struct jank_config *c,
			  const struct jank_config_sources *src);
/*
 * A worker's "fetch" {build_id: HEX} (a binary it cannot name, see
 * fetcher.h) goes to FN, the build-id checked (lowercase hex, 8 to 64
 * bytes; else the worker is refused). NULL (the default): ignored.
 */
typedef void (*jank_fleet_fetch_fn)(const uint8_t *build_id, size_t len, void *data);
void jank_fleet_set_fetch(struct jank_fleet *f, jank_fleet_fetch_fn fn, void *data);
/*
 * A worker's "names" {names: [[frame, name]...]} (frames of its recent
 * verdicts that said binary+0xOFFSET, named since: worker-proto.h) goes
 * to FN, one call per pair, decoded and checked (else the worker is
 * refused). NULL (the default): ignored.
 */
typedef void (*jank_fleet_names_fn)(const struct jank_fleet_input *in, const char *frame,
				    const char *name, void *data);
void jank_fleet_set_names(struct jank_fleet *f, jank_fleet_names_fn fn, void *data);
/* Watch the live session at `url`. Returns 0 or -ENOMEM. */
int jank_fleet_add_url(struct jank_fleet *f, const char *url);
/*
 * The input of `url`, if any, tries to attach now (its session was just
 * created again): its worker's back-off does not hold it back.
 */
void jank_fleet_retry(struct jank_fleet *f, const char *url);
/* Start the workers: the inputs added, and the discovery of [live] discover. */
int jank_fleet_start(struct jank_fleet *f);
/*
 * Stop: each worker is asked to stop (its last status and verdicts come
 * in), and the loop runs until they all have, or `timeout_ns` passed (the
 * others are killed).
 */
void jank_fleet_stop(struct jank_fleet *f, int64_t timeout_ns);

/* Every input attached once, and, with discovery, relayd listed once; `waiting`: inputs not. */
bool jank_fleet_ready(const struct jank_fleet *f, size_t *waiting);
bool jank_fleet_discovering(const struct jank_fleet *f);

size_t jank_fleet_count(const struct jank_fleet *f);
const struct jank_fleet_input *jank_fleet_get(const struct jank_fleet *f, size_t i);

const char *jank_fleet_input_url(const struct jank_fleet_input *in);
const char *jank_fleet_input_host(const struct jank_fleet_input *in);
const char *jank_fleet_input_session(const struct jank_fleet_input *in);
bool jank_fleet_input_attached(const struct jank_fleet_input *in);
/*
 * Its state: the one its worker said last ("connected"...), or, while it
 * has no worker or the new one said nothing yet, "restarting" (or
 * "connecting" at first), and "let go" once discovery let it go.
 */
const char *jank_fleet_input_state(const struct jank_fleet_input *in);
/* The figures its worker sent last, or the placeholder (borrowed, never NULL). */
const struct jank_input_figures *jank_fleet_input_status(const struct jank_fleet_input *in);
/*
 * What its worker restarts skipped (skipped.h): the ns of the action
 * [begin, end] that fall in a skipped range (0: none, the path is whole as
 * far as restarts go), and the skipped ns in all.
 */
int64_t jank_fleet_input_skipped(const struct jank_fleet_input *in, int64_t begin, int64_t end);
int64_t jank_fleet_input_skipped_total(const struct jank_fleet_input *in);
/* An input as `jankctl status`, the metrics and the final summary show it. */
struct jank_fleet_figures {
	/*
	 * Its worker's last figures plus the counters of its workers that ended
	 * (input-figures.h); the state is jank_fleet_input_state()'s, the stall
	 * the supervisor's.
	 */
	struct jank_input_figures fig;
	const char *host, *session; /* borrowed from the input */
	bool discovered;
	uint64_t duplicates_dropped;
	/* What its worker restarts skipped (skipped.h). */
	int64_t skipped_ns;
	uint64_t skipped_ranges;
	uint64_t actions_lost;
	struct jank_worker_proc_stats worker;
	/* The session jankd owns ([live] create): what its keeper says (live-keeper.h). */
	bool kept;
	uint64_t session_recreated;
	uint64_t session_probes_unconfirmed; /* the keeper's answers not taken at their word */
	uint64_t session_recreate_refused;   /* creations again that found it still there */
};

/*
 * Blind: the input sees no event (not connected, and not let go). Why, as
 * the operator reads it, and since when (wall clock ns, 0: not known): its
 * worker's last failure while the worker fails (it cannot start, it keeps
 * dying), else the live session's problem and last error; "" when nothing
 * went wrong yet (connecting).
 */
struct jank_fleet_blind {
	bool blind;
	char reason[JANK_PROC_ERROR_LEN + JANK_FIGURES_ERROR_LEN];
	int64_t since;
};

void jank_fleet_figures_blind(const struct jank_fleet_figures *x, struct jank_fleet_blind *out);

/* Fill `out`; free with jank_fleet_figures_fini() either way. Returns 0 or -ENOMEM. */
int jank_fleet_input_figures(const struct jank_fleet_input *in, struct jank_fleet_figures *out);
void jank_fleet_figures_fini(struct jank_fleet_figures *x);
/*
 * Its JSON form (a new object, NULL on allocation failure): the figures,
 * then host, session, discovered, duplicates_dropped, skipped_seconds,
 * skipped_ns, skipped_ranges, actions_lost, the worker (with its
 * last_error and failing_since while it fails), and blind (with
 * blind_reason and blind_since while it is: jank_fleet_figures_blind()).
 */
struct json_object *jank_fleet_figures_json(const struct jank_fleet_figures *x);
/* jank_fleet_input_figures() as JSON. */
struct json_object *jank_fleet_input_json(const struct jank_fleet_input *in);

/* Over all the inputs' workers. */
struct jank_fleet_stats {
	uint64_t workers; /* running now */
	uint64_t restarts, crashes, timeouts, bad_frames;
	uint64_t duplicates_dropped;
};

void jank_fleet_get_stats(const struct jank_fleet *f, struct jank_fleet_stats *out);

/*
 * The discovery of [live] discover, as `jankctl status` shows it: the JSON
 * ("fleet"'s "discovery", jank_fleet_json()) and the text render this. Its
 * strings point into the fleet (valid until it changes: read and render on
 * the loop).
 */
struct jank_fleet_discovery {
	const char *relayd;
	char *const *hosts; /* the patterns of [live] hosts and sessions; none: any */
	size_t nhosts;
	char *const *sessions;
	size_t nsessions;
	int64_t interval_ns;
	bool listed; /* relayd listed once */
	uint64_t polls, errors, sessions_listed, max_inputs, sessions_refused;
	bool at_limit;
	const char *last_error; /* "" when the last poll did not fail */
	struct jank_worker_proc_stats worker;
};

/* The discovery's status: false when there is no discovery. */
bool jank_fleet_get_discovery(const struct jank_fleet *f, struct jank_fleet_discovery *out);
/* The workers and the discovery, for `jankctl status` ("fleet"). */
struct json_object *jank_fleet_json(const struct jank_fleet *f);

/* The join of paths across hosts (crossing.h): its clocks and figures. */
struct jank_crossing;
const struct jank_crossing *jank_fleet_crossing(const struct jank_fleet *f);

#endif
