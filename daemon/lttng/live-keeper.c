/* SPDX-License-Identifier: MIT */
/*
 * The live session jankd owns, kept alive (see live-keeper.h).
 *
 * Threads: the loop thread starts and stops the keeper, tells it what the
 * input says (jank_live_keeper_input) and reads its state for the status;
 * the keeper thread makes every lttng-ctl call once jankd runs (a call may
 * wait on a daemon that is starting or dying). They share the fields under
 * `lock`; the keeper hands its log lines and its retry requests to the loop
 * through a pipe, as the capturer does.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "json-util.h"
#include "live-keeper.h"
#include "log.h"
#include "lttng-session.h"
#include "sessiond-probe.h"

#define ERR_LEN	    1024
#define LINE_LEN    1280
#define CHECK_NS    1000000000LL  /* lttng-sessiond is asked this often */
#define BACKOFF_MIN 1000000000LL  /* a daemon away: the next attempt after 1 s... */
#define BACKOFF_MAX 30000000000LL /* ... doubling up to 30 s */
/*
 * relayd must have failed to list the session for this long before the
 * session is taken for lost: the input asks relayd every second.
 */
#define STALE_NS 2000000000LL
/* A new session gets this long (doubling while it keeps failing) to be listed. */
#define GRACE_MIN 5000000000LL

/* What the keeper sees wrong now (the input may see more: relayd's side). */
enum keep_problem {
	KEEP_OK = 0,
	KEEP_SESSIOND, /* lttng-sessiond does not answer (evidence: sessiond-probe.h) */
	KEEP_FAILING,  /* lttng-sessiond answers, but cannot say whether the session exists */
	KEEP_RELAYD,   /* the session cannot be created: relayd does not answer */
	KEEP_MISSING,  /* the session cannot be created, for another reason */
};

static const char *const problem_names[] = {
	[KEEP_OK] = "",
	[KEEP_SESSIOND] = "sessiond unreachable",
	[KEEP_FAILING] = "sessiond failing",
	[KEEP_RELAYD] = "relayd unreachable",
	[KEEP_MISSING] = "session missing",
};

/* A log line, or a retry request (text NULL), for the loop. */
struct note {
	struct note *next;
	int priority;
	char *text;
};

struct jank_live_keeper {
	struct event_base *base;
	struct event *ev_wake;
	int wake[2];
	jank_live_keeper_retry_fn retry_fn;
	void *retry_data;

	/* The session: what it is made of, and its URL (set at start, read only after). */
	char name[JANK_CONFIG_SESSION_LEN];
	char relayd[JANK_CONFIG_URL_LEN];
	unsigned live_port;
	int64_t timer_us;
	uint64_t tracefile_size, tracefile_count;
	bool network; /* [live] network */
	char **events;
	size_t nevents;
	char url[JANK_CONFIG_URL_LEN];
	bool kernel_ok;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running; /* the thread */
	bool stopping;
	bool stopped;
	struct note *notes, **notes_tail;

	/* Under the lock. */
	enum jank_live_input_problem input_problem;
	int64_t input_since;
	enum keep_problem problem;
	int64_t problem_since; /* wall clock */
	char error[ERR_LEN];
	uint64_t recreations;
	uint64_t probes_unconfirmed; /* answers not taken at their word (sessiond-probe.h) */
	uint64_t recreate_refused;   /* creations again that found the session still there */

	/* The keeper thread only. */
	struct jank_sessiond_probe probe;
	int64_t backoff_ns;
	int64_t grace_ns;
	int64_t created_mono;
};

/* ---- Notes for the loop ---- */

static void wake_loop(struct jank_live_keeper *k)
{
	char c = 1;

	if (write(k->wake[1], &c, 1) < 0) {
		/* EAGAIN: a wake-up is pending already. */
	}
}

static void post(struct jank_live_keeper *k, int priority, const char *text)
{
	struct note *n = calloc(1, sizeof(*n));

	if (n && text && !(n->text = strdup(text))) {
		free(n);
		n = NULL;
	}
	if (!n) {
		if (text) /* not queued: the line is not lost */
			jank_log(priority, "%s", text);
		return;
	}
	n->priority = priority;
	pthread_mutex_lock(&k->lock);
	*k->notes_tail = n;
	k->notes_tail = &n->next;
	pthread_mutex_unlock(&k->lock);
	wake_loop(k);
}

