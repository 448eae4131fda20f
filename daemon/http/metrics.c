/* SPDX-License-Identifier: MIT */
/*
 * The renderer of jankd's metrics (metrics.h). A family is written once,
 * metadata first, then its samples for every input and rule; the two
 * formats differ only in the metadata lines, the exemplars and "# EOF".
 */
#define _GNU_SOURCE /* open_memstream */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>
#include "metrics.h"
#include "textsafe.h"

#define OCTAVE_FIRST 10 /* the smallest power-of-two bound: 2^10 - 1 ns, about 1 us */
#define OCTAVE_LAST  36 /* the largest: 2^36 - 1 ns, about 69 s */
#define NUM_LEN	     32

enum family_type {
	COUNTER = 0,
	GAUGE,
	HISTOGRAM,
	INFO,
};

/* A metric family: its name without the _total or _info of its samples. */
struct family {
	const char *name;
	enum family_type type;
	const char *unit; /* OpenMetrics' UNIT, a suffix of the name; NULL: none */
	const char *help;
};

struct label {
	const char *name;
	const char *value;
};

struct out {
	FILE *f;
	enum jank_metrics_format fmt;
};

/* ---- Lines ---- */

/*
 * Escape backslash and newline, and double quotes when `quote` (label values,
 * OpenMetrics help). The page is UTF-8 and label values may be traced
 * strings (keys): invalid bytes become U+FFFD first (lib/textsafe.h), or
 * Prometheus rejects the whole scrape.
 */
static void put_escaped(FILE *f, const char *s, bool quote)
{
	size_t n = strlen(s), len = n * 3 + 4; /* an invalid byte is 3 bytes of U+FFFD */
	char stack[512], *buf = len <= sizeof(stack) ? stack : malloc(len);

	if (!buf)
		return;
	jank_utf8_sanitize(buf, len, s, n, 0);
	for (s = buf; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && quote)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
	if (buf != stack)
		free(buf);
}

static const char *sample_suffix(enum family_type t)
{
	return t == COUNTER ? "_total" : t == INFO ? "_info" : "";
}

static void put_family(struct out *o, const struct family *fam)
{
	static const char *const om_types[] = { "counter", "gauge", "histogram", "info" };
	static const char *const text_types[] = { "counter", "gauge", "histogram", "gauge" };
	bool om = o->fmt == JANK_METRICS_OPENMETRICS;
	/* The text format names the family like its samples: x_total, x_info. */
	const char *suffix = om ? "" : sample_suffix(fam->type);

	fprintf(o->f, "# HELP %s%s ", fam->name, suffix);
	put_escaped(o->f, fam->help, om);
	fprintf(o->f, "\n# TYPE %s%s %s\n", fam->name, suffix,
		om ? om_types[fam->type] : text_types[fam->type]);
	if (om && fam->unit)
		fprintf(o->f, "# UNIT %s %s\n", fam->name, fam->unit);
}

static void put_labels(FILE *f, const struct label *l, size_t n, const char *le)
{
	if (n == 0 && !le)
		return;
	fputc('{', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "", l[i].name);
		put_escaped(f, l[i].value, true);
		fputc('"', f);
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", n ? "," : "", le);
	fputc('}', f);
}

/* One sample line, without its newline (an exemplar may follow). */
static void put_sample(struct out *o, const struct family *fam, const char *suffix,
		       const struct label *l, size_t n, const char *le, const char *value)
{
	fprintf(o->f, "%s%s", fam->name, suffix);
	put_labels(o->f, l, n, le);
	fprintf(o->f, " %s", value);
}

static void put_u64(struct out *o, const struct family *fam, const struct label *l, size_t n,
		    uint64_t v)
{
	char num[NUM_LEN];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	put_sample(o, fam, sample_suffix(fam->type), l, n, NULL, num);
	fputc('\n', o->f);
}

/* Nanoseconds as exact decimal seconds: 16000000 is "0.016", 2^10 - 1 is "0.000001023". */
static const char *seconds(uint64_t ns, char *buf, size_t len)
{
	uint64_t frac = ns % 1000000000;
	int digits = 9;

	while (digits > 0 && frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	if (digits)
		snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, ns / 1000000000, digits, frac);
	else
		snprintf(buf, len, "%" PRIu64, ns / 1000000000);
	return buf;
}

