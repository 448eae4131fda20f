/* SPDX-License-Identifier: MIT */
/*
 * The status report of jankd. jank_status_json() gathers the figures once;
 * jank_status_text() prints that very object for humans, so that the two
 * formats cannot disagree.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "capture-worker.h"
#include "format.h"
#include "input-figures.h"
#include "journal.h"
#include "status.h"
#include "json-util.h"
#include "metrics.h"
#include "units.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

/* ---- JSON ---- */

/* Status strings are never null: "" stands for none. */
static void put_str(struct json_object *o, const char *k, const char *v)
{
	jank_json_add_str(o, k, v ? v : "");
}

static void put_double(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double((double)llround(v * 10) / 10));
}

static struct json_object *recent_json(const struct jank_recent *x)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	put_str(o, "kind", jank_verdict_kind_name(x->kind));
	json_object_object_add(o, "suppressed", json_object_new_boolean(x->suppressed));
	put_str(o, "action", x->action);
	put_str(o, "key", x->key);
	jank_json_add_i64(o, "begin", x->begin);
	jank_json_add_i64(o, "end", x->end);
	jank_json_add_i64(o, "duration_ns", x->duration);
	jank_json_add_i64(o, "threshold_ns", x->threshold);
	jank_json_add_i64(o, "tid", x->tid);
	jank_json_add_i64(o, "pid", x->pid);
	put_str(o, "comm", x->comm);
	if (x->host[0])
		put_str(o, "host", x->host);
	if (x->session[0])
		put_str(o, "session", x->session);
	put_str(o, "critical_path", x->story);
	if (x->capture[0])
		put_str(o, "capture", x->capture);
	if (x->skipped_ns > 0)
		jank_json_add_i64(o, "skipped_ns", x->skipped_ns);
	return o;
}

/* The figures that add up over the inputs. */
struct totals {
	int64_t events, actions, janks, overdue, memory, discarded, connected;
	double rate;
};

static int64_t num(struct json_object *o, const char *k)
{
	int64_t v = 0;

	jank_json_get_i64(o, k, &v);
	return v;
}

/* `in`: an input's status; `state`: what it is now. */
static void add_input(struct totals *t, struct json_object *in, const char *state)
{
	struct json_object *rate = jank_json_get(in, "events_per_sec", json_type_double);

	t->events += num(in, "events");
	t->actions += num(in, "actions_completed");
	t->janks += num(in, "janks");
	t->overdue += num(in, "overdue");
	t->memory += num(in, "memory_bytes");
	t->discarded += num(in, "discarded_events");
	t->rate += rate ? json_object_get_double(rate) : (double)num(in, "events_per_sec");
	t->connected += state && !strcmp(state, "connected");
}

/* Per host: how many inputs, connected, and their events and janks. */
static struct json_object *hosts_json(struct json_object *inputs)
{
	struct json_object *hosts = json_object_new_object();
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; hosts && i < json_object_array_length(inputs); i++) {
		struct json_object *in = json_object_array_get_idx(inputs, i), *h;
		const char *host = jank_json_get_str(in, "host");
		const char *state = jank_json_get_str(in, "state");

		if (!host)
			continue;
		if (!json_object_object_get_ex(hosts, host, &h)) {
			h = json_object_new_object();
			jank_json_add_str(h, "host", host);
			json_object_object_add(hosts, host, h);
			json_object_array_add(list, json_object_get(h));
		}
		json_object_object_add(h, "inputs", json_object_new_int64(num(h, "inputs") + 1));
		json_object_object_add(
			h, "connected",
			json_object_new_int64(num(h, "connected") +
					      (state && !strcmp(state, "connected"))));
		json_object_object_add(h, "events",
				       json_object_new_int64(num(h, "events") + num(in, "events")));
		json_object_object_add(h, "janks",
				       json_object_new_int64(num(h, "janks") + num(in, "janks") +
							     num(in, "overdue")));
	}
	json_object_put(hosts);
	return list;
}

