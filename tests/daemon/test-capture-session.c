/* SPDX-License-Identifier: MIT */
/*
 * daemon/capture/capture-session.c and capture-rotation.c: the capture session's
 * state machine over a fake lttng-ctl (the ops table), a fake monotonic
 * clock (the ticks' `now`), a real capture policy in a temporary directory.
 *
 * The fake lttng-sessiond holds a set of session names; it can be away
 * (every call: -ECONNREFUSED), lose its sessions (a restart), fail a
 * snapshot, or have rotations pending when a capture rotates.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "capture-policy.h"
#include "capture-rotation.h"
#include "capture-session.h"
#include "config-file.h"
#include "dirtree.h"

#define MS 1000000LL
#define S  1000000000LL
/* 2024-05-01T12:00:00Z */
#define T0		(1714564800LL * S)
#define PATHF(buf, ...) assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/* ---- The fake lttng-sessiond ---- */

#define MAX_SESSIONS 4
#define MAX_LINES    32

static struct {
	bool away; /* not answering */
	char sessions[MAX_SESSIONS][JANK_CONFIG_SESSION_LEN];
	int creates, destroys, exists_calls, records, rotations;
	char last_output[PATH_MAX]; /* create's: "" for snapshot mode */
	bool last_no_network;	    /* the spec of the last create */
	int record_rc;		    /* snapshot_record's answer (0: ok) */
	int create_fail;	    /* the next creates that fail */
	/* rotate */
	char archives[PATH_MAX];
	uint64_t next_chunk; /* index of the next chunk a rotation archives */
	int pending;	     /* rotations of the schedule still to end when a capture rotates */
	bool stuck;	     /* the pending rotation never ends: rotate gives up (-EBUSY) */
	char answers[16];    /* what `covered` said, in order: 'n' or 'y' */
	bool started;	     /* the capture's own rotation started */
	int exists_lies;     /* the next exists calls that say "absent" (a wrong reply) */
	int exists_fail;     /* the next exists calls that fail while the daemon answers */
	int refused;	     /* creates that found the session there (keep_existing) */
} fake;

static char lines[MAX_LINES][512];
static int nlines;

static int find(const char *name)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (!strcmp(fake.sessions[i], name))
			return i;
	return -1;
}

static void add_session(const char *name)
{
	int i = find("");

	assert_true(i >= 0);
	snprintf(fake.sessions[i], sizeof(fake.sessions[i]), "%s", name);
}

/* lttng-sessiond restarted: its sessions are gone. */
static void lose_sessions(void)
{
	memset(fake.sessions, 0, sizeof(fake.sessions));
}

static int away(char *err, size_t len)
{
	snprintf(err, len, "lttng-sessiond does not answer");
	return -ECONNREFUSED;
}

static int fake_create(const struct jank_lttng_session_spec *spec, const char *output,
		       uint64_t period_us, uint64_t size, bool *kernel_ok, char *err, size_t len)
{
	(void)period_us;
	(void)size;
	fake.creates++;
	if (fake.away)
		return away(err, len);
	if (fake.create_fail > 0) {
		fake.create_fail--;
		snprintf(err, len, "Session daemon is restarting");
		return -EIO;
	}
	if (find(spec->name) >= 0 && spec->keep_existing) {
		fake.refused++;
		snprintf(err, len, "session '%s' exists: kept as it is", spec->name);
		return -EEXIST;
	}
	snprintf(fake.last_output, sizeof(fake.last_output), "%s", output ? output : "");
	fake.last_no_network = spec->no_network;
	if (find(spec->name) < 0)
		add_session(spec->name);
	*kernel_ok = true;
	err[0] = '\0';
	return 0;
}

static int fake_destroy(const char *name, char *err, size_t len)
{
	int i;

	fake.destroys++;
	if (fake.away)
		return away(err, len);
	i = find(name);
	if (i < 0) {
		snprintf(err, len, "no session '%s'", name);
		return JANK_LTTNG_SESSION_ABSENT;
	}
	fake.sessions[i][0] = '\0';
	return 0;
}

static int fake_exists(const char *name, char *err, size_t len)
{
	fake.exists_calls++;
	if (fake.away)
		return away(err, len);
	if (fake.exists_fail > 0) {
		fake.exists_fail--;
		return away(err, len); /* as a call whose socket another thread closed */
	}
	if (fake.exists_lies > 0) {
		fake.exists_lies--;
		return 0;
	}
	return find(name) >= 0;
}

static int fake_answers(void)
{
	return !fake.away;
}

