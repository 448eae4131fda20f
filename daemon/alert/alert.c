/* SPDX-License-Identifier: MIT */
/*
 * Alerts and their rate limiting (see alert.h for the fields), and their
 * output through the target's operations (alert-target.h).
 *
 * Each rule has a window: it opens at the first alert after the previous
 * window closed, lets `rate_count` alerts through, and counts the rest. The
 * window closes `rate_period_ns` after it opened, at the next tick or alert;
 * if it counted anything, one summary entry says so. Windows are keyed by
 * rule name, so a reload that keeps a rule keeps its window.
 *
 * Time here is the monotonic clock of the host, not trace time: a storm is
 * about what reaches the operator, whatever the trace says.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "alert-target.h"
#include "clock.h"
#include "format.h"
#include "textsafe.h"
#include "units.h"

struct window {
	char *action;
	char *host; /* NULL: reports without a host */
	bool open;
	int64_t start;
	uint64_t sent;
	uint64_t suppressed;
};

struct jank_alerter {
	struct jank_alert_config cfg;
	jank_alert_sink_fn sink;
	void *sink_data;
	jank_alert_clock_fn clock;
	void *clock_data;
	jank_alert_capture_fn capture;
	void *capture_data;
	struct window *windows;
	size_t nwindows;
	struct jank_recent recent[JANK_ALERT_HISTORY];
	size_t nrecent; /* total ever recorded; the ring holds the last JANK_ALERT_HISTORY */
	struct jank_alerter_stats stats;
	bool target_warned; /* that the target cannot take alerts: said */
};

static int64_t monotonic_ns(void *data)
{
	(void)data;
	return jank_clock_monotonic_ns();
}

struct jank_alerter *jank_alerter_new(const struct jank_alert_config *c)
{
	struct jank_alerter *al = calloc(1, sizeof(*al));

	if (!al)
		return NULL;
	al->cfg = *c;
	al->clock = monotonic_ns;
	return al;
}

void jank_alerter_free(struct jank_alerter *al)
{
	if (!al)
		return;
	for (size_t i = 0; i < al->nwindows; i++) {
		free(al->windows[i].action);
		free(al->windows[i].host);
	}
	free(al->windows);
	free(al);
}

void jank_alerter_set_config(struct jank_alerter *al, const struct jank_alert_config *c)
{
	al->cfg = *c;
}

void jank_alerter_set_sink(struct jank_alerter *al, jank_alert_sink_fn fn, void *data)
{
	al->sink = fn;
	al->sink_data = data;
}

void jank_alerter_set_clock(struct jank_alerter *al, jank_alert_clock_fn fn, void *data)
{
	al->clock = fn ? fn : monotonic_ns;
	al->clock_data = data;
}

void jank_alerter_set_capture(struct jank_alerter *al, jank_alert_capture_fn fn, void *data)
{
	al->capture = fn;
	al->capture_data = data;
}

const char *jank_alert_period_text(int64_t ns, char *buf, size_t len)
{
	if (ns > 0 && ns % 1000000000 == 0)
		snprintf(buf, len, "%" PRId64 " s", ns / 1000000000);
	else
		jank_units_duration(ns, buf, (unsigned)len);
	return buf;
}

/* ---- Messages ---- */

/*
 * What the action mostly waited for, from the breakdown's largest (thread,
 * state) item: ", mostly timer (99.8%)" on the action's own thread;
 * ", mostly on tid 7 (db), blocked_io (88.0%)" on another thread, or
 * ", mostly on lock 0x55d0 held by tid 7 (db), running (99.9%)" when the path
 * got there through a mutex.
 */
