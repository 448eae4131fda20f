/* SPDX-License-Identifier: MIT */
/*
 * jankd's captures: the capture session, the policy, the workers (see
 * capture-worker.h).
 *
 * One mutex guards everything the threads share: the policy object, the
 * job queues, the message list, the session state and the counters. No
 * lttng-ctl call and no analysis runs under it; the loop thread holds it
 * for jank_capture_policy_decide(), whose disk work (statvfs, and the quota's walk
 * of the capture dir) runs only when a capture is about to start.
 *
 * Order of a capture: decide (loop) → snapshot record (recorder) →
 * jank_capture_policy_done (recorder) → report (analyst) → follow-up entry (loop).
 * The recorder takes its jobs in order, so a session change asked by a
 * reload never cuts a snapshot in half.
 *
 * Rotation mode: the capture session is a normal one writing to
 * DIR/.rotating/NAME, rotated by lttng on its schedule. A capture rotates it
 * at once (the jank's end is then in an archived chunk), and moves the
 * archived chunks that overlap [begin - retention, end] of its janks (the
 * flagged one and those that joined) into DIR/TIME-ACTION-TID/chunks/. Once
 * a second, the recorder deletes the chunks that overlap no captured jank
 * and ended more than twice the retention ago (an action still open may yet
 * become a jank, and chunk times are whole seconds).
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "capture-policy.h"
#include "dirtree.h"
#include "json-util.h"
#include "capture-worker.h"
#include "log.h"
#include "format.h"
#include "capture-report.h"
#include "lttng-session.h"

#define ERR_LEN		1024
#define MSG_LEN		(PATH_MAX + 1024)
#define MIN_SUBBUF_SIZE 4096
#define NUM_SUBBUF	4
#define ROTATING_DIR	".rotating"
#define HOUSEKEEPING_S	1
#define MAX_JANKS	1024 /* captured janks remembered for their chunks */
/*
 * The capture session jankd owns is looked for this often; while lttng-
 * sessiond is away, or the session cannot be made again, the next look
 * backs off, doubling up to WATCH_MAX_NS.
 */
#define WATCH_NS     2000000000LL
#define WATCH_MAX_NS 30000000000LL

/* What the config asks of the capture session. */
struct want {
	bool enabled; /* mode snapshot or rotation, and some rule has capture = yes */
	enum jank_capture_mode mode;
	bool named; /* [capture] session given: adopt it when it exists (snapshot) */
	char name[JANK_CONFIG_SESSION_LEN];
	char **events; /* the rules' events, then [capture] events; no duplicates */
	size_t nevents;
	uint64_t buffer_size;
	char output[PATH_MAX]; /* rotation: the session's output, DIR/.rotating/NAME */
	int64_t period_ns;     /* rotation */
	uint64_t size;	       /* rotation */
};

/* A jank that took or joined a capture (rotation mode: its chunks are kept). */
struct kept_jank {
	struct jank_interval window; /* [begin - retention, end] */
	char dir[PATH_MAX];
};

enum job_kind {
	JOB_SESSION, /* make the session match `want` */
	JOB_RECORD,  /* record a snapshot into `dir` */
};

struct job {
	struct job *next;
	enum job_kind kind;
	struct want want;
	char dir[PATH_MAX];
	char *action, *key; /* for the follow-up entry */
};

enum msg_kind {
	MSG_LOG,
	MSG_REPORT,
	MSG_FAILED, /* a capture failed: its follow-up entry says why */
};

/* From a worker to the loop. */
struct msg {
	struct msg *next;
	enum msg_kind kind;
	int priority;	    /* LOG */
	char *text;	    /* LOG: the line; REPORT: the error, if any; FAILED: why */
	int rc;		    /* REPORT: jank_capture_report_write()'s */
	bool partial;	    /* REPORT */
	char dir[PATH_MAX]; /* REPORT, FAILED */
	char *action, *key; /* REPORT, FAILED */
	char summary[JANK_CAPTURE_REPORT_SUMMARY_LEN];
};

struct queue {
	struct job *head;
	struct job **tail;
};

struct jank_capture_worker {
	struct event_base *base;
	struct event *ev_wake;
	int wake[2]; /* workers write a byte; the loop reads the messages */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool threads;  /* the workers run */
	bool stopping; /* the workers finish their queues, then exit */
	bool stopped;
	bool direct; /* log at once (no loop yet, or no more) */
	pthread_t recorder, analyst;
	struct queue jobs;    /* recorder's */
	struct queue reports; /* analyst's (JOB_RECORD jobs whose snapshot is complete) */
	struct msg *msgs, **msgs_tail;

	struct jank_alerter *alerter; /* where the follow-ups go */
	/* The config, as last applied. */
	enum jank_capture_mode mode;
	struct jank_capture_policy *policy;

	/* The session, as the recorder left it. */
	struct want current; /* what it was made from; enabled: it is up */
	bool owned;	     /* jankd created it: destroy it at exit */
	bool kernel_ok;
	bool kernel_warned;
	char session_error[ERR_LEN]; /* why it is not up, "" when it is or is off */
	int64_t retention_ns;	     /* rotation */
	struct kept_jank *janks;     /* rotation: the captured janks of the last while */
	size_t njanks;

	/* Loop thread only. */
	char dir[PATH_MAX];		   /* what jank_capture_worker_jank() returned last */
	char failed[JANK_CAPTURE_MSG_LEN]; /* ... or why its capture failed at once */
	bool no_session_episode;
	bool report_failing;

	/* Counters (under the lock). */
	uint64_t no_session;
	uint64_t reports_ok;	 /* report files written, with a path */
	uint64_t reports_nodata; /* written, saying why there is no path */
	uint64_t reports_failed; /* not written */
	uint64_t report_failure_episodes;
	uint64_t chunks_kept;
	uint64_t chunks_deleted;
	uint64_t rotations_waited; /* captures that waited for a scheduled rotation to end */

