/* SPDX-License-Identifier: MIT */
/*
 * Discovery of jankd's inputs: a worker lists relayd's sessions, and the
 * fleet watches those that match [live] patterns, up to max-inputs, and lets
 * go of those gone from the lists (see fleet.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet-int.h"

bool fleet_match_any(char *const *pats, size_t n, const char *s)
{
	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (fnmatch(pats[i], s, 0) == 0)
			return true;
	return false;
}

struct jank_fleet_input *fleet_input_find(struct jank_fleet *f, const char *url)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->inputs[i]->url, url))
			return f->inputs[i];
	return NULL;
}

/* The inputs being watched (those discovery let go are on their way out). */
static size_t watched(const struct jank_fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += !f->inputs[i]->removing;
	return n;
}

/*
 * Anyone who can stream to relayd can make sessions: each would be a worker
 * process. Past [live] max-inputs, new sessions are not watched: said once
 * (until the count is below the limit again), counted, shown in status.
 */
static bool below_limit(struct jank_fleet *f, const char *url)
{
	if (watched(f) < f->live->max_inputs) {
		f->at_limit = false;
		return true;
	}
	f->refused++;
	if (!f->at_limit)
		jank_log(LOG_WARNING,
			 "%s: not watched: %zu inputs already, the [live] max-inputs; new sessions "
			 "are counted, not watched, until some go",
			 url, watched(f));
	f->at_limit = true;
	return false;
}

/* A session relayd lists: watch it if it matches, and it is new. */
static void listed(struct jank_fleet *f, const char *host, const char *session)
{
	const struct jank_config_live *l = f->live;
	char url[JANK_CONFIG_URL_LEN + 2 * JANK_CONFIG_SESSION_LEN];
	struct jank_fleet_input *in;

	if (!fleet_match_any(l->hosts, l->nhosts, host) ||
	    !fleet_match_any(l->sessions, l->nsessions, session))
		return;
	snprintf(url, sizeof(url), "%s/host/%s/%s", l->discover, host, session);
	in = fleet_input_find(f, url);
	if (in) {
		in->seen = true;
		in->missing = 0;
		return;
	}
	if (!below_limit(f, url))
		return;
	in = fleet_input_add(f, url, true);
	if (!in) {
		jank_log(LOG_ERR, "%s: out of memory: not watched", url);
		return;
	}
	in->seen = true;
	jank_log(LOG_INFO, "%s: discovered (host %s, session %s): watching it", url, host, session);
	jank_worker_proc_start(in->proc);
}

/* After a list: the discovered inputs it lacked twice in a row are let go. */
static void let_go(struct jank_fleet *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct jank_fleet_input *in = f->inputs[i];

		if (!in->discovered || in->removing || in->seen || ++in->missing < MISSING_POLLS)
			continue;
		jank_log(LOG_NOTICE, "%s: relayd no longer lists the session (destroyed): let go",
			 in->url);
		in->removing = true;
		jank_worker_proc_stop(in->proc);
		if (jank_worker_proc_done(in->proc))
			event_active(f->ev_sweep, EV_TIMEOUT, 0);
	}
}

static void on_sessions(struct jank_fleet *f, struct json_object *msg)
{
	struct jank_worker_proto_sessions ss;
	bool first = !f->listed;
	char err[256];
	int r = jank_worker_proto_sessions_decode(msg, &ss, err, sizeof(err));

	if (r < 0) {
		if (r == -ENOMEM)
			jank_log(LOG_ERR, "discovery: out of memory: a list of sessions is lost");
		else
			fleet_refuse(f->discovery, "a list of sessions", err);
		jank_worker_proto_sessions_fini(&ss);
		return;
	}
	f->polls++;
	if (!ss.ok) {
		f->poll_errors++;
		snprintf(f->list_error, sizeof(f->list_error), "%s", ss.error);
		if (!f->list_down)
			jank_log(LOG_WARNING,
				 "discovery: cannot list the sessions of %s: %s; retrying",
				 f->live->discover, f->list_error);
		f->list_down = true;
		return;
	}
	if (f->list_down)
		jank_log(LOG_NOTICE, "discovery: %s answers again", f->live->discover);
	f->list_down = false;
	f->list_error[0] = '\0';
	f->nlisted = ss.n;
	for (size_t i = 0; i < f->n; i++)
		f->inputs[i]->seen = false;
	for (size_t i = 0; i < ss.n && !f->stopping; i++)
		listed(f, ss.v[i].host, ss.v[i].session);
	jank_worker_proto_sessions_fini(&ss);
	let_go(f);
	jank_worker_proc_recovered(f->discovery, "lists the sessions again");
	f->listed = true;
	if (first)
		f->change_fn(f->data);
}

static struct json_object *discovery_start_msg(struct jank_proc *p, void *data)
{
	struct jank_fleet *f = data;

	(void)p;
	return fleet_start_msg(f, "discover", f->live->discover);
}

void fleet_discovery_message(struct jank_proc *p, struct json_object *msg, void *data)
{
	const char *type = jank_worker_proto_type(msg);

	if (!strcmp(type, "sessions"))
		on_sessions(data, msg);
	else if (!strcmp(type, "log"))
		fleet_on_log(p, msg);
	else if (!strcmp(type, "status"))
		; /* its heartbeat: that it is alive is all it says (the figures are the inputs') */
	else
		jank_worker_proc_refuse(p, "a message of no type the discovery worker sends");
}

static void discovery_gone(struct jank_proc *p, void *data)
{
	(void)p;
	(void)data;
}

const struct jank_worker_proc_ops fleet_discovery_ops = {
	.start_msg = discovery_start_msg,
	.message = fleet_discovery_message,
	.gone = discovery_gone,
};
