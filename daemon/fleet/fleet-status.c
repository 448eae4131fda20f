/* SPDX-License-Identifier: MIT */
/*
 * The status of jankd's inputs and of discovery: the figures of an input
 * (its workers' counters summed), and the JSON the control socket answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet-int.h"

static struct json_object *proc_stats_json(const struct jank_worker_proc_stats *ps)
{
	struct json_object *o = json_object_new_object();
	struct jank_worker_proc_stats s = *ps;

	jank_json_add_i64(o, "pid", s.pid);
	jank_json_add_u64(o, "starts", s.starts);
	jank_json_add_u64(o, "restarts", s.starts ? s.starts - 1 : 0);
	jank_json_add_u64(o, "crashes", s.crashes);
	jank_json_add_u64(o, "timeouts", s.timeouts);
	jank_json_add_u64(o, "bad_frames", s.bad_frames);
	jank_json_add_i64(o, "silent_ns", s.silent_ns);
	jank_json_add_bool(o, "failing", s.failing);
	if (s.failing) {
		jank_json_add_str(o, "last_error", s.error);
		jank_json_add_i64(o, "failing_since", s.failing_since);
	}
	return o;
}

const char *jank_fleet_input_state(const struct jank_fleet_input *in)
{
	struct jank_worker_proc_stats s;

	if (in->removing)
		return "let go";
	if (in->fresh && jank_worker_proc_running(in->proc))
		return in->status.state;
	/* The worker is gone, or the new one has not said anything yet. */
	jank_worker_proc_get_stats(in->proc, &s);
	return s.starts > 1 || s.failing ? "restarting" : "connecting";
}

int jank_fleet_input_figures(const struct jank_fleet_input *in, struct jank_fleet_figures *out)
{
	memset(out, 0, sizeof(*out));
	jank_input_figures_init(&out->fig);
	if (jank_input_figures_merge(&out->fig, &in->status, &in->past) < 0)
		return -ENOMEM;
	/* What the supervisor knows better than the worker. */
	snprintf(out->fig.state, sizeof(out->fig.state), "%s", jank_fleet_input_state(in));
	out->fig.stalled_since = in->stalled ? in->stalled_real : 0;
	out->fig.stalls = in->stalls;
	out->host = in->host;
	out->session = in->session;
	out->discovered = in->discovered;
	out->duplicates_dropped = in->alerted.duplicates;
	out->skipped_ns = in->skipped.total_ns;
	out->skipped_ranges = in->skipped.nranges;
	out->actions_lost = in->skipped.lost;
	jank_worker_proc_get_stats(in->proc, &out->worker);
	return 0;
}

void jank_fleet_figures_blind(const struct jank_fleet_figures *x, struct jank_fleet_blind *out)
{
	const struct jank_input_figures *f = &x->fig;

	memset(out, 0, sizeof(*out));
	out->blind = strcmp(f->state, "connected") && strcmp(f->state, "let go");
	if (!out->blind)
		return;
	if (x->worker.failing && x->worker.error[0] && !x->worker.pid) {
		snprintf(out->reason, sizeof(out->reason), "%s", x->worker.error);
		out->since = x->worker.failing_since;
	} else if (f->problem[0]) {
		snprintf(out->reason, sizeof(out->reason), "%s%s%s", f->problem,
			 f->last_error[0] ? ": " : "", f->last_error);
		out->since = f->problem_since;
	} else if (f->last_error[0]) {
		snprintf(out->reason, sizeof(out->reason), "%s", f->last_error);
	}
}

void jank_fleet_figures_fini(struct jank_fleet_figures *x)
{
	jank_input_figures_fini(&x->fig);
}

struct json_object *jank_fleet_figures_json(const struct jank_fleet_figures *x)
{
	struct json_object *o = jank_input_figures_json(&x->fig);
	struct jank_fleet_blind b;

	if (!o)
		return NULL;
	jank_json_add_str(o, "host", x->host);
	jank_json_add_str(o, "session", x->session);
	jank_json_add_bool(o, "discovered", x->discovered);
	jank_json_add_u64(o, "duplicates_dropped", x->duplicates_dropped);
	json_object_object_add(o, "skipped_seconds",
			       json_object_new_double((double)x->skipped_ns / 1e9));
	jank_json_add_i64(o, "skipped_ns", x->skipped_ns);
	jank_json_add_u64(o, "skipped_ranges", x->skipped_ranges);
	jank_json_add_u64(o, "actions_lost", x->actions_lost);
	if (x->kept) {
		jank_json_add_u64(o, "session_recreated", x->session_recreated);
		jank_json_add_u64(o, "session_recreate_refused", x->session_recreate_refused);
		jank_json_add_u64(o, "session_probes_unconfirmed", x->session_probes_unconfirmed);
	}
	jank_json_add(o, "worker", proc_stats_json(&x->worker));
	jank_fleet_figures_blind(x, &b);
	jank_json_add_bool(o, "blind", b.blind);
	if (b.blind) {
		jank_json_add_str(o, "blind_reason", b.reason);
		jank_json_add_i64(o, "blind_since", b.since);
	}
	return o;
}