static int fake_snapshot_record(const char *name, const char *dir, char *err, size_t len)
{
	fake.records++;
	if (fake.away)
		return away(err, len);
	if (find(name) < 0) {
		snprintf(err, len, "cannot record a snapshot of session '%s': Session not found",
			 name);
		return -ENOENT;
	}
	if (fake.record_rc) {
		snprintf(err, len, "cannot record a snapshot of session '%s': No space left", name);
		return fake.record_rc;
	}
	assert_int_equal(jank_dirtree_make(dir), 0);
	return 0;
}

/* Archive the next chunk: 10 s from T0 + 10 s * index, as lttng names it. */
static void archive_chunk(void)
{
	char path[PATH_MAX + 128];
	uint64_t k = fake.next_chunk++;
	int b = (int)(k * 10), e = b + 10;

	PATHF(path, "%s/20240501T12%02d%02d+0000-20240501T12%02d%02d+0000-%llu/ust", fake.archives,
	      b / 60, b % 60, e / 60, e % 60, (unsigned long long)k);
	assert_int_equal(jank_dirtree_make(path), 0);
}

/*
 * Like jank_lttng_session_rotate(): while a rotation is pending (each of
 * them archives a chunk when it ends), ask `covered`; once none is, start
 * one's own, which archives the current chunk.
 */
static int fake_rotate(const char *name, bool (*covered)(void *arg), void *arg, char *err,
		       size_t len)
{
	size_t n = 0;

	fake.rotations++;
	if (fake.away)
		return away(err, len);
	if (find(name) < 0) {
		snprintf(err, len, "cannot rotate session '%s': Session not found", name);
		return -ENOENT;
	}
	while (fake.pending > 0) {
		bool yes = covered(arg);

		assert_true(n < sizeof(fake.answers) - 1);
		fake.answers[n++] = yes ? 'y' : 'n';
		if (yes) {
			snprintf(err, len,
				 "session '%s': waited, until a rotation that started "
				 "meanwhile archived the chunk",
				 name);
			return JANK_LTTNG_SESSION_WAITED | JANK_LTTNG_SESSION_COVERED;
		}
		if (fake.stuck) {
			if (n < 8)
				continue;
			snprintf(err, len,
				 "session '%s': a rotation was still pending after 10 s, "
				 "so none could start",
				 name);
			return -EBUSY;
		}
		archive_chunk(); /* the pending rotation ends; the schedule starts the next */
		fake.pending--;
	}
	fake.started = true;
	archive_chunk();
	if (!n)
		return 0;
	snprintf(err, len, "session '%s': waited for a rotation already in progress", name);
	return JANK_LTTNG_SESSION_WAITED;
}

static const struct jank_capture_session_ops fake_ops = {
	.create = fake_create,
	.destroy = fake_destroy,
	.exists = fake_exists,
	.snapshot_record = fake_snapshot_record,
	.rotate = fake_rotate,
	.answers = fake_answers,
};

static void log_line(void *data, int priority, const char *line)
{
	(void)data;
	(void)priority;
	assert_true(nlines < MAX_LINES);
	snprintf(lines[nlines++], sizeof(lines[0]), "%s", line);
}

/* How many log lines start with `prefix`. */
static int logged(const char *prefix)
{
	int n = 0;

	for (int i = 0; i < nlines; i++)
		n += !strncmp(lines[i], prefix, strlen(prefix));
	return n;
}

/*
 * The two looks after a first one that was not taken at its word
 * (sessiond-probe.h: three answers in a row, 250 ms apart).
 */
static int64_t confirm(struct jank_capture_session *s, int64_t now)
{
	for (int i = 1; i < JANK_SESSIOND_PROBES; i++) {
		now += JANK_SESSIOND_PROBE_AGAIN_NS;
		jank_capture_session_tick(s, now);
	}
	return now;
}

/* ---- Fixture ---- */

struct fixture {
	char tmp[PATH_MAX];
	char dir[PATH_MAX]; /* the capture dir */
	pthread_mutex_t lock;
	struct jank_capture_session s;
	struct jank_capture_rotation rot;
	struct jank_capture_policy *policy;
	struct jank_rule rule;
	struct jank_capture_want want;
};

