/* SPDX-License-Identifier: MIT */
/*
 * One watched live session: its engine (graph, rules, open actions) and the
 * babeltrace2 input that feeds it, pumped from the libevent loop.
 *
 * The input is replaced when it fails (relayd gone, session destroyed); the
 * engine stays, so rules, histograms and the graph survive a reconnection.
 */
#ifndef JANK_LIVE_INPUT_H
#define JANK_LIVE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event2/event.h>
#include "config-file.h"
#include "engine.h"
#include "strtable.h"
#include "trace-reader.h"

enum jank_live_input_state {
	JANK_LIVE_INPUT_CONNECTING = 0, /* not attached yet */
	JANK_LIVE_INPUT_CONNECTED,	/* data flows (or the session is found and idle) */
	JANK_LIVE_INPUT_RECONNECTING,	/* the input failed; retrying with back-off */
};

/*
 * What keeps an input from its session now (none while connected): relayd
 * does not answer, or answers without listing the session (destroyed, its
 * relayd or its sessiond restarted), or lists it but the input failed.
 */
enum jank_live_input_problem {
	JANK_LIVE_INPUT_OK = 0,
	JANK_LIVE_INPUT_RELAYD_UNREACHABLE,
	JANK_LIVE_INPUT_SESSION_MISSING,
	JANK_LIVE_INPUT_ATTACH_FAILED,
};

struct jank_live_input;
struct jank_symbols;

/* Called once, the first time the input attaches. */
typedef void (*jank_live_input_attached_fn)(struct jank_live_input *w, void *data);

struct jank_live_input_stats {
	enum jank_live_input_state state;
	uint64_t events_read; /* event messages, over every input so far */
	uint64_t discarded;   /* discarded events and packets reported by the tracer */
	uint64_t disconnects;
	uint64_t reconnects;
	double events_per_sec; /* engine events, over the last rate period */
	int64_t trace_now;     /* the input's own time (events, beacons), INT64_MIN: unknown */
	int64_t stalled_since; /* wall-clock ns of its last advance, when stalled; else 0 */
	uint64_t stalls;       /* times it stalled */
	int64_t last_event;    /* the latest event read, INT64_MIN: none */
	enum jank_live_input_problem problem;
	int64_t problem_since; /* wall clock (ns) when this problem began, 0: none */
};

/*
 * A live input: the live session at `url`, with an engine configured by `ec`
 * and the rules and flows of `c`, whose verdicts go to `fn`. Nothing runs before
 * jank_live_input_start(). NULL on failure (message in err).
 */
struct jank_live_input *jank_live_input_new(struct event_base *base, const char *url,
					    const struct jank_engine_config *ec,
					    const struct jank_config *c, jank_verdict_fn fn,
					    void *data, char *err, size_t errlen);
void jank_live_input_free(struct jank_live_input *w);
void jank_live_input_set_attached_cb(struct jank_live_input *w, jank_live_input_attached_fn fn,
				     void *data);
/*
 * The live timer period, when known: an input is stalled only after four
 * periods (and at least 3 s) without an event or a beacon.
 */
void jank_live_input_set_clock_margin(struct jank_live_input *w, int64_t ns);

/*
 * Which decoder reads the session (JANK_DECODER_AUTO by default: the native
 * one, babeltrace2 when it refuses the metadata). Before jank_live_input_start().
 */
void jank_live_input_set_decoder(struct jank_live_input *w, enum jank_decoder d);
/* "native" or "babeltrace2": the one reading now; *note: why auto fell back ("" when not). */
const char *jank_live_input_decoder(const struct jank_live_input *w, const char **note);

/* Start pumping the input. Returns 0 or -errno. */
int jank_live_input_start(struct jank_live_input *w);
/*
 * Try to attach now, whatever the back-off says (the session was just
 * created again): nothing when connected.
 */
void jank_live_input_retry(struct jank_live_input *w);
/* Stop: free the input (the engine stays, for the final summary). */
void jank_live_input_stop(struct jank_live_input *w);

/*
 * Periodic: run the engine's checks (overdue actions) at the input's own
 * time, and notice a stall (see live-input.c).
 */
void jank_live_input_tick(struct jank_live_input *w);
/* Periodic: recompute events/s over the time since the last call. */
void jank_live_input_update_rate(struct jank_live_input *w);
/* Config reload: the rules and flows of `c`. Returns 0 or -errno (see
 * jank_config_replace_rules()). */
int jank_live_input_replace_rules(struct jank_live_input *w, const struct jank_config *c);
/* Config reload: the [graph] limits (see jank_engine_set_limits()). */
void jank_live_input_set_limits(struct jank_live_input *w, const struct jank_engine_config *c);

/*
 * The path of thread tid over [begin, end] in this input's graph, its frames
 * named (another host's request: lib/hostjoin.h). As jank_critpath_compute.
 */
int jank_live_input_path(struct jank_live_input *w, int32_t tid, int64_t begin, int64_t end,
			 struct jank_path *out);
const char *jank_live_input_url(const struct jank_live_input *w);
const struct jank_engine *jank_live_input_engine(const struct jank_live_input *w);
/* The same, to load what it starts with (the saved baselines). */
struct jank_engine *jank_live_input_engine_mut(struct jank_live_input *w);
/* Its symbolizer (NULL: out of memory at creation), e.g. to give it a fetcher. */
struct jank_symbols *jank_live_input_symbols(const struct jank_live_input *w);
bool jank_live_input_attached(const struct jank_live_input *w);
void jank_live_input_get_stats(const struct jank_live_input *w, struct jank_live_input_stats *out);
/* The last input error, "" when none. */
const char *jank_live_input_last_error(const struct jank_live_input *w);
/* "connecting", "connected", "reconnecting" ("?" out of range); and back (-1). */
JANK_STRTABLE_DECLARE(jank_live_input_state, enum jank_live_input_state);
/*
 * "relayd unreachable", "session missing", "cannot attach", "" for none ("?"
 * out of range); and back, as a status says it (-1 for an unknown name).
 */
JANK_STRTABLE_DECLARE(jank_live_input_problem, enum jank_live_input_problem);

#endif
