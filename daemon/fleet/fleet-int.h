/* SPDX-License-Identifier: MIT */
/*
 * Inside the fleet: its state and what its files (fleet.c, fleet-*.c)
 * share. Not for use outside daemon/fleet/fleet*.c and their test.
 */
#ifndef JANK_FLEET_INT_H
#define JANK_FLEET_INT_H

#include "alerted.h"
#include "array.h"
#include "baseline-file.h"
#include "clock.h"
#include "crossing.h"
#include "dirtree.h"
#include "fleet.h"
#include "input-figures.h"
#include "json-read.h"
#include "json-util.h"
#include "log.h"
#include "relayd.h"
#include "skipped.h"
#include "units.h"
#include "worker-proc.h"
#include "worker-proto.h"

#define CHECK_NS      1000000000LL /* silent workers are looked for this often */
#define STALL_NS      3000000000LL /* a connected input's worker silent this long: stalled */
#define MISSING_POLLS 2		   /* lists in a row without a session: gone */
#define ERR_LEN	      512

struct jank_fleet_input {
	struct jank_fleet *fleet;
	char *url, *host, *session;
	bool discovered;
	struct jank_proc *proc;
	struct jank_input_figures status; /* the worker's last (or the placeholder) */
	bool fresh;			  /* ... and it is from the current worker */
	struct jank_input_figures past;	  /* the counters of the workers that ended */
	bool attached;			  /* once */
	bool removing;			  /* discovery let it go */
	bool seen;			  /* in the list being read */
	unsigned missing;		  /* lists in a row that lacked it */

	struct jank_alerted alerted; /* by this input's workers, so far */

	/* Stalled: its trace time still (the worker says so, or is blocked). */
	bool stalled;
	int64_t stalled_mono; /* when it last advanced, before the stall */
	int64_t stalled_real; /* the same, on the wall clock */
	uint64_t stalls;
	struct jank_skipped skipped; /* what their restarts skipped */
};

struct jank_fleet {
	struct event_base *base;
	jank_fleet_verdict_fn verdict_fn;
	jank_fleet_change_fn change_fn;
	void *data;

	struct json_object
		*config; /* [{name, text}, ...]: the file and drop-ins, for the workers */
	const struct jank_rule *rules;
	size_t nrules;
	const struct jank_config_live *live;

	struct jank_fleet_input **inputs;
	size_t n, cap;

	struct jank_proc *discovery;
	bool listed;	/* relayd answered once */
	bool list_down; /* it stopped answering: logged */
	uint64_t polls, poll_errors;
	/* [live] max-inputs: sessions discovery did not watch, and whether that was said. */
	uint64_t refused;
	bool at_limit;
	size_t nlisted; /* sessions in the last list */
	char list_error[ERR_LEN];

	struct event *ev_sigchld, *ev_check, *ev_sweep;
	bool stopping;

	struct jank_crossing *crossing; /* paths across hosts (crossing.h) */
	bool multi_host;		/* inputs of two hosts or more: workers send their flows */

	char *state_dir;   /* [daemon] state-dir, as at start */
	bool state_failed; /* a write failed: said once */

	jank_fleet_fetch_fn fetch_fn; /* NULL: no debuginfod servers */
	void *fetch_data;
	jank_fleet_names_fn names_fn; /* NULL: names that came late are ignored */
	void *names_data;
};

/* fleet.c */
void fleet_refuse(struct jank_proc *p, const char *kind, const char *err);
struct json_object *fleet_start_msg(struct jank_fleet *f, const char *mode, const char *url);
void fleet_on_log(struct jank_proc *p, struct json_object *msg);
struct jank_fleet_input *fleet_input_add(struct jank_fleet *f, const char *url, bool discovered);
void fleet_input_message(struct jank_proc *p, struct json_object *msg, void *data);
struct json_object *fleet_input_start_msg(struct jank_proc *p, void *data);

/* fleet-baselines.c */
struct json_object *fleet_state_read(const struct jank_fleet *f, const char *url);
void fleet_on_baselines(struct jank_fleet_input *in, struct json_object *msg);

/* fleet-discovery.c */
extern const struct jank_worker_proc_ops fleet_discovery_ops;
struct jank_fleet_input *fleet_input_find(struct jank_fleet *f, const char *url);
void fleet_discovery_message(struct jank_proc *p, struct json_object *msg, void *data);
bool fleet_match_any(char *const *pats, size_t n, const char *s);

#endif