static int fake_statfs(const char *path, uint64_t *avail, uint64_t *size, void *data)
{
	(void)path;
	(void)data;
	*avail = 50ull << 30;
	*size = 100ull << 30;
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	memset(&fake, 0, sizeof(fake));
	nlines = 0;
	PATHF(f->tmp, "/tmp/jank-test-capture-session-XXXXXX");
	if (!mkdtemp(f->tmp))
		return -1;
	PATHF(f->dir, "%s/captures", f->tmp);
	pthread_mutex_init(&f->lock, NULL);
	jank_capture_session_init(&f->s, &fake_ops, &f->lock, log_line, NULL);
	jank_capture_rotation_init(&f->rot, &f->lock);
	f->rot.retention_ns = 1 * S;
	jank_rule_init(&f->rule);
	f->rule.name = "frame";
	f->rule.begin_event = "jank:action_begin";
	f->rule.end_event = "jank:action_end";
	f->rule.capture = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	jank_capture_session_fini(&f->s);
	jank_capture_rotation_fini(&f->rot);
	jank_capture_want_fini(&f->want);
	jank_capture_policy_free(f->policy);
	pthread_mutex_destroy(&f->lock);
	jank_dirtree_remove(f->tmp);
	free(f);
	return 0;
}

/* f->want from a config: a rule with capture = yes, and `capture` as the [capture] section. */
static void want(struct fixture *f, const char *capture)
{
	char text[4096], err[512];
	struct jank_config c;

	PATHF(text,
	      "[action frame]\nbegin = jank:action_begin\nend = jank:action_end\n"
	      "threshold = 16ms\ncapture = yes\n[capture]\ndir = %s\n%s",
	      f->dir, capture);
	assert_int_equal(jank_config_load_string(&c, "test.conf", text, err, sizeof(err)), 0);
	jank_capture_want_fini(&f->want);
	assert_int_equal(jank_capture_want_from_config(&f->want, &c), 0);
	jank_config_fini(&c);
}

/* A policy for the capture dir, and a capture started in it: its directory. */
static const char *start_capture(struct fixture *f, enum jank_capture_mode mode,
				 struct jank_capture_answer *v)
{
	struct jank_capture_settings p = {
		.mode = mode,
		.dir = f->dir,
		.cooldown_ns = 0,
		.session = f->want.name,
	};
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &f->rule,
		.key = "id=3",
		.begin = T0 + 25 * S,
		.end = T0 + 25 * S + 45 * MS,
		.duration = 45 * MS,
		.threshold = 16 * MS,
		.over_threshold = true,
		.tid = 4312,
		.pid = 4300,
		.comm = "app",
	};

	if (!f->policy) {
		f->policy = jank_capture_policy_new(&p);
		assert_non_null(f->policy);
		jank_capture_policy_set_statfs(f->policy, fake_statfs, NULL);
		jank_capture_policy_set_version(f->policy, "test");
	}
	assert_int_equal(jank_capture_policy_decide(f->policy, &r, T0 + 30 * S, v),
			 JANK_CAPTURE_START);
	if (mode == JANK_CAPTURE_ROTATION)
		jank_capture_rotation_keep_jank(&f->rot, r.begin, r.end, v->dir);
	return v->dir;
}

/* capture.json's "state" and "error" ("" when none). */
static void capture_state(const char *dir, char *state, char *error, size_t len)
{
	char path[PATH_MAX + 32];
	struct json_object *m, *x;

	PATHF(path, "%s/%s", dir, JANK_CAPTURE_FILE);
	m = json_object_from_file(path);
	assert_non_null(m);
	snprintf(state, len, "%s",
		 json_object_object_get_ex(m, "state", &x) ? json_object_get_string(x) : "");
	snprintf(error, len, "%s",
		 json_object_object_get_ex(m, "error", &x) && x ? json_object_get_string(x) : "");
	json_object_put(m);
}

/* ---- The session ---- */

/* jankd creates its session at start (snapshot mode), owns it, and destroys it at exit. */
static void created_at_start(void **state)
{
	struct fixture *f = *state;

	want(f, "mode = snapshot\nevents = app:request\n");
	assert_true(f->want.enabled);
	assert_string_equal(f->want.name, JANK_CAPTURE_SESSION_DEFAULT_NAME);
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 1);
	assert_string_equal(fake.last_output, "");
	assert_false(fake.last_no_network); /* [live] network = yes by default */
	assert_true(find("jankd-capture") >= 0);
	assert_true(f->s.current.enabled);
	assert_true(f->s.owned);
	assert_true(f->s.kernel_ok);
	assert_string_equal(f->s.error, "");
	assert_true(jank_capture_session_watching(&f->s));
	assert_int_equal(logged("created the capture session 'jankd-capture' (snapshot mode, 3 "
				"events besides jank:*, kernel channel on)"),
			 1);

	/* The same config again (a reload that changes nothing): nothing is done. */
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 1);
	assert_int_equal(fake.destroys, 0);

	jank_capture_session_down(&f->s);
	assert_int_equal(fake.destroys, 1);
	assert_true(find("jankd-capture") < 0);
	assert_false(f->s.current.enabled);
	assert_false(f->s.owned);
	assert_int_equal(logged("destroyed the capture session 'jankd-capture'"), 1);
}