static void post_log(struct jank_live_keeper *k, int priority, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void post_log(struct jank_live_keeper *k, int priority, const char *fmt, ...)
{
	char line[LINE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (k->running)
		post(k, priority, line);
	else
		jank_log(priority, "%s", line);
}

/* Loop thread: log the lines, and have the input attach after a creation. */
static void drain(struct jank_live_keeper *k)
{
	struct note *n, *next;

	pthread_mutex_lock(&k->lock);
	n = k->notes;
	k->notes = NULL;
	k->notes_tail = &k->notes;
	pthread_mutex_unlock(&k->lock);
	for (; n; n = next) {
		next = n->next;
		if (n->text)
			jank_log(n->priority, "%s", n->text);
		else if (k->retry_fn && !k->stopped)
			k->retry_fn(k->url, k->retry_data);
		free(n->text);
		free(n);
	}
}

static void on_wake(evutil_socket_t fd, short what, void *data)
{
	char buf[64];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	drain(data);
}

/* ---- The session ---- */

/* Create the session; its warnings logged. Returns 0 or -errno (message in err). */
static int create(struct jank_live_keeper *k, bool again, char *err, size_t len)
{
	struct jank_lttng_session_spec spec = {
		.name = k->name,
		.relayd_url = k->relayd[0] ? k->relayd : NULL,
		.relayd_live_port = k->live_port,
		.live_timer_us = k->timer_us,
		.tracefile_size = k->tracefile_size,
		.tracefile_count = k->tracefile_count,
		.ust_events = (const char *const *)k->events,
		.n_ust_events = k->nevents,
		.kernel = true,
		.no_network = !k->network,
		/* Made again: a session that is there after all is never replaced. */
		.keep_existing = again,
	};
	bool kernel_ok = false, warned = again && !k->kernel_ok;
	char url[JANK_CONFIG_URL_LEN];
	int r;

	err[0] = '\0';
	r = jank_lttng_session_create_live(&spec, url, sizeof(url), &kernel_ok, err, len);
	if (r < 0)
		return r;
	k->kernel_ok = kernel_ok;
	snprintf(k->url, sizeof(k->url), "%s", url);
	/* The kernel tracer's absence once per run: a creation again says nothing new. */
	if (r > 0 && err[0] && ((r & ~JANK_LTTNG_SESSION_NO_KERNEL) || !warned))
		post_log(k, LOG_WARNING, "live session '%s': %s", k->name, err);
	else if (!kernel_ok && !warned)
		post_log(k, LOG_WARNING,
			 "live session '%s': no kernel tracer: user-space events only (no "
			 "scheduler events: critical paths stay on the action's own thread)",
			 k->name);
	return 0;
}

/* The keeper's problem is now `p` (KEEP_OK: none): set it, and its start if it is new. */
static void set_problem(struct jank_live_keeper *k, enum keep_problem p, const char *err)
{
	pthread_mutex_lock(&k->lock);
	if (p != k->problem)
		k->problem_since = p == KEEP_OK ? 0 : jank_clock_realtime_ns();
	k->problem = p;
	snprintf(k->error, sizeof(k->error), "%s", p == KEEP_OK ? "" : err);
	pthread_mutex_unlock(&k->lock);
}

/* A daemon is away: say it once per outage; the next attempt backs off. */
static int64_t away(struct jank_live_keeper *k, enum keep_problem p, const char *err)
{
	int64_t next = k->backoff_ns;

	if (p != k->problem) {
		if (p == KEEP_SESSIOND)
			post_log(k, LOG_WARNING,
				 "%s: the live session '%s' will be created again once "
				 "lttng-sessiond is back; retrying",
				 err, k->name);
		else
			post_log(k, LOG_WARNING,
				 "cannot create the live session '%s' again: %s; retrying", k->name,
				 err);
	}
	set_problem(k, p, err);
	k->backoff_ns = next * 2 > BACKOFF_MAX ? BACKOFF_MAX : next * 2;
	return next;
}

static enum keep_problem problem_of(int r)
{
	return r == -ECONNREFUSED ? KEEP_SESSIOND : r == -EHOSTUNREACH ? KEEP_RELAYD : KEEP_MISSING;
}

/* Create the session again (destroying what sessiond has left of it first). */
static int64_t recreate(struct jank_live_keeper *k, bool destroy_first, const char *why)
{
	char err[ERR_LEN];
	int r;

	if (k->problem == KEEP_OK || k->problem == KEEP_SESSIOND)
		post_log(k, LOG_WARNING, "%s", why);
	if (destroy_first) {
		err[0] = '\0';
		r = jank_lttng_session_destroy(k->name, err, sizeof(err));
		if (r < 0)
			return away(k, problem_of(r), err);
		if (r & JANK_LTTNG_SESSION_UNSETTLED)
			post_log(k, LOG_INFO, "live session: %s", err);
	}
	r = create(k, true, err, sizeof(err));
	if (r == -EEXIST) {
		/* Destroying it would lose what it holds: it is kept, and counted. */
		pthread_mutex_lock(&k->lock);
		k->recreate_refused++;
		pthread_mutex_unlock(&k->lock);
		post_log(k, LOG_NOTICE,
			 "the live session '%s' is there after all: kept as it is, not made again",
			 k->name);
		set_problem(k, KEEP_OK, "");
		k->backoff_ns = BACKOFF_MIN;
		return CHECK_NS;
	}
	if (r < 0)
		return away(k, problem_of(r), err);
	pthread_mutex_lock(&k->lock);
	k->recreations++;
	pthread_mutex_unlock(&k->lock);
	set_problem(k, KEEP_OK, "");
	post_log(k, LOG_NOTICE, "created the live session '%s' again (%s)", k->name, k->url);
	post(k, LOG_INFO, NULL); /* the input attaches now */
	k->backoff_ns = BACKOFF_MIN;
	k->created_mono = jank_clock_monotonic_ns();
	return CHECK_NS;
}

/*
 * Relayd lost the session: the input has seen relayd answer without it for
 * a while, and the session had time to appear since it was created.
 */
static bool relayd_lost_it(struct jank_live_keeper *k, enum jank_live_input_problem p,
			   int64_t since)
{
	if (p != JANK_LIVE_INPUT_SESSION_MISSING) {
		if (p == JANK_LIVE_INPUT_OK)
			k->grace_ns = GRACE_MIN;
		return false;
	}
	if (jank_clock_realtime_ns() - since < STALE_NS ||
	    jank_clock_monotonic_ns() - k->created_mono < k->grace_ns)
		return false;
	/* A session created again that relayd does not list either: wait longer next time. */
	k->grace_ns = k->grace_ns * 2 > BACKOFF_MAX ? BACKOFF_MAX : k->grace_ns * 2;
	return true;
}

/* lttng-sessiond answers, but its calls keep failing: say so, make nothing again. */
static int64_t failing(struct jank_live_keeper *k, const char *err)
{
	if (k->problem != KEEP_FAILING)
		post_log(k, LOG_WARNING,
			 "lttng-sessiond answers, but cannot say whether the live session '%s' "
			 "exists: %s; asking again",
			 k->name, err);
	set_problem(k, KEEP_FAILING, err);
	return CHECK_NS;
}

/* One look at the session; the time until the next one. */
static int64_t keep(struct jank_live_keeper *k)
{
	enum jank_live_input_problem ip;
	enum jank_sessiond_verdict v;
	char err[ERR_LEN], why[LINE_LEN];
	int64_t since;
	int r;

	pthread_mutex_lock(&k->lock);
	ip = k->input_problem;
	since = k->input_since;
	pthread_mutex_unlock(&k->lock);
	err[0] = '\0';
	r = jank_lttng_session_exists(k->name, err, sizeof(err));
	v = jank_sessiond_probe_judge(&k->probe, r, jank_lttng_sessiond_answers);
	pthread_mutex_lock(&k->lock);
	k->probes_unconfirmed = k->probe.unconfirmed;
	pthread_mutex_unlock(&k->lock);
	switch (v) {
	case JANK_SESSIOND_ASK_AGAIN:
		return JANK_SESSIOND_PROBE_AGAIN_NS;
	case JANK_SESSIOND_GONE:
		return away(k, KEEP_SESSIOND, err);
	case JANK_SESSIOND_FAILING:
		return failing(k, err);
	case JANK_SESSIOND_SESSION_LOST:
		snprintf(why, sizeof(why),
			 "the live session '%s' is gone from lttng-sessiond (restarted?): "
			 "creating it again",
			 k->name);
		return recreate(k, false, why);
	case JANK_SESSIOND_PRESENT:
		break;
	}
	if (relayd_lost_it(k, ip, since)) {
		snprintf(why, sizeof(why),
			 "relayd no longer lists the live session '%s', which lttng-sessiond "
			 "still has (relayd restarted?): destroying it and creating it again",
			 k->name);
		return recreate(k, true, why);
	}
	if (k->problem != KEEP_OK)
		post_log(k, LOG_NOTICE, "lttng-sessiond answers again, with the live session '%s'",
			 k->name);
	set_problem(k, KEEP_OK, "");
	k->backoff_ns = BACKOFF_MIN;
	return CHECK_NS;
}

static void *keeper_main(void *data)
{
	struct jank_live_keeper *k = data;
	int64_t next = CHECK_NS;

	pthread_mutex_lock(&k->lock);
	while (!k->stopping) {
		struct timespec until;
		int64_t t;

		clock_gettime(CLOCK_MONOTONIC, &until);
		t = (int64_t)until.tv_nsec + next;
		until.tv_sec += t / 1000000000LL;
		until.tv_nsec = t % 1000000000LL;
		while (!k->stopping && pthread_cond_timedwait(&k->cond, &k->lock, &until) == 0)
			;
		if (k->stopping)
			break;
		pthread_mutex_unlock(&k->lock);
		next = keep(k);
		pthread_mutex_lock(&k->lock);
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

/* ---- Public ---- */

static int add_event(struct jank_live_keeper *k, const char *name)
{
	char **v;

	for (size_t i = 0; i < k->nevents; i++)
		if (!strcmp(k->events[i], name))
			return 0;
	v = realloc(k->events, (k->nevents + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k->events = v;
	if (!(v[k->nevents] = strdup(name)))
		return -ENOMEM;
	k->nevents++;
	return 0;
}

struct jank_live_keeper *jank_live_keeper_new(struct event_base *base, const struct jank_config *c,
					      jank_live_keeper_retry_fn retry, void *data)
{
	struct jank_live_keeper *k = calloc(1, sizeof(*k));
	pthread_condattr_t ca;

	if (!k)
		return NULL;
	k->base = base;
	k->wake[0] = k->wake[1] = -1;
	k->retry_fn = retry;
	k->retry_data = data;
	k->notes_tail = &k->notes;
	snprintf(k->name, sizeof(k->name), "%s", c->live.session);
	snprintf(k->relayd, sizeof(k->relayd), "%s", c->live.relayd);
	k->live_port = c->live.relayd_live_port;
	k->timer_us = c->live.timer_ns / 1000;
	k->tracefile_size = c->live.tracefile_size;
	k->tracefile_count = c->live.tracefile_count;
	k->network = c->live.network;
	k->backoff_ns = BACKOFF_MIN;
	k->grace_ns = GRACE_MIN;
	pthread_mutex_init(&k->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cond, &ca);
	pthread_condattr_destroy(&ca);
	for (size_t i = 0; i < c->nrules; i++) {
		if (add_event(k, c->rules[i].begin_event) < 0 ||
		    add_event(k, c->rules[i].end_event) < 0) {
			jank_live_keeper_free(k);
			return NULL;
		}
	}
	/* A flow's events, like an action's: the engine pairs what the session records. */
	for (size_t i = 0; i < c->nflows; i++) {
		if (add_event(k, c->flows[i].from_event) < 0 ||
		    add_event(k, c->flows[i].to_event) < 0) {
			jank_live_keeper_free(k);
			return NULL;
		}
	}
	/* [graph] functions: each thread's call stack, and the statedump that names it. */
	for (size_t i = 0; c->graph.functions && jank_function_events[i]; i++) {
		if (add_event(k, jank_function_events[i]) < 0) {
			jank_live_keeper_free(k);
			return NULL;
		}
	}
	return k;
}

int jank_live_keeper_start(struct jank_live_keeper *k, char *err, size_t len)
{
	sigset_t all, old;
	int r;

	r = create(k, false, err, len);
	if (r < 0) {
		char why[ERR_LEN];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, len, "cannot create the live session '%s': %s", k->name, why);
		return r;
	}
	jank_log(LOG_INFO, "created the live session '%s' (%s)", k->name, k->url);
	k->created_mono = jank_clock_monotonic_ns();
	if (pipe2(k->wake, O_NONBLOCK | O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(err, len, "cannot make a pipe: %s", strerror(errno));
		return r;
	}
	k->ev_wake = event_new(k->base, k->wake[0], EV_READ | EV_PERSIST, on_wake, k);
	if (!k->ev_wake || event_add(k->ev_wake, NULL) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	/* Signals are the loop's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	k->running = true;
	r = pthread_create(&k->thread, NULL, keeper_main, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		k->running = false;
		snprintf(err, len, "cannot start the live session's keeper: %s", strerror(r));
		return -r;
	}
	return 0;
}

const char *jank_live_keeper_url(const struct jank_live_keeper *k)
{
	return k->url;
}

bool jank_live_keeper_kernel(const struct jank_live_keeper *k)
{
	return k->kernel_ok;
}

void jank_live_keeper_input(struct jank_live_keeper *k, enum jank_live_input_problem p,
			    int64_t since)
{
	pthread_mutex_lock(&k->lock);
	k->input_problem = p;
	k->input_since = since;
	pthread_mutex_unlock(&k->lock);
}

void jank_live_keeper_status(struct jank_live_keeper *k, struct jank_fleet_figures *x)
{
	struct jank_input_figures *f = &x->fig;
	const char *name;
	int64_t since;

	pthread_mutex_lock(&k->lock);
	x->kept = true;
	x->session_recreated = k->recreations;
	x->session_probes_unconfirmed = k->probes_unconfirmed;
	x->session_recreate_refused = k->recreate_refused;
	if (k->problem == KEEP_OK) {
		pthread_mutex_unlock(&k->lock);
		return;
	}
	/* The same problem seen by the input too: since the first saw it. */
	name = problem_names[k->problem];
	since = f->problem_since;
	if (!since || strcmp(name, f->problem) || k->problem_since < since)
		since = k->problem_since;
	snprintf(f->problem, sizeof(f->problem), "%s", name);
	f->problem_since = since;
	/* Cut to the figure's size (an lttng-ctl message can be longer). */
	snprintf(f->last_error, sizeof(f->last_error), "%.*s", (int)sizeof(f->last_error) - 1,
		 k->error);
	pthread_mutex_unlock(&k->lock);
}

void jank_live_keeper_halt(struct jank_live_keeper *k)
{
	if (!k || !k->running)
		return;
	pthread_mutex_lock(&k->lock);
	k->stopping = true;
	pthread_cond_broadcast(&k->cond);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	k->running = false;
}

void jank_live_keeper_stop(struct jank_live_keeper *k)
{
	char err[ERR_LEN];
	int r;

	if (!k || k->stopped)
		return;
	jank_live_keeper_halt(k);
	k->stopped = true;
	drain(k);
	if (!k->url[0])
		return; /* never created */
	err[0] = '\0';
	r = jank_lttng_session_destroy(k->name, err, sizeof(err));
	if (r < 0)
		jank_log(LOG_WARNING, "cannot destroy the live session '%s': %s", k->name, err);
	else if (r & JANK_LTTNG_SESSION_ABSENT)
		jank_log(LOG_NOTICE,
			 "the live session '%s' was gone already (lttng-sessiond restarted?): "
			 "nothing to destroy",
			 k->name);
	else if (r > 0)
		jank_log(LOG_WARNING, "destroyed the live session '%s', but: %s", k->name, err);
	else
		jank_log(LOG_INFO, "destroyed the live session '%s'", k->name);
}

void jank_live_keeper_free(struct jank_live_keeper *k)
{
	if (!k)
		return;
	jank_live_keeper_stop(k);
	if (k->ev_wake)
		event_free(k->ev_wake);
	if (k->wake[0] >= 0)
		close(k->wake[0]);
	if (k->wake[1] >= 0)
		close(k->wake[1]);
	for (size_t i = 0; i < k->nevents; i++)
		free(k->events[i]);
	free(k->events);
	pthread_cond_destroy(&k->cond);
	pthread_mutex_destroy(&k->lock);
	free(k);
}
