/* SPDX-License-Identifier: MIT */
/*
 * jankd's capturer: the policy, the recorder and analyst threads, their
 * queues and the pipe to the loop (see capturer.h). The capture session is
 * capture-session.c's, rotation mode's chunks capture-rotation.c's; both run
 * on the recorder thread (or on the loop's, before the threads run).
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
#include "capture-rotation.h"
#include "capture-session.h"
#include "json-util.h"
#include "capturer.h"
#include "log.h"
#include "format.h"
#include "capture-report.h"

#define ERR_LEN	       1024
#define MSG_LEN	       (PATH_MAX + 1024)
#define HOUSEKEEPING_S 1

enum job_kind {
	JOB_SESSION, /* make the session match `want` */
	JOB_RECORD,  /* record a snapshot into `dir` */
};

struct job {
	struct job *next;
	enum job_kind kind;
	struct jank_capture_want want;
	char dir[PATH_MAX];
	char *action, *key; /* for the follow-up entry */
};

enum msg_kind {
	MSG_LOG,
	MSG_REPORT,
	MSG_FAILED, /* a capture failed: its follow-up entry says why */
};

/* From the recorder or the analyst to the loop. */
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

struct jank_capturer {
	struct event_base *base;
	struct event *ev_wake;
	int wake[2]; /* the threads write a byte; the loop reads the messages */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool threads;  /* the recorder and the analyst run */
	bool stopping; /* the threads finish their queues, then exit */
	bool stopped;
	bool direct; /* log at once (no loop yet, or no more) */
	pthread_t recorder, analyst;
	struct queue jobs;    /* recorder's */
	struct queue reports; /* analyst's (JOB_RECORD jobs whose snapshot is complete) */
	struct msg *msgs, **msgs_tail;

	/* The config, as last applied. */
	struct jank_alerter *alerter; /* where the follow-ups go */
	enum jank_capture_mode mode;
	struct jank_capture_policy *policy;

	/* The recorder's (its shared fields under the lock). */
	struct jank_capture_session session;
	struct jank_capture_rotation rotation;

	/* Loop thread only. */
	char dir[PATH_MAX];		   /* what jank_capturer_jank() returned last */
	char failed[JANK_CAPTURE_MSG_LEN]; /* ... or why its capture failed at once */
	bool no_session_episode;
	bool report_failing;

	/* Counters (under the lock). */
	uint64_t no_session;
	uint64_t reports_ok;	 /* report files written, with a path */
	uint64_t reports_nodata; /* written, saying why there is no path */
	uint64_t reports_failed; /* not written */
	uint64_t report_failure_episodes;
};

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
	jank_capture_want_fini(&j->want);
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

static void wake_loop(struct jank_capturer *cp)
{
	char c = 1;

	if (write(cp->wake[1], &c, 1) < 0) {
		/* EAGAIN: the pipe is full, a wake-up is pending already. */
	}
}

/* Queue `m` for the loop. */
static void post(struct jank_capturer *cp, struct msg *m)
{
	pthread_mutex_lock(&cp->lock);
	m->next = NULL;
	*cp->msgs_tail = m;
	cp->msgs_tail = &m->next;
	pthread_mutex_unlock(&cp->lock);
	wake_loop(cp);
}

static void post_log(struct jank_capturer *cp, int priority, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void post_log(struct jank_capturer *cp, int priority, const char *fmt, ...)
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

/* The capture session's log lines (capture-session.h): queued like the threads' own. */
static void session_log(void *data, int priority, const char *line)
{
	post_log(data, priority, "%s", line);
}

/* ---- The follow-up of a report, or of a capture that failed (loop thread) ---- */

/* Through the alerter: to its target (or its test sink), as the alerts go. */
static void followup(struct jank_capturer *cp, const struct msg *m)
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

static void handle_report(struct jank_capturer *cp, const struct msg *m)
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

/* Log and announce what the threads finished. */
static void drain(struct jank_capturer *cp)
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
	struct jank_capturer *cp = data;
	char buf[64];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	drain(cp);
}

/* ---- The recorder and the analyst ---- */

/* Hand the loop a capture that failed (takes j), for its follow-up entry. */
static void post_failed(struct jank_capturer *cp, struct job *j, const char *why)
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

static void record(struct jank_capturer *cp, struct job *j)
{
	struct jank_capture_outcome out;
	char err[ERR_LEN];
	int r;

	r = jank_capture_session_record(&cp->session, &cp->rotation, cp->policy, j->dir, &out, err,
					sizeof(err));
	pthread_mutex_lock(&cp->lock);
	if (r == 0)
		queue_push(&cp->reports, j);
	pthread_cond_broadcast(&cp->cond);
	pthread_mutex_unlock(&cp->lock);
	if (out.log)
		post_log(cp, r == 0 ? LOG_INFO : LOG_WARNING, "%s", out.message);
	if (r < 0)
		post_failed(cp, j, err); /* takes j */
}

