/* SPDX-License-Identifier: MIT */
/*
 * The status report of jankd. The figures are gathered once per request
 * into structs (status_read(): each input's as the fleet keeps them, typed,
 * input-figures.h), and the JSON, the text and the metrics are rendered from
 * those: no format reads another's output. The capturer's and the
 * discovery's sections are their typed status (capturer.h, fleet.h),
 * rendered here as text and by their owners as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fetcher.h"
#include "status-int.h"
#include "crossing.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

/* ---- The figures, gathered once ---- */

bool status_connected(const struct jank_input_figures *f)
{
	return !strcmp(f->state, "connected");
}

static void add_input(struct totals *t, const struct jank_input_figures *f)
{
	t->inputs++;
	t->events += f->engine.events;
	t->actions += f->engine.actions_completed;
	t->janks += f->engine.janks;
	t->overdue += f->engine.overdue;
	t->memory += f->engine.memory_bytes;
	t->discarded += f->engine.discarded_events;
	t->rate += f->events_per_sec;
	t->connected += status_connected(f);
}

/* Per host: how many inputs, connected, and their events and janks. */
void status_add_host(struct status *s, const struct jank_fleet_figures *x)
{
	size_t h = 0;

	if (!x->host)
		return;
	while (h < s->nhosts && strcmp(s->hosts[h].host, x->host))
		h++;
	if (h == s->nhosts)
		s->hosts[s->nhosts++] = (struct totals){ .host = x->host };
	add_input(&s->hosts[h], &x->fig);
}

bool status_is_blind(const struct jank_fleet_figures *x)
{
	struct jank_fleet_blind b;

	jank_fleet_figures_blind(x, &b);
	return b.blind;
}

void status_fini(struct status *s)
{
	for (size_t i = 0; s->inputs && i < s->n; i++)
		jank_fleet_figures_fini(&s->inputs[i]);
	free(s->inputs);
	free(s->hosts);
	memset(s, 0, sizeof(*s));
}

/* Each input's figures, and their sums. Returns 0 or -ENOMEM. */
int status_read(const struct jankd *d, struct status *s)
{
	size_t n = d->fleet ? jank_fleet_count(d->fleet) : 0;

	memset(s, 0, sizeof(*s));
	s->inputs = calloc(n + 1, sizeof(*s->inputs));
	s->hosts = calloc(n + 1, sizeof(*s->hosts));
	if (!s->inputs || !s->hosts)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct jank_fleet_figures *x = &s->inputs[i];

		s->n = i + 1;
		if (jank_fleet_input_figures(jank_fleet_get(d->fleet, i), x) < 0)
			goto nomem;
		/* The session jankd owns: what its keeper knows too. */
		if (d->keeper && !strcmp(x->fig.url, jank_live_keeper_url(d->keeper)))
			jank_live_keeper_status(d->keeper, x);
		add_input(&s->all, &x->fig);
		status_add_host(s, x);
		s->all.blind += status_is_blind(x);
	}
	return 0;
nomem:
	status_fini(s);
	return -ENOMEM;
}

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

struct json_object *status_hosts_json(const struct status *s)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; list && i < s->nhosts; i++) {
		const struct totals *h = &s->hosts[i];
		struct json_object *o = json_object_new_object();

		jank_json_add_str(o, "host", h->host);
		jank_json_add_u64(o, "inputs", h->inputs);
		jank_json_add_u64(o, "connected", h->connected);
		jank_json_add_u64(o, "events", h->events);
		jank_json_add_u64(o, "janks", h->janks + h->overdue);
		json_object_array_add(list, o);
	}
	return list;
}

static struct json_object *inputs_json(const struct status *s)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < s->n; i++)
		json_object_array_add(a, jank_fleet_figures_json(&s->inputs[i]));
	return a;
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

/* Every class's counts added up. */
static struct jank_journal_counts journal_all(const struct jank_journal_stats *j)
{
	struct jank_journal_counts all = { 0 };