static struct json_object *journal_counts_json(const struct jank_journal_counts *c)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	jank_json_add_u64(o, "sent", c->sent);
	jank_json_add_u64(o, "queued", c->queued);
	jank_json_add_u64(o, "late", c->late);
	jank_json_add_u64(o, "dropped", c->dropped);
	jank_json_add_u64(o, "stderr", c->to_stderr);
	jank_json_add_u64(o, "truncated", c->truncated);
	return o;
}

/* Delivery to journald (journal.h): its state, the queue, what went where. */
static struct json_object *journal_json(void)
{
	struct json_object *o = json_object_new_object();
	struct jank_journal_counts all = { 0 };
	struct jank_journal_stats j;

	if (!o)
		return NULL;
	jank_journal_get_stats(&j);
	for (int c = 0; c < JANK_JOURNAL_CLASSES; c++) {
		all.sent += j.counts[c].sent;
		all.queued += j.counts[c].queued;
		all.late += j.counts[c].late;
		all.dropped += j.counts[c].dropped;
		all.to_stderr += j.counts[c].to_stderr;
		all.truncated += j.counts[c].truncated;
	}
	put_str(o, "state", j.backlog ? "queueing" : j.reached ? "accepting" : "unreached");
	jank_json_add_u64(o, "outages", j.outages);
	jank_json_add_i64(o, "queueing_ns", j.backlog_ns);
	jank_json_add_u64(o, "queue_entries", j.pending);
	jank_json_add_u64(o, "queue_bytes", j.pending_bytes);
	jank_json_add(o, "alerts", journal_counts_json(&j.counts[JANK_JOURNAL_ALERT]));
	jank_json_add(o, "entries", journal_counts_json(&all));
	return o;
}

struct json_object *jank_status_json(const struct jankd *d)
{
	struct json_object *o = json_object_new_object();
	struct json_object *inputs = json_object_new_array();
	struct json_object *recent = json_object_new_array();
	struct json_object *alerts = json_object_new_object();
	struct jank_alerter_stats as;
	struct jank_metrics_process proc;
	struct totals t = { 0 };

	if (!o || !inputs || !recent || !alerts) {
		json_object_put(o);
		json_object_put(inputs);
		json_object_put(recent);
		json_object_put(alerts);
		return NULL;
	}
	put_str(o, "type", "status");
	put_str(o, "version", JANK_VERSION);
	jank_json_add_i64(o, "pid", getpid());
	put_str(o, "config", d->config_path);
	jank_json_add_i64(o, "uptime_ns", jank_clock_monotonic_ns() - d->start_mono);
	json_object_object_add(o, "ready", json_object_new_boolean(d->ready));
	for (size_t i = 0; d->fleet && i < jank_fleet_count(d->fleet); i++) {
		struct json_object *in = jank_fleet_input_json(jank_fleet_get(d->fleet, i));

		add_input(&t, in, jank_json_get_str(in, "state"));
		json_object_array_add(inputs, in);
	}
	jank_json_add_i64(o, "inputs_connected", t.connected);
	jank_json_add_i64(o, "events", t.events);
	put_double(o, "events_per_sec", t.rate);
	jank_json_add_i64(o, "actions_completed", t.actions);
	jank_json_add_i64(o, "janks", t.janks);
	jank_json_add_i64(o, "overdue", t.overdue);
	jank_json_add_i64(o, "discarded_events", t.discarded);
	jank_json_add_i64(o, "memory_bytes", t.memory);
	jank_metrics_process_read(&proc, d->start_real);
	jank_json_add_u64(o, "rss_bytes", proc.rss_bytes);
	jank_alerter_get_stats(d->alerter, &as);
	put_str(alerts, "target", jank_alert_target_name(d->target));
	jank_json_add_u64(alerts, "rate_limit_count", d->config.alerts.rate_limit_count);
	jank_json_add_i64(alerts, "rate_limit_period_ns", d->config.alerts.rate_limit_period_ns);
	jank_json_add_u64(alerts, "reports", as.reports);
	jank_json_add_u64(alerts, "sent", as.sent);
	jank_json_add_u64(alerts, "suppressed", as.suppressed);
	jank_json_add_u64(alerts, "summaries", as.summaries);
	jank_json_add_u64(alerts, "journal_errors", as.journal_errors);
	json_object_object_add(o, "alerts", alerts);
	jank_json_add(o, "journal", journal_json());
	if (d->capture_worker)
		json_object_object_add(o, "capture",
				       jank_capture_worker_status_json(d->capture_worker));
	jank_json_add_u64(o, "reloads", d->reloads);
	jank_json_add_u64(o, "reload_errors", d->reload_errors);
	if (d->fleet)
		jank_json_add(o, "fleet", jank_fleet_json(d->fleet));
	jank_json_add(o, "hosts", hosts_json(inputs));
	json_object_object_add(o, "inputs", inputs);
	for (size_t i = 0; i < JANK_ALERT_RECENT; i++) {
		const struct jank_recent *x = jank_alerter_recent(d->alerter, i);

		if (!x)
			break;
		json_object_array_add(recent, recent_json(x));
	}
	json_object_object_add(o, "recent", recent);
	return o;
}

