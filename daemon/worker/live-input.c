/* SPDX-License-Identifier: MIT */
/*
 * The pump of one live input, driven by a libevent timer:
 *
 *   OK     messages were processed: run again at once, but through the loop
 *          (a zero timeout), so that signals, timers and the control socket
 *          get their turn every PUMP_BATCHES batches;
 *   AGAIN  no data yet: back off, from AGAIN_MIN_NS doubling to AGAIN_MAX_NS,
 *          or to IDLE_POLL_NS once no event came for IDLE_AFTER_NS: each
 *          try is a few round trips to relayd (one per stream), which is
 *          most of what an idle input costs;
 *   END, ERROR
 *          relayd went away: log it once, free the input, and build a new
 *          one after RECONNECT_MIN_NS, doubling to RECONNECT_MAX_NS while it
 *          keeps failing. The engine is kept.
 *
 * A destroyed session is no error for the input (session-not-found-action
 * is "continue": it waits for a session of that name to come back, and
 * attaches to it). Only silence shows it: a live session sends something at
 * every live timer tick, even when idle. After SILENCE_NS without a message,
 * relayd is asked; if it no longer lists the session, that is logged once,
 * and its return is logged as a reconnection.
 *
 * The problem of the moment (status: "problem", since when): while not
 * connected, relayd is asked whenever the input fails and at every probe,
 * so that the status says what is wrong now (relayd unreachable, or the
 * session missing from a relayd that answers), not the first error seen.
 *
 * Attached: data flowed, or relayd lists the session (jank_relayd_has_session,
 * asked at most every PROBE_EVERY_NS while not attached) and the input ran
 * once since: a session without streams yet only ever says "try again".
 *
 * The decoder ([live] decoder): jank's own lttng-live client and native
 * CTF decoder (io/trace-live.c), or babeltrace2's lttng-live source; auto,
 * the default, is the native one until it refuses the session's metadata,
 * then babeltrace2 (fall_back: said once, and in the status).
 *
 * The input's own time is how far its stream has advanced: its events, and
 * the inactivity beacons that the tracer's live timer sends for a stream
 * with nothing new. Open actions are checked (overdue) against that time
 * only, never against the wall clock: while relayd or the traced host is
 * stopped, the trace does not advance, and an action open across the stall
 * is not late. A real hang still shows: the hung thread's stream stays
 * quiet, but the beacons keep advancing the time.
 *
 * Stalled: connected, but the input's time has not advanced for STALL_NS
 * (or four live timer periods, whichever is longer) after it had advanced
 * before. The supervisor logs it (daemon/fleet/fleet.c), as it does when the
 * worker is blocked on relayd; status and metrics say since when.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "log.h"
#include "relayd.h"
#include "units.h"
#include "live-input.h"
#include "symbols.h"
#include "binary-opener.h"

#define PUMP_BATCHES	 32
#define AGAIN_MIN_NS	 10000000LL    /* 10 ms */
#define AGAIN_MAX_NS	 40000000LL    /* 40 ms: at most this late after a live-timer flush */
#define IDLE_AFTER_NS	 2000000000LL  /* no event for this long: idle */
#define IDLE_POLL_NS	 250000000LL   /* an idle input's first packet waits at most this */
#define RECONNECT_MIN_NS 1000000000LL  /* 1 s */
#define RECONNECT_MAX_NS 30000000000LL /* 30 s */
#define PROBE_EVERY_NS	 1000000000LL  /* 1 s */
#define SILENCE_NS	 2000000000LL  /* connected, no message for this long: still there? */
#define STALL_NS	 3000000000LL  /* connected, the input's time still: stalled */
#define WATCH_ERR_LEN	 512

/* Processes whose /proc/PID/maps was read for the symbolizer (each once). */
#define PROC_MAPS_TRIED 64

struct jank_live_input {
	struct jank_symbols *sym; /* function names: the stream's statedump, or /proc/PID/maps */
	int64_t maps_tried[PROC_MAPS_TRIED];
	unsigned nmaps_tried;
	bool this_host; /* the traced host is this one: its pids are ours (/proc/PID/maps) */
	char *url;
	struct event_base *base;
	struct event *pump;
	struct jank_engine *engine;
	struct jank_reader *input;
	enum jank_live_input_state state;
	enum jank_live_input_problem problem;
	int64_t problem_since; /* wall clock */
	bool attached;	       /* attached at least once */
	bool quiet;	       /* the current outage was logged */
	bool found;	       /* relayd lists the session: the next run attaches to it */
	int64_t probe_mono;
	int64_t ok_mono; /* when the input last said OK */
	jank_live_input_attached_fn attached_fn;
	void *attached_data;