static void format_cause(const struct jank_verdict *r, char *buf, size_t len)
{
	const struct jank_breakdown *b = r->breakdown;
	const struct jank_breakdown_item *top;
	int64_t total = 0, fn_ns = 0;
	const char *fn;
	char d[32], c[JANK_TEXT_SIZE(JANK_COMM_LEN)], f[JANK_TEXT_SIZE(64)];
	double share;
	int n;

	buf[0] = '\0';
	if (!b || b->n == 0)
		return;
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		total += b->per_state[s];
	if (total <= 0)
		return;
	top = &b->items[0];
	share = 100.0 * (double)top->ns / (double)total;
	if (top->tid == r->tid)
		n = snprintf(buf, len, ", mostly %s (%.1f%%)", jank_state_name(top->state), share);
	else if (b->nlocks && b->locks[0].ns * 2 >= top->ns)
		n = snprintf(buf, len,
			     ", mostly on lock 0x%" PRIx64 " held by tid %" PRId32
			     " (%s), %s (%.1f%%)",
			     b->locks[0].lock, top->tid, jank_text(c, sizeof(c), top->comm),
			     jank_state_name(top->state), share);
	else
		n = snprintf(buf, len, ", mostly on tid %" PRId32 " (%s), %s (%.1f%%)", top->tid,
			     jank_text(c, sizeof(c), top->comm), jank_state_name(top->state),
			     share);
	fn = jank_format_top_function(b, &fn_ns);
	if (fn && n > 0 && (size_t)n < len) {
		jank_text_escape(f, sizeof(f), fn, strlen(fn), 64);
		snprintf(buf + n, len - (size_t)n, ", in %s (%s)", f,
			 jank_units_duration(fn_ns, d, sizeof(d)));
	}
}

/*
 * "JANK frame [name=frame,id=9]: 60.3 ms (threshold 30.0 ms) on tid 12 (w) pid 10, mostly timer
 * (99.8%); suspect: +40.1 ms timer (normally 210 us, 191x)", and when the tracer discarded
 * events in its interval "; 3 events discarded by the tracer during it: the path may be
 * incomplete" (never cut: the suspects are cut first).
 * MESSAGE is text for humans: the traced strings in it are escaped and cut
 * (lib/textsafe.h); the JANK_* fields keep them as they are.
 */
void jank_alert_message(const struct jank_verdict *r, char *buf, size_t len)
{
	char d[32], t[32], tail[512], sus[JANK_FORMAT_SUSPECT_LEN + 16] = "";
	char name[JANK_TEXT_BUF], key[JANK_TEXT_BUF], c[JANK_TEXT_SIZE(JANK_COMM_LEN)];
	char lost[128] = "";
	size_t room;
	int n;

	jank_units_duration(r->duration, d, sizeof(d));
	if (r->threshold > 0)
		jank_units_duration(r->threshold, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "none yet");
	format_cause(r, tail, sizeof(tail));
	n = snprintf(buf, len, "%s %s%s%s%s: %s%s (threshold %s) on tid %" PRId32,
		     r->kind == JANK_VERDICT_OVERDUE ? "OVERDUE" : "JANK",
		     jank_text(name, sizeof(name), r->rule ? r->rule->name : "?"),
		     r->key && r->key[0] ? " [" : "", jank_text(key, sizeof(key), r->key),
		     r->key && r->key[0] ? "]" : "", d,
		     r->kind == JANK_VERDICT_OVERDUE ? " and still open" : "", t, r->tid);
	if (n < 0 || (size_t)n >= len) {
		if (len) /* cut: not inside a character */
			buf[jank_utf8_cut(buf, len - 1)] = '\0';
		return;
	}
	if (r->suspects) {
		char line[JANK_FORMAT_SUSPECT_LEN];

		jank_format_suspects_line(r->suspects, line, sizeof(line));
		snprintf(sus, sizeof(sus), "; %s%s",
			 r->suspects->ready && r->suspects->n ? "suspect: " : "", line);
	}
	if (r->discarded_events) {
		jank_format_discarded(r->discarded_events, lost + 2, sizeof(lost) - 2);
		lost[0] = ';';
		lost[1] = ' ';
	}
	if (snprintf(buf + n, len - (size_t)n, "%s%s%s pid %" PRId32 "%s",
		     r->comm && r->comm[0] ? " (" : "", jank_text(c, sizeof(c), r->comm),
		     r->comm && r->comm[0] ? ")" : "", r->pid, tail) >= (int)(len - (size_t)n)) {
		buf[jank_utf8_cut(buf, len - 1)] = '\0';
		return;
	}
	/* The suspects make room for the discarded events: they say how far to trust the rest. */
	n = (int)strlen(buf);
	room = len - (size_t)n - 1;
	room = room > strlen(lost) ? room - strlen(lost) : 0;
	if (strlen(sus) > room)
		sus[jank_utf8_cut(sus, room)] = '\0';
	if (snprintf(buf + n, len - (size_t)n, "%s%s", sus, lost) >= (int)(len - (size_t)n))
		buf[jank_utf8_cut(buf, len - 1)] = '\0';
}

