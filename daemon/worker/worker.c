/* SPDX-License-Identifier: MIT */
/*
 * The worker process of one input (see worker.h). Everything that can block
 * or abort on relayd's account (babeltrace2's live source and its queries)
 * runs here; the supervisor only ever reads what this process sends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <event2/bufferevent.h>
#include "baseline-file.h"
#include "clock.h"
#include "config-file.h"
#include "debuginfod.h"
#include "input-status.h"
#include "json-util.h"
#include "log.h"
#include "relayd.h"
#include "symbols.h"
#include "textsafe.h"
#include "verdict-json.h"
#include "binary-opener.h"
#include "relayd-broker.h"
#include "worker-hosts.h"
#include "worker-proto.h"
#include "worker-sandbox.h"
#include "worker.h"

#define TICK_NS	       100000000LL   /* engines check open actions this often */
#define STATUS_MIN_NS  250000000LL   /* a changed state goes out this soon */
#define HEARTBEAT_NS   1000000000LL  /* some message at least this often; counters under load */
#define FULL_NS	       5000000000LL  /* the whole status at least this often */
#define SAVE_NS	       60000000000LL /* the baselines go to the supervisor this often */
#define ERR_LEN	       1024
#define FETCH_ASKED    64	    /* build-ids asked of the supervisor, remembered */
#define FETCH_SLACK_NS 5000000000LL /* past [symbols] debuginfod-timeout, waited for too */
#define LATE_FRAMES    256	    /* unnamed frames of recent verdicts, looked up again */
#define LATE_EVERY_NS  500000000LL  /* this often */

enum mode {
	MODE_NONE = 0,
	MODE_INPUT,
	MODE_DISCOVER
};

struct worker {
	struct event_base *base;
	struct bufferevent *bev;
	struct jank_worker_proto_reader reader; /* the supervisor's frames */
	enum mode mode;
	char url[JANK_CONFIG_URL_LEN];
	int64_t interval_ns;
	struct jank_live_input *input;
	struct jank_whosts *hosts; /* its flows and paths for the join across hosts */
	struct event *ev_tick, *ev_status, *ev_discover;
	struct event *ev_now;  /* a status at once, after what is being done */
	struct event *ev_save; /* the baselines, every SAVE_NS */
	int64_t sent_mono;     /* the last whole status */
	int64_t beat_mono;     /* the last message */
	int64_t rate_mono;     /* the last events/s */
	uint64_t sent_events, sent_janks;
	double sent_rate;
	int sent_state;
	int sent_problem;
	bool sent_attached;
	int64_t sent_stalled;
	uint64_t tick_events; /* the events at the last on_status() */
	int64_t first_event;  /* the engine's first event, once first_known */
	bool first_known;
	/* [symbols] debuginfod: the supervisor downloads into fetch_cache; NULL: off. */
	char *fetch_cache;
	int64_t fetch_wait_ns; /* how long a build-id asked for is waited for */
	struct {
		uint8_t id[JANK_DEBUGINFOD_MAX_BUILD_ID];
		size_t len;
		int64_t when;
	} asked[FETCH_ASKED];
	size_t next_asked;
	/* Frames sent as binary+0xOFFSET while their binary may be fetched (late_names). */
	struct {
		struct jank_frame f;
		int64_t when; /* 0: a free slot */
	} late[LATE_FRAMES];
	size_t next_late;
	int64_t late_mono; /* the last look */
};

static void send_msg(struct worker *w, struct json_object *msg)
{
	if (msg)
		jank_worker_proto_put(bufferevent_get_output(w->bev), msg);
	json_object_put(msg);
	w->beat_mono = jank_clock_monotonic_ns();
}

/* Before exiting: what is still buffered goes out, blocking. */
static void flush_out(struct worker *w)
{
	struct evbuffer *out = bufferevent_get_output(w->bev);
	int fd = bufferevent_getfd(w->bev);

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	/*
	 * The socket bufferevent keeps its output's front frozen outside its
	 * own writes: without this, evbuffer_write() drained nothing, and the
	 * last status, log lines and baselines never reached the supervisor.
	 */
	evbuffer_unfreeze(out, 1);
	while (evbuffer_get_length(out) > 0 && evbuffer_write(out, fd) > 0)
		;
}