/* ---- Text, from the JSON ---- */

static int64_t gi(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
}

static double gd(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : 0;
}

static const char *gs(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	const char *s;

	if (!json_object_object_get_ex(o, k, &v))
		return "";
	s = json_object_get_string(v);
	return s ? s : ""; /* a null value */
}

static struct json_object *go(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *bytes_text(int64_t b, char *buf, size_t len)
{
	if (b >= 1 << 30)
		snprintf(buf, len, "%.2f GiB", (double)b / (1 << 30));
	else if (b >= 1 << 20)
		snprintf(buf, len, "%.2f MiB", (double)b / (1 << 20));
	else if (b >= 1 << 10)
		snprintf(buf, len, "%.1f KiB", (double)b / (1 << 10));
	else
		snprintf(buf, len, "%" PRId64 " B", b);
	return buf;
}

static const char *uptime_text(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / 1000000000;

	if (s >= 86400)
		snprintf(buf, len, "%" PRId64 "d %02" PRId64 "h", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		snprintf(buf, len, "%" PRId64 "h %02" PRId64 "m", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(buf, len, "%" PRId64 "m %02" PRId64 "s", s / 60, s % 60);
	else
		snprintf(buf, len, "%" PRId64 "s", s);
	return buf;
}

/* "08:00:01.123" local time of a trace time (LTTng: ns since the epoch). */
static const char *clock_text(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns < 1000000000LL * 1000000000LL || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ns % 1000000000 / 1000000));
	return buf;
}

/* " (worker pid 12, 2 restarts: 1 crashed, 1 silent; 1 duplicate dropped)" */
static void worker_text(FILE *f, struct json_object *in)
{
	struct json_object *w = go(in, "worker");

	fprintf(f, " (worker pid %" PRId64, gi(w, "pid"));
	if (gi(w, "restarts"))
		fprintf(f, ", %" PRId64 " restart%s: %" PRId64 " crashed, %" PRId64 " silent",
			gi(w, "restarts"), gi(w, "restarts") == 1 ? "" : "s", gi(w, "crashes"),
			gi(w, "timeouts"));
	if (gi(in, "duplicates_dropped"))
		fprintf(f, "; %" PRId64 " duplicate verdicts dropped",
			gi(in, "duplicates_dropped"));
	fputc(')', f);
}

/* ", stalled for 12.0 s": the input is connected, its trace time still. */
static void stalled_text(FILE *f, int64_t since_real)
{
	char d[32];

	fprintf(f, ", stalled for %s (no event or beacon)",
		jank_units_duration(jank_clock_realtime_ns() - since_real, d, sizeof(d)));
}

static void input_text(FILE *f, struct json_object *in)
{
	struct json_object *g = go(in, "graph"), *rules = go(in, "rules");
	char a[32], b[32], c[32], d[32], e[32], m1[32], m2[32];
	size_t n = rules ? json_object_array_length(rules) : 0;
	int w = 6;

	fprintf(f, "\ninput %s: %s", gs(in, "url"), gs(in, "state"));
	if (gi(in, "stalled_since"))
		stalled_text(f, gi(in, "stalled_since"));
	if (gs(in, "last_error")[0])
		fprintf(f, " (last error: %s)", gs(in, "last_error"));
	worker_text(f, in);
	fprintf(f,
		"\n  events %" PRId64 " (%.1f/s), %" PRId64 " read, discarded %" PRId64
		", disconnects %" PRId64 ", reconnects %" PRId64 "\n",
		gi(in, "events"), gd(in, "events_per_sec"), gi(in, "events_read"),
		gi(in, "discarded_events"), gi(in, "disconnects"), gi(in, "reconnects"));
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(gs(json_object_array_get_idx(rules, i), "action"));

		if (l > w)
			w = l;
	}
	fprintf(f, "  %-*s %8s %8s %10s %10s %10s %10s %10s\n", w, "action", "count", "janks",
		"p50", "p90", "p99", "max", "threshold");
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(rules, i);
		int64_t t = gi(r, "threshold_ns");

		fprintf(f, "  %-*s %8" PRId64 " %8" PRId64 " %10s %10s %10s %10s %10s\n", w,
			gs(r, "action"), gi(r, "count"), gi(r, "janks"),
			jank_units_duration(gi(r, "p50_ns"), a, sizeof(a)),
			jank_units_duration(gi(r, "p90_ns"), b, sizeof(b)),
			jank_units_duration(gi(r, "p99_ns"), c, sizeof(c)),
			jank_units_duration(gi(r, "max_ns"), d, sizeof(d)),
			t > 0 ? jank_units_duration(t, e, sizeof(e)) : "learning");
	}
	fprintf(f,
		"  overdue %" PRId64 " (%" PRId64 " unsure, not reported), open %" PRId64
		", expired %" PRId64 ", evicted by the memory budget %" PRId64
		", truncated %" PRId64 ", dropped %" PRId64 ", unmatched %" PRId64
		", replaced %" PRId64 "\n",
		gi(in, "overdue"), gi(in, "overdue_unsure"), gi(in, "actions_open"),
		gi(in, "actions_expired"), gi(in, "actions_evicted"), gi(in, "paths_truncated"),
		gi(in, "actions_dropped"), gi(in, "actions_unmatched"), gi(in, "actions_replaced"));
	if (gi(in, "skipped_ranges"))
		fprintf(f,
			"  skipped after worker restarts: %.1f s of events in %" PRId64
			" gap%s, %" PRId64 " open actions lost\n",
			gd(in, "skipped_seconds"), gi(in, "skipped_ranges"),
			gi(in, "skipped_ranges") == 1 ? "" : "s", gi(in, "actions_lost"));
	if (gi(in, "paths_incomplete"))
		fprintf(f, "  %" PRId64 " paths incomplete (out of memory while computing them)\n",
			gi(in, "paths_incomplete"));
	fprintf(f,
		"  graph: %" PRId64 " threads, %" PRId64
		" vertices, memory %s (peak %s); GC %" PRId64 " steps, %" PRId64
		" vertices freed, budget forced %" PRId64 " times\n",
		gi(g, "workers"), gi(g, "vertices"),
		bytes_text(gi(in, "memory_bytes"), m1, sizeof(m1)),
		bytes_text(gi(in, "memory_peak"), m2, sizeof(m2)), gi(g, "gc_steps"),
		gi(g, "freed_vertices"), gi(in, "budget_forced"));
}