static void put_seconds(struct out *o, const struct family *fam, const struct label *l, size_t n,
			int64_t ns)
{
	char num[NUM_LEN];

	put_sample(o, fam, sample_suffix(fam->type), l, n, NULL,
		   seconds(ns > 0 ? (uint64_t)ns : 0, num, sizeof(num)));
	fputc('\n', o->f);
}

/* ---- Histograms ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

size_t jank_metrics_bucket_bounds(int64_t threshold_ns, uint64_t *bounds)
{
	size_t n = 0, k = 0;

	for (unsigned e = OCTAVE_FIRST; e <= OCTAVE_LAST; e++)
		bounds[n++] = (1ull << e) - 1;
	if (threshold_ns > 0) {
		unsigned b = jank_histogram_bucket((uint64_t)threshold_ns);

		if (b > 0)
			bounds[n++] = jank_histogram_bucket_high(b - 1);
		bounds[n++] = jank_histogram_bucket_high(b);
	}
	qsort(bounds, n, sizeof(*bounds), cmp_u64);
	for (size_t i = 0; i < n; i++) /* a threshold edge may be an octave's */
		if (k == 0 || bounds[i] != bounds[k - 1])
			bounds[k++] = bounds[i];
	return k;
}

/* ` # {key="..."} 0.06`: the latest jank, on the bucket that holds it. */
static void put_exemplar(struct out *o, const struct jank_rule_stats *st)
{
	char num[NUM_LEN];

	fputs(" # {key=\"", o->f);
	put_escaped(o->f, st->last_jank_key, true); /* JANK_KEY_LEN: within the 128-character cap */
	fprintf(o->f, "\"} %s", seconds((uint64_t)st->last_jank_ns, num, sizeof(num)));
}

static void put_histogram(struct out *o, const struct family *fam, const struct label *l, size_t n,
			  const struct jank_metrics_rule *r)
{
	uint64_t bounds[JANK_METRICS_MAX_BOUNDS], cum = 0;
	size_t nb = jank_metrics_bucket_bounds(r->threshold_ns, bounds);
	bool exemplar = o->fmt == JANK_METRICS_OPENMETRICS && r->stats->janks > 0;
	char le[NUM_LEN], num[NUM_LEN];
	unsigned b = 0;

	for (size_t i = 0; i <= nb; i++) {
		bool last = i == nb; /* +Inf */

		while (b < JANK_HIST_BUCKETS &&
		       (last || jank_histogram_bucket_high(b) <= bounds[i]))
			cum += r->hist->buckets[b++];
		snprintf(num, sizeof(num), "%" PRIu64, cum);
		put_sample(o, fam, "_bucket", l, n,
			   last ? "+Inf" : seconds(bounds[i], le, sizeof(le)), num);
		if (exemplar && (last || (uint64_t)r->stats->last_jank_ns <= bounds[i])) {
			put_exemplar(o, r->stats);
			exemplar = false;
		}
		fputc('\n', o->f);
	}
	put_sample(o, fam, "_sum", l, n, NULL, seconds(r->hist->sum, num, sizeof(num)));
	fputc('\n', o->f);
	snprintf(num, sizeof(num), "%" PRIu64, r->hist->count);
	put_sample(o, fam, "_count", l, n, NULL, num);
	fputc('\n', o->f);
}

/* ---- Families ---- */

enum rule_figure {
	RULE_DURATION = 0,
	RULE_THRESHOLD,
	RULE_JANKS,
	RULE_OVERDUE,
	RULE_EXPIRED,
	RULE_EVICTED,
	RULE_FIGURES,
};

/* clang-format off */
static const struct family rule_families[RULE_FIGURES] = {
	[RULE_DURATION] = { "jank_action_duration_seconds", HISTOGRAM, "seconds",
		"How long the completed actions of each rule took, from begin to end. The bucket "
		"bounds are edges of jank's own log-scaled buckets: the counts are exact." },
	[RULE_THRESHOLD] = { "jank_action_threshold_seconds", GAUGE, "seconds",
		"The rule's threshold: an action that takes longer is a jank (0 while an adaptive "
		"threshold learns)." },
	[RULE_JANKS] = { "jank_janks", COUNTER, NULL,
		"Completed actions that took longer than their rule's threshold." },
	[RULE_OVERDUE] = { "jank_overdue_actions", COUNTER, NULL,
		"Actions reported overdue: still open past their threshold plus overdue-grace." },
	[RULE_EXPIRED] = { "jank_expired_actions", COUNTER, NULL,
		"Open actions dropped after action-timeout (their end never came)." },
	[RULE_EVICTED] = { "jank_evicted_actions", COUNTER, NULL,
		"Open actions dropped by the memory budget, oldest first." },
};
/* clang-format on */