/*
 * A log line says the input changed (attached, lost...): its status follows
 * at once, once the change is made, so that the two agree.
 */
static void send_log(int priority, const char *line, void *data)
{
	struct json_object *msg = jank_worker_proto_new("log");
	struct worker *w = data;

	jank_json_add_i64(msg, "priority", priority);
	jank_json_add_str(msg, "message", line);
	send_msg(w, msg);
	if (w->ev_now)
		event_active(w->ev_now, EV_TIMEOUT, 0);
}

static void send_status(struct worker *w)
{
	struct json_object *msg = jank_worker_proto_new("status");

	if (w->input) {
		struct jank_live_input_stats ws;
		struct jank_engine_stats es;

		jank_live_input_get_stats(w->input, &ws);
		jank_engine_get_stats(jank_live_input_engine(w->input), &es);
		w->sent_events = es.events;
		w->sent_janks = es.janks + es.overdue;
		w->sent_state = ws.state;
		w->sent_problem = ws.problem;
		w->sent_rate = ws.events_per_sec;
		w->sent_attached = jank_live_input_attached(w->input);
		w->sent_stalled = ws.stalled_since;
		jank_json_add(msg, "input", jank_input_status_json(w->input));
	}
	w->sent_mono = jank_clock_monotonic_ns();
	send_msg(w, msg);
}

/*
 * What changed since the last status: STATUS_STATE for the input's state,
 * problem, attachment or stall, which go out within STATUS_MIN_NS;
 * STATUS_COUNTERS for its counters alone (events, janks, events/s).
 */
enum status_change {
	STATUS_SAME = 0,
	STATUS_COUNTERS,
	STATUS_STATE,
};

static enum status_change status_changed(const struct worker *w, uint64_t *events)
{
	struct jank_live_input_stats ws;
	struct jank_engine_stats es;

	*events = 0;
	if (!w->input)
		return STATUS_SAME;
	jank_live_input_get_stats(w->input, &ws);
	jank_engine_get_stats(jank_live_input_engine(w->input), &es);
	*events = es.events;
	if ((int)ws.state != w->sent_state || (int)ws.problem != w->sent_problem ||
	    jank_live_input_attached(w->input) != w->sent_attached ||
	    ws.stalled_since != w->sent_stalled)
		return STATUS_STATE;
	if (es.events != w->sent_events || es.janks + es.overdue != w->sent_janks ||
	    ws.events_per_sec != w->sent_rate)
		return STATUS_COUNTERS;
	return STATUS_SAME;
}

/*
 * Counters that change at every tick (the input under load) go out once a
 * HEARTBEAT_NS: each status is a few KB of JSON that the supervisor parses
 * and checks whole, and at 4 a second that was most of its CPU under load.
 * Once the events stop (none since the last tick), the last counters go out
 * at once, so that what status says after a burst is its end, within
 * 2 x STATUS_MIN_NS of the last event read.
 */
static bool status_due(struct worker *w, int64_t now)
{
	uint64_t events;
	enum status_change c = status_changed(w, &events);
	bool quiet = events == w->tick_events;

	w->tick_events = events;
	return now - w->sent_mono >= FULL_NS || c == STATUS_STATE ||
	       (c == STATUS_COUNTERS && (quiet || now - w->sent_mono >= HEARTBEAT_NS));
}

static void on_status(evutil_socket_t fd, short what, void *data)
{
	struct worker *w = data;
	int64_t now = jank_clock_monotonic_ns();

	(void)fd;
	(void)what;
	if (w->input && now - w->rate_mono >= HEARTBEAT_NS) {
		jank_live_input_update_rate(w->input);
		w->rate_mono = now;
	}
	if (status_due(w, now))
		send_status(w);
	else if (now - w->beat_mono >= HEARTBEAT_NS)
		send_msg(w, jank_worker_proto_new("status")); /* idle: the heartbeat alone */
}

static void on_status_now(evutil_socket_t fd, short what, void *data)
{
	(void)fd;
	(void)what;
	send_status(data);
}