	for (int c = 0; c < JANK_JOURNAL_CLASSES; c++) {
		all.sent += j->counts[c].sent;
		all.queued += j->counts[c].queued;
		all.late += j->counts[c].late;
		all.dropped += j->counts[c].dropped;
		all.to_stderr += j->counts[c].to_stderr;
		all.truncated += j->counts[c].truncated;
	}
	return all;
}

static const char *journal_state(const struct jank_journal_stats *j)
{
	return j->backlog ? "queueing" : j->reached ? "accepting" : "unreached";
}

/* Delivery to journald (journal.h): its state, the queue, what went where. */
/* The supervisor's debuginfod fetcher (fetcher.h): its servers' answers. */
static struct json_object *debuginfod_json(struct jank_fetcher *fe)
{
	struct json_object *o = json_object_new_object();
	struct jank_fetcher_stats st;

	jank_fetcher_get_stats(fe, &st);
	jank_json_add_str(o, "cache", jank_fetcher_config(fe)->cache);
	jank_json_add_i64(o, "pid", jank_fetcher_pid(fe)); /* the process that downloads */
	jank_json_add_u64(o, "requests", st.requests);
	jank_json_add_u64(o, "fetched", st.fetched);
	jank_json_add_u64(o, "failed", st.failed);
	jank_json_add_u64(o, "dropped", st.dropped);
	return o;
}

static struct json_object *journal_json(void)
{
	struct json_object *o = json_object_new_object();
	struct jank_journal_counts all;
	struct jank_journal_stats j;

	if (!o)
		return NULL;
	jank_journal_get_stats(&j);
	all = journal_all(&j);
	put_str(o, "state", journal_state(&j));
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
	struct json_object *recent = json_object_new_array();
	struct json_object *alerts = json_object_new_object();
	struct jank_capturer_status cs;
	struct jank_alerter_stats as;
	struct jank_metrics_process proc;
	struct status s;

