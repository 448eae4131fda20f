/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 input: CTF traces on disk or an LTTng live session, muxed
 * in time order, decoded once into struct jank_event and fed to the engine.
 *
 * Both constructors build the same graph downstream of the source, so the
 * offline and the live analyses decode events the same way. The caller
 * drives the graph with jank_reader_run_once() (from an event loop: AGAIN
 * means "no data yet, call again later") or jank_reader_run_all() (offline).
 * When the input ends, jank_engine_finish() has been called.
 */
#ifndef JANK_TRACE_READER_H
#define JANK_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "engine.h"

enum jank_reader_status {
	JANK_READER_STATUS_OK = 0, /* some messages were processed; call again */
	JANK_READER_STATUS_AGAIN,  /* no data ready now (live); call again later */
	JANK_READER_STATUS_END,	   /* every trace ended; the engine is finished */
	JANK_READER_STATUS_ERROR,  /* see jank_reader_error() */
};

struct jank_reader_stats {
	uint64_t events;      /* event messages read */
	uint64_t events_used; /* passed to jank_engine_process() */
	uint64_t classes;     /* event classes resolved */
	uint64_t discarded;   /* discarded events and packets reported by the tracer */
	uint64_t traces;
	uint64_t symbol_events; /* statedump and dl events passed to the symbolizer */
	int64_t last_ts;	/* time of the last event given to the engine, INT64_MIN: none */
	/*
	 * How far the input's own time has advanced: the latest of its events
	 * and of its inactivity beacons (live: the tracer says a stream had
	 * nothing up to then). INT64_MIN: not yet.
	 */
	int64_t advanced_ts;
};

struct jank_reader;

/*
 * Which decoder reads CTF directories: the native one (io/trace-native.c)
 * when the trace's metadata compiles, else babeltrace2, said once on
 * stderr (auto, the default); only the native one (a trace it does not take
 * is an error); or only babeltrace2.
 */
enum jank_decoder {
	JANK_DECODER_AUTO = 0,
	JANK_DECODER_NATIVE,
	JANK_DECODER_BABELTRACE2,
};

/* The decoder jank_reader_new_ctf() uses from now on (process-wide; set it at start). */
void jank_reader_set_decoder(enum jank_decoder d);
/* "auto", "native" or "babeltrace2": 0, or -EINVAL. */
int jank_decoder_from_name(const char *name, enum jank_decoder *d);
/* The decoder that reads this input: "native" or "babeltrace2". */
const char *jank_reader_decoder_name(const struct jank_reader *in);
/*
 * How many queries of babeltrace2's src.ctf.fs (support-info, metadata-info:
 * each parses the whole metadata) this process has run: the tests check that
 * the native decoder's path runs none for the traces jank's parser reads.
 */
unsigned long jank_reader_bt_queries(void);

/*
 * Offline input over `n` paths. Each path is a CTF trace directory or a
 * directory that holds traces (an lttng output directory); all the traces
 * under it are read. Returns NULL and writes a one-line message to `err`
 * (which names the path) on failure.
 */
struct jank_reader *jank_reader_new_ctf(const char *const *paths, size_t n,
					struct jank_engine *engine, char *err, size_t errlen);

/*
 * Live input from an lttng-relayd URL (net://HOST/host/HOSTNAME/SESSION).
 * `session_not_found_action` is "continue", "fail" or "end" (NULL: "continue").
 */
struct jank_reader *jank_reader_new_live(const char *url, const char *session_not_found_action,
					 struct jank_engine *engine, char *err, size_t errlen);

/*
 * The same session read by jank's own lttng-live client and the native
 * decoder (io/trace-live.c), with session-not-found-action "continue". When
 * the native decoder does not take the session's metadata, a run ends in
 * ERROR with jank_reader_refused() true: read it through babeltrace2.
 */
struct jank_reader *jank_reader_new_live_native(const char *url, struct jank_engine *engine,
						char *err, size_t errlen);
/* After ERROR: the native decoder refused the trace (jank_reader_error() says why). */
bool jank_reader_refused(const struct jank_reader *in);

void jank_reader_free(struct jank_reader *in);

/*
 * A rule that cannot apply to an event class as the trace defines it (its
 * key or match names a field the event lacks): with `strict` (jankctl), the
 * input stops with that message as its error; else `fn` gets the message,
 * once per rule and class (jankd logs it), and the rule ignores the class.
 */
typedef void (*jank_reader_notice_fn)(const char *msg, void *data);
void jank_reader_set_notices(struct jank_reader *in, bool strict, jank_reader_notice_fn fn,
			     void *data);

/*
 * Feed SYMBOLS (io/symbols.h; not owned, outlives the reader) with the
 * mappings of lttng-ust's statedump and dynamic-loader events
 * (lttng_ust_statedump:*, lttng_ust_dl:*; their vpid context keys the
 * process, -1 without it). NULL: none (the default).
 */
struct jank_symbols;
void jank_reader_set_symbols(struct jank_reader *in, struct jank_symbols *symbols);

/*
 * For the tests (the differential test of the two decoders): every event
 * and every discarded range, as the engine gets it, also to these
 * functions. NULL: none.
 */
struct jank_reader_tap {
	void (*event)(const struct jank_event *ev, void *data);
	void (*discarded)(int32_t cpu, int64_t begin, int64_t end, uint64_t count, void *data);
	void *data;
};
void jank_reader_set_tap(struct jank_reader *in, const struct jank_reader_tap *tap);

/* Process one batch of messages. */
enum jank_reader_status jank_reader_run_once(struct jank_reader *in);
/* Run to the end (offline): END or ERROR (AGAIN is retried after a short sleep). */
enum jank_reader_status jank_reader_run_all(struct jank_reader *in);

/* One line that names the input, valid after ERROR. */
const char *jank_reader_error(const struct jank_reader *in);
/* The paths or URL the input was built from, for messages: "a b c". */
const char *jank_reader_name(const struct jank_reader *in);
void jank_reader_get_stats(const struct jank_reader *in, struct jank_reader_stats *out);

#endif