static void put_rule(struct out *o, enum rule_figure fig, const struct label *l, size_t n,
		     const struct jank_metrics_rule *r)
{
	const struct family *fam = &rule_families[fig];

	switch (fig) {
	case RULE_DURATION:
		put_histogram(o, fam, l, n, r);
		break;
	case RULE_THRESHOLD:
		put_seconds(o, fam, l, n, r->threshold_ns);
		break;
	case RULE_JANKS:
		put_u64(o, fam, l, n, r->stats->janks);
		break;
	case RULE_OVERDUE:
		put_u64(o, fam, l, n, r->stats->overdue);
		break;
	case RULE_EXPIRED:
		put_u64(o, fam, l, n, r->stats->expired);
		break;
	case RULE_EVICTED:
	case RULE_FIGURES:
		put_u64(o, fam, l, n, r->stats->evicted);
		break;
	}
}

/* clang-format off */
static const struct family critical_path = { "jank_critical_path_seconds", COUNTER, "seconds",
	"Time on the critical paths of each rule's slow actions (class=\"slow\") and of a sample of "
	"its normal ones (class=\"normal\", those its baseline learns, at most one per "
	"millisecond), by state and by the thread it was on or waited for (on: process/thread "
	"names). [metrics] composition-top names per rule, the rest as on=\"other\"." };
/* clang-format on */

/* Every (name, class, state) with time, of every rule. */
static void put_composition(struct out *o, const struct jank_metrics *m)
{
	bool some = false;

	for (size_t i = 0; i < m->ninputs; i++)
		for (size_t r = 0; r < m->inputs[i].nrules; r++)
			some |= m->inputs[i].rules[r].ncomp > 0;
	if (!some)
		return;
	put_family(o, &critical_path);
	for (size_t i = 0; i < m->ninputs; i++) {
		const struct jank_metrics_input *in = &m->inputs[i];

		for (size_t r = 0; r < in->nrules; r++) {
			const struct jank_metrics_rule *ru = &in->rules[r];

			for (size_t k = 0; k < ru->ncomp; k++)
				for (int c = 0; c < JANK_CLASS_COUNT; c++)
					for (int st = 0; st < JANK_STATE_COUNT; st++) {
						struct label l[5] = {
							{ "action", ru->action },
							{ "class", jank_composition_class_name(c) },
							{ "state", jank_state_name(st) },
							{ "on", ru->comp[k].on },
							{ "input", in->url },
						};
						uint64_t ns = ru->comp[k].ns[c][st];

						if (ns)
							put_seconds(o, &critical_path, l,
								    m->ninputs > 1 ? 5 : 4,
								    (int64_t)(ns > INT64_MAX
										      ? INT64_MAX
										      : ns));
					}
		}
	}
}

/* Per rule; labelled by input too when there are several. */
static void put_rules(struct out *o, const struct jank_metrics *m)
{
	size_t nrules = 0;

	for (size_t i = 0; i < m->ninputs; i++)
		nrules += m->inputs[i].nrules;
	if (nrules == 0)
		return;
	for (int fig = 0; fig < RULE_FIGURES; fig++) {
		put_family(o, &rule_families[fig]);
		for (size_t i = 0; i < m->ninputs; i++) {
			const struct jank_metrics_input *in = &m->inputs[i];

			for (size_t r = 0; r < in->nrules; r++) {
				struct label l[2] = { { "action", in->rules[r].action },
						      { "input", in->url } };

				put_rule(o, fig, l, m->ninputs > 1 ? 2 : 1, &in->rules[r]);
			}
		}
	}
}

/* What the supervisor knows of each input; its workers' figures are the figures table's. */
enum input_figure {
	INPUT_CONNECTED = 0,
	INPUT_RESTARTS,
	INPUT_WORKER_RSS,
	INPUT_SKIPPED,
	INPUT_LOST,
	INPUT_BLIND,
	INPUT_BLIND_SINCE,
	INPUT_FIGURES,
};