	if (!o || !recent || !alerts || status_read(d, &s) < 0) {
		json_object_put(o);
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
	jank_json_add_u64(o, "inputs_connected", s.all.connected);
	jank_json_add_u64(o, "inputs_blind", s.all.blind);
	jank_json_add_u64(o, "events", s.all.events);
	put_double(o, "events_per_sec", s.all.rate);
	jank_json_add_u64(o, "actions_completed", s.all.actions);
	jank_json_add_u64(o, "janks", s.all.janks);
	jank_json_add_u64(o, "overdue", s.all.overdue);
	jank_json_add_u64(o, "discarded_events", s.all.discarded);
	jank_json_add_u64(o, "memory_bytes", s.all.memory);
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
	if (d->capturer) {
		jank_capturer_get_status(d->capturer, &cs);
		json_object_object_add(o, "capture", jank_capturer_status_to_json(&cs));
	}
	if (d->fetcher)
		jank_json_add(o, "debuginfod", debuginfod_json(d->fetcher));
	jank_json_add_u64(o, "reloads", d->reloads);
	jank_json_add_u64(o, "reload_errors", d->reload_errors);
	if (d->fleet)
		jank_json_add(o, "fleet", jank_fleet_json(d->fleet));
	jank_json_add(o, "hosts", status_hosts_json(&s));
	jank_json_add(o, "inputs", inputs_json(&s));
	status_fini(&s);
	for (size_t i = 0; i < JANK_ALERT_RECENT; i++) {
		const struct jank_recent *x = jank_alerter_recent(d->alerter, i);

		if (!x)
			break;
		json_object_array_add(recent, recent_json(x));
	}
	json_object_object_add(o, "recent", recent);
	return o;
}

/* ---- Text ---- */

const char *status_bytes_text(int64_t b, char *buf, size_t len)
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

const char *status_uptime_text(int64_t ns, char *buf, size_t len)
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

/* " (worker pid 12, 2 restarts: 1 crashed, 1 silent; 1 duplicate dropped)" */
void status_worker_text(FILE *f, const struct jank_fleet_figures *x)
{
	const struct jank_worker_proc_stats *w = &x->worker;
	uint64_t restarts = w->starts ? w->starts - 1 : 0;

	fprintf(f, " (worker pid %d", (int)w->pid);
	if (restarts)
		fprintf(f, ", %" PRIu64 " restart%s: %" PRIu64 " crashed, %" PRIu64 " silent",
			restarts, restarts == 1 ? "" : "s", w->crashes, w->timeouts);
	if (x->duplicates_dropped)
		fprintf(f, "; %" PRIu64 " duplicate verdicts dropped", x->duplicates_dropped);
	fputc(')', f);
}

/* ", stalled for 12.0 s": the input is connected, its trace time still. */
static void stalled_text(FILE *f, int64_t since_real)
{
	char d[32];

	fprintf(f, ", stalled for %s (no event or beacon)",
		jank_units_duration(jank_clock_realtime_ns() - since_real, d, sizeof(d)));
}

static void rules_text(FILE *f, const struct jank_input_figures *in)
{
	char a[32], b[32], c[32], d[32], e[32];
	int w = 6;

	for (size_t i = 0; i < in->nrules; i++) {
		int l = (int)strlen(in->rules[i].action);

		if (l > w)
			w = l;
	}
	fprintf(f, "  %-*s %8s %8s %10s %10s %10s %10s %10s\n", w, "action", "count", "janks",
		"p50", "p90", "p99", "max", "threshold");
	for (size_t i = 0; i < in->nrules; i++) {
		const struct jank_rule_figures *r = &in->rules[i];

		fprintf(f, "  %-*s %8" PRIu64 " %8" PRIu64 " %10s %10s %10s %10s %10s\n", w,
			r->action, r->count, r->stats.janks,
			jank_units_duration(r->p50_ns, a, sizeof(a)),
			jank_units_duration(r->p90_ns, b, sizeof(b)),
			jank_units_duration(r->p99_ns, c, sizeof(c)),
			jank_units_duration(r->max_ns, d, sizeof(d)),
			r->threshold_ns > 0 ? jank_units_duration(r->threshold_ns, e, sizeof(e))
					    : "learning");
	}
}

/* " since 2024-05-02 08:00:01.123 (12s)" */
static void since_text(FILE *f, int64_t since)
{
	int64_t age = jank_clock_realtime_ns() - since;
	char a[48], b[32];

	if (since > 0)
		fprintf(f, " since %s (%s)", jank_clock_text(since, a, sizeof(a)),
			status_uptime_text(age > 0 ? age : 0, b, sizeof(b)));
}

/* " since 2024-05-02 08:00:01.123 (12s): worker cannot start: no user 'jank-worker' (...)" */
static void worker_failure_text(FILE *f, const struct jank_worker_proc_stats *w)
{
	since_text(f, w->failing_since);
	fprintf(f, ": %s", w->error);
}

/* ": relayd unreachable since 2024-05-02 08:00:01.123 (12s)": what is wrong now. */
static void problem_text(FILE *f, const struct jank_input_figures *in)
{
	fprintf(f, ": %s", in->problem);
	since_text(f, in->problem_since);
}

void status_input_text(FILE *f, const struct jank_fleet_figures *x)
{
	const struct jank_input_figures *in = &x->fig;
	const struct jank_engine_stats *es = &in->engine;
	char m1[32], m2[32];

	fprintf(f, "\ninput %s: %s", in->url, in->state);
	if (in->stalled_since)
		stalled_text(f, in->stalled_since);
	if (x->worker.failing && x->worker.error[0] && !x->worker.pid)
		worker_failure_text(f, &x->worker);
	else if (in->problem[0])
		problem_text(f, in);
	if (in->last_error[0])
		fprintf(f, " (last error: %s)", in->last_error);
	status_worker_text(f, x);
	fprintf(f,
		"\n  events %" PRIu64 " (%.1f/s), %" PRIu64 " read, discarded %" PRIu64
		", disconnects %" PRIu64 ", reconnects %" PRIu64 "\n",
		es->events, in->events_per_sec, in->events_read, es->discarded_events,
		in->disconnects, in->reconnects);
	rules_text(f, in);
	fprintf(f,
		"  overdue %" PRIu64 " (%" PRIu64 " unsure, not reported), open %" PRIu64
		", expired %" PRIu64 ", evicted by the memory budget %" PRIu64
		", truncated %" PRIu64 ", dropped %" PRIu64 ", unmatched %" PRIu64
		", replaced %" PRIu64 "\n",
		es->overdue, es->overdue_unsure, es->actions_open, es->actions_expired,
		es->actions_evicted, es->paths_truncated, es->actions_dropped,
		es->actions_unmatched, es->actions_replaced);
	if (x->skipped_ranges)
		fprintf(f,
			"  skipped after worker restarts: %.1f s of events in %" PRIu64
			" gap%s, %" PRIu64 " open actions lost\n",
			(double)x->skipped_ns / 1e9, x->skipped_ranges,
			x->skipped_ranges == 1 ? "" : "s", x->actions_lost);
	if (es->paths_incomplete)
		fprintf(f, "  %" PRIu64 " paths incomplete (out of memory while computing them)\n",
			es->paths_incomplete);
	if (in->opener_opened || in->opener_refused)
		fprintf(f,
			"  binary opener: %" PRIu64 " binaries opened, %" PRIu64
			" refused (jankd's log says why)\n",
			in->opener_opened, in->opener_refused);
	fprintf(f,
		"  graph: %" PRIu64 " threads, %" PRIu64
		" vertices, memory %s (peak %s); GC %" PRIu64 " steps, %" PRIu64
		" vertices freed, budget forced %" PRIu64 " times\n",
		es->graph.threads, es->graph.vertices,
		status_bytes_text((int64_t)es->memory_bytes, m1, sizeof(m1)),
		status_bytes_text((int64_t)es->memory_peak, m2, sizeof(m2)), es->graph.gc_steps,
		es->graph.freed_vertices, es->budget_forced);
}

/* "captures (snapshot, session S, in DIR): 1 started, ...; refused: cooldown 5; 1 report" */
void status_capture_text(FILE *f, const struct jank_capturer_status *c)
{
	const struct jank_capture_stats *st = &c->stats;
	char b[32];
	int first = 1;

	if (c->mode == JANK_CAPTURE_NONE) {
		fprintf(f, "captures: off ([capture] mode = none)\n");
		return;
	}
	if (!c->session_up && !c->session_error[0] && !st->started) {
		fprintf(f, "captures: off (no rule says capture = yes)\n");
		return;
	}
	fprintf(f,
		"captures (%s, session %s, in %s): %" PRIu64 " started, %" PRIu64
		" joined, %" PRIu64 " complete, %" PRIu64 " failed, %s on disk",
		jank_capture_mode_name(c->mode), c->session_up ? c->session : "none", c->dir,
		st->started, st->joined, st->completed, st->failed,
		status_bytes_text((int64_t)st->bytes, b, sizeof(b)));
	if (st->deleted)
		fprintf(f, ", %" PRIu64 " deleted by the quota", st->deleted);
	for (int i = JANK_CAPTURE_REASON_COOLDOWN; i <= JANK_CAPTURE_REASON_COUNT; i++) {
		uint64_t n = i < JANK_CAPTURE_REASON_COUNT ? st->refused[i] : c->no_session;

		if (!n)
			continue;
		fprintf(f, "%s %s %" PRIu64, first ? "; refused:" : ",",
			i < JANK_CAPTURE_REASON_COUNT ? jank_capture_reason_name(i) : "no-session",
			n);
		first = 0;
	}
	fprintf(f, "; %" PRIu64 " report%s written", c->reports + c->reports_without_path,
		c->reports + c->reports_without_path == 1 ? "" : "s");
	if (c->reports_failed)
		fprintf(f, ", %" PRIu64 " failed", c->reports_failed);
	if (c->rotation)
		fprintf(f, "; chunks: %" PRIu64 " kept, %" PRIu64 " deleted", c->chunks_kept,
			c->chunks_deleted);
	if (c->rotation && c->rotations_waited)
		fprintf(f, "; %" PRIu64 " waited for a scheduled rotation", c->rotations_waited);
	if (c->rotation && c->rotations_retried)
		fprintf(f, "; %" PRIu64 " rotation%s tried again", c->rotations_retried,
			c->rotations_retried == 1 ? "" : "s");
	if (c->in_flight[0])
		fprintf(f, "; recording %s", c->in_flight);
	if (c->session_error[0])
		fprintf(f, "\n  the capture session is down: %s", c->session_error);
	fputc('\n', f);
}

/* The `n` recent janks in `recent`, newest first. */
void status_recent_text(FILE *f, const struct jank_recent *const *recent, size_t n)
{
	char t[48], d[32], name[JANK_TEXT_BUF], key[JANK_TEXT_BUF], host[JANK_TEXT_BUF];

	if (n == 0) {
		fprintf(f, "\nno jank yet\n");
		return;
	}
	fprintf(f, "\nrecent janks, newest first:\n");
	for (size_t i = 0; i < n; i++) {
		const struct jank_recent *x = recent[i];

		/* The key is traced, the story's names too (escaped by format-path.c). */
		fprintf(f, "  %s  %s%s%s%s%s%s  %s%s%s  %s\n",
			jank_clock_text(x->end, t, sizeof(t)),
			jank_text(name, sizeof(name), x->action), x->key[0] ? " [" : "",
			jank_text(key, sizeof(key), x->key), x->key[0] ? "]" : "",
			x->host[0] ? " on " : "", jank_text(host, sizeof(host), x->host),
			jank_units_duration(x->duration, d, sizeof(d)),
			x->kind == JANK_VERDICT_OVERDUE ? " (overdue)" : "",
			x->suppressed ? " (suppressed)" : "", x->story);
		if (x->capture[0])
			fprintf(f, "      capture %s\n", x->capture);
		if (x->skipped_ns > 0)
			fprintf(f,
				"      %s of it skipped by a worker restart: path may be "
				"incomplete\n",
				jank_units_duration(x->skipped_ns, d, sizeof(d)));
	}
}

static void patterns_text(FILE *f, char *const *pats, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", pats[i]);
	if (n == 0)
		fputc('*', f);
}

/* "discovery of net://relay:5344 (hosts web-*; sessions *): 12 sessions listed, every 2 s" */
void status_discovery_text(FILE *f, const struct jank_fleet_discovery *d)
{
	char p[32];

	fprintf(f, "discovery of %s (hosts ", d->relayd);
	patterns_text(f, d->hosts, d->nhosts);
	fprintf(f, "; sessions ");
	patterns_text(f, d->sessions, d->nsessions);
	fprintf(f,
		"): %" PRIu64 " sessions listed, every %s, %" PRIu64 " polls, %" PRIu64 " failed",
		d->sessions_listed, jank_alert_period_text(d->interval_ns, p, sizeof(p)), d->polls,
		d->errors);
	if (d->last_error[0])
		fprintf(f, " (last error: %s)", d->last_error);
	if (d->sessions_refused)
		fprintf(f, "; %" PRIu64 " sessions not watched past max-inputs %" PRIu64 "%s",
			d->sessions_refused, d->max_inputs,
			d->at_limit ? " (at the limit now)" : "");
	fputc('\n', f);
}

/* "+37.0 ms": an offset, signed. */
static const char *signed_ns(int64_t ns, char *buf, size_t len)
{
	char d[32];

	jank_units_duration(ns < 0 ? -ns : ns, d, sizeof(d));
	snprintf(buf, len, "%s%s", ns < 0 ? "-" : "+", d);
	return buf;
}

/*
 * The join across hosts: each pair of hosts' clocks ("clock of beta against
 * alpha: -37.0 ms (between -37.2 ms and -36.8 ms; 20 messages to it, 20
 * from it)"), then what became of the paths that crossed.
 */
static void crossing_text(FILE *f, const struct jank_crossing *c)
{
	size_t n = jank_crossing_clock_count(c);
	struct jank_crossing_stats st;
	char off[40], lo[40], hi[40];

	if (!c)
		return;
	jank_crossing_get_stats(c, &st);
	if (n == 0 && st.join.froms + st.join.tos == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct jank_clock_offset o;
		const char *host, *ref;

		jank_crossing_clock(c, i, &host, &ref, &o);
		fprintf(f,
			"clock of %s against %s: %s (between %s and %s; %" PRIu64
			" messages to it, %" PRIu64 " from it)%s\n",
			host, ref, signed_ns(o.offset, off, sizeof(off)),
			o.lo != INT64_MIN ? signed_ns(o.lo, lo, sizeof(lo)) : "-inf",
			o.hi != INT64_MAX ? signed_ns(o.hi, hi, sizeof(hi)) : "+inf", o.a_to_b,
			o.b_to_a, o.consistent ? "" : " (no clock fits every message)");
	}
	fprintf(f,
		"paths across hosts: %" PRIu64 " held, %" PRIu64 " joined, %" PRIu64
		" not seen in time, %" PRIu64 " past the bound; %" PRIu64 " flow events (%zu kept "
		"of %zu, %" PRIu64 " evicted unpaired, %" PRIu64 " dropped by workers), %" PRIu64
		" pairs\n",
		st.held, st.joined, st.timed_out, st.overflow, st.join.froms + st.join.tos,
		st.join.kept, st.join.max_events, st.join.evicted, st.dropped, st.join.pairs);
	if (st.tcp.sends + st.tcp.recvs)
		fprintf(f,
			"tcp segments: %" PRIu64 " sent, %" PRIu64
			" received waking a thread, %" PRIu64 " matched (%" PRIu64
			" by seq, ack and flags); never matched, overwritten: %" PRIu64
			" sends, %" PRIu64 " receives; %zu kept of %zu\n",
			st.tcp.sends, st.tcp.recvs, st.tcp.pairs, st.tcp.fallback,
			st.tcp.evicted_sends, st.tcp.evicted_recvs, st.tcp.kept, st.tcp.max_events);
}

/* The inputs, grouped by host. */
static void inputs_text(FILE *f, const struct status *s)
{
	for (size_t h = 0; h < s->nhosts; h++) {
		const struct totals *t = &s->hosts[h];

		fprintf(f,
			"\nhost %s: %" PRIu64 " input%s, %" PRIu64 " connected, %" PRIu64
			" events, %" PRIu64 " janks\n",
			t->host, t->inputs, t->inputs == 1 ? "" : "s", t->connected, t->events,
			t->janks + t->overdue);
		for (size_t i = 0; i < s->n; i++)
			if (!strcmp(s->inputs[i].host, t->host))
				status_input_text(f, &s->inputs[i]);
	}
}

/*
 * "journald: accepting entries, 1 outage; alerts 12 sent (3 late), 3 queued, 0 dropped,
 * 0 on stderr": with alerts to the journal, or once anything went there.
 */
static void journal_text(FILE *f, const struct jank_journal_stats *j, bool target)
{
	const struct jank_journal_counts *al = &j->counts[JANK_JOURNAL_ALERT];
	struct jank_journal_counts all = journal_all(j);
	const char *state = journal_state(j);
	char d[32], b[32];

	if (!target && !all.sent && !all.queued && !all.to_stderr)
		return;
	if (!strcmp(state, "queueing"))
		fprintf(f, "journald: NOT accepting entries for %s, %" PRIu64 " waiting (%s)",
			jank_units_duration(j->backlog_ns, d, sizeof(d)), j->pending,
			status_bytes_text((int64_t)j->pending_bytes, b, sizeof(b)));
	else if (!strcmp(state, "accepting"))
		fprintf(f, "journald: accepting entries");
	else
		fprintf(f, "journald: not reached (entries on stderr)");
	fprintf(f,
		", %" PRIu64 " outage%s; alerts %" PRIu64 " sent (%" PRIu64 " late), %" PRIu64
		" queued, %" PRIu64 " dropped, %" PRIu64 " on stderr",
		j->outages, j->outages == 1 ? "" : "s", al->sent, al->late, al->queued, al->dropped,
		al->to_stderr);
	if (all.dropped > al->dropped)
		fprintf(f, "; %" PRIu64 " other entries dropped", all.dropped - al->dropped);
	fputc('\n', f);
}

/* The rate as the JSON says it, to 0.1. */
static double rate_text(double rate)
{
	return (double)llround(rate * 10) / 10;
}

#define BLIND_LISTED 5 /* blind inputs named in the head; the others counted */

/*
 * "inputs: 2, 1 connected, 1 BLIND (seeing no events; retrying):" and a line per blind input
 * that says why and since when: the first thing an operator should see.
 */
void status_blind_text(FILE *f, const struct status *s)
{
	size_t listed = 0;

	fprintf(f, "inputs: %zu, %" PRIu64 " connected", s->n, s->all.connected);
	if (!s->all.blind) {
		fprintf(f, ", none blind\n");
		return;
	}
	fprintf(f, ", %" PRIu64 " BLIND (seeing no events; retrying):\n", s->all.blind);
	for (size_t i = 0; i < s->n; i++) {
		struct jank_fleet_blind b;

		jank_fleet_figures_blind(&s->inputs[i], &b);
		if (!b.blind)
			continue;
		if (listed++ == BLIND_LISTED) {
			fprintf(f, "  and %" PRIu64 " more (see below)\n",
				s->all.blind - BLIND_LISTED);
			break;
		}
		fprintf(f, "  %s: %s", s->inputs[i].fig.url, s->inputs[i].fig.state);
		since_text(f, b.since);
		fprintf(f, "%s%s\n", b.reason[0] ? ": " : "", b.reason);
	}
}

static void head_text(FILE *f, const struct jankd *d, const struct status *s)
{
	const struct jank_config_alerts *ca = &d->config.alerts;
	struct jank_metrics_process proc;
	struct jank_alerter_stats as;
	char up[32], m1[32], m2[32], p[32];

	jank_metrics_process_read(&proc, d->start_real);
	jank_alerter_get_stats(d->alerter, &as);
	fprintf(f, "jankd %s (pid %d), up %s, config %s\n", JANK_VERSION, (int)getpid(),
		status_uptime_text(jank_clock_monotonic_ns() - d->start_mono, up, sizeof(up)),
		d->config_path ? d->config_path : "");
	status_blind_text(f, s);
	fprintf(f,
		"events %" PRIu64 " (%.1f/s), actions %" PRIu64 ", janks %" PRIu64
		", overdue %" PRIu64 ", discarded events %" PRIu64 "\n",
		s->all.events, rate_text(s->all.rate), s->all.actions, s->all.janks, s->all.overdue,
		s->all.discarded);
	fprintf(f, "graph memory %s, RSS %s\n",
		status_bytes_text((int64_t)s->all.memory, m1, sizeof(m1)),
		status_bytes_text((int64_t)proc.rss_bytes, m2, sizeof(m2)));
	fprintf(f,
		"alerts to %s: %" PRIu64 " sent, %" PRIu64 " suppressed (%" PRIu64
		" summaries), rate limit %" PRIu64 " per %s",
		jank_alert_target_name(d->target), as.sent, as.suppressed, as.summaries,
		ca->rate_limit_count,
		jank_alert_period_text(ca->rate_limit_period_ns, p, sizeof(p)));
	if (as.journal_errors)
		fprintf(f, ", %" PRIu64 " refused by journald", as.journal_errors);
	fputc('\n', f);
}

/* "debuginfod (cache DIR): 3 asked, 2 fetched, 1 failed, 0 dropped" */
static void debuginfod_text(FILE *f, struct jank_fetcher *fe)
{
	struct jank_fetcher_stats st;

	if (!fe)
		return;
	jank_fetcher_get_stats(fe, &st);
	fprintf(f,
		"debuginfod (cache %s): %" PRIu64 " asked, %" PRIu64 " fetched, %" PRIu64
		" failed, %" PRIu64 " dropped\n",
		jank_fetcher_config(fe)->cache, st.requests, st.fetched, st.failed, st.dropped);
}

char *jank_status_text(const struct jankd *d)
{
	struct jank_capturer_status cs;
	struct jank_fleet_discovery disc;
	const struct jank_recent *recent[JANK_ALERT_RECENT];
	struct jank_journal_stats js;
	size_t nrecent = 0;
	char *buf = NULL;
	size_t len = 0;
	struct status s;
	FILE *f;

	if (status_read(d, &s) < 0)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		status_fini(&s);
		return NULL;
	}
	head_text(f, d, &s);
	jank_journal_get_stats(&js);
	journal_text(f, &js, d->target == JANK_ALERT_JOURNAL);
	fprintf(f, "reloads %" PRIu64 ", rejected %" PRIu64 "\n", d->reloads, d->reload_errors);
	if (d->capturer) {
		jank_capturer_get_status(d->capturer, &cs);
		status_capture_text(f, &cs);
	}
	debuginfod_text(f, d->fetcher);
	if (d->fleet && jank_fleet_get_discovery(d->fleet, &disc))
		status_discovery_text(f, &disc);
	if (d->fleet)
		crossing_text(f, jank_fleet_crossing(d->fleet));
	inputs_text(f, &s);
	while (nrecent < JANK_ALERT_RECENT &&
	       (recent[nrecent] = jank_alerter_recent(d->alerter, nrecent)))
		nrecent++;
	status_recent_text(f, recent, nrecent);
	fclose(f);
	status_fini(&s);
	return buf;
}