/* No rule with capture = yes, or mode none: no session. */
/* [live] network = no: the capture session leaves the TCP segments' events out. */
static void network_off(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_want before;

	want(f, "mode = snapshot\n[live]\nnetwork = no\n");
	assert_false(f->want.network);
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 1);
	assert_true(fake.last_no_network);
	/* Turned back on: another session is wanted. */
	assert_int_equal(jank_capture_want_copy(&before, &f->want), 0);
	want(f, "mode = snapshot\n");
	assert_false(jank_capture_want_equal(&before, &f->want));
	jank_capture_want_fini(&before);
	jank_capture_session_down(&f->s);
}

static void off_without_rules(void **state)
{
	struct fixture *f = *state;

	want(f, "mode = none\n");
	assert_false(f->want.enabled);
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 0);
	assert_false(jank_capture_session_watching(&f->s));
	jank_capture_session_tick(&f->s, 100 * S);
	assert_int_equal(fake.exists_calls, 0);
}

/*
 * lttng-sessiond goes away under the session jankd owns: the looks back off
 * (2 s, 4, 8, 16, 30, 30), the outage is logged once, and its end once.
 */
static void sessiond_away_backs_off(void **state)
{
	struct fixture *f = *state;
	static const int64_t gaps[] = { 4, 8, 16, 30, 30 };
	int64_t now = 1000 * S;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, now); /* the first look */
	assert_int_equal(fake.exists_calls, 1);
	fake.away = true;
	now += 2 * S;
	jank_capture_session_tick(&f->s, now);
	assert_int_equal(fake.exists_calls, 2);
	/* One failed call is not evidence: nothing said yet, asked again 250 ms later. */
	assert_int_equal(logged("lttng-sessiond does not answer"), 0);
	now = confirm(&f->s, now);
	assert_int_equal(fake.exists_calls, 4);
	for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
		int calls = fake.exists_calls;

		/* Not before the gap... */
		jank_capture_session_tick(&f->s, now + gaps[i] * S - 1);
		assert_int_equal(fake.exists_calls, calls);
		/* ... then once. */
		now += gaps[i] * S;
		jank_capture_session_tick(&f->s, now);
		assert_int_equal(fake.exists_calls, calls + 1);
	}
	assert_int_equal(
		logged("lttng-sessiond does not answer: the capture session "
		       "'jankd-capture' will be created again once lttng-sessiond is back"),
		1);
	/* It kept its sessions: the session is there again, nothing is created. */
	fake.away = false;
	now += 30 * S;
	jank_capture_session_tick(&f->s, now);
	assert_int_equal(fake.creates, 1);
	assert_int_equal(f->s.recreated, 0);
	assert_true(f->s.current.enabled);
	assert_int_equal(logged("lttng-sessiond answers again, with the capture session"), 1);
	/* The looks are every 2 s again. */
	jank_capture_session_tick(&f->s, now + 2 * S);
	assert_int_equal(fake.exists_calls, 11);
}

/* A capture session that cannot be made at start: logged, and captures stay off until a reload. */
static void sessiond_away_at_start(void **state)
{
	struct fixture *f = *state;

	want(f, "mode = snapshot\n");
	fake.away = true;
	jank_capture_session_apply(&f->s, &f->want);
	assert_false(f->s.current.enabled);
	assert_string_equal(f->s.error, "cannot create the capture session 'jankd-capture': "
					"lttng-sessiond does not answer");
	assert_int_equal(logged("captures are off until a reload: cannot create the capture "
				"session 'jankd-capture': lttng-sessiond does not answer"),
			 1);
	assert_false(jank_capture_session_watching(&f->s));
	/* A reload with the same config tries again. */
	fake.away = false;
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 2);
	assert_true(f->s.current.enabled);
	assert_string_equal(f->s.error, "");
}

/*
 * lttng-sessiond restarted: the session jankd owns is gone. It is created
 * again; while that fails, it is retried with back-off, logged once.
 */
