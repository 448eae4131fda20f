/* SPDX-License-Identifier: MIT */
/*
 * daemon/alert/alert.c: rate limiting per rule, with a fake clock and a sink that
 * records what would have been sent.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "alert-target.h"
#include "alert.h"
#include "journal.h"
#include "textsafe.h"

#define US 1000LL
#define MS 1000000LL
#define S  1000000000LL

struct sent {
	unsigned reports;
	unsigned summaries;
	uint64_t suppressed;	 /* of the last summary */
	int64_t period_ns;	 /* of the last summary */
	char action[64];	 /* of the last alert */
	char text[256];		 /* the last summary's message */
	char capture[64];	 /* of the last alert, "" when none */
	char capture_failed[64]; /* of the last alert, "" when none */
	int64_t skipped_ns;	 /* of the last alert */
	unsigned followups;	 /* reports written */
	unsigned followups_failed;
	char line[256]; /* the last follow-up's message */
};

static int64_t fake_now;

static int64_t fake_clock(void *data)
{
	(void)data;
	return fake_now;
}

static void sink(const struct jank_alert *a, void *data)
{
	struct sent *s = data;

	snprintf(s->action, sizeof(s->action), "%s", a->action);
	if (a->kind == JANK_ALERT_FOLLOWUP || a->kind == JANK_ALERT_FOLLOWUP_FAILED) {
		s->followups += a->kind == JANK_ALERT_FOLLOWUP;
		s->followups_failed += a->kind == JANK_ALERT_FOLLOWUP_FAILED;
		jank_alert_followup_text(a, s->line, sizeof(s->line));
		return;
	}
	if (a->kind == JANK_ALERT_REPORT) {
		s->reports++;
		snprintf(s->capture, sizeof(s->capture), "%s", a->capture ? a->capture : "");
		snprintf(s->capture_failed, sizeof(s->capture_failed), "%s",
			 a->capture_failed ? a->capture_failed : "");
		s->skipped_ns = a->skipped_ns;
		return;
	}
	s->summaries++;
	s->suppressed = a->suppressed;
	s->period_ns = a->period_ns;
	jank_alert_summary_text(a, s->text, sizeof(s->text));
}

struct fixture {
	struct jank_alerter *al;
	struct sent sent;
	struct jank_rule frame, io;
};

static struct jank_alerter *new_alerter(struct fixture *f, uint64_t count, int64_t period)
{
	struct jank_alert_config c = {
		.target = JANK_ALERT_STDERR,
		.rate_count = count,
		.rate_period_ns = period,
	};

	f->al = jank_alerter_new(&c);
	assert_non_null(f->al);
	jank_alerter_set_clock(f->al, fake_clock, NULL);
	jank_alerter_set_sink(f->al, sink, &f->sent);
	return f->al;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	jank_rule_init(&f->frame);
	f->frame.name = "frame";
	jank_rule_init(&f->io);
	f->io.name = "io";
	fake_now = 1000 * S;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	jank_alerter_free(f->al);
	free(f);
	return 0;
}

/* A jank of `rule` at the current fake time. */
static void jank(struct fixture *f, const struct jank_rule *rule, int id)
{
	char key[32];
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = rule,
		.key = key,
		.begin = fake_now - 50 * MS,
		.end = fake_now,
		.duration = 50 * MS,
		.threshold = 16 * MS,
		.over_threshold = true,
		.tid = 42,
		.pid = 40,
		.comm = "worker",
	};

	snprintf(key, sizeof(key), "name=frame,id=%d", id);
	jank_alerter_report(f->al, &r, "net://localhost/host/h/s");
}

/* A jank of `rule` on `host`, at the current fake time. */
static void jank_on(struct fixture *f, const struct jank_rule *rule, const char *host)
{
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = rule,
		.key = "name=frame,id=1",
		.begin = fake_now - 50 * MS,
		.end = fake_now,
		.duration = 50 * MS,
		.threshold = 16 * MS,
		.over_threshold = true,
		.tid = 42,
		.pid = 40,
		.comm = "worker",
	};
	const struct jank_alert_origin o = { .input = "net://r/host/x/s",
					     .host = host,
					     .session = "s" };

	jank_alerter_report_from(f->al, &r, &o);
}