void jank_alert_skipped_text(int64_t skipped_ns, char *buf, size_t len)
{
	char d[32];

	if (skipped_ns <= 0) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "; %s of it was skipped by a worker restart: the path may be incomplete",
		 jank_units_duration(skipped_ns, d, sizeof(d)));
}

void jank_alert_summary_text(const struct jank_alert *a, char *buf, size_t len)
{
	char p[32], e1[JANK_TEXT_BUF], e2[JANK_TEXT_BUF];

	snprintf(buf, len, "%" PRIu64 " more jank%s of %s%s%s suppressed in the last %s",
		 a->suppressed, a->suppressed == 1 ? "" : "s", jank_text(e1, sizeof(e1), a->action),
		 a->host ? " on " : "", jank_text(e2, sizeof(e2), a->host),
		 jank_alert_period_text(a->period_ns, p, sizeof(p)));
}

void jank_alert_followup_text(const struct jank_alert *a, char *buf, size_t len)
{
	const struct jank_followup *fu = a->followup;
	char name[JANK_TEXT_BUF], key[JANK_TEXT_BUF], why[JANK_TEXT_SIZE(600)];
	const char *what = fu->failed ? a->capture_failed : fu->summary;

	/* The summary is report.txt's, escaped already: escaped again only if it must be. */
	if (what && jank_text_is_safe(what, strlen(what)))
		snprintf(why, sizeof(why), "%s", what);
	else
		jank_text_escape(why, sizeof(why), what, what ? strlen(what) : 0, 600);
	if (fu->failed)
		snprintf(buf, len, "capture of %s [%s] failed: %s: %s",
			 jank_text(name, sizeof(name), a->action),
			 jank_text(key, sizeof(key), fu->key), a->capture, why);
	else
		snprintf(buf, len, "capture report of %s [%s]: %s: %s",
			 jank_text(name, sizeof(name), a->action),
			 jank_text(key, sizeof(key), fu->key), fu->report, why);
	if (len && strlen(buf) == len - 1) /* maybe cut: not inside a character */
		buf[jank_utf8_cut(buf, len - 1)] = '\0';
}

/* The target's operation for this kind of alert. */
static int deliver(const struct jank_alert_target_ops *t, const struct jank_alert *a)
{
	switch (a->kind) {
	case JANK_ALERT_REPORT:
		return t->report(a);
	case JANK_ALERT_SUPPRESSED:
		return t->summary(a);
	case JANK_ALERT_FOLLOWUP:
		return t->followup(a);
	case JANK_ALERT_FOLLOWUP_FAILED:
		return t->followup_failed(a);
	}
	return -1;
}

/* Indexed by enum jank_alert_target. */
static const struct jank_alert_target_ops *const targets[JANK_ALERT_TARGETS] = {
	[JANK_ALERT_JOURNAL] = &jank_alert_journal_ops,
	[JANK_ALERT_STDERR] = &jank_alert_stderr_ops,
	[JANK_ALERT_JSON] = &jank_alert_json_ops,
};

/* To the sink (tests), or the target; what the target cannot take goes to stderr. */
static void output(struct jank_alerter *al, const struct jank_alert *a)
{
	const struct jank_alert_target_ops *t;

	if (al->sink) {
		al->sink(a, al->sink_data);
		return;
	}
	t = al->cfg.target < JANK_ALERT_TARGETS ? targets[al->cfg.target] : NULL;
	if (t && deliver(t, a) == 0)
		return;
	/* Never lost: say once why, and write it here. */
	if (a->kind == JANK_ALERT_REPORT || a->kind == JANK_ALERT_SUPPRESSED) {
		al->stats.journal_errors++;
		if (!al->target_warned && t && t->unreachable)
			fprintf(stderr, "jankd: %s: writing them on stderr\n", t->unreachable);
		al->target_warned = true;
	}
	deliver(&jank_alert_stderr_ops, a);
}

static void emit(struct jank_alerter *al, const struct jank_alert *a)
{
	if (a->kind == JANK_ALERT_REPORT)
		al->stats.sent++;
	else
		al->stats.summaries++;
	output(al, a);
}

void jank_alerter_followup(struct jank_alerter *al, const struct jank_followup *fu)
{
	struct jank_alert a = {
		.kind = fu->failed ? JANK_ALERT_FOLLOWUP_FAILED : JANK_ALERT_FOLLOWUP,
		.action = fu->action,
		.capture = fu->dir,
		.capture_failed = fu->failed ? fu->error : NULL,
		.followup = fu,
	};

	output(al, &a);
}