void jank_status_line(const struct jankd *d, char *buf, size_t len)
{
	size_t n = d->fleet ? jank_fleet_count(d->fleet) : 0;
	struct jank_alerter_stats as;
	struct status s;
	char m[32];

	if (status_read(d, &s) < 0) {
		snprintf(buf, len, "out of memory");
		return;
	}
	jank_alerter_get_stats(d->alerter, &as);
	snprintf(buf, len,
		 "inputs %" PRIu64 "/%zu connected, %.0f events/s, %" PRIu64 " events, %" PRIu64
		 " actions, %" PRIu64 " janks, %" PRIu64 " alerts suppressed, %" PRIu64
		 " events discarded, graph %s",
		 s.all.connected, n, s.all.rate, s.all.events, s.all.actions,
		 s.all.janks + s.all.overdue, as.suppressed, s.all.discarded,
		 status_bytes_text((int64_t)s.all.memory, m, sizeof(m)));
	/* systemctl status shows this line: the first blind input, and why. */
	for (size_t i = 0; s.all.blind && i < s.n; i++) {
		struct jank_fleet_blind b;
		size_t used = strlen(buf);

		jank_fleet_figures_blind(&s.inputs[i], &b);
		if (!b.blind)
			continue;
		snprintf(buf + used, len - used, "; %" PRIu64 " blind: %s: %s%s%s", s.all.blind,
			 s.inputs[i].fig.url, s.inputs[i].fig.state, b.reason[0] ? ": " : "",
			 b.reason);
		break;
	}
	status_fini(&s);
}