static void vanished_recreated(void **state)
{
	struct fixture *f = *state;
	int64_t now = 1000 * S;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, now);
	lose_sessions();
	now += 2 * S;
	jank_capture_session_tick(&f->s, now);
	assert_int_equal(fake.creates, 1); /* one "absent" is not evidence */
	now = confirm(&f->s, now);
	assert_int_equal(logged("the capture session 'jankd-capture' is gone from lttng-sessiond "
				"(restarted?): creating it again"),
			 1);
	assert_int_equal(fake.creates, 2);
	assert_true(find("jankd-capture") >= 0);
	assert_true(f->s.current.enabled);
	assert_true(f->s.owned);
	assert_int_equal(f->s.recreated, 1);
	assert_int_equal(logged("created the capture session 'jankd-capture' again"), 1);
	assert_string_equal(f->s.error, "");
	/* Watched as before (the creation looked once more first). */
	assert_int_equal(fake.exists_calls, 5);
	jank_capture_session_tick(&f->s, now + 2 * S);
	assert_int_equal(fake.exists_calls, 6);
}

/*
 * The session is gone, and lttng-sessiond cannot make it yet: the status
 * says why, the attempts back off (2 s, then 4, 8), the failure is logged
 * once, and captures come back with the session, with no reload.
 */
static void vanished_retried(void **state)
{
	struct fixture *f = *state;
	int64_t now = 1000 * S;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, now);
	lose_sessions();
	fake.create_fail = 3;
	now += 2 * S;
	jank_capture_session_tick(&f->s, now);
	now = confirm(&f->s, now);
	assert_int_equal(fake.creates, 2);
	assert_false(f->s.current.enabled);
	assert_false(f->s.owned);
	assert_true(jank_capture_session_watching(&f->s));
	assert_string_equal(f->s.error, "cannot create the capture session 'jankd-capture': "
					"Session daemon is restarting");
	assert_int_equal(logged("cannot create the capture session again: cannot create the "
				"capture session 'jankd-capture': Session daemon is restarting; "
				"retrying"),
			 1);
	assert_int_equal(logged("captures are off until a reload"), 0);
	for (int64_t gap = 4; gap <= 16; gap *= 2) {
		int creates = fake.creates;

		jank_capture_session_tick(&f->s, now + gap * S - 1);
		assert_int_equal(fake.creates, creates);
		now += gap * S;
		jank_capture_session_tick(&f->s, now);
		assert_int_equal(fake.creates, creates + 1);
	}
	/* Three failures, then the fourth creation worked. */
	assert_int_equal(fake.creates, 5);
	assert_int_equal(logged("cannot create the capture session again"), 1);
	assert_true(f->s.current.enabled);
	assert_true(f->s.owned);
	assert_int_equal(f->s.recreated, 1);
	assert_string_equal(f->s.error, "");
	assert_int_equal(logged("created the capture session 'jankd-capture' again"), 1);
	/* Looks every 2 s again (each creation looked once first). */
	assert_int_equal(fake.exists_calls, 8);
	jank_capture_session_tick(&f->s, now + 2 * S);
	assert_int_equal(fake.exists_calls, 9);
}

/*
 * One failed call, or one reply without the session, while lttng-sessiond is
 * up all along (another thread closed the shared connection, say): nothing
 * is logged, nothing is made again; the looks go on at their pace.
 */
static void one_answer_is_not_evidence(void **state)
{
	struct fixture *f = *state;
	int64_t now = 1000 * S;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, now);
	for (int round = 0; round < 2; round++) {
		if (round == 0)
			fake.exists_fail = JANK_SESSIOND_PROBES - 1;
		else
			fake.exists_lies = JANK_SESSIOND_PROBES - 1;
		now += 2 * S;
		jank_capture_session_tick(&f->s, now);
		now = confirm(&f->s, now);
		/* Present again: the next look 2 s later. */
		jank_capture_session_tick(&f->s, now + 2 * S - 1);
		assert_int_equal(fake.exists_calls, 1 + 3 * (round + 1));
	}
	assert_int_equal(fake.creates, 1);
	assert_int_equal(fake.destroys, 0);
	assert_int_equal(f->s.recreated, 0);
	assert_int_equal(nlines, 1); /* "created the capture session", at the start */
	assert_int_equal(f->s.probe.unconfirmed, 2 * (JANK_SESSIOND_PROBES - 1));
}

/*
 * Failed calls while lttng-sessiond's socket still answers: "failing",
 * logged once; the session is not taken for gone, nor made again.
 */
static void failing_but_answering(void **state)
{
	struct fixture *f = *state;
	int64_t now = 1000 * S;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, now);
	fake.exists_fail = 100;
	for (int i = 0; i < 5; i++) {
		now += 30 * S;
		jank_capture_session_tick(&f->s, now);
		now = confirm(&f->s, now);
	}
	assert_int_equal(logged("lttng-sessiond answers, but cannot say whether the capture "
				"session 'jankd-capture' exists"),
			 1);
	assert_int_equal(logged("lttng-sessiond does not answer"), 0);
	assert_int_equal(fake.creates, 1);
	assert_int_equal(f->s.recreated, 0);
}