/* With hosts, a window per rule and host: a storm on web-1 does not hide db-1's janks. */
static void per_host(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 2, 10 * S);
	const struct jank_recent *x;

	for (int i = 0; i < 5; i++)
		jank_on(f, &f->frame, "web-1");
	assert_int_equal(f->sent.reports, 2);
	jank_on(f, &f->frame, "db-1");
	assert_int_equal(f->sent.reports, 3);
	x = jank_alerter_recent(al, 0);
	assert_string_equal(x->host, "db-1");
	assert_string_equal(x->session, "s");
	fake_now += 10 * S;
	jank_alerter_tick(al);
	assert_int_equal(f->sent.summaries, 1);
	assert_string_equal(f->sent.text,
			    "3 more janks of frame on web-1 suppressed in the last 10 s");
}

/*
 * A frame the alert said as binary+0xOFFSET, named later (the worker's
 * "names"): the recent jank of that input says the name, as a whole word,
 * and another input's jank, which said the same text, keeps it.
 */
static void rename_late(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 0, 10 * S);
	struct jank_path p;
	struct jank_segment seg = {
		.tid = 42, .state = JANK_STATE_RUNNING, .begin = 0, .end = 50 * MS, .comm = "worker"
	};
	uint32_t fr[2];
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &f->frame,
		.key = "id=1",
		.end = 50 * MS,
		.duration = 50 * MS,
		.threshold = 16 * MS,
		.tid = 42,
		.pid = 40,
		.comm = "worker",
		.path = &p,
	};
	const struct jank_alert_origin a = { .input = "net://r/host/a/s" };
	const struct jank_alert_origin b = { .input = "net://r/host/b/s" };

	jank_path_init(&p);
	fr[0] = jank_path_frame_in(&p, 0x10, 40, 1, false, "main");
	fr[1] = jank_path_frame_in(&p, 0x1a2b, 40, 1, false, "fn-demo+0x1a2b");
	seg.stack = jank_path_stack(&p, fr, 2);
	p.segs = &seg;
	p.n = p.cap = 1;
	p.tid = 42;
	p.end = 50 * MS;
	jank_alerter_report_from(al, &r, &a);
	jank_alerter_report_from(al, &r, &b);
	assert_non_null(strstr(jank_alerter_recent(al, 0)->story, "fn-demo+0x1a2b ← main"));
	/* Not a whole word: nothing changes. */
	assert_int_equal(jank_alerter_rename(al, a.input, "fn-demo+0x1a2", "wrong"), 0);
	assert_int_equal(jank_alerter_rename(al, a.input, "demo+0x1a2b", "wrong"), 0);
	assert_int_equal(jank_alerter_rename(al, a.input, "fn-demo+0x1a2b", "apply_discounts"), 1);
	assert_non_null(strstr(jank_alerter_recent(al, 1)->story, "apply_discounts ← main"));
	assert_null(strstr(jank_alerter_recent(al, 1)->story, "0x1a2b"));
	assert_non_null(strstr(jank_alerter_recent(al, 0)->story, "fn-demo+0x1a2b ← main"));
	/* A name's invalid UTF-8 becomes U+FFFD, as in the verdict's JSON the story was made of. */
	assert_int_equal(jank_alerter_rename(al, b.input, "fn-demo+0x1a2b", "ev\xffl"), 1);
	assert_non_null(strstr(jank_alerter_recent(al, 0)->story, "ev\xef\xbf\xbdl ← main"));
	p.segs = NULL;
	p.n = p.cap = 0;
	jank_path_fini(&p);
}