/* "captures (snapshot, session S, in DIR): 1 started, ...; refused: cooldown 5; 1 report" */
static void capture_text(FILE *f, struct json_object *c)
{
	struct json_object *refused = go(c, "refused"), *flight = go(c, "in_flight");
	struct json_object *session = go(c, "session");
	char b[32];
	int first = 1;

	if (!c)
		return;
	if (!strcmp(gs(c, "mode"), "none")) {
		fprintf(f, "captures: off ([capture] mode = none)\n");
		return;
	}
	if (!session && !gs(c, "session_error")[0] && !gi(c, "started")) {
		fprintf(f, "captures: off (no rule says capture = yes)\n");
		return;
	}
	fprintf(f,
		"captures (%s, session %s, in %s): %" PRId64 " started, %" PRId64
		" joined, %" PRId64 " complete, %" PRId64 " failed, %s on disk",
		gs(c, "mode"), session ? json_object_get_string(session) : "none", gs(c, "dir"),
		gi(c, "started"), gi(c, "joined"), gi(c, "completed"), gi(c, "failed"),
		bytes_text(gi(c, "bytes"), b, sizeof(b)));
	if (gi(c, "deleted"))
		fprintf(f, ", %" PRId64 " deleted by the quota", gi(c, "deleted"));
	if (json_object_is_type(refused, json_type_object)) {
		json_object_object_foreach(refused, reason, n)
		{
			if (!json_object_get_int64(n))
				continue;
			fprintf(f, "%s %s %" PRId64, first ? "; refused:" : ",", reason,
				json_object_get_int64(n));
			first = 0;
		}
	}
	fprintf(f, "; %" PRId64 " report%s written",
		gi(c, "reports") + gi(c, "reports_without_path"),
		gi(c, "reports") + gi(c, "reports_without_path") == 1 ? "" : "s");
	if (gi(c, "reports_failed"))
		fprintf(f, ", %" PRId64 " failed", gi(c, "reports_failed"));
	if (go(c, "chunks_kept"))
		fprintf(f, "; chunks: %" PRId64 " kept, %" PRId64 " deleted", gi(c, "chunks_kept"),
			gi(c, "chunks_deleted"));
	if (gi(c, "rotations_waited"))
		fprintf(f, "; %" PRId64 " waited for a scheduled rotation",
			gi(c, "rotations_waited"));
	if (flight && json_object_get_string(flight))
		fprintf(f, "; recording %s", json_object_get_string(flight));
	if (gs(c, "session_error")[0])
		fprintf(f, "\n  the capture session is down: %s", gs(c, "session_error"));
	fputc('\n', f);
}