/* clang-format off */
static const struct family input_families[INPUT_FIGURES] = {
	[INPUT_CONNECTED] = { "jank_input_connected", GAUGE, NULL,
		"1 while the live session is attached, 0 while jankd waits for it or reconnects." },
	[INPUT_RESTARTS] = { "jank_input_worker_restarts", COUNTER, NULL,
		"Times the input's worker process was started again (it died or stopped answering)." },
	[INPUT_WORKER_RSS] = { "jank_input_worker_resident_memory_bytes", GAUGE, "bytes",
		"Resident memory of the input's worker process (0 while none runs)." },
	[INPUT_SKIPPED] = { "jank_input_skipped_seconds", COUNTER, "seconds",
		"Trace time no worker read: a replaced worker's successor starts at relayd's newest packets." },
	[INPUT_LOST] = { "jank_input_actions_lost", COUNTER, NULL,
		"Actions open in a worker that was replaced: their ends cannot be matched." },
	[INPUT_BLIND] = { "jank_input_blind", GAUGE, NULL,
		"1 while the input sees no events (not connected), with the reason: its worker's last failure, or the live session's problem; 0 otherwise." },
	[INPUT_BLIND_SINCE] = { "jank_input_blind_since_seconds", GAUGE, "seconds",
		"While the input is blind, the Unix time it has been since, for its reason (0: not known, or not blind)." },
};
/* clang-format on */

static uint64_t input_figure(const struct jank_metrics_input *in, enum input_figure fig)
{
	switch (fig) {
	case INPUT_CONNECTED:
		return in->connected;
	case INPUT_RESTARTS:
		return in->worker_restarts;
	case INPUT_WORKER_RSS:
		return in->worker_rss_bytes;
	case INPUT_LOST:
		return in->actions_lost;
	case INPUT_BLIND:
		return in->blind;
	case INPUT_BLIND_SINCE:
		return in->blind ? in->blind_since_s : 0;
	case INPUT_SKIPPED: /* put_seconds() */
	case INPUT_FIGURES:
		break;
	}
	return 0;
}

static void put_supervisor_input(struct out *o, const struct jank_metrics *m, enum input_figure fig)
{
	put_family(o, &input_families[fig]);
	for (size_t i = 0; i < m->ninputs; i++) {
		struct label l = { "input", m->inputs[i].url };

		if (fig == INPUT_SKIPPED) {
			put_seconds(o, &input_families[fig], &l, 1, m->inputs[i].skipped_ns);
		} else if (fig == INPUT_BLIND || fig == INPUT_BLIND_SINCE) {
			const char *why = m->inputs[i].blind_reason;
			struct label lr[2] = { l, { "reason", why ? why : "" } };

			put_u64(o, &input_families[fig], lr, 2, input_figure(&m->inputs[i], fig));
		} else {
			put_u64(o, &input_families[fig], &l, 1, input_figure(&m->inputs[i], fig));
		}
	}
}

/* A figure's value on the page: a count, or a time in ns as whole seconds (0 when negative). */
static uint64_t figure_value(const struct jank_input_figures *f, const struct jank_figure_field *d)
{
	const char *p = (const char *)f + d->offset;
	int64_t ns;

	if (d->type == JANK_FIGURE_U64) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	memcpy(&ns, p, sizeof(ns));
	return ns > 0 ? (uint64_t)ns / 1000000000u : 0;
}

/* Whether row k is the first of its family (rows of one family may be apart). */
static bool first_of_family(const struct jank_figure_field *d, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (d[j].metric && !strcmp(d[j].metric->name, d[k].metric->name))
			return false;
	return true;
}

/* The family of figure rows named like row k: its metadata, then per input its rows' samples. */
static void put_figure_family(struct out *o, const struct jank_metrics *m, size_t k)
{
	const struct jank_figure_field *d = jank_input_figures_input_fields;
	const struct jank_figure_metric *mk = d[k].metric;
	struct family fam = { mk->name, mk->gauge ? GAUGE : COUNTER, mk->unit, mk->help };

	put_family(o, &fam);
	for (size_t i = 0; i < m->ninputs; i++)
		for (size_t j = k; j < jank_input_figures_input_nfields; j++) {
			const struct jank_figure_metric *mj = d[j].metric;
			struct label l[2] = { { "input", m->inputs[i].url },
					      { mj ? mj->label : NULL, mj ? mj->value : NULL } };

			if (mj && !strcmp(mj->name, mk->name))
				put_u64(o, &fam, l, mj->label ? 2 : 1,
					m->inputs[i].fig ? figure_value(m->inputs[i].fig, &d[j])
							 : 0);
		}
}