/* 100 janks in 1 s with 10/10s: 10 alerts, then one summary of 90 when the window ends. */
static void storm(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 10, 10 * S);
	struct jank_alerter_stats st;

	for (int i = 0; i < 100; i++) {
		jank(f, &f->frame, i);
		fake_now += 10 * MS;
		jank_alerter_tick(al);
	}
	assert_int_equal(f->sent.reports, 10);
	assert_int_equal(f->sent.summaries, 0);
	fake_now += 5 * S; /* 6 s into the window */
	jank_alerter_tick(al);
	assert_int_equal(f->sent.summaries, 0);
	fake_now += 4 * S; /* 10 s: the window ends */
	jank_alerter_tick(al);
	assert_int_equal(f->sent.summaries, 1);
	assert_int_equal(f->sent.suppressed, 90);
	assert_int_equal(f->sent.period_ns, 10 * S);
	assert_string_equal(f->sent.action, "frame");
	assert_string_equal(f->sent.text, "90 more janks of frame suppressed in the last 10 s");
	jank_alerter_get_stats(al, &st);
	assert_int_equal(st.reports, 100);
	assert_int_equal(st.sent, 10);
	assert_int_equal(st.suppressed, 90);
	assert_int_equal(st.summaries, 1);
	/* Nothing more to say: no second summary. */
	fake_now += 20 * S;
	jank_alerter_tick(al);
	jank_alerter_flush(al);
	assert_int_equal(f->sent.summaries, 1);
}

/* After the window, janks get through again; a window that suppressed nothing says nothing. */
static void new_window(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 2, 1 * S);

	for (int i = 0; i < 3; i++)
		jank(f, &f->frame, i);
	assert_int_equal(f->sent.reports, 2);
	fake_now += 1 * S;
	/* No tick in between: the next jank closes the old window first. */
	jank(f, &f->frame, 3);
	assert_int_equal(f->sent.summaries, 1);
	assert_int_equal(f->sent.suppressed, 1);
	assert_string_equal(f->sent.text, "1 more jank of frame suppressed in the last 1 s");
	assert_int_equal(f->sent.reports, 3);
	fake_now += 1 * S;
	jank_alerter_tick(al);
	assert_int_equal(f->sent.summaries, 1);
}

/* Rules have windows of their own. */
static void per_rule(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 3, 10 * S);

	for (int i = 0; i < 5; i++) {
		jank(f, &f->frame, i);
		jank(f, &f->io, i);
	}
	assert_int_equal(f->sent.reports, 6);
	fake_now += 10 * S;
	jank_alerter_tick(al);
	assert_int_equal(f->sent.summaries, 2);
	assert_int_equal(f->sent.suppressed, 2);
}

/* At exit, a window still open says what it suppressed, over the time it ran. */
static void flush_at_exit(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 1, 10 * S);

	jank(f, &f->frame, 0);
	fake_now += 1 * S;
	jank(f, &f->frame, 1);
	jank(f, &f->frame, 2);
	fake_now += 2 * S;
	jank_alerter_flush(al);
	assert_int_equal(f->sent.reports, 1);
	assert_int_equal(f->sent.summaries, 1);
	assert_int_equal(f->sent.suppressed, 2);
	assert_int_equal(f->sent.period_ns, 3 * S);
	assert_string_equal(f->sent.text, "2 more janks of frame suppressed in the last 3 s");
}

/* rate_count 0: no limit. */
static void unlimited(void **state)
{
	struct fixture *f = *state;

	new_alerter(f, 0, 10 * S);
	for (int i = 0; i < 1000; i++)
		jank(f, &f->frame, i);
	assert_int_equal(f->sent.reports, 1000);
	assert_int_equal(f->sent.summaries, 0);
}

/* The last 10 janks, newest first, suppressed ones included and marked. */
static void recent(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 5, 10 * S);
	const struct jank_recent *x;

	assert_null(jank_alerter_recent(al, 0));
	for (int i = 0; i < 12; i++)
		jank(f, &f->frame, i);
	x = jank_alerter_recent(al, 0);
	assert_non_null(x);
	assert_string_equal(x->key, "name=frame,id=11");
	assert_true(x->suppressed);
	assert_string_equal(x->action, "frame");
	assert_int_equal(x->duration, 50 * MS);
	x = jank_alerter_recent(al, 9);
	assert_non_null(x);
	assert_string_equal(x->key, "name=frame,id=2");
	assert_false(x->suppressed);
	assert_null(jank_alerter_recent(al, 10));
}