/*
 * Replies without the session, three in a row, from a daemon that has it
 * all along: the creation again finds it there, keeps it (a rotating
 * session's chunks stay where they are), and counts it.
 */
static void recreation_finds_it_there(void **state)
{
	struct fixture *f = *state;
	char chunk[PATH_MAX + 32];
	struct stat st;
	int64_t now = 1000 * S;

	want(f, "mode = rotation\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, now);
	PATHF(chunk, "%s/archives/chunk-0", f->want.output);
	assert_int_equal(jank_dirtree_make(chunk), 0);
	fake.exists_lies = JANK_SESSIOND_PROBES;
	now += 2 * S;
	jank_capture_session_tick(&f->s, now);
	now = confirm(&f->s, now);
	assert_int_equal(logged("the capture session 'jankd-capture' is gone"), 1);
	assert_int_equal(logged("the capture session 'jankd-capture' is there after all: kept as "
				"it is, not made again"),
			 1);
	assert_int_equal(fake.destroys, 0);
	assert_int_equal(fake.creates, 1);
	assert_int_equal(f->s.recreated, 0);
	assert_int_equal(f->s.recreate_refused, 1);
	assert_true(f->s.current.enabled);
	assert_true(f->s.owned);
	assert_int_equal(stat(chunk, &st), 0); /* its output was left alone */
	/* A creation that meets it (the look before said absent) is refused by lttng too. */
	lose_sessions();
	add_session("jankd-capture");
	fake.exists_lies = JANK_SESSIOND_PROBES + 1;
	now += 2 * S;
	jank_capture_session_tick(&f->s, now);
	now = confirm(&f->s, now);
	assert_int_equal(fake.refused, 1);
	assert_int_equal(f->s.recreate_refused, 2);
	assert_int_equal(fake.destroys, 0);
}

/* A session the user named and that exists is adopted: never destroyed nor made again. */
static void adopted_left_alone(void **state)
{
	struct fixture *f = *state;

	add_session("ops-flight");
	want(f, "mode = snapshot\nsession = ops-flight\n");
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 0);
	assert_true(f->s.current.enabled);
	assert_false(f->s.owned);
	assert_int_equal(logged("adopted the existing capture session 'ops-flight' (it must be in "
				"snapshot mode; jankd leaves it as it is)"),
			 1);
	/* Not watched: it vanishes, and jankd does not make it. */
	assert_false(jank_capture_session_watching(&f->s));
	lose_sessions();
	fake.exists_calls = 0;
	for (int64_t now = 0; now < 120 * S; now += S)
		jank_capture_session_tick(&f->s, now);
	assert_int_equal(fake.exists_calls, 0);
	assert_int_equal(fake.creates, 0);
	/* Not destroyed at exit. */
	add_session("ops-flight");
	jank_capture_session_down(&f->s);
	assert_int_equal(fake.destroys, 0);
	assert_true(find("ops-flight") >= 0);
	assert_false(f->s.current.enabled);
	/* Nor by a reload to another config. */
	jank_capture_session_apply(&f->s, &f->want);
	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.destroys, 0);
	assert_true(find("ops-flight") >= 0);
	assert_int_equal(fake.creates, 1); /* jankd-capture */
}

/* A named session that does not exist is jankd's: created, destroyed at exit. */
static void named_created(void **state)
{
	struct fixture *f = *state;

	want(f, "mode = snapshot\nsession = mine\n");
	jank_capture_session_apply(&f->s, &f->want);
	assert_int_equal(fake.creates, 1);
	assert_true(f->s.owned);
	jank_capture_session_down(&f->s);
	assert_int_equal(fake.destroys, 1);
	assert_true(find("mine") < 0);
}

/* Rotation mode needs a session of its own: an existing named one is refused. */
static void rotation_refuses_adoption(void **state)
{
	struct fixture *f = *state;

	add_session("ops-flight");
	want(f, "mode = rotation\nsession = ops-flight\n");
	jank_capture_session_apply(&f->s, &f->want);
	assert_false(f->s.current.enabled);
	assert_int_equal(fake.creates, 0);
	assert_string_equal(f->s.error, "the capture session 'ops-flight' exists: rotation mode "
					"needs a session of its own (name another one, or none)");
}

/* ---- Captures ---- */

/* A snapshot: the capture is complete. */
static void snapshot_complete(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	struct jank_capture_stats st;
	char err[1024], s[256], e[256];
	const char *dir;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	dir = start_capture(f, JANK_CAPTURE_SNAPSHOT, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		0);
	assert_int_equal(fake.records, 1);
	jank_capture_policy_get_stats(f->policy, &st);
	assert_int_equal(st.completed, 1);
	assert_int_equal(st.failed, 0);
	capture_state(dir, s, e, sizeof(s));
	assert_string_equal(s, "complete");
}