	int64_t again_ns;
	int64_t reconnect_ns;
	int64_t event_mono;   /* when the last event came */
	uint64_t events_seen; /* by the current input */

	/* The last event's time, and when it was received. */
	int64_t anchor_ts;
	int64_t anchor_mono;
	int64_t margin_ns; /* the live timer period, when known */

	/* The input's own time (events and beacons), and when it last advanced. */
	int64_t input_ts;
	int64_t advance_mono;
	bool stalled;
	bool advanced; /* since the input (re)attached: a session without streams sends nothing */
	int64_t stalled_mono; /* its last advance before the stall */
	int64_t stalled_real; /* wall time of the last advance before the stall */
	uint64_t stalls;

	/* Counters of the inputs already freed, and of the connection. */
	uint64_t events_read_past;
	uint64_t discarded_past;
	uint64_t disconnects;
	uint64_t reconnects;

	/* events/s */
	uint64_t rate_events;
	int64_t rate_mono;
	double events_per_sec;

	/* Which decoder reads the session ([live] decoder), and whether auto fell back. */
	enum jank_decoder decoder;
	bool fell_back;
	char decoder_note[WATCH_ERR_LEN];

	char err[WATCH_ERR_LEN];
};

/* A rule that cannot apply to an event of the session: once per rule and event. */
static void rule_notice(const char *msg, void *data)
{
	struct jank_live_input *w = data;

	jank_log(LOG_WARNING, "%s: %s", w->url, msg);
}

static void schedule(struct jank_live_input *w, int64_t ns)
{
	struct timeval tv = jank_clock_timeval(ns);

	event_add(w->pump, &tv);
}

/* Fold the reader's counters into the input's, and free it. */
static void drop_input(struct jank_live_input *w)
{
	struct jank_reader_stats s;

	if (!w->input)
		return;
	jank_reader_get_stats(w->input, &s);
	w->events_read_past += s.events;
	w->discarded_past += s.discarded;
	jank_reader_free(w->input);
	w->input = NULL;
	w->events_seen = 0;
}

/* What is wrong now, and why; since when, if it is new. */
static void set_problem(struct jank_live_input *w, enum jank_live_input_problem p, const char *why)
{
	if (p != w->problem)
		w->problem_since = p == JANK_LIVE_INPUT_OK ? 0 : jank_clock_realtime_ns();
	w->problem = p;
	snprintf(w->err, sizeof(w->err), "%s", why);
}

/* Does relayd list the session? The answer as the problem of the moment; its result. */
static int ask_relayd(struct jank_live_input *w, int64_t now, const char *failed)
{
	char err[WATCH_ERR_LEN];
	int r;

	w->probe_mono = now;
	r = jank_relayd_has_session(w->url, err, sizeof(err));
	if (r < 0)
		set_problem(w, JANK_LIVE_INPUT_RELAYD_UNREACHABLE, failed ? failed : err);
	else if (r == 0)
		set_problem(w, JANK_LIVE_INPUT_SESSION_MISSING,
			    "relayd answers, but does not list the session");
	else if (failed)
		set_problem(w, JANK_LIVE_INPUT_ATTACH_FAILED, failed);
	return r;
}

/* The input failed or ended: say it once, then retry with back-off. */
static void lost(struct jank_live_input *w, const char *why)
{
	drop_input(w);
	ask_relayd(w, jank_clock_monotonic_ns(), why);
	w->found = false;
	w->stalled = false; /* not stalled: gone, and said so */
	w->advanced = false;
	w->stalled_real = 0;
	if (w->state == JANK_LIVE_INPUT_CONNECTED) {
		jank_log(LOG_WARNING, "%s: lost the live session: %s; reconnecting", w->url, why);
		w->state = JANK_LIVE_INPUT_RECONNECTING;
		w->disconnects++;
		w->reconnect_ns = RECONNECT_MIN_NS;
		w->quiet = true;
		/* Events were lost until the new input starts: thread states are unknown. */
		if (w->anchor_ts != INT64_MIN)
			jank_engine_discarded(w->engine, -1, w->anchor_ts, 0);
	} else if (!w->quiet) {
		jank_log(LOG_WARNING, "%s: cannot attach: %s; retrying", w->url, why);
		w->quiet = true;
	}
	schedule(w, w->reconnect_ns);
	w->reconnect_ns *= 2;
	if (w->reconnect_ns > RECONNECT_MAX_NS)
		w->reconnect_ns = RECONNECT_MAX_NS;
}

