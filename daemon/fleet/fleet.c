/* SPDX-License-Identifier: MIT */
/*
 * jankd's inputs and their workers (see fleet.h).
 *
 * Workers are only ever read from: the loop never waits for one. SIGCHLD
 * reaps them, a timer every second kills those silent past the timeout, and
 * an input that discovery let go is freed once its worker is gone (from a
 * zero timeout, never inside the worker's own callbacks).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fetcher.h"
#include "fleet-int.h"

/* ---- Inputs ---- */

/* HOST and SESSION of net://RELAYD/host/HOST/SESSION. */
static int split_url(const char *url, char **host, char **session)
{
	const char *h = strstr(url, "/host/"), *s;

	if (!h || !(s = strchr(h + 6, '/')))
		return -EINVAL;
	h += 6;
	*host = strndup(h, (size_t)(s - h));
	*session = strdup(s + 1);
	return *host && *session ? 0 : -ENOMEM;
}

static void input_free(struct jank_fleet_input *in)
{
	if (!in)
		return;
	jank_worker_proc_free(in->proc);
	jank_input_figures_fini(&in->status);
	jank_input_figures_fini(&in->past);
	free(in->url);
	free(in->host);
	free(in->session);
	free(in);
}

static const struct jank_worker_proc_ops input_ops;

/* Its pids are this host's: the binary opener may open their binaries. */
static bool input_on_this_host(const char *url)
{
	char host[256];

	host[sizeof(host) - 1] = '\0';
	return gethostname(host, sizeof(host) - 1) == 0 && jank_relayd_url_on_host(url, host);
}

/*
 * Whether the inputs are of two hosts or more: only then do the workers send
 * their flows for the join across hosts (crossing.h). Said to every worker
 * when it changes, and in each start message.
 */
static void crosshost_update(struct jank_fleet *f)
{
	bool multi = false;

	for (size_t i = 1; i < f->n && !multi; i++)
		multi = strcmp(f->inputs[i]->host, f->inputs[0]->host) != 0;
	for (size_t i = 0; multi && f->crossing && i < f->n; i++)
		jank_crossing_add_host(f->crossing, f->inputs[i]->host);
	if (multi == f->multi_host)
		return;
	f->multi_host = multi;
	for (size_t i = 0; i < f->n; i++) {
		struct json_object *msg = jank_worker_proto_new("crosshost");

		if (msg && jank_json_add_bool(msg, "on", multi) == 0)
			jank_worker_proc_send(f->inputs[i]->proc, msg);
		else
			json_object_put(msg);
	}
}

struct jank_fleet_input *fleet_input_add(struct jank_fleet *f, const char *url, bool discovered)
{
	struct jank_fleet_input *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->fleet = f;
	in->discovered = discovered;
	jank_alerted_init(&in->alerted);
	jank_skipped_init(&in->skipped);
	in->url = strdup(url);
	jank_input_figures_init(&in->status);
	jank_input_figures_init(&in->past);
	jank_input_figures_placeholder(&in->status, url);
	if (f->n == f->cap) {
		size_t cap = jank_array_grow(&f->inputs, sizeof(*f->inputs), f->cap, 8);

		f->cap = cap ? cap : f->cap;
	}
	if (f->n == f->cap || !in->url || split_url(url, &in->host, &in->session) < 0 ||
	    !(in->proc = jank_worker_proc_new(f->base, url, f->live->worker_timeout_ns, &input_ops,
					      in))) {
		input_free(in);
		return NULL;
	}
	if (jank_worker_proc_set_relayd(in->proc, url) < 0) {
		input_free(in);
		return NULL;
	}
	jank_worker_proc_want_opener(in->proc, input_on_this_host(url));
	f->inputs[f->n++] = in;
	crosshost_update(f);
	return in;
}

/* Say once what a restart skipped: the new worker read its first event. */
static void say_skipped(const struct jank_fleet_input *in, const struct jank_skipped_range *r)
{
	char d[32];

	jank_log(LOG_WARNING,
		 "input %s: %s of events skipped after a worker restart (trace time %" PRId64
		 " to %" PRId64 " ns: the new worker reads from relayd's newest packets); %" PRIu64
		 " open action%s lost",
		 in->url, jank_units_duration(r->to - r->from, d, sizeof(d)), r->from, r->to,
		 r->lost, r->lost == 1 ? "" : "s");
}