/*
 * The snapshot fails: the capture is marked failed (capture.json says why).
 * When the failure says the session is gone, the session is looked at, and
 * made again, at the next tick rather than 2 s later.
 */
static void snapshot_failed(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	struct jank_capture_stats st;
	char err[1024], s[256], e[256];
	const char *dir;

	want(f, "mode = snapshot\n");
	jank_capture_session_apply(&f->s, &f->want);
	jank_capture_session_tick(&f->s, 1000 * S);
	fake.record_rc = -ENOSPC;
	dir = start_capture(f, JANK_CAPTURE_SNAPSHOT, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		-EIO);
	assert_string_equal(err,
			    "cannot record a snapshot of session 'jankd-capture': No space left");
	jank_capture_policy_get_stats(f->policy, &st);
	assert_int_equal(st.completed, 0);
	assert_int_equal(st.failed, 1);
	assert_null(jank_capture_policy_in_flight(f->policy));
	capture_state(dir, s, e, sizeof(s));
	assert_string_equal(s, "failed");
	assert_string_equal(e, err);
	/* A full disk says nothing about the session: the next look is 2 s after the last. */
	jank_capture_session_tick(&f->s, 1000 * S + 1);
	assert_int_equal(fake.exists_calls, 1);

	/* lttng-sessiond restarted: the snapshot fails, the session is made again at once. */
	fake.record_rc = 0;
	lose_sessions();
	dir = start_capture(f, JANK_CAPTURE_SNAPSHOT, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		-EIO);
	assert_string_equal(err, "cannot record a snapshot of session 'jankd-capture': Session "
				 "not found");
	jank_capture_policy_get_stats(f->policy, &st);
	assert_int_equal(st.failed, 2);
	jank_capture_session_tick(&f->s, 1000 * S + 2);
	assert_int_equal(fake.exists_calls, 2);
	assert_int_equal(f->s.recreated, 0); /* one look is not evidence */
	confirm(&f->s, 1000 * S + 2);
	assert_int_equal(f->s.recreated, 1);
	assert_true(find("jankd-capture") >= 0);
}

/* No session (it is being made again): the capture fails, saying so. */
static void record_without_session(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	char err[1024], s[256], e[256];
	const char *dir;

	want(f, "mode = snapshot\n");
	dir = start_capture(f, JANK_CAPTURE_SNAPSHOT, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		-EIO);
	assert_int_equal(fake.records, 0);
	assert_string_equal(err, "the capture session is gone");
	capture_state(dir, s, e, sizeof(s));
	assert_string_equal(s, "failed");
}

/* ---- Rotation mode ---- */

/* The rotating session, its chunks 0 to 2 archived already (the jank is in chunk 2, T0+20..30 s).
 */
static void rotating(struct fixture *f)
{
	char output[PATH_MAX];

	want(f, "mode = rotation\nrotation-period = 100ms\nretention = 1s\n");
	jank_capture_session_apply(&f->s, &f->want);
	assert_true(f->s.current.enabled);
	PATHF(output, "%s/.rotating/jankd-capture", f->dir);
	assert_string_equal(f->s.current.output, output);
	assert_string_equal(fake.last_output, output);
	PATHF(fake.archives, "%s/archives", f->s.current.output);
	for (int i = 0; i < 3; i++)
		archive_chunk();
	f->s.chunks_seen = 3;
}

static int chunks_in(const char *dir)
{
	char path[PATH_MAX + 16];
	struct jank_chunk *chunks;
	int n;

	PATHF(path, "%s/chunks", dir);
	n = jank_capture_chunks_scan(path, &chunks);
	free(chunks);
	return n < 0 ? 0 : n;
}

/* No rotation pending: the capture's own rotation, the chunk that overlaps the jank kept. */
static void rotation_capture(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	char err[1024];
	const char *dir;

	rotating(f);
	dir = start_capture(f, JANK_CAPTURE_ROTATION, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		0);
	assert_true(fake.started);
	assert_string_equal(fake.answers, "");
	assert_int_equal(f->rot.rotations_waited, 0);
	assert_int_equal(chunks_in(dir), 1); /* chunk 2, T0+20..30 s */
	assert_int_equal(f->rot.chunks_kept, 1);
}

/*
 * A rotation of the schedule is pending when the capture rotates: it waits.
 * The pending rotation archives the chunk after the newest seen; only the
 * one after that was closed by a rotation that started after the refusal,
 * so `covered` says yes at the second new chunk, not the first, and the
 * capture starts no rotation of its own.
 */