/* ---- Rate limiting ---- */

static bool same_host(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static struct window *window_get(struct jank_alerter *al, const char *action, const char *host)
{
	struct window *v;

	for (size_t i = 0; i < al->nwindows; i++)
		if (!strcmp(al->windows[i].action, action) && same_host(al->windows[i].host, host))
			return &al->windows[i];
	v = realloc(al->windows, (al->nwindows + 1) * sizeof(*v));
	if (!v)
		return NULL;
	al->windows = v;
	v = &v[al->nwindows];
	memset(v, 0, sizeof(*v));
	v->action = strdup(action);
	v->host = host ? strdup(host) : NULL;
	if (!v->action || (host && !v->host)) {
		free(v->action);
		free(v->host);
		return NULL;
	}
	al->nwindows++;
	return v;
}

static void window_close(struct jank_alerter *al, struct window *w, int64_t period)
{
	struct jank_alert a = {
		.kind = JANK_ALERT_SUPPRESSED,
		.action = w->action,
		.host = w->host,
		.suppressed = w->suppressed,
		.period_ns = period,
	};

	if (w->suppressed)
		emit(al, &a);
	w->open = false;
	w->sent = 0;
	w->suppressed = 0;
}

static void record_recent(struct jank_alerter *al, const struct jank_alert *a, bool suppressed)
{
	const struct jank_verdict *r = a->report;
	const char *capture = a->capture;
	struct jank_recent *x = &al->recent[al->nrecent++ % JANK_ALERT_HISTORY];

	memset(x, 0, sizeof(*x));
	x->id = al->nrecent;
	x->kind = r->kind;
	x->suppressed = suppressed;
	x->begin = r->begin;
	x->end = r->end;
	x->duration = r->duration;
	x->threshold = r->threshold;
	x->tid = r->tid;
	x->pid = r->pid;
	jank_utf8_copy(x->comm, sizeof(x->comm), r->comm ? r->comm : ""); /* on a character */
	snprintf(x->action, sizeof(x->action), "%s",
		 r->rule && r->rule->name ? r->rule->name : "?");
	jank_utf8_copy(x->key, sizeof(x->key), r->key ? r->key : "");
	snprintf(x->host, sizeof(x->host), "%s", a->host ? a->host : "");
	snprintf(x->session, sizeof(x->session), "%s", a->session ? a->session : "");
	jank_format_path_story(x->story, sizeof(x->story), r->path, 4);
	snprintf(x->capture, sizeof(x->capture), "%s", capture ? capture : "");
	x->skipped_ns = a->skipped_ns;
	snprintf(x->input, sizeof(x->input), "%s", a->input ? a->input : "");
	if (r->breakdown)
		memcpy(x->per_state, r->breakdown->per_state, sizeof(x->per_state));
	if (r->suspects) {
		for (size_t i = 0; i < r->suspects->n && i < JANK_SUSPECTS_MAX; i++)
			jank_format_suspect(&r->suspects->items[i], r->suspects,
					    x->suspects[x->nsuspects++], JANK_ALERT_SUSPECT_LEN);
		jank_format_suspects_line(r->suspects, x->suspects_line, sizeof(x->suspects_line));
	}
}

void jank_alerter_report_from(struct jank_alerter *al, const struct jank_verdict *r,
			      const struct jank_alert_origin *o)
{
	const char *action = r->rule && r->rule->name ? r->rule->name : "?";
	struct jank_alert a = {
		.kind = JANK_ALERT_REPORT,
		.report = r,
		.input = o->input,
		.host = o->host,
		.session = o->session,
		.action = action,
		.skipped_ns = o->skipped_ns,
	};
	int64_t now = al->clock(al->clock_data);
	struct window *w = NULL;

	al->stats.reports++;
	/* Every jank, suppressed or not, goes to the capture policy. */
	if (al->capture)
		a.capture = al->capture(r, &a.capture_failed, al->capture_data);
	if (al->cfg.rate_count > 0 && al->cfg.rate_period_ns > 0)
		w = window_get(al, action, o->host);
	if (w) {
		if (w->open && now - w->start >= al->cfg.rate_period_ns)
			window_close(al, w, al->cfg.rate_period_ns);
		if (!w->open) {
			w->open = true;
			w->start = now;
		}
		if (w->sent >= al->cfg.rate_count) {
			w->suppressed++;
			al->stats.suppressed++;
			record_recent(al, &a, true);
			return;
		}
		w->sent++;
	}
	/* No window (no limit, or no memory for one): send; better too many than none. */
	record_recent(al, &a, false);
	emit(al, &a);
}

void jank_alerter_report(struct jank_alerter *al, const struct jank_verdict *r, const char *input)
{
	const struct jank_alert_origin o = { .input = input };

	jank_alerter_report_from(al, r, &o);
}

void jank_alerter_tick(struct jank_alerter *al)
{
	int64_t now = al->clock(al->clock_data);

	for (size_t i = 0; i < al->nwindows; i++) {
		struct window *w = &al->windows[i];

		if (w->open && now - w->start >= al->cfg.rate_period_ns)
			window_close(al, w, al->cfg.rate_period_ns);
	}
}

void jank_alerter_flush(struct jank_alerter *al)
{
	int64_t now = al->clock(al->clock_data);

	for (size_t i = 0; i < al->nwindows; i++) {
		struct window *w = &al->windows[i];
		int64_t period = now - w->start;

		if (!w->open)
			continue;
		if (period > al->cfg.rate_period_ns)
			period = al->cfg.rate_period_ns;
		window_close(al, w, period);
	}
}

void jank_alerter_get_stats(const struct jank_alerter *al, struct jank_alerter_stats *out)
{
	*out = al->stats;
}

/* Whether c may be part of a frame's text (then a match next to it is not a whole word). */
static bool frame_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || c == '-' || c == '+';
}