static void recent_text(FILE *f, struct json_object *recent)
{
	size_t n = recent ? json_object_array_length(recent) : 0;
	char t[48], d[32];

	if (n == 0) {
		fprintf(f, "\nno jank yet\n");
		return;
	}
	fprintf(f, "\nrecent janks, newest first:\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(recent, i);
		const char *key = gs(x, "key");

		fprintf(f, "  %s  %s%s%s%s%s%s  %s%s%s  %s\n",
			clock_text(gi(x, "end"), t, sizeof(t)), gs(x, "action"), key[0] ? " [" : "",
			key, key[0] ? "]" : "", gs(x, "host")[0] ? " on " : "", gs(x, "host"),
			jank_units_duration(gi(x, "duration_ns"), d, sizeof(d)),
			jank_verdict_kind_from_name(gs(x, "kind")) == JANK_VERDICT_OVERDUE
				? " (overdue)"
				: "",
			json_object_get_boolean(go(x, "suppressed")) ? " (suppressed)" : "",
			gs(x, "critical_path"));
		if (gs(x, "capture")[0])
			fprintf(f, "      capture %s\n", gs(x, "capture"));
		if (gi(x, "skipped_ns") > 0)
			fprintf(f,
				"      %s of it skipped by a worker restart: path may be "
				"incomplete\n",
				jank_units_duration(gi(x, "skipped_ns"), d, sizeof(d)));
	}
}

static void patterns_text(FILE *f, struct json_object *a)
{
	size_t n = a ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "",
			json_object_get_string(json_object_array_get_idx(a, i)));
	if (n == 0)
		fputc('*', f);
}

/* "discovery of net://relay:5344 (hosts web-*; sessions *): 12 sessions listed, every 2 s" */
static void discovery_text(FILE *f, struct json_object *disc)
{
	char p[32];

	if (!disc)
		return;
	fprintf(f, "discovery of %s (hosts ", gs(disc, "relayd"));
	patterns_text(f, go(disc, "hosts"));
	fprintf(f, "; sessions ");
	patterns_text(f, go(disc, "sessions"));
	fprintf(f,
		"): %" PRId64 " sessions listed, every %s, %" PRId64 " polls, %" PRId64 " failed",
		gi(disc, "sessions_listed"),
		jank_alert_period_text(gi(disc, "interval_ns"), p, sizeof(p)), gi(disc, "polls"),
		gi(disc, "errors"));
	if (gs(disc, "last_error")[0])
		fprintf(f, " (last error: %s)", gs(disc, "last_error"));
	fputc('\n', f);
}