static void *recorder_main(void *data)
{
	struct jank_capturer *cp = data;
	int64_t last = 0;
	struct job *j;

	for (;;) {
		bool rotating, watching;

		pthread_mutex_lock(&cp->lock);
		/* The session is this thread's to write. */
		rotating = cp->session.current.enabled &&
			   cp->session.current.mode == JANK_CAPTURE_ROTATION;
		watching = jank_capture_session_watching(&cp->session);
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
		jank_capture_session_tick(&cp->session, jank_clock_monotonic_ns());
		if (rotating && jank_clock_realtime_ns() - last >= HOUSEKEEPING_S * 1000000000LL) {
			jank_capture_rotation_housekeeping(&cp->rotation, &cp->session, cp->policy,
							   jank_clock_realtime_ns());
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
			jank_capture_session_apply(&cp->session, &j->want);
			job_free(j);
		} else {
			record(cp, j); /* takes j */
		}
	}
}

static void *analyst_main(void *data)
{
	struct jank_capturer *cp = data;
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

struct jank_capturer *jank_capturer_new(struct event_base *base,
					const struct jank_capture_session_ops *ops)
{
	struct jank_capturer *cp = calloc(1, sizeof(*cp));

	if (!cp)
		return NULL;
	cp->base = base;
	cp->wake[0] = cp->wake[1] = -1;
	cp->direct = true;
	pthread_mutex_init(&cp->lock, NULL);
	pthread_cond_init(&cp->cond, NULL);
	jank_capture_session_init(&cp->session, ops, &cp->lock, session_log, cp);
	jank_capture_rotation_init(&cp->rotation, &cp->lock);
	queue_init(&cp->jobs);
	queue_init(&cp->reports);
	cp->msgs_tail = &cp->msgs;
	return cp;
}

static void policy_of(struct jank_capture_settings *p, const struct jank_config *c,
		      const struct jank_capture_want *w)
{
	jank_capture_settings_from_config(p, &c->capture);
	p->session = w->name;
	p->flows = c->flows;
	p->nflows = c->nflows;
}

int jank_capturer_start(struct jank_capturer *cp, const struct jank_config *c,
			struct jank_alerter *alerter, char *err, size_t len)
{
	struct jank_capture_settings p;
	sigset_t all, old;
	struct jank_capture_want w;
	int r;

	if (jank_capture_want_from_config(&w, c) < 0)
		goto nomem;
	cp->alerter = alerter;
	cp->mode = c->capture.mode;
	cp->rotation.retention_ns = c->capture.retention_ns;
	policy_of(&p, c, &w);
	cp->policy = jank_capture_policy_new(&p);
	if (!cp->policy) {
		jank_capture_want_fini(&w);
		goto nomem;
	}
	/* Before the loop runs: a jank may come as soon as the inputs attach. */
	jank_capture_session_apply(&cp->session, &w);
	jank_capture_want_fini(&w);

	if (pipe2(cp->wake, O_NONBLOCK | O_CLOEXEC) < 0) {
		snprintf(err, len, "cannot make a pipe: %s", strerror(errno));
		return -errno;
	}
	cp->ev_wake = event_new(cp->base, cp->wake[0], EV_READ | EV_PERSIST, on_wake, cp);
	if (!cp->ev_wake || event_add(cp->ev_wake, NULL) < 0)
		goto nomem;
	/* Signals are the loop's business: the threads block them all. */
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

void jank_capturer_reload(struct jank_capturer *cp, const struct jank_config *c)
{
	struct jank_capture_settings p;
	struct job *j = calloc(1, sizeof(*j));

	if (!j || jank_capture_want_from_config(&j->want, c) < 0) {
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
	cp->rotation.retention_ns = c->capture.retention_ns;
	if (!cp->threads) {
		pthread_mutex_unlock(&cp->lock);
		job_free(j);
		return;
	}
	queue_push(&cp->jobs, j);
	pthread_cond_broadcast(&cp->cond);
	pthread_mutex_unlock(&cp->lock);
}

const char *jank_capturer_jank(const struct jank_verdict *r, const char **failed, void *data)
{
	struct jank_capturer *cp = data;
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
	up = cp->session.current.enabled;
	if (!up) {
		cp->no_session++;
		log_missing = !cp->no_session_episode;
		cp->no_session_episode = true;
		snprintf(why, sizeof(why), "%s",
			 cp->session.error[0] ? cp->session.error : "it is being set up");
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
	    cp->session.current.mode == JANK_CAPTURE_ROTATION)
		jank_capture_rotation_keep_jank(&cp->rotation, r->begin, r->end, v->dir);
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

void jank_capturer_stop(struct jank_capturer *cp)
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
	/* Jobs left when the threads never ran. */
	while ((j = queue_pop(&cp->jobs)))
		job_free(j);
	while ((j = queue_pop(&cp->reports)))
		job_free(j);
	pthread_mutex_unlock(&cp->lock);
	drain(cp);
	jank_capture_session_down(&cp->session);
}

void jank_capturer_free(struct jank_capturer *cp)
{
	if (!cp)
		return;
	jank_capturer_stop(cp);
	drain(cp);
	if (cp->ev_wake)
		event_free(cp->ev_wake);
	if (cp->wake[0] >= 0)
		close(cp->wake[0]);
	if (cp->wake[1] >= 0)
		close(cp->wake[1]);
	jank_capture_policy_free(cp->policy);
	jank_capture_session_fini(&cp->session);
	jank_capture_rotation_fini(&cp->rotation);
	pthread_cond_destroy(&cp->cond);
	pthread_mutex_destroy(&cp->lock);
	free(cp);
}

/* ---- Status ---- */

void jank_capturer_get_status(struct jank_capturer *cp, struct jank_capturer_status *out)
{
	const char *flight;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&cp->lock);
	out->mode = cp->mode;
	if (cp->policy) {
		out->has_policy = true;
		snprintf(out->dir, sizeof(out->dir), "%s", jank_capture_policy_dir(cp->policy));
		jank_capture_policy_get_stats(cp->policy, &out->stats);
		flight = jank_capture_policy_in_flight(cp->policy);
		if (flight)
			snprintf(out->in_flight, sizeof(out->in_flight), "%s", flight);
	}
	out->session_up = cp->session.current.enabled;
	if (out->session_up)
		snprintf(out->session, sizeof(out->session), "%s", cp->session.current.name);
	out->session_owned = cp->session.owned;
	out->session_recreated = cp->session.recreated;
	out->session_recreate_refused = cp->session.recreate_refused;
	out->kernel = cp->session.kernel_ok;
	snprintf(out->session_error, sizeof(out->session_error), "%s", cp->session.error);
	out->no_session = cp->no_session;
	out->reports = cp->reports_ok;
	out->reports_without_path = cp->reports_nodata;
	out->reports_failed = cp->reports_failed;
	out->rotation = cp->session.current.mode == JANK_CAPTURE_ROTATION;
	out->chunks_kept = cp->rotation.chunks_kept;
	out->chunks_deleted = cp->rotation.chunks_deleted;
	out->rotations_waited = cp->rotation.rotations_waited;
	out->rotations_retried = cp->rotation.rotations_retried;
	pthread_mutex_unlock(&cp->lock);
}

/* The refusals per reason, or their episodes (`episodes`), and "no-session" for the refusals. */
static struct json_object *refused_json(const struct jank_capturer_status *s, bool episodes)
{
	struct json_object *o = json_object_new_object();

	for (int i = JANK_CAPTURE_REASON_COOLDOWN; o && i < JANK_CAPTURE_REASON_COUNT; i++)
		jank_json_add_u64(o, jank_capture_reason_name(i),
				  episodes ? s->stats.episodes[i] : s->stats.refused[i]);
	if (o && !episodes)
		jank_json_add_u64(o, "no-session", s->no_session);
	return o;
}

struct json_object *jank_capturer_status_to_json(const struct jank_capturer_status *s)
{
	struct json_object *o = json_object_new_object();
	const struct jank_capture_stats *st = &s->stats;
	int e = 0;

	if (!o)
		return NULL;
	e |= jank_json_add_str(o, "mode", jank_capture_mode_name(s->mode));
	if (s->has_policy)
		e |= jank_json_add_str(o, "dir", s->dir);
	e |= jank_json_add_str(o, "session", s->session_up ? s->session : NULL);
	e |= jank_json_add_bool(o, "session_owned", s->session_owned);
	e |= jank_json_add_u64(o, "session_recreated", s->session_recreated);
	e |= jank_json_add_u64(o, "session_recreate_refused", s->session_recreate_refused);
	e |= jank_json_add_bool(o, "kernel", s->kernel);
	if (s->session_error[0])
		e |= jank_json_add_str(o, "session_error", s->session_error);
	e |= jank_json_add_u64(o, "started", st->started);
	e |= jank_json_add_u64(o, "joined", st->joined);
	e |= jank_json_add_u64(o, "completed", st->completed);
	e |= jank_json_add_u64(o, "failed", st->failed);
	e |= jank_json_add_u64(o, "failure_episodes", st->failure_episodes);
	e |= jank_json_add(o, "refused", refused_json(s, false));
	e |= jank_json_add(o, "refusal_episodes", refused_json(s, true));
	e |= jank_json_add_u64(o, "deleted", st->deleted);
	e |= jank_json_add_u64(o, "deleted_bytes", st->deleted_bytes);
	e |= jank_json_add_u64(o, "bytes", st->bytes);
	e |= jank_json_add_str(o, "in_flight", s->in_flight[0] ? s->in_flight : NULL);
	e |= jank_json_add_u64(o, "reports", s->reports);
	e |= jank_json_add_u64(o, "reports_without_path", s->reports_without_path);
	e |= jank_json_add_u64(o, "reports_failed", s->reports_failed);
	if (s->rotation) {
		e |= jank_json_add_u64(o, "chunks_kept", s->chunks_kept);
		e |= jank_json_add_u64(o, "chunks_deleted", s->chunks_deleted);
		e |= jank_json_add_u64(o, "rotations_waited", s->rotations_waited);
		e |= jank_json_add_u64(o, "rotations_retried", s->rotations_retried);
	}
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