	/* Recorder thread only. */
	uint64_t chunks_seen; /* rotation: 1 + the highest chunk index seen, 0: none yet */
	struct want lost;     /* the session jankd owned, gone with lttng-sessiond: to make again */
	bool retrying;	      /* making it again: failures are logged by the caller, once */
	bool again_failing;   /* ... and it failed: logged */
	bool sessiond_away;   /* logged */
	int64_t watch_ns;     /* until the next look */
	int64_t watch_mono;   /* the last look */
	bool watch_now;	      /* a snapshot failed: look at once */
	uint64_t recreated;   /* under the lock */
};

/* ---- Wants ---- */

static void want_fini(struct want *w)
{
	for (size_t i = 0; i < w->nevents; i++)
		free(w->events[i]);
	free(w->events);
	memset(w, 0, sizeof(*w));
}

static int want_add_event(struct want *w, const char *name)
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

static int want_from_config(struct want *w, const struct jank_config *c)
{
	bool any = false;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < c->nrules; i++)
		any |= c->rules[i].capture;
	w->mode = c->capture.mode;
	w->enabled = any && c->capture.mode != JANK_CAPTURE_NONE;
	w->named = c->capture.session[0] != '\0';
	snprintf(w->name, sizeof(w->name), "%s",
		 w->named ? c->capture.session : JANK_CAPTURE_WORKER_DEFAULT_SESSION);
	w->buffer_size = c->capture.buffer_size;
	if (w->mode == JANK_CAPTURE_ROTATION) {
		const char *dir = c->capture.dir ? c->capture.dir : JANK_CAPTURE_DEFAULT_DIR;
		int n = snprintf(w->output, sizeof(w->output), "%s/%s/%s", dir, ROTATING_DIR,
				 w->name);

		if (n < 0 || (size_t)n >= sizeof(w->output))
			return -ENAMETOOLONG;
		w->period_ns = c->capture.rotation_period_ns;
		w->size = c->capture.rotation_size;
	}
	for (size_t i = 0; i < c->nrules; i++)
		if (want_add_event(w, c->rules[i].begin_event) < 0 ||
		    want_add_event(w, c->rules[i].end_event) < 0)
			goto nomem;
	for (size_t i = 0; i < c->capture.nevents; i++)
		if (want_add_event(w, c->capture.events[i]) < 0)
			goto nomem;
	return 0;
nomem:
	want_fini(w);
	return -ENOMEM;
}