/* The capture hook: asked once per jank, sent or suppressed; the alert and the recent list carry
 * its answer. */
struct hook {
	unsigned calls;
	char dir[64];
};

static const char *capture_hook(const struct jank_verdict *r, const char **failed, void *data)
{
	struct hook *h = data;

	h->calls++;
	/* Even ids get a capture, 9 one that fails at once, other odd ids none. */
	if (r->key[strlen(r->key) - 1] == '9') {
		*failed = "cannot create a capture: No space left on device";
		return NULL;
	}
	if (r->key[strlen(r->key) - 1] % 2)
		return NULL;
	snprintf(h->dir, sizeof(h->dir), "/captures/%s", r->key);
	return h->dir;
}

static void capture(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 2, 10 * S);
	struct hook h = { 0 };

	jank(f, &f->frame, 0);
	assert_string_equal(f->sent.capture, ""); /* no hook yet */
	jank_alerter_set_capture(al, capture_hook, &h);
	jank(f, &f->frame, 2);
	assert_int_equal(h.calls, 1);
	assert_string_equal(f->sent.capture, "/captures/name=frame,id=2");
	assert_string_equal(jank_alerter_recent(al, 0)->capture, "/captures/name=frame,id=2");
	/* Over the rate limit: not sent, but the policy still sees it. */
	jank(f, &f->frame, 4);
	jank(f, &f->frame, 5);
	assert_int_equal(h.calls, 3);
	assert_int_equal(f->sent.reports, 2);
	assert_string_equal(jank_alerter_recent(al, 1)->capture, "/captures/name=frame,id=4");
	assert_string_equal(jank_alerter_recent(al, 0)->capture, "");
	assert_true(jank_alerter_recent(al, 0)->suppressed);
}

/* A capture that failed at once is named as failed, never as a directory. */
static void capture_failed(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 0, 0);
	struct hook h = { 0 };

	jank_alerter_set_capture(al, capture_hook, &h);
	jank(f, &f->frame, 9);
	assert_string_equal(f->sent.capture, "");
	assert_string_equal(f->sent.capture_failed,
			    "cannot create a capture: No space left on device");
	jank(f, &f->frame, 2);
	assert_string_equal(f->sent.capture, "/captures/name=frame,id=2");
	assert_string_equal(f->sent.capture_failed, "");
}