/*
 * Per input: whether it is connected, the figures of its workers that the
 * figures table makes metrics (in its order), then the supervisor's.
 */
static void put_inputs(struct out *o, const struct jank_metrics *m)
{
	if (m->ninputs == 0)
		return;
	put_supervisor_input(o, m, INPUT_CONNECTED);
	for (size_t k = 0; k < jank_input_figures_input_nfields; k++)
		if (jank_input_figures_input_fields[k].metric &&
		    first_of_family(jank_input_figures_input_fields, k))
			put_figure_family(o, m, k);
	for (int fig = INPUT_RESTARTS; fig < INPUT_FIGURES; fig++)
		put_supervisor_input(o, m, fig);
}

/* A family of one unlabelled sample. */
static void put_single(struct out *o, const struct family *fam, uint64_t v)
{
	put_family(o, fam);
	put_u64(o, fam, NULL, 0, v);
}

static void put_captures(struct out *o, const struct jank_capture_stats *c)
{
	static const struct family started = { "jank_captures_started", COUNTER, NULL,
					       "Captures started (a trace and its report)." };
	static const struct family joined = { "jank_captures_joined", COUNTER, NULL,
					      "Janks that joined the capture being recorded." };
	static const struct family completed = { "jank_captures_completed", COUNTER, NULL,
						 "Captures recorded completely." };
	static const struct family failed = { "jank_captures_failed", COUNTER, NULL,
					      "Captures that failed (their directory removed)." };
	static const struct family refused = {
		"jank_captures_refused", COUNTER, NULL,
		"Janks that got no capture, by reason (cooldown, hourly, disk-full, quota, error)."
	};
	static const struct family disk = { "jank_captures_disk_usage_bytes", GAUGE, "bytes",
					    "Size of the capture directory, as last measured." };

	if (!c)
		return;
	put_single(o, &started, c->started);
	put_single(o, &joined, c->joined);
	put_single(o, &completed, c->completed);
	put_single(o, &failed, c->failed);
	put_family(o, &refused);
	for (int r = JANK_CAPTURE_REASON_COOLDOWN; r < JANK_CAPTURE_REASON_COUNT; r++) {
		struct label l = { "reason", jank_capture_reason_name(r) };

		put_u64(o, &refused, &l, 1, c->refused[r]);
	}
	put_single(o, &disk, c->bytes);
}

static void put_daemon(struct out *o, const struct jank_metrics *m)
{
	static const struct family limit = {
		"jank_graph_memory_limit_bytes", GAUGE, "bytes",
		"The memory budget of each input's graph and open actions ([graph] memory-limit)."
	};
	static const struct family sent = { "jank_alerts_sent", COUNTER, NULL,
					    "Alerts sent (journal, stderr or JSON)." };
	static const struct family suppressed = {
		"jank_alerts_suppressed", COUNTER, NULL,
		"Janks not alerted by the rate limit (counted in a summary instead)."
	};
	static const struct family build = { "jank_build", INFO, NULL, "jankd's version." };
	struct label version = { "version", m->version ? m->version : "unknown" };

	put_single(o, &limit, m->memory_limit);
	put_single(o, &sent, m->alerts.sent);
	put_single(o, &suppressed, m->alerts.suppressed);
	put_family(o, &build);
	put_u64(o, &build, &version, 1, 1);
}

/* The four outcomes of jank_alerts_total and jank_journal_entries_total. */
static void put_outcomes(struct out *o, const struct family *fam,
			 const struct jank_journal_counts *c)
{
	static const char *const names[] = { "sent", "queued", "dropped", "stderr" };
	const uint64_t v[] = { c->sent, c->queued, c->dropped, c->to_stderr };

	put_family(o, fam);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct label l = { "outcome", names[i] };

		put_u64(o, fam, &l, 1, v[i]);
	}
}