/* The inputs, grouped by host. */
static void inputs_text(FILE *f, struct json_object *hosts, struct json_object *inputs)
{
	size_t nh = hosts ? json_object_array_length(hosts) : 0;
	size_t ni = inputs ? json_object_array_length(inputs) : 0;

	for (size_t h = 0; h < nh; h++) {
		struct json_object *ho = json_object_array_get_idx(hosts, h);
		const char *name = gs(ho, "host");

		fprintf(f,
			"\nhost %s: %" PRId64 " input%s, %" PRId64 " connected, %" PRId64
			" events, %" PRId64 " janks\n",
			name, gi(ho, "inputs"), gi(ho, "inputs") == 1 ? "" : "s",
			gi(ho, "connected"), gi(ho, "events"), gi(ho, "janks"));
		for (size_t i = 0; i < ni; i++) {
			struct json_object *in = json_object_array_get_idx(inputs, i);

			if (!strcmp(gs(in, "host"), name))
				input_text(f, in);
		}
	}
}

/*
 * "journald: accepting entries, 1 outage; alerts 12 sent (3 late), 3 queued, 0 dropped,
 * 0 on stderr": with alerts to the journal, or once anything went there.
 */
static void journal_text(FILE *f, struct json_object *j, bool target)
{
	struct json_object *al = go(j, "alerts"), *all = go(j, "entries");
	const char *state = gs(j, "state");
	char d[32], b[32];

	if (!j || (!target && !gi(all, "sent") && !gi(all, "queued") && !gi(all, "stderr")))
		return;
	if (!strcmp(state, "queueing"))
		fprintf(f, "journald: NOT accepting entries for %s, %" PRId64 " waiting (%s)",
			jank_units_duration(gi(j, "queueing_ns"), d, sizeof(d)),
			gi(j, "queue_entries"), bytes_text(gi(j, "queue_bytes"), b, sizeof(b)));
	else if (!strcmp(state, "accepting"))
		fprintf(f, "journald: accepting entries");
	else
		fprintf(f, "journald: not reached (entries on stderr)");
	fprintf(f,
		", %" PRId64 " outage%s; alerts %" PRId64 " sent (%" PRId64 " late), %" PRId64
		" queued, %" PRId64 " dropped, %" PRId64 " on stderr",
		gi(j, "outages"), gi(j, "outages") == 1 ? "" : "s", gi(al, "sent"), gi(al, "late"),
		gi(al, "queued"), gi(al, "dropped"), gi(al, "stderr"));
	if (gi(all, "dropped") > gi(al, "dropped"))
		fprintf(f, "; %" PRId64 " other entries dropped",
			gi(all, "dropped") - gi(al, "dropped"));
	fputc('\n', f);
}

char *jank_status_text(const struct jankd *d)
{
	struct json_object *o = jank_status_json(d), *al, *inputs;
	char *buf = NULL, up[32], m1[32], m2[32], p[32];
	size_t len = 0;
	FILE *f;

	if (!o)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		json_object_put(o);
		return NULL;
	}
	al = go(o, "alerts");
	inputs = go(o, "inputs");
	fprintf(f, "jankd %s (pid %" PRId64 "), up %s, config %s\n", gs(o, "version"), gi(o, "pid"),
		uptime_text(gi(o, "uptime_ns"), up, sizeof(up)), gs(o, "config"));
	fprintf(f,
		"events %" PRId64 " (%.1f/s), actions %" PRId64 ", janks %" PRId64
		", overdue %" PRId64 ", discarded events %" PRId64 "\n",
		gi(o, "events"), gd(o, "events_per_sec"), gi(o, "actions_completed"),
		gi(o, "janks"), gi(o, "overdue"), gi(o, "discarded_events"));
	fprintf(f, "graph memory %s, RSS %s\n", bytes_text(gi(o, "memory_bytes"), m1, sizeof(m1)),
		bytes_text(gi(o, "rss_bytes"), m2, sizeof(m2)));
	fprintf(f,
		"alerts to %s: %" PRId64 " sent, %" PRId64 " suppressed (%" PRId64
		" summaries), rate limit %" PRId64 " per %s",
		gs(al, "target"), gi(al, "sent"), gi(al, "suppressed"), gi(al, "summaries"),
		gi(al, "rate_limit_count"),
		jank_alert_period_text(gi(al, "rate_limit_period_ns"), p, sizeof(p)));
	if (gi(al, "journal_errors"))
		fprintf(f, ", %" PRId64 " refused by journald", gi(al, "journal_errors"));
	fputc('\n', f);
	journal_text(f, go(o, "journal"), !strcmp(gs(al, "target"), "journal"));
	fprintf(f, "reloads %" PRId64 ", rejected %" PRId64 "\n", gi(o, "reloads"),
		gi(o, "reload_errors"));
	capture_text(f, go(o, "capture"));
	discovery_text(f, go(go(o, "fleet"), "discovery"));
	inputs_text(f, go(o, "hosts"), inputs);
	recent_text(f, go(o, "recent"));
	fclose(f);
	json_object_put(o);
	return buf;
}