/* FROM as a whole word in BUF (SIZE bytes) becomes TO, each time; cut at a character if need be. */
static bool replace_word(char *buf, size_t size, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to);
	bool changed = false;
	char *at = buf;

	while (flen && (at = strstr(at, from))) {
		size_t tail = strlen(at + flen);

		if ((at > buf && frame_char(at[-1])) || frame_char(at[flen])) {
			at++;
			continue;
		}
		if ((size_t)(at - buf) + tlen >= size) /* no room for the name: stop there */
			break;
		if ((size_t)(at - buf) + tlen + tail >= size)
			tail = size - 1 - (size_t)(at - buf) - tlen;
		memmove(at + tlen, at + flen, tail);
		memcpy(at, to, tlen);
		at[tlen + tail] = '\0';
		buf[jank_utf8_cut(buf, strlen(buf))] = '\0';
		at += tlen;
		changed = true;
	}
	return changed;
}

size_t jank_alerter_rename(struct jank_alerter *al, const char *input, const char *frame,
			   const char *name)
{
	char f[2][JANK_FORMAT_FRAME_TEXT_LEN], n[2][JANK_FORMAT_FRAME_TEXT_LEN];
	size_t changed = 0;

	for (int k = 0; k < 2; k++) {
		jank_format_frame_text(frame, k, f[k], sizeof(f[k]));
		jank_format_frame_text(name, k, n[k], sizeof(n[k]));
	}
	for (size_t i = 0; i < JANK_ALERT_HISTORY && i < al->nrecent; i++) {
		struct jank_recent *x = &al->recent[i];
		bool c;

		if (strncmp(x->input, input, sizeof(x->input) - 1) != 0)
			continue;
		c = replace_word(x->story, sizeof(x->story), f[0], n[0]);
		for (size_t j = 0; j < x->nsuspects; j++)
			c |= replace_word(x->suspects[j], sizeof(x->suspects[j]), f[1], n[1]);
		c |= replace_word(x->suspects_line, sizeof(x->suspects_line), f[1], n[1]);
		changed += c;
	}
	return changed;
}

const struct jank_recent *jank_alerter_recent(const struct jank_alerter *al, size_t i)
{
	return i < JANK_ALERT_RECENT ? jank_alerter_history(al, i) : NULL;
}

const struct jank_recent *jank_alerter_history(const struct jank_alerter *al, size_t i)
{
	if (i >= JANK_ALERT_HISTORY || i >= al->nrecent)
		return NULL;
	return &al->recent[(al->nrecent - 1 - i) % JANK_ALERT_HISTORY];
}

const struct jank_recent *jank_alerter_recent_id(const struct jank_alerter *al, uint64_t id)
{
	if (id == 0 || id > al->nrecent || al->nrecent - id >= JANK_ALERT_HISTORY)
		return NULL;
	return jank_alerter_history(al, al->nrecent - id);
}