/* What a worker restart skipped of the action reaches the alert and the recent janks. */
static void skipped(void **state)
{
	struct fixture *f = *state;
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &f->frame,
		.key = "name=frame,id=1",
		.begin = 10 * S,
		.end = 13 * S,
		.duration = 3 * S,
		.tid = 42,
	};
	struct jank_alert_origin o = { .input = "net://r/host/x/s", .skipped_ns = 1200 * MS };
	char buf[160];

	new_alerter(f, 0, 0);
	jank_alerter_report_from(f->al, &r, &o);
	assert_int_equal(f->sent.skipped_ns, 1200 * MS);
	assert_int_equal(jank_alerter_recent(f->al, 0)->skipped_ns, 1200 * MS);
	o.skipped_ns = 0;
	jank_alerter_report_from(f->al, &r, &o);
	assert_int_equal(f->sent.skipped_ns, 0);
	jank_alert_skipped_text(1200 * MS, buf, sizeof(buf));
	assert_string_equal(buf, "; 1.20 s of it was skipped by a worker restart: the path may be "
				 "incomplete");
	jank_alert_skipped_text(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void period_text(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(jank_alert_period_text(10 * S, buf, sizeof(buf)), "10 s");
	assert_string_equal(jank_alert_period_text(60 * S, buf, sizeof(buf)), "60 s");
	assert_string_equal(jank_alert_period_text(1500 * MS, buf, sizeof(buf)), "1.50 s");
	assert_string_equal(jank_alert_period_text(500 * MS, buf, sizeof(buf)), "500 ms");
}

/* MESSAGE names what the path mostly was: the thread's own state, another thread, a lock. */
static void message_cause(void **state)
{
	struct jank_rule rule = { .name = "frame" };
	struct jank_breakdown_item items[2] = {
		{ .tid = 42, .state = JANK_STATE_TIMER, .ns = 45 * MS, .comm = "worker" },
		{ .tid = 42, .state = JANK_STATE_RUNNING, .ns = 5 * MS, .comm = "worker" },
	};
	struct jank_breakdown_lock lock = { .lock = 0x55d0, .ns = 45 * MS };
	struct jank_breakdown b = { .items = items, .n = 2 };
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &rule,
		.key = "name=frame,id=9",
		.duration = 50 * MS,
		.threshold = 16 * MS,
		.tid = 42,
		.pid = 40,
		.comm = "worker",
		.breakdown = &b,
	};
	char msg[512];

	b.per_state[JANK_STATE_TIMER] = 45 * MS;
	b.per_state[JANK_STATE_RUNNING] = 5 * MS;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(msg,
			    "JANK frame [name=frame,id=9]: 50.0 ms (threshold 16.0 ms) on tid 42 "
			    "(worker) pid 40, mostly timer (90.0%)");

	items[0] = (struct jank_breakdown_item){
		.tid = 7, .state = JANK_STATE_BLOCK_DEVICE, .ns = 45 * MS, .comm = "db"
	};
	b.per_state[JANK_STATE_TIMER] = 0;
	b.per_state[JANK_STATE_BLOCK_DEVICE] = 45 * MS;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "pid 40, mostly on tid 7 (db), "));
	assert_non_null(strstr(msg, " (90.0%)"));

	items[0].state = JANK_STATE_RUNNING;
	b.locks = &lock;
	b.nlocks = 1;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_non_null(
		strstr(msg, "pid 40, mostly on lock 0x55d0 held by tid 7 (db), running (90.0%)"));

	r.kind = JANK_VERDICT_OVERDUE;
	r.breakdown = NULL;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(msg,
			    "OVERDUE frame [name=frame,id=9]: 50.0 ms and still open (threshold "
			    "16.0 ms) on tid 42 (worker) pid 40");
}

/* MESSAGE ends with the top suspect in words, or says there is no baseline yet. */
static void message_suspect(void **state)
{
	struct jank_rule rule = { .name = "frame" };
	struct jank_suspects ss = {
		.ready = true, .normal = 30, .normal_duration = 4 * MS, .n = 1
	};
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &rule,
		.key = "name=frame,id=9",
		.duration = 45 * MS,
		.threshold = 16 * MS,
		.tid = 42,
		.pid = 40,
		.comm = "worker",
		.suspects = &ss,
	};
	struct jank_suspect *s = &ss.items[0];
	char msg[512];

	(void)state;
	s->comp.key = (struct jank_comp_key){ JANK_COMP_THREAD, JANK_STATE_BLOCK_DEVICE,
					      jank_comp_identity("renderer", "db") };
	strcpy(s->comp.process, "renderer");
	strcpy(s->comp.thread, "db");
	s->comp.ns = 40 * MS;
	s->normal = 0.2 * MS;
	s->delta = 40 * MS - 200000;
	s->ratio = 200;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(msg,
			    "JANK frame [name=frame,id=9]: 45.0 ms (threshold 16.0 ms) on tid 42 "
			    "(worker) pid 40; suspect: +39.8 ms block_device waiting on "
			    "renderer/db (normally 200 us, 200x)");

	/* Its own preemption: who took the CPU. */
	s->comp.key.state = JANK_STATE_PREEMPTED;
	s->own = true;
	s->normal = 0;
	ss.ran[0] = (struct jank_ran){ .tid = 812, .ns = 39 * MS, .comm = "hog" };
	ss.nran = 1;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "; suspect: +39.8 ms preempted (normally none), CPU taken by "
				    "tid 812 (hog)"));

	/* A function: the top suspect names it. */
	s->comp.key = (struct jank_comp_key){ JANK_COMP_FUNCTION, 0, 7 };
	s->comp.fn_state = JANK_STATE_RUNNING;
	s->comp.ns = 29800 * US;
	s->delta = 29600 * US;
	s->normal = 200 * US;
	s->ratio = 149;
	strcpy(s->function, "apply_discounts");
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(
		msg, "JANK frame [name=frame,id=9]: 45.0 ms (threshold 16.0 ms) on tid 42 "
		     "(worker) pid 40; suspect: +29.6 ms in apply_discounts (normally 200 us, "
		     "149x)");

	ss.ready = false;
	ss.normal = 3;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "pid 40; no baseline yet (3 of 10 normal actions)"));
}