static void put_journal(struct out *o, const struct jank_journal_stats *j)
{
	static const struct family alerts = {
		"jank_alerts", COUNTER, NULL,
		"Alerts for journald, by outcome: sent (journald took it, at once or late), queued "
		"(it had to wait in jankd's memory), dropped (the oldest of a full queue), stderr "
		"(no journald to reach, or still queued at exit)."
	};
	static const struct family entries = {
		"jank_journal_entries", COUNTER, NULL,
		"Every entry for journald (alerts, log lines, capture reports), by outcome, as "
		"jank_alerts."
	};
	static const struct family pending = { "jank_journal_queue_entries", GAUGE, NULL,
					       "Entries waiting in jankd's memory for journald." };
	static const struct family outages = {
		"jank_journal_outages", COUNTER, NULL,
		"Times journald stopped accepting entries for a second or more (its socket's queue "
		"was full, or it was gone), or entries were dropped."
	};
	struct jank_journal_counts all = { 0 };

	if (!j)
		return;
	for (int c = 0; c < JANK_JOURNAL_CLASSES; c++) {
		all.sent += j->counts[c].sent;
		all.queued += j->counts[c].queued;
		all.dropped += j->counts[c].dropped;
		all.to_stderr += j->counts[c].to_stderr;
	}
	put_outcomes(o, &alerts, &j->counts[JANK_JOURNAL_ALERT]);
	put_outcomes(o, &entries, &all);
	put_single(o, &pending, j->pending);
	put_single(o, &outages, j->outages);
}

static void put_http(struct out *o, const struct jank_metrics_http_stats *h)
{
	static const struct family requests = { "jank_metrics_requests", COUNTER, NULL,
						"Requests the metrics endpoint answered." };
	static const struct family rejected = {
		"jank_metrics_connections_rejected", COUNTER, NULL,
		"Connections to the metrics endpoint closed at once: too many were open."
	};
	static const struct family timed_out = {
		"jank_metrics_connections_timed_out", COUNTER, NULL,
		"Connections to the metrics endpoint closed because no request came in time."
	};

	static const struct family evicted = { "jank_metrics_connections_evicted", COUNTER, NULL,
					       "Idle connections to the metrics endpoint closed to "
					       "serve a new one, or over a peer's share." };

	if (!h)
		return;
	put_single(o, &requests, h->requests);
	put_single(o, &evicted, h->evicted);
	put_single(o, &rejected, h->rejected);
	put_single(o, &timed_out, h->timed_out);
}

static void put_workers(struct out *o, const struct jank_metrics *m)
{
	static const struct family cpu = {
		"jank_workers_cpu_seconds", COUNTER, "seconds",
		"User and system CPU time of jankd's worker processes: the running ones and those "
		"that ended (process_cpu_seconds is the supervisor's alone)."
	};

	static const struct family refused = {
		"jank_discovery_sessions_refused", COUNTER, NULL,
		"Sessions that discovery found past [live] max-inputs: not watched."
	};
	static const struct family at_limit = {
		"jank_inputs_at_limit", GAUGE, NULL,
		"1 while jankd watches [live] max-inputs sessions and leaves new ones unwatched."
	};

	put_family(o, &cpu);
	put_seconds(o, &cpu, NULL, 0, m->workers_cpu_ns);
	put_single(o, &refused, m->sessions_refused);
	put_single(o, &at_limit, m->inputs_at_limit);
}

/* Signed nanoseconds as decimal seconds. */
static void put_signed_seconds(struct out *o, const struct family *fam, const struct label *l,
			       size_t n, int64_t ns)
{
	char num[NUM_LEN + 1], *p = num;

	if (ns < 0)
		*p++ = '-';
	seconds(ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns, p, NUM_LEN);
	put_sample(o, fam, sample_suffix(fam->type), l, n, NULL, num);
	fputc('\n', o->f);
}

