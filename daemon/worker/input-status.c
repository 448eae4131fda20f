/* SPDX-License-Identifier: MIT */
/* The figures of one live input (see input-status.h). */
#include <errno.h>
#include <stdio.h>
#include "input-figures.h"
#include "input-status.h"
#include "symbols.h"

/* Its names with time ("other" among them). */
static int rule_composition(const struct jank_composition *c, struct jank_rule_figures *out)
{
	struct jank_composition_entry v[JANK_COMPOSITION_TOP_MAX + 1];
	size_t n = 0;

	out->composition_top = c->top;
	for (size_t i = 0; i < c->n; i++) {
		bool some = false;

		for (int k = 0; k < JANK_CLASS_COUNT; k++)
			for (int s = 0; s < JANK_STATE_COUNT; s++)
				some |= c->v[i].ns[k][s] != 0;
		if (some)
			v[n++] = c->v[i];
	}
	return jank_input_figures_set_composition(out, v, n);
}

static int rule_figures(const struct jank_engine *e, size_t i, struct jank_rule_figures *out)
{
	const struct jank_rule *r = jank_engine_rule(e, i);
	const struct jank_histogram *h = jank_engine_rule_histogram(e, i);

	snprintf(out->action, sizeof(out->action), "%s", r->name ? r->name : "");
	out->count = h->count;
	out->stats = *jank_engine_rule_stats(e, i);
	out->hist = *h;
	out->threshold_ns = jank_threshold_current(&r->threshold, h);
	out->threshold_kind = (int)r->threshold.kind;
	out->p50_ns = jank_histogram_percentile(h, 50);
	out->p90_ns = jank_histogram_percentile(h, 90);
	out->p99_ns = jank_histogram_percentile(h, 99);
	out->max_ns = h->count ? h->max : 0;
	return rule_composition(jank_engine_rule_composition(e, i), out);
}

int jank_input_status_figures(const struct jank_live_input *w, struct jank_input_figures *f)
{
	const struct jank_engine *e = jank_live_input_engine(w);
	struct jank_live_input_stats ws;

	jank_input_figures_fini(f);
	if (jank_input_figures_set_rules(f, jank_engine_rule_count(e)) < 0)
		return -ENOMEM;
	jank_live_input_get_stats(w, &ws);
	jank_engine_get_stats(e, &f->engine);
	f->reported = f->counted = true;
	snprintf(f->url, sizeof(f->url), "%s", jank_live_input_url(w));
	snprintf(f->state, sizeof(f->state), "%s", jank_live_input_state_name(ws.state));
	snprintf(f->last_error, sizeof(f->last_error), "%s", jank_live_input_last_error(w));
	f->attached = jank_live_input_attached(w);
	{
		const char *note, *d = jank_live_input_decoder(w, &note);

		snprintf(f->decoder, sizeof(f->decoder), "%s", d);
		snprintf(f->decoder_note, sizeof(f->decoder_note), "%s", note);
	}
	f->events_read = ws.events_read;
	f->events_per_sec = ws.events_per_sec;
	f->disconnects = ws.disconnects;
	f->reconnects = ws.reconnects;
	f->trace_now = ws.trace_now;
	f->stalled_since = ws.stalled_since;
	if (ws.problem) {
		snprintf(f->problem, sizeof(f->problem), "%s",
			 jank_live_input_problem_name(ws.problem));
		f->problem_since = ws.problem_since;
	}
	f->stalls = ws.stalls;
	f->last_event_ns = ws.last_event;
	if (jank_live_input_symbols(w)) {
		struct jank_symbols_stats ss;

		jank_symbols_get_stats(jank_live_input_symbols(w), &ss);
		f->opener_opened = ss.opener_opened;
		f->opener_refused = ss.opener_refused;
	}
	for (size_t i = 0; i < f->nrules; i++)
		if (rule_figures(e, i, &f->rules[i]) < 0)
			return -ENOMEM;
	return 0;
}

struct json_object *jank_input_status_json(const struct jank_live_input *w)
{
	struct jank_input_figures f;
	struct json_object *o = NULL;

	jank_input_figures_init(&f);
	if (jank_input_status_figures(w, &f) == 0)
		o = jank_input_figures_json(&f);
	jank_input_figures_fini(&f);
	return o;
}