struct json_object *jank_fleet_input_json(const struct jank_fleet_input *in)
{
	struct jank_fleet_figures x;
	struct json_object *o = NULL;

	if (jank_fleet_input_figures(in, &x) == 0)
		o = jank_fleet_figures_json(&x);
	jank_fleet_figures_fini(&x);
	return o;
}

static struct json_object *patterns_json(char *const *pats, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_string(pats[i]));
	return a;
}

bool jank_fleet_get_discovery(const struct jank_fleet *f, struct jank_fleet_discovery *out)
{
	memset(out, 0, sizeof(*out));
	if (!f->discovery)
		return false;
	out->relayd = f->live->discover;
	out->hosts = f->live->hosts;
	out->nhosts = f->live->nhosts;
	out->sessions = f->live->sessions;
	out->nsessions = f->live->nsessions;
	out->interval_ns = f->live->discover_interval_ns;
	out->listed = f->listed;
	out->polls = f->polls;
	out->errors = f->poll_errors;
	out->sessions_listed = f->nlisted;
	out->max_inputs = f->live->max_inputs;
	out->sessions_refused = f->refused;
	out->at_limit = f->at_limit;
	out->last_error = f->list_error;
	jank_worker_proc_get_stats(f->discovery, &out->worker);
	return true;
}

static struct json_object *discovery_json(const struct jank_fleet_discovery *d)
{
	struct json_object *o = json_object_new_object();

	jank_json_add_str(o, "relayd", d->relayd);
	jank_json_add(o, "hosts", patterns_json(d->hosts, d->nhosts));
	jank_json_add(o, "sessions", patterns_json(d->sessions, d->nsessions));
	jank_json_add_i64(o, "interval_ns", d->interval_ns);
	jank_json_add_bool(o, "listed", d->listed);
	jank_json_add_u64(o, "polls", d->polls);
	jank_json_add_u64(o, "errors", d->errors);
	jank_json_add_u64(o, "sessions_listed", d->sessions_listed);
	jank_json_add_u64(o, "max_inputs", d->max_inputs);
	jank_json_add_u64(o, "sessions_refused", d->sessions_refused);
	jank_json_add_bool(o, "at_limit", d->at_limit);
	if (d->last_error[0])
		jank_json_add_str(o, "last_error", d->last_error);
	jank_json_add(o, "worker", proc_stats_json(&d->worker));
	return o;
}

void jank_fleet_get_stats(const struct jank_fleet *f, struct jank_fleet_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < f->n; i++) {
		struct jank_worker_proc_stats s;

		jank_worker_proc_get_stats(f->inputs[i]->proc, &s);
		out->workers += s.pid != 0;
		out->restarts += s.starts ? s.starts - 1 : 0;
		out->crashes += s.crashes;
		out->timeouts += s.timeouts;
		out->bad_frames += s.bad_frames;
		out->duplicates_dropped += f->inputs[i]->alerted.duplicates;
	}
}

const struct jank_crossing *jank_fleet_crossing(const struct jank_fleet *f)
{
	return f->crossing;
}

struct json_object *jank_fleet_json(const struct jank_fleet *f)
{
	struct json_object *o = json_object_new_object();
	struct jank_fleet_discovery d;
	struct jank_fleet_stats s;

	jank_fleet_get_stats(f, &s);
	jank_json_add_u64(o, "workers", s.workers);
	jank_json_add_u64(o, "restarts", s.restarts);
	jank_json_add_u64(o, "crashes", s.crashes);
	jank_json_add_u64(o, "timeouts", s.timeouts);
	jank_json_add_u64(o, "bad_frames", s.bad_frames);
	jank_json_add_u64(o, "duplicates_dropped", s.duplicates_dropped);
	jank_json_add_i64(o, "worker_timeout_ns", f->live ? f->live->worker_timeout_ns : 0);
	if (jank_fleet_get_discovery(f, &d))
		jank_json_add(o, "discovery", discovery_json(&d));
	if (f->crossing)
		jank_json_add(o, "crossing", jank_crossing_json(f->crossing));
	return o;
}