/*
 * Events the tracer discarded in the action's interval: the message ends
 * saying so, and the suspects are cut rather than that.
 */
static void message_discarded(void **state)
{
	struct jank_rule rule = { .name = "frame" };
	struct jank_suspects ss = { .ready = false, .normal = 3 };
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &rule,
		.key = "name=frame,id=9",
		.duration = 45 * MS,
		.threshold = 16 * MS,
		.tid = 42,
		.pid = 40,
		.comm = "worker",
		.discarded_events = 3,
	};
	const char *lost =
		"; 3 events discarded by the tracer during it: the path may be incomplete";
	char msg[512];

	(void)state;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(msg,
			    "JANK frame [name=frame,id=9]: 45.0 ms (threshold 16.0 ms) on tid 42 "
			    "(worker) pid 40; 3 events discarded by the tracer during it: the "
			    "path may be incomplete");
	r.suspects = &ss;
	r.discarded_events = 1;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(msg,
			    "JANK frame [name=frame,id=9]: 45.0 ms (threshold 16.0 ms) on tid 42 "
			    "(worker) pid 40; no baseline yet (3 of 10 normal actions); 1 event "
			    "discarded by the tracer during it: the path may be incomplete");
	/* Little room: the suspects are cut, the tail stays whole. */
	r.discarded_events = 3;
	jank_alert_message(&r, msg, 180);
	assert_int_equal(strlen(msg), 179);
	assert_non_null(strstr(msg, "pid 40; no base"));
	assert_null(strstr(msg, "normal actions)"));
	assert_string_equal(msg + strlen(msg) - strlen(lost), lost);
	/* Less room than the head: cut there, as before. */
	jank_alert_message(&r, msg, 60);
	assert_int_equal(strlen(msg), 59);
	/* None: nothing said. */
	r.suspects = NULL;
	r.discarded_events = 0;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_null(strstr(msg, "discarded"));
}

static const struct jank_followup written = {
	.dir = "/c/frame-1",
	.action = "frame",
	.key = "tid=7",
	.report = "/c/frame-1/report.txt",
	.summary = "60.3 ms, mostly timer",
	.ok = true,
};

static const struct jank_followup failed = {
	.failed = true,
	.dir = "/c/frame-2",
	.action = "frame",
	.key = "tid=8",
	.error = "snapshot failed",
};

/* A capture's follow-ups go where the alerts go (the sink here): never rate-limited, not counted.
 */
/*
 * MESSAGE is text for humans: traced strings in it (the key, thread names)
 * are escaped (control bytes and invalid UTF-8 as \xNN) and cut; it is one
 * line of valid UTF-8 even when cut by its buffer.
 */
static void message_hostile(void **state)
{
	struct jank_rule rule = { .name = "frame" };
	struct jank_breakdown_item items[1] = {
		{ .tid = 7,
		  .state = JANK_STATE_BLOCK_DEVICE,
		  .ns = 45 * MS,
		  .comm = "d\nb\x1b[2J" },
	};
	struct jank_breakdown b = { .items = items, .n = 1 };
	char key[JANK_KEY_LEN + 300];
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &rule,
		.key = "name=x\"\nRED\x1b[31m\\\xff",
		.duration = 50 * MS,
		.threshold = 16 * MS,
		.tid = 42,
		.pid = 40,
		.comm = "w\x9b\xc2\x9b",
		.breakdown = &b,
	};
	char msg[512];

	(void)state;
	b.per_state[JANK_STATE_BLOCK_DEVICE] = 45 * MS;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_string_equal(msg,
			    "JANK frame [name=x\"\\x0aRED\\x1b[31m\\\\\\xff]: 50.0 ms "
			    "(threshold 16.0 ms) on tid 42 (w\\x9b\\xc2\\x9b) pid 40, mostly on "
			    "tid 7 (d\\x0ab\\x1b[2J), block_device (100.0%)");
	assert_true(jank_text_is_safe(msg, strlen(msg)));

	/* A long key of '€' is cut on a character, and so is the message. */
	strcpy(key, "name=");
	for (size_t n = strlen(key); n + 3 < sizeof(key); n += 3)
		strcat(key, "€");
	r.key = key;
	jank_alert_message(&r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "€…]"));
	assert_true(jank_text_is_safe(msg, strlen(msg)));
	for (size_t len = 1; len < 80; len++) {
		jank_alert_message(&r, msg, len);
		assert_true(strlen(msg) < len);
		assert_true(jank_text_is_safe(msg, strlen(msg)));
	}
}

