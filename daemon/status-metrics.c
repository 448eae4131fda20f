/* SPDX-License-Identifier: MIT */
/*
 * jankd's metrics page from its status (status.h): the figures gathered
 * as for the JSON and the text (status_read(), status-int.h), copied on
 * jankd's loop into a snapshot (jank_status_metrics_snapshot) that the
 * metrics endpoint renders on a thread of its own (daemon/http/metrics.c),
 * so that a scrape does not hold alerts back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crossing.h"
#include "fetcher.h"
#include "status-int.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

static void metrics_rule(const struct jank_rule_figures *r, struct jank_metrics_rule *mr)
{
	mr->action = r->action;
	mr->hist = &r->hist;
	mr->stats = &r->stats;
	/* An adaptive threshold still learning says 0 (the engine's "none yet"). */
	mr->threshold_ns = r->threshold_ns > 0 ? r->threshold_ns : 0;
	mr->comp = r->comp;
	mr->ncomp = r->ncomp;
}

static void metrics_input(const struct jank_fleet_figures *x, struct jank_metrics_input *in,
			  struct jank_fleet_blind *b)
{
	const struct jank_input_figures *f = &x->fig;

	in->url = f->url;
	in->connected = status_connected(f);
	in->fig = f; /* the figures table says which are metrics */
	in->skipped_ns = x->skipped_ns > 0 ? x->skipped_ns : 0;
	in->actions_lost = x->actions_lost;
	in->worker_restarts = x->worker.starts ? x->worker.starts - 1 : 0;
	in->worker_rss_bytes = jank_metrics_pid_rss(x->worker.pid);
	jank_fleet_figures_blind(x, b);
	in->blind = b->blind;
	in->blind_reason = b->reason;
	in->blind_since_s = b->since > 0 ? (uint64_t)b->since / 1000000000u : 0;
}

static void metrics_inputs_free(struct metrics_inputs *mi)
{
	status_fini(&mi->s);
	free(mi->inputs);
	free(mi->blind);
	free(mi->rules);
}

static int metrics_inputs_read(const struct jankd *d, struct metrics_inputs *mi)
{
	size_t nrules = 0, k = 0;

	memset(mi, 0, sizeof(*mi));
	if (status_read(d, &mi->s) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < mi->s.n; i++)
		nrules += mi->s.inputs[i].fig.nrules;
	mi->inputs = calloc(mi->s.n + 1, sizeof(*mi->inputs));
	mi->blind = calloc(mi->s.n + 1, sizeof(*mi->blind));
	mi->rules = calloc(nrules + 1, sizeof(*mi->rules));
	if (!mi->inputs || !mi->blind || !mi->rules)
		return -ENOMEM;
	for (size_t i = 0; i < mi->s.n; i++) {
		const struct jank_fleet_figures *x = &mi->s.inputs[i];
		struct jank_metrics_input *in = &mi->inputs[i];

		metrics_input(x, in, &mi->blind[i]);
		mi->workers_cpu_ns += jank_metrics_pid_cpu_ns(x->worker.pid);
		in->rules = mi->rules + k;
		in->nrules = x->fig.nrules;
		for (size_t r = 0; r < in->nrules; r++, k++)
			metrics_rule(&x->fig.rules[r], &mi->rules[k]);
	}
	return 0;
}

/* The clocks of the pairs of hosts (at most JANK_HOSTJOIN_MAX_CLOCKS) and the join's counters. */
static void metrics_crossing(const struct jank_crossing *c, struct jank_metrics *m,
			     struct jank_metrics_clock *clocks)
{
	struct jank_crossing_stats cs;
	size_t n = jank_crossing_clock_count(c);