/* The current worker read events from `first` to `last` (INT64_MIN: not said). */
static void progress(struct jank_fleet_input *in, int64_t first, int64_t last, uint64_t open)
{
	struct jank_skipped_range r;

	if (jank_skipped_progress(&in->skipped, first, last, open, &r))
		say_skipped(in, &r);
}

/* A frame the supervisor cannot read: the worker is restarted (worker-proc.h). */
void fleet_refuse(struct jank_proc *p, const char *kind, const char *err)
{
	char what[384];

	snprintf(what, sizeof(what), "%s that cannot be read (%s)", kind, err);
	jank_worker_proc_refuse(p, what);
}

static void on_verdict(struct jank_fleet_input *in, struct json_object *msg)
{
	struct jank_fleet *f = in->fleet;
	struct jank_verdict_decoded pv;
	struct json_object *v = NULL;
	struct jank_jr jr;
	int64_t first;
	char err[256];
	int r;

	jank_json_read_init(&jr);
	if (jank_json_read_member(&jr, msg, "verdict", json_type_object, true, &v) < 0 ||
	    jank_json_read_int(&jr, msg, "first_event_ns", false, -JANK_VERDICT_TIME_MAX,
			       JANK_VERDICT_TIME_MAX, INT64_MIN, &first) < 0) {
		fleet_refuse(in->proc, "a verdict", jank_json_read_error(&jr, err, sizeof(err)));
		return;
	}
	r = jank_worker_proto_verdict_decode(v, f->rules, f->nrules, &pv, err, sizeof(err));
	if (r == -ENOMEM) {
		jank_log(LOG_ERR, "%s: out of memory: a verdict from the worker is lost", in->url);
	} else if (r < 0) {
		fleet_refuse(in->proc, "a verdict", err);
	} else {
		/* A completed action ends at an event the worker read. */
		progress(in, first, pv.v.kind == JANK_VERDICT_COMPLETED ? pv.v.end : INT64_MIN,
			 in->skipped.open);
		/* A path that crosses to another host waits for that host's part. */
		if (!jank_alerted_check(&in->alerted, &pv.v) &&
		    (!f->crossing || jank_crossing_verdict(f->crossing, in, in->host, &pv) == 0))
			f->verdict_fn(in, &pv.v, f->data);
	}
	jank_verdict_decoded_fini(&pv);
}

static void on_status(struct jank_fleet_input *in, struct json_object *msg)
{
	struct json_object *st;
	struct jank_input_figures fig;
	char err[256];
	int r;

	/* Without figures, a heartbeat. */
	if (!json_object_object_get_ex(msg, "input", &st))
		return;
	jank_input_figures_init(&fig);
	r = jank_worker_proto_figures_decode(st, &fig, err, sizeof(err));
	if (r == -ENOMEM) {
		jank_log(LOG_ERR, "%s: out of memory: a status of the worker is lost", in->url);
		return;
	}
	if (r < 0) {
		fleet_refuse(in->proc, "a status", err);
		return;
	}
	progress(in, fig.engine.first, fig.last_event_ns, fig.engine.actions_open);
	jank_input_figures_fini(&in->status);
	in->status = fig;
	in->fresh = true;
	if (!strcmp(fig.state, "connected"))
		jank_worker_proc_recovered(in->proc, "attached again");
	if (fig.attached && !in->attached) {
		in->attached = true;
		in->fleet->change_fn(in->fleet->data);
	}
}

/* A worker's log line, made harmless (jank_worker_proto_log_decode). */
void fleet_on_log(struct jank_proc *p, struct json_object *msg)
{
	char line[JANK_PROTO_LOG_LEN];
	int prio;

	if (jank_worker_proto_log_decode(msg, &prio, line, sizeof(line)) == 0)
		jank_log(prio, "%s", line);
	else
		jank_worker_proc_refuse(p,
					"a log line that cannot be read (no message string, or a "
					"priority that is not syslog's)");
}

/* ---- An input's worker ---- */

struct json_object *fleet_start_msg(struct jank_fleet *f, const char *mode, const char *url)
{
	struct json_object *o = jank_worker_proto_new("start");

	jank_json_add_str(o, "mode", mode);
	jank_json_add_str(o, "url", url);
	jank_json_add(o, "config", json_object_get(f->config));
	jank_json_add_i64(o, "margin_ns", f->live->timer_ns);
	jank_json_add_i64(o, "interval_ns", f->live->discover_interval_ns);
	return o;
}