static void followups(void **state)
{
	struct fixture *f = *state;
	struct jank_alerter *al = new_alerter(f, 1, 10 * S);
	struct jank_alerter_stats st;

	for (int i = 0; i < 3; i++)
		jank_alerter_followup(al, &written);
	assert_int_equal(f->sent.followups, 3);
	assert_string_equal(f->sent.action, "frame");
	assert_string_equal(f->sent.line, "capture report of frame [tid=7]: /c/frame-1/report.txt: "
					  "60.3 ms, mostly timer");
	jank_alerter_followup(al, &failed);
	assert_int_equal(f->sent.followups_failed, 1);
	assert_string_equal(f->sent.line,
			    "capture of frame [tid=8] failed: /c/frame-2: snapshot failed");
	jank_alerter_get_stats(al, &st);
	assert_int_equal(st.sent + st.summaries + st.suppressed + st.journal_errors, 0);
	assert_int_equal(f->sent.reports + f->sent.summaries, 0);
}

/* What `fd` (stdout or stderr) receives while `fn` runs. */
static char *output_of(int fd, void (*fn)(struct jank_alerter *), struct jank_alerter *al)
{
	FILE *tmp = tmpfile();
	char *buf = calloc(1, 4096);
	int saved = dup(fd);

	assert_non_null(tmp);
	assert_non_null(buf);
	fflush(NULL);
	assert_true(dup2(fileno(tmp), fd) >= 0);
	fn(al);
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	assert_true(fread(buf, 1, 4095, tmp) < 4095);
	fclose(tmp);
	return buf;
}

static void both_followups(struct jank_alerter *al)
{
	jank_alerter_followup(al, &written);
	jank_alerter_followup(al, &failed);
}

/* The targets' own follow-ups: journald unreached (stderr), stderr, JSON Lines. */
static void followup_targets(void **state)
{
	struct fixture *f = *state;
	struct jank_alert_config c = { .target = JANK_ALERT_JOURNAL };
	struct jank_alerter_stats st;
	char *out;

	jank_journal_reset("/nonexistent/journal/socket", 0, 0);
	f->al = jank_alerter_new(&c);
	out = output_of(2, both_followups, f->al);
	/* No journald: on stderr, as the alerts; no warning (that is the alerts'). */
	assert_string_equal(out, "jankd: capture report of frame [tid=7]: /c/frame-1/report.txt: "
				 "60.3 ms, mostly timer\n"
				 "jankd: capture of frame [tid=8] failed: /c/frame-2: snapshot "
				 "failed\n");
	free(out);
	jank_alerter_get_stats(f->al, &st);
	assert_int_equal(st.journal_errors, 0);
	c.target = JANK_ALERT_STDERR;
	jank_alerter_set_config(f->al, &c);
	out = output_of(2, both_followups, f->al);
	assert_non_null(strstr(out, "jankd: capture of frame [tid=8] failed: /c/frame-2: "));
	free(out);
	c.target = JANK_ALERT_JSON;
	jank_alerter_set_config(f->al, &c);
	out = output_of(1, both_followups, f->al);
	assert_string_equal(out, "{\"type\":\"capture_report\",\"action\":\"frame\",\"key\":"
				 "\"tid=7\",\"capture\":\"/c/frame-1\",\"report\":"
				 "\"/c/frame-1/report.txt\",\"summary\":\"60.3 ms, mostly timer\","
				 "\"partial\":false}\n"
				 "{\"type\":\"capture_failed\",\"action\":\"frame\",\"key\":"
				 "\"tid=8\",\"capture\":\"/c/frame-2\",\"capture_failed\":"
				 "\"snapshot failed\"}\n");
	free(out);
	jank_journal_reset(NULL, 0, 0);
}