static void up(struct jank_live_input *w)
{
	bool first = !w->attached;

	if (w->state == JANK_LIVE_INPUT_CONNECTED)
		return;
	if (w->state == JANK_LIVE_INPUT_RECONNECTING) {
		jank_log(LOG_NOTICE, "%s: reconnected", w->url);
		w->reconnects++;
	} else {
		jank_log(LOG_INFO, "%s: attached", w->url);
	}
	w->state = JANK_LIVE_INPUT_CONNECTED;
	w->attached = true;
	w->ok_mono = jank_clock_monotonic_ns();
	w->reconnect_ns = RECONNECT_MIN_NS;
	w->quiet = false;
	w->found = false;
	set_problem(w, JANK_LIVE_INPUT_OK, "");
	if (first && w->attached_fn)
		w->attached_fn(w, w->attached_data);
}

/* How long a connected input's time may stand still before it is stalled. */
static int64_t stall_after(const struct jank_live_input *w)
{
	return 4 * w->margin_ns > STALL_NS ? 4 * w->margin_ns : STALL_NS;
}

/* The supervisor says it in the journal (it also sees a worker blocked on relayd). */
static void resumed(struct jank_live_input *w)
{
	w->stalled = false;
	w->stalled_real = 0;
}

/* Events or beacons arrived: move the anchor and the input's time. */
static void advance_clock(struct jank_live_input *w)
{
	struct jank_reader_stats s;
	int64_t now = jank_clock_monotonic_ns();

	jank_reader_get_stats(w->input, &s);
	if (s.last_ts != INT64_MIN && s.last_ts > w->anchor_ts) {
		w->anchor_ts = s.last_ts;
		w->anchor_mono = now;
	}
	if (s.advanced_ts != INT64_MIN && s.advanced_ts > w->input_ts) {
		w->input_ts = s.advanced_ts;
		w->advance_mono = now;
		w->advanced = true;
		if (w->stalled)
			resumed(w);
	}
}

/*
 * Did events come since the last call? Messages without events (relayd's
 * beacons of an idle stream, every live timer tick) are no reason to ask
 * relayd again at once.
 */
static bool got_events(struct jank_live_input *w)
{
	struct jank_reader_stats s;

	jank_reader_get_stats(w->input, &s);
	if (s.events == w->events_seen)
		return false;
	w->events_seen = s.events;
	return true;
}

/* No data: try again later, the later the longer nothing came. */
static void back_off(struct jank_live_input *w)
{
	int64_t cap = jank_clock_monotonic_ns() - w->event_mono > IDLE_AFTER_NS ? IDLE_POLL_NS
										: AGAIN_MAX_NS;

	schedule(w, w->again_ns < cap ? w->again_ns : cap);
	w->again_ns *= 2;
	if (w->again_ns > cap)
		w->again_ns = cap;
}

/* Does relayd list the session? At most every PROBE_EVERY_NS; -EAGAIN: not asked. */
static int probe(struct jank_live_input *w, int64_t now)
{
	if (w->probe_mono && now - w->probe_mono < PROBE_EVERY_NS)
		return -EAGAIN;
	return ask_relayd(w, now, NULL);
}

/* Connected, and silent for a while: was the session destroyed? */
static void check_gone(struct jank_live_input *w, int64_t now)
{
	if (now - w->ok_mono < SILENCE_NS || probe(w, now) != 0)
		return;
	jank_log(LOG_WARNING,
		 "%s: the live session is gone (destroyed?); waiting for it to come back", w->url);
	w->state = JANK_LIVE_INPUT_RECONNECTING;
	w->disconnects++;
	w->quiet = true;
	w->stalled = false;
	w->advanced = false;
	w->stalled_real = 0;
	if (w->anchor_ts != INT64_MIN)
		jank_engine_discarded(w->engine, -1, w->anchor_ts, 0);
}