struct json_object *fleet_input_start_msg(struct jank_proc *p, void *data)
{
	struct jank_fleet_input *in = data;
	struct json_object *msg, *baselines;

	(void)p;
	in->fresh = false;
	/* A worker ended: the new one reads from relayd's newest packets, past a gap. */
	jank_skipped_worker_ended(&in->skipped);
	/* Keep its counters, the new one starts from zero. */
	if (in->status.reported) {
		if (jank_input_figures_fold(&in->past, &in->status) < 0)
			jank_log(LOG_ERR, "%s: out of memory: some past figures are lost", in->url);
		jank_input_figures_placeholder(&in->status, in->url);
	}
	msg = fleet_start_msg(in->fleet, "input", in->url);
	if (msg && jank_json_add_bool(msg, "crosshost", in->fleet->multi_host) < 0) {
		json_object_put(msg);
		return NULL;
	}
	baselines = fleet_state_read(in->fleet, in->url);
	if (baselines && msg)
		jank_json_add(msg, "baselines", baselines);
	else
		json_object_put(baselines);
	/* A frame is at most JANK_PROTO_MAX_FRAME: without them, rather than no start. */
	if (baselines && msg &&
	    strlen(json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN)) >
		    JANK_PROTO_MAX_FRAME) {
		json_object_object_del(msg, "baselines");
		jank_log(LOG_WARNING,
			 "%s: the saved baselines and the configuration are longer "
			 "than " JANK_PROTO_MAX_FRAME_TEXT
			 " together: the worker starts without them",
			 in->url);
	}
	return msg;
}

/* A binary the worker cannot name: its build-id, for the fetcher. */
static void on_fetch(struct jank_fleet_input *in, struct json_object *msg)
{
	struct jank_fleet *f = in->fleet;
	uint8_t id[JANK_DEBUGINFOD_MAX_BUILD_ID];
	const char *hex;
	struct jank_jr jr;
	char err[256];
	int n;

	jank_json_read_init(&jr);
	if (jank_json_read_str(&jr, msg, "build_id", true, 2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1,
			       &hex) < 0 ||
	    ((n = jank_fetcher_decode_hex(hex, id, sizeof(id))) < 0 &&
	     jank_json_read_fail(&jr, "build_id",
				 "not a build-id in lowercase hex, 8 to 64 bytes") < 0)) {
		fleet_refuse(in->proc, "a fetch", jank_json_read_error(&jr, err, sizeof(err)));
		return;
	}
	if (f->fetch_fn)
		f->fetch_fn(id, (size_t)n, f->fetch_data);
}

void jank_fleet_set_fetch(struct jank_fleet *f, jank_fleet_fetch_fn fn, void *data)
{
	f->fetch_fn = fn;
	f->fetch_data = data;
}

/* Frames of the worker's recent verdicts, named since (worker-proto.h). */
static void on_names(struct jank_fleet_input *in, struct json_object *msg)
{
	struct jank_fleet *f = in->fleet;
	struct jank_worker_proto_names *n = malloc(sizeof(*n));
	char err[256];

	if (!n) {
		jank_log(LOG_ERR, "%s: out of memory: names from the worker are lost", in->url);
		return;
	}
	if (jank_worker_proto_names_decode(msg, n, err, sizeof(err)) < 0)
		fleet_refuse(in->proc, "names", err);
	else
		for (size_t i = 0; f->names_fn && i < n->n; i++)
			f->names_fn(in, n->v[i].frame, n->v[i].name, f->names_data);
	free(n);
}

void jank_fleet_set_names(struct jank_fleet *f, jank_fleet_names_fn fn, void *data)
{
	f->names_fn = fn;
	f->names_data = data;
}

/* A "flows" message or a "path" answer, for the join across hosts (crossing.h). */
static void on_crossing(struct jank_fleet_input *in, struct json_object *msg, bool flows)
{
	char err[256];
	int r;

	if (!in->fleet->crossing)
		return;
	r = flows ? jank_crossing_flows(in->fleet->crossing, in->host, msg, err, sizeof(err))
		  : jank_crossing_path(in->fleet->crossing, in->host, msg, err, sizeof(err));
	if (r == -EINVAL)
		fleet_refuse(in->proc, flows ? "flows" : "a path", err);
}