/* ---- Names that come late ---- */

/*
 * The unnamed frames of a verdict (binary+0xOFFSET), with debuginfod on:
 * their binary's symbols may come (the supervisor downloads them), and
 * what the supervisor keeps of the verdict can say the name then.
 */
static void late_add(struct worker *w, const struct jank_verdict *r)
{
	int64_t now = jank_clock_monotonic_ns();

	if (!w->fetch_cache || !r->path)
		return;
	for (size_t i = 0; i < r->path->nframes; i++) {
		const struct jank_frame *f = &r->path->frames[i];
		bool known = false;

		if (f->kernel || !jank_worker_proto_is_offset_frame(f->name))
			continue;
		for (size_t k = 0; k < LATE_FRAMES && !known; k++)
			known = w->late[k].when && !strcmp(w->late[k].f.name, f->name) &&
				w->late[k].f.code == f->code && w->late[k].f.addr == f->addr &&
				w->late[k].f.pid == f->pid;
		if (known)
			continue;
		/* The oldest goes when full. */
		w->late[w->next_late].f = *f;
		w->late[w->next_late].when = now;
		w->next_late = (w->next_late + 1) % LATE_FRAMES;
	}
}

/*
 * A pair the supervisor takes (worker-proto.h, "names"), as its JSON says
 * it: valid UTF-8 that still fits, no control byte, the frame still of the
 * frame form and the name not. Else the pair is not sent.
 */