/* No data: are we attached anyway (a session without streams yet), or detached? */
static void idle(struct jank_live_input *w)
{
	int64_t now = jank_clock_monotonic_ns();

	if (w->found)
		up(w);
	else if (w->state != JANK_LIVE_INPUT_CONNECTED)
		w->found = probe(w, now) == 1;
	else
		check_gone(w, now);
}

static bool uses_native(const struct jank_live_input *w)
{
	return w->decoder != JANK_DECODER_BABELTRACE2 && !w->fell_back;
}

/*
 * The native decoder does not take the session (its metadata): with
 * [live] decoder = auto, read it through babeltrace2 from now on, said once
 * in the log and in the status. What was read stays; the events between
 * the two inputs are lost (as at a reconnection).
 */
static bool fall_back(struct jank_live_input *w, const char *why)
{
	if (w->decoder != JANK_DECODER_AUTO || w->fell_back || !jank_reader_refused(w->input))
		return false;
	jank_log(LOG_NOTICE, "%s: read through babeltrace2: %s", w->url, why);
	snprintf(w->decoder_note, sizeof(w->decoder_note), "%s", why);
	w->fell_back = true;
	drop_input(w);
	if (w->anchor_ts != INT64_MIN)
		jank_engine_discarded(w->engine, -1, w->anchor_ts, 0);
	schedule(w, 0);
	return true;
}

static void pump(evutil_socket_t fd, short what, void *data)
{
	struct jank_live_input *w = data;
	char err[WATCH_ERR_LEN];

	(void)fd;
	(void)what;
	if (!w->input) {
		w->input = uses_native(w) ? jank_reader_new_live_native(w->url, w->engine, err,
									sizeof(err))
					  : jank_reader_new_live(w->url, "continue", w->engine, err,
								 sizeof(err));
		if (!w->input) {
			lost(w, err);
			return;
		}
		if (w->sym)
			jank_reader_set_symbols(w->input, w->sym);
		jank_reader_set_notices(w->input, false, rule_notice, w);
	}
	for (int i = 0; i < PUMP_BATCHES; i++) {
		switch (jank_reader_run_once(w->input)) {
		case JANK_READER_STATUS_OK:
			w->ok_mono = jank_clock_monotonic_ns();
			if (got_events(w)) {
				w->again_ns = AGAIN_MIN_NS;
				w->event_mono = w->ok_mono;
			}
			up(w);
			continue;
		case JANK_READER_STATUS_AGAIN:
			advance_clock(w);
			if (got_events(w))
				up(w); /* the step read events, then found nothing more */
			idle(w);
			back_off(w);
			return;
		case JANK_READER_STATUS_END:
			advance_clock(w);
			if (got_events(w))
				up(w); /* events came in the step that failed: it was attached */
			lost(w, "the session ended (destroyed, or relayd closed it)");
			return;
		case JANK_READER_STATUS_ERROR:
			advance_clock(w);
			if (got_events(w))
				up(w);
			snprintf(err, sizeof(err), "%s", jank_reader_error(w->input));
			if (fall_back(w, err))
				return;
			lost(w, err);
			return;
		}
	}
	advance_clock(w);
	schedule(w, 0);
}

/*
 * The mappings of local process PID: its /proc/PID/maps, or, when the
 * worker may not read it (another user's process), the one the binary
 * opener opens for it.
 */
static int add_maps(struct jank_live_input *w, int32_t pid, char *err, size_t len)
{
	int r = jank_symbols_add_proc_maps(w->sym, pid, pid, err, len), fd;

	if (r != -EACCES || !jank_binary_opener_client_ready())
		return r;
	fd = jank_binary_opener_client_maps(pid);
	return fd < 0 ? fd : jank_symbols_add_maps_fd(w->sym, fd, pid, err, len);
}

/*
 * A frame's name for a verdict: from the statedump the stream carried, else,
 * on the traced host, from /proc/PID/maps (read once per process, when an
 * address of it is in no known mapping). The trace of another host names
 * processes that are not this host's: its pids are never looked up here. A
 * process of another container, or gone, stays unresolved (its address in
 * hex, or binary+0xoffset).
 */