/* The value of KEY in a native journal datagram ("" when absent). */
static const char *dgram_field(const char *data, size_t len, const char *key, char *buf,
			       size_t blen)
{
	const char *k, *v;
	size_t pos = 0, kn, vn;

	buf[0] = '\0';
	while (jank_journal_field_next(data, len, &pos, &k, &kn, &v, &vn) == 1)
		if (kn == strlen(key) && !memcmp(k, key, kn))
			snprintf(buf, blen, "%.*s", (int)vn, v);
	return buf;
}

/*
 * The journal target's entry, as journald gets it (a datagram socket standing
 * for journald): a restart's skipped time and a failed capture are fields of
 * their own, absent when there is nothing to say.
 */
static void journal_entry_fields(void **state)
{
	struct fixture *f = *state;
	struct jank_verdict r = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = &f->frame,
		.key = "name=frame,id=1",
		.begin = 10 * S,
		.end = 13 * S,
		.duration = 3 * S,
		.threshold = 16 * MS,
		.tid = 42,
		.pid = 40,
		.discarded_events = 7,
	};
	struct jank_alert a = {
		.kind = JANK_ALERT_REPORT,
		.report = &r,
		.input = "net://r/host/x/s",
		.action = "frame",
		.skipped_ns = 1200 * MS,
		.capture_failed = "cannot create a capture: No space left on device",
	};
	char dir[] = "/tmp/jank-alert.XXXXXX", path[64], buf[65536], v[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	assert_true(fd >= 0);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/socket", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	jank_journal_reset(path, 8, 1 << 20);

	assert_int_equal(jank_alert_journal_ops.report(&a), 0);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	assert_true(n > 0);
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_SKIPPED_NS", v, sizeof(v)),
			    "1200000000");
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_DISCARDED_EVENTS", v, sizeof(v)),
			    "7");
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_CAPTURE_FAILED", v, sizeof(v)),
			    "cannot create a capture: No space left on device");
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_CAPTURE", v, sizeof(v)), "");
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_INPUT", v, sizeof(v)),
			    "net://r/host/x/s");
	/* Nothing skipped, a capture made: no JANK_SKIPPED_NS, no JANK_CAPTURE_FAILED. */
	a.skipped_ns = 0;
	a.capture_failed = NULL;
	a.capture = "/var/lib/jankd/captures/c1";
	assert_int_equal(jank_alert_journal_ops.report(&a), 0);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	assert_true(n > 0);
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_SKIPPED_NS", v, sizeof(v)), "");
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_CAPTURE_FAILED", v, sizeof(v)), "");
	assert_string_equal(dgram_field(buf, (size_t)n, "JANK_CAPTURE", v, sizeof(v)),
			    "/var/lib/jankd/captures/c1");

	jank_journal_reset(NULL, 0, 0);
	close(fd);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(storm, setup, teardown),
		cmocka_unit_test_setup_teardown(new_window, setup, teardown),
		cmocka_unit_test_setup_teardown(per_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(flush_at_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(unlimited, setup, teardown),
		cmocka_unit_test_setup_teardown(recent, setup, teardown),
		cmocka_unit_test_setup_teardown(rename_late, setup, teardown),
		cmocka_unit_test_setup_teardown(capture, setup, teardown),
		cmocka_unit_test_setup_teardown(capture_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(journal_entry_fields, setup, teardown),
		cmocka_unit_test(period_text),
		cmocka_unit_test_setup_teardown(per_host, setup, teardown),
		cmocka_unit_test(message_cause),
		cmocka_unit_test(message_suspect),
		cmocka_unit_test(message_discarded),
		cmocka_unit_test(message_hostile),
		cmocka_unit_test_setup_teardown(followups, setup, teardown),
		cmocka_unit_test_setup_teardown(followup_targets, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