static void rotation_pending_covered(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	char err[1024];
	const char *dir;

	rotating(f);
	fake.pending = 5; /* the schedule keeps rotating */
	dir = start_capture(f, JANK_CAPTURE_ROTATION, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		0);
	assert_string_equal(fake.answers, "nny");
	assert_false(fake.started);
	assert_int_equal(f->rot.rotations_waited, 1);
	assert_int_equal(f->s.chunks_seen, 5);
	assert_int_equal(chunks_in(dir), 1);
	assert_int_equal(logged("capture: session 'jankd-capture': waited"), 1);
}

/* One rotation pending, then none: the capture waits for it, then rotates itself. */
static void rotation_pending_then_own(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	char err[1024];
	const char *dir;

	rotating(f);
	fake.pending = 1;
	dir = start_capture(f, JANK_CAPTURE_ROTATION, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		0);
	assert_string_equal(fake.answers, "n");
	assert_true(fake.started);
	assert_int_equal(f->rot.rotations_waited, 1);
	assert_int_equal(chunks_in(dir), 1);
}

/* A rotation pending for too long: the capture fails, saying so. */
static void rotation_pending_too_long(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	struct jank_capture_stats st;
	char err[1024], s[256], e[256];
	const char *dir;

	rotating(f);
	fake.pending = 1;
	fake.stuck = true;
	dir = start_capture(f, JANK_CAPTURE_ROTATION, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		-EIO);
	assert_string_equal(fake.answers, "nnnnnnnn");
	assert_false(fake.started);
	assert_string_equal(err, "session 'jankd-capture': a rotation was still pending after "
				 "10 s, so none could start");
	assert_int_equal(f->rot.rotations_waited, 0);
	jank_capture_policy_get_stats(f->policy, &st);
	assert_int_equal(st.failed, 1);
	capture_state(dir, s, e, sizeof(s));
	assert_string_equal(s, "failed");
	assert_string_equal(e, err);
	assert_int_equal(chunks_in(dir), 0);
}

/* Housekeeping deletes the old chunks no captured jank overlaps; a rotating session's files go at
 * exit. */
static void rotation_housekeeping(void **state)
{
	struct fixture *f = *state;
	struct jank_capture_answer v;
	struct jank_capture_outcome out;
	struct jank_chunk *chunks;
	char err[1024];
	const char *dir;
	int n;

	rotating(f);
	dir = start_capture(f, JANK_CAPTURE_ROTATION, &v);
	assert_int_equal(
		jank_capture_session_record(&f->s, &f->rot, f->policy, dir, &out, err, sizeof(err)),
		0);
	/*
	 * Chunks 0, 1 and 3 are left (2 went into the capture). At T0+41.5 s,
	 * with 1 s of retention, chunks that ended before T0+39.5 s go: 0 and 1,
	 * not 3 (it ended at T0+40 s).
	 */
	jank_capture_rotation_housekeeping(&f->rot, &f->s, f->policy, T0 + 41500 * MS);
	n = jank_capture_chunks_scan(fake.archives, &chunks);
	assert_int_equal(n, 1);
	assert_int_equal(chunks[0].index, 3);
	free(chunks);
	assert_int_equal(f->rot.chunks_deleted, 2);
	jank_capture_session_down(&f->s);
	assert_int_equal(access(fake.archives, F_OK), -1);
	assert_int_equal(chunks_in(dir), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(created_at_start, setup, teardown),
		cmocka_unit_test_setup_teardown(network_off, setup, teardown),
		cmocka_unit_test_setup_teardown(off_without_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(sessiond_away_backs_off, setup, teardown),
		cmocka_unit_test_setup_teardown(sessiond_away_at_start, setup, teardown),
		cmocka_unit_test_setup_teardown(vanished_recreated, setup, teardown),
		cmocka_unit_test_setup_teardown(one_answer_is_not_evidence, setup, teardown),
		cmocka_unit_test_setup_teardown(failing_but_answering, setup, teardown),
		cmocka_unit_test_setup_teardown(recreation_finds_it_there, setup, teardown),
		cmocka_unit_test_setup_teardown(vanished_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(adopted_left_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(named_created, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation_refuses_adoption, setup, teardown),
		cmocka_unit_test_setup_teardown(snapshot_complete, setup, teardown),
		cmocka_unit_test_setup_teardown(snapshot_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(record_without_session, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation_capture, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation_pending_covered, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation_pending_then_own, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation_pending_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(rotation_housekeeping, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