static void name_frame(const struct jank_frame *f, char *buf, size_t len, void *data)
{
	struct jank_live_input *w = data;
	char err[128];
	bool tried = false;

	if (f->kernel || f->pid <= 0) {
		jank_symbols_frame_namer(f, buf, len, w->sym);
		return;
	}
	if (jank_symbols_lookup(w->sym, f->pid, f->addr, buf, len) != JANK_SYMBOLS_UNMAPPED)
		return;
	if (!w->this_host)
		return;
	for (unsigned i = 0; i < w->nmaps_tried && i < PROC_MAPS_TRIED; i++)
		tried |= w->maps_tried[i] == f->pid;
	if (!tried) {
		w->maps_tried[w->nmaps_tried++ % PROC_MAPS_TRIED] = f->pid;
		if (add_maps(w, f->pid, err, sizeof(err)) > 0)
			jank_symbols_lookup(w->sym, f->pid, f->addr, buf, len);
	}
}

int jank_live_input_path(struct jank_live_input *w, int32_t tid, int64_t begin, int64_t end,
			 struct jank_path *out)
{
	const struct jank_graph *g = jank_engine_graph(w->engine);
	const struct jank_thread *t = jank_graph_find_any(g, tid);
	int r = t ? jank_critpath_compute_thread(g, t, begin, end, out)
		  : jank_critpath_compute(g, tid, begin, end, out);

	if (r != -EINVAL)
		jank_path_name_frames(out, w->sym ? name_frame : NULL, w);
	return r;
}

struct jank_live_input *jank_live_input_new(struct event_base *base, const char *url,
					    const struct jank_engine_config *ec,
					    const struct jank_config *c, jank_verdict_fn fn,
					    void *data, char *err, size_t errlen)
{
	struct jank_live_input *w = calloc(1, sizeof(*w));
	char host[256];
	int r = -ENOMEM;

	if (!w)
		goto nomem;
	w->base = base;
	w->url = strdup(url);
	w->engine = jank_engine_new(ec);
	w->pump = event_new(base, -1, 0, pump, w);
	if (!w->url || !w->engine || !w->pump)
		goto nomem;
	r = jank_config_add_rules(c, w->engine, err, errlen);
	if (r < 0)
		goto fail;
	jank_engine_set_verdict_cb(w->engine, fn, data);
	w->sym = jank_symbols_new((size_t)c->symbols.memory_limit);
	if (w->sym) {
		jank_engine_set_namer(w->engine, name_frame, w);
		/* Stacks by binary and offset, shared by its processes, where a mapping says. */
		jank_engine_set_locator(w->engine, jank_symbols_code_locator, w->sym);
	}
	host[sizeof(host) - 1] = '\0';
	w->this_host =
		gethostname(host, sizeof(host) - 1) == 0 && jank_relayd_url_on_host(url, host);
	/* This host's processes: what a worker cannot open, the supervisor's opener may. */
	if (w->sym && w->this_host && jank_binary_opener_client_ready())
		jank_symbols_set_opener(w->sym, jank_binary_opener_client_open, NULL);
	w->state = JANK_LIVE_INPUT_CONNECTING;
	w->again_ns = AGAIN_MIN_NS;
	w->reconnect_ns = RECONNECT_MIN_NS;
	w->anchor_ts = INT64_MIN;
	w->input_ts = INT64_MIN;
	w->rate_mono = jank_clock_monotonic_ns();
	return w;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	jank_live_input_free(w);
	return NULL;
}

void jank_live_input_free(struct jank_live_input *w)
{
	if (!w)
		return;
	if (w->pump)
		event_free(w->pump);
	if (w->input)
		jank_reader_free(w->input);
	jank_engine_free(w->engine);
	jank_symbols_free(w->sym);
	free(w->url);
	free(w);
}

void jank_live_input_set_attached_cb(struct jank_live_input *w, jank_live_input_attached_fn fn,
				     void *data)
{
	w->attached_fn = fn;
	w->attached_data = data;
}

void jank_live_input_set_decoder(struct jank_live_input *w, enum jank_decoder d)
{
	w->decoder = d;
}

const char *jank_live_input_decoder(const struct jank_live_input *w, const char **note)
{
	if (note)
		*note = w->decoder_note;
	return uses_native(w) ? "native" : "babeltrace2";
}

void jank_live_input_set_clock_margin(struct jank_live_input *w, int64_t ns)
{
	w->margin_ns = ns > 0 ? ns : 0;
}

int jank_live_input_start(struct jank_live_input *w)
{
	struct timeval tv = { 0, 0 };

	return event_add(w->pump, &tv) == 0 ? 0 : -EIO;
}