/* ---- Metrics ---- */

/*
 * The metrics of the inputs come from the figures their workers sent last
 * (jank_fleet_input_json(): the current worker's plus those of the workers
 * before it), not from engines: those live in the workers.
 */
struct metrics_inputs {
	struct json_object **json; /* one per input, put at the end */
	struct jank_metrics_input *inputs;
	struct jank_metrics_rule *rules;
	struct jank_histogram *hists;
	struct jank_rule_stats *stats;
	size_t n;
	int64_t workers_cpu_ns; /* of the running workers */
};

static uint64_t get_u64(struct json_object *o, const char *key)
{
	int64_t v = 0;

	return jank_json_get_i64(o, key, &v) && v > 0 ? (uint64_t)v : 0;
}

static void metrics_rule(struct json_object *r, struct jank_metrics_rule *mr,
			 struct jank_histogram *h, struct jank_rule_stats *rs)
{
	const char *key = jank_json_get_str(r, "last_jank_key");
	int64_t v = 0;

	jank_figures_histogram(r, h);
	memset(rs, 0, sizeof(*rs));
	rs->janks = get_u64(r, "janks");
	rs->overdue = get_u64(r, "overdue");
	rs->expired = get_u64(r, "expired");
	rs->evicted = get_u64(r, "evicted");
	if (jank_json_get_i64(r, "last_jank_ns", &v))
		rs->last_jank_ns = v;
	snprintf(rs->last_jank_key, sizeof(rs->last_jank_key), "%s", key ? key : "");
	mr->action = jank_json_get_str(r, "action");
	mr->hist = h;
	mr->stats = rs;
	/* An adaptive threshold still learning says 0 (the engine's "none yet"). */
	mr->threshold_ns = jank_json_get_i64(r, "threshold_ns", &v) && v > 0 ? v : 0;
}

static void metrics_inputs_free(struct metrics_inputs *mi)
{
	for (size_t i = 0; mi->json && i < mi->n; i++)
		json_object_put(mi->json[i]);
	free(mi->json);
	free(mi->inputs);
	free(mi->rules);
	free(mi->hists);
	free(mi->stats);
}