	if (!c)
		return;
	for (size_t i = 0; i < n && i < JANK_HOSTJOIN_MAX_CLOCKS; i++) {
		struct jank_clock_offset o;

		jank_crossing_clock(c, i, &clocks[i].host, &clocks[i].reference, &o);
		clocks[i].offset_ns = o.offset;
		clocks[i].lo_ns = o.lo;
		clocks[i].hi_ns = o.hi;
		clocks[i].messages_to = o.a_to_b;
		clocks[i].messages_from = o.b_to_a;
		m->nclocks = i + 1;
	}
	m->clocks = clocks;
	jank_crossing_get_stats(c, &cs);
	m->crossing_held = cs.held;
	m->crossing_joined = cs.joined;
	m->crossing_timed_out = cs.timed_out;
	m->flow_events_evicted = cs.join.evicted;
	m->flow_events_dropped = cs.dropped;
	m->tcp_sent = cs.tcp.sends;
	m->tcp_received = cs.tcp.recvs;
	m->tcp_pairs = cs.tcp.pairs;
	m->tcp_evicted = cs.tcp.evicted_sends + cs.tcp.evicted_recvs;
}

/*
 * What a page is rendered from: copies, nothing of the loop's (see
 * jank_status_metrics_snapshot); the clocks' host names too.
 */
struct metrics_snap {
	struct jank_metrics m;
	struct metrics_inputs mi;
	struct jank_metrics_clock clocks[JANK_HOSTJOIN_MAX_CLOCKS];
	char clock_names[JANK_HOSTJOIN_MAX_CLOCKS][2][256];
	struct jank_metrics_http_stats hs;
	struct jank_capturer_status cs;
	struct jank_journal_stats js;
	enum jank_metrics_format f;
};

void *jank_status_metrics_snapshot(const struct jankd *d, enum jank_metrics_format f)
{
	struct metrics_snap *sn = calloc(1, sizeof(*sn));
	struct jank_metrics *m;

	if (!sn)
		return NULL;
	m = &sn->m;
	sn->f = f;
	m->version = JANK_VERSION;
	m->memory_limit = d->config.graph.memory_limit;
	if (metrics_inputs_read(d, &sn->mi) < 0) {
		jank_status_metrics_free(sn);
		return NULL;
	}
	m->inputs = sn->mi.inputs;
	m->ninputs = sn->mi.s.n;
	m->workers_cpu_ns = sn->mi.workers_cpu_ns + jank_metrics_children_cpu_ns();
	if (d->fleet) {
		struct jank_fleet_discovery disc;

		jank_fleet_get_discovery(d->fleet, &disc); /* zeros without discovery */
		m->sessions_refused = disc.sessions_refused;
		m->inputs_at_limit = disc.at_limit;
		metrics_crossing(jank_fleet_crossing(d->fleet), m, sn->clocks);
		for (size_t i = 0; i < m->nclocks; i++) {
			snprintf(sn->clock_names[i][0], sizeof(sn->clock_names[i][0]), "%s",
				 sn->clocks[i].host ? sn->clocks[i].host : "");
			snprintf(sn->clock_names[i][1], sizeof(sn->clock_names[i][1]), "%s",
				 sn->clocks[i].reference ? sn->clocks[i].reference : "");
			sn->clocks[i].host = sn->clock_names[i][0];
			sn->clocks[i].reference = sn->clock_names[i][1];
		}
	}
	jank_alerter_get_stats(d->alerter, &m->alerts);
	jank_journal_get_stats(&sn->js);
	m->journal = &sn->js;
	if (d->capturer) {
		jank_capturer_get_status(d->capturer, &sn->cs);
		m->captures = &sn->cs.stats;
	}
	if (d->metrics) {
		jank_metrics_server_get_stats(d->metrics, &sn->hs);
		m->http = &sn->hs;
	}
	jank_metrics_process_read(&m->process, d->start_real);
	return sn;
}

char *jank_status_metrics_render(void *snap, size_t *len)
{
	struct metrics_snap *sn = snap;

	return jank_metrics_render(&sn->m, sn->f, len);
}

void jank_status_metrics_free(void *snap)
{
	struct metrics_snap *sn = snap;

	if (!sn)
		return;
	metrics_inputs_free(&sn->mi);
	free(sn);
}

char *jank_status_metrics(const struct jankd *d, enum jank_metrics_format f, size_t *len)
{
	void *sn = jank_status_metrics_snapshot(d, f);
	char *text = sn ? jank_status_metrics_render(sn, len) : NULL;

	jank_status_metrics_free(sn);
	return text;
}