void jank_live_input_retry(struct jank_live_input *w)
{
	if (w->state == JANK_LIVE_INPUT_CONNECTED)
		return;
	w->reconnect_ns = RECONNECT_MIN_NS;
	w->again_ns = AGAIN_MIN_NS;
	w->probe_mono = 0;
	schedule(w, 0);
}

void jank_live_input_stop(struct jank_live_input *w)
{
	event_del(w->pump);
	drop_input(w);
}

/* Connected, the input's time still for too long: say it once. */
static void check_stalled(struct jank_live_input *w, int64_t now)
{
	if (w->stalled || !w->advanced || w->state != JANK_LIVE_INPUT_CONNECTED ||
	    now - w->advance_mono < stall_after(w))
		return;
	w->stalled = true;
	w->stalled_mono = w->advance_mono;
	w->stalled_real = jank_clock_realtime_ns() - (now - w->advance_mono);
	w->stalls++;
}

void jank_live_input_tick(struct jank_live_input *w)
{
	check_stalled(w, jank_clock_monotonic_ns());
	if (w->state == JANK_LIVE_INPUT_CONNECTED && w->input_ts != INT64_MIN)
		jank_engine_tick(w->engine, w->input_ts);
}

void jank_live_input_update_rate(struct jank_live_input *w)
{
	struct jank_engine_stats s;
	int64_t now = jank_clock_monotonic_ns();

	jank_engine_get_stats(w->engine, &s);
	if (now > w->rate_mono)
		w->events_per_sec =
			(double)(s.events - w->rate_events) * 1e9 / (double)(now - w->rate_mono);
	w->rate_events = s.events;
	w->rate_mono = now;
}

int jank_live_input_replace_rules(struct jank_live_input *w, const struct jank_config *c)
{
	return jank_config_replace_rules(c, w->engine);
}

void jank_live_input_set_limits(struct jank_live_input *w, const struct jank_engine_config *c)
{
	jank_engine_set_limits(w->engine, c);
}

const char *jank_live_input_url(const struct jank_live_input *w)
{
	return w->url;
}

const struct jank_engine *jank_live_input_engine(const struct jank_live_input *w)
{
	return w->engine;
}

struct jank_engine *jank_live_input_engine_mut(struct jank_live_input *w)
{
	return w->engine;
}

struct jank_symbols *jank_live_input_symbols(const struct jank_live_input *w)
{
	return w->sym;
}

bool jank_live_input_attached(const struct jank_live_input *w)
{
	return w->attached;
}

void jank_live_input_get_stats(const struct jank_live_input *w, struct jank_live_input_stats *out)
{
	struct jank_reader_stats s = { 0 };

	if (w->input)
		jank_reader_get_stats(w->input, &s);
	memset(out, 0, sizeof(*out));
	out->state = w->state;
	out->events_read = w->events_read_past + s.events;
	out->discarded = w->discarded_past + s.discarded;
	out->disconnects = w->disconnects;
	out->reconnects = w->reconnects;
	out->events_per_sec = w->events_per_sec;
	out->trace_now = w->input_ts;
	out->stalled_since = w->stalled_real;
	out->stalls = w->stalls;
	out->last_event = w->anchor_ts;
	out->problem = w->state == JANK_LIVE_INPUT_CONNECTED ? JANK_LIVE_INPUT_OK : w->problem;
	out->problem_since = out->problem ? w->problem_since : 0;
}

const char *jank_live_input_last_error(const struct jank_live_input *w)
{
	return w->err;
}

static const char *const jank_live_input_state_names[] = {
	[JANK_LIVE_INPUT_CONNECTING] = "connecting",
	[JANK_LIVE_INPUT_CONNECTED] = "connected",
	[JANK_LIVE_INPUT_RECONNECTING] = "reconnecting",
};

JANK_STRTABLE_DEFINE(jank_live_input_state, enum jank_live_input_state, "?")

static const char *const jank_live_input_problem_names[] = {
	[JANK_LIVE_INPUT_OK] = "",
	[JANK_LIVE_INPUT_RELAYD_UNREACHABLE] = "relayd unreachable",
	[JANK_LIVE_INPUT_SESSION_MISSING] = "session missing",
	[JANK_LIVE_INPUT_ATTACH_FAILED] = "cannot attach",
};

JANK_STRTABLE_DEFINE(jank_live_input_problem, enum jank_live_input_problem, "?")