static int metrics_inputs_read(const struct jankd *d, struct metrics_inputs *mi)
{
	size_t n = d->fleet ? jank_fleet_count(d->fleet) : 0, nrules = 0, k = 0;

	memset(mi, 0, sizeof(*mi));
	mi->json = calloc(n + 1, sizeof(*mi->json));
	mi->inputs = calloc(n + 1, sizeof(*mi->inputs));
	if (!mi->json || !mi->inputs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *rules;

		mi->json[i] = jank_fleet_input_json(jank_fleet_get(d->fleet, i));
		if (!mi->json[i])
			return -ENOMEM;
		mi->n = i + 1;
		rules = jank_json_get(mi->json[i], "rules", json_type_array);
		nrules += rules ? json_object_array_length(rules) : 0;
	}
	mi->rules = calloc(nrules + 1, sizeof(*mi->rules));
	mi->hists = calloc(nrules + 1, sizeof(*mi->hists));
	mi->stats = calloc(nrules + 1, sizeof(*mi->stats));
	if (!mi->rules || !mi->hists || !mi->stats)
		return -ENOMEM;
	for (size_t i = 0; i < mi->n; i++) {
		struct json_object *o = mi->json[i];
		struct json_object *rules = jank_json_get(o, "rules", json_type_array);
		struct jank_metrics_input *in = &mi->inputs[i];
		const char *state = jank_json_get_str(o, "state");
		struct json_object *worker;
		int64_t pid;

		in->url = jank_json_get_str(o, "url");
		in->connected = state && !strcmp(state, "connected");
		in->events = get_u64(o, "events");
		in->discarded_events = get_u64(o, "discarded_events");
		in->disconnects = get_u64(o, "disconnects");
		in->reconnects = get_u64(o, "reconnects");
		in->stalled_since_s = get_u64(o, "stalled_since") / 1000000000u;
		in->stalls = get_u64(o, "stalls");
		in->memory_bytes = get_u64(o, "memory_bytes");
		in->budget_forced = get_u64(o, "budget_forced");
		in->actions_open = get_u64(o, "actions_open");
		in->skipped_ns = (int64_t)get_u64(o, "skipped_ns");
		in->actions_lost = get_u64(o, "actions_lost");
		worker = jank_json_get(o, "worker", json_type_object);
		pid = 0;
		if (worker)
			jank_json_get_i64(worker, "pid", &pid);
		in->worker_restarts = worker ? get_u64(worker, "restarts") : 0;
		in->worker_rss_bytes = jank_metrics_pid_rss((pid_t)pid);
		mi->workers_cpu_ns += jank_metrics_pid_cpu_ns((pid_t)pid);
		in->rules = mi->rules + k;
		in->nrules = rules ? json_object_array_length(rules) : 0;
		for (size_t r = 0; r < in->nrules; r++, k++)
			metrics_rule(json_object_array_get_idx(rules, r), &mi->rules[k],
				     &mi->hists[k], &mi->stats[k]);
	}
	return 0;
}

char *jank_status_metrics(const struct jankd *d, enum jank_metrics_format f, size_t *len)
{
	struct jank_metrics m = {
		.version = JANK_VERSION,
		.memory_limit = d->config.graph.memory_limit,
	};
	struct jank_metrics_http_stats hs;
	struct jank_capture_stats cs;
	struct jank_journal_stats js;
	struct metrics_inputs mi;
	char *text = NULL;

	if (metrics_inputs_read(d, &mi) < 0)
		goto end;
	m.inputs = mi.inputs;
	m.ninputs = mi.n;
	m.workers_cpu_ns = mi.workers_cpu_ns + jank_metrics_children_cpu_ns();
	jank_alerter_get_stats(d->alerter, &m.alerts);
	jank_journal_get_stats(&js);
	m.journal = &js;
	if (d->capture_worker) {
		jank_capture_worker_get_stats(d->capture_worker, &cs);
		m.captures = &cs;
	}
	if (d->metrics) {
		jank_metrics_server_get_stats(d->metrics, &hs);
		m.http = &hs;
	}
	jank_metrics_process_read(&m.process, d->start_real);
	text = jank_metrics_render(&m, f, len);
end:
	metrics_inputs_free(&mi);
	return text;
}

void jank_status_line(const struct jankd *d, char *buf, size_t len)
{
	size_t n = d->fleet ? jank_fleet_count(d->fleet) : 0;
	struct jank_alerter_stats as;
	struct totals t = { 0 };
	char m[32];

	for (size_t i = 0; i < n; i++) {
		struct json_object *in = jank_fleet_input_json(jank_fleet_get(d->fleet, i));

		add_input(&t, in, jank_json_get_str(in, "state"));
		json_object_put(in);
	}
	jank_alerter_get_stats(d->alerter, &as);
	snprintf(buf, len,
		 "inputs %" PRId64 "/%zu connected, %.0f events/s, %" PRId64 " events, %" PRId64
		 " actions, %" PRId64 " janks, %" PRIu64 " alerts suppressed, %" PRId64
		 " events discarded, graph %s",
		 t.connected, n, t.rate, t.events, t.actions, t.janks + t.overdue, as.suppressed,
		 t.discarded, bytes_text(t.memory, m, sizeof(m)));
}