void fleet_input_message(struct jank_proc *p, struct json_object *msg, void *data)
{
	const char *type = jank_worker_proto_type(msg);

	if (!strcmp(type, "flows") || !strcmp(type, "path"))
		on_crossing(data, msg, type[0] == 'f');
	else if (!strcmp(type, "verdict"))
		on_verdict(data, msg);
	else if (!strcmp(type, "status"))
		on_status(data, msg);
	else if (!strcmp(type, "log"))
		fleet_on_log(p, msg);
	else if (!strcmp(type, "baselines"))
		fleet_on_baselines(data, msg);
	else if (!strcmp(type, "fetch"))
		on_fetch(data, msg);
	else if (!strcmp(type, "names"))
		on_names(data, msg);
	else
		jank_worker_proc_refuse(p, "a message of no type an input's worker sends");
}

static void input_gone(struct jank_proc *p, void *data)
{
	struct jank_fleet_input *in = data;

	(void)p;
	if (in->removing)
		event_active(in->fleet->ev_sweep, EV_TIMEOUT, 0);
}

static const struct jank_worker_proc_ops input_ops = {
	.start_msg = fleet_input_start_msg,
	.message = fleet_input_message,
	.gone = input_gone,
};

/* Free the inputs that discovery let go, once their workers are gone. */
static void on_sweep(evutil_socket_t fd, short what, void *data)
{
	struct jank_fleet *f = data;
	size_t k = 0;

	(void)fd;
	(void)what;
	for (size_t i = 0; i < f->n; i++) {
		if (f->inputs[i]->removing && jank_worker_proc_done(f->inputs[i]->proc)) {
			jank_crossing_input_gone(f->crossing, f->inputs[i]);
			input_free(f->inputs[i]);
		} else
			f->inputs[k++] = f->inputs[i];
	}
	f->n = k;
	crosshost_update(f);
}

/* ---- The fleet ---- */

static void on_sigchld(evutil_socket_t fd, short what, void *data)
{
	struct jank_fleet *f = data;

	(void)fd;
	(void)what;
	for (size_t i = 0; i < f->n; i++)
		jank_worker_proc_reap(f->inputs[i]->proc);
	if (f->discovery)
		jank_worker_proc_reap(f->discovery);
}

/*
 * Since when (monotonic) the input's trace time has stood still, or 0: its
 * worker says so (nothing came from relayd for a while, not even a
 * beacon), or the worker has been silent for STALL_NS while connected: it
 * is blocked reading from relayd (stopped, or its host's link down).
 * -1: not connected (a new worker, or the session lost: said elsewhere).
 */
static int64_t stalled_since(const struct jank_fleet_input *in, int64_t now)
{
	struct jank_worker_proc_stats s;

	if (!in->fresh || strcmp(in->status.state, "connected"))
		return -1;
	if (in->status.stalled_since > 0)
		return now - (jank_clock_realtime_ns() - in->status.stalled_since);
	jank_worker_proc_get_stats(in->proc, &s);
	if (jank_worker_proc_running(in->proc) && s.silent_ns >= STALL_NS)
		return now - s.silent_ns;
	return 0;
}

/* Say once that an input stalled, and once that it resumed. */
static void check_stalled(struct jank_fleet_input *in, int64_t now)
{
	int64_t since = stalled_since(in, now);
	char d[32];

	if (since < 0) {
		/* A worker restart goes on with the stall; a lost session ends it. */
		if (in->fresh)
			in->stalled = false;
		return;
	}
	if (since && !in->stalled) {
		in->stalled = true;
		in->stalled_mono = since;
		in->stalled_real = jank_clock_realtime_ns() - (now - since);
		in->stalls++;
		jank_log(LOG_WARNING,
			 "%s: stalled: no event and no beacon for %s (relayd or the traced host "
			 "is not sending); its open actions wait for the trace to advance",
			 in->url, jank_units_duration(now - since, d, sizeof(d)));
	} else if (!since && in->stalled) {
		in->stalled = false;
		jank_log(LOG_NOTICE, "%s: resumed after %s stalled", in->url,
			 jank_units_duration(now - in->stalled_mono, d, sizeof(d)));
	}
}