static bool late_pair(const char *frame, const char *name, struct json_object **out)
{
	char f[JANK_FRAME_NAME_LEN], n[JANK_FRAME_NAME_LEN];
	struct json_object *a;

	jank_utf8_sanitize(f, sizeof(f), frame, strlen(frame), 0);
	jank_utf8_sanitize(n, sizeof(n), name, strlen(name), 0);
	if (!n[0] || !jank_worker_proto_is_offset_frame(f) || jank_worker_proto_is_offset_frame(n))
		return false;
	for (const char *c = n; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	a = json_object_new_array();
	if (!a || json_object_array_add(a, json_object_new_string(f)) < 0 ||
	    json_object_array_add(a, json_object_new_string(n)) < 0) {
		json_object_put(a);
		return false;
	}
	*out = a;
	return true;
}

/* Look the waiting frames up again; those named now go to the supervisor in one "names". */
static void late_names(struct worker *w)
{
	struct jank_symbols *sym = jank_live_input_symbols(w->input);
	int64_t now = jank_clock_monotonic_ns();
	struct json_object *msg = NULL, *list = NULL;

	if (!w->fetch_cache || !sym || now - w->late_mono < LATE_EVERY_NS)
		return;
	w->late_mono = now;
	for (size_t k = 0; k < LATE_FRAMES; k++) {
		const struct jank_frame *f = &w->late[k].f;
		char name[JANK_FRAME_NAME_LEN];
		enum jank_symbols_result kind;
		struct json_object *pair;

		if (!w->late[k].when)
			continue;
		if (now - w->late[k].when > w->fetch_wait_ns) {
			w->late[k].when = 0; /* no name came */
			continue;
		}
		kind = f->code ? jank_symbols_lookup_code(sym, f->code, f->addr, name, sizeof(name))
			       : jank_symbols_lookup(sym, f->pid, f->addr, name, sizeof(name));
		if (kind == JANK_SYMBOLS_OFFSET)
			continue; /* not yet */
		w->late[k].when = 0;
		/* A function's name only (a process forgotten meanwhile says a bare address). */
		if (kind != JANK_SYMBOLS_FUNCTION || !strcmp(name, f->name) ||
		    !late_pair(f->name, name, &pair))
			continue;
		if (!list) {
			msg = jank_worker_proto_new("names");
			list = json_object_new_array();
			if (!msg || !list || json_object_object_add(msg, "names", list) < 0) {
				json_object_put(msg);
				json_object_put(list);
				json_object_put(pair);
				return;
			}
		}
		json_object_array_add(list, pair);
	}
	if (msg)
		send_msg(w, msg);
}

static void on_tick(evutil_socket_t fd, short what, void *data)
{
	struct worker *w = data;

	(void)fd;
	(void)what;
	jank_live_input_tick(w->input);
	jank_whosts_tick(w->hosts);
	late_names(w);
}

static void send_hosts_msg(struct json_object *msg, void *data)
{
	send_msg(data, msg);
}

static void on_verdict(const struct jank_verdict *r, void *data)
{
	struct json_object *msg = jank_worker_proto_new("verdict");
	struct worker *w = data;
	struct jank_engine_stats es;
	struct json_object *v = jank_verdict_to_json(r, JANK_VERDICT_JSON_FULL);

	jank_json_add(msg, "verdict", v);
	late_add(w, r);
	/* The flows before the verdict: its `to` may cross to another host. */
	jank_whosts_flush(w->hosts);
	/*
	 * This worker's first event: a verdict may come before the status that
	 * says it, and the supervisor needs it to know what a restart skipped.
	 */
	if (!w->first_known) {
		jank_engine_get_stats(jank_live_input_engine(w->input), &es);
		w->first_event = es.first;
		w->first_known = es.first != INT64_MIN;
	}
	if (w->first_known)
		jank_json_add_i64(msg, "first_event_ns", w->first_event);
	/* Longer than a frame may be: the verdict goes, without its path. */
	if (msg && v && jank_worker_proto_put(bufferevent_get_output(w->bev), msg) == -EMSGSIZE) {
		json_object_object_add(v, "critical_path", json_object_new_array());
		jank_json_add_bool(v, "truncated", true);
		jank_log(LOG_WARNING,
			 "%s: a verdict of %s is longer than " JANK_PROTO_MAX_FRAME_TEXT
			 " with its critical path: sent without it",
			 w->url, r->rule->name);
		jank_worker_proto_put(bufferevent_get_output(w->bev), msg);
	}
	json_object_put(msg);
	w->beat_mono = jank_clock_monotonic_ns();
}

/*
 * The engine's baselines, for the supervisor to keep in its state directory
 * (fleet.c): this process writes no file, so that it could run unprivileged.
 */
static void send_baselines(struct worker *w)
{
	struct json_object *msg, *doc;

	if (!w->input)
		return;
	doc = jank_baselines_json(jank_live_input_engine(w->input), w->url);
	msg = doc ? jank_worker_proto_new("baselines") : NULL;
	if (!msg || jank_json_add(msg, "baselines", doc) < 0) {
		json_object_put(msg);
		jank_log(LOG_ERR, "%s: out of memory: the baselines are not saved", w->url);
		return;
	}
	if (jank_worker_proto_put(bufferevent_get_output(w->bev), msg) == -EMSGSIZE)
		jank_log(LOG_WARNING,
			 "%s: the baselines are longer than " JANK_PROTO_MAX_FRAME_TEXT
			 " (a frame): not saved",
			 w->url);
	json_object_put(msg);
	w->beat_mono = jank_clock_monotonic_ns();
}

static void on_save(evutil_socket_t fd, short what, void *data)
{
	(void)fd;
	(void)what;
	send_baselines(data);
}

/* The baselines the supervisor kept for this input: the rules unchanged start with them. */
static void load_baselines(struct worker *w, struct json_object *msg)
{
	struct json_object *doc = jank_json_get(msg, "baselines", json_type_object);
	char err[ERR_LEN];
	size_t n;

	if (!doc || !w->input)
		return;
	if (jank_baselines_load(jank_live_input_engine_mut(w->input), doc, &n, err, sizeof(err)) <
	    0)
		jank_log(LOG_WARNING, "%s: the saved baselines are ignored: %s", w->url, err);
	else if (n)
		jank_log(LOG_INFO, "%s: baselines of %zu rule%s restored", w->url, n,
			 n == 1 ? "" : "s");
}

static void on_attached(struct jank_live_input *in, void *data)
{
	(void)in;
	send_status(data);
}

/* ---- Discovery ---- */

static void add_session(const char *host, const char *session, void *data)
{
	struct json_object *pair = json_object_new_array();

	json_object_array_add(pair, json_object_new_string(host));
	json_object_array_add(pair, json_object_new_string(session));
	json_object_array_add(data, pair);
}

static void on_discover(evutil_socket_t fd, short what, void *data)
{
	struct worker *w = data;
	struct json_object *msg = jank_worker_proto_new("sessions");
	struct json_object *list = json_object_new_array();
	char err[ERR_LEN];
	int r;

	(void)fd;
	(void)what;
	r = list ? jank_relayd_list_sessions(w->url, add_session, list, err, sizeof(err)) : -ENOMEM;
	jank_json_add_bool(msg, "ok", r == 0);
	if (r == 0) {
		jank_json_add(msg, "sessions", list);
	} else {
		json_object_put(list);
		jank_json_add_str(msg, "error", r == -ENOMEM ? "out of memory" : err);
	}
	send_msg(w, msg);
}

/* ---- Binaries by build-id (fetcher.h) ---- */

/*
 * The symbolizer's fetcher: the file from the supervisor's debuginfod cache
 * if it is there; else the supervisor is asked once (it downloads on a
 * thread of its own) and the symbolizer looks again later (-EAGAIN), for
 * fetch_wait_ns; then none.
 */
static int fetch_build_id(const uint8_t *id, size_t len, char *path, size_t pathlen, void *data)
{
	struct worker *w = data;
	int64_t now = jank_clock_monotonic_ns();
	char hex[2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1];
	struct json_object *msg;
	int fd;

	if (len < JANK_DEBUGINFOD_MIN_BUILD_ID || len > JANK_DEBUGINFOD_MAX_BUILD_ID)
		return -ENOENT;
	fd = jank_debuginfod_open_cached(w->fetch_cache, id, len, path, pathlen);
	if (fd >= 0)
		return fd;
	for (size_t i = 0; i < FETCH_ASKED; i++)
		if (w->asked[i].len == len && !memcmp(w->asked[i].id, id, len))
			return now - w->asked[i].when < w->fetch_wait_ns ? -EAGAIN : -ENOENT;
	memcpy(w->asked[w->next_asked].id, id, len);
	w->asked[w->next_asked].len = len;
	w->asked[w->next_asked].when = now;
	w->next_asked = (w->next_asked + 1) % FETCH_ASKED;
	jank_debuginfod_hex(hex, id, len);
	msg = jank_worker_proto_new("fetch");
	jank_json_add_str(msg, "build_id", hex);
	send_msg(w, msg);
	return -EAGAIN;
}

/* With [symbols] debuginfod-urls, binaries no local file names are asked of the supervisor. */
static int set_fetcher(struct worker *w, const struct jank_config *c)
{
	struct jank_symbols *sym = jank_live_input_symbols(w->input);
	struct jank_debuginfod_config dc;

	jank_config_debuginfod(c, &dc);
	if (!sym)
		return 0;
	if (!jank_debuginfod_enabled(&dc)) {
		jank_symbols_set_fetcher(sym, NULL, NULL);
		return 0;
	}
	w->fetch_cache = strdup(dc.cache);
	if (!w->fetch_cache)
		return -ENOMEM;
	w->fetch_wait_ns =
		dc.timeout_ns < INT64_MAX / 8 ? 4 * dc.timeout_ns + FETCH_SLACK_NS : INT64_MAX / 2;
	jank_symbols_set_fetcher(sym, fetch_build_id, w);
	return 0;
}

/* ---- Messages from the supervisor ---- */

static int add_timer(struct worker *w, struct event **ev, int64_t ns, event_callback_fn fn)
{
	struct timeval tv = jank_clock_timeval(ns);

	*ev = event_new(w->base, -1, EV_PERSIST, fn, w);
	return *ev && event_add(*ev, &tv) == 0 ? 0 : -ENOMEM;
}

/* The texts of the configuration file and its drop-ins: the supervisor checked them already. */
static int load_config(struct json_object *msg, struct jank_config *c, char *err, size_t len)
{
	struct json_object *a = jank_json_get(msg, "config", json_type_array);
	size_t n = a ? json_object_array_length(a) : 0;
	struct jank_config_sources s = { .v = calloc(n + 1, sizeof(*s.v)), .n = n };
	int r;

	if (!n || !s.v) {
		free(s.v);
		snprintf(err, len, "no configuration");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct json_object *t = jank_json_get(o, "text", json_type_string);
		const char *name = jank_json_get_str(o, "name");

		/* Borrowed from msg, read only. */
		s.v[i].name = (char *)(name ? name : "config");
		s.v[i].text = (char *)(t ? json_object_get_string(t) : "");
		s.v[i].len = t ? (size_t)json_object_get_string_len(t) : 0;
	}
	r = jank_config_load_sources(c, &s, err, len);
	free(s.v);
	return r;
}

static int start_input(struct worker *w, const struct jank_config *c, int64_t margin_ns,
		       bool crosshost, char *err, size_t len)
{
	struct jank_engine_config ec;

	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(c, &ec);
	ec.gc = true;
	ec.report_all = false;
	w->input = jank_live_input_new(w->base, w->url, &ec, c, on_verdict, w, err, len);
	if (!w->input)
		return -ENOMEM;
	jank_live_input_set_attached_cb(w->input, on_attached, w);
	w->hosts = jank_whosts_new(w->input, send_hosts_msg, w);
	if (!w->hosts)
		return -ENOMEM;
	jank_whosts_set_on(w->hosts, crosshost);
	jank_live_input_set_clock_margin(w->input, margin_ns);
	if (set_fetcher(w, c) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	jank_live_input_set_decoder(w->input, (enum jank_decoder)c->live.decoder);
	w->rate_mono = jank_clock_monotonic_ns();
	if (jank_live_input_start(w->input) < 0 ||
	    add_timer(w, &w->ev_tick, TICK_NS, on_tick) < 0) {
		snprintf(err, len, "cannot start the event loop");
		return -EIO;
	}
	return 0;
}

static int start(struct worker *w, struct json_object *msg, char *err, size_t len)
{
	const char *mode = jank_json_get_str(msg, "mode");
	const char *url = jank_json_get_str(msg, "url");
	struct jank_config c;
	int64_t margin = 0;
	int r;

	if (w->mode != MODE_NONE || !mode || !url || strlen(url) >= sizeof(w->url)) {
		snprintf(err, len, "bad start message");
		return -EPROTO;
	}
	memcpy(w->url, url, strlen(url) + 1);
	jank_json_get_i64(msg, "margin_ns", &margin);
	jank_json_get_i64(msg, "interval_ns", &w->interval_ns);
	r = load_config(msg, &c, err, len);
	if (r < 0)
		return r;
	if (!strcmp(mode, "discover")) {
		w->mode = MODE_DISCOVER;
		r = add_timer(w, &w->ev_discover,
			      w->interval_ns > 0 ? w->interval_ns : HEARTBEAT_NS, on_discover);
		if (r == 0)
			on_discover(-1, 0, w);
	} else {
		struct json_object *x = jank_json_get(msg, "crosshost", json_type_boolean);

		w->mode = MODE_INPUT;
		r = start_input(w, &c, margin, x && json_object_get_boolean(x), err, len);
		if (r == 0) {
			load_baselines(w, msg);
			r = add_timer(w, &w->ev_save, SAVE_NS, on_save);
		}
	}
	jank_config_fini(&c);
	if (r == 0)
		r = add_timer(w, &w->ev_status, STATUS_MIN_NS, on_status);
	if (r == 0 && !(w->ev_now = evtimer_new(w->base, on_status_now, w)))
		r = -ENOMEM;
	if (r == 0)
		send_status(w);
	return r;
}

/* New rules and [graph] limits; a failure leaves the old ones (and says so). */
static void reload(struct worker *w, struct json_object *msg)
{
	struct jank_engine_config ec;
	struct jank_config c;
	char err[ERR_LEN];
	int r;

	if (!w->input)
		return;
	if (load_config(msg, &c, err, sizeof(err)) < 0) {
		jank_log(LOG_ERR, "%s: cannot read the new configuration: %s; its rules stay",
			 w->url, err);
		return;
	}
	r = jank_live_input_replace_rules(w->input, &c);
	if (r < 0)
		jank_log(LOG_ERR, "%s: cannot replace the rules and flows: %s; its rules stay",
			 w->url, strerror(-r));
	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(&c, &ec);
	jank_live_input_set_limits(w->input, &ec);
	jank_config_fini(&c);
	send_status(w);
}

static void finish(struct worker *w, int status) __attribute__((noreturn));

static void finish(struct worker *w, int status)
{
	if (w->input) {
		jank_whosts_flush(w->hosts);
		jank_live_input_stop(w->input);
		jank_live_input_update_rate(w->input);
		send_status(w);
		send_baselines(w);
	}
	flush_out(w);
	_exit(status);
}

static void on_read(struct bufferevent *bev, void *data)
{
	struct worker *w = data;
	struct json_object *msg;
	char err[ERR_LEN];
	int r;

	while ((r = jank_worker_proto_read(&w->reader, bufferevent_get_input(bev), &msg)) > 0) {
		const char *type = jank_worker_proto_type(msg);

		if (!strcmp(type, "start") && start(w, msg, err, sizeof(err)) < 0) {
			jank_log(LOG_ERR, "%s: the worker cannot start: %s", w->url, err);
			json_object_put(msg);
			finish(w, 1);
		} else if (!strcmp(type, "reload")) {
			reload(w, msg);
		} else if (!strcmp(type, "path")) {
			jank_whosts_request(w->hosts, msg);
		} else if (!strcmp(type, "crosshost")) {
			struct json_object *on = jank_json_get(msg, "on", json_type_boolean);

			jank_whosts_set_on(w->hosts, on && json_object_get_boolean(on));
		} else if (!strcmp(type, "retry")) {
			if (w->input)
				jank_live_input_retry(w->input);
		} else if (!strcmp(type, "stop")) {
			json_object_put(msg);
			finish(w, 0);
		}
		json_object_put(msg);
	}
	if (r < 0)
		_exit(1);
}

/* The supervisor is gone: nobody to work for. */
static void on_event(struct bufferevent *bev, short what, void *data)
{
	(void)bev;
	(void)data;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		_exit(0);
}

/*
 * Before anything is read: the sandbox (worker-sandbox.h). Its failure is
 * said to the supervisor, as a log line and an exit status of its own.
 */
static void sandbox(struct worker *w, const char *who)
{
	struct jank_worker_user u;
	char err[ERR_LEN];
	int r = who ? jank_worker_user_parse(who, &u) : -EINVAL;

	if (r < 0)
		snprintf(err, sizeof(err), "bad worker user '%s' on the command line",
			 who ? who : "");
	else
		r = jank_worker_sandbox_enter(&u, err, sizeof(err));
	if (r < 0) {
		jank_log(LOG_ERR, "the worker cannot drop its privileges: %s", err);
		flush_out(w);
		_exit(JANK_WORKER_EXIT_SANDBOX);
	}
}

int jank_worker_main(int argc, char **argv)
{
	struct worker w = { 0 };
	long ppid = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	/* A worker of this very supervisor, or nothing (it is not for a user to start). */
	if (ppid <= 1 || getppid() != ppid)
		return 1;
	jank_binary_opener_client_init();   /* before anything takes its descriptor */
	jank_relayd_client_init();	    /* the same */
	prctl(PR_SET_NAME, "jankd-worker"); /* not "exe", from /proc/self/exe */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* sd_notify is the supervisor's alone. */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	w.base = event_base_new();
	if (!w.base || evutil_make_socket_nonblocking(JANK_WORKER_FD) < 0)
		return 1;
	w.bev = bufferevent_socket_new(w.base, JANK_WORKER_FD, BEV_OPT_CLOSE_ON_FREE);
	if (!w.bev)
		return 1;
	jank_log_set_journal(false);
	jank_log_set_sink(send_log, &w);
	jank_worker_catch_oom();
	sandbox(&w, argc > 3 ? argv[3] : NULL);
	/*
	 * Die with the supervisor, even if it died before this line. After the
	 * change of user, which clears the parent-death signal.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != ppid)
		return 1;
	bufferevent_setcb(w.bev, on_read, NULL, on_event, &w);
	bufferevent_enable(w.bev, EV_READ);
	event_base_dispatch(w.base);
	return 1;
}
