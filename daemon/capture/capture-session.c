/* SPDX-License-Identifier: MIT */
/*
 * The capture session: what the config asks of it, and bringing it up, down
 * and up again (see capture-session.h). lttng-ctl only through s->ops; no
 * lttng-ctl call runs under s->lock.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "capture-rotation.h"
#include "capture-session.h"
#include "dirtree.h"

#define MSG_LEN		(PATH_MAX + 1024)
#define MIN_SUBBUF_SIZE 4096
#define NUM_SUBBUF	4

/* ---- Wants ---- */

void jank_capture_want_fini(struct jank_capture_want *w)
{
	for (size_t i = 0; i < w->nevents; i++)
		free(w->events[i]);
	free(w->events);
	memset(w, 0, sizeof(*w));
}

static int want_add_event(struct jank_capture_want *w, const char *name)
{
	char **v;

	for (size_t i = 0; i < w->nevents; i++)
		if (!strcmp(w->events[i], name))
			return 0;
	v = realloc(w->events, (w->nevents + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->events = v;
	v[w->nevents] = strdup(name);
	if (!v[w->nevents])
		return -ENOMEM;
	w->nevents++;
	return 0;
}

int jank_capture_want_from_config(struct jank_capture_want *w, const struct jank_config *c)
{
	bool any = false;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < c->nrules; i++)
		any |= c->rules[i].capture;
	w->mode = c->capture.mode;
	w->enabled = any && c->capture.mode != JANK_CAPTURE_NONE;
	w->named = c->capture.session[0] != '\0';
	snprintf(w->name, sizeof(w->name), "%s",
		 w->named ? c->capture.session : JANK_CAPTURE_SESSION_DEFAULT_NAME);
	w->buffer_size = c->capture.buffer_size;
	w->network = c->live.network;
	if (w->mode == JANK_CAPTURE_ROTATION) {
		const char *dir = c->capture.dir ? c->capture.dir : JANK_CAPTURE_DEFAULT_DIR;
		int n = snprintf(w->output, sizeof(w->output), "%s/%s/%s", dir,
				 JANK_CAPTURE_SESSION_ROTATING_DIR, w->name);

		if (n < 0 || (size_t)n >= sizeof(w->output))
			return -ENAMETOOLONG;
		w->period_ns = c->capture.rotation_period_ns;
		w->size = c->capture.rotation_size;
	}
	for (size_t i = 0; i < c->nrules; i++)
		if (want_add_event(w, c->rules[i].begin_event) < 0 ||
		    want_add_event(w, c->rules[i].end_event) < 0)
			goto nomem;
	for (size_t i = 0; i < c->nflows; i++)
		if (want_add_event(w, c->flows[i].from_event) < 0 ||
		    want_add_event(w, c->flows[i].to_event) < 0)
			goto nomem;
	for (size_t i = 0; i < c->capture.nevents; i++)
		if (want_add_event(w, c->capture.events[i]) < 0)
			goto nomem;
	/* The report names the functions as the alert did. */
	for (size_t i = 0; c->graph.functions && jank_function_events[i]; i++)
		if (want_add_event(w, jank_function_events[i]) < 0)
			goto nomem;
	return 0;
nomem:
	jank_capture_want_fini(w);
	return -ENOMEM;
}

int jank_capture_want_copy(struct jank_capture_want *dst, const struct jank_capture_want *src)
{
	*dst = *src;
	dst->events = NULL;
	dst->nevents = 0;
	for (size_t i = 0; i < src->nevents; i++) {
		if (want_add_event(dst, src->events[i]) < 0) {
			jank_capture_want_fini(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

bool jank_capture_want_equal(const struct jank_capture_want *a, const struct jank_capture_want *b)
{
	if (a->enabled != b->enabled || a->mode != b->mode || a->named != b->named ||
	    strcmp(a->name, b->name) || a->buffer_size != b->buffer_size ||
	    a->network != b->network || a->nevents != b->nevents || strcmp(a->output, b->output) ||
	    a->period_ns != b->period_ns || a->size != b->size)
		return false;
	for (size_t i = 0; i < a->nevents; i++)
		if (strcmp(a->events[i], b->events[i]))
			return false;
	return true;
}

/* ---- The session ---- */

void jank_capture_session_init(struct jank_capture_session *s,
			       const struct jank_capture_session_ops *ops, pthread_mutex_t *lock,
			       jank_capture_session_log_fn log, void *log_data)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->lock = lock;
	s->log = log;
	s->log_data = log_data;
	s->watch_ns = JANK_CAPTURE_SESSION_WATCH_NS;
}

void jank_capture_session_fini(struct jank_capture_session *s)
{
	jank_capture_want_fini(&s->current);
	jank_capture_want_fini(&s->lost);
}

static void lock(struct jank_capture_session *s)
{
	if (s->lock)
		pthread_mutex_lock(s->lock);
}

static void unlock(struct jank_capture_session *s)
{
	if (s->lock)
		pthread_mutex_unlock(s->lock);
}

static void say(struct jank_capture_session *s, int priority, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct jank_capture_session *s, int priority, const char *fmt, ...)
{
	char line[MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->log)
		s->log(s->log_data, priority, line);
}

void jank_capture_session_down(struct jank_capture_session *s)
{
	char err[JANK_CAPTURE_SESSION_ERR_LEN] = "";
	struct jank_capture_want old;

	lock(s);
	old = s->current;
	memset(&s->current, 0, sizeof(s->current));
	unlock(s);
	if (old.enabled && s->owned) {
		int r = s->ops->destroy(old.name, err, sizeof(err));

		if (r < 0)
			say(s, LOG_WARNING, "cannot destroy the capture session '%s': %s", old.name,
			    err);
		else if (r & JANK_LTTNG_SESSION_ABSENT)
			say(s, LOG_NOTICE,
			    "the capture session '%s' was gone already (lttng-sessiond "
			    "restarted?): nothing to destroy",
			    old.name);
		else if (r > 0)
			say(s, LOG_WARNING, "capture session: %s", err);
		else
			say(s, LOG_INFO, "destroyed the capture session '%s'", old.name);
		/* Rotation: what is left of its chunks belongs to no capture. */
		if (old.mode == JANK_CAPTURE_ROTATION && old.output[0])
			jank_dirtree_remove(old.output);
	}
	lock(s);
	s->owned = false;
	unlock(s);
	s->chunks_seen = 0; /* a new session numbers its chunks from 0 */
	jank_capture_want_fini(&old);
}

static void session_failed(struct jank_capture_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void session_failed(struct jank_capture_session *s, const char *fmt, ...)
{
	char why[JANK_CAPTURE_SESSION_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	lock(s);
	snprintf(s->error, sizeof(s->error), "%s", why);
	unlock(s);
	if (!s->retrying)
		say(s, LOG_ERR, "captures are off until a reload: %s", why);
}

static uint64_t subbuf_size(uint64_t buffer)
{
	uint64_t want = buffer / NUM_SUBBUF, p = MIN_SUBBUF_SIZE;

	while (p < want && p < (UINT64_C(1) << 40))
		p <<= 1;
	return p;
}

/*
 * Make again a session jankd owned: one that is there after all is kept as
 * it is (destroying it, or its rotation output, would lose what it holds).
 * Returns 1 when kept, else 0.
 */
static int kept_after_all(struct jank_capture_session *s, const struct jank_capture_want *w, int r)
{
	if (!s->retrying || (r != 1 && r != -EEXIST))
		return 0;
	lock(s);
	s->recreate_refused++;
	unlock(s);
	say(s, LOG_NOTICE,
	    "the capture session '%s' is there after all: kept as it is, not made again", w->name);
	return 1;
}

/* Create the session jankd owns: 0, 1 when it was there after all (kept), or -errno. */
static int session_create(struct jank_capture_session *s, const struct jank_capture_want *w,
			  bool *kernel_ok)
{
	struct jank_lttng_session_spec spec = {
		.name = w->name,
		.ust_events = (const char *const *)w->events,
		.n_ust_events = w->nevents,
		.kernel = true,
		.no_network = !w->network,
		.keep_existing = s->retrying,
	};
	char err[JANK_CAPTURE_SESSION_ERR_LEN] = "";
	int r;

	if (w->buffer_size) {
		spec.subbuf_size = subbuf_size(w->buffer_size);
		spec.num_subbuf = NUM_SUBBUF;
	}
	/* Its output holds the chunks of a session that may still be there: look first. */
	if (s->retrying && kept_after_all(s, w, s->ops->exists(w->name, err, sizeof(err))))
		return 1;
	if (w->mode == JANK_CAPTURE_ROTATION) {
		/* Chunks of an earlier run belong to no capture. */
		jank_dirtree_remove(w->output);
		r = jank_dirtree_make(w->output);
		if (r < 0) {
			session_failed(s, "cannot create %s: %s", w->output, strerror(-r));
			return r;
		}
		r = s->ops->create(&spec, w->output, (uint64_t)(w->period_ns / 1000), w->size,
				   kernel_ok, err, sizeof(err));
	} else {
		r = s->ops->create(&spec, NULL, 0, 0, kernel_ok, err, sizeof(err));
	}
	if (kept_after_all(s, w, r))
		return 1;
	if (r < 0) {
		session_failed(s, "cannot create the capture session '%s': %s", w->name, err);
		return r;
	}
	/* The kernel warning once per run, whatever reloads do. */
	if (r > 0 && ((r & ~JANK_LTTNG_SESSION_NO_KERNEL) || !s->kernel_warned))
		say(s, LOG_WARNING, "capture session '%s': %s%s", w->name, err,
		    *kernel_ok ? ""
			       : " (captures hold no scheduler, system call, block or "
				 "network events)");
	s->kernel_warned |= !*kernel_ok;
	say(s, LOG_INFO, "created the capture session '%s' (%s mode, %zu events besides jank:*%s)",
	    w->name, jank_capture_mode_name(w->mode), w->nevents,
	    *kernel_ok ? ", kernel channel on" : "");
	return 0;
}

/* Bring the session up as `w` says: 0, 1 (made again: it was there after all), or -errno. */
static int session_up(struct jank_capture_session *s, const struct jank_capture_want *w)
{
	char err[JANK_CAPTURE_SESSION_ERR_LEN] = "";
	bool kernel_ok = false, owned = true;
	int r, made = 0;

	if (w->named) {
		r = s->ops->exists(w->name, err, sizeof(err));
		if (r < 0) {
			session_failed(s, "cannot look for the capture session '%s': %s", w->name,
				       err);
			return r;
		}
		owned = r == 0;
		if (!owned && w->mode == JANK_CAPTURE_ROTATION) {
			session_failed(s,
				       "the capture session '%s' exists: rotation mode needs a "
				       "session of its own (name another one, or none)",
				       w->name);
			return -EEXIST;
		}
	}
	if (owned) {
		made = session_create(s, w, &kernel_ok);
		if (made < 0)
			return made;
		if (made == 1)
			kernel_ok = s->kernel_ok; /* as it was */
	} else {
		say(s, LOG_INFO,
		    "adopted the existing capture session '%s' (it must be in snapshot mode; "
		    "jankd leaves it as it is)",
		    w->name);
	}
	lock(s);
	r = jank_capture_want_copy(&s->current, w);
	s->owned = owned;
	s->kernel_ok = kernel_ok;
	s->error[0] = '\0';
	unlock(s);
	if (r < 0 && owned)
		s->ops->destroy(w->name, err, sizeof(err));
	return r < 0 ? r : made;
}

void jank_capture_session_apply(struct jank_capture_session *s, const struct jank_capture_want *w)
{
	/* s->current is written by this thread only: reading it needs no lock. */
	if (s->current.enabled && w->enabled && jank_capture_want_equal(&s->current, w))
		return;
	jank_capture_want_fini(&s->lost); /* the config says what to make now */
	s->sessiond_away = false;
	s->again_failing = false;
	s->watch_ns = JANK_CAPTURE_SESSION_WATCH_NS;
	jank_capture_session_down(s);
	lock(s);
	s->error[0] = '\0';
	unlock(s);
	if (w->enabled)
		session_up(s, w);
}

/* Nothing wrong (any more): the next look after WATCH_NS. */
static void watch_ok(struct jank_capture_session *s)
{
	if (s->sessiond_away)
		say(s, LOG_NOTICE, "lttng-sessiond answers again, with the capture session");
	s->sessiond_away = false;
	s->watch_ns = JANK_CAPTURE_SESSION_WATCH_NS;
}

static void watch_later(struct jank_capture_session *s)
{
	s->watch_ns = s->watch_ns * 2 > JANK_CAPTURE_SESSION_WATCH_MAX_NS
			      ? JANK_CAPTURE_SESSION_WATCH_MAX_NS
			      : s->watch_ns * 2;
}

/* Make the lost session again; a failure is logged once, and retried later. */
static void session_again(struct jank_capture_session *s)
{
	struct jank_capture_want w;
	int r;

	if (jank_capture_want_copy(&w, &s->lost) < 0)
		return;
	s->retrying = true;
	r = session_up(s, &w);
	if (r >= 0) {
		jank_capture_want_fini(&s->lost);
		if (r == 0) {
			lock(s);
			s->recreated++;
			unlock(s);
			say(s, LOG_NOTICE, "created the capture session '%s' again", w.name);
		}
		s->again_failing = false;
		watch_ok(s);
	} else {
		if (!s->again_failing)
			say(s, LOG_WARNING, "cannot create the capture session again: %s; retrying",
			    s->error);
		s->again_failing = true;
		watch_later(s);
	}
	s->retrying = false;
	jank_capture_want_fini(&w);
}

/*
 * The capture session jankd created dies with lttng-sessiond: look for it,
 * and make it again once lttng-sessiond is back. A session jankd adopted is
 * not its to make.
 */
static void session_watch(struct jank_capture_session *s, int64_t now)
{
	char err[JANK_CAPTURE_SESSION_ERR_LEN] = "";
	enum jank_sessiond_verdict v;
	int r;

	s->watch_mono = now;
	s->watch_now = false;
	if (s->lost.enabled) {
		session_again(s);
		return;
	}
	if (!s->current.enabled || !s->owned)
		return;
	r = s->ops->exists(s->current.name, err, sizeof(err));
	v = jank_sessiond_probe_judge(&s->probe, r, s->ops->answers);
	if (v == JANK_SESSIOND_ASK_AGAIN) {
		if (s->watch_ns > JANK_SESSIOND_PROBE_AGAIN_NS)
			s->watch_resume_ns = s->watch_ns;
		s->watch_ns = JANK_SESSIOND_PROBE_AGAIN_NS;
		return;
	}
	if (s->watch_ns == JANK_SESSIOND_PROBE_AGAIN_NS) /* the pace before the doubt */
		s->watch_ns = s->watch_resume_ns;
	switch (v) {
	case JANK_SESSIOND_ASK_AGAIN:
		return;
	case JANK_SESSIOND_GONE:
		if (!s->sessiond_away)
			say(s, LOG_WARNING,
			    "%s: the capture session '%s' will be created again once "
			    "lttng-sessiond is back",
			    err, s->current.name);
		s->sessiond_away = true;
		watch_later(s);
		return;
	case JANK_SESSIOND_FAILING:
		if (!s->sessiond_failing)
			say(s, LOG_WARNING,
			    "lttng-sessiond answers, but cannot say whether the capture session "
			    "'%s' exists: %s; asking again",
			    s->current.name, err);
		s->sessiond_failing = true;
		watch_later(s);
		return;
	case JANK_SESSIOND_PRESENT:
		s->sessiond_failing = false;
		watch_ok(s);
		return;
	case JANK_SESSIOND_SESSION_LOST:
		break;
	}
	say(s, LOG_WARNING,
	    "the capture session '%s' is gone from lttng-sessiond (restarted?): creating it "
	    "again",
	    s->current.name);
	lock(s);
	s->lost = s->current; /* its events move over */
	memset(&s->current, 0, sizeof(s->current));
	snprintf(s->error, sizeof(s->error), "gone from lttng-sessiond; being created again");
	s->owned = false;
	unlock(s);
	s->chunks_seen = 0;
	s->sessiond_away = false;
	session_again(s);
}

bool jank_capture_session_watching(const struct jank_capture_session *s)
{
	return s->lost.enabled || (s->current.enabled && s->owned);
}

void jank_capture_session_tick(struct jank_capture_session *s, int64_t now)
{
	if (!jank_capture_session_watching(s))
		return;
	if (s->watch_now || now - s->watch_mono >= s->watch_ns)
		session_watch(s, now);
}

/* ---- A capture ---- */

int jank_capture_session_record(struct jank_capture_session *s, struct jank_capture_rotation *rot,
				struct jank_capture_policy *policy, const char *dir,
				struct jank_capture_outcome *out, char *err, size_t len)
{
	int r = -ENOTCONN;

	err[0] = '\0';
	/* s->current is written by this thread only. */
	if (!s->current.enabled)
		snprintf(err, len, "the capture session is gone");
	else if (s->current.mode == JANK_CAPTURE_ROTATION)
		r = jank_capture_rotation_collect(rot, s, policy, dir, err, len);
	else
		r = s->ops->snapshot_record(s->current.name, dir, err, len);
	/* The session may have died with lttng-sessiond: look at once. */
	if (r == -ENOENT || r == -ECONNREFUSED)
		s->watch_now = true;
	lock(s);
	r = jank_capture_policy_done(policy, dir, r == 0, err, out) == 0 && r == 0 ? 0 : -EIO;
	unlock(s);
	if (r < 0 && !err[0])
		snprintf(err, len, "the capture was not recorded");
	return r;
}