/* Each pair of hosts' clock offset and its bracket, and the paths that crossed hosts. */
static void put_clocks(struct out *o, const struct jank_metrics *m)
{
	static const struct family off = {
		"jank_host_clock_offset_seconds", GAUGE, "seconds",
		"A host's clock against its reference host's, estimated from the flows between "
		"them (reference's time = host's + offset)."
	};
	static const struct family lo = {
		"jank_host_clock_offset_low_seconds", GAUGE, "seconds",
		"The lowest offset the flows allow (absent: no message from the reference yet)."
	};
	static const struct family hi = {
		"jank_host_clock_offset_high_seconds", GAUGE, "seconds",
		"The highest offset the flows allow (absent: no message to the reference yet)."
	};
	static const struct family msgs = { "jank_host_clock_messages", COUNTER, NULL,
					    "Flow pairs between two hosts, by direction." };
	static const struct family held = {
		"jank_crosshost_held", COUNTER, NULL,
		"Verdicts whose path crossed to another host, held for that host's part."
	};
	static const struct family joined = { "jank_crosshost_joined", COUNTER, NULL,
					      "Held verdicts joined with the other host's path." };
	static const struct family timed_out = {
		"jank_crosshost_not_seen", COUNTER, NULL,
		"Held verdicts sent without the other host's part (not seen in time)."
	};
	static const struct family evicted = {
		"jank_crosshost_flow_events_evicted", COUNTER, NULL,
		"Flow events the supervisor's bounded table let go before they were paired."
	};
	static const struct family dropped = {
		"jank_crosshost_flow_events_dropped", COUNTER, NULL,
		"Flow events the workers dropped past their batch's bound."
	};
	static const struct family tcp = {
		"jank_crosshost_tcp_segments", COUNTER, NULL,
		"TCP segments of the kernel's for the matching: sent, or received waking a thread."
	};
	static const struct family tcp_pairs = {
		"jank_crosshost_tcp_pairs", COUNTER, NULL,
		"Received TCP segments matched with a send of another host."
	};
	static const struct family tcp_evicted = {
		"jank_crosshost_tcp_segments_evicted", COUNTER, NULL,
		"TCP segments the supervisor's bounded table let go before they were matched."
	};

	if (m->nclocks) {
		put_family(o, &off);
		for (size_t i = 0; i < m->nclocks; i++) {
			struct label l[2] = { { "host", m->clocks[i].host },
					      { "reference", m->clocks[i].reference } };

			put_signed_seconds(o, &off, l, 2, m->clocks[i].offset_ns);
		}
		put_family(o, &lo);
		for (size_t i = 0; i < m->nclocks; i++) {
			struct label l[2] = { { "host", m->clocks[i].host },
					      { "reference", m->clocks[i].reference } };

			if (m->clocks[i].lo_ns != INT64_MIN)
				put_signed_seconds(o, &lo, l, 2, m->clocks[i].lo_ns);
		}
		put_family(o, &hi);
		for (size_t i = 0; i < m->nclocks; i++) {
			struct label l[2] = { { "host", m->clocks[i].host },
					      { "reference", m->clocks[i].reference } };

			if (m->clocks[i].hi_ns != INT64_MAX)
				put_signed_seconds(o, &hi, l, 2, m->clocks[i].hi_ns);
		}
		put_family(o, &msgs);
		for (size_t i = 0; i < m->nclocks; i++) {
			struct label l[3] = { { "host", m->clocks[i].host },
					      { "reference", m->clocks[i].reference },
					      { "direction", "to" } };

			put_u64(o, &msgs, l, 3, m->clocks[i].messages_to);
			l[2].value = "from";
			put_u64(o, &msgs, l, 3, m->clocks[i].messages_from);
		}
	}
	put_single(o, &held, m->crossing_held);
	put_single(o, &joined, m->crossing_joined);
	put_single(o, &timed_out, m->crossing_timed_out);
	put_single(o, &evicted, m->flow_events_evicted);
	put_single(o, &dropped, m->flow_events_dropped);
	if (m->tcp_sent + m->tcp_received) {
		struct label l = { "direction", "sent" };

		put_family(o, &tcp);
		put_u64(o, &tcp, &l, 1, m->tcp_sent);
		l.value = "received";
		put_u64(o, &tcp, &l, 1, m->tcp_received);
		put_single(o, &tcp_pairs, m->tcp_pairs);
		put_single(o, &tcp_evicted, m->tcp_evicted);
	}
}