static void on_check(evutil_socket_t fd, short what, void *data)
{
	struct jank_fleet *f = data;
	int64_t now = jank_clock_monotonic_ns();

	(void)fd;
	(void)what;
	for (size_t i = 0; i < f->n; i++) {
		jank_worker_proc_check(f->inputs[i]->proc, now);
		check_stalled(f->inputs[i], now);
	}
	if (f->discovery)
		jank_worker_proc_check(f->discovery, now);
	jank_crossing_tick(f->crossing);
}

static void crossing_deliver(void *in, const struct jank_verdict *v, void *data)
{
	struct jank_fleet *f = data;

	f->verdict_fn(in, v, f->data);
}

/* A request to a running worker of that host (the first: a host's sessions share its threads). */
static bool crossing_ask(const char *host, struct json_object *msg, void *data)
{
	struct jank_fleet *f = data;

	for (size_t i = 0; i < f->n; i++) {
		struct jank_fleet_input *in = f->inputs[i];

		if (in->host && !strcmp(in->host, host) && jank_worker_proc_running(in->proc)) {
			jank_worker_proc_send(in->proc, msg);
			return true;
		}
	}
	json_object_put(msg);
	return false;
}

struct jank_fleet *jank_fleet_new(struct event_base *base, jank_fleet_verdict_fn verdict,
				  jank_fleet_change_fn change, void *data)
{
	struct jank_fleet *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->base = base;
	f->verdict_fn = verdict;
	f->change_fn = change;
	f->data = data;
	f->ev_sigchld = evsignal_new(base, SIGCHLD, on_sigchld, f);
	f->ev_check = event_new(base, -1, EV_PERSIST, on_check, f);
	f->ev_sweep = evtimer_new(base, on_sweep, f);
	f->crossing = jank_crossing_new(crossing_deliver, crossing_ask, f);
	if (!f->ev_sigchld || !f->ev_check || !f->ev_sweep || !f->crossing ||
	    evsignal_add(f->ev_sigchld, NULL)) {
		jank_fleet_free(f);
		return NULL;
	}
	return f;
}

void jank_fleet_free(struct jank_fleet *f)
{
	if (!f)
		return;
	jank_crossing_free(f->crossing);
	for (size_t i = 0; i < f->n; i++)
		input_free(f->inputs[i]);
	free(f->inputs);
	free(f->state_dir);
	jank_worker_proc_free(f->discovery);
	if (f->ev_sigchld)
		event_free(f->ev_sigchld);
	if (f->ev_check)
		event_free(f->ev_check);
	if (f->ev_sweep)
		event_free(f->ev_sweep);
	json_object_put(f->config);
	free(f);
}

/* The texts a worker parses (worker.c), as a JSON array of {name, text}. */
static struct json_object *sources_json(const struct jank_config_sources *src)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < src->n; i++) {
		struct json_object *o = json_object_new_object();

