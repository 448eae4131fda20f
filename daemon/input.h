/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 input: CTF traces on disk or an LTTng live session, muxed
 * in time order, decoded once into struct jank_event and fed to the engine.
 *
 * Both constructors build the same graph downstream of the source, so the
 * offline and the live analyses decode events the same way. The caller
 * drives the graph with jank_input_run_once() (from an event loop: AGAIN
 * means "no data yet, call again later") or jank_input_run_all() (offline).
 * When the input ends, jank_engine_finish() has been called.
 */
#ifndef JANK_INPUT_H
#define JANK_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "engine.h"

enum jank_input_status {
	JANK_INPUT_STATUS_OK = 0, /* some messages were processed; call again */
	JANK_INPUT_STATUS_AGAIN,  /* no data ready now (live); call again later */
	JANK_INPUT_STATUS_END,	  /* every trace ended; the engine is finished */
	JANK_INPUT_STATUS_ERROR,  /* see jank_input_error() */
};

struct jank_input_stats {
	uint64_t events;      /* event messages read */
	uint64_t events_used; /* passed to jank_engine_process() */
	uint64_t classes;     /* event classes resolved */
	uint64_t discarded;   /* discarded events and packets reported by the tracer */
	uint64_t traces;
	int64_t last_ts; /* time of the last event given to the engine, INT64_MIN: none */
};

struct jank_input;

/*
 * Offline input over `n` paths. Each path is a CTF trace directory or a
 * directory that holds traces (an lttng output directory); all the traces
 * under it are read. Returns NULL and writes a one-line message to `err`
 * (which names the path) on failure.
 */
struct jank_input *jank_input_new_ctf(const char *const *paths, size_t n,
				      struct jank_engine *engine, char *err, size_t errlen);

/*
 * Live input from an lttng-relayd URL (net://HOST/host/HOSTNAME/SESSION).
 * `session_not_found_action` is "continue", "fail" or "end" (NULL: "continue").
 */
struct jank_input *jank_input_new_live(const char *url, const char *session_not_found_action,
				       struct jank_engine *engine, char *err, size_t errlen);

void jank_input_free(struct jank_input *in);

/* Process one batch of messages. */
enum jank_input_status jank_input_run_once(struct jank_input *in);
/* Run to the end (offline): END or ERROR (AGAIN is retried after a short sleep). */
enum jank_input_status jank_input_run_all(struct jank_input *in);

/* One line that names the input, valid after ERROR. */
const char *jank_input_error(const struct jank_input *in);
/* The paths or URL the input was built from, for messages: "a b c". */
const char *jank_input_name(const struct jank_input *in);
void jank_input_get_stats(const struct jank_input *in, struct jank_input_stats *out);

#endif