/* The names client libraries use for a process, so that dashboards find them. */
static void put_process(struct out *o, const struct jank_metrics_process *p)
{
	static const struct family rss = { "process_resident_memory_bytes", GAUGE, "bytes",
					   "Resident memory size in bytes." };
	static const struct family cpu = { "process_cpu_seconds", COUNTER, "seconds",
					   "Total user and system CPU time spent in seconds." };
	static const struct family start = {
		"process_start_time_seconds", GAUGE, "seconds",
		"Start time of the process since unix epoch in seconds."
	};
	static const struct family fds = { "process_open_fds", GAUGE, NULL,
					   "Number of open file descriptors." };

	put_single(o, &rss, p->rss_bytes);
	put_family(o, &cpu);
	put_seconds(o, &cpu, NULL, 0, p->cpu_ns);
	put_family(o, &start);
	put_seconds(o, &start, NULL, 0, p->start_time_ns);
	if (p->open_fds >= 0)
		put_single(o, &fds, (uint64_t)p->open_fds);
}

char *jank_metrics_render(const struct jank_metrics *m, enum jank_metrics_format f, size_t *len)
{
	struct out o = { .fmt = f };
	char *buf = NULL;
	size_t n = 0;

	o.f = open_memstream(&buf, &n);
	if (!o.f)
		return NULL;
	put_rules(&o, m);
	put_composition(&o, m);
	put_inputs(&o, m);
	put_daemon(&o, m);
	put_journal(&o, m->journal);
	put_captures(&o, m->captures);
	put_http(&o, m->http);
	put_workers(&o, m);
	put_clocks(&o, m);
	put_process(&o, &m->process);
	if (f == JANK_METRICS_OPENMETRICS)
		fputs("# EOF\n", o.f);
	if (ferror(o.f)) {
		fclose(o.f);
		free(buf);
		return NULL;
	}
	fclose(o.f);
	*len = n;
	return buf;
}

const char *jank_metrics_content_type(enum jank_metrics_format f)
{
	return f == JANK_METRICS_OPENMETRICS
		       ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		       : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- Accept ---- */

/* The q of one media range "type/subtype;a=b;q=0.5" (1 without q). */
static double media_q(const char *params, size_t len)
{
	for (const char *s = params; s && s < params + len; s = memchr(s, ';', params + len - s)) {
		s++;
		while (s < params + len && isspace((unsigned char)*s))
			s++;
		if (s + 2 <= params + len && !strncasecmp(s, "q=", 2))
			return strtod(s + 2, NULL);
	}
	return 1;
}

enum jank_metrics_format jank_metrics_negotiate(const char *accept)
{
	static const char om_type[] = "application/openmetrics-text";
	double om = 0, text = 0;

	for (const char *s = accept; s && *s;) {
		size_t len = strcspn(s, ",");
		size_t type = strcspn(s, ";,");
		double q;

		while (type && isspace((unsigned char)*s)) {
			s++;
			len--;
			type--;
		}
		while (type && isspace((unsigned char)s[type - 1]))
			type--;
		q = media_q(s + type, len - type);
		if (type == strlen(om_type) && !strncasecmp(s, om_type, type))
			om = q > om ? q : om;
		else if ((type == 10 && !strncasecmp(s, "text/plain", 10)) ||
			 (type == 6 && !strncasecmp(s, "text/*", 6)) ||
			 (type == 3 && !strncmp(s, "*/*", 3)))
			text = q > text ? q : text;
		s += len + (s[len] == ',');
	}
	return om > 0 && om >= text ? JANK_METRICS_OPENMETRICS : JANK_METRICS_PROMETHEUS;
}

/* ---- This process ---- */

static int64_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int64_t n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

void jank_metrics_process_read(struct jank_metrics_process *p, int64_t start_time_ns)
{
	struct timespec ts;

	p->rss_bytes = jank_metrics_pid_rss(getpid());
	p->cpu_ns = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0
			    ? (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec
			    : 0;
	p->start_time_ns = start_time_ns;
	p->open_fds = open_fds();
}

uint64_t jank_metrics_pid_rss(pid_t pid)
{
	unsigned long size = 0, resident = 0;
	char path[64];
	FILE *f;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

int64_t jank_metrics_pid_cpu_ns(pid_t pid)
{
	unsigned long long utime = 0, stime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	char path[64], buf[1024], *p;
	size_t n;
	FILE *f;

	if (pid <= 0 || hz <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the comm, which may hold spaces and parentheses: the state, then 10 fields. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			 &stime) != 2)
		return 0;
	return (int64_t)((utime + stime) * (1000000000ULL / (unsigned long long)hz));
}

int64_t jank_metrics_children_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}