		if (!o || jank_json_add_str(o, "name", src->v[i].name) < 0 ||
		    jank_json_add(o, "text",
				  json_object_new_string_len(src->v[i].text, (int)src->v[i].len)) <
			    0 ||
		    json_object_array_add(a, o) != 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

int jank_fleet_set_config(struct jank_fleet *f, const struct jank_config *c,
			  const struct jank_config_sources *src)
{
	struct json_object *config = sources_json(src);
	bool reload = f->config != NULL;

	if (!config)
		return -ENOMEM;
	json_object_put(f->config);
	f->config = config;
	f->rules = c->rules;
	f->nrules = c->nrules;
	f->live = &c->live;
	jank_crossing_set_flows(f->crossing, c->flows, c->nflows);
	jank_crossing_set_timeout(f->crossing, c->live.crossing_timeout_ns);
	/* [daemon] state-dir needs a restart: the first one stays. */
	if (!reload && c->daemon.state_dir && !(f->state_dir = strdup(c->daemon.state_dir)))
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		struct json_object *msg = jank_worker_proto_new("reload");

		jank_json_add(msg, "config", json_object_get(f->config));
		if (reload)
			jank_worker_proc_send(f->inputs[i]->proc, msg);
		else
			json_object_put(msg);
		jank_worker_proc_set_timeout(f->inputs[i]->proc, c->live.worker_timeout_ns);
	}
	if (f->discovery)
		jank_worker_proc_set_timeout(f->discovery, c->live.worker_timeout_ns);
	return 0;
}

int jank_fleet_add_url(struct jank_fleet *f, const char *url)
{
	return fleet_input_add(f, url, false) ? 0 : -ENOMEM;
}

void jank_fleet_retry(struct jank_fleet *f, const char *url)
{
	struct jank_fleet_input *in = fleet_input_find(f, url);

	if (in && !in->removing)
		jank_worker_proc_send(in->proc, jank_worker_proto_new("retry"));
}

int jank_fleet_start(struct jank_fleet *f)
{
	struct timeval tv = jank_clock_timeval(CHECK_NS);

	if (event_add(f->ev_check, &tv) != 0)
		return -ENOMEM;
	if (f->live->discover[0]) {
		char name[JANK_CONFIG_URL_LEN + 16];

		snprintf(name, sizeof(name), "discovery of %s", f->live->discover);
		f->discovery = jank_worker_proc_new(f->base, name, f->live->worker_timeout_ns,
						    &fleet_discovery_ops, f);
		if (!f->discovery ||
		    jank_worker_proc_set_relayd(f->discovery, f->live->discover) < 0)
			return -ENOMEM;
		jank_worker_proc_start(f->discovery);
	}
	for (size_t i = 0; i < f->n; i++)
		jank_worker_proc_start(f->inputs[i]->proc);
	return 0;
}

static bool all_done(const struct jank_fleet *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (!jank_worker_proc_done(f->inputs[i]->proc))
			return false;
	return !f->discovery || jank_worker_proc_done(f->discovery);
}

/* Run the loop until every worker is gone, or until `deadline`. */
static void wait_done(struct jank_fleet *f, int64_t deadline)
{
	struct event *ev = evtimer_new(f->base, on_check, f);
	struct timeval tv = jank_clock_timeval(100000000LL);

	while (ev && !all_done(f) && jank_clock_monotonic_ns() < deadline) {
		evtimer_add(ev, &tv); /* wakes the loop at least this often */
		event_base_loop(f->base, EVLOOP_ONCE);
	}
	if (ev)
		event_free(ev);
}

void jank_fleet_stop(struct jank_fleet *f, int64_t timeout_ns)
{
	int64_t deadline = jank_clock_monotonic_ns() + timeout_ns;

	f->stopping = true;
	if (f->discovery)
		jank_worker_proc_retire(f->discovery);
	for (size_t i = 0; i < f->n; i++)
		jank_worker_proc_stop(f->inputs[i]->proc);
	wait_done(f, deadline);
	if (all_done(f))
		return;
	for (size_t i = 0; i < f->n; i++) {
		if (jank_worker_proc_done(f->inputs[i]->proc))
			continue;
		jank_log(LOG_WARNING, "%s: the worker did not stop in time: killed",
			 f->inputs[i]->url);
		jank_worker_proc_retire(f->inputs[i]->proc);
	}
	wait_done(f, jank_clock_monotonic_ns() + 1000000000LL);
}

bool jank_fleet_ready(const struct jank_fleet *f, size_t *waiting)
{
	size_t w = 0;

	for (size_t i = 0; i < f->n; i++)
		w += !f->inputs[i]->attached && !f->inputs[i]->removing;
	*waiting = w;
	return w == 0 && (!f->discovery || f->listed);
}

bool jank_fleet_discovering(const struct jank_fleet *f)
{
	return f->live && f->live->discover[0];
}

size_t jank_fleet_count(const struct jank_fleet *f)
{
	return f->n;
}

const struct jank_fleet_input *jank_fleet_get(const struct jank_fleet *f, size_t i)
{
	return i < f->n ? f->inputs[i] : NULL;
}

const char *jank_fleet_input_url(const struct jank_fleet_input *in)
{
	return in->url;
}

const char *jank_fleet_input_host(const struct jank_fleet_input *in)
{
	return in->host;
}

const char *jank_fleet_input_session(const struct jank_fleet_input *in)
{
	return in->session;
}

bool jank_fleet_input_attached(const struct jank_fleet_input *in)
{
	return in->attached;
}

const struct jank_input_figures *jank_fleet_input_status(const struct jank_fleet_input *in)
{
	return &in->status;
}

int64_t jank_fleet_input_skipped(const struct jank_fleet_input *in, int64_t begin, int64_t end)
{
	return jank_skipped_overlap(&in->skipped, begin, end);
}

int64_t jank_fleet_input_skipped_total(const struct jank_fleet_input *in)
{
	return in->skipped.total_ns;
}