static int want_copy(struct want *dst, const struct want *src)
{
	*dst = *src;
	dst->events = NULL;
	dst->nevents = 0;
	for (size_t i = 0; i < src->nevents; i++) {
		if (want_add_event(dst, src->events[i]) < 0) {
			want_fini(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

static bool want_equal(const struct want *a, const struct want *b)
{
	if (a->enabled != b->enabled || a->mode != b->mode || a->named != b->named ||
	    strcmp(a->name, b->name) || a->buffer_size != b->buffer_size ||
	    a->nevents != b->nevents || strcmp(a->output, b->output) ||
	    a->period_ns != b->period_ns || a->size != b->size)
		return false;
	for (size_t i = 0; i < a->nevents; i++)
		if (strcmp(a->events[i], b->events[i]))
			return false;
	return true;
}

/* ---- Queues and messages ---- */

static void queue_init(struct queue *q)
{
	q->head = NULL;
	q->tail = &q->head;
}

static void queue_push(struct queue *q, struct job *j)
{
	j->next = NULL;
	*q->tail = j;
	q->tail = &j->next;
}

static struct job *queue_pop(struct queue *q)
{
	struct job *j = q->head;

	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = &q->head;
	}
	return j;
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	want_fini(&j->want);
	free(j->action);
	free(j->key);
	free(j);
}

static void msg_free(struct msg *m)
{
	free(m->text);
	free(m->action);
	free(m->key);
	free(m);
}

static void wake_loop(struct jank_capture_worker *cp)
{
	char c = 1;

	if (write(cp->wake[1], &c, 1) < 0) {
		/* EAGAIN: the pipe is full, a wake-up is pending already. */
	}
}

/* Queue `m` for the loop. */
static void post(struct jank_capture_worker *cp, struct msg *m)
{
	pthread_mutex_lock(&cp->lock);
	m->next = NULL;
	*cp->msgs_tail = m;
	cp->msgs_tail = &m->next;
	pthread_mutex_unlock(&cp->lock);
	wake_loop(cp);
}

static void post_log(struct jank_capture_worker *cp, int priority, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void post_log(struct jank_capture_worker *cp, int priority, const char *fmt, ...)
{
	char line[MSG_LEN];
	struct msg *m;
	bool direct;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&cp->lock);
	direct = cp->direct;
	pthread_mutex_unlock(&cp->lock);
	m = direct ? NULL : calloc(1, sizeof(*m));
	if (m)
		m->text = strdup(line);
	if (!m || !m->text) {
		if (m)
			msg_free(m);
		/* Not queued (starting, stopping, or no memory): the line is not lost. */
		jank_log(priority, "%s", line);
		return;
	}
	m->kind = MSG_LOG;
	m->priority = priority;
	post(cp, m);
}

/* ---- The follow-up of a report, or of a capture that failed (loop thread) ---- */

/* Through the alerter: to its target (or its test sink), as the alerts go. */
static void followup(struct jank_capture_worker *cp, const struct msg *m)
{
	char report[PATH_MAX + 16];
	struct jank_followup fu = {
		.failed = m->kind == MSG_FAILED,
		.dir = m->dir,
		.action = m->action ? m->action : "?",
		.key = m->key ? m->key : "",
		.report = report,
		.partial = m->partial,
		.ok = m->rc == 0,
	};

	snprintf(report, sizeof(report), "%s/%s", m->dir, JANK_CAPTURE_REPORT_TEXT);
	if (fu.failed) {
		fu.error = m->text ? m->text : "error";
	} else {
		fu.summary = m->summary[0] ? m->summary : (m->text ? m->text : "");
		fu.error = m->rc != 0 ? m->text : NULL;
	}
	if (cp->alerter)
		jank_alerter_followup(cp->alerter, &fu);
}

static void handle_report(struct jank_capture_worker *cp, const struct msg *m)
{
	bool first;

	if (m->rc == 0 || m->rc == -ENODATA) {
		pthread_mutex_lock(&cp->lock);
		if (m->rc == 0)
			cp->reports_ok++;
		else
			cp->reports_nodata++;
		pthread_mutex_unlock(&cp->lock);
		cp->report_failing = false;
		followup(cp, m);
		return;
	}
	first = !cp->report_failing;
	cp->report_failing = true;
	pthread_mutex_lock(&cp->lock);
	cp->reports_failed++;
	if (first)
		cp->report_failure_episodes++;
	pthread_mutex_unlock(&cp->lock);
	if (first)
		jank_log(LOG_WARNING,
			 "capture report failed: %s (further report failures are counted, not "
			 "logged, until a report is written)",
			 m->text ? m->text : m->dir);
}

/* Log and announce what the workers finished. */
static void drain(struct jank_capture_worker *cp)
{
	struct msg *m, *next;

	pthread_mutex_lock(&cp->lock);
	m = cp->msgs;
	cp->msgs = NULL;
	cp->msgs_tail = &cp->msgs;
	pthread_mutex_unlock(&cp->lock);
	for (; m; m = next) {
		next = m->next;
		if (m->kind == MSG_LOG)
			jank_log(m->priority, "%s", m->text);
		else if (m->kind == MSG_FAILED)
			followup(cp, m);
		else
			handle_report(cp, m);
		msg_free(m);
	}
}

static void on_wake(evutil_socket_t fd, short what, void *data)
{
	struct jank_capture_worker *cp = data;
	char buf[64];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	drain(cp);
}

/* ---- The session (recorder thread, or the loop before the workers run) ---- */

static void session_down(struct jank_capture_worker *cp)
{
	char err[ERR_LEN] = "";
	struct want old;

	pthread_mutex_lock(&cp->lock);
	old = cp->current;
	memset(&cp->current, 0, sizeof(cp->current));
	pthread_mutex_unlock(&cp->lock);
	if (old.enabled && cp->owned) {
		int r = jank_lttng_session_destroy(old.name, err, sizeof(err));

		if (r < 0)
			post_log(cp, LOG_WARNING, "cannot destroy the capture session '%s': %s",
				 old.name, err);
		else if (r & JANK_LTTNG_SESSION_ABSENT)
			post_log(cp, LOG_NOTICE,
				 "the capture session '%s' was gone already (lttng-sessiond "
				 "restarted?): nothing to destroy",
				 old.name);
		else if (r > 0)
			post_log(cp, LOG_WARNING, "capture session: %s", err);
		else
			post_log(cp, LOG_INFO, "destroyed the capture session '%s'", old.name);
		/* Rotation: what is left of its chunks belongs to no capture. */
		if (old.mode == JANK_CAPTURE_ROTATION && old.output[0])
			jank_dirtree_remove(old.output);
	}
	cp->owned = false;
	cp->chunks_seen = 0; /* a new session numbers its chunks from 0 */
	want_fini(&old);
}

static void session_failed(struct jank_capture_worker *cp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void session_failed(struct jank_capture_worker *cp, const char *fmt, ...)
{
	char why[ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&cp->lock);
	snprintf(cp->session_error, sizeof(cp->session_error), "%s", why);
	pthread_mutex_unlock(&cp->lock);
	if (!cp->retrying)
		post_log(cp, LOG_ERR, "captures are off until a reload: %s", why);
}

static uint64_t subbuf_size(uint64_t buffer)
{
	uint64_t want = buffer / NUM_SUBBUF, p = MIN_SUBBUF_SIZE;

	while (p < want && p < (UINT64_C(1) << 40))
		p <<= 1;
	return p;
}

static int session_up(struct jank_capture_worker *cp, const struct want *w)
{
	struct jank_lttng_session_spec spec = {
		.name = w->name,
		.ust_events = (const char *const *)w->events,
		.n_ust_events = w->nevents,
		.kernel = true,
	};
	char err[ERR_LEN] = "";
	bool kernel_ok = false, owned = true;
	int r;

	if (w->named) {
		r = jank_lttng_session_exists(w->name, err, sizeof(err));
		if (r < 0) {
			session_failed(cp, "cannot look for the capture session '%s': %s", w->name,
				       err);
			return r;
		}
		owned = r == 0;
		if (!owned && w->mode == JANK_CAPTURE_ROTATION) {
			session_failed(cp,
				       "the capture session '%s' exists: rotation mode needs a "
				       "session of its own (name another one, or none)",
				       w->name);
			return -EEXIST;
		}
	}
	if (owned) {
		if (w->buffer_size) {
			spec.subbuf_size = subbuf_size(w->buffer_size);
			spec.num_subbuf = NUM_SUBBUF;
		}
		if (w->mode == JANK_CAPTURE_ROTATION) {
			/* Chunks of an earlier run belong to no capture. */
			jank_dirtree_remove(w->output);
			r = jank_dirtree_make(w->output);
			if (r < 0) {
				session_failed(cp, "cannot create %s: %s", w->output, strerror(-r));
				return r;
			}
			r = jank_lttng_session_create_rotating(
				&spec, w->output, (uint64_t)(w->period_ns / 1000), w->size,
				&kernel_ok, err, sizeof(err));
		} else {
			r = jank_lttng_session_create_snapshot(&spec, NULL, &kernel_ok, err,
							       sizeof(err));
		}
		if (r < 0) {
			session_failed(cp, "cannot create the capture session '%s': %s", w->name,
				       err);
			return r;
		}
		/* The kernel warning once per run, whatever reloads do. */
		if (r > 0 && ((r & ~JANK_LTTNG_SESSION_NO_KERNEL) || !cp->kernel_warned))
			post_log(cp, LOG_WARNING, "capture session '%s': %s%s", w->name, err,
				 kernel_ok ? ""
					   : " (captures hold no scheduler, system call, block or "
					     "network events)");
		cp->kernel_warned |= !kernel_ok;
		post_log(cp, LOG_INFO,
			 "created the capture session '%s' (%s mode, %zu events besides jank:*%s)",
			 w->name, jank_capture_mode_name(w->mode), w->nevents,
			 kernel_ok ? ", kernel channel on" : "");
	} else {
		post_log(cp, LOG_INFO,
			 "adopted the existing capture session '%s' (it must be in snapshot mode; "
			 "jankd leaves it as it is)",
			 w->name);
	}
	pthread_mutex_lock(&cp->lock);
	r = want_copy(&cp->current, w);
	cp->owned = owned;
	cp->kernel_ok = kernel_ok;
	cp->session_error[0] = '\0';
	pthread_mutex_unlock(&cp->lock);
	if (r < 0 && owned)
		jank_lttng_session_destroy(w->name, err, sizeof(err));
	return r;
}

/* Make the session match `w`: nothing when it does already. */
static void session_apply(struct jank_capture_worker *cp, const struct want *w)
{
	/* cp->current is written by this thread only: reading it needs no lock. */
	if (cp->current.enabled && w->enabled && want_equal(&cp->current, w))
		return;
	want_fini(&cp->lost); /* the config says what to make now */
	cp->sessiond_away = false;
	cp->again_failing = false;
	cp->watch_ns = WATCH_NS;
	session_down(cp);
	pthread_mutex_lock(&cp->lock);
	cp->session_error[0] = '\0';
	pthread_mutex_unlock(&cp->lock);
	if (w->enabled)
		session_up(cp, w);
}

/* Nothing wrong (any more): the next look after WATCH_NS. */
static void watch_ok(struct jank_capture_worker *cp)
{
	if (cp->sessiond_away)
		post_log(cp, LOG_NOTICE, "lttng-sessiond answers again, with the capture session");
	cp->sessiond_away = false;
	cp->watch_ns = WATCH_NS;
}

static void watch_later(struct jank_capture_worker *cp)
{
	cp->watch_ns = cp->watch_ns * 2 > WATCH_MAX_NS ? WATCH_MAX_NS : cp->watch_ns * 2;
}

/* Make the lost session again; a failure is logged once, and retried later. */
static void session_again(struct jank_capture_worker *cp)
{
	struct want w;

	if (want_copy(&w, &cp->lost) < 0)
		return;
	cp->retrying = true;
	if (session_up(cp, &w) == 0) {
		want_fini(&cp->lost);
		pthread_mutex_lock(&cp->lock);
		cp->recreated++;
		pthread_mutex_unlock(&cp->lock);
		post_log(cp, LOG_NOTICE, "created the capture session '%s' again", w.name);
		cp->again_failing = false;
		watch_ok(cp);
	} else {
		if (!cp->again_failing)
			post_log(cp, LOG_WARNING,
				 "cannot create the capture session again: %s; retrying",
				 cp->session_error);
		cp->again_failing = true;
		watch_later(cp);
	}
	cp->retrying = false;
	want_fini(&w);
}

/*
 * The capture session jankd created dies with lttng-sessiond: look for it,
 * and make it again once lttng-sessiond is back (recorder thread). A session
 * jankd adopted is not its to make.
 */
static void session_watch(struct jank_capture_worker *cp)
{
	char err[ERR_LEN] = "";
	int r;

	cp->watch_mono = jank_clock_monotonic_ns();
	cp->watch_now = false;
	if (cp->lost.enabled) {
		session_again(cp);
		return;
	}
	if (!cp->current.enabled || !cp->owned)
		return;
	r = jank_lttng_session_exists(cp->current.name, err, sizeof(err));
	if (r < 0) {
		if (!cp->sessiond_away)
			post_log(cp, LOG_WARNING,
				 "%s: the capture session '%s' will be created again once "
				 "lttng-sessiond is back",
				 err, cp->current.name);
		cp->sessiond_away = true;
		watch_later(cp);
		return;
	}
	if (r == 1) {
		watch_ok(cp);
		return;
	}
	post_log(cp, LOG_WARNING,
		 "the capture session '%s' is gone from lttng-sessiond (restarted?): creating it "
		 "again",
		 cp->current.name);
	pthread_mutex_lock(&cp->lock);
	cp->lost = cp->current; /* its events move over */
	memset(&cp->current, 0, sizeof(cp->current));
	snprintf(cp->session_error, sizeof(cp->session_error),
		 "gone from lttng-sessiond; being created again");
	pthread_mutex_unlock(&cp->lock);
	cp->owned = false;
	cp->chunks_seen = 0;
	cp->sessiond_away = false;
	session_again(cp);
}

/* Time for a look at the session? */
static bool watch_due(const struct jank_capture_worker *cp)
{
	if (!cp->lost.enabled && !(cp->current.enabled && cp->owned))
		return false;
	return cp->watch_now || jank_clock_monotonic_ns() - cp->watch_mono >= cp->watch_ns;
}

/* ---- Workers ---- */

/* The windows of the janks kept for `dir` (all of them when NULL). malloc'd; *n set. */
static struct jank_interval *windows(struct jank_capture_worker *cp, const char *dir, size_t *n)
{
	struct jank_interval *v = malloc((cp->njanks + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < cp->njanks; i++)
		if (!dir || !strcmp(cp->janks[i].dir, dir))
			v[(*n)++] = cp->janks[i].window;
	return v;
}

/* Remember the highest chunk index seen: captures move chunks out of archives/. */
static void note_chunks(struct jank_capture_worker *cp, const struct jank_chunk *chunks, int n)
{
	for (int i = 0; i < n; i++)
		if (chunks[i].index + 1 > cp->chunks_seen)
			cp->chunks_seen = chunks[i].index + 1;
}

/*
 * jank_lttng_session_rotate's `covered` while a rotation is pending. The jank's
 * end is already in the session's buffers (jankd saw it through the live
 * session). Chunk k is archived when rotation k ends, and rotation k+1
 * starts after that. So the rotation pending at the first refusal archives
 * the chunk after the newest one seen then (or, once it has ended, that
 * very one), and a chunk two further was closed by a rotation that started
 * after the refusal: the chunks up to it hold the end.
 */
struct cover {
	struct jank_capture_worker *cp;
	const char *archives;
	bool asked;
	uint64_t first; /* chunks_seen at the first refusal */
};

static bool chunk_covers(void *arg)
{
	struct cover *c = arg;
	uint64_t newest;
	int r = jank_chunks_newest(c->archives, &newest);

	if (r > 0 && newest + 1 > c->cp->chunks_seen)
		c->cp->chunks_seen = newest + 1;
	if (!c->asked) {
		c->asked = true;
		c->first = c->cp->chunks_seen;
		return false;
	}
	return c->cp->chunks_seen >= c->first + 2;
}

/*
 * Rotation: archive the current chunk now, then move the archived chunks that
 * overlap the janks of `dir` into it. Returns 0, or -errno with `err` set.
 */
static int collect_chunks(struct jank_capture_worker *cp, const char *name, const char *output,
			  const char *dir, char *err, size_t len)
{
	struct jank_chunk_times pol = { .now_ns = jank_clock_realtime_ns(),
					.oldest_open_ns = INT64_MAX };
	struct jank_chunk *chunks = NULL;
	struct jank_interval *win;
	char archives[PATH_MAX + 16];
	struct cover cover = { 0 };
	size_t nwin = 0, kept = 0;
	int n, r;

	snprintf(archives, sizeof(archives), "%s/archives", output);
	cover.cp = cp;
	cover.archives = archives;
	r = jank_lttng_session_rotate(name, chunk_covers, &cover, NULL, 0, err, len);
	if (r < 0)
		return r;
	if (r & JANK_LTTNG_SESSION_WAITED) {
		pthread_mutex_lock(&cp->lock);
		cp->rotations_waited++;
		pthread_mutex_unlock(&cp->lock);
		post_log(cp, LOG_DEBUG, "capture: %s", err);
	}
	n = jank_chunks_scan(archives, &chunks);
	if (n < 0) {
		snprintf(err, len, "cannot read %.900s: %s", archives, strerror(-n));
		return n;
	}
	note_chunks(cp, chunks, n);
	pthread_mutex_lock(&cp->lock);
	pol.retention_ns = cp->retention_ns;
	win = windows(cp, dir, &nwin);
	pthread_mutex_unlock(&cp->lock);
	if (!win) {
		free(chunks);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	jank_chunks_select(chunks, (size_t)n, win, nwin, &pol);
	for (int i = 0; i < n; i++) {
		if (chunks[i].fate != JANK_CHUNK_KEEP)
			continue;
		pthread_mutex_lock(&cp->lock);
		r = jank_capture_policy_keep_chunk(cp->policy, archives, &chunks[i], dir);
		if (r == 0)
			cp->chunks_kept++;
		pthread_mutex_unlock(&cp->lock);
		if (r < 0) {
			snprintf(err, len, "cannot keep the chunk %s: %s", chunks[i].name,
				 strerror(-r));
			break;
		}
		kept++;
	}
	free(chunks);
	free(win);
	if (r < 0)
		return r;
	if (!kept) {
		snprintf(err, len, "no archived chunk of %.900s overlaps the jank", archives);
		return -ENODATA;
	}
	return 0;
}

/* Rotation, once a second: delete the chunks that overlap no captured jank and are old. */
static void housekeeping(struct jank_capture_worker *cp)
{
	int64_t now = jank_clock_realtime_ns();
	struct jank_chunk_times pol = { .oldest_open_ns = INT64_MAX };
	struct jank_chunk *chunks = NULL;
	struct jank_interval *win;
	char archives[PATH_MAX + 16], path[PATH_MAX + 128];
	size_t nwin = 0, k = 0;
	const char *flight;
	int n;

	pthread_mutex_lock(&cp->lock);
	if (!cp->current.enabled || cp->current.mode != JANK_CAPTURE_ROTATION) {
		pthread_mutex_unlock(&cp->lock);
		return;
	}
	snprintf(archives, sizeof(archives), "%s/archives", cp->current.output);
	pol.retention_ns = cp->retention_ns;
	/* Twice the retention before now: see the top of the file. */
	pol.now_ns = now - cp->retention_ns;
	/* Forget the janks whose chunks are long gone (not those of the capture in flight). */
	flight = jank_capture_policy_in_flight(cp->policy);
	for (size_t i = 0; i < cp->njanks; i++)
		if (cp->janks[i].window.end >= now - 3 * cp->retention_ns ||
		    (flight && !strcmp(flight, cp->janks[i].dir)))
			cp->janks[k++] = cp->janks[i];
	cp->njanks = k;
	win = windows(cp, NULL, &nwin);
	pthread_mutex_unlock(&cp->lock);
	n = win ? jank_chunks_scan(archives, &chunks) : -ENOMEM;
	if (n > 0) {
		note_chunks(cp, chunks, n);
		jank_chunks_select(chunks, (size_t)n, win, nwin, &pol);
		for (int i = 0; i < n; i++) {
			if (chunks[i].fate != JANK_CHUNK_DELETE)
				continue;
			snprintf(path, sizeof(path), "%s/%s", archives, chunks[i].name);
			if (jank_dirtree_remove(path) == 0) {
				pthread_mutex_lock(&cp->lock);
				cp->chunks_deleted++;
				pthread_mutex_unlock(&cp->lock);
			}
		}
	}
	free(chunks);
	free(win);
}

/* Hand the loop a capture that failed (takes j), for its follow-up entry. */
static void post_failed(struct jank_capture_worker *cp, struct job *j, const char *why)
{
	struct msg *m = calloc(1, sizeof(*m));

	if (m) {
		m->kind = MSG_FAILED;
		m->text = strdup(why);
		snprintf(m->dir, sizeof(m->dir), "%s", j->dir);
		m->action = j->action;
		m->key = j->key;
		j->action = j->key = NULL;
		post(cp, m);
	}
	job_free(j);
}

static void record(struct jank_capture_worker *cp, struct job *j)
{
	struct jank_capture_outcome out;
	char name[JANK_CONFIG_SESSION_LEN], err[ERR_LEN] = "", output[PATH_MAX];
	enum jank_capture_mode mode;
	bool up;
	int r = -ENOTCONN;

	pthread_mutex_lock(&cp->lock);
	up = cp->current.enabled;
	mode = cp->current.mode;
	snprintf(name, sizeof(name), "%s", cp->current.name);
	snprintf(output, sizeof(output), "%s", cp->current.output);
	pthread_mutex_unlock(&cp->lock);
	if (!up)
		snprintf(err, sizeof(err), "the capture session is gone");
	else if (mode == JANK_CAPTURE_ROTATION)
		r = collect_chunks(cp, name, output, j->dir, err, sizeof(err));
	else
		r = jank_lttng_session_snapshot_record(name, j->dir, err, sizeof(err));
	/* The session may have died with lttng-sessiond: look at once. */
	if (r == -ENOENT || r == -ECONNREFUSED)
		cp->watch_now = true;
	pthread_mutex_lock(&cp->lock);
	r = jank_capture_policy_done(cp->policy, j->dir, r == 0, err, &out) == 0 && r == 0 ? 0
											   : -EIO;
	if (r == 0)
		queue_push(&cp->reports, j);
	pthread_cond_broadcast(&cp->cond);
	pthread_mutex_unlock(&cp->lock);
	if (out.log)
		post_log(cp, r == 0 ? LOG_INFO : LOG_WARNING, "%s", out.message);
	if (r < 0)
		post_failed(cp, j, err[0] ? err : "the capture was not recorded"); /* takes j */
}

static void *recorder_main(void *data)
{
	struct jank_capture_worker *cp = data;
	int64_t last = 0;
	struct job *j;

	for (;;) {
		bool rotating, watching;

		pthread_mutex_lock(&cp->lock);
		rotating = cp->current.enabled && cp->current.mode == JANK_CAPTURE_ROTATION;
		/* cp->current and cp->lost are this thread's to write. */
		watching = cp->lost.enabled || (cp->current.enabled && cp->owned);
		if (!cp->jobs.head && !cp->stopping) {
			if (rotating || watching) {
				struct timespec until;

				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_sec += HOUSEKEEPING_S;
				pthread_cond_timedwait(&cp->cond, &cp->lock, &until);
			} else {
				pthread_cond_wait(&cp->cond, &cp->lock);
			}
		}
		j = queue_pop(&cp->jobs);
		if (!j && cp->stopping) {
			pthread_mutex_unlock(&cp->lock);
			return NULL;
		}
		pthread_mutex_unlock(&cp->lock);
		if (watch_due(cp))
			session_watch(cp);
		if (rotating && jank_clock_realtime_ns() - last >= HOUSEKEEPING_S * 1000000000LL) {
			housekeeping(cp);
			last = jank_clock_realtime_ns();
		}
		if (!j)
			continue;
		pthread_mutex_lock(&cp->lock);
		if (j->kind == JOB_SESSION && cp->stopping) {
			pthread_mutex_unlock(&cp->lock);
			job_free(j);
			continue;
		}
		pthread_mutex_unlock(&cp->lock);
		if (j->kind == JOB_SESSION) {
			session_apply(cp, &j->want);
			job_free(j);
		} else {
			record(cp, j); /* takes j */
		}
	}
}

static void *analyst_main(void *data)
{
	struct jank_capture_worker *cp = data;
	struct jank_capture_report_result res;
	char err[ERR_LEN];
	struct msg *m;
	struct job *j;

	for (;;) {
		pthread_mutex_lock(&cp->lock);
		/* At stop, the recorder may still hand over its last capture: wait for it. */
		while (!cp->reports.head && !(cp->stopping && !cp->threads))
			pthread_cond_wait(&cp->cond, &cp->lock);
		j = queue_pop(&cp->reports);
		pthread_mutex_unlock(&cp->lock);
		if (!j)
			return NULL;
		err[0] = '\0';
		m = calloc(1, sizeof(*m));
		if (!m) {
			post_log(cp, LOG_ERR, "capture report of %s: out of memory", j->dir);
			job_free(j);
			continue;
		}
		m->kind = MSG_REPORT;
		m->rc = jank_capture_report_write(j->dir, &res, err, sizeof(err));
		m->partial = res.partial;
		snprintf(m->summary, sizeof(m->summary), "%s", res.summary);
		snprintf(m->dir, sizeof(m->dir), "%s", j->dir);
		m->text = err[0] ? strdup(err) : NULL;
		m->action = j->action;
		m->key = j->key;
		j->action = j->key = NULL;
		job_free(j);
		post(cp, m);
	}
}

/* ---- Public ---- */

struct jank_capture_worker *jank_capture_worker_new(struct event_base *base)
{
	struct jank_capture_worker *cp = calloc(1, sizeof(*cp));

	if (!cp)
		return NULL;
	cp->base = base;
	cp->wake[0] = cp->wake[1] = -1;
	cp->direct = true;
	pthread_mutex_init(&cp->lock, NULL);
	pthread_cond_init(&cp->cond, NULL);
	queue_init(&cp->jobs);
	queue_init(&cp->reports);
	cp->msgs_tail = &cp->msgs;
	return cp;
}

static void policy_of(struct jank_capture_settings *p, const struct jank_config *c,
		      const struct want *w)
{
	jank_capture_settings_from_config(p, &c->capture);
	p->session = w->name;
}

int jank_capture_worker_start(struct jank_capture_worker *cp, const struct jank_config *c,
			      struct jank_alerter *alerter, char *err, size_t len)
{
	struct jank_capture_settings p;
	sigset_t all, old;
	struct want w;
	int r;

	if (want_from_config(&w, c) < 0)
		goto nomem;
	cp->alerter = alerter;
	cp->mode = c->capture.mode;
	cp->retention_ns = c->capture.retention_ns;
	policy_of(&p, c, &w);
	cp->policy = jank_capture_policy_new(&p);
	if (!cp->policy) {
		want_fini(&w);
		goto nomem;
	}
	/* Before the loop runs: a jank may come as soon as the inputs attach. */
	session_apply(cp, &w);
	want_fini(&w);

	if (pipe2(cp->wake, O_NONBLOCK | O_CLOEXEC) < 0) {
		snprintf(err, len, "cannot make a pipe: %s", strerror(errno));
		return -errno;
	}
	cp->ev_wake = event_new(cp->base, cp->wake[0], EV_READ | EV_PERSIST, on_wake, cp);
	if (!cp->ev_wake || event_add(cp->ev_wake, NULL) < 0)
		goto nomem;
	/* Signals are the loop's business: the workers block them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&cp->recorder, NULL, recorder_main, cp);
	if (r == 0) {
		r = pthread_create(&cp->analyst, NULL, analyst_main, cp);
		if (r != 0) {
			pthread_mutex_lock(&cp->lock);
			cp->stopping = true;
			pthread_cond_broadcast(&cp->cond);
			pthread_mutex_unlock(&cp->lock);
			pthread_join(cp->recorder, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		snprintf(err, len, "cannot start the capture threads: %s", strerror(r));
		return -r;
	}
	pthread_mutex_lock(&cp->lock);
	cp->threads = true;
	cp->direct = false;
	pthread_mutex_unlock(&cp->lock);
	return 0;
nomem:
	snprintf(err, len, "out of memory");
	return -ENOMEM;
}

void jank_capture_worker_reload(struct jank_capture_worker *cp, const struct jank_config *c)
{
	struct jank_capture_settings p;
	struct job *j = calloc(1, sizeof(*j));

	if (!j || want_from_config(&j->want, c) < 0) {
		free(j);
		jank_log(LOG_ERR, "reload: out of memory: [capture] stays as it was");
		return;
	}
	j->kind = JOB_SESSION;
	policy_of(&p, c, &j->want);
	pthread_mutex_lock(&cp->lock);
	if (jank_capture_policy_set_settings(cp->policy, &p) < 0) {
		pthread_mutex_unlock(&cp->lock);
		job_free(j);
		jank_log(LOG_ERR, "reload: out of memory: [capture] stays as it was");
		return;
	}
	cp->mode = c->capture.mode;
	cp->retention_ns = c->capture.retention_ns;
	if (!cp->threads) {
		pthread_mutex_unlock(&cp->lock);
		job_free(j);
		return;
	}
	queue_push(&cp->jobs, j);
	pthread_cond_broadcast(&cp->cond);
	pthread_mutex_unlock(&cp->lock);
}

/* Rotation: remember a jank's window for its capture (under the lock). */
static void keep_jank(struct jank_capture_worker *cp, const struct jank_verdict *r, const char *dir)
{
	struct kept_jank *k;

	if (cp->njanks == MAX_JANKS) {
		memmove(cp->janks, cp->janks + 1, (MAX_JANKS - 1) * sizeof(*cp->janks));
		cp->njanks--;
	}
	if (!cp->janks) {
		cp->janks = malloc(MAX_JANKS * sizeof(*cp->janks));
		if (!cp->janks)
			return;
	}
	k = &cp->janks[cp->njanks++];
	k->window.begin = r->begin;
	k->window.end = r->end;
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
}

const char *jank_capture_worker_jank(const struct jank_verdict *r, const char **failed, void *data)
{
	struct jank_capture_worker *cp = data;
	struct jank_capture_answer *v;
	enum jank_capture_decision d;
	const char *ret = NULL;
	bool up, log_missing = false;
	char why[ERR_LEN];
	struct job *j;
	int prio;

	if (cp->stopped || cp->mode == JANK_CAPTURE_NONE || !r->rule || !r->rule->capture)
		return NULL;
	v = malloc(sizeof(*v));
	j = calloc(1, sizeof(*j));
	if (!v || !j) {
		free(v);
		free(j);
		return NULL;
	}
	pthread_mutex_lock(&cp->lock);
	up = cp->current.enabled;
	if (!up) {
		cp->no_session++;
		log_missing = !cp->no_session_episode;
		cp->no_session_episode = true;
		snprintf(why, sizeof(why), "%s",
			 cp->session_error[0] ? cp->session_error : "it is being set up");
		pthread_mutex_unlock(&cp->lock);
		if (log_missing)
			jank_log(LOG_WARNING,
				 "no capture for %s [%s]: no capture session (%s); further janks "
				 "without one are counted, not logged",
				 r->rule->name, r->key ? r->key : "", why);
		free(v);
		free(j);
		return NULL;
	}
	cp->no_session_episode = false;
	d = jank_capture_policy_decide(cp->policy, r, jank_clock_realtime_ns(), v);
	if ((d == JANK_CAPTURE_START || d == JANK_CAPTURE_JOIN) &&
	    cp->current.mode == JANK_CAPTURE_ROTATION)
		keep_jank(cp, r, v->dir);
	if (d == JANK_CAPTURE_START) {
		j->kind = JOB_RECORD;
		snprintf(j->dir, sizeof(j->dir), "%s", v->dir);
		j->action = strdup(r->rule->name);
		j->key = strdup(r->key ? r->key : "");
		queue_push(&cp->jobs, j);
		j = NULL;
		pthread_cond_broadcast(&cp->cond);
	}
	pthread_mutex_unlock(&cp->lock);
	free(j);
	if (v->log) {
		prio = d == JANK_CAPTURE_START ? LOG_INFO
		       : v->reason == JANK_CAPTURE_REASON_COOLDOWN ||
				       v->reason == JANK_CAPTURE_REASON_HOURLY
			       ? LOG_NOTICE
			       : LOG_WARNING;
		jank_log(prio, "%s", v->message);
	}
	if (d == JANK_CAPTURE_START || d == JANK_CAPTURE_JOIN) {
		snprintf(cp->dir, sizeof(cp->dir), "%s", v->dir);
		ret = cp->dir;
	} else if (d == JANK_CAPTURE_REFUSED && v->reason == JANK_CAPTURE_REASON_ERROR && failed) {
		/* Not a rule of the policy: the capture was to be taken and could not be. */
		snprintf(cp->failed, sizeof(cp->failed), "%s", v->message);
		*failed = cp->failed;
	}
	free(v);
	return ret;
}

void jank_capture_worker_stop(struct jank_capture_worker *cp)
{
	struct job *j;

	if (!cp || cp->stopped)
		return;
	cp->stopped = true;
	if (cp->threads) {
		pthread_mutex_lock(&cp->lock);
		cp->stopping = true;
		pthread_cond_broadcast(&cp->cond);
		pthread_mutex_unlock(&cp->lock);
		pthread_join(cp->recorder, NULL);
		/* The analyst writes what the recorder handed over, then sees this. */
		pthread_mutex_lock(&cp->lock);
		cp->threads = false;
		pthread_cond_broadcast(&cp->cond);
		pthread_mutex_unlock(&cp->lock);
		pthread_join(cp->analyst, NULL);
	}
	pthread_mutex_lock(&cp->lock);
	cp->direct = true;
	/* Jobs left when the workers never ran. */
	while ((j = queue_pop(&cp->jobs)))
		job_free(j);
	while ((j = queue_pop(&cp->reports)))
		job_free(j);
	pthread_mutex_unlock(&cp->lock);
	drain(cp);
	session_down(cp);
}

void jank_capture_worker_free(struct jank_capture_worker *cp)
{
	if (!cp)
		return;
	jank_capture_worker_stop(cp);
	drain(cp);
	if (cp->ev_wake)
		event_free(cp->ev_wake);
	if (cp->wake[0] >= 0)
		close(cp->wake[0]);
	if (cp->wake[1] >= 0)
		close(cp->wake[1]);
	jank_capture_policy_free(cp->policy);
	want_fini(&cp->current);
	want_fini(&cp->lost);
	free(cp->janks);
	pthread_cond_destroy(&cp->cond);
	pthread_mutex_destroy(&cp->lock);
	free(cp);
}

/* ---- Status ---- */

void jank_capture_worker_get_stats(struct jank_capture_worker *cp, struct jank_capture_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&cp->lock);
	if (cp->policy)
		jank_capture_policy_get_stats(cp->policy, out);
	pthread_mutex_unlock(&cp->lock);
}

struct json_object *jank_capture_worker_status_json(struct jank_capture_worker *cp)
{
	struct json_object *o = json_object_new_object();
	struct json_object *refused = json_object_new_object();
	struct json_object *episodes = json_object_new_object();
	struct jank_capture_stats st;
	const char *flight;

	if (!o || !refused || !episodes) {
		json_object_put(o);
		json_object_put(refused);
		json_object_put(episodes);
		return NULL;
	}
	pthread_mutex_lock(&cp->lock);
	json_object_object_add(o, "mode", json_object_new_string(jank_capture_mode_name(cp->mode)));
	if (cp->policy) {
		json_object_object_add(o, "dir",
				       json_object_new_string(jank_capture_policy_dir(cp->policy)));
		jank_capture_policy_get_stats(cp->policy, &st);
		flight = jank_capture_policy_in_flight(cp->policy);
	} else {
		memset(&st, 0, sizeof(st));
		flight = NULL;
	}
	json_object_object_add(o, "session",
			       cp->current.enabled ? json_object_new_string(cp->current.name)
						   : NULL);
	json_object_object_add(o, "session_owned", json_object_new_boolean(cp->owned));
	jank_json_add_u64(o, "session_recreated", cp->recreated);
	json_object_object_add(o, "kernel", json_object_new_boolean(cp->kernel_ok));
	if (cp->session_error[0])
		json_object_object_add(o, "session_error",
				       json_object_new_string(cp->session_error));
	jank_json_add_u64(o, "started", st.started);
	jank_json_add_u64(o, "joined", st.joined);
	jank_json_add_u64(o, "completed", st.completed);
	jank_json_add_u64(o, "failed", st.failed);
	jank_json_add_u64(o, "failure_episodes", st.failure_episodes);
	for (int i = JANK_CAPTURE_REASON_COOLDOWN; i < JANK_CAPTURE_REASON_COUNT; i++) {
		jank_json_add_u64(refused, jank_capture_reason_name(i), st.refused[i]);
		jank_json_add_u64(episodes, jank_capture_reason_name(i), st.episodes[i]);
	}
	jank_json_add_u64(refused, "no-session", cp->no_session);
	json_object_object_add(o, "refused", refused);
	json_object_object_add(o, "refusal_episodes", episodes);
	jank_json_add_u64(o, "deleted", st.deleted);
	jank_json_add_u64(o, "deleted_bytes", st.deleted_bytes);
	jank_json_add_u64(o, "bytes", st.bytes);
	json_object_object_add(o, "in_flight", flight ? json_object_new_string(flight) : NULL);
	jank_json_add_u64(o, "reports", cp->reports_ok);
	jank_json_add_u64(o, "reports_without_path", cp->reports_nodata);
	jank_json_add_u64(o, "reports_failed", cp->reports_failed);
	if (cp->current.mode == JANK_CAPTURE_ROTATION) {
		jank_json_add_u64(o, "chunks_kept", cp->chunks_kept);
		jank_json_add_u64(o, "chunks_deleted", cp->chunks_deleted);
		jank_json_add_u64(o, "rotations_waited", cp->rotations_waited);
	}
	pthread_mutex_unlock(&cp->lock);
	return o;
}
